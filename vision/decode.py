"""Image bytes -> RGB numpy array, EXIF orientation applied.

One entry point, `decode_image`, used by the detector CLI, the photo-to-score
pipeline and the API. It reads JPEG, PNG, WebP and HEIC (via pillow-heif), checks
the pixel count from the header before decoding anything (decompression bombs),
and can decode big JPEGs at a reduced size through DCT scaling (`max_side`).

Memory is bounded by bytes as well as pixels: from the header's size and mode (bit depth and
bands) `decode_bytes` estimates what decoding will hold at its peak, and an image that would take
more than a plain colour photo of `max_pixels` pixels is refused (413) before it is decoded. Other
images are shrunk to `max_side` in their own mode before any conversion, so a 16-bit grey PNG
costs what its 2 bytes a pixel cost, not the float copies a conversion at full size would make.
"""
from __future__ import annotations

import io
import re
import warnings

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError
from PIL.JpegImagePlugin import JpegImageFile  # also the base of MPO, phones' multi-frame JPEGs

try:  # HEIC/HEIF from iPhones; optional so a broken install only loses that format
    from pillow_heif import register_heif_opener

    register_heif_opener()
except ImportError:  # pragma: no cover - pillow-heif is a runtime dependency
    pass

DEFAULT_MAX_PIXELS = 40_000_000
MB = 1_000_000

# Bytes a pixel takes in an image Pillow has decoded, by mode; a mode not named: 8 (no more exists).
_HELD = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16L": 2, "I;16B": 2, "I;16N": 2}
_HELD.update(dict.fromkeys(("LA", "La", "PA", "RGB", "RGBA", "RGBa", "RGBX", "CMYK", "YCbCr", "LAB", "HSV",
                            "I", "F"), 4))
_ALPHA = {"LA", "La", "PA", "RGBA", "RGBa"}

# EXIF orientations 5-8 swap width and height.
_TRANSPOSED_ORIENTATIONS = {5, 6, 7, 8}


class ImageError(ValueError):
    """A request image that cannot be used; `status` is the HTTP status to answer with."""

    def __init__(self, code: str, message: str, status: int):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}


def _open(data: bytes, max_pixels: int) -> Image.Image:
    if not data:
        raise ImageError("empty", "the image is empty (0 bytes)", 422)
    try:
        with warnings.catch_warnings():  # the pixel cap below is our own check
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:  # Pillow's own cap, far above ours: say ours
        found = re.search(r"\((\d+) pixels\)", str(exc))
        count = f"{int(found.group(1)):,} pixels" if found else "too many pixels"
        raise ImageError("too_many_pixels", f"the image has {count}; the limit is {max_pixels:,}", 413) from exc
    except UnidentifiedImageError as exc:
        raise ImageError(
            "not_an_image", "not a JPEG, PNG, WebP or HEIC image", 415
        ) from exc
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageError("truncated", f"the image header cannot be read: {exc}", 422) from exc
    width, height = image.size
    if width <= 0 or height <= 0:
        raise ImageError("truncated", "the image has no pixels", 422)
    if width * height > max_pixels:
        raise ImageError(
            "too_many_pixels",
            f"the image has {width}x{height} = {width * height:,} pixels; the limit is {max_pixels:,}",
            413,
        )
    return image


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation, from the header: a PNG's getexif() would decode the whole image to look
    for an eXIf chunk after the pixels, so a PNG's comes from a chunk before them or is 1."""
    try:
        if image.format == "PNG":
            exif = Image.Exif()
            if image.info.get("exif"):
                exif.load(image.info["exif"])
            return int(exif.get(0x0112, 1) or 1)
        return int(image.getexif().get(0x0112, 1) or 1)
    except Exception:  # a broken EXIF block is not worth refusing the photo for
        return 1


def probe_image(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> tuple[int, int]:
    """(width, height) of the image as shown (after EXIF orientation), from the header only."""
    image = _open(data, max_pixels)
    width, height = image.size
    if _orientation(image) in _TRANSPOSED_ORIENTATIONS:
        return height, width
    return width, height


def open_reduced(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS, max_side: int | None = None) -> Image.Image:
    """The image, opened (checked against `max_pixels`) but not decoded yet; a JPEG longer
    than `max_side` is set to decode at the smallest 1/2, 1/4 or 1/8 scale that still
    covers `max_side` (DCT scaling in the codec: a 12 MP photo decodes in a fraction of
    the time). Phones' JPEGs often carry extra frames (MPO): the first frame is the photo
    and scales the same way. `size` is then the size the codec will produce, as stored
    (before EXIF orientation). Raises `ImageError`."""
    image = _open(data, max_pixels)
    width, height = image.size
    if max_side is not None and max(width, height) > max_side and isinstance(image, JpegImageFile):
        scale = max_side / max(width, height)
        image.draft("RGB", (max(1, round(width * scale)), max(1, round(height * scale))))
    return image


def decode_bytes(mode: str, width: int, height: int, shrinks: bool, transparent: bool = False) -> int:
    """About the most memory, in bytes, that `decode_image` holds while Pillow decodes a `width` x
    `height` image of `mode` (`transparent`: a palette image with a transparent colour), measured
    on PNGs (scripts/decode_memory.py): the image as decoded plus 2 bytes a pixel of the decoder's
    own; then, when it `shrinks` to `max_side`, the colour copy a palette image needs and the
    premultiplied copy of an alpha image; else the converted copies at full size (8-bit RGB, on
    white, the array), 12 bytes a pixel, 24 with alpha."""
    held = _HELD.get(mode, 8)
    alpha = mode in _ALPHA or transparent
    if not shrinks:
        per_pixel = 24 if alpha else 12 + (4 if mode in ("I", "F") else 2 if mode.startswith("I;16") else 0)
    else:
        per_pixel = held + 2 + (4 if mode == "P" else 0) + (4 if alpha else 0)
    return width * height * max(per_pixel, held + 2)


def _check_bytes(image: Image.Image, shrinks: bool, max_pixels: int) -> None:
    """Refuse (413) an image that would take more memory to decode than a plain colour photo of
    `max_pixels` pixels: the byte limit that goes with the pixel limit."""
    width, height = image.size
    need = decode_bytes(image.mode, width, height, shrinks, "transparency" in image.info)
    limit = decode_bytes("RGB", max_pixels, 1, shrinks)
    if need > limit:
        depth = {"I;16": "16-bit grey", "I": "32-bit grey", "F": "floating-point grey", "1": "1-bit",
                 "P": "palette"}.get(image.mode.rstrip("BLN") if image.mode.startswith("I;16") else image.mode)
        kind = f"{depth} ({image.mode})" if depth else image.mode
        raise ImageError(
            "too_many_bytes",
            f"the image ({width}x{height}, {kind}) would take about {need / MB:,.0f} MB to decode; the limit "
            f"is {limit / MB:,.0f} MB, what a colour photo of {max_pixels:,} pixels takes",
            413,
        )


def decode_image(
    data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS, max_side: int | None = None
) -> np.ndarray:
    """Decode image bytes to an RGB uint8 array (H, W, 3), EXIF orientation applied.

    `max_side`: when given, the longer side of the result is at most this many pixels
    (JPEGs are decoded at a reduced scale by the codec itself, see `open_reduced`, which
    is much faster than decoding the full photo and shrinking it; other images are shrunk
    in their own mode before any conversion). Raises `ImageError`, a 413 for an image over
    `max_pixels` or over the bytes that go with it (`decode_bytes`), before decoding it.
    """
    image = open_reduced(data, max_pixels=max_pixels, max_side=max_side)
    try:
        orientation = _orientation(image)
        decoded = _jpeg_by_opencv(data, image, max_side)
        if decoded is not None:
            return _oriented(decoded, orientation)
        shrinks = max_side is not None and max(image.size) > max_side
        _check_bytes(image, shrinks, max_pixels)
        image.load()
        if shrinks:
            assert max_side is not None
            image = _shrunk(image, max_side)
        if orientation != 1:  # exif_transpose copies the image even when there is nothing to turn
            image = ImageOps.exif_transpose(image)
        if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
            rgba = image.convert("RGBA")
            background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            image = Image.alpha_composite(background, rgba)
        rgb = image if image.mode == "RGB" else _eight_bit(image).convert("RGB")
    except ImageError:
        raise
    except Exception as exc:  # PIL raises OSError, SyntaxError, ValueError, zlib errors ...
        raise ImageError("truncated", f"the image data is truncated or corrupt: {exc}", 422) from exc
    return np.asarray(rgb, dtype=np.uint8)


def _shrunk(image: Image.Image, max_side: int) -> Image.Image:
    """`image` at most `max_side` long, in its own mode where Pillow shrinks it smoothly (a palette
    or 1-bit image would be shrunk by nearest pixel: those are made colour or grey first)."""
    if image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    elif image.mode == "PA":
        image = image.convert("RGBA")
    elif image.mode == "1":
        image = image.convert("L")
    scale = max_side / max(image.size)
    size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
    gap = None if image.mode.startswith("I;16") else 2.0  # Pillow's reduce() takes no 16-bit grey
    return image.resize(size, Image.Resampling.BILINEAR, reducing_gap=gap)


def _eight_bit(image: Image.Image) -> Image.Image:
    """A grey image of 16-bit or float samples ("I;16*", "I", "F": a 16-bit grey PNG or TIFF) as 8-bit
    grey, its range scaled down (PIL's own convert clips every sample above 255 to white); any
    other image as it is. Integer arithmetic for 16 bits (no float copy of a full-size image)."""
    if image.mode.startswith("I;16"):
        samples = np.asarray(image).astype(np.uint32)
        samples *= 255
        samples += 32767
        samples //= 65535
        return Image.fromarray(samples.astype(np.uint8))
    if image.mode not in ("I", "F"):
        return image
    values = np.array(image, dtype=np.float32)  # a copy: scaled in place
    if image.mode == "F":
        top = 1.0 if values.size and values.max() <= 1.0 else 255.0
    else:
        top = 65535.0 if values.size and values.max() > 255 else 255.0
    values *= 255.0 / top
    values += 0.5
    return Image.fromarray(np.clip(values, 0, 255, out=values).astype(np.uint8))


# EXIF orientation -> the OpenCV steps that show the photo upright (as ImageOps.exif_transpose)
_UPRIGHT = {
    2: lambda a: cv2.flip(a, 1),
    3: lambda a: cv2.rotate(a, cv2.ROTATE_180),
    4: lambda a: cv2.flip(a, 0),
    5: lambda a: cv2.transpose(a),
    6: lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    7: lambda a: cv2.rotate(cv2.transpose(a), cv2.ROTATE_180),
    8: lambda a: cv2.rotate(a, cv2.ROTATE_90_COUNTERCLOCKWISE),
}
_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}


def _jpeg_by_opencv(data: bytes, image: Image.Image, max_side: int | None) -> np.ndarray | None:
    """A colour JPEG decoded by OpenCV, as stored, at the scale `open_reduced` set: the same
    libjpeg-turbo and the same pixels as Pillow's, straight into an array (Pillow's copy into
    numpy alone took 1.3 ms of a 12 MP photo's 17 at 1/4). None where Pillow decodes it: not
    a colour JPEG, no end marker (a truncated file, which Pillow reports as such), or still
    longer than `max_side` at that scale (Pillow shrinks it)."""
    if not isinstance(image, JpegImageFile) or image.mode != "RGB" or not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        return None
    if max_side is not None and max(image.size) > max_side:
        return None
    config = getattr(image, "decoderconfig", ())
    flag = _REDUCED.get(config[0] if config else 1)
    if flag is None:
        return None
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), flag | cv2.IMREAD_IGNORE_ORIENTATION)
    if bgr is None or bgr.shape[:2] != (image.size[1], image.size[0]):
        return None
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def _oriented(rgb: np.ndarray, orientation: int) -> np.ndarray:
    turn = _UPRIGHT.get(orientation)
    return rgb if turn is None else turn(rgb)

