"""What each event format plays next and how it ranks, from the results so far.

Every function here is pure: the director gives it the field, the seed and the recomputed
results, and stores nothing but the rounds it starts. So a scorer rebuilt from a backup pairs
the same rounds again.

- Swiss and single matches: `tournament.swiss_pairing`, standings by big points.
- Groups and knockout (chaodipi-2011): the teams are drawn into the ruleset's groups; each
  group plays a round robin (1 point a win); teams level at the top of a group play off, one
  match at a time, until one is left; the group winners play a knockout seeded in group order
  (A's winner is seed 1): places 1, 2, 3= and 4=.
- Individual groups (shuangsheng-2011): players drawn into groups of 4 play the prelims, one
  group a table; the prize-final groups are formed from the prelim totals (docs/rules.md §6,
  `kiosk.rules.form_prize_finals`) and play a second round; final group 1 plays for the 1st
  prize. A player's seat letter is the order of the draw: E, N, W, S.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...rules import form_prize_finals
from .core import Result, Standing, Team, draw_groups, group_table, knockout, round_robin

KNOCKOUT_STAGES = {4: "quarter-final", 2: "semi-final", 1: "final"}
PLACE_RANKS = {"1": 1, "2": 2, "3=": 3, "4=": 4}
DRAWN_SEATS = ("E", "N", "W", "S")  # a group's players take these letters in draw order


@dataclass(frozen=True)
class RoundPlan:
    """The matches of the next round, one a table: `pairs` of teams (NS, EW), or, in an
    individual event, `groups` of four players in seat order. `byes` sit out; `bye_scores`: a
    bye counts as a win (the Swiss custom), not in a group's round robin."""

    pairs: tuple[tuple[str, str], ...] = ()
    byes: tuple[str, ...] = ()
    stage: str = ""
    note: str = ""
    bye_scores: bool = False
    groups: tuple[tuple[str, ...], ...] = ()

    @property
    def tables(self) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
        """Each table's two sides (an individual group is one side of four)."""
        return [((a,), (b,)) for a, b in self.pairs] + [(g, ()) for g in self.groups]

    def placed(self) -> list[str]:
        """Every team (player) the plan places: at a table, or on a bye."""
        return [x for p in self.pairs for x in p] + list(self.byes) + \
            [x for g in self.groups for x in g]


def group_letter(index: int) -> str:
    return chr(ord("A") + index)


def draw_into_groups(teams: Sequence[str], count: int, seed: int) -> list[list[str]]:
    """`count` groups by a seeded draw, dealt in turn so their sizes differ by at most one."""
    order = list(teams)
    random.Random(seed).shuffle(order)
    return [order[i::count] for i in range(count)]


def among(members: Sequence[str], results: Sequence[Result]) -> list[Result]:
    inside = set(members)
    return [r for r in results if r.a in inside and r.b in inside]


def by_stage(results: Sequence[Result], stages: Sequence[str], stage: str) -> list[Result]:
    return [r for r in results if stages[r.round - 1] == stage]


def groups_knockout_next(teams: Sequence[str], groups: int, seed: int,
                         results: Sequence[Result], stages: Sequence[str]) -> RoundPlan | None:
    """The next round (None: the event is decided). `results` are the finished matches with
    their rounds; `stages` the stage of each round started so far, in order."""
    drawn = draw_into_groups(teams, groups, seed)
    schedules = [round_robin(g) for g in drawn]
    played = sum(stage == "group" for stage in stages)
    if played < max(len(s) for s in schedules):
        pairs = [p for s in schedules if played < len(s) for p in s[played]]
        return RoundPlan(tuple((a, b) for a, b in pairs if b is not None),
                         tuple(a for a, b in pairs if b is None), "group")
    leaders = [_contenders(g, results, stages) for g in drawn]
    playoffs = tuple((c[0], c[1]) for c in leaders if len(c) > 1)
    if playoffs:
        return RoundPlan(playoffs, stage="playoff", note="playoff")
    seeds = [c[0] for c in leaders]
    bracket = knockout(seeds, _knockout_winners(seeds, results, stages))
    if not bracket.next:
        return None
    return RoundPlan(bracket.next, stage=KNOCKOUT_STAGES[len(bracket.next)])


def _contenders(group: Sequence[str], results: Sequence[Result], stages: Sequence[str]
                ) -> list[str]:
    """The teams still level for the group's first place: the top of the group table, less
    those that lost a playoff among them (in group-table order)."""
    table = group_table(group, among(group, by_stage(results, stages, "group")))
    top = [s.team for s in table if s.points == table[0].points]
    playoffs = among(top, by_stage(results, stages, "playoff"))
    lost = {(r.b if r.winner == r.a else r.a) for r in playoffs}
    return [t for t in top if t not in lost]


def _knockout_winners(seeds: Sequence[str], results: Sequence[Result], stages: Sequence[str]
                      ) -> dict[tuple[str, str], str]:
    knockout_stages = set(KNOCKOUT_STAGES.values())
    return {(r.a, r.b): r.winner for r in among(seeds, results)
            if r.b is not None and r.winner and stages[r.round - 1] in knockout_stages}


def groups_knockout_standings(teams: Sequence[Team], groups: int, seed: int,
                              results: Sequence[Result], stages: Sequence[str]
                              ) -> list[Standing]:
    """Places 1, 2, 3= and 4= once the knockout decides them; everyone else by the group
    table (rank within the group, the group's letter in `group`)."""
    drawn = draw_into_groups([t.id for t in teams], groups, seed)
    in_groups = by_stage(results, stages, "group")
    tables = [group_table(g, among(g, in_groups)) for g in drawn]
    points = {s.team: s.points for table in tables for s in table}
    out: list[Standing] = []
    placed: set[str] = set()
    if "group" in stages and all(s != "group" for s in stages[-1:]):
        leaders = [_contenders(g, results, stages) for g in drawn]
        if all(len(c) == 1 for c in leaders):
            seeds = [c[0] for c in leaders]
            bracket = knockout(seeds, _knockout_winners(seeds, results, stages))
            for place, members in bracket.places.items():
                for team in members:
                    played = sum(team in (r.a, r.b) for r in results)
                    out.append(Standing(PLACE_RANKS[place], team, points[team], 0, 0, played,
                                        len(members) > 1, group="KO"))
                    placed.add(team)
            out.sort(key=lambda s: s.rank)
    for index, table in enumerate(tables):
        for s in table:
            if s.team not in placed:
                out.append(Standing(s.rank, s.team, s.points, s.net, s.opponents, s.played,
                                    s.tied, group=group_letter(index)))
    return out


# -- individual groups ---------------------------------------------------------------------


def _ordered(totals: dict[str, int], decided: Sequence[str] = ()) -> list[tuple[str, int]]:
    """A group's players by total, best first; equal totals keep the seat order, but for
    the players the head referee placed ahead of those they tied with (`decided`, in the
    order decided: docs/rules.md §6)."""
    ahead = {p: i for i, p in enumerate(decided)}
    return sorted(totals.items(), key=lambda p: (-p[1], ahead.get(p[0], len(ahead))))


def individual_next(players: Sequence[str], seed: int,
                    prelims: Sequence[dict[str, int]] | None) -> RoundPlan:
    """Round 1 (no prelims yet): the draw. Round 2: the prize finals from the prelim totals
    (each group's {player: total}, in table order)."""
    if prelims is None:
        drawn = draw_groups(players, seed, 4)
        return RoundPlan(groups=tuple(tuple(g) for g in drawn), stage="prelim")
    finals = form_prize_finals([_ordered(g) for g in prelims])
    note = "tied:" + "; ".join(", ".join(tie) for tie in finals.ties_at_cuts) \
        if finals.ties_at_cuts else ""
    return RoundPlan(groups=finals.groups, stage="final", note=note)


def individual_standings(rounds: Sequence[Sequence[dict[str, int]]],
                         playing: Sequence[str] = (),
                         decided: Sequence[str] = ()) -> list[Standing]:
    """After the prize finals: final group by final group (1st prize first), each by its
    total. Before: everyone by prelim total. `rounds`: the totals of each round that every
    table has finished, group by group. While the prelims are played, `rounds` holds the
    groups finished so far and `playing` the players whose table has not finished: they
    count 0 and nothing played, as a Swiss team whose match goes on. `decided`: the players
    the head referee placed ahead of those they tied with, in that order."""
    if not rounds:
        return []
    last = rounds[-1]
    if len(rounds) == 1:
        ranked = _ordered({p: t for g in last for p, t in g.items()}, decided)
        if not playing:
            return _ranks(ranked, "", 1, decided)
        done = {p for g in last for p in g}
        return [replace(s, played=int(s.team in done))
                for s in _ranks([*ranked, *((p, 0) for p in playing)], "", 1, decided)]
    return [Standing(s.rank + 4 * index, s.team, s.points, 0, 0, 2, s.tied, prize=index + 1)
            for index, group in enumerate(last)
            for s in _ranks(_ordered(group, decided), "", 2, decided)]


def _ranks(ranked: Sequence[tuple[str, int]], group: str, played: int,
           decided: Sequence[str] = ()) -> list[Standing]:
    """Competition ranks (1, 2, 2, 4): equal totals share a rank, marked tied, but for a
    player the head referee placed ahead of the rest (`decided`), who has a place alone."""
    ahead = {p: i for i, p in enumerate(decided)}
    keys = [(total, ahead.get(player, len(ahead))) for player, total in ranked]
    return [Standing(keys.index(key) + 1, player, total, 0, 0, played, keys.count(key) > 1,
                     group) for (player, total), key in zip(ranked, keys, strict=True)]
