from __future__ import annotations

from fastapi import APIRouter

from ..schemas import RulesResponse

router = APIRouter(tags=["scoring"])


def context_field_table() -> dict:
    """The context fields a rule set may read beyond DESIGN.md's, by name: type, allowed values,
    default and labels, for a form to offer them. The values come from the scorer's own data;
    the labels are the page's words. The scorer (scoring/) declares only the names
    (RuleSet.context_keys), so this is the one table that says what each one takes."""
    from scoring.lianzhong import CONTEXT_DEFAULTS, FIRST_TURNS
    from scoring.tiles import PLAYING_TILES

    first_turn_labels = {
        "initial_deal": {"zh": "天和（庄家起牌即和）", "en": "天和 Heavenly Hand (dealer wins on the deal)"},
        "first_draw_after_dealer": {"zh": "地和（庄家出第一张后下家自摸）",
                                    "en": "地和 Earthly Hand (next player self-draws on the first turn)"},
        "first_go_around": {"zh": "人和（第一圈内和牌）", "en": "人和 Human Hand (win in the first go-around)"},
    }
    return {
        "dealer": {"type": "bool", "default": CONTEXT_DEFAULTS["dealer"],
                   "label": {"zh": "庄家", "en": "Dealer"}},
        "first_turn": {"type": "enum", "default": CONTEXT_DEFAULTS["first_turn"],
                       "label": {"zh": "第一圈", "en": "First go-around"},
                       "values": [{"value": v, "label": first_turn_labels[v]} for v in FIRST_TURNS]},
        "wild_tile": {"type": "tile", "default": CONTEXT_DEFAULTS["wild_tile"],
                      "label": {"zh": "混牌", "en": "Wild tile"},
                      "values": list(PLAYING_TILES)},
    }


def context_fields(context_keys: list[str], table: dict) -> list[dict]:
    """A rule set's extra context fields as a list; one the table does not know has type "unknown"."""
    return [{"name": key, **table.get(key, {"type": "unknown"})} for key in context_keys]


@router.get("/rules", response_model=RulesResponse, summary="The rule sets, their fan tables and extra context fields")
def rules() -> dict:
    import scoring

    table = context_field_table()
    return {"rulesets": [{**rs, "context_fields": context_fields(rs["context_keys"], table)}
                         for rs in scoring.list_rulesets()]}
