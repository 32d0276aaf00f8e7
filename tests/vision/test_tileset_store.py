"""The tile-set store's adds (vision.tileset.store.ProfileStore.add): examples added by several
processes at once are all kept (a lock file around each load-add-save)."""
from __future__ import annotations

import multiprocessing

import numpy as np

from vision.tileset.profile import TilesetProfile
from vision.tileset.store import ProfileStore

ADDS = 12  # per process


def _profile(label: int) -> TilesetProfile:
    e = np.random.default_rng(label).random((3, 16)).astype(np.float32)
    return TilesetProfile("shared", "abc", e / np.linalg.norm(e, axis=1, keepdims=True), np.full(3, label),
                          [{"kind": "correction", "tiles": 1, "created": f"2026-01-01T00:00:{label:02d}"}])


def _add_many(folder: str, label: int) -> None:
    store = ProfileStore(folder)
    for _ in range(ADDS):
        store.add(_profile(label))


def test_adds_from_several_processes_at_once_are_all_kept(tmp_path):
    store = ProfileStore(tmp_path)
    store.save(_profile(0))
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_add_many, args=(str(tmp_path), label)) for label in (1, 2, 3, 4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    kept = store.load("shared")
    assert kept.class_counts() == {"W1": 3, "W2": 3 * ADDS, "W3": 3 * ADDS, "W4": 3 * ADDS, "W5": 3 * ADDS}
    assert kept.summary()["sources"][0]["times"] == 1 + 4 * ADDS
    assert sorted(p.name for p in store.dir.iterdir()) == [".shared.lock", "shared.tileset"]  # no temporary left


def test_forget_and_replace_take_the_lock_too(tmp_path):
    store = ProfileStore(tmp_path)
    assert store.add(_profile(1)).class_counts() == {"W2": 3}  # the first add makes the set
    assert store.replace(_profile(2)).class_counts() == {"W3": 3}
    assert store.load("shared").class_counts() == {"W3": 3}
    assert store.forget("shared") and not store.forget("shared") and store.names() == []
