"""The head referee's operations and what the scorer computes from the tables' events.

The admin page and `kiosk scorer admin …` both call these methods, on the same store, so the
hall page sees every change whichever way it was made. Results are never stored: every match
is recomputed from its table's events by the tables' own fold (the rules core), plus the
rulings recorded here.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rules import IndividualRound, Ruleset, Rulesets
from ..table.journal import Journal
from ..table.state import MatchState
from . import formats, roster
from .folds import Folds, TableFold
from .formats import RoundPlan
from .store import Store
from .tournament import Pairing, Result, Standing, Team, standings, swiss_pairing

SESSION_HOURS = 12.0
ONLINE_WITHIN = 15.0  # seconds since a table's last request for its link to count as up
RULING_KINDS = ("forfeit", "disqualification", "adjusted")
CHECKPOINT_NAME = "folds.sqlite"
# The largest hall measured (bench/bench_hall_feed.py, bench_pairing.py at 2,000 teams).
MAX_TABLES = 1000
SWISS_FORMATS = ("swiss", "single")
FORMATS = (*SWISS_FORMATS, "groups-knockout", "individual-groups")


class AdminError(ValueError):
    """An operation the head referee asked for that cannot be done; the message says why."""


class PairingPending(AdminError):
    """The pairing is being computed in a worker; ask again in a moment."""

    def __init__(self) -> None:
        super().__init__("the next round's pairing is being computed; try again in a moment")


@dataclass(frozen=True)
class EventInfo:
    name: str
    ruleset: str
    ruleset_sha256: str
    format: str
    rounds: int
    match_minutes: float | None
    seed: int
    status: str  # "setup", "running" or "closed"


#: Pairs a Swiss round: (teams, results, round, seed) -> Pairing. The server's pairs in a worker
#: process (`worker.BackgroundPairer`), whose `ready` gives the preview without waiting.
Pairer = Callable[[list[Team], list[Result], int, int], Pairing]


class Director:
    def __init__(self, store: Store, rulesets: Rulesets,
                 clock: Callable[[], float] = time.time, pairer: Pairer = swiss_pairing
                 ) -> None:
        self.store, self.rulesets, self.clock, self.pairer = store, rulesets, clock, pairer
        self.folds = Folds(rulesets)
        self._folded_at: tuple[int, int] | None = None
        self._memo: dict[Any, Any] = {}
        self._memo_at: tuple[int, int] | None = None
        self._pinned: tuple[int, int] | None = None
        self._results: dict[tuple[int, int], tuple[Any, Result | None]] = {}
        self._standings: tuple[list[Any], list[Standing]] | None = None
        self._preview: tuple[Any, Any] | None = None

    # -- reads, remembered until the store changes -----------------------------------------

    def version(self) -> tuple[int, int]:
        """Moves with every commit of another connection and every row this one writes."""
        if self._pinned is not None:
            return self._pinned
        return self.store.version(), self.store.db.conn.total_changes

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Many reads as of one moment: the store's version is looked at once (a snapshot of
        the hall reads hundreds of things). Nothing may be written meanwhile."""
        outer = self._pinned
        self._pinned = self.version()
        try:
            yield
        finally:
            self._pinned = outer

    def _cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        version = self.version()
        if version != self._memo_at:
            self._memo.clear()
            self._memo_at = version
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    # -- the admin password and sessions ----------------------------------------------------

    def first_password(self) -> str | None:
        """On the very first start: a new random password, to print once. Else None."""
        if self.store.setting("password") is not None:
            return None
        password = secrets.token_urlsafe(9)
        self.set_password(password)
        return password

    def set_password(self, password: str) -> None:
        if len(password) < 8:
            raise AdminError("the password needs at least 8 characters")
        salt = secrets.token_bytes(16)
        digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
        self.store.set_setting("password", salt.hex() + ":" + digest.hex())

    def check_password(self, password: str) -> bool:
        return password_matches(self.store.setting("password"), password)

    def open_session(self) -> tuple[str, str]:
        """A new admin session: (token for the cookie, CSRF token for the forms)."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        db = self.store.db
        with db.atomic():
            db.execute("DELETE FROM sessions WHERE expires < ?", [self.clock()])
            db.execute("INSERT INTO sessions VALUES (?, ?, ?)",
                       [token, csrf, self.clock() + SESSION_HOURS * 3600])
        return token, csrf

    def session_csrf(self, token: str) -> str | None:
        """The CSRF token of a live session, or None."""
        row = self.store.db.execute("SELECT csrf FROM sessions WHERE token = ? AND expires > ?",
                                    [token, self.clock()]).fetchone()
        return row[0] if row else None

    def close_session(self, token: str) -> None:
        with self.store.db.atomic():
            self.store.db.execute("DELETE FROM sessions WHERE token = ?", [token])

    # -- the event --------------------------------------------------------------------------

    def event(self) -> EventInfo | None:
        return self._cached("event", self._read_event)  # type: ignore[no-any-return]

    def _read_event(self) -> EventInfo | None:
        row = self.store.db.execute(
            "SELECT name, ruleset, ruleset_sha256, format, rounds, match_minutes, seed, status "
            "FROM event WHERE id = 1").fetchone()
        return EventInfo(*row) if row else None

    def _event(self) -> EventInfo:
        event = self.event()
        if event is None:
            raise AdminError("no event yet: create one first")
        return event

    def ruleset(self) -> Ruleset:
        return self.rulesets.require(self._event().ruleset)

    def create_event(self, name: str, ruleset: str, rounds: int | None = None,
                     match_minutes: float | None = None, seed: int | None = None) -> EventInfo:
        if self.event() is not None:
            raise AdminError("this scorer already has an event; use a new data directory")
        if not name.strip():
            raise AdminError("give the event a name")
        chosen = self.rulesets.get(ruleset)
        if chosen is None:
            raise AdminError(f"unknown ruleset {ruleset!r}; known: {', '.join(self.rulesets)}")
        fmt = chosen.event.format
        if fmt not in FORMATS:
            raise AdminError(f"{ruleset}: the scorer runs {', '.join(FORMATS)} events; "
                             f"{fmt} events are not supported yet")
        if fmt in SWISS_FORMATS:
            rounds = rounds or chosen.event.rounds or 1
            if rounds < 1:
                raise AdminError("an event needs at least one round")
        elif fmt == "individual-groups":
            rounds = 2  # the prelims and the prize finals
        else:
            rounds = 0  # as many as its groups, playoffs and knockout take
        if match_minutes is not None and not (math.isfinite(match_minutes) and
                                              0 < match_minutes <= 24 * 60):
            raise AdminError("match minutes: more than 0, at most a day")
        minutes = match_minutes if match_minutes is not None else chosen.time.match_minutes
        with self.store.db.atomic():
            self.store.db.execute(
                "INSERT INTO event VALUES (1, ?, ?, ?, ?, ?, ?, ?, 'setup', ?)",
                [name.strip(), chosen.id, chosen.sha256, fmt, rounds, minutes,
                 seed if seed is not None else secrets.randbelow(10**6), self.clock()])
        self.store._wrote()
        return self._event()

    def import_teams(self, data: bytes) -> int:
        """Add the teams of a CSV file (see `roster`). Returns how many."""
        event = self._event()
        if event.status != "setup":
            raise AdminError("teams are imported before the first round")
        entrants = roster.parse(data)
        known = {t.id for t in self.teams()}
        clash = [e.id for e in entrants if e.id in known]
        if clash:
            raise AdminError(f"these ids are already in the event: {', '.join(clash)}")
        with self.store.db.atomic():
            self.store.db.conn.executemany(
                "INSERT INTO teams VALUES (?, ?, ?, ?, NULL)",
                [(e.id, e.name, e.unit, json.dumps(e.players, ensure_ascii=False))
                 for e in entrants])
        self.store._wrote()
        return len(entrants)

    def teams(self) -> list[Team]:
        return list(self._cached("teams", lambda: [Team(i, n, u) for i, n, u in (
            self.store.db.execute("SELECT id, name, unit FROM teams ORDER BY rowid"))]))

    def _players(self, team: str) -> list[str]:
        row = self.store.db.execute("SELECT players FROM teams WHERE id = ?", [team]).fetchone()
        return list(json.loads(row[0])) if row else []

    def _team_names(self) -> dict[str, str]:
        return {t.id: t.name for t in self.teams()}

    def withdraw(self, team: str, after_round: int | None = None) -> None:
        """The team plays no round after `after_round` (default: the current round)."""
        if team not in self._team_names():
            raise AdminError(f"no team {team!r}")
        after = self.current_round() if after_round is None else after_round
        with self.store.db.atomic():
            self.store.db.execute("UPDATE teams SET withdrawn_after = ? WHERE id = ?",
                                  [after, team])
        self.store._wrote()

    def _active(self, round_no: int) -> list[Team]:
        withdrawn = {i: a for i, a in self.store.db.execute(
            "SELECT id, withdrawn_after FROM teams WHERE withdrawn_after IS NOT NULL")}
        return [t for t in self.teams() if t.id not in withdrawn or withdrawn[t.id] >= round_no]

    # -- tables -----------------------------------------------------------------------------

    def add_tables(self, count: int) -> dict[int, str]:
        """Tables 1..count get a pairing code each (a table already paired keeps its kiosk)."""
        if not 1 <= count <= MAX_TABLES:
            raise AdminError(f"a hall has 1 to {MAX_TABLES} tables")
        self.store.set_setting("tables", str(count))
        paired = self.store.paired_tables()
        return {n: self.store.issue_code(n) for n in range(1, count + 1) if n not in paired}

    def table_count(self) -> int:
        return int(self._cached("tables", lambda: self.store.setting("tables")) or 0)

    def swap(self, table: int) -> str:
        """Move `table` to a new kiosk: the old kiosk's credential is revoked now, and the
        code pairs the new one, which downloads the table's events and resumes."""
        if not 1 <= table <= self.table_count():
            raise AdminError(f"there is no table {table}")
        self.store.revoke(table)
        return self.store.issue_code(table)

    def import_journal(self, table: int, path: str | Path) -> tuple[int, int]:
        """The events of an old kiosk's journal file (its SD card survived) that the scorer
        does not have yet. Returns (events new to the scorer, events kept aside as orphans)."""
        if not Path(path).is_file():
            raise AdminError(f"{path}: no such journal file")
        journal = Journal(path)
        try:
            events = [e.to_json() for e in journal.events()]
        finally:
            journal.close()
        tables = {e["data"].get("table") for e in events if e["kind"] == "setup"}
        if tables - {table}:
            raise AdminError(f"{path} is the journal of table(s) "
                             f"{', '.join(map(str, sorted(tables - {table})))}, not {table}")
        before = len(self.store.events(table))
        _, orphans = self.store.ingest(table, events, self.clock())
        return len(self.store.events(table)) - before, orphans

    # -- rounds -----------------------------------------------------------------------------

    def current_round(self) -> int:
        row = self._cached("round", lambda: self.store.db.execute(
            "SELECT max(number) FROM rounds").fetchone())
        return int(row[0] or 0)

    def assignments(self, round_no: int) -> list[tuple[int, str, str]]:
        return list(self._cached(("assignments", round_no), lambda: list(self.store.db.execute(
            "SELECT table_number, ns, ew FROM assignments WHERE round = ? ORDER BY table_number",
            [round_no]))))

    def stages(self) -> list[str]:
        """The stage of each round started so far, in order."""
        return [stage or "" for (stage,) in self.store.db.execute(
            "SELECT stage FROM rounds ORDER BY number")]

    def _next_round(self, preview: bool = False) -> tuple[int, RoundPlan]:
        """The next round's number and plan. Raises AdminError when there is none yet, and
        for a `preview`, PairingPending while the server's worker computes it."""
        event = self._event()
        if event.status == "closed":
            raise AdminError("the event is closed")
        round_no = self.current_round() + 1
        if event.rounds and round_no > event.rounds:
            raise AdminError(f"all {event.rounds} rounds have been started")
        if round_no > 1:
            unfinished = self._unfinished(round_no - 1)
            if unfinished:
                raise AdminError(f"round {round_no - 1} is still being played at table(s) "
                                 f"{', '.join(map(str, unfinished))}")
        teams = self._active(round_no)
        if event.format in SWISS_FORMATS:
            if len(teams) < 2:
                raise AdminError("import at least two teams first")
            args = (teams, self.results(), round_no, event.seed)
            ready = getattr(self.pairer, "ready", None)  # a worker's: answers at once
            pairing = ready(*args) if preview and ready else self.pairer(*args)
            if pairing is None:
                raise PairingPending()
            note = (f"no pairing without rematches existed: {pairing.rematches} rematch(es)"
                    if pairing.rematches else "")
            plan = RoundPlan(pairing.pairs, (pairing.bye,) if pairing.bye else (), "swiss",
                             note, bye_scores=True)
        elif event.format == "individual-groups":
            if not teams or len(teams) % 4:
                raise AdminError(f"{len(teams)} players do not make groups of 4")
            prelims = self.group_totals(1) if round_no == 2 else None
            plan = formats.individual_next([t.id for t in teams], event.seed, prelims)
        else:
            groups = self.ruleset().event.groups or 1
            if len(self.teams()) < 2 * groups:
                raise AdminError(f"{groups} groups need at least {2 * groups} teams")
            next_plan = formats.groups_knockout_next([t.id for t in self.teams()], groups,
                                                     event.seed, self.results(), self.stages())
            if next_plan is None:
                raise AdminError("the knockout is decided: close the event")
            plan = next_plan
        if len(plan.tables) > self.table_count():
            raise AdminError(f"round {round_no} needs {len(plan.tables)} tables; "
                             f"the hall has {self.table_count()} (add tables)")
        return round_no, plan

    def _unfinished(self, round_no: int) -> list[int]:
        """Tables still playing `round_no` (a ruled match counts as finished)."""
        if self._event().format == "individual-groups":
            states = {t: self.match_state(t, round_no) for t in self.seats(round_no)}
            return [t for t, s in states.items() if s is None or s.phase != "over"]
        return [t for t, r in self._round_results(round_no).items() if r is None]

    def seats(self, round_no: int) -> dict[int, dict[str, str]]:
        """Individual events: each table's players by drawn seat letter."""
        return dict(self._cached(("seats", round_no), lambda: {
            t: json.loads(seats) for t, seats in self.store.db.execute(
                "SELECT table_number, seats FROM assignments WHERE round = ? AND seats IS NOT "
                "NULL ORDER BY table_number", [round_no])}))

    def group_totals(self, round_no: int) -> list[dict[str, int]] | None:
        """Individual events: each table's {player: big-point total} once every table of the
        round has finished, in table order; else None."""
        if not self.seats(round_no) or self._unfinished(round_no):
            return None
        out = []
        for table, seats in self.seats(round_no).items():
            state = self.match_state(table, round_no)
            assert state is not None and isinstance(state.core, IndividualRound)
            out.append({seats[letter]: total for letter, total in state.core.totals})
        return out

    def next_pairings(self) -> tuple[int, list[tuple[int, tuple[str, ...], tuple[str, ...]]]
                                     ] | None:
        """What the next round would be, for the hall page, once it can be paired. Kept
        while the results and the field stay the same: a big field's matching takes time
        (the server's pairer computes it in a worker; until it is done, None)."""
        key = (self.current_round(), self.table_count(), self.results(),
               [t.id for t in self._active(self.current_round() + 1)],
               self._unfinished(self.current_round()) if self.current_round() else ())
        if self._preview is None or self._preview[0] != key:
            try:
                round_no, plan = self._next_round(preview=True)
                preview = (round_no, [(n, a, b) for n, (a, b) in enumerate(plan.tables, 1)])
            except PairingPending:
                return None  # asked again when the worker is done
            except AdminError:
                preview = None
            self._preview = (key, preview)
        return self._preview[1]

    def start_round(self, start_in: float = 30.0) -> int:
        """Pair the next round, assign it to the tables, and start every table's match clock
        together `start_in` seconds from now (scorer time). Returns the round number."""
        if not (math.isfinite(start_in) and 0 <= start_in <= 3600):
            raise AdminError("the round starts 0 to 3600 seconds from now")
        round_no, plan = self._next_round()
        with self.store.db.atomic():
            db = self.store.db
            db.execute("INSERT INTO rounds VALUES (?, ?, ?, ?)",
                       [round_no, self.clock() + start_in, plan.note, plan.stage])
            db.conn.executemany("INSERT INTO assignments VALUES (?, ?, ?, ?, NULL)",
                                [(round_no, n, a, b) for n, (a, b) in enumerate(plan.pairs, 1)])
            db.conn.executemany(
                "INSERT INTO assignments VALUES (?, ?, '', '', ?)",
                [(round_no, n, json.dumps(dict(zip(formats.DRAWN_SEATS, g, strict=True))))
                 for n, g in enumerate(plan.groups, 1)])
            if plan.bye_scores:
                db.conn.executemany("INSERT INTO byes VALUES (?, ?)",
                                    [(round_no, team) for team in plan.byes])
            db.execute("UPDATE event SET status = 'running' WHERE id = 1")
        self.store._wrote()
        return round_no

    def round_start(self, round_no: int) -> float | None:
        row = self._cached(("start", round_no), lambda: self.store.db.execute(
            "SELECT start_at FROM rounds WHERE number = ?", [round_no]).fetchone())
        return float(row[0]) if row else None

    def assignment(self, table: int) -> dict[str, Any] | None:
        """What `table` plays now: the kiosk sets its match up from this."""
        event, round_no = self.event(), self.current_round()
        row = self.store.db.execute(
            "SELECT ns, ew, seats FROM assignments WHERE round = ? AND table_number = ?",
            [round_no, table]).fetchone()
        if event is None or row is None:
            return None
        names = self._team_names()
        teams, players = {}, {}
        if row[2]:  # an individual group: the players by their drawn seats
            players = {seat: names[p] for seat, p in json.loads(row[2]).items()}
        else:  # a team match: each team's first two players sit N and S, or E and W
            teams = {"NS": names[row[0]], "EW": names[row[1]]}
            for seats, team in (("NS", row[0]), ("EW", row[1])):
                players |= dict(zip(seats, self._players(team), strict=False))
        return {"event": event.name, "round": str(round_no), "teams": teams,
                "players": players, "ruleset": event.ruleset,
                "ruleset_sha256": event.ruleset_sha256, "match_minutes": event.match_minutes,
                "start_at": self.round_start(round_no)}

    # -- rulings, mute, close ---------------------------------------------------------------

    def record_ruling(self, table: int, kind: str, loser: str, reason: str,
                      round_no: int | None = None, net: int = 0) -> None:
        """A head referee's ruling on a match: `forfeit` or `disqualification` of the side
        `loser` (NS or EW), or an `adjusted` result that `loser` loses by `net` levels."""
        round_no = round_no or self.current_round()
        if self._event().format == "individual-groups":
            raise AdminError("an individual event has no match results to rule on; the "
                             "referee records penalties at the table")
        if kind not in RULING_KINDS:
            raise AdminError(f"a ruling is one of {', '.join(RULING_KINDS)}, not {kind!r}")
        if loser not in ("NS", "EW"):
            raise AdminError("the losing side is NS or EW")
        if not reason.strip():
            raise AdminError("a ruling needs its reason")
        if not any(t == table for t, _, _ in self.assignments(round_no)):
            raise AdminError(f"table {table} plays no match in round {round_no}")
        if net < 0:
            raise AdminError("net levels cannot be negative")
        with self.store.db.atomic():
            self.store.db.execute(
                "INSERT INTO rulings (round, table_number, kind, loser, data, reason, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [round_no, table, kind, loser, json.dumps({"net": net}), reason.strip(),
                 self.clock()])
        self.store._wrote()

    def rulings(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._cached("rulings", lambda: [
            {"round": r, "table": t, "kind": k, "loser": lo, "net": json.loads(d)["net"],
             "reason": why, "at": at} for r, t, k, lo, d, why, at in self.store.db.execute(
                "SELECT round, table_number, kind, loser, data, reason, at FROM rulings "
                "ORDER BY id")])]

    def mute(self, on: bool) -> None:
        self.store.set_setting("muted", "1" if on else "0")

    def muted(self) -> bool:
        return bool(self._cached("muted", lambda: self.store.setting("muted") == "1"))

    def close_event(self) -> None:
        self._event()
        with self.store.db.atomic():
            self.store.db.execute("UPDATE event SET status = 'closed' WHERE id = 1")
        self.store._wrote()

    # -- what the events say ----------------------------------------------------------------

    def fold(self, table: int) -> TableFold:
        """The table's matches, folded from its events (only the new ones since last time)."""
        version = self.version()
        if version != self._folded_at:  # something was committed since
            if self._folded_at is None:  # the first look: resume from the checkpoint
                self.folds.load(self.checkpoint_path, self.store.db.conn)
            self._folded_at = version
            self.folds.update(self.store.db.conn)
        return self.folds.table(table)

    @property
    def checkpoint_path(self) -> Path:
        """The folds' checkpoint (a cache the server writes beside the store)."""
        return self.store.path.with_name(CHECKPOINT_NAME)

    def match_state(self, table: int, round_no: int) -> MatchState | None:
        """The table's match for this event's round `round_no` (by its setup, not by the
        journal's name for it: a kiosk may have played a practice match called "1")."""
        found = self._match(table, round_no)
        return found[1] if found else None

    def _match(self, table: int, round_no: int) -> tuple[str, MatchState] | None:
        event = self.event()
        return self.fold(table).find(event.name, round_no, table) if event else None

    def problems(self, table: int) -> list[str]:
        """Why some of the table's matches are not scored, for the kiosk and the hall."""
        return [f"match {name}: {why}" for name, why in self.fold(table).errors.items()]

    def _round_results(self, round_no: int) -> dict[int, Result | None]:
        """Each table's result in `round_no`, kept per table until its match, ruling or
        assignment changes (a big event's earlier rounds are not recomputed)."""
        ruleset = self.ruleset()
        rulings = self._cached("rulings by match", lambda: {
            (r["round"], r["table"]): r for r in self.rulings()})
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
                    key, _result(ruleset, round_no, ns, ew, state, ruling))
            out[table] = cached[1]
        return out

    def results(self) -> list[Result]:
        """Every finished match and bye, recomputed from the events and the rulings (team
        events; an individual event's results are its groups' totals)."""
        return list(self._cached("results", self._read_results))

    def _read_results(self) -> list[Result]:
        event = self.event()
        if event is None or event.format == "individual-groups":
            return []
        ruleset = self.ruleset()
        byes: dict[int, list[str]] = {}
        for round_no, team in self.store.db.execute("SELECT round, team FROM byes"):
            byes.setdefault(round_no, []).append(team)
        out: list[Result] = []
        for round_no in range(1, self.current_round() + 1):
            out += [r for r in self._round_results(round_no).values() if r is not None]
            out += [Result(round_no, team, None, team, {team: ruleset.result.win_points},
                           {team: 0}) for team in byes.get(round_no, [])]
        return out

    def standings(self) -> list[Standing]:
        event = self.event()
        if event is None:
            return []
        if event.format == "individual-groups":
            totals = [self.group_totals(r) for r in range(1, self.current_round() + 1)]
            return formats.individual_standings([t for t in totals if t is not None])
        if event.format == "groups-knockout":
            return formats.groups_knockout_standings(
                self.teams(), self.ruleset().event.groups or 1, event.seed, self.results(),
                self.stages())
        tie_breaks = ("net", "opponents", "head-to-head") \
            if self.ruleset().result.tie_break == "net-levels" else ("opponents", "head-to-head")
        results, teams = self.results(), self.teams()
        key = [*results, *teams, tie_breaks]  # results are kept per match: mostly the same
        if self._standings is None or self._standings[0] != key:
            self._standings = (key, standings(teams, results, tie_breaks))
        return list(self._standings[1])


def password_matches(stored: str | None, password: str) -> bool:
    """Whether `password` is the one whose salted scrypt hash is `stored` (slow on purpose:
    run it off the server's event loop)."""
    if stored is None:
        return False
    salt, digest = (bytes.fromhex(x) for x in stored.split(":"))
    given = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return hmac.compare_digest(given, digest)


def _result(ruleset: Ruleset, round_no: int, ns: str, ew: str, state: MatchState | None,
            ruling: dict[str, Any] | None) -> Result | None:
    """A match's result: the ruling if the head referee made one, else the table's."""
    teams = {"NS": ns, "EW": ew}
    scoring = ruleset.result
    if ruling is not None:
        winner = "EW" if ruling["loser"] == "NS" else "NS"
        net = ruling["net"] if ruling["kind"] == "adjusted" else 0
        if ruling["kind"] != "adjusted" and state is not None and state.core is not None \
                and state.winner() is None and scoring.tie_break == "net-levels":
            match = state.core.forfeit(ruling["loser"]).result()  # type: ignore[union-attr]
            net = abs(match.net_levels[0]) if match and match.net_levels else 0
        return _scored(round_no, teams, winner, net, scoring.win_points, scoring.loss_points)
    if state is None or state.phase != "over" or state.core is None:
        return None
    match = state.core.result()  # type: ignore[union-attr]
    if match is None:
        return None
    net = abs(match.net_levels[0]) if match.net_levels else 0
    return _scored(round_no, teams, match.winner, net, scoring.win_points, scoring.loss_points)


def _scored(round_no: int, teams: dict[str, str], winner: str, net: int, win: int,
            loss: int) -> Result:
    loser = "EW" if winner == "NS" else "NS"
    w, lo = teams[winner], teams[loser]
    return Result(round_no, teams["NS"], teams["EW"], w, {w: win, lo: loss},
                  {w: net, lo: -net})
