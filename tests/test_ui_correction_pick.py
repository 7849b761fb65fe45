"""The referee's 更正哪一副 chooser in the real kiosk window under Xvfb: each hand's button says
its dealer and points (「第2副 东庄 85分」), whole, at 800×480 and 720×1280."""

from __future__ import annotations

import pytest

from .helpers import xvfb
from .window import cut_words, play

pytestmark = pytest.mark.window

HAND = [("touch", "trump:♠"), ("touch", "start_bury"), ("wait", "clock.bury"), ("seat", "*"),
        ("wait", "clock.play"), ("play_out", ""), ("wait", "clock.done"),
        ("touch", "end_play"), ("wait", "entry.points")]
SCRIPT = [
    ("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
    ("touch", "dealer:N"), ("wait", "ready"), *HAND, ("touch", "e_points:40"),
    ("touch", "e_last:dealer"), ("wait", "entry.penalties"), ("touch", "e_finish"),
    ("wait", "result"), ("seat", "N"), ("seat", "E"), ("wait", "ready"), *HAND,
    ("touch", "e_points:85"), ("touch", "e_last:dealer"), ("wait", "entry.penalties"),
    ("touch", "e_finish"), ("wait", "result"), ("seat", "N"), ("seat", "E"), ("wait", "ready"),
    ("touch", "referee"), ("wait", "referee.pin"), *[("touch", "pin:0")] * 4,
    ("touch", "pin_ok"), ("wait", "referee"), ("touch", "r_correct"),
    ("wait", "referee.correct_pick"), ("shot", "correct-pick")]


@pytest.fixture(scope="module")
def display():
    with xvfb("800x1280x24") as name:
        yield name


@pytest.mark.parametrize("size", ["800x480", "720x1280"])
def test_each_hand_to_correct_is_named_whole(tmp_path, display, size):
    _, screens = play(tmp_path, display, SCRIPT, size=size)
    laid = screens["laid"]["referee.correct_pick"]
    assert any(text.startswith("第2副") and "85分" in text for text in laid), laid
    assert not [cut for cut in cut_words(screens) if cut[0] == "referee.correct_pick"]
