"""Dataset tools: merge with class remapping, split by source photo, stats, sheets, and the CLI."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from datasets import formats, tools
from fanshot.cli import main


def _yolo(root, names, images):
    """A small YOLO folder: images = {file name: [(class index, cx, cy, w, h)]}."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text(f"names: {json.dumps(names)}\nnc: {len(names)}\n")
    for name, boxes in images.items():
        Image.new("RGB", (200, 100), (120, 160, 90)).save(root / "images" / name)
        (root / "labels" / (name.rsplit(".", 1)[0] + ".txt")).write_text(
            "".join(" ".join(str(v) for v in b) + "\n" for b in boxes))
    return root


def test_source_photo_groups_roboflow_copies():
    assert tools.source_photo("IMG_12_jpg.rf.3a82ad70dc2ff0c0ddd4a7649854579e.jpg") == "IMG_12"
    assert tools.source_photo("hand_001_png.rf.0123456789abcdef.jpg") == "hand_001"
    assert tools.source_photo("riichi__IMG_12_jpg.rf.3a82ad70dc2ff0c0.jpg") == "riichi__IMG_12"
    assert tools.source_photo("photo7_aug2.jpg") == "photo7"
    assert tools.source_photo("synth_s1_000003.jpg") == "synth_s1_000003"


def test_merge_remaps_class_names_and_split_keeps_copies_together(tmp_path):
    riichi = _yolo(tmp_path / "riichi", ["1m", "5z", "chun"], {
        f"p{k}_jpg.rf.{h}.jpg": [(0, 0.5, 0.5, 0.1, 0.2), (1, 0.2, 0.2, 0.1, 0.1)]
        for k in range(6) for h in ("aaaaaaaa", "bbbbbbbb", "cccccccc")})
    ours = _yolo(tmp_path / "ours", ["W1", "J3", "BACK"], {"x.jpg": [(2, 0.5, 0.5, 0.2, 0.2)]})
    out = tmp_path / "merged"
    result = tools.merge([f"r={riichi}", str(ours)], out)
    assert result == {"images": 19, "boxes": 37, "sources": {"r": 18, "ours": 1}}
    merged = formats.read_yolo(out)
    tiles = {b["tile"] for r in merged for b in r["boxes"]}
    assert tiles == {"W1", "J3", "BACK"}  # 1m -> W1, 5z (haku) -> J3
    split = tools.split(out, val_share=0.3, seed=1)
    assert split["train"] + split["val"] == 19 and split["val"] > 0
    val = (out / "val.txt").read_text().split()
    train = (out / "train.txt").read_text().split()
    val_sources = {tools.source_photo(f.rsplit("/", 1)[1]) for f in val}
    train_sources = {tools.source_photo(f.rsplit("/", 1)[1]) for f in train}
    assert not val_sources & train_sources
    assert all(len([f for f in val if f"r__p{k}_" in f]) in (0, 3) for k in range(6))


def test_stats_count_boxes_per_class_and_sizes(tmp_path):
    data = [{"file": "a.jpg", "width": 640, "height": 480,
             "boxes": [{"tile": "B5", "box": [0, 0, 10, 20]}, {"tile": "B5", "box": [5, 5, 15, 25]}]},
            {"file": "b.jpg", "width": 640, "height": 480, "boxes": [{"tile": "BACK", "box": [1, 1, 3, 3]}]}]
    s = tools.stats(data)
    assert s["per_class"]["B5"] == {"boxes": 2, "images": 1}
    assert s["per_class"]["BACK"] == {"boxes": 1, "images": 1}
    assert s["image_sizes"] == {"640x480": 2}
    assert "W1" in s["missing_classes"] and "B5" not in s["missing_classes"]
    assert "B5" in tools.format_stats(s)


def test_sheets_and_cli(tmp_path, capsys):
    src = _yolo(tmp_path / "src", ["W1", "J3"], {"a.jpg": [(0, 0.5, 0.5, 0.2, 0.4)], "b.jpg": [(1, 0.3, 0.3, 0.2, 0.2)]})
    assert main(["dataset", "sheet", str(src), "--out", str(tmp_path / "sheet.jpg")]) == 0
    assert Image.open(tmp_path / "sheet.jpg").height == 2 * 74
    assert main(["dataset", "sheet", str(src), "--out", str(tmp_path / "grid.jpg"), "--images", "2"]) == 0
    assert main(["dataset", "convert", str(src), str(tmp_path / "c.json"), "--to", "coco"]) == 0
    assert main(["dataset", "convert", str(tmp_path / "c.json"), str(tmp_path / "back"), "--to", "yolo"]) == 0
    assert [r["boxes"] for r in formats.read_yolo(tmp_path / "back")] == [r["boxes"] for r in formats.read_yolo(src)]
    capsys.readouterr()
    assert main(["dataset", "stats", str(src), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["per_class"]["J3"] == {"boxes": 1, "images": 1} and printed["images"] == 2


def test_cli_errors_are_messages_not_tracebacks(tmp_path, capsys):
    assert main(["dataset", "convert", str(tmp_path / "nope"), str(tmp_path / "x.json"), "--to", "coco"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["dataset", "sheet", str(tmp_path / "nope"), "--out", str(tmp_path / "s.jpg")]) == 2
    assert main(["synth", "--n", "1", "--out", str(tmp_path / "s"), "--styles", "nonsense"]) == 2
    assert "unknown or unavailable styles" in capsys.readouterr().err


def test_synth_command_writes_a_yolo_dataset_with_records(tmp_path):
    out = tmp_path / "synth"
    assert main(["synth", "--n", "3", "--out", str(out), "--seed", "4", "--long-side", "256", "--quiet",
                 "--styles", "procedural,fluffy-regular"]) == 0
    data = formats.read_yolo(out)
    assert len(data) == 3
    for rec in data:
        record = json.loads((out / "records" / (rec["file"].rsplit("/", 1)[1][:-4] + ".json")).read_text())
        assert {"hand", "score", "boxes"} <= set(record)
        # labels/ holds the tiles to name, ignore/ the strays cut by the frame
        for key, boxes in (("boxes", [b for b in record["boxes"] if not b.get("ignore")]),
                           ("ignore", [b for b in record["boxes"] if b.get("ignore")])):
            assert [b["tile"] for b in boxes] == [b["tile"] for b in rec.get(key, [])]
            for mine, yolo in zip(boxes, rec.get(key, [])):
                assert mine["box"] == pytest.approx(yolo["box"], abs=0.01)
        assert {b["role"] for b in record["boxes"]} >= {"concealed", "winning tile"}
    assert any("ignore" in rec for rec in data)


def test_without_a_cjk_font_synth_and_analyze_eval_refuse_and_without_kde_sets_they_say_so(
        tmp_path, capsys, monkeypatch):
    import datasets.synth.art
    import datasets.synth.procedural

    # Pillow's own font has no 萬 or 東: scenes drawn with it carried labels no face showed
    monkeypatch.setattr(datasets.synth.procedural, "font_files", lambda: [])
    out = tmp_path / "s"
    assert main(["synth", "--n", "2", "--out", str(out), "--quiet", "--styles", "procedural"]) == 2
    assert "no CJK font is installed (Debian: fonts-noto-cjk" in capsys.readouterr().err
    assert not list(out.glob("images/*.jpg"))
    assert main(["analyze-eval", "--n", "1", "--layout-only"]) == 2
    assert "analyze-eval: no CJK font" in capsys.readouterr().err
    monkeypatch.undo()
    # without the KDE sets the scenes are others: written, with a note
    monkeypatch.setattr(datasets.synth.art, "kde_sets", lambda: [])
    assert main(["synth", "--n", "1", "--out", str(out), "--long-side", "200", "--quiet", "--styles", "procedural"]) == 0
    captured = capsys.readouterr()
    assert "note: the KDE tile sets are not installed" in captured.err and "wrote 1 images" in captured.out


def test_synth_is_deterministic_whatever_the_number_of_workers(tmp_path):
    common = ["--n", "3", "--seed", "8", "--long-side", "200", "--quiet", "--styles", "procedural,fluffy-black"]
    assert main(["synth", "--out", str(tmp_path / "one"), *common]) == 0
    assert main(["synth", "--out", str(tmp_path / "two"), "--workers", "2", *common]) == 0
    for sub in ("images", "labels", "records"):
        one = sorted((tmp_path / "one" / sub).iterdir())
        two = sorted((tmp_path / "two" / sub).iterdir())
        assert [p.name for p in one] == [p.name for p in two] and len(one) == 3
        assert all(a.read_bytes() == b.read_bytes() for a, b in zip(one, two))


def test_a_layout_photo_fits_its_tiles_whatever_the_set_draws():
    # sets 101, 110, 112, 123 and 143 draw tall tiles with thick bodies and wide row gaps: five rows
    # of them were taller than a 960 px photo, and `fanshot synth --layout` crashed
    from datasets.synth.tile_set import render_layout, set_style
    from vision.tileset.learn import layout_tiles

    for seed in (101, 110, 112, 123, 143, 7):
        photo = render_layout(set_style(seed, True, None), layout_tiles(43), f"{seed}:0", (1280, 960))
        boxes = np.array([t["box"] for t in photo["tiles"]])
        assert len(boxes) == 43 and photo["image"].shape[:2] == (960, 1280)
        assert (boxes[:, 0] >= 0).all() and (boxes[:, 1] >= 0).all() and (boxes[:, 2] <= 1280).all() and (boxes[:, 3] <= 960).all()
