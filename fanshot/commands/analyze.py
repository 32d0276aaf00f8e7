"""`fanshot analyze PHOTO`: the tiles, the hand, the fans and the total of a photo."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from fanshot.commands.tileset import add_tileset_argument, reading_detector
from fanshot.win_conditions import add_context_arguments, context_from_args


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="score the hand in a photo (detect, lay out, score, annotate)",
        description="Detect the tiles in PHOTO, read the hand and print its fans and total.",
    )
    p.add_argument("photo", help="JPEG, PNG, WebP or HEIC photo of a revealed winning hand")
    add_context_arguments(p)
    p.add_argument("--rules", default="mcr", help="rule set name (see `fanshot score --list-rules`); default mcr")
    p.add_argument("--out", metavar="JPG", help="write the annotated photo here")
    p.add_argument("--json", action="store_true", help="print {tiles, hand, score, warnings, warning_details, alternatives} as JSON")
    p.add_argument("--model-dir", help="detector model folder (default: the shipped models/)")
    add_tileset_argument(p)
    p.set_defaults(func=run_analyze)


def _fail(message: str) -> int:
    print(f"fanshot analyze: {message}", file=sys.stderr)
    return 2


def run_analyze(args) -> int:
    from scoring.errors import HandError
    from vision.analyze import RESULT_KEYS, analyze_photo, normalize_context
    from vision.decode import ImageError
    from vision.detector import get_detector
    from vision.model_spec import ModelNotFoundError

    try:
        context = context_from_args(args, args.rules)
        normalize_context(context, args.rules)
    except HandError as exc:  # a bad flag or an unknown rule set
        return _fail(exc.message)
    path = Path(args.photo)
    if not path.is_file():
        return _fail(f"{path} is a folder, not a photo" if path.is_dir() else f"no such file: {path}")
    out_problem = _out_problem(args.out)
    if out_problem:  # before the analysis, not after it
        return _fail(out_problem)
    try:
        detector = reading_detector(get_detector(args.model_dir), args.tileset, _fail)
        rgb, analyzed = analyze_photo(path.read_bytes(), context, args.rules, detector)
        analysis = analyzed.to_json()
    except ImageError as exc:
        return _fail(f"{path}: {exc.message}")
    except ModelNotFoundError as exc:
        return _fail(str(exc))
    except HandError as exc:  # a bad context or rule set
        return _fail(exc.message)

    if args.out:
        from vision.annotate import annotated_jpeg

        try:
            Path(args.out).write_bytes(annotated_jpeg(rgb, analysis))
        except OSError as exc:
            return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    if args.json:
        out = {k: analysis[k] for k in RESULT_KEYS}
        if analysis.get("error"):
            out["error"] = analysis["error"]
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        print(format_analysis(analysis))
        if args.out:
            print(f"annotated photo: {args.out}")
    return 0 if analysis.get("score") else 1


def _out_problem(out: str | None) -> str | None:
    """Why `--out` cannot take the annotated photo (a JPEG), or None."""
    if not out:
        return None
    target = Path(out)
    if target.is_dir():
        return f"--out {out} is a folder: give a file name ending .jpg"
    if target.suffix.lower() not in (".jpg", ".jpeg"):
        return f"--out {out}: the annotated photo is a JPEG: give a file name ending .jpg"
    if not target.parent.is_dir():
        return f"--out {out}: no folder {target.parent}"
    return None


def format_analysis(analysis: dict) -> str:
    """The analysis as text for a terminal."""
    from scoring.notation import format_hand, format_tiles

    lines = []
    tiles = analysis["tiles"]
    in_hand = [t for t in tiles if t["role"] != "stray"]
    lines.append(f"tiles ({len(in_hand)}): {' '.join(t['tile'] for t in in_hand)}")
    strays = [t["tile"] for t in tiles if t["role"] == "stray"]
    if strays:
        lines.append(f"left out: {' '.join(strays)}")
    hand = analysis.get("hand")
    if hand:
        lines.append(f"hand: {format_hand(hand)}")
        if hand.get("flowers"):
            lines.append(f"flowers: {format_tiles(hand['flowers'])}")
    score = analysis.get("score")
    if score:
        for fan in score.get("fans", []):
            count = int(fan.get("count", 1) or 1)
            times = f" x{count}" if count > 1 else ""
            lines.append(
                f"  {fan['points'] * count:>3}  {fan['name_zh']}{times}  {fan['name_en']}"
            )
        lines.append(f"total: {score['total']}" + ("" if score.get("meets_minimum", True) else _below_minimum(score)))
    error = analysis.get("error")
    if error:
        lines.append(f"no score: {error['message']} [{error['code']}]")
    for w in analysis.get("warnings", []):
        lines.append(f"warning: {w}")
    for alt in analysis.get("alternatives", []):
        lines.append(f"alternative: {alt['total']} points, {alt['description']}")
    return "\n".join(lines)


def _below_minimum(score: dict) -> str:
    """The total line's note for a total under the rule set's minimum, with the total without
    the flowers when there are any (they do not count towards the minimum)."""
    from vision.annotate import flower_points

    flowers = flower_points(score)
    without = f"; {score['total'] - flowers} without the flowers, which do not count" if flowers else ""
    return f" (below the {score.get('minimum', 8)}-point minimum{without})"
