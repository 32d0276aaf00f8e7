"""Fans of how the hand won: the win flags (自摸, 和绝张, 妙手回春, 海底捞月, 杠上开花, 抢杠和), what was
concealed (门前清, 不求人, 全求人), the flowers, and 无番和 when nothing else counts."""
from __future__ import annotations

from typing import Sequence

from .fan import Explainer, FanId, FanTable, Group, row

ROWS = (
    row(FanId.CHICKEN_HAND, "无番和", "Chicken Hand", 8),
    row(FanId.LAST_TILE_DRAW, "妙手回春", "Last Tile Draw", 8, FanId.SELF_DRAWN),
    row(FanId.LAST_TILE_CLAIM, "海底捞月", "Last Tile Claim", 8),
    row(FanId.OUT_WITH_REPLACEMENT_TILE, "杠上开花", "Out with Replacement Tile", 8, FanId.SELF_DRAWN),
    row(FanId.ROBBING_THE_KONG, "抢杠和", "Robbing the Kong", 8, FanId.LAST_TILE),
    row(FanId.MELDED_HAND, "全求人", "Melded Hand", 6, FanId.SINGLE_WAIT),
    row(FanId.FULLY_CONCEALED_HAND, "不求人", "Fully Concealed Hand", 4, FanId.SELF_DRAWN),
    row(FanId.LAST_TILE, "和绝张", "Last Tile", 4),
    row(FanId.CONCEALED_HAND, "门前清", "Concealed Hand", 2),
    row(FanId.SELF_DRAWN, "自摸", "Self-Drawn", 1),
    row(FanId.FLOWER_TILES, "花牌", "Flower Tiles", 1),
)

# The calculator's win flags (the reference's): self-drawn, the last of its kind (和绝张),
# on a kong (杠上开花 when self-drawn, 抢杠和 on a discard), the last tile of the wall.
WIN_SELF_DRAWN, WIN_LAST_TILE, WIN_KONG, WIN_WALL_LAST = 1, 2, 4, 8


def win_flag_fans(win_flag: int, table: FanTable) -> None:
    if win_flag & WIN_LAST_TILE:
        table[FanId.LAST_TILE] = 1
    if win_flag & WIN_SELF_DRAWN:
        table[FanId.SELF_DRAWN] = 1
        if win_flag & WIN_WALL_LAST:
            table[FanId.LAST_TILE_DRAW] = 1
            table[FanId.SELF_DRAWN] = 0
        if win_flag & WIN_KONG:
            table[FanId.OUT_WITH_REPLACEMENT_TILE] = 1
            table[FanId.SELF_DRAWN] = 0
    else:
        if win_flag & WIN_WALL_LAST:
            table[FanId.LAST_TILE_CLAIM] = 1
        if win_flag & WIN_KONG:
            table[FanId.ROBBING_THE_KONG] = 1
            table[FanId.LAST_TILE] = 0


def concealment_fans(packs: Sequence[int], fixed_cnt: int, self_drawn: bool, table: FanTable) -> None:
    """门前清 / 不求人 / 全求人 / 自摸 from the melds (the first fixed_cnt packs) and the self-draw."""
    melded = sum(1 for p in packs[:fixed_cnt] if p & 0x3000)
    if melded == 0:
        table[FanId.FULLY_CONCEALED_HAND if self_drawn else FanId.CONCEALED_HAND] = 1
    elif melded == 4:
        table[FanId.SELF_DRAWN if self_drawn else FanId.MELDED_HAND] = 1
    elif self_drawn:
        table[FanId.SELF_DRAWN] = 1


def chicken_hand(table: FanTable) -> None:
    """无番和: no fan at all (flowers aside)."""
    if not any(table.values()):
        table[FanId.CHICKEN_HAND] = 1


def flowers_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    return [tuple(hand["flowers"])]


def win_tile_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    return [(hand["win_tile"],)]


EXPLAINERS: dict[int, Explainer] = {
    FanId.FLOWER_TILES: flowers_tiles,
    **dict.fromkeys((FanId.SELF_DRAWN, FanId.LAST_TILE, FanId.LAST_TILE_DRAW, FanId.LAST_TILE_CLAIM,
                     FanId.OUT_WITH_REPLACEMENT_TILE, FanId.ROBBING_THE_KONG), win_tile_tiles),
}
