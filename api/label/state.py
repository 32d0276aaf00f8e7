"""The labelling tool's state on the app: its folder (a LabelStore), its detector, and the
connection settings Label Studio sent to /labelstudio/setup.

`configure_labelling(app, folder, detector=...)` sets them (the `fanshot label DIR` command and
the tests do); otherwise the folder comes from FANSHOT_LABEL_DIR on first use and the detector
is the one of the app's settings (the shipped model by default).
"""
from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI, Request

from api.label.errors import LabelError
from api.label.store import LabelStore
from api.settings import LABEL_DIR_ENV, Settings, label_dir_from_env


def configure_labelling(app: FastAPI, folder: str | os.PathLike[str], detector: Any = None) -> LabelStore:
    """Point the app's labelling routes at `folder`; `detector` replaces the real one (tests)."""
    app.state.label_detector = detector
    store = LabelStore(folder, detector_factory=lambda: app_detector(app))
    app.state.label_store = store
    return store


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


def get_detector(request: Request) -> Any:
    """The labelling tool's detector; 503 when it cannot be loaded."""
    try:
        return app_detector(request.app)
    except Exception as exc:  # no model in models/ yet, a broken model file ...
        raise LabelError("no_detector", f"the detector is not available: {exc}", 503) from exc


def label_studio_connection(request: Request) -> dict[str, str]:
    """What Label Studio sent to /labelstudio/setup (`hostname`, `access_token`), kept on the app."""
    connection: dict[str, str] = getattr(request.app.state, "label_studio_settings", {})
    return connection
