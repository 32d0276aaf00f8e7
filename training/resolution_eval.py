"""At what resolution to read a phone photo: totals right and CPU time per photo, by rule.

`fanshot resolution-eval DIR` reads the photos of a `fanshot synth` folder (DIR/images/*.jpg
with DIR/records/*.json beside them: `score.total`, `hand.context`) as the pipeline reads
photo bytes: decode the JPEG at some long side (the codec's DCT scaling where it can), detect
(one-set readings and weak boxes), lay out, repair and score, looking again at a doubtful
reading (vision.analyze.read_hand). For each rule it counts the photos whose total equals the
scene's true total, the hand's tiles the detector got wrong (missed, misread, extra: counted as
training.analyze_eval counts them, weak boxes aside) and the process CPU time per photo (decode + detect + layout:
`time.process_time`, so onnxruntime's threads count too).

A rule is a fixed long side in pixels (`1000`: a 4000 px JPEG decodes at 1/4 natively; `2000`:
at 1/2; `1280`: at 1/2, then resized), `full` (no reduction), or `photo` (the pipeline's own
rule, vision.photo.read_photo).

`--wide K` makes each photo a wide shot first: the scene shrunk K times on a table of the full
size (datasets.synth.backgrounds), encoded as a JPEG again (the generator frames every hand to
fill most of the photo, so its tiles are never small).
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    from vision.detections import Detections

RULES = ("1000", "1280", "1500", "2000", "2048", "full", "photo")


def load_scenes(folder: Path, limit: int | None = None) -> list[tuple[Path, dict]]:
    """(image path, record) of each scene of a `fanshot synth` folder, by name."""
    folder = Path(folder)
    records = sorted((folder / "records").glob("*.json"))
    if not records:
        raise FileNotFoundError(f"{folder}/records holds no scene records (a `fanshot synth --out` folder?)")
    scenes = []
    for path in records[:limit]:
        record = json.loads(path.read_text(encoding="utf-8"))
        if not (isinstance(record.get("score"), dict) and "total" in record["score"]
                and isinstance(record.get("hand"), dict) and "boxes" in record):
            raise ValueError(f"{path} is no scene record (score.total, hand, boxes)")
        image = folder / "images" / record.get("image", path.with_suffix(".jpg").name)
        if not image.is_file():
            raise FileNotFoundError(f"{image} is missing (named by {path})")
        scenes.append((image, record))
    return scenes


def wide_shot(data: bytes, shrink: float, seed: int, quality: int = 90) -> tuple[bytes, tuple[float, float, float]]:
    """The photo's scene `shrink` times smaller, at a random place on a table of the photo's
    size: the same hand as a wide shot, as a JPEG; and where the scene went (scale, left, top:
    a point (x, y) of the photo is at (x * scale + left, y * scale + top))."""
    import cv2

    from datasets.synth.backgrounds import table
    from vision.decode import decode_image

    rgb = decode_image(data)
    height, width = rgb.shape[:2]
    small = cv2.resize(rgb, (round(width / shrink), round(height / shrink)), interpolation=cv2.INTER_AREA)
    rng = np.random.default_rng(seed)
    canvas = table(rng, width, height)
    top = int(rng.integers(0, height - small.shape[0] + 1))
    left = int(rng.integers(0, width - small.shape[1] + 1))
    canvas[top : top + small.shape[0], left : left + small.shape[1]] = small
    ok, encoded = cv2.imencode(".jpg", cv2.cvtColor(canvas, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 image
        raise RuntimeError("JPEG encoding failed")
    return encoded.tobytes(), (small.shape[1] / width, float(left), float(top))


def _moved(boxes: list[dict], scale: float, left: float, top: float) -> list[dict]:
    return [{**b, "box": [b["box"][0] * scale + left, b["box"][1] * scale + top,
                          b["box"][2] * scale + left, b["box"][3] * scale + top]} for b in boxes]


def read_by_rule(
    detector, data: bytes, rule: str, context: dict | None = None
) -> tuple[np.ndarray, tuple[Detections, dict]]:
    """The photo decoded as `rule` says (see the module's docstring), its detections and their
    analysis (vision.analyze.read_hand). A layout that fails is caught, so that the measurement
    goes on: the analysis is then {"crash": the error in words}, the detections the first look's."""
    from vision.analyze import detect_hand, read_hand
    from vision.decode import decode_image

    def read(rgb, photo=None):
        try:
            reading = read_hand(detector, rgb, context, photo=photo)
            return reading.detections, reading.analysis.to_json()
        except Exception as exc:  # a bug in the layout: counted and shown
            return detect_hand(detector, rgb, photo=photo), {"crash": f"{type(exc).__name__}: {exc}"}

    if rule == "photo":
        from vision.photo import read_photo

        photo = read_photo(data)
        return photo.image, read(photo.image, photo)
    rgb = decode_image(data) if rule == "full" else decode_image(data, max_side=int(rule))
    return rgb, read(rgb)


def read_photo_total(detector, data: bytes, rule: str, context: dict, boxes: list[dict]) -> dict:
    """The total read from the photo at `rule` (None: no winning hand), the CPU seconds for
    decode + detect + layout, the long side analysed, and the hand's tiles the detector got
    wrong (`boxes`: the scene's true boxes in pixels of the photo; training.analyze_eval)."""
    from training.analyze_eval import detection_errors
    from vision.decode import probe_image

    began = time.process_time()
    rgb, (detections, analysis) = read_by_rule(detector, data, rule, context)
    crash = analysis.get("crash")
    seconds = time.process_time() - began
    scale = rgb.shape[1] / probe_image(data)[0]
    errors = detection_errors(detections.tiles, _moved(boxes, scale, 0.0, 0.0))
    return {"total": analysis["score"]["total"] if analysis.get("score") else None, "seconds": seconds,
            "side": max(rgb.shape[:2]), "tile_errors": _kinds(errors), "crash": crash}


def _kinds(errors: list[str]) -> dict[str, int]:
    """detection_errors' texts counted by kind: missed, misread (`A read as B`), extra, and any
    other kind it names by its first word (duplicate)."""
    kinds = {"missed": 0, "misread": 0, "extra": 0}
    for error in errors:
        kind = "misread" if " read as " in error else error.split()[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def evaluate(
    folder: Path,
    rules: list[str],
    detector,
    *,
    limit: int | None = None,
    wide: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Per rule: photos, totals right, CPU ms per photo (mean, p95), median long side analysed;
    and per photo the totals read."""
    scenes = load_scenes(folder, limit)
    per_rule: dict[str, dict[str, Any]] = {rule: {"right": 0, "cpu": [], "sides": [], "photos_with_tile_errors": 0, "crashes": [],
                       "tile_errors": {"missed": 0, "misread": 0, "extra": 0}} for rule in rules}
    photos = []
    for i, (image, record) in enumerate(scenes):
        data, boxes = image.read_bytes(), record["boxes"]
        if wide:
            data, placed = wide_shot(data, wide, seed=random.Random(f"wide:{image.name}").getrandbits(32))
            boxes = _moved(boxes, *placed)
        truth = record["score"]["total"]
        row = {"image": image.name, "true_total": truth, "read": {}, "tile_errors": {}}
        for rule in rules:
            result = read_photo_total(detector, data, rule, record["hand"].get("context"), boxes)
            stats = per_rule[rule]
            stats["right"] += result["total"] == truth
            stats["cpu"].append(result["seconds"])
            stats["sides"].append(result["side"])
            for kind, count in result["tile_errors"].items():
                stats["tile_errors"][kind] = stats["tile_errors"].get(kind, 0) + count
            stats["photos_with_tile_errors"] += sum(result["tile_errors"].values()) > 0
            row["read"][rule] = result["total"]
            if result["crash"]:
                stats["crashes"].append(f"{image.name}: {result['crash']}")
            row["tile_errors"][rule] = result["tile_errors"]
        photos.append(row)
        if progress:
            progress(i + 1)
    summary = {}
    for rule, stats in per_rule.items():
        cpu = np.asarray(stats["cpu"]) * 1000
        summary[rule] = {
            "photos": len(scenes),
            "right": int(stats["right"]),
            "tile_errors": stats["tile_errors"],
            "crashes": stats["crashes"],
            "photos_with_tile_errors": int(stats["photos_with_tile_errors"]),
            "cpu_ms_mean": round(float(cpu.mean()), 1),
            "cpu_ms_p95": round(float(np.percentile(cpu, 95)), 1),
            "side_median": int(np.median(stats["sides"])),
            "side_max": int(max(stats["sides"])),
        }
    return {"rules": summary, "photos": photos}


def format_summary(summary: dict, title: str) -> str:
    lines = [title, f"{'rule':>7} {'right':>9} {'missed/misread/extra (photos)':>30} {'CPU ms/photo':>13} {'p95':>6}"
                    f" {'side (median, max)':>19}"]
    for rule, s in summary["rules"].items():
        e = s["tile_errors"]
        others = "".join(f" +{count} {kind}" for kind, count in e.items() if kind not in ("missed", "misread", "extra"))
        errors = f"{e['missed']}/{e['misread']}/{e['extra']}{others} ({s['photos_with_tile_errors']})"
        lines.append(f"{rule:>7} {s['right']:>4}/{s['photos']:<4} {errors:>30} {s['cpu_ms_mean']:>13.0f}"
                     f" {s['cpu_ms_p95']:>6.0f} {s['side_median']:>12}, {s['side_max']}")
    for rule, s in summary["rules"].items():
        lines += [f"  {rule}: the analysis crashed on {crash}" for crash in s["crashes"]]
    return "\n".join(lines)
