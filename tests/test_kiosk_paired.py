"""A table paired with the hall's scorer (issue 31, finding 4): its names come from the
scorer's roster and nothing is asked; it offers only the event's ruleset; the first hand waits
for the head referee's start. The real scorer (in this process), link, outbox, runner,
controller and presenter; the table on an injected clock."""

from __future__ import annotations

import time

import pytest
from starlette.testclient import TestClient

from kiosk.errors import SessionError
from kiosk.hw.door import Door
from kiosk.hw.runner import RoundStart, TableRunner
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sync.join import join
from kiosk.sync.outbox import Outbox
from kiosk.sync.wiring import connect
from kiosk.table.clock import ManualClock
from kiosk.table.journal import Journal, table_path
from kiosk.table.session import SessionConfig, TableSession
from kiosk.ui.control import Controller
from kiosk.ui.presenter import present

pytestmark = pytest.mark.unit

RULESETS = Rulesets.load([])
TEAMS = "name,player1,player2\n同安老年队,陈,林\n厦门队,黄,吴\n".encode()


class PairedTable:
    def __init__(self, tmp_path) -> None:
        self.shift = 0.0  # the scorer's clock ahead of the wall clock (a start in the past)
        self.director = Director(Store(tmp_path / "scorer.sqlite"), RULESETS,
                                 clock=lambda: time.time() + self.shift)
        self.director.create_event("市赛", "xiamen-2015", seed=1)
        self.director.import_teams(TEAMS)
        codes = self.director.add_tables(1)
        self.client = TestClient(create_app(self.director))
        data = tmp_path / "kiosk"
        self.link = join(data, 1, "http://testserver", codes[1], RULESETS, self.client)
        self.clock = ManualClock()
        self.session = TableSession.open(data, 1, RULESETS, self.clock, SessionConfig(pin="1"))
        self.runner = TableRunner(self.session, Door())
        self.outbox = Outbox(table_path(data, 1), self.link)
        connect(self.outbox, self.runner.door, self.clock)
        self.journal = Journal.reader(table_path(data, 1))
        self.ctl = Controller(self.runner, "zh-Hans")

    def sync(self) -> None:
        self.outbox._asked = float("-inf")  # ask for the assignment now
        self.outbox.sync_once(self.journal)
        self.runner.step()

    @property
    def screen(self):
        self.runner.step()
        return present(self.runner.view, self.clock.now(), self.ctl.ui)

    def close(self) -> None:
        self.journal.close()
        self.session.close()


@pytest.fixture
def paired(tmp_path):
    table = PairedTable(tmp_path)
    yield table
    table.close()


def test_a_paired_table_asks_no_names_and_offers_only_the_events_ruleset(paired):
    paired.sync()  # no round yet: the scorer says the event's ruleset
    screen = paired.screen
    actions = [b.action for g in screen.grids for b in g.buttons]
    assert actions == ["setup:xiamen-2015"]  # not the four rulesets, no name fields
    assert "队名和规则由记分台分配" in screen.lines[0]


def test_a_paired_tables_own_match_is_called_a_practice_and_the_rounds_by_its_round(paired):
    """A referee's review: the paired table's one big button, 厦门 2015 规则, started a match
    that the strip called 第1轮比赛, as the round; the round's own, set up after it, was
    called 第1.2轮比赛 (its name in the journal)."""
    paired.sync()
    screen = paired.screen
    button = screen.grids[-1].buttons[0]
    assert button.label.startswith("练习赛（不计成绩）：")
    assert "下面的按钮只开始练习赛（不计成绩）：全场开始本轮时，练习赛自动结束。" in screen.lines[0]
    paired.ctl.act(button.action)
    paired.runner.step()
    assert paired.session.match == "1"
    assert paired.screen.strip[0].value == "练习赛"
    paired.runner.door.put(lambda s: s.abandon_match())  # (no hand played: it goes)
    paired.director.start_round(0)
    paired.sync()
    assert paired.session.match == "1.2"  # (the journal keeps the practice's name)
    assert paired.screen.strip[0].value == "第1轮比赛"


def test_the_first_hand_waits_for_the_halls_start(paired):
    paired.director.start_round(start_in=600)  # the round is out; the hall starts later
    paired.sync()
    state = paired.session.state
    assert state.phase == "ready"  # the names are the roster's, none typed here
    assert sorted(state.setup["teams"].values()) == ["厦门队", "同安老年队"]
    screen = paired.screen
    assert screen.name == "ready.wait" and screen.title == "等待全场开始"
    assert not [b for g in screen.grids for b in g.buttons]  # nothing to grab
    # the head referee by the name the hall, the console and the other banners give him
    assert screen.lines[1] == "裁判长宣布开始后本桌自动开始；抢庄、扣底请等到那时。"
    paired.runner.door.put(lambda s: s.grab_dealer("N"))  # the seat button, or a script
    assert paired.screen.notice.text == "全场尚未开始本轮：请等待裁判长宣布开始"
    assert state.draft.dealer is None
    paired.runner.door.put(lambda s: s.start_match_clock("scorer"))  # the hall's start
    assert paired.screen.name == "ready.dealer"
    paired.runner.door.put(lambda s: s.grab_dealer("N"))
    paired.runner.step()
    assert state.draft.dealer == "N"


def start_practice(paired: PairedTable) -> None:
    """The referee's 练习赛 button, then a practice hand as far as its bury."""
    paired.sync()
    paired.ctl.act(paired.screen.grids[-1].buttons[0].action)
    for step in (lambda s: s.grab_dealer("N"), lambda s: s.declare_trump("♠", "N"),
                 lambda s: s.start_bury()):
        paired.runner.door.put(step)
    paired.runner.step()
    assert (paired.session.match, paired.session.state.phase) == ("1", "bury")


def test_a_round_the_hall_started_ends_a_practice_in_progress(paired):
    """A referee's review (High 2): a practice mid-hand kept the table from the round the
    head referee had started; its match was set up only once the referee ended the practice,
    and its clock counted from then. Now the practice ends at the hall's start (in the same
    step as the round's set-up: no moment for another practice), and the round's clock
    counts from the hall's start, like every other table's."""
    start_practice(paired)
    paired.shift = -40.0
    paired.director.start_round(start_in=0)  # started 40 s ago, as the scorer's clock goes
    paired.shift = 0.0
    paired.sync()
    session = paired.session
    assert session.match == "1.2" and session.state.setup["round"] == "1"
    screen = paired.screen
    assert screen.strip[0].value == "第1轮比赛"
    assert screen.notice.text == "全场第1轮已开始：练习赛到此结束（不计成绩），本桌开始第1轮比赛"
    assert session.state.match_started
    assert 40 - 0.5 < session.state.match_clock.elapsed_at(paired.clock.now()) < 40 + 0.5
    paired.clock.advance(50)  # a minute to read it (a referee's review: gone in 5 s)
    assert paired.screen.notice.text.startswith("全场第1轮已开始")
    paired.clock.advance(11)
    assert paired.screen.notice.text == ""
    practice = [(e.kind, e.actor, e.data) for e in paired.journal.events("1")]
    assert practice[-1] == ("abandon", "scorer", {"reason": "round_started", "for_round": "1"})
    assert [kind for kind, _, _ in practice].count("bury-start") == 1  # its hand kept as played
    paired.sync()
    state = paired.director.match_state(1, 1)  # the scorer takes the round's, not the practice
    assert state is not None and state.setup["event"] and not state.abandoned
    paired.sync()  # asked again: the round's match stays
    assert paired.session.match == "1.2"


def test_a_practice_plays_on_until_the_halls_start(paired):
    start_practice(paired)
    paired.director.start_round(start_in=600)  # published, the hall's start still ahead
    paired.sync()
    assert (paired.session.match, paired.session.state.phase) == ("1", "bury")
    said = paired.screen.notice.text  # when, by this kiosk's own (injected) wall clock
    soon = {time.strftime("%H:%M", time.localtime(paired.clock.wall() + 600 + d))
            for d in (-30, 0, 30)}
    assert said in {f"第1轮已排好，{at} 全场开始：那时本场练习赛自动结束（不计成绩）"
                    for at in soon}, said
    paired.clock.advance(300)  # said until the start (a referee's review: gone in 30 s)
    assert paired.screen.notice.text.startswith("第1轮已排好")


def test_a_rounds_match_set_up_late_counts_only_the_time_the_hall_ran(paired):
    """A kiosk that sets the round's match up after the hall's start (behind a practice, or
    back from a power cut) starts its match clock where the hall's stands: the time since the
    start less the hall's pauses, paused as the hall is, if it is."""
    paired.director.start_round(start_in=600)
    paired.sync()
    session, event = paired.session, paired.session.state.setup["event"]
    paired.runner.door.put(lambda s: s.follow_hall(True))  # the hall is paused just now
    paired.runner.door.put(RoundStart(event, "1", paired.clock.now() - 100, paused=30))
    paired.runner.step()
    state = session.state
    assert state.match_started and state.paused
    assert state.match_clock.elapsed_at(paired.clock.now()) == pytest.approx(70)
    paired.clock.advance(20)  # still paused: nothing runs
    paired.runner.door.put(lambda s: s.follow_hall(False))
    paired.runner.step()
    paired.clock.advance(5)
    assert state.match_clock.elapsed_at(paired.clock.now()) == pytest.approx(75)
    assert session.match_time_left() == pytest.approx(state.match_clock.limit - 75)


def test_only_a_practice_gives_way_to_the_halls_round(paired):
    paired.director.start_round(start_in=600)
    paired.sync()
    with pytest.raises(SessionError) as refused:
        paired.session.end_practice("1")
    assert refused.value.key == "table.abandon_round"
    assert paired.session.match == "1"


def test_a_practice_after_the_rounds_match_is_neither_warned_nor_ended(paired):
    """Once the round's match is over, a practice played while other tables finish the round
    is the table's own: the round's polls neither end it nor say they will, after a restart
    too (the runner that said it once is a new one then)."""
    paired.director.start_round(start_in=0)
    paired.sync()
    assert paired.session.match == "1"
    paired.runner.door.put(lambda s: s.unlock("1") and s.end_match("NS", "forfeit", "离场"))
    paired.runner.step()
    assert paired.session.state.phase == "over"
    paired.runner.door.put(lambda s: s.setup_match(event="", round="2", teams={}, players={},
                                                   ruleset="xiamen-2015"))
    for step in (lambda s: s.grab_dealer("N"), lambda s: s.declare_trump("♠", "N")):
        paired.runner.door.put(step)
    paired.runner.step()
    practice = paired.session.match
    paired.runner = TableRunner(paired.session, Door())  # a restart's new runner
    connect(paired.outbox, paired.runner.door, paired.clock)
    paired.sync()
    assert paired.session.match == practice and paired.session.state.phase == "ready"
    assert paired.runner.notice is None


def test_the_halls_pause_and_resume_reach_the_match_time_as_the_hall_made_them(paired):
    """The scorer says the moments of the hall's pause and resume: a kiosk hearing them at a
    poll seconds later stops and starts its match time where the hall's did, as every other
    table does (through the real scorer, link and door; the link's measured offset)."""
    paired.director.start_round(start_in=0)
    paired.sync()
    state = paired.session.state
    paired.clock.advance(600)
    paired.shift = -4.0
    paired.director.pause_clock()  # 4 s before the kiosk's next poll
    paired.shift = 0.0
    paired.sync()
    assert state.paused and state.pause_reason == "hall"
    assert state.match_clock.elapsed_at(paired.clock.now()) == pytest.approx(596, abs=0.5)
    paired.clock.advance(100)
    paired.shift = -3.0
    paired.director.resume_clock()
    paired.shift = 0.0
    paired.sync()
    assert not state.paused
    assert state.match_clock.elapsed_at(paired.clock.now()) == pytest.approx(599, abs=0.5)
    late = [e.data.get("late") for e in paired.journal.events(paired.session.match)
            if e.kind in ("pause", "resume")]
    assert late == [pytest.approx(4, abs=0.5), pytest.approx(3, abs=0.5)]
