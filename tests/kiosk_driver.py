"""The kiosk driven as the app drives it, without a window: taps through the controller, seat
buttons through the door, the runner's steps run in the test on an injected clock (the `table`
fixture of conftest.py; a test with other rulesets makes its own `Table`)."""

from __future__ import annotations

from pathlib import Path

from kiosk.hw.door import Door
from kiosk.hw.runner import TableRunner
from kiosk.hw.slip import slip_lines
from kiosk.rules import replay
from kiosk.table.clock import ManualClock
from kiosk.table.session import SessionConfig, TableSession
from kiosk.ui.control import Controller
from kiosk.ui.presenter import present

PIN = "2468"


class Table:
    """One table as the app drives it: taps through the controller, seat buttons through the
    door, the runner's steps run here instead of on its thread."""

    def __init__(self, path: Path, rulesets, lang: str = "zh-Hans") -> None:
        self.path, self.rulesets = path, rulesets
        self.clock = ManualClock()
        self.open(lang)

    def open(self, lang: str = "zh-Hans") -> None:
        self.session = TableSession.open(self.path, 1, self.rulesets, self.clock,
                                         SessionConfig(pin=PIN))
        self.runner = TableRunner(self.session, Door())
        self.ctl = Controller(self.runner, lang)
        self.runner.step()

    def restart(self) -> None:
        self.session.journal.close()  # the power goes: no orderly shutdown
        self.open(self.ctl.ui.lang)

    def tap(self, *actions: str) -> None:
        for action in actions:
            self.ctl.act(action)
            self.runner.step()

    def do(self, command) -> None:
        self.runner.door.put(command)
        self.runner.step()

    def press(self, *seats: str) -> None:
        for seat in seats:
            self.do(lambda s, seat=seat: s.press(seat))

    def pin(self, pin: str = PIN) -> None:
        self.tap(*(f"pin:{d}" for d in pin), "pin_ok")

    @property
    def screen(self):
        self.runner.step()
        self.ctl.frame()  # (as the app's frame does, before it draws)
        self.runner.step()
        return present(self.runner.view, self.clock.now(), self.ctl.ui)

    @property
    def state(self):
        return self.session.state

    def slip(self, lang: str = "zh-Hans") -> str:
        """The match's slip as printed on 58 mm paper, from the record as it stands."""
        record = self.session.export()
        return "\n".join(text for _, text in slip_lines(
            record, self.state.ruleset, list(replay(record, self.rulesets)), 58, lang))

    def texts(self) -> list[str]:
        s = self.screen
        return [s.title, s.notice.text, *s.lines, *(r.text for r in s.rows),
                *(b.label for g in s.grids for b in g.buttons), *(b.label for b in s.nav),
                *(f"{p.caption} {p.value}" for p in s.strip)]

    def start(self, ruleset: str = "xiamen-2015", dealer: str = "N") -> None:
        self.tap(f"setup:{ruleset}")
        if self.screen.name == "ready.dealer":
            self.tap(f"dealer:{dealer}")
        self.tap("trump:♠", "start_bury")
        self.press(self.state.clock.seat)  # the bury is done
        if self.screen.name == "fry":  # chaodipi: nobody fries
            self.tap("no_fry")

    def play_tricks(self, n: int, move: float = 1.0) -> None:
        for _ in range(n * 4):
            self.clock.advance(move)
            clock = self.state.clock
            self.press(clock.seat or clock.leader or self.state.draft.dealer)

    def play_out(self) -> None:
        while not self.state.clock.done:
            self.play_tricks(1)

    def penalize(self, kind: str, seats: str) -> None:
        """On the entry's penalties page: each of `seats` gets a penalty of `kind`, each a new
        incident."""
        for seat in seats:
            self.tap("e_add", f"e_pseat:{seat}", f"e_pkind:{kind}")
            if self.screen.name == "entry.penalty_incident":
                self.tap("e_pinc:new")

    def enter(self, points: int, kitty: tuple[int, str] | None = None) -> None:
        """A hand's entry, from the end of play to the result."""
        self.tap("end_play")
        if self.screen.name == "confirm":
            self.tap("ok")
        self.tap(f"e_points:{points}")
        if kitty:
            self.tap("e_last:defenders", f"e_kitty:{kitty[0]}", f"e_shape:{kitty[1]}")
        else:
            self.tap("e_last:dealer")
        self.tap("e_finish")
