"""The table's clocks across the referee's own actions and a power cut (audit of the kiosk,
findings 1 and 2): the real session and journal on a real SQLite file, on injected clocks.
A power cut is the journal closed with no orderly shutdown and a new clock whose monotonic
time starts again, as after a reboot, while the wall clock has moved on."""

from __future__ import annotations

import pytest

from kiosk.rules import replay
from kiosk.table.clock import ManualClock
from kiosk.table.journal import Journal, table_path
from kiosk.table.session import SessionConfig, TableSession
from kiosk.table.state import MatchState
from kiosk.table.view import snapshot
from kiosk.ui.presenter import present

pytestmark = pytest.mark.unit

PIN = "1357"
TEAMS = {"NS": "甲队", "EW": "乙队"}
PLAYERS = {"N": "N1", "E": "E1", "S": "S1", "W": "W1"}


def open_table(path, rulesets, clock, paired=False, **setup):
    """The table's session; a new match is set up at the table, or `paired`: by the hall's
    scorer, whose round the head referee has started."""
    session = TableSession.open(path, 1, rulesets, clock, SessionConfig(pin=PIN))
    if session.state.phase == "setup":
        if paired:
            setup = {"event": "Open", "start_at": clock.wall(), **setup}
        session.setup_match(**{"event": "", "round": "1", "teams": TEAMS, "players": PLAYERS,
                               "ruleset": "xiamen-2015", **setup})
        if paired:
            session.start_match_clock("scorer")
    return session


def power_cut(session, clock, off: float) -> ManualClock:
    """The kiosk dies now and boots `off` seconds of wall time later: a new monotonic clock."""
    session.journal.close()
    return ManualClock(start=7.0, wall=clock.wall() + off)


def fold(path, rulesets) -> MatchState:
    """The match as any reader of the journal folds it (the scorer, `kiosk table export`)."""
    journal = Journal.reader(table_path(path, 1))
    state = MatchState(rulesets)
    for event in journal.events(journal.matches()[-1]):
        state.apply(event)
    journal.close()
    return state


def first_trick(session, clock):
    """xiamen (5 s a play, clockwise): N deals, buries and leads trick 1, a second a play."""
    session.grab_dealer("N")
    session.declare_trump("♠", "N")
    session.start_bury()
    session.press("N")
    for seat in "NESW":
        clock.advance(1)
        session.press(seat)


def to_result(session, clock, points=45):
    """Deal, bury, play one trick, end the play, enter the points: the result screen."""
    first_trick(session, clock)
    session.end_play()
    session.enter_points(points)
    session.finish_entries()


# -- 1. a paired match's clock is the hall's time: it runs while the power is off -----------


def test_a_power_cut_on_the_result_screen_does_not_give_the_match_time_back(tmp_path,
                                                                               rulesets):
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock, paired=True)
    to_result(s, clock)
    left_at_result = s.match_time_left()
    clock.advance(60)  # nobody touches the table for a minute: nothing is journaled
    assert s.match_time_left() == pytest.approx(left_at_result - 60)
    clock = power_cut(s, clock, off=5)  # kill -9, and 5 s to boot
    s = open_table(tmp_path, rulesets, clock, paired=True)
    assert s.state.paused and s.state.pause_reason == "restart"
    assert s.match_time_left() == pytest.approx(left_at_result - 65)
    banner = present(snapshot(s), clock.now(), "zh-Hans")  # what the table reads meanwhile
    assert banner.title == "本机重新启动后暂停"
    assert banner.lines[-1] == "比赛时间随全场照常进行：请尽快请裁判来继续。"
    assert not any("比赛时间已停止" in line or "都已停止" in line for line in banner.lines)
    pause = list(s.journal.events())[-1]
    assert (pause.kind, pause.data["off_seconds"]) == ("pause", pytest.approx(65))
    # a fold of the journal reaches the same match time, and so does a second restart
    folded = fold(tmp_path, rulesets)
    assert folded.match_clock.limit - folded.match_clock.elapsed == pytest.approx(
        left_at_result - 65)
    # The table waits for its referee: the hall's time runs on (a referee's review: a table
    # restarted mid-round stood still until the referee came, and kept the minutes it gained)
    clock.advance(20)
    assert s.state.paused and s.match_time_left() == pytest.approx(left_at_result - 85)
    clock = power_cut(s, clock, off=30)  # down again before the referee came
    s = open_table(tmp_path, rulesets, clock, paired=True)
    assert s.match_time_left() == pytest.approx(left_at_result - 115)
    assert fold(tmp_path, rulesets).match_clock.elapsed == pytest.approx(
        s.state.match_clock.elapsed_at(clock.now()))
    s.unlock(PIN)
    s.resume()
    clock.advance(10)
    assert s.match_time_left() == pytest.approx(left_at_result - 125)


def test_a_power_cut_during_a_pause_counts_nothing(tmp_path, rulesets):
    """Paused by the referee (or by the hall) when the power went: the match clock stood."""
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock, paired=True)
    to_result(s, clock)
    s.unlock(PIN)
    s.pause()
    left = s.match_time_left()
    clock.advance(40)
    clock = power_cut(s, clock, off=100)
    s = open_table(tmp_path, rulesets, clock, paired=True)
    assert s.match_time_left() == pytest.approx(left)
    assert s.state.pause_reason == "referee"


def test_a_kiosk_down_when_the_hall_paused_stops_its_match_time_at_the_halls_pause(tmp_path,
                                                                                    rulesets):
    """Down with its clocks running, back while the hall is paused: the restart's pause lets
    the hall's time run from the boot, and the first poll's hall pause stops it at the hall's
    moment (`late`), not at the poll: the minutes the hall stood still are not charged."""
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock, paired=True)
    first_trick(s, clock)
    left = s.match_time_left()
    clock = power_cut(s, clock, off=30)  # the hall pauses 10 s into those 30
    s = open_table(tmp_path, rulesets, clock, paired=True)
    clock.advance(3)  # the first poll
    assert s.follow_hall(True, since=clock.now() - 23)
    assert s.match_time_left() == pytest.approx(left - 10)
    assert fold(tmp_path, rulesets).match_clock.elapsed == pytest.approx(
        s.state.match_clock.elapsed_at(clock.now()))


def test_a_wall_clock_behind_the_journal_counts_no_negative_time(tmp_path, rulesets):
    """A kiosk that boots with its wall clock set back (no time source yet) counts nothing,
    and never gains time."""
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock, paired=True)
    to_result(s, clock)
    left = s.match_time_left()
    clock = power_cut(s, clock, off=-3600)
    s = open_table(tmp_path, rulesets, clock, paired=True)
    assert s.match_time_left() == pytest.approx(left)
    assert list(s.journal.events())[-1].data["off_seconds"] == 0


def test_time_that_ran_out_while_the_power_was_off_is_time_up_on_resume(tmp_path, rulesets):
    """xiamen: time up between hands decides at once; the export replays to the same end."""
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock, paired=True, match_minutes=10)
    to_result(s, clock, points=45)
    s.confirm("N")
    s.confirm("E")  # NS hold and go up: NS ahead on levels
    clock.advance(120)
    clock = power_cut(s, clock, off=9 * 60)  # the hall's 10 minutes ran out meanwhile
    s = open_table(tmp_path, rulesets, clock, paired=True)
    assert s.match_time_left() <= 0 and s.state.time_up is None  # paused: the referee resumes
    s.unlock(PIN)
    s.resume()
    s.tick()
    assert s.state.phase == "over" and s.state.winner() == "NS"
    record = s.export()
    assert record["end"] == {"time_up": "between-hands"}
    assert list(replay(record, rulesets))[-1]["winner"] == "NS"


def test_a_table_of_its_own_is_not_charged_the_time_its_kiosk_was_down(tmp_path, rulesets):
    """Set up at the table, the match clock is the table's own: the 7.5 s the kiosk took to
    come back after a SIGKILL are not match time (issue 31); it is still said in the pause."""
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock)
    to_result(s, clock)
    left = s.match_time_left()
    clock = power_cut(s, clock, off=7.5)
    s = open_table(tmp_path, rulesets, clock)
    assert s.state.paused and s.match_time_left() == pytest.approx(left)
    assert list(s.journal.events())[-1].data["off_seconds"] == pytest.approx(7.5)
    assert fold(tmp_path, rulesets).match_clock.elapsed == pytest.approx(
        s.state.match_clock.elapsed)


# -- 2. an undone press costs the player nothing ----------------------------------------------


def to_trick_two(session, clock):
    """xiamen (5 s a play, clockwise), N deals and leads trick 1; W's lead of trick 2 is
    played, so N is to move."""
    first_trick(session, clock)
    clock.advance(3)  # past the gather grace
    session.press("W")


@pytest.mark.parametrize("referee_takes", [2.0, 5.0, 9.0])
def test_an_undone_press_gives_the_seat_a_fresh_move_from_the_undo(tmp_path, rulesets,
                                                                  referee_takes):
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock)
    to_trick_two(s, clock)
    clock.advance(1)
    s.press("N")
    clock.advance(0.5)
    s.press("E")  # by mistake: E had not played a card yet
    clock.advance(referee_takes)  # the referee sees it, and takes it back
    s.undo()
    assert s.state.clock.seat == "E"
    assert s.move_time_left() == pytest.approx(5.0)
    assert s.tick() == []  # no warning, no limit signal
    clock.advance(2.5)
    s.press("E")  # E presses again within the fresh 5 s: no overrun
    assert not s.state.draft.penalties
    assert [e.kind for e in s.journal.events()][-2:] == ["undo", "press"]
    folded = fold(tmp_path, rulesets)
    assert folded.clock.seat == "S" and not folded.draft.penalties


def test_an_undone_overrun_press_takes_its_overrun_back_and_the_move_starts_afresh(tmp_path,
                                                                                  rulesets):
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock)
    to_trick_two(s, clock)
    clock.advance(7)
    s.press("N")  # 2 s over: recorded
    assert len(s.state.draft.penalties) == 1
    clock.advance(4)
    s.undo()  # it was not N's card after all
    assert not s.state.draft.penalties
    assert s.state.clock.seat == "N" and s.move_time_left() == pytest.approx(5.0)


def test_an_undo_during_a_pause_waits_for_the_resume(tmp_path, rulesets):
    clock = ManualClock()
    s = open_table(tmp_path, rulesets, clock)
    to_trick_two(s, clock)
    clock.advance(1)
    s.press("N")
    s.unlock(PIN)
    s.pause()
    s.undo()
    clock.advance(30)
    assert (s.state.clock.seat, s.state.clock.running) == ("N", False)
    assert s.move_time_left() == pytest.approx(5.0)
    s.resume()
    clock.advance(1)
    assert s.move_time_left() == pytest.approx(4.0)
