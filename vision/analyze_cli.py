"""`fanshot analyze PHOTO`: the tiles, the hand, the fans and the total of a photo."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from fanshot.args import non_negative_int, positive_int
from scoring.cli import add_context_arguments, context_from_args


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
    p.set_defaults(func=run_analyze)

    e = subparsers.add_parser(
        "analyze-eval",
        help="photo -> score over fresh synthetic scenes: how often the total is right",
        description="Render N fresh synthetic scenes (seed 900000 or more, never used for training), "
        "score each from its photo and from its true boxes, and print how often the total equals "
        "the scene's true total, with the misses by stage (detection or layout).",
    )
    e.add_argument("--n", type=positive_int, default=300, help="number of scenes (default 300)")
    e.add_argument("--seed", type=int, default=900000, help="scene seed, 900000 or more (default 900000)")
    e.add_argument("--long-side", type=int, default=1280, help="photo size, long side in px (default 1280)")
    e.add_argument("--layout-only", action="store_true", help="only the layout on the true boxes (no model needed)")
    e.add_argument("--model-dir", help="detector model folder (default: the shipped models/)")
    e.add_argument("--show", type=non_negative_int, default=20, metavar="K", help="list up to K misses (default 20)")
    e.add_argument("--json", metavar="FILE", help="also write every scene's result to FILE")
    e.add_argument("--turn", type=int, default=0, choices=(0, 90, 180, 270),
                   help="turn every photo this many degrees clockwise first: a hand shot from the side "
                        "of the table (90, 270) or from across it (180)")
    e.add_argument("--no-repair", action="store_true",
                   help="do not repair readings that make no winning hand (vision.reading_repair)")
    e.set_defaults(func=run_eval)

    r = subparsers.add_parser(
        "resolution-eval",
        help="photo -> score at several decode resolutions: totals right and CPU ms per photo",
        description="Read the photos of a `fanshot synth` folder at each decode rule (a long side in px, "
        "'full', or 'photo': the pipeline's own rule) and print how many totals equal the scenes' true "
        "totals and the CPU time per photo (decode + detect + layout).",
    )
    r.add_argument("folder", help="a `fanshot synth --out` folder (images/ and records/)")
    r.add_argument("--rules", default="1000,2000,full,photo",
                   help="comma-separated: long sides in px (64 or more), 'full', 'photo' (the pipeline's rule, "
                        "vision.detector.read_photo); default 1000,2000,full,photo")
    r.add_argument("--limit", type=positive_int, help="only the first N scenes")
    r.add_argument("--wide", type=float, metavar="K",
                   help="make each photo a wide shot first: the scene K times smaller on a table of the same size")
    r.add_argument("--model-dir", help="detector model folder (default: the shipped models/)")
    r.add_argument("--json", metavar="FILE", help="also write every photo's totals to FILE")
    r.set_defaults(func=run_resolution_eval)


def _fail(message: str, code: int = 2, command: str = "analyze") -> int:
    print(f"fanshot {command}: {message}", file=sys.stderr)
    return code


def run_analyze(args) -> int:
    from scoring.errors import HandError
    from vision.analyze import RESULT_KEYS, analyze_photo, normalize_context
    from vision.decode import ImageError
    from vision.detector import ModelNotFoundError, get_detector

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
        detector = get_detector(args.model_dir)
        rgb, analysis = analyze_photo(path.read_bytes(), context, args.rules, detector)
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


def run_eval(args) -> int:
    from training.analyze_eval import FRESH_SEEDS, evaluate

    if args.seed < FRESH_SEEDS:
        return _fail(f"--seed must be {FRESH_SEEDS} or more: lower seeds may have been used for training",
                     command="analyze-eval")
    detector = None
    if not args.layout_only:
        from vision.detector import ModelNotFoundError, get_detector

        try:
            detector = get_detector(args.model_dir)
        except ModelNotFoundError as exc:
            return _fail(f"{exc} (use --layout-only to check the layout alone)", command="analyze-eval")
    from tqdm import tqdm

    from datasets.synth.generate import SynthError, check_art

    try:
        notes = check_art()
    except SynthError as exc:
        return _fail(str(exc), command="analyze-eval")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    with tqdm(total=args.n, unit="scene", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        summary = evaluate(args.n, args.seed, (args.long_side,), detector, progress=lambda i: bar.update(1),
                           repair=not args.no_repair, turn=args.turn)
    n = summary["scenes"]
    turned = f", turned {args.turn} degrees" if args.turn else ""
    print(f"scenes: {n} (seed {args.seed}, long side {args.long_side} px{turned}), {summary['seconds']} s")
    if detector is not None:
        ok = summary["photo_correct"]
        stages = summary["failures_by_stage"]
        print(f"total from the photo == true total: {ok}/{n} = {100 * ok / n:.1f}%")
        print(f"misses by stage: detection {stages['detection']}, layout {stages['layout']}")
        tiles = summary["hand_tiles"]
        print(
            f"hand tiles: {tiles['total']}, missed {tiles['missed']} ({100 * tiles['missed'] / max(1, tiles['total']):.1f}%), "
            f"misread {tiles['misread']} ({100 * tiles['misread'] / max(1, tiles['total']):.1f}%), "
            f"second boxes on a hand tile {tiles['duplicates']}"
        )
        print(f"reading (detection, layout, score; doubtful readings looked at again): "
              f"{summary['read_seconds_per_scene'] * 1000:.0f} ms per photo")
        repairs = summary["repairs"]
        if repairs["on"]:
            print(f"readings repaired: {repairs['photos']} ({repairs['right']} to the true total, {repairs['wrong']} not), "
                  f"{repairs['seconds_per_repaired'] * 1000:.0f} ms per repaired photo (the whole reading)")
    ok = summary["layout_correct"]
    print(f"layout alone, on the true boxes: {ok}/{n} = {100 * ok / n:.1f}%")
    hidden = summary["tile_hidden"]
    if hidden["scenes"]:
        right = f"{hidden['photo_correct']} from the photo, " if detector is not None else ""
        print(f"scenes with a concealed kong of four backs (its tile not in the photo): {hidden['scenes']}; "
              f"total right: {right}{hidden['layout_correct']} from the true boxes")
        if detector is not None:
            shown = summary["scenes"] - hidden["scenes"]
            shown_right = summary["photo_correct"] - hidden["photo_correct"]
            print(f"the other scenes (every tile of the hand in the photo): {shown_right}/{shown} "
                  f"= {shown_right / max(1, shown):.1%}")
    key = "photo_total" if detector is not None else "layout_total"
    misses = [r for r in summary["results"] if r.get(key) != r["true_total"]]
    for r in misses[: args.show]:
        line = f"  scene {r['index']}: true {r['true_total']}, read {r.get(key)}"
        if r.get("stage"):
            line += f" [{r['stage']}]"
        if r.get("detection_errors"):
            line += " " + ", ".join(r["detection_errors"][:4])
        if r.get("repaired"):
            line += " (repaired: " + ", ".join(r["repaired"]) + ")"
        elif r.get("error"):
            line += f" {r['error']['message']}"
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0


def run_resolution_eval(args) -> int:
    from training.resolution_eval import evaluate, format_summary

    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    bad = [r for r in rules if r not in ("full", "photo") and not (r.isdigit() and int(r) >= 64)]
    if not rules or bad:
        return _fail(f"--rules: expected long sides of 64 px or more, 'full' or 'photo', got {', '.join(bad) or 'nothing'}",
                     command="resolution-eval")
    if args.wide is not None and args.wide < 1:
        return _fail("--wide must be 1 or more", command="resolution-eval")
    from vision.detector import ModelNotFoundError, get_detector

    try:
        detector = get_detector(args.model_dir)
    except ModelNotFoundError as exc:
        return _fail(str(exc), command="resolution-eval")
    from tqdm import tqdm

    try:
        with tqdm(unit="photo", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
            summary = evaluate(Path(args.folder), rules, detector, limit=args.limit, wide=args.wide,
                               progress=lambda i: bar.update(1))
    except (FileNotFoundError, ValueError) as exc:  # no such folder, or a record that is no scene's
        return _fail(f"{args.folder}: {exc}", command="resolution-eval")
    title = f"{args.folder}" + (f", wide shots (scene {args.wide:g}x smaller)" if args.wide else "")
    print(format_summary(summary, title))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0


def _below_minimum(score: dict) -> str:
    """The total line's note for a total under the rule set's minimum, with the total without
    the flowers when there are any (they do not count towards the minimum)."""
    from vision.annotate import flower_points

    flowers = flower_points(score)
    without = f"; {score['total'] - flowers} without the flowers, which do not count" if flowers else ""
    return f" (below the {score.get('minimum', 8)}-point minimum{without})"
