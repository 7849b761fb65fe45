"""What a screen shows, as plain values: the presenter builds them, the Kivy app draws them.
No Kivy here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Btn:
    """A touch target: `action` is what a tap does (the controller's vocabulary), `style`
    "normal", "primary" (the step's way on), "danger" (ends or freezes something), "quiet"
    (back, close) or "selected" (the value chosen before)."""

    action: str
    label: str
    style: str = "normal"
    wide: bool = False  # the bottom bar's slot for the step forward: half again as wide


@dataclass(frozen=True)
class Grid:
    """Buttons in rows of `cols` (landscape) or `cols_portrait` columns, filling their share
    of the body: never scrolled. The rows are filled evenly: a lone 「0」 fills its row, two
    hands share it, seven go in rows of 4 and 3, not 6 and 1 (Kivy keeps a column without a
    button, a gap at the right); where that still leaves the last row short by two or more,
    one column more is taken if it evens the rows (14 offences go 5/5/4, not 4/4/4/2). A
    keyboard keeps its columns (1 … 0 on one row). A button with no action is a gap."""

    buttons: tuple[Btn, ...]
    cols: int = 4
    cols_portrait: int = 2
    scale: float = 1.0  # of the type (suits and seats read from across the table)
    keyboard: bool = False

    def columns(self, portrait: bool) -> int:
        cols = self.cols_portrait if portrait else self.cols
        if self.keyboard:
            return cols
        n = len(self.buttons)

        def even(most: int) -> int:  # the fewest columns that keep the rows at most `most`
            rows = max(1, -(-n // most))
            return max(1, -(-n // rows))

        def short(columns: int) -> int:  # places left empty in the last row
            return -n % columns

        fitted = even(cols)
        wider = even(cols + 1)
        return wider if short(fitted) >= 2 and short(wider) < short(fitted) else fitted

    def rows(self, portrait: bool) -> int:
        return max(1, -(-len(self.buttons) // self.columns(portrait)))


@dataclass(frozen=True)
class Row:
    """A line of text with an optional button at its end (a penalty and its delete)."""

    text: str
    button: Btn | None = None


@dataclass(frozen=True)
class Part:
    """One part of the status strip: a caption and its value (`value` large on the clock)."""

    caption: str
    value: str
    tone: str = ""  # "", "alert" (time up, paused), "dim" or "red" (a red suit)
    strong: bool = False  # the caption read from 1 m too (which side is which)
    short: str = ""  # the caption where the clock's one row has no room for it


@dataclass(frozen=True)
class Notice:
    text: str = ""
    level: str = ""  # "", "error", "info", "alert" or "link" (the scorer's link lost)


@dataclass(frozen=True)
class SeatModel:
    seat: str
    label: str  # seat name and player
    to_move: bool
    state: str  # "idle", "moving", "warn", "over", "paused" or "gather"
    time: str  # the countdown when moving
    action: str = ""  # what a long press on the box does: the seat's press, while it moves


@dataclass(frozen=True)
class ScreenModel:
    """One screen. `screen` names the Kivy screen that draws it ("clock", "banner" or "step");
    `name` is what it is, for tests and screenshots (e.g. "entry.points", "confirm")."""

    screen: str
    name: str
    title: str
    strip: tuple[Part, ...] = ()
    flags: tuple[str, ...] = ()  # "muted", "paused", "time-up"
    notice: Notice = Notice()
    lines: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    grids: tuple[Grid, ...] = ()
    nav: tuple[Btn, ...] = ()
    # the clock screen
    seats: tuple[SeatModel, ...] = ()
    clock: str = ""
    clock_state: str = "idle"
    clock_caption: str = ""
    # a banner's big word and its colour
    big: str = ""
    tone: str = ""
    mono: str = ""  # preformatted text in the monospaced face (the slip)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """The status strip as one line of text."""
        return "   ".join(" ".join(x for x in (p.caption, p.value) if x) for p in self.strip)

    def actions(self) -> tuple[str, ...]:
        """Every action a tap on this screen can do, in the order the screen lays them out
        (the rows above the grids: `places` counts on it)."""
        out = [r.button.action for r in self.rows if r.button]
        out += [b.action for g in self.grids for b in g.buttons]
        out += [b.action for b in self.nav]
        return tuple(a for a in out if a)  # a gap keeps a place, and does nothing


def shape(model: ScreenModel) -> tuple[Any, ...]:
    """What a screen's widgets are, apart from what they say: a model of the same shape is
    shown by the same widgets, their words and colours changed in place (a key typed, a value
    chosen), so that the buttons under a finger stay where and what they are."""
    return (model.name, model.big != "", model.tone, len(model.lines),
            tuple(r.button.action if r.button else None for r in model.rows),
            tuple((g.cols, g.cols_portrait, g.scale, tuple(b.action for b in g.buttons))
                  for g in model.grids),
            len(model.extra.get("slip_columns") or (model.mono,)) if model.mono else 0,
            bool(model.extra.get("mono_lines")), bool(model.extra.get("input")))


def content(model: ScreenModel) -> list[tuple[str, Any]]:
    """What the body's widgets say, in the order `build_body` makes them."""
    out: list[tuple[str, Any]] = [("label", model.big)] if model.big else []
    out += [("label", line) for line in model.lines]
    for row in model.rows:
        out.append(("label", row.text))
        if row.button:
            out.append(("button", row.button))
    out += [("button", b) for g in model.grids for b in g.buttons if b.action]
    if model.mono:
        out += [("label", c) for c in model.extra.get("slip_columns") or (model.mono,)]
    return out
