"""The 1990 工地 rules as data: tiles, 将, the limits and the 20-幡 hands the seed lists.

Every row quotes the seed (seeds/000_*.txt, 传统算幡麻将明白纸).  The seed is cut off
after the eighth 20-幡 hand (大三元): the smaller 幡 items are not in it, so this rule
set is partial and the scorer says "not covered" wherever a hand needs them.
"""
from __future__ import annotations

from typing import Any

NAME = "gongdi-1990"
TITLE = "工地 1990: the traditional 1990 工地 rules, scored in 幡"
UNIT = "幡"

MIN_TO_WIN = 8     # 最低八幡才能胡牌
CAP = 20           # 满贯也定为二十幡
LIMIT_HAND = 20    # 二十幡（满贯）

QUOTES = {
    "tiles": "麻将由“条”、“饼”、“万”三种色和“风”组成，共136张牌。",
    "melds": "一手牌胡牌（也叫和牌）时只能有“扑”、“卡”或“杠”、“将”",
    "smaller": "能计小则不计大，同时出现两种及以上情况、有争议时则该项不计幡。",
    "win_tile": "算幡原则为算少不算多，当胡牌时听到的这张牌有两种及以上幡数时则为都不计幡。",
}

FALSE_PAIR_RANKS = (3, 4, 6, 7)

# The 20-幡 hands, in the seed's order; `key` names the predicate in hands.TESTS.
LIMIT_HANDS: list[dict[str, Any]] = [
    {"key": "pure_suit", "name_zh": "清一色", "name_en": "One suit, no honours", "points": LIMIT_HAND,
     "quote": "清一色：胡牌时只有三种色里的一种并且没有“风”"},
    {"key": "all_honours", "name_zh": "风满楼", "name_en": "All honours", "points": LIMIT_HAND,
     "quote": "风满楼：胡牌时只有“风”"},
    {"key": "triplet_chows", "name_zh": "三姊妹", "name_en": "Three identical chows", "points": LIMIT_HAND,
     "quote": "三姊妹：胡牌时有完全一样的三扑排（三胞胎）"},
    {"key": "seven_pairs", "name_zh": "七大对", "name_en": "Seven pairs", "points": LIMIT_HAND,
     "quote": "七大对：胡牌时有7对牌"},
    {"key": "three_concealed_pungs", "name_zh": "三暗卡", "name_en": "Three concealed pungs",
     "points": LIMIT_HAND, "quote": "三暗卡：胡牌时有三扑自己摸到的立着的“卡”"},
    {"key": "thirteen_terminals", "name_zh": "十三幺", "name_en": "All terminals and honours",
     "points": LIMIT_HAND, "quote": "十三幺：胡牌时全是1、9和“风”"},
    {"key": "thirteen_unrelated", "name_zh": "十三不靠", "name_en": "Thirteen unrelated", "points": LIMIT_HAND,
     "quote": "十三不靠：胡牌时所有的牌都不相连（比如：东、南、西、北、中、发、白、1条、2饼、3万、"
              "4条、5饼、6万、7条、8饼、9万中的14张）"},
    {"key": "big_dragons", "name_zh": "大三元", "name_en": "Big three dragons", "points": LIMIT_HAND,
     "quote": "大三元：胡牌时有“中、发、白”各不少于三张"},
]

MISSING = ("the seed stops after the 20-幡 hands (its list ends at 大三元): the smaller 幡 items, "
           "and any 20-幡 hand listed after 大三元, are not in the rules we have")

DESCRIPTION = ("The traditional 1990 工地 rules of the seed, scored in 幡: 136 tiles, no flowers; "
               "扑 (chow), 卡 (pung), 杠 (kong), 将 (pair; 3, 4, 6, 7 are 假将); chows only from the "
               "left; at least 8 幡 to win, 20 幡 cap; count the smaller when in doubt. Partial: "
               + MISSING + "; such hands are answered 'not covered by the rules we have'.")


def pair_kind(tile: str) -> str:
    """真将 or 假将 for a pair of `tile` (a playing tile code)."""
    if tile[0] in "WTB" and int(tile[1]) in FALSE_PAIR_RANKS:
        return "假将"
    return "真将"


def settle(points: int) -> dict:
    """The 幡 actually paid for a hand that counts `points`: the cap, and whether it may win."""
    total = min(points, CAP)
    return {"total": total, "meets_minimum": total >= MIN_TO_WIN, "capped": points > CAP}

