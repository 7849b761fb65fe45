"""`kiosk hw selftest`: the acceptance run of one kiosk, part by part, as the technician does it
with the kiosk in front of them (deploy/ACCEPTANCE.md says what to record for each model).

Each step is reported as it happens (a `Step`: a catalog key, its parameters and an outcome),
so the technician reads "press the North seat button" before the test waits for it. On
gpiozero's mock pins (a laptop, CI) the test presses the buttons itself and reads the output
pins back, so the whole path from pin to door is exercised there too; on a Pi the person
presses and looks."""

from __future__ import annotations

import logging
import os
import platform
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import PrinterError
from ..table.clock import SystemClock
from .door import Door, Edge
from .panel import BUTTONS, Panel, board_model
from .pinmap import SEATS, PinMap
from .printer import SlipPrinter

OK, FAIL, SKIP, INFO, LOOK = "ok", "fail", "skip", "info", "look"


@dataclass(frozen=True)
class Step:
    """One line of the self-test: `key` in the fleet catalog, `outcome` one of ok, fail (a part
    that does not work), skip (not configured), info (a fact to record) or look (an output a
    person must see or hear: the test cannot)."""

    key: str
    outcome: str
    params: dict[str, Any] = field(default_factory=dict)


def system_steps(model_file: str = "/proc/device-tree/model",
                 meminfo: str = "/proc/meminfo") -> Iterator[Step]:
    """The board, the system's word size and the memory (the Zero 2 W has 512 MB)."""
    model = board_model(model_file)
    yield Step("fleet.selftest.board", INFO, {"model": model or "-"})
    bits = 64 if platform.architecture()[0] == "64bit" else 32
    yield Step("fleet.selftest.bits", OK if bits == 64 else FAIL, {"bits": bits})
    memory = _meminfo(meminfo)
    if memory:
        yield Step("fleet.selftest.memory", INFO,
                   {"total": memory.get("MemTotal", 0) // 1024,
                    "available": memory.get("MemAvailable", 0) // 1024})


def _meminfo(path: str) -> dict[str, int]:
    values = {}
    try:
        for line in Path(path).read_text().splitlines():
            name, _, rest = line.partition(":")
            values[name] = int(rest.split()[0])
    except (OSError, ValueError, IndexError):
        return {}
    return values


class PanelTest:
    """Each LED, the buzzer, then each button pressed in turn, through the real panel and door.
    `mock`: the pin factory is gpiozero's MockFactory; the test then drives the inputs and
    reads the outputs itself."""

    def __init__(self, pinmap: PinMap, factory: Any, mock: bool, press_timeout: float = 20.0,
                 show_for: float = 1.0) -> None:
        self.pinmap, self.factory, self.mock = pinmap, factory, mock
        self.press_timeout, self.show_for = press_timeout, show_for
        self.door = Door()

    def steps(self) -> Iterator[Step]:
        yield Step("fleet.selftest.pins", INFO,
                   {"factory": type(self.factory).__name__ if self.factory else
                    os.environ.get("GPIOZERO_PIN_FACTORY", "gpiozero")})
        panel = Panel(self.pinmap, self.door, SystemClock(), pin_factory=self.factory)
        try:
            for seat in SEATS:
                yield self._output(panel, f"seat.{seat}.led", {s: s == seat for s in SEATS},
                                   False, "fleet.selftest.led")
            yield self._output(panel, "buzzer", dict.fromkeys(SEATS, False), True,
                               "fleet.selftest.buzzer")
            for part in BUTTONS:
                yield Step("fleet.selftest.press", INFO, {"part": part,
                                                          "seconds": int(self.press_timeout)})
                yield self._press(part)
        finally:
            panel.close()

    def _output(self, panel: Panel, part: str, leds: dict[str, bool], buzzer: bool,
                key: str) -> Step:
        panel.show(leds, buzzer)
        pin = self.pinmap.pins[part]
        params = {"part": part, "gpio": pin}
        try:
            if self.mock:
                lit = bool(self.factory.pin(pin).state)
                return Step(key, OK if lit else FAIL, params)
            time.sleep(self.show_for)  # for the person to see or hear it
            return Step(key, LOOK, params)
        finally:
            panel.show(dict.fromkeys(SEATS, False), False)

    def _press(self, part: str) -> Step:
        pin = self.pinmap.pins[part]
        self.door.take()  # nothing pressed before the prompt counts
        if self.mock:
            threading.Timer(0.05, self._mock_press, (pin,)).start()
        deadline = time.monotonic() + self.press_timeout
        while (left := deadline - time.monotonic()) > 0:
            for item in self.door.take(timeout=min(left, 0.2)):
                if isinstance(item, Edge) and item.pressed:
                    if item.part == part:
                        return Step("fleet.selftest.pressed", OK, {"part": part, "gpio": pin})
                    return Step("fleet.selftest.wrong_button", FAIL,
                                {"part": part, "other": item.part, "gpio": pin})
        return Step("fleet.selftest.not_pressed", FAIL, {"part": part, "gpio": pin})

    def _mock_press(self, pin: int) -> None:
        mock_pin = self.factory.pin(pin)
        mock_pin.drive_low()
        time.sleep(0.05)
        mock_pin.drive_high()


def printer_step(url: str | None, baud: int, slip: bytes) -> Step:
    if not url:
        return Step("fleet.selftest.no_printer", SKIP)
    try:
        outcome = SlipPrinter(url, baud, timeout=2.0).print_slip(slip)
    except PrinterError as exc:
        return Step("fleet.selftest.printer_failed", FAIL,
                    {"printer": url, "reason": exc.reason})
    return Step("fleet.selftest.printed", LOOK if outcome == "printed" else FAIL,
                {"printer": url, "baud": baud, "outcome": outcome})


def test_slip(table: str, lang_line: str) -> bytes:
    """A short ESC/POS slip: initialise, GB18030 text, cut."""
    text = f"kiosk hw selftest\n{table}\n{lang_line}\n{time.strftime('%Y-%m-%d %H:%M:%S')}\n"
    return b"\x1b@\x1c&" + text.encode("gb18030") + b"\n\n\n\x1dVB\x00"


def display_steps(on_pi: bool, drm: str = "/sys/class/drm",
                  input_devices: str = "/proc/bus/input/devices") -> Iterator[Step]:
    """The window's settings, the displays KMS sees (connected, with their first mode), and
    the touch devices the kernel found. None of either fails on a Pi; elsewhere (a laptop
    under X) they are not checked."""
    yield Step("fleet.selftest.window_env", INFO, {
        "window": os.environ.get("KIVY_WINDOW", "-"),
        "gl": os.environ.get("KIVY_GL_BACKEND", "-"),
        "video": os.environ.get("SDL_VIDEODRIVER", "-"),
        "rotation": os.environ.get("KCFG_GRAPHICS_ROTATION", "0")})
    connectors = []
    for status in sorted(Path(drm).glob("card*-*/status")):
        try:
            if status.read_text().strip() != "connected":
                continue
            modes = (status.parent / "modes").read_text().split()
        except OSError:
            continue
        connectors.append(f"{status.parent.name} {modes[0] if modes else '?'}")
    touches = list(touch_devices(input_devices))
    for what, found, key, name in (("displays", connectors, "fleet.selftest.displays",
                                    "displays"),
                                   ("touch", touches, "fleet.selftest.touch", "devices")):
        if found:
            yield Step(key, INFO, {name: ", ".join(found)})
        elif on_pi:
            yield Step(key, FAIL, {name: "-"})
        else:
            yield Step("fleet.selftest.not_a_pi", SKIP, {"what": what})


def touch_devices(path: str = "/proc/bus/input/devices") -> Iterator[str]:
    """Input devices with absolute multi-touch axes (ABS_MT_POSITION_X, bit 53) or at least
    absolute X and Y (a single-touch screen): "Name (eventN, multi-touch)"."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return
    for block in text.split("\n\n"):
        name, handlers, abs_bits = "", "", 0
        for line in block.splitlines():
            if line.startswith("N: Name="):
                name = line.split("=", 1)[1].strip('"')
            elif line.startswith("H: Handlers="):
                handlers = " ".join(h for h in line.split("=", 1)[1].split()
                                    if h.startswith("event"))
            elif line.startswith("B: ABS="):
                words = line.split("=", 1)[1].split()
                abs_bits = int("".join(w.rjust(16, "0") for w in words), 16)
        if abs_bits >> 53 & 1:
            yield f"{name} ({handlers}, multi-touch)"
        elif abs_bits & 0b11 == 0b11:
            yield f"{name} ({handlers}, single-touch)"


#: GL renderers that draw in software: on a Pi one means the KMS driver is not loaded (the
#: boot config is wrong, deploy/ACCEPTANCE.md), however well the window opened.
SOFTWARE_GL = ("llvmpipe", "softpipe", "swrast")


def window_step(on_pi: bool) -> Iterator[Step]:
    """Open Kivy's window the way the kiosk does, and report what it got: the window provider,
    its size and the GL renderer (in software: a failure on a Pi). Fails, saying what to
    check, when no window can be made. Kivy's own lines (its start-up, a provider's
    traceback) go to its log file, which a last line names: the installer's screen shows
    the self-test's lines only."""
    # (as kiosk.ui sets them for the kiosk, before Kivy is first imported)
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    where = {"window": os.environ.get("KIVY_WINDOW", "sdl2"),
             "video": os.environ.get("SDL_VIDEODRIVER", "-")}
    try:
        from kivy.core.window import Window
        from kivy.graphics import opengl
    except Exception:  # Kivy's own start-up errors: no window provider, no GL
        logging.getLogger("kivy").exception("the self-test's window")
        Window = None
    if Window is None:
        yield Step("fleet.selftest.no_window", FAIL, where)
    else:
        renderer = _text(opengl.glGetString(opengl.GL_RENDERER))
        software = on_pi and any(name in renderer.lower() for name in SOFTWARE_GL)
        yield Step("fleet.selftest.window_software" if software else "fleet.selftest.window",
                   FAIL if software else OK, {
                       "provider": type(Window).__name__,
                       "size": "x".join(map(str, Window.size)), "renderer": renderer,
                       "version": _text(opengl.glGetString(opengl.GL_VERSION))})
        Window.close()
    try:
        from kivy.logger import FileHandler
    except ImportError:  # no Kivy at all: said above, nothing logged
        return
    if FileHandler.fd is not None:
        yield Step("fleet.selftest.kivy_log", INFO, {"path": FileHandler.filename})


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


Reporter = Callable[[Step], None]


def run(steps: Iterator[Step], report: Reporter) -> list[Step]:
    """Report each step as it comes; returns them all."""
    done = []
    for step in steps:
        report(step)
        done.append(step)
    return done
