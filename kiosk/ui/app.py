"""The Kivy app: it draws the presenter's models and passes taps to the controller, which sends
every change to the table through the door to the runner's thread (the only one that touches
the session).

No tap is lost, however busy the machine: a button lights up the moment a finger lands on it
(drawn in that same frame) and its action is queued. The queue is applied in order, and the
screen rebuilt, just before the frame is drawn, after Kivy has dispatched the frame's input:
every touch meets the widgets that were on the glass, laid out, never a screen half rebuilt by
the tap before it.

Three screens draw every model: `step` (a question and the buttons that answer it), `clock`
(the seats around the countdown) and `banner` (paused, time up). Each has a fixed status strip,
a notice area of fixed height and a bottom bar, so no button moves when a notice comes or goes,
and nothing scrolls."""

from __future__ import annotations

import math
import os
from collections import deque
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.core.window import Window
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
from kivy.uix.widget import Widget

from ..fleet.watchdog import Watchdog
from ..hw.runner import TableRunner
from ..i18n import translator
from ..words.textfmt import fit_lines, wrap
from . import fonts
from .control import Controller
from .model import Btn, Grid, Part, ScreenModel, content, shape
from .presenter import present

KV = Path(__file__).parent / "kv"
FILL = {"idle": (0.16, 0.16, 0.2, 1), "moving": (0.1, 0.55, 0.25, 1),
        "warn": (0.85, 0.6, 0.05, 1), "over": (0.8, 0.12, 0.12, 1),
        "paused": (0.35, 0.35, 0.45, 1), "gather": (0.2, 0.35, 0.3, 1),
        "empty": (0, 0, 0, 0)}
STYLE = {"normal": ((0.22, 0.33, 0.55, 1), (1, 1, 1, 1)),
         "primary": ((0.1, 0.5, 0.25, 1), (1, 1, 1, 1)),
         "danger": ((0.65, 0.16, 0.14, 1), (1, 1, 1, 1)),
         "quiet": ((0.26, 0.26, 0.31, 1), (1, 1, 1, 1)),
         "selected": ((0.98, 0.78, 0.15, 1), (0.08, 0.08, 0.1, 1))}
NOTICE = {"": (0, 0, 0, 0), "error": (0.55, 0.3, 0.02, 1), "info": (0.12, 0.3, 0.45, 1),
          "alert": (0.75, 0.1, 0.1, 1), "link": (0.33, 0.2, 0.06, 1)}
KEYS = {"1": "N", "2": "E", "3": "S", "4": "W"}
RED_SUITS = ("♥", "♦")
RED_SUIT = (1, 0.45, 0.45, 1)  # ♥ and ♦ on the dark ground: the keys and the status strip
#: A long press: on the countdown it pauses the clocks; on the box of a seat to move it is
#: that seat's press (a broken seat button).
LONG_PRESS = 0.8
# A finger that lands on a button less than this long after the button appeared was meant for
# what was there before: a tap that bounced (the second touch 50-150 ms after the first), or
# one the screen's change overtook. A person reading a new question takes longer; a referee
# who knows the screens taps ahead of them, and that tap is taken (see `KioskApp.settled`).
SETTLE = 0.25
#: Taps a bounce must never repeat, though their button stays where it was: a second one
#: where the first landed, within SETTLE of it, is the finger bouncing (each 撤销 takes back
#: a press: a bounce took back two).
ONCE = ("undo",)
#: A bounce lands where the finger was: within this many millimetres of the touch before.
BOUNCE_MM = 6.0
#: A tap waits at most this long for the table to answer the tap before it (the table's thread
#: journals a tap before the screen can show what it did; a slow card takes a while).
ANSWER_WAIT = 3.0
#: A pressed button stays lit at least this long, so that a quick tap is seen too.
LIT_AT_LEAST = 0.15
#: The pressed look: a light veil over the button and a bright frame around it.
LIT_VEIL, LIT_FRAME = (1, 1, 1, 0.35), (1, 0.85, 0.2, 1)
#: The official 7" panel: 800x480 on 154 x 86 mm. Sizes meant in millimetres use this.
PANEL_SHORT_MM = 86.0
#: The digits of the play status must be at least this tall, to be read from 1 m.
STATUS_DIGIT_MM = 10.0
#: A strong caption of the clock's strip (which side is which) is read from 1 m too: its
#: characters at least this tall.
STRONG_CAPTION_MM = 5.0
CJK_HEIGHT_EM = 0.88  # Noto Sans CJK's ideographs, measured from the font
DIGIT_HEIGHT_EM = 0.733  # Noto Sans CJK's digits, measured from the font


class InputReads:
    """When the window read its input. Kivy reads the window system's events at the end of a
    frame and dispatches them in the next, so a touch dispatched now happened after the read
    before last: `earliest` is the soonest it can have landed. The bounce guard judges a tap
    by it, not by when a slow frame got round to it (a frame that built a new screen for a
    whole second would otherwise let the bounce that came 80 ms after the first tap through).
    """

    def __init__(self) -> None:
        self._frames: deque[float] = deque(maxlen=3)  # the last frames' starts
        self._started = False

    def start(self) -> None:
        if not self._started:  # (one mark a frame, however many apps were built)
            self._started = True
            Clock.schedule_interval(lambda _dt: self._frames.append(Clock.get_boottime()), 0)

    def earliest(self) -> float:
        # (the start of the frame before last came before that frame's read)
        return self._frames[0] if len(self._frames) == 3 else Clock.get_boottime()


INPUT_READS = InputReads()


class TapButton(Button):
    """A button that names the action it performs (tests and the scripted hand find it so).
    Its `words` are broken into lines at sensible points for its width (never a lone 「）」 or
    one character left alone), not wherever Kivy runs out of room."""

    action = StringProperty("")
    style = StringProperty("normal")
    words = StringProperty("")
    chosen_size = NumericProperty(0)  # the font size asked for; smaller only where need be
    font_size: float  # (Label's own property, named here for the type checker)
    lit = BooleanProperty(False)  # drawn pressed
    pressed_at = 0.0  # when the finger went down on it (Clock.get_boottime)
    landed_after = 0.0  # the soonest it can have gone down (InputReads.earliest)
    landed_on = (0.0, 0.0)  # where it went down (window pixels)
    _fitting = False

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw_lit, size=self._draw_lit, lit=self._draw_lit)

    def on_press(self) -> None:
        """The finger landed: lit at once, in the frame that dispatched the touch."""
        self.pressed_at, self.landed_after = Clock.get_boottime(), INPUT_READS.earliest()
        self.landed_on = tuple(self.last_touch.pos) if self.last_touch else self.center
        self.lit = True

    def on_release(self) -> None:
        left = self.pressed_at + LIT_AT_LEAST - Clock.get_boottime()
        Clock.schedule_once(self._unlight, max(0.0, left))

    def _unlight(self, _dt: float) -> None:
        if self.state == "normal":  # (not pressed again meanwhile)
            self.lit = False

    def _draw_lit(self, *_: Any) -> None:
        self.canvas.after.clear()
        if not self.lit:
            return
        with self.canvas.after:
            Color(*LIT_VEIL)
            Rectangle(pos=self.pos, size=self.size)
            Color(*LIT_FRAME)
            Line(rectangle=(self.x + dp(2), self.y + dp(2), self.width - dp(4),
                            self.height - dp(4)), width=dp(3))

    def on_words(self, *_: Any) -> None:
        self.rewrap()

    def on_size(self, *_: Any) -> None:
        self.text_size = (self.width - dp(8), None)  # as tall as its lines: measured below
        self.rewrap()

    def on_font_size(self, *_: Any) -> None:
        if not self._fitting:  # a size asked for from outside
            self.chosen_size = self.font_size
            self.rewrap()

    def rewrap(self, size: float = 0) -> None:
        """The words broken for the button's width at the chosen size (or `size`)."""
        size = size or self.chosen_size or self.font_size
        self.text = wrapped(self.words, columns(self.width - dp(8), size))
        if size != self.font_size:
            self._fitting = True
            self.font_size = size
            self._fitting = False

    def on_texture_size(self, *_: Any) -> None:
        """Lines taller than the button (a short button of the bottom bar) would be cut: the
        words go a little smaller until they fit."""
        chosen = self.chosen_size or self.font_size
        if self.texture_size[1] > self.height - dp(2) and self.font_size > chosen * 0.6:
            self.rewrap(self.font_size * 0.92)


def columns(room: float, font_size: float) -> int:
    """How many text columns (a Chinese character takes two) fit in `room` pixels: a little
    less than the font gives, so that Kivy never has to wrap a line again."""
    return int(room / (font_size * 0.53))


def wrapped(text: str, cols: int) -> str:
    """`text` broken at sensible points (textfmt.wrap), its own lines kept."""
    if cols <= 2:
        return text
    return "\n".join(line for part in text.split("\n") for line in wrap(part, cols))


class LongPress(Widget):
    """A widget whose `action` a finger held on it for LONG_PRESS does (none while
    `action` is empty); `progress` (0 to 1) is drawn by the widget as the hold goes on. A
    hold whose action changes meanwhile (the seat pressed its button) does nothing."""

    action = StringProperty("")
    progress = NumericProperty(0.0)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._event: Any = None
        self._down_at = 0.0
        self._held = ""

    def on_touch_down(self, touch: Any) -> bool:
        if not self.action or not self.collide_point(*touch.pos):
            return False
        touch.grab(self)
        self._down_at, self._held = Clock.get_boottime(), self.action
        self._event = Clock.schedule_interval(self._tick, 1 / 30)
        return True

    def _tick(self, _dt: float) -> None:
        if self.action != self._held:
            self._stop()
            return
        self.progress = min(1.0, (Clock.get_boottime() - self._down_at) / LONG_PRESS)
        if self.progress >= 1.0:
            self._stop()
            App.get_running_app().queue(self._held)

    def on_touch_up(self, touch: Any) -> bool:
        if touch.grab_current is not self:
            return False
        touch.ungrab(self)
        self._stop()
        return True

    def _stop(self) -> None:
        if self._event is not None:
            self._event.cancel()
            self._event = None
        self.progress = 0.0


class SeatBox(LongPress, Label):
    """A seat as it sits at the table. The box of a seat to move takes a long press as the
    seat's press (`press:N`): a broken seat button is no reason to stop the table."""

    seat = StringProperty("")
    fill = ListProperty(FILL["empty"])

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._layouts: dict[tuple[Any, ...], tuple[list[str], bool, float]] = {}

    def show(self, label: str, time: str) -> None:
        """The seat's name (and player), with the countdown when it is to move: under the name
        where the box has room for it, beside it in a short box (N and S at 800×480), and the
        type made smaller only where neither fits (「西 OUYANG XIAOMING」 took two lines in
        West's box at 1280×800, and the countdown under them pushed 「西 OUYANG」 out): the
        seat, its player and its seconds always whole in the box."""
        key = (label, bool(time), tuple(self.text_size), self.font_name,
               App.get_running_app().title_size)
        if key not in self._layouts:
            self._layouts[key] = self._layout(label, bool(time))
        lines, beside, self.font_size = self._layouts[key]
        if not time:
            self.text = "\n".join(lines)
        else:
            self.text = f"{lines[0]}  {time}" if beside else "\n".join([*lines, time])

    def _layout(self, label: str, timed: bool) -> tuple[list[str], bool, float]:
        """The name's lines, whether the countdown goes beside them (on one line) rather than
        under them, and the size of type: the largest (down to half the screen's) at which
        they fit the box, with room for the widest countdown (an overrun's, −12)."""
        width, height = self.text_size
        title = App.get_running_app().title_size
        names = [[label]] + ([_halves(label)] if " " in label else [])
        options = [(name, False) for name in names] + ([([label], True)] if timed else [])
        for size in (title * scale for scale in (1, 0.9, 0.8, 0.7, 0.6, 0.5)):
            measure = CoreLabel(font_name=self.font_name, font_size=size)
            measure.resolve_font_name()
            line_height = measure.get_extents("国")[1]
            for lines, beside in options:
                shown = [f"{lines[0]}  −88"] if beside else lines + ["−88"] * timed
                if len(shown) * line_height <= height and all(
                        measure.get_extents(line)[0] <= width for line in shown):
                    return lines, beside, size
        return [label], timed, title * 0.5


def _halves(label: str) -> list[str]:
    """`label` on two lines, broken at the space that makes the longer line shortest."""
    cuts = [i for i, ch in enumerate(label) if ch == " "]
    cut = min(cuts, key=lambda i: max(len(label[:i]), len(label[i + 1:])))
    return [label[:cut], label[cut + 1:]]


class Countdown(LongPress, BoxLayout):
    """The move clock's seconds; a long press on it pauses the clocks (anyone at the table can:
    one action that cannot be missed). Resuming is the referee's."""

    action = StringProperty("pause_table")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw, progress=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.after.clear()
        if self.progress <= 0:
            return
        size = min(self.width, self.height) * 0.9
        with self.canvas.after:
            Color(1, 0.8, 0.2, 1)
            Line(circle=(self.center_x, self.center_y, size / 2, 0, 360 * self.progress),
                 width=dp(4))


class MuteIcon(Widget):
    """A loudspeaker struck through: the table's buzzer is muted."""

    shown = BooleanProperty(False)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self._draw, size=self._draw, shown=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        if not self.shown:
            return
        s = min(self.width, self.height) * 0.8
        x, y = self.center_x - s / 2, self.center_y - s / 2
        with self.canvas:
            Color(1, 0.75, 0.3, 1)
            Line(points=[x, y + s * 0.35, x + s * 0.25, y + s * 0.35, x + s * 0.55, y + s * 0.1,
                         x + s * 0.55, y + s * 0.9, x + s * 0.25, y + s * 0.65, x,
                         y + s * 0.65], close=True, width=dp(1.5))
            Color(0.9, 0.2, 0.2, 1)
            Line(points=[x, y, x + s, y + s], width=dp(2))
            Ellipse(pos=(x + s - dp(3), y + s - dp(3)), size=(dp(6), dp(6)))


class StatusStrip(BoxLayout):
    """The parts of the status strip. On the clock (`big`) they wrap between parts, never
    inside one, in portrait; in landscape they keep to one row, the seats and the countdown
    below needing all the rest of the height, so a caption with a shorter form (the teams'
    names, 南北 : 东西) gives way where the row has no room for it. Elsewhere the strip is one
    line of a fixed height whatever it says: parts that would not fit (the scorer link lost,
    已暂停, English words) make the whole line's type smaller, never a second line, which
    pushed the body down under a finger (a tap meant for 「85」 took 「40」)."""

    big = BooleanProperty(False)

    def on_kv_post(self, _base: Any) -> None:
        self.scale = 1.0
        self.shortened = False  # (the clock's row) the short captions shown
        self._measured: Any = None  # what `shortened` was measured for
        self._squeeze_later = Clock.create_trigger(self._squeeze)
        self.ids.parts.bind(width=self._squeeze_later)

    def show(self, app: KioskApp, parts: tuple[Part, ...], flags: tuple[str, ...]) -> None:
        box = self.ids.parts
        if self.big and not app.portrait:
            self._one_row(app, parts, "muted" in flags)
        key = (tuple(p.caption for p in parts), app.portrait, app.lang, self.big)
        if getattr(self, "_key", None) != key:
            self._key = key
            box.clear_widgets()
            for _ in parts:
                widget = StripPart(app, self.big, self.scale)
                widget.bind(width=self._squeeze_later)
                box.add_widget(widget)
        for widget, part in zip(box.children[::-1], parts, strict=False):
            widget.show(part, self.shortened and self.big and not app.portrait)
        self.ids.mute.shown = "muted" in flags

    def _squeeze(self, *_: Any) -> None:
        """Type as large as fits the line (never larger than the app's own)."""
        box = self.ids.parts
        if self.big or not box.children:
            return
        fixed = len(box.children) * (StripPart.PAD + box.spacing[0]) + box.padding[0] * 2
        words = sum(part.width - StripPart.PAD for part in box.children)
        if words <= 0:
            return
        # 0.97: room for the type's own rounding, so that a fitted line stays as it is
        scale = min(1.0, self.scale * (box.width - fixed) / words * 0.97)
        if scale < self.scale or scale > self.scale + 0.05 or scale == 1.0:
            self.scale = scale
            for part in box.children:
                part.rescale(scale)

    def _one_row(self, app: KioskApp, parts: tuple[Part, ...], muted: bool) -> None:
        """The clock's row in landscape: the short captions where the long ones do not fit,
        measured before they are shown (a frame of two rows would jump)."""
        texts = (tuple((p.caption, p.value, p.strong) for p in parts), Window.width, muted,
                 app.lang)
        if texts == self._measured:
            return
        self._measured = texts
        box = self.ids.parts
        room = Window.width - (dp(40) if muted else 0) - box.padding[0] * 2 - \
            box.spacing[0] * (len(parts) - 1)
        self.shortened = sum(StripPart.width_for(app, p) for p in parts) > room


class StripPart(BoxLayout):
    """One part of the strip: its caption small, its value large (above each other on the
    clock, side by side elsewhere); as wide as its words."""

    PAD = dp(14)  # beside its words (off the clock): the padding and the spacing between

    def __init__(self, app: KioskApp, big: bool, scale: float = 1.0) -> None:
        super().__init__(orientation="vertical" if big else "horizontal",
                         size_hint=(None, None), padding=(dp(8) if big else dp(5), 0),
                         spacing=dp(4))
        small = app.text_size * (0.8 if big else 0.85)
        self.caption = Label(font_name=app.font, font_size=small, color=(0.67, 0.67, 0.72, 1),
                             size_hint=(None, None))
        self.value = Label(font_name=app.font, font_size=app.status_size if big
                           else app.text_size, size_hint=(None, None))
        for label in (self.caption, self.value):
            label.bind(texture_size=self._fit)
            self.add_widget(label)
        self.big, self.small, self.app = big, small, app
        self.height = (app.status_size * 1.2 + small * 1.4) if big else app.text_size * 1.6
        if not big:
            self.rescale(scale)

    def rescale(self, scale: float) -> None:
        """Off the clock: the type at `scale` of its own size, in the same height."""
        self.caption.font_size, self.value.font_size = \
            self.small * scale, self.app.text_size * scale

    def show(self, part: Part, short: bool = False) -> None:
        """The part's words (its caption's short form, where it has one and `short`)."""
        self.caption.text = part.short if short and part.short else part.caption
        self.value.text = part.value
        if self.big:
            size = max(self.small, self.app.strong_caption_size) if part.strong else self.small
            if self.caption.font_size != size:
                self.caption.font_size = size
                self.height = self.app.status_size * 1.2 + size * 1.4
        self.caption.color = (1, 1, 1, 1) if part.strong else (0.67, 0.67, 0.72, 1)
        self.value.color = (1, 0.45, 0.35, 1) if part.tone == "alert" else \
            (0.75, 0.75, 0.8, 1) if part.tone == "dim" else \
            RED_SUIT if part.tone == "red" else (1, 1, 1, 1)

    @staticmethod
    def width_for(app: KioskApp, part: Part) -> float:
        """How wide a part of the clock's strip is with its long caption (as `_fit` makes
        it, measured without drawing it)."""
        caption = max(app.text_size * 0.8, app.strong_caption_size) if part.strong \
            else app.text_size * 0.8
        return max(_text_width(part.caption, app.font, caption),
                   _text_width(part.value, app.font, app.status_size)) + dp(16)

    def _fit(self, *_: Any) -> None:
        cw, ch = self.caption.texture_size
        vw = self.value.texture_size[0]
        if self.big:
            self.caption.size = (max(cw, vw), ch)
            self.value.size = (max(cw, vw), self.height - ch - dp(4))
            self.width = max(cw, vw) + dp(16)
        else:
            self.caption.size, self.value.size = (cw, self.height), (vw, self.height)
            self.width = cw + vw + self.PAD


def show_notice(notice: Label, app: KioskApp, model: ScreenModel) -> None:
    """The notice band says `model`'s notice whole: on one line where it fits, else on two
    in a smaller size. The band keeps its height (room for two lines of 0.78 of the text's
    size), so that no button moves under a finger when a message comes."""
    text = model.notice.text
    notice.fill = NOTICE[model.notice.level]
    fitted = (text, notice.width, app.text_size, app.font)
    if getattr(notice, "fitted", None) == fitted:  # (measured once, not every frame)
        return
    one_line = not text or _text_width(text, app.font, app.text_size) <= notice.width - dp(16)
    notice.font_size = app.text_size * (1 if one_line else 0.78)
    notice.max_lines, notice.shorten = (1, True) if one_line else (2, False)
    notice.text, notice.fitted = text, fitted


def _text_width(text: str, font: str, size: float) -> float:
    """The width of one line of `text` in `font` at `size`, as a Label lays it out."""
    measure = CoreLabel(font_name=font, font_size=size)
    measure.resolve_font_name()
    return float(measure.get_extents(text)[0])


class KioskScreen(Screen):
    """Status strip, notice, title, body and bottom bar. The body and the bar are built when
    the model's shape changes, and otherwise changed in place; the strip, the notice and the
    texts every frame."""

    def show(self, app: KioskApp, model: ScreenModel) -> None:
        self.ids.strip.show(app, model.strip, model.flags)
        show_notice(self.ids.notice, app, model)
        self.ids.title.text = model.title
        key = (shape(model), app.lang, app.portrait)
        if getattr(self, "_key", None) != key:
            self._key, self._bar = key, None
            self._parts = self.build_body(app, model)
        else:
            for (kind, value), widget in zip(content(model), self._parts, strict=True):
                if kind == "button":
                    _restyle(widget, value)
                else:
                    _retext(widget, value)
        self._bar = _nav(app, self.ids.nav, model.nav, self._bar)

    def build_body(self, app: KioskApp, model: ScreenModel) -> list[Widget]:
        """The body's widgets for `model`; returns those `content` speaks of, in its order."""
        body = self.ids.body
        body.clear_widgets()
        parts: list[Widget] = []
        if model.big:
            big = Label(text=model.big, font_name=app.font, font_size=app.title_size * 3,
                        bold=True, color=(1, 0.55, 0.3, 1) if model.tone == "alert" else
                        (0.7, 0.8, 1, 1))
            body.add_widget(big)
            parts.append(big)
        mono = bool(model.extra.get("mono_lines"))
        typed = model.extra.get("input", 0)  # the last lines: what is typed
        large = 1.2 if typed else 1.0 if model.big or model.name == "confirm" else 0
        for i, line in enumerate(model.lines):
            label = _label(line, app, mono=mono)
            if large:
                # what is typed, what a banner means, what a confirmation will do: large; a
                # line said above what is typed (the penalty a PIN deletes) in the body's size,
                # so that the keys keep their 9 mm at 800×480
                if not typed or i >= len(model.lines) - typed:
                    label.font_size = app.title_size * large
                label.halign = "center"
                label.bind(texture_size=lambda w, v: setattr(w, "height", v[1] + dp(10)))
            body.add_widget(label)
            parts.append(label)
        for row in model.rows:
            box = BoxLayout(size_hint_y=None, height=max(dp(56), app.text_size * 2.6),
                            spacing=dp(6))
            label = _label(row.text, app, fixed=False)
            box.add_widget(label)
            parts.append(label)
            if row.button:
                b = _button(app, row.button)
                b.size_hint_x, b.width = None, max(dp(96), app.text_size * 5)
                box.add_widget(b)
                parts.append(b)
            body.add_widget(box)
        for grid in model.grids:
            layout, buttons = _grid(app, grid)
            body.add_widget(layout)
            parts += buttons
        if model.mono:  # the score slip as printed, a page in columns side by side
            columns = model.extra.get("slip_columns") or (model.mono,)
            box = GridLayout(cols=len(columns), spacing=dp(16))
            for column in columns:
                slip = _label(column, app, mono=True, fixed=False)
                slip.slip = True
                slip.font_size = app.text_size * 0.75
                slip.valign = "top"  # both columns from the top of the box
                slip.bind(size=lambda w, v: setattr(w, "text_size", v))
                box.add_widget(slip)
                parts.append(slip)
            body.add_widget(box)
        if not model.grids and not model.mono and not model.big:
            body.add_widget(Widget())  # the lines keep to the top
        return parts


class StepScreen(KioskScreen):
    pass


class BannerScreen(KioskScreen):
    pass


class ClockScreen(Screen):
    def show(self, app: KioskApp, model: ScreenModel) -> None:
        self.ids.strip.show(app, model.strip, model.flags)
        show_notice(self.ids.notice, app, model)
        countdown = self.ids.countdown
        countdown.ids.seconds.text = model.clock
        countdown.ids.seconds.color = (1, 1, 1, 1) if model.clock_state in (
            "moving", "gather", "idle") else FILL[model.clock_state]
        countdown.ids.caption.text = model.extra.get("hold_hint", "") if model.clock else ""
        self.ids.title.text = "　".join(x for x in (model.title, model.clock_caption) if x)
        for seat in model.seats:
            box = self.ids[f"seat_{seat.seat}"]
            box.show(seat.label, seat.time if seat.to_move else "")
            box.action = seat.action
            box.fill = FILL[seat.state if seat.to_move else "idle"]
        key = (app.lang, app.portrait)
        if getattr(self, "_key", None) != key:
            self._key, self._bar = key, None
        self._bar = _nav(app, self.ids.nav, model.nav, self._bar)


ROWS_GAP = dp(18)  # between the bottom bar's two rows in portrait (2–3.5 mm on a 7" panel)


def _nav(app: KioskApp, bar: Any, buttons: tuple[Btn, ...], built: Any) -> Any:
    """The bottom bar: one row; in portrait, rows of three once there are more than four.
    `built`: what the bar was built for last (its shape and widgets); a bar of the same shape
    is changed in place. Returns what it is built for now."""
    rows = 2 if app.portrait and len(buttons) > 4 else 1
    bar_shape = (rows, tuple((b.action, b.wide) for b in buttons))
    if built is not None and built[0] == bar_shape:
        for btn, widget in zip(buttons, built[1], strict=True):
            if btn.action:
                _restyle(widget, btn)
        return built
    bar.clear_widgets()
    bar.rows, bar.cols = None, None
    if rows == 1:
        bar.rows = 1
    else:
        bar.cols = -(-len(buttons) // 2)
    # Two rows stand well apart: 保存更正 sat 5 px above 放弃更正 in portrait, where a finger
    # that missed one by its width took the other.
    gap = ROWS_GAP if rows == 2 else dp(5)
    bar.spacing = (dp(5), gap)
    bar.height = app.bar_height * rows + (gap - dp(5)) * (rows - 1)
    widgets = []
    for btn in buttons:  # a gap keeps an absent action's slot
        widget = _button(app, btn, nav=True) if btn.action else Widget()
        widget.size_hint_x = 1.5 if btn.wide and rows == 1 else 1
        bar.add_widget(widget)
        widgets.append(widget)
    return bar_shape, widgets


def _label(text: str, app: KioskApp, mono: bool = False, fixed: bool = True) -> Label:
    """A line of the body. A blank one keeps a line's height (a space is drawn): the PIN pads
    leave blank where 删除罚则's names the penalty, and their keys keep their places."""
    label = Label(text=text or " ", font_name=fonts.MONO_FOR_LANG[app.lang] if mono else app.font,
                  font_size=app.text_size, halign="left", valign="middle")
    label.bind(size=lambda w, v: setattr(w, "text_size", (v[0], None)))
    # Broken at sensible points for the width (as buttons are): Kivy itself breaks at a space
    # first (「共 25⏎轮」) and leaves a character alone (「撤⏎销。」); columns of text keep
    # their indents, and each note of a list (「…；」) stays whole on a line where it fits.
    label.words = text

    def refit(w: Label, *_: Any) -> None:
        cols = columns(w.width, w.font_size)
        w.text = fit_lines(w.words, cols) or " "

    label.refit = refit
    label.bind(width=refit, font_size=refit)
    if fixed:  # as tall as its lines, wrapped ones too
        label.size_hint_y = None
        label.height = app.text_size * 1.45 * (text.count("\n") + 1) + dp(4)
        label.bind(texture_size=lambda w, v: setattr(w, "height", v[1] + dp(4)))
    return label


def _retext(label: Label, text: str) -> None:
    """A label of the same screen says something else."""
    if hasattr(label, "refit"):  # (one of _label's: broken for its width)
        if label.words != text:
            label.words = text
            label.refit(label)
    elif label.text != text:
        label.text = text


def _button(app: KioskApp, btn: Btn, nav: bool = False) -> TapButton:
    button = TapButton(action=btn.action, font_name=app.font, font_size=app.text_size,
                       background_normal="", background_down="", halign="center",
                       valign="middle")
    _restyle(button, btn, new=True)
    button.bind(on_release=app.tapped)
    return button


def _restyle(button: TapButton, btn: Btn, new: bool = False) -> None:
    """A button's words and colours, as its model says (a red suit in red)."""
    background, color = STYLE[btn.style]
    if btn.label in RED_SUITS:
        color = (0.85, 0.1, 0.1, 1) if btn.style == "selected" else RED_SUIT
    if button.words != btn.label:
        button.words = btn.label
    if new or button.style != btn.style or list(button.color) != list(color):
        button.style, button.background_color, button.color = btn.style, background, color


def _grid(app: KioskApp, grid: Grid) -> tuple[GridLayout, list[TapButton]]:
    layout = GridLayout(cols=grid.columns(app.portrait), spacing=dp(5),
                        size_hint_y=grid.rows(app.portrait))
    buttons = []
    for btn in grid.buttons:
        if not btn.action:  # a gap (the seats keep their places at the table)
            layout.add_widget(Widget())
            continue
        button = _button(app, btn)
        button.font_size = app.text_size * grid.scale
        layout.add_widget(button)
        buttons.append(button)
    return layout, buttons


class KioskApp(App):
    font = StringProperty("KioskSC")
    text_size = NumericProperty(18)
    title_size = NumericProperty(26)
    status_size = NumericProperty(75)
    strong_caption_size = NumericProperty(32)
    bar_height = NumericProperty(56)
    portrait_mode = BooleanProperty(False)

    def __init__(self, runner: TableRunner, lang: str = "zh-Hans", **kw: Any) -> None:
        super().__init__(**kw)
        self.runner = runner
        self.controller = Controller(runner, lang)
        self.watchdog = Watchdog()
        self.frames = 0
        self.model: ScreenModel | None = None
        # (screen, action, place): since when, and whether a tap brought it (its answer)
        self._shown: dict[tuple[str, str, int], tuple[float, bool]] = {}
        self._tapped_at = float("-inf")  # when the last tap was applied
        self._once_at = float("-inf")  # when the last tap of ONCE taken went down
        self._awaiting = 0  # the door's items (Door.sent) sent by then: the table's answer
        self._shows_answer = 0  # the door's items whose effect the model shows
        self._answering = False  # the screen changes now are the last tap's answer
        self._last_touch: tuple[float, float] | None = None  # where the last tap landed
        # taps not applied yet: (action, when the finger went down on a button, the screen
        # the button was on, whether it landed away from the touch before it); a long press
        # on the countdown gives none of these
        self.taps: deque[tuple[str, float | None, str | None, bool]] = deque()
        self._frame: Any = None

    @property
    def lang(self) -> str:
        return self.controller.ui.lang

    # -- building ---------------------------------------------------------------------------

    def build(self) -> ScreenManager:
        fonts.register()
        self.title = "80分"
        for name in ("common", "step", "banner", "clock"):  # one file a screen
            Builder.load_file(str(KV / f"{name}.kv"))
        manager = ScreenManager(transition=NoTransition())
        manager.add_widget(StepScreen(name="step"))
        manager.add_widget(BannerScreen(name="banner"))
        manager.add_widget(ClockScreen(name="clock"))
        Window.bind(on_key_down=self._key, size=lambda *_: self._sizes())
        self._sizes()
        # The screen is brought up to date just before a frame is drawn (a trigger of timeout
        # -1), after the frame's input: then Kivy lays it out before the frame is drawn and
        # before the next touch is dispatched. A tap asks for it at once; time, 30 times a
        # second.
        self._frame = Clock.create_trigger(self._before_draw, -1)
        Clock.schedule_interval(lambda _dt: self._frame(), 1 / 30)
        INPUT_READS.start()
        return manager

    @property
    def portrait(self) -> bool:
        return bool(Window.height > Window.width)

    def _sizes(self) -> None:
        self.portrait_mode = self.portrait
        short = min(Window.width, Window.height)
        self.text_size = max(16, short / 26)
        self.title_size = max(22, short / 18)
        self.bar_height = max(dp(56), self.text_size * 2.8)
        # digits of at least 10 mm on the 7" panel (short side 86 mm), and as large elsewhere
        self.status_size = STATUS_DIGIT_MM * short / PANEL_SHORT_MM / DIGIT_HEIGHT_EM + 1
        self.strong_caption_size = STRONG_CAPTION_MM * short / PANEL_SHORT_MM / CJK_HEIGHT_EM
        for screen in getattr(self.root, "screens", ()):
            screen._key = None
            screen.ids.strip._key = None

    # -- the frame --------------------------------------------------------------------------

    def refresh(self, *_: Any) -> None:
        self.frames += 1
        if self.frames == 1:
            self.watchdog.ready()  # systemd (Type=notify): the window is up
            if os.environ.get("KIOSK_FIRST_FRAME"):
                _first_frame(os.environ["KIOSK_FIRST_FRAME"])
        if self.runner.alive:  # fed from the UI loop: a frozen UI or clock thread is restarted
            self.watchdog.ping()
        self.font = fonts.FONT_FOR_LANG[self.lang]
        self._shows_answer = self.runner.answered  # (taken before the view it answers for)
        answer, self._answering = self._answering, self._shows_answer < self._awaiting
        self.controller.frame()
        model = present(self.runner.view, self.runner.session.clock.now(), self.controller.ui,
                        self.portrait)
        self.model = model
        now, shown = Clock.get_boottime(), self._shown
        self._shown = {key: shown.get(key, (now, answer)) for key in places(model)}
        screen = self.root.get_screen(model.screen)
        if self.root.current != model.screen:
            self.root.current = model.screen
        screen.show(self, model)

    def _before_draw(self, _dt: float = 0.0) -> None:
        """Apply the taps that came with this frame's input, in order, then refresh. A tap
        after one the table has not answered yet waits for the answer (a frame or two): the
        answer may be a new screen, where the waiting tap's button is gone, and a tap meant
        for the next screen that landed on this one must not answer this one again."""
        while self.taps:
            if self._shows_answer < self._awaiting:
                if self.runner.answered >= self._awaiting:
                    self.refresh()  # the answer, as it shows
                elif Clock.get_boottime() - self._tapped_at < ANSWER_WAIT:
                    break  # (the next frames come by the interval; a stalled table is not
                    # waited for longer)
            action, at, screen, elsewhere = self.taps.popleft()
            model = self.model
            # A tap is for the screen it landed on: one that screen's change made stale (a
            # second tap of the same frame, on a button that is gone now) is not applied.
            if screen is not None and model is not None and (
                    model.name != screen or action not in model.actions()):
                continue
            if at is None or self.settled(action, at, elsewhere):
                self._tapped_at = Clock.get_boottime()
                if action in ONCE and at is not None:
                    self._once_at = at
                self.act(action)
        self.refresh()

    # -- taps -------------------------------------------------------------------------------

    def tapped(self, button: TapButton) -> None:
        """A button released (during Kivy's dispatch of input): queued, with whether it landed
        away from the tap before it (a bounce lands where the finger was)."""
        (x, y), last = button.landed_on, self._last_touch
        bounce = min(Window.width, Window.height) / PANEL_SHORT_MM * BOUNCE_MM
        elsewhere = last is None or math.hypot(x - last[0], y - last[1]) > bounce
        self._last_touch = (x, y)
        self.taps.append((button.action, button.landed_after,
                          self.model.name if self.model else "", elsewhere))
        self._frame()

    def queue(self, action: str) -> None:
        """An action not from a button (the long press on the countdown): applied before the
        next frame is drawn, after any tap before it."""
        self.taps.append((action, None, None, False))
        self._frame()

    def settled(self, action: str, at: float | None = None, elsewhere: bool = False) -> bool:
        """Whether a finger down at `at` (default: a touch dispatched now, by the soonest it
        can have landed) on the button for `action` is meant for it: the button has been on
        this screen at least SETTLE by then, or it is a tap ahead: the screen is the answer to
        the tap before, and this one landed `elsewhere` than that one (a referee who knows the
        screens taps the next answer before it shows). A bounce lands where the finger was,
        and a screen that came by itself (a seat button, the clock) was not waited for."""
        if action in ONCE and not elsewhere and at is not None and at < self._once_at + SETTLE:
            return False  # the same finger again, bouncing
        place = next((key for key in places(self.model) if key[1] == action), None) \
            if self.model else None
        shown = self._shown.get(place) if place else None
        if shown is None:
            return True
        since, answer = shown
        if (INPUT_READS.earliest() if at is None else at) >= since + SETTLE:
            return True
        return answer and elsewhere

    def act(self, action: str) -> None:
        """A tap's action: what the screen changes until the table has answered it (what it
        sent through the door) is its answer."""
        self.controller.act(action)
        self._awaiting, self._answering = self.runner.door.sent, True
        self.refresh()

    def _key(self, _window: Any, key: int, _scancode: int, text: str | None, *_: Any) -> bool:
        """The seat keys 1-4 (a laptop's stand-ins for the seat buttons) press a seat. Every
        key is taken here, so none reaches Kivy's own handling: there Escape ends the program,
        Android's back (27) sends it away and F1 opens Kivy's settings, and a stray key on a
        keyboard left attached must change nothing at a table."""
        seat = KEYS.get(text or "")
        if seat is not None:
            self.runner.door.put(lambda s: s.press(seat))
        return True


def places(model: ScreenModel) -> list[tuple[str, str, int]]:
    """Each button of `model` by its screen, action and place among the screen's buttons, in
    the order they are laid out: one that moves (the row under one struck out, now where that
    one was; 添加罚则 under the list, when its last row goes) is new where it lands, and a
    bounce on it is not taken."""
    return [(model.name, action, i) for i, action in enumerate(model.actions())]


def resident_kb() -> int:
    """This process's resident memory in kB (Linux)."""
    status = Path("/proc/self/status").read_text()
    return next((int(line.split()[1]) for line in status.splitlines()
                 if line.startswith("VmRSS:")), 0)


def _first_frame(path: str) -> None:
    """Benchmark hook: note when the first frame was drawn and the memory then, and stop."""
    import json
    import time

    Path(path).write_text(json.dumps({"time": time.time(), "rss_kb": resident_kb()}))
    app = App.get_running_app()
    Clock.schedule_once(lambda _dt: app.stop(), 0.5)


__all__ = ["KioskApp", "TapButton", "resident_kb", "translator"]
