"""A published round taken back after the kiosks set it up: the scorer withdraws it while no
hand has been played, each kiosk drops its match (journaled as the scorer's action) and waits
for an assignment again, and the scorer never takes the dropped match as the round's. Through
a real scorer, outbox, door and runner on real journals."""

from __future__ import annotations

import pytest

from kiosk.errors import AdminError
from kiosk.i18n import explain
from kiosk.scorer.director import Director
from kiosk.sync.wiring import set_up
from kiosk.table.clock import ManualClock
from kiosk.table.session import TableSession
from kiosk.table.view import snapshot

from .test_hall_clock import hall  # noqa: F401  (the fixture: a scorer and a paired kiosk)
from .test_session import PLAYERS, TEAMS


def kinds(session):
    return [(e.kind, e.actor) for e in session.journal.events()]


@pytest.mark.unit
def test_a_round_set_up_but_not_played_is_withdrawn_from_the_kiosk(hall):  # noqa: F811
    d, k = hall
    d.start_round(0)
    k.cycle()
    k.cycle()  # the setup reaches the scorer
    first = k.session.match
    assert k.session.state.phase == "ready" and d.match_state(1, 1) is not None
    assert d.match_state(1, 1).setup["start_at"] == d.round_start(1)
    d.undo_round(confirm=True, by="陈")
    k.cycle()
    assert k.session.state.phase == "setup" and k.session.match == ""  # waiting again
    assert ("abandon", "scorer") in kinds(k.session)
    assert k.runner.notice.key == "table.round_withdrawn"
    assert k.runner.notice.params == {"round": "1"}
    assert k.runner.view.phase == "setup"
    k.cycle()  # asked again: nothing more happens
    assert [kind for kind, _ in kinds(k.session)].count("abandon") == 1
    k.restart()  # and a restart keeps it waiting
    assert k.session.state.phase == "setup"
    assert k.session.find_match(d.event().name, "1") is None
    # the round is drafted again, its sides swapped, published and started: a new match
    d.swap_sides(1)
    d.publish()
    d.start_clock(0)
    k.cycle()
    assert k.session.match not in ("", first) and k.session.state.phase == "ready"
    assert k.session.state.match_started  # its clock started with the hall's new start
    teams = d.team_names()
    (_, ns, ew), = d.assignments(1)
    assert k.session.state.setup["teams"] == {"NS": teams[ns], "EW": teams[ew]}
    k.cycle()
    state = d.match_state(1, 1)  # the scorer takes the new match, never the dropped one
    assert state is not None and state.setup["start_at"] == d.round_start(1)
    assert not state.abandoned and state.setup["teams"]["NS"] == teams[ns]


@pytest.mark.unit
def test_a_kiosk_away_while_the_round_was_taken_back_and_restarted(hall):  # noqa: F811
    d, k = hall
    d.start_round(0)
    k.cycle()
    first = k.session.match
    d.undo_round(confirm=True)
    d.swap_sides(1)
    d.publish()
    d.start_clock(0)  # all while the kiosk was away
    k.cycle()
    assert k.session.match != first and k.session.state.setup["start_at"] == d.round_start(1)
    assert [kind for kind, _ in kinds(k.session)].count("abandon") == 1


@pytest.mark.unit
def test_a_round_with_play_at_a_table_stays_and_the_refusal_names_it(hall):  # noqa: F811
    d, k = hall
    d.start_round(0)
    k.cycle()
    k.do = lambda command: (k.door.put(command), k.runner.step())
    k.do(lambda s: s.grab_dealer("N"))
    k.do(lambda s: s.declare_trump("♠", "N"))
    k.do(lambda s: s.start_bury())
    k.cycle()
    with pytest.raises(AdminError) as refused:
        d.undo_round(confirm=True)
    assert refused.value.key == "admin.error.undo_played"
    assert explain(refused.value, "zh-Hans") == \
        "第 1 轮不能撤回：第 1 桌已经开始打牌。请用裁决更正。"
    assert d.current_round() == 1


@pytest.mark.unit
def test_a_match_set_up_for_an_earlier_start_is_dropped_until_a_hand_is_played(tmp_path,
                                                                              rulesets):
    from .test_session import play_hand

    clock = ManualClock()
    s = TableSession.open(tmp_path, 1, rulesets, clock)
    assignment = {"event": "厦门杯", "round": "1", "teams": TEAMS, "players": PLAYERS,
                  "ruleset": "xiamen-2015", "match_minutes": 90, "start_at": 100.0}
    set_up(s, assignment)
    first = s.match
    set_up(s, assignment)  # the same start again: nothing new
    assert s.match == first
    s.start_match_clock("scorer")  # the hall's start (the first hand waits for it)
    s.grab_dealer("N")
    s.declare_trump("♠", "N")
    s.start_bury()  # a hand under way, none played yet: the round's new start wins
    set_up(s, {**assignment, "start_at": 200.0})  # started again since
    assert s.match != first and s.state.setup["start_at"] == 200.0
    s.start_match_clock("scorer")
    play_hand(s, clock, 45, dealer="N")
    second = s.match
    set_up(s, {**assignment, "start_at": 300.0})  # a hand has been played: the match stays
    assert s.match == second and len(s.state.played) == 1


@pytest.mark.unit
def test_the_session_refuses_to_drop_a_match_with_a_hand_played(tmp_path, rulesets):
    from kiosk.table.session import SessionError

    from .test_session import play_hand

    clock = ManualClock()
    s = TableSession.open(tmp_path, 1, rulesets, clock)
    s.setup_match(event="e", round="1", teams=TEAMS, players=PLAYERS, ruleset="xiamen-2015")
    play_hand(s, clock, 45, dealer="N")
    with pytest.raises(SessionError) as refused:
        s.abandon_match()
    assert refused.value.key == "table.abandon_played"
    assert snapshot(s).phase == "ready"


@pytest.mark.unit
def test_a_dropped_match_is_not_scored(tmp_path, rulesets):
    """Its events reach the scorer and stay there; the round finds no match in them."""
    from kiosk.scorer.store.database import Store

    d = Director(Store(tmp_path / "s.sqlite"), rulesets)
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    d.import_teams("编号,队伍名称\nt1,甲队\nt2,乙队\n".encode())
    d.add_tables(1)
    d.start_round(0)
    clock = ManualClock()
    s = TableSession.open(tmp_path / "k", 1, rulesets, clock)
    set_up(s, {**d.assignment(1), "round": "1"})
    s.abandon_match()
    events = [e.to_json() for e in s.journal.events()]
    d.store.ingest(1, events, d.clock())
    assert d.store.high_water(1) == len(events)  # kept
    assert d.match_state(1, 1) is None
    assert d.results() == []
    s.close()
    d.store.close()


# ---- as the head referee does it: the admin page in Chromium, kiosks over loopback HTTP ----


@pytest.mark.process
def test_the_head_referee_takes_a_started_round_back_from_the_admin_page(tmp_path, rulesets,
                                                                        monkeypatch):
    """The real `kiosk scorer` on loopback HTTPS, its admin page in Chromium, two paired kiosks
    on real journals."""
    monkeypatch.setattr("kiosk.sync.outbox.ASK_EVERY", 0.0)  # ask at every pass, not every 5 s
    from playwright.sync_api import expect

    from kiosk.cli.scorer_cmd import STORE_NAME
    from kiosk.scorer.store.database import Store
    from kiosk.sync.join import join

    from .browser import chromium_browser, collect_page_errors
    from .helpers import ScorerProcess
    from .test_hall_clock import Kiosk

    data = tmp_path / "scorer"
    data.mkdir()
    d = Director(Store(data / STORE_NAME), rulesets)  # the event as the admin page made it
    d.create_event("厦门杯", "xiamen-2015", seed=3)
    d.import_teams("编号,队伍名称\nt1,甲队\nt2,乙队\nt3,丙队\nt4,丁队\n".encode())
    codes = d.add_tables(2)
    password = d.first_password()
    d.start_round(0)
    d.store.close()
    with ScorerProcess(data) as scorer, chromium_browser() as browser:
        kiosks = {t: Kiosk(tmp_path / f"k{t}", join(tmp_path / f"k{t}", t, scorer.url,
                                                     codes[t], rulesets), rulesets, t)
                  for t in codes}
        for k in kiosks.values():
            k.cycle()
            k.cycle()
        assert all(k.session.state.phase == "ready" for k in kiosks.values())
        first = {t: k.session.match for t, k in kiosks.items()}

        admin = browser.new_page(ignore_https_errors=True)
        errors = collect_page_errors(admin)
        admin.goto(scorer.url + "/admin")
        admin.get_by_label("密码").fill(password)
        admin.get_by_label("您的姓名（记入日志）").fill("陈裁判长")
        admin.get_by_role("button", name="登录").click()
        admin.goto(scorer.url + "/admin/rounds")  # started, nothing played: offered, explained
        current = admin.locator("#current-round")
        expect(current.locator(".hint")).to_contain_text("还没有任何一桌打牌")
        current.get_by_role("button", name="撤回第 1 轮…").click()
        expect(admin.locator("h1")).to_have_text("请确认")
        expect(admin.locator("body")).to_contain_text(
            "该轮已经开始：各桌平板会取消已设置、尚未打牌的比赛，回到等待安排")
        admin.get_by_role("button", name="确认执行").click()
        expect(admin.locator("p.flash[role]")).to_have_text("第 1 轮已撤回，重新成为草稿。")
        for k in kiosks.values():
            k.cycle()
            assert (k.session.match, k.session.state.phase) == ("", "setup")
            assert k.runner.notice.key == "table.round_withdrawn"

        # the same pairing published and started again: another match at every table
        admin.get_by_role("button", name="公布第 1 轮").click()
        expect(admin.locator("p.flash[role]")).to_contain_text("第 1 轮已公布")
        admin.get_by_label("几秒后开始计时").fill("0")
        admin.get_by_role("button", name="开始第 1 轮").click()
        for t, k in kiosks.items():
            k.cycle()
            k.cycle()
            assert k.session.match not in ("", first[t]) and k.session.state.phase == "ready"
        admin.goto(scorer.url + "/admin/rounds")  # still offered: nothing played yet
        offered = admin.locator("#current-round").get_by_role("button", name="撤回第 1 轮…")
        expect(offered).to_be_visible()
        k = kiosks[2]  # table 2 deals and buries: play has begun there
        for command in (lambda s: s.grab_dealer("N"), lambda s: s.declare_trump("♠", "N"),
                        lambda s: s.start_bury()):
            k.door.put(command)
            k.runner.step()
        k.cycle()
        offered.click()  # the page was loaded before: the scorer refuses, naming the table
        expect(admin.locator("p.flash[role=alert]")).to_have_text(
            "第 1 轮不能撤回：第 2 桌已经开始打牌。请用裁决更正。")
        admin.goto(scorer.url + "/admin/rounds")
        expect(admin.locator("#current-round button", has_text="撤回")).to_have_count(0)
        assert kiosks[1].session.state.phase == "ready"
        assert errors == []
        for k in kiosks.values():
            k.close()
