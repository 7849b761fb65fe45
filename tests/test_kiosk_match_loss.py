"""A penalty that loses the match (a ruleset's 判负) is the referee's: it asks the PIN and
says what it does before it is recorded, as the referee menu's forfeit does (a referee's
review, 2026-12-06: 判负 was recorded at one tap by anyone at the table); a penalty the
rules refuse says why in the referee's words. Through the real controller, presenter, runner
and session."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def at_the_penalties(table) -> None:
    table.start("chaodipi-2011")
    table.play_out()
    table.tap("end_play")
    if table.screen.name == "confirm":
        table.tap("ok")
    table.tap("e_points:60", "e_last:dealer")
    assert table.screen.name == "entry.penalties"


def option(table, label: str) -> str:
    return next(b.action for g in table.screen.grids for b in g.buttons if b.label == label)


def test_a_match_loss_asks_the_pin_then_says_what_it_does(table):
    at_the_penalties(table)
    table.tap("e_add", "e_pseat:S", "e_pkind:signalling")
    table.tap(option(table, "判负"))
    pad = table.screen  # the offence named before the PIN (「判负」 alone, a referee's review)
    assert (pad.name, pad.title, pad.lines[0]) == ("referee.pin", "裁判密码：判负", "南 暗示、干扰")
    assert not table.state.draft.penalties  # nothing recorded yet
    table.pin()
    question = table.screen
    assert (question.name, question.title) == ("confirm", "南北判负？")
    assert question.lines == (
        "记录罚则「南 暗示、干扰」：双方确认本副结果后，比赛结束，南北判负。",)
    assert not table.state.draft.penalties
    table.tap("ok")
    assert [r.text for r in table.screen.rows] == ["南 暗示、干扰：判负"]
    assert not table.runner.view.referee_open  # the menu locked again
    table.tap("e_finish")
    assert "东西赢得比赛" in table.screen.lines
    assert "南北判负：南北打2，东西打2" in table.screen.lines  # (it said 「判负：南北…」)


def test_a_match_loss_without_the_pin_or_declined_records_nothing(table):
    at_the_penalties(table)
    table.tap("e_add", "e_pseat:E", "e_pkind:late")  # 迟到10分钟: 判负, no other way
    assert table.screen.name == "referee.pin"
    table.tap("close")  # back to the offences, nothing recorded
    assert table.screen.name == "entry.penalty_kind" and not table.state.draft.penalties
    table.tap("e_pkind:late")
    table.pin()
    assert table.screen.title == "东西判负？"
    table.tap("cancel")  # back where the referee was, not in the referee's menu
    assert table.screen.name == "entry.penalty_kind" and not table.state.draft.penalties
    assert not table.runner.view.referee_open


def test_other_penalties_need_no_pin(table):
    at_the_penalties(table)
    table.tap("e_add", "e_pseat:S", "e_pkind:signalling")
    table.tap(option(table, "警告"))
    assert table.screen.name == "entry.penalties"
    assert [r.text for r in table.screen.rows] == ["南 暗示、干扰：警告"]


def test_a_refused_penalty_says_the_problem_not_where_it_sits_in_the_hand(table):
    """「第2条违例的违例代码：“同伴不报错”只能…」: the table is entering that very penalty;
    the words of where it sits in the hand (a replay file's) said nothing to the referee."""
    at_the_penalties(table)
    table.tap("e_add", "e_pseat:E", "e_pkind:partner-silent")
    assert table.screen.notice.text == "请先记本方（东、西）本副出错牌的罚分，再记“同伴不报错”"
