"""Request and response models of /api/v1/tilesets (api/routes/tilesets.py, docs/tilesets.md)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import BaseModel, Field

from .schemas import WHOLE, DetectedTile, Strict

TILESET_NAME = ("a tile set's name: up to 40 ASCII letters, digits, '_' or '-', a letter or digit first "
                "(GET /api/v1/tilesets)")
PHOTO_ID_PATTERN = r"^photo-[A-Za-z0-9_-]{1,58}$"
Coordinate = Annotated[float, Field(gt=-1e6, lt=1e6), WHOLE]


class TilesetSource(BaseModel):
    kind: str = Field(description="layout (a layout photo), labelled (labelled photos), correction (tiles a "
                                  "player or the labelling tool corrected)")
    times: int = Field(description="how many times examples came from this kind of source")
    tiles: int = Field(description="tiles learnt from it, all times together")
    first: str = Field(description="the first time (ISO 8601, UTC)")
    last: str = Field(description="the last time (ISO 8601, UTC)")


class TilesetSummary(BaseModel):
    name: str
    created: str = Field(description="when its examples last changed (ISO 8601, UTC)")
    classifier: str = Field(description="the classifier it was learnt with (a profile of another is refused)")
    examples: int = Field(description="examples in all (each tile gives 24: its crop moved, grown, turned, "
                                      "blurred, both ways up)")
    tiles: dict[str, int] = Field(description="examples per tile code; a code absent is read by the shipped "
                                              "classifier alone")
    sources: list[TilesetSource]
    ink: bool = Field(description="whether it holds its examples' ink views (faces drawn in another colour are "
                                  "read in ink too); a set learnt before them does not: learn it again")
    missed: list[str] = Field(description="tiles the finder gave no box in its layout photos (found in the rows' gaps)")
    searched: bool = Field(description="whether its photos are searched beside their rows for tiles the finder "
                                       "gives no box: unless every layout photo of it had every tile found")


class Learnt(BaseModel):
    tiles: int = Field(description="tiles found and named in the layout order")
    rows: list[int] = Field(description="tiles in each row, top to bottom")
    reversed: bool = Field(description="true: the photo was taken from the other side (the order read backwards)")
    missed: int = Field(description="tiles the finder gave no box, found where a row leaves a gap or ends "
                                    "(the classifier reads a tile there)")
    left_out: int = Field(0, description="tiles found in the photo and left out as no part of the layout (more "
                                         "tiles read as the order names them without: a tile beside the rows)")
    seconds: float = Field(description="time spent finding and learning, in the worker")


class LayoutLearnt(TilesetSummary):
    learnt: Learnt


class TilesetListed(BaseModel):
    name: str
    summary: Optional[TilesetSummary] = Field(description="null when its file cannot be read (see error)")
    error: Optional[str] = Field(None, description="why its file cannot be read: forget it and learn it again")


class TilesetList(BaseModel):
    tilesets: list[TilesetListed]


class Forgotten(BaseModel):
    name: str
    deleted: bool = True


class CorrectedTile(Strict):
    tile: DetectedTile = Field(description="the tile it truly is")
    box: list[Coordinate] = Field(min_length=4, max_length=4,
                                  description="[x1, y1, x2, y2] in pixels of the analysed image (an analysis's "
                                              "`tiles[].box`)")


class ExamplesRequest(Strict):
    photo_id: str = Field(pattern=PHOTO_ID_PATTERN,
                          description="the `photo_id` of an analysis made with this tile set (its photo is kept "
                                      "for a while for this)")
    tiles: list[CorrectedTile] = Field(min_length=1, max_length=64)
