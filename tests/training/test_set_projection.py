"""The within-set discriminant (training.set_projection.fit) on made-up embeddings: it keeps the
directions that tell one set's tiles apart and drops those along which a tile's crops vary and those
along which whole sets differ."""
from __future__ import annotations

import numpy as np

from training.set_projection import fit, projected


def test_the_projection_keeps_what_tells_a_sets_tiles_apart():
    rng = np.random.default_rng(0)
    dim, tiles, sets, crops = 12, 4, 6, 30
    rows, labels, set_ids = [], [], []
    for s in range(sets):
        style = np.zeros(dim)
        style[2] = rng.normal(0, 5)  # a whole set's look: axis 2
        for t in range(tiles):
            tile = np.zeros(dim)
            tile[0], tile[1] = np.cos(t * np.pi / 2) + rng.normal(0, 0.05), np.sin(t * np.pi / 2)  # the tiles: axes 0-1
            tile[3] = 1.0 * t  # the tiles differ more along axis 3, but their crops vary far more along it
            for _ in range(crops):
                noise = rng.normal(0, 0.05, dim)
                noise[3] = rng.normal(0, 3)  # blur, light, the box: axis 3 varies most within a tile
                rows.append(style + tile + noise)
                labels.append(t)
                set_ids.append(s)
    x, y, s_ids = np.array(rows), np.array(labels), np.array(set_ids)
    projection = fit(x, y, s_ids, dims=2, shrink=0.01)
    assert projection.shape == (dim, 2)
    kept = np.abs(projection / np.linalg.norm(projection, axis=0))
    assert (kept[[0, 1]].sum(axis=0) > 0.95).all()  # the tile axes
    assert (kept[[2, 3]].max(axis=0) < 0.05).all()  # neither the set's look nor the crop's noise
    # in the projected space every crop lies nearest its own tile's mean of its own set
    z = projected(x, projection)
    for s in range(sets):
        mine = s_ids == s
        means = np.array([z[mine & (y == t)].mean(axis=0) for t in range(tiles)])
        assert ((z[mine] @ means.T).argmax(axis=1) == y[mine]).all()
