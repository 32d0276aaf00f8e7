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
from .notation import format_hand
from .rulesets import MCR, RuleSet, register_ruleset
from .tiles import HONOR_TILES, PLAYING_TILES, SUIT_TILES, glyph

NAME = "lianzhong"
FIRST_TURNS = ("initial_deal", "first_draw_after_dealer", "first_go_around")
CONTEXT_DEFAULTS = {"dealer": False, "first_turn": None, "wild_tile": None}
WINDS = ("F1", "F2", "F3", "F4")


class SeedFan(Fan):
    """A fan row that also carries the seed's words for it."""
    quote: str

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


# Predicates: (hand, this rule set's context, the groups MCR counted) -> the tile groups the fan
# is counted on, or None.

def four_winds_green_pair(hand: dict, context: dict, groups: list):
    """A pung or kong of each wind and a pair of 发: all other tiles are these."""
    counts = Counter(_all_tiles(hand))
    if all(counts[w] >= 3 for w in WINDS) and counts["J2"] == 2 and set(counts) == set(WINDS) | {"J2"}:
        return [[w] * counts[w] for w in WINDS] + [["J2", "J2"]]
    return None


def heavenly_hand(hand: dict, context: dict, groups: list):
    return groups if context["first_turn"] == "initial_deal" else None


def earthly_hand(hand: dict, context: dict, groups: list):
    return groups if context["first_turn"] == "first_draw_after_dealer" else None


def human_hand(hand: dict, context: dict, groups: list):
    return groups if context["first_turn"] == "first_go_around" else None


def wild_kong(hand: dict, context: dict, groups: list):
    wild = context["wild_tile"]
    for meld in hand["melds"]:
        if wild and meld["kind"] == "kong" and meld["tiles"][0] == wild:
            return [list(meld["tiles"])]
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


def could_win(vec: list, melds: int) -> bool:
    """A quick test that the concealed counts `vec` (34, in PLAYING_TILES order) may win; the calculator
    decides.  True for every winning shape (four sets and a pair, 七对, 十三幺, 全不靠/七星不靠, 组合龙);
    it may also be true for a few tiles that do not win."""
    groups = (tuple(vec[0:9]), tuple(vec[9:18]), tuple(vec[18:27]))
    honours = tuple(vec[27:34])
    for holder in range(4):   # which suit (or the honours) holds the pair
        if all(_suit_sets(g, i == holder) for i, g in enumerate(groups)) and _honour_sets(honours, holder == 3):
            return True
    present = {PLAYING_TILES[i] for i, n in enumerate(vec) if n}
    if melds:
        return melds == 1 and any(k <= present for k in _KNITTED)
    return (all(n % 2 == 0 for n in vec) or present == _THIRTEEN or max(vec) <= 1
            or any(k <= present for k in _KNITTED))


MAX_FREE_WILDS = 2   # up to this many concealed wild tiles are tried as every tile


def candidate_tiles(hand: dict, wild: str, wilds: int) -> tuple:
    """The tiles a wild tile is tried as: every tile for up to MAX_FREE_WILDS wild tiles; beyond that
    (a bounded search) the honours and the tiles at most two ranks from a tile of the hand."""
    if wilds <= MAX_FREE_WILDS:
        return PLAYING_TILES
    own = {t for t in _all_tiles(hand) if t != wild}
    near = {f"{t[0]}{r}" for t in own if t[0] in "WTB"
            for r in range(int(t[1]) - 2, int(t[1]) + 3) if 1 <= r <= 9}
    return tuple(t for t in PLAYING_TILES if t in near or t in HONOR_TILES)


def substitutions(hand: dict, wild: str):
    """The ways the concealed wild tiles may stand for other tiles and make a winning shape.

    Yields (concealed, win_tile, stands_for) with the wild tiles replaced; the winning tile,
    if it is a wild tile, is replaced too."""
    index = {code: i for i, code in enumerate(PLAYING_TILES)}
    concealed = [t for t in hand["concealed"] if t != wild]
    win_is_wild = hand["win_tile"] == wild
    wilds = len(hand["concealed"]) - len(concealed) + win_is_wild
    fixed = [0] * len(PLAYING_TILES)
    for t in concealed + ([] if win_is_wild else [hand["win_tile"]]):
        fixed[index[t]] += 1
    room = [4 - n for n in fixed]
    for meld in hand["melds"]:
        for t in meld["tiles"]:
            room[index[t]] -= 1
    seen = set()
    for chosen in itertools.combinations_with_replacement(candidate_tiles(hand, wild, wilds), wilds):
        vec = list(fixed)
        for t in chosen:
            vec[index[t]] += 1
        if any(vec[index[t]] - fixed[index[t]] > room[index[t]] for t in chosen):
            continue
        if not could_win(vec, len(hand["melds"])):
            continue
        for win in (sorted(set(chosen)) if win_is_wild else [hand["win_tile"]]):
            rest = list(chosen)
            if win_is_wild:
                rest.remove(win)
            key = (tuple(sorted(concealed + rest)), win)
            if key not in seen:
                seen.add(key)
                yield concealed + rest, win, list(chosen)


# ---------------------------------------------------------------- scoring

def _mcr_score(hand: dict) -> dict:
    from .score import score_hand
    return score_hand(hand, MCR.name)


def _total(hand: dict, ours: dict, counts: dict, values: list) -> int:
    """The total by this rule set of an MCR fan table {fan id: count}: the 联众 hands add their points
    and take away the fans they are not counted with."""
    total = sum(values[i] * n for i, n in counts.items())
    for fan in EXTRA_FANS:
        if PREDICATES[fan.key](hand, ours, []) is not None:
            total += fan.points - sum(values[F.BY_KEY[k].id] * counts.get(F.BY_KEY[k].id, 0)
                                      for k in fan.excludes)
    return total


def _best_with_wilds(hand: dict, ours: dict):
    """The substitution of the wild tiles that scores highest by this rule set (ties: the first in
    tile order), with its MCR score."""
    from .hand import validate_hand
    from .score import fan_table_of
    wild = ours["wild_tile"]
    values = MCR.points()
    best = None
    for concealed, win, stands_for in substitutions(hand, wild):
        trial = {**hand, "concealed": concealed, "win_tile": win}
        try:
            table, _ = fan_table_of(validate_hand(trial), MCR)
        except HandError:
            continue
        counts = dict(table) if isinstance(table, dict) else dict(enumerate(table))
        total = _total(trial, ours, counts, values)
        if best is None or total > best[0]:
            best = (total, trial, stands_for)
    if best is None:
        raise HandError("not_a_winning_hand", f"no tiles that the wild {glyph(wild)} could stand for make "
                        "a winning hand")
    return _mcr_score(best[1]), best[1], best[2]


def _fan_json(fan: Fan, tiles: list) -> dict:
    shown = ", ".join("".join(glyph(t) for t in group) for group in tiles)
    return {"id": fan.id, "key": fan.key, "name_zh": fan.name_zh, "name_en": fan.name_en,
            "points": fan.points, "count": 1, "tiles": tiles, "text": f"{fan.name_zh} {fan.points} ({shown})"}


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
        score, mcr_hand, stands_for = _best_with_wilds(mcr_hand, ours)
    else:
        score = _mcr_score(mcr_hand)
    groups = [g["tiles"] for g in score.get("melds", [])]
    extras = []
    for fan in EXTRA_FANS:
        tiles = PREDICATES[fan.key](mcr_hand, ours, groups)
        if tiles is not None:
            extras.append(_fan_json(fan, tiles))
    excluded = {k for fan in EXTRA_FANS if any(e["key"] == fan.key for e in extras) for k in fan.excludes}
    fans = [f for f in score["fans"] if f.get("key") not in excluded] + extras
    total = sum(f["points"] * f["count"] for f in fans)
    result = {**score, "ruleset": NAME, "fans": fans, "total": total,
              "meets_minimum": bool(score["meets_minimum"] or extras), "hand": hand, "text": format_hand(hand)}
    if stands_for is not None:
        result["wild"] = {"tile": wild, "stands_for": stands_for,
                          "concealed": mcr_hand["concealed"], "win_tile": mcr_hand["win_tile"]}
        result["text"] += f"   混{glyph(wild)} = {''.join(glyph(t) for t in stands_for)}"
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
