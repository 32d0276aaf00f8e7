"""Reading with a tile-set profile: the shipped classifier's probabilities blended with a
nearest-example reading against the set's own tiles (chosen by measurement: docs/tilesets.md).

A crop's embedding is the classifier's penultimate map (128 x 8 x 6) summed over 2 x 2 cells (1536
values) and made unit length (`embedding`). Each box's embedding is compared (cosine) with each of
the set's examples; a class's similarity is its best example's. Over the classes the set holds,
softmax(similarity / temperature) is the set's reading, given the probability the classifier gave
those classes together. Only a photo that shows the set (its tiles at the median `photo_from` alike
its examples) is read with it: there the set's reading is blended with the classifier's own by a
weight that grows from 0 at a best similarity of `set_from` to `weight` at `set_at` (`plain_from` to
`plain_at` for a box read as a blank white dragon or a face-down tile, PLAIN_FACES, alike most plain
crops), and a crop whose set reading is unsure is compared both ways up (`both_ways_similarity`)
and, with a set that has them, in ink (`ink_similarity`: a set may draw a face in another colour;
one whose ink view the set names as a sure classifier does keeps the classifier's reading).
A photo of another set keeps the classifier's reading, as a class the set holds no example of does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.classes import CLASSES, NOT_A_TILE
from vision.classifier import OtherViews


@dataclass(frozen=True)
class Blend:
    weight: float = 0.8         # the set's reading's share for a crop as alike as set_at
    temperature: float = 0.02   # softmax temperature over cosine similarities
    # a photo whose tiles (the finder's) are at the median `photo_from` alike the set's examples shows
    # the set (its own photos 0.65-0.94, other sets' 0.6 at the median); another set's photo is read
    # as without the set (a crop alike an example of another class there is more often wrong than right)
    photo_from: float = 0.64
    # in it a box counts the set's reading from a best similarity of `set_from` up to `set_at` (the
    # faces the classifier misreads look little like any example: a red 西 of set 7 is 0.69 alike its
    # own examples, 0.37 alike the 一萬 the classifier says)
    set_from: float = 0.5
    set_at: float = 0.7
    # a box the classifier or the set reads as a face with little drawn on it (PLAIN_FACES) is
    # alike most plain crops of other sets: its gate is stricter
    plain_from: float = 0.8
    plain_at: float = 0.95
    # a crop read both ways up (`both_ways_similarity`) where the set's reading may count (its best
    # similarity at most `both_ways_below` under the gate) and is unsure: the set names another class
    # than the classifier, or its best two classes are within `both_ways_margin`
    both_ways_margin: float = 0.1
    both_ways_below: float = 0.05
    # such a crop's ink view (the set's examples' too: vision.classifier.ink_view) names its class
    # with the colour crop where it tells the set's classes apart (best two this far apart) or tells
    # its best class from the colour's (this far apart: a red 東 nearer the set's red 中 in colour)
    ink_margin: float = 0.1
    ink_against: float = 0.15
    # a crop the set reads at full weight, its best class `both_ways_margin` clear of the next and
    # the one the classifier reads, to which the classifier gives the set's classes at least this
    # probability together (little to "no tile" and to classes the set lacks), is settled: the
    # classifier's extra views would not change its reading (`settled`)
    settled_mass: float = 0.9
    # a crop read in ink that the set reads otherwise than the classifier, whose ink view the set's
    # ink examples name as the classifier does, keeps the classifier's reading where that is at least
    # this sure of it: only the colour set them apart (another set's blue 南 alike this set's blue 发)
    ink_defers_from: float = 0.5


BLEND = Blend()
PLAIN_FACES = np.array([CLASSES.index("J3"), CLASSES.index("BACK")])  # the white dragon, a face-down tile
TILE_BELOW = 0.5  # a box the classifier gives a lower probability of holding no tile is a tile (model.json's not_a_tile_above)
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


def best_similarity(features: np.ndarray, rows: np.ndarray, boxes: int, examples: np.ndarray) -> np.ndarray:
    """Each box's best cosine similarity to the set's `examples` over its crops (`features` (R, D),
    `rows` the box of each): `apply_profile`'s best similarity, without the reading. (boxes,)"""
    best = np.full(boxes, -1.0, np.float32)
    np.maximum.at(best, rows, (embedding(features) @ examples.T).max(axis=1))
    return best


def both_ways_similarity(up: np.ndarray, down: np.ndarray, examples: np.ndarray, labels: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray] | None:
    """`class_similarity` of crops read both ways up: `up` (R, E) the crops' embeddings, `down` (R, E)
    those of the crops turned upside down, each pair of examples (a crop and the crop upside down,
    as vision.tileset.learn makes them) compared with the pair the same way up and the other
    (the mean of the two cosines; the better way counts). None when `examples` are not in such pairs
    of one class."""
    if len(labels) % 2 or (labels[0::2] != labels[1::2]).any() or (np.diff(labels[0::2]) < 0).any():
        return None
    both = np.concatenate([up, down]) @ examples.T  # one pass over the examples (strided halves cost a copy each)
    plain, turned = both[:len(up)], both[len(up):]
    sims = np.maximum(plain[:, 0::2] + turned[:, 1::2], plain[:, 1::2] + turned[:, 0::2]) / 2
    classes, starts = np.unique(labels[0::2], return_index=True)
    return classes, np.maximum.reduceat(sims, starts, axis=1)


def ink_similarity(sims: np.ndarray, inked: np.ndarray, ink: np.ndarray, labels: np.ndarray, margin: float,
                   against: float) -> tuple[np.ndarray, np.ndarray]:
    """`sims` (R, K: `class_similarity`'s of R crops) averaged with the ink views' (`inked`, R x D
    features; `ink`: the examples' ink views, as `labels`) where the ink view tells the set's classes
    apart (its best two at least `margin` apart) or its best class from the one `sims` name (at
    least `against` apart), but for the plain faces (PLAIN_FACES: a face-down tile of a light back
    is a blank face in ink), whose similarity stays `sims`'; and the class each ink view is most
    alike (R,)."""
    classes, inked_sims = class_similarity(embedding(inked), ink, labels)
    top = np.sort(inked_sims, axis=1)[:, -2:]
    colours = inked_sims[np.arange(len(sims)), sims.argmax(axis=1)]  # in ink, the class the colour names
    sure = ((top[:, 1] - top[:, 0] >= margin) | (top[:, 1] - colours >= against))[:, None]
    return (np.where(sure, (sims + np.where(np.isin(classes, PLAIN_FACES), sims, inked_sims)) / 2, sims),
            classes[inked_sims.argmax(axis=1)])


def settled(probs: np.ndarray, features: np.ndarray, examples: np.ndarray, labels: np.ndarray,
            blend: Blend = BLEND, photo_boxes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Which crops of a photo that shows the set (`probs` (N, 43 or 44), the classifier's of their
    plain crops; `features` (N, D)) the set reads surely as the classifier reads them: alike enough
    one of its examples for its reading to count whole (`_gates`), that example's class
    `both_ways_margin` clear of the next and the classifier's best, and the set's classes
    `settled_mass` of the classifier's reading.
    The blend reads such a crop as that class whatever the classifier's other views of it say (its
    share of the blend is too small), unless they made it a plain face (whose gate is stricter) or
    gave much to classes the set lacks, so they are not read (TileClassifier). A mask (N,), and the
    crops' similarities (N, K: `class_similarity`'s; `apply_profile`'s `known`)."""
    classes, sims = class_similarity(embedding(features), examples, labels)
    top = np.sort(sims, axis=1)[:, -2:]
    nearest, said = classes[sims.argmax(axis=1)], probs[:, :NOT_A_TILE].argmax(axis=1)
    if not _shows_set(top[:photo_boxes, 1], probs[:photo_boxes], blend):
        return np.zeros(len(probs), bool), sims
    _, full = _gates(blend, np.isin(nearest, PLAIN_FACES) | np.isin(said, PLAIN_FACES))
    held = probs[:, classes].sum(axis=1) >= blend.settled_mass
    return (top[:, 1] >= full) & (top[:, 1] - top[:, 0] >= blend.both_ways_margin) & (nearest == said) & held, sims


def apply_profile(probs: np.ndarray, features: np.ndarray, rows: np.ndarray, examples: np.ndarray,
                  labels: np.ndarray, blend: Blend = BLEND, other_views: OtherViews | None = None,
                  ink: np.ndarray | None = None, photo_boxes: int | None = None, known: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`probs` (N, 43 or 44) with the 43 classes blended with the set's reading, each box's best
    similarity to the set's examples (N,) and that example's class id (N,); `probs` as they are when
    the photo does not show the set (`_shows_set`). `features` (R, D): the classifier's features of
    crops of the boxes `rows` (R indices into probs; a box may have two, its crop both ways: the
    better counts), compared with a set's `examples` of classes `labels`
    (vision.tileset.profile.TilesetProfile). `other_views`: the features of those crops (indices
    into R) turned upside down and of their ink views, for the crops whose reading by the set may
    count and is unsure, in a photo that shows the set (`both_ways_similarity`, averaged with
    `ink_similarity` when the set has `ink`: its examples' ink views, as `examples`, a box whose ink
    view it names as the classifier is `ink_defers_from` sure of keeping the classifier's reading;
    the similarity and class returned stay the plain crop's). `photo_boxes`: whether the photo shows the set is
    told by the first so many boxes alone (the finder's tiles, not its weak boxes: the reading of a
    tile must not hang on how many weak boxes are named with it); None: by all. `known`: the
    similarities of the first rows, compared already (`settled`). The NOT_A_TILE column is left as
    it is."""
    up = embedding(features)
    classes, row_sims = class_similarity(up[0 if known is None else len(known):], examples, labels)
    if known is not None:
        row_sims = np.concatenate([known, row_sims])
    sims = _per_box(row_sims, rows, len(probs))
    best, nearest = sims.max(axis=1), classes[sims.argmax(axis=1)]
    said = probs[:, :NOT_A_TILE].argmax(axis=1)
    if not _shows_set(best[:photo_boxes], probs[:photo_boxes], blend):
        return probs.copy(), best, nearest
    reading = None  # the similarities the set's reading is made of, where not `row_sims`
    deferred = np.zeros(len(rows), bool)  # crops whose ink view names them as the classifier does
    if other_views is not None and len(classes) > 1:
        start, _ = _gates(blend, np.isin(nearest, PLAIN_FACES) | np.isin(said, PLAIN_FACES))
        top = np.sort(row_sims, axis=1)[:, -2:]
        unsure = (classes[row_sims.argmax(axis=1)] != said[rows]) | (top[:, 1] - top[:, 0] < blend.both_ways_margin)
        pick = np.flatnonzero(unsure & (top[:, 1] >= start[rows] - blend.both_ways_below))
        if len(pick):
            turned, inked = other_views(pick, ink is not None)
            both = both_ways_similarity(up[pick], embedding(turned), examples, labels)
            if both is not None and np.array_equal(both[0], classes):
                row_sims = row_sims.copy()
                row_sims[pick] = both[1]
                if inked is not None and ink is not None:  # the ink views name the class, the gates stay
                    reading = row_sims.copy()
                    reading[pick], inked_as = ink_similarity(both[1], inked, ink, labels, blend.ink_margin,
                                                             blend.ink_against)
                    said_as = said[rows[pick]]
                    colour_as = classes[both[1].argmax(axis=1)]
                    sure_of = probs[rows[pick], said_as] >= blend.ink_defers_from
                    deferred[pick] = sure_of & (inked_as == said_as) & (colour_as != said_as)
    sims = _per_box(row_sims, rows, len(probs))
    logits = (sims if reading is None else _per_box(reading, rows, len(probs))) / blend.temperature
    own = np.exp(logits - logits.max(axis=1, keepdims=True))
    own /= own.sum(axis=1, keepdims=True)
    start, full = _gates(blend, np.isin(classes[sims.argmax(axis=1)], PLAIN_FACES) | np.isin(said, PLAIN_FACES))
    likeness = np.clip((sims.max(axis=1) - start) / (full - start), 0, 1)
    deferred_box = np.zeros(len(probs), bool)
    np.logical_or.at(deferred_box, rows, deferred)
    weight = (blend.weight * likeness * ~deferred_box)[:, None]
    out = probs.copy()
    mass = probs[:, classes].sum(axis=1, keepdims=True)
    out[:, classes] = (1 - weight) * probs[:, classes] + weight * mass * own
    assert classes.max() < NOT_A_TILE  # the set's examples are tiles: the 44th column stays
    return out, best, nearest


def _shows_set(best: np.ndarray, probs: np.ndarray, blend: Blend) -> bool:
    """Whether the photo shows the set: the boxes the classifier reads as tiles (NOT_A_TILE under
    TILE_BELOW; the finder's weak boxes, many of them on no tile, are in `probs` too) are at the
    median `photo_from` alike the set's examples."""
    tiles = best if probs.shape[1] <= NOT_A_TILE else best[probs[:, NOT_A_TILE] < TILE_BELOW]
    return len(tiles) > 0 and float(np.median(tiles)) >= blend.photo_from


def _per_box(row_sims: np.ndarray, rows: np.ndarray, boxes: int) -> np.ndarray:
    """(boxes, K): each box's similarities, the better of its crops' (`rows`: the box of each)."""
    sims = np.full((boxes, row_sims.shape[1]), -1.0, np.float32)
    np.maximum.at(sims, rows, row_sims)
    return sims


def _gates(blend: Blend, plain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The best similarity from which each box's set reading counts, and from which it counts whole."""
    return np.where(plain, blend.plain_from, blend.set_from), np.where(plain, blend.plain_at, blend.set_at)
