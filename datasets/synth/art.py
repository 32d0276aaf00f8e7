"""Tile face art sources: FluffyStuff (a CC0 copy in datasets/art), the KDE tile sets
(rendered at run time from /usr/share/kmahjongglib, cached outside the repository, never
committed) and the procedural renderer. Each source gives `glyph(code) -> RGBA array`
trimmed to its ink, or None when it has no face for that code (the scene then draws
that face procedurally in the same colours).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

ART_DIR = Path(__file__).resolve().parent.parent / "art"
KDE_DIR = Path("/usr/share/kmahjongglib/tilesets")
CACHE_ROOT = Path(os.environ.get("FANSHOT_CACHE", Path.home() / ".cache" / "fanshot"))  # what Fanshot may rebuild
CACHE_DIR = CACHE_ROOT / "kde-tiles-v2"

# KDE element ids per tile code (checked by eye: ROD = dots, BAMBOO = bamboo,
# DRAGON_1 = white, WIND_3 = east, FLOWER_3 = chrysanthemum, FLOWER_4 = bamboo).
KDE_IDS: dict[str, str | None] = {**{f"W{i}": f"CHARACTER_{i}" for i in range(1, 10)},
           **{f"T{i}": f"BAMBOO_{i}" for i in range(1, 10)},
           **{f"B{i}": f"ROD_{i}" for i in range(1, 10)},
           "F1": "WIND_3", "F2": "WIND_2", "F3": "WIND_4", "F4": "WIND_1",
           "J1": "DRAGON_3", "J2": "DRAGON_2", "J3": "DRAGON_1",
           "H1": "SEASON_1", "H2": "SEASON_2", "H3": "SEASON_3", "H4": "SEASON_4",
           "H5": "FLOWER_1", "H6": "FLOWER_2", "H7": "FLOWER_4", "H8": "FLOWER_3"}


# Where a set departs from that (checked by eye on its labels and corner numbers): the classic
# set draws the orchid as FLOWER_1 and the plum as FLOWER_2; the traditional set's SEASON_4 has
# only the word "WIN" (its picture does not render), so the procedural winter face is used.
KDE_SET_IDS: dict[str, dict[str, str | None]] = {"classic": {"H5": "FLOWER_2", "H6": "FLOWER_1"}, "traditional": {"H4": None}}


def trim(rgba: np.ndarray, threshold: int = 12) -> np.ndarray | None:
    """Crop an RGBA glyph to the bounding box of its visible ink; None when it is empty."""
    alpha = rgba[..., 3] > threshold
    if not alpha.any():
        return None
    ys, xs = np.nonzero(alpha)
    return rgba[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


class FluffyFaces:
    """FluffyStuff faces (regular: ivory tiles; black: dark tiles). No flowers; J3 is blank."""

    def __init__(self, variant: str = "regular"):
        self.dir = ART_DIR / "fluffystuff" / variant
        if not self.dir.is_dir():
            raise FileNotFoundError(f"FluffyStuff art not found in {self.dir}")
        self.name = f"fluffy-{variant}"
        self._cache: dict[str, np.ndarray | None] = {}

    def glyph(self, code: str, red_five: bool = False) -> np.ndarray | None:
        key = f"{code}-red" if red_five and code[1:] == "5" and code[0] in "WTB" else code
        if key not in self._cache:
            path = self.dir / f"{key}.png"
            self._cache[key] = trim(np.asarray(Image.open(path).convert("RGBA"))) if path.is_file() else None
        return self._cache[key]


def kde_sets() -> list[str]:
    """Names of the installed KDE tile sets that rsvg-convert can render (empty when either is missing)."""
    if shutil.which("rsvg-convert") is None or not KDE_DIR.is_dir():
        return []
    return sorted(p.stem for p in KDE_DIR.glob("*.svgz"))


def _render_kde_set(name: str, out: Path) -> None:
    """Render every face of one KDE set to PNGs in `out` (done once; about a second per set)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=out.parent))
    try:
        import gzip
        svg = tmp / "set.svg"
        svg.write_bytes(gzip.decompress((KDE_DIR / f"{name}.svgz").read_bytes()))
        for code, element in {**KDE_IDS, **KDE_SET_IDS.get(name, {})}.items():
            if element is None:
                continue
            png = tmp / f"{code}.png"
            subprocess.run(["rsvg-convert", "-i", element, "-z", "1.5", str(svg), "-o", str(png)],
                           check=True, capture_output=True, timeout=60)
        svg.unlink()
        try:
            tmp.rename(out)
        except OSError:  # another worker finished first
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


class KdeFaces:
    """Faces of one KDE tile set (GPL art: rendered at run time and cached, never committed)."""

    def __init__(self, name: str):
        self.name = f"kde-{name}"
        self.dir = CACHE_DIR / name
        if not self.dir.is_dir():
            self.dir.parent.mkdir(parents=True, exist_ok=True)
            _render_kde_set(name, self.dir)
        self._cache: dict[str, np.ndarray | None] = {}

    def glyph(self, code: str, red_five: bool = False) -> np.ndarray | None:
        if code not in self._cache:
            path = self.dir / f"{code}.png"
            self._cache[code] = trim(np.asarray(Image.open(path).convert("RGBA"))) if path.is_file() else None
        return self._cache[code]
