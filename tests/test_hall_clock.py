"""The hall's round clock followed at every table: the head referee's pause, extension and stop
reach each kiosk through its signed assignment answer, and the session records each as the
scorer's action, once, across polls and restarts. First through the session on an injected
clock, then through a real scorer, outbox, door and runner."""

from __future__ import annotations

import time

import pytest
from starlette.testclient import TestClient

from kiosk.errors import SessionError
from kiosk.hw.door import Door
from kiosk.hw.runner import TableRunner
from kiosk.hw.slip import as_text, slip_lines
from kiosk.rules import replay
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sync.join import join
from kiosk.sync.outbox import Outbox
from kiosk.sync.wiring import connect
from kiosk.table.clock import ManualClock, SystemClock
from kiosk.table.journal import Journal, table_path
from kiosk.table.session import SessionConfig, TableSession

from .test_session import PIN, PLAYERS, TEAMS, play_hand

pytestmark = pytest.mark.unit


@pytest.fixture
def clock():
    return ManualClock()


def assigned(tmp_path, rulesets, clock, ruleset="xiamen-2015"):
    """A match the scorer assigned (an event name), its clock started by the hall."""
    session = TableSession.open(tmp_path, 1, rulesets, clock, SessionConfig(pin=PIN))
    if session.state.phase == "setup":
        session.setup_match(event="厦门杯", round="1", teams=TEAMS, players=PLAYERS,
                            ruleset=ruleset)
        session.start_match_clock("scorer")
    return session


def kinds(session, kind):
    return [(e.actor, e.data) for e in session.journal.events(session.match) if e.kind == kind]


def test_an_extension_is_gained_once_across_polls_and_restarts(tmp_path, rulesets, clock):
    s = assigned(tmp_path, rulesets, clock)
    clock.advance(600)
    assert s.match_time_left() == pytest.approx(80 * 60)
    assert s.follow_hall_extension(300)  # the head referee gives the hall 5 minutes
    assert not s.follow_hall_extension(300)  # the next poll says the same: nothing new
    assert s.match_time_left() == pytest.approx(85 * 60)
    s.close()
    s = assigned(tmp_path, rulesets, clock)  # a restart: the journal still has it, once
    assert not s.follow_hall_extension(300)
    s.unlock(PIN)
    s.resume()  # the restart paused the clock (the referee resumes it)
    assert s.match_time_left() == pytest.approx(85 * 60)
    assert s.follow_hall_extension(420)  # two more minutes: the hall's total is now 7
    assert s.match_time_left() == pytest.approx(87 * 60)
    assert kinds(s, "hall-extend") == [("scorer", {"extra_seconds": 300.0, "gained": 300.0}),
                                       ("scorer", {"extra_seconds": 420.0, "gained": 120.0})]


def test_the_hall_stop_is_time_up_by_the_scorer_and_the_ruleset_decides(tmp_path, rulesets,
                                                                        clock):
    s = assigned(tmp_path, rulesets, clock)
    play_hand(s, clock, 45, dealer="N")  # NS hold and go up: the levels differ
    s.declare_trump("♠", "N")
    s.start_bury()
    assert s.follow_hall_stop()  # no PIN: the head referee called time for the hall
    assert not s.follow_hall_stop()
    assert kinds(s, "time-up") == [("scorer", {})]
    # xiamen-2015: time up with unequal levels, the higher level wins at once
    assert (s.state.phase, s.state.winner()) == ("over", "NS")
    record = s.export()
    assert record["end"] == {"time_up": "between-hands", "called_by": "head-referee"}
    assert list(replay(record, rulesets))[-1]["by"] == "time-up"
    slip = as_text(slip_lines(record, rulesets["xiamen-2015"], list(replay(record, rulesets)),
                              58, "zh-Hans"), 58)
    assert "时间到：裁判长宣布全场时间到" in slip


def test_the_hall_stop_finishes_the_hand_where_the_ruleset_says(tmp_path, rulesets, clock):
    s = assigned(tmp_path, rulesets, clock, ruleset="chaodipi-2011")
    s.grab_dealer("N")
    s.declare_trump("♠", "N")
    s.start_bury()
    s.follow_hall_stop()
    assert s.state.phase == "bury" and s.state.time_up["by"] == "scorer"  # play this hand out


def test_the_hall_pause_is_the_scorers_and_survives_a_restart(tmp_path, rulesets, clock):
    s = assigned(tmp_path, rulesets, clock)
    s.grab_dealer("N")
    s.declare_trump("♠", "N")
    s.start_bury()
    assert s.follow_hall(True) and not s.follow_hall(True)
    assert kinds(s, "pause")[-1] == ("scorer", {"reason": "hall"})
    s.close()
    s = assigned(tmp_path, rulesets, clock)  # restarted while the hall is paused
    assert (s.state.paused, s.state.pause_reason) == (True, "hall")
    assert s.follow_hall(False)  # the hall's resume resumes it (no referee needed)
    assert not s.state.paused and s.state.clock.running
    assert kinds(s, "resume")[-1] == ("scorer", {})


def test_a_kiosk_down_while_the_hall_paused_comes_back_paused_by_the_hall(tmp_path, rulesets,
                                                                         clock):
    s = assigned(tmp_path, rulesets, clock)
    s.grab_dealer("N")
    s.declare_trump("♠", "N")
    s.start_bury()
    s.close()  # the kiosk goes down with its clocks running; the hall pauses meanwhile
    s = assigned(tmp_path, rulesets, clock)
    assert s.state.pause_reason == "restart"
    assert s.follow_hall(True)  # the first poll: the hall's pause takes it over
    assert s.state.pause_reason == "hall"
    assert s.follow_hall(False)
    assert not s.state.paused


def test_a_hall_pause_heard_late_stops_the_match_time_where_the_hall_did(tmp_path, rulesets,
                                                                         clock):
    """A referee's review (Medium): a kiosk hears the hall's pause and resume at its next poll,
    up to 5 s later, so two tables' match times differed by seconds. The scorer now says the
    moments, and the match time is mended by the seconds between (the move clock is the
    table's own: it stops when the table is told)."""
    s = assigned(tmp_path, rulesets, clock)
    s.grab_dealer("N")
    clock.advance(600)
    assert s.follow_hall(True, since=clock.now() - 4)  # paused 4 s before this poll
    assert kinds(s, "pause")[-1] == ("scorer", {"reason": "hall", "late": 4.0})
    assert s.state.match_clock.elapsed_at(clock.now()) == pytest.approx(596)
    clock.advance(100)
    assert s.follow_hall(False, since=clock.now() - 3)  # resumed 3 s before this poll
    assert kinds(s, "resume")[-1] == ("scorer", {"late": 3.0})
    assert s.state.match_clock.elapsed_at(clock.now()) == pytest.approx(599)
    clock.advance(1)
    s.close()
    s = assigned(tmp_path, rulesets, clock)  # a restart folds the journal to the same time
    assert s.state.match_clock.elapsed_at(clock.now()) == pytest.approx(600)


def test_a_late_hall_pause_never_stops_the_match_time_before_it_started(tmp_path, rulesets,
                                                                          clock):
    s = assigned(tmp_path, rulesets, clock)
    clock.advance(2)
    assert s.follow_hall(True, since=clock.now() - 30)  # (the round's start came after it)
    assert s.state.match_clock.elapsed_at(clock.now()) == 0
    s.close()
    s = assigned(tmp_path, rulesets, clock)
    assert s.follow_hall(False, since=clock.now() + 5)  # a moment ahead: nothing mended
    assert kinds(s, "resume")[-1] == ("scorer", {})


@pytest.mark.parametrize("late", [-1, "4", True, 2 * 24 * 3600])
def test_a_hall_moment_that_cannot_be_is_refused(tmp_path, rulesets, clock, late):
    s = assigned(tmp_path, rulesets, clock)
    before = len(list(s.journal.events(s.match)))
    with pytest.raises(SessionError) as refused:
        s._record("scorer", ("pause", {"reason": "hall", "late": late}))
    assert refused.value.key == "table.bad_late"
    assert len(list(s.journal.events(s.match))) == before


def test_the_hall_does_not_resume_a_tables_own_pause(tmp_path, rulesets, clock):
    s = assigned(tmp_path, rulesets, clock)
    s.grab_dealer("N")
    s.declare_trump("♠", "N")
    s.start_bury()
    s.pause_table()
    assert not s.follow_hall(True) and not s.follow_hall(False)
    assert s.state.pause_reason == "table"


# ---- through a real scorer ---------------------------------------------------------------------


class Kiosk:
    """A paired kiosk's session, runner and outbox on a real journal, as `kiosk table` wires
    them; `restart()` closes them and opens them again, as a power cut would."""

    def __init__(self, data, link, rulesets, table=1):
        self.data, self.link, self.rulesets, self.table = data, link, rulesets, table
        self.journal = Journal.reader(table_path(data, table))
        self.open()

    def open(self):
        self.session = TableSession.open(self.data, self.table, self.rulesets, SystemClock())
        self.door = Door()
        self.runner = TableRunner(self.session, self.door)
        self.outbox = Outbox(table_path(self.data, self.table), self.link)
        connect(self.outbox, self.door, self.session.clock)

    def restart(self):
        self.session.close()
        self.open()

    def cycle(self):
        self.outbox.sync_once(self.journal)
        self.runner.step()
        time.sleep(0.01)
        self.runner.step()

    def close(self):
        self.journal.close()
        self.session.close()


@pytest.fixture
def hall(tmp_path, monkeypatch, rulesets):
    monkeypatch.setattr("kiosk.sync.outbox.ASK_EVERY", 0.0)  # ask at every pass, not every 5 s
    d = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), rulesets)
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    d.import_teams("编号,队伍名称\nt1,甲队\nt2,乙队\n".encode())
    codes = d.add_tables(1)
    link = join(tmp_path / "k", 1, "http://testserver", codes[1], rulesets,
                TestClient(create_app(d)))
    kiosk = Kiosk(tmp_path / "k", link, rulesets)
    yield d, kiosk
    kiosk.close()
    d.store.close()


def test_a_kiosk_follows_the_halls_pause_extension_and_stop(hall):
    d, k = hall
    d.start_round(0)
    k.cycle()
    assert k.session.state.match_started and not k.session.state.paused
    d.extend_clock(5)
    k.cycle()
    k.cycle()  # polled again: gained once
    left = k.session.match_time_left()
    assert 94 * 60 < left <= 95 * 60
    assert k.runner.view and k.runner.notice.key == "table.hall_extended"
    assert k.runner.notice.params == {"minutes": "5"}
    d.pause_clock()
    k.cycle()
    assert (k.session.state.paused, k.session.state.pause_reason) == (True, "hall")
    k.restart()  # the kiosk restarts while the hall is paused
    k.cycle()
    assert (k.session.state.paused, k.session.state.pause_reason) == (True, "hall")
    assert 94 * 60 < k.session.match_time_left() <= 95 * 60  # the extension, still once
    d.resume_clock()
    k.cycle()
    assert not k.session.state.paused
    d.stop_clock(confirm=True)
    k.cycle()
    state = k.session.state
    assert state.time_up["by"] == "scorer" and state.needs_ruling  # no hand played yet
    assert k.runner.view.time_up["by"] == "scorer"
    actors = {e.kind: e.actor for e in k.session.journal.events(k.session.match)
              if e.kind in ("hall-extend", "pause", "resume", "time-up")}
    assert actors == {"hall-extend": "scorer", "pause": "scorer", "resume": "scorer",
                      "time-up": "scorer"}
