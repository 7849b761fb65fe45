"""A scripted piece of a match in the real kiosk window, for tests about one screen: the same
app, runner, session, journal and mock GPIO pins as `kiosk table --screenshots`, driven by a
script of `kiosk.ui.script` steps given here (the built-in match script plays xiamen only).

Run as `python -m tests.window SCRIPT.json OUT DATA WxH LANG touch|pointer` under an X
display; the test helper `play` does that in a subprocess and returns what every screen said
(screens.json)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def play(tmp_path: Path, display: str, script: list[tuple[str, str]], size: str = "800x480",
         lang: str = "zh-Hans", pointer: bool = False) -> tuple[Path, dict[str, Any]]:
    """Play `script` in a real window of `size` on `display`: the screenshots' folder and
    screens.json (texts by screen, the laid-out lines of every button, the shots). `pointer`:
    each tap is the X server's pointer pressed on the button (xdotool), not a touch event
    handed to Kivy."""
    out, data = tmp_path / "shots", tmp_path / "data"
    (tmp_path / "script.json").write_text(json.dumps(script, ensure_ascii=False),
                                          encoding="utf-8")
    env = {**os.environ, "DISPLAY": display, "XDG_CACHE_HOME": str(ROOT / ".venv" / "cache"),
           "KIVY_HOME": str(tmp_path / "kivy")}
    done = subprocess.run([sys.executable, "-m", "tests.window", str(tmp_path / "script.json"),
                           str(out), str(data), size, lang, "pointer" if pointer else "touch"],
                          capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env)
    logs = "".join(p.read_text(errors="replace") for p in (tmp_path / "kivy").rglob("*.txt"))
    assert done.returncode == 0, (done.stderr[-3000:], logs[-3000:])
    return out, json.loads((out / "screens.json").read_text(encoding="utf-8"))


def cut_words(screens: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """Texts whose laid-out lines do not show all their words (a line Kivy cut off): screen,
    text, the lines shown."""
    def bare(text: str) -> str:
        return "".join(text.split())

    return [(screen, text, lines) for screen, laid in screens["laid"].items()
            for text, lines in laid.items() if bare("".join(lines)) != bare(text)]


def x_pointer(x: float, y: float, down: bool) -> Callable[[], bool]:
    """The X pointer moved to the window's point (x, y) and its first button pressed or
    released, through the X server (XTest), as a mouse or a touch screen under X would. Says
    when Kivy has dispatched it (SDL reads it from the server at a later frame)."""
    from kivy.core.window import Window

    had: list[Any] = []
    event = "on_touch_down" if down else "on_touch_up"

    def note(_window: Any, touch: Any) -> None:
        if not had:
            had.append(touch)
            Window.funbind(event, note)

    Window.fbind(event, note)
    left, top = Window.left + round(x), Window.top + Window.height - round(y)
    # (no --sync: it waits for a motion event even when the pointer is already there; the
    # server takes the move and the press in the order they are sent)
    subprocess.run(["xdotool", "mousemove", str(left), str(top),
                    "mousedown" if down else "mouseup", "1"], check=True, timeout=10)
    return lambda: bool(had)


def x_burst(points: list[tuple[float, float]], every: float, down: float
            ) -> Callable[[], bool]:
    """Taps at the window's `points`, one every `every` seconds, each `down` seconds long, by
    the X server's pointer (one xdotool run, on its own clock: the app is not waited for).
    Says when the last tap is made."""
    from kivy.core.window import Window

    command = ["xdotool"]
    for x, y in points:
        left, top = Window.left + round(x), Window.top + Window.height - round(y)
        command += ["mousemove", str(left), str(top), "mousedown", "1", "sleep", str(down),
                    "mouseup", "1", "sleep", str(round(every - down, 3))]
    proc = subprocess.Popen(command)
    return lambda: proc.poll() is not None


def x_key(name: str) -> None:
    """The key `name` (X's name: Escape) pressed and released through the X server (XTest), as
    a keyboard attached to the kiosk sends it to the window under the pointer."""
    subprocess.run(["xdotool", "key", name], check=True, timeout=10)


def main(script_file: str, out: str, data: str, size: str, lang: str, taps: str) -> None:
    from kiosk import ui

    config = ui.kivy_config()
    width, height = size.split("x")
    for key, value in (("width", width), ("height", height), ("resizable", "0")):
        config.set("graphics", key, value)
    from gpiozero.pins.mock import MockFactory

    from kiosk.hw.door import Door
    from kiosk.hw.panel import Panel
    from kiosk.hw.pinmap import load_pinmap
    from kiosk.hw.runner import TableRunner
    from kiosk.rules import Rulesets
    from kiosk.table.clock import ManualClock
    from kiosk.table.session import SessionConfig, TableSession
    from kiosk.ui.app import KioskApp
    from kiosk.ui.script import run_script

    # the match runs on the script's time: a busy machine plays the same match, only slower
    clock, door, factory, pins = ManualClock(wall=time.time()), Door(), MockFactory(), \
        load_pinmap(None)
    session = TableSession.open(Path(data), 1, Rulesets.load(), clock,
                                SessionConfig())
    panel = Panel(pins, door, clock, pin_factory=factory)
    runner = TableRunner(session, door, panel, lang=lang)
    app = KioskApp(runner, lang=lang)
    script = tuple(tuple(step) for step in json.loads(Path(script_file).read_text("utf-8")))
    run_script(app, factory, pins, Path(out), script,  # type: ignore[arg-type]
               x_pointer if taps == "pointer" else None, clock,
               x_burst if taps == "pointer" else None, x_key if taps == "pointer" else None)
    runner.start()
    try:
        app.run()
    finally:
        runner.stop()
        panel.close()
        session.close()


if __name__ == "__main__":
    main(*sys.argv[1:7])
