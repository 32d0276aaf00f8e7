"""Write a synthetic dataset: `fanshot synth --n N --out DIR --seed S`.

    DIR/images/NAME.jpg     the photo
    DIR/labels/NAME.txt     YOLO boxes, our 43 classes (BACK = 42 for face-down tiles)
    DIR/ignore/NAME.txt     YOLO boxes of the strays cut by the frame (ignore regions; only when
                            the photo has some)
    DIR/records/NAME.json   {"hand", "score", "boxes": [{"tile", "box", "role", "shown"[, "ignore"]}],
                            "image", "width", "height", "style", "seed", "index"}
    DIR/data.yaml, DIR/train.txt, DIR/val.txt (every 20th image is val)

Image i depends only on (seed, i) and the tile art installed (`check_art`): the same command
gives the same files whatever the number of workers, and a run can be extended with --start.
Without a CJK font `generate` (and `fanshot analyze-eval`) refuses to run.
"""
from __future__ import annotations

import json
import multiprocessing
import random
import time
from dataclasses import dataclass
from pathlib import Path

ASPECTS = [((4, 3), 0.55), ((3, 2), 0.25), ((16, 9), 0.2)]
RESERVED_SEEDS = 900000  # seeds from here on are kept for held-out evaluation sets
MAX_HAND_DRAWS = 100  # hands drawn for one scene until one meets the minimum


class SynthError(RuntimeError):
    """The generator cannot run (no scorer, bad options)."""


@dataclass(frozen=True)
class OneSet:
    """Every scene in one tile set (datasets.synth.tile_set): the set of `seed`, its faces
    `altered` or not; `layout`: photos of that many of its tiles laid out in the tile-set layout
    order (vision.tileset.learn.LAYOUT_COUNTS) instead of hands (0: hands)."""

    seed: int
    altered: bool = False
    layout: int = 0


NO_CJK_FONT = ("no CJK font is installed (Debian: fonts-noto-cjk; `make system-deps` installs it): the faces "
               "drawn from scratch, and the faces a tile set lacks, would show no characters under labels that name them")


def check_art() -> list[str]:
    """Raises SynthError when the scenes cannot be drawn as labelled (no CJK font: Pillow's own font
    has no 萬 or 東, and every face drawn from scratch would be blank or boxes). Returns notes on
    art that is missing but only changes the scenes: without the KDE tile sets (or rsvg-convert to
    render them) a seed's scenes are drawn from fewer art families, so they are not the scenes a
    machine with them renders (other held-out figures for the same seed)."""
    from datasets.synth.art import kde_sets
    from datasets.synth.procedural import font_files

    if not font_files():
        raise SynthError(NO_CJK_FONT)
    if not kde_sets():
        return ["the KDE tile sets are not installed (Debian: kdegames-mahjongg-data-kf5 and librsvg2-bin): "
                "scenes are drawn from FluffyStuff and procedural faces only, so a seed's scenes differ from "
                "those rendered where the sets are"]
    return []


def _scorer():
    try:
        from scoring import score_hand
        from scoring.generate import random_winning_hand
    except ImportError as exc:
        raise SynthError(f"the hand generator of the scorer is not available ({exc}); "
                         "synthetic scenes need scoring.generate.random_winning_hand") from exc
    return random_winning_hand, score_hand


def legal_win(rng: random.Random, random_winning_hand, score_hand) -> dict:
    """A random winning hand worth the rule's minimum without its flowers (MCR: 8), as a player
    can declare it: hands under it are drawn again from the same `rng`. Raises SynthError after
    MAX_HAND_DRAWS."""
    for _ in range(MAX_HAND_DRAWS):
        hand = random_winning_hand(rng)
        if score_hand(hand)["meets_minimum"]:
            return hand
    raise SynthError(f"no hand meeting the minimum in {MAX_HAND_DRAWS} draws")


def image_size(rng: random.Random, long_sides: list[int]) -> tuple[int, int]:
    long = rng.choice(long_sides)
    (a, b) = rng.choices([a for a, _ in ASPECTS], [w for _, w in ASPECTS])[0]
    short = int(round(long * b / a / 2) * 2)
    return (long, short) if rng.random() < 0.65 else (short, long)


def make_example(seed: int, index: int, long_sides: list[int], families: list[str] | None = None,
                 one_set: OneSet | None = None) -> dict:
    """One synthetic photo and its record, deterministic for (seed, index) (and `one_set`)."""
    from datasets.synth.scene import render_scene
    random_winning_hand, score_hand = _scorer()
    rng = random.Random(f"example:{seed}:{index}")
    hand = legal_win(random.Random(f"hand:{seed}:{index}"), random_winning_hand, score_hand)
    size = image_size(rng, long_sides)
    tile_set = None
    if one_set is not None:
        from datasets.synth.tile_set import render_layout, set_style

        tile_set = set_style(one_set.seed, one_set.altered, tuple(families) if families else None)
        if one_set.layout:
            from vision.tileset.learn import layout_tiles

            w, h = max(size), min(size)
            photo = render_layout(tile_set, layout_tiles(one_set.layout), f"{seed}:{index}", (w, h))
            return {"image": photo["image"], "scene": photo,
                    "record": {"hand": None, "score": None, "boxes": photo["tiles"], "width": w, "height": h,
                               "style": tile_set.name, "seed": seed, "index": index}}
    scene = render_scene(hand, f"{seed}:{index}", size, families, tile_set=tile_set)
    hand = scene["hand"]
    score = score_hand(hand)
    boxes = [{k: t[k] for k in ("tile", "box", "role", "shown", "ignore") if k in t} for t in scene["tiles"]]
    return {"image": scene["image"], "scene": scene,
            "record": {"hand": hand, "score": score, "boxes": boxes, "width": size[0], "height": size[1],
                       "style": scene["style"], "seed": seed, "index": index}}


def example_name(seed: int, index: int) -> str:
    return f"synth_s{seed}_{index:06d}"


def _write(job) -> int:
    out, seed, index, long_sides, families, quality_range, one_set = job
    import cv2

    from datasets.formats import yolo_label_lines
    example = make_example(seed, index, long_sides, families, one_set)
    name = example_name(seed, index)
    record = example["record"]
    record["image"] = f"{name}.jpg"
    quality = random.Random(f"jpeg:{seed}:{index}").randint(*quality_range)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(example["image"], cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, quality])
    out = Path(out)
    (out / "images" / f"{name}.jpg").write_bytes(buf.tobytes())
    size = {"width": record["width"], "height": record["height"]}
    labels = [b for b in record["boxes"] if not b.get("ignore")]
    cut = [b for b in record["boxes"] if b.get("ignore")]
    def lines(boxes):
        return "".join(f"{line}\n" for line in yolo_label_lines({**size, "boxes": boxes}))

    (out / "labels" / f"{name}.txt").write_text(lines(labels))
    if cut:
        (out / "ignore").mkdir(exist_ok=True)
        (out / "ignore" / f"{name}.txt").write_text(lines(cut))
    else:
        (out / "ignore" / f"{name}.txt").unlink(missing_ok=True)
    (out / "records" / f"{name}.json").write_text(json.dumps(record, ensure_ascii=False))
    return len(labels)


def _keep_freed_memory():
    """Ask glibc to keep freed memory for reuse instead of returning big arrays to the kernel:
    every photo allocates the same large buffers, and fresh pages cost about a fifth of the time."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 256 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 1 << 30)    # M_TRIM_THRESHOLD
    except (OSError, AttributeError):  # not glibc: nothing to tune
        pass


def _init_worker():
    import cv2
    cv2.setNumThreads(1)
    _keep_freed_memory()


def generate(out: str | Path, n: int, seed: int, start: int = 0, workers: int = 1,
             long_sides: list[int] | None = None, families: list[str] | None = None,
             quality: tuple[int, int] = (55, 95), progress: bool = True, one_set: OneSet | None = None) -> dict:
    """Write images start..start+n-1 of `seed` into `out`; returns {"images", "boxes", "seconds",
    "notes"} (notes: `check_art`'s)."""
    from tqdm import tqdm

    from datasets.formats import write_data_yaml
    _scorer()  # fail early and clearly
    notes = check_art()
    if n < 1:
        raise SynthError("--n must be at least 1")
    long_sides = long_sides or [1280]
    out = Path(out)
    for sub in ("images", "labels", "records"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    jobs = [(str(out), seed, i, long_sides, families, quality, one_set) for i in range(start, start + n)]
    t0 = time.perf_counter()
    boxes = 0
    bar = tqdm(total=n, unit="img", disable=not progress, desc=f"synth seed {seed}")
    if workers <= 1:
        _init_worker()
        for job in jobs:
            boxes += _write(job)
            bar.update()
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers, initializer=_init_worker) as pool:
            for count in pool.imap(_write, jobs, chunksize=4):
                boxes += count
                bar.update()
    bar.close()
    seconds = time.perf_counter() - t0
    names = sorted(p.name for p in (out / "images").glob("*.jpg"))
    val = [f"./images/{x}" for k, x in enumerate(names) if k % 20 == 19]
    train = [f"./images/{x}" for k, x in enumerate(names) if k % 20 != 19]
    (out / "train.txt").write_text("".join(x + "\n" for x in train))
    (out / "val.txt").write_text("".join(x + "\n" for x in val))
    write_data_yaml(out, {"train": "train.txt", "val": "val.txt"})
    return {"images": n, "boxes": boxes, "seconds": seconds, "notes": notes}
