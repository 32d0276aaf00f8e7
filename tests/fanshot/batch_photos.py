"""The photos of the batch tests: three views of the committed synthetic hand photo (one in a
subfolder) and a file that is no image, and a runner of `fanshot batch` in this process."""
from __future__ import annotations

from pathlib import Path

from PIL import Image

from fanshot.cli import main

SYNTH_PHOTO = Path(__file__).resolve().parents[1] / "api" / "data" / "synth_hand.jpg"
GOOD = ("a.jpg", "c.jpg", "sub/b.png")
BAD = "bad.jpg"


def make_photos(folder: Path) -> Path:
    """`folder` with GOOD photos and the BAD file; `folder` back."""
    (folder / "sub").mkdir(parents=True)
    with Image.open(SYNTH_PHOTO) as image:
        image.load()
    small = image.resize((image.width * 3 // 4, image.height * 3 // 4))
    small.save(folder / "a.jpg", quality=90)
    image.crop((0, 0, image.width * 7 // 10, image.height)).save(folder / "c.jpg", quality=90)
    small.rotate(180).save(folder / "sub" / "b.png")
    (folder / BAD).write_bytes(b"this is no photo\n")
    return folder


def batch(capsys, *argv: str) -> tuple[int, str, str]:
    """`fanshot batch ARGV --quiet` run here: (exit status, stdout, stderr)."""
    status = main(["batch", *argv, "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


def record_times(dst: Path) -> dict[str, int]:
    """{record file name: its modification time}: which photos a run read."""
    return {path.name: path.stat().st_mtime_ns for path in (dst / ".batch" / "records").glob("*.json")}
