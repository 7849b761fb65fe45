"""Body text in the real kiosk window under Xvfb breaks where the slip and the buttons do
(kiosk.words.textfmt.wrap), not where Kivy runs out of room: a number stays with its unit and
no character is left alone on the last line."""

from __future__ import annotations

from itertools import pairwise

import pytest

from .helpers import xvfb
from .window import play

pytestmark = pytest.mark.window

SCRIPT = [
    ("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
    ("touch", "dealer:N"), ("wait", "ready"), ("touch", "trump:♠"), ("touch", "start_bury"),
    ("wait", "clock.bury"), ("seat", "*"), ("wait", "clock.play"), ("touch", "end_play"),
    ("wait", "confirm"), ("shot", "end-play-question")]


@pytest.fixture(scope="module")
def display():
    with xvfb("800x1280x24") as name:
        yield name


def test_the_end_of_play_question_keeps_25_tricks_together_and_no_character_alone(
        tmp_path, display):
    """In portrait it read 「…共 25⏎轮。结束后…裁判可以撤⏎销。」."""
    _, screens = play(tmp_path, display, SCRIPT, size="720x1280")
    question = next(lines for text, lines in screens["laid"]["confirm"].items()
                    if text.startswith("现在是第 1 轮"))
    assert len(question) > 1, question  # (it does wrap at this width)
    assert not any(a.rstrip().endswith("25") and b.startswith("轮")
                   for a, b in pairwise(question)), question
    assert len(question[-1].strip().rstrip("。）")) > 1, question
