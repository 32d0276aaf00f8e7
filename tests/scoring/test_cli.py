"""`fanshot score`: the fan table, --json, --jsonl (never stops early), exit codes."""
import json

from fanshot.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_a_fan_table(capsys):
    code, out, _ = run(capsys, "score", "123m456m789m123p5p+5p", "--self-drawn", "--flowers", "2")
    assert code == 0
    assert "清龙" in out and "Pure Straight" in out and "花牌" in out
    assert "total 27 fan" in out and "meets" in out


def test_score_json(capsys):
    code, out, _ = run(capsys, "score", "EEESSSWWWNNN5m+5m", "--json", "--seat-wind", "S", "--prevalent-wind", "W")
    score = json.loads(out)
    assert code == 0 and score["ruleset"] == "mcr" and score["fans"][0]["name_zh"] == "大四喜"
    assert score["hand"]["context"]["seat_wind"] == "S"


def test_score_rules_option(capsys):
    code, out, _ = run(capsys, "score", "{1111m}[2222p]456s789s5p+5p", "--json", "--rules", "mcr-reference")
    assert code == 0 and "明暗杠" in {f["name_zh"] for f in json.loads(out)["fans"]}


def test_score_error_is_a_message_not_a_traceback(capsys):
    code, out, err = run(capsys, "score", "123m456m789m123p5p+6p")
    assert code == 1 and "not_a_winning_hand" in err and "Traceback" not in err
    code, out, err = run(capsys, "score", "123m456m789m123p5p+5p", "--rules", "nope")
    assert code == 1 and "unknown_ruleset" in err


def test_jsonl_scores_every_line_in_order(tmp_path, capsys):
    from scoring import parse_hand
    good = parse_hand("123m456m789m123p5p+5p")
    lines = [json.dumps(good), "{not json", json.dumps({**good, "win_tile": "W0"}), "", json.dumps(good)]
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "score", "--jsonl", str(path), "--rules", "mcr")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(rows) == 4
    assert rows[0]["total"] == rows[3]["total"] > 0
    assert rows[1]["error"]["code"] == "invalid_hand" and rows[1]["error"]["line"] == 2
    assert rows[2]["error"]["code"] == "unknown_tile"


def test_a_hand_and_jsonl_together_are_refused_not_one_ignored(tmp_path, capsys):
    path = tmp_path / "hands.jsonl"
    path.write_text(json.dumps({"concealed": ["W1"] * 2, "melds": [], "win_tile": "W1"}) + "\n")
    code, out, err = run(capsys, "score", "123m456m789m123p5p+5p", "--jsonl", str(path))
    assert code == 2 and out == "" and "not both" in err


def test_jsonl_all_good_exits_zero(tmp_path, capsys):
    from scoring import parse_hand
    path = tmp_path / "hands.jsonl"
    path.write_text(json.dumps(parse_hand("19m19s19pESWNCFP+1m")) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "score", "--jsonl", str(path))
    assert code == 0 and json.loads(out)["total"] >= 88


def test_list_rules(capsys):
    code, out, _ = run(capsys, "score", "--list-rules")
    assert code == 0 and "mcr-reference" in out


def test_check_and_bench_commands(capsys):
    import pytest
    pytest.importorskip("MahjongGB")
    code, out, _ = run(capsys, "score-check", "--hands", "200", "--seed", "3")
    assert code == 0 and "200/200 hands agree" in out
    code, out, _ = run(capsys, "score-bench", "--hands", "100", "--repeat", "1")
    assert code == 0 and "hands/s" in out and "of the reference" in out


def test_lianzhong_context_flags_score_a_heavenly_hand(capsys):
    hand = "123m456m789m123p5p+5p"
    code, out, _ = run(capsys, "score", hand, "--rules", "lianzhong", "--self-drawn", "--json")
    plain = json.loads(out)
    code, out, _ = run(capsys, "score", hand, "--rules", "lianzhong", "--self-drawn", "--dealer",
                       "--first-turn", "initial_deal", "--json")
    score = json.loads(out)
    assert code == 0 and score["ruleset"] == "lianzhong"
    assert "天和" in {f["name_zh"] for f in score["fans"]} and "天和" not in {f["name_zh"] for f in plain["fans"]}
    assert score["total"] == plain["total"] + 168
    assert score["hand"]["context"]["dealer"] is True and score["hand"]["context"]["first_turn"] == "initial_deal"
    code, out, _ = run(capsys, "score", hand, "--rules", "lianzhong", "--self-drawn", "--dealer",
                       "--first-turn", "initial_deal")
    assert code == 0 and "天和" in out and f"total {plain['total'] + 168} fan" in out


def test_lianzhong_context_flags_are_checked_by_the_rule_set(capsys):
    # 天和 needs the dealer: the rule set's own check, reported as a CLI error
    code, _, err = run(capsys, "score", "123m456m789m123p5p+5p", "--rules", "lianzhong", "--self-drawn",
                       "--first-turn", "initial_deal")
    assert code == 1 and "invalid_context" in err and "Traceback" not in err


def test_wild_tile_flag(capsys):
    # a wild 中 stands in for the 5p that completes the pair: 混 read as the best tile
    code, out, _ = run(capsys, "score", "123m456m789m123p5p+C", "--rules", "lianzhong", "--wild-tile", "J1", "--json")
    score = json.loads(out)
    assert code == 0 and score["hand"]["context"]["wild_tile"] == "J1"
    assert score["wild"]["tile"] == "J1" and score["wild"]["stands_for"] == ["B5"]
    code, out, _ = run(capsys, "score", "123m456m789m123p5p+C", "--rules", "lianzhong", "--wild-tile", "C", "--json")
    assert code == 0 and json.loads(out)["wild"]["tile"] == "J1"     # one tile in the notation works too
    code, _, err = run(capsys, "score", "123m456m789m123p5p+5p", "--rules", "lianzhong", "--wild-tile", "X9")
    assert code == 1 and "invalid_context" in err and "X9" in err


def test_lianzhong_flags_are_refused_by_mcr(capsys):
    for flags in (["--dealer"], ["--first-turn", "first_go_around"], ["--wild-tile", "J1"]):
        code, out, err = run(capsys, "score", "123m456m789m123p5p+5p", *flags)
        assert code == 1 and out == "" and "Traceback" not in err
        assert "unknown_context_key" in err and flags[0] in err and "--rules lianzhong" in err
    code, out, err = run(capsys, "score", "123m456m789m123p5p+5p", "--dealer", "--json")
    assert code == 1 and json.loads(out)["error"]["code"] == "unknown_context_key"


def test_jsonl_takes_the_win_condition_flags_as_every_lines_defaults(tmp_path, capsys):
    from scoring import parse_hand, score_hand
    bare = {k: v for k, v in parse_hand("EEE123m456m789m5p+5p").items() if k != "context"}
    lines = [bare, {**bare, "context": {"self_drawn": False}}, {**bare, "context": {"seat_wind": "E"}}]
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, out, _ = run(capsys, "score", "--jsonl", str(path), "--self-drawn", "--seat-wind", "S")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 3
    assert [row["hand"]["context"]["self_drawn"] for row in rows] == [True, False, True]
    assert [row["hand"]["context"]["seat_wind"] for row in rows] == ["S", "S", "E"]
    expected = [score_hand({**bare, "context": context})["total"] for context in (
        {"self_drawn": True, "seat_wind": "S"}, {"self_drawn": False, "seat_wind": "S"},
        {"self_drawn": True, "seat_wind": "E"})]
    assert [row["total"] for row in rows] == expected and len(set(expected)) == 3
    without = run(capsys, "score", "--jsonl", str(path))[1]
    assert [json.loads(line)["hand"]["context"]["self_drawn"] for line in without.splitlines()] == [False, False, False]


def test_jsonl_with_a_bad_flag_is_a_message_not_a_traceback(tmp_path, capsys):
    path = tmp_path / "hands.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    code, out, err = run(capsys, "score", "--jsonl", str(path), "--seat-wind", "X")
    assert code == 1 and out == "" and "invalid_context" in err and "Traceback" not in err
