from __future__ import annotations

from fastapi import APIRouter

from ..schemas import RulesResponse

router = APIRouter(tags=["scoring"])


@router.get("/rules", response_model=RulesResponse, summary="The rule sets and their fan tables")
def rules() -> dict:
    import scoring

    return {"rulesets": scoring.list_rulesets()}
