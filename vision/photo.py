"""Reading a photo's bytes at the resolution the pipeline reads photos at (`read_photo`).

A JPEG is decoded at the smallest scale it decodes to directly (1/1, 1/2, 1/4, 1/8) that is at
least DETECT_MAX_SIDE long (a 4000 px photo at 1/4, in the codec). The `Photo` it gives keeps
the way to decode the same bytes again at the next direct scale (`Photo.sharper`), which the
detector uses to name tiles found smaller than its classifier's input (docs/photo-resolution.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

DETECT_MAX_SIDE = 1000
_JPEG_SCALES = (8, 4, 2, 1)


def photo_scale_side(long_side: int, at_least: int) -> int:
    """The long side of the smallest 1/8, 1/4, 1/2 or full scale of a photo `long_side` px long
    that is at least `at_least` px long (the full photo when none is): the sizes a JPEG decodes
    to directly, without resampling after."""
    for factor in _JPEG_SCALES:
        side = -(-long_side // factor)
        if side >= at_least:
            return side
    return long_side


@dataclass(frozen=True)
class Photo:
    """A photo as `read_photo` read it: the RGB image decoded (`image`, EXIF orientation applied)
    and how to decode the same bytes again at another long side (`decode`)."""

    image: np.ndarray
    decode: Callable[[int], np.ndarray]  # the photo decoded at a long side (photo_scale_side's)
    long_side: int  # the photo's own long side

    def sharper(self) -> np.ndarray | None:
        """The photo decoded at the next direct JPEG scale above `image` (1/8 -> 1/4 -> 1/2 ->
        full), or None when `image` is the full photo."""
        side = max(self.image.shape[:2])
        if side >= self.long_side:
            return None
        return self.decode(photo_scale_side(self.long_side, side + 1))


def read_photo(data: bytes, *, first_side: int = DETECT_MAX_SIDE, max_pixels: int | None = None) -> Photo:
    """A photo's bytes decoded at `photo_scale_side(photo's long side, first_side)`, EXIF
    orientation applied. Raises vision.decode.ImageError for bad bytes."""
    from vision.decode import DEFAULT_MAX_PIXELS, decode_image, probe_image

    limit = DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels
    long_side = max(probe_image(data, max_pixels=limit))

    def decode(side: int) -> np.ndarray:
        return decode_image(data, max_pixels=limit, max_side=side)

    return Photo(decode(photo_scale_side(long_side, first_side)), decode, long_side)
