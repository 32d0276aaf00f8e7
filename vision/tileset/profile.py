"""A tile-set profile: how one physical tile set looks, as the classifier's embeddings of its own
tiles (vision.tileset.learn makes one, vision.tileset.apply reads with it), and its file format.

The file is a NumPy .npz without pickles: `meta` (UTF-8 JSON: format, version, name, classifier,
sources, created), `embeddings` (M x D float16, unit length), `labels` (M int16 class ids of
vision.classes.CLASSES) and, from version 2, `ink` (M x D float16: the same crops' ink views,
vision.classifier.ink_view). A version 1 file reads without ink views. `profile_from_bytes` refuses
anything else whole (ProfileError).
"""
from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field

import numpy as np

from vision.classes import CLASSES
from vision.classifier import OtherViews, SetMatch
from vision.tileset.apply import apply_profile, best_similarity, settled

FORMAT = "fanshot-tileset"
VERSION = 2
READS = (1, 2)  # the versions read (1: without ink views)


class ProfileError(ValueError):
    """A tile-set profile that cannot be learnt, found or read (a clear message for the user)."""

    code = "tileset_error"


@dataclass(frozen=True)
class TilesetProfile:
    """One tile set's look: `embeddings` (M x D, unit length) of its tiles' crops, `labels` (M class
    ids), learnt with the classifier `classifier` (TileClassifier.model_id); `sources`: where the
    examples came from ([{"kind", "file", "tiles", "created"}]); `ink`: the embeddings of the same
    crops' ink views (vision.classifier.ink_view; None: a profile of format version 1)."""

    name: str
    classifier: str
    embeddings: np.ndarray
    labels: np.ndarray
    sources: list[dict] = field(default_factory=list)
    created: str = ""
    ink: np.ndarray | None = None

    def __post_init__(self) -> None:
        # the examples grouped by class, as vision.tileset.apply reads them
        order = np.argsort(self.labels, kind="stable")
        object.__setattr__(self, "embeddings", np.ascontiguousarray(self.embeddings[order], np.float32))
        object.__setattr__(self, "labels", np.asarray(self.labels)[order])
        if self.ink is not None:
            if self.ink.shape != self.embeddings.shape:
                raise ProfileError("a tile set's ink views must be as many as its examples")
            object.__setattr__(self, "ink", np.ascontiguousarray(self.ink[order], np.float32))

    @property
    def searched(self) -> bool:
        """Whether photos of this set are searched for tiles the finder gives no box (vision.set_search):
        unless each layout photo it was learnt from had every tile found by the finder (the finder
        knows every face of the set; a profile of labelled photos or corrections alone cannot say)."""
        layouts = [source for source in self.sources if source.get("kind") == "layout"]
        return not layouts or any(source.get("missed", True) for source in layouts)

    def class_counts(self) -> dict[str, int]:
        """Examples per class (crops, both ways up counted once per view), in CLASSES order."""
        ids, counts = np.unique(self.labels, return_counts=True)
        return {CLASSES[int(i)]: int(c) for i, c in zip(ids, counts)}

    def summary(self) -> dict:
        """What the set holds, as `fanshot tileset show --json` and GET /api/v1/tilesets/{name} give it:
        examples per tile, and its sources by kind (layout, labelled, correction) with how many times,
        tiles and the first and last dates; `ink`: whether it holds its examples' ink views; `missed`:
        the tiles the finder gave no box in its layout photos; `searched`: `TilesetProfile.searched`."""
        kinds: dict[str, dict] = {}
        for source in self.sources:
            kind = str(source.get("kind", "unknown"))
            when = str(source.get("created", ""))
            entry = kinds.setdefault(kind, {"kind": kind, "times": 0, "tiles": 0, "first": when, "last": when})
            entry["times"] += 1
            entry["tiles"] += int(source.get("tiles") or 0)
            entry["first"], entry["last"] = min(entry["first"], when), max(entry["last"], when)
        missed = sorted({str(t) for source in self.sources if source.get("kind") == "layout"
                         for t in source.get("missed") or []}, key=CLASSES.index)
        return {"name": self.name, "created": self.created, "classifier": self.classifier,
                "examples": len(self.labels), "tiles": self.class_counts(), "sources": list(kinds.values()),
                "ink": self.ink is not None, "missed": missed, "searched": self.searched}

    def blend(self, probs: np.ndarray, features: np.ndarray, rows: np.ndarray,
              other_views: OtherViews | None = None, photo_boxes: int | None = None,
              known: np.ndarray | None = None) -> tuple[np.ndarray, SetMatch]:
        """The classifier's `probs` blended with this set's reading, and how alike each box is to
        the set's tiles (vision.tileset.apply; `other_views`: the features of crops turned upside
        down and of their ink views; `photo_boxes`: the first boxes that tell whether the photo
        shows the set; `known`: the first crops' similarities, from `settled`)."""
        blended, similarity, tile = apply_profile(probs, features, rows, self.embeddings, self.labels,
                                                  other_views=other_views, ink=self.ink, photo_boxes=photo_boxes,
                                                  known=known)
        return blended, SetMatch(similarity, tile)

    def settled(self, probs: np.ndarray, features: np.ndarray, photo_boxes: int | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """Which crops this set reads surely as the classifier does, and their similarities to the
        set's classes (vision.tileset.apply.settled): the classifier's extra views of them are not read."""
        return settled(probs, features, self.embeddings, self.labels, photo_boxes=photo_boxes)

    def likeness(self, features: np.ndarray, rows: np.ndarray, boxes: int) -> np.ndarray:
        """Each box's best similarity to this set's examples over its crops (`rows`: the box of each
        crop's `features`; vision.tileset.apply.best_similarity)."""
        return best_similarity(features, rows, boxes, self.embeddings)

    def merged(self, other: TilesetProfile) -> TilesetProfile:
        """This profile with `other`'s examples added (same classifier); with ink views when both
        have them."""
        if other.classifier != self.classifier:
            raise ProfileError(f"tile set {self.name!r} was learnt with another classifier: learn it again")
        ink = None if self.ink is None or other.ink is None else np.concatenate([self.ink, other.ink])
        return TilesetProfile(self.name, self.classifier, np.concatenate([self.embeddings, other.embeddings]),
                              np.concatenate([self.labels, other.labels]), self.sources + other.sources,
                              other.created or self.created, ink)


def profile_to_bytes(profile: TilesetProfile) -> bytes:
    """The profile as a file (format version 1 when it has no ink views)."""
    meta = {"format": FORMAT, "version": VERSION if profile.ink is not None else 1, "name": profile.name, "classifier": profile.classifier,
            "sources": profile.sources, "created": profile.created}
    arrays: dict[str, np.ndarray] = {"meta": np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8),
                                     "embeddings": profile.embeddings.astype(np.float16),
                                     "labels": profile.labels.astype(np.int16)}
    if profile.ink is not None:
        arrays["ink"] = profile.ink.astype(np.float16)
    buf = io.BytesIO()  # an .npz as np.savez_compressed writes it, at the fastest deflate level (a third of its time)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as npz:
        for key, array in arrays.items():
            with npz.open(f"{key}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return buf.getvalue()


def profile_from_bytes(data: bytes, where: str = "the profile") -> TilesetProfile:
    """The profile in `data`; raises ProfileError for a file that is not a whole profile of this
    format and version (never a partial one)."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in ("meta", "embeddings", "labels")}
            ink = npz["ink"] if "ink" in npz.files else None
    except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ProfileError(f"{where} is not a fanshot tile-set profile ({exc.__class__.__name__}): "
                           "forget it and learn the set again") from None
    try:
        meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ProfileError(f"{where}: its header is not JSON: forget it and learn the set again") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ProfileError(f"{where} is not a fanshot tile-set profile")
    if meta.get("version") not in READS:
        raise ProfileError(f"{where} is a tile-set profile of format version {meta.get('version')!r}; "
                           f"this fanshot reads versions {', '.join(map(str, READS))}: learn the set again")
    embeddings, labels = arrays["embeddings"], arrays["labels"]
    if (embeddings.ndim != 2 or labels.ndim != 1 or len(embeddings) != len(labels) or len(labels) == 0
            or labels.min() < 0 or labels.max() >= len(CLASSES) or not np.isfinite(embeddings).all()):
        raise ProfileError(f"{where}: its examples are damaged: forget it and learn the set again")
    if (ink is None) != (meta["version"] == 1) or (ink is not None and (ink.shape != embeddings.shape
                                                                       or not np.isfinite(ink).all())):
        raise ProfileError(f"{where}: its ink views are damaged: forget it and learn the set again")
    if not isinstance(meta.get("name"), str) or not isinstance(meta.get("classifier"), str):
        raise ProfileError(f"{where}: its header lacks the name or the classifier: learn the set again")
    return TilesetProfile(meta["name"], meta["classifier"], embeddings.astype(np.float32),
                          labels.astype(np.int64), list(meta.get("sources") or []), str(meta.get("created", "")),
                          None if ink is None else ink.astype(np.float32))
