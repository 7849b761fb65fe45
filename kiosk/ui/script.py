"""A scripted hand played in the real window: touches on the screen's buttons (dispatched as
touch events through Kivy's window) and seat buttons pressed on gpiozero's mock pins. At each new
screen it saves a screenshot `NN-screen.png` and what the screen says (`screens.json`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.tests.common import UnitTestTouch
from kivy.uix.widget import Widget

from .app import KioskApp

#: The steps: ("touch", action), ("seat", seat) for a GPIO button, ("shot", name), or
#: ("wait", screen) until that screen shows.
SCRIPT: tuple[tuple[str, str], ...] = (
    ("wait", "setup"), ("type", "NS=厦门粮食局"), ("type", "W=Wang"), ("shot", "setup"),
    ("touch", "setup:xiamen-2015"),
    ("wait", "ready"), ("touch", "dealer:N"), ("shot", "ready"), ("touch", "start_bury"),
    ("wait", "clock"), ("shot", "bury"), ("seat", "N"),
    ("seat", "N"), ("seat", "E"), ("seat", "S"), ("shot", "play"), ("seat", "W"),
    ("seat", "E"), ("touch", "end_play"),
    ("wait", "entry"), ("touch", "kitty:10"), ("touch", "kitty_shape:pair"),
    ("touch", "points:60"), ("touch", "penalty:card-count"), ("touch", "penalty_seat:S"),
    ("touch", "penalty_option:0"), ("shot", "entry"), ("touch", "penalty_value:2"),
    ("touch", "finish_entries"),
    ("wait", "result"), ("seat", "N"), ("shot", "result"), ("seat", "E"),
    ("wait", "ready"), ("touch", "history"), ("wait", "history"), ("shot", "history"),
    ("touch", "close"), ("touch", "referee"), ("wait", "referee"),
    ("touch", "pin:0"), ("touch", "pin:0"), ("touch", "pin:0"), ("touch", "pin:0"),
    ("touch", "pin:ok"), ("until", "pause"), ("shot", "referee"), ("touch", "history"),
    ("wait", "history"),
    ("touch", "correct:1"), ("touch", "correct_points:85"), ("wait", "history"),
    ("shot", "correction"), ("touch", "referee"), ("touch", "forfeit:EW"),
    ("touch", "close"), ("wait", "over"), ("shot", "over"),
)


def run_script(app: KioskApp, factory: Any, pins: Any, out: Path,
               script: tuple[tuple[str, str], ...] = SCRIPT) -> None:
    """Drive `app` through `script`, a step every few frames; stop the app at the end."""
    out.mkdir(parents=True, exist_ok=True)
    seen: dict[str, list[str]] = {}
    steps = _steps(app, factory, pins, out, script, seen)

    def tick(_dt: float) -> bool:
        try:
            next(steps)
        except StopIteration:
            (out / "screens.json").write_text(json.dumps(seen, ensure_ascii=False, indent=1),
                                              encoding="utf-8")
            app.stop()
            return False
        return True

    Clock.schedule_interval(tick, 0.05)


def _steps(app: KioskApp, factory: Any, pins: Any, out: Path,
           script: tuple[tuple[str, str], ...], seen: dict[str, list[str]]) -> Iterator[None]:
    shots = 0
    for kind, arg in script:
        if kind == "wait":
            for _ in range(200):
                if app.root.current == arg:
                    break
                yield
            else:
                raise RuntimeError(f"the {arg} screen never showed (at {app.root.current})")
        elif kind == "until":  # a button that shows once the runner has done its part
            for _ in range(200):
                if _find(app.root.current_screen, arg) is not None:
                    break
                yield
            else:
                raise RuntimeError(f"no {arg!r} button came on the {app.root.current} screen")
        elif kind == "touch":
            widget = _find(app.root.current_screen, arg)
            if widget is None:
                raise RuntimeError(f"no button {arg!r} on the {app.root.current} screen")
            scroller = _scroller(widget)
            if scroller is not None:  # a finger would scroll it into view first
                scroller.scroll_to(widget, padding=10, animate=False)
                yield
            x, y = widget.to_window(*widget.center)
            touch = UnitTestTouch(x, y)
            touch.touch_down()
            touch.touch_up()
        elif kind == "type":  # as a keyboard would, into the named field
            key, _, text = arg.partition("=")
            app.name_inputs[key].insert_text(text)
        elif kind == "seat":
            pin = factory.pin(pins.seat_button(arg))
            pin.drive_low()
            for _ in range(3):
                yield
            pin.drive_high()
        elif kind == "shot":
            shots += 1
            yield  # let the frame draw
            app.root.export_to_png(str(out / f"{shots:02d}-{arg}.png"))
            seen[arg] = _texts(app.root.current_screen)
            seen[f"{arg}:smallest-button-px"] = [str(_smallest_button(app.root.current_screen))]
        for _ in range(3):
            yield


def _find(root: Widget, action: str) -> Widget | None:
    for widget in root.walk():
        if getattr(widget, "action", None) == action:
            return widget
    return None


def _scroller(widget: Widget) -> Any:
    from kivy.uix.scrollview import ScrollView

    parent = widget.parent
    while parent is not None and not isinstance(parent, ScrollView):
        if parent.parent is parent:  # the window is its own parent
            return None
        parent = parent.parent
    return parent


def _smallest_button(root: Widget) -> float:
    from kivy.uix.button import Button

    sizes = [min(w.width, w.height) for w in root.walk() if isinstance(w, Button)
             and w.get_root_window() is not None]
    return min(sizes) if sizes else 0.0


def _texts(root: Widget) -> list[str]:
    return [w.text for w in root.walk() if getattr(w, "text", "")]
