"""Request and response models: the hand JSON and score JSON of DESIGN.md, for OpenAPI."""
from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_serializer

from .errors import ErrorDetail

# The tile codes of DESIGN.md, written out so that type checkers read them too.
PlayTile = Literal[  # a tile that can be in a hand: characters, bamboo, dots, winds, dragons
    "W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9",
    "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9",
    "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9",
    "F1", "F2", "F3", "F4", "J1", "J2", "J3",
]
FlowerTile = Literal["H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8"]
DetectedTile = Literal[PlayTile, FlowerTile, "BACK"]
Wind = Literal["E", "S", "W", "N"]


def _whole(value: object) -> object:
    """A JSON number with no fraction (5.0) as the integer it is: JSON Schema's integer admits it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


# after an int's Field constraints in Annotated[int, Field(...), WHOLE] (so the schema keeps them)
WHOLE = BeforeValidator(_whole)


class Strict(BaseModel):
    """A request part: unknown fields refused, no coercion ("yes" is not true)."""
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)


class Context(BaseModel):
    """The win conditions of DESIGN.md. A rule set may read more fields (its `context_keys` in
    GET /api/v1/rules); the scorer refuses a field that the chosen rule set does not know."""
    model_config = ConfigDict(extra="allow", strict=True)

    self_drawn: bool = Field(False, description="自摸: won on a self-drawn tile")
    seat_wind: Wind = Field("E", description="门风: the winner's seat wind")
    prevalent_wind: Wind = Field("E", description="圈风: the prevalent (round) wind")
    last_tile: bool = Field(False, description="海底捞月 / 妙手回春: won on the last tile of the wall")
    kong_replacement: bool = Field(False, description="杠上开花: self-drawn on a kong's replacement tile")
    robbing_kong: bool = Field(False, description="抢杠和: won on a tile added to another player's kong")
    fourth_tile: bool = Field(False, description="和绝张: the winning tile is the last one of its kind")


# Lists are bounded well above any legal hand, only to keep absurd requests away from the
# scorer; counting tiles and checking melds is the scorer's job (its codes: wrong_tile_count, ...).
class Meld(Strict):
    kind: Literal["chow", "pung", "kong"]
    tiles: list[PlayTile] = Field(max_length=8)
    exposed: bool = Field(True, description="false: a concealed kong")
    claimed: Optional[PlayTile] = Field(None, description="the tile taken from a discard")
    from_: Optional[Literal["left", "across", "right"]] = Field(None, alias="from",
                                                                description="whose discard was claimed")


class Hand(Strict):
    concealed: list[PlayTile] = Field(max_length=24, description="concealed tiles, the winning tile excluded")
    melds: list[Meld] = Field(default_factory=list, max_length=8)
    win_tile: PlayTile
    flowers: list[FlowerTile] = Field(default_factory=list, max_length=16)
    context: Context = Field(default_factory=lambda: Context.model_validate({}))  # every default

    def to_plain(self) -> dict[str, Any]:
        """The hand JSON the scorer takes (`from` spelled as in DESIGN.md, absent options left out)."""
        return self.model_dump(by_alias=True, exclude_none=True)


class ScoreRequest(Strict):
    hand: Hand
    rules: str = Field("mcr", min_length=1, max_length=40, description="a rule set name from GET /api/v1/rules")


class Open(BaseModel):
    """A response part whose extra fields are passed through as the scorer or analyser gives them."""
    model_config = ConfigDict(extra="allow")


class Fan(Open):
    name_zh: str
    name_en: str
    points: int | float = Field(description="the value of one such fan")
    count: int = Field(description="how many times it is counted")
    tiles: list[Any] = Field(default_factory=list, description="the tiles or melds the fan is counted on")


class Score(Open):
    total: int | float
    meets_minimum: bool
    ruleset: str
    fans: list[Fan]


class Detection(Open):
    tile: DetectedTile
    box: list[float] = Field(min_length=4, max_length=4, description="[x1, y1, x2, y2] in pixels of the photo")
    score: float


class DetectResponse(BaseModel):
    width: int
    height: int
    detections: list[Detection]


class PhotoTile(Detection):
    role: Optional[str] = Field(None, description="concealed, meld, win, flower or stray")
    low_confidence: bool = False
    read_as: Optional[DetectedTile] = Field(
        None, description="set on a tile scored as another tile than the detector read so that the hand "
        "wins (warning reading_repaired): the detector's own reading; `tile` is the one scored")
    dropped: Optional[bool] = Field(
        None, description="true on a tile the reading repair left out so that the hand wins (warning "
        "reading_repaired, a change with `removed`): role stray, low_confidence; check it")


class Reading(BaseModel):
    """A reading of the tiles: which is the winning tile, which groups are declared melds, what is left out."""
    win_tile: PlayTile
    win_apart: bool = Field(description="false: the winning tile was not set apart (taken as the row's last tile)")
    melds: list[list[PlayTile]] = Field(description="the declared melds' tiles")
    left_out: Optional[list[DetectedTile]] = Field(
        description="tiles this reading leaves out of the hand; null: it leaves no group out")


# The layout's warnings (vision/layout_warnings.py): one model per code, its params typed.
class TileReadTwoWaysParams(BaseModel):
    kept: DetectedTile
    kept_score: float
    other: DetectedTile
    other_score: float


class WinTileNotApartParams(BaseModel):
    tile: PlayTile = Field(description="the row's last tile, scored as the winning tile")


class HiddenKongTileUnknownParams(BaseModel):
    total: int | float = Field(description="the total scored, the one most of the possible tiles give")
    tiles: list[PlayTile] = Field(description="the tile given to each kong shown as four backs")
    min_total: int | float
    max_total: int | float


class ReadingParams(BaseModel):
    reading: Reading


class StraysLeftOutParams(BaseModel):
    count: int
    tiles: list[DetectedTile]


class UnsureTile(BaseModel):
    tile: DetectedTile
    score: float = Field(description="the detector's confidence, rounded to 0.01")


class LowConfidenceParams(BaseModel):
    threshold: float
    tiles: list[UnsureTile]


class RepairedTile(BaseModel):
    from_: Optional[DetectedTile] = Field(alias="from", description="the tile as the detector read it; "
                                          "null for an added tile")
    to: Optional[DetectedTile] = Field(description="the tile scored instead: one of the detector's next "
                                       "choices; null for a dropped tile")
    choice: Optional[int] = Field(None, description="its place among the detector's choices for that tile, "
                                  "1 = first; absent for a dropped tile")
    box: list[float] = Field(description="the tile's box, [x1, y1, x2, y2] in pixels, as in `tiles`")
    added: Optional[bool] = Field(None, description="true: a faint box the finder scored under its threshold, "
                                  "added to a hand one tile short (its tile is marked low_confidence)")
    removed: Optional[bool] = Field(None, description="true: a box left out of a hand with a tile too many "
                                    "(likely a second box on one tile); its record in `tiles` is a stray "
                                    "marked `dropped` and low_confidence")

    @model_serializer(mode="wrap")
    def _without_unset_flags(self, handler) -> dict:  # a substitution's record says no `added` nor `removed`
        data = handler(self)
        for key in ("added", "removed", "choice"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    model_config = {"populate_by_name": True, "serialize_by_alias": True}


class ReadingRepairedParams(BaseModel):
    changes: list[RepairedTile] = Field(description="the tiles changed so that the hand wins")


class _Warning(BaseModel):
    message: str = Field(description="the English text (the same string as in `warnings`)")


class TileReadTwoWaysWarning(_Warning):
    code: Literal["tile_read_two_ways"]
    params: TileReadTwoWaysParams


class WinTileNotApartWarning(_Warning):
    code: Literal["win_tile_not_apart"]
    params: WinTileNotApartParams


class HiddenKongTileUnknownWarning(_Warning):
    code: Literal["hidden_kong_tile_unknown"]
    params: HiddenKongTileUnknownParams


class UnusualLayoutWarning(_Warning):
    code: Literal["unusual_layout"]
    params: ReadingParams


class GroupingAmbiguousWarning(_Warning):
    code: Literal["grouping_ambiguous"]
    params: ReadingParams


class StraysLeftOutWarning(_Warning):
    code: Literal["strays_left_out"]
    params: StraysLeftOutParams


class LowConfidenceWarning(_Warning):
    code: Literal["low_confidence"]
    params: LowConfidenceParams


class ReadingRepairedWarning(_Warning):
    code: Literal["reading_repaired"]
    params: ReadingRepairedParams


WarningDetail = Annotated[Union[TileReadTwoWaysWarning, WinTileNotApartWarning, HiddenKongTileUnknownWarning,
                                UnusualLayoutWarning, GroupingAmbiguousWarning, StraysLeftOutWarning,
                                LowConfidenceWarning, ReadingRepairedWarning], Field(discriminator="code")]
WARNING_MODELS: tuple[type[_Warning], ...] = get_args(get_args(WarningDetail)[0])


class Alternative(Open):
    description: str = Field(description="how this reading differs from the chosen one (English)")
    reading: Reading = Field(description="the same, as data: for clients that show another language")
    hand: dict[str, Any]
    total: Optional[int | float] = None


class AnalyzeResponse(Open):
    tiles: list[PhotoTile] = Field(description="every tile found, boxes in pixels of the analysed image")
    hand: Optional[dict[str, Any]] = Field(description="the hand JSON as read from the photo; null if none")
    score: Optional[Score] = Field(description="null when the hand could not be scored (see error)")
    error: Optional[ErrorDetail] = Field(None, description="why the hand was not scored")
    warnings: list[str] = Field(description="doubts about the reading, for people (English)")
    warning_details: list[WarningDetail] = Field(
        description="each of `warnings`, in the same order, as a stable code and its params")
    alternatives: list[Alternative] = Field(description="other readings of the same tiles, with their totals")
    image_size: Optional[list[int]] = Field(None, description="[width, height] of the analysed image: the photo "
                                            "as shown, at the scale it is read at (vision.detector.read_photo: "
                                            "a 4000 px JPEG at 1/4)")
    image_url: Optional[str] = Field(None, description="the annotated photo (JPEG), kept for a while")
    image_base64: Optional[str] = Field(None, description="the annotated photo as base64 JPEG, when asked for")
    photo_id: Optional[str] = Field(None, description="with a tile set: the photo, kept for a while, to add "
                                    "corrected tiles to the set (POST /api/v1/tilesets/{name}/examples)")


class RuleSet(Open):
    name: str
    title: Any
    partial: bool = False


class RulesResponse(BaseModel):
    rulesets: list[RuleSet]


class InferenceStatus(BaseModel):
    workers: int
    queue: int
    admitted: int
    ready: int = Field(0, description="workers started and ready (in worker processes: the model loaded)")
    starting: int = Field(0, description="workers starting (loading the model)")
    stuck: int = Field(0, description="workers stopped, or running one analysis past the deadline")
    replaced: int = Field(0, description="workers replaced since the start (lost or stuck)")


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded"] = Field(description="degraded: a worker is stuck or being replaced "
                                                          "(photos are slower or answer 503/504 meanwhile)")
    version: str
    model_loaded: bool
    model: str | None = Field(None, description="the loaded detector's name (models/model.json provenance.name, e.g. "
                                                "fanshot-tiles-m24); null until a worker has loaded it")
    inference: InferenceStatus


def tighten_form_schemas(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI `schema` with each multipart form said as the routes read it
    (api/uploads.check_form_fields): no field but those named, a file of at least one byte, and
    an optional field that is a value or absent (a form cannot send null). Changes it in place."""
    components = schema.get("components", {}).get("schemas", {})
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            form = (operation.get("requestBody", {}).get("content", {}).get("multipart/form-data", {})
                    .get("schema", {}).get("$ref", ""))
            body = components.get(form.rsplit("/", 1)[-1]) if form else None
            if body is None:
                continue
            body["additionalProperties"] = False
            for field in body.get("properties", {}).values():
                if field.get("contentMediaType") == "application/octet-stream":
                    field["minLength"] = 1
                values = [a for a in field.get("anyOf", ()) if a.get("type") != "null"]
                if "anyOf" in field and len(values) == 1:
                    del field["anyOf"]
                    field.update(values[0])
                    if field.get("default", 0) is None:
                        del field["default"]
    return schema


def install_openapi(app: Any) -> None:
    """Serve the app's OpenAPI schema with its forms tightened (tighten_form_schemas)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()  # FastAPI builds it once and keeps it
        if not schema.get("x-forms-tightened"):
            tighten_form_schemas(schema)
            schema["x-forms-tightened"] = True
        return schema

    app.openapi = openapi
