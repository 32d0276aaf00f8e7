"""The games' score sheets: /api/v1/games (api/storage/, docs/games.md).

Every change carries the sheet `version` the client saw; a stale one is a 409 `stale_version`
whose `params.sheet` is the fresh sheet, so two phones recording at once never lose a hand.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import BaseModel, Field, StringConstraints

from ..errors import ApiError, error_responses
from ..schemas import WHOLE, Hand, Strict, Wind

router = APIRouter(prefix="/games", tags=["games"])

CODE = Path(pattern=r"^[A-Za-z0-9]{4,16}$", description="the game's short code")
NUMBER = Path(ge=1, le=16, description="the hand's number, 1-16")
_DESCRIPTIONS = {404: "No such game, hand or photo", 409: "A stale version (`params.sheet`: the fresh sheet) "
                 "or a game that is over", 422: "Invalid request, or a hand that does not fit the rules"}
MAX_INT = 2**31 - 1  # what every database's INTEGER holds
ERRORS = error_responses(400, 404, 409, 413, 422, descriptions=_DESCRIPTIONS)


Seat = Annotated[int, Field(ge=0, le=3), WHOLE]
PlayerName = Annotated[str, StringConstraints(min_length=1, max_length=40, pattern=r"\S")]


class NewGame(Strict):
    players: Optional[list[PlayerName]] = Field(None, min_length=4, max_length=4,
                                                description="the four different names, seat 0 first "
                                                "(default: E S W N)")
    rules: str = Field("mcr", description="mcr, mcr-reference or lianzhong: paid as MCR competition play")
    first_dealer: Seat = Field(0, description="the seat (0-3) of the first hand's dealer")


class Change(Strict):
    version: Annotated[int, Field(ge=0, le=MAX_INT), WHOLE] = Field(description="the sheet's version the client saw")


class HandRecord(Change):
    """A hand as it ended. A win names the winner and either the hand JSON (from an analysis, or
    typed: the game sets its seat wind, prevalent wind and self-drawn) or a typed total."""
    outcome: Literal["win", "draw", "false_win"] = Field(description="win, draw (荒庄) or false_win (错和)")
    winner: Optional[Seat] = Field(None, description="the winner's seat (0-3)")
    discarder: Optional[Seat] = Field(None, description="who discarded the winning tile; none: self-drawn")
    offender: Optional[Seat] = Field(None, description="a false win's offender")
    total: Optional[Annotated[int, Field(ge=0, le=10_000), WHOLE]] = Field(None, description="a win's total fan, typed (not with `hand`)")
    hand: Optional[Hand] = Field(None, description="the hand JSON, scored with the game's rule set")
    image_id: Optional[str] = Field(None, pattern=r"^[A-Za-z0-9_-]{1,64}$",
                                    description="the analysis' annotated photo (the id in its image_url), "
                                    "kept with the hand")


class Seats(BaseModel):
    number: int
    prevalent_wind: Wind
    dealer: int = Field(description="the dealer's seat")
    seat_winds: list[Wind] = Field(description="each seat's wind, seat 0 first")


class SheetHand(Seats):
    outcome: str
    winner: Optional[int]
    discarder: Optional[int]
    offender: Optional[int]
    self_drawn: bool
    total: int
    payments: list[int] = Field(description="what each seat won (+) or paid (-) this hand")
    scores: list[int] = Field(description="each seat's running score after this hand")
    hand: Optional[dict[str, Any]]
    score: Optional[dict[str, Any]]
    has_photo: bool
    photo_url: Optional[str] = None
    recorded_at: str


class PlayerSeat(BaseModel):
    seat: int
    name: str


class Sheet(BaseModel):
    code: str = Field(description="the short code other phones join with")
    rules: str
    version: int = Field(description="grows with every change; send it back with the next change")
    players: list[PlayerSeat]
    first_dealer: int
    hands_per_game: int
    hands: list[SheetHand]
    totals: list[int]
    over: bool
    ended_early: bool
    next: Optional[Seats] = Field(description="the next hand's winds; null when the game is over")
    created_at: str


def _store(request: Request):
    return request.app.state.games.get()


def _with_urls(request: Request, sheet: dict[str, Any]) -> dict[str, Any]:
    for hand in sheet["hands"]:
        hand["photo_url"] = (request.url_for("hand_photo", code=sheet["code"], number=hand["number"]).path
                             if hand["has_photo"] else None)
    return sheet


def _answer(request: Request, call, *args) -> dict[str, Any]:
    from api.storage.errors import GameError

    try:
        return _with_urls(request, call(*args))
    except GameError as exc:
        params = exc.params
        if params and "sheet" in params:
            params = {**params, "sheet": _with_urls(request, params["sheet"])}
        raise ApiError(exc.status, exc.code, exc.message, params=params) from None


def _entry(request: Request, body: HandRecord):
    from api.storage.entries import HandEntry

    photo = None
    if body.image_id:
        photo = request.app.state.images.get(body.image_id)
        if photo is None:
            raise ApiError(404, "image_not_found", "the analysis' annotated photo is no longer kept; record "
                           "the hand without image_id, or analyse the photo again")
    hand = body.hand.to_plain() if body.hand is not None else None
    return HandEntry(body.outcome, body.winner, body.discarder, body.offender, body.total, hand, photo)


@router.post("", status_code=201, response_model=Sheet, responses=ERRORS, summary="Start a game")
def create_game(request: Request, body: NewGame) -> dict:
    """A new game and its short code: four players, the rule set, the first dealer's seat."""
    return _answer(request, _store(request).create, body.players, body.rules, body.first_dealer)


@router.get("/{code}", response_model=Sheet, responses=ERRORS, summary="A game's score sheet")
def get_game(request: Request, code: str = CODE) -> dict:
    return _answer(request, _store(request).sheet, code)


@router.post("/{code}/hands", response_model=Sheet, responses=ERRORS, summary="Record the next hand")
def record_hand(request: Request, body: HandRecord, code: str = CODE) -> dict:
    """The next hand, against the version the client saw; the answer is the new sheet."""
    return _answer(request, _store(request).record, code, body.version, _entry(request, body))


@router.put("/{code}/hands/{number}", response_model=Sheet, responses=ERRORS, summary="Edit a recorded hand")
def edit_hand(request: Request, body: HandRecord, code: str = CODE, number: int = NUMBER) -> dict:
    """Hand `number` recorded anew; every later running score is recomputed. Its photo is kept
    unless the body brings another."""
    return _answer(request, _store(request).edit, code, number, body.version, _entry(request, body))


@router.post("/{code}/undo", response_model=Sheet, responses=ERRORS, summary="Undo the last hand")
def undo_hand(request: Request, body: Change, code: str = CODE) -> dict:
    return _answer(request, _store(request).undo, code, body.version)


@router.post("/{code}/end", response_model=Sheet, responses=ERRORS, summary="End the game before its 16 hands")
def end_game(request: Request, body: Change, code: str = CODE) -> dict:
    return _answer(request, _store(request).end, code, body.version)


@router.get("/{code}/hands/{number}/photo.jpg", response_class=Response, responses={
    200: {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}},
          "description": "The annotated photo recorded with the hand"}, **ERRORS},
    summary="A recorded hand's annotated photo")
def hand_photo(request: Request, code: str = CODE, number: int = NUMBER) -> Response:
    jpeg = _answer_photo(request, code, number)
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=86400"})


def _answer_photo(request: Request, code: str, number: int) -> bytes:
    from api.storage.errors import GameError

    try:
        return _store(request).photo(code, number)
    except GameError as exc:
        raise ApiError(exc.status, exc.code, exc.message, params=exc.params) from None


@router.get("/{code}/export", responses={
    200: {"content": {"text/csv": {"schema": {"type": "string"}}, "application/json": {"schema": Sheet.model_json_schema()}},
          "description": "The sheet as CSV (one row per hand) or JSON"}, **ERRORS},
    response_class=Response, summary="Export a game's sheet")
def export_game(request: Request, code: str = CODE,
                format: Literal["csv", "json"] = Query("csv", description="csv or json")) -> Response:
    import json

    from api.storage.sheet import sheet_csv

    sheet = _answer(request, _store(request).sheet, code)
    name = f"fanshot-game-{sheet['code']}.{format}"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    if format == "csv":
        return Response(sheet_csv(sheet), media_type="text/csv; charset=utf-8", headers=headers)
    return Response(json.dumps(sheet, ensure_ascii=False, indent=1), media_type="application/json", headers=headers)
