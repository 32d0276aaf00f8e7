"""Photo-to-score evaluations on synthetic scenes: `fanshot analyze-eval` (fresh scenes, how often the
total is right) and `fanshot resolution-eval` (totals and CPU time at several decode resolutions)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from fanshot.args import non_negative_int, positive_int
from fanshot.commands.tileset import add_tileset_argument, reading_detector


def register(subparsers) -> None:
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
    add_tileset_argument(e)
    e.add_argument("--one-set", type=non_negative_int, default=None, metavar="SEED",
                   help="draw every scene in the one tile set of SEED (`fanshot synth --one-set`; docs/tilesets.md)")
    e.add_argument("--altered", action="store_true", help="with --one-set: that set's faces altered (an unseen set)")
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
                        "vision.photo.read_photo); default 1000,2000,full,photo")
    r.add_argument("--limit", type=positive_int, help="only the first N scenes")
    r.add_argument("--wide", type=float, metavar="K",
                   help="make each photo a wide shot first: the scene K times smaller on a table of the same size")
    r.add_argument("--model-dir", help="detector model folder (default: the shipped models/)")
    r.add_argument("--json", metavar="FILE", help="also write every photo's totals to FILE")
    r.set_defaults(func=run_resolution_eval)


def _fail(message: str, command: str) -> int:
    print(f"fanshot {command}: {message}", file=sys.stderr)
    return 2


def run_eval(args) -> int:
    from training.analyze_eval import FRESH_SEEDS, evaluate

    if args.altered and args.one_set is None:
        return _fail("--altered alters one tile set: give --one-set SEED", command="analyze-eval")
    if args.seed < FRESH_SEEDS:
        return _fail(f"--seed must be {FRESH_SEEDS} or more: lower seeds may have been used for training",
                     command="analyze-eval")
    detector = None
    if not args.layout_only:
        from vision.detector import get_detector
        from vision.model_spec import ModelNotFoundError

        try:
            detector = reading_detector(get_detector(args.model_dir), args.tileset,
                                        lambda message: _fail(message, command="analyze-eval"))
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
        from datasets.synth.generate import OneSet

        one_set = None if args.one_set is None else OneSet(args.one_set, args.altered)
        summary = evaluate(args.n, args.seed, (args.long_side,), detector, progress=lambda i: bar.update(1),
                           repair=not args.no_repair, turn=args.turn, one_set=one_set)
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
    from vision.detector import get_detector
    from vision.model_spec import ModelNotFoundError

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
