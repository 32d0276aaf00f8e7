"""One photo's work, the same on every engine: read the file, run the reader the job names, write
the photo's record. A PhotoReader loads the model once; each engine makes one per worker."""
from __future__ import annotations

from pathlib import Path

from fanshot.batch.job import BatchJob
from fanshot.batch.records import write_record
from vision.detections import TileDetector


class PhotoReader:
    """Reads photos for `job` with the model loaded once (in the worker that makes it)."""

    def __init__(self, job: BatchJob):
        from vision.detector import get_detector

        self.job = job
        detector = get_detector(job.model_dir, threads=job.threads)
        self.detector: TileDetector = detector
        if job.tileset is not None:
            from vision.tileset.profile import profile_from_bytes
            from vision.tileset.reader import with_tileset

            self.detector = with_tileset(detector, profile_from_bytes(job.profile, f"tile set {job.tileset!r}"))

    def process(self, file: str) -> bool:
        """Read the photo at `file` and write its record; whether it was read. A photo that cannot
        be read gets an error record: the run goes on."""
        photo = Path(file)
        try:
            result = self.read(photo)
        except PhotoError as exc:
            write_record(self.job.dst, photo, {"file": file, "ok": False,
                                               "error": {"code": exc.code, "message": exc.message}})
            return False
        write_record(self.job.dst, photo, {"file": file, "ok": True, "result": result})
        return True

    def read(self, photo: Path) -> dict:
        """The reader's answer for one photo; PhotoError when the photo cannot be read."""
        from scoring.errors import HandError
        from vision.decode import ImageError

        data = _photo_bytes(photo, self.job.max_bytes)
        try:
            if self.job.kind == "analyze":
                return self._analysis(data)
            from vision.detector import detect_photo

            return detect_photo(self.detector, data, max_pixels=self.job.max_pixels, one_set=self.job.one_set)
        except ImageError as exc:
            raise PhotoError(exc.code, exc.message) from exc
        except HandError as exc:
            raise PhotoError(exc.code, exc.message) from exc
        except Exception as exc:  # one photo's failure is reported, the others go on
            raise PhotoError("failed", f"{type(exc).__name__}: {exc}") from exc

    def _analysis(self, data: bytes) -> dict:
        """What `fanshot analyze --json` prints for the photo."""
        from vision.analyze import RESULT_KEYS, analyze_photo

        analysis = analyze_photo(data, self.job.context, self.job.rules, self.detector,
                                 max_pixels=self.job.max_pixels).analysis.to_json()
        out = {key: analysis[key] for key in RESULT_KEYS}
        if analysis.get("error"):
            out["error"] = analysis["error"]
        return out


class PhotoError(Exception):
    """A photo that cannot be read: `code` and `message` go to the errors file."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _photo_bytes(photo: Path, max_bytes: int) -> bytes:
    try:
        size = photo.stat().st_size
        if size > max_bytes:
            raise PhotoError("too_large", f"the file has {size:,} bytes; the limit is {max_bytes:,}")
        return photo.read_bytes()
    except OSError as exc:
        raise PhotoError("unreadable", f"cannot read the file: {exc.strerror or exc}") from exc
