"""How close the Swiss draft pairs and how even the sides stay: 40 simulated events of 20 and
of 40 teams, five rounds each, every match won by a coin, each pair's sides given as the
director gives them (the team that sat NS less often sits NS).

Prints, per field size, the win-steps between paired teams over rounds 2–5 (a 3-point team
against a 0-point team is one step; fewer is closer to the seed's 强对强、弱对弱) and the most any
team sat one side more than the other after the last round (the aim: 1).

    python bench/bench_swiss_sides.py
"""

from __future__ import annotations

import random
from collections import Counter

from kiosk.scorer.tournament import core
from kiosk.scorer.tournament.core import Result, Team

EVENTS, ROUNDS = 40, 5


def event(teams: int, seed: int) -> tuple[int, int]:
    field = [Team(f"T{i:02d}") for i in range(teams)]
    coin = random.Random(seed)
    results: list[Result] = []
    sides = {t.id: Counter() for t in field}
    last: dict[str, str] = {}
    steps = 0
    for round_no in range(1, ROUNDS + 1):
        lean = {team: sat["NS"] - sat["EW"] for team, sat in sides.items()}
        points = {s.team: s.points for s in core.standings(field, results)}
        for a, b in core.swiss_pairing(field, results, round_no, seed, lean).pairs:
            if round_no > 1:
                steps += abs(points[a] - points[b]) // 3
            if lean[b] < lean[a] or (lean[a] == lean[b] and last.get(a) == "NS"):
                a, b = b, a  # (director.rounds._balance_sides)
            sides[a]["NS"] += 1
            sides[b]["EW"] += 1
            last[a], last[b] = "NS", "EW"
            winner, loser = (a, b) if coin.random() < 0.5 else (b, a)
            results.append(Result(round_no, a, b, winner, {winner: 3, loser: 0}, {a: 0, b: 0}))
    return steps, max(abs(sat["NS"] - sat["EW"]) for sat in sides.values())


def main() -> None:
    for teams in (20, 40):
        runs = [event(teams, seed) for seed in range(EVENTS)]
        print(f"{EVENTS} events of {teams} teams, {ROUNDS} rounds: win-steps between paired teams "
              f"{sum(s for s, _ in runs)} (most in one event {max(s for s, _ in runs)}); "
              f"the most a team sat one side more than the other at the end: "
              f"{max(i for _, i in runs)} (aim 1)")


if __name__ == "__main__":
    main()
