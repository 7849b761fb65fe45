"""Correcting the event after it was created (audit #7): the name until the event is closed,
the ruleset and the match minutes until round 1 is published, the rounds at any time but never
below what is published or drafted; each change in the audit log with who and old → new; a
rename after the tables were given a round keeps their matches found; another ruleset that a
paired kiosk does not hold unpairs that table (asked first) rather than leave it unscorable."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from kiosk.errors import NeedsConfirmation
from kiosk.i18n import explain, translator
from kiosk.scorer.director import Director
from kiosk.scorer.printing.templating import words
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sync.join import join

from .test_director_console import RULESETS, HallWithAKiosk, finish, refused, roster
from .test_scorer_admin import logged_in

pytestmark = pytest.mark.unit

hans = translator("zh-Hans")
console_words = words("zh-Hans")  # as the console and the command line say the log


@pytest.fixture
def director(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门怀八十分团体赛", "xiamen-2015", rounds=3, seed=5, by="陈")
    yield d
    d.store.close()


def log_lines(d: Director, prefix: str) -> list[str]:
    return [f"{e.who}: {e.text(console_words)}" for e in d.audit_log()
            if e.action.startswith(prefix)]


def test_every_setting_is_corrected_before_round_one_and_logged_old_to_new(director):
    d = director
    changed, unpaired = d.edit_event("厦门杯八十分团体赛", "xiamen-2015", 5, 60, by="陈")
    assert (changed, unpaired) == (["name", "minutes", "rounds"], [])
    event = d.event()
    assert (event.name, event.rounds, event.match_minutes) == ("厦门杯八十分团体赛", 5, 60)
    assert log_lines(d, "event.edit") == [
        "陈: 更正赛事名称：厦门怀八十分团体赛 → 厦门杯八十分团体赛",
        "陈: 更正每场分钟数：90 → 60", "陈: 更正轮数：3 → 5"]
    # a ruleset of the same kind (Swiss), whose matches are not timed: the limit goes with it
    d.edit_event(ruleset="standard-80fen", match_minutes=0, by="陈")
    assert d.event().ruleset == "standard-80fen" and d.ruleset().id == "standard-80fen"
    assert d.event().rounds == 5  # kept: the director set it
    assert log_lines(d, "event.edit_ruleset") == [  # the rulesets by name, not file id
        "陈: 更正规则：2015年厦门市粮食系统运动会八十分赛 → 扑克牌八十分比赛规则"]
    assert log_lines(d, "event.edit_minutes")[-1] == "陈: 更正每场分钟数：60 → 不限时"
    assert d.edit_event("厦门杯八十分团体赛", by="陈") == ([], [])  # nothing changed: no line
    assert len(log_lines(d, "event.edit")) == 5


def test_a_match_time_needs_a_rule_for_time_up(tmp_path):
    """standard-80fen says nothing of time up: an event that gave its matches 90 minutes left
    every table at time up with nothing to decide by, able only to forfeit. The time limit is
    refused there, saying why and what to do; an individual round ends at its time anyway."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    said = refused("admin.error.minutes_no_time_up", d.create_event, "杯", "standard-80fen",
                   match_minutes=90)
    assert explain(said, "zh-Hans").startswith(
        "「扑克牌八十分比赛规则」没有规定比赛时间到时怎样判胜负，比赛不能限时")
    assert d.event() is None
    d.create_event("杯", "standard-80fen", by="陈")
    assert d.event().match_minutes is None
    refused("admin.error.minutes_no_time_up", d.edit_event, match_minutes=90)
    d.edit_event(ruleset="xiamen-2015", match_minutes=90, by="陈")  # a rule for time up
    refused("admin.error.minutes_no_time_up", d.edit_event, ruleset="standard-80fen")
    assert (d.event().ruleset, d.event().match_minutes) == ("xiamen-2015", 90)
    assert log_lines(d, "event.edit_minutes") == ["陈: 更正每场分钟数：不限时 → 90"]
    d.store.close()
    individual = Director(Store(tmp_path / "individual.sqlite"), RULESETS)
    assert individual.create_event("个人赛", "shuangsheng-2011",
                                   match_minutes=40).match_minutes == 40
    individual.store.close()


def test_an_event_of_0_rounds_is_refused_and_rounds_left_out_are_the_rulesets(tmp_path):
    """0 typed in the form's 轮数 was taken for the field left empty: the event silently got
    the ruleset's 5 rounds, and the overview then said 轮数不少于 1."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    refused("admin.error.rounds_range", d.create_event, "杯", "xiamen-2015", rounds=0)
    assert d.event() is None
    assert d.create_event("杯", "xiamen-2015").rounds == 5  # (the ruleset's)


def test_refusals_say_why_in_chinese(director):
    d = director
    d.import_teams(roster(4))
    said = refused("admin.error.edit_format", d.edit_event, ruleset="shuangsheng-2011")
    assert "另一种赛制" in explain(said, "zh-Hans")
    refused("admin.error.event_name", d.edit_event, "  ")
    refused("admin.error.rounds_range", d.edit_event, rounds=0)
    refused("admin.error.minutes_range", d.edit_event, match_minutes=-5)
    d.add_tables(2)
    d.make_draft()
    said = refused("admin.error.edit_draft", d.edit_event, ruleset="standard-80fen")
    assert "放弃草稿" in explain(said, "zh-Hans")
    d.publish(by="陈")
    for call, key in ((lambda: d.edit_event(ruleset="standard-80fen"),
                       "admin.error.edit_published_ruleset"),
                      (lambda: d.edit_event(match_minutes=45),
                       "admin.error.edit_published_minutes")):
        said = refused(key, call)
        assert "第 1 轮已公布" in explain(said, "zh-Hans")
    d.start_round(0)
    finish(d, 1)
    d.make_draft()  # round 2 drafted
    said = refused("admin.error.rounds_below_draft", d.edit_event, rounds=1)
    assert "第 2 轮已有草稿" in explain(said, "zh-Hans")
    d.discard_draft()
    d.edit_event(rounds=1, by="陈")  # the one round played is the last: allowed
    assert d.event().rounds == 1
    d.edit_event(rounds=4, by="陈")  # and more again
    d.close_event(confirm=True)
    said = refused("admin.error.edit_closed", d.edit_event, "新名称")
    assert "重新开启" in explain(said, "zh-Hans")


def test_rounds_can_never_go_below_the_rounds_published(director):
    d = director
    d.import_teams(roster(4))
    d.add_tables(2)
    for _ in range(2):
        d.start_round(0)
        finish(d, d.current_round())
    said = refused("admin.error.rounds_below", d.edit_event, rounds=1)
    assert explain(said, "zh-Hans") == "已公布 2 轮：轮数不能少于 2。"
    assert d.event().rounds == 3


def test_a_rename_after_the_tables_were_given_a_round_keeps_their_matches(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr("kiosk.sync.outbox.ASK_EVERY", 0.0)
    hall = HallWithAKiosk(tmp_path)  # round 1 started, its kiosk paired through the real sync
    try:
        d, session = hall.d, hall.session
        hall.cycle()
        assert session.state.match_started
        match = session.match
        d.edit_event("厦门杯·更正", by="陈")
        assert d.event().name == "厦门杯·更正" and d.event().match_name == "厦门杯"
        hall.cycle()
        assert session.match == match  # the kiosk did not set up another match
        assert d.match_state(1, 1) is not None  # and the scorer still finds it
        d.record_ruling(1, "forfeit", "EW", "测试", 1, confirm=True)
        assert d.round_results(1)[1].winner is not None
    finally:
        hall.close()


def test_another_ruleset_a_paired_kiosk_lacks_unpairs_that_table_after_asking(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=5)
    codes = d.add_tables(2)
    client = TestClient(create_app(d))
    only_xiamen = {"xiamen-2015": RULESETS["xiamen-2015"]}
    join(tmp_path / "k1", 1, "http://testserver", codes[1], RULESETS, client)
    join(tmp_path / "k2", 2, "http://testserver", codes[2], type(RULESETS)(only_xiamen),
         client)
    kept = json.loads(d.store.db.execute("SELECT rulesets FROM tables WHERE number = 2")
                      .fetchone()[0])
    assert kept == {"xiamen-2015": RULESETS["xiamen-2015"].sha256}
    asked = refused("admin.confirm.ruleset_kiosks", d.edit_event, ruleset="standard-80fen",
                    match_minutes=0)
    assert isinstance(asked, NeedsConfirmation)
    said = explain(asked, "zh-Hans")
    assert "第 2 桌" in said and "新配对码" in said and "第 1 桌" not in said
    assert d.event().ruleset == "xiamen-2015"  # nothing changed while it asks
    changed, unpaired = d.edit_event(ruleset="standard-80fen", match_minutes=0, confirm=True,
                                     by="陈")
    assert changed == ["ruleset", "minutes"] and unpaired == [2]
    assert set(d.store.paired_tables()) == {1}  # table 2 pairs again with its new code
    assert 2 in d.store.open_codes()
    unpaired = ("陈: 第 2 桌的配对作废"
                "（平板没有规则「扑克牌八十分比赛规则（standard-80fen）」的同一份）")
    assert unpaired in log_lines(d, "tables.")
    d.store.close()


def test_a_pairing_under_way_when_the_ruleset_changes_is_refused_at_its_end(tmp_path,
                                                                             monkeypatch):
    from kiosk.errors import LinkError
    from kiosk.sync import link as link_module

    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=5)
    codes = d.add_tables(1)
    confirm = link_module.KioskPairing.confirm

    def meanwhile(self, *args):  # between the pairing's two steps, the director changes it
        d.edit_event(ruleset="standard-80fen", match_minutes=0, by="陈")
        return confirm(self, *args)
    monkeypatch.setattr(link_module.KioskPairing, "confirm", meanwhile)
    only_xiamen = type(RULESETS)({"xiamen-2015": RULESETS["xiamen-2015"]})
    with pytest.raises(LinkError) as refused_pairing:
        join(tmp_path / "k1", 1, "http://testserver", codes[1], only_xiamen,
             TestClient(create_app(d)))
    assert refused_pairing.value.key == "sync.ruleset-differs"
    assert d.store.paired_tables() == {} and d.event().ruleset == "standard-80fen"
    d.store.close()


def test_the_console_asks_before_a_ruleset_change_unpairs_a_table(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.set_password("the-head-referee-47")
    d.create_event("厦门杯", "xiamen-2015", seed=5)
    codes = d.add_tables(1)
    console = TestClient(create_app(d), follow_redirects=False)
    join(tmp_path / "k1", 1, "http://testserver", codes[1],
         type(RULESETS)({"xiamen-2015": RULESETS["xiamen-2015"]}), console)
    console.post("/admin/login", data={"password": "the-head-referee-47", "who": "陈"})
    csrf = console.get("/admin").text.split('name="csrf" value="')[1].split('"')[0]
    form = {"csrf": csrf, "name": "厦门杯", "ruleset": "standard-80fen", "minutes": "",
            "rounds": "5"}  # (the minutes emptied: standard-80fen's matches are not timed)
    asked = console.get(console.post("/admin/edit-event", data=form).headers["location"])
    # (its name for the head referee, its file's id for the technician who installs it)
    assert "第 1 桌的平板配对时没有这份规则「扑克牌八十分比赛规则（standard-80fen）」" in asked.text
    assert 'name="confirmed" value="1"' in asked.text and d.event().ruleset == "xiamen-2015"
    done = console.post("/admin/edit-event", data={**form, "confirmed": "1"})
    shown = console.get(done.headers["location"]).text
    assert "第 1 桌的配对已作废，新配对码在“牌桌”页。" in shown
    assert d.event().ruleset == "standard-80fen" and d.store.paired_tables() == {}
    assert d.event().match_minutes is None
    assert "<dt>每场分钟数</dt><dd>不限时</dd>" in console.get("/admin").text
    d.store.close()


def test_the_minutes_left_empty_are_the_rulesets_and_0_is_no_limit(tmp_path):
    """Correcting a standard-80fen event to xiamen-2015 with the minutes box empty, as it
    stood, saved xiamen with no time limit: the box empty meant 不限时 when correcting, the
    ruleset's when creating (a head referee's review). Empty is the ruleset's in both, and
    0 is no limit in both."""
    d = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    d.set_password("the-head-referee-47")
    assert d.create_event("杯", "standard-80fen", seed=5).match_minutes is None
    console = TestClient(create_app(d), follow_redirects=False)
    console.post("/admin/login", data={"password": "the-head-referee-47", "who": "陈"})
    csrf = console.get("/admin").text.split('name="csrf" value="')[1].split('"')[0]
    form = {"csrf": csrf, "name": "杯", "ruleset": "xiamen-2015", "minutes": "", "rounds": "5"}
    console.post("/admin/edit-event", data=form)
    assert (d.event().ruleset, d.event().match_minutes) == ("xiamen-2015", 90)
    console.post("/admin/edit-event", data={**form, "minutes": "0"})
    assert d.event().match_minutes is None
    assert log_lines(d, "event.edit_minutes") == ["陈: 更正每场分钟数：不限时 → 90",
                                                  "陈: 更正每场分钟数：90 → 不限时"]
    d.store.close()
    untimed = Director(Store(tmp_path / "untimed.sqlite"), RULESETS)
    assert untimed.create_event("杯", "xiamen-2015", match_minutes=0).match_minutes is None
    untimed.store.close()


def test_a_round_without_time_offers_no_time_to_add_nor_a_time_up_the_rules_cannot_decide(
        tmp_path):
    """A standard-80fen round, untimed, offered 加时 (「全场加时 5 分钟」, logged, shown, doing
    nothing) and 全场时间到, which left every table with nothing to decide by (a head
    referee's review). Neither is offered there; an untimed xiamen round can still be
    called, its rules decide time up."""
    for ruleset, stop in (("standard-80fen", False), ("xiamen-2015", True)):
        d = Director(Store(tmp_path / f"{ruleset}.sqlite"), RULESETS)
        d.create_event("杯", ruleset, match_minutes=0, seed=5)
        d.import_teams(roster(4))
        d.add_tables(2)
        d.start_round(0)
        client, _ = logged_in(d)
        page = client.get("/admin/rounds").text
        assert 'value="extend"' not in page and ('value="stop"' in page) == stop
        said = refused("admin.error.extend_untimed", d.extend_clock, 5)
        assert explain(said, "zh-Hans") == "本赛事每场不限时：没有时间可加。"
        if not stop:
            said = refused("admin.error.stop_no_rule", d.stop_clock, confirm=True)
            assert "不能宣布全场时间到" in explain(said, "zh-Hans")
        d.store.close()

