"""Peak memory of one photo's decode and detection, as a worker of the service and the Label Studio
backend run it: each case in a fresh process, the detector loaded and warmed first, then the peak
resident memory (Linux VmHWM, reset just before the call) of that one call.

    PYTHONPATH=. .venv/bin/python scripts/decode_memory.py

Cases: a small 16-bit grey PNG of 7000x7000 sent to /detect (api.inference.Inference.detect, what
a worker runs), the same kind at 6300x6300 as a Label Studio `data:` URI (api.label.studio.predict_task),
two photos for comparison, and an RGBA PNG that the byte limit refuses (vision.decode.decode_bytes). Prints one line per case: the answer, the memory before the call, the
peak during it and their difference, in MB.
"""
from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

LABEL_CONFIG = ('<View><Image name="image" value="$image"/><RectangleLabels name="label" toName="image">'
                '<Label value="B5"/></RectangleLabels></View>')


def _png16(side: int) -> bytes:
    samples = np.zeros((side, side), np.uint16)
    samples[::97, :] = 40_000  # a few lines: still a small file
    buffer = io.BytesIO()
    Image.fromarray(samples).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _rgba(side: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGBA", (side, side), (0, 0, 0, 0)).save(buffer, format="PNG")
    return buffer.getvalue()


def _photo(width: int, height: int, fmt: str) -> bytes:
    rng = np.random.default_rng(0)
    small = rng.integers(0, 255, (height // 16, width // 16, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(small).resize((width, height)).save(buffer, format=fmt, quality=90)
    return buffer.getvalue()


CASES = {
    "detect 16-bit grey PNG 7000x7000": ("detect", lambda: _png16(7000)),
    "labelstudio data: URI 16-bit grey PNG 6300x6300": ("labelstudio", lambda: _png16(6300)),
    "detect 8-bit RGB JPEG 4000x3000 (a phone photo)": ("detect", lambda: _photo(4000, 3000, "JPEG")),
    "detect 8-bit RGB PNG 7000x7000": ("detect", lambda: _photo(7000, 7000, "PNG")),
    "detect 8-bit RGBA PNG 6000x6000": ("detect", lambda: _rgba(6000)),
}


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _measure(kind: str, path: str) -> dict:
    """In this process: load and warm the detector, reset the peak, run one call."""
    from api.errors import ApiError
    from api.inference import Inference
    from api.label.errors import LabelError
    from api.label.studio import parse_label_config, predict_task
    from api.settings import Settings

    data = Path(path).read_bytes()
    inference = Inference(Settings())
    detector = inference.detector()
    inference.detect(_photo(640, 480, "JPEG"))
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    before = _status_mb("VmRSS")
    started = time.perf_counter()
    try:
        if kind == "detect":
            answer = f"200, {len(inference.detect(data)['detections'])} tiles"
        else:
            uri = "data:image/png;base64," + base64.b64encode(data).decode()
            task = {"id": 1, "data": {"image": uri}}
            answer = f"200, {len(predict_task(task, parse_label_config(LABEL_CONFIG), detector, None, {})['result'])} boxes"
    except (ApiError, LabelError) as exc:
        answer = f"{exc.status} {exc.code}: {exc.message}"
    return {"answer": answer, "before": before, "peak": _status_mb("VmHWM"), "seconds": time.perf_counter() - started}


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print(json.dumps(_measure(sys.argv[2], sys.argv[3])))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (kind, make) in CASES.items():
            path = Path(tmp) / "image"
            data = make()
            path.write_bytes(data)
            run = subprocess.run([sys.executable, __file__, "--one", kind, str(path)], capture_output=True, text=True)
            if run.returncode:
                print(f"{name}: failed: {run.stderr.strip().splitlines()[-1:]}")
                continue
            m = json.loads(run.stdout.strip().splitlines()[-1])
            print(f"{name} ({len(data) / 1024:.0f} KB): {m['answer'][:110]}\n"
                  f"    before {m['before']:.0f} MB, peak {m['peak']:.0f} MB, "
                  f"+{m['peak'] - m['before']:.0f} MB, {m['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
