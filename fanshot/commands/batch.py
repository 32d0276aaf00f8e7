"""`fanshot batch detect|analyze|prelabel SRC --out DST`: every photo of a folder or a list read
on this machine's cores or on Ray, resumable (docs/batch.md)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fanshot.args import positive_int
from fanshot.commands.tileset import add_tileset_argument, profile_store
from fanshot.win_conditions import add_context_arguments, context_from_args

HELP = {
    "detect": "the tiles of every photo (as `fanshot detect --json`); default format jsonl",
    "analyze": "the analysis of every photo (as `fanshot analyze --json`); jsonl",
    "prelabel": "boxes for a dataset: YOLO labels beside a data.yaml by default, or COCO, Label Studio",
}


def register(subparsers) -> None:
    from fanshot.batch.job import FORMATS, KINDS

    batch = subparsers.add_parser(
        "batch", help="read every photo of a folder or list, on this machine or on Ray (resumable)",
        description="Read every photo under SRC (a folder, searched recursively, or a file listing one path a "
                    "line) and write the results under DST. A run again skips the photos done and reads "
                    "again those that failed. See docs/batch.md.")
    kinds = batch.add_subparsers(dest="kind", metavar="KIND", required=True)
    for kind in KINDS:
        p = kinds.add_parser(kind, help=HELP[kind], description=HELP[kind])
        p.add_argument("src", metavar="SRC", help="a folder of photos, or a text file of paths (one a line)")
        p.add_argument("--out", required=True, metavar="DST", help="output folder (made if missing)")
        p.add_argument("--format", choices=FORMATS[kind], default=FORMATS[kind][0],
                       help=f"what to write (default {FORMATS[kind][0]})")
        p.add_argument("--workers", type=positive_int, default=None,
                       help="photos read at once (default: this machine's cores)")
        p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                       help="run on Ray Data: alone, a Ray instance started on this machine; with an address "
                            "(HOST:PORT, or auto), that cluster (pip install 'fanshot[ray]')")
        p.add_argument("--model-dir", default=None, help="detector model folder (default: the shipped models/)")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
        add_tileset_argument(p)
        if kind == "analyze":
            add_context_arguments(p)
            p.add_argument("--rules", default="mcr", help="rule set (see `fanshot score --list-rules`); default mcr")
        else:
            p.add_argument("--one-set", action="store_true",
                           help="read each photo as one tile set can hold it (at most 4 of a tile, 1 of each flower)")
            p.add_argument("--document-root", metavar="ROOT", default=None,
                           help="with --format labelstudio: Label Studio's LOCAL_FILES_DOCUMENT_ROOT, a folder above "
                                "the photos; task paths are relative to it (default: the photos' folder's parent)")
        p.set_defaults(func=run_batch_command)


def _fail(message: str, status: int = 2) -> int:
    print(f"fanshot batch: {message}", file=sys.stderr)
    return status


def tileset_profile(name: str, classifier_file: Path) -> bytes:
    """The bytes of the tile set `name`'s profile file, checked whole and against the classifier in
    `classifier_file` (the workers read them); ValueError (vision.tileset.profile.ProfileError) says why not."""
    from vision.classifier import model_id_of

    store = profile_store()
    profile = store.load(name)
    if profile.classifier != model_id_of(classifier_file):
        raise ValueError(f"tile set {name!r} was learnt with another classifier than this model's: "
                         f"learn it again with `fanshot tileset learn {name} ...`")
    return store.path(name).read_bytes()


def run_batch_command(args: argparse.Namespace) -> int:
    from api.inference import threads_per_worker
    from api.label.studio import model_version
    from api.settings import available_cores, settings_for_command
    from fanshot.batch.job import BatchJob, EngineError, JobError
    from fanshot.batch.photos import SourceError
    from fanshot.batch.run import Engine, run_batch
    from scoring.errors import HandError
    from vision.model_spec import ModelNotFoundError, read_model_spec

    settings = settings_for_command("fanshot batch", args.model_dir)
    context, rules = {}, "mcr"
    if args.kind == "analyze":
        from vision.analyze import normalize_context

        try:
            rules, context = args.rules, context_from_args(args, args.rules)
            normalize_context(context, rules)
        except HandError as exc:  # a bad flag or an unknown rule set
            return _fail(exc.message)
    try:
        model_dir, spec = read_model_spec(settings.model_dir)
    except ModelNotFoundError as exc:
        return _fail(str(exc))
    profile = b""
    if args.tileset is not None:
        try:
            profile = tileset_profile(args.tileset, model_dir / spec["classifier"]["file"])
        except ValueError as exc:
            return _fail(f"--tileset: {exc}")
    dst = Path(args.out)
    if dst.exists() and not dst.is_dir():
        return _fail(f"--out {dst} is a file: give a folder")
    workers = args.workers or available_cores()
    job = BatchJob(kind=args.kind, dst=str(dst.resolve()),
                   model_dir=str(settings.model_dir) if settings.model_dir else None,
                   rules=rules, context=context, one_set=getattr(args, "one_set", False),
                   threads=threads_per_worker(workers), max_bytes=settings.max_upload_bytes,
                   max_pixels=settings.max_pixels, tileset=args.tileset, profile=profile)
    document_root = getattr(args, "document_root", None)
    try:
        report = run_batch(job, args.src, args.format, Engine(workers, args.ray), model_version=model_version(spec),
                           document_root=Path(document_root).resolve() if document_root else None, quiet=args.quiet)
    except (SourceError, JobError) as exc:
        return _fail(str(exc))
    except EngineError as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"cannot write under {dst}: {exc.strerror or exc}", 1)
    outputs = report.outputs
    rate = f" in {report.seconds:.1f} s ({report.attempted / report.seconds:.2f} photos/s)" if report.seconds else ""
    print(f"fanshot batch {args.kind}: {report.photos} photos: {report.attempted} read{rate}, "
          f"{report.skipped} done before; {outputs.read} in the output, {outputs.failed} failed"
          + (f" (see {outputs.files[-1]})" if outputs.failed else "")
          + (f", {outputs.missing} with no record (run again to read them)" if outputs.missing else ""),
          file=sys.stderr)
    for path in outputs.files[:-1]:
        print(path)
    return 1 if outputs.failed or outputs.missing else 0
