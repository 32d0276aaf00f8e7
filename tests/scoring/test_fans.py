"""One test per fan: a hand that scores it (hit) and a close hand that does not (near miss).

Hands are in the compact notation; the context keywords go to parse_hand.  The
default context is a discard win, seat and prevalent wind East.
"""
import pytest

from scoring import parse_hand, score_hand
from scoring.fans import BY_KEY, FANS, MCR_FAN_IDS

SELF = {"self_drawn": True}
SOUTH = {"seat_wind": "S", "prevalent_wind": "S"}

# key: (hit hand, hit context, near-miss hand, near-miss context[, rules])
CASES = {
    "BIG_FOUR_WINDS": ("EEESSSWWWNNN5m+5m", {}, "EEESSSWWW123m5m+5m", {}),
    "BIG_THREE_DRAGONS": ("CCCFFFPPP123m5m+5m", {}, "CCCFFF123m456mP+P", {}),
    "ALL_GREEN": ("234s234s666s888sF+F", {}, "234s234s666s888s5s+5s", {}),
    "NINE_GATES": ("1112345678999m+5m", {}, "[111m]2345678999m+5m", {}),
    "FOUR_KONGS": ("[1111m][2222p][3333s][EEEE]5m+5m", {}, "[1111m][2222p][3333s][EEE]5m+5m", {}),
    "SEVEN_SHIFTED_PAIRS": ("1122334455667m+7m", {}, "1122334455668m+8m", {}),
    "THIRTEEN_ORPHANS": ("19m19s19pESWNCFP+1m", {}, "111m999sEEENNNP+P", {}),
    "ALL_TERMINALS": ("111m999m111s999s1p+1p", {}, "111m999m111sEEE1p+1p", {}),
    "LITTLE_FOUR_WINDS": ("EEESSSWWWN123m+N", {}, "EEESSSWWW123m5m+5m", {}),
    "LITTLE_THREE_DRAGONS": ("CCCFFFP123m456m+P", {}, "CCCFFF123m456m5p+5p", {}),
    "ALL_HONORS": ("EEESSSCCCFFFP+P", {}, "EEESSSCCCFFF1m+1m", {}),
    "FOUR_CONCEALED_PUNGS": ("111m333p555s777s9m+9m", SELF, "111m333p555s77s99m+7s", {}),
    "PURE_TERMINAL_CHOWS": ("123m123m789m789m5m+5m", {}, "123m123m789m789m5p+5p", {}),
    "QUADRUPLE_CHOW": ("123m123m123m123m5p+5p", {}, "123m123m123m234m5p+5p", {}),
    "FOUR_PURE_SHIFTED_PUNGS": ("111m222m333m444m5p+5p", {}, "111m222m333m555m5p+5p", {}),
    "FOUR_PURE_SHIFTED_CHOWS": ("123m234m345m456m9p+9p", {}, "123m234m345m567m9p+9p", {}),
    "THREE_KONGS": ("[1111m][2222p][3333s]456m5p+5p", {}, "[1111m][2222p][333s]456m5p+5p", {}),
    "ALL_TERMINALS_AND_HONORS": ("111m999sEEENNNP+P", {}, "111m789sEEENNNP+P", {}),
    "SEVEN_PAIRS": ("1133m5577p99sEES+S", {}, "112233m456p789sE+E", {}),
    "GREATER_HONORS_AND_KNITTED_TILES": ("14m25s369pESWNCF+P", {}, "147m25s369pESWNC+F", {}),
    "ALL_EVEN_PUNGS": ("222m444p666s888m2s+2s", {}, "222m444p666s888m5s+5s", {}),
    "FULL_FLUSH": ("123m345m678m999m5m+5m", {}, "123m345m678m999m5p+5p", {}),
    "PURE_TRIPLE_CHOW": ("[123m][123m]123m789p5p+5p", {}, "[123m][123m]123p789p5p+5p", {}),
    "PURE_SHIFTED_PUNGS": ("111m222m333m789p5p+5p", {}, "111m222m444m789p5p+5p", {}),
    "UPPER_TILES": ("789m789p789s888m9p+9p", {}, "789m789p789s666m9p+9p", {}),
    "MIDDLE_TILES": ("456m456p456s555m6p+6p", {}, "456m456p456s333m6p+6p", {}),
    "LOWER_TILES": ("123m123p123s222m3p+3p", {}, "123m123p123s444m3p+3p", {}),
    "PURE_STRAIGHT": ("123m456m789m123p5p+5p", {}, "123m456m789p123p5p+5p", {}),
    "THREE_SUITED_TERMINAL_CHOWS": ("123m789m123p789p5s+5s", {}, "123m789m123p789p5m+5m", {}),
    "PURE_SHIFTED_CHOWS": ("123m234m345m789p5p+5p", {}, "123m234m456m789p5p+5p", {}),
    "ALL_FIVE": ("345m456p567s555m5p+5p", {}, "345m456p567s555m6p+6p", {}),
    "TRIPLE_PUNG": ("222m222p222s789m5p+5p", {}, "222m222p333s789m5p+5p", {}),
    "THREE_CONCEALED_PUNGS": ("222m444p666s789m5p+5p", {}, "[222m]444p666s789m5p+5p", {}),
    "LESSER_HONORS_AND_KNITTED_TILES": ("147m25s369pESWNC+F", {}, "14m25s369pESWNCF+P", {}),
    "KNITTED_STRAIGHT": ("147m258s369p123m5p+5p", {}, "14m258s369pESWNC+F", {}),
    "UPPER_FOUR": ("678m678p678s999m6p+6p", {}, "678m678p678s555m6p+6p", {}),
    "LOWER_FOUR": ("123m234p234s444m1p+1p", {}, "123m234p234s555m1p+1p", {}),
    "BIG_THREE_WINDS": ("EEESSSWWW123m5m+5m", {}, "EEESSS123m456m5m+5m", {}),
    "MIXED_STRAIGHT": ("123m456p789s123m5p+5p", {}, "123m456p789p123m5p+5p", {}),
    "REVERSIBLE_TILES": ("123p456s888pPPP9p+9p", {}, "123p567s888pPPP9p+9p", {}),
    "MIXED_TRIPLE_CHOW": ("123m123p123s789m5p+5p", {}, "123m123p234s789m5p+5p", {}),
    "MIXED_SHIFTED_PUNGS": ("222m333p444s789m5p+5p", {}, "222m333p555s789m5p+5p", {}),
    "CHICKEN_HAND": ("33sEE[234m][678p][789s]+3s", SOUTH, "33sEE[234m][678p][789s]+3s", {**SOUTH, **SELF}),
    "LAST_TILE_DRAW": ("123m456p789s222s5p+5p", {**SELF, "last_tile": True},
                       "123m456p789s222s5p+5p", {"last_tile": True}),
    "LAST_TILE_CLAIM": ("123m456p789s222s5p+5p", {"last_tile": True},
                        "123m456p789s222s5p+5p", {**SELF, "last_tile": True}),
    "OUT_WITH_REPLACEMENT_TILE": ("[1111m]456p789s222s5p+5p", {**SELF, "kong_replacement": True},
                                  "[1111m]456p789s222s5p+5p", SELF),
    "ROBBING_THE_KONG": ("12m456p789s222s55p+3m", {"robbing_kong": True}, "12m456p789s222s55p+3m", {}),
    "ALL_PUNGS": ("[222m]444p666s888s5m+5m", {}, "[222m]444p666s678s5m+5m", {}),
    "HALF_FLUSH": ("123m456m789mEEE5m+5m", {}, "123m456m789mEEE5p+5p", {}),
    "MIXED_SHIFTED_CHOWS": ("123m234p345s789m5p+5p", {}, "123m234p456s789m5p+5p", {}),
    "ALL_TYPES": ("123m456p789sEEEC+C", {}, "123m456p789sEEEN+N", {}),
    "MELDED_HAND": ("[123m][456p][789s][EEE]5p+5p", {}, "[123m][456p][789s][EEE]5p+5p", SELF),
    "TWO_CONCEALED_KONGS": ("{1111m}{2222p}456s789s5p+5p", {}, "{1111m}[2222p]456s789s5p+5p", {}),
    "TWO_DRAGONS_PUNGS": ("CCCFFF123m456m5p+5p", {}, "CCCEEE123m456m5p+5p", {}),
    "OUTSIDE_HAND": ("123m789m123p999sE+E", {}, "123m789m234p999sE+E", {}),
    "FULLY_CONCEALED_HAND": ("123m456p789s222m5p+5p", SELF, "123m456p789s222m5p+5p", {}),
    "TWO_MELDED_KONGS": ("[1111m][2222p]456s789s5p+5p", {}, "[1111m][222p]456s789s5p+5p", {}),
    "LAST_TILE": ("12m456p789s222s55p+3m", {"fourth_tile": True}, "12m456p789s222s55p+3m", {}),
    "DRAGON_PUNG": ("CCC123m456p789s5p+5p", {}, "NNN123m456p789s5p+5p", {}),
    "PREVALENT_WIND": ("EEE123m456p789s5p+5p", {"seat_wind": "S"}, "EEE123m456p789s5p+5p", SOUTH),
    "SEAT_WIND": ("EEE123m456p789s5p+5p", {"prevalent_wind": "S"}, "EEE123m456p789s5p+5p", SOUTH),
    "CONCEALED_HAND": ("123m456p789s222m5p+5p", {}, "123m456p789s222m5p+5p", SELF),
    "ALL_CHOWS": ("123m456p789s234m5p+5p", {}, "123m456p789s234mE+E", {}),
    "TILE_HOG": ("123m345m111m456p5p+5p", {}, "234m345m111m456p5p+5p", {}),
    "DOUBLE_PUNG": ("222m222p123s456s5p+5p", {}, "222m333p123s456s5p+5p", {}),
    "TWO_CONCEALED_PUNGS": ("222m444p123s456s5p+5p", {}, "[222m]444p123s456s5p+5p", {}),
    "CONCEALED_KONG": ("{2222m}123p456s789s5p+5p", {}, "[2222m]123p456s789s5p+5p", {}),
    "ALL_SIMPLES": ("234m456p678s222m5p+5p", {}, "234m456p678s111m5p+5p", {}),
    "PURE_DOUBLE_CHOW": ("123m123m456p789s5p+5p", {}, "123m234m456p789s5p+5p", {}),
    "MIXED_DOUBLE_CHOW": ("123m123p456s789s5p+5p", {}, "123m234p456s789s5p+5p", {}),
    "SHORT_STRAIGHT": ("123m456m789p234s5p+5p", {}, "123m567m789p234s5p+5p", {}),
    "TWO_TERMINAL_CHOWS": ("123m789m456p234s5p+5p", {}, "123m678m456p234s5p+5p", {}),
    "PUNG_OF_TERMINALS_OR_HONORS": ("111m234p456s789s5p+5p", {}, "222m234p456s789s5p+5p", {}),
    "MELDED_KONG": ("[2222m]123p456s789s5p+5p", {}, "{2222m}123p456s789s5p+5p", {}),
    "ONE_VOIDED_SUIT": ("123m456m789p234p5p+5p", {}, "123m456m789p234s5p+5p", {}),
    "NO_HONORS": ("123m456p789s111m5p+5p", {}, "123m456p789sEEE5p+5p", {}),
    "EDGE_WAIT": ("12m456p789s222s55p+3m", {}, "23m456p789s222s55p+1m", {}),
    "CLOSED_WAIT": ("13m456p789s222s55p+2m", {}, "23m456p789s222s55p+1m", {}),
    "SINGLE_WAIT": ("123m456p789s222sE+E", {}, "123m456p789s22sEE+2s", {}),
    "SELF_DRAWN": ("[123m]456p789s222s5p+5p", SELF, "[123m]456p789s222s5p+5p", {}),
    "FLOWER_TILES": ("123m456p789s222s5p+5p", {"flowers": 2}, "123m456p789s222s5p+5p", {}),
    "CONCEALED_KONG_AND_MELDED_KONG": ("{1111m}[2222p]456s789s5p+5p", {}, "{1111m}[2222p]456s789s5p+5p", {},
                                       "mcr-reference", "mcr"),
}


def _score(text, context, rules):
    context = dict(context)
    flowers = context.pop("flowers", None)
    return score_hand(parse_hand(text, flowers=flowers, **context), rules)


def test_every_fan_has_a_case():
    assert set(CASES) == {f.key for f in FANS}
    assert len(MCR_FAN_IDS) == 81


@pytest.mark.parametrize("key", sorted(CASES, key=lambda k: BY_KEY[k].id))
def test_fan_hit_and_near_miss(key):
    hit, hit_ctx, miss, miss_ctx, *rules = CASES[key]
    hit_rules, miss_rules = (rules + ["mcr", "mcr"])[:2] if rules else ("mcr", "mcr")
    fan = BY_KEY[key]
    scored = _score(hit, hit_ctx, hit_rules)
    found = [f for f in scored["fans"] if f["key"] == key]
    assert found, f"{fan.name_zh} expected in {hit}: {[f['name_zh'] for f in scored['fans']]}"
    entry = found[0]
    assert entry["points"] == fan.points and entry["name_zh"] == fan.name_zh and entry["name_en"] == fan.name_en
    assert entry["tiles"] and all(entry["tiles"]), "every fan names the tiles it is counted on"
    missed = _score(miss, miss_ctx, miss_rules)
    assert key not in [f["key"] for f in missed["fans"]], f"{fan.name_zh} not expected in {miss}"


def test_every_fan_id_has_one_row_in_one_family():
    from scoring.fans import FanId
    from scoring.fans.catalog import _FAMILIES
    ids = [fan.id for family in _FAMILIES for fan in family.ROWS]
    assert sorted(ids) == list(range(1, 83))
    assert all(getattr(FanId, fan.key) == fan.id for fan in FANS)
    assert all(key in BY_KEY for fan in FANS for key in fan.excludes)
    for family in _FAMILIES:      # a family explains only its own fans
        assert set(family.EXPLAINERS) <= {fan.id for fan in family.ROWS}, family.__name__
