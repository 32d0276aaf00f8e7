"""`fanshot game`: a game started, hands recorded by name, the sheet shown and exported, and the
errors as a message and exit status 1, in a temporary FANSHOT_DATA_DIR."""
from __future__ import annotations

import csv
import io
import json

import pytest

from fanshot.cli import main


@pytest.fixture
def game(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FANSHOT_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("FANSHOT_DATABASE_URL", raising=False)

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(["game", *argv])
        out, err = capsys.readouterr()
        return code, out, err
    return run


def test_new_record_show_and_export(game, tmp_path):
    status, out, _ = game("new", "--players", "Ann,Bo,Cy,Di", "--dealer", "Cy", "--json")
    sheet = json.loads(out)
    code = sheet["code"]
    assert status == 0 and sheet["first_dealer"] == 2
    assert game("record", code, "--winner", "bo", "--from", "Ann", "--total", "10")[0] == 0
    status, out, _ = game("record", code, "--winner", "Di", "--self-drawn", "--hand", "123m456m789m123p5p+5p")
    assert status == 0 and "Di" in out and "self-drawn" in out
    assert game("record", code, "--false-win", "2")[0] == 0
    status, out, _ = game("show", code, "--json")
    shown = json.loads(out)
    assert [h["outcome"] for h in shown["hands"]] == ["win", "win", "false_win"]
    assert shown["hands"][1]["hand"]["context"]["seat_wind"] == "E"  # Di deals hand 2 (Cy dealt hand 1)
    assert sum(shown["totals"]) == 0
    exported = tmp_path / "sheet.csv"
    assert game("export", code, "--format", "csv", "-o", str(exported))[0] == 0
    rows = list(csv.DictReader(io.StringIO(exported.read_text())))
    assert [r["outcome"] for r in rows] == ["win", "win", "false_win"] and rows[0]["Ann this hand"] == "-18"
    status, out, _ = game("undo", code, "--json")
    assert status == 0 and len(json.loads(out)["hands"]) == 2


@pytest.mark.parametrize("argv, code", [
    (["--winner", "Zed", "--self-drawn", "--total", "8"], "wrong_seat"),
    (["--winner", "Ann", "--total", "8"], "self_drawn_or_discarder"),
    (["--winner", "Ann", "--self-drawn", "--total", "5"], "below_minimum"),
    (["--draw", "--version", "3"], "stale_version"),
])
def test_refused_records_say_why_and_exit_1(game, argv, code):
    game_code = json.loads(game("new", "--players", "Ann,Bo,Cy,Di", "--json")[1])["code"]
    status, out, err = game("record", game_code, *argv)
    assert status == 1 and f"error [{code}]" in err and "Traceback" not in err
    assert json.loads(game("show", game_code, "--json")[1])["hands"] == []


def test_an_unknown_game(game):
    status, _, err = game("show", "NOSUCH")
    assert status == 1 and "error [game_not_found]" in err
