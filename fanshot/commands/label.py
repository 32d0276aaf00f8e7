"""`fanshot label DIR`: the labelling tool for a folder of images (or export its labels)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fanshot.args import port_number

if TYPE_CHECKING:
    from api.label.store import LabelStore


def register(subparsers: argparse._SubParsersAction) -> None:
    label = subparsers.add_parser(
        "label", help="label a folder of tile photos in the browser (page at /label)",
        description="Serve the labelling page for the images in DIR: the detector pre-labels each "
                    "image, you fix the boxes, and every change is saved as YOLO txt beside the image. "
                    "With --export, write the labelled set instead of serving.")
    label.add_argument("folder", metavar="DIR", help="folder of images (JPEG, PNG, WebP, HEIC)")
    label.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    label.add_argument("--port", type=port_number, default=8000, help="port to listen on (default 8000)")
    label.add_argument("--model-dir", default=None, help="detector model folder (default: the shipped models/)")
    label.add_argument("--export", choices=["yolo", "coco", "labelstudio"],
                       help="write the labelled images in this format to --out and exit")
    label.add_argument("--out", help="with --export: a folder (yolo) or a JSON file (coco, labelstudio)")
    label.add_argument("--document-root", metavar="ROOT",
                       help="with --export labelstudio: Label Studio's LOCAL_FILES_DOCUMENT_ROOT, a folder above "
                            "DIR; image paths are written relative to it (default: DIR's parent)")
    label.add_argument("--reviewed-only", action="store_true",
                       help="with --export: only images a person has checked")
    label.add_argument("--prelabel", action="store_true",
                       help="pre-label every image that has no label file yet, then exit "
                            "(for other tools: X-AnyLabeling, CVAT; see docs/labelling.md)")
    label.add_argument("--tileset", metavar="NAME",
                       help="pre-label reading with your tile set NAME and add each tile you correct to it "
                            "(`fanshot tileset learn`)")
    label.set_defaults(func=run_label)


def run_label(args: argparse.Namespace) -> int:
    from api.label.errors import LabelError
    from api.label.store import LabelStore

    try:
        store = LabelStore(args.folder)
    except LabelError as exc:
        print(f"fanshot label: {exc.message}", file=sys.stderr)
        return 2
    if args.export:
        return _export(store, args)
    if args.prelabel:
        return _prelabel(store, args)
    return _serve(args)


def _prelabel(store: LabelStore, args: argparse.Namespace) -> int:
    import time

    from api.label.errors import LabelError
    from fanshot.commands.tileset import reading_detector
    from vision.detector import get_detector

    try:
        detector = get_detector(args.model_dir)
    except Exception as exc:  # no model in models/ yet, a broken model file ...
        print(f"fanshot label: the detector is not available: {exc}", file=sys.stderr)
        return 1
    store.use_detector(reading_detector(detector, args.tileset, _prelabel_failed))
    todo = [path for path in store.image_paths() if not store.label_path(path).is_file()]
    failed = 0
    started = time.perf_counter()
    for path in todo:
        rel = path.relative_to(store.root).as_posix()
        try:
            doc = store.load(rel)
        except LabelError as exc:
            failed += 1
            print(f"{rel}: {exc.message}", file=sys.stderr)
            continue
        print(f"{rel}: {len(doc['boxes'])} tiles")
    seconds = time.perf_counter() - started
    done = len(todo) - failed
    per_image = f", {1000 * seconds / done:.0f} ms per image" if done else ""
    print(f"pre-labelled {done} of {len(todo)} unlabelled images in {seconds:.1f} s{per_image}", file=sys.stderr)
    return 1 if failed else 0


def _prelabel_failed(message: str) -> int:
    print(f"fanshot label: --tileset: {message}", file=sys.stderr)
    return 2


def _export(store: LabelStore, args: argparse.Namespace) -> int:
    from api.label.errors import LabelError
    from api.label.export import export_dataset

    if not args.out:
        print("fanshot label: --export needs --out", file=sys.stderr)
        return 2
    root = None
    if args.export == "labelstudio":
        root = Path(args.document_root).resolve() if args.document_root else store.root.parent
        if root not in store.root.parents:
            print(f"fanshot label: --document-root {root} must be a folder above {store.root} (Label Studio "
                  "serves local files only from a subfolder of its document root)", file=sys.stderr)
            return 2
    try:
        out = export_dataset(store, args.export, args.out, reviewed_only=args.reviewed_only, image_root=root)
    except LabelError as exc:
        print(f"fanshot label: {exc.message}", file=sys.stderr)
        return 1
    print(out)
    if root is not None:
        print(f"For Label Studio to serve these images, start it with\n"
              f"  LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT={root}\n"
              f"and add to the project a Local Files source storage with the absolute path {store.root}\n"
              "(Settings -> Cloud Storage -> Add Source Storage; no need to sync it), then import the JSON.",
              file=sys.stderr)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from api.access import access_note
    from api.app import create_app
    from api.label.state import configure_labelling
    from api.logs import configure_logging
    from api.serving import run_server
    from api.settings import settings_for_command

    configure_logging()
    settings = settings_for_command("fanshot label", args.model_dir)
    if args.tileset is not None:
        from api.settings import data_dir_of
        from vision.tileset.profile import ProfileError
        from vision.tileset.store import ProfileStore

        try:
            ProfileStore(data_dir_of(settings)).load(args.tileset)
        except ProfileError as exc:
            print(f"fanshot label: --tileset: {exc}", file=sys.stderr)
            return 2
    app = create_app(settings)
    store = configure_labelling(app, args.folder, tileset=args.tileset)
    print(f"Labelling {store.root} on http://{args.host}:{args.port}/label", file=sys.stderr)
    note = access_note(args.host, settings.token)
    if note:
        print(f"fanshot label: {note}", file=sys.stderr)
    run_server(app, args.host, args.port, settings)
    return 0
