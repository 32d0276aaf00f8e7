"""`fanshot batch --ray` on a real Ray instance started on this machine (2 CPUs): the same bytes as
the embedded run on the same photos, the bad photo's error included."""
from __future__ import annotations

import pytest
from batch_photos import make_photos

from fanshot.cli import main

pytest.importorskip("ray", reason="Ray is not installed (pip install 'fanshot[ray]')")


def _outputs(dst) -> dict[str, bytes]:
    """Every file a run wrote but Ray's log: {path below DST: bytes}."""
    return {path.relative_to(dst).as_posix(): path.read_bytes() for path in sorted(dst.rglob("*"))
            if path.is_file() and path.name != "ray.log"}


def test_ray_writes_what_the_embedded_engine_writes(tmp_path, capfd, monkeypatch):
    # `--ray` alone starts an instance of its own, never joins one it finds (RAY_ADDRESS, or a
    # cluster started earlier on this machine)
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:9")
    src = make_photos(tmp_path / "photos")
    args = ["batch", "detect", str(src), "--workers", "2", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "embedded")]) == 1
    assert main([*args, "--out", str(tmp_path / "ray"), "--ray"]) == 1
    err = capfd.readouterr().err
    assert "4 read" in err and "1 failed" in err
    assert err.count("\n") == 2, err  # the two summaries: Ray's own notes go to its log
    embedded, on_ray = _outputs(tmp_path / "embedded"), _outputs(tmp_path / "ray")
    assert "results.jsonl" in embedded and b"not_an_image" in embedded["errors.jsonl"]
    assert len([name for name in embedded if name.startswith(".batch/records/")]) == 4
    assert on_ray == embedded
    assert (tmp_path / "ray" / ".batch" / "ray.log").is_file()
