"""`fanshot tileset layout|learn|show|list|forget` (and `eval`: fanshot.commands.tileset_eval): tile-set profiles (docs/tilesets.md), and the
`--tileset NAME` option of the reading commands (`add_tileset_argument`, `reading_detector`)."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from fanshot.commands import tileset_eval

PER_ROW = 9  # tiles per row of the layout as printed and drawn


def register(subparsers) -> None:
    p = subparsers.add_parser("tileset", help="learn the look of your own tile set (layout photo, labelled photos)")
    sub = p.add_subparsers(dest="tileset_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    layout = sub.add_parser("layout", help="print (and with --out draw) the order to lay a set out in for its photo")
    layout.add_argument("--out", help="draw the layout into this PNG/JPEG")
    layout.set_defaults(func=_layout)

    learn = sub.add_parser("learn", help="learn a tile set from a layout photo or from labelled photos")
    learn.add_argument("name", help="the set's name (letters, digits, _ or -)")
    source = learn.add_mutually_exclusive_group(required=True)
    source.add_argument("--layout", metavar="PHOTO", help="one photo of the set laid out as `fanshot tileset layout` shows")
    source.add_argument("--data", metavar="DIR", help="labelled photos of the set (YOLO folder)")
    learn.add_argument("--list", help="with --data: only the images named in this file")
    learn.add_argument("--add", action="store_true", help="add to the set's examples instead of replacing them")
    learn.add_argument("--out", help="with --layout: draw the tiles found and their names into this image")
    learn.add_argument("--model-dir", help="detector model folder (default: the shipped models/)")
    learn.set_defaults(func=_learn)

    show = sub.add_parser("show", help="what a set holds: examples per tile, sources, date")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=_show)
    sub.add_parser("list", help="the sets learnt here").set_defaults(func=_list)
    forget = sub.add_parser("forget", help="remove a set")
    forget.add_argument("name")
    forget.set_defaults(func=_forget)
    tileset_eval.register(sub)


def add_tileset_argument(parser) -> None:
    parser.add_argument("--tileset", metavar="NAME", default=None,
                        help="read the tiles as your tile set NAME draws them (`fanshot tileset learn`)")


def reading_detector(detector, name: str | None, fail: Callable[[str], int]):
    """`detector` reading with the tile set `name` (vision.tileset.reader), or itself when `name`
    is None; a set that cannot be read ends the command with `fail`'s message and status."""
    if name is None:
        return detector
    from vision.tileset.profile import ProfileError
    from vision.tileset.reader import with_tileset

    try:
        profile = profile_store().load(name)
    except ProfileError as exc:
        raise SystemExit(fail(str(exc))) from None
    classifier = detector.classifier
    if not classifier.has_features or profile.classifier != classifier.model_id:
        raise SystemExit(fail(f"tile set {name!r} was learnt with another classifier than this model's: "
                              f"learn it again with `fanshot tileset learn {name} ...`"))
    return with_tileset(detector, profile)


def profile_store():
    from api.settings import data_dir_of, settings_for_command
    from vision.tileset.store import ProfileStore

    return ProfileStore(data_dir_of(settings_for_command("fanshot tileset")))


def _fail(message: str) -> int:
    print(f"fanshot tileset: {message}", file=sys.stderr)
    return 2


def _layout(args) -> int:
    from vision.tileset.learn import LAYOUT_COUNTS, layout_tiles

    tiles = layout_tiles(43)
    for start in range(0, len(tiles), PER_ROW):
        print(" ".join(f"{t:>4}" for t in tiles[start:start + PER_ROW]))
    print("rows may wrap anywhere; photograph the tiles face up from above (the face-down tile: its back). "
          "Counts taken: " + "; ".join(f"{n} ({what})" for n, what in LAYOUT_COUNTS.items()))
    if args.out:
        import numpy as np

        boxes = np.array([[20 + (k % PER_ROW) * 70, 20 + (k // PER_ROW) * 100, 80 + (k % PER_ROW) * 70,
                           100 + (k // PER_ROW) * 100] for k in range(len(tiles))], np.float32)
        canvas = np.full((30 + 100 * -(-len(tiles) // PER_ROW), 30 + 70 * PER_ROW, 3), 235, np.uint8)
        return _write_drawing(args.out, canvas, boxes, tiles)
    return 0


def _write_drawing(out: str, rgb, boxes, names: list[str]) -> int:
    import cv2

    image = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    scale = max(0.4, min(image.shape[:2]) / 900)
    for k, (box, name) in enumerate(zip(boxes, names)):
        x1, y1, x2, y2 = (int(round(float(v))) for v in box)
        cv2.rectangle(image, (x1, y1), (x2, y2), (40, 40, 220), max(1, int(2 * scale)))
        cv2.putText(image, f"{k + 1} {name}", (x1 + 2, y1 + int(18 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                    (200, 30, 30), max(1, int(scale)), cv2.LINE_AA)
    if not cv2.imwrite(out, image):
        return _fail(f"cannot write {out} (a .png or .jpg path in a folder that exists)")
    print(f"drawn: {out}")
    return 0


def _learn(args) -> int:
    import time

    from vision.decode import ImageError
    from vision.detector import get_detector
    from vision.model_spec import ModelNotFoundError
    from vision.tileset.learn import LayoutError
    from vision.tileset.profile import ProfileError
    from vision.tileset.store import check_name

    try:
        check_name(args.name)
        detector = get_detector(args.model_dir)
        store = profile_store()
        t0 = time.perf_counter()
        if args.layout:
            profile = _learn_layout(args, detector)
        else:
            profile = _learn_data(args, detector)
        seconds = time.perf_counter() - t0
        profile = store.add(profile) if args.add else store.replace(profile)
        path = store.path(args.name)
    except LayoutError as exc:
        if args.out:
            from vision.photo import read_photo

            _write_drawing(args.out, read_photo(Path(args.layout).read_bytes()).image, exc.boxes,
                           ["?"] * len(exc.boxes))
        return _fail(f"{exc} (nothing saved)")
    except (ProfileError, ModelNotFoundError) as exc:
        return _fail(f"{exc} (nothing saved)")
    except ImageError as exc:
        return _fail(f"{args.layout}: {exc.message} (nothing saved)")
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: {exc.strerror or exc} (nothing saved)")
    counts = profile.class_counts()
    print(f"learnt tile set {profile.name!r}: {len(counts)} tiles, {len(profile.labels)} examples "
          f"in {seconds:.2f} s -> {path}")
    return 0


def _learn_layout(args, detector):
    from vision.tileset.learn import learn_layout

    path = Path(args.layout)
    profile, layout = learn_layout(detector, path.read_bytes(), args.name, file=path.name)
    turned = " (read from the other side)" if layout.reversed else ""
    missed = f"; {layout.missed} of them found in the rows' gaps (the finder gave them no box)" if layout.missed else ""
    left = f"; {layout.left_out} tile(s) found beside the rows left out (no part of the layout)" if layout.left_out else ""
    print(f"{args.layout}: {len(layout.tiles)} tiles in {len(layout.rows)} rows "
          f"({', '.join(map(str, layout.rows))}){turned}{missed}{left}")
    if args.out:
        from vision.photo import read_photo

        _write_drawing(args.out, read_photo(path.read_bytes()).image, layout.boxes, layout.tiles)
    return profile


def _learn_data(args, detector):
    from fanshot.commands.tileset_data import learn_labelled

    profile = learn_labelled(detector, args.data, args.list, args.name)
    print(f"{args.data}: {len(profile.sources)} labelled photos")
    return profile


def _show(args) -> int:
    from vision.tileset.profile import ProfileError

    try:
        info = profile_store().load(args.name).summary()
    except ProfileError as exc:
        return _fail(str(exc))
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
        return 0
    print(f"tile set {info['name']!r} (last learnt {info['created']}, classifier {info['classifier']}): "
          f"{len(info['tiles'])} tiles, {info['examples']} examples")
    print("examples per tile: " + " ".join(f"{t}:{n}" for t, n in info["tiles"].items()))
    for s in info["sources"]:
        dates = s["first"] if s["first"] == s["last"] else f"{s['first']} to {s['last']}"
        print(f"  from {s['kind']}: {s['times']} time{'s' * (s['times'] != 1)}, {s['tiles']} tile{'s' * (s['tiles'] != 1)}, {dates}")
    if info["missed"]:
        print(f"the finder gave no box to {', '.join(info['missed'])} in the layout: photos of the set are "
              "searched beside their rows for such tiles")
    elif not info["searched"]:
        print("the finder found every tile of the layout: photos of the set are not searched beside their rows")
    if not info["ink"]:
        print("learnt before the ink views (profile format 1): faces drawn in another colour are read as then; "
              "learn the set again to read them in ink too")
    return 0


def _list(args) -> int:
    from vision.tileset.profile import ProfileError

    store = profile_store()
    for name in store.names():
        try:
            profile = store.load(name)
            print(f"{name}: {len(profile.class_counts())} tiles, learnt {profile.created}")
        except ProfileError as exc:
            print(f"{name}: unreadable ({exc})")
    if not store.names():
        print(f"no tile sets in {store.dir} (learn one: fanshot tileset learn NAME --layout PHOTO)")
    return 0


def _forget(args) -> int:
    from vision.tileset.profile import ProfileError

    try:
        gone = profile_store().forget(args.name)
    except ProfileError as exc:
        return _fail(str(exc))
    if not gone:
        return _fail(f"no tile set named {args.name!r}")
    print(f"forgot tile set {args.name!r}")
    return 0
