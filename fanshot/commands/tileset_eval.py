"""`fanshot tileset eval`: the "unseen set" protocol of docs/tilesets.md as one command. A profile
is learnt (from a layout photo `fanshot synth` renders for a set seed, a given layout photo, or
labelled photos; timed), then the set's scenes and each other data set are read without and with
it, and the images exactly right are printed as a table (or `--json`). Rendered photos are kept
in the work folder and reused by a later run with the same parameters."""
from __future__ import annotations

import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

LAYOUT_SEED = 910000  # the layout photo's seed (reserved for held-out sets: never trained on)
SCENES_SEED = 920000  # the set's scenes
LAYOUT_COUNT = 43     # tiles in the rendered layout: the 34, the 8 flowers, one face-down tile
DONE = "rendered.json"  # written last in a rendered folder: its parameters (a folder without it is rendered again)


def register(sub) -> None:
    from fanshot.args import positive_int

    p = sub.add_parser("eval", help="the unseen-set protocol: images exactly right without and with a profile")
    p.add_argument("--one-set", type=int, default=None, metavar="SEED",
                   help="the tile set of `fanshot synth --one-set SEED`: its layout photo and scenes are rendered")
    p.add_argument("--altered", action="store_true", help="with --one-set: its faces redrawn as no trained art draws them")
    learn = p.add_mutually_exclusive_group()
    learn.add_argument("--layout", metavar="PHOTO", help="learn from this layout photo instead of a rendered one")
    learn.add_argument("--data", metavar="DIR", help="learn from these labelled photos (YOLO folder) instead")
    p.add_argument("--list", metavar="FILE", help="with --data: only the images named in this file")
    p.add_argument("--scenes", metavar="DIR|LIST",
                   help="the set's photos to read (a YOLO folder, or a list file in one such as its val.txt) "
                        "instead of rendered scenes")
    p.add_argument("--other", nargs="+", default=[], metavar="DIR|LIST",
                   help="sets the profile was not learnt for (YOLO folders or list files in them): read without and with it")
    p.add_argument("--n", type=positive_int, default=200, help="rendered scenes (default 200)")
    p.add_argument("--long-side", type=positive_int, default=1280, help="rendered photos' long side in pixels (default 1280)")
    p.add_argument("--layout-seed", type=int, default=LAYOUT_SEED)
    p.add_argument("--scenes-seed", type=int, default=SCENES_SEED)
    p.add_argument("--workers", type=positive_int, default=1, help="processes rendering the scenes")
    p.add_argument("--work", default=None, help="folder of rendered photos, reused (default: the cache folder "
                                                "$FANSHOT_CACHE/tileset-eval, else ~/.cache/fanshot/tileset-eval)")
    p.add_argument("--finder-hard", metavar="TILE[:FACTOR]", default=None,
                   help="the finder made to hardly find TILE (its boxes on it scored FACTOR of their score, default "
                        "0.1; 0: no box) in the layout photo and the set's photos, as on a set whose blank dragon "
                        "the finder misses (as `fanshot eval --finder-hard`; the layout and scenes must be labelled)")
    p.add_argument("--why", action="store_true", help="also say why images are not exactly right (as `fanshot eval --why`)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--model-dir", default=None)
    p.set_defaults(func=_eval)


def _fail(message: str) -> int:
    print(f"fanshot tileset eval: {message}", file=sys.stderr)
    return 2


def _work_dir(value: str | None) -> Path:
    from datasets.synth.art import CACHE_ROOT

    return Path(value) if value else CACHE_ROOT / "tileset-eval"


def _rendered(work: Path, kind: str, params: dict, n: int, workers: int) -> Path:
    """The folder of `n` photos `fanshot synth` renders with `params` (seed, one_set, altered, layout,
    long_side), rendered now unless a finished one is in `work`."""
    from datasets.synth import generate

    name = f"{kind}-set{params['one_set']}{'a' if params['altered'] else ''}-s{params['seed']}-n{n}-px{params['long_side']}"
    folder = work / name
    done = folder / DONE
    if done.is_file() and json.loads(done.read_text()) == {**params, "n": n}:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    print(f"rendering {n} {kind} photo{'s' * (n != 1)} into {folder}", file=sys.stderr)
    generate.generate(folder, n, params["seed"], workers=workers, long_sides=[params["long_side"]], progress=False,
                      one_set=generate.OneSet(params["one_set"], params["altered"], params["layout"]))
    done.write_text(json.dumps({**params, "n": n}))
    return folder


def _records(spec: str) -> tuple[str, list[dict]]:
    """A data set given as a YOLO folder or a list file in one: its name and records."""
    from datasets.formats import read_yolo
    from datasets.tools import records_in_list

    path = Path(spec)
    if path.is_file():
        return f"{path.parent.name}/{path.name}", records_in_list(read_yolo(path.parent), path)
    return path.name, read_yolo(path)


def _layout_record(photo: Path) -> dict:
    """The labels of a layout photo in a YOLO folder (`--finder-hard` hides its true boxes of a tile)."""
    from datasets.formats import DatasetError, read_yolo

    folder = photo.parent.parent if photo.parent.name == "images" else photo.parent
    for record in read_yolo(folder):
        if Path(record["file"]).resolve() == photo.resolve():
            return record
    raise DatasetError(f"{photo}: no labels beside it: --finder-hard needs a labelled layout photo")


def _learn(args, detector, work: Path, hide=None):
    """The profile, and how it was learnt ({"source", "file"/"data", "tiles", "examples", "seconds"});
    `hide`: told each labelled photo (training.finder_hard) before it is read."""
    from fanshot.commands.tileset_data import learn_labelled
    from vision.tileset.learn import learn_layout

    if args.data:
        t0 = time.perf_counter()
        profile = learn_labelled(detector, args.data, args.list, "eval")
        how = {"source": "labelled", "data": args.data, "list": args.list}
    else:
        photo = Path(args.layout) if args.layout else next(iter(sorted((_rendered(
            work, "layout", {"seed": args.layout_seed, "one_set": args.one_set, "altered": args.altered,
                             "layout": LAYOUT_COUNT, "long_side": args.long_side}, 1, 1) / "images").iterdir())))
        data = photo.read_bytes()
        if hide is not None:
            hide(_layout_record(photo))
        t0 = time.perf_counter()
        profile, layout = learn_layout(detector, data, "eval", file=photo.name)
        how = {"source": "layout", "file": str(photo), "missed": layout.missed}
    seconds = time.perf_counter() - t0
    return profile, {**how, "tiles": len(profile.class_counts()), "examples": len(profile.labels),
                     "seconds": round(seconds, 3)}


def _figures(pairs: list, records: list[dict], why: bool) -> dict:
    from datasets.tools import source_photo
    from training.evaluate import evaluate, why_not_exact

    m = evaluate(pairs, sources=[source_photo(r["file"]) for r in records])
    keep = ("exact_count", "exact_images", "exact_interval", "named_right", "located_recall", "located_precision")
    return {**{k: m[k] for k in keep}, **({"why": why_not_exact(pairs)} if why else {})}


def _answer_tiles(pairs: list) -> list[Counter]:
    from training.evaluate import answer

    return [Counter(p["tile"] for p in answer(predicted)) for _, predicted in pairs]


def _read(name: str, kind: str, records: list[dict], detector, reader, why: bool, hide=None) -> dict:
    """One row: `records` read without and with the profile (`hide`: told each record before it is read)."""
    from training.evaluate import detect_dataset
    from vision.photo import DETECT_MAX_SIDE

    without = detect_dataset(records, detector, DETECT_MAX_SIDE, before_each=hide)
    with_ = detect_dataset(records, reader, DETECT_MAX_SIDE, before_each=hide)
    otherwise = sum(a != b for a, b in zip(_answer_tiles(without), _answer_tiles(with_)))
    return {"name": name, "kind": kind, "images": len(records), "without": _figures(without, records, why),
            "with": _figures(with_, records, why), "read_otherwise": otherwise}


def _eval(args) -> int:
    import numpy as np

    from datasets.formats import DatasetError
    from datasets.synth.generate import SynthError
    from training.finder_hard import FinderHardOn, parse_hard, true_shares
    from vision.decode import ImageError
    from vision.detector import Detector, get_detector
    from vision.model_spec import ModelNotFoundError
    from vision.tileset.profile import ProfileError
    from vision.tileset.reader import with_tileset

    if args.one_set is None and not (args.layout or args.data):
        return _fail("give --one-set SEED (a rendered set), or --layout PHOTO / --data DIR to learn from")
    if args.one_set is None and not args.scenes and not args.other:
        return _fail("nothing to read: give --one-set SEED, --scenes or --other")
    if args.list and not args.data:
        return _fail("--list goes with --data")
    if args.finder_hard and args.data:
        return _fail("--finder-hard goes with a layout photo (rendered, or --layout in a labelled folder)")
    try:
        hard_on = parse_hard(args.finder_hard) if args.finder_hard else None
    except ValueError as exc:
        return _fail(str(exc))
    work = _work_dir(args.work)
    try:
        # a finder made blind to a tile is a private detector's (the shared one keeps its own)
        detector = get_detector(args.model_dir) if hard_on is None else Detector(args.model_dir)
        if not detector.classifier.has_features:
            return _fail("this model's classifier has no 'features' output: it cannot read with a tile set")
        hide = see_all = None
        if hard_on is not None:
            hard = FinderHardOn(detector.finder, hard_on[1])

            def hide(record: dict) -> None:
                hard.look_at(true_shares(record, hard_on[0]))

            def see_all(record: dict) -> None:  # the sets the profile was not learnt for: the finder as it is
                hard.look_at(np.zeros((0, 4), np.float32))
        profile, learnt = _learn(args, detector, work, hide)
        reader = with_tileset(detector, profile)
        sets: list[tuple[str, str, list[dict]]] = []
        if args.scenes:
            sets.append(("learnt", *_records(args.scenes)))
        elif args.one_set is not None:
            scenes = _rendered(work, "scenes", {"seed": args.scenes_seed, "one_set": args.one_set, "altered": args.altered,
                                                "layout": 0, "long_side": args.long_side}, args.n, args.workers)
            sets.append(("learnt", *_records(str(scenes))))
        sets += [("other", *_records(spec)) for spec in args.other]
        empty = [name for _, name, records in sets if not records]
        if empty:
            return _fail(f"no labelled images in {', '.join(empty)}")
        rows = [_read(name, kind, records, detector, reader, args.why, hide if kind == "learnt" else see_all)
                for kind, name, records in sets]
    except (ProfileError, ModelNotFoundError, DatasetError, SynthError) as exc:
        return _fail(str(exc))
    except ImageError as exc:
        return _fail(exc.message)
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: {exc.strerror or exc}")
    report = {"one_set": args.one_set, "altered": args.altered, "profile": learnt, "rows": rows,
              **({"finder_hard": {"tile": hard_on[0], "factor": hard_on[1]}} if hard_on else {})}
    print(json.dumps(report) if args.json else format_table(report))
    return 0


def _cell(f: dict, images: int) -> str:
    low, high = f["exact_interval"]
    return f"{f['exact_count']:>4} ({f['exact_images']:6.1%}; {low:.1%}-{high:.1%})"


def format_table(report: dict) -> str:
    p = report["profile"]
    source = f"layout photo {p['file']}" if p["source"] == "layout" else f"labelled photos {p['data']}"
    hard = report.get("finder_hard")
    blind = f"; the finder made to hardly find {hard['tile']} (x{hard['factor']:g}) in it and the set's photos" if hard else ""
    missed = f" ({p['missed']} found in the rows' gaps)" if p.get("missed") else ""
    lines = [f"profile: {source}{missed}: {p['tiles']} tiles, {p['examples']} examples, learnt in {p['seconds']:.2f} s{blind}",
             f"{'data':<40} {'images':>6}  {'exactly right without':<28} {'with the profile':<28} named right  read otherwise"]
    for r in report["rows"]:
        name = ("* " if r["kind"] == "learnt" else "  ") + r["name"]
        named = f"{r['without']['named_right']:.3f} -> {r['with']['named_right']:.3f}"
        lines.append(f"{name:<40} {r['images']:>6}  {_cell(r['without'], r['images']):<28} "
                     f"{_cell(r['with'], r['images']):<28} {named:<12} {r['read_otherwise']:>4}")
        for side in ("without", "with"):
            if "why" in r[side]:
                lines.append(f"    why not, {side}: {json.dumps(r[side]['why'])}")
    lines.append("* the set the profile was learnt for; exactly right: count (share; 95% interval)")
    return "\n".join(lines)
