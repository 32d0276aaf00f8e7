"""The Fanshot web service: JSON API under /api/v1 and the phone page at /."""
from __future__ import annotations

from contextlib import asynccontextmanager
from importlib import metadata
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from sqlalchemy import Engine

from .access import MAX_ADDRESSES, MAX_WRONG, WRONG_WINDOW, TokenMiddleware
from .errors import install_handlers
from .inference import Inference, start_worker, worker_model
from .middleware import AccessLogMiddleware, BodyLimitMiddleware
from .pool import InferencePool
from .routes import analyze, detect, games, health, images, label, labelstudio, rules, score, tilesets
from .schemas import install_openapi
from .settings import Settings, data_dir_of
from .storage.images import DatabaseImageStore
from .storage.store import LazyGameStore
from .storage.tries import DatabaseTries
from .storage.values import DatabaseValues

STATIC_DIR = Path(__file__).resolve().parent / "static"
API_PREFIX = "/api/v1"
FORM_OVERHEAD = 64 * 1024  # multipart boundaries and the context fields around an upload
JSON_BODY_LIMIT = 1024 * 1024  # any other body (a hand JSON is a few hundred bytes)


def _version() -> str:
    try:
        return metadata.version("fanshot")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    pool = InferencePool(settings.inference_workers, settings.inference_queue, processes=settings.inference_processes,
                         initializer=start_worker, initargs=(settings,),
                         deadline=settings.inference_deadline, probe=worker_model)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        yield
        pool.shutdown()
        app.state.games.close()

    app = FastAPIOffline(  # a FastAPI whose /docs and /redoc use bundled assets, not a CDN
        title="Fanshot",
        version=_version(),
        description="Score a Chinese Official Mahjong (国标麻将) hand from a photo or from hand JSON. "
                    "Every error is JSON: {\"error\": {\"code\", \"message\"}}.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.version = app.version
    app.state.pool = pool
    app.state.inference = Inference(settings)
    app.state.games = LazyGameStore(data_dir_of(settings), settings.database_url)  # opened on first use

    def database() -> Engine:
        return app.state.games.get().engine

    # every state a later request may touch is in the database (or the data and label folders), so
    # that any number of replicas serve one user (docs/replicas.md)
    app.state.images = DatabaseImageStore(database, settings.image_store_size, settings.image_ttl_seconds)
    app.state.values = DatabaseValues(database)

    install_handlers(app)
    app.add_middleware(BodyLimitMiddleware, upload_limit=settings.max_upload_bytes + FORM_OVERHEAD,
                       limit=JSON_BODY_LIMIT, upload_message=f"the upload is larger than {settings.max_upload_bytes} bytes")
    if settings.token:
        app.add_middleware(TokenMiddleware, token=settings.token,
                           wrong_tries=DatabaseTries(database, MAX_WRONG, WRONG_WINDOW, MAX_ADDRESSES))
    app.add_middleware(AccessLogMiddleware)

    for module in (health, rules, score, analyze, detect, images, tilesets):
        app.include_router(module.router, prefix=API_PREFIX)
    app.include_router(games.router, prefix=API_PREFIX)
    include_labelling(app)

    @app.get("/", include_in_schema=False)
    def phone_page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    install_openapi(app)
    return app


def include_labelling(app: FastAPI) -> None:
    """The labelling tool's routes (api/label/): the /label page, /api/v1/label/* and the Label
    Studio backend at /labelstudio/*."""
    app.include_router(label.page)
    app.include_router(label.router, prefix=API_PREFIX)
    app.include_router(labelstudio.router)
