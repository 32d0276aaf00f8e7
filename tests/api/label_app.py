"""An app with the labelling routes alone (no inference pool), as the labelling tests use it."""
from __future__ import annotations

from fastapi import FastAPI

from api.app import include_labelling
from api.errors import install_handlers


def labelling_app() -> FastAPI:
    """The labelling page, API and Label Studio backend, with the service's error handlers."""
    app = FastAPI()
    install_handlers(app)
    include_labelling(app)
    return app
