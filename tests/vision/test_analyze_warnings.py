"""Every warning of the layout has a stable code and params next to its English text
(`warning_details`, in the order of `warnings`); alternatives carry their reading's params."""
from __future__ import annotations

import json

import pytest
from test_analyze import StandIn, png_bytes
from test_layout_scenes import scene

from fanshot.cli import main
from vision.analyze import analyze_image
from vision.layout_warnings import WARNING_CODES, describe_reading, warning

PLAIN = [["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]]


def analyze(dets, context=None):
    result = analyze_image(png_bytes(), context, detector=StandIn(dets))
    assert result["warnings"] == [w["message"] for w in result["warning_details"]]
    assert {w["code"] for w in result["warning_details"]} <= set(WARNING_CODES)
    json.dumps(result)  # plain data
    return result


def details(result, code):
    return [w["params"] for w in result["warning_details"] if w["code"] == code]


def test_a_clean_hand_has_no_warnings():
    result = analyze(scene(PLAIN))
    assert result["warnings"] == [] and result["warning_details"] == []


def test_low_confidence_code_names_the_tiles_and_their_scores():
    dets = scene(PLAIN)
    dets[4]["score"] = 0.31
    dets[9]["score"] = 0.456
    assert details(analyze(dets), "low_confidence") == [
        {"threshold": 0.5, "tiles": [{"tile": "W5", "score": 0.31}, {"tile": "B1", "score": 0.46}]}
    ]


def test_a_tile_read_two_ways():
    dets = scene(PLAIN)
    result = analyze(dets + [dict(dets[0], tile="T1", score=0.4)])
    assert details(result, "tile_read_two_ways") == [{"kept": "W1", "kept_score": 0.95, "other": "T1", "other_score": 0.4}]
    assert result["warnings"][0] == "one tile read two ways: W1 (0.95) or T1 (0.40); kept W1"


def test_winning_tile_not_apart_and_the_alternatives_readings():
    result = analyze(scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3 B4"]]))
    assert details(result, "win_tile_not_apart") == [{"tile": "B4"}]
    assert result["alternatives"]
    for alt in result["alternatives"]:
        reading = alt["reading"]
        assert reading["win_tile"] == alt["hand"]["win_tile"] and reading["win_apart"] is False
        assert reading["melds"] == [m["tiles"] for m in alt["hand"]["melds"]] and reading["left_out"] is None
        assert alt["description"] == describe_reading(reading)


def test_hidden_kong_code_gives_the_total_and_its_range():
    result = analyze(scene([["BACK BACK BACK BACK", "B1 B2 B3 T4 T5 T6 W7 W8 W9 J2", "J2"]]))
    [params] = details(result, "hidden_kong_tile_unknown")
    assert params["total"] == result["score"]["total"]
    assert params["tiles"] == [result["hand"]["melds"][0]["tiles"][0]]
    assert params["min_total"] <= params["total"] <= params["max_total"]


def test_a_tile_left_out_and_the_unusual_reading():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B2 B3", "B4"]])
    dets[12]["score"] = 0.3
    result = analyze(dets)
    assert [w["code"] for w in result["warning_details"]] == ["unusual_layout", "strays_left_out"]
    assert details(result, "strays_left_out") == [{"count": 1, "tiles": ["B2"]}]
    assert details(result, "unusual_layout") == [
        {"reading": {"win_tile": "B4", "win_apart": True, "melds": [], "left_out": ["B2"]}}
    ]


def test_the_english_texts_of_every_code(warning_samples):
    assert set(warning_samples) == set(WARNING_CODES), "a new warning code needs a sample in the root conftest.py"
    texts = {code: warning(code, **params)["message"] for code, params in warning_samples.items()}
    assert texts["tile_read_two_ways"] == "one tile read two ways: B5 (0.80) or BACK (0.10); kept B5"
    assert texts["hidden_kong_tile_unknown"].endswith(
        "scored 12 (as W5 J1), the total most of the possible tiles give (from 10 to 14): "
        "turn two of its tiles face up for an exact score")
    assert texts["unusual_layout"] == (
        "the tiles do not lie as a hand usually does; read as: winning tile B4 (not set apart); "
        "declared melds: W1W2W3, J1J1J1; left out: T9 BACK")
    assert texts["grouping_ambiguous"] == (
        "the grouping can be read more than one way; scored the reading worth most: winning tile B4; "
        "declared melds: W1W2W3, J1J1J1")
    assert describe_reading(dict(warning_samples["unusual_layout"]["reading"], left_out=[])).endswith("left out: none")
    assert texts["strays_left_out"] == "2 tiles away from the hand left out: H1 BACK"
    assert texts["low_confidence"] == "read with low confidence (below 0.5), check: F4 (0.07), T3 (0.40)"
    assert texts["reading_repaired"] == (
        "tile read as W9 taken as W7 (the detector's second choice); tile read as H6 taken as W5 "
        "(the detector's third choice); a faint tile (under the detector's threshold) taken as B3 "
        "(the detector's first choice) so that the hand wins; check them")
    with pytest.raises(KeyError):
        warning("no_such_code")


def test_cli_json_prints_the_codes(tmp_path, capsys, monkeypatch):
    import vision.detector

    dets = scene(PLAIN)
    dets[4]["score"] = 0.31
    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None: StandIn(dets))
    photo = tmp_path / "hand.png"
    photo.write_bytes(png_bytes())
    assert main(["analyze", str(photo), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [w["code"] for w in printed["warning_details"]] == ["low_confidence"]
    assert printed["warnings"] == [printed["warning_details"][0]["message"]]
