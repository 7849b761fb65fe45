"""The fry step and the trump before the bury, in the real kiosk window under Xvfb (audit of
the kiosk, findings 5 and 6): what the referee sees and taps, at the 800×480 display."""

from __future__ import annotations

import pytest

from kiosk.table.session import TableSession

from .helpers import xvfb
from .window import cut_words, play

pytestmark = pytest.mark.window


@pytest.fixture(scope="module")
def display():
    with xvfb("800x480x24") as name:
        yield name


def test_after_each_bury_one_step_asks_who_fries_and_a_frier_sets_the_trump(
        tmp_path, display, rulesets):
    script = [("wait", "setup"), ("touch", "setup:chaodipi-2011"), ("wait", "ready.dealer"),
              ("touch", "dealer:N"), ("wait", "ready"), ("touch", "trump:♣"),
              ("touch", "start_bury"), ("wait", "clock.bury"), ("seat", "N"),
              ("wait", "fry"), ("shot", "fry"), ("touch", "fry:E"), ("wait", "fry.trump"),
              ("shot", "fry-trump"), ("touch", "fry_trump:♥"), ("wait", "clock.bury"),
              ("shot", "rebury"), ("seat", "E"), ("wait", "fry"), ("touch", "no_fry"),
              ("wait", "clock.play"), ("shot", "play")]
    _, screens = play(tmp_path, display, script)
    texts = screens["texts"]
    assert "北 扣底完毕：谁炒底？" in texts["fry"] and "无人炒底" in texts["fry"]
    assert {"东", "南", "西"} <= set(texts["fry"])  # the seats that may fry, nobody's clock
    assert "东炒底：新的主是？" in texts["fry.trump"]
    assert "东 扣底" in texts["clock.bury"]
    assert "♥" in texts["clock.play"] and "♣" not in texts["clock.play"]  # the strip's trump
    # the play screen's bar has no fry buttons left, only undo saying what it takes back
    assert [t for t in texts["clock.play"] if "炒底" in t] == ["撤销无人炒底"]
    assert "撤销扣底完毕" in texts["fry"] and cut_words(screens) == []  # whole, on one line
    session = TableSession.open(tmp_path / "data", 1, rulesets)
    try:
        assert session.state.draft.trump == {"suit": "♥", "seat": "E"}
        assert session.state.draft.buriers == ["N", "E"]
    finally:
        session.close()


def test_the_bury_does_not_start_without_a_trump(tmp_path, display, rulesets):
    script = [("wait", "setup"), ("touch", "setup:xiamen-2015"), ("wait", "ready.dealer"),
              ("touch", "dealer:N"), ("wait", "ready"), ("touch", "start_bury"),
              ("wait_notice", "on"), ("shot", "no-trump")]
    _, screens = play(tmp_path, display, script)
    assert "请先选主，再开始扣底" in screens["texts"]["ready"]
    session = TableSession.open(tmp_path / "data", 1, rulesets)
    try:
        assert session.state.phase == "ready"
    finally:
        session.close()
