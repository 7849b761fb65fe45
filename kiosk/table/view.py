"""An immutable picture of a table for screens: the runner's thread takes one after every step,
and the UI thread reads only that, never the session itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..rules import EntryError, IndividualRound, TeamMatch
from ..rules.hand import MAX_CARD_POINTS, MAX_REFEREE_LEVELS
from ..rules.ruleset import POINT_STEP
from ..rules.seats import TEAM_OF
from .kinds import ClockKind, Phase
from .session import SessionError, TableSession
from .state import SEATS, TRUMPS


@dataclass(frozen=True)
class Notice:
    """A message for the table's notice area: a catalog key and its parameters (a parameter
    named `seat` is a seat, shown in the reader's language). `level`: "error" (a refusal),
    "info" (a silent event confirmed) or "alert" (the referee is called; stays until the next
    action). `at`: when, on the session's clock; `lasts`: seconds it is shown at least (more
    than the screen's usual few)."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)
    level: str = "error"
    at: float = 0.0
    lasts: float = 0.0


@dataclass(frozen=True)
class PenaltyOption:
    """One way a penalty can be entered: its choice (None: the default), its name, what the
    referee must add: "" (nothing), "cards", "points" or "levels", from `values`, its effect
    (a ruleset's outcome: "warning", "dealer-steps-down"…) and, for "fix-total", the total it
    fixes by the side at fault: (("dealer", …), ("defenders", …)); for "big-points", the big
    points of each erring player and the least of each other one."""

    choice: str | None
    name: Any  # a rules Text
    asks: str = ""
    values: tuple[int, ...] = ()
    effect: str = ""
    fixes: tuple[tuple[str, int], ...] = ()
    big_points: tuple[int, int] = (0, 0)  # "big-points": the erring's each, the others' least


def penalty_options(penalty: Any) -> tuple[PenaltyOption, ...]:
    """The entry options of a ruleset penalty, for a form: what the rules core accepts, but
    for the cards of a failed throw, 1 to 12 (the core takes up to 33, a hand's whole: no throw
    at a table is that long) and open-ended referee points, offered up to the deck's 200."""
    options = [(None, penalty.name, penalty.default)] if penalty.default else []
    options += [(key, choice.name, choice.outcome) for key, choice in penalty.choices.items()]
    out = []
    for choice, name, outcome in options:
        effect = outcome.effect
        if outcome.per_card:
            out.append(PenaltyOption(choice, name, "cards", tuple(range(1, 13)), effect))
        elif effect == "referee-points":
            top = outcome.max if outcome.max is not None else max(MAX_CARD_POINTS, outcome.min)
            out.append(PenaltyOption(choice, name, "points",
                                     tuple(range(outcome.min, top + 1, POINT_STEP)), effect))
        elif effect == "referee-levels":  # (chaodipi's 罚级 has no top: the core's 12)
            top = outcome.max if outcome.max is not None else MAX_REFEREE_LEVELS
            out.append(PenaltyOption(choice, name, "levels", tuple(range(outcome.min, top + 1)),
                                     effect))
        elif effect == "fix-total":
            out.append(PenaltyOption(choice, name, effect=effect, fixes=(
                ("dealer", outcome.if_dealer_side), ("defenders", outcome.if_defenders))))
        elif effect == "big-points":
            out.append(PenaltyOption(choice, name, effect=effect,
                                     big_points=(outcome.erring, outcome.other_at_least)))
        else:
            out.append(PenaltyOption(choice, name, effect=effect))
    return tuple(out)


def _redeal_keeps_dealer(ruleset: Any, core: Any) -> bool:
    """Whether a redeal now leaves the dealer in place (the rules core's `_redeal`): the
    ruleset's rule before the first hand is played, and after."""
    redeal = ruleset.redeal
    if redeal is None or not isinstance(core, TeamMatch):
        return False
    rule = redeal.dealer_before_first_hand if core.played == 0 else redeal.dealer_after
    return bool(rule == "same")


#: The kitty shapes the entry offers (the shape of the play that won the last trick): tractors
#: up to six pairs, a last trick of 12 cards a hand (a referee could not enter five).
SHAPES = ("single", "pair", "pairs2", "tractor2", "tractor3", "tractor4", "tractor5",
          "tractor6")


@dataclass(frozen=True)
class TableView:
    table: int
    match: str = ""
    round: str = ""  # the hall's round of an assigned match ("" for one set up here)
    phase: Phase = Phase.SETUP
    ruleset: str | None = None
    ruleset_name: Any = None  # the ruleset's own name (a rules Text)
    terms: dict[str, Any] = field(default_factory=dict)  # its own words for the sides (Texts)
    kind: str = "team"
    standalone: bool = True  # set up at the table, not by the hall's scorer
    waiting_for_hall: bool = False  # the hall's round has not started: the table waits
    hall_start: float | None = None  # when the hall starts the round (the scorer's time)
    teams: dict[str, str] = field(default_factory=dict)
    players: dict[str, str] = field(default_factory=dict)
    levels: tuple[str, str] | None = None
    hand: int | None = None
    dealer: str | None = None
    level: str | None = None  # the level the hand is played at
    partner: str | None = None
    partner_card: str | None = None  # the card the dealer turned for it (individual events)
    # shuangsheng: the player sitting in a chair this deal where it is not their own (the
    # partner and the dealer's opposite swap chairs); the seat buttons are the chairs'
    seated: dict[str, str] = field(default_factory=dict)
    trump: str | None = None
    trumps: tuple[str, ...] = TRUMPS  # the trumps the ruleset plays (xiamen: no no-trump)
    grab_dealer: bool = False
    redeal_callers: tuple[str, ...] = ()
    can_fry: bool = False
    fry_seats: tuple[str, ...] = ()  # the seats that may fry the kitty now
    last_burier: str | None = None  # who buried the kitty last (the dealer, or a frier)
    rebury_seconds: float = 0.0  # a frier's time to bury again
    undo: tuple[str, str | None] | None = None  # the step undo takes back: (kind, seat)
    undo_referees: bool = False  # undo is behind the PIN (`MatchState.undo_is_referees`)
    # the move clock: time left is limit - (now - started) while running, else limit - elapsed
    clock_kind: str | None = None
    clock_seat: str | None = None
    clock_limit: float = 0.0
    clock_started: float = 0.0
    clock_running: bool = False
    clock_elapsed: float = 0.0
    trick: int = 0
    tricks: int = 25
    plays: int = 0
    leader: str | None = None  # who led the trick in play, as recorded (None: nobody yet)
    all_played: bool = False
    warn_before: float = 2.0
    match_limit: float | None = None
    match_started: float = 0.0
    match_running: bool = False
    match_elapsed: float = 0.0
    match_clock_started: bool = False
    paused: bool = False
    pause_reason: str | None = None
    time_up: dict[str, Any] | None = None
    time_up_rule: str = "none"
    time_up_preview: dict[str, Any] | None = None  # what time up called now would decide
    dropped_at_time_up: int | None = None  # the hand in play that time up left uncounted
    needs_ruling: bool = False
    points: int | None = None
    kitty: dict[str, Any] | None = None
    penalties: tuple[tuple[str, dict[str, Any]], ...] = ()
    entry_step: dict[str, Any] = field(default_factory=dict)
    # penalties whose cost waits for the referee: (id, what it costs once confirmed, as JSON)
    unconfirmed: tuple[tuple[str, dict[str, Any]], ...] = ()
    # what each penalty of the hand in progress costs as it counts now (id, applied, as JSON)
    penalty_costs: tuple[tuple[str, dict[str, Any]], ...] = ()
    redeal_condition: Any = None  # when a redeal may be called, as rules Words
    redeal_keeps_dealer: bool = False  # after a redeal now: the same dealer (else grabbed again)
    penalty_names: tuple[tuple[str, Any], ...] = ()  # (code, its name as a rules Text)
    penalty_forms: dict[str, tuple[PenaltyOption, ...]] = field(default_factory=dict)
    one_penalty_per_incident: bool = False  # xiamen art. 22 「一错不二罚」
    # who can commit each penalty (code -> seats), for the hand in progress, and for a hand
    # dealt by each seat (a correction)
    penalty_seats: dict[str, tuple[str, ...]] = field(default_factory=dict)
    penalty_seats_by_dealer: dict[str, dict[str, tuple[str, ...]]] = field(
        default_factory=dict)
    overrun: dict[str, Any] = field(default_factory=dict)  # what an overrun costs, by phase
    multipliers: dict[str, int] = field(default_factory=dict)  # kitty shape -> multiplier
    kitty_times: int | None = None  # the one multiplier every shape gives: no shape is asked
    preview: dict[str, Any] | None = None
    confirmed: tuple[str, ...] = ()
    sides: dict[str, str] = field(default_factory=dict)  # seat -> side, in the result phase
    disputed_by: str | None = None
    link: Any = None  # the scorer link's state (kiosk.sync.outbox.LinkState), when synced
    history: tuple[dict[str, Any], ...] = ()  # results of the confirmed hands
    records: tuple[dict[str, Any], ...] = ()  # and what was entered for each
    corrected: tuple[bool, ...] = ()
    result: dict[str, Any] | None = None  # the match result once over
    end: dict[str, Any] | None = None  # a forfeit or disqualification
    notice: Notice | None = None
    choices: tuple[tuple[str, Any], ...] = ()  # the rulesets a new match can use: (id, name)
    slips: dict[str, str] = field(default_factory=dict)  # the score slip, by language, once over
    pin_locked_until: float = 0.0  # on the session's clock
    pin_tries_left: int = 3
    referee_open: bool = False  # the PIN was given and the menu has not timed out
    muted: bool = False
    printer: bool = False

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


def snapshot(session: TableSession, notice: Notice | None = None,
             slips: dict[str, str] | None = None, **extra: Any) -> TableView:
    """The table as it is now. Call it on the thread that owns the session. `extra` sets the
    runner's own fields (muted, printer, link)."""
    state = session.state
    ruleset = state.ruleset
    now = session.clock.now()
    common: dict[str, Any] = {
        "notice": notice, "choices": tuple((r.id, r.name) for r in session.rulesets.values()),
        "pin_locked_until": now + session.pin_locked_for(),
        "pin_tries_left": session.pin_tries_left(), "referee_open": session.unlocked, **extra}
    if ruleset is None:
        return TableView(session.table, **common)
    draft, clock, mc, core = state.draft, state.clock, state.match_clock, state.core
    preview = sides = None
    if state.phase in (Phase.RESULT, Phase.DISPUTED):
        try:
            line = state.preview()
            preview = line.to_json()
            if getattr(line, "straight_to", None):  # (a team hand's; a deal has none)
                preview["straight_to"] = line.straight_to
            sides = {seat: state.side_of(seat) for seat in SEATS}
        except SessionError:
            preview = None
    result = None
    core_result = getattr(core, "result", None)
    if callable(core_result) and core_result() is not None:
        result = core_result().to_json()
    elif state.phase == Phase.OVER and state.played:
        result = state.played[-1].result.to_json()
    level = None
    if draft is not None and draft.dealer is not None:
        if isinstance(core, TeamMatch):
            level = core.level_of(TEAM_OF[draft.dealer])
        elif isinstance(core, IndividualRound) and ruleset.deals is not None and \
                core.deals < len(ruleset.deals.levels):
            level = ruleset.deals.levels[core.deals]
    step = state.undoable()
    overrun = {}
    if "time-overrun" in ruleset.penalties:
        penalty = ruleset.penalties["time-overrun"]
        for phase, choice in (("bury", ruleset.time.overrun_bury),
                              ("play", ruleset.time.overrun_play)):
            try:
                outcome = penalty.outcome(choice)
            except EntryError:
                continue
            overrun[phase] = {"effect": outcome.effect, "warnings_first": outcome.warnings_first,
                              "points": outcome.points, "min": outcome.min}
    multipliers = {}
    for shape in SHAPES:
        try:
            multipliers[shape] = ruleset.kitty.multiplier(shape)
        except EntryError:
            continue
    seats: dict[str, tuple[str, ...]] = {}
    by_dealer: dict[str, dict[str, tuple[str, ...]]] = {}
    if state.team:
        for code in ruleset.penalties:
            try:
                seats[code] = state.seats_for(code)
            except SessionError:
                seats[code] = ()
        for dealer in SEATS:
            by_dealer[dealer] = {code: tuple(ruleset.seats_for(code, dealer))
                                 for code in ruleset.penalties}
    return TableView(
        table=session.table, match=session.match, phase=state.phase, ruleset=ruleset.id,
        ruleset_name=ruleset.name, terms=dict(ruleset.terms), kind=ruleset.kind,
        round=str(state.setup.get("round") or "") if not state.standalone else "",
        standalone=state.standalone, waiting_for_hall=state.waiting_for_hall,
        hall_start=state.setup.get("start_at"),
        teams=dict(state.setup.get("teams") or {}),
        players=dict(state.setup.get("players") or {}), levels=state.levels(),
        hand=draft.number if draft else None, dealer=draft.dealer if draft else None,
        level=level, partner=state.partner() if draft else None,
        partner_card=draft.partner_card if draft else None,
        seated={c: p for c in SEATS if (p := state.player_at(c)) != c},
        trump=draft.trump["suit"] if draft and draft.trump else None, trumps=state.trumps(),
        grab_dealer=bool(draft and draft.dealer is None and ruleset.kind == "team"),
        redeal_callers=state.redeal_callers(), can_fry=ruleset.frying, fry_seats=state.fry_seats(),
        last_burier=draft.buriers[-1] if draft and draft.buriers else None,
        rebury_seconds=ruleset.time.rebury_seconds or ruleset.time.bury_seconds,
        undo=(step.kind, step.seat) if step else None, undo_referees=state.undo_is_referees(),
        clock_kind=clock.kind if clock else None, clock_seat=clock.seat if clock else None,
        clock_limit=clock.limit if clock else 0.0, clock_started=clock.started if clock else 0.0,
        clock_running=bool(clock and clock.running), clock_elapsed=clock.elapsed if clock else 0,
        trick=clock.trick if clock and clock.kind == ClockKind.PLAY else 0, tricks=state.tricks,
        plays=clock.plays if clock else 0, all_played=bool(clock and clock.done),
        leader=clock.leader if clock and clock.kind == ClockKind.PLAY else None,
        warn_before=session.config.warn_before,
        match_limit=mc.limit if mc else None, match_started=mc.started if mc else 0.0,
        match_running=bool(mc and mc.running), match_elapsed=mc.elapsed if mc else 0.0,
        match_clock_started=state.match_started,
        paused=state.paused, pause_reason=state.pause_reason,
        time_up=dict(state.time_up) if state.time_up else None,
        time_up_rule=ruleset.time.time_up, time_up_preview=state.time_up_preview(),
        dropped_at_time_up=state.dropped_at_time_up(),
        needs_ruling=state.needs_ruling is not None,
        points=draft.points if draft else None,
        kitty=dict(draft.kitty) if draft and draft.kitty else None,
        penalties=tuple((k, dict(v)) for k, v in draft.penalties.items()) if draft else (),
        entry_step=dict(draft.entry_step) if draft else {},
        unconfirmed=tuple((pid, a.to_json()) for pid, a in state.unconfirmed()),
        penalty_costs=tuple((pid, a.to_json()) for pid, a in zip(
            draft.penalties, state.applied(), strict=False)) if draft else (),
        redeal_condition=ruleset.redeal_condition() if ruleset.kind == "team" else None,
        redeal_keeps_dealer=_redeal_keeps_dealer(ruleset, state.core),
        penalty_names=tuple((code, p.name) for code, p in ruleset.penalties.items()),
        penalty_forms={code: penalty_options(p) for code, p in ruleset.penalties.items()},
        one_penalty_per_incident=ruleset.one_penalty_per_incident,
        penalty_seats=seats, penalty_seats_by_dealer=by_dealer, overrun=overrun,
        multipliers=multipliers, kitty_times=ruleset.kitty.uniform,
        preview=preview,
        confirmed=tuple(sorted(draft.confirmed)) if draft else (), sides=sides or {},
        disputed_by=draft.disputed_by if draft else None,
        history=tuple(p.result.to_json() for p in state.played),
        records=tuple(dict(p.record) for p in state.played),
        corrected=tuple(p.corrected for p in state.played), result=result,
        end=dict(state.end) if state.end else None,
        slips=dict(slips or {}) if state.phase == Phase.OVER else {}, **common)
