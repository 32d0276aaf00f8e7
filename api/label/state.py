"""The labelling tool's state: its folder (a LabelStore) and detector on the app, and the
connection settings Label Studio sent to /labelstudio/setup in the service's database.

`configure_labelling(app, folder, detector=...)` sets the folder and detector (the `fanshot label
DIR` command and the tests do); otherwise the folder comes from FANSHOT_LABEL_DIR on first use and the detector
is the one of the app's settings (the shipped model by default).

Every detector call of the labelling tool (pre-labels, Label Studio predictions) is `detect_photo`:
on an app with the service's inference pool (create_app) it runs there, inside the pool's
admission limit, as the photo routes do.
"""
from __future__ import annotations

import os
from typing import Any

import anyio
import anyio.from_thread
from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool

from api.errors import ApiError
from api.label.errors import LabelError
from api.label.store import DetectorUnavailable, LabelStore
from api.settings import LABEL_DIR_ENV, Settings, label_dir_from_env
from api.storage.values import DatabaseValues


def configure_labelling(app: FastAPI, folder: str | os.PathLike[str], detector: Any = None,
                        tileset: str | None = None) -> LabelStore:
    """Point the app's labelling routes at `folder`; `detector` replaces the real one (tests); with
    `tileset`, photos are pre-labelled reading with that tile set and a tile a person corrects is
    added to it (api/label/corrections.py)."""
    app.state.label_detector = detector
    app.state.label_tileset = tileset
    store = LabelStore(folder, photo_detector=lambda data: _detect_from_thread(app, data))
    app.state.label_store = store
    return store


async def detect_photo(app: FastAPI, data: bytes) -> dict:
    """vision.detector.detect_photo's answer for a photo's bytes (`{"width", "height", "detections"}`):
    in the app's inference pool if it has one (503 busy when it is full), else in a thread here.
    Raises DetectorUnavailable when there is no model, ApiError for a photo refused (413/415/422)."""
    pool = getattr(app.state, "pool", None)
    if pool is None:  # the labelling routes alone (tests)
        return await run_in_threadpool(_detect_here, app, data)
    stand_in = getattr(app.state, "label_detector", None)
    async with pool.admission():
        if stand_in is not None:  # tests: the pool runs in threads
            return await pool.execute(_detect_with, stand_in, data, app.state.settings.max_pixels)
        try:  # with the labelling tile set: pre-labels read as the player's set draws its tiles
            result: dict = await app.state.inference.detect_in(pool, data, getattr(app.state, "label_tileset", None))
        except ApiError as exc:
            if exc.code == "model_not_found":
                raise DetectorUnavailable(exc.message) from None
            raise
        return result


def _detect_from_thread(app: FastAPI, data: bytes) -> dict:
    """`detect_photo` for the store, which runs in a worker thread of the event loop (a sync route);
    called outside one (a script on the store), in this thread."""
    try:
        return anyio.from_thread.run(detect_photo, app, data)
    except anyio.NoEventLoopError:
        return _detect_here(app, data)


def _detect_here(app: FastAPI, data: bytes) -> dict:
    try:
        detector = app_detector(app)
    except Exception as exc:  # no model in models/ yet, a broken model file ...
        raise DetectorUnavailable(str(exc)) from exc
    name = getattr(app.state, "label_tileset", None)
    if name is not None and getattr(app.state, "label_detector", None) is None:
        from api.settings import Settings, data_dir_of
        from api.tilesets import TilesetProfiles
        from vision.tileset.reader import with_tileset

        settings = getattr(app.state, "settings", None) or Settings.from_env()
        profile = TilesetProfiles(data_dir_of(settings)).for_reading(name, detector.classifier)
        return _detect_with(with_tileset(detector, profile), data)
    return _detect_with(detector, data)


def _detect_with(detector: Any, data: bytes, max_pixels: int | None = None) -> dict:
    from api.inference import image_errors
    from vision.detector import detect_photo as detect

    with image_errors():
        return detect(detector, data, max_pixels=max_pixels)


def app_detector(app: FastAPI) -> Any:
    """The detector of the labelling tool: the one given to configure_labelling, else the model of
    the app's settings (the shipped one by default)."""
    detector = getattr(app.state, "label_detector", None)
    if detector is not None:
        return detector
    from vision.detector import get_detector

    settings: Settings | None = getattr(app.state, "settings", None)  # none on an app without the service
    return get_detector(settings.model_dir if settings is not None else None)


def get_store(request: Request) -> LabelStore:
    """The app's labelling folder; 503 when there is none."""
    store: LabelStore | None = getattr(request.app.state, "label_store", None)
    if store is None:
        folder = label_dir_from_env()
        if not folder:
            raise LabelError(
                "no_label_folder",
                f"labelling is off: start the server with `fanshot label DIR` or set {LABEL_DIR_ENV}",
                503,
            )
        store = configure_labelling(request.app, folder)
    return store


def optional_store(request: Request) -> LabelStore | None:
    """The app's labelling folder if one is configured, by `fanshot label DIR` or FANSHOT_LABEL_DIR
    (Label Studio reads task images from it)."""
    store: LabelStore | None = getattr(request.app.state, "label_store", None)
    return store if store is not None or not label_dir_from_env() else get_store(request)


def detector_version(request: Request) -> str:
    """The labelling tool's model version, read without loading the model here (the pool's workers
    load it); 503 when there is no model."""
    from api.label.studio import model_version
    from vision.model_spec import ModelNotFoundError, read_model_spec

    stand_in = getattr(request.app.state, "label_detector", None)
    if stand_in is not None:
        return model_version(getattr(stand_in, "spec", None), getattr(stand_in, "model_version", None))
    settings: Settings | None = getattr(request.app.state, "settings", None)
    try:
        _, spec = read_model_spec(settings.model_dir if settings is not None else None)
    except (ModelNotFoundError, ValueError, KeyError) as exc:  # none in models/ yet, a broken model.json
        raise no_detector(exc) from exc
    return model_version(spec)


def no_detector(exc: Exception) -> LabelError:
    return LabelError("no_detector", f"the detector is not available: {exc}", 503)


LABEL_STUDIO_VALUE = "label_studio_connection"


def label_studio_connection(request: Request) -> dict[str, str]:
    """What Label Studio sent to /labelstudio/setup (`hostname`, `access_token`, and
    `trusted_hostname`): in the service's database, so that every replica and a restarted
    service fetch task images with it; on the app when it has no database (the labelling routes
    alone, in tests). Reads the database: call it in a worker thread."""
    values: DatabaseValues | None = getattr(request.app.state, "values", None)
    kept = getattr(request.app.state, "label_studio_settings", {}) if values is None else values.get(LABEL_STUDIO_VALUE)
    return {key: value for key, value in (kept or {}).items() if isinstance(value, str)}


def keep_label_studio_connection(request: Request, connection: dict[str, str]) -> None:
    """Keep what /labelstudio/setup was sent, where `label_studio_connection` reads it."""
    values: DatabaseValues | None = getattr(request.app.state, "values", None)
    if values is None:
        request.app.state.label_studio_settings = dict(connection)
    else:
        values.put(LABEL_STUDIO_VALUE, dict(connection))
