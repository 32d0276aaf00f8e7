"""Reading with a tile-set profile (vision.tileset.apply) on made-up embeddings: a photo that shows
the set lets its less alike boxes count the set's reading, a photo of another set is read as without
the set; in a photo of the set, a crop the set reads unsure is read both ways up, and only such
crops are, and its ink view names the class where it tells the set's classes apart or its best
class from the colour's, but where it names the class a sure classifier reads (only the colour set them
apart); a crop the set reads surely as the classifier does is settled: no other reading of the
classifier changes what the blend reads."""
from __future__ import annotations

import dataclasses

import numpy as np

from vision.classifier import ink_view
from vision.tileset.apply import BLEND, PLAIN_FACES, apply_profile, both_ways_similarity, settled

DIM = 16
UPRIGHT = np.eye(DIM, dtype=np.float32)[:3]    # W1, W2, W3 (class ids 0, 1, 2) upright
UPSIDE = np.eye(DIM, dtype=np.float32)[3:6]    # the same tiles upside down
ELSEWHERE = np.eye(DIM, dtype=np.float32)[10]  # like no example
# each class's examples: a crop and the crop upside down (as vision.tileset.learn makes them)
EXAMPLES = np.stack([UPRIGHT, UPSIDE], axis=1).reshape(-1, DIM)
LABELS = np.repeat(np.arange(3), 2)


def _alike(vector: np.ndarray, cosine: float) -> np.ndarray:
    """A unit vector at `cosine` to the unit `vector` (the rest towards ELSEWHERE)."""
    return cosine * vector + np.sqrt(1 - cosine ** 2) * ELSEWHERE


def _probs(reading: list[int], sure: float = 0.95) -> np.ndarray:
    p = np.full((len(reading), 44), (1 - sure) / 43, np.float32)
    p[np.arange(len(reading)), reading] = sure
    return p


def test_a_photo_that_shows_the_set_lets_its_less_alike_boxes_count():
    # box 0: the classifier is sure of W1, but the crop is 0.66 alike the set's W2 and alike no W1
    doubtful = _alike(UPRIGHT[1], 0.66)
    of_the_set = [_alike(UPRIGHT[k % 3], 0.85) for k in range(4)]  # the photo's other tiles
    of_another = [_alike(UPRIGHT[k % 3], 0.3) for k in range(4)]
    # the finder's weak boxes on no tile (the classifier says so) do not count against the photo
    on_no_tile = [_alike(UPRIGHT[0], 0.1)] * 6
    reading = [0, 0, 1, 2, 0] + [0] * 6
    probs = _probs(reading)
    probs[5:] = 0.1 / 43
    probs[5:, 43] = 0.9
    for others, expected in ((of_the_set, 1), (of_another, 0)):
        features = np.stack([doubtful, *others, *on_no_tile])
        out, best, nearest = apply_profile(probs, features, np.arange(11), EXAMPLES, LABELS)
        assert out[0, :43].argmax() == expected
        assert np.isclose(best[0], 0.66, atol=1e-5) and nearest[0] == 1
        assert np.allclose(out.sum(axis=1), 1, atol=1e-5)


def test_a_photo_of_another_set_keeps_the_classifiers_reading():
    # box 0: the classifier reads W1 at 0.6, the crop is 0.75 alike the set's W2 (another set's 一萬
    # drawn like this set's 二萬); the photo's other tiles are 0.55 alike the set's: not the set
    lookalike = _alike(UPRIGHT[1], 0.75)
    features = np.stack([lookalike, *[_alike(UPRIGHT[k % 3], 0.55) for k in range(4)]])
    probs = _probs([0, 0, 1, 2, 0], sure=0.6)
    out, best, nearest = apply_profile(probs, features, np.arange(5), EXAMPLES, LABELS)
    assert np.array_equal(out, probs)
    assert np.isclose(best[0], 0.75, atol=1e-5) and nearest[0] == 1  # the rescue still reads the likeness
    mask, _ = settled(probs, features, EXAMPLES, LABELS)
    assert not mask.any()


def test_only_the_finders_tiles_say_whether_the_photo_shows_the_set():
    # the same five tiles with six weak boxes the classifier reads as tiles, unlike the set: named
    # with them, box 0 must be read as it is named alone (the weak floor must not change a tile)
    doubtful = _alike(UPRIGHT[1], 0.66)
    tiles = [doubtful, *[_alike(UPRIGHT[k % 3], 0.85) for k in range(4)]]
    weak = [_alike(UPRIGHT[0], 0.2)] * 6
    probs = _probs([0, 0, 1, 2, 0] + [0] * 6)
    alone, _, _ = apply_profile(probs[:5], np.stack(tiles), np.arange(5), EXAMPLES, LABELS)
    assert alone[0, :43].argmax() == 1
    features = np.stack([*tiles, *weak])
    with_weak, _, _ = apply_profile(probs, features, np.arange(11), EXAMPLES, LABELS, photo_boxes=5)
    assert np.allclose(with_weak[:5], alone)
    every_box, _, _ = apply_profile(probs, features, np.arange(11), EXAMPLES, LABELS)
    assert every_box[0, :43].argmax() == 0  # the weak boxes' median says another set


def test_an_unsure_crop_is_read_both_ways_up():
    # box 0 upright is about as alike W1 as W2; upside down it is W2's crop upside down
    unsure = 0.75 * UPRIGHT[0] + 0.66 * UPRIGHT[1]
    unsure /= np.linalg.norm(unsure)
    sure = [_alike(UPRIGHT[k % 3], 0.9) for k in range(1, 4)]  # read as the classifier reads them
    features = np.stack([unsure, *sure])
    turned = {0: UPSIDE[1], 1: UPSIDE[1], 2: UPSIDE[2], 3: UPSIDE[0]}
    asked: list[list[int]] = []

    def upside_down(picked: np.ndarray, ink: bool) -> tuple[np.ndarray, None]:
        asked.append(picked.tolist())
        return np.stack([turned[int(i)] for i in picked]), None

    probs = _probs([0, 1, 2, 0], sure=0.6)
    plain, _, _ = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS)
    both, best, nearest = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS, other_views=upside_down)
    assert plain[0, :43].argmax() == 0 and both[0, :43].argmax() == 1
    assert asked == [[0]]  # the sure crops the set reads as the classifier does are not read again
    assert nearest[0] == 0 and np.isclose(best[0], unsure @ UPRIGHT[0])  # the plain crop's, as the finder's rescue reads it
    assert np.array_equal(both[1:], plain[1:])


def test_a_photo_of_another_set_is_not_read_both_ways_up():
    # the same unsure crop among tiles of another set (0.3 alike the set's): the photo does not
    # show the set, its set reading counts little, and no crop is run again turned
    unsure = 0.75 * UPRIGHT[0] + 0.66 * UPRIGHT[1]
    unsure /= np.linalg.norm(unsure)
    features = np.stack([unsure, *[_alike(UPRIGHT[k % 3], 0.3) for k in range(1, 6)]])
    asked: list[list[int]] = []

    def upside_down(picked: np.ndarray, ink: bool) -> tuple[np.ndarray, None]:
        asked.append(picked.tolist())
        return np.stack([UPSIDE[1]] * len(picked)), None

    probs = _probs([0, 1, 2, 0, 1, 2], sure=0.6)
    plain, _, _ = apply_profile(probs, features, np.arange(6), EXAMPLES, LABELS)
    both, _, _ = apply_profile(probs, features, np.arange(6), EXAMPLES, LABELS, other_views=upside_down)
    assert asked == [] and np.array_equal(both, plain)


def test_both_ways_takes_the_better_way_and_refuses_examples_not_in_pairs():
    up, down = UPRIGHT[[2]], UPSIDE[[2]]
    classes, sims = both_ways_similarity(up, down, EXAMPLES, LABELS)
    assert list(classes) == [0, 1, 2] and np.allclose(sims, [[0, 0, 1]])
    _, turned = both_ways_similarity(down, up, EXAMPLES, LABELS)  # the crop lies the other way up
    assert np.allclose(turned, [[0, 0, 1]])
    assert both_ways_similarity(up, down, EXAMPLES[:5], LABELS[:5]) is None
    assert both_ways_similarity(up, down, EXAMPLES, np.array([0, 1, 1, 0, 2, 2])) is None


def test_an_unsure_crop_is_named_by_its_ink_view_where_that_tells_the_classes_apart():
    # box 0 is as alike the set's W1 as its W2 in colour, both ways up; its ink view is W2's ink
    # view (INK: the examples' ink views, W1 / W2 / W3 drawn apart in ink as in colour)
    unsure = 0.75 * UPRIGHT[0] + 0.66 * UPRIGHT[1]
    unsure /= np.linalg.norm(unsure)
    turned_unsure = 0.75 * UPSIDE[0] + 0.66 * UPSIDE[1]
    turned_unsure /= np.linalg.norm(turned_unsure)
    ink = np.roll(EXAMPLES, 6, axis=1)  # the same pairs, in other dimensions
    features = np.stack([unsure, *[_alike(UPRIGHT[k % 3], 0.9) for k in range(1, 4)]])
    probs = _probs([0, 1, 2, 0], sure=0.6)

    def views(ink_view_of_box_0: np.ndarray):
        def other_views(picked: np.ndarray, with_ink: bool) -> tuple[np.ndarray, np.ndarray | None]:
            assert picked.tolist() == [0]
            return turned_unsure[None], ink_view_of_box_0[None] if with_ink else None
        return other_views

    colour, best, _ = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS, other_views=views(ink[2]))
    assert colour[0, :43].argmax() == 0  # without the set's ink views the classifier's W1 stays
    read, ink_best, _ = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS, other_views=views(ink[2]), ink=ink)
    assert read[0, :43].argmax() == 1 and np.array_equal(ink_best, best)  # the gates stay the colour crop's
    vague = (ink[0] + ink[2]) / np.linalg.norm(ink[0] + ink[2])  # as alike W1 as W2 in ink: it does not count
    unsure_ink, _, _ = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS, other_views=views(vague), ink=ink)
    assert np.array_equal(unsure_ink, colour)


def test_an_ink_view_far_from_the_colour_reading_names_the_class():
    # box 0 is a little more alike the set's W1 than its W2 in colour; its ink view is alike W2 and
    # W3 (too near each other to tell them apart) and not at all alike W1: a red 東 nearer the red 中
    unsure = 0.75 * UPRIGHT[0] + 0.66 * UPRIGHT[1]
    unsure /= np.linalg.norm(unsure)
    turned_unsure = 0.75 * UPSIDE[0] + 0.66 * UPSIDE[1]
    turned_unsure /= np.linalg.norm(turned_unsure)
    ink = np.roll(EXAMPLES, 6, axis=1)
    inked = 0.7 * ink[2] + 0.64 * ink[4]
    inked /= np.linalg.norm(inked)
    features = np.stack([unsure, *[_alike(UPRIGHT[k % 3], 0.9) for k in range(1, 4)]])
    probs = _probs([0, 1, 2, 0], sure=0.6)

    def other_views(picked: np.ndarray, with_ink: bool) -> tuple[np.ndarray, np.ndarray | None]:
        return turned_unsure[None], inked[None] if with_ink else None

    read, _, _ = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS, other_views=other_views, ink=ink)
    assert read[0, :43].argmax() == 1
    only_apart = dataclasses.replace(BLEND, ink_against=1.0)  # the ink view counts only where its best two are apart
    kept, _, _ = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS, only_apart, other_views, ink)
    assert kept[0, :43].argmax() == 0


def test_a_crop_whose_ink_view_the_set_names_as_the_sure_classifier_keeps_its_reading():
    # box 0 is 0.7 alike the set's W2 in colour and alike no W1; its ink view is a little more alike
    # W1's ink than W2's: another set's face drawn in this set's colour for W2 (a blue 南, this set's
    # blue 发). Averaged with the colour, the set would read W2; the ink names what the classifier says
    doubtful, turned = _alike(UPRIGHT[1], 0.7), _alike(UPSIDE[1], 0.7)
    ink = np.roll(EXAMPLES, 6, axis=1)  # the examples' ink views, in other dimensions
    inked = 0.6 * ink[0] + 0.5 * ink[2] + np.sqrt(1 - 0.61) * np.eye(DIM, dtype=np.float32)[15]
    features = np.stack([doubtful, *[_alike(UPRIGHT[k % 3], 0.9) for k in range(1, 4)]])

    def other_views(picked: np.ndarray, with_ink: bool) -> tuple[np.ndarray, np.ndarray | None]:
        assert picked.tolist() == [0]
        return turned[None], inked[None] if with_ink else None

    def read(sure: float, with_ink: bool = True) -> int:
        probs = _probs([0, 1, 2, 0], sure=sure)
        out, _, _ = apply_profile(probs, features, np.arange(4), EXAMPLES, LABELS, other_views=other_views,
                                  ink=ink if with_ink else None)
        return int(out[0, :43].argmax())

    assert read(0.9) == 0  # the classifier sure of W1 (BLEND.ink_defers_from 0.5), the ink agreeing
    assert read(0.3) == 1  # the classifier unsure: the set's W2 counts
    assert read(0.9, with_ink=False) == 1  # a set without ink views: the colour reading counts


def test_the_ink_view_draws_ink_of_any_colour_dark():
    face = np.full((1, 3, 4, 4), 0.9, np.float32)
    red, black = face.copy(), face.copy()
    red[0, :, 1:3, 1:3] = np.array([0.8, 0.1, 0.1])[:, None, None]
    black[0, :, 1:3, 1:3] = 0.1
    assert np.array_equal(ink_view(red), ink_view(black)) and ink_view(red).shape == red.shape


def test_a_crop_the_set_reads_surely_as_the_classifier_is_settled():
    tiles = [_alike(UPRIGHT[k % 3], 0.85) for k in range(4)]  # the photo's tiles: it shows the set
    crops = [
        _alike(UPRIGHT[1], 0.85),  # W2 surely, and the classifier reads W2: settled
        _alike(UPRIGHT[1], 0.85),  # ... but the classifier reads W1
        _alike(UPRIGHT[1], 0.66),  # W2, too little alike to count whole (set_at 0.7)
        _alike(UPRIGHT[1], 0.85),  # W2, but the classifier doubts it is a tile
        (0.8 * UPRIGHT[1] + 0.75 * UPRIGHT[2] + 0.1 * ELSEWHERE) / np.linalg.norm([0.8, 0.75, 0.1]),  # W2 or W3
        _alike(UPRIGHT[1], 0.85),  # W2, but the classifier gives classes the set lacks 0.2
    ]
    probs = _probs([0, 1, 2, 0, 1, 0, 1, 1, 1, 1])
    probs[7] = 0
    probs[7, [1, 43]] = [0.7, 0.3]
    probs[9] = 0.2 / 41
    probs[9, :3] = [0, 0.8, 0]
    mask, sims = settled(probs, np.stack([*tiles, *crops]), EXAMPLES, LABELS, photo_boxes=4)
    assert mask.tolist() == [True] * 4 + [True, False, False, False, False, False]
    assert np.allclose(sims.max(axis=1)[4:7], [0.85, 0.85, 0.66], atol=1e-5)


def test_whatever_the_other_views_say_a_settled_crop_reads_the_sets_class():
    # a set that holds every class: the classifier's share of the blend cannot outweigh the set's
    # (but where the views made it a plain face, whose gate is stricter: they do not in practice)
    dim = 90
    up, down, elsewhere = np.eye(dim, dtype=np.float32)[:43], np.eye(dim, dtype=np.float32)[43:86], np.eye(dim)[89]
    examples, labels = np.stack([up, down], axis=1).reshape(-1, dim), np.repeat(np.arange(43), 2)
    features = np.stack([0.8 * up[k] + 0.6 * elsewhere for k in (0, 1, 2, 3, 5)]).astype(np.float32)
    probs = np.full((5, 44), 0.35 / 42, np.float32)
    probs[np.arange(5), [0, 1, 2, 3, 5]] = 0.6
    probs[:, 43] = 0.05  # a tile: the set's classes 0.95 of the reading
    mask, _ = settled(probs, features, examples, labels, photo_boxes=4)
    assert mask[4]
    rng = np.random.default_rng(0)
    for _ in range(200):
        other = probs.copy()
        not_tile = rng.uniform(0, 0.45, len(other))
        other[:, 43] = not_tile
        other[:, :43] = rng.dirichlet(np.full(43, 0.1), size=len(other)) * (1 - not_tile)[:, None]
        other[:, PLAIN_FACES] = 0
        out, _, _ = apply_profile(other, features, np.arange(5), examples, labels, photo_boxes=4)
        assert out[4, :43].argmax() == 5
