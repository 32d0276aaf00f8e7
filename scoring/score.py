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
    return (packs, [CODE_TO_INT[t] for t in hand["concealed"]], CODE_TO_INT[hand["win_tile"]], flag,
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
    groups, win_index = _groups(hand, explanation)
    values = points_of(ruleset)
    fans = []
    total = 0
    fan_ids = sorted(f for f, n in table.items() if n)
    if flowers:
        fan_ids.append(F.FLOWER_TILES)
    whole = [g[1] for g in groups]             # the tiles of fans counted on the whole hand
    whole_text = None
    for fan_id in fan_ids:
        count = flowers if fan_id == F.FLOWER_TILES else table[fan_id]
        fan = F.BY_ID[fan_id]
        points = values[fan_id]
        tiles = explain_fan(fan_id, count, groups, win_index, hand) if fan_id in _OWN_TILES else None
        if tiles:
            shown = ", ".join([_glyphs(t) for t in tiles])
        else:
            tiles = whole
            if whole_text is None:
                whole_text = ", ".join([_glyphs(t) for t in whole])
            shown = whole_text
        total += points * count
        fans.append({
            "id": fan_id, "key": fan.key, "name_zh": fan.name_zh, "name_en": fan.name_en,
            "points": points, "count": count, "tiles": [list(t) for t in tiles],
            "text": f"{fan.name_zh} {points}{'×%d' % count if count > 1 else ''} ({shown})",
        })
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


# ---------------------------------------------------------------- explanations
# A group is (kind, tiles as a tuple of codes, exposed); fans name tuples of codes.

_GLYPHS: dict = {}


def _glyphs(tiles: tuple) -> str:
    text = _GLYPHS.get(tiles)
    if text is None:
        text = _GLYPHS[tiles] = "".join([GLYPHS[t] for t in tiles])
    return text


_PACK_GROUPS: dict = {}


def _pack_group(pack: int) -> tuple:
    group = _PACK_GROUPS.get(pack)
    if group is None:
        kind = D.pack_type(pack)
        t = D.pack_tile(pack)
        ints = (t - 1, t, t + 1) if kind == D.CHOW else (t,) * {D.PUNG: 3, D.KONG: 4, D.PAIR: 2}[kind]
        group = _PACK_GROUPS[pack] = (_KIND_OF[kind], tuple(INT_TO_CODE[x] for x in ints), D.pack_melded(pack))
    return group


def _groups(hand: dict, explanation: dict) -> tuple:
    """The decomposition the score was counted on, and the index of the group the winning tile
    completed (-1 when the form has no such group)."""
    form = explanation["form"]
    win = hand["win_tile"]
    if form in ("regular", "knitted_straight"):
        groups = [_pack_group(p) for p in explanation["packs"]]
        if form == "knitted_straight":
            groups.insert(0, ("knitted", tuple(INT_TO_CODE[t] for t in explanation["knitted"]), False))
        return groups, _win_group(groups, win)
    tiles = tuple(sorted(hand["concealed"] + [win], key=CODE_TO_INT.__getitem__))
    if form in ("seven_pairs", "seven_shifted_pairs"):
        groups = [("pair", tiles[i:i + 2], False) for i in range(0, 14, 2)]
        return groups, _win_group(groups, win)
    return [(form, tiles, False)], 0


_WIN_PRIORITY = {"chow": 0, "pair": 1, "knitted": 2, "pung": 3, "kong": 4}


def _win_group(groups: list, win: str) -> int:
    """The concealed group the winning tile completed (a chow first, as the waits are read)."""
    best, best_rank = -1, 5
    for i, (kind, tiles, exposed) in enumerate(groups):
        if not exposed and win in tiles:
            rank = _WIN_PRIORITY.get(kind, 5)
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


_TWO_CHOW_FANS = {F.PURE_DOUBLE_CHOW, F.MIXED_DOUBLE_CHOW, F.SHORT_STRAIGHT, F.TWO_TERMINAL_CHOWS}
_THREE_CHOW_FANS = {F.MIXED_SHIFTED_CHOWS, F.MIXED_TRIPLE_CHOW, F.MIXED_STRAIGHT, F.PURE_STRAIGHT,
                    F.PURE_SHIFTED_CHOWS, F.PURE_TRIPLE_CHOW}
_FOUR_CHOW_FANS = {F.FOUR_PURE_SHIFTED_CHOWS, F.QUADRUPLE_CHOW, F.PURE_TERMINAL_CHOWS,
                   F.THREE_SUITED_TERMINAL_CHOWS}
_PUNG_SET_FANS = {F.DOUBLE_PUNG: 2, F.TWO_DRAGONS_PUNGS: 2, F.TRIPLE_PUNG: 3, F.PURE_SHIFTED_PUNGS: 3,
                  F.MIXED_SHIFTED_PUNGS: 3, F.BIG_THREE_WINDS: 3, F.BIG_THREE_DRAGONS: 3,
                  F.FOUR_PURE_SHIFTED_PUNGS: 4, F.BIG_FOUR_WINDS: 4}
_KONG_FANS = {F.MELDED_KONG: True, F.TWO_MELDED_KONGS: True, F.CONCEALED_KONG: False,
              F.TWO_CONCEALED_KONGS: False, F.THREE_KONGS: None, F.FOUR_KONGS: None,
              F.CONCEALED_KONG_AND_MELDED_KONG: None}
_WIN_FANS = {F.SELF_DRAWN, F.LAST_TILE, F.LAST_TILE_DRAW, F.LAST_TILE_CLAIM, F.OUT_WITH_REPLACEMENT_TILE,
             F.ROBBING_THE_KONG}
_WAIT_FANS = {F.EDGE_WAIT, F.CLOSED_WAIT, F.SINGLE_WAIT}


# fans counted on particular tiles; every other fan is counted on the whole hand
_OWN_TILES = ({F.FLOWER_TILES, F.LITTLE_THREE_DRAGONS, F.LITTLE_FOUR_WINDS, F.DRAGON_PUNG, F.PREVALENT_WIND,
               F.SEAT_WIND, F.PUNG_OF_TERMINALS_OR_HONORS, F.TWO_CONCEALED_PUNGS, F.THREE_CONCEALED_PUNGS,
               F.FOUR_CONCEALED_PUNGS, F.TILE_HOG, F.KNITTED_STRAIGHT}
              | _WIN_FANS | _WAIT_FANS | _TWO_CHOW_FANS | _THREE_CHOW_FANS | _FOUR_CHOW_FANS
              | set(_PUNG_SET_FANS) | set(_KONG_FANS))


def _three_pungs_ok(fan_id, mids) -> bool:
    return C.three_pungs_fan(*sorted(mids)) == fan_id


def _mid(group) -> int:
    return CODE_TO_INT[group[1][1]]


def explain_fan(fan_id: int, count: int, groups: list, win_index: int, hand: dict) -> list:
    """The tiles (tuples of codes) a fan is counted on."""
    if fan_id == F.FLOWER_TILES:
        return [tuple(hand["flowers"])]
    if fan_id in _WIN_FANS:
        return [(hand["win_tile"],)]
    if fan_id in _WAIT_FANS:
        return [groups[win_index][1]] if win_index >= 0 else [(hand["win_tile"],)]
    if fan_id in _TWO_CHOW_FANS or fan_id in _THREE_CHOW_FANS:
        chows = [i for i, g in enumerate(groups) if g[0] == "chow"]
        mids = {i: _mid(groups[i]) for i in chows}
        if fan_id in _TWO_CHOW_FANS:
            cands = [c for c in combinations(chows, 2) if C.two_chows_fan(mids[c[0]], mids[c[1]]) == fan_id]
        else:
            cands = [c for c in combinations(chows, 3)
                     if C.three_chows_fan(*sorted(mids[i] for i in c)) == fan_id]
        if cands:
            return [groups[i][1] for i in _pick(cands, count)]
    if fan_id in _FOUR_CHOW_FANS:
        return [g[1] for g in groups if g[0] in ("chow", "pair")]
    pungs = [i for i, g in enumerate(groups) if g[0] in ("pung", "kong")]
    if fan_id in _PUNG_SET_FANS:
        n = _PUNG_SET_FANS[fan_id]
        mids = {i: _mid(groups[i]) for i in pungs}
        if n == 2:
            cands = [c for c in combinations(pungs, 2) if C.two_pungs_fan(mids[c[0]], mids[c[1]]) == fan_id]
        elif n == 3:
            cands = [c for c in combinations(pungs, 3) if _three_pungs_ok(fan_id, [mids[i] for i in c])]
        else:
            cands = [tuple(pungs)]
        if cands:
            return [groups[i][1] for i in _pick(cands, count)]
    if fan_id in (F.LITTLE_THREE_DRAGONS, F.LITTLE_FOUR_WINDS):
        honours = C.DRAGONS if fan_id == F.LITTLE_THREE_DRAGONS else C.WINDS
        return [g[1] for g in groups if g[0] in ("pung", "kong", "pair") and _mid(g) in honours]
    if fan_id == F.DRAGON_PUNG:
        return [groups[i][1] for i in pungs if _mid(groups[i]) in C.DRAGONS][:count]
    if fan_id in (F.PREVALENT_WIND, F.SEAT_WIND):
        wind = hand["context"]["prevalent_wind" if fan_id == F.PREVALENT_WIND else "seat_wind"]
        code = "F%d" % (WINDS.index(wind) + 1)
        return [groups[i][1] for i in pungs if groups[i][1][0] == code]
    if fan_id == F.PUNG_OF_TERMINALS_OR_HONORS:
        ctx = hand["context"]
        special = {"F%d" % (WINDS.index(ctx["prevalent_wind"]) + 1), "F%d" % (WINDS.index(ctx["seat_wind"]) + 1)}
        found = [groups[i][1] for i in pungs if _mid(groups[i]) in C.TERMINALS or _mid(groups[i]) in C.WINDS]
        plain = [t for t in found if t[0] not in special]
        return (plain + [t for t in found if t[0] in special])[:count]
    if fan_id in _KONG_FANS:
        want = _KONG_FANS[fan_id]
        return [g[1] for g in groups if g[0] == "kong" and (want is None or g[2] == want)]
    if fan_id in (F.TWO_CONCEALED_PUNGS, F.THREE_CONCEALED_PUNGS, F.FOUR_CONCEALED_PUNGS):
        concealed = [i for i in pungs if not groups[i][2]]
        if not hand["context"]["self_drawn"]:
            concealed = [i for i in concealed if i != win_index or groups[i][0] == "kong"] or concealed
        return [groups[i][1] for i in concealed] or [g[1] for g in groups]
    if fan_id == F.TILE_HOG:
        counts: dict = {}
        for g in groups:
            for t in g[1]:
                counts[t] = counts.get(t, 0) + 1
        kong_tiles = {g[1][0] for g in groups if g[0] == "kong"}
        return [(t,) * 4 for t, n in counts.items() if n == 4 and t not in kong_tiles][:count] or \
            [(t,) * 4 for t, n in counts.items() if n == 4][:count]
    if fan_id == F.KNITTED_STRAIGHT and groups[0][0] == "knitted":
        return [groups[0][1]]
    return [g[1] for g in groups]
