"""The Kivy app: screens drawn from the presenter's models; every action goes through the door to
the runner's thread, which alone touches the session."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager

from ..hw.runner import TableRunner
from ..i18n import LANGS, translator
from ..watchdog import Watchdog
from . import fonts
from .presenter import POINT_VALUES, ScreenModel, history, present

KV = Path(__file__).parent / "kv"
FILL = {"idle": (0.16, 0.16, 0.2, 1), "moving": (0.1, 0.55, 0.25, 1),
        "warn": (0.85, 0.6, 0.05, 1), "over": (0.8, 0.12, 0.12, 1),
        "paused": (0.35, 0.35, 0.45, 1), "empty": (0, 0, 0, 0)}
KEYS = {"1": "N", "2": "E", "3": "S", "4": "W"}
#: The screens the referee's and the history's overlays use.
OVERLAY_SCREEN = {"history": "history", "referee": "referee", "correct": "referee"}
REFEREE = ("start_clock", "pause", "resume", "time_up", "forfeit:NS", "forfeit:EW", "rule",
           "undo", "close")


class TapButton(Button):
    """A button that names the action it performs (tests and the scripted hand find it so)."""

    action = StringProperty("")


class SeatBox(Label):
    seat = StringProperty("")
    fill = ListProperty(FILL["empty"])


class KioskScreen(Screen):
    """A title, a message and a body of lines and buttons, rebuilt when its model changes.
    Each screen's own .kv file sets how its title and body look."""

    title_scale = NumericProperty(1.0)
    title_color = ListProperty([1, 1, 1, 1])
    body_spacing = NumericProperty(dp(6))

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._shown: Any = None

    def show(self, app: KioskApp, model: ScreenModel) -> None:
        self.ids.title.text = model.title
        self.ids.message.text = model.message
        key = (model.lines, model.buttons, model.values, app.body_key(), app.lang,
               bool(model.extra.get("slip")))
        if key == self._shown:
            return
        self._shown = key
        box = self.ids.body
        box.clear_widgets()
        for line in model.lines:
            box.add_widget(_label(line, app))
        for part in app.body(model):
            box.add_widget(part)
        if model.buttons:
            box.add_widget(_buttons(app, model.buttons, cols=2 if app.portrait else 4))


class SetupScreen(KioskScreen):
    pass


class ReadyScreen(KioskScreen):
    pass


class EntryScreen(KioskScreen):
    pass


class ResultScreen(KioskScreen):
    pass


class OverScreen(KioskScreen):
    pass


class HistoryScreen(KioskScreen):
    pass


class RefereeScreen(KioskScreen):
    pass


SCREEN_CLASSES = {"setup": SetupScreen, "ready": ReadyScreen, "entry": EntryScreen,
                  "result": ResultScreen, "over": OverScreen, "history": HistoryScreen,
                  "referee": RefereeScreen}


class ClockScreen(Screen):
    def show(self, app: KioskApp, model: ScreenModel) -> None:
        self.ids.title.text = model.lines[0] if model.lines else model.title
        self.ids.message.text = model.message
        self.ids.countdown.text = model.clock
        self.ids.countdown.color = FILL[model.clock_state] if model.clock_state != "moving" \
            else (1, 1, 1, 1)
        for seat in model.seats:
            box = self.ids[f"seat_{seat.seat}"]
            box.text = f"{seat.label}\n{seat.time}" if seat.to_move else seat.label
            box.fill = FILL[seat.state if seat.to_move else "idle"]
        key = (model.buttons, app.lang)
        if getattr(self, "_shown", None) != key:
            self._shown = key
            actions = self.ids.actions
            actions.clear_widgets()
            for action, text in model.buttons:
                actions.add_widget(_button(app, action, text))


def _label(text: str, app: KioskApp) -> Label:
    label = Label(text=text, font_name=app.font, font_size=app.text_size, halign="left",
                  valign="middle", size_hint_y=None)
    label.bind(width=lambda w, v: setattr(w, "text_size", (v, None)),
               texture_size=lambda w, v: setattr(w, "height", max(v[1], dp(32))))
    return label


def _button(app: KioskApp, action: str, text: str) -> TapButton:
    # At least 9 mm, and room for two lines of the type at this screen's size.
    button = TapButton(text=text, action=action, font_name=app.font, font_size=app.text_size,
                       size_hint_y=None, height=max(dp(56), app.text_size * 2.6),
                       background_normal="",
                       background_color=(0.22, 0.33, 0.55, 1))
    button.bind(on_release=lambda *_: app.act(action),
                width=lambda b, w: setattr(b, "text_size", (w - dp(8), None)))
    button.halign = "center"
    return button


def _buttons(app: KioskApp, buttons: tuple[tuple[str, str], ...], cols: int) -> GridLayout:
    grid = GridLayout(cols=cols, size_hint_y=None, spacing=dp(6))
    grid.bind(minimum_height=grid.setter("height"))
    for action, text in buttons:
        grid.add_widget(_button(app, action, text))
    return grid


class KioskApp(App):
    font = StringProperty("KioskSC")
    text_size = NumericProperty(18)
    title_size = NumericProperty(26)
    model_status = StringProperty("")
    history_label = StringProperty("")
    referee_label = StringProperty("")
    next_language = StringProperty("")
    portrait_mode = BooleanProperty(False)

    def __init__(self, runner: TableRunner, lang: str = "zh-Hans", **kw: Any) -> None:
        super().__init__(**kw)
        self.runner, self.lang = runner, lang
        self.watchdog = Watchdog()
        self.overlay: str | None = None  # "history" or "referee" over the phase's screen
        self.pin = ""
        self.referee_open = False
        self._pin_round = 0  # bumped when the referee menu closes
        self._entry_hand: int | None = None
        self.kitty: dict[str, Any] = {}
        self.pending_penalty: dict[str, Any] = {}  # the penalty being entered, step by step
        self.correcting: int | None = None  # the hand the referee is correcting
        self.name_inputs: dict[str, Any] = {}
        self.frames = 0

    # -- building ---------------------------------------------------------------------------

    def build(self) -> ScreenManager:
        fonts.register()
        self.title = "80分"
        for name in ("common", "screens", *SCREEN_CLASSES, "clock"):  # one file a screen
            Builder.load_file(str(KV / f"{name}.kv"))
        manager = ScreenManager(transition=NoTransition())
        for name, cls in SCREEN_CLASSES.items():
            manager.add_widget(cls(name=name))
        manager.add_widget(ClockScreen(name="clock"))
        self._apply_language()
        Window.bind(on_key_down=self._key, size=lambda *_: self._sizes())
        self._sizes()
        Clock.schedule_interval(self.refresh, 1 / 30)
        return manager

    @property
    def portrait(self) -> bool:
        return bool(Window.height > Window.width)

    def _sizes(self) -> None:
        self.portrait_mode = self.portrait
        short = min(Window.width, Window.height)
        self.text_size = max(16, short / 26)
        self.title_size = max(22, short / 18)

    def _apply_language(self) -> None:
        t = translator(self.lang)
        self.font = fonts.FONT_FOR_LANG[self.lang]
        self.history_label, self.referee_label = t("ui.history"), t("ui.referee")
        self.next_language = {"zh-Hans": "繁體", "zh-Hant": "EN", "en": "简体"}[self.lang]

    # -- the frame --------------------------------------------------------------------------

    def refresh(self, *_: Any) -> None:
        self.frames += 1
        if self.frames == 1:
            self.watchdog.ready()  # systemd (Type=notify): the window is up
            if os.environ.get("KIOSK_FIRST_FRAME"):
                _first_frame(os.environ["KIOSK_FIRST_FRAME"])
        if self.runner.alive:  # fed from the UI loop: a frozen UI or clock thread is restarted
            self.watchdog.ping()
        view = self.runner.view
        if view.hand != self._entry_hand:  # a new hand starts with no kitty chosen
            self._entry_hand, self.kitty = view.hand, {}
        model = present(view, self.runner.session.clock.now(), self.lang)
        self.model_status = model.status
        name = OVERLAY_SCREEN[self.overlay] if self.overlay else model.screen
        screen = self.root.get_screen(name)
        if self.root.current != name:
            self.root.current = name
        screen.show(self, self._overlay_model(model) if self.overlay else model)

    def _overlay_model(self, model: ScreenModel) -> ScreenModel:
        t = translator(self.lang)
        view = self.runner.view
        if self.overlay == "history":
            fixes: tuple[tuple[str, str], ...] = ()
            if self.referee_open and view.kind == "team":
                fixes = tuple((f"correct:{h['hand']}", t("ui.correct", n=h["hand"]))
                              for h in view.history if h["result"] != "redeal")
            return ScreenModel("history", t("ui.history"), model.status, model.message,
                               lines=history(view, self.lang),
                               buttons=(*fixes, ("close", t("ui.close"))))
        if self.overlay == "correct":
            return ScreenModel("referee", t("ui.correct_title", n=self.correcting),
                               model.status, model.message, values=POINT_VALUES,
                               buttons=(("history", t("ui.close")),))
        if not self.referee_open:
            shown = "•" * len(self.pin) or t("ui.pin")
            digits = tuple((f"pin:{d}", d) for d in "1234567890")
            return ScreenModel("referee", t("ui.referee"), model.status, model.message,
                               lines=(shown,), buttons=(*digits, ("pin:ok", t("ui.ok")),
                                                        ("close", t("ui.close"))))
        return ScreenModel("referee", t("ui.referee"), model.status, model.message,
                           buttons=tuple((a, _referee_label(a, t)) for a in REFEREE))

    def body_key(self) -> tuple[Any, ...]:
        """What, besides the model, the screen's keypads depend on."""
        return (self.overlay, self.correcting, tuple(sorted(self.kitty.items())),
                tuple(self.pending_penalty.items()))

    def body(self, model: ScreenModel) -> list[Any]:
        """The keypads: points for a correction, or the entry of a hand."""
        if self.overlay == "correct":
            return [_buttons(self, tuple((f"correct_points:{v}", str(v)) for v in model.values),
                             9)]
        if not self.overlay and model.screen == "setup":
            return self._name_fields()
        if not self.overlay and model.screen == "over" and model.extra.get("slip"):
            slip = _label(model.extra["slip"], self)
            slip.font_name = fonts.MONO_FOR_LANG[self.lang]
            slip.font_size = self.text_size * 0.8
            return [slip]
        if self.overlay or model.screen != "entry":
            return []
        t = translator(self.lang)
        parts: list[Any] = [_buttons(self, (model.extra["finish"],), 1), _label(t("ui.points"),
                                                                             self)]
        parts.append(_buttons(self, tuple((f"points:{v}", str(v)) for v in model.values), 9))
        kitty = self.kitty
        parts.append(_label(f"{t('ui.kitty')}: {kitty.get('points', '—')} "
                            f"{t('ui.shape.' + kitty['shape']) if 'shape' in kitty else ''}",
                            self))
        parts.append(_buttons(self, tuple((f"kitty:{v}", str(v)) for v in
                                          model.extra["kitty_values"]), 9))
        parts += self._penalty_form(t)
        return parts

    def _options(self) -> tuple[Any, ...]:
        return self.runner.view.penalty_forms.get(self.pending_penalty.get("code", ""), ())

    def _penalty_form(self, t: Any) -> list[Any]:
        """The next step of the penalty being entered: the seat, the choice, the count."""
        pending = self.pending_penalty
        if not pending:
            return []
        options = self._options()
        names = dict(self.runner.view.penalty_names)
        title = names[pending["code"]](self.lang) if pending["code"] in names else ""
        parts: list[Any] = [_label(title, self)]
        if "seat" not in pending:
            parts.append(_buttons(self, tuple((f"penalty_seat:{s}", t("ui.seat." + s))
                                              for s in "NESW"), 4))
        elif "option" not in pending:
            parts.append(_buttons(self, tuple((f"penalty_option:{i}", o.name(self.lang))
                                              for i, o in enumerate(options)), 2))
        else:
            option = options[pending["option"]]
            parts.append(_label(t(f"ui.penalty.{option.asks}"), self))
            parts.append(_buttons(self, tuple((f"penalty_value:{v}", str(v))
                                              for v in option.values), 9))
        return parts

    def _penalty_step(self, step: str, arg: str) -> None:
        pending, options = self.pending_penalty, self._options()
        if step == "seat":
            pending["seat"] = arg
            if len(options) == 1:
                pending["option"] = 0
        elif step == "option":
            pending["option"] = int(arg)
        elif step == "value":
            pending["value"] = int(arg)
        if "option" in pending and (not options[pending["option"]].asks or "value" in pending):
            option = options[pending["option"]]
            details: dict[str, Any] = {"choice": option.choice}
            if option.asks:
                details[option.asks] = pending["value"]
            code, seat = pending["code"], pending["seat"]
            self.pending_penalty = {}
            self.runner.door.put(lambda s: s.add_penalty(code, seat, **details))
        self.pending_penalty = dict(self.pending_penalty)  # a new key: the form redraws

    def _name_fields(self) -> list[Any]:
        """Team and player names for a match set up by hand (the scorer will send them)."""
        from kivy.uix.textinput import TextInput

        t = translator(self.lang)
        grid = GridLayout(cols=2, size_hint_y=None, spacing=dp(6))
        grid.bind(minimum_height=grid.setter("height"))
        self.name_inputs = {}
        for key, label in (("NS", t("team.NS")), ("EW", t("team.EW")),
                           *((s, t("ui.seat." + s)) for s in "NESW")):
            field = TextInput(hint_text=label, multiline=False, font_name=self.font,
                              font_size=self.text_size, size_hint_y=None, height=dp(56))
            self.name_inputs[key] = field
            grid.add_widget(field)
        return [grid]

    # -- actions: everything that changes the table goes through the door ------------------

    def act(self, action: str) -> None:
        name, _, arg = action.partition(":")
        door = self.runner.door
        if name == "language":
            self.lang = LANGS[(LANGS.index(self.lang) + 1) % len(LANGS)]
            self._apply_language()
        elif name in ("history", "referee"):
            self.overlay = name
        elif name == "close":
            self.overlay, self.pin = None, ""
            self.referee_open = False
            self._pin_round += 1  # an unlock still on its way must not reopen the menu
            door.put(lambda s: s.lock())
        elif name == "pin":
            self._pin(arg)
        elif name == "correct" and self.referee_open:
            self.overlay, self.correcting = "correct", int(arg)
        elif name == "correct_points" and self.correcting is not None:
            hand, reason = self.correcting, translator(self.lang)("ui.correction_reason")
            door.put(lambda s: s.correct_hand(hand, {"points": int(arg)}, reason))
            self.overlay, self.correcting = "history", None
        elif name == "setup":
            names = {k: f.text.strip() for k, f in self.name_inputs.items() if f.text.strip()}
            teams = {k: v for k, v in names.items() if k in ("NS", "EW")}
            players = {k: v for k, v in names.items() if k in "NESW"}
            door.put(lambda s: s.setup_match(event="", round=str(len(s.journal.matches()) + 1),
                                             teams=teams, players=players, ruleset=arg))
        elif name == "dealer":
            door.put(lambda s: s.grab_dealer(arg))
        elif name == "card":
            door.put(lambda s: s.draw_partner(card=arg))
        elif name == "redeal":
            door.put(lambda s: s.redeal(arg))
        elif name == "fry":
            door.put(lambda s: s.fry(arg))
        elif name == "dispute":
            door.put(lambda s: s.dispute(arg))
        elif name == "points":
            kitty = dict(self.kitty) if set(self.kitty) == {"points", "shape"} else None
            door.put(lambda s: s.enter_points(int(arg), kitty))
        elif name in ("kitty", "kitty_shape"):
            key, value = ("points", int(arg)) if name == "kitty" else ("shape", arg)
            self.kitty = {**self.kitty, key: value}
            points = self.runner.view.points
            if points is not None and set(self.kitty) == {"points", "shape"}:
                kitty = dict(self.kitty)  # the points are in: send the kitty with them
                door.put(lambda s: s.enter_points(points, kitty))
        elif name == "penalty":
            self.pending_penalty = {"code": arg}
        elif name.startswith("penalty_") and self.pending_penalty:
            self._penalty_step(name.removeprefix("penalty_"), arg)
        elif name in ("start_bury", "end_play", "finish_entries", "undo"):
            door.put(lambda s: getattr(s, name)())
        elif name == "reprint":
            printer = self.runner.printer
            if printer is not None:
                door.put(lambda s: printer.reprint(f"table-{s.table}-round-{s.match}"))
        elif self.referee_open:
            self._referee(name, arg)

    def _pin(self, digit: str) -> None:
        if digit != "ok":
            self.pin = (self.pin + digit)[-8:]
            return
        pin, self.pin = self.pin, ""
        asked_in = self._pin_round

        def unlock(session: Any) -> None:  # on the runner's thread
            opened = session.unlock(pin)
            if asked_in == self._pin_round:
                self.referee_open = opened

        self.runner.door.put(unlock)

    def _referee(self, name: str, arg: str) -> None:
        ruled = translator(self.lang)("ui.referee_ruled")
        calls = {"start_clock": lambda s: s.start_match_clock(),
                 "pause": lambda s: s.pause(), "resume": lambda s: s.resume(),
                 "time_up": lambda s: s.declare_time_up(),
                 "forfeit": lambda s: s.end_match(arg, "forfeit", ruled),
                 "rule": lambda s: s.rule_dispute(ruled)}
        if name in calls:
            self.runner.door.put(calls[name])

    def _key(self, _window: Any, key: int, _scancode: int, text: str | None, *_: Any) -> bool:
        seat = KEYS.get(text or "")
        if seat is None:
            return False
        self.runner.door.put(lambda s: s.press(seat))
        return True


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


def _referee_label(action: str, t: Any) -> str:
    labels = {"start_clock": t("ui.start_clock"), "pause": t("ui.pause"),
              "resume": t("ui.resume"), "time_up": t("by.time-up"), "rule": t("ui.rule"),
              "undo": t("ui.undo"), "close": t("ui.close")}
    name, _, arg = action.partition(":")
    if name == "forfeit":
        return f"{t('by.forfeit')} {t('team.' + arg)}"
    return labels[name]
