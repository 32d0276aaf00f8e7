"""`fanshot tileset eval`: the unseen-set protocol in one command (a tiny run: a few rendered scenes
of an altered set at a small size)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fanshot.cli import main

pytest.importorskip("datasets.synth.generate")
SMALL = ["--one-set", "7", "--altered", "--n", "2", "--long-side", "640"]


def _model_or_skip():
    from vision.detector import get_detector
    from vision.model_spec import ModelNotFoundError

    try:
        if not get_detector().classifier.has_features:
            pytest.skip("the model's classifier has no features output")
    except ModelNotFoundError:
        pytest.skip("no trained model in models/ yet")


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    _model_or_skip()
    return tmp_path_factory.mktemp("tileset-eval")


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["tileset", "eval", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_tiny_run_prints_the_figures_without_and_with_the_profile(work, capsys):
    code, out, err = _run(capsys, *SMALL, "--work", str(work), "--json", "--why")
    assert code == 0, err
    report = json.loads(out)
    assert report["one_set"] == 7 and report["altered"] is True
    learnt = report["profile"]
    assert learnt["source"] == "layout" and learnt["tiles"] == 43 and learnt["examples"] > 43
    assert 0 < learnt["seconds"] < 60
    (row,) = report["rows"]
    assert row["kind"] == "learnt" and row["images"] == 2
    for side in ("without", "with"):
        figures = row[side]
        assert set(figures) >= {"exact_count", "exact_images", "exact_interval", "named_right", "why"}
        assert 0 <= figures["exact_count"] <= 2
    # the altered set's red winds, blue 发 and turned dots: the profile changes the reading, for the better
    assert row["read_otherwise"] >= 1
    assert row["with"]["named_right"] > row["without"]["named_right"]


def test_rendered_photos_are_reused_and_other_sets_are_read_too(work, capsys):
    _run(capsys, *SMALL, "--work", str(work), "--json")  # renders, unless the test above did
    scenes = next(work.glob("scenes-*"))
    listed = scenes / "one.txt"
    listed.write_text(sorted((scenes / "images").iterdir())[0].name + "\n")
    stamp = (scenes / "rendered.json").stat().st_mtime_ns
    code, out, err = _run(capsys, *SMALL, "--work", str(work), "--other", str(listed))
    assert code == 0, err
    assert "rendering" not in err and (scenes / "rendered.json").stat().st_mtime_ns == stamp
    assert "learnt in" in out and f"{scenes.name}/one.txt" in out
    rows = [line for line in out.splitlines() if line.lstrip("* ").startswith(scenes.name)]
    assert len(rows) == 2 and rows[1].split()[1] == "1"  # the other set: its one listed image


def test_it_learns_from_a_given_layout_photo_and_reads_given_scenes(work, capsys):
    _run(capsys, *SMALL, "--work", str(work), "--json")
    layout = next((next(work.glob("layout-*")) / "images").iterdir())
    scenes = next(work.glob("scenes-*"))
    code, out, err = _run(capsys, "--layout", str(layout), "--scenes", str(scenes), "--work", str(work), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["profile"]["file"] == str(layout) and report["one_set"] is None
    assert [r["images"] for r in report["rows"]] == [2]


def test_it_learns_from_labelled_photos(work, capsys):
    _run(capsys, *SMALL, "--work", str(work), "--json")
    scenes = next(work.glob("scenes-*"))
    first = scenes / "first.txt"
    first.write_text(sorted((scenes / "images").iterdir())[0].name + "\n")
    code, out, err = _run(capsys, "--data", str(scenes), "--list", str(first), "--scenes", str(scenes), "--json")
    assert code == 0, err
    learnt = json.loads(out)["profile"]
    assert learnt["source"] == "labelled" and learnt["list"] == str(first) and learnt["examples"] > learnt["tiles"] > 5


@pytest.mark.parametrize("argv, says", [
    ([], "give --one-set SEED"),
    (["--layout", "x.jpg"], "nothing to read"),
    (["--one-set", "7", "--list", "val.txt"], "--list goes with --data"),
])
def test_a_run_without_what_it_needs_says_so(argv, says, capsys):
    code, _, err = _run(capsys, *argv)
    assert code == 2 and says in err


def test_a_layout_photo_that_is_not_a_photo_is_refused(work, tmp_path, capsys):
    bad = tmp_path / "layout.jpg"
    bad.write_bytes(b"not a jpeg")
    code, _, err = _run(capsys, "--layout", str(bad), "--other", str(tmp_path), "--work", str(work))
    assert code == 2 and "Traceback" not in err and err.startswith("fanshot tileset eval:")


def test_the_finder_made_blind_to_a_tile_in_the_layout_and_the_scenes(work, capsys):
    # a set whose blank dragon the finder misses: the layout's is found in its row's gap, and the
    # scenes are read with the finder as blind (the sets the profile was not learnt for: as it is)
    _, plain, _ = _run(capsys, *SMALL, "--work", str(work), "--json")
    scenes = next(work.glob("scenes-*"))
    code, out, err = _run(capsys, *SMALL, "--work", str(work), "--json", "--finder-hard", "J3:0", "--other", str(scenes))
    assert code == 0, err
    report = json.loads(out)
    assert report["finder_hard"] == {"tile": "J3", "factor": 0.0}
    assert report["profile"]["missed"] == 1 and report["profile"]["tiles"] == 43
    blind, seen = report["rows"]  # the same scenes: read with the finder blind to J3, and as it is
    assert blind["kind"] == "learnt" and seen["kind"] == "other"
    assert blind["without"]["located_recall"] <= seen["without"]["located_recall"]
    assert seen["without"] == json.loads(plain)["rows"][0]["without"]  # the finder as it is, none hidden
    code, _, err = _run(capsys, *SMALL, "--work", str(work), "--finder-hard", "Q3")
    assert code == 2 and "a tile code and a factor" in err
