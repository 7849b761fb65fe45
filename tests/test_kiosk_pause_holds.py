"""A paused table decides nothing until the referee resumes it (audit of the kiosk, finding 7):
the sides cannot confirm a hand under the pause, so the next hand cannot begin under it, and
the referee menu's close button says what it does. Through the real controller, runner,
session and journal on an injected clock, with a power cut on the result screen."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def cut_on_the_result(table) -> None:
    table.start()
    table.play_out()
    table.enter(40)
    assert table.state.phase == "result"
    table.restart()  # the power goes on the result screen: the table comes back paused
    assert table.state.paused and table.screen.name == "paused"


def test_the_sides_cannot_confirm_while_the_table_is_paused(table):
    cut_on_the_result(table)
    table.press("N", "E")  # both sides press their buttons under the pause
    assert table.state.phase == "result" and not table.state.draft.confirmed
    assert table.screen.notice.text == "计时已暂停：请裁判继续"
    assert table.screen.name == "paused"  # no next hand under 已暂停
    table.tap("resume")
    table.pin()
    assert not table.state.paused and table.screen.name == "result"
    table.press("N", "E")
    assert table.state.phase == "ready" and not table.state.paused


def test_the_menus_close_button_does_not_promise_to_continue_a_paused_match(table):
    cut_on_the_result(table)
    table.tap("referee")
    table.pin()
    screen = table.screen
    assert screen.name == "referee"
    assert [b.label for b in screen.nav] == ["关闭"]
    assert "继续计时" in [b.label for g in screen.grids for b in g.buttons]
    table.tap("close")
    assert table.state.paused and table.screen.name == "paused"  # closing resumed nothing
    table.tap("referee")
    table.pin()
    table.tap("r_resume")
    assert not table.state.paused


def test_during_play_closing_the_menu_does_continue_the_match(table):
    table.start()
    table.tap("referee")
    table.pin()
    assert table.state.paused  # the menu holds the move clock
    assert [b.label for b in table.screen.nav] == ["关闭，继续比赛"]
    table.tap("close")
    assert not table.state.paused and table.screen.name.startswith("clock")
