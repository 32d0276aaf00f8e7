"""The games' storage, the same tests on SQLite and on a real PostgreSQL (conftest.py)."""
from __future__ import annotations

import threading

import pytest

import scoring
from api.storage.entries import HandEntry
from api.storage.errors import GameError
from api.storage.store import GameStore

# North's pung (门风刻 for the player sitting North), a mixed straight: 20 fan, 21 as North.
NORTH_PUNG_HAND = {"concealed": ["F4", "F4", "F4", "W1", "W2", "W3", "B4", "B5", "B6", "T7", "T8", "T9", "J3"],
                   "melds": [], "win_tile": "J3"}


def win(winner, total, discarder=None, photo=None):
    return HandEntry("win", winner=winner, discarder=discarder, total=total, photo=photo)


def refused(call, *args) -> GameError:
    with pytest.raises(GameError) as err:
        call(*args)
    return err.value


def test_a_new_game_has_four_players_and_starts_with_the_first_dealer_east(store):
    sheet = store.create(["Ann", "Bo", "Cy", "Di"], rules="mcr", first_dealer=2)
    assert len(sheet["code"]) == 6 and sheet["version"] == 0 and sheet["hands"] == []
    assert [p["name"] for p in sheet["players"]] == ["Ann", "Bo", "Cy", "Di"]
    assert sheet["next"] == {"number": 1, "prevalent_wind": "E", "dealer": 2, "seat_winds": ["W", "N", "E", "S"]}
    assert store.sheet(sheet["code"].lower()) == sheet  # the code is read in any case


def test_a_recorded_hand_pays_and_moves_the_version(store):
    code = store.create()["code"]
    sheet = store.record(code, 0, win(1, 10, discarder=2))
    assert sheet["version"] == 1
    assert sheet["hands"][0]["payments"] == [-8, 34, -18, -8] == sheet["totals"]
    assert store.sheet(code) == sheet


def test_a_hand_read_or_typed_is_scored_with_the_winds_the_game_supplies(store):
    code = store.create()["code"]
    store.record(code, 0, HandEntry("draw"))
    sheet = store.record(code, 1, HandEntry("win", winner=0, hand=NORTH_PUNG_HAND))  # hand 2: seat 0 is North
    hand = sheet["hands"][1]
    assert hand["hand"]["context"] == {"self_drawn": True, "seat_wind": "N", "prevalent_wind": "E"}
    expected = scoring.score_hand(hand["hand"], "mcr")
    assert hand["total"] == expected["total"] == 21 and "Seat Wind" in [f["name_en"] for f in hand["score"]["fans"]]
    assert hand["payments"] == [87, -29, -29, -29]


def test_a_whole_game_sums_to_zero_and_takes_no_seventeenth_hand(store):
    code = store.create()["code"]
    entries = [win(n % 4, 8 + n, discarder=None if n % 3 == 0 else (n + 1) % 4) for n in range(12)]
    entries += [HandEntry("draw"), HandEntry("false_win", offender=3), win(2, 88), win(0, 16, discarder=2)]
    for version, entry in enumerate(entries):
        sheet = store.record(code, version, entry)
    assert len(sheet["hands"]) == 16 and sheet["over"] and sheet["next"] is None
    assert all(sum(h["scores"]) == 0 for h in sheet["hands"]) and sum(sheet["totals"]) == 0
    assert "".join(h["prevalent_wind"] for h in sheet["hands"]) == "EEEESSSSWWWWNNNN"
    assert refused(store.record, code, 16, HandEntry("draw")).code == "game_over"


def test_a_stale_version_is_refused_with_the_fresh_sheet(store):
    code = store.create()["code"]
    store.record(code, 0, win(0, 8))
    err = refused(store.record, code, 0, win(1, 8))
    assert (err.status, err.code) == (409, "stale_version")
    assert err.params is not None and err.params["sheet"] == store.sheet(code)
    assert len(store.sheet(code)["hands"]) == 1


def _race(store, code: str, version: int) -> list[str]:
    """Seats 0 and 1 record a hand against the same version at the same moment."""
    barrier = threading.Barrier(2)
    results: list[str] = []

    def record(seat: int) -> None:
        barrier.wait()
        try:
            store.record(code, version, win(seat, 8 + seat))
            results.append("recorded")
        except GameError as exc:
            results.append(exc.code)

    threads = [threading.Thread(target=record, args=(seat,)) for seat in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(results)


def test_two_recording_at_once_never_lose_a_hand(store):
    code = store.create()["code"]
    rounds = 8
    assert [_race(store, code, version) for version in range(rounds)] == [["recorded", "stale_version"]] * rounds
    sheet = store.sheet(code)
    assert [h["number"] for h in sheet["hands"]] == list(range(1, rounds + 1)) and sheet["version"] == rounds


def test_undo_removes_the_last_hand_and_its_photo(store):
    code = store.create()["code"]
    store.record(code, 0, win(0, 8))
    store.record(code, 1, win(1, 9, photo=b"\xff\xd8 jpeg"))
    sheet = store.undo(code, 2)
    assert [h["number"] for h in sheet["hands"]] == [1] and sheet["totals"] == [48, -16, -16, -16]
    assert refused(store.photo, code, 2).code == "photo_not_found"
    store.undo(code, 3)
    assert refused(store.undo, code, 4).code == "nothing_to_undo"


def test_an_edited_hand_recomputes_the_sheet_and_keeps_its_photo(store):
    code = store.create()["code"]
    store.record(code, 0, win(0, 8, photo=b"photo one"))
    store.record(code, 1, win(1, 8, discarder=0))
    sheet = store.edit(code, 1, 2, HandEntry("false_win", offender=0))
    assert sheet["hands"][0]["payments"] == [-30, 10, 10, 10]
    assert sheet["hands"][1]["scores"] == [-46, 42, 2, 2] == sheet["totals"]
    assert store.photo(code, 1) == b"photo one" and sheet["hands"][0]["has_photo"]
    assert refused(store.edit, code, 3, 3, HandEntry("draw")).code == "hand_not_found"


def test_a_game_may_end_early(store):
    code = store.create()["code"]
    store.record(code, 0, HandEntry("draw"))
    sheet = store.end(code, 1)
    assert sheet["over"] and sheet["ended_early"] and sheet["next"] is None
    assert refused(store.record, code, 2, HandEntry("draw")).code == "game_over"


@pytest.mark.parametrize("entry, code", [
    (win(4, 8), "wrong_seat"),
    (win(0, 7), "below_minimum"),
    (win(0, 8, discarder=0), "winner_discarded"),
    (HandEntry("win", winner=0, total=8, hand=NORTH_PUNG_HAND), "hand_or_total"),
    (HandEntry("win", winner=0, hand={**NORTH_PUNG_HAND, "win_tile": "J2"}), "not_a_winning_hand"),
    (HandEntry("draw", winner=1), "draw_has_no_players"),
])
def test_bad_hands_are_refused_and_leave_the_sheet_alone(store, entry, code):
    game = store.create()["code"]
    err = refused(store.record, game, 0, entry)
    assert (err.status, err.code) == (422, code)
    assert store.sheet(game)["version"] == 0 and store.sheet(game)["hands"] == []


def test_unknown_games_and_bad_games_are_refused(store):
    assert refused(store.sheet, "NOSUCH").code == "game_not_found"
    assert refused(store.record, "NOSUCH", 0, HandEntry("draw")).status == 404
    assert refused(store.create, ["A", "B", "C"]).code == "wrong_players"
    assert refused(store.create, None, "gongdi-1990").code == "ruleset_not_for_games"
    assert refused(store.create, None, "mcr", 4).code == "wrong_seat"


def test_a_reopened_store_keeps_its_games(store, database):
    code = store.create()["code"]
    store.record(code, 0, win(0, 8, photo=b"kept"))
    again = GameStore.open(*database)  # the migrations run again: nothing to do
    try:
        assert again.sheet(code) == store.sheet(code) and again.photo(code, 1) == b"kept"
    finally:
        again.close()
