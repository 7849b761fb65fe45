"""What every part of the head referee's operations shares: the store, the rulesets, the
clock, the event, the refusals a person reads, and the audit log.

`Director` (director.py) is this base plus one mixin for each concern: access (access.py),
the event and its teams (teams.py), rounds and pairings (rounds.py), results and rulings
(results.py). Each mixin uses the others' methods through `self`; `DirectorBase` declares
those for the type checker, which then holds every mixin to them.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ...errors import AdminError, NeedsConfirmation, Words, words
from ...i18n import render
from ...rules import Ruleset, Rulesets, Text
from ..store.database import Store

if TYPE_CHECKING:
    from ...table.state import MatchState
    from ..tournament.core import Result, Standing, Team
    from .results import Ruling
    from .rounds import Draft
    from .teams import TeamRow

SWISS_FORMATS = ("swiss", "single")
FORMATS = (*SWISS_FORMATS, "groups-knockout", "individual-groups")


def refuse(key: str, **params: Any) -> AdminError:
    """The AdminError for catalog message `key` (raise it)."""
    error = AdminError(render(key, params, "en"))  # (words in it said too: 第 1、2 桌)
    error.explained(key, **params)
    return error


def with_id(name: str | Text, id_: str) -> Words:
    """A name with its id beside it, in the reader's brackets: 粮食局一队（T01）, Lions (T01).
    The one spelling of a team's label on the console, the command line and the exports."""
    return words("admin.with_id", name=name, id=id_)


def decides_time_up(ruleset: Ruleset) -> bool:
    """Whether time up decides a match under `ruleset`: a team ruleset by its rule for it (rules.md
    §5; standard-80fen has none), an individual round by ending at its time."""
    return ruleset.event.format == "individual-groups" or ruleset.time.time_up != "none"


def ruleset_label(ruleset: Ruleset) -> Words:
    """A ruleset as the head referee reads it, its file's id beside it for the technician."""
    return with_id(ruleset.name, ruleset.id)


def confirm_first(key: str, **params: Any) -> NeedsConfirmation:
    error = NeedsConfirmation(render(key, params, "en"))
    error.explained(key, **params)
    return error


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
    match_name: str  # the name the tables' matches carry (the name until a round started)
    # what a standing's points are: "big" (大分), "wins" (胜场: the ruleset gives no points,
    # a match is won or lost) or "group" (积分 in a group, 1 a win)
    tally: str = "big"
    net_levels: bool = False  # whether net levels break ties (else no page shows them)
    # whether time up decides a match (a team ruleset's rule for it; an individual round ends
    # at its time): else the hall's time is not called, nor extended
    time_up: bool = True

    @property
    def individual(self) -> bool:
        """Players, not teams: each plays for themself in groups of four."""
        return self.format == "individual-groups"

    @property
    def wording(self) -> str:
        """Whose words a page says where they differ (`key_<wording>`): an individual event's
        (选手 for 队伍), an event counting wins' (胜场 for 大分), a groups event's (积分)."""
        return "individual" if self.individual else "" if self.tally == "big" else self.tally

    @property
    def opponents(self) -> bool:
        """Whether the opponents' points break ties (a Swiss event's teams)."""
        return self.format in SWISS_FORMATS


@dataclass(frozen=True)
class AuditEntry:
    at: float
    who: str
    action: str  # a catalog key under "admin.audit."
    params: dict[str, Any]

    def text(self, t: Callable[..., str]) -> str:
        """The entry in the words of `t` (a ruling's kind as the catalog names it, 5 minutes
        never 5.0)."""
        params = {k: int(v) if isinstance(v, float) and v.is_integer() else _said(t, v)
                  for k, v in self.params.items()}
        if self.action.startswith("ruling.") and "kind" in params:
            params["kind"] = t(f"admin.ruling.kind.{params['kind']}")
        return t(f"admin.audit.{self.action}", **params)


def _kept_words(value: Any) -> Any:
    """A parameter of the audit log as JSON: words (a team with its id) by key and
    parameters, said in the reader's language when the log is read; a ruleset's name in every
    language."""
    if isinstance(value, Words):
        return {"words": value.key, "params": {k: _kept_words(v) for k, v in value.params.items()}}
    if isinstance(value, Text):
        return {"text": {"zh-Hans": value.zh_hans, "zh-Hant": value.zh_hant, "en": value.en}}
    return value


def _said(t: Callable[..., str], value: Any) -> Any:
    """`_kept_words`'s JSON said in the words of `t` (an entry from before it is text: kept
    as it was written)."""
    if isinstance(value, dict) and "words" in value:
        return t(value["words"], **{k: _said(t, v) for k, v in value["params"].items()})
    if isinstance(value, dict) and "text" in value:  # (`t` says it in its own language)
        texts = value["text"]
        return Text(texts["zh-Hans"], texts["zh-Hant"], texts["en"])
    return value


class Memo:
    """Values remembered while a stamp stays the same; all forgotten when it moves."""

    def __init__(self) -> None:
        self.values: dict[Any, Any] = {}
        self.stamp: Any = None

    def get(self, stamp: Any, key: Any, compute: Callable[[], Any]) -> Any:
        if stamp != self.stamp:
            self.values.clear()
            self.stamp = stamp
        if key not in self.values:
            self.values[key] = compute()
        return self.values[key]


class DirectorBase:
    def __init__(self, store: Store, rulesets: Rulesets,
                 clock: Callable[[], float] = time.time) -> None:
        self.store, self.rulesets, self.clock = store, rulesets, clock
        self._by_version, self._by_revision = Memo(), Memo()
        self._pinned: tuple[tuple[int, int], int] | None = None

    # -- reads, remembered until the store changes -----------------------------------------

    def version(self) -> tuple[int, int]:
        """Moves with every commit of another connection and every row this one writes."""
        if self._pinned is not None:
            return self._pinned[0]
        return self.store.version(), self.store.db.conn.total_changes

    def revision(self) -> int:
        """Moves with every change to the head referee's data (not with a kiosk's events)."""
        if self._pinned is not None:
            return self._pinned[1]
        return self.store.revision()

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Many reads as of one moment: the store's version is looked at once (a snapshot of
        the hall reads hundreds of things). Nothing may be written meanwhile."""
        outer = self._pinned
        self._pinned = (self.version(), self.revision())
        try:
            yield
        finally:
            self._pinned = outer

    def _cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        """`compute()`, remembered until the store's version moves (what the events decide)."""
        return self._by_version.get(self.version(), key, compute)

    def _kept(self, key: Any, compute: Callable[[], Any]) -> Any:
        """`compute()`, remembered until the head referee's data changes: for what reads only
        `store.DIRECTOR_TABLES` (the teams, the rounds …), which a hall full of kiosks sending
        events would otherwise have read again after every batch."""
        return self._by_revision.get(self.revision(), key, compute)

    # -- the event --------------------------------------------------------------------------

    def event(self) -> EventInfo | None:
        return self._kept("event", self._read_event)  # type: ignore[no-any-return]

    def _read_event(self) -> EventInfo | None:
        row = self.store.db.execute(
            "SELECT name, ruleset, ruleset_sha256, format, rounds, match_minutes, seed, status, "
            "coalesce(match_name, name) "
            "FROM event WHERE id = 1").fetchone()
        if row is None:
            return None
        event = EventInfo(*row)
        chosen = self.rulesets.get(event.ruleset)
        if chosen is None:  # (its file gone: the pages that need it say so)
            return event
        result = chosen.result
        tally = "group" if event.format == "groups-knockout" else \
            "big" if result.big_points else "wins"
        return replace(event, tally=tally, net_levels=result.tie_break == "net-levels",
                       time_up=decides_time_up(chosen))

    def require_event(self) -> EventInfo:
        event = self.event()
        if event is None:
            raise refuse("admin.error.no_event")
        return event

    def individual(self) -> bool:
        """Whether the event is an individual one (players, not teams); False before any."""
        event = self.event()
        return event is not None and event.individual

    def wording(self) -> str:
        """The event's words where they differ (`EventInfo.wording`); none before an event."""
        event = self.event()
        return event.wording if event else ""

    def _individual_words(self) -> str:
        """The ending of a message's key said otherwise for an individual event (a mistake
        mended at the table rather than by a ruling; players, not teams; groups of four)."""
        return "_individual" if self.require_event().individual else ""

    def ruleset(self) -> Ruleset:
        return self.rulesets.require(self.require_event().ruleset)

    def _open_event(self) -> EventInfo:
        """The event, refusing when it is closed (results are frozen until it is reopened)."""
        event = self.require_event()
        if event.status == "closed":
            raise refuse("admin.error.closed", where=words("admin.where.reopen"))
        return event

    # -- names ------------------------------------------------------------------------------

    def team_names(self) -> dict[str, str]:
        return dict(self._kept("team names", lambda: dict(
            self.store.db.execute("SELECT id, name FROM teams"))))

    def label(self, team: str) -> Words | str:
        """A team as a person reads it: its name, with its id beside it (`with_id`)."""
        name = self.team_names().get(team)
        return with_id(name, team) if name else team

    # -- the audit log ----------------------------------------------------------------------

    def _audit(self, by: str, action: str, **params: Any) -> None:
        """Record a director's action; call inside the action's own transaction."""
        self.store.db.execute(
            "INSERT INTO audit (at, who, action, params) VALUES (?, ?, ?, ?)",
            [self.clock(), by or "", action, json.dumps(
                {k: _kept_words(v) for k, v in params.items()}, ensure_ascii=False)])

    def record_mark(self) -> tuple[float, int]:
        """(when the event was created, the audit log's last entry): the record a question to
        the head referee was asked on. Another event, or a store restored from an older copy,
        has another."""
        created, last = self.store.db.execute(
            "SELECT (SELECT at FROM audit WHERE action = 'event.create'), coalesce(max(id), 0) "
            "FROM audit").fetchone()
        return float(created or 0.0), int(last)

    def audit_log(self) -> list[AuditEntry]:
        """Every director action, oldest first."""
        return [AuditEntry(at, who, action, json.loads(params)) for at, who, action, params in
                self.store.db.execute("SELECT at, who, action, params FROM audit ORDER BY id")]

    def _changed(self) -> None:
        self.store._wrote()

    if TYPE_CHECKING:  # what each concern's mixin offers the others, for the type checker
        # rounds.py
        def current_round(self) -> int: ...
        def current_draft(self) -> Draft | None: ...
        def _save_draft(self, draft: Draft | None) -> None: ...
        def discard_draft(self, by: str = "", quiet: bool = False,
                          confirm: bool = False) -> None: ...
        def assignments(self, round_no: int) -> list[tuple[int, str, str]]: ...
        def byes(self, round_no: int) -> list[str]: ...
        def stages(self) -> list[str]: ...
        def round_start(self, round_no: int) -> float | None: ...
        def seats(self, round_no: int) -> dict[int, dict[str, str]]: ...
        def group_totals(self, round_no: int) -> list[dict[str, int]] | None: ...
        def finished_groups(self, round_no: int) -> list[dict[str, int]]: ...
        def unfinished(self, round_no: int) -> list[int]: ...

        # teams.py
        def teams(self) -> list[Team]: ...
        def team(self, team: str) -> TeamRow: ...
        def _players(self, team: str) -> list[str]: ...
        def _active(self, round_no: int) -> list[Team]: ...
        def bye_points(self) -> int: ...
        def missed_rounds(self) -> list[tuple[int, str, int]]: ...

        # results.py
        def match_state(self, table: int, round_no: int) -> MatchState | None: ...
        def results(self) -> list[Result]: ...
        def round_results(self, round_no: int) -> dict[int, Result | None]: ...
        def standings(self) -> list[Standing]: ...
        def rulings(self, removed: bool = False) -> list[Ruling]: ...
        def ruling_for(self, round_no: int, table: int) -> Ruling | None: ...
        def teams_at(self, round_no: int, table: int) -> tuple[str, str]: ...
        def _insert_ruling(self, round_no: int, table: int, kind: str, loser: str, net: int,
                           reason: str, by: str) -> int: ...

        # access.py
        def table_count(self) -> int: ...
