"""The referee's correction says which hand is which and what it takes away (testers at a
referee's pace: the chooser showed bare 「第1副」「第2副」, and a penalty deleted in the correction
was not in its summary), through the real controller, presenter, runner and session."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def correct_two_hands(table):
    table.start()
    table.tap("end_play", "ok", "e_points:30", "e_last:defenders", "e_kitty:15",
              "e_shape:pair", "e_add", "e_pseat:E", "e_pkind:look-back", "e_finish")
    table.press("N", "E")
    table.tap("trump:♠", "start_bury")
    table.press(table.state.clock.seat)
    table.enter(85)
    table.press("N", "E")
    table.tap("referee")
    table.pin()
    table.tap("r_correct")


def test_the_correction_chooser_names_each_hands_dealer_and_points(table):
    correct_two_hands(table)
    screen = table.screen
    assert screen.name == "referee.correct_pick"
    labels = [b.label for g in screen.grids for b in g.buttons]
    dealers = [h["dealer"] for h in table.session.export()["hands"]]
    seat = {"N": "北", "E": "东", "S": "南", "W": "西"}
    assert labels == [f"第1副\n{seat[dealers[0]]}庄 30分", f"第2副\n{seat[dealers[1]]}庄 85分"]


def test_a_penalty_deleted_in_a_correction_is_in_its_summary(table):
    correct_two_hands(table)
    table.tap("r_correct:1", "e_points:30", "e_last:defenders", "e_kitty:15", "e_shape:pair")
    assert len(table.screen.rows) == 1
    table.tap(table.screen.rows[0].button.action)  # its delete
    assert not table.screen.rows
    table.tap("e_finish", "e_summary")
    screen = table.screen
    assert screen.name == "correct.summary"
    assert "删除：东 翻看上一轮的牌：罚10分（从旁家得分中扣除）" in screen.lines, screen.lines
