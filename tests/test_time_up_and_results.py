"""docs/rules.md §5 (time up) and §8 (results, big points, net levels, forfeits)."""

from __future__ import annotations

import pytest

from kiosk.rules import EntryError, MatchOver, TeamMatch

from .helpers import at_levels, hand, play

pytestmark = pytest.mark.unit


def test_xiamen_higher_level_wins_at_once_even_mid_hand(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "K", "10", "N")
    for in_progress in (False, True):
        state, decision = match.time_up(hand_in_progress=in_progress)
        assert (decision.winner, decision.finish_hand) == ("NS", False)
        assert (state.winner, state.by) == ("NS", "time-up")


def test_xiamen_equal_levels_between_hands_the_first_to_reach_wins(rulesets):
    match = TeamMatch.start(rulesets["xiamen-2015"], "N")
    match, _ = play(match, hand(45), hand(140))  # NS hold +2 -> 4; EW take over +3 -> 5
    match, _ = play(match, hand(80))             # EW dealing at 5: NS take over +0
    assert match.shown_levels() == ("4", "5")
    match, _ = play(match, hand(75))             # NS dealer holds +1 -> 5, reached at hand 4
    assert match.shown_levels() == ("5", "5")
    ended, decision = match.time_up(hand_in_progress=False)
    assert decision.winner == "EW"  # EW reached 5 at hand 2
    # what broke the tie goes with the result, for the screens and the slip to say
    assert decision.tie == "reached-first"
    assert ended.result().to_json() == {"winner": "EW", "by": "time-up", "tie": "reached-first",
                                        "big_points": {"NS": 0, "EW": 3},
                                        "net_levels": {"NS": 0, "EW": 0}}


def test_xiamen_equal_levels_mid_hand_finish_then_higher_or_hand_winner(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "9", "9", "N")
    pending, decision = match.time_up(hand_in_progress=True)
    assert (decision.winner, decision.finish_hand) == (None, True)
    done, r = pending.play(hand(60))  # NS hold +1 -> 10
    assert (r.winner, r.by, done.winner) == ("NS", "time-up", "NS")
    assert done.tie is None and "tie" not in done.result().to_json()  # (the levels differ)
    done, r = pending.play(hand(85))  # EW take over +0: equal, the side that won the hand
    assert (r.levels, r.winner, r.by) == (("9", "9"), "EW", "time-up")
    assert done.result().tie == "last-hand"


def test_chaodipi_time_up_finishes_the_hand_then_leader_wins(rulesets):
    match = at_levels(rulesets, "chaodipi-2011", "K", "5", "N")
    pending, decision = match.time_up(hand_in_progress=True)
    assert decision.finish_hand and pending.winner is None
    _, r = pending.play(hand(170))  # EW take over +9: 5 -> J (must-play stop)
    assert (r.levels, r.winner) == (("K", "J"), "NS")


def test_chaodipi_tie_goes_to_the_side_that_won_the_last_hand(rulesets):
    match, _ = play(at_levels(rulesets, "chaodipi-2011", "6", "7", "N"), hand(70))  # NS -> 7
    state, decision = match.time_up(hand_in_progress=False)
    assert (decision.winner, state.by) == ("NS", "time-up")


def test_time_up_needs_a_rule_and_a_played_hand(rulesets):
    with pytest.raises(EntryError, match="no time-up rule"):
        TeamMatch.start(rulesets["standard-80fen"], "N").time_up(hand_in_progress=False)
    with pytest.raises(EntryError, match="no hand was played"):
        TeamMatch.start(rulesets["xiamen-2015"], "N").time_up(hand_in_progress=False)


def test_time_up_after_a_win_is_refused(rulesets):
    match, _ = at_levels(rulesets, "xiamen-2015", "A", "2", "N").play(hand(0))
    with pytest.raises(MatchOver):
        match.time_up(hand_in_progress=False)


def test_no_redeal_once_time_is_up(rulesets):
    pending, _ = at_levels(rulesets, "xiamen-2015", "9", "9", "N").time_up(True)
    with pytest.raises(EntryError, match="time is up"):
        pending.play(hand(redeal=True))


def test_xiamen_result_big_points_and_net_levels(rulesets):
    # The seed's own example: A beats 7 by 6 net levels (8 9 10 J Q K).
    match, _ = at_levels(rulesets, "xiamen-2015", "A", "7", "N").play(hand(0))
    result = match.result()
    assert (result.winner, result.by, result.big_points, result.net_levels) == (
        "NS", "ladder", (3, 0), (6, -6))


def test_net_levels_never_go_below_zero(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "5", "9", "N").forfeit("EW")
    assert match.result().net_levels == (0, 0)
    match = at_levels(rulesets, "xiamen-2015", "8", "7", "N").forfeit("EW")
    assert match.result().net_levels == (0, 0)  # adjacent levels: nothing strictly between


def test_forfeit(rulesets):
    match = TeamMatch.start(rulesets["chaodipi-2011"], "N").forfeit("NS")
    result = match.result()
    assert (result.winner, result.by, result.big_points, result.net_levels) == (
        "EW", "forfeit", (0, 1), None)
    with pytest.raises(EntryError):
        TeamMatch.start(rulesets["chaodipi-2011"], "N").forfeit("XY")
    with pytest.raises(MatchOver):
        match.forfeit("EW")


def test_no_result_before_the_end(rulesets):
    assert TeamMatch.start(rulesets["xiamen-2015"], "N").result() is None
