"""A seat's box keeps the seat and its player's name whole on every screen size, in the real
kiosk window under Xvfb (a review at other panels: with 「西 OUYANG XIAOMING」 to move, West's box
at 1280×800 showed only 「XIAOMING / 13」, and at 800×480 the name ran past its box)."""

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
