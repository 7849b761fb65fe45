"""docs/rules.md §3: advancing one level at a time, must-play stops, finishing, straight-to-A."""

from __future__ import annotations

import pytest

from .helpers import at_levels, hand

pytestmark = pytest.mark.unit


def test_standard_take_over_never_leaves_must_play_two(rulesets):
    # EW (defenders) at 2 take over with +5: they may not step out of 2 without winning at 2.
    _, result = at_levels(rulesets, "standard-80fen", "9", "2", "N").play(hand(200))
    assert (result.result, result.advance, result.levels) == ("take-over", 0, ("9", "2"))


def test_standard_dealer_winning_at_two_moves_on(rulesets):
    _, result = at_levels(rulesets, "standard-80fen", "2", "2", "N").play(hand(0))
    assert (result.advance, result.levels) == (5, ("7", "2"))


def test_standard_dealer_stops_at_must_play_ten(rulesets):
    _, result = at_levels(rulesets, "standard-80fen", "8", "2", "N").play(hand(0))
    assert (result.advance, result.levels, result.winner) == (2, ("10", "2"), None)


def test_standard_take_over_at_ten_cannot_win(rulesets):
    match, result = at_levels(rulesets, "standard-80fen", "3", "10", "N").play(hand(200))
    assert (result.advance, result.levels, match.winner) == (0, ("3", "10"), None)


def test_standard_dealer_holding_at_ten_wins(rulesets):
    match, result = at_levels(rulesets, "standard-80fen", "3", "10", "E").play(hand(75))
    assert (result.advance, result.levels, result.winner, result.by) == (
        1, ("3", "10"), "EW", "ladder")
    assert match.result().winner == "EW"


def test_chaodipi_must_play_j_stops_a_holding_dealer_from_below(rulesets):
    _, result = at_levels(rulesets, "chaodipi-2011", "10", "2", "N").play(hand(10))  # +7
    assert (result.advance, result.levels) == (1, ("J", "2"))


def test_chaodipi_must_play_j_stops_a_take_over(rulesets):
    _, result = at_levels(rulesets, "chaodipi-2011", "5", "9", "N").play(hand(120))  # +4
    assert (result.advance, result.levels) == (2, ("5", "J"))


def test_chaodipi_dealer_winning_at_j_moves_on_but_stops_at_a(rulesets):
    _, result = at_levels(rulesets, "chaodipi-2011", "J", "2", "N").play(hand(5))  # +8
    assert (result.advance, result.levels, result.winner) == (3, ("A", "2"), None)


def test_chaodipi_take_over_at_a_does_not_win(rulesets):
    match, result = at_levels(rulesets, "chaodipi-2011", "2", "A", "N").play(hand(200))
    assert (result.advance, result.levels, match.winner) == (0, ("2", "A"), None)


def test_chaodipi_zero_goes_straight_to_a_skipping_j(rulesets):
    match, result = at_levels(rulesets, "chaodipi-2011", "3", "K", "N").play(hand(0))
    assert (result.advance, result.levels, match.winner) == (11, ("A", "K"), None)


def test_chaodipi_negative_total_goes_straight_to_a(rulesets):
    # 10 points taken, then 20 against the defenders (E, a defender, two exposed cards): T = -10.
    _, result = at_levels(rulesets, "chaodipi-2011", "5", "2", "N").play(
        hand(10, penalties=[{"code": "exposed-card", "seat": "E", "cards": 2}]))
    assert (result.total, result.levels) == (-10, ("A", "2"))


def test_chaodipi_zero_at_a_wins(rulesets):
    match, result = at_levels(rulesets, "chaodipi-2011", "A", "Q", "S").play(hand(0))
    assert (result.advance, result.winner, result.by) == (1, "NS", "ladder")
    assert match.shown_levels() == ("A", "Q")


def test_xiamen_has_no_must_play_and_a_take_over_can_win(rulesets):
    _, result = at_levels(rulesets, "xiamen-2015", "Q", "4", "E").play(hand(140))  # +3
    assert (result.advance, result.levels, result.winner) == (3, ("A", "4"), "NS")


def test_xiamen_passing_a_counts_one_step_and_shows_a(rulesets):
    _, result = at_levels(rulesets, "xiamen-2015", "K", "4", "N").play(hand(0))  # +5
    assert (result.advance, result.levels, result.winner) == (2, ("A", "4"), "NS")


def test_xiamen_take_over_passes_two_without_stopping(rulesets):
    _, result = at_levels(rulesets, "xiamen-2015", "6", "2", "N").play(hand(180))  # +5
    assert result.levels == ("6", "7")
