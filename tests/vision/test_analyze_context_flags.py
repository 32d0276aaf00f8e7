"""The win-condition flags: one declaration (fanshot.win_conditions.add_context_arguments) read the same way by
`fanshot score` and `fanshot analyze`."""
from __future__ import annotations

import json

import pytest
from test_analyze import HAND_ROWS, StandIn, png_bytes
from test_layout_scenes import scene

from fanshot.cli import build_parser, main
from scoring.notation import format_hand

CONTEXT_FLAGS = {"--seat-wind", "--prevalent-wind", "--self-drawn", "--last-tile", "--kong-replacement",
                 "--robbing-kong", "--fourth-tile", "--dealer", "--first-turn", "--wild-tile"}


@pytest.fixture
def photo(tmp_path, monkeypatch):
    """A photo that the stand-in detector reads as HAND_ROWS."""
    import vision.detector

    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None: StandIn(scene(HAND_ROWS)))
    path = tmp_path / "hand.png"
    path.write_bytes(png_bytes())
    return str(path)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def options_of(command: str) -> dict:
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    return {flag: action for action in sub._actions for flag in action.option_strings}


def test_both_commands_declare_the_same_context_flags():
    score, analyze = options_of("score"), options_of("analyze")
    assert CONTEXT_FLAGS <= set(score) and CONTEXT_FLAGS <= set(analyze)
    for flag in CONTEXT_FLAGS:
        same = ("dest", "default", "choices", "const", "help")
        assert [getattr(score[flag], k) for k in same] == [getattr(analyze[flag], k) for k in same], flag
    assert "--flowers" in score and "--flowers" not in analyze  # the photo shows the flowers


@pytest.mark.parametrize("flags, expected", [
    ([], {"seat_wind": "E", "prevalent_wind": "E", "self_drawn": False}),
    (["--self-drawn", "--seat-wind", "S", "--prevalent-wind", "W"],
     {"seat_wind": "S", "prevalent_wind": "W", "self_drawn": True}),
    (["--seat-wind", "south", "--prevalent-wind", "n", "--fourth-tile"],
     {"seat_wind": "S", "prevalent_wind": "N", "fourth_tile": True, "self_drawn": False}),
    (["--self-drawn", "--last-tile"], {"self_drawn": True, "last_tile": True}),
    (["--robbing-kong"], {"robbing_kong": True, "self_drawn": False}),
])
def test_score_and_analyze_read_the_flags_into_the_same_context(photo, capsys, flags, expected):
    code, out, err = run(capsys, "analyze", photo, "--json", *flags)
    analyzed = json.loads(out)
    assert code == 0, err
    flowers = ",".join(analyzed["hand"]["flowers"])  # H3: the notation leaves the flowers out
    code, out, err = run(capsys, "score", format_hand(analyzed["hand"]), "--flowers", flowers, "--json", *flags)
    scored = json.loads(out)
    assert code == 0, err
    assert analyzed["hand"]["context"] == scored["hand"]["context"]
    assert expected.items() <= scored["hand"]["context"].items()
    assert analyzed["score"]["total"] == scored["total"]


def test_a_context_the_hand_cannot_have_is_the_same_error_in_both(photo, capsys):
    # no kong in HAND_ROWS, so no kong's replacement tile
    flags = ["--kong-replacement", "--self-drawn"]
    code, out, _ = run(capsys, "analyze", photo, "--json", *flags)
    analyzed = json.loads(out)
    assert code == 1 and analyzed["score"] is None
    code, out, err = run(capsys, "score", format_hand(analyzed["hand"]), "--json", *flags)
    assert code == 1 and json.loads(out)["error"]["code"] == analyzed["error"]["code"] == "kong_replacement_without_kong"


@pytest.mark.parametrize("flags, words", [
    (["--seat-wind", "Q"], ["'Q' is not a wind"]),
    (["--dealer"], ["--dealer", "--rules lianzhong"]),
    (["--wild-tile", "J1"], ["--wild-tile", "--rules lianzhong"]),
])
def test_both_commands_refuse_a_bad_flag_with_a_message(photo, capsys, flags, words):
    code, out, err = run(capsys, "score", "123m456m789m123p5p+5p", *flags)
    assert code == 1 and out == "" and "Traceback" not in err and all(w in err for w in words)
    code, out, err = run(capsys, "analyze", photo, *flags)
    assert code == 2 and out == "" and err.startswith("fanshot analyze: ") and all(w in err for w in words)


def test_analyze_takes_the_lianzhong_flags(photo, capsys):
    code, out, err = run(capsys, "analyze", photo, "--json", "--rules", "lianzhong", "--dealer", "--wild-tile", "C")
    analyzed = json.loads(out)
    assert code == 0, err
    assert analyzed["hand"]["context"]["dealer"] is True and analyzed["hand"]["context"]["wild_tile"] == "J1"
    assert analyzed["score"]["ruleset"] == "lianzhong"


def test_a_first_turn_outside_the_choices_is_an_argparse_error(photo, capsys):
    for argv in (["score", "123m456m789m123p5p+5p"], ["analyze", photo]):
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--first-turn", "sometime"])
        assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err
