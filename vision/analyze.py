"""Photo -> score: decode, detect, lay out, score. What the API and `fanshot analyze` call.

`analyze_photo` and `analyze_detections` give a vision.analysis.Analysis; `analyze_image(data,
context, rules, detector)` its JSON, plain data:

    {"tiles": [{"tile", "box", "score", "role", "sideways", "low_confidence"}],
     "hand": HAND or None, "score": SCORE or None,
     "warnings": [str], "warning_details": [{"code", "params", "message"}],
     "alternatives": [{"description", "reading", "hand", "total"}],
     "error": None or {"code", "message"},    # set when no winning hand is read
     "groups": [{"role", "tiles", "box"}], "image_size": [width, height]}

`warnings` are English texts; `warning_details` gives each, in the same order, a stable
code and its params (vision.layout_warnings.WARNING_CODES) for clients that show another
language. Bad image bytes raise `vision.decode.ImageError` (with the HTTP status to
answer); a missing model raises `vision.model_spec.ModelNotFoundError`; a bad
context or rule set raises `scoring.HandError` (unknown_context_key, invalid_context,
unknown_ruleset).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vision.analysis import Analysis
from vision.detections import Detection, Detections, TileDetector
from vision.layout import build_hand
from vision.one_set import assign_one_set
from vision.photo import Photo
from vision.reading_repair import MIN_ADDED_SCORE, needs_repair, repair

# Boxes the finder scores from this up to its threshold are the weak boxes a hand one tile short
# may take one of (vision.reading_repair); a weaker box has no candidate the repair may add.
WEAK_FLOOR = MIN_ADDED_SCORE
RESULT_KEYS = ("tiles", "hand", "score", "warnings", "warning_details", "alternatives")
# What puts a reading in doubt, worst first: no winning hand, a layout no table shows (melds
# merged into the concealed row: a claimed tile turned sideways not told from its neighbours),
# hand tiles the detector was unsure of. read_hand looks again at a photo read with one of the
# first LOOK_AGAIN of them and ranks two readings by all.
DOUBTS = ("no_winning_hand", "unusual_layout", "low_confidence")
LOOK_AGAIN = 2
# read_hand's other looks at a photo in doubt, in turn (the detector's `detect` options)
LOOKS = ({"closer": True}, {"upside_down": True})


class HandReading(NamedTuple):
    """read_hand's answer: the detections read (detect_hand's) and their analysis."""

    detections: Detections
    analysis: Analysis


class AnalyzedPhoto(NamedTuple):
    """analyze_photo's answer: the RGB image analyzed and the analysis, boxes in its pixels."""

    image: np.ndarray
    analysis: Analysis


def normalize_context(context: dict | None, rules: str = "mcr") -> dict:
    """The hand JSON's context with defaults filled in (and the fields the rule set adds);
    an unknown rule set or a bad field raises scoring.HandError."""
    from scoring import get_ruleset
    from scoring.hand import validate_context

    return validate_context(context, get_ruleset(rules).context_keys)


def detect_hand(detector: TileDetector, rgb: np.ndarray, *, photo: Photo | None = None, **look) -> Detections:
    """The detector's tiles of a photo of one player's hand, read as one tile set can hold
    them (vision.one_set: at most four of a tile, one of each flower), and its weak boxes (finder
    score from WEAK_FLOOR up to its threshold): not tiles of the reading, only offered to the
    reading repair of a hand one tile short (analyze_detections). `look`: one of read_hand's other
    looks at a photo in doubt (LOOKS: `closer=True` or `upside_down=True`); `photo`: the photo
    `rgb` is (vision.photo.read_photo)."""
    found = detector.detect(rgb, weak_floor=WEAK_FLOOR, photo=photo, **look)
    return Detections(assign_one_set(found.tiles), found.weak, found.closer_differs)


def doubts(analysis: Analysis) -> tuple[bool, ...]:
    """Which of DOUBTS an analysis has, in DOUBTS' order (so that a less doubtful reading
    compares smaller)."""
    codes = {w["code"] for w in analysis.warning_details}
    return (analysis.score is None, *(code in codes for code in DOUBTS[1:]))


def read_hand(
    detector: TileDetector, rgb: np.ndarray, context: dict | None = None, rules: str = "mcr", *,
    repair_reading: bool = True, photo: Photo | None = None,
) -> HandReading:
    """A photo's detections (detect_hand) and their analysis (analyze_detections); `photo`: the
    photo `rgb` is (vision.photo.read_photo). A reading in doubt (no winning hand, or an unusual
    layout: DOUBTS[:LOOK_AGAIN]) is read again with the detector's other LOOKS, in turn, while it
    stays in doubt; a look's reading is kept when it is less in doubt (`doubts` compares smaller:
    a hand that wins, then no unusual layout, then no unsure tile).
    - The closer look: the finder's zoomed look at the hand even where it shows the tiles
      hardly larger, which the first look skips to save time (its boxes fit a tile turned sideways
      better). Skipped for a photo read by read_photo when its first look already saw the tiles as
      close as it would (`Detections.closer_differs`).
    - The upside-down look: the finder at the photo turned half a turn. A hand photographed from
      across the table lies upside down, and the finder, trained on hands the right way up, misses
      some of its tiles (backs most).
    """
    size = (rgb.shape[1], rgb.shape[0])
    detections = detect_hand(detector, rgb, photo=photo)
    analysis = analyze_detections(detections.tiles, size, context, rules, weak=detections.weak,
                                  repair_reading=repair_reading)
    # only a photo read by read_photo skips a closer look its first look says would be the same
    closer_differs = photo is None or detections.closer_differs
    for look in LOOKS:
        if not any(doubts(analysis)[:LOOK_AGAIN]):
            break
        if look.get("closer") and not closer_differs:
            continue  # the same look again: no use
        again = detect_hand(detector, rgb, photo=photo, **look)
        second = analyze_detections(again.tiles, size, context, rules, weak=again.weak, repair_reading=repair_reading)
        if doubts(second) < doubts(analysis):
            detections, analysis = again, second
    return HandReading(detections, analysis)


def analyze_detections(
    detections: list[Detection],
    image_size: tuple[int, int],
    context: dict | None = None,
    rules: str = "mcr",
    *,
    weak: list[Detection] | tuple = (),
    repair_reading: bool = True,
) -> Analysis:
    """The layout and score of given detections (the photo's, or anyone's).

    When the tiles make no winning hand and the detections carry `candidates`, the most
    likely reading with the detector's next choices that wins is the answer, with a
    `reading_repaired` warning (vision.reading_repair; `repair_reading=False`: never).
    `weak` (detect_hand's weak boxes) are no tiles of the reading: only a hand one tile short may
    take one of them in that repair."""
    context = normalize_context(context, rules)

    def layout_of(dets: list[Detection]) -> dict:
        return build_hand(dets, image_size, context, rules)

    layout = layout_of(detections)
    if repair_reading and needs_repair(layout):
        layout = repair(detections, layout, layout_of, weak) or layout
    return Analysis.of_layout(layout, image_size)


def analyze_image(
    data: bytes,
    context: dict | None = None,
    rules: str = "mcr",
    detector: TileDetector | None = None,
    *,
    max_pixels: int | None = None,
) -> dict:
    """Decode image bytes (JPEG, PNG, WebP, HEIC; EXIF orientation applied) and analyze them:
    `analyze_photo`'s analysis as JSON."""
    return analyze_photo(data, context, rules, detector, max_pixels=max_pixels).analysis.to_json()


def analyze_photo(
    data: bytes,
    context: dict | None = None,
    rules: str = "mcr",
    detector: TileDetector | None = None,
    *,
    max_pixels: int | None = None,
) -> AnalyzedPhoto:
    """A photo's bytes read at the resolution the pipeline reads photos at
    (vision.photo.read_photo: a 4000 px JPEG at 1/4, decoded so by the codec) and analyzed:
    the RGB image analyzed and the analysis, boxes in its pixels.
    `fanshot analyze` and POST /api/v1/analyze call this."""
    from vision.detector import get_detector
    from vision.photo import read_photo

    context = normalize_context(context, rules)  # a bad context or rule set: refused before decoding
    if detector is None:
        detector = get_detector()
    photo = read_photo(data, max_pixels=max_pixels)
    return AnalyzedPhoto(photo.image, read_hand(detector, photo.image, context, rules, photo=photo).analysis)
