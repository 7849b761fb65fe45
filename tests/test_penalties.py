"""docs/rules.md §1 and §7: penalty points by side, per-card counts, effects and counters."""

from __future__ import annotations

import pytest

from kiosk.rules import EntryError, TeamMatch

from .helpers import at_levels, hand, play

pytestmark = pytest.mark.unit


def penalty(code, seat, **kw):
    return {"code": code, "seat": seat, **kw}


def test_points_against_the_dealer_side_are_added(rulesets):
    _, r = at_levels(rulesets, "xiamen-2015", "2", "2", "N").play(
        hand(30, penalties=[penalty("exposed-card", "S")]))
    assert r.total == 40
    assert r.penalties[0].to_json() == {"code": "exposed-card", "seat": "S", "side": "dealer",
                                        "effect": "points", "points": 10, "count": 1}


def test_points_against_the_defenders_are_subtracted(rulesets):
    _, r = at_levels(rulesets, "xiamen-2015", "2", "2", "N").play(
        hand(30, penalties=[penalty("exposed-card", "E")]))
    assert (r.total, r.penalties[0].points, r.penalties[0].side) == (20, -10, "defenders")


def test_per_card_penalties_count_cards(rulesets):
    _, r = at_levels(rulesets, "chaodipi-2011", "2", "2", "N").play(
        hand(50, penalties=[penalty("exposed-card", "N", cards=3),
                            penalty("partner-silent", "S")]))
    assert r.total == 50 + 30 + 80  # chaodipi stacks the card penalty and partner-silent


def test_per_card_penalty_without_a_count_is_refused(rulesets):
    # chaodipi 「甩几张罚几十」: the count decides the cost, so a missing one is never taken as 1
    match = at_levels(rulesets, "chaodipi-2011", "2", "2", "N")
    for code in ("wrong-follow", "failed-throw", "exposed-card", "rearranged"):
        with pytest.raises(EntryError) as err:
            match.play(hand(50, penalties=[penalty(code, "W")]))
        assert err.value.field == "penalties[0].cards"
        assert err.value.problem_key == "rules.entry.cards_missing"
    _, r = match.play(hand(50, penalties=[penalty("failed-throw", "W", cards=3)]))
    assert r.total == 20


@pytest.mark.parametrize(("entry", "field"), [
    (penalty("exposed-card", "E", cards=2), "penalties[0].cards"),        # per occurrence
    (penalty("failed-throw", "E", cards=0), "penalties[0].cards"),
    (penalty("failed-throw", "E", cards=40), "penalties[0].cards"),
    (penalty("failed-throw", "E", cards="2"), "penalties[0].cards"),
    (penalty("no-such-thing", "E"), "penalties[0].code"),
    (penalty("rearranged", "E"), "penalties[0].code"),                    # chaodipi only
    (penalty("exposed-card", "X"), "penalties[0].seat"),
    (penalty("exposed-card", "E", points=20), "penalties[0].points"),     # fixed cost
    (penalty("card-count", "E"), "penalties[0].choice"),                  # needs a choice
    (penalty("card-count", "E", choice="nobody"), "penalties[0].choice"),
    (penalty("time-overrun", "E", choice="points"), "penalties[0].points"),  # amount missing
    (penalty("time-overrun", "E", choice="points", points=12), "penalties[0].points"),
    (penalty("exposed-card", "E", levels=1), "penalties[0].levels"),
])
def test_bad_penalties_are_refused_naming_the_field(rulesets, entry, field):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    with pytest.raises(EntryError) as err:
        match.play(hand(30, penalties=[entry]))
    assert err.value.field == field
    assert str(err.value).startswith(field)


def test_xiamen_card_count_choices(rulesets):
    match = at_levels(rulesets, "xiamen-2015", "2", "2", "N")
    totals = [match.play(hand(30, penalties=[penalty("card-count", "S", choice=c, **kw)]))[1]
              .total for c, kw in (("one-player", {"cards": 2}), ("partners", {}),
                                   ("opponents", {}))]
    assert totals == [50, 50, 30]


def test_xiamen_kitty_wrong_steps_the_dealer_down_at_once(rulesets):
    _, r = at_levels(rulesets, "xiamen-2015", "5", "3", "N").play(
        hand(penalties=[penalty("kitty-wrong", "N")]))
    assert (r.total, r.result, r.advance, r.levels, r.next_dealer) == (
        None, "take-over", 0, ("5", "3"), "E")


def test_xiamen_kitty_wrong_play_on_costs_twenty(rulesets):
    _, r = at_levels(rulesets, "xiamen-2015", "5", "3", "N").play(
        hand(60, penalties=[penalty("kitty-wrong", "N", choice="play-on")]))
    assert (r.total, r.result) == (80, "take-over")


@pytest.mark.parametrize(("code", "seat", "total", "result", "advance"), [
    ("hidden-card", "E", 0, "hold", 5),             # defenders at fault: T = 0
    ("hidden-card", "S", 200, "take-over", 6),      # dealer side at fault: T = 200
    ("hidden-card-trump", "S", 140, "take-over", 3),
])
def test_xiamen_hidden_card_fixes_the_total(rulesets, code, seat, total, result, advance):
    _, r = at_levels(rulesets, "xiamen-2015", "2", "2", "N").play(
        hand(95, penalties=[penalty(code, seat)]))
    assert (r.total, r.result, r.advance) == (total, result, advance)


def test_standard_does_not_pursue_a_wrong_play_found_late(rulesets):
    match = at_levels(rulesets, "standard-80fen", "2", "2", "N")
    with pytest.raises(EntryError) as err:
        match.play(hand(30, penalties=[penalty("wrong-follow", "E", late=True)]))
    assert err.value.field == "penalties[0].late"
    _, r = match.play(hand(30, penalties=[penalty("wrong-follow", "E")]))
    assert r.total == 20


def test_standard_kitty_wrong_found_at_end_of_a_take_over_adds_a_level(rulesets):
    match = at_levels(rulesets, "standard-80fen", "5", "5", "N")
    _, r = match.play(hand(120, penalties=[penalty("kitty-wrong", "N", choice="found-at-end")]))
    assert (r.result, r.advance, r.levels) == ("take-over", 2, ("5", "7"))
    _, r = match.play(hand(40, penalties=[penalty("kitty-wrong", "N", choice="found-at-end")]))
    assert (r.result, r.advance, r.levels) == ("take-over", 0, ("5", "5"))


def test_match_loss_ends_the_match_for_the_other_team(rulesets):
    match, r = at_levels(rulesets, "standard-80fen", "5", "3", "N").play(
        hand(penalties=[penalty("look-back", "W")]))
    assert (r.result, r.winner, r.by, r.levels) == ("match-loss", "NS", "penalty", ("5", "3"))
    assert match.result().big_points is None  # the seed gives no points
    with pytest.raises(EntryError, match="over"):
        match.play(hand(30))


def test_chaodipi_first_time_a_warning_counts_per_side(rulesets):
    match = TeamMatch.start(rulesets["chaodipi-2011"], "N")
    peek = [penalty("kitty-peek", "N")]
    match, rs = play(match, hand(100, penalties=peek), hand(100, penalties=[
        penalty("kitty-peek", "E")]), hand(100, penalties=peek))
    assert [(r.penalties[0].effect, r.penalties[0].count, r.total) for r in rs] == [
        ("warning", 1, 100), ("warning", 1, 100), ("points", 2, 180)]  # hand 3: NS deal


def test_chaodipi_bury_overrun_warns_then_costs_eighty_once_the_referee_confirms(rulesets):
    match = TeamMatch.start(rulesets["chaodipi-2011"], "N")
    bury = [penalty("time-overrun", "N", choice="bury")]
    second = penalty("time-overrun", "S", choice="bury")
    match, (first,) = play(match, hand(40, penalties=bury))
    _, unconfirmed = match.play(hand(40, penalties=[second]))
    _, confirmed = match.play(hand(40, penalties=[{**second, "confirmed": True}]))
    assert [r.total for r in (first, unconfirmed, confirmed)] == [40, 40, 120]
    assert [r.penalties[0].effect for r in (first, unconfirmed, confirmed)] == [
        "warning", "unconfirmed", "points"]
    assert rulesets["chaodipi-2011"].penalties["time-overrun"].referee_confirms
    assert not rulesets["xiamen-2015"].penalties["time-overrun"].referee_confirms


def test_chaodipi_play_overrun_amount_is_the_referees(rulesets):
    match = TeamMatch.start(rulesets["chaodipi-2011"], "N")
    _, r = match.play(hand(40, penalties=[penalty("time-overrun", "E", choice="play-points",
                                                  points=30)]))
    assert r.total == 10
    with pytest.raises(EntryError, match="10 to 80"):
        match.play(hand(40, penalties=[penalty("time-overrun", "E", choice="play-points",
                                               points=90)]))


def test_chaodipi_ruling_can_take_levels(rulesets):
    _, r = at_levels(rulesets, "chaodipi-2011", "8", "6", "N").play(
        hand(60, penalties=[penalty("ruling", "E", choice="levels", levels=2)]))
    assert r.levels == ("10", "4")  # NS held +2; EW went down 2


def test_penalties_are_kept_in_the_replay_line(rulesets):
    _, r = at_levels(rulesets, "xiamen-2015", "2", "2", "N").play(
        hand(30, penalties=[penalty("time-overrun", "E"),
                            penalty("signalling", "N", choice="points", points=15)]))
    assert [p["effect"] for p in r.to_json()["penalties"]] == ["warning", "referee-points"]
    assert r.total == 45
