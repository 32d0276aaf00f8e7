"""The `lianzhong` rule set: MCR plus the 联众 (Ourgame) hands above 88 fan of seed 000.

The seed marks five hands 非国标牌型 (not MCR): 四方大发 168, 天和 168, 地和 158, 人和 108 and
混杠 88.  Each is a row of data (scoring.fans.Fan: names, points, the fans it is not counted
with) plus one small predicate; the MCR calculator scores the rest of the hand unchanged.

Context fields this rule set reads (all optional, off by default):
    dealer      true: the winner is the dealer (庄家)
    first_turn  null, or when the win came in the first go-around:
                "initial_deal"             the dealer wins on the dealt tiles (天和)
                "first_draw_after_dealer"  the dealer's next player self-draws right after
                                           the dealer's first discard (地和)
                "first_go_around"          any other win within the first go-around (人和)
    wild_tile   null, or the tile code of the 混 (wild) tile; a concealed wild tile may
                stand for any tile, and the substitution that scores highest is taken
"""
from __future__ import annotations

import itertools
from collections import Counter
from functools import lru_cache

from . import fans as F
from .errors import HandError
from .fans import Fan
from .rulesets import MCR, RuleSet, register_ruleset
from .tiles import HONOR_TILES, PLAYING_TILES, SUIT_TILES, glyph

NAME = "lianzhong"
FIRST_TURNS = ("initial_deal", "first_draw_after_dealer", "first_go_around")
CONTEXT_DEFAULTS = {"dealer": False, "first_turn": None, "wild_tile": None}
WINDS = ("F1", "F2", "F3", "F4")


class SeedFan(Fan):
    """A fan row that also carries the seed's words for it."""

    def __init__(self, *args, quote: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "quote", quote)

    def as_row(self) -> dict:
        return {**super().as_row(), "quote": self.quote}


# The 联众 hands (ids above the MCR table, so the calculator never sees them).
FOUR_WINDS_GREEN_PAIR = SeedFan(
    101, "FOUR_WINDS_GREEN_PAIR", "四方大发", "Four Winds and a Green Pair", 168,
    ("ALL_PUNGS", "PREVALENT_WIND", "SEAT_WIND", "BIG_THREE_WINDS", "BIG_FOUR_WINDS"),
    quote="四方大发 168番（非国标牌型）不重复计算：碰碰和、圈风刻、门风刻、三风刻东南西北四风牌的刻或杠各一，"
          "发一对，实际上就是大四喜和青发对的组合")
HEAVENLY_HAND = SeedFan(102, "HEAVENLY_HAND", "天和", "Heavenly Hand", 168, (),
                        quote="天和 168番（非国标牌型）庄家起牌即和，任何胡牌型均可。")
EARTHLY_HAND = SeedFan(103, "EARTHLY_HAND", "地和", "Earthly Hand", 158, (),
                       quote="地和 158番（非国标牌型）庄家出第一张后，下家自摸即是地和，牌型不限。")
HUMAN_HAND = SeedFan(104, "HUMAN_HAND", "人和", "Human Hand", 108, (),
                     quote="人和 108番（非国标牌型）第一圈内胡牌，牌型不限。")
WILD_KONG = SeedFan(105, "WILD_KONG", "混杠", "Kong of Wild Tiles", 88, (),
                    quote="混杠 88番（非国标牌型）四张混开杠，其它牌型不限。")
EXTRA_FANS = (FOUR_WINDS_GREEN_PAIR, HEAVENLY_HAND, EARTHLY_HAND, HUMAN_HAND, WILD_KONG)


def _all_tiles(hand: dict) -> list[str]:
    return list(hand["concealed"]) + [hand["win_tile"]] + [t for m in hand["melds"] for t in m["tiles"]]


def four_winds_green_pair(hand: dict, context: dict):
    """A pung or kong of each wind and a pair of 发: all other tiles are these."""
    counts = Counter(_all_tiles(hand))
    if all(counts[w] >= 3 for w in WINDS) and counts["J2"] == 2 and set(counts) == set(WINDS) | {"J2"}:
        return [t for t in WINDS for _ in range(counts[t])] + ["J2", "J2"]
    return None


def heavenly_hand(hand: dict, context: dict):
    return _all_tiles(hand) if context["first_turn"] == "initial_deal" else None


def earthly_hand(hand: dict, context: dict):
    return _all_tiles(hand) if context["first_turn"] == "first_draw_after_dealer" else None


def human_hand(hand: dict, context: dict):
    return _all_tiles(hand) if context["first_turn"] == "first_go_around" else None


def wild_kong(hand: dict, context: dict):
    wild = context["wild_tile"]
    for meld in hand["melds"]:
        if wild and meld["kind"] == "kong" and meld["tiles"][0] == wild:
            return list(meld["tiles"])
    return None


PREDICATES = {FOUR_WINDS_GREEN_PAIR.key: four_winds_green_pair, HEAVENLY_HAND.key: heavenly_hand,
              EARTHLY_HAND.key: earthly_hand, HUMAN_HAND.key: human_hand, WILD_KONG.key: wild_kong}


# ---------------------------------------------------------------- context

def read_context(context: dict) -> dict:
    """This rule set's context fields, checked; the defaults switch every one of them off."""
    ours = {**CONTEXT_DEFAULTS, **{k: context[k] for k in CONTEXT_DEFAULTS if k in context}}
    if not isinstance(ours["dealer"], bool):
        raise HandError("invalid_context", f"context 'dealer' must be true or false, not {ours['dealer']!r}")
    turn = ours["first_turn"]
    if turn is not None and turn not in FIRST_TURNS:
        raise HandError("invalid_context", f"context 'first_turn' must be null or one of "
                        f"{', '.join(FIRST_TURNS)}, not {turn!r}")
    wild = ours["wild_tile"]
    if wild is not None and wild not in PLAYING_TILES:
        raise HandError("invalid_context", f"context 'wild_tile' must be null or a tile code "
                        f"(W1-W9, T1-T9, B1-B9, F1-F4, J1-J3), not {wild!r}")
    return ours


def _check_first_turn(hand: dict, ours: dict) -> None:
    turn = ours["first_turn"]
    if turn in ("initial_deal", "first_draw_after_dealer"):
        self_drawn = hand["context"]["self_drawn"]
        if turn == "initial_deal" and not (ours["dealer"] and self_drawn):
            raise HandError("invalid_context", "first_turn 'initial_deal' (天和, 庄家起牌即和) is the dealer's "
                            "win on the dealt tiles: set dealer and self_drawn")
        if turn == "first_draw_after_dealer" and (ours["dealer"] or not self_drawn):
            raise HandError("invalid_context", "first_turn 'first_draw_after_dealer' (地和, 庄家出第一张后，"
                            "下家自摸) is a self-drawn win of the player after the dealer: set self_drawn, "
                            "not dealer")
        exposed = [m for m in hand["melds"] if m.get("exposed", True)]
        if exposed:
            raise HandError("invalid_context", f"first_turn {turn!r}: no tile has been claimed yet, so the "
                            "hand cannot have an exposed meld")


# ---------------------------------------------------------------- wild tiles

_THIRTEEN = frozenset(c for c in SUIT_TILES if c[1] in "19") | frozenset(HONOR_TILES)
_KNITTED = tuple(frozenset(f"{s}{r}" for s, ranks in zip("WTB", perm) for r in ranks)
                 for perm in itertools.permutations(((1, 4, 7), (2, 5, 8), (3, 6, 9))))


@lru_cache(maxsize=None)
def _suit_sets(counts: tuple, pair: bool) -> bool:
    """Can one suit's nine counts (or honours') be split into sets, plus one pair if `pair`?"""
    i = next((j for j, n in enumerate(counts) if n), None)
    if i is None:
        return not pair
    c = list(counts)
    if pair and c[i] >= 2:
        c[i] -= 2
        if _suit_sets(tuple(c), False):
            return True
        c[i] += 2
    if c[i] >= 3:
        c[i] -= 3
        if _suit_sets(tuple(c), pair):
            return True
        c[i] += 3
    if len(c) == 9 and i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        return _suit_sets(tuple(c), pair)
    return False


def _honour_sets(counts: tuple, pair: bool) -> bool:
    if any(n in (1, 4) for n in counts):
        return False
    return sum(n == 2 for n in counts) == (1 if pair else 0)


def could_win(tiles: Counter, melds: int) -> bool:
    """A quick test that `tiles` (the concealed part) may be a winning MCR shape; the calculator decides.

    True for every winning shape (four sets and a pair, 七对, 十三幺, 全不靠/七星不靠, 组合龙);
    it may also be true for a few tiles that do not win."""
    vec = [tiles[c] for c in PLAYING_TILES]
    groups = [tuple(vec[0:9]), tuple(vec[9:18]), tuple(vec[18:27])]
    honours = tuple(vec[27:34])
    for holder in range(4):   # which group holds the pair
        ok = all(_suit_sets(g, i == holder) for i, g in enumerate(groups))
        if ok and _honour_sets(honours, holder == 3):
            return True
    if melds:
        return melds == 1 and any(k <= set(tiles) for k in _KNITTED)
    if all(n % 2 == 0 for n in vec):
        return True
    if set(tiles) == _THIRTEEN:
        return True
    return all(n <= 1 for n in vec) or any(k <= set(tiles) for k in _KNITTED)


def substitutions(hand: dict, wild: str):
    """Every way the concealed wild tiles may stand for other tiles that can make a winning shape.

    Yields (concealed, win_tile, stands_for) with the wild tiles replaced; the winning tile,
    if it is a wild tile, is replaced too."""
    concealed = [t for t in hand["concealed"] if t != wild]
    wilds = len(hand["concealed"]) - len(concealed) + (hand["win_tile"] == wild)
    fixed = Counter(concealed)
    win_is_wild = hand["win_tile"] == wild
    if not win_is_wild:
        fixed[hand["win_tile"]] += 1
    in_melds = Counter(t for m in hand["melds"] for t in m["tiles"])
    seen = set()
    for chosen in itertools.combinations_with_replacement(PLAYING_TILES, wilds):
        tiles = fixed + Counter(chosen)
        if any(tiles[t] + in_melds[t] > 4 for t in set(chosen)):
            continue
        if not could_win(tiles, len(hand["melds"])):
            continue
        wins = sorted(set(chosen)) if win_is_wild else [hand["win_tile"]]
        for win in wins:
            rest = list(chosen)
            if win_is_wild:
                rest.remove(win)
            key = (tuple(sorted(concealed + rest)), win)
            if key not in seen:
                seen.add(key)
                yield concealed + rest, win, list(chosen)


# ---------------------------------------------------------------- scoring

def _mcr_score(hand: dict) -> dict:
    from . import score_hand
    return score_hand(hand, MCR.name)


def _best_with_wilds(hand: dict, wild: str):
    """The MCR score of the substitution that scores highest (ties: the first in tile order)."""
    best = None
    for concealed, win, stands_for in substitutions(hand, wild):
        trial = {**hand, "concealed": concealed, "win_tile": win}
        try:
            score = _mcr_score(trial)
        except HandError:
            continue
        if best is None or score["total"] > best[0]["total"]:
            best = (score, trial, stands_for)
    if best is None:
        raise HandError("not_a_winning_hand", f"no tiles that the wild {glyph(wild)} could stand for make "
                        "a winning hand")
    return best


def _fan_json(fan: Fan, tiles: list) -> dict:
    return {"name_zh": fan.name_zh, "name_en": fan.name_en, "points": fan.points, "count": 1,
            "tiles": tiles, "key": fan.key}


def score_lianzhong(hand: dict, ruleset: RuleSet | None = None) -> dict:
    """Score JSON of a hand by the lianzhong rules: MCR's fans, then the 联众 hands and their 不计."""
    context = hand.get("context") or {}
    ours = read_context(context)
    mcr_hand = {**hand, "context": {k: v for k, v in context.items() if k not in CONTEXT_DEFAULTS}}
    mcr_hand["context"].setdefault("self_drawn", False)
    _check_first_turn(mcr_hand, ours)
    wild = ours["wild_tile"]
    stands_for = None
    if wild and (wild in hand["concealed"] or hand["win_tile"] == wild):
        score, mcr_hand, stands_for = _best_with_wilds(mcr_hand, wild)
    else:
        score = _mcr_score(mcr_hand)
    extras = []
    for fan in EXTRA_FANS:
        tiles = PREDICATES[fan.key](mcr_hand, ours)
        if tiles is not None:
            extras.append((fan, tiles))
    excluded = {F.BY_KEY[k].name_zh for fan, _ in extras for k in fan.excludes if k in F.BY_KEY}
    fans = [f for f in score["fans"] if f["name_zh"] not in excluded] + [_fan_json(f, t) for f, t in extras]
    total = sum(f["points"] * f["count"] for f in fans)
    result = {**score, "ruleset": NAME, "fans": fans, "total": total,
              "meets_minimum": bool(score["meets_minimum"] or extras)}
    if stands_for is not None:
        result["wild"] = {"tile": wild, "stands_for": stands_for,
                          "hand": {"concealed": mcr_hand["concealed"], "win_tile": mcr_hand["win_tile"]}}
    return result


LIANZHONG = register_ruleset(RuleSet(
    name=NAME,
    title="联众 (Ourgame): MCR plus the hands above 88 fan",
    description="MCR (the `mcr` rule set) plus the 联众 hands the seed marks 非国标牌型: 四方大发 168, "
                "天和 168, 地和 158, 人和 108 and 混杠 88. Context fields dealer, first_turn "
                "(initial_deal, first_draw_after_dealer, first_go_around) and wild_tile (the 混 tile, which "
                "may stand for any tile) are optional and off by default.",
    fans=MCR.fans + EXTRA_FANS,
    options=MCR.options,
    context_keys=frozenset(CONTEXT_DEFAULTS),
    scorer=score_lianzhong,
))
