"""The state of one match at a table, as a fold of its journal events.

Checking is kept apart from changing, as a chess library keeps `is_legal` apart from `push`:
`MatchState.check(kind, data)` says whether a command may be recorded now and changes nothing,
so the session refuses a command before it is journaled; `MatchState.apply(event)` folds a
recorded event in. Both find the event's rules in one explicit table, `RULES` (an event kind →
its check, its change, and the rules added since older journals were written, which only a new
command is held to). Every rule decision is the rules core's: this module only tracks phases,
clocks and the entries of the hand in progress.

Every refusal carries a catalog key (`table.*` in `kiosk/i18n/<lang>/table.toml`): the English
text of a SessionError is for logs, the screen shows the key in the reader's language.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..errors import SessionError
from ..protocol.schema import Event
from ..rules import (
    DealEntry,
    DealResult,
    EntryError,
    HandEntry,
    IndividualRound,
    KittyEntry,
    PenaltyEntry,
    RecordError,
    Ruleset,
    Rulesets,
    TeamMatch,
    score_hand,
)
from ..rules.hand import check_points
from ..rules.seats import PARTNER_OF, SEATS, TEAM_OF, next_seat
from .kinds import AFTER_PLAY, IDLE, IN_HAND, ClockKind, EventKind, PauseReason, Phase

_PENALTY_FIELDS = ("cards", "points", "levels", "choice", "late", "incident", "confirmed")
#: What the referee's correction of a confirmed hand gives again (the rest stays as played).
CORRECTED_FIELDS = frozenset({"points", "kitty", "penalties", "trump"})
#: Trump as the kiosk records it: a suit, or NT (no trump).
TRUMPS = ("♠", "♥", "♣", "♦", "NT")
#: The cards of one deck and of the kitty (docs/rules.md §1: two decks, a kitty of 8).
DECK_CARDS, KITTY_CARDS = 54, 8
#: The steps of the table's entry of a finished hand (kept in the journal, so that a half-entered
#: hand survives a restart).
ENTRY_STEPS = ("points", "last_trick", "kitty_points", "kitty_shape", "penalties",
               "penalty_seat", "penalty_kind", "penalty_option", "penalty_value",
               "penalty_incident")


def refused(key: str, text: str, **params: Any) -> SessionError:
    """A SessionError with its catalog key `table.<key>` (the English `text` is for logs)."""
    error = SessionError(text)
    error.explained(f"table.{key}", **params)
    return error


def _as_written(value: Any) -> str:
    """A record's value for the words: text as it is, anything else as its JSON (null)."""
    return value if isinstance(value, str) else json.dumps(value)


def entry_refused(exc: RecordError | EntryError, prefix: str = "") -> SessionError:
    """The rules core refused an entry: keep its own words for the problem when it has them
    (without where in the hand it sits, 「第2条违例的违例代码」: the table is entering that
    very thing), else say which part of the entry it was (points, kitty, a penalty…)."""
    error = SessionError(f"{prefix}{exc}")
    if exc.problem_key:
        error.explained(exc.problem_key, **exc.problem_params)
        return error
    if getattr(exc, "key", None):
        error.explained(exc.key, **exc.params)  # type: ignore[arg-type]
        return error
    where = str(getattr(exc, "field", "") or "")
    part = next((p for p in ("kitty", "penalties", "points", "dealer", "partner", "end")
                 if where.startswith(p)), "entry")
    error.explained(f"table.refused.{part}")
    return error


def _pause_reason(value: Any) -> str:
    """A pause's reason as journaled: one of PauseReason (a journal's own words kept as they
    are)."""
    text = str(value or PauseReason.REFEREE)
    try:
        return PauseReason(text)
    except ValueError:
        return text


def _check_late(data: dict[str, Any]) -> None:
    """`late`: how long before the kiosk heard it the hall started, paused or resumed."""
    late = data.get("late", 0)
    if isinstance(late, bool) or not isinstance(late, int | float) or \
            not 0 <= late <= 24 * 3600:
        raise refused("bad_late", f"hall moment {late!r} seconds ago: give 0 to a day")


def tricks_per_hand(ruleset: Ruleset) -> int:
    """How many tricks a hand has: the cards of the ruleset's decks, less the kitty, by four."""
    decks = getattr(ruleset, "decks", 2)
    return int((DECK_CARDS * decks - KITTY_CARDS) // 4)


@dataclass
class MoveClock:
    """Whose move it is and since when. `seat` None: a new trick's lead time, charged to the
    seat that presses first. While paused `elapsed` holds the time so far. `started` may lie in
    the future: the gather grace after a trick, before the lead's time starts."""

    kind: ClockKind
    seat: str | None
    limit: float
    started: float
    running: bool = True
    elapsed: float = 0.0
    plays: int = 0  # plays made in the current trick
    trick: int = 1
    leader: str | None = None
    done: bool = False  # every trick of the hand is played

    def elapsed_at(self, now: float) -> float:
        return now - self.started if self.running else self.elapsed

    def __copy__(self) -> MoveClock:
        # (copy's generic way costs four times as much: every press keeps a copy for undo)
        twin = object.__new__(MoveClock)
        twin.__dict__.update(self.__dict__)
        return twin


@dataclass(slots=True)  # (one for every press: tens of thousands in a hall's folds)
class Undo:
    """How to take back one step of the hand: `kind` is the event that made it (press, fry,
    no-fry, leader, bury-start, play-end, dealer, redeal); the phase, move clock, buriers and
    trump before it; the penalties it added; for a redeal, the match and the hand before it."""

    kind: EventKind
    phase: Phase
    clock: MoveClock | None
    buriers: list[str]
    added: list[str] = field(default_factory=list)
    seat: str | None = None
    before: tuple[Any, Any] | None = None  # (core, draft) before a redeal
    trump: dict[str, Any] | None = None


@dataclass
class Draft:
    """The hand in progress: who deals and everything entered so far."""

    number: int
    dealer: str | None
    as_played: bool = False
    partner: str | None = None
    partner_card: str | None = None
    trump: dict[str, Any] | None = None
    points: int | None = None
    kitty: dict[str, Any] | None = None
    penalties: dict[str, dict[str, Any]] = field(default_factory=dict)
    buriers: list[str] = field(default_factory=list)
    undo: list[Undo] = field(default_factory=list)
    confirmed: set[str] = field(default_factory=set)
    disputed_by: str | None = None
    entry_step: dict[str, Any] = field(default_factory=dict)  # where the table's entry is


@dataclass
class Played:
    """A confirmed hand: the record entry, the core's result, and how it was entered. A hand
    the referee corrected keeps its total as first confirmed (`was`) and the last reason."""

    record: dict[str, Any]
    result: Any
    corrected: bool = False
    was: int | None = None
    reason: str = ""


class Correction(NamedTuple):
    """What the slip and the sheet say of a corrected hand: its total as first confirmed, and
    the referee's reason."""

    was: int | None
    reason: str


class Corrected(NamedTuple):
    """A confirmed hand corrected: the match's core, every hand's record and result, and what
    time up then waits for the referee to rule (None: nothing)."""

    core: TeamMatch | IndividualRound
    records: list[dict[str, Any]]
    results: list[Any]
    needs_ruling: str | None


class MatchState:
    """One match, folded from its events."""

    def __init__(self, rulesets: Rulesets) -> None:
        self.rulesets = rulesets
        self.phase = Phase.SETUP
        self.setup: dict[str, Any] = {}
        self.ruleset: Ruleset | None = None
        self.core: TeamMatch | IndividualRound | None = None
        self.played: list[Played] = []
        self.draft: Draft | None = None
        self.clock: MoveClock | None = None
        self.paused = False
        self.pause_reason: str | None = None  # a PauseReason (a journal's own words kept)
        self.match_clock: MoveClock | None = None  # kind MATCH; limit in seconds
        self.match_started = False
        self.hall_extra = 0.0  # seconds the hall's round clock has gained: the match clock too
        self.gather = 0.0  # seconds after a trick before the lead's time starts
        self.tricks = 25  # tricks in a hand
        # Frying is its own step after each bury (matches set up since it was; a journal from
        # before folds as it was played: the fry offered during the lead's time).
        self.fry_step = False
        # When time ran out: `at` = hands confirmed before the decision is taken, `in_hand` =
        # a hand was in play (it is finished first where the rules say so).
        self.time_up: dict[str, Any] | None = None
        self.needs_ruling: str | None = None  # time up could not pick a winner
        self.end: dict[str, Any] | None = None
        self.finishes = 0  # times the match was decided: more than one after a correction
        self.abandoned = False  # dropped before any hand: the scorer took its round back
        self.pin_failures: list[float] = []
        self.last_event: Event | None = None

    # -- the fold ---------------------------------------------------------------------------

    def check(self, kind: str, data: dict[str, Any]) -> None:
        """Raise SessionError if a command recording (kind, data) now would be refused: the
        rules of that kind of event, and those added since older journals were written.
        Changes nothing."""
        rule = _rule(kind)
        rule.check(self, data)
        if rule.recording is not None:
            rule.recording(self, data)

    def apply(self, event: Event) -> None:
        """Fold one recorded event in. Raises SessionError when it does not fit the state
        (a journal that was tampered with, or is not this match's); nothing changes then."""
        rule = _rule(event.kind)
        rule.apply(self, event, rule.check(self, event.data))
        self.last_event = event

    # -- helpers ----------------------------------------------------------------------------

    @property
    def team(self) -> bool:
        return self.ruleset is not None and self.ruleset.kind == "team"

    @property
    def standalone(self) -> bool:
        """Set up at the table, not by the hall's scorer (no event name)."""
        return not self.setup.get("event")

    @property
    def waiting_for_hall(self) -> bool:
        """A match the hall's scorer set up, whose round the head referee has not started yet
        (its match clock waits for the hall's start): the first hand waits too."""
        return not self.standalone and self.setup.get("start_at") is not None and \
            self.match_clock is not None and not self.match_started and not self.played and \
            self.phase == Phase.READY

    def _record_not_before_the_hall(self, data: dict[str, Any]) -> None:
        # (a rule since issue 31: older journals of tables that began early still fold)
        if self.waiting_for_hall:
            raise refused("wait_for_hall", "the hall has not started the round yet")

    def _need(self, *phases: Phase) -> None:
        if self.phase not in phases:
            raise refused(f"not_now.{self.phase}", f"not now: the table is in phase "
                          f"'{self.phase}', this needs {' or '.join(phases)}")

    def _seat(self, value: Any, what: str) -> str:
        if value not in SEATS:
            raise refused("bad_seat", f"{what} {value!r}: give N, E, S or W")
        return str(value)

    def _not_paused(self) -> None:
        if self.paused:
            raise refused("paused", "the clocks are paused: resume first")

    def side_of(self, seat: str) -> str:
        """The side a seat's player is on: a team, or in shuangsheng "dealer"/"defenders"."""
        if self.team:
            return TEAM_OF[seat]
        draft = self.draft
        assert draft is not None and draft.dealer is not None
        partner = self.partner()
        if partner is None:
            raise refused("no_partner", "the partner is not drawn yet")
        player = self.player_at(seat)
        return "dealer" if player in (draft.dealer, partner) else "defenders"

    def partner(self) -> str | None:
        draft = self.draft
        if draft is None or draft.dealer is None:
            return None
        if draft.partner is not None:
            return draft.partner
        if draft.partner_card is not None:
            assert isinstance(self.core, IndividualRound)
            return self.core.partner_by_card(draft.dealer, draft.partner_card)
        return None

    def player_at(self, chair: str) -> str:
        """shuangsheng: the player in `chair` this deal (the partner swaps chairs with whoever
        sits opposite the dealer). Team rulesets: the seat itself."""
        draft, partner = self.draft, self.partner()
        if self.team or draft is None or draft.dealer is None or partner is None:
            return chair
        opposite = PARTNER_OF[draft.dealer]
        if chair == opposite:
            return partner
        if chair == partner:
            return opposite
        return chair

    def dealer_side(self) -> frozenset[str]:
        """The seats of the dealer's side in the hand in progress (empty before a dealer)."""
        draft = self.draft
        if draft is None or draft.dealer is None:
            return frozenset()
        if self.team:
            return frozenset({draft.dealer, PARTNER_OF[draft.dealer]})
        partner = self.partner()
        return frozenset({draft.dealer, partner}) if partner else frozenset({draft.dealer})

    def _new_draft(self) -> None:
        core = self.core
        number = len(self.played) + 1
        if isinstance(core, TeamMatch):
            self.draft = Draft(number, core.next_dealer)
        else:
            assert isinstance(core, IndividualRound)
            self.draft = Draft(number, None if core.finished else core.next_dealer())
        self.phase = Phase.READY

    def entry(self, draft: Draft | None = None) -> HandEntry | DealEntry:
        """The core entry for the hand in progress."""
        draft = draft or self.draft
        assert draft is not None
        kitty = KittyEntry(draft.kitty["points"], draft.kitty.get("shape")) if draft.kitty \
            else None
        penalties = tuple(
            PenaltyEntry(p["code"], p["seat"], **{k: p[k] for k in _PENALTY_FIELDS if k in p})
            for p in draft.penalties.values())
        if self.team:
            return HandEntry(points=draft.points, kitty=kitty, penalties=penalties,
                             dealer=draft.dealer, as_played=draft.as_played,
                             buried_by=self.buried_by(draft))
        return DealEntry(points=draft.points, kitty=kitty, penalties=penalties,
                         partner=draft.partner, partner_card=draft.partner_card,
                         dealer=draft.dealer)

    def buried_by(self, draft: Draft | None = None) -> str | None:
        """Who buried the kitty last, where frying lets another seat bury (None otherwise)."""
        draft = draft or self.draft
        if draft is None or not draft.buriers or self.ruleset is None or \
                not self.ruleset.frying:
            return None
        return draft.buriers[-1]

    def applied(self, draft: Draft | None = None) -> tuple[Any, ...]:
        """The penalties of the hand in progress (or of a `draft` of it) as they count now (a
        warning, points, a cost awaiting the referee…), in order, scored with the match's
        counters; () when they cannot be."""
        draft, ruleset, core = draft or self.draft, self.ruleset, self.core
        if draft is None or ruleset is None or core is None or not draft.penalties:
            return ()
        entry = self.entry(draft)
        dealer = draft.dealer or "N"
        side_key = TEAM_OF if self.team else {s: s for s in SEATS}
        try:
            score, _ = score_hand(ruleset, entry.points or 0, entry.kitty, entry.penalties,
                                  self.dealer_side() or frozenset({dealer, PARTNER_OF[dealer]}),
                                  getattr(core, "counts", {}), side_key, dealer=draft.dealer,
                                  buried_by=self.buried_by(draft))
        except EntryError:
            return ()
        return score.penalties

    def unconfirmed(self) -> list[tuple[str, Any]]:
        """The penalties of this hand whose cost waits for the referee, each with what it will
        cost once confirmed: (id, applied penalty as confirmed)."""
        draft = self.draft
        if draft is None:
            return []
        out = []
        for i, (pid, effect) in enumerate(zip(draft.penalties, self.applied(), strict=False)):
            if effect.effect != "unconfirmed":
                continue
            trial = copy.copy(draft)
            trial.penalties = {**draft.penalties, pid: {**draft.penalties[pid],
                                                        "confirmed": True}}
            confirmed = self.applied(trial)
            if len(confirmed) > i:
                out.append((pid, confirmed[i]))
        return out

    def preview(self) -> Any:
        """What the hand in progress would give if confirmed now. Raises SessionError."""
        assert self.core is not None
        try:
            return self.core.play(self.entry())[1]  # type: ignore[arg-type]
        except EntryError as exc:
            raise entry_refused(exc) from None

    def _record(self, draft: Draft) -> dict[str, Any]:
        """The hand as a docs/rules.md §9 record entry (with the dealer always named)."""
        record: dict[str, Any] = {"dealer": draft.dealer}
        if draft.as_played:
            record["as_played"] = True
        if not self.team:
            record.pop("dealer")
            for key in ("partner", "partner_card"):
                if getattr(draft, key) is not None:
                    record[key] = getattr(draft, key)
        if draft.points is not None:
            record["points"] = draft.points
        if draft.kitty:
            record["kitty"] = dict(draft.kitty)
        if draft.penalties:
            record["penalties"] = [dict(p) for p in draft.penalties.values()]
        if draft.trump:
            record["trump"] = dict(draft.trump)
        if self.team and self.buried_by(draft) is not None:
            record["buried_by"] = self.buried_by(draft)
        if draft.disputed_by is not None:  # the referee ruled this result (words only)
            record["disputed_by"] = draft.disputed_by
        return record

    def _commit_hand(self, event: Event) -> None:
        """Apply the confirmed hand to the core, then start the next one or end."""
        draft, core = self.draft, self.core
        assert draft is not None and core is not None
        try:
            core, result = core.play(self.entry())  # type: ignore[arg-type]
        except EntryError as exc:
            raise entry_refused(exc) from None
        self.core = core
        self.played.append(Played(self._record(draft), result))
        undecided = not isinstance(core, TeamMatch) or core.winner is None
        if self.time_up and self.time_up["at"] == len(self.played) and undecided and \
                not self._round_ends_at_time_up():
            self.core = self._decide_time_up(core, in_hand=False)
        self._after_hand(event.mono)

    def _after_hand(self, mono: float) -> None:
        core = self.core
        over = (core.winner is not None if isinstance(core, TeamMatch)
                else isinstance(core, IndividualRound) and core.finished) or \
            self._round_ends_at_time_up()
        if over:
            self._finish(mono)
        else:
            self._new_draft()

    def _finish(self, mono: float) -> None:
        """The match is over: no hand, no move, nothing paused, and the match clock stops."""
        self.phase, self.draft, self.clock, self.paused = Phase.OVER, None, None, False
        self.pause_reason = None
        self.finishes += 1
        if self.match_clock is not None:
            self._stop_clock(self.match_clock, mono)

    @property
    def last_mono(self) -> float:
        return self.last_event.mono if self.last_event else 0.0

    def _stop_clock(self, clock: MoveClock, mono: float) -> None:
        if clock.running:
            clock.elapsed, clock.running = mono - clock.started, False

    def _push_undo(self, kind: EventKind, added: list[str] | None = None, seat: str | None = None,
                   before: tuple[Any, Any] | None = None) -> None:
        # (every press comes here: the clock copied by its own __copy__, not copy's dispatch;
        # the trump shared, as a trump is only ever replaced by a new dict, never changed)
        draft, clock = self.draft, self.clock
        assert draft is not None
        draft.undo.append(Undo(kind, self.phase, clock.__copy__() if clock is not None else None,
                               list(draft.buriers), list(added) if added else [], seat, before,
                               draft.trump))

    def undoable(self) -> Undo | None:
        """The step `undo` would take back now, if any."""
        draft = self.draft
        if draft is None or not draft.undo or self.phase not in (
                Phase.READY, Phase.BURY, Phase.FRY, Phase.PLAY, Phase.ENTRY):
            return None
        last = draft.undo[-1]
        if self.phase == Phase.ENTRY and last.kind != EventKind.PLAY_END:
            return None
        return last

    def undo_is_referees(self) -> bool:
        """Whether undoing now is the referee's (behind the PIN): a redeal (the table asked
        for it), or a press or the end of play that brought a cost the referee has confirmed
        since (a tap at the table struck out an 80-point overrun the referee had charged)."""
        step, draft = self.undoable(), self.draft
        if step is None or draft is None:
            return False
        return step.kind == EventKind.REDEAL or any(
            draft.penalties.get(pid, {}).get("confirmed") for pid in step.added)

    def seats_for(self, code: str) -> tuple[str, ...]:
        """The seats that can commit penalty `code` in the hand in progress (the ruleset says)."""
        ruleset, draft = self.ruleset, self.draft
        assert ruleset is not None
        dealer = draft.dealer if draft and draft.dealer else "N"
        buried_by = draft.buriers[-1] if draft and draft.buriers else None
        try:
            return tuple(ruleset.seats_for(code, dealer, buried_by=buried_by))
        except EntryError as exc:
            raise entry_refused(exc) from None

    def _validate_penalty(self, penalty: dict[str, Any]) -> None:
        """Check a penalty entry with the rules core, as part of the hand in progress."""
        draft, ruleset = self.draft, self.ruleset
        assert draft is not None and ruleset is not None
        self._seat(penalty.get("seat"), "penalty seat")
        trial = copy.copy(draft)
        trial.penalties = {**draft.penalties, "new": penalty}
        entry = self.entry(trial)
        dealer = draft.dealer or "N"
        dealer_side = (frozenset({dealer, PARTNER_OF[dealer]}) if self.team
                       else frozenset({dealer, self.partner() or PARTNER_OF[dealer]}))
        side_key = TEAM_OF if self.team else {s: s for s in SEATS}
        try:  # the rules core refuses a seat that cannot commit the offence
            score_hand(ruleset, entry.points if entry.points is not None else 0, entry.kitty,
                       entry.penalties, dealer_side, {}, side_key, dealer=draft.dealer,
                       buried_by=self.buried_by(draft))
        except EntryError as exc:
            if exc.problem_key == "rules.entry.incident_twice":
                raise self._incident_twice(penalty) from None
            raise entry_refused(exc) from None

    def _incident_twice(self, penalty: dict[str, Any]) -> SessionError:
        """A second penalty for one incident, where the ruleset gives one (xiamen art. 22), in
        the referee's terms: the penalty already recorded by its seat and name (the rules
        core's words name the incident's id and count entries the table does not number)."""
        draft, ruleset = self.draft, self.ruleset
        assert draft is not None and ruleset is not None
        incident = str(penalty["incident"])
        earlier = next(p for pid, p in draft.penalties.items()
                       if incident in (pid, str(p.get("incident"))))
        return refused("incident_twice", f"incident {incident} already has a penalty",
                       penalty=ruleset.penalties[penalty["code"]].name, seat=earlier["seat"],
                       earlier=ruleset.penalties[earlier["code"]].name)

    # -- the rules of each kind of event ----------------------------------------------------
    #
    # For each kind, `_check_<kind>(data)` says whether the event may happen now (raising a
    # SessionError) and changes nothing; it may return what it worked out, which
    # `_apply_<kind>(event, checked)` then uses to make the change. `_record_<kind>(data)`,
    # where there is one, holds rules added after journals were written: it is checked when a
    # command is recorded, never when a journal is folded. RULES, after the class, is the
    # dispatch table.

    def _check_setup(self, data: dict[str, Any]) -> Ruleset:
        self._need(Phase.SETUP)
        ruleset_id = data.get("ruleset")
        ruleset = self.rulesets.get(ruleset_id) if isinstance(ruleset_id, str) else None
        if ruleset is None:
            raise refused("unknown_ruleset", f"unknown ruleset {ruleset_id!r}; "
                          f"known: {', '.join(self.rulesets)}", ruleset=_as_written(ruleset_id))
        setup_sha = data.get("ruleset_sha256")
        if setup_sha != ruleset.sha256:
            raise refused("ruleset_changed", f"the match was set up with {ruleset.id} sha256 "
                          f"{setup_sha}, but the {ruleset.id} here has sha256 "
                          f"{ruleset.sha256}", ruleset=ruleset.id,
                          setup=_as_written(setup_sha), here=ruleset.sha256)
        minutes = data.get("match_minutes")
        if minutes is not None and (isinstance(minutes, bool) or not isinstance(
                minutes, int | float) or not 0 <= minutes < 24 * 60):
            raise refused("bad_match_time", f"match time {minutes!r}: give minutes, 0 to a day")
        gather = data.get("gather_seconds", 0)
        if isinstance(gather, bool) or not isinstance(gather, int | float) or \
                not 0 <= gather <= 30:
            raise refused("bad_gather", f"gather time {gather!r}: give 0 to 30 seconds")
        start = data.get("start_at")  # the hall's start of the round it was assigned for
        if start is not None and (isinstance(start, bool) or not isinstance(start, int | float)):
            raise refused("bad_start", f"round start {start!r}: give the scorer's time")
        for key, names in (("teams", ("NS", "EW")), ("players", SEATS)):
            given = data.get(key)
            if not isinstance(given, dict) or not set(given) <= set(names) or not all(
                    isinstance(v, str) for v in given.values()):
                raise refused("bad_names", f"{key}: give names by {'/'.join(names)}")
        return ruleset

    def _apply_setup(self, ev: Event, ruleset: Ruleset) -> None:
        data = ev.data
        self.setup, self.ruleset = dict(data), ruleset
        self.fry_step = ruleset.frying and data.get("fry_step") is True
        self.gather = float(data.get("gather_seconds", 0))
        self.tricks = tricks_per_hand(ruleset)
        self.core = (TeamMatch.start(ruleset, None) if ruleset.kind == "team"
                     else IndividualRound.start(ruleset))
        limit = (data.get("match_minutes") or 0) * 60
        self.match_clock = MoveClock(ClockKind.MATCH, None, limit, 0.0, running=False) \
            if limit else None
        self._new_draft()

    def _check_dealer(self, data: dict[str, Any]) -> str:
        self._need(Phase.READY)
        assert self.draft is not None and isinstance(self.core, TeamMatch | IndividualRound)
        seat = self._seat(data.get("seat"), "dealer")
        if not isinstance(self.core, TeamMatch) or self.core.next_dealer is not None or \
                self.draft.dealer is not None:
            raise refused("dealer_known", f"the dealer is not grabbed here: "
                          f"{self.draft.dealer} deals")
        return seat

    def _apply_dealer(self, ev: Event, seat: str) -> None:
        assert self.draft is not None
        self._push_undo(EventKind.DEALER, seat=seat)
        self.draft.dealer = seat

    def _check_partner(self, data: dict[str, Any]) -> Draft:
        self._need(Phase.READY, Phase.BURY, Phase.PLAY, Phase.ENTRY, Phase.RESULT)
        if self.team:
            raise refused("no_partner_draw", "partners are drawn only in individual events")
        draft = self.draft
        assert draft is not None and isinstance(self.core, IndividualRound)
        trial = copy.copy(draft)
        trial.partner, trial.partner_card = data.get("partner"), data.get("card")
        try:
            self.core.partner_for(draft.dealer or "E", self.entry(trial))  # type: ignore[arg-type]
        except EntryError as exc:
            raise entry_refused(exc) from None
        return trial

    def _apply_partner(self, ev: Event, trial: Draft) -> None:
        assert self.draft is not None
        self.draft.partner, self.draft.partner_card = trial.partner, trial.partner_card
        self._back_to_entry()

    def trumps(self) -> tuple[str, ...]:
        """The trumps a hand may have under the match's ruleset (xiamen plays no no-trump)."""
        ruleset = self.ruleset
        return TRUMPS if ruleset is None or ruleset.plays_no_trump else TRUMPS[:-1]

    def _check_suit(self, suit: Any, key: str, what: str) -> None:
        if suit == "NT" and "NT" not in self.trumps():
            raise refused("no_no_trump", f"{what} NT: this ruleset plays no no-trump hands")
        if suit not in TRUMPS:
            raise refused(key, f"{what} {suit!r}: give one of {' '.join(self.trumps())}")

    def _check_trump(self, data: dict[str, Any]) -> None:
        self._need(Phase.READY, Phase.BURY, Phase.FRY, Phase.PLAY)
        self._check_suit(data.get("suit"), "bad_trump", "trump")
        self._seat(data.get("seat"), "trump declared by")

    def _apply_trump(self, ev: Event, _: None) -> None:
        assert self.draft is not None
        self.draft.trump = {"suit": ev.data["suit"], "seat": ev.data["seat"]}

    def _check_redeal(self, data: dict[str, Any]) -> tuple[TeamMatch, Any]:
        self._need(Phase.READY, Phase.BURY, Phase.PLAY)
        draft, core = self.draft, self.core
        assert draft is not None
        if not isinstance(core, TeamMatch) or self.ruleset is None or not self.ruleset.redeal:
            raise refused("no_redeal", f"{self.ruleset.id if self.ruleset else 'this ruleset'}"
                          " has no redeal")
        if draft.dealer is None:
            raise refused("dealer_first", "give the grabbed dealer first")
        seat = self._seat(data.get("seat"), "redeal by")
        if seat not in self.redeal_callers():
            raise refused("redeal_by_defender", "a redeal is called by a defender: give their "
                          "seat")
        if draft.penalties or draft.points is not None:
            raise refused("redeal_entries", "remove the entries of this hand before a redeal")
        entry = HandEntry(redeal=True, dealer=draft.dealer, as_played=draft.as_played,
                          called_by=seat)
        try:
            return core.play(entry)
        except EntryError as exc:
            raise entry_refused(exc) from None

    def _apply_redeal(self, ev: Event, played: tuple[TeamMatch, Any]) -> None:
        draft, core = self.draft, self.core
        assert draft is not None
        seat = ev.data["seat"]
        record = {"redeal": True, "dealer": draft.dealer, "called_by": seat}
        if draft.as_played:
            record["as_played"] = True
        before = (core, draft)
        phase, clock = self.phase, copy.copy(self.clock)
        self.core, self.clock = played[0], None
        self.played.append(Played(record, played[1]))
        self._new_draft()
        assert self.draft is not None
        self.draft.undo.append(Undo(EventKind.REDEAL, phase, clock, list(draft.buriers),
                                    seat=seat, before=before))

    def redeal_callers(self) -> tuple[str, ...]:
        """The seats that may call a redeal in the hand in progress (the ruleset says)."""
        ruleset, draft = self.ruleset, self.draft
        if ruleset is None or ruleset.redeal is None or draft is None or draft.dealer is None:
            return ()
        return tuple(ruleset.redeal_callers(draft.dealer))

    def _check_bury_start(self, data: dict[str, Any]) -> None:
        self._need(Phase.READY)
        assert self.draft is not None and self.ruleset is not None
        if self.draft.dealer is None:
            raise refused("dealer_first", "the dealer is grabbed here: give the dealer first")
        self._not_paused()

    def _record_bury_start(self, data: dict[str, Any]) -> None:
        self._record_not_before_the_hall(data)
        # every seed sets the trump before the dealer takes the kitty
        assert self.draft is not None
        if self.team and self.draft.trump is None:
            raise refused("trump_first", "give the trump before the bury")

    def _apply_bury_start(self, ev: Event, _: None) -> None:
        draft, ruleset = self.draft, self.ruleset
        assert draft is not None and draft.dealer is not None and ruleset is not None
        self._push_undo(EventKind.BURY_START)
        draft.buriers = [draft.dealer]
        self.clock = MoveClock(ClockKind.BURY, draft.dealer, ruleset.time.bury_seconds, ev.mono)
        self.phase = Phase.BURY
        mc = self.match_clock
        if mc is not None and not self.match_started and self.standalone and \
                self.time_up is None:
            # A match set up at the table has no hall start: its time starts at the first bury.
            self.match_started = True
            mc.started, mc.running = ev.mono, True

    def fry_seats(self) -> tuple[str, ...]:
        """The seats that may fry the kitty now: every seat but the last to bury (docs/rules.md §4:
        a seat that said no may fry again once another has fried; the dealer too)."""
        draft, ruleset, clock = self.draft, self.ruleset, self.clock
        if draft is None or ruleset is None or not ruleset.frying or not draft.buriers or \
                self.paused:
            return ()
        if self.fry_step:
            open_now = self.phase == Phase.FRY
        else:  # a journal from before the fry step: during the lead's time, before any card
            open_now = self.phase == Phase.PLAY and clock is not None and clock.trick == 1 and \
                clock.plays == 0 and clock.seat == draft.dealer
        return tuple(s for s in SEATS if s != draft.buriers[-1]) if open_now else ()

    def _check_fry(self, data: dict[str, Any]) -> None:
        """A seat fries: it takes the kitty, re-buries on its own clock and sets a new trump
        (docs/rules.md §4); the dealer stays."""
        self._need(Phase.FRY if self.fry_step else Phase.PLAY)
        ruleset = self.ruleset
        assert self.draft is not None and ruleset is not None
        if not ruleset.frying:
            raise refused("no_frying", f"{ruleset.id} has no kitty frying")
        self._not_paused()
        seat = data.get("seat")
        if not self.fry_seats():
            raise refused("frying_over", "frying is over once the first card is led")
        if seat not in self.fry_seats():
            raise refused("fry_seat", f"fry by {seat!r}: another seat than the last to bury")
        suit = data.get("suit")
        if self.fry_step or suit is not None:
            self._check_suit(suit, "fry_trump", "fry trump")

    def _apply_fry(self, ev: Event, _: None) -> None:
        draft, ruleset = self.draft, self.ruleset
        assert draft is not None and ruleset is not None
        seat, suit = ev.data["seat"], ev.data.get("suit")
        self._push_undo(EventKind.FRY, seat=seat)
        draft.buriers.append(seat)
        if suit is not None:
            draft.trump = {"suit": suit, "seat": seat}
        limit = ruleset.time.rebury_seconds or ruleset.time.bury_seconds
        self.clock = MoveClock(ClockKind.BURY, seat, limit, ev.mono)
        self.phase = Phase.BURY

    def _check_no_fry(self, data: dict[str, Any]) -> None:
        """Nobody fries: the play starts, and with it the lead's time."""
        self._need(Phase.FRY)
        self._not_paused()

    def _apply_no_fry(self, ev: Event, _: None) -> None:
        self._push_undo(EventKind.NO_FRY)
        self._start_play(ev.mono)

    def _start_play(self, mono: float) -> None:
        """The first trick: the dealer leads, on the play clock from `mono`."""
        draft, ruleset = self.draft, self.ruleset
        assert draft is not None and ruleset is not None
        self.phase = Phase.PLAY
        self.clock = MoveClock(ClockKind.PLAY, draft.dealer, ruleset.time.play_seconds, mono,
                               leader=draft.dealer)

    def _check_press(self, data: dict[str, Any]) -> None:
        """A seat's button: the bury or the move is done, or (the result) its side agrees."""
        seat = self._seat(data.get("seat"), "press by")
        if self.phase == Phase.RESULT:
            self._check_confirm(data)
            return
        if self.phase == Phase.FRY:
            raise refused("fry_first", "frying first: who fries, or nobody")
        self._need(Phase.BURY, Phase.PLAY)
        if self.paused:
            raise refused("paused", "the clocks are paused")
        clock = self.clock
        assert clock is not None and self.draft is not None and self.ruleset is not None
        if clock.done:
            raise refused("all_tricks_played", f"all {self.tricks} tricks are played: end the "
                          "play")
        if clock.seat is not None and seat != clock.seat:
            raise refused("not_your_turn", f"not {seat}'s turn: {clock.seat} is to move")

    def _record_press(self, data: dict[str, Any]) -> None:
        if self.phase == Phase.RESULT:
            self._record_confirm(data)

    def _apply_press(self, ev: Event, _: None) -> None:
        if self.phase == Phase.RESULT:
            self._apply_confirm(ev, None)
            return
        clock, ruleset = self.clock, self.ruleset
        assert clock is not None and ruleset is not None
        seat = ev.data["seat"]
        self._push_undo(EventKind.PRESS, ev.data.get("overrun_ids"), seat=seat)
        if self.phase == Phase.BURY:
            if self.fry_step:  # the other seats decide whether to fry; no clock runs
                self.phase, self.clock = Phase.FRY, None
            else:
                self._start_play(ev.mono)
            return
        if clock.seat is None:
            clock.leader = seat
        clock.plays += 1
        clock.started = ev.mono
        if clock.plays == 4:
            clock.trick, clock.plays, clock.seat, clock.leader = clock.trick + 1, 0, None, None
            if clock.trick > self.tricks:  # the last trick: nobody leads, the play is over
                clock.trick, clock.done = self.tricks, True
                clock.running, clock.elapsed = False, 0.0
            else:  # the lead's time starts once the trick is gathered
                clock.started = ev.mono + self.gather
        else:
            clock.seat = next_seat(seat, ruleset.dealer.direction)

    def _check_time_overrun(self, data: dict[str, Any]) -> None:
        self._need(Phase.BURY, Phase.PLAY)

    def _apply_time_overrun(self, ev: Event, _: None) -> None:
        ruleset, draft, data = self.ruleset, self.draft, ev.data
        assert ruleset is not None and draft is not None
        if "time-overrun" not in ruleset.penalties:
            return
        choice = ruleset.time.overrun_bury if data["phase"] == ClockKind.BURY else \
            ruleset.time.overrun_play
        # in tenths, as the clock shows them; over by less than one is said as 0.1, never 0.0
        penalty = {"code": "time-overrun", "seat": self.player_at(data["seat"]),
                   "over_seconds": max(0.1, round(data["over"], 1)), "incident": data["id"]}
        if choice:
            penalty["choice"] = choice
        draft.penalties[data["id"]] = penalty

    def _check_leader(self, data: dict[str, Any]) -> str:
        self._need(Phase.PLAY)
        assert self.clock is not None and self.ruleset is not None
        seat = self._seat(data.get("seat"), "leader")
        if self.clock.done:
            raise refused("all_tricks_played", "all tricks are played")
        return seat

    def _apply_leader(self, ev: Event, seat: str) -> None:
        clock, ruleset = self.clock, self.ruleset
        assert clock is not None and ruleset is not None
        self._push_undo(EventKind.LEADER, seat=seat)
        clock.leader = seat
        if clock.plays or clock.seat is not None:
            current = seat
            for _ in range(clock.plays):
                current = next_seat(current, ruleset.dealer.direction)
            clock.seat = current
        else:
            clock.seat = seat

    def _check_undo(self, data: dict[str, Any]) -> Undo:
        self._need(Phase.READY, Phase.BURY, Phase.FRY, Phase.PLAY, Phase.ENTRY)
        assert self.draft is not None
        step = self.undoable()
        if step is None:
            raise refused("nothing_to_undo", "nothing to undo in this hand")
        return step

    def _apply_undo(self, ev: Event, step: Undo) -> None:
        draft = self.draft
        assert draft is not None
        draft.undo.pop()
        if step.kind == EventKind.REDEAL:
            assert step.before is not None
            self.core, self.draft = step.before
            self.played.pop()
            self.phase = step.phase
        else:
            if step.kind == EventKind.DEALER:
                draft.dealer = None
            self.phase, draft.buriers = step.phase, step.buriers
            for penalty_id in step.added:
                draft.penalties.pop(penalty_id, None)
            if step.kind == EventKind.PLAY_END:
                draft.entry_step = {}
            if step.kind == EventKind.FRY:  # the frier's trump goes with its fry
                draft.trump = step.trump
        # The seat to move again gets a fresh move from the undo: the time the referee took to
        # see and take back the mistake is not the player's (nor an overrun).
        self.clock = self._fresh(step.clock, ev.mono)
        if self.clock is not None and not self.clock.done:
            # taken back during a pause: the move starts afresh on resume
            self.clock.running = not self.paused

    @staticmethod
    def _fresh(clock: MoveClock | None, mono: float) -> MoveClock | None:
        """The move clock with a fresh move from `mono` (after an undo, and on resume: an
        overrun never carries over)."""
        if clock is not None and not clock.done:
            clock.started, clock.elapsed = mono, 0.0
        return clock

    def _check_play_end(self, data: dict[str, Any]) -> None:
        self._need(Phase.PLAY)
        self._not_paused()

    def _apply_play_end(self, ev: Event, _: None) -> None:
        self._push_undo(EventKind.PLAY_END, ev.data.get("overrun_ids"))
        self.clock, self.phase = None, Phase.ENTRY

    def _back_to_entry(self) -> None:
        draft = self.draft
        assert draft is not None
        draft.confirmed.clear()
        if self.phase == Phase.RESULT:
            self.phase = Phase.ENTRY

    def _check_points(self, data: dict[str, Any]) -> None:
        self._need(Phase.ENTRY, Phase.RESULT, Phase.DISPUTED)
        ruleset = self.ruleset
        assert self.draft is not None and ruleset is not None
        kitty = data.get("kitty")
        if kitty is not None and (not isinstance(kitty, dict)  # (the shape: where it counts)
                                  or set(kitty) not in ({"points"}, {"points", "shape"})):
            raise refused("kitty_incomplete", "kitty: give its points and the shape that won "
                          "the last trick")
        try:
            check_points(data.get("points"), KittyEntry(kitty["points"], kitty.get("shape"))
                         if kitty else None, ruleset)
        except (KeyError, TypeError):
            raise refused("refused.points", f"points {data.get('points')!r} refused") from None
        except EntryError as exc:
            raise entry_refused(exc) from None

    def _apply_points(self, ev: Event, _: None) -> None:
        assert self.draft is not None
        kitty = ev.data.get("kitty")
        self.draft.points, self.draft.kitty = ev.data["points"], dict(kitty) if kitty else None
        self._back_to_entry()

    def _check_entry_step(self, data: dict[str, Any]) -> None:
        """Where the table is in the entry of a finished hand, and what it chose there that is
        not a fact yet (the side that won the last trick, the kitty's points before its
        shape, a penalty half entered): kept so that a restart resumes at the same step."""
        self._need(Phase.ENTRY, Phase.RESULT)
        if data.get("step") not in ENTRY_STEPS or len(str(data)) > 2000:
            raise refused("refused.entry", f"entry step {data.get('step')!r}")

    def _apply_entry_step(self, ev: Event, _: None) -> None:
        assert self.draft is not None
        self.draft.entry_step = dict(ev.data)

    def _check_penalty(self, data: dict[str, Any]) -> None:
        self._need(Phase.READY, Phase.BURY, Phase.FRY, Phase.PLAY, Phase.ENTRY, Phase.RESULT,
                   Phase.DISPUTED)
        penalty = {k: v for k, v in data.items() if k != "id"}
        unknown = sorted(set(penalty) - {"code", "seat", *_PENALTY_FIELDS, "note"})
        if unknown:
            raise refused("refused.penalties", f"penalty: unknown detail {unknown[0]!r}; "
                          f"allowed: {', '.join(_PENALTY_FIELDS)}, note")
        self._validate_penalty(penalty)
        assert self.draft is not None
        if data.get("id") in self.draft.penalties:
            raise refused("penalty_exists", f"penalty {data['id']} already exists")

    def _apply_penalty(self, ev: Event, _: None) -> None:
        assert self.draft is not None
        penalty = {k: v for k, v in ev.data.items() if k != "id"}
        penalty["entered_by"] = ev.actor
        self.draft.penalties[ev.data["id"]] = penalty
        self._back_to_entry()

    def _penalties_with(self, penalty_id: Any) -> dict[str, dict[str, Any]]:
        """The hand's penalties, which must hold `penalty_id`."""
        self._need(Phase.READY, Phase.BURY, Phase.FRY, Phase.PLAY, Phase.ENTRY, Phase.RESULT,
                   Phase.DISPUTED)
        draft = self.draft
        assert draft is not None
        if penalty_id not in draft.penalties:
            raise refused("no_such_penalty", f"no penalty {penalty_id!r} in this hand")
        return draft.penalties

    def _check_penalty_removed(self, data: dict[str, Any]) -> None:
        self._penalties_with(data.get("id"))

    def _apply_penalty_removed(self, ev: Event, _: None) -> None:
        assert self.draft is not None
        del self.draft.penalties[ev.data["id"]]
        self._back_to_entry()

    def _check_penalty_confirmed(self, data: dict[str, Any]) -> None:
        """The referee confirms a cost the seed leaves to the referee (chaodipi's second bury
        overrun: 立即招请裁判)."""
        self._penalties_with(data.get("id"))

    def _apply_penalty_confirmed(self, ev: Event, _: None) -> None:
        assert self.draft is not None
        self.draft.penalties[ev.data["id"]]["confirmed"] = True
        self._back_to_entry()

    def _check_entries_done(self, data: dict[str, Any]) -> None:
        self._need(Phase.ENTRY)
        draft = self.draft
        assert draft is not None
        if draft.points is None and not draft.penalties:
            raise refused("points_first", "enter the defenders' points first")
        self.preview()

    def _apply_entries_done(self, ev: Event, _: None) -> None:
        self.phase = Phase.RESULT

    def _check_entries_reopen(self, data: dict[str, Any]) -> None:
        """The table goes back to the entry before both sides have confirmed; from a disputed
        result, the referee does, to change what was disputed (the session asks the PIN)."""
        self._need(Phase.RESULT, Phase.DISPUTED)

    def _apply_entries_reopen(self, ev: Event, _: None) -> None:
        assert self.draft is not None
        if self.phase == Phase.DISPUTED:  # both sides will agree to the changed result
            self.draft.disputed_by, self.phase = None, Phase.RESULT
        self._back_to_entry()

    def _check_confirm(self, data: dict[str, Any]) -> None:
        self._need(Phase.RESULT)
        assert self.draft is not None
        self.side_of(self._seat(data.get("seat"), "confirmation by"))

    def _record_confirm(self, data: dict[str, Any]) -> None:
        # a paused table confirms nothing (the next hand would begin under the pause)
        self._not_paused()

    def _apply_confirm(self, ev: Event, _: None) -> None:
        draft = self.draft
        assert draft is not None
        draft.confirmed.add(self.side_of(ev.data["seat"]))
        if len(draft.confirmed) == 2:
            self._commit_hand(ev)

    def _check_dispute(self, data: dict[str, Any]) -> str:
        self._need(Phase.RESULT)
        return self._seat(data.get("seat"), "dispute by")

    def _apply_dispute(self, ev: Event, seat: str) -> None:
        assert self.draft is not None
        self.draft.disputed_by, self.phase = self.side_of(seat), Phase.DISPUTED

    def _check_ruling(self, data: dict[str, Any]) -> None:
        self._need(Phase.DISPUTED)
        self.preview()

    def _apply_ruling(self, ev: Event, _: None) -> None:
        self._commit_hand(ev)

    def correction(self, number: Any, entry: Any) -> Corrected:
        """The match with confirmed hand `number` replaced by `entry` (points, kitty,
        penalties, trump): the core, the records and the results of every hand, and whether
        time up then waits for the referee. Raises SessionError; changes nothing."""
        if self.phase == Phase.SETUP:
            raise refused("no_correction", "corrections are for confirmed hands")
        if not isinstance(number, int) or not 1 <= number <= len(self.played):
            raise refused("no_such_hand", f"hand {number!r}: give a confirmed hand, 1 to "
                          f"{len(self.played)}")
        old = self.played[number - 1]
        if old.record.get("redeal"):
            raise refused("correct_redeal", f"hand {number} was a redeal; nothing to correct")
        if not isinstance(entry, dict) or not set(entry) <= CORRECTED_FIELDS:
            raise refused("refused.entry", "a corrected hand gives points, kitty, penalties "
                          "and trump only")
        # What the correction does not give stays as it was played: the dealer, who buried
        # the kitty last (a frier: the kitty's penalty is theirs), as_played; in an individual
        # round the partner (a deal's dealer comes in turn, so the deals after it are as played).
        new_record = {k: v for k, v in old.record.items() if k not in CORRECTED_FIELDS}
        new_record.update(entry)
        records = [p.record for p in self.played]
        records[number - 1] = new_record
        needs_ruling = self.needs_ruling
        try:
            core, results = self._refold(records, from_hand=number)
            after = self.needs_ruling
        finally:
            self.needs_ruling = needs_ruling
        return Corrected(core, records, results, after)

    def _check_correction(self, data: dict[str, Any]) -> Corrected:
        if not str(data.get("reason", "")).strip():
            raise refused("correction_reason", "a correction needs a reason")
        return self.correction(data.get("hand"), data.get("entry"))

    def _apply_correction(self, ev: Event, corrected: Corrected) -> None:
        number = ev.data["hand"]
        core = corrected.core
        self.needs_ruling = corrected.needs_ruling
        for i, (record, result) in enumerate(zip(corrected.records, corrected.results,
                                                 strict=True)):
            if i > number - 1:  # (recomputed: each keeps what it said)
                old = self.played[i]
                self.played[i] = Played(record, result, old.corrected, old.was, old.reason)
            elif i == number - 1:
                old = self.played[i]
                was = old.was if old.corrected else getattr(old.result, "total", None)
                self.played[i] = Played(record, result, True, was, str(ev.data["reason"]))
        self.core = core
        draft = self.draft
        if isinstance(core, IndividualRound):  # no win to give or take: the deals go on
            if draft is not None:
                self._back_to_entry()
        elif core.winner is not None:
            self._finish(ev.mono)
        elif draft is None and self.time_up is None:
            self._reopen(ev.mono)
        elif draft is not None:
            # Both sides must agree to the result again. The hand in progress keeps the dealer
            # it is played with; one not yet dealt takes the dealer the corrected match gives.
            self._back_to_entry()
            computed = core.next_dealer
            if self.phase == Phase.READY and computed is not None:
                draft.dealer, draft.as_played = computed, False
            elif draft.dealer != computed:
                draft.as_played = True

    def _reopen(self, mono: float) -> None:
        """A correction took the match's win away: play goes on at the next hand, dealt by
        whom the corrected match says, and the match clock runs on from where the win
        stopped it (the time between is not the match's)."""
        self._new_draft()
        mc = self.match_clock
        if mc is not None and self.match_started:
            mc.started, mc.running = mono - mc.elapsed, True

    def _refold(self, records: list[dict[str, Any]], from_hand: int
                ) -> tuple[TeamMatch | IndividualRound, list[Any]]:
        """Replay the confirmed hands with one replaced (`records` is updated in place: hands
        after it keep their dealers, as played); a time up is applied where it happened."""
        from ..rules.record import parse_hand

        assert self.ruleset is not None
        if not self.team:
            return self._refold_deals(records)
        core = TeamMatch.start(self.ruleset, None)
        results = []
        for i, record in enumerate(records, 1):
            if i > from_hand:
                records[i - 1] = record = {**record, "as_played": True}
            if self.time_up and self.time_up["at"] == i - 1 and core.winner is None:
                core = self._decide_time_up(core, self.time_up["in_hand"])
            try:
                entry = parse_hand(record)
                core, result = core.play(entry)
            except (EntryError, RecordError) as exc:
                raise entry_refused(exc, f"hand {i}: ") from None
            results.append(result)
        if self.time_up and self.time_up["at"] == len(records) and core.winner is None:
            core = self._decide_time_up(core, self.time_up["in_hand"])
        if self.end is not None and core.winner is None:  # a forfeit after the hands stands
            core = core.forfeit(self.end["forfeit"])
        return core, results

    def _refold_deals(self, records: list[dict[str, Any]]
                      ) -> tuple[IndividualRound, list[DealResult]]:
        """An individual round's confirmed deals replayed, one replaced: each deal has its own
        dealer in turn and its partner as drawn, so nothing else is applied."""
        from ..rules.record import parse_deal

        assert self.ruleset is not None
        deals, results = IndividualRound.start(self.ruleset), []
        for i, record in enumerate(records, 1):
            try:
                deals, result = deals.play(parse_deal(record))
            except (EntryError, RecordError) as exc:
                raise entry_refused(exc, f"deal {i}: ") from None
            results.append(result)
        return deals, results

    def _check_pause(self, data: dict[str, Any]) -> None:
        """A pause may take over one already there: the hall's pause takes over the pause of a
        restart (the kiosk came back while the hall was paused) or a screen's hold, and the
        hall's resume then resumes it. A screen's hold, which lets the match clock run, is
        taken over by a restart's (the screen is gone) and by the referee's menu once unlocked
        (the table waits on the referee); a restart's by another restart's (the kiosk went
        down again before its referee came: a paired match's clock ran on meanwhile)."""
        reason, now = data.get("reason"), self.pause_reason
        takeover = self.paused and (
            (now in (PauseReason.RESTART, PauseReason.HOLD) and reason == PauseReason.HALL)
            or (now in (PauseReason.RESTART, PauseReason.HOLD) and reason == PauseReason.RESTART)
            or (now == PauseReason.HOLD and reason == PauseReason.HOLD
                and not data.get("match_runs")))
        if (self.paused and not takeover) or self.phase in IDLE:
            raise refused("not_running", "the clocks are not running")
        _check_late(data)

    def _apply_pause(self, ev: Event, _: None) -> None:
        data = ev.data
        self.paused = True
        self.pause_reason = _pause_reason(data.get("reason"))
        # A screen's hold (`match_runs`) holds the move alone: the match time is the hall's
        # and runs on. (Journals from before held the match clock too: theirs say nothing.)
        if self.clock is not None:
            self._stop_clock(self.clock, ev.mono)
        mc = self.match_clock
        if mc is not None and mc.running and not data.get("match_runs"):
            # The hall's pause, heard at a poll: the match time stops where the hall's did
            # (`late` seconds before), though not before it started.
            self._stop_clock(mc, max(mc.started, ev.mono - float(data.get("late", 0))))
        if "move_elapsed" in data and self.clock is not None:
            self.clock.elapsed = data["move_elapsed"]
        if "match_elapsed" in data and self.match_clock is not None:
            mc = self.match_clock
            mc.elapsed = data["match_elapsed"]
            if mc.running:  # a restart's pause of a paired match: it runs on from this boot
                mc.started = ev.mono - mc.elapsed

    def _check_resume(self, data: dict[str, Any]) -> None:
        if not self.paused or self.phase in IDLE:
            raise refused("not_paused", "the clocks are not paused")
        _check_late(data)

    def _apply_resume(self, ev: Event, _: None) -> None:
        held = self.pause_reason == PauseReason.HOLD and ev.data.get("keep_time") is True
        self.paused, self.pause_reason = False, None
        clock = self.clock
        if clock is not None and not clock.done:
            clock.running = True
            if held:  # a screen only covered the clock: the seat goes on with its time
                clock.started = ev.mono - clock.elapsed
            else:
                # A fresh move: whatever ran before the pause (an overrun too, recorded with
                # the pause) is not carried.
                self._fresh(clock, ev.mono)
        mc = self.match_clock
        if mc is not None and self.match_started and self.time_up is None and not mc.running:
            # (the hall's resume, heard `late`: its match time ran since)
            mc.started, mc.running = ev.mono - mc.elapsed - float(ev.data.get("late", 0)), True

    def _check_match_clock_start(self, data: dict[str, Any]) -> None:
        if self.match_clock is None:
            raise refused("no_match_time", "this match has no match time")
        if self.match_started or self.phase == Phase.OVER:
            raise refused("match_clock_started", "the match clock has already started")
        _check_late(data)

    def _apply_match_clock_start(self, ev: Event, _: None) -> None:
        mc = self.match_clock
        assert mc is not None
        self.match_started = True
        late = float(ev.data.get("late", 0))  # the hall's round ran that long before
        mc.started, mc.running, mc.elapsed = ev.mono - late, not self.paused, late

    def _check_hall_extend(self, data: dict[str, Any]) -> None:
        """The head referee gave the whole hall more time: `extra_seconds` is the hall's total
        so far, so the match clock gains only what it has not gained yet (once, however often
        the scorer says it)."""
        extra = data.get("extra_seconds")
        if isinstance(extra, bool) or not isinstance(extra, int | float) or \
                not 0 <= extra <= 24 * 3600:
            raise refused("bad_extension", f"extension {extra!r}: give seconds, 0 to a day")
        if self.match_clock is None or self.phase in IDLE:
            raise refused("no_match_time", "this match has no match time")

    def _apply_hall_extend(self, ev: Event, _: None) -> None:
        assert self.match_clock is not None
        extra = float(ev.data["extra_seconds"])
        self.match_clock.limit += extra - self.hall_extra
        self.hall_extra = extra

    def _check_time_up(self, data: dict[str, Any]) -> None:
        if self.phase in IDLE or self.time_up is not None:
            raise refused("time_up_not_now", "time up does not apply now")

    def _apply_time_up(self, ev: Event, _: None) -> None:
        in_hand = self.phase in IN_HAND
        finished_hand = self.phase in AFTER_PLAY  # decided after it
        self.time_up = {"at": len(self.played) + finished_hand, "in_hand": in_hand,
                        "by": ev.actor}
        if ev.data.get("ends_round"):  # an individual round: see `_round_ends_at_time_up`
            self.time_up["ends_round"] = True
        if self.match_clock is not None:
            self._stop_clock(self.match_clock, ev.mono)
        if self._round_ends_at_time_up():
            if not in_hand and not finished_hand:  # between two deals: none is dealt
                self._finish(ev.mono)
            return
        if not finished_hand:
            self.core = self._decide_time_up(self.core, in_hand)
            if isinstance(self.core, TeamMatch) and self.core.winner is not None:
                self._finish(ev.mono)

    def time_up_preview(self) -> dict[str, Any] | None:
        """What time up called now would decide, for the question before it (the rules core
        decides; nothing changes): {"winner": team} (with the "tie" it broke: the levels
        equal; with "drops": the hand in play, which the decision leaves unfinished and
        uncounted), {"finish_hand": True} (levels equal, or the ruleset finishes the hand),
        {"after_hand": True} (a finished hand is decided first), {"ruling": True} (the rules
        cannot decide), or an individual round's {"ends_round": "after_deal" or "now"}. None
        when time up does not apply."""
        if self.phase in IDLE or self.time_up is not None:
            return None
        core = self.core
        if not isinstance(core, TeamMatch):  # the round ends on the deals played: after the
            # deal in play or being entered, else now (a deal not yet begun is not played)
            return {"ends_round": "after_deal" if self.phase in IN_HAND | AFTER_PLAY
                    else "now"}
        if self.phase not in IN_HAND and self.phase != Phase.READY:
            return {"after_hand": True}
        try:
            _, decision = core.time_up(self.phase in IN_HAND)
        except EntryError:
            return {"ruling": True}
        if decision.winner is None:
            return {"finish_hand": True}
        # (a hand in play when the match is decided is not finished: it does not count)
        drops = {"drops": len(self.played) + 1} if self.phase in IN_HAND else {}
        return {"winner": decision.winner, **({"tie": decision.tie} if decision.tie else {}),
                **drops}

    def dropped_at_time_up(self) -> int | None:
        """The hand that was in play when time up decided the match without it (xiamen,
        levels unequal: the higher wins at once): its number, as the slip says it is not
        counted. None where no hand was dropped."""
        time_up = self.time_up
        if not time_up or not time_up["in_hand"] or len(self.played) != time_up["at"] or \
                self.time_up_ending() is None:
            return None
        return len(self.played) + 1

    def _round_ends_at_time_up(self) -> bool:
        """An individual round whose time is up ends on the deals played: the deal in play is
        finished and scored, and no other is dealt. (Journals from before this rule recorded
        time up without `ends_round`: there it waits for the referee, as it did then.)"""
        return bool(self.time_up and self.time_up.get("ends_round")) and not self.team

    def _decide_time_up(self, core: Any, in_hand: bool) -> Any:
        """The core after time up; a time up the rules cannot decide waits for the referee."""
        if not isinstance(core, TeamMatch):
            self.needs_ruling = "individual rounds have no time-up rule"
            return core
        try:
            return core.time_up(in_hand)[0]
        except EntryError as exc:
            self.needs_ruling = str(exc)
            return core

    def _check_match_end(self, data: dict[str, Any]) -> None:
        if self.phase in IDLE:
            raise refused("no_match", "no match in progress")
        loser = data.get("loser")
        if loser not in ("NS", "EW") or not isinstance(self.core, TeamMatch):
            raise refused("bad_loser", f"{loser!r}: give the team that loses, NS or EW")
        if not str(data.get("reason", "")).strip():
            raise refused("end_reason", "ending a match needs a reason")

    def _apply_match_end(self, ev: Event, _: None) -> None:
        assert isinstance(self.core, TeamMatch)
        data = ev.data
        self.core = self.core.forfeit(data["loser"])
        # the reason as the referee gave it (words, for the slip); the kind is kept
        self.end = {"forfeit": data["loser"], "reason": str(data["reason"]).strip(),
                    "kind": data.get("kind", "forfeit")}
        self._finish(ev.mono)

    def _check_abandon(self, data: dict[str, Any]) -> None:
        """The match is dropped before any hand was played (the head referee took its round
        back), or a paired table's practice gives way to the round the hall started, however
        far it went; its events stay in the journal, and nothing of it is scored."""
        if self.phase in IDLE:
            raise refused("no_match", "no match in progress")
        if data.get("reason") == "round_started":
            if not self.standalone:
                raise refused("abandon_round", "only a practice gives way to the hall's round")
            return
        if self.played or self.time_up is not None:
            raise refused("abandon_played", "a hand was played: the match cannot be dropped")

    def _apply_abandon(self, ev: Event, _: None) -> None:
        self.abandoned = True
        self._finish(ev.mono)

    def _check_anything(self, data: dict[str, Any]) -> None:
        """A fact the state keeps whatever the phase (the PIN's tries)."""

    def _apply_pin_failed(self, ev: Event, _: None) -> None:
        self.pin_failures.append(ev.wall)

    def _apply_referee_unlocked(self, ev: Event, _: None) -> None:
        self.pin_failures.clear()

    # -- what the table shows ---------------------------------------------------------------

    def winner(self) -> str | None:
        return self.core.winner if isinstance(self.core, TeamMatch) else None

    def forfeited(self) -> dict[str, Any] | None:
        """The table referee's end of the match that decided it (its loser, kind: forfeit or
        disqualification, and reason); None for a match won otherwise or not over."""
        end = self.end
        if end is None or self.winner() in (None, end["forfeit"]):
            return None
        return end

    def corrected(self) -> dict[int, Correction]:
        """The hands the table's referee corrected once they were confirmed, by number."""
        return {number: Correction(hand.was, hand.reason)
                for number, hand in enumerate(self.played, 1) if hand.corrected}

    def levels(self) -> tuple[str, str] | None:
        return self.core.shown_levels() if isinstance(self.core, TeamMatch) else None

    def time_up_ending(self) -> str | None:
        """How the match time decided the match: "time-up", or with what broke a tie of
        levels ("time-up.reached-first", "time-up.last-hand"); None where it did not."""
        core = self.core
        result = core.result() if isinstance(core, TeamMatch) and self.phase == "over" else None
        if result is None or result.by != "time-up":
            return None
        return f"time-up.{result.tie}" if result.tie else "time-up"

    def past_final(self) -> str | None:
        """The team that won by moving past the final level: its level, still the final
        one, reads 「过10」 (a match won so from 10:10 showed 10 : 10)."""
        core = self.core
        return core.winner if isinstance(core, TeamMatch) and core.by == "ladder" else None

    def export(self) -> dict[str, Any]:
        """The match as a docs/rules.md §9 record: `kiosk replay` of it reproduces every result."""
        ruleset = self.ruleset
        assert ruleset is not None
        setup = self.setup
        record: dict[str, Any] = {"ruleset": ruleset.id, "ruleset_sha256": ruleset.sha256}
        for key in ("event", "round", "table", "teams", "players"):
            if setup.get(key) is not None:
                record[key] = setup[key]
        hands = [dict(p.record) for p in self.played]
        if self.team:
            record["hands"] = hands
            end = self._export_end()
            if end:
                record["end"] = end
        else:
            record["deals"] = hands
        return record

    def _export_end(self) -> dict[str, Any] | None:
        if self.end is not None:  # docs/rules.md §9: the losing team and the reason
            return {k: v for k, v in self.end.items() if k != "kind"}
        core = self.core
        if self.time_up is None or not isinstance(core, TeamMatch) or core.by != "time-up":
            return None
        finished = self.time_up["in_hand"] and len(self.played) > self.time_up["at"]
        end = {"time_up": "during-last-hand" if finished else "between-hands"}
        called_by = {"referee": "referee", "scorer": "head-referee"}.get(self.time_up["by"])
        return end | {"called_by": called_by} if called_by else end


@dataclass(frozen=True)
class Rule:
    """What one kind of event asks of the state (`check`, returning what it worked out), what
    it changes (`apply`, given that), and the rules added since older journals were written
    (`recording`: held to a new command only, so an older journal folds as it was played)."""

    check: Callable[[MatchState, dict[str, Any]], Any]
    apply: Callable[[MatchState, Event, Any], None]
    recording: Callable[[MatchState, dict[str, Any]], None] | None = None


K, M = EventKind, MatchState
#: The dispatch table: every kind of event the journal holds, and its rules.
RULES: dict[str, Rule] = {
    K.SETUP: Rule(M._check_setup, M._apply_setup),
    K.DEALER: Rule(M._check_dealer, M._apply_dealer, M._record_not_before_the_hall),
    K.PARTNER: Rule(M._check_partner, M._apply_partner, M._record_not_before_the_hall),
    K.TRUMP: Rule(M._check_trump, M._apply_trump, M._record_not_before_the_hall),
    K.REDEAL: Rule(M._check_redeal, M._apply_redeal, M._record_not_before_the_hall),
    K.BURY_START: Rule(M._check_bury_start, M._apply_bury_start, M._record_bury_start),
    K.FRY: Rule(M._check_fry, M._apply_fry),
    K.NO_FRY: Rule(M._check_no_fry, M._apply_no_fry),
    K.PRESS: Rule(M._check_press, M._apply_press, M._record_press),
    K.TIME_OVERRUN: Rule(M._check_time_overrun, M._apply_time_overrun),
    K.LEADER: Rule(M._check_leader, M._apply_leader),
    K.UNDO: Rule(M._check_undo, M._apply_undo),
    K.PLAY_END: Rule(M._check_play_end, M._apply_play_end),
    K.POINTS: Rule(M._check_points, M._apply_points),
    K.ENTRY_STEP: Rule(M._check_entry_step, M._apply_entry_step),
    K.PENALTY: Rule(M._check_penalty, M._apply_penalty),
    K.PENALTY_REMOVED: Rule(M._check_penalty_removed, M._apply_penalty_removed),
    K.PENALTY_CONFIRMED: Rule(M._check_penalty_confirmed, M._apply_penalty_confirmed),
    K.ENTRIES_DONE: Rule(M._check_entries_done, M._apply_entries_done),
    K.ENTRIES_REOPEN: Rule(M._check_entries_reopen, M._apply_entries_reopen),
    K.CONFIRM: Rule(M._check_confirm, M._apply_confirm, M._record_confirm),
    K.DISPUTE: Rule(M._check_dispute, M._apply_dispute),
    K.RULING: Rule(M._check_ruling, M._apply_ruling),
    K.CORRECTION: Rule(M._check_correction, M._apply_correction),
    K.PAUSE: Rule(M._check_pause, M._apply_pause),
    K.RESUME: Rule(M._check_resume, M._apply_resume),
    K.MATCH_CLOCK_START: Rule(M._check_match_clock_start, M._apply_match_clock_start),
    K.HALL_EXTEND: Rule(M._check_hall_extend, M._apply_hall_extend),
    K.TIME_UP: Rule(M._check_time_up, M._apply_time_up),
    K.MATCH_END: Rule(M._check_match_end, M._apply_match_end),
    K.ABANDON: Rule(M._check_abandon, M._apply_abandon),
    K.PIN_FAILED: Rule(M._check_anything, M._apply_pin_failed),
    K.REFEREE_UNLOCKED: Rule(M._check_anything, M._apply_referee_unlocked),
}
del K, M


def _rule(kind: str) -> Rule:
    """The rules of an event kind (a StrEnum key is found by its string too)."""
    rule = RULES.get(kind)
    if rule is None:
        raise refused("unknown_event", f"unknown event kind {kind!r}")
    return rule
