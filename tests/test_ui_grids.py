"""A grid of answers fills its rows in the real kiosk window under Xvfb (a referee saw a gap at
the right of the kitty pad whose only value was 「0」, and of 更正哪一副 with a hand or two)."""

from __future__ import annotations

import pytest

from .helpers import xvfb
from .window import play

pytestmark = pytest.mark.window

PIN = [("touch", "pin:0")] * 4 + [("touch", "pin_ok")]
#: A row that fills the body ends this close to the window's right edge (the body's padding:
#: Kivy keeps a column without a button, and its spacing, at the right).
EDGE_PX = 8


@pytest.fixture(scope="module")
def display():
    with xvfb("800x1280x24") as name:
        yield name


def right_gaps(rects: dict[str, list[float]], prefix: str, width: int) -> dict[float, float]:
    """For each row of the buttons whose action starts with `prefix`: the room left between
    its last button and the window's right edge."""
    ends: dict[float, float] = {}
    for action, (x, y, w, _) in rects.items():
        if action.startswith(prefix):
            ends[y] = max(ends.get(y, 0.0), x + w)
    return {y: round(width - end, 1) for y, end in ends.items()}


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_a_short_grid_fills_its_row(tmp_path, display, size):
    """200 points to the defenders leave the kitty 0 only; after one hand the correction
    offers 第1副 only: each fills its row, with no empty slots at its right."""
    script = [
        ("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
        ("touch", "dealer:N"), ("wait", "ready"), ("touch", "trump:♠"),
        ("touch", "start_bury"), ("wait", "clock.bury"), ("seat", "N"),
        ("wait", "clock.play"), ("play_out", ""), ("wait", "clock.done"),
        ("touch", "end_play"), ("wait", "entry.points"), ("touch", "e_points:200"),
        ("wait", "entry.last_trick"), ("touch", "e_last:defenders"),
        ("wait", "entry.kitty_points"), ("rects", "kitty"), ("touch", "e_kitty:0"),
        ("wait", "entry.penalties"), ("touch", "e_finish"), ("wait", "result"),
        ("seat", "N"), ("seat", "E"), ("wait", "ready"), ("touch", "referee"),
        ("wait", "referee.pin"), *PIN, ("wait", "referee"), ("touch", "r_correct"),
        ("wait", "referee.correct_pick"), ("rects", "correct_pick")]
    _, screens = play(tmp_path, display, script, size=size)
    width = int(size.split("x")[0])
    rects = screens["rects"]
    gaps = {screen: right_gaps(rects[screen], prefix, width)
            for screen, prefix in (("kitty", "e_kitty:"), ("correct_pick", "r_correct:"))}
    assert all(rows and max(rows.values()) <= EDGE_PX for rows in gaps.values()), gaps
