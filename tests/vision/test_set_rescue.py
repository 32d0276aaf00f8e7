"""Weak finder boxes a tile set vouches for become tiles (vision.set_rescue, Detector.detect with a
profile): the rule on small arrays, and a blank white dragon the finder hardly finds, read from a
synthetic scene of an altered set whose finder scores for it are pushed under the threshold."""
from __future__ import annotations

import numpy as np
import pytest

from vision.classes import CLASSES, NOT_A_TILE
from vision.set_rescue import (
    DOUBTED_FIND,
    FIRM_FIND,
    FIRM_NOT_TILE,
    FIRM_READ,
    FIRM_SIMILAR,
    PHOTO_OF_SET,
    RESCUE_FLOOR,
    RESCUE_SIMILAR,
    beside_a_tile,
    rescued,
)

J3, BACK, W1 = CLASSES.index("J3"), CLASSES.index("BACK"), CLASSES.index("W1")
ROW = np.array([[0, 0, 30, 40], [31, 0, 61, 40], [62, 1, 92, 41]], np.float32)  # three tiles side by side
SET_PHOTO = np.array([PHOTO_OF_SET, 0.9, 0.8])  # the row's tiles' similarity to the set: a photo of it
NOT_A_TILE_ABOVE = 0.5  # the shipped classifier's (models/model.json)


def reading(read_tile, share: float = 0.9, not_tile=0.0) -> np.ndarray:
    """Probabilities (N, 44) reading each box as `read_tile` with `share` of the 43 classes' mass,
    and "not a tile" `not_tile`."""
    read_tile = np.atleast_1d(read_tile)
    probs = np.zeros((len(read_tile), NOT_A_TILE + 1), np.float32)
    probs[:, :NOT_A_TILE] = (1 - share) / (NOT_A_TILE - 1)
    probs[np.arange(len(read_tile)), read_tile] = share
    probs[:, :NOT_A_TILE] *= (1 - np.broadcast_to(np.asarray(not_tile, np.float32), len(read_tile)))[:, None]
    probs[:, NOT_A_TILE] = not_tile
    return probs


def test_a_box_beside_a_tile_of_a_row_is_in_the_row():
    assert beside_a_tile(np.array([93, 0, 123, 40], np.float32), ROW)       # next along the row
    assert beside_a_tile(np.array([-33, 2, -3, 42], np.float32), ROW)       # before its first tile
    assert beside_a_tile(np.array([110, 0, 140, 40], np.float32), ROW)      # set apart (a winning tile)
    assert not beside_a_tile(np.array([160, 0, 190, 40], np.float32), ROW)  # two tiles' width away
    assert not beside_a_tile(np.array([0, 60, 30, 100], np.float32), ROW)   # below the row
    assert not beside_a_tile(np.array([93, 10, 113, 30], np.float32), ROW)  # half the height
    assert not beside_a_tile(np.array([93, 0, 123, 40], np.float32), np.zeros((0, 4), np.float32))


def test_only_boxes_the_set_recognises_as_what_they_are_read_are_rescued():
    boxes = np.array([[93, 0, 123, 40]] * 5 + [[300, 200, 330, 240], [400, 300, 430, 340]], np.float32)
    find = np.array([0.1, 0.1, 0.1, RESCUE_FLOOR / 2, 0.1, 0.1, 0.1], np.float32)
    similarity = np.array([0.9, RESCUE_SIMILAR - 0.01, 0.9, 0.9, 0.9, 0.9, 0.9], np.float32)
    set_tile = np.array([W1, W1, W1, W1, J3, W1, BACK])
    read_tile = np.array([W1, W1, J3, W1, J3, W1, BACK])
    kept = rescued(boxes, find, similarity, set_tile, reading(read_tile), ROW, SET_PHOTO)
    # alike and agreeing: kept; too unlike, read otherwise, too weak: not; a plain face beside the
    # row: kept; a face with a drawing away from the row: kept; a plain face away from it: not
    assert kept.tolist() == [True, False, False, False, True, True, False]
    # a box across two found tiles (half a tile along the row) is none
    across = np.array([[15, 0, 45, 40]], np.float32)
    assert not rescued(across, find[:1], similarity[:1], set_tile[:1], reading(read_tile[:1]), ROW, SET_PHOTO).any()
    # a photo whose tiles are unlike the set's shows another set: nothing is kept
    assert not rescued(boxes, find, similarity, set_tile, reading(read_tile), ROW, SET_PHOTO - 0.1).any()


def test_plain_faces_side_by_side_are_kept_along_the_row():
    # three blank dragons after the row, each beside the one before: all kept, in any order
    pung = np.array([[155, 0, 185, 40], [93, 0, 123, 40], [124, 0, 154, 40]], np.float32)
    ones = np.ones(3, np.float32)
    assert rescued(pung, ones / 10, ones * 0.9, np.full(3, J3), reading(np.full(3, J3)), ROW, SET_PHOTO).all()
    assert not rescued(pung[:1], ones[:1] / 10, ones[:1] * 0.9, np.full(1, J3), reading(np.full(1, J3)), ROW,
                       SET_PHOTO).any()


def test_a_firm_face_down_tile_in_a_row_is_kept_though_the_set_or_the_classifier_doubts_it():
    """A face-down tile beside the row the finder is fairly sure of and the classifier reads firmly
    as a back: kept though the set's examples are less alike than RESCUE_SIMILAR (set 7's back in
    another light), or though the classifier narrowly calls it no tile when the finder is surer (set
    8's yellow back, alike the table to it); not when the finder or the classifier's reading is
    unsure (a patch of table between two melds), the classifier is surer it is no tile, or it lies
    away from a row."""
    after = np.array([93, 0, 123, 40], np.float32)
    cases = [  # finder, similarity, share read BACK, not a tile, where -> kept
        (0.34, 0.63, 0.93, 0.02, after, True),                            # the set less alike
        (FIRM_FIND, 0.63, 0.93, 0.02, after, True),
        (0.25, 0.74, 0.87, 0.57, after, True),                            # no tile, narrowly
        (DOUBTED_FIND - 0.01, 0.71, 0.90, 0.57, after, False),            # ... the finder not sure enough
        (FIRM_FIND - 0.01, 0.63, 0.93, 0.02, after, False),               # the finder unsure
        (0.66, 0.77, FIRM_READ - 0.3, 0.58, after, False),                # the reading unsure
        (0.34, FIRM_SIMILAR - 0.01, 0.93, 0.02, after, False),            # unlike the set
        (0.76, 0.82, 0.87, FIRM_NOT_TILE + 0.01, after, False),           # surer it is no tile
        (0.34, 0.63, 0.93, 0.02, after + [0, 100, 0, 100], False),        # away from the row
    ]
    for find, similarity, share, not_tile, box, kept in cases:
        assert rescued(box[None], np.array([find]), np.array([similarity]), np.array([BACK]),
                       reading(BACK, share, not_tile), ROW, SET_PHOTO, NOT_A_TILE_ABOVE).tolist() == [kept], (find, similarity)


def test_a_firm_face_with_a_drawing_needs_the_set_less_alike_but_no_doubt():
    """A face the finder is fairly sure of and the classifier reads firmly as the set's class is
    kept the set's examples FIRM_SIMILAR alike, away from any row (set 8's 四条 alone, finder 0.19,
    0.66 alike); not the same face the classifier calls no tile however alike."""
    alone = np.array([[300, 200, 330, 240]], np.float32)
    for find, similarity, share, not_tile, kept in [(0.19, 0.66, 0.97, 0.0, True), (0.19, 0.66, FIRM_READ - 0.1, 0.0, False),
                                                   (0.19, FIRM_SIMILAR - 0.01, 0.97, 0.0, False),
                                                   (0.7, 0.9, 0.95, 0.55, False)]:
        assert rescued(alone, np.array([find]), np.array([similarity]), np.array([W1]), reading(W1, share, not_tile),
                       ROW, SET_PHOTO, NOT_A_TILE_ABOVE).tolist() == [kept], (find, similarity, share, not_tile)
    assert rescued(alone[:0], np.zeros(0), np.zeros(0), np.zeros(0, np.int64), reading(np.zeros(0, np.int64)), ROW,
                   SET_PHOTO, NOT_A_TILE_ABOVE).tolist() == []


def test_boxes_the_classifier_narrowly_calls_no_tile_wait_for_the_rescue_after_the_others():
    from vision.detector import _chosen
    from vision.set_rescue import FIRM_NOT_TILE

    # the finder's first 4 at its threshold, the last of them (x 200) narrowly no tile to the
    # classifier; then a weak tile, a weak box on it the classifier narrowly calls no tile, and one surer no tile
    boxes = np.concatenate([ROW, [[200, 0, 230, 40], [93, 0, 123, 40], [94, 0, 124, 40], [300, 0, 330, 40]]])
    find = np.array([0.9, 0.9, 0.9, 0.8, 0.2, 0.3, 0.3], np.float32)
    raw = reading(np.array([W1, W1, W1, BACK, BACK, BACK, BACK]), 0.9, np.array([0, 0, 0, 0.55, 0.2, 0.55, 0.7]))
    kept, weak = _chosen(boxes, find, raw, 4, NOT_A_TILE_ABOVE)
    assert kept.tolist() == [0, 1, 2] and weak == [4]
    # with the doubted (under FIRM_NOT_TILE): the finder's tile, after the weak one, and not the box
    # on the weak one's tile though the finder scored it higher
    kept, weak = _chosen(boxes, find, raw, 4, NOT_A_TILE_ABOVE, doubted_above=FIRM_NOT_TILE)
    assert kept.tolist() == [0, 1, 2] and weak == [4, 3]


def _detector():
    from vision.detector import get_detector
    from vision.model_spec import ModelNotFoundError

    try:
        return get_detector()
    except ModelNotFoundError:
        pytest.skip("no trained model in models/ yet")


@pytest.fixture(scope="module")
def altered_set():
    """Set 7 altered (its white dragon blank), a profile learnt from its layout photo, and a scene
    of it holding white dragons."""
    synth = pytest.importorskip("datasets.synth.generate")
    import cv2

    from vision.tileset.learn import learn_layout

    def jpeg(example: dict) -> bytes:
        return cv2.imencode(".jpg", cv2.cvtColor(example["image"], cv2.COLOR_RGB2BGR))[1].tobytes()

    layout = synth.make_example(910000, 0, [1280], None, synth.OneSet(7, True, 43))
    profile, _ = learn_layout(_detector(), jpeg(layout), "altered7")
    scene = synth.make_example(920000, SCENE, [1280], None, synth.OneSet(7, True))
    return profile, jpeg(scene), scene["record"]


SCENE = 29  # a scene of set 7 altered with two blank white dragons, read right with the profile


def _finder_hard(detector, monkeypatch, boxes: np.ndarray, factor: float = 0.1) -> None:
    """The finder scores boxes on `boxes` `factor` of what it would: a face it hardly finds (0: none)."""
    from vision.boxes import iou_matrix
    from vision.finder import FoundTiles

    real_find = detector.finder.find

    def find(rgb, floor, closer=False, upside_down=False):
        found = real_find(rgb, floor, closer, upside_down)
        weak = found.weak if found.weak is not None else (np.zeros((0, 4), np.float32), np.zeros(0, np.float32))
        every, scores = np.concatenate([found.tiles[0], weak[0]]), np.concatenate([found.tiles[1], weak[1]])
        on = (iou_matrix(every, boxes) >= 0.5).any(axis=1) if len(every) else np.zeros(0, bool)
        scores = np.where(on, scores * factor, scores).astype(np.float32)
        tiles = scores >= detector.finder.conf
        under = ~tiles & (scores >= (floor if floor is not None else np.inf)) & (scores > 0)
        return FoundTiles((every[tiles], scores[tiles]), None if floor is None else (every[under], scores[under]),
                          found.closer_differs)

    monkeypatch.setattr(detector.finder, "find", find)


def test_a_blank_dragon_the_finder_hardly_finds_is_a_tile_with_the_set(altered_set, monkeypatch):
    from vision.photo import read_photo

    profile, data, record = altered_set
    detector = _detector()
    photo = read_photo(data)
    truth = sorted(b["tile"] for b in record["boxes"] if not b.get("ignore"))
    dragons = np.array([b["box"] for b in record["boxes"] if b["tile"] == "J3"], np.float32)
    assert len(dragons) == 2 and photo.image.shape[:2] == record_shape(record)
    assert sorted(d["tile"] for d in detector.detect(photo.image, photo=photo, tileset=profile).tiles) == truth
    _finder_hard(detector, monkeypatch, dragons)
    without = [d["tile"] for d in detector.detect(photo.image, photo=photo).tiles]
    assert "J3" not in without  # the finder alone leaves them out ...
    found = detector.detect(photo.image, photo=photo, tileset=profile, weak_floor=0.01)
    assert sorted(d["tile"] for d in found.tiles) == truth  # ... the set's profile brings them back
    assert all(d["score"] < detector.finder.conf for d in found.tiles if d["tile"] == "J3")  # still marked weak
    assert not any(d["tile"] == "J3" for d in found.weak)


def test_a_blank_dragon_the_finder_gives_no_box_is_found_beside_its_row(altered_set, monkeypatch):
    import dataclasses

    from vision.boxes import iou_matrix
    from vision.photo import read_photo
    from vision.set_search import SEARCH_SCORE

    profile, data, record = altered_set
    # a set whose blank dragons the finder misses: its layout photo said so (TilesetProfile.searched)
    profile = dataclasses.replace(profile, sources=[{**profile.sources[0], "missed": ["J3"]}])
    detector = _detector()
    photo = read_photo(data)
    truth = sorted(b["tile"] for b in record["boxes"] if not b.get("ignore"))
    dragons = np.array([b["box"] for b in record["boxes"] if b["tile"] == "J3"], np.float32)
    _finder_hard(detector, monkeypatch, dragons, factor=0.0)  # no box on them at all, weak or not
    found = detector.detect(photo.image, photo=photo, tileset=profile, weak_floor=0.01)
    weak = np.array([d["box"] for d in found.weak], np.float32).reshape(-1, 4)
    assert not len(weak) or (iou_matrix(dragons, weak) < 0.5).all()
    assert "J3" not in [d["tile"] for d in detector.detect(photo.image, photo=photo).tiles]
    assert sorted(d["tile"] for d in found.tiles) == truth  # the two blank dragons, found beside their row
    boxes = np.array([d["box"] for d in found.tiles if d["tile"] == "J3"], np.float32)
    assert (iou_matrix(dragons, boxes).max(axis=1) >= 0.5).all()
    assert all(d["score"] <= SEARCH_SCORE for d in found.tiles if d["tile"] == "J3")  # marked weak


def test_a_blank_dragon_the_rescue_turns_down_is_still_looked_for_beside_its_row(monkeypatch):
    # a set learnt from a layout whose blank dragon the finder missed; in a scene it hardly finds it (a
    # weak box, x0.1, that the rescue turns down): the search still looks at its place beside the row
    import cv2

    from training.finder_hard import FinderHardOn, true_shares
    from vision.boxes import iou_matrix
    from vision.photo import read_photo
    from vision.tileset.learn import learn_layout

    synth = pytest.importorskip("datasets.synth.generate")
    detector = _detector()
    layout = synth.make_example(910000, 0, [1280], None, synth.OneSet(7, True, 43))
    hard = FinderHardOn(detector.finder, 0.0)  # the layout learnt with the finder blind to the blank dragon
    hard.look_at(true_shares(layout["record"], "J3"))
    try:
        profile, _ = learn_layout(detector, cv2.imencode(".jpg", cv2.cvtColor(layout["image"], cv2.COLOR_RGB2BGR))[1].tobytes(), "b")
    finally:
        del detector.finder.find
    assert profile.searched
    example = synth.make_example(920000, 187, [1280], None, synth.OneSet(7, True))
    photo = read_photo(cv2.imencode(".jpg", cv2.cvtColor(example["image"], cv2.COLOR_RGB2BGR))[1].tobytes())
    dragons = np.array([b["box"] for b in example["record"]["boxes"] if b["tile"] == "J3"], np.float32)
    _finder_hard(detector, monkeypatch, dragons, factor=0.1)
    found = detector.detect(photo.image, photo=photo, tileset=profile)
    boxes = np.array([d["box"] for d in found.tiles if d["tile"] == "J3"], np.float32).reshape(-1, 4)
    assert len(dragons) and len(boxes) and (iou_matrix(dragons, boxes).max(axis=1) >= 0.5).all()


def record_shape(record: dict) -> tuple[int, int]:
    return record["height"], record["width"]


def test_the_quick_likeness_is_never_under_the_full_reading_s(altered_set):
    """The stage-2 boxes are named in full only when their quick likeness (one plain run) reaches a
    rule's least similarity: exact only while it is at least what the full reading gives."""
    from vision.photo import read_photo

    profile, data, _ = altered_set
    detector = _detector()
    photo = read_photo(data)
    tiles = np.array([d["box"] for d in detector.detect(photo.image, photo=photo).tiles], np.float32)
    # the tiles, the tiles moved a third along (unsure crops: the full reading adds views) and
    # near-square boxes (read both ways when unsure)
    boxes = np.concatenate([tiles, tiles + [20, 0, 20, 0], tiles * [1, 1, 1, 0] + (tiles[:, [0, 0, 0, 1]]
                            + (tiles[:, 2:3] - tiles[:, 0:1]) * [0, 0, 0, 1])]).astype(np.float32)
    quick, plain = detector._set_likeness(photo.image, boxes, profile)
    probs, match = detector._named_as_set(photo.image, boxes, profile)
    full = match.similarity
    assert (quick >= full - 1e-5).all()
    assert (np.abs(quick - full) < 1e-5).mean() > 0.5  # the same crops mostly: the same figure
    # the full reading takes the plain crops the quick run read: the same reading
    again, again_match = detector._named_as_set(photo.image, boxes, profile, plain=plain)
    np.testing.assert_allclose(again, probs, atol=1e-5)
    np.testing.assert_allclose(again_match.similarity, full, atol=1e-5)
    assert (again_match.tile == match.tile).all() and len(plain.probs) == len(boxes)


def test_a_photo_of_another_set_costs_no_crop_beyond_its_tiles(altered_set, monkeypatch):
    """With a profile, the finder's weak boxes and the gaps are cut out only on photos of the set:
    on a scene of another set the classifier reads as many crops as without the profile (this one
    has weak boxes: naming them all, as the rescue first did, read 68 crops instead of 35)."""
    from pathlib import Path

    from vision.photo import read_photo

    profile = altered_set[0]
    detector = _detector()
    photo = read_photo((Path(__file__).parent.parent / "data" / "detector" / "synth_s990001_000001.jpg").read_bytes())
    crops: list[int] = []
    session = detector.classifier.session

    class Counting:
        def run(self, outputs, feed):
            crops.append(len(next(iter(feed.values()))))
            return session.run(outputs, feed)

        def __getattr__(self, name):
            return getattr(session, name)

    monkeypatch.setattr(detector.classifier, "session", Counting())
    detector.detect(photo.image, photo=photo)
    without = list(crops)
    crops.clear()
    found = detector.detect(photo.image, photo=photo, tileset=profile)
    # the same runs as without a profile; past them only the set's second look at tiles it reads
    # unsure, turned upside down (vision.tileset.apply), never a weak box or a gap
    assert len(found.tiles) > 5 and crops[:len(without)] == without
    assert sum(crops[len(without):]) <= len(found.tiles)
