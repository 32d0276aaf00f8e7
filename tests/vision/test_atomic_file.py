import os
import stat

import pytest

from vision import atomic_file
from vision.atomic_file import write_atomically


def test_writes_text_and_bytes_and_keeps_the_mode(tmp_path):
    path = tmp_path / "sub" / "a.txt"
    write_atomically(path, "一萬\n")
    assert path.read_text(encoding="utf-8") == "一萬\n"
    os.chmod(path, 0o640)
    write_atomically(path, b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in path.parent.iterdir()] == ["a.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "a.txt"
    write_atomically(path, "old")

    def broken_replace(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(atomic_file.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk gone"):
        write_atomically(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
