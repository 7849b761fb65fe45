"""Tournament formats: Swiss standings and pairings, round robins, the knockout, group draws."""

from __future__ import annotations

import itertools
import random

import pytest

from kiosk.scorer.tournament.core import (
    Result,
    Team,
    draw_groups,
    group_table,
    knockout,
    round_robin,
    standings,
    swiss_pairing,
)

pytestmark = pytest.mark.unit


def win(round_no: int, winner: str, loser: str, net: int = 0, points: int = 3) -> Result:
    return Result(round_no, winner, loser, winner, {winner: points, loser: 0},
                  {winner: net, loser: -net})


def test_standings_by_big_points_then_net_levels_then_opponents_then_head_to_head():
    teams = [Team(t) for t in "ABCDEF"]
    results = [win(1, "A", "B", 2), win(1, "C", "D", 5), win(1, "E", "F", 2),
               win(2, "A", "C", 1), win(2, "B", "E", 2), win(2, "D", "F", 1)]
    table = [(s.rank, s.team, s.points, s.net, s.opponents, s.tied) for s in standings(
        teams, results)]
    assert table == [
        (1, "A", 6, 3, 6, False),
        (2, "C", 3, 4, 9, False),   # the most net levels of the 3-point teams
        (3, "B", 3, 0, 9, False),   # B and E: equal net levels, B met the stronger opponents
        (4, "E", 3, 0, 3, False),
        (5, "D", 3, -4, 3, False),
        (6, "F", 0, -3, 6, False),
    ]


def test_head_to_head_separates_two_teams_level_on_everything():
    teams = [Team("A"), Team("B")]
    results = [win(1, "B", "A", 0)]
    results.append(Result(2, "A", None, "A", {"A": 3}, {"A": 0}))  # a bye for A
    table = standings(teams, results, tie_breaks=("net", "head-to-head"))
    assert [(s.rank, s.team, s.tied) for s in table] == [(1, "B", False), (2, "A", False)]
    level = standings(teams, results, tie_breaks=("net",))
    assert [(s.rank, s.tied) for s in level] == [(1, True), (1, True)]


def play_swiss(teams, rounds, seed):
    rng = random.Random(seed)
    results, pairings = [], []
    for round_no in range(1, rounds + 1):
        pairing = swiss_pairing(teams, results, round_no, seed)
        pairings.append(pairing)
        for a, b in pairing.pairs:
            winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
            results.append(win(round_no, winner, loser, rng.randint(0, 9)))
        if pairing.bye:
            results.append(Result(round_no, pairing.bye, None, pairing.bye,
                                  {pairing.bye: 3}, {pairing.bye: 0}))
    return results, pairings


def test_swiss_sixteen_teams_five_rounds_without_rematches_or_unit_pairs():
    teams = [Team(f"T{i:02d}", unit=f"U{i // 2}") for i in range(16)]  # 8 units of two
    results, pairings = play_swiss(teams, 5, seed=7)
    met = [frozenset((r.a, r.b)) for r in results if r.b]
    assert len(met) == len(set(met)) == 40
    unit = {t.id: t.unit for t in teams}
    assert all(unit[a] != unit[b] for p in pairings for a, b in p.pairs)
    assert all(p.rematches == 0 and p.bye is None for p in pairings)
    for pairing in pairings:
        assert sorted(t for pair in pairing.pairs for t in pair) == sorted(t.id for t in teams)


def test_round_one_is_a_seeded_draw():
    teams = [Team(f"T{i}") for i in range(8)]
    assert swiss_pairing(teams, [], 1, seed=3) == swiss_pairing(teams, [], 1, seed=3)
    assert swiss_pairing(teams, [], 1, seed=3) != swiss_pairing(teams, [], 1, seed=4)


def test_later_rounds_pair_strong_against_strong():
    teams = [Team(f"T{i}") for i in range(8)]
    results, pairings = play_swiss(teams, 2, seed=11)
    points = {s.team: s.points for s in standings(teams, results[:4])}
    assert all(points[a] == points[b] for a, b in pairings[1].pairs)


def test_teams_of_one_unit_avoid_each_other_before_standings():
    teams = [Team("A1", unit="A"), Team("A2", unit="A"), Team("B1", unit="B"),
             Team("B2", unit="B")]
    results = [win(1, "A1", "B2", 5), win(1, "A2", "B1", 1)]  # standings A1, A2, B1, B2
    pairing = swiss_pairing(teams, results, 2, seed=1)
    assert set(map(frozenset, pairing.pairs)) == {frozenset({"A1", "B1"}),
                                                   frozenset({"A2", "B2"})}


def test_byes_go_to_the_lowest_team_without_one():
    teams = [Team(t) for t in "ABCDE"]
    results, pairings = play_swiss(teams, 5, seed=5)
    byes = [p.bye for p in pairings]
    assert len(set(byes)) == 5
    for round_no, pairing in enumerate(pairings[1:], 2):
        before = [r for r in results if r.round < round_no]
        order = [s.team for s in standings(teams, before)]
        had = {r.a for r in before if r.b is None}
        assert pairing.bye == next(t for t in reversed(order) if t not in had)


def test_rematches_only_when_no_pairing_avoids_them():
    teams = [Team(t) for t in "ABCD"]
    _, pairings = play_swiss(teams, 4, seed=2)
    assert [p.rematches for p in pairings] == [0, 0, 0, 2]  # 3 rounds use up every pair


def test_round_robin_meets_everyone_once():
    rounds = round_robin(["a", "b", "c", "d", "e"])
    assert len(rounds) == 5
    games = [frozenset(p) for r in rounds for p in r if p[1] is not None]
    assert sorted(map(sorted, games)) == sorted(map(sorted, map(set, itertools.combinations(
        "abcde", 2))))
    byes = [p[0] for r in rounds for p in r if p[1] is None]
    assert sorted(byes) == list("abcde")


def test_group_table_flags_a_tie_for_a_playoff():
    results = [win(1, "a", "b", points=1), win(1, "c", "a", points=1),
               win(2, "b", "c", points=1)]
    table = group_table(["a", "b", "c"], results)
    assert [(s.points, s.tied) for s in table] == [(1, True)] * 3


def test_knockout_places():
    seeds = [f"G{i}" for i in range(1, 9)]
    qf = {("G1", "G8"): "G1", ("G4", "G5"): "G5", ("G2", "G7"): "G2", ("G3", "G6"): "G6"}
    bracket = knockout(seeds, qf)
    assert bracket.places == {"4=": ("G8", "G4", "G7", "G3")}
    assert bracket.next == (("G1", "G5"), ("G2", "G6"))
    done = knockout(seeds, {**qf, ("G1", "G5"): "G5", ("G2", "G6"): "G2", ("G5", "G2"): "G2"})
    assert done.places == {"4=": ("G8", "G4", "G7", "G3"), "3=": ("G1", "G6"), "2": ("G5",),
                           "1": ("G2",)}
    assert done.next == ()
    with pytest.raises(ValueError):
        knockout(seeds[:6], {})


def test_group_draw_is_seeded_and_covers_everyone():
    players = [f"p{i}" for i in range(12)]
    groups = draw_groups(players, seed=9)
    assert groups == draw_groups(players, seed=9)
    assert sorted(p for g in groups for p in g) == sorted(players)
    assert [len(g) for g in groups] == [4, 4, 4]
    with pytest.raises(ValueError):
        draw_groups(players[:10], seed=1)
