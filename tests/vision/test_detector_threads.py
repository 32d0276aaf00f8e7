"""The detector's onnxruntime sessions: as many threads as asked, none spinning between calls."""
from __future__ import annotations

import pytest

from vision.detector import DEFAULT_MODEL_DIR, Detector, get_detector


@pytest.fixture(scope="module")
def model_dir():
    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    return DEFAULT_MODEL_DIR


@pytest.mark.parametrize("threads", [1, 2])
def test_sessions_run_on_the_threads_asked_and_never_spin(model_dir, threads):
    detector = Detector(model_dir, threads=threads)
    assert detector.threads == threads
    for session in (detector.finder.session, detector.classifier.session):
        options = session.get_session_options()
        assert options.intra_op_num_threads == threads
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
        assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"


def test_one_detector_per_model_and_thread_count(model_dir):
    one = get_detector(model_dir, threads=1)
    assert get_detector(str(model_dir), threads=1) is one
    assert get_detector(model_dir, threads=2) is not one and get_detector(model_dir, threads=2).threads == 2
    assert get_detector(model_dir, threads=0).threads == 1  # at least one
