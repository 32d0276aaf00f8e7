"""One-off: give the shipped classifier.onnx a second output, `features` (N x 6144 float: the
penultimate layer, the last conv block's 128 x 8 x 6 map flattened, dequantized), the embedding
tile-set profiles compare crops by (vision/tileset). The logits' nodes are not touched: only a
DequantizeLinear node and a graph output are added (docs/tilesets.md says how this was checked).

    python -m training.feature_output models/classifier.onnx [--out models/classifier.onnx]
"""
from __future__ import annotations

import argparse
from pathlib import Path

FEATURES = "features"


def add_feature_output(src: Path, out: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(src))
    graph = model.graph
    if any(o.name == FEATURES for o in graph.output):
        raise SystemExit(f"{src} already has a {FEATURES!r} output")
    gemm = next(n for n in graph.node if n.output[0] == "logits_quantized")
    flat, scale, zero = gemm.input[0], gemm.input[1], gemm.input[2]  # QGemm's quantized input A
    graph.node.append(helper.make_node("DequantizeLinear", [flat, scale, zero], [FEATURES], name="features_dequant"))
    graph.output.append(helper.make_tensor_value_info(FEATURES, TensorProto.FLOAT, ["n", None]))
    onnx.checker.check_model(model)
    onnx.save(model, str(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    add_feature_output(args.model, args.out or args.model)


if __name__ == "__main__":
    main()
