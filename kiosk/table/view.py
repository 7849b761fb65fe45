"""An immutable picture of a table for screens: the runner's thread takes one after every step,
and the UI thread reads only that, never the session itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .session import SessionError, TableSession


@dataclass(frozen=True)
class PenaltyOption:
    """One way a penalty can be entered: its choice (None: the default), its name, and what the
    referee must add: "" (nothing), "cards", "points" or "levels", from `values`."""

    choice: str | None
    name: Any  # a rules Text
    asks: str = ""
    values: tuple[int, ...] = ()


def penalty_options(penalty: Any) -> tuple[PenaltyOption, ...]:
    """The entry options of a ruleset penalty, for a form."""
    options = [(None, penalty.name, penalty.default)] if penalty.default else []
    options += [(key, choice.name, choice.outcome) for key, choice in penalty.choices.items()]
    out = []
    for choice, name, outcome in options:
        if outcome.per_card:
            out.append(PenaltyOption(choice, name, "cards", tuple(range(1, 9))))
        elif outcome.effect == "referee-points":
            top = outcome.max if outcome.max is not None else max(200, outcome.min)
            out.append(PenaltyOption(choice, name, "points",
                                     tuple(range(outcome.min, top + 1, 5))))
        elif outcome.effect == "referee-levels":
            top = outcome.max if outcome.max is not None else 3
            out.append(PenaltyOption(choice, name, "levels", tuple(range(outcome.min, top + 1))))
        else:
            out.append(PenaltyOption(choice, name))
    return tuple(out)


@dataclass(frozen=True)
class TableView:
    table: int
    match: str = ""
    phase: str = "setup"
    ruleset: str | None = None
    kind: str = "team"
    teams: dict[str, str] = field(default_factory=dict)
    players: dict[str, str] = field(default_factory=dict)
    levels: tuple[str, str] | None = None
    hand: int | None = None
    dealer: str | None = None
    partner: str | None = None
    grab_dealer: bool = False
    can_redeal: bool = False
    can_fry: bool = False
    # the move clock: time left is limit - (now - started) while running, else limit - elapsed
    clock_kind: str | None = None
    clock_seat: str | None = None
    clock_limit: float = 0.0
    clock_started: float = 0.0
    clock_running: bool = False
    clock_elapsed: float = 0.0
    warn_before: float = 2.0
    match_limit: float | None = None
    match_started: float = 0.0
    match_running: bool = False
    match_elapsed: float = 0.0
    paused: bool = False
    points: int | None = None
    kitty: dict[str, Any] | None = None
    penalties: tuple[tuple[str, dict[str, Any]], ...] = ()
    penalty_names: tuple[tuple[str, Any], ...] = ()  # (code, its name as a rules Text)
    penalty_forms: dict[str, tuple[PenaltyOption, ...]] = field(default_factory=dict)
    preview: dict[str, Any] | None = None
    confirmed: tuple[str, ...] = ()
    sides: dict[str, str] = field(default_factory=dict)  # seat -> side, in the result phase
    disputed_by: str | None = None
    link: Any = None  # the scorer link's state (kiosk.sync.outbox.LinkState), when synced
    history: tuple[dict[str, Any], ...] = ()
    result: dict[str, Any] | None = None  # the match result once over
    message: str | None = None  # the last refusal or printer report
    choices: tuple[str, ...] = ()  # the rulesets a new match can use
    slips: dict[str, str] = field(default_factory=dict)  # the score slip, by language, once over

    def move_left(self, now: float) -> float | None:
        if self.clock_kind is None:
            return None
        elapsed = now - self.clock_started if self.clock_running else self.clock_elapsed
        return self.clock_limit - elapsed

    def match_left(self, now: float) -> float | None:
        if self.match_limit is None:
            return None
        elapsed = now - self.match_started if self.match_running else self.match_elapsed
        return self.match_limit - elapsed


def snapshot(session: TableSession, message: str | None = None,
             slips: dict[str, str] | None = None) -> TableView:
    """The table as it is now. Call it on the thread that owns the session."""
    state = session.state
    ruleset = state.ruleset
    if ruleset is None:
        return TableView(session.table, message=message, choices=tuple(session.rulesets))
    draft, clock, mc = state.draft, state.clock, state.match_clock
    preview = sides = None
    if state.phase in ("result", "disputed"):
        try:
            preview = state.preview().to_json()
            sides = {seat: state.side_of(seat) for seat in "NESW"}
        except SessionError:
            preview = None
    result = None
    core_result = getattr(state.core, "result", None)
    if callable(core_result) and core_result() is not None:
        result = core_result().to_json()
    elif state.phase == "over" and state.played:
        result = state.played[-1].result.to_json()
    return TableView(
        table=session.table, match=session.match, phase=state.phase, ruleset=ruleset.id,
        kind=ruleset.kind, teams=dict(state.setup.get("teams") or {}),
        players=dict(state.setup.get("players") or {}), levels=state.levels(),
        hand=draft.number if draft else None, dealer=draft.dealer if draft else None,
        partner=state.partner() if draft else None,
        grab_dealer=bool(draft and draft.dealer is None and ruleset.kind == "team"),
        can_redeal=ruleset.redeal is not None, can_fry=ruleset.frying,
        clock_kind=clock.kind if clock else None, clock_seat=clock.seat if clock else None,
        clock_limit=clock.limit if clock else 0.0, clock_started=clock.started if clock else 0.0,
        clock_running=bool(clock and clock.running), clock_elapsed=clock.elapsed if clock else 0,
        warn_before=session.config.warn_before,
        match_limit=mc.limit if mc else None, match_started=mc.started if mc else 0.0,
        match_running=bool(mc and mc.running), match_elapsed=mc.elapsed if mc else 0.0,
        paused=state.paused, points=draft.points if draft else None,
        kitty=dict(draft.kitty) if draft and draft.kitty else None,
        penalties=tuple((k, dict(v)) for k, v in draft.penalties.items()) if draft else (),
        penalty_names=tuple((code, p.name) for code, p in ruleset.penalties.items()),
        penalty_forms={code: penalty_options(p) for code, p in ruleset.penalties.items()},
        preview=preview,
        confirmed=tuple(sorted(draft.confirmed)) if draft else (), sides=sides or {},
        disputed_by=draft.disputed_by if draft else None,
        history=tuple(p.result.to_json() for p in state.played), result=result,
        message=message, slips=dict(slips or {}) if state.phase == "over" else {})
