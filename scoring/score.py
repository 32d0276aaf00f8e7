"""score_hand: hand JSON in, score JSON out (DESIGN.md), with the tiles each fan is counted on."""
from __future__ import annotations

from itertools import combinations

from . import calculator as C
from . import fans as F
from .errors import HandError
from .hand import validate_hand
from .notation import format_hand
from .rulesets import RuleSet, get_ruleset, points_of
from .tiles import CODE_TO_INT, GLYPHS, INT_TO_CODE, WINDS

_OFFER = {"left": 1, "across": 2, "right": 3}
_KIND_OF = {C.CHOW: "chow", C.PUNG: "pung", C.KONG: "kong", C.PAIR: "pair"}


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
            packs.append(C.make_pack(offer, C.CHOW, CODE_TO_INT[tiles[1]]))
        else:
            offer = _OFFER.get(meld.get("from"), 1) if meld["exposed"] else 0
            packs.append(C.make_pack(offer, C.KONG if kind == "kong" else C.PUNG, CODE_TO_INT[tiles[0]]))
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
    table = dict(table)
    table[F.FLOWER_TILES] = flowers
    groups = _groups(hand, explanation)
    values = points_of(ruleset)
    fans = []
    for fan_id, count in sorted(table.items()):
        if not count:
            continue
        fan = F.BY_ID[fan_id]
        tiles = explain_fan(fan_id, count, groups, hand)
        fans.append({
            "id": fan.id, "key": fan.key, "name_zh": fan.name_zh, "name_en": fan.name_en,
            "points": values[fan_id], "count": count, "tiles": tiles,
            "text": f"{fan.name_zh} {values[fan_id]}{'×%d' % count if count > 1 else ''} "
                    f"({', '.join(''.join(GLYPHS[t] for t in g) for g in tiles)})",
        })
    total = sum(f["points"] * f["count"] for f in fans)
    return {
        "total": total,
        "meets_minimum": total - flowers >= ruleset.minimum,
        "minimum": ruleset.minimum,
        "ruleset": ruleset.name,
        "unit": ruleset.unit,
        "fans": fans,
        "form": explanation["form"],
        "melds": [{k: v for k, v in g.items() if not k.startswith("_")} for g in groups],
        "hand": hand,
        "text": format_hand(hand),
    }


# ---------------------------------------------------------------- explanations

def _group(kind, tiles, exposed=False, **extra) -> dict:
    g = {"kind": kind, "tiles": list(tiles), "exposed": exposed}
    g.update(extra)
    return g


def _groups(hand: dict, explanation: dict) -> list:
    """The decomposition the score was counted on, as plain groups of tile codes."""
    form = explanation["form"]
    win = hand["win_tile"]
    if form in ("regular", "knitted_straight"):
        groups = []
        if form == "knitted_straight":
            groups.append(_group("knitted", [INT_TO_CODE[t] for t in explanation["knitted"]]))
        for p in explanation["packs"]:
            kind = C.pack_type(p)
            t = C.pack_tile(p)
            tiles = [t - 1, t, t + 1] if kind == C.CHOW else [t] * {C.PUNG: 3, C.KONG: 4, C.PAIR: 2}[kind]
            groups.append(_group(_KIND_OF[kind], [INT_TO_CODE[x] for x in tiles], C.pack_melded(p)))
        _mark_win_group(groups, hand)
        return groups
    tiles = sorted(hand["concealed"] + [win], key=lambda c: CODE_TO_INT[c])
    if form in ("seven_pairs", "seven_shifted_pairs"):
        return [_group("pair", tiles[i:i + 2]) for i in range(0, 14, 2)]
    return [_group(form, tiles)]


def _mark_win_group(groups: list, hand: dict) -> None:
    """Mark the concealed group that the winning tile completed (chow first, as the waits are read)."""
    win = hand["win_tile"]
    concealed = [g for g in groups if not g["exposed"] and win in g["tiles"]]
    for kind in ("chow", "pair", "knitted", "pung", "kong"):
        for g in concealed:
            if g["kind"] == kind:
                g["_win"] = True
                return


def _sets(groups, *kinds):
    return [g for g in groups if g["kind"] in kinds]


def _mid(g) -> int:
    return CODE_TO_INT[g["tiles"][1]] if g["kind"] == "chow" else CODE_TO_INT[g["tiles"][0]]


def _pick(candidates, count) -> list:
    """Up to `count` combinations, preferring ones that do not reuse a group."""
    chosen, used = [], set()
    for combo in candidates:
        if len(chosen) == count:
            break
        if not any(id(g) in used for g in combo):
            chosen.append(combo)
            used.update(id(g) for g in combo)
    for combo in candidates:
        if len(chosen) == count:
            break
        if combo not in chosen:
            chosen.append(combo)
    return [g["tiles"] for combo in chosen for g in combo]


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


def _three_pungs_ok(fan_id, mids) -> bool:
    return C._three_pungs_fan(*sorted(mids)) == fan_id


def explain_fan(fan_id: int, count: int, groups: list, hand: dict) -> list:
    """The tiles (groups of codes) a fan is counted on."""
    if fan_id == F.FLOWER_TILES:
        return [list(hand["flowers"])]
    if fan_id in _WIN_FANS:
        return [[hand["win_tile"]]]
    if fan_id in _WAIT_FANS:
        return [g["tiles"] for g in groups if g.get("_win")] or [[hand["win_tile"]]]
    chows = _sets(groups, "chow")
    pungs = _sets(groups, "pung", "kong")
    if fan_id in _TWO_CHOW_FANS:
        cands = [c for c in combinations(chows, 2) if C.two_chows_fan(_mid(c[0]), _mid(c[1])) == fan_id]
        if cands:
            return _pick(cands, count)
    if fan_id in _THREE_CHOW_FANS:
        cands = [c for c in combinations(chows, 3) if C._three_chows_fan(*sorted(map(_mid, c))) == fan_id]
        if cands:
            return _pick(cands, count)
    if fan_id in _FOUR_CHOW_FANS:
        return [g["tiles"] for g in chows + _sets(groups, "pair")]
    if fan_id in _PUNG_SET_FANS:
        n = _PUNG_SET_FANS[fan_id]
        if n == 2:
            cands = [c for c in combinations(pungs, 2) if C.two_pungs_fan(_mid(c[0]), _mid(c[1])) == fan_id]
        elif n == 3:
            cands = [c for c in combinations(pungs, 3) if _three_pungs_ok(fan_id, map(_mid, c))]
        else:
            cands = [tuple(pungs)]
        if cands:
            return _pick(cands, count)
    if fan_id in (F.LITTLE_THREE_DRAGONS, F.LITTLE_FOUR_WINDS):
        honours = C.DRAGONS if fan_id == F.LITTLE_THREE_DRAGONS else C.WINDS
        return [g["tiles"] for g in pungs + _sets(groups, "pair") if _mid(g) in honours]
    if fan_id == F.DRAGON_PUNG:
        return [g["tiles"] for g in pungs if _mid(g) in C.DRAGONS][:count]
    if fan_id in (F.PREVALENT_WIND, F.SEAT_WIND):
        wind = hand["context"]["prevalent_wind" if fan_id == F.PREVALENT_WIND else "seat_wind"]
        code = "F%d" % (WINDS.index(wind) + 1)
        return [g["tiles"] for g in pungs if g["tiles"][0] == code]
    if fan_id == F.PUNG_OF_TERMINALS_OR_HONORS:
        ctx = hand["context"]
        special = {"F%d" % (WINDS.index(ctx["prevalent_wind"]) + 1), "F%d" % (WINDS.index(ctx["seat_wind"]) + 1)}
        found = [g["tiles"] for g in pungs if _mid(g) in C.TERMINALS or _mid(g) in C.WINDS]
        plain = [t for t in found if t[0] not in special]
        return (plain + [t for t in found if t[0] in special])[:count]
    if fan_id in _KONG_FANS:
        want = _KONG_FANS[fan_id]
        return [g["tiles"] for g in _sets(groups, "kong") if want is None or g["exposed"] == want]
    if fan_id in (F.TWO_CONCEALED_PUNGS, F.THREE_CONCEALED_PUNGS, F.FOUR_CONCEALED_PUNGS):
        concealed = [g for g in pungs if not g["exposed"]]
        if not hand["context"]["self_drawn"]:
            concealed = [g for g in concealed if not g.get("_win") or g["kind"] == "kong"] or concealed
        return [g["tiles"] for g in concealed] or [g["tiles"] for g in groups]
    if fan_id == F.TILE_HOG:
        counts: dict = {}
        for g in groups:
            for t in g["tiles"]:
                counts[t] = counts.get(t, 0) + 1
        kong_tiles = {g["tiles"][0] for g in _sets(groups, "kong")}
        return [[t] * 4 for t, n in counts.items() if n == 4 and t not in kong_tiles][:count] or \
            [[t] * 4 for t, n in counts.items() if n == 4][:count]
    if fan_id == F.KNITTED_STRAIGHT:
        knitted = _sets(groups, "knitted")
        if knitted:
            return [knitted[0]["tiles"]]
    return [g["tiles"] for g in groups]
