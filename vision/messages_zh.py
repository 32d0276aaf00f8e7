"""The analysis's warnings and errors in Chinese, by code: for the annotated photo.

The phone page says the same in api/static/app.js (WARNING_ZH, ERROR_ZH); a browser test
(tests/api/test_page_warnings_browser.py) checks that both give the same text for every code.
Codes and params: vision.layout_warnings (warnings, the layout's errors) and
scoring.errors.ERROR_CODES (the scorer's errors, which the layout passes on with their params:
wrong_tile_count {found, needed, kongs[, melds]}, too_many_copies {tile, count}).
The characters used here are in the annotation's font subset (vision/fonts/make_subset.py
reads this file).
"""
from __future__ import annotations

from typing import Callable

from scoring.tiles import FLOWER_TILES, PLAYING_TILES, name_zh


def tile_name(code: str) -> str:
    """五万, 东, 春 (the scorer's names: 万 as MCR writes it in mainland China); 牌背 for a
    face-down tile; the code itself for anything else."""
    if code == "BACK":
        return "牌背"
    if code in PLAYING_TILES or code in FLOWER_TILES:
        return name_zh(code)
    return code


def _tiles(codes: list[str]) -> str:
    return "、".join(tile_name(c) for c in codes)


def _meld_name(tiles: list[str]) -> str:
    """一二三万, 五五五饼; a meld of honours as its tiles' names."""
    suits = {c[0] for c in tiles}
    if len(suits) == 1 and tiles[0][0] in "WTB":
        return "".join(tile_name(c)[0] for c in tiles) + tile_name(tiles[0])[1:]
    return "".join(tile_name(c) for c in tiles)


def reading_zh(r: dict) -> str:
    parts = [f"和牌{tile_name(r['win_tile'])}{'' if r['win_apart'] else '（未单独放开）'}",
             f"副露：{'、'.join(_meld_name(m) for m in r['melds']) or '无'}"]
    if r.get("left_out") is not None:
        parts.append(f"未计入：{_tiles(r['left_out']) or '无'}")
    return "；".join(parts)


def _number(value) -> str:
    """A number as the page's JavaScript prints it (12, not 12.0)."""
    return str(int(value)) if float(value).is_integer() else str(value)


_CHOICE_ZH = "一二三四"


def _repair_change_zh(c: dict) -> str:
    if c.get("removed"):
        return f"识别为{tile_name(c['from'])}的牌没有计入（可能是同一张牌识别了两次，或不是牌）"
    choice = _CHOICE_ZH[c["choice"] - 1] if 0 < c["choice"] <= len(_CHOICE_ZH) else c["choice"]
    said = "一张识别把握很小的牌" if c.get("added") else f"识别为{tile_name(c['from'])}的牌"
    return f"{said}按{tile_name(c['to'])}计算（识别的第{choice}选择）"


def _reading_repaired(p: dict) -> str:
    said = "；".join(_repair_change_zh(c) for c in p["changes"])
    return f"{said}，这样才能和牌，请核对"


WARNING_ZH: dict[str, Callable[[dict], str]] = {
    "tile_read_two_ways": lambda p: (f"同一张牌有两种读法：{tile_name(p['kept'])}（{p['kept_score']:.2f}）或"
                                     f"{tile_name(p['other'])}（{p['other_score']:.2f}），取{tile_name(p['kept'])}"),
    "win_tile_not_apart": lambda p: (f"和牌张没有单独放开：按这一行最后一张{tile_name(p['tile'])}作和牌计算，"
                                     "以其他牌作和牌的读法见下面的选项"),
    "hidden_kong_tile_unknown": lambda p: (
        f"暗杠的四张牌背面朝上，看不出是哪张牌：按多数可能的牌计 {_number(p['total'])}（当作{_tiles(p['tiles'])}）"
        + (f"，可能从 {_number(p['min_total'])} 到 {_number(p['max_total'])}" if p["min_total"] != p["max_total"] else "")
        + "；翻开其中两张可以算得准确"),
    "unusual_layout": lambda p: f"牌的摆法不像一般的一手牌，读作：{reading_zh(p['reading'])}",
    "grouping_ambiguous": lambda p: f"分组有不止一种读法，取番数最高的：{reading_zh(p['reading'])}",
    "strays_left_out": lambda p: f"离手牌较远的 {p['count']} 张牌没有计入：{_tiles(p['tiles'])}",
    "low_confidence": lambda p: (f"这些牌识别把握不大（低于 {_number(p['threshold'])}），请核对："
                                 + "、".join(f"{tile_name(t['tile'])}（{t['score']:.2f}）" for t in p["tiles"])),
    "reading_repaired": _reading_repaired,
}


def _wrong_tile_count(p: dict) -> str:
    if "found" not in p:  # an error without counts (from an older server): what the code means
        return "牌数不对：和牌是 14 张，每个杠多一张"
    if p.get("melds"):  # the scorer's: more than four melds
        return f"有 {p['melds']} 个副露：一手牌最多四个"
    kongs = f"（{p['kongs']} 个杠共 {p['needed']} 张）" if p.get("kongs") else ""
    if p["found"] < p["needed"]:
        return f"找到 {p['found']} 张牌；和牌需要 14 张，每个杠多一张{kongs}"
    return f"找到 {p['found']} 张牌；和牌是 14 张，每个杠多一张{kongs}：多了 {p['found'] - p['needed']} 张"


def _backs_outside_kong(p: dict) -> str:
    rule = "背面朝上的牌只能是暗杠的一部分（请核对识别为牌背的牌）"
    if "found" not in p:  # an error without counts: what the code means
        return "有背面朝上的牌不在暗杠里：" + rule
    return f"找到 {p['found']} 张牌，张数够了，但其中 {p['backs']} 张背面朝上、不在暗杠里：" + rule


def _too_many_copies(p: dict) -> str:
    if "tile" not in p:  # an error without params: what the code means
        return "同一张牌超过了四张（或同一张花牌出现了两次）"
    if p["tile"].startswith("H"):
        return f"花牌{tile_name(p['tile'])}有 {p['count']} 张：每张花牌只有一张"
    return f"{tile_name(p['tile'])}有 {p['count']} 张：每种牌只有四张"


ERROR_ZH: dict[str, Callable[[dict], str]] = {
    # the layout's (vision.layout_warnings.LAYOUT_ERROR_CODES)
    "no_tiles": lambda p: "照片里没有找到牌",
    "wrong_tile_count": _wrong_tile_count,
    "backs_outside_kong": _backs_outside_kong,
    # the scorer's (scoring.errors.ERROR_CODES, with the rule sets' own)
    "invalid_hand": lambda p: "手牌的格式不对",
    "bad_notation": lambda p: "看不懂这种牌的写法",
    "unknown_tile": lambda p: "有不存在的牌",
    "misplaced_flower": lambda p: "花牌放错了地方：花牌不算在手牌和副露里，花牌栏里也只能放花牌",
    "too_many_copies": _too_many_copies,
    "impossible_meld": lambda p: "有不能成立的吃、碰或杠",
    "invalid_context": lambda p: "和牌条件的取值不对",
    "unknown_context_key": lambda p: "这个规则没有这项和牌条件",
    "kong_replacement_without_kong": lambda p: "杠上开花不成立：手里没有杠",
    "kong_replacement_on_discard": lambda p: "杠上开花必须是自摸",
    "robbing_kong_self_drawn": lambda p: "抢杠和是和别人的牌，不能是自摸",
    "robbing_kong_impossible": lambda p: "抢杠和不成立：手里还有这张牌",
    "fourth_tile_impossible": lambda p: "和绝张不成立：门前手牌里还有这张牌",
    "not_a_winning_hand": lambda p: "这手牌没有和：牌组不成和牌型",
    "unknown_ruleset": lambda p: "没有这个规则",
    "not_covered": lambda p: "这手牌用到的规则我们还没有（工地 1990 只收了一部分）",
    "flowers_not_allowed": lambda p: "这个规则没有花牌",
}


def _say(table: dict[str, Callable[[dict], str]], record: dict | None) -> str | None:
    if not record or record.get("code") not in table:
        return None
    try:
        return table[record["code"]](record.get("params") or {})
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):  # params not as expected
        return None


def warning_zh(detail: dict | None) -> str | None:
    """A warning record {"code", "params", ...} in Chinese; None for a code (or params) not known here."""
    return _say(WARNING_ZH, detail)


def error_zh(error: dict | None) -> str | None:
    """An error {"code", "params"?, ...} in Chinese; None for a code (or params) not known here."""
    return _say(ERROR_ZH, error)
