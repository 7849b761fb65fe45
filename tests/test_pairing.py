"""The Swiss matching keeps its order — no rematch, then no unit pair, then the closest
standings — on the sparse graph as on the complete one.

Small fields are checked against every perfect matching (an oracle that shares no code with
the matcher); random events of up to 160 teams against the complete graph's optimum.
"""

from __future__ import annotations

import asyncio
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kiosk.scorer.director import pairer as worker
from kiosk.scorer.tournament import swiss as pairing
from kiosk.scorer.tournament.core import Result, Team, standings, swiss_pairing


def tiers_of(pairs, played, unit):
    """(rematches, unit pairs, Σ (place a − place b)²) of pairs given by place."""
    rematches = sum(frozenset((a, b)) in played for a, b, _, _ in pairs)
    units = sum(bool(unit[a]) and unit[a] == unit[b] for a, b, _, _ in pairs)
    return rematches, units, sum((i - j) ** 2 for _, _, i, j in pairs)


def perfect_matchings(places):
    if not places:
        yield []
        return
    first, rest = places[0], places[1:]
    for k, other in enumerate(rest):
        for tail in perfect_matchings(rest[:k] + rest[k + 1:]):
            yield [(first, other), *tail]


@st.composite
def fields(draw, largest=10):
    n = 2 * draw(st.integers(1, largest // 2))
    order = [f"t{i}" for i in range(n)]
    units = draw(st.lists(st.sampled_from(["", "A", "B", "C"]), min_size=n, max_size=n))
    pairs = [frozenset((a, b)) for i, a in enumerate(order) for b in order[i + 1:]]
    played = draw(st.sets(st.sampled_from(pairs))) if pairs else set()
    return order, played, dict(zip(order, units, strict=True))


@pytest.mark.sim
@settings(max_examples=300, deadline=None)
@given(fields(), st.sampled_from([1, 2, pairing.NEAREST]))
def test_the_cheapest_matching_is_the_lexicographic_best_of_all_matchings(field, nearest):
    order, played, unit = field
    found = pairing.cheapest(order, played, unit, nearest=nearest)
    ours = [(order[i], order[j], i, j) for i, j in found.pairs]
    assert sorted(t for a, b, _, _ in ours for t in (a, b)) == sorted(order)
    best = min(tiers_of([(order[i], order[j], i, j) for i, j in m], played, unit)
               for m in perfect_matchings(list(range(len(order)))))
    assert tiers_of(ours, played, unit) == best


def play_event(n, rounds, seed, units):
    """A Swiss event with random results: the teams, the results so far and the pairing of
    each round."""
    rng = random.Random(seed)
    teams = [Team(f"t{i:03d}", unit=f"u{rng.randrange(units)}" if units else "")
             for i in range(n)]
    results: list[Result] = []
    for round_no in range(1, rounds + 1):
        pairing_ = swiss_pairing(teams, results, round_no, seed)
        yield teams, results, pairing_
        for a, b in pairing_.pairs:
            winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
            net = rng.randint(0, 12)
            results.append(Result(round_no, a, b, winner, {winner: 3, loser: 0},
                                  {winner: net, loser: -net}))
        if pairing_.bye:
            results.append(Result(round_no, pairing_.bye, None, pairing_.bye,
                                  {pairing_.bye: 3}, {pairing_.bye: 0}))


@pytest.mark.sim
@settings(max_examples=12, deadline=None)
@given(st.integers(10, 80).map(lambda k: 2 * k), st.integers(0, 10**6),
       st.sampled_from([0, 2, 5, 30]))
def test_sparse_and_complete_graphs_agree_on_random_events(n, seed, units):
    proved = 0
    for teams, results, _ in play_event(n, 7, seed, units):
        played = {frozenset((r.a, r.b)) for r in results if r.b is not None}
        unit = {t.id: t.unit for t in teams}
        order = [s.team for s in standings(teams, results)]
        sparse = pairing.cheapest(order, played, unit)
        matrix = pairing.costs(order, played, unit)
        every = ~np.eye(n, dtype=bool)
        complete = pairing._solve(matrix, every)
        assert complete is not None and sparse.cost == complete.cost
        proved += sparse.proved_sparse
    if units != 2:  # two units across the field force long pairs: the bound rarely proves
        assert proved > 0  # the sparse path is taken, not only the fallback


@pytest.mark.unit
def test_an_event_of_160_teams_never_rematches_and_keeps_units_apart():
    for teams, results, found in play_event(160, 9, 4, 40):
        played = {frozenset((r.a, r.b)) for r in results if r.b is not None}
        unit = {t.id: t.unit for t in teams}
        assert found.rematches == 0
        assert not any(frozenset(p) in played for p in found.pairs)
        assert all(unit[a] != unit[b] for a, b in found.pairs)
        assert sorted(t for p in found.pairs for t in p) == sorted(t.id for t in teams)


@pytest.mark.unit
def test_rematches_are_as_few_as_possible_when_they_cannot_be_avoided():
    order = ["a", "b", "c", "d"]
    played = {frozenset(p) for p in (("a", "b"), ("c", "d"), ("a", "c"), ("b", "d"))}
    found = pairing.cheapest(order, played, {})
    assert [(order[i], order[j]) for i, j in found.pairs] == [("a", "d"), ("b", "c")]
    played.add(frozenset(("a", "d")))
    played.add(frozenset(("b", "c")))  # every pair has met: two rematches, closest first
    found = pairing.cheapest(order, played, {})
    assert [(order[i], order[j]) for i, j in found.pairs] == [("a", "b"), ("c", "d")]


@pytest.mark.unit
def test_sides_give_way_to_the_standings_up_to_two_apart():
    order = ["a", "b", "c", "d"]  # a and b both sat NS once more: they still meet
    pairs = pairing.cheapest(order, set(), {}, lean={"a": 1, "b": 1, "c": -1, "d": -1}).pairs
    assert [(order[i], order[j]) for i, j in pairs] == [("a", "b"), ("c", "d")]
    # both twice more: one of them would sit NS three times more, so they are kept apart
    pairs = pairing.cheapest(order, set(), {}, lean={"a": 2, "b": 2}).pairs
    assert [(order[i], order[j]) for i, j in pairs] == [("a", "c"), ("b", "d")]
    # and of two equally close pairings, the one where fewer teams sit one side again
    order, played = list("abcdef"), {frozenset("ab"), frozenset("be"), frozenset("ef")}
    for lean, expected in (({"a": 1, "c": 1}, [("a", "e"), ("b", "c"), ("d", "f")]),
                           ({"a": -1, "e": -1}, [("a", "c"), ("b", "f"), ("d", "e")])):
        pairs = pairing.cheapest(order, played, {}, lean=lean).pairs
        assert [(order[i], order[j]) for i, j in pairs] == expected, lean


@pytest.mark.unit
def test_an_odd_field_is_refused():
    with pytest.raises(ValueError):
        pairing.cheapest(["a", "b", "c"], set(), {})


@pytest.mark.process
def test_the_server_pairs_in_a_worker_process_and_the_preview_waits_for_it(monkeypatch):
    teams = [Team(f"t{i:02d}", unit=f"u{i % 5}") for i in range(40)]
    results = next(r for _, r, _ in play_event_results(teams, 3))
    expected = swiss_pairing(teams, results, 4, 9)

    def not_here(*args):
        raise AssertionError("paired on the server's own thread")

    monkeypatch.setattr(worker, "swiss_pairing", not_here)
    done: list[int] = []

    async def pair():
        pairer = worker.BackgroundPairer(lambda: done.append(1))
        pairer.bind(asyncio.get_running_loop())
        try:
            assert pairer.ready(teams, results, 4, 9) is None  # the worker starts on it
            await pairer.settled()
            first = pairer.ready(teams, results, 4, 9)
            assert pairer(teams, results, 4, 9) is first  # a round started from the preview
            pairer._worker._process.kill()  # the worker dies: the next job starts another
            assert pairer.ready(teams, results, 5, 9) is None
            await pairer.settled()
            assert pairer.ready(teams, results, 5, 9) is not None
            return first
        finally:
            pairer.close()

    assert asyncio.run(pair()) == expected and done == [1, 1]


@pytest.mark.process
def test_a_pairing_error_in_the_worker_is_raised_where_it_was_asked():
    teams = [Team(["not", "an", "id"]), Team("b")]  # a bug's input: the worker fails on it

    async def pair():
        pairer = worker.BackgroundPairer()
        pairer.bind(asyncio.get_running_loop())
        try:
            pairer.ready(teams, [], 2, 1)
            await pairer.settled()
            with pytest.raises(TypeError):
                pairer.ready(teams, [], 2, 1)
        finally:
            pairer.close()

    asyncio.run(pair())


@pytest.mark.process
def test_a_job_waiting_when_the_server_stops_ends_and_starts_no_worker():
    teams = [Team(f"t{i}") for i in range(4)]
    pairs = worker.Worker()
    with pairs._lock:  # (a job before it holds the worker: this one waits its turn)
        waiting = pairs.submit((teams, [], 1, 1, {}))
        pairs.close()  # the server stops meanwhile
    assert isinstance(waiting.exception(timeout=30), worker.WorkerGone)
    assert pairs._process is None  # no worker was started after the close


@pytest.mark.unit
def test_when_every_team_has_had_a_bye_the_lowest_has_another():
    teams = [Team(t) for t in "abc"]
    results = [Result(r, t, None, t, {t: 3}, {t: 0}) for r, t in ((1, "a"), (2, "b"), (3, "c"))]
    found = swiss_pairing(teams, results, 4, 1)
    assert found.bye == standings(teams, results)[-1].team and len(found.pairs) == 1


def play_event_results(teams, rounds):
    """The results after each round of a random Swiss event of `teams`."""
    rng = random.Random(1)
    results: list[Result] = []
    for round_no in range(1, rounds + 1):
        found = swiss_pairing(teams, results, round_no, 9)
        for a, b in found.pairs:
            winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
            results.append(Result(round_no, a, b, winner, {winner: 3, loser: 0},
                                  {winner: 2, loser: -2}))
    yield teams, results, None
