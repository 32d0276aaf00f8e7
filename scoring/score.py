"""score_hand: hand JSON in, score JSON out (DESIGN.md), with the tiles each fan is counted on."""
from __future__ import annotations

from itertools import combinations

from . import calculator as C
from . import decompose as D
from . import fans as F
from .errors import HandError
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
    flag = ((C.WIN_SELF_DRAWN if ctx["self_drawn"] else 0) | (C.WIN_LAST_TILE if ctx["fourth_tile"] else 0)
            | (C.WIN_KONG if ctx["kong_replacement"] or ctx["robbing_kong"] else 0)
            | (C.WIN_WALL_LAST if ctx["last_tile"] else 0))
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
        counted.append((F.FLOWER_TILES, flowers))
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
                         _EXPLAINERS.get(fan.id)) for fan in F.FANS}
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


_WIN_PRIORITY = {"chow": 0, "pair": 1, "knitted": 2, "pung": 3, "kong": 4}   # a special form's one group: 4


def _win_group(groups: list, win: str) -> int:
    """The concealed group the winning tile completed (a chow first, as the waits are read); -1 if none."""
    best, best_rank = -1, 5
    for i, (kind, tiles, exposed) in enumerate(groups):
        if not exposed and win in tiles:
            rank = _WIN_PRIORITY.get(kind, 4)
            if rank < best_rank:
                best, best_rank = i, rank
    return best


def _pick(candidates, count) -> list:
    """Up to `count` combinations, preferring ones that do not reuse a group."""
    chosen, used = [], set()
    for combo in candidates:
        if len(chosen) == count:
            break
        if not used.intersection(combo):
            chosen.append(combo)
            used.update(combo)
    for combo in candidates:
        if len(chosen) == count:
            break
        if combo not in chosen:
            chosen.append(combo)
    return [g for combo in chosen for g in combo]


def _mid(group) -> int:
    return CODE_TO_INT[group[1][1]]


def _pungs(groups: list) -> list:
    return [i for i, g in enumerate(groups) if g[0] == "pung" or g[0] == "kong"]


# Fans counted on particular tiles have an explainer: (fan id, count, groups, hand) ->
# the tuples of codes it is counted on; every other fan, or an explainer that finds nothing, is
# counted on the whole hand.
_EXPLAINERS: dict = {}


def _explains(*fan_ids):
    def register(explainer):
        for fan_id in fan_ids:
            _EXPLAINERS[fan_id] = explainer
        return explainer
    return register


def explain_fan(fan_id: int, count: int, groups: list, hand: dict) -> list:
    """The tiles (tuples of codes) a fan is counted on."""
    explain = _EXPLAINERS.get(fan_id)
    return (explain and explain(fan_id, count, groups, hand)) or [g[1] for g in groups]


@_explains(F.FLOWER_TILES)
def _flowers(fan_id, count, groups, hand) -> list:
    return [tuple(hand["flowers"])]


@_explains(F.SELF_DRAWN, F.LAST_TILE, F.LAST_TILE_DRAW, F.LAST_TILE_CLAIM, F.OUT_WITH_REPLACEMENT_TILE,
           F.ROBBING_THE_KONG)
def _win_tile(fan_id, count, groups, hand) -> list:
    return [(hand["win_tile"],)]


@_explains(F.EDGE_WAIT, F.CLOSED_WAIT, F.SINGLE_WAIT)
def _wait(fan_id, count, groups, hand) -> list:
    win_index = _win_group(groups, hand["win_tile"])
    return [groups[win_index][1]] if win_index >= 0 else [(hand["win_tile"],)]


@_explains(F.PURE_DOUBLE_CHOW, F.MIXED_DOUBLE_CHOW, F.SHORT_STRAIGHT, F.TWO_TERMINAL_CHOWS)
def _two_chows(fan_id, count, groups, hand) -> list:
    chows = [i for i, g in enumerate(groups) if g[0] == "chow"]
    cands = [c for c in combinations(chows, 2) if C.two_chows_fan(_mid(groups[c[0]]), _mid(groups[c[1]])) == fan_id]
    return [groups[i][1] for i in _pick(cands, count)]


@_explains(F.MIXED_SHIFTED_CHOWS, F.MIXED_TRIPLE_CHOW, F.MIXED_STRAIGHT, F.PURE_STRAIGHT,
           F.PURE_SHIFTED_CHOWS, F.PURE_TRIPLE_CHOW)
def _three_chows(fan_id, count, groups, hand) -> list:
    chows = [i for i, g in enumerate(groups) if g[0] == "chow"]
    cands = [c for c in combinations(chows, 3) if C.three_chows_fan(*sorted(_mid(groups[i]) for i in c)) == fan_id]
    return [groups[i][1] for i in _pick(cands, count)]


@_explains(F.FOUR_PURE_SHIFTED_CHOWS, F.QUADRUPLE_CHOW, F.PURE_TERMINAL_CHOWS, F.THREE_SUITED_TERMINAL_CHOWS)
def _four_chows(fan_id, count, groups, hand) -> list:
    return [g[1] for g in groups if g[0] in ("chow", "pair")]


@_explains(F.DOUBLE_PUNG, F.TWO_DRAGONS_PUNGS)
def _two_pungs(fan_id, count, groups, hand) -> list:
    pungs = _pungs(groups)
    cands = [c for c in combinations(pungs, 2) if C.two_pungs_fan(_mid(groups[c[0]]), _mid(groups[c[1]])) == fan_id]
    return [groups[i][1] for i in _pick(cands, count)]


@_explains(F.TRIPLE_PUNG, F.PURE_SHIFTED_PUNGS, F.MIXED_SHIFTED_PUNGS, F.BIG_THREE_WINDS, F.BIG_THREE_DRAGONS)
def _three_pungs(fan_id, count, groups, hand) -> list:
    pungs = _pungs(groups)
    cands = [c for c in combinations(pungs, 3) if C.three_pungs_fan(*sorted(_mid(groups[i]) for i in c)) == fan_id]
    return [groups[i][1] for i in _pick(cands, count)]


@_explains(F.FOUR_PURE_SHIFTED_PUNGS, F.BIG_FOUR_WINDS)
def _four_pungs(fan_id, count, groups, hand) -> list:
    return [groups[i][1] for i in _pick([tuple(_pungs(groups))], count)]


@_explains(F.LITTLE_THREE_DRAGONS, F.LITTLE_FOUR_WINDS)
def _little_honours(fan_id, count, groups, hand) -> list:
    honours = C.DRAGONS if fan_id == F.LITTLE_THREE_DRAGONS else C.WINDS
    return [g[1] for g in groups if g[0] in ("pung", "kong", "pair") and _mid(g) in honours]


@_explains(F.DRAGON_PUNG)
def _dragon_pungs(fan_id, count, groups, hand) -> list:
    return [groups[i][1] for i in _pungs(groups) if _mid(groups[i]) in C.DRAGONS][:count]


def _wind_code(letter: str) -> str:
    return "F%d" % (WINDS.index(letter) + 1)


@_explains(F.PREVALENT_WIND, F.SEAT_WIND)
def _wind_pung(fan_id, count, groups, hand) -> list:
    code = _wind_code(hand["context"]["prevalent_wind" if fan_id == F.PREVALENT_WIND else "seat_wind"])
    return [groups[i][1] for i in _pungs(groups) if groups[i][1][0] == code]


@_explains(F.PUNG_OF_TERMINALS_OR_HONORS)
def _terminal_or_honour_pungs(fan_id, count, groups, hand) -> list:
    ctx = hand["context"]
    special = {_wind_code(ctx["prevalent_wind"]), _wind_code(ctx["seat_wind"])}
    found = [groups[i][1] for i in _pungs(groups) if _mid(groups[i]) in C.TERMINALS or _mid(groups[i]) in C.WINDS]
    plain = [t for t in found if t[0] not in special]
    return (plain + [t for t in found if t[0] in special])[:count]


_KONG_FANS = {F.MELDED_KONG: True, F.TWO_MELDED_KONGS: True, F.CONCEALED_KONG: False,
              F.TWO_CONCEALED_KONGS: False, F.THREE_KONGS: None, F.FOUR_KONGS: None,
              F.CONCEALED_KONG_AND_MELDED_KONG: None}


@_explains(*_KONG_FANS)
def _kongs(fan_id, count, groups, hand) -> list:
    want = _KONG_FANS[fan_id]
    return [g[1] for g in groups if g[0] == "kong" and (want is None or g[2] == want)]


@_explains(F.TWO_CONCEALED_PUNGS, F.THREE_CONCEALED_PUNGS, F.FOUR_CONCEALED_PUNGS)
def _concealed_pungs(fan_id, count, groups, hand) -> list:
    concealed = [i for i in _pungs(groups) if not groups[i][2]]
    if not hand["context"]["self_drawn"]:
        win_index = _win_group(groups, hand["win_tile"])
        concealed = [i for i in concealed if i != win_index or groups[i][0] == "kong"] or concealed
    return [groups[i][1] for i in concealed] or [g[1] for g in groups]


@_explains(F.TILE_HOG)
def _tile_hog(fan_id, count, groups, hand) -> list:
    counts: dict = {}
    for g in groups:
        for t in g[1]:
            counts[t] = counts.get(t, 0) + 1
    kong_tiles = {g[1][0] for g in groups if g[0] == "kong"}
    return [(t,) * 4 for t, n in counts.items() if n == 4 and t not in kong_tiles][:count] or \
        [(t,) * 4 for t, n in counts.items() if n == 4][:count]


@_explains(F.KNITTED_STRAIGHT)
def _knitted(fan_id, count, groups, hand) -> list:
    return [groups[0][1]] if groups[0][0] == "knitted" else []
