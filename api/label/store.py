"""The labelling tool's storage: YOLO txt beside each image, inside one folder only.

A `LabelStore` owns one folder (`fanshot label DIR`, FANSHOT_LABEL_DIR). For `sub/a.jpg` it keeps

- `sub/a.txt`: the labels, YOLO format (`class cx cy w h`, normalised), rewritten
  atomically (vision.atomic_file) on every change;
- `.fanshot/sub/a.jpg.json`: a sidecar with the detector scores of the boxes
  (so the least confident come first), whether a person has changed the labels,
  and the undo history (earlier versions of the label file, bounded in steps and
  bytes), so undo survives a reload or a restart of the server.

A change writes the sidecar first, with a `before` record of the state it replaces,
then the label file; a kill between the two leaves a label file whose hash is the
`before` one, and every read takes that state back (the change was never answered;
api/label/sidecar.py). A sidecar value that is not a finite number is read as no score, with a
warning. Changes are made one at a time across threads and processes (api/label/folder_lock.py);
one sent with the `version` it was made on is refused when the labels changed since.

An image without a label file is pre-labelled by the detector once, never again once it has one.
Every path from a client goes through `resolve_image`, which refuses anything outside the folder.
"""
from __future__ import annotations

import errno
import json
import os
from glob import escape as glob_escape
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Callable

from api.errors import ApiError
from api.label.boxes import (
    boxes_to_yolo,
    check_inside,
    is_finite_number,
    least_confident_first,
    readable_boxes,
    validate_boxes,
    yolo_to_boxes,
)
from api.label.errors import LabelError
from api.label.folder_lock import FolderLock
from api.label.sidecar import (
    UNSEEN,
    bounded_history,
    check_seen,
    clean_sidecar,
    compact,
    label_sha,
    rolled_back,
    shown,
)
from vision.atomic_file import write_atomically
from vision.classes import CLASS_ID

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif")
SIDECAR_DIR = ".fanshot"
MAX_IMAGE_BYTES = 40 * 1024 * 1024
NAME_MAX_BYTES = 255  # of one file name (NAME_MAX of Linux, macOS and Windows file systems)
SIDECAR_SUFFIX = ".json"

if TYPE_CHECKING:
    from vision.detections import TileDetector


class DetectorUnavailable(Exception):
    """The detector cannot be loaded (no model yet); the image opens without pre-labels."""


class LabelStore:
    """Labels of the images of one folder; safe for threads and processes (api/label/folder_lock.py)."""

    def __init__(self, root: str | os.PathLike, detector_factory: Callable[[], TileDetector] | None = None,
                 photo_detector: Callable[[bytes], dict] | None = None):
        root_path = Path(root)
        if not root_path.is_dir():
            raise LabelError("not_a_folder", f"{root} is not a folder", 400)
        self.root = root_path.resolve()
        self._detector_factory = detector_factory or _shipped_detector
        # bytes -> vision.detector.detect_photo's answer; the server's runs in its inference pool
        self._photo_detector = photo_detector
        self._lock = FolderLock(self.root / SIDECAR_DIR)

    def use_detector(self, detector: TileDetector) -> None:
        """Pre-label with `detector` from now on (here, in the calling thread)."""
        self._detector_factory, self._photo_detector = (lambda: detector), None

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
        parts = rel.split("/")  # not PurePosixPath(rel).parts, which reads './a.jpg' and 'a.jpg/.' as 'a.jpg'
        if any(part in ("", "..", ".") or part.startswith(".") for part in parts):
            raise LabelError("bad_path", f"{rel!r}: '..', '.', empty and hidden names are not allowed", 400)
        if any(len(os.fsencode(part)) > NAME_MAX_BYTES for part in parts):
            raise _path_too_long(rel)
        path = self.root.joinpath(*parts)
        resolved = path.resolve()
        if not self._inside(resolved) or self._inside_sidecar(resolved):
            raise LabelError("outside_folder", f"{rel!r} is outside the labelling folder", 403)
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            raise LabelError(
                "not_an_image", f"{rel!r} is not an image ({', '.join(IMAGE_SUFFIXES)})", 415
            )
        try:
            found = resolved.is_file()
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:  # the whole path is over the system's PATH_MAX
                raise _path_too_long(rel) from None
            raise
        if must_exist and not found:
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
        if self._links_out(label):
            raise LabelError("outside_folder", f"{self._rel(label)} links outside the folder", 403)
        return label

    def _links_out(self, path: Path) -> bool:
        return path.is_symlink() and not self._inside(path.resolve())

    def _link_out_warning(self, label: Path) -> str:
        return f"{self._rel(label)} links outside the folder: skipped (never read nor written)"

    def _sidecar_path(self, image: Path) -> Path:
        side_root = self.root / SIDECAR_DIR
        if side_root.is_symlink():
            raise LabelError("outside_folder", f"{SIDECAR_DIR} must be a folder, not a link", 403)
        return side_root / (self._rel(image) + SIDECAR_SUFFIX)

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

    def list_images(self) -> tuple[list[dict], list[str]]:
        """One entry per image: path, whether it has labels, was reviewed, box count, min score;
        and warnings: label files skipped (links out of the folder), sidecar values read as no score."""
        entries, warnings = [], []
        for image in self.image_paths():
            label = image.with_suffix(".txt")
            entry = {"path": self._rel(image), "labelled": False, "reviewed": False,
                     "boxes": None, "min_score": None}
            entries.append(entry)
            if self._links_out(label):
                warnings.append(self._link_out_warning(label))
                continue
            entry["labelled"] = label.is_file()
            if entry["labelled"]:
                try:
                    text = label.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    text = ""
                sidecar, sidecar_warnings = self._sidecar_view(image, text)
                warnings += sidecar_warnings
                entry["boxes"] = sum(1 for line in text.splitlines() if line.strip())
                if sidecar["label_sha"] == label_sha(text):
                    entry["reviewed"] = sidecar["reviewed"]
                    scores = [s for s in sidecar["scores"] or [] if s is not None]
                    entry["min_score"] = min(scores) if scores else None
                else:
                    entry["reviewed"] = True  # changed by hand outside the tool
        return entries, warnings

    # sidecar -------------------------------------------------------------

    def _read_sidecar(self, image: Path) -> tuple[dict, list[str]]:
        """The sidecar's fields, cleaned (sidecar.clean_sidecar), and warnings."""
        path = self._sidecar_path(image)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            data = {}
        return clean_sidecar(data if isinstance(data, dict) else {}, self._rel(path))

    def _sidecar_view(self, image: Path, text: str | None) -> tuple[dict, list[str]]:
        """The sidecar as it stands for label text `text`: taken back to its `before` state when
        `text` is the label file that state describes (a change cut short before its label write)."""
        sidecar, warnings = self._read_sidecar(image)
        before = sidecar.get("before")
        sha = label_sha(text)
        if before is not None and sidecar["label_sha"] != sha and before["label_sha"] == sha:
            sidecar = rolled_back(sidecar)
        sidecar.pop("before", None)
        return sidecar, warnings

    def _write_sidecar(self, image: Path, data: dict) -> None:
        write_atomically(self._sidecar_path(image), compact(data))

    def _read_label(self, label: Path) -> str | None:
        return label.read_text(encoding="utf-8") if label.is_file() else None

    def _change(self, image: Path, label: Path, text: str, sidecar: dict) -> None:
        """Write the sidecar (with its `before` record), then the label file `text`: a kill between
        the two is taken back by _sidecar_view on the next read."""
        self._write_sidecar(image, sidecar)
        write_atomically(label, text)

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
        sidecar, _ = self._read_sidecar(image)
        stats = image.stat()
        stamp = [stats.st_size, stats.st_mtime_ns]
        size = sidecar["size"]
        if (sidecar["image_stamp"] == stamp and isinstance(size, list) and len(size) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
            return size[0], size[1]
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
            while True:
                candidate = base + suffix.lower()
                if len(os.fsencode(candidate + SIDECAR_SUFFIX)) > NAME_MAX_BYTES:  # its sidecar's name too
                    raise _name_too_long(candidate)
                if not self._stem_taken(base):  # a.jpg and a.png would share a.txt
                    break
                base, n = f"{stem}-{n}", n + 1
            try:
                with open(self.root / candidate, "xb") as handle:
                    handle.write(data)
            except OSError as exc:
                if exc.errno == errno.ENAMETOOLONG:  # a file system with shorter names
                    raise _name_too_long(candidate) from None
                raise
        return candidate

    def _stem_taken(self, stem: str) -> bool:
        names = [stem + ".txt"] + [stem + suffix for suffix in IMAGE_SUFFIXES]
        return any(_exists(self.root / name) or _exists(self.root / name.upper()) for name in names)

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
        except DetectorUnavailable as exc:
            return self._state(rel, image, [f"no pre-labels: the detector is not available ({exc})"])
        with self._lock:
            if not self.label_path(image).is_file():
                self._write(image, least_confident_first(found), size, reviewed=False, push=False)
            return self._state(rel, image)

    def _state(self, rel: str, image: Path, warnings: list[str] | None = None) -> dict:
        width, height = self.image_size(rel)
        label = self.label_path(image)
        text = self._read_label(label)
        sidecar, sidecar_warnings = self._sidecar_view(image, text)
        boxes, label_warnings = readable_boxes(text, width, height, self._rel(label))
        scores, reviewed = shown(sidecar, text)
        if scores is None or len(scores) != len(boxes):
            scores = [None] * len(boxes)
        for box, score in zip(boxes, scores):
            box["score"] = score
        return {
            "path": rel,
            "width": width,
            "height": height,
            "labelled": text is not None,
            "version": label_sha(text),  # what a change sends back as `version` (sidecar.check_seen)
            "reviewed": reviewed,
            "boxes": least_confident_first(boxes),
            "undo": len(sidecar["history"]),
            "warnings": (warnings or []) + label_warnings + sidecar_warnings + self._sharing_warnings(image),
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

        if self._photo_detector is not None:
            data = self.read_image(rel)
            try:
                result = self._photo_detector(data)
            except ApiError as exc:  # a photo refused; a full pool's 503 goes on as it is
                if exc.status not in (413, 415, 422):
                    raise
                raise LabelError(exc.code, f"{rel}: {exc.message}", exc.status) from exc
        else:
            try:
                detector = self._detector_factory()
            except Exception as exc:  # no model shipped yet, a broken model file ...
                raise DetectorUnavailable(str(exc)) from exc
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
        old_text = self._read_label(label)
        sidecar, _ = self._sidecar_view(image, old_text)
        old_scores, old_reviewed = shown(sidecar, old_text)
        history = sidecar["history"]
        pushed = push and old_text is not None
        if pushed:
            history = history + [{"text": old_text, "scores": old_scores, "reviewed": old_reviewed}]
        text = boxes_to_yolo(boxes, *size)
        stats = image.stat()
        self._change(image, label, text, {
            "size": list(size),
            "image_stamp": [stats.st_size, stats.st_mtime_ns],
            "label_sha": label_sha(text),
            "scores": [b.get("score") if is_finite_number(b.get("score")) else None for b in boxes],
            "reviewed": reviewed,
            "history": bounded_history(history),
            "before": {"label_sha": label_sha(old_text), "scores": old_scores, "reviewed": old_reviewed,
                       "drop": int(pushed), "restore": []},
        })

    def save(self, rel: str, boxes: object, seen: object = UNSEEN) -> dict:
        """Replace the labels of an image (a person's change): saved at once, undoable; with `seen`,
        only if the label file is still that version (sidecar.check_seen)."""
        clean = validate_boxes(boxes)
        image = self.resolve_image(rel)
        with self._lock:
            check_seen(self._read_label(self.label_path(image)), seen, rel)
            size = self.image_size(rel)
            check_inside(clean, *size)
            self._write(image, least_confident_first(clean), size, reviewed=True, push=True)
            return self._state(rel, image)

    def undo(self, rel: str) -> dict:
        """Go back to the previous version of the labels; 409 when there is none."""
        image = self.resolve_image(rel)
        with self._lock:
            label = self.label_path(image)
            text_now = self._read_label(label)
            sidecar, _ = self._sidecar_view(image, text_now)
            history = sidecar["history"]
            if not history:
                raise LabelError("nothing_to_undo", f"{rel}: nothing to undo", 409)
            previous = history[-1]
            text = previous["text"]
            scores = previous["scores"]
            if scores is None:
                scores = [None] * sum(1 for line in text.splitlines() if line.strip())
            now_scores, now_reviewed = shown(sidecar, text_now)
            self._change(image, label, text, {
                **sidecar, "label_sha": label_sha(text), "scores": scores, "reviewed": previous["reviewed"],
                "history": history[:-1],
                "before": {"label_sha": label_sha(text_now), "scores": now_scores, "reviewed": now_reviewed,
                           "drop": 0, "restore": [previous]},
            })
            return self._state(rel, image)

    def mark_reviewed(self, rel: str) -> dict:
        """A person looked at the labels and kept them as they are."""
        image = self.resolve_image(rel)
        with self._lock:
            label = self.label_path(image)
            if not label.is_file():
                raise LabelError("not_labelled", f"{rel}: open the image before marking it reviewed", 409)
            text = self._read_label(label)
            sidecar, _ = self._sidecar_view(image, text)
            if sidecar["label_sha"] == label_sha(text):
                sidecar["reviewed"] = True
                self._write_sidecar(image, sidecar)
            return self._state(rel, image)

    def labelled_items(self) -> tuple[list[dict], list[str]]:
        """Every image with a label file: `{"path", "file", "width", "height", "boxes", "reviewed"}`;
        and warnings for the label files skipped (links out of the folder, never read)."""
        items, warnings = [], []
        for image in self.image_paths():
            label = image.with_suffix(".txt")
            if self._links_out(label):
                warnings.append(self._link_out_warning(label))
                continue
            if not label.is_file():
                continue
            rel = self._rel(image)
            state = self._state(rel, image)
            # an export leaves no line out unsaid: a label file with unreadable lines is refused
            try:
                yolo_to_boxes(label.read_text(encoding="utf-8"), state["width"], state["height"],
                              source=self._rel(label))
            except LabelError as exc:
                raise LabelError(exc.code, f"{exc.message}; open {rel} in the labelling tool to fix it, "
                                           "then export again", exc.status) from exc
            items.append({"path": rel, "file": image, "width": state["width"],
                          "height": state["height"], "boxes": state["boxes"],
                          "reviewed": state["reviewed"]})
        return items, warnings


def _exists(path: Path) -> bool:
    """Path.exists, where a name too long for the file system does not exist."""
    try:
        return path.exists()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return False
        raise


def _name_too_long(name: str) -> LabelError:
    limit = NAME_MAX_BYTES - len(SIDECAR_SUFFIX)
    return LabelError("name_too_long", f"{name[:40]}...: an image name may have at most {limit} bytes (UTF-8) "
                                       "here; rename the file and upload it again", 400)


def _path_too_long(rel: str) -> LabelError:
    return LabelError("name_too_long", f"{rel[:60]!r}...: the path or a name in it is too long (a name may have "
                                       f"at most {NAME_MAX_BYTES} bytes)", 400)


def _shipped_detector():
    from vision.detector import get_detector

    return get_detector()
