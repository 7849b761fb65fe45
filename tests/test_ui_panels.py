"""The kiosk on the panels an installer may buy (800×480, 1024×600, 1280×800, and portrait),
in the real window under Xvfb (a review at those sizes): a seat's box keeps the seat and its
player's name whole (with 「西 OUYANG XIAOMING」 to move, West's box at 1280×800 showed only
「XIAOMING / 13」, and at 800×480 the name ran to its box's edges), and the bottom bar's two
rows in portrait stand apart."""

from __future__ import annotations

import pytest

from .helpers import xvfb
from .window import play

pytestmark = pytest.mark.window

SCRIPT = [
    ("wait", "setup"), ("type", "W=OUYANG XIAOMING"), ("type", "E=Sima Xiangru"),
    ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"), ("touch", "dealer:N"),
    ("wait", "ready"), ("touch", "trump:♠"), ("touch", "start_bury"), ("wait", "clock.bury"),
    ("seat", "N"), ("wait", "clock.play"), ("seat", "N"), ("seat", "E"), ("seat", "S"),
    ("shot", "west-to-move"), ("seat", "W"), ("shot", "lead"),  # (the trick's winner to lead)
]


@pytest.fixture(scope="module")
def display():
    with xvfb("1280x1280x24") as name:
        yield name


@pytest.mark.parametrize("size", ["800x480", "1024x600", "1280x800", "600x1024", "800x1280"])
def test_a_long_players_name_stays_whole_in_its_seats_box(tmp_path, display, size):
    _, screens = play(tmp_path, display, SCRIPT, size=size)
    assert screens["seat_boxes"]["lead"] > 0  # (all four to move: each box with its countdown)
    assert screens["seat_boxes"]["cut"] == [], screens["seat_boxes"]["cut"]


def test_the_bottom_bars_two_rows_stand_apart_in_portrait(tmp_path, display):
    """A review at other panels: in portrait 保存更正 sat 5 px above 放弃更正 (the bar's two
    rows), where a finger that missed one by its width took the other."""
    script = [("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
              ("touch", "dealer:N"), ("wait", "ready"), ("touch", "trump:♠"),
              ("touch", "start_bury"), ("wait", "clock.bury"), ("seat", "N"),
              ("wait", "clock.play"), ("seat", "N"), ("rects", "play")]
    _, screens = play(tmp_path, display, script, size="800x1280")
    rects = screens["rects"]["play"]
    bottoms = sorted({round(y) for x, y, w, h in rects.values()})
    assert len(bottoms) >= 2, rects  # (two rows: five buttons in portrait)
    lower = [r for r in rects.values() if round(r[1]) == bottoms[0]]
    upper = [r for r in rects.values() if round(r[1]) == bottoms[1]]
    gap = min(u[1] for u in upper) - max(r[1] + r[3] for r in lower)
    assert gap >= 16, (gap, rects)
