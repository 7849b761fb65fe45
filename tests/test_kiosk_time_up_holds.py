"""The time-up banner covers the clock, so it holds the move clock as a question over it does
(a referee at the real window, chaodipi: West's clock ran on under 时间到 / 打完本副，比赛结束,
and West's first press after 知道了 was recorded as an overrun, a warning that made the next
one cost points). Through the real controller, runner, session and journal on an injected
clock."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def overruns(table) -> list[dict]:
    return [e.data for e in table.session.journal.events() if e.kind == "time-overrun"]


@pytest.mark.parametrize("called_by", ["referee", "hall"])
def test_the_time_up_banner_holds_the_move_clock_and_gives_the_seat_its_time_back(table,
                                                                                  called_by):
    table.start()
    table.play_tricks(1)
    clock = table.state.clock
    table.press(clock.seat or clock.leader or table.state.draft.dealer)  # the next trick led
    seat = table.state.clock.seat
    assert seat is not None
    if called_by == "referee":
        table.tap("referee")
        table.pin()
        table.tap("r_time_up", "ok")
    else:  # the head referee calls time for the whole hall while the seat is thinking
        table.do(lambda s: s.follow_hall_stop())
    assert table.screen.name == "time_up"
    table.clock.advance(30)  # the banner stays up half a minute
    assert table.state.clock.seat == seat
    table.tap("time_up_ok")
    assert table.screen.name.startswith("clock")
    table.press(seat)  # within the seat's own time: no overrun for the banner's
    assert overruns(table) == []
    assert table.state.clock.seat != seat


def test_the_banner_holds_again_after_the_referees_menu_opened_over_it(table):
    table.start()
    table.play_tricks(1)
    clock = table.state.clock
    table.press(clock.seat or clock.leader or table.state.draft.dealer)
    seat = table.state.clock.seat
    table.do(lambda s: s.follow_hall_stop())
    assert table.screen.name == "time_up" and table.state.paused
    table.tap("referee")
    table.pin()
    table.tap("close")  # the menu's close ends its hold: the banner's takes over again
    assert table.screen.name == "time_up" and table.state.paused
    table.clock.advance(30)
    table.tap("time_up_ok")
    table.press(seat)
    assert overruns(table) == []
