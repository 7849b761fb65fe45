"""The table session: what a referee and four players do at one table, without any screen.

Every command is checked against the state, appended to the journal (durably), and only then
folded into the state: the state on screen is always the fold of what is on disk. The Kivy app
and the scorer sync call this API; hardware reaches it through one door (a later issue).
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SessionError
from ..rules import TEAM_OF, DealResult, IndividualRound, Rulesets, TeamMatch
from ..rules.ruleset import GATHER_SECONDS
from .clock import Clock, SystemClock
from .journal import Event, Journal, table_path
from .kinds import CLOCKED, IDLE, IN_HAND, EventKind, PauseReason, Phase
from .state import MatchState, refused

__all__ = ["SessionConfig", "SessionError", "Signal", "TableSession"]


@dataclass(frozen=True)
class SessionConfig:
    """Table settings. `warn_before`: seconds before the limit for the short signal."""

    warn_before: float = 2.0
    pin: str = "0000"
    pin_attempts: int = 3  # wrong PINs in a row before a lockout
    pin_lockout: float = 60.0  # seconds
    unlocked_for: float = 120.0  # the referee menu stays open this long after the last action
    # seconds after a trick's fourth card before the next lead's time starts (the trick is
    # gathered); a ruleset's `time.gather_seconds`, where it sets one, wins
    gather_grace: float = GATHER_SECONDS


@dataclass(frozen=True)
class Signal:
    """Something the hardware turns into sound and light: ``warn`` (short, before the limit),
    ``limit`` (long, at the limit) for the seat to move in `phase` (bury or play)."""

    kind: str
    seat: str | None
    phase: str


@dataclass
class _Signals:
    move: tuple[Any, ...] = ()
    sent: set[str] = field(default_factory=set)


class TableSession:
    """One table: the current match, its clocks and its journal."""

    def __init__(self, journal: Journal, rulesets: Rulesets, table: int,
                 clock: Clock | None = None, config: SessionConfig | None = None) -> None:
        self.journal = journal
        self.rulesets = rulesets
        self.table = table
        self.clock = clock or SystemClock()
        self.config = config or SessionConfig()
        self.state = MatchState(rulesets)
        self.match = ""
        self._unlocked_until = float("-inf")
        self._signals = _Signals()
        matches = journal.matches()
        if matches:
            self._load(matches[-1])

    @classmethod
    def open(cls, data_dir: str | Path, table: int, rulesets: Rulesets,
             clock: Clock | None = None, config: SessionConfig | None = None,
             device: str | None = None) -> TableSession:
        """The session of `table` in `data_dir`, resumed from its journal. A move or match clock
        that was running when the kiosk stopped is paused, for the referee to resume. A paired
        match's clock is the hall's time, which ran on while the kiosk was off: it counts the
        wall time since the last event (`off_seconds` in the pause; the fold reads the elapsed
        time the pause gives), and runs on while the table waits for its referee to resume
        (`match_runs`): every table of the round keeps the hall's time. A match set up at the
        table has its own clock: the time the kiosk was down is not the match's (the clock
        stands from the last recorded moment, a press a few seconds before during play),
        though the pause still says it."""
        session = cls(Journal(table_path(data_dir, table), device), rulesets, table, clock,
                      config)
        state = session.state
        running = (state.clock is not None and state.clock.running) or (
            state.match_clock is not None and state.match_clock.running)
        # (a screen's hold: its screen is gone; a restart's pause of a paired match: its match
        # clock ran on, and counts from this boot's clock now)
        held = state.paused and state.pause_reason in (PauseReason.HOLD, PauseReason.RESTART)
        if running and (held or not state.paused) and state.phase not in IDLE:
            # The monotonic clock starts again at a reboot: the time before the stop is taken
            # from the last event's own clock, the time since from the wall clock.
            last = state.last_mono
            data: dict[str, Any] = {"reason": PauseReason.RESTART}
            if state.clock is not None and state.clock.running:
                data["move_elapsed"] = state.clock.elapsed_at(last)
            if state.match_clock is not None and state.match_clock.running:
                assert state.last_event is not None
                off = max(0.0, session.clock.wall() - state.last_event.wall)
                charged = 0.0 if state.standalone else off
                data["match_elapsed"] = state.match_clock.elapsed_at(last) + charged
                data["off_seconds"] = off
                if not state.standalone:  # the hall's time runs on while the table waits
                    data["match_runs"] = True  # for its referee
            session._record("system", (EventKind.PAUSE, data))
        return session

    def _load(self, match: str) -> None:
        self.match = match
        self.state = MatchState(self.rulesets)
        for event in self.journal.events(match):
            self.state.apply(event)
        if self.state.abandoned:  # dropped: the table waits for its next match
            self.match, self.state = "", MatchState(self.rulesets)

    def close(self) -> None:
        self.journal.close()

    # -- recording --------------------------------------------------------------------------

    def _record(self, actor: str, *facts: tuple[str, dict[str, Any]]) -> list[Event]:
        """Check, journal, then fold. Raises SessionError (nothing recorded) or JournalError."""
        now, wall = self.clock.now(), self.clock.wall()
        # The last fact is the command; any before it (an overrun) follow from it.
        for kind, data in facts[-1:]:
            self.state.check(kind, data)
        events = self.journal.append(self.match, list(facts), now, wall, actor)
        for event in events:
            self.state.apply(event)
        return events

    def _referee(self) -> None:
        now = self.clock.now()
        if now > self._unlocked_until:
            raise refused("referee_only", "referee only: unlock with the PIN first")
        self._unlocked_until = now + self.config.unlocked_for

    # -- match setup ------------------------------------------------------------------------

    def setup_match(self, *, event: str, round: str, teams: dict[str, str],
                    players: dict[str, str], ruleset: str,
                    match_minutes: float | None = None, match: str | None = None,
                    start_at: float | None = None) -> None:
        """Start a new match at this table (one per round). `match_minutes` None: the
        ruleset's. `match`: the journal's name for it (default: the round). `start_at`: the
        scorer's start of the round it was assigned for (a round taken back and started again
        is another). Raises SessionError for an unknown ruleset or a match already played."""
        if self.state.phase not in IDLE:
            raise refused("match_running", f"round {self.match} is still being played")
        chosen = self.rulesets.get(ruleset) if isinstance(ruleset, str) else None
        if chosen is None:
            raise refused("unknown_ruleset", f"unknown ruleset {ruleset!r}; known: "
                          f"{', '.join(self.rulesets)}")
        match = match or str(round)
        if match in self.journal.matches():
            raise refused("round_played", f"round {match} was already played at this table",
                          round=match)
        if chosen.kind != "team":  # partners drawn each deal: no side keeps a team's name
            teams = {}
        minutes = chosen.time.match_minutes if match_minutes is None else match_minutes
        gather = chosen.time.gather_seconds
        data = {"table": self.table, "event": event, "round": str(round), "teams": teams,
                "players": players, "ruleset": chosen.id, "ruleset_sha256": chosen.sha256,
                "match_minutes": minutes or None,
                "gather_seconds": self.config.gather_grace if gather is None else gather}
        if chosen.frying:  # frying is its own step after each bury (not in older journals)
            data["fry_step"] = True
        if start_at is not None:
            data["start_at"] = start_at
        previous = (self.match, self.state)
        self.match, self.state = match, MatchState(self.rulesets)
        try:
            self._record("referee", (EventKind.SETUP, data))
        except Exception:
            self.match, self.state = previous
            raise

    def abandon_match(self) -> None:
        """The scorer took the match's round back before any hand was played: the match is
        dropped (journaled, as the scorer's action) and the table waits for an assignment.
        Raises SessionError once a hand has been played."""
        self._abandon({"reason": "withdrawn", "round": self.state.setup.get("round")})

    def end_practice(self, round: str) -> None:
        """The hall started `round` while this paired table played a practice: the practice
        ends where it stands (journaled, as the scorer's action; nothing of it is scored)."""
        self._abandon({"reason": "round_started", "for_round": str(round)})

    def _abandon(self, data: dict[str, Any]) -> None:
        self._record("scorer", (EventKind.ABANDON, data))
        self.match, self.state = "", MatchState(self.rulesets)

    def find_match(self, event: str, round: str) -> str | None:
        """The journal's name of the match set up for `event`'s `round`, if there is one."""
        # Only the setups are read: the runner's thread calls this, and must not decode a
        # whole day's journal every few seconds.
        for match, data in self.journal.setups():
            if data.get("event") == event and data.get("round") == str(round):
                return match
        return None

    def free_match_name(self, round: str) -> str:
        """A journal name for a new match of `round`: the round, or "round.k" when a match
        played before (a practice, another event) already has that name."""
        taken, name, k = set(self.journal.matches()), str(round), 1
        while name in taken:
            k += 1
            name = f"{round}.{k}"
        return name

    def start_match_clock(self, actor: str = "referee", late: float = 0.0) -> None:
        """Start the match clock; `late`: seconds the hall's round has already run (a match
        set up after the hall's start, behind a practice or a kiosk away, has that much less
        time, as every other table of the round)."""
        self._record(actor, (EventKind.MATCH_CLOCK_START,
                             {"late": round(late, 3)} if late > 0 else {}))

    # -- before and during the hand ---------------------------------------------------------

    def grab_dealer(self, seat: str) -> None:
        self._record("referee", (EventKind.DEALER, {"seat": seat}))

    def draw_partner(self, partner: str | None = None, card: str | None = None) -> None:
        """shuangsheng-2011: the partner by player letter or by the card the dealer turned."""
        self._record("referee", (EventKind.PARTNER, {"partner": partner, "card": card}))

    def declare_trump(self, suit: str, seat: str) -> None:
        self._record("referee", (EventKind.TRUMP, {"suit": suit, "seat": seat}))

    def redeal(self, seat: str) -> None:
        self._record("referee", (EventKind.REDEAL, {"seat": seat}))

    def start_bury(self) -> None:
        self._record("referee", (EventKind.BURY_START, {}))

    def fry(self, seat: str, suit: str) -> None:
        """chaodipi-2011, the fry step after a bury: `seat` fries the kitty, re-buries on its
        own clock and sets the trump `suit`."""
        self._record(f"seat:{seat}", (EventKind.FRY, {"seat": seat, "suit": suit}))

    def no_fry(self) -> None:
        """The fry step: nobody fries; the play starts with the dealer's lead."""
        self._record("referee", (EventKind.NO_FRY, {}))

    def press(self, seat: str) -> None:
        """A seat's button. Bury: the bury is done. Play: that seat's move is done and the next
        seat's time starts. Result: that seat's side confirms. An overrun is recorded with
        the press, as a `time-overrun` event with how far over it went."""
        facts = self._overrun(seat)
        ids = [data["id"] for _, data in facts]
        self._record(f"seat:{seat}", *facts,
                     (EventKind.PRESS, {"seat": seat, "overrun_ids": ids}))

    def _overrun(self, seat: str | None) -> list[tuple[str, dict[str, Any]]]:
        """The overrun of the move now running, as a fact to record with the press (or pause)
        that ends it; none when the move is within its time."""
        state, now = self.state, self.clock.now()
        clock = state.clock
        if state.phase not in CLOCKED or clock is None or state.paused or \
                not clock.running:
            return []
        seat = seat or clock.seat
        over = clock.elapsed_at(now) - clock.limit  # recorded only if the command is taken
        if over <= 0 or seat is None:
            return []
        return [(EventKind.TIME_OVERRUN, {"id": f"p{self.journal.last_seq + 1}", "seat": seat,
                                          "phase": clock.kind, "over": over})]

    def set_leader(self, seat: str) -> None:
        """The referee corrects who led the current trick."""
        self._record("referee", (EventKind.LEADER, {"seat": seat}))

    def undo(self) -> None:
        """Undo the last step of this hand: a press, a fry (or nobody's), a leader correction,
        the start of the bury, the end of play (before anything is entered), a dealer grab or a
        redeal.
        A redeal is taken back by the referee only (behind the PIN): the table asked for it;
        so is a step whose cost the referee confirmed (`MatchState.undo_is_referees`)."""
        if self.state.undo_is_referees():
            self._referee()
        self._record("referee", (EventKind.UNDO, {}))

    def end_play(self, lead_by: str | None = None) -> None:
        """The play is over (the last trick done, or the referee ends it): on to the entries.
        A move running over its time is charged with the end, as a press would charge it:
        the seat to move, or for a lead's time (whose seat the kiosk cannot know) `lead_by`,
        the seat the referee says was to lead (None: nobody). Undoing the end takes it back."""
        clock = self.state.clock
        facts = self._overrun(clock.seat if clock is not None and clock.seat else lead_by)
        ids = [data["id"] for _, data in facts]
        self._record("referee", *facts, (EventKind.PLAY_END, {"overrun_ids": ids}
                                         if ids else {}))

    # -- entries ----------------------------------------------------------------------------

    def enter_points(self, points: int, kitty: dict[str, Any] | None = None) -> None:
        """The defenders' card points, and the kitty (points and shape) when they won the last
        trick. Refused with the reason when the rules core refuses them."""
        self._record("referee", (EventKind.POINTS, {"points": points, "kitty": kitty}))

    def add_penalty(self, code: str, seat: str, **details: Any) -> str:
        """A penalty for this hand (cards, points, levels, choice, late as the ruleset asks).
        Outside the entry of a finished hand it is a referee action. Returns its id."""
        if self.state.phase not in (Phase.ENTRY, Phase.RESULT):
            self._referee()
        penalty_id = f"p{self.journal.last_seq + 1}"
        data = {"id": penalty_id, "code": code, "seat": seat,
                **{k: v for k, v in details.items() if v is not None}}
        if data.get("incident") is True:  # a new incident of its own (linked ones name it)
            data["incident"] = penalty_id
        self._record("referee", (EventKind.PENALTY, data))
        return penalty_id

    def confirm_penalty(self, penalty_id: str) -> None:
        """The referee confirms a cost that counts only once confirmed (`referee_confirms`)."""
        self._referee()
        self._record("referee", (EventKind.PENALTY_CONFIRMED, {"id": penalty_id}))

    def remove_penalty(self, penalty_id: str) -> None:
        """A recorded penalty is struck out by the referee only (behind the PIN), in any phase:
        the players at the table may not take back what was charged to them."""
        self._referee()
        self._record("referee", (EventKind.PENALTY_REMOVED, {"id": penalty_id}))

    def save_entry_step(self, step: str, **chosen: Any) -> None:
        """Where the table is in the entry of a finished hand, and its choices that are not
        facts yet: journaled, so that a half-entered hand survives a restart."""
        self._record("table", (EventKind.ENTRY_STEP, {"step": step, **chosen}))

    def reopen_entries(self) -> None:
        """Back from the result to the entry, before both sides have confirmed; from a
        disputed result only the referee goes back, to change what was disputed."""
        disputed = self.state.phase == Phase.DISPUTED
        if disputed:
            self._referee()
        self._record("referee" if disputed else "table", (EventKind.ENTRIES_REOPEN, {}))

    def finish_entries(self) -> Any:
        """Show the result: total, level change, next dealer. Returns the core's result."""
        self._record("referee", (EventKind.ENTRIES_DONE, {}))
        return self.state.preview()

    def confirm(self, seat: str) -> None:
        """A player of `seat`'s side agrees (the seat button in the result phase)."""
        self._record(f"seat:{seat}", (EventKind.CONFIRM, {"seat": seat}))

    def dispute(self, seat: str) -> None:
        """`seat`'s side disputes the result: the hand freezes until the referee rules."""
        self._record(f"seat:{seat}", (EventKind.DISPUTE, {"seat": seat}))

    # -- the referee menu (PIN) -------------------------------------------------------------

    def unlock(self, pin: str) -> bool:
        """Open the referee menu. Wrong PINs are journaled; after `pin_attempts` in a row the
        menu stays locked for `pin_lockout` seconds (across restarts)."""
        left = self.pin_locked_for()
        if left > 0:
            raise refused("pin_locked", f"locked after {len(self.state.pin_failures)} wrong "
                          f"PINs; try again in {left:.0f} s", seconds=math.ceil(left))
        if not hmac.compare_digest(_digest(pin), _digest(self.config.pin)):
            self._record("referee", (EventKind.PIN_FAILED, {}))
            return False
        self._record("referee", (EventKind.REFEREE_UNLOCKED, {}))
        self._unlocked_until = self.clock.now() + self.config.unlocked_for
        return True

    def pin_locked_for(self) -> float:
        """Seconds the referee menu stays locked after too many wrong PINs (0: not locked)."""
        failures = self.state.pin_failures
        if len(failures) < self.config.pin_attempts:
            return 0.0
        return max(0.0, self.config.pin_lockout - (self.clock.wall() - failures[-1]))

    def pin_tries_left(self) -> int:
        """Wrong PINs still allowed before the lockout."""
        return max(0, self.config.pin_attempts - len(self.state.pin_failures))

    @property
    def unlocked(self) -> bool:
        return self.clock.now() <= self._unlocked_until

    def lock(self) -> None:
        self._unlocked_until = float("-inf")

    def rule_dispute(self, note: str) -> None:
        """The referee rules on a disputed hand (after any edits): it is confirmed."""
        self._referee()
        self._record("referee", (EventKind.RULING, {"note": note}))

    def correct_hand(self, hand: int, entry: dict[str, Any], reason: str
                     ) -> list[tuple[int, Any, Any]]:
        """Correct a confirmed hand (`entry` in record form: points, kitty, penalties). Later
        hands keep their dealers; levels (an individual round's big points) are recomputed.
        Returns (hand, old, new) for every hand whose levels (big points) changed."""
        self._referee()
        before = [p.result for p in self.state.played]
        self._record("referee", (EventKind.CORRECTION, {"hand": hand, "entry": entry,
                                                "reason": reason}))
        return _changed(before, [p.result for p in self.state.played])

    def after_correction(self, hand: int, entry: dict[str, Any]) -> dict[str, Any]:
        """What follows the hands, before and after `correct_hand` would correct `hand`: the
        match's "winner", and the "dealer" of the hand not yet dealt (None before when the
        match was over; absent while a hand is played, which keeps its dealer, and when the
        corrected match is won); the hand being played, where the correction changes its
        level or whom the corrected match would have deal it: "in_play" (its number, its
        dealer, its level before and after, that dealer). An individual round: each player's
        big-point "totals"."""
        state = self.state
        core = state.correction(hand, entry).core
        if isinstance(core, IndividualRound):
            return {"totals": (state.played[-1].result.totals, dict(core.totals))}
        out: dict[str, Any] = {"winner": (state.winner(), core.winner)}
        reopens = state.phase == Phase.OVER and state.time_up is None  # (as the state does)
        draft = state.draft
        if (state.phase == Phase.READY or reopens) and core.winner is None:
            out["dealer"] = (draft.dealer if draft else None, core.next_dealer)
        elif draft is not None and draft.dealer is not None and core.winner is None and \
                isinstance(state.core, TeamMatch):  # (its cards dealt: it is played out)
            team = TEAM_OF[draft.dealer]
            was, level = state.core.level_of(team), core.level_of(team)
            if was != level or core.next_dealer != draft.dealer:
                out["in_play"] = (draft.number, draft.dealer, was, level, core.next_dealer)
        return out

    def preview_correction(self, hand: int, entry: dict[str, Any]
                           ) -> tuple[Any, list[tuple[int, Any, Any]]]:
        """What `correct_hand` would do, without recording it: the corrected hand's result and
        (hand, old, new) for every hand whose levels (big points) would change."""
        _, _, results, _ = self.state.correction(hand, entry)
        return results[hand - 1], _changed([p.result for p in self.state.played], results)

    def _pause(self, actor: str, reason: str, **more: Any) -> None:
        # An overrun already run up is a fact: it is recorded with the pause, and the move
        # starts afresh on resume.
        self._record(actor, *self._overrun(None), (EventKind.PAUSE, {"reason": reason, **more}))

    def pause(self, reason: str = PauseReason.REFEREE) -> None:
        self._referee()
        self._pause("referee", reason)

    def resume(self) -> None:
        self._referee()
        self._record("referee", (EventKind.RESUME, {}))

    def pause_table(self) -> None:
        """Anyone at the table pauses the clocks at once (a long press on the countdown);
        resuming is the referee's, behind the PIN."""
        self._pause("table", PauseReason.TABLE)

    def hold_for_referee(self, screen: bool = False) -> bool:
        """The referee's overlay (its PIN pad first) or a screen opened: a running move clock
        pauses until it closes. The match clock runs on: no screen anyone can open stops the
        match (the history and the PIN pad did: a side could stand it still); the referee's
        menu, once unlocked, does (`hold_for_ruling`). Returns whether it paused anything. A
        `screen` that only covers the clock (a question, the history) records no overrun: the
        seat goes on with its time, over or not, when it closes
        (`release_referee_hold(keep_time=True)`), and a press then records it."""
        state = self.state
        move = state.clock
        if state.paused or move is None or not move.running or state.phase not in CLOCKED:
            return False
        if screen:
            self._record("referee", (EventKind.PAUSE, {"reason": PauseReason.HOLD,
                                                       "match_runs": True}))
        else:
            self._pause("referee", PauseReason.HOLD, match_runs=True)
        return True

    def hold_for_ruling(self) -> bool:
        """The referee's menu unlocked during a hand: the referee is at the table, which waits
        on them, so the match clock stops too until the menu closes (at the fry step, where no
        move clock runs, it alone). Returns whether it stopped."""
        state = self.state
        mc = state.match_clock
        held = state.paused and state.pause_reason == PauseReason.HOLD
        if mc is None or not mc.running or (state.paused and not held) or \
                state.phase not in IN_HAND:
            return False
        self._record("referee", (EventKind.PAUSE, {"reason": PauseReason.HOLD}))
        return True

    def release_referee_hold(self, keep_time: bool = False) -> bool:
        """The referee's overlay closed: resume the clocks if the overlay paused them. The
        move starts afresh, or with `keep_time` (a screen that only covered the clock: a
        question, the history) goes on with the time the seat had left."""
        if not (self.state.paused and self.state.pause_reason == PauseReason.HOLD):
            return False
        self._record("referee", (EventKind.RESUME, {"keep_time": True} if keep_time else {}))
        return True

    # -- the hall's round clock (the scorer's actions: actor "scorer", no PIN) --------------

    def follow_hall(self, paused: bool, since: float | None = None) -> bool:
        """The head referee paused or resumed the whole hall: pause (reason "hall": the banner
        says 全场暂停), or resume a pause the hall made (a table's own pause stays). A kiosk
        that came back from a restart while the hall is paused is paused by the hall. `since`,
        when known, is the hall's moment of it on this kiosk's clock: heard at a poll, seconds
        later, the match time is mended by the seconds between (`late`). Returns whether
        anything changed."""
        state = self.state
        if state.phase in IDLE:
            return False
        seconds = 0.0 if since is None else min(max(0.0, self.clock.now() - since), 24 * 3600)
        late = {"late": round(seconds, 3)} if seconds else {}
        if paused and (not state.paused or
                       state.pause_reason in (PauseReason.RESTART, PauseReason.HOLD)):
            self._pause("scorer", PauseReason.HALL, **late)
            return True
        if not paused and state.paused and state.pause_reason == PauseReason.HALL:
            self._record("scorer", (EventKind.RESUME, late))
            return True
        return False

    def follow_hall_extension(self, extra_seconds: float) -> bool:
        """The hall's round clock has gained `extra_seconds` in all: the match clock gains
        what it has not gained yet (journaled as the hall's total, so that polls and restarts
        apply it once). Returns whether anything changed."""
        state = self.state
        if state.match_clock is None or state.phase in IDLE or \
                state.time_up is not None or float(extra_seconds) == state.hall_extra:
            return False
        gained = float(extra_seconds) - state.hall_extra  # for a reader of the journal
        self._record("scorer", (EventKind.HALL_EXTEND, {"extra_seconds": float(extra_seconds),
                                                "gained": gained}))
        return True

    def follow_hall_stop(self) -> bool:
        """The head referee called time for the whole hall: time is up at this table, and the
        ruleset's time-up rule applies as when the match clock runs out. Returns whether
        anything changed."""
        state = self.state
        if state.phase in IDLE or state.time_up is not None:
            return False
        self._record("scorer", self._time_up())
        return True

    def follow_ruling(self, loser: str, kind: str, reason: str) -> bool:
        """The head referee ruled this match lost by `loser` (a forfeit or disqualification;
        e.g. a team withdrew in the middle of it): it ends here as ruled, the scorer's action.
        Returns whether anything changed."""
        if self.state.phase in IDLE:
            return False
        self._record("scorer", (EventKind.MATCH_END, {"loser": loser, "kind": kind,
                                                      "reason": reason}))
        return True

    def pause_key(self) -> None:
        """The referee's pause button on the table: pause, or resume, without the PIN (the
        button is the referee's own key, on the referee's side of the table)."""
        if self.state.paused:
            self._record("referee:key", (EventKind.RESUME, {}))
        else:
            self._pause("referee:key", PauseReason.REFEREE_KEY)

    def declare_time_up(self) -> None:
        self._referee()
        self._record("referee", self._time_up())

    def _time_up(self) -> tuple[EventKind, dict[str, Any]]:
        """Time up as recorded: an individual round's says that it ends the round (the deal in
        play finished, no other dealt), which its fold holds to only where it is said."""
        return EventKind.TIME_UP, {} if self.state.team else {"ends_round": True}

    def end_match(self, loser: str, kind: str, reason: str) -> None:
        """End the match by forfeit or disqualification of `loser`."""
        self._referee()
        if kind not in ("forfeit", "disqualification"):
            raise refused("bad_end_kind", f"{kind!r}: give forfeit or disqualification")
        self._record("referee", (EventKind.MATCH_END, {"loser": loser, "kind": kind,
                                                       "reason": reason}))

    # -- time -------------------------------------------------------------------------------

    def tick(self) -> list[Signal]:
        """Call often (the UI's frame loop): returns the warnings due now, and records time up
        when the match clock runs out."""
        state, now = self.state, self.clock.now()
        mc = state.match_clock
        # (not under a screen's hold, where nothing can happen: time up once it closes)
        if mc is not None and mc.running and mc.elapsed_at(now) >= mc.limit and \
                state.time_up is None and state.phase not in IDLE and not state.paused:
            self._record("system", self._time_up())
        clock = state.clock
        if clock is None or not clock.running:
            return []
        move = (state.draft.number if state.draft else 0, clock.kind, clock.trick, clock.plays,
                clock.seat, clock.started)
        if move != self._signals.move:
            self._signals = _Signals(move)
        left = clock.limit - clock.elapsed_at(now)
        due = [kind for kind, at in (("warn", self.config.warn_before), ("limit", 0.0))
               if left <= at and kind not in self._signals.sent]
        self._signals.sent.update(due)
        return [Signal(kind, clock.seat, clock.kind) for kind in due]

    def move_time_left(self) -> float | None:
        """Seconds left for the move (negative once over), None when no move clock runs."""
        clock = self.state.clock
        if clock is None:
            return None
        return clock.limit - clock.elapsed_at(self.clock.now())

    def match_time_left(self) -> float | None:
        mc = self.state.match_clock
        return None if mc is None else mc.limit - mc.elapsed_at(self.clock.now())

    # -- records ----------------------------------------------------------------------------

    def export(self) -> dict[str, Any]:
        """The current match as a docs/rules.md §9 record."""
        return self.state.export()


def _changed(before: list[Any], after: list[Any]) -> list[tuple[int, Any, Any]]:
    """(hand, old, new) for every hand whose outcome differs: a team hand's levels, an
    individual deal's big points."""
    def outcome(result: Any) -> Any:
        return result.awards if isinstance(result, DealResult) else result.levels

    return [(i, outcome(old), outcome(new)) for i, (old, new) in
            enumerate(zip(before, after, strict=True), 1) if outcome(old) != outcome(new)]


def _digest(pin: str) -> bytes:
    return hashlib.sha256(f"kiosk-pin:{pin}".encode()).digest()
