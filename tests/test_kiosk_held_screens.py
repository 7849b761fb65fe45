"""Screens that cover the clock hold the move clock (audit of the kiosk, finding 3): the
question of the end of play and the history, through the real controller, runner, session
and journal on an injected clock. The seat goes on with the time it had left."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def overruns(table) -> list[tuple[str, float]]:
    return [(e.data["seat"], round(e.data["over"], 1)) for e in table.session.journal.events()
            if e.kind == "time-overrun"]


def test_the_end_of_play_question_holds_the_move_and_cancel_gives_the_time_back(table):
    table.start()  # xiamen, 5 s a move: N leads trick 1
    table.clock.advance(2)
    table.tap("end_play")
    assert table.screen.name == "confirm"
    assert table.state.paused
    table.clock.advance(30)  # the referee reads the question, and thinks better of it
    table.tap("cancel")
    assert table.screen.screen == "clock" and not table.state.paused
    assert table.session.move_time_left() == pytest.approx(3)
    assert table.screen.clock == "3"
    table.clock.advance(2.5)
    table.press("N")
    assert overruns(table) == [] and not table.state.draft.penalties


def test_the_history_holds_the_move_while_it_covers_the_clock(table):
    table.start()
    table.clock.advance(1)
    table.tap("history")
    assert table.screen.name.startswith("history")
    table.clock.advance(60)
    assert table.session.move_time_left() == pytest.approx(4)
    table.tap("history")  # closed
    assert table.screen.screen == "clock"
    assert table.session.move_time_left() == pytest.approx(4)
    table.clock.advance(3)
    table.press("N")
    assert overruns(table) == []


def test_ending_the_play_from_the_question_records_no_overrun(table):
    table.start()
    table.play_tricks(1)
    table.clock.advance(3)  # W has won the trick; the referee ends the play
    table.tap("end_play")
    table.clock.advance(20)
    table.tap("ok")
    assert table.state.phase == "entry"
    assert overruns(table) == []
    kinds = [e.kind for e in table.session.journal.events()][-3:]
    assert kinds == ["pause", "resume", "play-end"]


def test_an_overrun_before_the_question_goes_on_counting_after_it(table):
    table.start()
    table.clock.advance(6)  # N is 1 s over when the referee taps 出牌结束…
    table.tap("end_play")
    table.clock.advance(10)
    table.tap("cancel")
    assert overruns(table) == []  # nothing is charged for the question itself
    assert table.session.move_time_left() == pytest.approx(-1)
    table.clock.advance(1)
    table.press("N")
    assert overruns(table) == [("N", 2.0)]  # the seat's own time, not the referee's


def test_a_seat_over_its_time_when_the_play_is_ended_is_charged_and_told_first(table):
    """Issue 31, finding 2: 出牌结束… while the seat to play is already over its time. The
    question says the overrun will be recorded; the end records it (the summary no longer
    says 本副没有罚则), and undoing the end takes it back with it."""
    table.start()
    table.clock.advance(8)  # N leads, 3 s over xiamen's 5 s
    table.tap("end_play")
    assert "北 已超时 3.0 秒，结束出牌时记一次超时" in table.screen.lines
    table.clock.advance(20)  # the referee reads the question: not the seat's time
    table.tap("ok")
    assert table.state.phase == "entry" and overruns(table) == [("N", 3.0)]
    assert [p["code"] for p in table.state.draft.penalties.values()] == ["time-overrun"]
    assert "北家超时 3.0 秒" in table.screen.notice.text
    table.tap("e_back_to_play")  # the end undone: the overrun goes with it
    assert table.state.phase == "play" and not table.state.draft.penalties


def test_a_lead_over_its_time_when_the_play_is_ended_asks_who_was_to_lead(table):
    """The lead's time runs for whoever wins the trick, so the kiosk does not know whose it
    is: the referee is asked (or says nobody is charged)."""
    table.start()
    table.play_tricks(1)  # W played last; the lead's time starts once the trick is gathered
    table.clock.advance(2 + 5 + 4)  # gathered, then 4 s over the lead's 5 s
    table.tap("end_play")
    assert "第 2 轮领出已超时 4.0 秒：接着请选领出的一家" in table.screen.lines
    table.tap("ok")
    screen = table.screen
    assert screen.name == "end_play.leader" and table.state.paused  # the clock still held
    assert {b.action for g in screen.grids for b in g.buttons if b.action} == {
        "end_play_by:N", "end_play_by:E", "end_play_by:S", "end_play_by:W"}
    # its bottom bar in the hand's fixed slots: 记录 where a referee's hand finds it on every
    # screen of the hand (it sat a slot to the left, where 裁判 usually is)
    assert [b.action for b in screen.nav] == ["end_play_back", "", "end_play_by:", "history",
                                              "referee", "language"]
    table.clock.advance(30)
    table.tap("end_play_by:E")
    assert table.state.phase == "entry" and overruns(table) == [("E", 4.0)]


def test_the_referee_may_charge_nobody_for_a_lead_or_go_back(table):
    table.start()
    table.play_tricks(1)
    table.clock.advance(12)
    table.tap("end_play", "ok", "end_play_back")
    assert table.screen.screen == "clock" and not table.state.paused
    table.tap("end_play", "ok", "end_play_by:")
    assert table.state.phase == "entry" and overruns(table) == []


def test_the_halls_pause_while_a_screen_holds_the_clock_outlasts_the_screen(table):
    table.start()
    table.tap("history")
    table.do(lambda s: s.follow_hall(True))  # the head referee pauses the hall meanwhile
    table.tap("history")
    assert table.state.paused and table.state.pause_reason == "hall"
    assert table.screen.name == "paused"
    table.do(lambda s: s.follow_hall(False))
    assert not table.state.paused


# -- a pause restored between hands (audit finding 7) -----------------------------------------


def test_a_pause_restored_on_the_result_screen_shows_its_banner_and_resume(table):
    table.start()
    table.play_tricks(1)
    table.enter(40)
    assert table.screen.name.startswith("result")
    table.clock.advance(20)
    table.restart()  # the power goes on the result screen; the match clock was running
    assert table.state.paused and table.state.phase == "result"
    screen = table.screen
    assert screen.name == "paused"
    assert (screen.nav[0].action, screen.nav[0].label) == ("resume", "继续（裁判密码）")
    assert screen.big == "暂停" and screen.title == "本机重新启动后暂停"
    table.tap("resume")
    table.pin()
    assert not table.state.paused and table.screen.name.startswith("result")


def test_a_pause_restored_before_the_bury_resumes_from_its_banner(table):
    table.start()
    table.play_tricks(1)
    table.enter(40)
    table.press("N", "E")  # both sides confirm: the next hand waits for its bury
    assert table.state.phase == "ready"
    table.restart()
    assert table.screen.name == "paused"
    table.tap("resume")
    table.pin()
    table.tap("trump:♠", "start_bury")
    assert table.state.phase == "bury"


def test_a_live_pause_between_hands_shows_the_same_banner(table):
    table.start()
    table.play_tricks(1)
    table.enter(40)
    table.do(lambda s: s.pause_key())  # the referee's own key, on the result screen
    assert table.screen.name == "paused"
    table.do(lambda s: s.pause_key())
    assert table.screen.name.startswith("result")


def test_no_screen_anyone_can_open_stops_the_match_clock_only_the_referees_menu(table):
    """A referee's review: during play 记录, or the PIN pad with no PIN typed, stood the
    match clock still, for as long as a side kept it open; they hold the move alone. The
    referee's menu, once unlocked, holds the match too: the table waits on the referee."""
    table.start()
    left = table.session.match_time_left()
    table.clock.advance(1)
    table.tap("history")
    table.clock.advance(20)
    assert table.session.match_time_left() == pytest.approx(left - 21)
    assert table.session.move_time_left() == pytest.approx(4)  # the seat's time is held
    table.tap("history")  # closed
    table.tap("referee")  # the PIN pad: nobody has given the PIN yet
    table.clock.advance(10)
    assert table.session.match_time_left() == pytest.approx(left - 31)
    table.pin()
    table.clock.advance(60)  # the referee at the table, the menu open
    assert table.session.match_time_left() == pytest.approx(left - 31)
    table.tap("close")
    table.clock.advance(1)
    assert table.session.match_time_left() == pytest.approx(left - 32)
    assert not table.state.paused and table.state.match_clock.running


def test_a_restart_under_a_screen_stops_the_match_clock_it_let_run(table):
    table.start()
    table.tap("history")
    table.clock.advance(20)
    table.restart()  # the power goes while the history is open
    state = table.state
    assert (state.paused, state.pause_reason) == (True, "restart")
    assert not state.match_clock.running  # (standing, for the referee to resume)
    left = table.session.match_time_left()
    table.clock.advance(30)
    assert table.session.match_time_left() == pytest.approx(left)


def test_a_journal_from_before_folds_its_screens_holds_as_it_was_played(table):
    """Journals written before screens let the match clock run held it under them: theirs
    say nothing of it, and fold as they were played."""
    from kiosk.table.kinds import EventKind, PauseReason

    table.start()
    table.session._record("referee", (EventKind.PAUSE, {"reason": PauseReason.HOLD}))
    left = table.session.match_time_left()
    table.clock.advance(30)
    assert table.session.match_time_left() == pytest.approx(left)
    table.session.release_referee_hold(keep_time=True)
    table.clock.advance(1)
    assert table.session.match_time_left() == pytest.approx(left - 1)
