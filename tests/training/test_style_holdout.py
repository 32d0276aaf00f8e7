"""The leave-one-style-out protocol's measurements (numpy only: no torch needed)."""
import numpy as np
import pytest

from training.holdout_measure import measure, readings, steps_for_budget
from vision.classes import CLASS_ID, NOT_A_TILE


def _one_hot(ids, width=NOT_A_TILE + 1, p=0.9):
    probs = np.full((len(ids), width), (1 - p) / (width - 1), np.float32)
    probs[np.arange(len(ids)), ids] = p
    return probs


def test_readings_count_each_answer_and_never_answer_not_a_tile():
    labels = np.array([CLASS_ID["W1"], CLASS_ID["B2"], CLASS_ID["J3"], CLASS_ID["T5"]])
    probs = _one_hot([CLASS_ID["W1"], CLASS_ID["B3"], NOT_A_TILE, CLASS_ID["T5"]])
    probs[2, CLASS_ID["J3"]] = 0.05  # "not a tile" first, J3 the best tile class
    blended = _one_hot(labels)
    nearest = np.array([CLASS_ID["W1"], CLASS_ID["B2"], CLASS_ID["BACK"], CLASS_ID["T6"]])
    got = readings(probs, blended, nearest, labels)
    assert got.alone == pytest.approx(0.75)  # the crop read "not a tile" counts as its best tile, J3
    assert got.nearest == pytest.approx(0.5)
    assert got.blended == pytest.approx(1.0)
    assert got.crops == 4


def test_readings_refuse_no_crops():
    with pytest.raises(ValueError):
        readings(np.zeros((0, 44)), np.zeros((0, 44)), np.zeros(0, int), np.zeros(0, int))


def test_steps_for_budget_gives_whole_epochs_that_fit():
    assert steps_for_budget(600, 2.0, 50) == 6  # 300 steps: 6 epochs of 50
    assert steps_for_budget(600, 2.5, 50) == 4  # 240 steps: 4 whole epochs
    assert steps_for_budget(10, 2.0, 50) == 1  # at least one
    with pytest.raises(ValueError):
        steps_for_budget(600, 0.0, 50)


def test_a_profile_of_the_set_corrects_what_the_classifier_misreads():
    # the set draws W1, W2 and W3 as the embedding's axes 0, 1 and 2; the classifier reads every
    # crop of W1 and W2 as W3
    rng = np.random.default_rng(0)
    w1, w2, w3 = CLASS_ID["W1"], CLASS_ID["W2"], CLASS_ID["W3"]
    examples = np.eye(8, dtype=np.float32)[:3]
    labels = np.array([w1, w2, w1, w2])
    features = np.zeros((4, 8), np.float32)
    features[np.arange(4), [0, 1, 0, 1]] = 1.0
    features += rng.normal(0, 0.01, features.shape).astype(np.float32)
    probs = _one_hot([w3] * 4, p=0.5)
    probs[:, [w1, w2]] = 0.2
    got = measure(probs, features, examples, np.array([w1, w2, w3]), labels)
    assert got.alone == 0.0
    assert got.nearest == 1.0
    assert got.blended == 1.0


def test_crops_unlike_every_example_keep_the_classifiers_reading():
    w1, w3 = CLASS_ID["W1"], CLASS_ID["W3"]
    examples = np.eye(8, dtype=np.float32)[:1]  # one example of W1 on axis 0
    features = np.eye(8, dtype=np.float32)[[5, 6]]  # orthogonal to it: similarity 0
    probs = _one_hot([w3, w3])
    got = measure(probs, features, examples, np.array([w1]), np.array([w3, w3]))
    assert got.alone == 1.0 and got.blended == 1.0
    assert got.nearest == 0.0  # the nearest example is the set's only class, W1
