"""Detector metrics on hand-made ground truth and predictions (no model needed)."""
from __future__ import annotations

import numpy as np
import pytest

from training.evaluate import evaluate
from vision.boxes import iou_matrix


def _tile(code, x, score=None):
    box = {"tile": code, "box": [x, 0, x + 10, 14]}
    if score is not None:
        box["score"] = score
    return box


def test_iou_matrix():
    a = np.array([[0, 0, 10, 10]], float)
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], float)
    assert iou_matrix(a, b).round(3).tolist() == [[1.0, 0.333, 0.0]]


def test_perfect_predictions():
    truth = [_tile("B5", 0), _tile("W1", 20), _tile("W1", 40)]
    predicted = [_tile(t["tile"], t["box"][0], 0.9) for t in truth]
    m = evaluate([(truth, predicted)])
    assert m["precision"] == m["recall"] == m["exact_images"] == 1.0
    assert m["map50"] == pytest.approx(1.0) and m["map50_95"] == pytest.approx(1.0)
    assert m["per_class_recall"] == {"W1": 1.0, "B5": 1.0}
    assert m["confusions"] == []
    assert m["located_recall"] == m["located_precision"] == m["named_right"] == 1.0


def test_confusion_miss_and_extra():
    truth_a = [_tile("B4", 0), _tile("B5", 20), _tile("T7", 40)]
    predicted_a = [_tile("B5", 0, 0.8), _tile("B5", 20, 0.9)]  # B4 read as B5, T7 missed
    truth_b = [_tile("J1", 0)]
    predicted_b = [_tile("J1", 0, 0.9), _tile("J2", 100, 0.3)]  # one extra tile
    truth_c = [_tile("F1", 0)]
    predicted_c = [_tile("F1", 1, 0.95)]  # slightly shifted, still right
    m = evaluate([(truth_a, predicted_a), (truth_b, predicted_b), (truth_c, predicted_c)])
    assert m["boxes"] == 5 and m["predictions"] == 5
    assert m["recall"] == pytest.approx(3 / 5) and m["precision"] == pytest.approx(3 / 5)
    assert m["exact_images"] == pytest.approx(1 / 3)
    assert m["per_class_recall"] == {"B4": 0.0, "B5": 1.0, "T7": 0.0, "F1": 1.0, "J1": 1.0}
    assert m["confusions"] == [{"truth": "B4", "predicted": "B5", "count": 1}]
    # the stages apart: 4 of 5 tiles located (T7 missed, J2 extra), 3 of those 4 named right
    assert m["located_recall"] == pytest.approx(4 / 5) and m["located_precision"] == pytest.approx(4 / 5)
    assert m["named_right"] == pytest.approx(3 / 4)
    # AP per class present: B4 0, B5 1, T7 0, F1 1, J1 1 -> mAP50 = 3/5
    assert m["map50"] == pytest.approx(3 / 5, abs=1e-6)
    assert m["map50_95"] < m["map50"]  # the shifted F1 box fails the strictest thresholds


def test_low_scored_false_positive_ranks_below_true_ones():
    truth = [_tile("W2", 0), _tile("W2", 20)]
    predicted = [_tile("W2", 0, 0.9), _tile("W2", 20, 0.8), _tile("W2", 60, 0.1)]
    m = evaluate([(truth, predicted)])
    assert m["map50"] == pytest.approx(1.0)  # the extra box comes after full recall
    assert m["precision"] == pytest.approx(2 / 3) and m["exact_images"] == 0.0


def test_map30_passes_a_right_tile_inside_a_loose_label_that_map50_fails():
    # a label box half as large again on each side as the tile (a rotated copy's box around the
    # turned polygon): the tight box read right overlaps it at IoU 0.44
    truth = [{"tile": "B5", "box": [-2.5, -3.5, 12.5, 17.5]}, _tile("W1", 40)]
    predicted = [_tile("B5", 0, 0.9), _tile("W1", 40, 0.9)]
    m = evaluate([(truth, predicted)])
    assert m["exact_images"] == 1.0
    assert m["map50"] == pytest.approx(1 / 2)  # B5's AP 0 at IoU 0.5, W1's 1
    assert m["map30"] == pytest.approx(1.0)
    # a box on no tile at all fails both
    m = evaluate([(truth, [_tile("B5", 20, 0.9), _tile("W1", 40, 0.9)])])
    assert m["map30"] == m["map50"] == pytest.approx(1 / 2)


def test_ignore_regions_are_neither_asked_for_nor_held_against_the_detector():
    cut = dict(_tile("W3", 100), ignore=True)  # a stray cut by the frame
    truth = [_tile("B5", 0), _tile("W1", 20), cut]
    # read it or not, as anything: the image is exactly right either way
    for on_cut in ([], [_tile("W1", 100, 0.4)], [{"tile": "W1", "box": [102, 2, 108, 12], "score": 0.3}]):
        m = evaluate([(truth, [_tile("B5", 0, 0.9), _tile("W1", 20, 0.9), *on_cut])])
        assert m["exact_images"] == 1.0 and m["precision"] == m["recall"] == 1.0
        assert m["boxes"] == 2 and m["predictions"] == 2
        assert m["ignore_regions"] == 1 and m["ignored_predictions"] == len(on_cut)
    # a box elsewhere is still an extra one, and a tile missed is still missed
    m = evaluate([(truth, [_tile("B5", 0, 0.9), _tile("W1", 20, 0.9), _tile("W1", 60, 0.5)])])
    assert m["exact_images"] == 0.0 and m["precision"] == pytest.approx(2 / 3)
    m = evaluate([(truth, [_tile("B5", 0, 0.9), _tile("W1", 100, 0.9)])])
    assert m["exact_images"] == 0.0 and m["recall"] == 0.5 and m["ignored_predictions"] == 1
    # a box that matches a tile to name stays, even where it overlaps an ignore region
    beside = dict(_tile("W3", 5), ignore=True)
    m = evaluate([([_tile("B5", 0), beside], [_tile("W9", 0, 0.9)])])
    assert m["predictions"] == 1 and m["confusions"] == [{"truth": "B5", "predicted": "W9", "count": 1}]
    assert m["ignored_predictions"] == 0


def test_disagreements_list_the_tiles_found_unlabelled_and_the_labels_no_box_covers():
    from training.evaluate import disagreements

    loose = {"tile": "B5", "box": [-2.5, -3.5, 12.5, 17.5]}  # a loose label on the tile at 0: IoU 0.44
    off = {"tile": "W1", "box": [200, 0, 210, 14]}  # a label where no tile was found
    cut = dict(_tile("W3", 100), ignore=True)  # an ignore region
    truth = [loose, _tile("T1", 20), off, cut]
    stray, on_cut = _tile("F1", 60, 0.8), _tile("W3", 100, 0.5)
    predicted = [_tile("B5", 0, 0.9), _tile("T2", 20, 0.9), stray, on_cut]
    found = disagreements(truth, predicted)
    # the misread T1 (T2) and the tight box in the loose label are no disagreement on where tiles are
    assert found == {"unlabelled": [stray], "unfound": [off]}
    assert disagreements([], [stray]) == {"unlabelled": [stray], "unfound": []}
    assert disagreements([off], []) == {"unlabelled": [], "unfound": [off]}


def _right_and_wrong(n_right: int, n_wrong: int) -> list:
    right = ([_tile("B5", 0)], [_tile("B5", 0, 0.9)])
    wrong = ([_tile("B5", 0)], [_tile("B6", 0, 0.9)])
    return [right] * n_right + [wrong] * n_wrong


def test_the_exact_share_gets_an_interval_over_its_source_photos():
    from training.evaluate import format_report

    # 21 of 30 images right: as 30 photos of their own, and as 10 photos in three copies each
    pairs = _right_and_wrong(21, 9)
    alone = evaluate(pairs, sources=[f"p{i}" for i in range(30)])
    copies = evaluate(pairs, sources=[f"p{i // 3}" for i in range(30)])
    assert alone["exact_images"] == copies["exact_images"] == pytest.approx(0.7) and alone["exact_count"] == 21
    assert alone["exact_interval_over"] == 30 and copies["exact_interval_over"] == 10
    for m in (alone, copies):
        low, high = m["exact_interval"]
        assert 0.0 <= low < 0.7 < high <= 1.0
    # copies move together: the same share is known less well from 10 photos than from 30
    assert np.diff(copies["exact_interval"])[0] > np.diff(alone["exact_interval"])[0]
    assert "21 of 30; 95% interval" in format_report(copies) and "the 10 source photos resampled" in format_report(copies)


def test_an_interval_is_the_same_each_run_and_absent_without_sources():
    pairs = _right_and_wrong(5, 3)
    sources = ["a", "a", "b", "c", "c", "d", "e", "e"]
    assert evaluate(pairs, sources=sources)["exact_interval"] == evaluate(pairs, sources=sources)["exact_interval"]
    assert "exact_interval" not in evaluate(pairs)
    assert evaluate(_right_and_wrong(4, 0), sources=list("abcd"))["exact_interval"] == [1.0, 1.0]
    with pytest.raises(ValueError):
        evaluate(pairs, sources=["a"])


def test_map_ranks_weak_boxes_and_other_candidates_that_the_answer_leaves_out():
    truth = [_tile("B4", 0), _tile("W1", 20), _tile("T7", 40)]
    answer = [
        {**_tile("B5", 0, 0.6), "candidates": [["B5", 0.6], ["B4", 0.3], ["B6", 0.05]]},  # B4 read B5
        {**_tile("W1", 20, 0.9), "candidates": [["W1", 0.9], ["W2", 0.01]]},
    ]
    weak = [{**_tile("T7", 40, 0.2), "weak": True, "candidates": [["T7", 0.2]]},  # the finder's 0.2: under its threshold
            {**_tile("J1", 80, 0.1), "weak": True}]  # a weak box on no tile
    m = evaluate([(truth, answer + weak)])
    # the answer: two boxes, one right; B4 and T7 not found
    assert m["predictions"] == 2 and m["weak_boxes"] == 2 and m["ranked_hypotheses"] == 7
    assert m["precision"] == pytest.approx(1 / 2) and m["recall"] == pytest.approx(1 / 3)
    assert m["exact_images"] == 0.0 and m["confusions"] == [{"truth": "B4", "predicted": "B5", "count": 1}]
    assert m["per_class_recall"] == {"W1": 1.0, "T7": 0.0, "B4": 0.0}
    # mAP: B4 is found as the first box's second class and T7 as a weak box, each the best of its
    # class: every class present has AP 1; the answer alone finds only W1
    assert m["map50"] == pytest.approx(1.0) and m["map30"] == pytest.approx(1.0)
    assert m["map50_answer"] == pytest.approx(1 / 3)
    # without weak boxes or candidates the two are one figure
    plain = evaluate([(truth, [_tile("B4", 0, 0.6), _tile("W1", 20, 0.9)])])
    assert plain["map50"] == plain["map50_answer"] == pytest.approx(2 / 3) and plain["ranked_hypotheses"] == 2


def test_a_weak_box_is_no_disagreement_and_a_one_set_reading_ranks_its_own_tile():
    from training.evaluate import disagreements, hypotheses

    weak = {**_tile("F1", 60, 0.05), "weak": True}
    assert disagreements([_tile("B5", 0)], [_tile("B5", 0, 0.9), weak]) == {"unlabelled": [], "unfound": []}
    # a one-set reading took the second candidate: its own tile and score first, no copy of it
    read = {**_tile("T1", 0, 0.3), "candidates": [["H3", 0.6], ["T1", 0.3], ["J2", 0.02]]}
    assert [(h["tile"], h["score"]) for h in hypotheses([read])] == [("T1", 0.3), ("H3", 0.6), ("J2", 0.02)]


def test_why_not_exact_sorts_the_images_by_what_went_wrong():
    from training.evaluate import why_not_exact

    a, b, c = [0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]
    pairs = [
        ([{"tile": "W1", "box": a}], [{"tile": "W1", "box": a}]),                                   # right
        ([{"tile": "W1", "box": a}, {"tile": "J3", "box": b}], [{"tile": "W1", "box": a}]),        # missed
        ([{"tile": "W1", "box": a}], [{"tile": "W2", "box": a}, {"tile": "B5", "box": c}]),        # misread + extra
        ([{"tile": "W1", "box": a}, {"tile": "W2", "box": c, "ignore": True}],
         [{"tile": "W1", "box": a}, {"tile": "W3", "box": c}, {"tile": "J3", "box": b, "weak": True}]),  # right
    ]
    assert why_not_exact(pairs) == {"images": {"missed": 1, "misread+extra": 1}, "missed": {"J3": 1},
                                    "extra": {"B5": 1}}
