"""The fan table as data: one row per fan with its names, value and 不计 exclusions.

Row ids 1-81 follow the seed list (and the 2006 rulebook for 69-81); id 82 is
明暗杠, which only the `mcr-reference` rule set counts.  `excludes` lists the
fans that are not counted together with the row's fan (不计); the calculator
applies them in id order, as data.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fan:
    id: int
    key: str
    name_zh: str
    name_en: str
    points: int
    excludes: tuple = field(default_factory=tuple)   # keys of fans not counted with this one

    def as_row(self) -> dict:
        return {"id": self.id, "key": self.key, "name_zh": self.name_zh, "name_en": self.name_en,
                "points": self.points, "excludes": list(self.excludes)}


_ROWS = [
    # id, key, zh, en, points, excludes
    (1, "BIG_FOUR_WINDS", "大四喜", "Big Four Winds", 88,
     ("ALL_PUNGS", "PUNG_OF_TERMINALS_OR_HONORS", "BIG_THREE_WINDS", "PREVALENT_WIND", "SEAT_WIND")),
    (2, "BIG_THREE_DRAGONS", "大三元", "Big Three Dragons", 88, ("DRAGON_PUNG", "TWO_DRAGONS_PUNGS")),
    (3, "ALL_GREEN", "绿一色", "All Green", 88, ("HALF_FLUSH", "ONE_VOIDED_SUIT")),
    (4, "NINE_GATES", "九莲宝灯", "Nine Gates", 88, ("FULL_FLUSH",)),
    (5, "FOUR_KONGS", "四杠", "Four Kongs", 88, ("SINGLE_WAIT", "ALL_PUNGS")),
    (6, "SEVEN_SHIFTED_PAIRS", "连七对", "Seven Shifted Pairs", 88,
     ("FULL_FLUSH", "FULLY_CONCEALED_HAND", "SINGLE_WAIT", "SEVEN_PAIRS")),
    (7, "THIRTEEN_ORPHANS", "十三幺", "Thirteen Orphans", 88, ("ALL_TYPES", "FULLY_CONCEALED_HAND", "SINGLE_WAIT")),
    (8, "ALL_TERMINALS", "清幺九", "All Terminals", 64,
     ("ALL_PUNGS", "OUTSIDE_HAND", "PUNG_OF_TERMINALS_OR_HONORS", "NO_HONORS", "DOUBLE_PUNG")),
    (9, "LITTLE_FOUR_WINDS", "小四喜", "Little Four Winds", 64, ("PUNG_OF_TERMINALS_OR_HONORS", "BIG_THREE_WINDS")),
    (10, "LITTLE_THREE_DRAGONS", "小三元", "Little Three Dragons", 64, ("DRAGON_PUNG", "TWO_DRAGONS_PUNGS")),
    (11, "ALL_HONORS", "字一色", "All Honors", 64,
     ("ALL_PUNGS", "OUTSIDE_HAND", "PUNG_OF_TERMINALS_OR_HONORS", "ONE_VOIDED_SUIT")),
    (12, "FOUR_CONCEALED_PUNGS", "四暗刻", "Four Concealed Pungs", 64, ("ALL_PUNGS", "CONCEALED_HAND", "FULLY_CONCEALED_HAND")),
    (13, "PURE_TERMINAL_CHOWS", "一色双龙会", "Pure Terminal Chows", 64,
     ("FULL_FLUSH", "ALL_CHOWS", "NO_HONORS", "SEVEN_PAIRS")),
    (14, "QUADRUPLE_CHOW", "一色四同顺", "Quadruple Chow", 48, ("PURE_TRIPLE_CHOW", "PURE_DOUBLE_CHOW", "TILE_HOG")),
    (15, "FOUR_PURE_SHIFTED_PUNGS", "一色四节高", "Four Pure Shifted Pungs", 48, ("ALL_PUNGS", "PURE_SHIFTED_PUNGS")),
    (16, "FOUR_PURE_SHIFTED_CHOWS", "一色四步高", "Four Pure Shifted Chows", 32, ("PURE_SHIFTED_CHOWS",)),
    (17, "THREE_KONGS", "三杠", "Three Kongs", 32, ()),
    (18, "ALL_TERMINALS_AND_HONORS", "混幺九", "All Terminals and Honors", 32,
     ("ALL_PUNGS", "OUTSIDE_HAND", "PUNG_OF_TERMINALS_OR_HONORS")),
    (19, "SEVEN_PAIRS", "七对", "Seven Pairs", 24, ("FULLY_CONCEALED_HAND", "CONCEALED_HAND", "SINGLE_WAIT")),
    (20, "GREATER_HONORS_AND_KNITTED_TILES", "七星不靠", "Greater Honors and Knitted Tiles", 24,
     ("ALL_TYPES", "FULLY_CONCEALED_HAND", "SINGLE_WAIT", "LESSER_HONORS_AND_KNITTED_TILES")),
    (21, "ALL_EVEN_PUNGS", "全双刻", "All Even Pungs", 24, ("ALL_PUNGS", "ALL_SIMPLES", "NO_HONORS")),
    (22, "FULL_FLUSH", "清一色", "Full Flush", 24, ("NO_HONORS",)),
    (23, "PURE_TRIPLE_CHOW", "一色三同顺", "Pure Triple Chow", 24, ("PURE_SHIFTED_PUNGS", "PURE_DOUBLE_CHOW")),
    (24, "PURE_SHIFTED_PUNGS", "一色三节高", "Pure Shifted Pungs", 24, ("PURE_TRIPLE_CHOW",)),
    (25, "UPPER_TILES", "全大", "Upper Tiles", 24, ("NO_HONORS", "UPPER_FOUR")),
    (26, "MIDDLE_TILES", "全中", "Middle Tiles", 24, ("ALL_SIMPLES", "NO_HONORS")),
    (27, "LOWER_TILES", "全小", "Lower Tiles", 24, ("NO_HONORS", "LOWER_FOUR")),
    (28, "PURE_STRAIGHT", "清龙", "Pure Straight", 16, ()),
    (29, "THREE_SUITED_TERMINAL_CHOWS", "三色双龙会", "Three-Suited Terminal Chows", 16,
     ("MIXED_DOUBLE_CHOW", "TWO_TERMINAL_CHOWS", "NO_HONORS", "ALL_CHOWS")),
    (30, "PURE_SHIFTED_CHOWS", "一色三步高", "Pure Shifted Chows", 16, ()),
    (31, "ALL_FIVE", "全带五", "All Five", 16, ("ALL_SIMPLES", "NO_HONORS")),
    (32, "TRIPLE_PUNG", "三同刻", "Triple Pung", 16, ()),
    (33, "THREE_CONCEALED_PUNGS", "三暗刻", "Three Concealed Pungs", 16, ()),
    (34, "LESSER_HONORS_AND_KNITTED_TILES", "全不靠", "Lesser Honors and Knitted Tiles", 12,
     ("ALL_TYPES", "FULLY_CONCEALED_HAND", "SINGLE_WAIT")),
    (35, "KNITTED_STRAIGHT", "组合龙", "Knitted Straight", 12, ()),
    (36, "UPPER_FOUR", "大于五", "Upper Four", 12, ("NO_HONORS",)),
    (37, "LOWER_FOUR", "小于五", "Lower Four", 12, ("NO_HONORS",)),
    (38, "BIG_THREE_WINDS", "三风刻", "Big Three Winds", 12, ()),
    (39, "MIXED_STRAIGHT", "花龙", "Mixed Straight", 8, ()),
    (40, "REVERSIBLE_TILES", "推不倒", "Reversible Tiles", 8, ("ONE_VOIDED_SUIT",)),
    (41, "MIXED_TRIPLE_CHOW", "三色三同顺", "Mixed Triple Chow", 8, ()),
    (42, "MIXED_SHIFTED_PUNGS", "三色三节高", "Mixed Shifted Pungs", 8, ()),
    (43, "CHICKEN_HAND", "无番和", "Chicken Hand", 8, ()),
    (44, "LAST_TILE_DRAW", "妙手回春", "Last Tile Draw", 8, ("SELF_DRAWN",)),
    (45, "LAST_TILE_CLAIM", "海底捞月", "Last Tile Claim", 8, ()),
    (46, "OUT_WITH_REPLACEMENT_TILE", "杠上开花", "Out with Replacement Tile", 8, ("SELF_DRAWN",)),
    (47, "ROBBING_THE_KONG", "抢杠和", "Robbing the Kong", 8, ("LAST_TILE",)),
    (48, "ALL_PUNGS", "碰碰和", "All Pungs", 6, ()),
    (49, "HALF_FLUSH", "混一色", "Half Flush", 6, ()),
    (50, "MIXED_SHIFTED_CHOWS", "三色三步高", "Mixed Shifted Chows", 6, ()),
    (51, "ALL_TYPES", "五门齐", "All Types", 6, ()),
    (52, "MELDED_HAND", "全求人", "Melded Hand", 6, ("SINGLE_WAIT",)),
    (53, "TWO_CONCEALED_KONGS", "双暗杠", "Two Concealed Kongs", 6, ()),
    (54, "TWO_DRAGONS_PUNGS", "双箭刻", "Two Dragon Pungs", 6, ("DRAGON_PUNG",)),
    (55, "OUTSIDE_HAND", "全带幺", "Outside Hand", 4, ()),
    (56, "FULLY_CONCEALED_HAND", "不求人", "Fully Concealed Hand", 4, ("SELF_DRAWN",)),
    (57, "TWO_MELDED_KONGS", "双明杠", "Two Melded Kongs", 4, ()),
    (58, "LAST_TILE", "和绝张", "Last Tile", 4, ()),
    (59, "DRAGON_PUNG", "箭刻", "Dragon Pung", 2, ()),
    (60, "PREVALENT_WIND", "圈风刻", "Prevalent Wind", 2, ()),
    (61, "SEAT_WIND", "门风刻", "Seat Wind", 2, ()),
    (62, "CONCEALED_HAND", "门前清", "Concealed Hand", 2, ()),
    (63, "ALL_CHOWS", "平和", "All Chows", 2, ("NO_HONORS",)),
    (64, "TILE_HOG", "四归一", "Tile Hog", 2, ()),
    (65, "DOUBLE_PUNG", "双同刻", "Double Pung", 2, ()),
    (66, "TWO_CONCEALED_PUNGS", "双暗刻", "Two Concealed Pungs", 2, ()),
    (67, "CONCEALED_KONG", "暗杠", "Concealed Kong", 2, ()),
    (68, "ALL_SIMPLES", "断幺", "All Simples", 2, ("NO_HONORS",)),
    (69, "PURE_DOUBLE_CHOW", "一般高", "Pure Double Chow", 1, ()),
    (70, "MIXED_DOUBLE_CHOW", "喜相逢", "Mixed Double Chow", 1, ()),
    (71, "SHORT_STRAIGHT", "连六", "Short Straight", 1, ()),
    (72, "TWO_TERMINAL_CHOWS", "老少副", "Two Terminal Chows", 1, ()),
    (73, "PUNG_OF_TERMINALS_OR_HONORS", "幺九刻", "Pung of Terminals or Honors", 1, ()),
    (74, "MELDED_KONG", "明杠", "Melded Kong", 1, ()),
    (75, "ONE_VOIDED_SUIT", "缺一门", "One Voided Suit", 1, ()),
    (76, "NO_HONORS", "无字", "No Honors", 1, ()),
    (77, "EDGE_WAIT", "边张", "Edge Wait", 1, ()),
    (78, "CLOSED_WAIT", "嵌张", "Closed Wait", 1, ()),
    (79, "SINGLE_WAIT", "单钓将", "Single Wait", 1, ()),
    (80, "SELF_DRAWN", "自摸", "Self-Drawn", 1, ()),
    (81, "FLOWER_TILES", "花牌", "Flower Tiles", 1, ()),
    (82, "CONCEALED_KONG_AND_MELDED_KONG", "明暗杠", "Concealed Kong and Melded Kong", 5, ()),
]

FANS: tuple[Fan, ...] = tuple(Fan(i, k, zh, en, p, ex) for i, k, zh, en, p, ex in _ROWS)
TABLE_SIZE = len(FANS) + 1          # index 0 unused, as in the reference's table
BY_KEY = {f.key: f for f in FANS}
BY_ID = {f.id: f for f in FANS}
MCR_FAN_IDS = tuple(range(1, 82))   # the 81 fans of the rulebook

# Module-level integer constants: F.BIG_FOUR_WINDS == 1 etc.
globals().update({f.key: f.id for f in FANS})

# Names the reference calculator (pymahjonggb) prints, where they differ from ours.
REFERENCE_NAMES = {BY_KEY["EDGE_WAIT"].id: "独听・边张", BY_KEY["CLOSED_WAIT"].id: "独听・嵌张",
                   BY_KEY["SINGLE_WAIT"].id: "独听・单钓"}


def reference_name(fan_id: int) -> str:
    return REFERENCE_NAMES.get(fan_id, BY_ID[fan_id].name_zh)
