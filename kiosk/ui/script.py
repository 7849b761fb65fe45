"""A scripted match played in the real window: touches on the screen's buttons (dispatched as
touch events through Kivy's window), long presses, seat buttons pressed on gpiozero's mock
pins. At each `shot` it saves a screenshot `NN-name.png`; all along it notes what every screen
said, the taps and presses between `count` marks, and the buttons' rectangles around a notice
(`screens.json`), for the tests and the benchmark."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.tests.common import UnitTestTouch
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from ..hw.runner import LinkUpdate
from ..sync.outbox import LinkState
from ..table.clock import ManualClock
from ..table.kinds import Phase
from .app import LONG_PRESS, KioskApp, SeatBox, TapButton

#: ("touch", action) (`e_del:*`: the first button whose action begins so), ("hold", action) a
#: long press, ("double", action) a tap that bounced
#: (a second tap on the same spot a moment later), ("seat", seat) a GPIO button,
#: ("shot", name), ("wait", model name) until that screen shows, ("type", field=text) on the
#: screen's keyboard, ("play_out", "") every remaining trick by the session's seat presses,
#: ("count", name) taps and presses until ("count", "stop"), ("rects", name) every button's
#: rectangle, ("wait_notice", "on"|"off"), ("burst", "action action …") taps at a person's
#: quickest pace whatever the screen shows meanwhile (the buttons are found when it starts;
#: the taps the app took are kept), ("press", action) a quick tap (the frames until the
#: button was drawn pressed are kept), ("key", name) a key of a keyboard attached to the
#: kiosk (X's name for it: Escape), ("link", status) the scorer link's state as the outbox
#: reports it ("in-sync", "offline" since a minute ago), ("burst_seen", "rects:action …")
#: taps at a person's quickest pace on buttons of screens still to come, each where an earlier
#: ("rects", name) found it (a referee who knows the screens taps ahead of them),
#: ("slow_table", seconds) the table's thread busy that long (a slow card's journal),
#: ("quick", action) a tap as soon as its button shows (a referee who knows the screen does
#: not stop to read it).
Step = tuple[str, str]

PIN = ("touch", "pin:0"), ("touch", "pin:0"), ("touch", "pin:0"), ("touch", "pin:0"), \
    ("touch", "pin_ok")

SCRIPT: tuple[Step, ...] = (
    ("wait", "setup"), ("type", "NS=Lions"), ("type", "W=Wang"), ("touch", "name:E"),
    ("type_keys", "Li"), ("shot", "keyboard"), ("touch", "key_done"), ("shot", "setup"),
    ("touch", "setup:xiamen-2015"),
    ("wait", "ready.dealer"), ("shot", "ready-dealer"), ("touch", "dealer:N"),
    ("wait", "ready"), ("touch", "trump:♠"), ("shot", "ready-trump"), ("touch", "start_bury"),
    ("wait", "clock.bury"), ("shot", "bury"), ("seat", "N"),
    ("wait", "clock.play"), ("seat", "N"), ("seat", "E"), ("seat", "S"), ("shot", "play"),
    ("rects", "play"), ("seat", "N"), ("wait_notice", "on"), ("rects", "play+notice"),
    ("hold", "pause_table"), ("wait", "paused"), ("shot", "paused"),
    ("touch", "resume"), ("wait", "referee.pin"), ("shot", "pin"), *PIN,
    ("wait", "clock.play"), ("seat", "W"),
    ("touch", "end_play"), ("wait", "confirm"), ("shot", "confirm-end-play"), ("touch", "ok"),
    ("wait", "entry.points"), ("rects", "entry"), ("seat", "N"), ("wait_notice", "on"),
    ("rects", "entry+notice"), ("shot", "entry-points"), ("wait_notice", "off"),
    ("rects", "entry-cleared"),
    ("touch", "e_points:85"), ("wait", "entry.last_trick"), ("shot", "entry-last-trick"),
    ("touch", "e_last:defenders"), ("wait", "entry.kitty_points"), ("shot", "entry-kitty"),
    ("touch", "e_kitty:15"), ("wait", "entry.kitty_shape"), ("shot", "entry-kitty-shape"),
    ("touch", "e_shape:pair"), ("wait", "entry.penalties"), ("touch", "e_add"),
    ("wait", "entry.penalty_seat"), ("shot", "entry-penalty-seat"), ("touch", "e_pseat:S"),
    ("wait", "entry.penalty_kind"), ("shot", "entry-penalty-kind"),
    ("touch", "e_pkind:failed-throw"), ("wait", "entry.penalty_value"),
    ("shot", "entry-penalty-cards"), ("touch", "e_pval:2"), ("wait", "entry.penalties"),
    ("shot", "entry-penalties"), ("touch", "e_finish"),
    ("wait", "result"), ("seat", "N"), ("shot", "summary"), ("touch", "dispute:EW"),
    ("wait", "confirm"), ("shot", "confirm-dispute"), ("touch", "cancel"), ("seat", "E"),
    # hand 2, the typical hand: a kitty, no penalty; counted from the last trick
    ("wait", "ready"), ("touch", "trump:♠"), ("touch", "start_bury"), ("wait", "clock.bury"),
    ("seat", "*"),
    ("wait", "clock.play"), ("play_out", ""), ("wait", "clock.done"),
    ("shot", "play-all-tricks"),
    ("count", "typical"), ("touch", "end_play"), ("wait", "entry.points"),
    ("touch", "e_points:60"), ("wait", "entry.last_trick"), ("touch", "e_last:defenders"),
    ("wait", "entry.kitty_points"), ("touch", "e_kitty:10"), ("wait", "entry.kitty_shape"),
    ("touch", "e_shape:tractor2"), ("wait", "entry.penalties"), ("touch", "e_finish"),
    ("wait", "result"), ("seat", "S"), ("seat", "W"), ("wait", "ready"),
    ("count", "stop"),
    ("touch", "history"), ("wait", "history"), ("shot", "history"), ("touch", "close"),
    ("touch", "referee"), ("wait", "referee.pin"), *PIN, ("wait", "referee"),
    ("shot", "referee"), ("touch", "r_correct"), ("wait", "referee.correct_pick"),
    ("touch", "r_correct:1"), ("wait", "correct.entry.points"), ("shot", "correct-points"),
    ("touch", "e_points:60"), ("touch", "e_last:defenders"), ("touch", "e_kitty:15"),
    ("touch", "e_shape:pair"), ("wait", "correct.entry.penalties"), ("touch", "e_finish"),
    ("wait", "correct.entry.trump"), ("touch", "e_summary"), ("wait", "correct.summary"),
    ("shot", "correction"), ("touch", "r_save_correction"), ("wait", "referee"),
    ("touch", "r_time_up"), ("wait", "confirm"), ("shot", "confirm-time-up"),
    ("touch", "ok"), ("wait", "over"), ("shot", "over"),
)


#: Seconds between the script's steps, in the window's time and in the match's: the session's
#: clock moves on by STEP a step, however long a step takes on this machine, so the match played
#: (its countdowns, overruns and notices) is the same on a busy machine as on a quiet one, only
#: slower. (The app's own touch timing, the bounce guard and the long press, stays on Kivy's
#: clock: it is about the finger, not the match.)
STEP = 0.03


#: A finger on the screen: `finger(x, y, down)` puts it down at (or lifts it from) the
#: window's point (x, y), in Kivy's window coordinates, and says when the window has had it.
Finger = Callable[[float, float, bool], Callable[[], bool]]
#: Taps in a row at the window's points, each `down` seconds long and one every `every`
#: seconds of real time, made outside the app (as a person's hand is); says when the last is
#: made.
Burst = Callable[[list[tuple[float, float]], float, float], Callable[[], bool]]
#: A key pressed and released on a keyboard attached to the kiosk, by X's name for it.
Keyboard = Callable[[str], None]
#: The pace of a burst: five taps a second, each 80 ms on the glass.
BURST_EVERY, BURST_DOWN = 0.2, 0.08
#: A finger that bounced: 30 ms on the glass, and down again 60 ms after it came up.
BOUNCE_EVERY, BOUNCE_DOWN = 0.09, 0.03
SLOW_FRAME = 0.4  # seconds: the frame after the bounce's first tap is taken


def run_script(app: KioskApp, factory: Any, pins: Any, out: Path,
               script: tuple[Step, ...] = SCRIPT, finger: Finger | None = None,
               clock: ManualClock | None = None, burst: Burst | None = None,
               keyboard: Keyboard | None = None) -> None:
    """Drive `app` through `script`, a step every few frames; stop the app at the end.
    `finger`: how a tap reaches the window (default: a touch event dispatched to it); `clock`:
    the session's clock, moved on by the script (see STEP); `burst`: how a burst of taps is
    made (needed by a script with "burst" steps); `keyboard`: how a key is pressed (needed by
    a script with "key" steps)."""
    out.mkdir(parents=True, exist_ok=True)
    seen: dict[str, Any] = {"texts": {}, "shots": [], "counts": {}, "rects": {},
                            "smallest_button_px": {}, "status_font_px": 0,
                            "seat_boxes": {"lead": 0, "cut": []}, "laid": {}, "colors": {},
                            "scrolls": [], "overflow": [], "spill": [], "taken": [],
                            "inputs": {}}
    act = app.act

    def taken(action: str) -> None:  # every tap the app acts on, in order
        seen["taken"].append(action)
        act(action)

    app.act = taken  # type: ignore[method-assign]
    steps = _steps(app, factory, pins, out, script, seen, finger or _dispatched(), burst,
                   keyboard)

    def tick(_dt: float) -> bool:
        if clock is not None:
            clock.advance(STEP)
        try:
            next(steps)
        except StopIteration:
            (out / "screens.json").write_text(json.dumps(seen, ensure_ascii=False, indent=1),
                                              encoding="utf-8")
            app.stop()
            return False
        return True

    Clock.schedule_interval(tick, STEP)


def _steps(app: KioskApp, factory: Any, pins: Any, out: Path, script: tuple[Step, ...],
           seen: dict[str, Any], finger: Finger, burst: Burst | None,
           keyboard: Keyboard | None) -> Iterator[None]:
    shots, counting, counted = 0, False, ""
    taps = presses = 0
    for kind, arg in script:
        if kind == "wait":
            for _ in range(300):
                if app.model is not None and app.model.name == arg:
                    break
                yield
            else:
                name = app.model.name if app.model else None
                raise RuntimeError(f"the {arg} screen never showed (at {name})")
        elif kind == "wait_notice":
            for _ in range(400):  # a notice goes after a few seconds
                shown = bool(app.model and app.model.notice.text)
                if shown == (arg == "on"):
                    break
                yield
            else:
                raise RuntimeError(f"the notice never went {arg}")
        elif kind == "burst":
            assert burst is not None, "a burst needs the X pointer"
            actions = arg.split()
            points = {}
            for action in dict.fromkeys(actions):
                widget = _find(app.root.current_screen, action)
                if widget is None:
                    raise RuntimeError(f"no button {action!r} for the burst")
                points[action] = widget.to_window(*widget.center)
            while not all(app.settled(a) for a in points):  # as a person reads, first
                yield
            seen["taken"].clear()
            made = burst([points[a] for a in actions], BURST_EVERY, BURST_DOWN)
            while not made():
                yield
            for _ in range(int(1.0 / STEP)):  # what the window has, it takes within a second
                yield
            seen["burst"] = {"tapped": actions, "taken": list(seen["taken"])}
            seen["inputs"] = dict(app.controller.ui.names)
        elif kind == "burst_seen":
            assert burst is not None, "a burst needs the X pointer"
            aimed = [tap.partition(":")[::2] for tap in arg.split()]
            rects = [seen["rects"][name][action] for name, action in aimed]
            while not app.settled(aimed[0][1]):  # the first, as a person reads its screen
                yield
            seen["taken"].clear()
            made = burst([(x + w / 2, y + h / 2) for x, y, w, h in rects], BURST_EVERY,
                         BURST_DOWN)
            while not made():
                yield
            for _ in range(int(1.0 / STEP)):
                yield
            seen["burst"] = {"tapped": [action for _, action in aimed],
                             "taken": list(seen["taken"])}
        elif kind == "press":
            yield from _press(app, burst, arg, seen)
        elif kind == "key":
            assert keyboard is not None, "a key needs a keyboard"
            keyboard(arg)
            for _ in range(int(0.5 / STEP)):  # the window reads it in a frame or two
                yield
        elif kind in ("touch", "hold", "double", "quick"):
            yield from _tap(app, finger, arg, hold=kind == "hold", twice=kind == "double",
                            burst=burst, read=kind != "quick")
            taps += counting
        elif kind in ("type", "type_keys"):  # on the screen's own keyboard, a tap a letter
            field, _, text = arg.partition("=") if kind == "type" else ("", "", arg)
            if field:
                yield from _tap(app, finger, f"name:{field}")
            if app.controller.ui.keyboard_mode == "pinyin":  # Latin letters, as they show
                yield from _tap(app, finger, "key_mode")
            for char in text:
                if char.isupper() != app.controller.ui.keyboard_upper and char.isalpha():
                    yield from _tap(app, finger, "key_case")
                yield from _tap(app, finger, "key_space" if char == " " else
                                f"key:{char.upper()}" if char.isalpha() else f"key:{char}")
            if field:
                yield from _tap(app, finger, "key_done")
        elif kind == "seat":  # "*": the seat whose move it is
            seat = (app.runner.view.clock_seat or "N") if arg == "*" else arg
            pin = factory.pin(pins.seat_button(seat))
            pin.drive_low()
            for _ in range(3):
                yield
            pin.drive_high()
            presses += counting
        elif kind == "play_out":
            app.runner.door.put(_play_out)
        elif kind == "slow_table":
            busy = float(arg)
            app.runner.door.put(lambda _session, busy=busy: time.sleep(busy))
        elif kind == "link":
            app.runner.door.put(LinkUpdate(LinkState(arg, offline_since=time.time() - 60)))
        elif kind == "count":  # ("count", name) starts counting, ("count", "stop") stops
            if arg != "stop":
                counting, taps, presses, counted = True, 0, 0, arg
            else:
                counting = False
                seen["counts"][counted] = {"taps": taps, "presses": presses}
        elif kind == "rects":
            yield
            seen["rects"][arg] = _rects(app.root.current_screen)
        elif kind == "shot":
            shots += 1
            yield  # let the frame draw
            name = f"{shots:02d}-{arg}.png"
            app.root.export_to_png(str(out / name))
            seen["shots"].append(name)
            seen["smallest_button_px"][arg] = _smallest_button(app.root.current_screen)
            if arg == "play":
                seen["status_font_px"] = _status_font(app)
        for _ in range(3):
            yield
            _note_texts(app, seen)


def _dispatched() -> Finger:
    """Touch events dispatched to Kivy's window, as its input providers would."""
    touches: list[UnitTestTouch] = []

    def finger(x: float, y: float, down: bool) -> Callable[[], bool]:
        if down:
            touches.append(UnitTestTouch(x, y))
            touches[-1].touch_down()
        else:
            touches.pop().touch_up()
        return lambda: True  # handed over before this returns
    return finger


def _tap(app: KioskApp, finger: Finger, action: str, hold: bool = False,
         twice: bool = False, burst: Burst | None = None, read: bool = True
         ) -> Iterator[None]:
    """A finger on the button for `action` (once the runner has put it on the screen); held
    long enough to pause, for the countdown; `twice`: tapped again on the same spot a moment
    later (a finger that bounced), whatever the screen shows by then: both taps made by the
    `burst` on its own clock where there is one (the X pointer), else by the finger; `read`:
    only once the screen has been up as long as a person takes to read it."""
    for _ in range(100):
        widget = _find(app.root.current_screen, action)
        if widget is not None:
            break
        yield
    else:
        name = app.model.name if app.model else None
        raise RuntimeError(f"no button {action!r} on the {name} screen")
    while read and not app.settled(action):  # as a person reads a new screen before tapping
        yield
    x, y = widget.to_window(*widget.center)
    if twice and burst is not None:  # the bounce's gap is the hand's, however slow the app
        act = app.act

        def then_slow(action: str) -> None:
            # The first tap's answer is followed by a slow frame (a Pi laying the next
            # question out, a busy machine): the bounce is read long after the screen changed.
            app.act = act  # type: ignore[method-assign]
            act(action)
            time.sleep(SLOW_FRAME)

        app.act = then_slow  # type: ignore[method-assign]
        made = burst([(x, y), (x, y)], BOUNCE_EVERY, BOUNCE_DOWN)
        while not made():
            yield
        yield
        return
    yield from _until(finger(x, y, True), action)
    if hold:
        for _ in range(int(LONG_PRESS / STEP) + 15):
            yield
    yield from _until(finger(x, y, False), action)
    if twice:
        for _ in range(2):
            yield
        yield from _until(finger(x, y, True), action)
        yield from _until(finger(x, y, False), action)
    yield


def _press(app: KioskApp, burst: Burst | None, action: str, seen: dict[str, Any]
           ) -> Iterator[None]:
    """A quick tap on the button for `action` (the X pointer pressed and released at once, so
    that Kivy has both in one frame): in which frame (Kivy's count) the window dispatched the
    touch, and in which it first drew the button pressed."""
    from kivy.core.window import Window

    assert burst is not None, "a press needs the X pointer"
    widget = None
    for _ in range(300):
        widget = _find(app.root.current_screen, action)
        if widget is not None and app.settled(action):
            break
        yield
    else:
        name = app.model.name if app.model else None
        raise RuntimeError(f"no button {action!r} on the {name} screen")
    frames: dict[str, int] = {}

    def down(_window: Any, _touch: Any) -> None:
        frames.setdefault("down", Clock.frames)

    def flip(_window: Any) -> None:
        shown = widget.get_root_window() is not None and getattr(widget, "lit", False)
        if "down" in frames and shown:
            frames.setdefault("lit", Clock.frames)

    Window.fbind("on_touch_down", down)
    Window.fbind("on_flip", flip)
    made = burst([widget.to_window(*widget.center)], BURST_EVERY, 0.0)
    while not made() or "down" not in frames:
        yield
    for _ in range(3):
        yield
    Window.funbind("on_touch_down", down)
    Window.funbind("on_flip", flip)
    seen.setdefault("pressed", {})[action] = frames


def _until(arrived: Callable[[], bool], action: str) -> Iterator[None]:
    for _ in range(300):
        if arrived():
            return
        yield
    raise RuntimeError(f"the tap on {action!r} never reached the window")


def _play_out(session: Any) -> None:
    """Every remaining trick of the hand, as the seats would press (on the runner's thread)."""
    state = session.state
    while state.phase == Phase.PLAY and state.clock is not None and not state.clock.done:
        session.press(state.clock.seat or state.clock.leader or state.draft.dealer)


def _find(root: Widget, action: str) -> Widget | None:
    """The button for `action` on the screen (`e_del:*`: the first whose action begins so)."""
    for widget in root.walk():
        found = getattr(widget, "action", None)
        wild = action.endswith("*") and isinstance(found, str) and found.startswith(action[:-1])
        if (found == action or wild) and widget.get_root_window() is not None:
            return widget
    return None


def _rects(root: Widget) -> dict[str, list[float]]:
    return {w.action: [round(v, 1) for v in (*w.to_window(*w.pos), *w.size)]
            for w in root.walk() if isinstance(w, TapButton)}


def _smallest_button(root: Widget) -> float:
    sizes = [min(w.width, w.height) for w in root.walk() if isinstance(w, TapButton)
             and w.get_root_window() is not None]
    return min(sizes) if sizes else 0.0


def _status_font(app: KioskApp) -> float:
    """The font size of the clock screen's status values (digits of at least 10 mm)."""
    return float(app.status_size)


_MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


def _note_seat_boxes(app: KioskApp, seen: dict[str, Any]) -> None:
    """On the clock: the seat boxes that show less than their text (a line left out, or lines
    taller or wider than the box, drawn over what is around it), and how many leads (every
    seat to move, each box with its countdown) were looked at."""
    model = app.model
    if model is None or model.screen != "clock" or not model.seats:
        return
    boxes = seen["seat_boxes"]
    if all(seat.to_move for seat in model.seats):
        boxes["lead"] += 1
    for widget in app.root.current_screen.walk():
        if isinstance(widget, SeatBox) and widget.text:
            # the words Kivy laid out in the box: a line that does not fit is left out
            widget.texture_update()
            shown = "".join(word.text for line in widget._label._cached_lines
                            for word in line.words)
            lines = widget._label._cached_lines
            tall = len(lines) * widget._label.get_extents("国")[1] > widget.height
            # (a line over the edge of its coloured box, dp(3) in, or touching it)
            wide = any(line.w > widget.width - dp(10) for line in lines)
            if "".join(shown.split()) != "".join(widget.text.split()) or tall or wide:
                cut = [model.name, widget.text, shown, round(widget.height)]
                if cut not in boxes["cut"]:
                    boxes["cut"].append(cut)


def _note_spill(app: KioskApp, seen: dict[str, Any]) -> None:
    """A screen whose body holds more than it has room for: its lines drawn over the title or
    the bottom bar (the screen's name and page, once)."""
    body, model = app.root.current_screen.ids.get("body"), app.model
    if body is None or model is None or not body.children:
        return
    if max(w.top for w in body.children) > body.top + 1 or \
            min(w.y for w in body.children) < body.y - 1:
        page = [b.label for b in model.nav if b.action.startswith("page:")]
        spilt = [model.name, *page]
        if spilt not in seen["spill"]:
            seen["spill"].append(spilt)


def _note_texts(app: KioskApp, seen: dict[str, Any]) -> None:
    """Every text a widget of the current screen shows, by screen (markup removed)."""
    if app.model is None:
        return
    _note_seat_boxes(app, seen)
    _note_spill(app, seen)
    name = app.model.name
    texts = seen["texts"].setdefault(name, [])
    colors = seen["colors"].setdefault(name, {})
    for widget in app.root.current_screen.walk():
        if isinstance(widget, ScrollView) and name not in seen["scrolls"]:
            seen["scrolls"].append(name)
        if isinstance(widget, Label) and widget.text and widget.get_root_window() is not None:
            colors.setdefault(_MARKUP.sub("", widget.text), [round(c, 2) for c in widget.color])
            widget.texture_update()
            # more lines than room: drawn past the label, or (the slip's columns, as tall as
            # their box) left out
            left_out = getattr(widget, "slip", False) and \
                len(widget._label._cached_lines) < widget.text.rstrip("\n").count("\n") + 1
            if (widget.texture_size[1] > widget.height + 2 or left_out) and \
                    [name, widget.text] not in seen["overflow"]:
                seen["overflow"].append([name, widget.text])
        # Left out: the language button names the next language in that language, and the
        # score slip is printed in the slip's own words (kiosk.hw.slip).
        if getattr(widget, "action", "") == "language" or getattr(widget, "slip", False):
            continue
        # the words as given (a button's or a column's own line breaks left out)
        text = getattr(widget, "words", "") or getattr(widget, "text", "")
        if isinstance(text, str) and text:
            plain = _MARKUP.sub("", text)
            if plain not in texts:
                texts.append(plain)
                _note_lines(widget, plain, seen["laid"].setdefault(app.model.name, {}))


def _note_lines(widget: Widget, text: str, laid: dict[str, list[str]]) -> None:
    """How Kivy broke a text into lines in its widget (a line left alone, a wrap)."""
    label = getattr(widget, "_label", None)
    if label is None or not hasattr(widget, "texture_update"):
        return
    widget.texture_update()
    laid[text] = [_MARKUP.sub("", "".join(word.text for word in line.words))
                  for line in label._cached_lines]
