"""The plain dataset record every format reads into and writes from, and what the readers share:
the error, box rounding, image sizes as shown, image names and paths."""
from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

from PIL import Image

from datasets.classmap import CLASS_ID

FORMATS = ("yolo", "coco", "labelstudio")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
LABEL_STUDIO_PREFIX = "/data/local-files/?d="


class DatasetError(ValueError):
    """A dataset that cannot be read or written (missing files, bad JSON, unknown classes)."""


class ImageNotFoundError(DatasetError):
    """An image a writer must copy is not where the source names it."""


def round_coord(v: float) -> float:
    r = round(float(v), 2)
    return float(int(r)) if r == int(r) else r


def clean_box(box) -> list[float]:
    return [round_coord(v) for v in box]


def numbers(values, count: int, where: str) -> list[float]:
    """`values` as `count` floats; DatasetError naming `where` unless they are that many finite
    numbers (a JSON source's box or size: a string, null, nan or a missing value is refused)."""
    if (isinstance(values, (list, tuple)) and len(values) == count
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)):
        return [float(v) for v in values]
    raise DatasetError(f"{where}: expected {count} numbers, got {values!r:.80}")


_TRANSPOSING_ORIENTATIONS = frozenset((5, 6, 7, 8))  # EXIF orientations that swap width and height
_PNG_LATE_METADATA = frozenset((b"eXIf", b"iTXt", b"tEXt", b"zTXt"))


def image_size(path: str | Path) -> tuple[int, int]:
    """(width, height) of an image file as shown, its EXIF orientation applied the way
    PIL.ImageOps.exif_transpose applies it (the EXIF tag, else an XMP tiff:Orientation). Read from
    the file's header: the pixels are decoded only for a PNG that stores metadata after them."""
    try:
        with Image.open(path) as im:
            width, height = im.size
            orientation = _orientation(im, Path(path))
    except (OSError, ValueError) as exc:
        raise DatasetError(f"cannot read image {path}: {exc}") from exc
    return (height, width) if orientation in _TRANSPOSING_ORIENTATIONS else (width, height)


def _orientation(im: Image.Image, path: Path) -> int:
    try:
        if im.format == "PNG" and "exif" not in im.info and not _png_metadata_after_pixels(path):
            exif = Image.Image.getexif(im)  # what PngImageFile.getexif finds, without its load()
        else:
            exif = im.getexif()
        return int(exif.get(0x0112, 1) or 1)
    except Exception:  # a broken EXIF block: shown as stored (vision.decode does the same)
        return 1


def _png_metadata_after_pixels(path: Path) -> bool:
    """Whether a PNG has an eXIf or text chunk after its first IDAT (PIL reads those only on load)."""
    with open(path, "rb") as f:
        f.seek(8)
        after_pixels = False
        while len(head := f.read(8)) == 8:
            kind = head[4:]
            if kind == b"IEND":
                break
            if kind == b"IDAT":
                after_pixels = True
            elif after_pixels and kind in _PNG_LATE_METADATA:
                return True
            f.seek(int.from_bytes(head[:4], "big") + 4, os.SEEK_CUR)
    return False


def stored_name(file: str, image_root: str | Path | None) -> str:
    if image_root is not None:
        try:
            return Path(os.path.relpath(Path(file).resolve(), Path(image_root).resolve())).as_posix()
        except ValueError:
            pass
    return Path(file).name


def check_records(dataset: list[dict]) -> None:
    for rec in dataset:
        for key in ("file", "width", "height", "boxes"):
            if key not in rec:
                raise DatasetError(f"record without {key!r}: {rec!r:.200}")
        for b in rec["boxes"]:
            if b["tile"] not in CLASS_ID:
                raise DatasetError(f"{rec['file']}: unknown tile code {b['tile']!r}")


def load_json(path: str | Path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"cannot read JSON {path}: {exc}") from exc


def resolve_image(name: str, image_dir: Path | None) -> str:
    """The image file `name` names below `image_dir`: the name itself, then the name less its
    leading folders one at a time (Label Studio's COCO names uploads `../x/media/upload/1/a.jpg`,
    found under its media folder as `upload/1/a.jpg`); else `name` unchanged."""
    if image_dir is not None:
        parts = [p for p in Path(name).parts if p not in ("/", "..", ".")]
        for candidate in [image_dir / name] + [image_dir.joinpath(*parts[i:]) for i in range(len(parts))]:
            if candidate.is_file():
                return str(candidate)
    return name


def place_image(src: str, dst: Path) -> None:
    if dst.exists() and dst.samefile(src):
        return
    if dst.exists():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)
