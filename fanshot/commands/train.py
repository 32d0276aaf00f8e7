"""Training and evaluation commands: `fanshot eval`, `fanshot bench-detect`, `fanshot train STAGE`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from fanshot.args import positive_int, unit_share
from fanshot.commands.tileset import add_tileset_argument, reading_detector
from training.classifier import ARCHES, PRETRAINED, input_wh
from training.evaluate import RANK_FLOOR
from training.hard import UNSURE_BELOW
from vision.classifier import VIEW_FLIPS
from vision.photo import DETECT_MAX_SIDE


def register(subparsers) -> None:
    evaluate = subparsers.add_parser("eval", help="detector metrics on a YOLO-format dataset")
    evaluate.add_argument("--data", required=True, help="YOLO folder (data.yaml, images/, labels/)")
    evaluate.add_argument("--list", default=None, help="only the images named in this file (e.g. val.txt)")
    evaluate.add_argument("--json", action="store_true")
    evaluate.add_argument("--model-dir", default=None)
    evaluate.add_argument("--conf", type=unit_share, default=None,
                          help="the finder's score threshold for the answer instead of the model's")
    evaluate.add_argument("--rank-floor", type=unit_share, default=RANK_FLOOR,
                          help=f"mAP ranks the finder's boxes from this score up, each with its best classes "
                               f"(default {RANK_FLOOR}, as ultralytics' val); precision, recall and the images "
                               f"exactly right are the answer's")
    evaluate.add_argument("--one-set", action="store_true",
                          help="read each image as one tile set can hold it (off: a photo may show several sets)")
    evaluate.add_argument("--disagreements", metavar="JSONL", default=None,
                          help="write, per image, the tiles found where no label is and the labels where no tile "
                               "was found (IoU under 0.3): missing labels, labels off their tiles, misses, false finds")
    evaluate.add_argument("--why", action="store_true",
                          help="say why images are not exactly right: tiles missed, misread, extra boxes")
    evaluate.add_argument("--finder-hard", metavar="TILE[:FACTOR]", default=None,
                          help="the unseen-set protocol: the finder's boxes on the true boxes of TILE score FACTOR "
                               "(default 0.1) of their score, as a set's face the finder hardly finds (docs/tilesets.md)")
    add_tileset_argument(evaluate)
    evaluate.set_defaults(func=_eval)

    bench = subparsers.add_parser("bench-detect", help="detector latency, p50 and p95")
    bench.add_argument("photo", nargs="?", default=None,
                       help="a JPEG, or a folder of them (its first 8, each made a 12 MP JPEG in its own "
                            "orientation; default: the test photos, so made)")
    bench.add_argument("--runs", type=positive_int, default=None, help="reads per photo (default 30 for PHOTO, 10 each for the test photos)")
    bench.add_argument("--model-dir", default=None)
    add_tileset_argument(bench)
    bench.set_defaults(func=_bench)

    train = subparsers.add_parser("train", help="train the detector (needs the `train` extra)")
    stages = train.add_subparsers(dest="stage", metavar="STAGE", required=True)
    finder = stages.add_parser("finder", help="stage 1: the YOLO tile finder (resumes RUNS/NAME)")
    finder.add_argument("--data", required=True, help="ultralytics data.yaml (one class: tile)")
    finder.add_argument("--name", default="finder")
    finder.add_argument("--runs", default=None, help="run folder (default /work/runs or $FANSHOT_RUNS)")
    finder.add_argument("--init", default=None, help="start from this checkpoint instead of scratch")
    finder.add_argument("--imgsz", type=positive_int, default=320)
    finder.add_argument("--epochs", type=positive_int, default=40)
    finder.add_argument("--batch", type=positive_int, default=16)
    finder.add_argument("--threads", type=positive_int, default=2)
    finder.add_argument("--lr", type=float, default=None,
                        help="a gentle fine-tune: AdamW at this learning rate, no warm-up (default: ultralytics' own)")
    finder.add_argument("--freeze", type=int, default=None, metavar="N",
                        help="the first N layers keep their weights (11: the backbone)")
    finder.set_defaults(func=_train_finder)

    finder_data = stages.add_parser(
        "finder-data", help="merge YOLO sets into the finder's one-class (tile) dataset, images symlinked")
    finder_data.add_argument("--real", required=True, help="real YOLO set: its train.txt trains, its val.txt validates")
    finder_data.add_argument("--real-repeat", type=positive_int, default=1, metavar="N", help="list the real train images N times")
    finder_data.add_argument("--synth", action="append", default=[], metavar="DIR[:A-B,...]",
                             help="synthetic YOLO set for train, optionally only images A..B (sorted order, inclusive)")
    finder_data.add_argument("--synth-val", action="append", default=[], metavar="DIR[:A-B,...]",
                             help="synthetic YOLO set (or images of it) for val")
    finder_data.add_argument("--out", required=True, help="output folder (data.yaml, images/, labels/, train.txt, val.txt)")
    finder_data.set_defaults(func=_train_finder_data)

    crops = stages.add_parser("crops", help="cut classifier crops from a YOLO dataset into an NPZ")
    crops.add_argument("--data", help="YOLO folder")
    crops.add_argument("--list", default=None, help="only the images named in this file (e.g. train.txt)")
    crops.add_argument("--rendered", type=int, default=0, metavar="COPIES",
                       help="instead: COPIES rendered crops per FluffyStuff tile")
    crops.add_argument("--negatives", action="store_true",
                       help="instead of the labelled boxes: the shipped finder's boxes on no labelled tile "
                            "(the classifier's 'not a tile'; for fully labelled synthetic scenes)")
    crops.add_argument("--finder-boxes", action="store_true",
                       help="cut each labelled tile's crop around the finder's box on it (IoU 0.5 or more; "
                            "the label where it finds none): the boxes the classifier will be given")
    crops.add_argument("--model-dir", default=None, help="the model whose finder --negatives and --finder-boxes "
                                                        "run (default: the shipped one)")
    crops.add_argument("--arch", default="m64", choices=list(ARCHES),
                       help="the classifier the crops are for: its input, grown by the context, at full resolution")
    crops.add_argument("--out", required=True)
    crops.set_defaults(func=_train_crops)

    hard = stages.add_parser("hard-crops", help="the crops a classifier checkpoint names wrong or is unsure of, into an NPZ")
    hard.add_argument("--crops", nargs="+", required=True, help="crop NPZs (`train crops`)")
    hard.add_argument("--data", nargs="+", default=None,
                      help="the synth folder each NPZ was cut from: its strays touching the frame are left out")
    hard.add_argument("--classifier", required=True, help="classifier checkpoint (last.pt)")
    hard.add_argument("--unsure-below", type=float, default=UNSURE_BELOW, help="a crop named right under this is hard too")
    hard.add_argument("--out", required=True)
    hard.set_defaults(func=_train_hard_crops)

    classifier = stages.add_parser("classifier", help="stage 2: the crop classifier (resumes RUN/last.pt)")
    classifier.add_argument("--crops", nargs="+", required=True, help="training NPZs")
    classifier.add_argument("--val", default=None, help="validation NPZ (real photos never trained on)")
    classifier.add_argument("--run", required=True, help="run folder")
    classifier.add_argument("--epochs", type=positive_int, default=12)
    classifier.add_argument("--steps-per-epoch", type=positive_int, default=None, help="default: one pass over the crops")
    classifier.add_argument("--threads", type=positive_int, default=2)
    classifier.add_argument("--arch", default="s", choices=list(ARCHES) + list(PRETRAINED),
                            help="network size and input (a resumed run keeps its own)")
    classifier.add_argument("--init", default=None, help="a new run starts from this checkpoint's matching layers")
    classifier.add_argument("--shares", type=float, nargs="+", default=None,
                            help="how often each --crops file is drawn (one number each; default: by size)")
    classifier.add_argument("--mirror", type=float, default=0.0, help="probability of a mirrored training crop")
    classifier.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (AdamW, cosine)")
    classifier.set_defaults(func=_train_classifier)

    export = stages.add_parser("export", help="export both stages to ONNX into a model folder")
    export.add_argument("--finder", required=True, help="finder checkpoint (best.pt)")
    export.add_argument("--classifier", required=True, help="classifier checkpoint (best.pt)")
    export.add_argument("--imgsz", type=positive_int, default=320)
    export.add_argument("--out", default="models")
    export.add_argument("--provenance", default=None, help="JSON file merged into model.json")
    export.add_argument("--conf", type=float, default=0.25, help="the finder's score threshold")
    export.add_argument("--iou", type=float, default=0.55,
                        help="the finder's NMS overlap: boxes overlapping a better one more are dropped (0.55: tiles "
                             "of a row seen at a low angle overlap; 0.5 lost some, 0.6 kept straddling boxes)")
    export.add_argument("--tta", default="none", choices=list(VIEW_FLIPS),
                        help="at run time the classifier averages these flipped views with a crop ...")
    export.add_argument("--views-below", type=float, default=1.0,
                        help="... whose best class has a probability under this (default 1: every crop)")
    export.add_argument("--not-a-tile-above", type=float, default=0.5,
                        help="a classifier with the 'not a tile' output drops a box it gives this probability or more")
    export.add_argument("--mirror-view", action="store_true",
                        help="the finder looks at the mirror image too and merges the two views")
    export.add_argument("--both-turns", type=float, nargs=2, default=None, metavar=("LOW", "HIGH"),
                        help="a box whose width / height is within LOW..HIGH and whose reading is under "
                             "--views-below is read both ways, turned a quarter turn and not, and the two "
                             "readings averaged (the shipped model: 0.8 1.25)")
    export.set_defaults(func=_train_export)

    quantize = stages.add_parser("quantize", help="the classifier of a model folder in 8-bit integers (in place)")
    quantize.add_argument("--model-dir", required=True, help="an exported model folder (`fanshot train export`)")
    quantize.add_argument("--images", nargs="+", required=True, metavar="SOURCE",
                          help="calibration photos: folders or split lists (train.txt); training photos only")
    quantize.add_argument("--per-source", type=int, default=60, help="photos drawn from each source (seeded)")
    quantize.set_defaults(func=_train_quantize)


def _fail(message: str) -> int:
    print(f"fanshot: {message}", file=sys.stderr)
    return 2


def _load_detector(model_dir, conf: float | None = None, private: bool = False):
    from vision.detector import Detector, get_detector
    from vision.model_spec import ModelNotFoundError

    try:
        if conf is None and not private:
            return get_detector(model_dir)
        detector = Detector(model_dir)  # a private copy: the shared one keeps its threshold and finder
        if conf is not None:
            detector.finder.conf = conf
        return detector
    except ModelNotFoundError as exc:
        raise SystemExit(_fail(str(exc))) from None


def _eval(args) -> int:
    from datasets.formats import DatasetError, read_yolo
    from datasets.tools import records_in_list, source_photo
    from training.evaluate import detect_dataset, evaluate, format_report, why_not_exact

    hard_on = _finder_hard(args.finder_hard) if args.finder_hard else None
    try:
        records = read_yolo(args.data)
    except DatasetError as exc:
        return _fail(str(exc))
    if args.list:
        if not Path(args.list).is_file():
            return _fail(f"{args.list}: no such file")
        records = records_in_list(records, args.list)
    if not records:
        return _fail(f"{args.data}: no images to evaluate")
    detector = _load_detector(args.model_dir, args.conf, private=bool(args.finder_hard))
    before_each, hard = None, {}
    if hard_on is not None:
        tile, factor = hard_on
        before_each, hard = _hard_finder(detector, tile, factor), {"finder_hard": {"tile": tile, "factor": factor}}
    detector = reading_detector(detector, args.tileset, _fail)
    pairs = detect_dataset(records, detector, DETECT_MAX_SIDE, one_set=args.one_set, rank_floor=args.rank_floor,
                           before_each=before_each)
    metrics = {**evaluate(pairs, sources=[source_photo(r["file"]) for r in records]), "one_set": args.one_set,
               "rank_floor": args.rank_floor, **hard, **({"why": why_not_exact(pairs)} if args.why else {})}
    if args.disagreements:
        _write_disagreements(args.disagreements, records, pairs)
    one_set = "on (at most 4 of a tile, 1 of each flower)" if args.one_set else "off"
    print(json.dumps(metrics) if args.json else f"{format_report(metrics)}\none-set readings: {one_set}")
    return 0


def _finder_hard(value: str) -> tuple[str, float]:
    """`--finder-hard TILE[:FACTOR]`'s tile and factor; a bad one ends the command."""
    from training.finder_hard import parse_hard

    try:
        return parse_hard(value)
    except ValueError as exc:
        raise SystemExit(_fail(str(exc))) from None


def _hard_finder(detector, tile: str, factor: float):
    """A private detector's finder made to hardly find `tile` (training.finder_hard), and the
    callback that tells it each record's true boxes of it."""
    from training.finder_hard import FinderHardOn, true_shares

    hard = FinderHardOn(detector.finder, factor)
    return lambda record: hard.look_at(true_shares(record, tile))


def _write_disagreements(path: str, records: list[dict], pairs: list) -> None:
    """`training.evaluate.disagreements` of each image with any, one JSON line per image."""
    from training.evaluate import disagreements

    lines = []
    for record, (truth, predicted) in zip(records, pairs):
        found = disagreements(truth, predicted)
        if found["unlabelled"] or found["unfound"]:
            lines.append(json.dumps({"image": record["file"], **{
                key: [{k: d[k] for k in ("tile", "box", "score") if k in d} for d in items]
                for key, items in found.items()}}, ensure_ascii=False))
    Path(path).write_text("".join(line + "\n" for line in lines))
    print(f"disagreements: {len(lines)} of {len(records)} images -> {path}", file=sys.stderr)


def _bench(args) -> int:
    from training.bench import bench
    from vision.decode import ImageError

    plain = _load_detector(args.model_dir)
    detector = reading_detector(plain, args.tileset, _fail)
    try:
        photo = Path(args.photo) if args.photo else None
        runs = args.runs or (30 if photo is not None and not photo.is_dir() else 10)
        # with a tile set, each case is read without it too, in turn: what the set adds, paired
        results = bench(photo, runs, detector, DETECT_MAX_SIDE, without=plain if args.tileset else None)
    except (OSError, ImageError) as exc:
        return _fail(str(exc))
    for name, p50, p95, tiles in results:
        spread = "" if p95 != p95 else f", p95 {p95:.1f} ms"  # a photo's own line has its p50 only
        print(f"{name}: p50 {p50:.1f} ms{spread} ({tiles} tiles)")
    return 0


TRAIN_EXTRA = ("torch", "torchvision", "ultralytics", "onnx", "onnxslim")  # pyproject.toml's `train` extra


def _training(stage):
    """A `fanshot train` stage whose missing `train` extra or unreadable dataset is a message and
    exit 2, not a traceback."""
    def run(args) -> int:
        from datasets.formats import DatasetError

        try:
            return stage(args)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in TRAIN_EXTRA:
                raise
            return _fail(f"train {args.stage}: needs the `train` extra ({exc.name} is not installed here): "
                         "run `make train-env`, then `.venv-train/bin/fanshot train ...`")
        except DatasetError as exc:
            return _fail(f"train {args.stage}: {exc}")

    return run


@_training
def _train_finder(args) -> int:
    from training.finder import DEFAULT_RUNS, train_finder

    run = train_finder(
        args.data, name=args.name, runs=Path(args.runs) if args.runs else DEFAULT_RUNS, init=args.init,
        imgsz=args.imgsz, epochs=args.epochs, batch=args.batch, threads=args.threads, lr=args.lr, freeze=args.freeze,
    )
    print(run)
    return 0


@_training
def _train_finder_data(args) -> int:
    from training.data import FinderDataError, build_finder_data, parse_source

    try:
        counts = build_finder_data(
            args.real, args.out, real_repeat=args.real_repeat,
            synth_train=[parse_source(s) for s in args.synth], synth_val=[parse_source(s) for s in args.synth_val],
        )
    except FinderDataError as exc:
        return _fail(f"train finder-data: {exc}")
    print(json.dumps(counts))
    return 0


@_training
def _train_crops(args) -> int:
    from datasets.tools import records_in_list
    from training.crops import context_wh_for, save_crops, save_rendered_crops

    context_wh = context_wh_for(input_wh(args.arch))
    if args.rendered:
        save_rendered_crops(args.out, copies=args.rendered, context_wh=context_wh)
        return 0
    if not args.data:
        return _fail("train crops: give --data DIR or --rendered COPIES")
    if args.negatives and args.finder_boxes:
        return _fail("train crops: --negatives and --finder-boxes are two kinds of crops; give one")
    from datasets.formats import read_yolo

    records = read_yolo(args.data)
    if args.list:
        records = records_in_list(records, args.list)
    find = None
    if args.negatives or args.finder_boxes:
        from vision.analyze import WEAK_FLOOR
        from vision.detector import get_detector

        detector = get_detector(args.model_dir)
        floor = WEAK_FLOOR if args.negatives else None

        def find(rgb):
            return detector.finder.find_tiles(rgb, floor=floor)[0]

    save_crops(records, args.out, find, finder_boxes=args.finder_boxes, context_wh=context_wh)
    return 0


@_training
def _train_hard_crops(args) -> int:
    from training.hard import save_hard_crops

    try:
        counts = save_hard_crops(args.crops, args.data, args.classifier, args.out, args.unsure_below)
    except (OSError, ValueError) as exc:
        return _fail(f"train hard-crops: {exc}")
    print(json.dumps(counts))
    return 0


@_training
def _train_classifier(args) -> int:
    from training.classifier import train_classifier

    try:
        best = train_classifier(
            args.crops, args.val, args.run, epochs=args.epochs, threads=args.threads,
            steps_per_epoch=args.steps_per_epoch, arch=args.arch, shares=args.shares, mirror=args.mirror,
            init=args.init, lr=args.lr,
        )
    except (OSError, ValueError) as exc:
        return _fail(f"train classifier: {exc}")
    print(best)
    return 0


@_training
def _train_export(args) -> int:
    from training.export import export_model

    provenance = json.loads(Path(args.provenance).read_text()) if args.provenance else {}
    print(export_model(args.finder, args.classifier, args.out, args.imgsz, provenance, conf=args.conf, iou=args.iou, views=args.tta,
                       views_below=args.views_below, mirror_view=args.mirror_view,
                       not_a_tile_above=args.not_a_tile_above, both_turns=args.both_turns))
    return 0


@_training
def _train_quantize(args) -> int:
    from training.quantize import QuantizeError, quantize_classifier
    from vision.model_spec import ModelNotFoundError

    try:
        print(json.dumps(quantize_classifier(args.model_dir, args.images, per_source=args.per_source)))
    except (QuantizeError, ModelNotFoundError) as exc:
        return _fail(f"train quantize: {exc}")
    return 0
