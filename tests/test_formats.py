"""The groups-and-knockout format's decisions on hand-made results: draws, playoffs for a
level group top, the knockout's seeding and places."""

from __future__ import annotations

import pytest

from kiosk.scorer.tournament.core import Result, Team
from kiosk.scorer.tournament.formats import (
    draw_into_groups,
    groups_knockout_next,
    groups_knockout_standings,
    individual_standings,
)

pytestmark = pytest.mark.unit

TEAMS = [f"t{i:02d}" for i in range(1, 25)]


def win(round_no: int, winner: str, loser: str) -> Result:
    return Result(round_no, winner, loser, winner, {winner: 1, loser: 0}, {winner: 0, loser: 0})


def test_groups_are_drawn_evenly_and_the_same_every_time():
    groups = draw_into_groups(TEAMS[:20], 8, 5)
    assert sorted(len(g) for g in groups) == [2, 2, 2, 2, 3, 3, 3, 3]
    assert sorted(t for g in groups for t in g) == TEAMS[:20]
    assert groups == draw_into_groups(TEAMS[:20], 8, 5)
    assert groups != draw_into_groups(TEAMS[:20], 8, 6)


def play_groups(groups, beats):
    """Three group rounds in which `beats(a, b)` says whether a beats b."""
    results, stages = [], []
    for _ in range(3):
        plan = groups_knockout_next(TEAMS, 8, 1, results, stages)
        assert plan.stage == "group" and len(plan.pairs) == 8 and len(plan.byes) == 8
        stages.append("group")
        results += [win(len(stages), a, b) if beats(a, b) else win(len(stages), b, a)
                    for a, b in plan.pairs]
    return results, stages


def test_a_three_way_tie_plays_off_until_one_leader_is_left():
    groups = draw_into_groups(TEAMS, 8, 1)
    cycle = groups[0]  # in group A each team beats the next: all on 1 point

    def beats(a, b):
        if a in cycle and b in cycle:
            return cycle.index(b) == (cycle.index(a) + 1) % 3
        return a < b

    results, stages = play_groups(groups, beats)
    plan = groups_knockout_next(TEAMS, 8, 1, results, stages)
    assert plan.stage == "playoff" and len(plan.pairs) == 1
    assert set(plan.pairs[0]) <= set(cycle)
    a, b = plan.pairs[0]
    stages.append("playoff")
    results.append(win(len(stages), a, b))
    plan = groups_knockout_next(TEAMS, 8, 1, results, stages)
    (third,) = set(cycle) - {a, b}
    assert plan.stage == "playoff" and set(plan.pairs[0]) == {a, third}
    stages.append("playoff")
    results.append(win(len(stages), third, a))
    plan = groups_knockout_next(TEAMS, 8, 1, results, stages)
    assert plan.stage == "quarter-final" and len(plan.pairs) == 4
    winners = [third] + [min(g) for g in groups[1:]]  # the lowest id wins elsewhere
    assert plan.pairs[0] == (winners[0], winners[7])  # seed 1 (group A) meets seed 8
    for stage in ("quarter-final", "semi-final", "final"):
        stages.append(stage)
        results += [win(len(stages), min(p), max(p)) for p in plan.pairs]
        plan = groups_knockout_next(TEAMS, 8, 1, results, stages)
    assert plan is None
    table = groups_knockout_standings([Team(t) for t in TEAMS], 8, 1, results, stages)
    knockout = [(s.rank, s.team) for s in table if s.group == "KO"]
    assert knockout[0] == (1, min(winners)) and [r for r, _ in knockout] == [1, 2, 3, 3, 4, 4,
                                                                            4, 4]
    assert len(table) == 24 and {s.group for s in table} == {"KO", *"ABCDEFGH"}


def test_an_individual_events_final_places_run_one_to_the_last_with_their_prize_group():
    """Final places read 「F11」…「F312」: the prize-final group's mark was printed before the
    place across the field (a head referee's review). A place is a number; the group is said
    apart."""
    prelims = [{"a": 30, "b": 20, "c": 10, "d": 0}, {"e": 31, "f": 21, "g": 11, "h": 1}]
    finals = [{"a": 40, "e": 50, "b": 30, "f": 20}, {"c": 40, "g": 30, "d": 20, "h": 45}]
    table = individual_standings([prelims, finals])
    assert [(s.rank, s.team, s.prize, s.group) for s in table] == [
        (1, "e", 1, ""), (2, "a", 1, ""), (3, "b", 1, ""), (4, "f", 1, ""),
        (5, "h", 2, ""), (6, "c", 2, ""), (7, "g", 2, ""), (8, "d", 2, "")]


@pytest.mark.unit
def test_a_tie_the_head_referee_orders_gives_each_player_a_place_of_their_own():
    """rules.md §8: shuangsheng's ties are shown for the head referee to order. Three on 84
    for second: the one placed ahead is second alone, the other two share third; then the
    next placed ahead is third alone."""
    from kiosk.scorer.tournament.formats import individual_standings

    prelims = [{"a": 90, "b": 80, "c": 70, "d": 60}]
    finals = [{"a": 100, "b": 84, "c": 84, "d": 84}]
    said = {s.team: (s.rank, s.tied) for s in individual_standings([prelims, finals])}
    assert said == {"a": (1, False), "b": (2, True), "c": (2, True), "d": (2, True)}
    said = {s.team: (s.rank, s.tied)
            for s in individual_standings([prelims, finals], decided=["d"])}
    assert said == {"a": (1, False), "d": (2, False), "b": (3, True), "c": (3, True)}
    order = [s.team for s in individual_standings([prelims, finals], decided=["d", "c"])]
    assert order == ["a", "d", "c", "b"]
