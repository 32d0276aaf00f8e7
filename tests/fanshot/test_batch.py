"""`fanshot batch` on this machine's processes: a photo that cannot be read reported and the others
written, the exit status, resuming (done photos skipped, failed and lost ones read again), and
the refusals. The real shipped model reads the photos."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from batch_photos import BAD, GOOD, batch, make_photos, record_times

from fanshot.cli import main
from vision.detector import detect_photo, get_detector


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """A detect run on the photos (the bad one among them): its folders, status and stderr."""
    base = tmp_path_factory.mktemp("batch")
    src, dst = make_photos(base / "photos"), base / "out"
    status = main(["batch", "detect", str(src), "--out", str(dst), "--workers", "2", "--quiet"])
    return src, dst, status


def test_bad_photo_reported_and_the_others_written(first_run):
    src, dst, status = first_run
    assert status == 1  # a photo failed
    [error] = [json.loads(line) for line in (dst / "errors.jsonl").read_text().splitlines()]
    assert error == {"path": str(src / BAD), "code": "not_an_image", "message": "not a JPEG, PNG, WebP or HEIC image"}
    lines = [json.loads(line) for line in (dst / "results.jsonl").read_text().splitlines()]
    assert [line["image"] for line in lines] == sorted(GOOD)
    # each line is what `fanshot detect --json` says of the photo
    detector = get_detector(threads=1)
    for line in lines:
        expected = detect_photo(detector, (src / line["image"]).read_bytes())
        assert line == {"image": line["image"], **expected}
        assert len(line["detections"]) >= 10


def test_rerun_reads_only_what_failed_or_is_missing(first_run, tmp_path, capsys):
    shutil.copytree(first_run[0], tmp_path / "photos")
    src, dst = tmp_path / "photos", tmp_path / "out"
    status, _, err = batch(capsys, "detect", str(src), "--out", str(dst), "--workers", "2")
    assert status == 1 and "4 read" in err
    before = record_times(dst)
    results = (dst / "results.jsonl").read_bytes()

    status, _, err = batch(capsys, "detect", str(src), "--out", str(dst), "--workers", "2")
    assert status == 1 and "1 read" in err and "3 done before" in err
    after = record_times(dst)
    changed = {name for name in before if after[name] != before[name]}
    assert len(changed) == 1  # the bad photo's, read again
    assert (dst / "results.jsonl").read_bytes() == results

    # the photo mended: read again, no error left
    shutil.copy(src / "a.jpg", src / BAD)
    status, _, err = batch(capsys, "detect", str(src), "--out", str(dst), "--workers", "2")
    assert status == 0 and "1 read" in err
    assert (dst / "errors.jsonl").read_text() == ""
    assert len((dst / "results.jsonl").read_text().splitlines()) == 4

    # all done: nothing read; a record deleted: that photo alone read again, the same output
    results = (dst / "results.jsonl").read_bytes()
    before = record_times(dst)
    status, _, err = batch(capsys, "detect", str(src), "--out", str(dst), "--workers", "2")
    assert status == 0 and "0 read" in err and record_times(dst) == before
    gone = sorted(before)[0]
    (dst / ".batch" / "records" / gone).unlink()
    status, _, err = batch(capsys, "detect", str(src), "--out", str(dst), "--workers", "1")
    after = record_times(dst)
    assert status == 0 and "1 read" in err
    assert {name for name in after if after[name] != before.get(name)} == {gone}
    assert (dst / "results.jsonl").read_bytes() == results


def test_list_file_and_a_missing_photo(first_run, tmp_path, capsys):
    src = first_run[0]
    listing = tmp_path / "photos.txt"
    listing.write_text(f"# two photos and one that is not there\n{src / 'a.jpg'}\n\n{src / 'sub' / 'b.png'}\n"
                       f"{src / 'gone.jpg'}\n")
    status, out, err = batch(capsys, "prelabel", str(listing), "--out", str(tmp_path / "out"),
                             "--format", "jsonl", "--workers", "1")
    assert status == 1 and "3 photos" in err
    [error] = [json.loads(line) for line in (tmp_path / "out" / "errors.jsonl").read_text().splitlines()]
    assert error["path"] == str(src / "gone.jpg") and error["code"] == "unreadable"
    names = [json.loads(line)["image"] for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert names == ["a.jpg", "sub/b.png"]  # relative to the folder that holds them all
    assert out.strip() == str(tmp_path / "out" / "results.jsonl")


def test_analyze_writes_the_analysis(first_run, tmp_path, capsys):
    from vision.analyze import RESULT_KEYS, analyze_photo

    src = tmp_path / "one"
    src.mkdir()
    shutil.copy(first_run[0] / "a.jpg", src / "a.jpg")
    status, _, _ = batch(capsys, "analyze", str(src), "--out", str(tmp_path / "out"), "--workers", "1",
                         "--self-drawn")
    assert status == 0
    [line] = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    analysis = analyze_photo((src / "a.jpg").read_bytes(), {"self_drawn": True}, "mcr",
                             get_detector(threads=1)).analysis.to_json()
    assert line == {"image": "a.jpg", **{key: analysis[key] for key in RESULT_KEYS}}
    assert line["score"]["total"] > 0


def test_another_job_in_the_same_output_is_refused(first_run, tmp_path, capsys):
    src, dst, _ = first_run
    status, _, err = batch(capsys, "analyze", str(src), "--out", str(dst))
    assert status == 2 and "another job" in err and "reader 'detect' there, 'analyze' now" in err
    # prelabel reads photos as detect does: the records serve it, the failed photo alone is read
    status, out, err = batch(capsys, "prelabel", str(src), "--out", str(dst), "--workers", "1")
    assert status == 1 and "1 read" in err and out.strip() == str(dst / "data.yaml")


@pytest.mark.parametrize("argv, message", [
    (["detect", "{tmp}/nowhere", "--out", "{tmp}/out"], "no such folder or list file"),
    (["detect", "{tmp}", "--out", "{tmp}/file"], "is a file"),
    (["analyze", "{tmp}", "--out", "{tmp}/out", "--rules", "nosuch"], "nosuch"),
    (["detect", "{tmp}", "--out", "{tmp}/out", "--model-dir", "{tmp}"], "model"),
])
def test_bad_arguments_are_a_message_and_status_2(tmp_path, capsys, argv, message):
    (tmp_path / "file").write_text("")
    status, _, err = batch(capsys, *[arg.format(tmp=tmp_path) for arg in argv])
    assert status == 2 and message in err and "Traceback" not in err


def test_a_format_the_kind_does_not_write_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:  # argparse's usage error
        main(["batch", "analyze", str(tmp_path), "--out", str(tmp_path / "o"), "--format", "coco"])
    assert stop.value.code == 2 and "invalid choice: 'coco'" in capsys.readouterr().err


def test_ray_asked_for_where_it_is_not_installed(first_run, tmp_path, capsys, monkeypatch):
    for name in ("ray", "ray.data"):
        monkeypatch.setitem(sys.modules, name, None)  # import ray fails as where it is not installed
    status, _, err = batch(capsys, "detect", str(first_run[0]), "--out", str(tmp_path / "out"), "--ray")
    assert status == 1 and "--ray needs Ray: pip install 'fanshot[ray]'" in err and "Traceback" not in err


def test_a_worker_killed_fails_its_photos_and_the_run_goes_on(first_run, tmp_path):
    """A worker killed (as for its memory) while photos are being read: each photo still ends with
    a record, those it held `worker_lost`, the others read by a new pool."""
    import multiprocessing
    import os
    import signal

    from fanshot.batch.embedded import run_embedded
    from fanshot.batch.job import BatchJob
    from fanshot.batch.records import read_record

    src = first_run[0]
    files = [str(src / name) for name in GOOD * 3]  # 9 photos (each thrice)
    files = [str(shutil.copy(file, tmp_path / f"{n}{os.path.splitext(file)[1]}")) for n, file in enumerate(files)]
    job = BatchJob(kind="detect", dst=str(tmp_path / "out"))
    calls: list[bool] = []

    def done(ok: bool) -> None:
        if not calls:  # after the first photo: one of the pool's workers killed
            os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)
        calls.append(ok)

    run_embedded(job, files, 2, done)
    records = [read_record(job.dst, Path(file)) for file in files]
    assert all(record is not None for record in records) and len(calls) == len(files)
    lost = [record for record in records if not record["ok"]]
    assert lost and all(record["error"]["code"] == "worker_lost" for record in lost)
    assert calls.count(False) == len(lost) and calls.count(True) >= len(files) - 4
