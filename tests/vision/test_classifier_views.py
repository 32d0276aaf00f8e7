"""The shipped classifier averages over the flipped views model.json names (`averaged_views`):
its answer for a crop must then be the same for each of those flips of it."""
import json
from pathlib import Path

import numpy as np
import pytest

MODELS = Path(__file__).resolve().parents[2] / "models"
FLIPS = {"rot180": [(2, 3)], "rot180+mirror": [(2, 3), (3,), (2,)]}


def _classifier():
    spec = json.loads((MODELS / "model.json").read_text())
    views = spec["classifier"].get("averaged_views", "none")
    if views == "none":
        pytest.skip("the shipped classifier averages no views")
    import onnxruntime as ort

    session = ort.InferenceSession(str(MODELS / spec["classifier"]["file"]), providers=["CPUExecutionProvider"])
    return session, spec["classifier"]["input_wh"], FLIPS[views]


def test_flipped_views_give_the_same_probabilities():
    session, (width, height), flips = _classifier()
    rng = np.random.default_rng(0)
    crops = rng.random((3, 3, height, width), dtype=np.float32)
    crops[:, :, : height // 3] *= 0.2  # not symmetric: a dark top third
    name = session.get_inputs()[0].name
    plain = session.run(None, {name: crops})[0]
    for dims in flips:
        flipped = session.run(None, {name: np.ascontiguousarray(np.flip(crops, dims))})[0]
        np.testing.assert_allclose(np.exp(flipped), np.exp(plain), atol=1e-5)
    # and the output is a distribution over the 43 classes
    np.testing.assert_allclose(np.exp(plain).sum(1), 1.0, atol=1e-4)
    assert plain.shape == (3, 43)
