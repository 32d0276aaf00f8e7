"""Image bytes -> RGB numpy array, EXIF orientation applied.

One entry point, `decode_image`, used by the detector CLI, the photo-to-score
pipeline and the API. It reads JPEG, PNG, WebP and HEIC (via pillow-heif), checks
the pixel count from the header before decoding anything (decompression bombs),
and can decode big JPEGs at a reduced size through DCT scaling (`max_side`).
"""
from __future__ import annotations

import io
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
    except Image.DecompressionBombError as exc:
        raise ImageError("too_many_pixels", f"the image is too large: {exc}", 413) from exc
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
    try:
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


def decode_image(
    data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS, max_side: int | None = None
) -> np.ndarray:
    """Decode image bytes to an RGB uint8 array (H, W, 3), EXIF orientation applied.

    `max_side`: when given, the longer side of the result is at most this many pixels
    (JPEGs are decoded at a reduced scale by the codec itself, see `open_reduced`, which
    is much faster than decoding the full photo and shrinking it). Raises `ImageError`.
    """
    image = open_reduced(data, max_pixels=max_pixels, max_side=max_side)
    try:
        orientation = _orientation(image)
        decoded = _jpeg_by_opencv(data, image, max_side)
        if decoded is not None:
            return _oriented(decoded, orientation)
        image.load()
        if orientation != 1:  # exif_transpose copies the image even when there is nothing to turn
            image = ImageOps.exif_transpose(image)
        if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
            rgba = image.convert("RGBA")
            background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            image = Image.alpha_composite(background, rgba)
        rgb = image if image.mode == "RGB" else _eight_bit(image).convert("RGB")
    except ImageError:
        raise
    except Exception as exc:  # PIL raises OSError, SyntaxError, ValueError, zlib errors ...
        raise ImageError("truncated", f"the image data is truncated or corrupt: {exc}", 422) from exc
    if max_side is not None and max(rgb.size) > max_side:
        scale = max_side / max(rgb.size)
        size = (max(1, round(rgb.size[0] * scale)), max(1, round(rgb.size[1] * scale)))
        rgb = rgb.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)
    return np.asarray(rgb, dtype=np.uint8)


def _eight_bit(image: Image.Image) -> Image.Image:
    """A grey image of 16-bit or float samples ("I;16*", "I", "F": a 16-bit grey PNG or TIFF) as 8-bit
    grey, its range scaled down (PIL's own convert clips every sample above 255 to white); any
    other image as it is."""
    if image.mode not in ("I", "F") and not image.mode.startswith("I;16"):
        return image
    samples = np.asarray(image, dtype=np.float64)
    if image.mode == "F":
        top = 1.0 if samples.size and samples.max() <= 1.0 else 255.0
    else:
        top = 65535.0 if image.mode.startswith("I;16") or (samples.size and samples.max() > 255) else 255.0
    return Image.fromarray(np.clip(samples * (255.0 / top) + 0.5, 0, 255).astype(np.uint8))


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

