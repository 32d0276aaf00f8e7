"""`fanshot detect PHOTO ...`: the tiles the detector finds and names in each photo."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from fanshot.commands.tileset import add_tileset_argument, reading_detector
from vision.detector import detect_photo


def register(subparsers) -> None:
    detect = subparsers.add_parser("detect", help="find and name the tiles in photos")
    detect.add_argument("photos", nargs="+", metavar="PHOTO")
    detect.add_argument("--json", action="store_true", help="one JSON line per image")
    detect.add_argument("--model-dir", default=None, help="folder with model.json (default: models/)")
    detect.add_argument("--one-set", action="store_true",
                        help="read each photo as one tile set can hold it (at most 4 of a tile, 1 of each flower)")
    add_tileset_argument(detect)
    detect.set_defaults(func=_detect)


def _fail(message: str) -> int:
    print(f"fanshot: {message}", file=sys.stderr)
    return 2


def _detect(args) -> int:
    from vision.decode import ImageError
    from vision.detector import get_detector
    from vision.model_spec import ModelNotFoundError

    try:
        detector = reading_detector(get_detector(args.model_dir), args.tileset, _fail)
    except ModelNotFoundError as exc:
        return _fail(str(exc))
    status = 0
    for photo in args.photos:
        try:
            result = {"image": photo, **detect_photo(detector, Path(photo).read_bytes(), one_set=args.one_set)}
        except OSError as exc:
            status = _fail(f"{photo}: cannot read: {exc.strerror or exc}")
            continue
        except ImageError as exc:
            status = _fail(f"{photo}: {exc.code}: {exc.message}")
            continue
        if args.json:
            print(json.dumps(result, ensure_ascii=False), flush=True)
        else:
            tiles = " ".join(d["tile"] for d in result["detections"]) or "(no tiles)"
            print(f"{photo} ({result['width']}x{result['height']}): {len(result['detections'])} tiles: {tiles}")
    return status
