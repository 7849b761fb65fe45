"""Benchmark: a finger on the glass to the frame that shows it, in the kiosk's window and in a
bare Kivy button's, alternately in the same run. Needs a display; run under Xvfb:

    xvfb-run -a -s "-screen 0 1280x1024x24" .venv/bin/python bench/bench_taps.py [--taps 60]

Each tap is the X server's pointer (xdotool: down, 80 ms, up), one every 200 ms, on a key of
the kiosk's name keyboard and on a bare Kivy Button. Prints, as medians and p90 over the taps:
  lit       the finger down to the first frame drawn with the button pressed (the kiosk's lit
            key; the bare button's own pressed state)
  answered  the kiosk only: the finger down to the first frame whose typed name shows the tap
            (the taps type 7 and take it back in turn)
and the kiosk's ratio to the bare button (the floor: the same X server, SDL and Kivy frame).
The times include starting xdotool, the same for both."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

EVERY, DOWN = 0.2, 0.08


def tap_at(window: Any, widget: Any) -> float:
    """Tap the middle of `widget` with the X pointer; the perf_counter just before."""
    x, y = widget.to_window(*widget.center)
    left, top = window.left + round(x), window.top + window.height - round(y)
    start = time.perf_counter()
    subprocess.run(["xdotool", "mousemove", str(left), str(top), "mousedown", "1", "sleep",
                    str(DOWN), "mouseup", "1"], check=True)
    return start


def measure(app: Any, target: Any, answered: Any, taps: int, out: Path) -> None:
    """Tap `taps` times from a thread; note per tap when the frame showed it lit (`target(n)`
    is the widget the n-th tap is on) and, if `answered` is given, when it showed the answer
    (`answered(n)` true once the n-th tap's effect is drawn)."""
    from kivy.clock import Clock
    from kivy.core.window import Window

    marks: list[dict[str, float]] = []

    def flip(_window: Any) -> None:
        if not marks:
            return
        mark, widget = marks[-1], target(len(marks))
        now = time.perf_counter()
        if "lit" not in mark and (getattr(widget, "lit", False) or widget.state == "down"):
            mark["lit"] = now
        if answered is not None and "answered" not in mark and answered(len(marks)):
            mark["answered"] = now

    def drive() -> None:
        time.sleep(1.0)
        for _ in range(taps):
            mark: dict[str, float] = {}
            marks.append(mark)
            mark["down"] = tap_at(Window, target(len(marks)))
            time.sleep(max(0.0, EVERY - (time.perf_counter() - mark["down"])))
        time.sleep(0.5)
        out.write_text(json.dumps(marks))
        Clock.schedule_once(lambda _dt: app.stop(), 0)

    Window.bind(on_flip=flip)
    threading.Thread(target=drive, daemon=True).start()


def run_kiosk(taps: int, out: Path) -> None:
    from kivy.config import Config

    Config.set("graphics", "width", "800")
    Config.set("graphics", "height", "480")
    from kivy.clock import Clock

    from bench.bench_ui import build_app

    app, _, _, runner, session = build_app(tempfile.mkdtemp())
    def key(n: int) -> Any:
        """Taps type 7, then take it back, and so on."""
        action = "key:7" if n % 2 else "key_back"
        for widget in app.root.current_screen.walk():
            if getattr(widget, "action", "") == action:
                return widget
        return app.root  # (not on screen yet)

    def answered(n: int) -> bool:
        return app.controller.ui.names.get("NS", "") == ("7" if n % 2 else "")

    def start(_dt: float) -> None:
        app.queue("name:NS")
        measure(app, key, answered, taps, out)

    Clock.schedule_once(start, 1.0)
    runner.start()
    app.run()
    runner.stop()
    session.close()


def run_bare(taps: int, out: Path) -> None:
    from kivy.config import Config

    Config.set("graphics", "width", "800")
    Config.set("graphics", "height", "480")
    from kivy.app import App
    from kivy.uix.button import Button

    class Bare(App):
        def build(self) -> Button:
            self.button = Button(text="7", size_hint=(0.2, 0.2), pos_hint={"x": 0.4, "y": 0.4})
            measure(self, lambda _n: self.button, None, taps, out)
            return self.button

    Bare().run()


def child(which: str, taps: int) -> list[dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "marks.json"
        env = {**os.environ, "KIVY_NO_ARGS": "1", "KIVY_NO_CONSOLELOG": "1",
               "KIVY_HOME": tmp, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        subprocess.run([sys.executable, __file__, "--child", which, "--taps", str(taps),
                        "--out", str(out)], env=env, check=True, timeout=600,
                       capture_output=True)
        return list(json.loads(out.read_text()))


def figures(marks: list[dict[str, float]], what: str) -> tuple[float, float, int]:
    """Median and p90 in ms of `what` after the finger went down, and how many taps lacked it."""
    times = sorted((m[what] - m["down"]) * 1e3 for m in marks if what in m)
    missing = len(marks) - len(times)
    if not times:
        return float("nan"), float("nan"), missing
    return statistics.median(times), times[int(0.9 * (len(times) - 1))], missing


def main() -> None:
    parser = argparse.ArgumentParser(description="tap to visible feedback")
    parser.add_argument("--taps", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", choices=("kiosk", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        (run_kiosk if args.child == "kiosk" else run_bare)(args.taps, Path(args.out))
        return
    if not os.environ.get("DISPLAY"):
        sys.exit("no display: run under xvfb-run (see the docstring)")
    kiosk: list[dict[str, float]] = []
    bare: list[dict[str, float]] = []
    for _ in range(args.rounds):  # alternately, so that both see the same machine
        kiosk += child("kiosk", args.taps)
        bare += child("bare", args.taps)
    load = os.getloadavg()[0]
    k_lit, k_lit90, k_miss = figures(kiosk, "lit")
    b_lit, b_lit90, b_miss = figures(bare, "lit")
    k_ans, k_ans90, a_miss = figures(kiosk, "answered")
    print(f"taps: {len(kiosk)} on the kiosk's keyboard, {len(bare)} on a bare Kivy button "
          f"(X pointer, 80 ms down, one every 200 ms); load average {load:.1f}")
    print(f"finger down to the button drawn pressed: kiosk p50 {k_lit:.1f} ms, p90 "
          f"{k_lit90:.1f} ms; bare Kivy button p50 {b_lit:.1f} ms, p90 {b_lit90:.1f} ms; "
          f"ratio {k_lit / b_lit:.2f} (not drawn pressed: kiosk {k_miss}, bare {b_miss})")
    print(f"finger down to the name showing the tap: p50 {k_ans:.1f} ms, p90 "
          f"{k_ans90:.1f} ms ({a_miss} not shown)")


if __name__ == "__main__":
    main()
