"""The referee calls time (audit of the kiosk, finding 13): the question says who wins now,
the match's result follows the tap (not the referee's menu), 新比赛 does not ask the PIN just
given again, nothing offers to continue a match that is over, and the strip says time up
alone. Through the real controller, runner, session and journal on an injected clock."""

from __future__ import annotations

import pytest

from kiosk.i18n import translator
from kiosk.ui.presenter import time_up_now

pytestmark = pytest.mark.unit


def one_hand_to_ns(table) -> None:
    """xiamen, N deals and the defenders take nothing: 南北 up to 7 : 2."""
    table.start()
    table.play_out()
    table.enter(0)
    table.press("N", "E")  # both sides confirm
    assert table.state.phase == "ready" and table.screen.name == "ready"
    assert table.runner.view.levels == ("7", "2")


def test_the_time_up_question_says_who_wins_now_and_the_result_follows(table):
    one_hand_to_ns(table)
    table.tap("referee")
    table.pin()
    table.tap("r_time_up")
    screen = table.screen
    assert (screen.name, screen.title) == ("confirm", "宣布时间到？")
    assert screen.lines == ("南北打7，东西打2：南北获胜，比赛结束。",)
    assert table.state.time_up is None  # nothing happened yet
    table.tap("ok")
    screen = table.screen
    assert table.state.phase == "over"
    assert screen.name == "over"  # the match's result, not the referee's menu
    assert "胜方：南北（时间到）" in screen.lines
    assert ("比赛时间", "时间到") in [(p.caption, p.value) for p in screen.strip]
    assert not any(p.value[:1].isdigit() and p.caption == "时间到" for p in screen.strip)
    # the referee who just gave the PIN starts the next match without giving it again
    table.tap("new_match")
    assert table.screen.name == "setup"


def test_the_pin_given_for_a_new_match_holds_no_further_than_its_setup(table):
    """A referee's review: after 新比赛 and its PIN, a penalty entered in the new match's
    first hand was struck out with no PIN pad (the menu's 2 minutes still ran), and the
    referee's PIN taps landed on the menu opened at once. The match set up, the menu locks."""
    one_hand_to_ns(table)
    table.tap("referee")
    table.pin()
    table.tap("r_time_up", "ok", "new_match")
    table.start()  # (within the minute the PIN was given)
    table.tap("end_play", "ok", "e_points:40", "e_last:dealer")
    table.penalize("look-back", "W")
    table.tap(next(r.button.action for r in table.screen.rows))
    assert table.screen.name == "referee.pin"
    table.pin()
    assert table.screen.name == "entry.penalties" and table.screen.rows == ()


def test_once_the_match_is_over_the_referee_menu_offers_no_continue(table):
    one_hand_to_ns(table)
    table.tap("referee")
    table.pin()
    table.tap("r_time_up", "ok", "referee")
    screen = table.screen
    assert screen.name == "referee"
    assert [b.label for b in screen.nav] == ["关闭"]  # not 「关闭，继续比赛」
    table.tap("close")
    assert table.screen.name == "over"


def test_time_up_with_a_hand_in_play_says_that_hand_will_not_count_before_and_after(table):
    """xiamen, 南北 7 : 2 and hand 2 being played: time up decides the match at once, and hand 2
    is never finished. The question said only 「南北获胜，比赛结束」, and the slip the players
    sign listed hand 1 with no word of the hand they were playing (a review of the records)."""
    one_hand_to_ns(table)
    table.start()  # hand 2 in play
    table.tap("referee")
    table.pin()
    table.tap("r_time_up")
    assert table.screen.lines == ("南北打7，东西打2：南北获胜，比赛结束。"
                                  "第2副不再打完，不计成绩。",)
    table.tap("ok")
    assert table.state.phase == "over" and table.state.dropped_at_time_up() == 2
    # (the banner a hall's or the clock's time up shows says it too)
    assert time_up_now(table.runner.view, translator("zh-Hans")) == \
        "比赛结束：南北获胜（第2副未打完，不计）"
    slip = table.runner.slips["zh-Hans"]  # (the slip shown and printed at the match's end)
    assert "时间到时第2副未打完，不计" in slip
    assert slip.index("胜方：南北（时间到）") < slip.index("时间到时第2副未打完")


def test_time_up_between_hands_drops_nothing(table):
    one_hand_to_ns(table)  # hand 1 confirmed, hand 2 not yet dealt
    table.tap("referee")
    table.pin()
    table.tap("r_time_up")
    assert "不计" not in table.screen.lines[0]
    table.tap("ok")
    assert table.state.dropped_at_time_up() is None
    assert "未打完" not in table.runner.slips["zh-Hans"]


def test_a_tied_match_in_play_is_said_to_finish_the_hand(table):
    table.start()  # 2 : 2, hand 1 in play: the hand is finished first
    table.tap("referee")
    table.pin()
    table.tap("r_time_up")
    assert table.screen.lines == ("南北打2，东西打2：先打完本副，然后级数领先的一方获胜"
                                  "（级数仍相同，本副胜方获胜），比赛结束。",)
    table.tap("ok")
    assert table.state.phase == "play" and table.screen.name == "time_up"  # the banner
    assert (table.screen.title, table.screen.lines) == ("本桌裁判宣布时间到",
                                                        ("打完本副，比赛结束",))
    table.tap("time_up_ok")
    table.play_out()
    table.enter(80)  # 东西 take over, no level moves: still 2 : 2, 东西 won the last hand
    table.press("N", "E")
    assert table.state.phase == "over"
    assert "胜方：东西（时间到，级数相同，赢了最后一副）" in table.screen.lines


def test_a_win_on_equal_levels_says_what_broke_the_tie(table):
    """A time-up win on equal levels read 「南北打7，东西打7：南北获胜」, and the result and
    the slip 「胜方：南北（时间到）」: nothing said why (a referee's review). xiamen between
    hands: the team that reached the level first wins, and every screen and the slip say so."""
    table.start()
    for points in (0, 80, 0):  # 南北 7 : 2, 东西 take over, 东西 up to 7 : 7
        if table.state.phase == "ready":
            table.tap("trump:♠", "start_bury")
            table.press(table.state.clock.seat)
        table.play_out()
        table.enter(points)
        table.press("N", "E")
    assert table.runner.view.levels == ("7", "7")
    table.tap("referee")
    table.pin()
    table.tap("r_time_up")
    assert table.screen.lines == ("南北打7，东西打7，级数相同：南北先打到7，获胜，比赛结束。",)
    table.tap("ok")
    assert "胜方：南北（时间到，同打7，先打到7）" in table.screen.lines
    slip = table.runner.slips["zh-Hans"].replace("\n", "")  # (wrapped at the paper's width)
    assert "胜方：南北（时间到，同打7，先打到7）" in slip


def test_a_new_matchs_setup_shows_nothing_of_the_match_that_ended(table):
    """新比赛's setup showed the strip of the match over (「第1轮  南北 : 东西 7 : 2  比赛时间
    时间到」): it says what a table's first setup says, and the result keeps its own."""
    first = table.screen.status  # the table's first setup
    one_hand_to_ns(table)
    table.tap("referee")
    table.pin()
    table.tap("r_time_up", "ok", "new_match")
    screen = table.screen
    assert screen.name == "setup"
    assert screen.status == first == "1号桌"
    table.tap("name:NS")  # a team's name typed for the new match
    assert table.screen.status == first
    table.tap("key_done", "cancel_new")  # back to the match's result, and to its strip
    assert "7 : 2" in table.screen.status and "时间到" in table.screen.status
