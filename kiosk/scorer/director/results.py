"""Results and rulings: every match recomputed from its table's events by the tables' own
fold (the rules core), the head referee's rulings over them (recorded with who and when,
removable with a reason), the standings, and closing the event (which freezes the results
until it is reopened, with a reason)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...i18n import catalog
from ...rules import Ruleset, TeamMatch
from ...rules.errors import Words, words
from ...table.state import MatchState
from ..tournament import formats
from ..tournament.core import Result, Standing, standings
from .base import SWISS_FORMATS, DirectorBase, confirm_first, refuse
from .folds import Folds, TableFold, Unscored
from .triage import number_list

RULING_KINDS = ("forfeit", "disqualification", "adjusted")
CHECKPOINT_NAME = "folds.sqlite"
WARM_FOR = 300.0  # seconds the server's folds follow the events after they were last asked for
MAX_REASON = 200


@dataclass(frozen=True)
class Ruling:
    id: int
    round: int
    table: int
    kind: str
    loser: str  # NS or EW
    net: int
    reason: str
    at: float
    by: str
    removed_at: float | None
    removed_by: str
    removed_reason: str
    # A forfeit's or disqualification's net levels, as the match stood when it was ruled
    # (None in rulings recorded before they were kept: computed from the match as it is).
    net_at_ruling: int | None = None

    @property
    def given_net(self) -> int | None:
        """The net levels it gives: the head referee's for an adjusted result, the match's as
        it stood for a forfeit or disqualification (None: not kept, see `net_at_ruling`)."""
        return self.net if self.kind == "adjusted" else self.net_at_ruling

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class ResultsAndRulings(DirectorBase):
    folds: Folds
    folded_elsewhere: bool  # the hall's process folds as events come (`hall/process.py`)
    _fold_asked: float  # when these folds were last asked for (time.monotonic)
    _folded_at: tuple[int, int] | None
    _resumed: bool  # the checkpoint was looked at
    _results: dict[tuple[int, int], tuple[Any, Result | None, str]]  # (the table's forfeit)
    _standings: tuple[list[Any], list[Standing]] | None

    # -- what the events say ----------------------------------------------------------------

    def fold(self, table: int) -> TableFold:
        """The table's matches, folded from its events (only the new ones since last time)."""
        self._fold_asked = time.monotonic()
        return self._fold(table)

    def keep_folds_warm(self) -> None:
        """With the hall's process folding (`folded_elsewhere`): fold as the events come while
        these folds are in use — asked for in the last WARM_FOR seconds, as the head referee's
        pages do — so that a page does not wait for all that came since the last one."""
        if time.monotonic() - self._fold_asked < WARM_FOR:
            self._fold(0)

    def _fold(self, table: int) -> TableFold:
        version = self.version()
        if version != self._folded_at:  # something was committed since
            self._resume()
            self._folded_at = version
            self.folds.update(self.store.db.conn, self.store.landed)
        return self.folds.table(table)

    def _resume(self) -> None:
        """Start from the checkpoint at the first look; with the hall's process folding,
        also whenever it has written one further on than these folds (less to fold)."""
        if not self._resumed or self.folded_elsewhere:
            self.folds.load(self.checkpoint_path, self.store.db.conn, newer=self._resumed)
            self._resumed = True

    @property
    def checkpoint_path(self) -> Path:
        """The folds' checkpoint (a cache the server writes beside the store)."""
        return self.store.path.with_name(CHECKPOINT_NAME)

    def match_state(self, table: int, round_no: int) -> MatchState | None:
        """The table's match for this event's round `round_no` (by its setup, not by the
        journal's name for it: a kiosk may have played a practice match called "1"). A match
        the kiosk dropped, or set up for an earlier start of the round (taken back since), is
        not the round's."""
        found = self._match(table, round_no)
        return found[1] if found else None

    def _match(self, table: int, round_no: int) -> tuple[str, MatchState] | None:
        event = self.event()
        start = self.round_start(round_no)
        return self.fold(table).find(event.match_name, round_no, table, start) if event else None

    def problems(self, table: int, fresh: bool = True) -> list[str]:
        """Why some of the table's matches are not scored, in English: for the kiosk's link,
        the hall's data and logs. `fresh` False: as the last fold left them (a kiosk's batch
        is answered without folding it: the hall feed folds every table's new events at once)."""
        found = self.fold(table) if fresh else self.folds.table(table)
        return [f"match {name}: {u.text}" for name, u in found.unscored.items()]

    def unscored(self, table: int) -> list[Words]:
        """Why some of the table's matches are not scored, in words for the head referee."""
        return [unscored_words(name, u) for name, u in self.fold(table).unscored.items()]

    # -- results ----------------------------------------------------------------------------

    def round_results(self, round_no: int) -> dict[int, Result | None]:
        """Each table's result in `round_no`."""
        return dict(self._cached(("round results", round_no),
                                 lambda: self._read_round_results(round_no)))

    def _read_round_results(self, round_no: int) -> dict[int, Result | None]:
        """Each table's result in `round_no`, kept per table until its match, ruling or
        assignment changes (a big event's earlier rounds are not recomputed)."""
        frozen = self._frozen()
        if frozen is not None:
            return {t: r for (rnd, t), r in frozen.items() if rnd == round_no}
        ruleset = self.ruleset()
        rulings = self._kept("rulings by match", lambda: {
            (r.round, r.table): r for r in self.rulings()})
        out: dict[int, Result | None] = {}
        for table, ns, ew in self.assignments(round_no):
            found = self._match(table, round_no)
            ruling = rulings.get((round_no, table))
            revision = (found[0], self.fold(table).revisions.get(found[0])) if found else None
            key = (ns, ew, revision, ruling, ruleset.sha256)
            cached = self._results.get((round_no, table))
            if cached is None or cached[0] != key:
                state = found[1] if found else None
                cached = self._results[(round_no, table)] = (
                    key, _result(ruleset, round_no, ns, ew, state, ruling),
                    _forfeit_kind(state, ruling))
            out[table] = cached[1]
        return out

    def forfeits(self, round_no: int) -> dict[int, str]:
        """The tables of `round_no` whose own referee decided the match by forfeit or
        disqualification (the kind), where no ruling overrides it: kept beside each table's
        result (a lookup a match took 37 µs, too long for every match of a big event)."""
        def read() -> dict[int, str]:
            self.round_results(round_no)
            out = {}
            for table, _, _ in self.assignments(round_no):
                # (none kept for a closed event's results, frozen before this start)
                kept = self._results.get((round_no, table))
                kind = kept[2] if kept else _forfeit_kind(self.match_state(table, round_no),
                                                          self._live_ruling(round_no, table))
                if kind:
                    out[table] = kind
            return out
        return dict(self._cached(("forfeits", round_no), read))

    def results(self) -> list[Result]:
        """Every finished match, bye and missed round of a late entry, recomputed from the
        events and the rulings (team events; an individual event's results are its groups'
        totals). Frozen while the event is closed."""
        return list(self._cached("results", self._read_results))

    def _read_results(self) -> list[Result]:
        event = self.event()
        if event is None or event.individual:
            return []
        out: list[Result] = []
        bye_points = self.bye_points()
        for round_no in range(1, self.current_round() + 1):
            out += [r for r in self.round_results(round_no).values() if r is not None]
            if self.round_start(round_no) is not None:  # (a bye counts once its round began)
                out += [Result(round_no, team, None, team, {team: bye_points}, {team: 0})
                        for team in self.byes(round_no)]
        if event.format in SWISS_FORMATS:
            out += [Result(round_no, team, None, None, {team: points}, {team: 0})
                    for round_no, team, points in self.missed_rounds()]
        return out

    def standings(self) -> list[Standing]:
        event = self.event()
        if event is None:
            return []
        if event.individual:
            totals = [t for t in (self.group_totals(r)
                                  for r in range(1, self.current_round() + 1)) if t is not None]
            if totals or self.round_start(1) is None:
                return formats.individual_standings(totals, decided=self.tie_order())
            # the prelims under way: the tables finished so far, the others still at 0
            done = self.finished_groups(1)
            seated = {p for seats in self.seats(1).values() for p in seats.values()}
            return formats.individual_standings(
                [done], sorted(seated - {p for g in done for p in g}), self.tie_order())
        if event.format == "groups-knockout":
            return formats.groups_knockout_standings(
                self.teams(), self.ruleset().event.groups or 1, event.seed,
                self.results(), self.stages())
        results, teams = self.results(), self.teams()
        tie_breaks = self.tie_breaks()
        key = [*results, *teams, tie_breaks]  # results are kept per match: mostly the same
        if self._standings is None or self._standings[0] != key:
            self._standings = (key, standings(teams, results, tie_breaks))
        return list(self._standings[1])

    def tie_order(self) -> list[str]:
        """An individual event's players placed ahead of those they tied with, in the order
        the head referee decided (rules.md §8: ties are the head referee's to order)."""
        return json.loads(self.store.setting("tie_order") or "[]")  # type: ignore[no-any-return]

    def order_tie(self, player: str, undo: bool = False, by: str = "") -> None:
        """Place `player` ahead of the others who share their place (again for another of
        them: the next place), or (`undo`) take that back: they share it again."""
        event = self._open_event()
        if not event.individual:
            raise refuse("admin.error.tie_individual")
        row = self.team(player)
        order = self.tie_order()
        if undo:
            if row.id not in order:
                raise refuse("admin.error.tie_not_ordered", player=self.label(row.id))
            order.remove(row.id)
        else:
            standing = next((s for s in self.standings() if s.team == row.id), None)
            if standing is not None and not standing.prize:  # (the finals decide the places)
                raise refuse("admin.error.tie_before_finals")
            if standing is None or not standing.tied:
                raise refuse("admin.error.not_tied", player=self.label(row.id))
            order.append(row.id)
        with self.store.db.atomic():
            self.store.db.execute("INSERT OR REPLACE INTO settings VALUES ('tie_order', ?)",
                                  [json.dumps(order)])
            self._audit(by, "tie.undo" if undo else "tie.order", player=self.label(row.id))
        self._changed()

    def tie_breaks(self) -> tuple[str, ...]:
        return ("net", "opponents", "head-to-head") \
            if self.ruleset().result.tie_break == "net-levels" else ("opponents", "head-to-head")

    # -- rulings ----------------------------------------------------------------------------

    def record_ruling(self, table: int, kind: str, loser: str, reason: str,
                      round_no: int | None = None, net: int = 0, by: str = "",
                      confirm: bool = False) -> Ruling:
        """A head referee's ruling on a match of any round: `forfeit` or `disqualification`
        of the side `loser` (NS or EW), or an `adjusted` result that `loser` loses by `net`
        levels. A match has one ruling at a time: remove it to rule again. A forfeit or
        disqualification ends the match at the table too, for good; an adjusted result changes
        only the scores: on a match the table has not finished, either is asked to confirm
        first, saying so."""
        event = self._open_event()
        round_no = round_no or self.current_round()
        if event.individual:
            raise refuse("admin.error.individual_ruling")
        if kind not in RULING_KINDS:
            raise refuse("admin.error.ruling_kind", kind=kind)
        if loser not in ("NS", "EW"):
            raise refuse("admin.error.ruling_side")
        reason = " ".join(reason.split())
        if not reason:
            raise refuse("admin.error.ruling_reason")
        if len(reason) > MAX_REASON:
            raise refuse("admin.error.reason_long", most=MAX_REASON)
        if not 1 <= round_no <= self.current_round():
            raise refuse("admin.error.no_such_round", round=round_no,
                         current=self.current_round())
        if not any(t == table for t, _, _ in self.assignments(round_no)):
            raise refuse("admin.error.no_match_at", table=table, round=round_no)
        if self.round_start(round_no) is None:
            raise refuse("admin.error.ruling_not_started", round=round_no)
        most = self.ruleset().most_net_levels
        if net and not event.net_levels:
            raise refuse("admin.error.net_not_counted")
        if not 0 <= net <= most:
            raise refuse("admin.error.net_range", most=most)
        if kind != "adjusted" and net:
            raise refuse("admin.error.net_only_adjusted")
        live = self._live_ruling(round_no, table)
        if live is not None:
            raise refuse("admin.error.ruled_already", table=table, round=round_no,
                         where=words("admin.where.unrule"))
        if not confirm and self._in_play(round_no, table):
            if kind == "adjusted":
                raise confirm_first("admin.confirm.adjusted_in_play", round=round_no,
                                    table=table)
            ns, ew = self.teams_at(round_no, table)
            raise confirm_first("admin.confirm.ends_match", round=round_no, table=table,
                                team=self.label(ns if loser == "NS" else ew),
                                kind=words(f"admin.ruling.kind.{kind}"))
        with self.store.db.atomic():
            ruling_id = self._insert_ruling(round_no, table, kind, loser, net, reason, by)
        self._changed()
        return next(r for r in self.rulings(removed=True) if r.id == ruling_id)

    def _insert_ruling(self, round_no: int, table: int, kind: str, loser: str, net: int,
                       reason: str, by: str) -> int:
        """Inside the caller's transaction. A forfeit or disqualification keeps the net levels
        of the match as it stands now: hands a table plays after it change nothing."""
        data: dict[str, Any] = {"net": net}
        if kind != "adjusted":
            data["net_at_ruling"] = forfeit_net(self.ruleset(), self.match_state(table, round_no),
                                                loser)
        cursor = self.store.db.execute(
            "INSERT INTO rulings (round, table_number, kind, loser, data, reason, at, by) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [round_no, table, kind, loser, json.dumps(data), reason, self.clock(), by])
        ns, ew = self.teams_at(round_no, table)
        self._audit(by, "ruling.record", round=round_no, table=table, kind=kind,
                    loser=self.label(ns if loser == "NS" else ew),
                    net=data.get("net_at_ruling", net), reason=reason)
        return int(cursor.lastrowid or 0)

    def _in_play(self, round_no: int, table: int) -> bool:
        """Whether the table's kiosk has yet to end the match (not begun, or under way)."""
        state = self.match_state(table, round_no)
        return state is None or (state.phase != "over" and not state.abandoned)

    def teams_at(self, round_no: int, table: int) -> tuple[str, str]:
        for t, ns, ew in self.assignments(round_no):
            if t == table:
                return ns, ew
        return "", ""

    def _live_ruling(self, round_no: int, table: int) -> Ruling | None:
        return next((r for r in self.rulings() if (r.round, r.table) == (round_no, table)),
                    None)

    def remove_ruling(self, ruling_id: int, reason: str, confirm: bool = False,
                      by: str = "") -> Ruling:
        """Take a ruling back: the table's own result stands again. Kept in the list, marked
        removed with who, when and why."""
        self._open_event()
        found = next((r for r in self.rulings(removed=True) if r.id == ruling_id), None)
        if found is None or found.removed_at is not None:
            raise refuse("admin.error.no_ruling", id=ruling_id)
        reason = " ".join(reason.split())
        if not reason:
            raise refuse("admin.error.removal_reason")
        if len(reason) > MAX_REASON:
            raise refuse("admin.error.reason_long", most=MAX_REASON)
        if not confirm:  # (what it changes: nothing, where the table ended its match so)
            raise confirm_first("admin.confirm.remove_ruling_followed" if self._followed(found)
                                else "admin.confirm.remove_ruling", round=found.round,
                                table=found.table)
        with self.store.db.atomic():
            self.store.db.execute(
                "UPDATE rulings SET removed_at = ?, removed_by = ?, removed_reason = ? "
                "WHERE id = ?", [self.clock(), by, reason, ruling_id])
            self._audit(by, "ruling.remove", round=found.round, table=found.table,
                        kind=found.kind, reason=reason)
        self._changed()
        return next(r for r in self.rulings(removed=True) if r.id == ruling_id)

    def _followed(self, ruling: Ruling) -> bool:
        """Whether the table's kiosk ended its match as `ruling` says and its own record gives
        the same result, the ruling taken back or not (a hand the table finished before the
        ruling reached it changes the net levels: taking it back then changes the scores)."""
        state = self.match_state(ruling.table, ruling.round)
        end = state.end if state is not None else None
        if end is None or (end.get("forfeit"), end.get("reason")) != \
                (ruling.loser, ruling.reason):
            return False
        ns, ew = self.teams_at(ruling.round, ruling.table)
        return _result(self.ruleset(), ruling.round, ns, ew, state, None) == \
            _result(self.ruleset(), ruling.round, ns, ew, state, ruling)

    def rulings(self, removed: bool = False) -> list[Ruling]:
        """The rulings in force (with `removed`, the removed ones too), oldest first."""
        return list(self._kept(("rulings", removed), lambda: self._read_rulings(removed)))

    def _read_rulings(self, removed: bool) -> list[Ruling]:
        rows = self.store.db.execute(
            "SELECT id, round, table_number, kind, loser, data, reason, at, coalesce(by, ''), "
            "removed_at, coalesce(removed_by, ''), coalesce(removed_reason, '') FROM rulings "
            + ("" if removed else "WHERE removed_at IS NULL ") + "ORDER BY id")
        return [Ruling(i, r, t, k, lo, (data := json.loads(d))["net"], why, at, by, ra, rb, rr,
                       data.get("net_at_ruling"))
                for i, r, t, k, lo, d, why, at, by, ra, rb, rr in rows]

    def ruling_for(self, round_no: int, table: int) -> Ruling | None:
        return self._live_ruling(round_no, table)

    # -- closing ----------------------------------------------------------------------------

    def close_event(self, confirm: bool = False, by: str = "") -> None:
        """Close the event: the results and standings freeze (later table events and rulings
        change nothing) until it is reopened."""
        event = self.require_event()
        if event.status == "closed":
            raise refuse("admin.error.closed", where=words("admin.where.reopen"))
        if not confirm:
            current = self.current_round()
            started = current and self.round_start(current) is not None
            unfinished = self.unfinished(current) if started else []
            said = self._individual_words()  # (an individual event has no rulings to freeze)
            if unfinished:
                raise confirm_first("admin.confirm.close_unfinished" + said, round=current,
                                    n=len(unfinished), tables=number_list(unfinished))
            if event.rounds and current < event.rounds:  # rounds the event has not played
                raise confirm_first("admin.confirm.close_early" + said, played=current,
                                    rounds=event.rounds, left=event.rounds - current)
            raise confirm_first("admin.confirm.close" + said, round=current, n=0, tables="")
        frozen = self._freeze()
        with self.store.db.atomic():
            self.store.db.execute("INSERT OR REPLACE INTO settings VALUES ('frozen', ?)",
                                  [frozen])
            self.store.db.execute("UPDATE event SET status = 'closed' WHERE id = 1")
            self._save_draft(None)
            self._audit(by, "event.close")
        self._changed()

    def reopen_event(self, reason: str, by: str = "") -> None:
        """Reopen a closed event (a late protest): results are live again."""
        event = self.require_event()
        if event.status != "closed":
            raise refuse("admin.error.not_closed")
        reason = " ".join(reason.split())
        if not reason:
            raise refuse("admin.error.reopen_reason")
        status = "running" if self.current_round() else "setup"
        with self.store.db.atomic():
            self.store.db.execute("DELETE FROM settings WHERE key = 'frozen'")
            self.store.db.execute("UPDATE event SET status = ? WHERE id = 1", [status])
            self._audit(by, "event.reopen", reason=reason)
        self._changed()

    def _freeze(self) -> str:
        rounds = []
        for round_no in range(1, self.current_round() + 1):
            for table, result in self.round_results(round_no).items():
                rounds.append([round_no, table, None if result is None else
                               [result.a, result.b, result.winner, result.points,
                                result.net]])
        return json.dumps(rounds, ensure_ascii=False)

    def _frozen(self) -> dict[tuple[int, int], Result | None] | None:
        return self._kept("frozen", self._read_frozen)  # type: ignore[no-any-return]

    def _read_frozen(self) -> dict[tuple[int, int], Result | None] | None:
        text = self.store.setting("frozen")
        if text is None:
            return None
        return {(r, t): None if x is None else Result(r, x[0], x[1], x[2], x[3], x[4])
                for r, t, x in json.loads(text)}

    def frozen(self) -> bool:
        return self.store.setting("frozen") is not None


def _result(ruleset: Ruleset, round_no: int, ns: str, ew: str, state: MatchState | None,
            ruling: Ruling | None) -> Result | None:
    """A match's result: the ruling if the head referee made one, else the table's."""
    teams = {"NS": ns, "EW": ew}
    scoring = ruleset.result
    if ruling is not None:
        winner = "EW" if ruling.loser == "NS" else "NS"
        net = ruling.given_net
        if net is None:
            net = forfeit_net(ruleset, state, ruling.loser)
        return _scored(round_no, teams, winner, net, scoring.win_points, scoring.loss_points)
    if state is None or state.phase != "over" or state.core is None:
        return None
    match = state.core.result()  # type: ignore[union-attr]
    if match is None:
        return None
    net = abs(match.net_levels[0]) if match.net_levels else 0
    return _scored(round_no, teams, match.winner, net, scoring.win_points, scoring.loss_points)


def _forfeit_kind(state: MatchState | None, ruling: Ruling | None) -> str:
    """The kind of the table referee's forfeit that decided the match (forfeit or
    disqualification), where no ruling overrides it; "" for none."""
    forfeited = state.forfeited() if state is not None and ruling is None else None
    return str(forfeited.get("kind", "forfeit")) if forfeited else ""


def forfeit_net(ruleset: Ruleset, state: MatchState | None, loser: str) -> int:
    """The net levels a forfeit of `loser` gives the match as it stands: the rules core's
    forfeit of a match in play; the match's own where `loser` has lost it already (on the
    ladder, on time, or by this forfeit, the table having followed it); 0 for a match not
    begun, one `loser` won, or where net levels break no tie."""
    if state is None or not isinstance(state.core, TeamMatch) \
            or ruleset.result.tie_break != "net-levels":
        return 0
    winner = state.winner()
    if winner == loser:
        return 0
    match = (state.core if winner else state.core.forfeit(loser)).result()
    return abs(match.net_levels[0]) if match and match.net_levels else 0


def _scored(round_no: int, teams: dict[str, str], winner: str, net: int, win: int,
            loss: int) -> Result:
    loser = "EW" if winner == "NS" else "NS"
    w, lo = teams[winner], teams[loser]
    return Result(round_no, teams["NS"], teams["EW"], w, {w: win, lo: loss},
                  {w: net, lo: -net})


# A refusal the rules core words for the table, said from the scorer's side.
SCORER_SIDE = {"table.ruleset_changed": "admin.unscored.ruleset_changed",
               "table.unknown_ruleset": "admin.unscored.unknown_ruleset"}


def unscored_words(match: str, unscored: Unscored) -> Words:
    why = unscored.why if unscored.why and unscored.why.key in catalog("en") else \
        words("error.unexpected")
    kind = f"eventlog.kind.{unscored.kind}"
    return words("admin.unscored", match=match, seq=unscored.seq,
                 kind=words(kind) if kind in catalog("en") else unscored.kind,
                 why=Words(SCORER_SIDE.get(why.key, why.key), why.params))
