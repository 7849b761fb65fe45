"""Tournament formats, recomputed from match results (docs/rules.md §8 and §6).

- xiamen-2015: Swiss. Round 1 by a seeded random draw (teams of one unit kept apart); later
  rounds strong against strong by the cheapest perfect matching of the field (`pairing`:
  compiled, on a sparse graph proved optimal) that prefers, in this order, no rematch, teams of
  different units (单位), and the closest standings. If no rematch-free pairing exists, the
  fewest rematches are allowed and the pairing says so. With an odd field the lowest
  team that has not had a bye gets it.
- chaodipi-2011: round-robin groups (1 point a win), a playoff flagged for a tie, group winners
  into a knockout with places 1, 2, 3= and 4=.
- shuangsheng-2011: groups of 4 by draw; prize finals by `kiosk.rules.form_prize_finals`.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

# A bye is recorded as a Result with b None; it scores as the event says (usually a win's big
# points and no net levels, the Swiss custom).


@dataclass(frozen=True)
class Team:
    id: str
    name: str = ""
    unit: str = ""  # 单位: teams of one unit avoid each other where they can


@dataclass(frozen=True)
class Result:
    """One match's outcome: `b` None is a bye for `a`. `points` and `net` are big points and net
    levels by team, as the rules core computed them."""

    round: int
    a: str
    b: str | None
    winner: str | None
    points: dict[str, int]
    net: dict[str, int]


@dataclass(frozen=True)
class Standing:
    rank: int
    team: str
    points: int
    net: int
    opponents: int  # the big points of the teams it met (Buchholz)
    played: int
    tied: bool  # shares its rank: the tie-breaks could not separate it
    group: str = ""  # groups formats: the group ("A" …) or "KO" for knockout places
    prize: int = 0  # an individual event's prize-final group (1: the first prize's), 0 none


@dataclass(frozen=True)
class Pairing:
    pairs: tuple[tuple[str, str], ...]
    bye: str | None
    rematches: int  # > 0 only when no rematch-free pairing existed


def standings(teams: Sequence[Team], results: Iterable[Result],
              tie_breaks: Sequence[str] = ("net", "opponents", "head-to-head")
              ) -> list[Standing]:
    """Swiss standings: big points, then the event's tie-breaks in order."""
    results = list(results)
    points: dict[str, int] = defaultdict(int)
    net: dict[str, int] = defaultdict(int)
    met: dict[str, list[str]] = defaultdict(list)
    beat: set[tuple[str, str]] = set()
    for r in results:
        for team in (r.a, r.b):
            if team is not None:
                points[team] += r.points.get(team, 0)
                net[team] += r.net.get(team, 0)
        if r.b is not None:
            met[r.a].append(r.b)
            met[r.b].append(r.a)
            if r.winner is not None:
                beat.add((r.winner, r.b if r.winner == r.a else r.a))
    opponents = {t.id: sum(points[o] for o in met[t.id]) for t in teams}

    def key(team: str) -> tuple[int, ...]:
        values = [points[team]]
        for tie_break in tie_breaks:
            if tie_break == "net":
                values.append(net[team])
            elif tie_break == "opponents":
                values.append(opponents[team])
        return tuple(values)

    order = sorted((t.id for t in teams), key=lambda t: tuple(-v for v in key(t)))
    groups: list[list[str]] = []  # teams the points and tie-breaks cannot separate
    for team in order:
        if groups and key(groups[-1][0]) == key(team):
            groups[-1].append(team)
        else:
            groups.append([team])

    def _standing(rank: int, team: str, tied: bool) -> Standing:
        return Standing(rank, team, points[team], net[team], opponents[team],
                        len(met[team]), tied)

    out: list[Standing] = []
    for group in groups:
        if "head-to-head" in tie_breaks and len(group) == 2:
            a, b = group
            if (b, a) in beat:
                group = [b, a]
            if (a, b) in beat or (b, a) in beat:  # decided: two ranks
                for team in group:
                    out.append(_standing(len(out) + 1, team, False))
                continue
        rank = len(out) + 1
        for team in group:
            out.append(_standing(rank, team, len(group) > 1))
    return out



def swiss_pairing(teams: Sequence[Team], results: Sequence[Result], round_no: int,
                  seed: int, lean: Mapping[str, int] | None = None) -> Pairing:
    """The pairing of `round_no` (1-based). Round 1 is drawn with `seed`. `lean`: each team's
    rounds at NS minus its rounds at EW so far: the sides give way to the standings, within
    two of each other (`swiss`)."""
    ids = [t.id for t in teams]
    had_bye = {r.a for r in results if r.b is None and r.winner == r.a}  # not a missed round
    if round_no == 1:
        order = list(ids)
        random.Random(seed).shuffle(order)
    else:
        order = [s.team for s in standings(teams, results)]
    bye = None
    if len(order) % 2:
        # The lowest team without a bye; when every team has had one, the lowest team.
        bye = next((t for t in reversed(order) if t not in had_bye), order[-1])
        order.remove(bye)
    from .swiss import cheapest  # numpy and rustworkx: only where a round is paired

    # Round 1: the drawn order stands for the standings, so the draw too keeps units apart.
    played = {frozenset((r.a, r.b)) for r in results if r.b is not None}
    matching = cheapest(order, played, {t.id: t.unit for t in teams}, lean=lean)
    pairs = tuple((order[i], order[j]) for i, j in matching.pairs)
    rematches = sum(frozenset(p) in played for p in pairs)
    return Pairing(pairs, bye, rematches)


def round_robin(members: Sequence[str]) -> list[list[tuple[str, str | None]]]:
    """Every member meets every other once (the circle method); None is a bye."""
    field: list[str | None] = list(members)
    if len(field) % 2:
        field.append(None)
    rounds: list[list[tuple[str, str | None]]] = []
    for _ in range(len(field) - 1):
        pairs = [(field[i], field[-1 - i]) for i in range(len(field) // 2)]
        # (the bye second; only one of each pair can be the bye)
        rounds.append([(a, b) if a is not None else (cast(str, b), a) for a, b in pairs])
        field = [field[0], field[-1], *field[1:-1]]
    return rounds


def group_table(members: Sequence[str], results: Iterable[Result]) -> list[Standing]:
    """A round-robin group by points (1 a win); `tied` marks teams a playoff must separate."""
    return standings([Team(m) for m in members], results, tie_breaks=())


@dataclass(frozen=True)
class Bracket:
    """A knockout so far: places decided ("1", "2", "3=", "4=") and the matches to play next."""

    places: dict[str, tuple[str, ...]]
    next: tuple[tuple[str, str], ...]


def knockout(seeds: Sequence[str], winners: dict[tuple[str, str], str]) -> Bracket:
    """The knockout of 8 group winners, seeded 1–8 (1v8, 4v5, 2v7, 3v6; then winners meet in
    that order), given the winners of the matches played so far: the losers of the quarter
    finals share 4th, of the semi finals 3rd."""
    if len(seeds) != 8:
        raise ValueError("the knockout takes 8 group winners")
    s = list(seeds)
    current = [(s[0], s[7]), (s[3], s[4]), (s[1], s[6]), (s[2], s[5])]
    places: dict[str, tuple[str, ...]] = {}
    for name in ("4=", "3=", "2"):
        won = [winners.get(pair) or winners.get((pair[1], pair[0])) for pair in current]
        if None in won:
            return Bracket(places, tuple(p for p, w in zip(current, won, strict=True) if not w))
        places[name] = tuple(b if w == a else a for (a, b), w in zip(current, won, strict=True))
        if name == "2":
            places["1"] = (won[0],)  # type: ignore[assignment]
        current = [(won[i], won[i + 1]) for i in range(0, len(won) - 1, 2)]  # type: ignore[misc]
    return Bracket(places, ())


def draw_groups(players: Sequence[str], seed: int, size: int = 4) -> list[list[str]]:
    """Groups of `size` by a seeded draw (shuangsheng-2011's groups of 4)."""
    if len(players) % size:
        raise ValueError(f"{len(players)} players do not divide into groups of {size}")
    order = list(players)
    random.Random(seed).shuffle(order)
    return [order[i:i + size] for i in range(0, len(order), size)]
