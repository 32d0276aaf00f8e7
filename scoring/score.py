"""score_hand: hand JSON in, score JSON out (DESIGN.md), with the tiles each fan is counted on."""
from __future__ import annotations

from . import calculator as C
from . import decompose as D
from .errors import HandError
from .fans import EXPLAINERS, FANS, FanId, Group
from .fans.win import WIN_KONG, WIN_LAST_TILE, WIN_SELF_DRAWN, WIN_WALL_LAST
from .hand import validate_hand
from .notation import format_hand
from .rulesets import RuleSet, get_ruleset, points_of
from .tiles import CODE_TO_INT, GLYPHS, INT_TO_CODE, WINDS

_OFFER = {"left": 1, "across": 2, "right": 3}
_KIND_OF = {D.CHOW: "chow", D.PUNG: "pung", D.KONG: "kong", D.PAIR: "pair"}


def score_hand(hand: dict, rules: str = "mcr") -> dict:
    """Score a hand JSON dict under a rule set; raises HandError with a code and a message."""
    ruleset = get_ruleset(rules)
    valid = validate_hand(hand, ruleset.context_keys)
    if ruleset.scorer is not None:
        return ruleset.scorer(valid, ruleset)
    return score_validated(valid, ruleset)


def hand_to_calculator(hand: dict) -> tuple:
    """(fixed packs, standing tiles, win tile, win flag, prevalent, seat) for scoring.calculator."""
    packs = []
    for meld in hand["melds"]:
        kind = meld["kind"]
        tiles = meld["tiles"]
        if kind == "chow":
            claimed = meld.get("claimed")
            offer = tiles.index(claimed) + 1 if claimed else 1
            packs.append(D.make_pack(offer, D.CHOW, CODE_TO_INT[tiles[1]]))
        else:
            offer = _OFFER.get(meld.get("from"), 1) if meld["exposed"] else 0
            packs.append(D.make_pack(offer, D.KONG if kind == "kong" else D.PUNG, CODE_TO_INT[tiles[0]]))
    ctx = hand["context"]
    flag = ((WIN_SELF_DRAWN if ctx["self_drawn"] else 0) | (WIN_LAST_TILE if ctx["fourth_tile"] else 0)
            | (WIN_KONG if ctx["kong_replacement"] or ctx["robbing_kong"] else 0)
            | (WIN_WALL_LAST if ctx["last_tile"] else 0))
    return (packs, list(map(CODE_TO_INT.__getitem__, hand["concealed"])), CODE_TO_INT[hand["win_tile"]], flag,
            WINDS.index(ctx["prevalent_wind"]), WINDS.index(ctx["seat_wind"]))


def fan_table_of(hand: dict, ruleset: RuleSet) -> tuple:
    """The calculator's (fan table, explanation) for a validated hand; raises HandError if it does not win."""
    packs, standing, win, flag, prevalent, seat = hand_to_calculator(hand)
    try:
        return C.calculate(packs, standing, win, flag, prevalent, seat, ruleset.options, points_of(ruleset))
    except C.NotWinning:
        raise HandError("not_a_winning_hand", f"{format_hand(hand)} is not a winning hand: its tiles do not form "
                        "four sets and a pair, nor 七对, 十三幺, 全不靠 or 组合龙") from None


def score_validated(hand: dict, ruleset: RuleSet) -> dict:
    table, explanation = fan_table_of(hand, ruleset)
    flowers = len(hand["flowers"])
    groups = _groups(hand, explanation)
    rows = _fan_rows(ruleset)
    counted = sorted([(f, n) for f, n in table.items() if n])
    if flowers:
        counted.append((FanId.FLOWER_TILES, flowers))
    whole = [g[1] for g in groups]             # the tiles of fans counted on the whole hand
    whole_text = None
    fans = []
    total = 0
    for fan_id, count in counted:
        row, label, points, explain = rows[fan_id]
        tiles = explain(fan_id, count, groups, hand) if explain else None
        if tiles:
            shown = _tiles_text(tiles)
        else:
            tiles = whole
            if whole_text is None:
                whole_text = _tiles_text(whole)
            shown = whole_text
        total += points * count
        fans.append({**row, "count": count, "tiles": list(map(list, tiles)),
                     "text": f"{label}{'×%d' % count if count > 1 else ''} ({shown})"})
    return {
        "total": total,
        "meets_minimum": total - flowers >= ruleset.minimum,
        "minimum": ruleset.minimum,
        "ruleset": ruleset.name,
        "unit": ruleset.unit,
        "fans": fans,
        "form": explanation["form"],
        "melds": [{"kind": kind, "tiles": list(tiles), "exposed": exposed} for kind, tiles, exposed in groups],
        "hand": hand,
        "text": format_hand(hand),
    }


_ROWS: dict = {}


def _fan_rows(ruleset: RuleSet) -> dict:
    """fan id -> (its static JSON fields under this rule set, its label '一般高 1', its points, its
    explainer or None), built once per rule set."""
    cached = _ROWS.get(ruleset.name)
    if cached is None or cached[0] is not ruleset:     # a re-registered rule set gets new rows
        values = points_of(ruleset)
        rows = {fan.id: ({"id": fan.id, "key": fan.key, "name_zh": fan.name_zh, "name_en": fan.name_en,
                          "points": values[fan.id]}, f"{fan.name_zh} {values[fan.id]}", values[fan.id],
                         EXPLAINERS.get(fan.id)) for fan in FANS}
        cached = _ROWS[ruleset.name] = (ruleset, rows)
    return cached[1]


# ---------------------------------------------------------------- explanations
# A group is (kind, tiles as a tuple of codes, exposed); fans name tuples of codes.

class _Memo(dict):
    """A dict that computes a missing value with `make` and keeps it."""
    __slots__ = ("make",)

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


_GLYPHS = _Memo(lambda tiles: "".join([GLYPHS[t] for t in tiles]))     # tile codes -> 🀇🀈🀉


def _tiles_text(tiles: list) -> str:
    """'🀇🀈🀉, 🀙🀙' for a list of tuples of codes."""
    return ", ".join(map(_GLYPHS.__getitem__, tiles))


def _pack_group(pack: int) -> tuple:
    kind = D.pack_type(pack)
    t = D.pack_tile(pack)
    ints = (t - 1, t, t + 1) if kind == D.CHOW else (t,) * {D.PUNG: 3, D.KONG: 4, D.PAIR: 2}[kind]
    return _KIND_OF[kind], tuple(INT_TO_CODE[x] for x in ints), D.pack_melded(pack)


_PACK_GROUPS = _Memo(_pack_group)


def _groups(hand: dict, explanation: dict) -> list:
    """The decomposition the score was counted on."""
    form = explanation["form"]
    if form in ("regular", "knitted_straight"):
        groups = [_PACK_GROUPS[p] for p in explanation["packs"]]
        if form == "knitted_straight":
            groups.insert(0, ("knitted", tuple(INT_TO_CODE[t] for t in explanation["knitted"]), False))
        return groups
    tiles = tuple(sorted(hand["concealed"] + [hand["win_tile"]], key=CODE_TO_INT.__getitem__))
    if form in ("seven_pairs", "seven_shifted_pairs"):
        return [("pair", tiles[i:i + 2], False) for i in range(0, 14, 2)]
    return [(form, tiles, False)]          # 十三幺, 全不靠, 九莲宝灯: the whole hand is one group


def explain_fan(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    """The tiles (tuples of codes) a fan is counted on."""
    explain = EXPLAINERS.get(fan_id)
    return (explain and explain(fan_id, count, groups, hand)) or [g[1] for g in groups]
