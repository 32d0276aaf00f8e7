"""The photo pipeline as the API runs it (in a worker process of the pool, or a worker thread).

Composes vision.decode, vision.detector, vision.analyze and vision.annotate;
their errors become ApiErrors (413/415/422 from the decoder, 503 while no model
is installed). Vision is imported on first use, so the app starts fast.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .errors import ApiError
from .pool import InferencePool
from .settings import Settings, available_cores, data_dir_of
from .tilesets import TilesetProfiles

if TYPE_CHECKING:
    import numpy as np

    from vision.detections import TileDetector
    from vision.detector import Detector

T = TypeVar("T")


@dataclass
class Annotated:
    analysis: dict[str, Any]
    jpeg: bytes  # the annotated photo


@dataclass(frozen=True)
class FromWorker(Generic[T]):
    """A job's result from a worker process, and the name of the model that process loaded."""
    model: str | None
    result: T


def threads_per_worker(workers: int, cores: int | None = None) -> int:
    """Threads for one analysis when `workers` run at once: the cores shared out, at least
    one (more threads than cores only queue up for them, and a spinning one wastes a core)."""
    return max(1, (available_cores() if cores is None else cores) // max(1, workers))


# In a worker process: its own pipeline (`start_worker`), which the jobs below run on.
_worker: Inference | None = None


def start_worker(settings: Settings) -> None:
    """A worker process's start (the pool's initializer): its pipeline, the model loaded now,
    and a watch that ends the process when the server's ends (even killed, it leaves none behind).
    Ctrl-C in the server's terminal reaches the workers too: the server shuts them down, so they
    ignore it (no traceback from each)."""
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent()
    _worker = Inference(settings)
    try:
        _worker.detector()
    except ApiError:
        pass  # no model installed: each photo answers 503, as in one process


def watch_parent() -> None:
    """In a worker process: a thread that ends the process when its parent's ends (even killed
    with -9, the parent leaves no worker behind)."""
    threading.Thread(target=_end_with_parent, args=(os.getppid(),), daemon=True,
                     name="fanshot-parent-watch").start()


def _end_with_parent(parent: int, every: float = 0.5) -> None:
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(0)


def _worker_pipeline() -> Inference:
    if _worker is None:
        raise RuntimeError("not a worker process started by api.inference.start_worker")
    return _worker


def worker_model() -> tuple[bool, str | None]:
    """The pool's probe of a new worker process: has it loaded the model, and its name."""
    pipeline = _worker_pipeline()
    return pipeline.model_loaded(), pipeline.model_name()


def pipeline_job(method: str, *args: Any) -> FromWorker[Any]:
    """`Inference.<method>(*args)` on a worker process's pipeline (`Inference.run_in`)."""
    pipeline = _worker_pipeline()
    result = getattr(pipeline, method)(*args)
    return FromWorker(pipeline.model_name(), result)


class Inference:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.threads = threads_per_worker(settings.inference_workers)
        self._model_loaded = False
        self._model_name: str | None = None
        self.tilesets = TilesetProfiles(data_dir_of(settings))

    def model_loaded(self) -> bool:
        return self._model_loaded

    def model_name(self) -> str | None:
        """The loaded model's name (model.json provenance.name), None before it is loaded."""
        return self._model_name

    def model_status(self, pool: InferencePool) -> tuple[bool, str | None]:
        """Is the model loaded, and its name: in worker processes, as the workers said when they
        started (`worker_model`), else as this process loaded it."""
        if pool.processes:
            for report in pool.reports():
                if isinstance(report, tuple) and report[0]:
                    self._model_loaded, self._model_name = True, report[1]
        return self._model_loaded, self._model_name

    async def run_in(self, pool: InferencePool, method: str, *args: Any) -> Any:
        """`self.<method>(*args)` (detect, analyze, learn_layout, add_examples) in one of `pool`'s
        workers: a thread of this process, or a worker process running its own pipeline
        (`start_worker`, `pipeline_job`)."""
        if pool.processes:
            return self._from_worker(await pool.execute(pipeline_job, method, *args))
        return await pool.execute(getattr(self, method), *args)

    async def detect_in(self, pool: InferencePool, data: bytes, tileset: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = await self.run_in(pool, "detect", data, tileset)
        return result

    async def analyze_in(self, pool: InferencePool, data: bytes, context: dict[str, Any], rules: str,
                         tileset: str | None = None) -> Annotated:
        result: Annotated = await self.run_in(pool, "analyze", data, context, rules, tileset)
        return result

    def _from_worker(self, done: FromWorker[T]) -> T:
        """The job's result; the model the worker process loaded is this process's to report."""
        self._model_loaded, self._model_name = True, done.model
        return done.result

    def check_model(self) -> None:
        """The model is there (model.json, its classes, both networks), without loading it (the
        worker processes load it); ApiError 503 if not."""
        from vision.model_spec import ModelNotFoundError, read_model_spec

        try:
            read_model_spec(self.settings.model_dir)
        except ModelNotFoundError as exc:
            raise ApiError(503, "model_not_found", str(exc)) from None

    def detector(self, threads: int | None = None) -> Detector:
        """The model (loaded once a thread count), on the worker's share of the cores or `threads`."""
        from vision.detector import get_detector
        from vision.model_spec import ModelNotFoundError

        if not self._model_loaded:
            import cv2

            # OpenCV's resizes run in the same workers: the same share of the cores each
            # (a process-wide setting; this process is the server).
            cv2.setNumThreads(self.threads)
        try:
            detector = get_detector(self.settings.model_dir, threads=threads or self.threads)
        except ModelNotFoundError as exc:
            raise ApiError(503, "model_not_found", str(exc)) from None
        self._model_loaded = True
        self._model_name = (detector.spec.get("provenance") or {}).get("name")
        return detector

    def reader(self, tileset: str | None) -> TileDetector:
        """The detector, reading with the tile set `tileset` when one is named (api/tilesets.py:
        404 when there is none, 422 when it cannot be read)."""
        detector = self.detector()
        if tileset is None:
            return detector
        from vision.tileset.reader import with_tileset

        return with_tileset(detector, self.tilesets.for_reading(tileset, detector.classifier))

    def detect(self, data: bytes, tileset: str | None = None) -> dict[str, Any]:
        """Tiles in the photo, boxes in pixels of the photo as shown (EXIF orientation applied);
        read with the tile set `tileset` when one is named."""
        from vision.detector import detect_photo

        detector = self.reader(tileset)
        with image_errors():
            return detect_photo(detector, data, max_pixels=self.settings.max_pixels)

    def learn_layout(self, name: str, data: bytes, add: bool, file: str) -> dict[str, Any]:
        """The tile set `name` learnt from a layout photo (api/tilesets.py TilesetProfiles.learn_layout)."""
        from vision.decode import probe_image

        with image_errors():  # not an image: refused before the model is loaded
            probe_image(data, max_pixels=self.settings.max_pixels)
            # on every core: the player waits for it and it is rare (two workers' one core each took 2.1-2.35 s)
            return self.tilesets.learn_layout(self.detector(threads_per_worker(1)), name, data, add, file)

    def add_examples(self, name: str, data: bytes, boxes: list[list[float]], tiles: list[str],
                     size: tuple[int, int] | None, kind: str, file: str) -> dict[str, Any]:
        """Corrected tiles' crops added to the set `name` (api/tilesets.py TilesetProfiles.add_examples)."""
        with image_errors():
            return self.tilesets.add_examples(self.detector(), name, data, boxes, tiles, size, kind, file,
                                              self.settings.max_pixels)

    def analyze(self, data: bytes, context: dict[str, Any], rules: str, tileset: str | None = None) -> Annotated:
        """The analysis of vision.analyze.analyze_photo (the photo read as `fanshot analyze` and
        `fanshot detect` read it, vision.detector.read_photo; boxes in pixels of the image
        analysed, `image_size`), and the annotated photo as JPEG bytes; read with the tile set
        `tileset` when one is named."""
        import scoring
        from vision.analyze import analyze_photo
        from vision.annotate import annotated_jpeg
        from vision.decode import probe_image

        with image_errors():  # not an image: refused before the model is loaded
            probe_image(data, max_pixels=self.settings.max_pixels)
        detector = self.reader(tileset)
        try:
            with image_errors():
                rgb, analyzed = analyze_photo(data, context, rules, detector, max_pixels=self.settings.max_pixels)
                analysis = analyzed.to_json()
        except scoring.HandError as exc:
            raise ApiError(422, exc.code, exc.message, params=exc.params) from None
        small, drawn = shrink_for_drawing(rgb, analysis, self.settings.annotated_max_side)
        return Annotated(analysis, annotated_jpeg(small, drawn))


@contextmanager
def image_errors() -> Iterator[None]:
    """vision.decode.ImageError raised inside becomes the ApiError with its status (413/415/422)."""
    from vision.decode import ImageError

    try:
        yield
    except ImageError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None


def shrink_for_drawing(rgb: np.ndarray, analysis: dict[str, Any], max_side: int) -> tuple[np.ndarray, dict[str, Any]]:
    """The photo at most `max_side` long, and a copy of the analysis with the boxes that
    vision.annotate draws (tiles[].box, groups[].box) scaled to it: a phone shows the
    annotated photo about 1000 px wide, and drawing and encoding it is a third of the work."""
    height, width = rgb.shape[:2]
    if max(width, height) <= max_side:
        return rgb, analysis
    import cv2

    scale = max_side / max(width, height)
    # Less than halving: bilinear is sharp enough for a photo the boxes are drawn on after,
    # and several times cheaper than area averaging.
    interpolation = cv2.INTER_AREA if scale <= 0.5 else cv2.INTER_LINEAR
    small = cv2.resize(rgb, (max(1, round(width * scale)), max(1, round(height * scale))),
                       interpolation=interpolation)

    def scaled(items: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        return [{**item, "box": [v * scale for v in item["box"]]} if item.get("box") else item
                for item in items or []]

    return small, {**analysis, "tiles": scaled(analysis.get("tiles")), "groups": scaled(analysis.get("groups"))}
