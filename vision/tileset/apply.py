"""Reading with a tile-set profile: the shipped classifier's probabilities blended with a
nearest-example reading against the set's own tiles (chosen by measurement: docs/tilesets.md).

A crop's embedding is the classifier's penultimate map (128 x 8 x 6) summed over 2 x 2 cells (1536
values) and made unit length (`embedding`). Each box's embedding is compared (cosine) with each of
the set's examples; a class's similarity is its best example's. Over the classes the set holds,
softmax(similarity / temperature) is the set's reading, given the probability the classifier gave
those classes together, and blended with the classifier's own by a weight that grows from 0 at a
best similarity of `similar_from` to `weight` at `similar_at` (`plain_from` to `plain_at` for a box
read as a blank white dragon or a face-down tile, PLAIN_FACES, alike most plain crops): a crop
unlike every tile of the set (another set, a prop) keeps the classifier's reading. A class the set
holds no example of keeps the classifier's probability.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.classes import CLASSES, NOT_A_TILE


@dataclass(frozen=True)
class Blend:
    weight: float = 0.8         # the set's reading's share for a crop as alike as similar_at
    temperature: float = 0.02   # softmax temperature over cosine similarities
    similar_from: float = 0.6   # best similarity under which the set's reading counts for nothing
    similar_at: float = 0.8     # best similarity from which it counts `weight`
    # a box the classifier or the set reads as a face with little drawn on it (PLAIN_FACES) is
    # alike most plain crops of other sets: its gate is stricter
    plain_from: float = 0.8
    plain_at: float = 0.95


BLEND = Blend()
PLAIN_FACES = np.array([CLASSES.index("J3"), CLASSES.index("BACK")])  # the white dragon, a face-down tile
FEATURE_MAP = (128, 8, 6)  # the shipped classifier's penultimate map (channels, height, width)


def embedding(features: np.ndarray) -> np.ndarray:
    """Unit-length embeddings (N, E) of the classifier's features (N, D): the map pooled over
    2 x 2 cells when it is FEATURE_MAP's size, as it is otherwise."""
    n = len(features)
    c, h, w = FEATURE_MAP
    if features.shape[1] == c * h * w:  # 2 x 2 cells by strided sums (a mean over axes is slower)
        m = features.reshape(n, c, h, w)
        rows = m[:, :, 0::2] + m[:, :, 1::2]
        features = (rows[:, :, :, 0::2] + rows[:, :, :, 1::2]).reshape(n, -1)
    return features / np.linalg.norm(features, axis=1, keepdims=True).clip(1e-6)


def class_similarity(embeddings: np.ndarray, examples: np.ndarray, labels: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(classes the set holds (K,), similarity (R, K): each embedding's best cosine with that
    class's examples; `examples` (M, E) unit length, `labels` (M,) their class ids)."""
    if (np.diff(labels) < 0).any():  # group the examples by class (a TilesetProfile's are)
        order = np.argsort(labels, kind="stable")
        examples, labels = examples[order], labels[order]
    classes, starts = np.unique(labels, return_index=True)
    sims = embeddings @ examples.T  # (R, M)
    return classes, np.maximum.reduceat(sims, starts, axis=1)


def apply_profile(probs: np.ndarray, features: np.ndarray, rows: np.ndarray, examples: np.ndarray,
                  labels: np.ndarray, blend: Blend = BLEND) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`probs` (N, 43 or 44) with the 43 classes blended with the set's reading, each box's best
    similarity to the set's examples (N,) and that example's class id (N,). `features` (R, D): the
    classifier's features of crops of the boxes `rows` (R indices into probs; a box may have two,
    its crop both ways: the better counts), compared with a set's `examples` of classes `labels`
    (vision.tileset.profile.TilesetProfile). The NOT_A_TILE column is left as it is."""
    classes, row_sims = class_similarity(embedding(features), examples, labels)
    sims = np.full((len(probs), len(classes)), -1.0, np.float32)
    np.maximum.at(sims, rows, row_sims)
    logits = sims / blend.temperature
    own = np.exp(logits - logits.max(axis=1, keepdims=True))
    own /= own.sum(axis=1, keepdims=True)
    plain = np.isin(classes[sims.argmax(axis=1)], PLAIN_FACES) | np.isin(probs[:, :NOT_A_TILE].argmax(axis=1), PLAIN_FACES)
    start = np.where(plain, blend.plain_from, blend.similar_from)
    full = np.where(plain, blend.plain_at, blend.similar_at)
    likeness = np.clip((sims.max(axis=1) - start) / (full - start), 0, 1)
    weight = (blend.weight * likeness)[:, None]
    out = probs.copy()
    mass = probs[:, classes].sum(axis=1, keepdims=True)
    out[:, classes] = (1 - weight) * probs[:, classes] + weight * mass * own
    assert classes.max() < NOT_A_TILE  # the set's examples are tiles: the 44th column stays
    return out, sims.max(axis=1), classes[sims.argmax(axis=1)]
