"""Kong and concealed-pung fans: 明杠, 暗杠, 双明杠, 双暗杠, 明暗杠, 三杠, 四杠 and 双暗刻, 三暗刻, 四暗刻."""
from __future__ import annotations

from .explain import pung_indices, win_group
from .fan import Explainer, FanId, FanTable, Group, row

ROWS = (
    row(FanId.FOUR_KONGS, "四杠", "Four Kongs", 88, FanId.SINGLE_WAIT, FanId.ALL_PUNGS),
    row(FanId.FOUR_CONCEALED_PUNGS, "四暗刻", "Four Concealed Pungs", 64,
        FanId.ALL_PUNGS, FanId.CONCEALED_HAND, FanId.FULLY_CONCEALED_HAND),
    row(FanId.THREE_KONGS, "三杠", "Three Kongs", 32),
    row(FanId.THREE_CONCEALED_PUNGS, "三暗刻", "Three Concealed Pungs", 16),
    row(FanId.TWO_CONCEALED_KONGS, "双暗杠", "Two Concealed Kongs", 6),
    row(FanId.TWO_MELDED_KONGS, "双明杠", "Two Melded Kongs", 4),
    row(FanId.TWO_CONCEALED_PUNGS, "双暗刻", "Two Concealed Pungs", 2),
    row(FanId.CONCEALED_KONG, "暗杠", "Concealed Kong", 2),
    row(FanId.MELDED_KONG, "明杠", "Melded Kong", 1),
    row(FanId.CONCEALED_KONG_AND_MELDED_KONG, "明暗杠", "Concealed Kong and Melded Kong", 5),
)


def concealed_pungs_after_discard(concealed_pungs: int, chows: list[int], pungs: list[int], win_tile: int,
                                  self_drawn: bool) -> int:
    """A pung completed by a discard is not concealed, unless a concealed chow could take the tile."""
    if not self_drawn and concealed_pungs:
        if not any(not c & 0x3000 and (c & 0xFF) - 1 <= win_tile <= (c & 0xFF) + 1 for c in chows):
            for p in pungs:
                if p & 0xFF == win_tile and not p & 0x3000:
                    concealed_pungs -= 1
    return concealed_pungs


def kong_fans(concealed_pungs: int, melded_kongs: int, concealed_kongs: int, table: FanTable,
              concealed_and_melded_kong: bool) -> None:
    """The kong fans and the concealed-pung fans, which count concealed kongs as concealed pungs.
    concealed_and_melded_kong: a concealed and a melded kong make 明暗杠 (else 明杠 + 暗杠)."""
    kongs = melded_kongs + concealed_kongs
    if kongs == 0:
        if concealed_pungs == 2:
            table[FanId.TWO_CONCEALED_PUNGS] = 1
        elif concealed_pungs == 3:
            table[FanId.THREE_CONCEALED_PUNGS] = 1
        elif concealed_pungs == 4:
            table[FanId.FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 1:
        if melded_kongs == 1:
            table[FanId.MELDED_KONG] = 1
            if concealed_pungs == 2:
                table[FanId.TWO_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 3:
                table[FanId.THREE_CONCEALED_PUNGS] = 1
        else:
            table[FanId.CONCEALED_KONG] = 1
            if concealed_pungs == 1:
                table[FanId.TWO_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 2:
                table[FanId.THREE_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 3:
                table[FanId.FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 2:
        if concealed_kongs == 0:
            table[FanId.TWO_MELDED_KONGS] = 1
            if concealed_pungs == 2:
                table[FanId.TWO_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 1:
            if concealed_and_melded_kong:
                table[FanId.CONCEALED_KONG_AND_MELDED_KONG] = 1
            else:
                table[FanId.MELDED_KONG] = 1
                table[FanId.CONCEALED_KONG] = 1
            if concealed_pungs == 1:
                table[FanId.TWO_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 2:
                table[FanId.THREE_CONCEALED_PUNGS] = 1
        else:
            table[FanId.TWO_CONCEALED_KONGS] = 1
            if concealed_pungs == 1:
                table[FanId.THREE_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 2:
                table[FanId.FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 3:
        table[FanId.THREE_KONGS] = 1
        if concealed_kongs == 1:
            if concealed_pungs > 0:
                table[FanId.TWO_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 2:
            table[FanId.TWO_CONCEALED_PUNGS if concealed_pungs == 0 else FanId.THREE_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 3:
            table[FanId.THREE_CONCEALED_PUNGS if concealed_pungs == 0 else FanId.FOUR_CONCEALED_PUNGS] = 1
    else:
        table[FanId.FOUR_KONGS] = 1
        if concealed_kongs == 2:
            table[FanId.TWO_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 3:
            table[FanId.THREE_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 4:
            table[FanId.FOUR_CONCEALED_PUNGS] = 1


# ---------------------------------------------------------------- the tiles each fan is counted on

# kong fan -> which kongs it is counted on: True the melded ones, False the concealed ones, None all
_KONG_FANS = {FanId.MELDED_KONG: True, FanId.TWO_MELDED_KONGS: True, FanId.CONCEALED_KONG: False,
              FanId.TWO_CONCEALED_KONGS: False, FanId.THREE_KONGS: None, FanId.FOUR_KONGS: None,
              FanId.CONCEALED_KONG_AND_MELDED_KONG: None}


def kongs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    want = _KONG_FANS[fan_id]
    return [g[1] for g in groups if g[0] == "kong" and (want is None or g[2] == want)]


def concealed_pungs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    concealed = [i for i in pung_indices(groups) if not groups[i][2]]
    if not hand["context"]["self_drawn"]:
        win_index = win_group(groups, hand["win_tile"])
        concealed = [i for i in concealed if i != win_index or groups[i][0] == "kong"] or concealed
    return [groups[i][1] for i in concealed] or [g[1] for g in groups]


EXPLAINERS: dict[int, Explainer] = {
    **dict.fromkeys(_KONG_FANS, kongs_tiles),
    **dict.fromkeys((FanId.TWO_CONCEALED_PUNGS, FanId.THREE_CONCEALED_PUNGS, FanId.FOUR_CONCEALED_PUNGS),
                    concealed_pungs_tiles),
}
