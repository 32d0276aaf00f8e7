"""/api/v1/tilesets: the player's tile sets (docs/tilesets.md). Learning runs in the inference
pool's workers, inside its admission limit, as the photo routes do (api/tilesets.py); listing and
forgetting read the data directory here."""
from __future__ import annotations

from fastapi import APIRouter, File, Form, Path, Request, UploadFile
from starlette.concurrency import run_in_threadpool

from vision.tileset.names import NAME_PATTERN

from ..errors import ApiError, error_responses
from ..settings import data_dir_of
from ..tileset_schemas import (
    TILESET_NAME,
    ExamplesRequest,
    Forgotten,
    LayoutLearnt,
    TilesetList,
    TilesetSummary,
)
from ..tilesets import not_found, unreadable
from ..uploads import check_form_fields, form_fields, read_image_upload

router = APIRouter(tags=["tile sets"])
NAME = Path(description=TILESET_NAME, pattern=NAME_PATTERN, min_length=1, max_length=40)
NOT_FOUND = {404: "No tile set of that name (params.known: the names there are), or no such photo"}
UNREADABLE = {422: "Invalid request, or a tile set whose file cannot be read (tileset_unreadable: learn it again)"}


def _store(request: Request):
    from vision.tileset.store import ProfileStore

    return ProfileStore(data_dir_of(request.app.state.settings))


def existing(request: Request, name: str) -> None:
    """404 tileset_not_found unless the set `name` is there (checked again where it is read)."""
    store = _store(request)
    if not store.path(name).is_file():
        raise not_found(name, store.names())


@router.get("/tilesets", response_model=TilesetList, summary="The tile sets learnt here")
def list_tilesets(request: Request) -> dict:
    from vision.tileset.profile import ProfileError

    store = _store(request)
    listed = []
    for name in store.names():
        try:
            listed.append({"name": name, "summary": store.load(name).summary()})
        except ProfileError as exc:
            listed.append({"name": name, "summary": None, "error": str(exc)})
    return {"tilesets": listed}


@router.get("/tilesets/{name}", response_model=TilesetSummary, responses=error_responses(404, 422, descriptions={
    **NOT_FOUND, **UNREADABLE}), summary="What a tile set holds: examples per tile, sources, dates")
def get_tileset(request: Request, name: str = NAME) -> dict:
    from vision.tileset.profile import ProfileError
    from vision.tileset.store import NoSuchTileset

    try:
        return _store(request).load(name).summary()
    except NoSuchTileset as exc:
        raise not_found(name, exc.known) from None
    except ProfileError as exc:
        raise unreadable(str(exc)) from None


@router.delete("/tilesets/{name}", response_model=Forgotten, responses=error_responses(404, 422, descriptions=NOT_FOUND),
               summary="Forget a tile set")
def forget_tileset(request: Request, name: str = NAME) -> dict:
    store = _store(request)
    if not store.forget(name):
        raise not_found(name, store.names())
    return {"name": name, "deleted": True}


@router.post("/tilesets/{name}/layout", response_model=LayoutLearnt,
             responses=error_responses(400, 413, 415, 422, 503, descriptions={
                 422: "Invalid request, a layout photo that does not fit the layout order (layout_mismatch, with "
                      "params found and rows; nothing saved), or a set to add to that cannot be read"}),
             summary="Learn a tile set from one photo of it laid out (`fanshot tileset layout` shows the order)")
async def learn_layout(
    request: Request,
    name: str = NAME,
    image: UploadFile = File(description="a photo of the set laid out: characters 1-9, bamboo 1-9, dots 1-9, "
                                         "winds, dragons; then the 8 flowers and one face-down tile if the set "
                                         "has them (34, 35, 42 or 43 tiles; rows may wrap)"),
    add: bool = Form(False, description="true: add to the set's examples instead of replacing them"),
) -> dict:
    state = request.app.state
    await check_form_fields(request, LAYOUT_FIELDS)
    async with state.pool.admission(request.is_disconnected):  # a place before the upload is read into memory
        data = await read_image_upload(image, state.settings.max_upload_bytes)
        result: dict = await state.inference.run_in(state.pool, "learn_layout", name, data, add,
                                                    (image.filename or "")[:120])
    return result


LAYOUT_FIELDS = form_fields(learn_layout) - {"name"}


@router.post("/tilesets/{name}/examples", response_model=TilesetSummary,
             responses=error_responses(400, 404, 413, 422, 503, descriptions={**NOT_FOUND, **UNREADABLE}),
             summary="Add corrected tiles of an analysed photo to a tile set")
async def add_examples(request: Request, body: ExamplesRequest, name: str = NAME) -> dict:
    """Each tile's crop in the photo of an analysis made with this set (its `photo_id`) becomes an
    example of the tile it truly is (the phone page's "remember for this set")."""
    state = request.app.state
    existing(request, name)
    data = await run_in_threadpool(state.images.get, body.photo_id)  # a database read: off the event loop
    if data is None:
        raise ApiError(404, "photo_not_found", "no such photo; an analysis's photo is kept only for a while")
    boxes = [tile.box for tile in body.tiles]
    tiles = [tile.tile for tile in body.tiles]
    async with state.pool.admission(request.is_disconnected):
        result: dict = await state.inference.run_in(state.pool, "add_examples", name, data, boxes, tiles, None,
                                                    "correction", "")
    return result
