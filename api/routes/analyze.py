from __future__ import annotations

import base64
from typing import Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from starlette.concurrency import run_in_threadpool

from vision.tileset.names import NAME_PATTERN

from ..errors import error_responses
from ..schemas import AnalyzeResponse, Wind
from ..scorer import check_rules
from ..storage.images import PHOTO_PREFIX
from ..tileset_schemas import TILESET_NAME
from ..uploads import check_form_fields, form_fields, read_image_upload
from .tilesets import existing

router = APIRouter(tags=["photos"])


@router.post("/analyze", response_model=AnalyzeResponse, response_model_exclude_none=False,
             responses=error_responses(400, 404, 413, 415, 422, 503, descriptions={404: "No tile set of that name"}), summary="Score the hand in a photo")
async def analyze(
    request: Request,
    image: UploadFile = File(description="a JPEG, PNG, WebP or HEIC photo of the revealed hand"),
    rules: str = Form("mcr", min_length=1, max_length=40, description="rule set name (GET /api/v1/rules)"),
    self_drawn: bool = Form(False, description="自摸"),
    seat_wind: Wind = Form("E", description="门风"),
    prevalent_wind: Wind = Form("E", description="圈风"),
    last_tile: bool = Form(False, description="海底捞月 / 妙手回春"),
    kong_replacement: bool = Form(False, description="杠上开花"),
    robbing_kong: bool = Form(False, description="抢杠和"),
    fourth_tile: bool = Form(False, description="和绝张"),
    dealer: bool | None = Form(None, description="庄家 (rule sets that read it, e.g. lianzhong)"),
    first_turn: str | None = Form(None, max_length=40, description="天和/地和/人和 state (lianzhong)"),
    wild_tile: str | None = Form(None, max_length=4, description="the wild 混 tile (lianzhong)"),
    inline_image: bool = Form(False, description="true: the annotated photo inline as base64, not a URL"),
    tileset: str | None = Form(None, description="read the tiles as this tile set draws them (" + TILESET_NAME
                               + "); the photo is then kept for a while (`photo_id`) for corrections", pattern=NAME_PATTERN, min_length=1, max_length=40),
) -> dict:
    """Tiles (code, box, score), the hand read from them, its score, warnings and
    alternatives, and the annotated photo (a URL, or base64 with inline_image)."""
    state = request.app.state
    await check_form_fields(request, FIELDS)
    check_rules(rules)  # before the upload is read or a worker taken
    if tileset is not None:
        existing(request, tileset)
    context: dict[str, Any] = {"self_drawn": self_drawn, "seat_wind": seat_wind, "prevalent_wind": prevalent_wind,
               "last_tile": last_tile, "kong_replacement": kong_replacement, "robbing_kong": robbing_kong,
               "fourth_tile": fourth_tile}
    extra: dict[str, Any] = {"dealer": dealer, "first_turn": first_turn, "wild_tile": wild_tile}
    context.update({key: value for key, value in extra.items() if value is not None})  # the rule set judges them
    async with state.pool.admission(request.is_disconnected):  # a place before the upload is read into memory
        data = await read_image_upload(image, state.settings.max_upload_bytes)
        result = await state.inference.analyze_in(state.pool, data, context, rules, tileset)
    body = dict(result.analysis)
    if tileset is not None:  # kept for POST /tilesets/{name}/examples: the boxes are in its pixels as read
        body["photo_id"] = await run_in_threadpool(state.images.put, data, PHOTO_PREFIX)
    if inline_image:
        body["image_base64"] = base64.b64encode(result.jpeg).decode("ascii")
    else:
        image_id = await run_in_threadpool(state.images.put, result.jpeg)  # a database write: off the event loop
        body["image_url"] = request.url_for("annotated_image", image_id=image_id).path
    return body


FIELDS = form_fields(analyze)
