"""Corrections of the labelling tool kept for a tile set (docs/tilesets.md): when the server was
started with a set (`fanshot label DIR --tileset NAME`), each saved box whose tile a person changed
adds its crop to that set, as an example of the tile it truly is."""
from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from api.errors import ApiError

SAME_BOX = 0.5  # a saved box over an earlier one by at least this IoU is that box, its tile maybe changed


def corrected(before: list[dict], after: list[dict]) -> list[dict]:
    """The boxes of `after` that are a box of `before` (IoU >= SAME_BOX) whose tile was changed."""
    import numpy as np

    from vision.boxes import iou_matrix

    if not before or not after:
        return []
    iou = iou_matrix(np.array([b["box"] for b in after], np.float64), np.array([b["box"] for b in before], np.float64))
    out = []
    for i, box in enumerate(after):
        j = int(iou[i].argmax())
        if iou[i, j] >= SAME_BOX and before[j]["tile"] != box["tile"]:
            out.append(box)
    return out


async def remember_corrections(app: FastAPI, store: Any, rel: str, before: list[dict], after: list[dict]
                               ) -> dict[str, Any] | None:
    """The tiles corrected between `before` and `after` (the labels of `rel` before and as saved) added
    to the app's labelling tile set, in the inference pool when the app has one: what the answer says
    of it (`{"name", "added", "examples"}`, or `{"name", "error"}`: the labels are saved either way),
    None without a set or a correction."""
    from starlette.concurrency import run_in_threadpool

    name = getattr(app.state, "label_tileset", None)
    boxes = corrected(before, after) if name else []
    if not boxes:
        return None
    data = store.read_image(rel)
    args = (name, data, [b["box"] for b in boxes], [b["tile"] for b in boxes], store.image_size(rel),
            "correction", rel)
    pool = getattr(app.state, "pool", None)
    try:
        if pool is not None:
            async with pool.admission():
                summary = await app.state.inference.run_in(pool, "add_examples", *args)
        else:  # the labelling routes alone (tests)
            summary = await run_in_threadpool(_add_here, app, *args)
    except ApiError as exc:
        return {"name": name, "error": exc.message}
    return {"name": name, "added": len(boxes), "examples": summary["examples"]}


def _add_here(app: FastAPI, *args: Any) -> dict:
    from api.label.state import app_detector
    from api.settings import Settings, data_dir_of
    from api.tilesets import TilesetProfiles

    settings = getattr(app.state, "settings", None) or Settings.from_env()
    return TilesetProfiles(data_dir_of(settings)).add_examples(app_detector(app), *args)
