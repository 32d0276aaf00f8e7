"""The score sheet's rules, one test each, as MCR competition play states them."""
from __future__ import annotations

import random

import pytest

from api.storage.errors import GameError
from api.storage.rules import Outcome, hand_seats, payments, running_totals

EAST, SOUTH, WEST, NORTH = 0, 1, 2, 3


def test_self_drawn_each_other_player_pays_eight_plus_the_total():
    assert payments(Outcome("win", winner=SOUTH, total=12)) == (-20, 60, -20, -20)


def test_on_a_discard_the_discarder_pays_eight_plus_the_total_and_the_others_eight():
    assert payments(Outcome("win", winner=EAST, discarder=WEST, total=10)) == (34, -8, -18, -8)


def test_a_drawn_hand_pays_nothing():
    assert payments(Outcome("draw")) == (0, 0, 0, 0)


def test_a_false_win_costs_the_offender_ten_to_each_other_player():
    assert payments(Outcome("false_win", offender=NORTH)) == (10, 10, 10, -30)


def test_a_win_below_eight_fan_is_refused():
    with pytest.raises(GameError) as err:
        payments(Outcome("win", winner=EAST, total=7))
    assert (err.value.status, err.value.code) == (422, "below_minimum")


def test_the_winner_cannot_be_the_discarder():
    with pytest.raises(GameError) as err:
        payments(Outcome("win", winner=EAST, discarder=EAST, total=8))
    assert err.value.code == "winner_discarded"


@pytest.mark.parametrize("seat", [-1, 4, None, True])
def test_a_seat_is_zero_to_three(seat):
    with pytest.raises(GameError) as err:
        payments(Outcome("win", winner=seat, total=8))
    assert err.value.code in ("wrong_seat", "seat_missing")


def test_the_dealer_passes_every_hand():
    assert [hand_seats(n, first_dealer=WEST).dealer for n in range(1, 9)] == [2, 3, 0, 1, 2, 3, 0, 1]


def test_the_dealer_sits_east_and_the_others_follow_counterclockwise():
    assert hand_seats(2, first_dealer=EAST).seat_winds == ("N", "E", "S", "W")


def test_the_prevalent_wind_changes_every_four_hands():
    assert "".join(hand_seats(n).prevalent_wind for n in range(1, 17)) == "EEEESSSSWWWWNNNN"


def test_a_game_has_sixteen_hands():
    with pytest.raises(GameError) as err:
        hand_seats(17)
    assert err.value.code == "game_over"


def test_a_whole_game_of_sixteen_random_hands_sums_to_zero_after_each_hand():
    rng = random.Random(7)
    deltas = []
    for _ in range(16):
        kind = rng.choice(["win", "win", "win", "draw", "false_win"])
        winner = rng.randrange(4)
        if kind == "win":
            discarder = rng.choice([None, *(s for s in range(4) if s != winner)])
            outcome = Outcome("win", winner=winner, discarder=discarder, total=rng.randint(8, 88))
        elif kind == "false_win":
            outcome = Outcome("false_win", offender=winner)
        else:
            outcome = Outcome("draw")
        deltas.append(payments(outcome))
    assert all(sum(delta) == 0 for delta in deltas)
    assert all(sum(after) == 0 for after in running_totals(deltas))
    assert running_totals(deltas)[-1] == tuple(sum(d[s] for d in deltas) for s in range(4))
