"""What the table says of its link to the scorer (a referee's review, Medium 5): the clock's
strip has room only for seats and time, so a table could play a whole hand cut off from the
hall with nothing on its screen to say so, and elsewhere 「记分台：15:55 起断开」 stood small and
grey. The clock's notice band now says it while nothing else is said there, and the strip says
it in the alert colour. Through the real runner, controller and presenter."""

from __future__ import annotations

import time

import pytest

from kiosk.hw.runner import LinkUpdate
from kiosk.sync.outbox import LinkState

pytestmark = pytest.mark.unit

LOST_AT = time.mktime((2026, 12, 7, 15, 55, 0, 0, 0, -1))


def link(table, **state) -> None:
    table.runner.door.put(LinkUpdate(LinkState(**state)))
    table.runner.step()


def test_the_clock_says_the_link_is_lost_while_nothing_else_is_said(table):
    table.start()
    link(table, status="in-sync")
    screen = table.screen
    assert screen.screen == "clock" and screen.notice.text == ""  # in sync: nothing to say
    link(table, status="offline", offline_since=LOST_AT)
    screen = table.screen
    assert (screen.notice.text, screen.notice.level) == (
        "记分台 15:55 起连不上：照常比赛，记录存在本机，连上后自动补传", "link")
    table.clock.advance(0.5)
    table.press(table.state.clock.seat)  # a press goes on as ever
    table.clock.advance(9)  # past its time: the overrun's notice takes the band, then gives it back
    table.press(table.state.clock.seat)
    assert table.screen.notice.text.startswith(("东家超时", "南家超时", "西家超时", "北家超时"))
    table.clock.advance(7)
    assert table.screen.notice.level == "link"
    link(table, status="refused", error_key="sync.stale")
    assert table.screen.notice.text == "记分台拒收本桌记录：照常比赛，请告知技术人员"
    link(table, status="behind", behind=12)  # a burst on its way: nothing to worry anyone
    assert table.screen.notice.text == ""


def test_a_first_boot_waiting_to_pair_plays_on_without_alarm(table):
    table.start()
    link(table, status="offline", offline_since=LOST_AT, pairing=True)
    assert table.screen.notice.text == ""


def test_off_the_clock_the_strip_says_the_link_lost_in_the_alert_colour(table):
    table.start()
    link(table, status="offline", offline_since=LOST_AT)
    table.tap("history")
    part = table.screen.strip[-1]
    assert (part.caption, part.value, part.tone) == ("记分台：", "15:55 起断开", "alert")
    assert table.screen.notice.text == ""  # (the strip says it here)
    link(table, status="in-sync")
    assert (table.screen.strip[-1].value, table.screen.strip[-1].tone) == ("已同步", "")
