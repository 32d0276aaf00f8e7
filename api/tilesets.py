"""Tile sets as the service reads and learns them (docs/tilesets.md), in the process that runs the
photo pipeline (an inference worker, api/inference.py): the profiles under the data directory, the
ones read kept per process (`TilesetProfiles`), learning from a layout photo and adding the crops of
corrected tiles. Their refusals become ApiErrors (404 tileset_not_found, 422 tileset_unreadable,
422 layout_mismatch)."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ApiError

if TYPE_CHECKING:
    from vision.classifier import TileClassifier
    from vision.detector import Detector
    from vision.tileset.profile import TilesetProfile

CACHED = 8  # profiles kept per process (about 3 MB each as float32 for a 43-tile layout)
MAX_EXAMPLES = 64  # corrected tiles one request may add


def not_found(name: str, known: list[str]) -> ApiError:
    return ApiError(404, "tileset_not_found",
                    f"no tile set named {name!r} (known: {', '.join(known) or 'none yet'}); "
                    "learn it from a layout photo: POST /api/v1/tilesets/{name}/layout",
                    params={"name": name, "known": known})


def unreadable(message: str) -> ApiError:
    return ApiError(422, "tileset_unreadable", message)


class TilesetProfiles:
    """The profiles under `data_dir/tilesets/` (vision.tileset.store.ProfileStore), each read once per
    process and kept while its file's modification time and size stay the same (a set learnt again is
    read again), at most CACHED of them (the least recently used goes)."""

    def __init__(self, data_dir: Path):
        from vision.tileset.store import ProfileStore

        self.store = ProfileStore(data_dir)
        self._kept: OrderedDict[str, tuple[tuple[int, int], TilesetProfile]] = OrderedDict()
        self._lock = threading.Lock()  # the pool may run in threads of one process

    def for_reading(self, name: str, classifier: TileClassifier) -> TilesetProfile:
        """The profile `name`, checked against `classifier`: 404 when there is none, 422 when its
        file is not a whole profile or was learnt with another classifier."""
        from vision.tileset.profile import ProfileError
        from vision.tileset.store import NoSuchTileset

        try:
            stat = self.store.path(name).stat()
        except FileNotFoundError:
            raise not_found(name, self.store.names()) from None
        except ProfileError as exc:  # a name the routes' pattern lets through cannot get here
            raise ApiError(422, "invalid_request", str(exc)) from None
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            kept = self._kept.get(name)
            if kept is not None and kept[0] == stamp:
                self._kept.move_to_end(name)
                return kept[1]
        try:
            profile = self.store.load(name)
        except NoSuchTileset as exc:  # forgotten since the stat
            raise not_found(name, exc.known) from None
        except ProfileError as exc:
            raise unreadable(str(exc)) from None
        if not classifier.has_features or profile.classifier != classifier.model_id:
            raise unreadable(f"tile set {name!r} was learnt with another classifier than this server's: "
                             "learn it again (POST /api/v1/tilesets/{name}/layout)")
        with self._lock:
            self._kept[name] = (stamp, profile)
            self._kept.move_to_end(name)
            while len(self._kept) > CACHED:
                self._kept.popitem(last=False)
        return profile

    def learn_layout(self, detector: Detector, name: str, data: bytes, add: bool, file: str) -> dict[str, Any]:
        """The set `name` learnt from a layout photo's bytes (vision.tileset.learn.learn_layout) and
        saved (with `add`, added to its examples): its summary and what was learnt. A layout that does
        not fit: 422 layout_mismatch with what was found (params found, rows); nothing saved."""
        from vision.tileset.learn import LayoutError, learn_layout
        from vision.tileset.profile import ProfileError

        started = time.perf_counter()
        try:
            profile, layout = learn_layout(detector, data, name, file=file)
            saved = self.store.add(profile) if add else self.store.replace(profile)
        except LayoutError as exc:
            raise ApiError(422, "layout_mismatch", f"{exc} (nothing saved)",
                           params={"found": len(exc.boxes), "rows": exc.rows}) from None
        except ProfileError as exc:  # --add to a set learnt with another classifier, an unreadable one
            raise unreadable(f"{exc} (nothing saved)") from None
        learnt = {"tiles": len(layout.tiles), "rows": layout.rows, "reversed": layout.reversed, "missed": layout.missed,
                  "left_out": layout.left_out,
                  "seconds": round(time.perf_counter() - started, 3)}
        return {**saved.summary(), "learnt": learnt}

    def add_examples(self, detector: Detector, name: str, data: bytes, boxes: list[list[float]], tiles: list[str],
                     size: tuple[int, int] | None, kind: str, file: str, max_pixels: int | None = None) -> dict[str, Any]:
        """The crops of `boxes` in the photo `data` (pixels of the photo as stored, `size`; None: of
        the photo as the pipeline reads it, an analysis's boxes), each an example of its true tile in
        `tiles`, added to the existing set `name` (vision.tileset.store.ProfileStore.add: two adds at
        once both count). Returns the set's summary."""
        import numpy as np

        from vision.tileset.learn import photo_boxes_in_view, profile_from_boxes
        from vision.tileset.profile import ProfileError

        self.for_reading(name, detector.classifier)  # there, readable, of this classifier
        view, view_boxes = photo_boxes_in_view(detector, data, np.array(boxes, np.float32).reshape(-1, 4), size,
                                               max_pixels)
        height, width = view.shape[:2]
        for index, (x1, y1, x2, y2) in enumerate(view_boxes):
            if min(x2, width) - max(x1, 0) < 1 or min(y2, height) - max(y1, 0) < 1:
                raise ApiError(422, "bad_boxes", f"box {index}: {boxes[index]} has no area inside the photo")
        try:
            learnt = profile_from_boxes(name, detector.classifier, view, view_boxes, tiles,
                                        {"kind": kind, "file": file})
            return self.store.add(learnt).summary()
        except ProfileError as exc:
            raise unreadable(f"{exc} (nothing added)") from None
