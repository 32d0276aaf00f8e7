"""`fanshot synth` (synthetic scenes) and `fanshot dataset ...` (convert, labelstudio-config, merge, split, stats,
copies, sheet)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fanshot.args import non_negative_int, positive_int


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers separated by commas, got {text!r}") from None
    if not values or min(values) < 64 or max(values) > 8192:
        raise argparse.ArgumentTypeError("long sides must be between 64 and 8192 pixels")
    return values


def register(subparsers) -> None:
    p = subparsers.add_parser("synth", help="render synthetic photos of winning hands (YOLO + hand/score JSON)")
    p.add_argument("--n", type=positive_int, help="number of images (required)")
    p.add_argument("--out", help="output folder (required)")
    p.add_argument("--seed", type=int, default=0, help="seed (900000 and above: reserved for held-out sets)")
    p.add_argument("--start", type=non_negative_int, default=0, help="index of the first image (to extend a set)")
    p.add_argument("--workers", type=positive_int, default=1, help="processes (default 1)")
    p.add_argument("--long-side", type=_int_list, default=[1280], metavar="PX[,PX...]",
                   help="long side of the photos in pixels, one picked per image (default 1280)")
    p.add_argument("--styles", default=None, metavar="NAME[,NAME...]",
                   help="tile art families to use (default: all installed); see --list-styles")
    p.add_argument("--list-styles", action="store_true", help="print the tile art families available here")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--one-set", type=non_negative_int, default=None, metavar="SEED",
                   help="draw every scene in one tile set, the one of SEED (docs/tilesets.md)")
    p.add_argument("--altered", action="store_true",
                   help="with --one-set: some of the set's faces drawn as no trained art draws them (an unseen set)")
    p.add_argument("--layout", type=int, default=0, choices=[0, 34, 35, 42, 43], metavar="COUNT",
                   help="with --one-set: photos of COUNT of the set's tiles laid out in the order "
                        "`fanshot tileset layout` shows (34, 35, 42 or 43), not hands")
    p.set_defaults(func=_synth)

    d = subparsers.add_parser("dataset", help="tile dataset tools: convert, labelstudio-config, merge, split, stats, copies, sheet")
    sub = d.add_subparsers(dest="dataset_command", metavar="ACTION")
    d.set_defaults(func=lambda args: (d.print_help(), 2)[1])

    c = sub.add_parser("convert", help="convert between yolo, coco and labelstudio (boxes kept to the pixel)")
    c.add_argument("src", help="a YOLO folder (with data.yaml) or a COCO / Label Studio JSON file")
    c.add_argument("dst", help="output folder (yolo) or JSON file (coco, labelstudio)")
    c.add_argument("--to", required=True, choices=["yolo", "coco", "labelstudio"])
    c.add_argument("--from", dest="src_format", choices=["yolo", "coco", "labelstudio"], help="default: guessed")
    c.add_argument("--images", help="folder of the images of a JSON source (default: next to the JSON), or of a "
                   "YOLO folder without images (Label Studio: its media folder, ~/.local/share/label-studio/media)")
    c.add_argument("--image-root", help="JSON outputs: store image paths relative to this folder "
                   "(default: the output file's folder, so the paths resolve from there)")
    c.add_argument("--no-copy", action="store_true", help="yolo output: write labels only, not images")
    c.set_defaults(func=_convert)

    lc = sub.add_parser("labelstudio-config", help="print the Label Studio labelling interface for our 43 classes "
                        "(Settings -> Labeling Interface -> Code)")
    lc.set_defaults(func=_labelstudio_config)

    m = sub.add_parser("merge", help="merge datasets into one YOLO folder, class names remapped to our codes")
    m.add_argument("sources", nargs="+", help="datasets (any format); prefix NAME= to name a source")
    m.add_argument("--out", required=True)
    m.set_defaults(func=_merge)

    s = sub.add_parser("split", help="split a YOLO folder by source photo into train.txt / val.txt")
    s.add_argument("src")
    s.add_argument("--val", type=float, default=0.1, help="share of source photos in val (default 0.1)")
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(func=_split)

    t = sub.add_parser("stats", help="boxes per class, image sizes, boxes per image")
    t.add_argument("src")
    t.add_argument("--json", action="store_true", help="print JSON")
    t.set_defaults(func=_stats)

    k = sub.add_parser("copies", help="compare the labels of the augmented copies of each photo (Roboflow): "
                                      "which copies' boxes are far larger than their siblings'")
    k.add_argument("src")
    k.add_argument("--list", help="only the images named in this file (e.g. val.txt)")
    k.add_argument("--max-ratio", type=float, default=None,
                   help="a copy is consistent when its median label area is at most this times each "
                        "registered sibling's (default 1.3)")
    k.add_argument("--out", help="write the consistent copies to this list file (for `fanshot eval --list`)")
    k.add_argument("--json", action="store_true", help="print JSON")
    k.set_defaults(func=_copies)

    h = sub.add_parser("sheet", help="contact sheet of crops per class, to check labels by eye")
    h.add_argument("src")
    h.add_argument("--out", required=True, help="output image (.jpg/.png)")
    h.add_argument("--per-class", type=positive_int, default=12)
    h.add_argument("--classes", help="only these classes, comma separated")
    h.add_argument("--seed", type=int, default=0)
    h.add_argument("--images", type=positive_int, metavar="N",
                   help="instead of crops: a 4-column grid of the first N whole images with their boxes")
    h.add_argument("--no-boxes", action="store_true", help="with --images: do not outline the boxes")
    h.set_defaults(func=_sheet)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _synth(args) -> int:
    from datasets.synth import generate
    from datasets.synth.tiles import style_families
    available = style_families()
    if args.list_styles:
        print("\n".join(available))
        return 0
    families = None
    if args.styles:
        families = [s.strip() for s in args.styles.split(",") if s.strip()]
        unknown = [s for s in families if s not in available]
        if unknown:
            return _fail(f"unknown or unavailable styles: {', '.join(unknown)} (available: {', '.join(available)})")
    if args.n is None or args.out is None:
        return _fail("synth needs --n N and --out DIR")
    if (args.altered or args.layout) and args.one_set is None:
        return _fail("--altered and --layout draw one tile set: give --one-set SEED")
    one_set = None if args.one_set is None else generate.OneSet(args.one_set, args.altered, args.layout)
    try:
        result = generate.generate(args.out, args.n, args.seed, start=args.start, workers=args.workers,
                                   long_sides=args.long_side, families=families, progress=not args.quiet,
                                   one_set=one_set)
    except (generate.SynthError, OSError) as exc:
        return _fail(str(exc))
    for note in result["notes"]:
        print(f"note: {note}", file=sys.stderr)
    if args.seed >= generate.RESERVED_SEEDS:
        print(f"note: seeds from {generate.RESERVED_SEEDS} on are reserved for held-out evaluation; "
              "do not train on this set")
    rate = result["images"] / result["seconds"]
    print(f"wrote {result['images']} images, {result['boxes']} boxes to {args.out} "
          f"in {result['seconds']:.1f} s ({rate:.1f} images/s, {args.workers} worker(s))")
    return 0


def _convert(args) -> int:
    from datasets import formats
    try:
        data = formats.read_dataset(args.src, args.src_format, image_dir=args.images)
        image_root = args.image_root
        if image_root is None and args.to != "yolo":
            image_root = str(Path(args.dst).resolve().parent)
        formats.write_dataset(data, args.dst, args.to, image_root=image_root, copy_images=not args.no_copy)
    except formats.ImageNotFoundError as exc:
        where = f" ({args.images} was given)" if args.images else ""
        return _fail(f"{exc}: give the folder of the source's images with --images DIR{where}, "
                     "or --no-copy to write the labels only")
    except (formats.DatasetError, OSError) as exc:
        return _fail(str(exc))
    print(f"{len(data)} images, {sum(len(r['boxes']) for r in data)} boxes -> {args.dst} ({args.to})")
    return 0


def _labelstudio_config(args) -> int:
    from datasets.formats import label_config
    print(label_config(), end="")
    return 0


def _merge(args) -> int:
    from datasets import formats, tools
    try:
        result = tools.merge(args.sources, args.out)
    except (formats.DatasetError, OSError) as exc:
        return _fail(str(exc))
    for name, count in result["sources"].items():
        print(f"{name}: {count} images")
    print(f"{result['images']} images, {result['boxes']} boxes -> {args.out}")
    return 0


def _split(args) -> int:
    from datasets import formats, tools
    if not 0 < args.val < 1:
        return _fail("--val must be between 0 and 1")
    try:
        result = tools.split(args.src, args.val, args.seed)
    except (formats.DatasetError, OSError) as exc:
        return _fail(str(exc))
    print(f"train: {result['train']} images ({result['train_sources']} sources), "
          f"val: {result['val']} images ({result['val_sources']} sources); wrote train.txt, val.txt, data.yaml")
    return 0


def _stats(args) -> int:
    from datasets import formats, tools
    try:
        data = formats.read_dataset(args.src)
    except (formats.DatasetError, OSError) as exc:
        return _fail(str(exc))
    stats = tools.stats(data)
    print(json.dumps(stats, indent=1) if args.json else tools.format_stats(stats))
    return 0


def _copies(args) -> int:
    from datasets import copies, formats, tools
    max_ratio = copies.MAX_AREA_RATIO if args.max_ratio is None else args.max_ratio
    if not max_ratio >= 1:
        return _fail("--max-ratio must be 1 or more")
    if args.out and (Path(args.out).is_dir() or not Path(args.out).resolve().parent.is_dir()):
        return _fail(f"--out {args.out}: not a file in an existing folder")
    try:
        data = formats.read_dataset(args.src)
        if args.list:
            data = tools.records_in_list(data, args.list)
    except (formats.DatasetError, OSError) as exc:
        return _fail(str(exc))
    if not data:
        return _fail(f"no images in {args.src}" + (f" named in {args.list}" if args.list else ""))
    rows = copies.compare_copies(data)
    keep = copies.consistent(rows, max_ratio)
    if args.out:
        try:
            Path(args.out).write_text("".join(f"{name}\n" for name in keep))
        except OSError as exc:
            return _fail(f"cannot write {args.out}: {exc}")
    if args.json:
        print(json.dumps({"copies": rows, "consistent": keep, "max_ratio": max_ratio,
                          "label_agreement": copies.label_agreement(rows)}, indent=1))
    else:
        print(copies.format_copies(rows, max_ratio))
    return 0


def _sheet(args) -> int:
    from datasets import formats, tools
    classes = [c.strip() for c in args.classes.split(",")] if args.classes else None
    try:
        data = formats.read_dataset(args.src)
        if args.images:
            n = tools.image_sheet(data, args.out, n=args.images, draw_boxes=not args.no_boxes)
            print(f"{n} images -> {args.out}")
            return 0
        n = tools.contact_sheet(data, args.out, per_class=args.per_class, classes=classes, seed=args.seed)
    except (formats.DatasetError, OSError, ValueError) as exc:
        return _fail(str(exc))
    print(f"{n} crops -> {args.out}")
    return 0
