"""docs/rules.md §4: who deals next, grabbed dealers and redeals, for each team ruleset."""

from __future__ import annotations

import pytest

from kiosk.rules import EntryError, TeamMatch

from .helpers import hand, play

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("ruleset_id", "hold", "take_over"), [
    # dealer N: who deals after N holds, and after the defenders take over
    ("xiamen-2015", "S", "E"),       # partner; next clockwise
    ("standard-80fen", "N", "W"),    # same dealer; next counter-clockwise (下家)
    ("chaodipi-2011", "S", "W"),     # partner; next counter-clockwise
])
def test_dealer_rotation(rulesets, ruleset_id, hold, take_over):
    match = TeamMatch.start(rulesets[ruleset_id], "N")
    assert match.play(hand(60))[1].next_dealer == hold
    assert match.play(hand(100))[1].next_dealer == take_over


@pytest.mark.parametrize(("ruleset_id", "order"), [
    ("xiamen-2015", "NESW"), ("standard-80fen", "NWSE"), ("chaodipi-2011", "NWSE")])
def test_take_overs_go_round_the_table_in_play_direction(rulesets, ruleset_id, order):
    match = TeamMatch.start(rulesets[ruleset_id], "N")
    _, results = play(match, *[hand(100)] * 4)
    assert "".join(r.dealer for r in results) == order


def test_xiamen_redeal_of_first_hand_is_grabbed_again(rulesets):
    match = TeamMatch.start(rulesets["xiamen-2015"], "N")
    match, redeal = match.play(hand(redeal=True))
    assert (redeal.result, redeal.total, redeal.advance, redeal.next_dealer) == (
        "redeal", None, None, None)
    with pytest.raises(EntryError) as err:
        match.play(hand(45))
    assert err.value.field == "dealer"
    _, result = match.play(hand(45, dealer="E"))
    assert (result.dealer, result.levels) == ("E", ("2", "4"))


def test_xiamen_later_redeal_keeps_the_dealer(rulesets):
    match, _ = play(TeamMatch.start(rulesets["xiamen-2015"], "N"), hand(45))
    match, redeal = match.play(hand(redeal=True))
    assert (redeal.dealer, redeal.next_dealer, redeal.levels) == ("S", "S", ("4", "2"))


def test_standard_redeal_is_always_grabbed_again(rulesets):
    match, _ = play(TeamMatch.start(rulesets["standard-80fen"], "N"), hand(45), hand(45))
    match, redeal = match.play(hand(redeal=True))
    assert redeal.next_dealer is None
    _, result = match.play(hand(45, dealer="W"))
    assert result.dealer == "W"


@pytest.mark.parametrize("ruleset_id", ["chaodipi-2011"])
def test_rulesets_without_redeal_refuse_one(rulesets, ruleset_id):
    with pytest.raises(EntryError) as err:
        TeamMatch.start(rulesets[ruleset_id], "N").play(hand(redeal=True))
    assert err.value.field == "redeal" and "no redeal" in str(err.value)


def test_a_redeal_carries_no_points(rulesets):
    with pytest.raises(EntryError, match="scores nothing"):
        TeamMatch.start(rulesets["xiamen-2015"], "N").play(hand(30, redeal=True))


def test_a_dealer_that_differs_from_the_computed_one_is_refused(rulesets):
    match = TeamMatch.start(rulesets["xiamen-2015"], "N")
    with pytest.raises(EntryError) as err:
        match.play(hand(45, dealer="E"))
    assert err.value.field == "dealer" and "'N'" in err.value.problem


def test_hands_played_after_a_correction_keep_their_dealer(rulesets):
    match = TeamMatch.start(rulesets["xiamen-2015"], "N")
    _, result = match.play(hand(45, dealer="W", as_played=True))
    assert (result.dealer, result.level, result.levels) == ("W", "2", ("2", "4"))


def test_first_dealer_must_be_known(rulesets):
    match = TeamMatch.start(rulesets["standard-80fen"])
    with pytest.raises(EntryError, match="grabbed"):
        match.play(hand(45))
    with pytest.raises(EntryError):
        TeamMatch.start(rulesets["standard-80fen"], "X")
