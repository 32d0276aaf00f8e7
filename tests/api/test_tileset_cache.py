"""The profiles a worker reads (api/tilesets.py TilesetProfiles): read once and kept while the file
stays the same, read again once the set is learnt again, at most CACHED of them; a profile of
another classifier refused."""
from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pytest

from api import tilesets
from api.errors import ApiError
from api.tilesets import TilesetProfiles
from vision.tileset.profile import TilesetProfile

CLASSIFIER = SimpleNamespace(has_features=True, model_id="abc")


def _profile(name: str, rows: int = 2, classifier: str = "abc") -> TilesetProfile:
    e = np.random.default_rng(rows).random((rows, 16)).astype(np.float32)
    return TilesetProfile(name, classifier, e / np.linalg.norm(e, axis=1, keepdims=True), np.zeros(rows, np.int64))


def test_a_set_learnt_again_is_read_again_and_the_cache_is_bounded(tmp_path):
    profiles = TilesetProfiles(tmp_path)
    profiles.store.save(_profile("mine"))
    first = profiles.for_reading("mine", CLASSIFIER)
    assert profiles.for_reading("mine", CLASSIFIER) is first  # kept
    profiles.store.replace(_profile("mine", rows=5))
    path = profiles.store.path("mine")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1))  # a clock coarser than the test
    again = profiles.for_reading("mine", CLASSIFIER)
    assert again is not first and len(again.labels) == 5
    for k in range(tilesets.CACHED + 3):
        profiles.store.save(_profile(f"s{k}"))
        profiles.for_reading(f"s{k}", CLASSIFIER)
    assert len(profiles._kept) == tilesets.CACHED and "mine" not in profiles._kept


def test_a_set_of_another_classifier_or_none_is_refused(tmp_path):
    profiles = TilesetProfiles(tmp_path)
    profiles.store.save(_profile("old", classifier="other"))
    with pytest.raises(ApiError) as refused:
        profiles.for_reading("old", CLASSIFIER)
    assert (refused.value.status, refused.value.code) == (422, "tileset_unreadable")
    assert "another classifier" in refused.value.message
    with pytest.raises(ApiError) as missing:
        profiles.for_reading("nosuch", CLASSIFIER)
    assert (missing.value.status, missing.value.code, missing.value.params) == (
        404, "tileset_not_found", {"name": "nosuch", "known": ["old"]})
