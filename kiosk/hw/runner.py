"""The session's own thread: it drains the door, turns button edges into session actions,
ticks the clocks and drives the lights. Nothing else touches the session."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import JournalError
from ..i18n import LANGS
from ..rules import replay
from ..table.kinds import EventKind, Phase
from ..table.session import SessionError, Signal, TableSession
from ..table.view import Notice, TableView, snapshot
from .buttons import Action, ButtonDecoder
from .door import Door, Edge
from .lights import Lights
from .panel import Panel
from .printer import PrintQueue, PrintResult
from .slip import as_escpos, as_text, slip_lines

log = logging.getLogger(__name__)
PRACTICE_ENDED_SECONDS = 60.0  # 「全场第1轮已开始：练习赛到此结束…」 stays this long

#: The referee's "next" button, by phase.
NEXT = {"ready": "start_bury", "fry": "no_fry", "play": "end_play", "entry": "finish_entries"}


@dataclass(frozen=True)
class LinkUpdate:
    """From the outbox's thread: the scorer link's state (shown; its hall mute obeyed)."""

    state: Any


@dataclass(frozen=True)
class RoundStart:
    """From the outbox's thread: start the match clock at `due` (this machine's monotonic
    time), when the scorer starts the round for the whole hall. `paused`: seconds the hall has
    been paused since (a clock started later counts only the time the hall's ran)."""

    event: str
    round: str
    due: float
    paused: float = 0.0


def _minutes(seconds: float) -> str:
    """Minutes as a person says them: 5, 2.5."""
    return f"{seconds / 60:.1f}".removesuffix(".0")


class TableRunner:
    def __init__(self, session: TableSession, door: Door, panel: Panel | None = None,
                 decoder: ButtonDecoder | None = None, lights: Lights | None = None,
                 printer: PrintQueue | None = None, paper: int = 58,
                 lang: str = "zh-Hans") -> None:
        self.session, self.door, self.panel = session, door, panel
        self.printer, self.paper, self.lang = printer, paper, lang
        self._slip_for: tuple[str, Any] | None = None  # what the last slip sent said
        self.decoder = decoder or ButtonDecoder()
        self.lights = lights or Lights()
        self.notice: Notice | None = None  # the last refusal or silent event, for the screen
        self.printed: list[PrintResult] = []  # what became of each slip
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._seen: tuple[Any, ...] = ()
        self.link: Any = None
        self._muted_here = False  # the referee's own mute (hold pause); the hall's is apart
        self._round_start: RoundStart | None = None
        self._practice_warned: tuple[str, str] | None = None  # the round it was said for
        self.slips: dict[str, str] = {}  # the last match's slip, by language
        self.view: TableView = snapshot(session)  # what screens read: replaced, never changed
        self.answered = 0  # the door's items (Door.sent) whose effect `view` shows

    # -- one step ---------------------------------------------------------------------------

    def step(self, timeout: float = 0.0) -> None:
        """Handle what came through the door (waiting up to `timeout`), then tick."""
        items = self.door.take(timeout)
        answered = self.door.taken
        for item in items:
            if isinstance(item, Edge):
                for action in self.decoder.edge(item):
                    self._act(action)
            elif isinstance(item, PrintResult):
                self.printed.append(item)
                self.notify(f"printer.{item.reason}",
                            "info" if item.reason in ("printed", "paper_low") else "error")
            elif isinstance(item, LinkUpdate):
                self.link, self._seen = item.state, ()
                self.lights.muted = self._muted_here or bool(getattr(item.state, "muted", 0))
            elif isinstance(item, RoundStart):
                self._round_start = item
                self._warn_practice(item)
            else:
                self._call(item)
        now = self.session.clock.now()
        self._start_round_clock(now)
        for action in self.decoder.poll(now):
            self._act(action)
        for signal in self.session.tick():
            self.lights.signal(signal, now)
        if self.session.state.phase == Phase.OVER and self._slip_for != self._slip_key():
            self._print_slip()
        if self.panel is not None:
            self.panel.show(*self.lights.frame(self.session, now))
        # the view is taken again when anything it shows has changed
        seen = (self.session.journal.last_seq, self.notice, self.lights.muted,
                self.session.unlocked, int(self.session.pin_locked_for() > 0))
        if seen != self._seen:
            self._seen = seen
            self.view = snapshot(self.session, self.notice, self.slips, link=self.link,
                                 muted=self.lights.muted, printer=self.printer is not None)
        self.answered = answered

    def notify(self, key: str, level: str = "info", lasts: float = 0.0,
               **params: Any) -> None:
        """Say something in the notice area (on the session's thread), for `lasts` seconds
        at least (more than the screen's usual few)."""
        self.notice = Notice(key, params, level, self.session.clock.now(), lasts)

    def clear_notice(self, *keys: str) -> None:
        """The notice goes if it is one of `keys` (a wrong PIN, once the PIN is typed again)."""
        if self.notice is not None and self.notice.key in keys:
            self.notice = None

    def clear_refusal(self) -> None:
        """A refusal goes once the table does something that works (a tap the screen took):
        silent events and alerts keep their own time."""
        if self.notice is not None and self.notice.level == "error":
            self.notice = None

    def _warn_practice(self, start: RoundStart) -> None:
        """Say once, while a practice is played, that the hall's round will end it (not for
        a practice after the round's own match)."""
        state = self.session.state
        if state.standalone and state.phase not in (Phase.SETUP, Phase.OVER) and \
                self._practice_warned != (start.event, start.round) and \
                self.session.find_match(start.event, start.round) is None:
            self._practice_warned = (start.event, start.round)
            until = start.due - self.session.clock.now()  # said until the start, and when
            at = time.strftime("%H:%M", time.localtime(self.session.clock.wall() + until))
            self.notify("table.practice_ends_at_start", lasts=min(until, 3600.0),
                        round=start.round, time=at)

    def _start_round_clock(self, now: float) -> None:
        start, state = self._round_start, self.session.state
        if start is None or now < start.due:
            return
        self._round_start = None
        match = self.session.find_match(start.event, start.round)
        if match and self.session.match == match and state.match_clock is not None and \
                not state.match_started and state.phase not in (Phase.SETUP, Phase.OVER):
            late = max(0.0, now - start.due - start.paused)  # set up after the hall's start
            self._call(lambda s: s.start_match_clock("scorer", late))

    def _call(self, command: Callable[[TableSession], Any]) -> bool:
        """Run a command on the session. A refusal goes to the notice area in the reader's
        words; a success clears it (and an alert), and says what the table did not see happen
        (an overrun recorded with the press). A silent event's notice keeps its own time: the
        next seat's press, a second later, took 北家超时 6.6 秒，已记警告 before anyone read it."""
        last, before = self.session.journal.last_seq, self.notice
        try:
            command(self.session)
        except SessionError as exc:
            self.notice = Notice(exc.key or "error.unexpected", dict(exc.params), "error",
                                 self.session.clock.now())
            return False
        except JournalError:  # e.g. a full disk: nothing was recorded; say so, go on
            self.notify("table.not_recorded", "error")
            return False
        if self.session.journal.last_seq != last:
            if self.notice is before and before is not None and before.level != "info":
                self.notice = None  # (the command said nothing itself)
            self._confirm_silent(last)
        return True

    def _confirm_silent(self, after: int) -> None:
        """Events the table would not notice: an overrun charged; a cost the referee must
        confirm (chaodipi's second bury overrun: 立即招请裁判) calls the referee with the notice
        and the buzzer."""
        session = self.session
        waiting = {pid for pid, _ in session.state.unconfirmed()}
        for event in session.journal.events_after(after, 20):
            if event.kind == EventKind.ABANDON and "for_round" in event.data:  # (a minute:
                # a referee at another table comes back to read it)
                self.notify("table.practice_ended", lasts=PRACTICE_ENDED_SECONDS,
                            round=event.data["for_round"])
            elif event.kind == EventKind.ABANDON:
                self.notify("table.round_withdrawn", round=event.data.get("round") or "")
            if event.kind == EventKind.HALL_EXTEND:
                self.notify("table.hall_extended", minutes=_minutes(event.data["gained"]))
            if event.kind != EventKind.TIME_OVERRUN:
                continue
            if event.data["id"] in waiting:
                ruleset = session.state.ruleset
                assert ruleset is not None
                self.notify("table.referee_call", "alert",
                            seat=session.state.player_at(event.data["seat"]),
                            penalty=ruleset.penalties["time-overrun"].name)
                self.lights.signal(Signal("limit", event.data["seat"], event.data["phase"]),
                                   session.clock.now())
            else:
                self.notify("table.overrun", seat=session.state.player_at(event.data["seat"]),
                            seconds=round(event.data["over"], 1), phase=event.data["phase"])

    def _act(self, action: Action) -> None:
        part = action.part
        if part.startswith("seat.") and action.kind == "press":
            self._call(lambda s: s.press(part.split(".")[1]))
        elif part == "referee.pause" and action.kind == "tap":
            self._call(lambda s: s.pause_key())
        elif part == "referee.pause" and action.kind == "hold":
            self.toggle_mute()
        elif part == "referee.confirm" and action.kind == "press":
            name = NEXT.get(self.session.state.phase)
            if name:
                self._call(lambda s: getattr(s, name)())

    def toggle_mute(self) -> None:
        """The table's own buzzer mute (the referee's key held, or the mute icon)."""
        self._muted_here = not self._muted_here
        self.lights.muted = self._muted_here or bool(getattr(self.link, "muted", 0))
        self.notify("table.muted" if self._muted_here else "table.unmuted")

    def _slip_key(self) -> tuple[str, Any]:
        """What a slip says: the match, and its last hand as it stands (a referee's correction
        after the end replaces it, and the slip to sign is made again)."""
        played = self.session.state.played
        return self.session.match, played[-1] if played else None

    def _print_slip(self) -> None:
        """At the end of a match (and after a correction of it) the slip goes to the printer
        (kept on disk first), and its text, in every language, to the screen."""
        self._slip_for = self._slip_key()
        state = self.session.state
        record = state.export()
        assert state.ruleset is not None
        lines = list(replay(record, state.rulesets))
        corrected, edition = state.corrected(), state.finishes
        dropped = state.dropped_at_time_up()
        self.slips = {lang: as_text(slip_lines(record, state.ruleset, lines, self.paper, lang,
                                               corrected, edition=edition, dropped=dropped),
                                    self.paper)
                      for lang in LANGS}  # (the screen's: the paper says when it was printed)
        self._seen = ()  # show it
        if self.printer is not None:
            printed_at = time.strftime("%Y-%m-%d %H:%M",
                                       time.localtime(self.session.clock.wall()))
            slip = slip_lines(record, state.ruleset, lines, self.paper, self.lang, corrected,
                              printed_at, edition, dropped)
            # (each edition kept apart: the one signed before is kept beside the new one)
            name = f"table-{self.session.table}-round-{self.session.match}" + (
                f"-{edition}" if edition > 1 else "")
            try:
                self.printer.submit(name, as_escpos(slip))
            except OSError as exc:  # the slip could not even be kept: say so, go on
                self.printed.append(PrintResult(name, "lost", str(exc)))
                self.notify("printer.lost", "error")

    # -- the thread -------------------------------------------------------------------------

    def start(self, interval: float = 0.02) -> None:
        def loop() -> None:
            while not self._stop.is_set():
                try:
                    self.step(timeout=interval)
                except Exception:  # the clock must never stop: say so, go on
                    log.exception("table step failed")
                    self.notify("error.unexpected", "error")

        self._thread = threading.Thread(target=loop, name="table-session", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        """The session's thread is running (False before `start`)."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
