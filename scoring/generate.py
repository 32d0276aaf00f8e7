"""A seeded generator of legal winning hands (hand JSON) for tests, benchmarks and synthetic scenes.

    random_winning_hand(random.Random(7))                  # any form
    random_winning_hand(rng, form="nine_gates", flowers=False)

Covers regular hands with exposed and concealed chows, pungs and kongs, every
special form (七对, 连七对, 十三幺, 全不靠, 七星不靠, 组合龙 with the rest of the
hand, 九莲宝灯) and hands built for the rare fans (绿一色, 一色双龙会, 四步高,
推不倒, 大四喜 ...).  Contexts are random but consistent (a kong replacement
only with a kong, robbing a kong only on a discard of a tile the hand lacks).
Every hand is checked to be a winning hand of the scorer before it is returned.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Sequence

from .tiles import FLOWER_TILES, HONOR_TILES, SUIT_TILES, WINDS

SUITS = ("W", "T", "B")
GREEN = ("T2", "T3", "T4", "T6", "T8", "J2")
REVERSIBLE = ("T2", "T4", "T5", "T6", "T8", "T9", "B1", "B2", "B3", "B4", "B5", "B8", "B9", "J3")
TERMINALS = tuple(f"{s}{r}" for s in SUITS for r in (1, 9))
WIND_TILES = ("F1", "F2", "F3", "F4")
DRAGON_TILES = ("J1", "J2", "J3")
KNITTED = ((1, 4, 7), (2, 5, 8), (3, 6, 9))

# form name -> weight in the default mix
FORMS = {
    "regular": 40, "regular_melded": 14, "pungs": 5, "half_flush": 4, "full_flush": 4, "all_simples": 3,
    "outside": 2, "seven_pairs": 4, "seven_shifted_pairs": 1, "thirteen_orphans": 1,
    "honors_and_knitted": 2, "knitted_straight": 3, "nine_gates": 1, "all_green": 1,
    "pure_terminal_chows": 1, "three_suited_terminal_chows": 1, "four_shifted_chows": 1,
    "quadruple_chow": 1, "four_shifted_pungs": 1, "reversible": 1, "big_winds": 1, "dragons": 1,
    "all_honors": 1, "terminals": 1, "straight": 2, "kongs": 2, "upper_lower": 1, "all_five": 1,
    "all_even": 1,
}


def _chow(suit: str, start: int) -> tuple:
    return ("chow", [f"{suit}{start + i}" for i in range(3)])


def _pung(tile: str) -> tuple:
    return ("pung", [tile] * 3)


def _random_set(rng: random.Random, pool, chow_weight: float = 0.55) -> tuple:
    pool = list(pool)
    starts = [t for t in pool if t in SUIT_TILES and int(t[1]) <= 7
              and f"{t[0]}{int(t[1]) + 1}" in pool and f"{t[0]}{int(t[1]) + 2}" in pool]
    if starts and rng.random() < chow_weight:
        t = rng.choice(starts)
        return _chow(t[0], int(t[1]))
    return _pung(rng.choice(pool))


def _fits(sets, pair, extra=()) -> bool:
    counts = Counter(extra)
    for _, tiles in sets:
        counts.update(tiles)
    if pair:
        counts[pair] += 2
    return all(n <= 4 for n in counts.values())


def _regular_sets(rng, pool, chow_weight=0.55, pair_pool=None, tries=200):
    for _ in range(tries):
        sets = [_random_set(rng, pool, chow_weight) for _ in range(4)]
        pair = rng.choice(list(pair_pool or pool))
        if _fits(sets, pair):
            return sets, pair
    raise RuntimeError("could not build a hand from this pool")


def _structure(rng: random.Random, form: str):
    """(sets, pair) for regular forms, or ('special', 14 tiles) for special forms."""
    suit = rng.choice(SUITS)
    if form in ("regular", "regular_melded", "kongs"):
        return _regular_sets(rng, SUIT_TILES + HONOR_TILES, 0.6 if form != "kongs" else 0.3)
    if form == "pungs":
        return _regular_sets(rng, SUIT_TILES + HONOR_TILES, 0.0)
    if form == "half_flush":
        return _regular_sets(rng, [f"{suit}{r}" for r in range(1, 10)] + list(HONOR_TILES), 0.6)
    if form == "full_flush":
        return _regular_sets(rng, [f"{suit}{r}" for r in range(1, 10)], 0.6)
    if form == "all_simples":
        return _regular_sets(rng, [t for t in SUIT_TILES if t[1] not in "19"], 0.6)
    if form == "outside":
        sets = []
        for _ in range(4):
            if rng.random() < 0.5:
                s = rng.choice(SUITS)
                sets.append(_chow(s, rng.choice((1, 7))))
            else:
                sets.append(_pung(rng.choice(TERMINALS + HONOR_TILES)))
        pair = rng.choice(TERMINALS + HONOR_TILES)
        return (sets, pair) if _fits(sets, pair) else _structure(rng, form)
    if form == "all_green":
        return _regular_sets(rng, GREEN, 0.4)
    if form == "reversible":
        return _regular_sets(rng, REVERSIBLE, 0.4)
    if form == "pure_terminal_chows":
        return [_chow(suit, 1), _chow(suit, 1), _chow(suit, 7), _chow(suit, 7)], f"{suit}5"
    if form == "three_suited_terminal_chows":
        a, b = [s for s in SUITS if s != suit]
        return [_chow(a, 1), _chow(a, 7), _chow(b, 1), _chow(b, 7)], f"{suit}5"
    if form == "four_shifted_chows":
        step = rng.choice((1, 2))
        start = rng.randint(1, 7 - 3 * step)
        sets = [_chow(suit, start + i * step) for i in range(4)]
        pair = rng.choice(SUIT_TILES + HONOR_TILES)
        return (sets, pair) if _fits(sets, pair) else _structure(rng, form)
    if form == "quadruple_chow":
        start = rng.randint(1, 7)
        pair = rng.choice([t for t in SUIT_TILES + HONOR_TILES if not (t[0] == suit and start <= int(t[1]) <= start + 2)])
        return [_chow(suit, start)] * 4, pair
    if form == "four_shifted_pungs":
        start = rng.randint(1, rng.choice((6, 7)))
        sets = [_pung(f"{suit}{start + i}") for i in range(3 if start == 7 else 4)]
        if len(sets) == 3:
            sets.append(_random_set(rng, SUIT_TILES))
        pair = rng.choice(SUIT_TILES + HONOR_TILES)
        return (sets, pair) if _fits(sets, pair) else _structure(rng, form)
    if form == "big_winds":
        winds = list(WIND_TILES)
        rng.shuffle(winds)
        sets = [_pung(w) for w in winds[:3]]
        if rng.random() < 0.5:
            sets.append(_pung(winds[3]))
            pair = rng.choice(SUIT_TILES + DRAGON_TILES)
        else:
            sets.append(_random_set(rng, SUIT_TILES + DRAGON_TILES))
            pair = winds[3] if rng.random() < 0.6 else rng.choice(SUIT_TILES)
        return (sets, pair) if _fits(sets, pair) else _structure(rng, form)
    if form == "dragons":
        dragons = list(DRAGON_TILES)
        rng.shuffle(dragons)
        n = rng.choice((2, 3))
        sets = [_pung(d) for d in dragons[:n]]
        while len(sets) < 4:
            sets.append(_random_set(rng, SUIT_TILES + WIND_TILES))
        pair = dragons[2] if n == 2 and rng.random() < 0.6 else rng.choice(SUIT_TILES + HONOR_TILES)
        return (sets, pair) if _fits(sets, pair) else _structure(rng, form)
    if form == "all_honors":
        return _regular_sets(rng, HONOR_TILES, 0.0)
    if form == "terminals":
        pool = TERMINALS if rng.random() < 0.5 else TERMINALS + HONOR_TILES
        return _regular_sets(rng, pool, 0.0)
    if form == "straight":
        sets = [_chow(suit, 1), _chow(suit, 4), _chow(suit, 7)] if rng.random() < 0.6 else \
            [_chow(s, start) for s, start in zip(rng.sample(SUITS, 3), (1, 4, 7))]
        sets.append(_random_set(rng, SUIT_TILES + HONOR_TILES))
        pair = rng.choice(SUIT_TILES + HONOR_TILES)
        return (sets, pair) if _fits(sets, pair) else _structure(rng, form)
    if form == "upper_lower":
        ranks = rng.choice(("123", "1234", "789", "6789", "456"))
        return _regular_sets(rng, [t for t in SUIT_TILES if t[1] in ranks], 0.5)
    if form == "all_five":
        sets = []
        for _ in range(4):
            s = rng.choice(SUITS)
            sets.append(_chow(s, rng.randint(3, 5)) if rng.random() < 0.7 else _pung(f"{s}5"))
        pair = f"{rng.choice(SUITS)}5"
        return (sets, pair) if _fits(sets, pair) else _structure(rng, form)
    if form == "all_even":
        return _regular_sets(rng, [t for t in SUIT_TILES if t[1] in "2468"], 0.0)
    # special forms: 14 concealed tiles
    if form == "seven_pairs":
        pools: tuple[Sequence[str], ...] = (SUIT_TILES + HONOR_TILES, GREEN, HONOR_TILES, TERMINALS + HONOR_TILES,
                                            [f"{suit}{r}" for r in range(1, 10)],
                                            [t for t in SUIT_TILES if t[1] in "789"])
        pair_kinds = rng.choice(pools)
        kinds = [rng.choice(pair_kinds) for _ in range(7)]
        if any(n > 2 for n in Counter(kinds).values()):
            return _structure(rng, form)
        return "special", [t for k in kinds for t in (k, k)]
    if form == "seven_shifted_pairs":
        start = rng.randint(1, 3)
        return "special", [f"{suit}{start + i}" for i in range(7) for _ in (0, 1)]
    if form == "thirteen_orphans":
        tiles = list(TERMINALS + HONOR_TILES)
        return "special", tiles + [rng.choice(tiles)]
    if form == "honors_and_knitted":
        suits = rng.sample(SUITS, 3)
        numbered = [f"{s}{r}" for s, ranks in zip(suits, KNITTED) for r in ranks]
        n_honours = rng.choice((5, 6, 7))
        tiles = rng.sample(numbered, 14 - n_honours) + rng.sample(HONOR_TILES, n_honours)
        return "special", tiles
    if form == "knitted_straight":
        suits = rng.sample(SUITS, 3)
        body = [f"{s}{r}" for s, ranks in zip(suits, KNITTED) for r in ranks]
        for _ in range(100):
            rest = [_random_set(rng, SUIT_TILES + HONOR_TILES, 0.5)]
            pair = rng.choice(SUIT_TILES + HONOR_TILES)
            if _fits(rest, pair, body):
                return ("knitted", body), rest, pair
        return _structure(rng, form)
    if form == "nine_gates":
        return "special", [f"{suit}{r}" for r in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)] + [f"{suit}{rng.randint(1, 9)}"]
    raise ValueError(f"unknown form {form!r}: choose one of {', '.join(FORMS)}")


def _meld_sets(rng: random.Random, sets: list, form: str, max_melds: int) -> tuple:
    """Decide which sets are melds (exposed chow/pung/kong, concealed kong); returns (melds, concealed sets)."""
    p_meld = {"regular_melded": 0.65, "kongs": 0.5}.get(form, 0.3)
    p_kong = 0.7 if form == "kongs" else 0.15
    melds: list[dict] = []
    concealed: list = []
    for kind, tiles in sets:
        tiles = list(tiles)
        if kind == "pung" and rng.random() < p_kong and len(melds) < max_melds:
            exposed = rng.random() < 0.6
            meld = {"kind": "kong", "tiles": tiles + [tiles[0]], "exposed": exposed}
            if exposed:
                meld["claimed"] = tiles[0]
                meld["from"] = rng.choice(("left", "across", "right"))
            melds.append(meld)
        elif rng.random() < p_meld and len(melds) < max_melds:
            meld = {"kind": kind, "tiles": tiles, "exposed": True, "claimed": rng.choice(tiles),
                    "from": "left" if kind == "chow" else rng.choice(("left", "across", "right"))}
            melds.append(meld)
        else:
            concealed.append(tiles)
    return melds, concealed


def _context(rng: random.Random, hand: dict) -> dict:
    win = hand["win_tile"]
    has_kong = any(m["kind"] == "kong" for m in hand["melds"])
    self_drawn = rng.random() < 0.4
    held_elsewhere = win in hand["concealed"] or any(win in m["tiles"] for m in hand["melds"])
    ctx = {"self_drawn": self_drawn, "seat_wind": rng.choice(WINDS), "prevalent_wind": rng.choice(WINDS),
           "last_tile": rng.random() < 0.08, "kong_replacement": False, "robbing_kong": False,
           "fourth_tile": False}
    if self_drawn and has_kong and rng.random() < 0.3:
        ctx["kong_replacement"] = True
    if not self_drawn and not held_elsewhere and rng.random() < 0.15:
        ctx["robbing_kong"] = True
    if win not in hand["concealed"] and rng.random() < 0.15:
        ctx["fourth_tile"] = True
    return ctx


def random_winning_hand(rng: random.Random, form: str | None = None, flowers: bool = True,
                        max_melds: int = 4, context: bool = True) -> dict:
    """A legal winning hand JSON dict with a random (consistent) context and flowers.

    form: one of FORMS (default: drawn from their weights); flowers: whether to draw 0-8
    flowers; max_melds: the most melds (exposed sets or kongs) the hand may show.
    """
    from .errors import HandError
    from .score import score_hand  # local: scoring.score imports nothing from here
    for _ in range(50):
        chosen = form or rng.choices(list(FORMS), weights=list(FORMS.values()))[0]
        hand = _build(rng, chosen, max_melds)
        if hand is None:
            continue
        if flowers and rng.random() < 0.5:
            hand["flowers"] = sorted(rng.sample(FLOWER_TILES, rng.randint(1, 8)))
        if context:
            hand["context"] = _context(rng, hand)
        try:
            score_hand(hand, "mcr-reference")
        except HandError:   # a tile pool that happened not to make a winning hand: draw again
            continue
        return hand
    raise RuntimeError(f"no winning hand of form {form!r} after 50 draws")


def _build(rng: random.Random, form: str, max_melds: int) -> dict | None:
    built = _structure(rng, form)
    if built[0] == "special":
        tiles = list(built[1])
        rng.shuffle(tiles)
        win = tiles.pop()
        return {"concealed": sorted(tiles, key=SORT.__getitem__), "melds": [], "win_tile": win,
                "flowers": [], "context": {}}
    if isinstance(built[0], tuple) and built[0][0] == "knitted":
        (_, body), rest, pair = built
        melds, concealed_sets = _meld_sets(rng, rest, "regular", min(max_melds, 1))
        tiles = list(body) + [t for s in concealed_sets for t in s] + [pair, pair]
    else:
        sets, pair = built
        melds, concealed_sets = _meld_sets(rng, sets, form, max_melds)
        tiles = [t for s in concealed_sets for t in s] + [pair, pair]
    win = rng.choice(tiles)
    tiles.remove(win)
    return {"concealed": sorted(tiles, key=SORT.__getitem__), "melds": melds, "win_tile": win,
            "flowers": [], "context": {}}


SORT = {t: i for i, t in enumerate(SUIT_TILES + HONOR_TILES)}
