"""The labelling tool's storage: YOLO txt beside each image, inside one folder only.

A `LabelStore` owns one folder (the one given to `fanshot label DIR`). For an
image `sub/a.jpg` it keeps

- `sub/a.txt`: the labels, YOLO format (`class cx cy w h`, normalised), rewritten
  atomically (temp file + os.replace) on every change;
- `.fanshot/sub/a.jpg.json`: a sidecar with the detector scores of the boxes
  (so the least confident come first), whether a person has changed the labels,
  and the undo history (earlier versions of the label file), so undo survives a
  reload or a restart of the server.

An image without a label file is pre-labelled by the detector once; an image
with one is never pre-labelled again. Every path from a client goes through
`resolve_image`, which refuses anything outside the folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from glob import escape as glob_escape
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Callable

from api.label.boxes import (
    boxes_to_yolo,
    check_inside,
    least_confident_first,
    readable_boxes,
    validate_boxes,
    yolo_to_boxes,
)
from api.label.errors import LabelError
from vision.classes import CLASS_ID

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")
SIDECAR_DIR = ".fanshot"
HISTORY_LIMIT = 200
MAX_IMAGE_BYTES = 40 * 1024 * 1024

if TYPE_CHECKING:
    from vision.detections import TileDetector


class _NoDetector(Exception):
    """The detector cannot be loaded (no model yet); the image opens without pre-labels."""


def _atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` so that a crash leaves either the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


class LabelStore:
    """Labels of the images of one folder; thread-safe."""

    def __init__(self, root: str | os.PathLike, detector_factory: Callable[[], TileDetector] | None = None):
        root_path = Path(root)
        if not root_path.is_dir():
            raise LabelError("not_a_folder", f"{root} is not a folder", 400)
        self.root = root_path.resolve()
        self._detector_factory = detector_factory or _shipped_detector
        self._lock = threading.RLock()

    def use_detector(self, detector: TileDetector) -> None:
        """Pre-label with `detector` from now on."""
        self._detector_factory = lambda: detector

    # paths ---------------------------------------------------------------

    def _inside(self, path: Path) -> bool:
        try:
            path.relative_to(self.root)
        except ValueError:
            return False
        return True

    def resolve_image(self, rel: object, *, must_exist: bool = True) -> Path:
        """The path of image `rel` (relative, '/'-separated) inside the folder, or LabelError."""
        if not isinstance(rel, str) or not rel.strip():
            raise LabelError("bad_path", "give the image path relative to the folder", 400)
        if "\x00" in rel or "\\" in rel or rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
            raise LabelError("bad_path", f"{rel!r}: only relative paths with '/' are allowed", 400)
        parts = PurePosixPath(rel).parts
        if any(part in ("..", ".") or part.startswith(".") for part in parts):
            raise LabelError("bad_path", f"{rel!r}: '..', '.' and hidden names are not allowed", 400)
        path = self.root.joinpath(*parts)
        resolved = path.resolve()
        if not self._inside(resolved) or self._inside_sidecar(resolved):
            raise LabelError("outside_folder", f"{rel!r} is outside the labelling folder", 403)
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            raise LabelError(
                "not_an_image", f"{rel!r} is not an image ({', '.join(IMAGE_SUFFIXES)})", 415
            )
        if must_exist and not resolved.is_file():
            raise LabelError("not_found", f"no image {rel!r} in the labelling folder", 404)
        return path

    def _inside_sidecar(self, path: Path) -> bool:
        try:
            path.relative_to(self.root / SIDECAR_DIR)
        except ValueError:
            return False
        return True

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def label_path(self, image: Path) -> Path:
        label = image.with_suffix(".txt")
        if label.is_symlink() and not self._inside(label.resolve()):
            raise LabelError("outside_folder", f"{self._rel(label)} links outside the folder", 403)
        return label

    def _sidecar_path(self, image: Path) -> Path:
        side_root = self.root / SIDECAR_DIR
        if side_root.is_symlink():
            raise LabelError("outside_folder", f"{SIDECAR_DIR} must be a folder, not a link", 403)
        return side_root / (self._rel(image) + ".json")

    # listing -------------------------------------------------------------

    def image_paths(self) -> list[Path]:
        """Images in the folder and its subfolders (sorted; hidden names and links out skipped)."""
        found = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if name.startswith(".") or path.suffix.lower() not in IMAGE_SUFFIXES:
                    continue
                if path.is_symlink() and not self._inside(path.resolve()):
                    continue
                found.append(path)
        return found

    def list_images(self) -> list[dict]:
        """One entry per image: path, whether it has labels, was reviewed, box count, min score."""
        entries = []
        for image in self.image_paths():
            label = image.with_suffix(".txt")
            sidecar = self._read_sidecar(image)
            entry = {"path": self._rel(image), "labelled": label.is_file(), "reviewed": False,
                     "boxes": None, "min_score": None}
            if entry["labelled"]:
                try:
                    text = label.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    text = ""
                entry["boxes"] = sum(1 for line in text.splitlines() if line.strip())
                if sidecar.get("label_sha") == _sha(text):
                    entry["reviewed"] = bool(sidecar.get("reviewed"))
                    scores = [s for s in sidecar.get("scores", []) if s is not None]
                    entry["min_score"] = min(scores) if scores else None
                else:
                    entry["reviewed"] = True  # changed by hand outside the tool
            entries.append(entry)
        return entries

    # sidecar -------------------------------------------------------------

    def _read_sidecar(self, image: Path) -> dict:
        path = self._sidecar_path(image)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write_sidecar(self, image: Path, data: dict) -> None:
        _atomic_write(self._sidecar_path(image), json.dumps(data, separators=(",", ":")))

    # images --------------------------------------------------------------

    def read_image(self, rel: str) -> bytes:
        path = self.resolve_image(rel)
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise LabelError("too_large", f"{rel!r} is larger than {MAX_IMAGE_BYTES // 2**20} MiB", 413)
        return path.read_bytes()

    def image_size(self, rel: str) -> tuple[int, int]:
        """(width, height) as shown, EXIF orientation applied (cached in the sidecar)."""
        image = self.resolve_image(rel)
        sidecar = self._read_sidecar(image)
        stat = image.stat()
        stamp = [stat.st_size, stat.st_mtime_ns]
        if sidecar.get("image_stamp") == stamp and isinstance(sidecar.get("size"), list):
            return tuple(sidecar["size"])
        from vision.decode import ImageError, probe_image

        try:
            return probe_image(self.read_image(rel))
        except ImageError as exc:
            raise LabelError(exc.code, f"{rel}: {exc.message}", exc.status) from exc

    def add_image(self, filename: str, data: bytes) -> str:
        """Save an uploaded image in the folder; returns its path. Refuses non-images (415)."""
        from vision.decode import ImageError, probe_image

        name = PurePosixPath(str(filename or "").replace("\\", "/")).name
        stem, suffix = os.path.splitext(name)
        if suffix.lower() not in IMAGE_SUFFIXES:
            raise LabelError("not_an_image", f"{name!r} is not an image ({', '.join(IMAGE_SUFFIXES)})", 415)
        if len(data) > MAX_IMAGE_BYTES:
            raise LabelError("too_large", f"the upload is larger than {MAX_IMAGE_BYTES // 2**20} MiB", 413)
        try:
            probe_image(data)
        except ImageError as exc:
            raise LabelError(exc.code, f"{name}: {exc.message}", exc.status) from exc
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem).strip("_") or "upload"
        with self._lock:
            base, n = stem, 1
            while self._stem_taken(base):  # a.jpg and a.png would share a.txt
                base, n = f"{stem}-{n}", n + 1
            candidate = base + suffix.lower()
            path = self.root / candidate
            with open(path, "xb") as handle:
                handle.write(data)
        return candidate

    def _stem_taken(self, stem: str) -> bool:
        names = [stem + ".txt"] + [stem + suffix for suffix in IMAGE_SUFFIXES]
        return any((self.root / name).exists() or (self.root / name.upper()).exists() for name in names)

    # labels --------------------------------------------------------------

    def load(self, rel: str) -> dict:
        """The labels of an image; pre-labels it with the detector if it has no label file yet.

        The detector runs outside the store's lock, so saving another image never
        waits for a pre-label; if a label file appears meanwhile, it wins.
        """
        image = self.resolve_image(rel)
        with self._lock:
            if self.label_path(image).is_file():
                return self._state(rel, image)
        try:
            found, size = self._detect(rel)
        except _NoDetector as exc:
            return self._state(rel, image, [f"no pre-labels: the detector is not available ({exc})"])
        with self._lock:
            if not self.label_path(image).is_file():
                self._write(image, least_confident_first(found), size, reviewed=False, push=False)
            return self._state(rel, image)

    def _state(self, rel: str, image: Path, warnings: list[str] | None = None) -> dict:
        width, height = self.image_size(rel)
        label = self.label_path(image)
        text = label.read_text(encoding="utf-8") if label.is_file() else None
        sidecar = self._read_sidecar(image)
        boxes, label_warnings = readable_boxes(text, width, height, self._rel(label))
        scores = sidecar.get("scores") if sidecar.get("label_sha") == _sha(text) else None
        reviewed = bool(sidecar.get("reviewed")) if scores is not None else text is not None
        if not isinstance(scores, list) or len(scores) != len(boxes):
            scores = [None] * len(boxes)
        for box, score in zip(boxes, scores):
            box["score"] = score
        return {
            "path": rel,
            "width": width,
            "height": height,
            "labelled": text is not None,
            "reviewed": reviewed,
            "boxes": least_confident_first(boxes),
            "undo": len(sidecar.get("history") or []),
            "warnings": (warnings or []) + label_warnings + self._sharing_warnings(image),
        }

    def _sharing_warnings(self, image: Path) -> list[str]:
        """Other images with the same name but another extension write the same label file."""
        others = [p.name for p in image.parent.glob(glob_escape(image.stem) + ".*")
                  if p != image and p.suffix.lower() in IMAGE_SUFFIXES]
        if not others:
            return []
        return [f"{', '.join(sorted(others))} and {image.name} share the label file {image.stem}.txt: rename one"]

    def _detect(self, rel: str) -> tuple[list[dict], tuple[int, int]]:
        """Detector boxes in pixels of the full image, and its (width, height)."""
        from vision.decode import ImageError
        from vision.detector import detect_photo

        try:
            detector = self._detector_factory()
        except Exception as exc:  # no model shipped yet, a broken model file ...
            raise _NoDetector(str(exc)) from exc
        data = self.read_image(rel)
        try:
            # read as every photo is (vision.photo.read_photo); boxes come back scaled
            result = detect_photo(detector, data)
        except ImageError as exc:
            raise LabelError(exc.code, f"{rel}: {exc.message}", exc.status) from exc
        width, height = result["width"], result["height"]
        found = [d for d in result["detections"] if d.get("tile") in CLASS_ID]
        return found, (width, height)

    def _write(self, image: Path, boxes: list[dict], size: tuple[int, int], *, reviewed: bool,
               push: bool) -> None:
        """Write the label file and its sidecar; with `push`, keep the old version for undo."""
        label = self.label_path(image)
        sidecar = self._read_sidecar(image)
        history = sidecar.get("history", []) if isinstance(sidecar.get("history"), list) else []
        old_text = label.read_text(encoding="utf-8") if label.is_file() else None
        if push and old_text is not None:
            old_scores = sidecar.get("scores") if sidecar.get("label_sha") == _sha(old_text) else None
            history.append({"text": old_text, "scores": old_scores,
                            "reviewed": bool(sidecar.get("reviewed", True))})
            history = history[-HISTORY_LIMIT:]
        text = boxes_to_yolo(boxes, *size)
        stat = image.stat()
        _atomic_write(label, text)
        self._write_sidecar(image, {
            "size": list(size),
            "image_stamp": [stat.st_size, stat.st_mtime_ns],
            "label_sha": _sha(text),
            "scores": [b.get("score") for b in boxes],
            "reviewed": reviewed,
            "history": history,
        })

    def save(self, rel: str, boxes: object) -> dict:
        """Replace the labels of an image (a person's change): saved at once, undoable."""
        clean = validate_boxes(boxes)
        image = self.resolve_image(rel)
        with self._lock:
            size = self.image_size(rel)
            check_inside(clean, *size)
            self._write(image, least_confident_first(clean), size, reviewed=True, push=True)
            return self._state(rel, image)

    def undo(self, rel: str) -> dict:
        """Go back to the previous version of the labels; 409 when there is none."""
        image = self.resolve_image(rel)
        with self._lock:
            sidecar = self._read_sidecar(image)
            history = sidecar.get("history") or []
            if not history:
                raise LabelError("nothing_to_undo", f"{rel}: nothing to undo", 409)
            previous = history.pop()
            text = previous["text"]
            _atomic_write(self.label_path(image), text)
            sidecar.update(label_sha=_sha(text), scores=previous.get("scores"),
                           reviewed=previous.get("reviewed", True), history=history)
            if sidecar["scores"] is None:
                sidecar["scores"] = [None] * sum(1 for line in text.splitlines() if line.strip())
            self._write_sidecar(image, sidecar)
            return self._state(rel, image)

    def mark_reviewed(self, rel: str) -> dict:
        """A person looked at the labels and kept them as they are."""
        image = self.resolve_image(rel)
        with self._lock:
            label = self.label_path(image)
            if not label.is_file():
                raise LabelError("not_labelled", f"{rel}: open the image before marking it reviewed", 409)
            sidecar = self._read_sidecar(image)
            if sidecar.get("label_sha") == _sha(label.read_text(encoding="utf-8")):
                sidecar["reviewed"] = True
                self._write_sidecar(image, sidecar)
            return self._state(rel, image)

    def labelled_items(self) -> list[dict]:
        """Every image with a label file: `{"path", "file", "width", "height", "boxes", "reviewed"}`."""
        items = []
        for image in self.image_paths():
            if not image.with_suffix(".txt").is_file():
                continue
            rel = self._rel(image)
            state = self._state(rel, image)
            # an export leaves no line out unsaid: a label file with unreadable lines is refused
            try:
                yolo_to_boxes(image.with_suffix(".txt").read_text(encoding="utf-8"), state["width"],
                              state["height"], source=self._rel(image.with_suffix(".txt")))
            except LabelError as exc:
                raise LabelError(exc.code, f"{exc.message}; open {rel} in the labelling tool to fix it, "
                                           "then export again", exc.status) from exc
            items.append({"path": rel, "file": image, "width": state["width"],
                          "height": state["height"], "boxes": state["boxes"],
                          "reviewed": state["reviewed"]})
        return items


def _shipped_detector():
    from vision.detector import get_detector

    return get_detector()
