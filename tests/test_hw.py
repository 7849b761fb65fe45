"""The GPIO side on gpiozero's MockFactory, driven by the session's injected clock (no sleeps)."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from kiosk.hw.buttons import ButtonDecoder
from kiosk.hw.door import Door
from kiosk.hw.lights import Lights
from kiosk.hw.panel import Panel
from kiosk.hw.pinmap import load_pinmap
from kiosk.hw.runner import TableRunner
from kiosk.table.clock import ManualClock
from kiosk.table.session import SessionConfig, TableSession

pytestmark = pytest.mark.unit

PINS = load_pinmap()


@pytest.fixture
def table(tmp_path, rulesets):
    """A table with its panel on mock pins, dealer N ready to bury (xiamen: 5 s a move)."""
    clock = ManualClock()
    factory = MockFactory()
    door = Door()
    session = TableSession.open(tmp_path, 1, rulesets, clock, SessionConfig(pin="1357"))
    session.setup_match(event="hw", round="1", teams={}, players={}, ruleset="xiamen-2015")
    session.grab_dealer("N")
    panel = Panel(PINS, door, clock, pin_factory=factory)
    runner = TableRunner(session, door, panel, ButtonDecoder(debounce=0.05, hold_time=1.5),
                         Lights())
    yield runner, factory, clock
    panel.close()
    session.close()


def pin(factory, part):
    return factory.pin(PINS.pins[part])


def tap(factory, clock, runner, part, down=0.1):
    pin(factory, part).drive_low()
    runner.step()
    clock.advance(down)
    pin(factory, part).drive_high()
    runner.step()
    clock.advance(down)  # a hand cannot press again within the debounce time


def lit(factory):
    return {s: pin(factory, f"seat.{s}.led").state for s in "NESW"}


def buzzing(factory):
    return pin(factory, "buzzer").state


def presses(runner):
    return [e.data["seat"] for e in runner.session.journal.events() if e.kind == "press"]


def test_seat_buttons_move_the_clock_and_light_the_seat_to_move(table):
    runner, factory, clock = table
    runner.session.declare_trump("♠", "N")
    tap(factory, clock, runner, "referee.confirm")  # next: start the bury
    assert runner.session.state.phase == "bury"
    assert lit(factory) == {"N": True, "E": False, "S": False, "W": False}
    tap(factory, clock, runner, "seat.N.button")  # bury done, N leads
    tap(factory, clock, runner, "seat.N.button")
    assert lit(factory) == {"N": False, "E": True, "S": False, "W": False}
    tap(factory, clock, runner, "seat.W.button")  # not W's turn: refused, nothing recorded
    assert presses(runner) == ["N", "N"]
    assert (runner.notice.key, runner.notice.level) == ("table.not_your_turn", "error")


def test_a_bouncing_button_is_one_press(table):
    runner, factory, clock = table
    runner.session.declare_trump("♠", "N")
    runner.session.start_bury()
    button = pin(factory, "seat.N.button")
    for _ in range(4):  # contacts chatter for 12 ms
        button.drive_low()
        clock.advance(0.002)
        button.drive_high()
        clock.advance(0.001)
    button.drive_low()
    runner.step()
    clock.advance(0.1)
    runner.step()
    assert presses(runner) == ["N"]
    # bounce on release, and the button really ends up released
    button.drive_high()
    clock.advance(0.003)
    button.drive_low()
    clock.advance(0.003)
    button.drive_high()
    runner.step()
    clock.advance(0.2)
    runner.step()
    assert presses(runner) == ["N"] and not runner.decoder._buttons["seat.N.button"].down
    tap(factory, clock, runner, "seat.N.button")  # the next real press counts
    assert presses(runner) == ["N", "N"]


def test_a_held_button_is_one_press(table):
    runner, factory, clock = table
    runner.session.declare_trump("♠", "N")
    runner.session.start_bury()
    pin(factory, "seat.N.button").drive_low()
    for _ in range(30):
        clock.advance(0.1)
        runner.step()
    pin(factory, "seat.N.button").drive_high()
    runner.step()
    assert presses(runner) == ["N"]


def test_pause_tap_pauses_and_a_long_hold_mutes(table):
    runner, factory, clock = table
    runner.session.declare_trump("♠", "N")
    runner.session.start_bury()
    tap(factory, clock, runner, "referee.pause")
    assert runner.session.state.paused and not runner.lights.muted
    tap(factory, clock, runner, "referee.pause")
    assert not runner.session.state.paused
    pin(factory, "referee.pause").drive_low()
    runner.step()
    clock.advance(1.6)
    runner.step()  # the hold is seen while the button is still down
    assert runner.lights.muted and not runner.session.state.paused
    pin(factory, "referee.pause").drive_high()
    runner.step()
    assert not runner.session.state.paused  # releasing a hold is not a tap


def test_warning_and_overrun_light_and_sound(table):
    runner, factory, clock = table
    runner.session.declare_trump("♠", "N")
    runner.session.start_bury()
    runner.session.press("N")  # N leads: 5 s
    runner.step()
    clock.advance(2.9)
    runner.step()
    assert lit(factory)["N"] and not buzzing(factory)
    clock.advance(0.1)  # 2 s left: short beep, the LED starts blinking at 2 Hz
    runner.step()
    assert buzzing(factory)
    states = []
    for _ in range(8):
        clock.advance(0.04)
        runner.step()
        states.append((lit(factory)["N"], buzzing(factory)))
    assert [b for _, b in states] == [True, True, True, False, False, False, False, False]
    assert {led for led, _ in states} == {True, False}  # blinking
    clock.advance(1.7)  # at the limit: a long beep
    runner.step()
    assert buzzing(factory)
    clock.advance(0.9)
    runner.step()
    assert buzzing(factory)
    clock.advance(0.2)
    runner.step()
    assert not buzzing(factory)
    toggles = 0  # over the limit: fast blinking, 8 Hz = 16 changes a second
    previous = lit(factory)["N"]
    for _ in range(100):
        clock.advance(0.01)
        runner.step()
        toggles += lit(factory)["N"] != previous
        previous = lit(factory)["N"]
    assert 14 <= toggles <= 18


def test_muted_table_shows_lights_only(table):
    runner, factory, clock = table
    runner.lights.muted = True
    runner.session.declare_trump("♠", "N")
    runner.session.start_bury()
    runner.session.press("N")
    for _ in range(120):
        clock.advance(0.05)
        runner.step()
        assert not buzzing(factory)
    assert runner.session.move_time_left() < 0


def test_button_callbacks_only_reach_the_session_through_the_door(table):
    runner, factory, _clock = table
    runner.session.declare_trump("♠", "N")
    runner.session.start_bury()
    pin(factory, "seat.N.button").drive_low()  # gpiozero's callback has run: nothing applied
    assert presses(runner) == [] and runner.session.state.phase == "bury"
    runner.step()
    assert presses(runner) == ["N"]


def test_a_late_bounce_edge_is_not_a_second_press():
    # Edges can reach the door after the decoder settled past them: they are already judged.
    from kiosk.hw.door import Edge

    decoder = ButtonDecoder(debounce=0.05)
    actions = decoder.edge(Edge("seat.N.button", True, 0.0))
    actions += decoder.edge(Edge("seat.N.button", False, 0.01))
    actions += decoder.poll(0.06)
    actions += decoder.edge(Edge("seat.N.button", True, 0.02))  # queued late
    actions += decoder.poll(0.2)
    assert [a.kind for a in actions].count("press") == 1


def test_the_runner_keeps_going_when_the_slip_cannot_be_kept(tmp_path, rulesets):
    from kiosk.hw.printer import PrintQueue, SlipPrinter

    clock, door = ManualClock(), Door()
    session = TableSession.open(tmp_path, 2, rulesets, clock, SessionConfig(pin="1"))
    session.setup_match(event="e", round="1", teams={}, players={}, ruleset="standard-80fen")
    slips = tmp_path / "slips"
    queue = PrintQueue(SlipPrinter("/dev/null-printer", timeout=0.1), slips, door)
    runner = TableRunner(session, door, printer=queue)
    slips.rmdir()  # the disk lets us down
    session.unlock("1")
    session.end_match("EW", "forfeit", "late")
    runner.step()
    assert [r.reason for r in runner.printed] == ["lost"]
    assert runner.view.phase == "over" and runner.view.slips
    queue.close()
    session.close()
