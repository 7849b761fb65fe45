"""What the hall's screens are told: the next round's pairings once the head referee publishes
them (never the private draft), late tables, link health, unused tables; and a kiosk whose
clock is off still syncs and says so."""

from __future__ import annotations

import io
import time
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director, views
from kiosk.scorer.hall import snapshot as hall
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join
from kiosk.sync.outbox import Outbox
from kiosk.table.journal import table_path
from kiosk.table.session import TableSession
from kiosk.table.view import snapshot
from kiosk.ui.presenter import present

RULESETS = Rulesets.load([])
TEAMS = "name\n甲\n乙\n丙\n丁\n".encode()


class Hall:
    def __init__(self, path, clock):
        self.director = Director(Store(path / "scorer.sqlite"), RULESETS, clock=clock)
        self.director.create_event("杯", "xiamen-2015", seed=5)
        self.director.import_teams(TEAMS)
        self.codes = self.director.add_tables(2)
        self.client = TestClient(create_app(self.director))


@pytest.mark.sim
def test_pairings_late_tables_and_link_health(tmp_path):
    now = [time.time()]
    h = Hall(tmp_path / "scorer", lambda: now[0])
    first = hall.snapshot(h.director, "http://x/")
    assert first["pairings_round"] is None and first["pairings"] == []
    h.director.make_draft()
    assert hall.snapshot(h.director, "http://x/")["pairings"] == []  # the draft is private
    h.director.publish()
    published = hall.snapshot(h.director, "http://x/")
    assert published["pairings_round"] == 1 and len(published["pairings"]) == 2
    assert [t["link"]["state"] for t in published["tables"]] == ["never", "never"]
    assert [t["phase"] for t in published["tables"]] == ["waiting", "waiting"]
    assert published["round_clock"]["state"] == "waiting"
    h.director.start_clock(90, confirm=True)  # the lead-in: the tables wait for the start
    counting = hall.snapshot(h.director, "http://x/")  # (they said 未就绪, as if late)
    assert [t["phase"] for t in counting["tables"]] == ["waiting", "waiting"]
    assert [t["link"]["state"] for t in counting["tables"]] == ["never", "never"]
    now[0] += 91
    assert [t["phase"] for t in hall.snapshot(h.director, "http://x/")["tables"]] == \
        ["idle", "idle"]  # (not set up by its kiosk: the page says 未就绪)
    link = join(tmp_path / "k1", 1, "http://testserver", h.codes[1], RULESETS, h.client)
    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 1000, 1, 1e9, io.StringIO()).close()
    during = hall.snapshot(h.director, "http://x/")
    assert during["pairings"] == []  # table 2 is still to play round 1
    one, two = during["tables"]
    assert one["phase"] == "over" and one["result"]["winner"] in ("NS", "EW")
    assert one["link"]["state"] == "ok" and two["phase"] == "idle" and not two["late"]
    now[0] += 90 * 60 + 301  # the round's 90 minutes and 5 more
    later = hall.snapshot(h.director, "http://x/")
    assert later["tables"][1]["late"] and not later["tables"][0]["late"]
    assert later["tables"][0]["link"]["state"] == "done"  # not heard from, but finished
    link2 = join(tmp_path / "k2", 2, "http://testserver", h.codes[2], RULESETS, h.client)
    simulate_synced(tmp_path / "k2", 2, RULESETS, link2, 1000, 2, 1e9, io.StringIO()).close()
    assert hall.snapshot(h.director, "http://x/")["round_clock"]["state"] == "over"
    assert hall.snapshot(h.director, "http://x/")["pairings"] == []  # not published yet
    h.director.publish()
    after = hall.snapshot(h.director, "http://x/")
    assert after["pairings_round"] == 2 and len(after["pairings"]) == 2
    met = {frozenset((a, b)) for _, a, b in h.director.assignments(1)}
    names = {t.id: t.name for t in h.director.teams()}
    assert all(frozenset((n["ns"], n["ew"])) not in {frozenset(names[x] for x in m)
                                                      for m in met} for n in after["pairings"])
    h.director.start_clock(0, confirm=True)
    assert [(a, b) for _, a, b in h.director.assignments(2)] == [
        (next(t for t, n in names.items() if n == p["ns"]),
         next(t for t, n in names.items() if n == p["ew"])) for p in after["pairings"]]


@pytest.mark.unit
def test_a_kiosk_whose_clock_is_an_hour_off_syncs_and_says_so(tmp_path):
    h = Hall(tmp_path / "scorer", lambda: time.time() + 3600)
    h.director.start_round(0)
    link = join(tmp_path / "k", 1, "http://testserver", h.codes[1], RULESETS, h.client)
    assert link.synchronised is False and abs(link.offset - 3600) < 5
    simulate_synced(tmp_path / "k", 1, RULESETS, link, 2, 1, 1e9, io.StringIO()).close()
    outbox = Outbox(table_path(tmp_path / "k", 1), link)
    assert outbox.flush(timeout=5)  # signed with the scorer's time, so not refused as stale
    session = TableSession.open(tmp_path / "k", 1, RULESETS)
    view = replace(snapshot(session), link=outbox.state)
    status = present(view, session.clock.now(), "en").status
    session.close()
    assert "Scorer: in sync" in status and "Clock off by +3600" in status


@pytest.mark.sim
def test_a_table_ruled_in_the_middle_of_its_match_shows_its_result_not_a_dealer(tmp_path):
    """A forfeit (or a team withdrawn now) in the middle of a hand: the hall and the phones
    still showed 庄 东 and the match clock counting down, as if the table played on."""
    h = Hall(tmp_path / "scorer", time.time)
    h.director.start_round(0)
    link = join(tmp_path / "k2", 2, "http://testserver", h.codes[2], RULESETS, h.client)
    simulate_synced(tmp_path / "k2", 2, RULESETS, link, 1, 2, 1e9, io.StringIO()).close()
    playing = h.client.get("/api/tables").json()[1]
    assert playing["dealer"] and playing["clock_running"]  # (its second hand is dealt)
    h.director.record_ruling(2, "forfeit", "EW", "未到场", 1, confirm=True)
    ns, _ = h.director.teams_at(1, 2)
    for shown in (h.client.get("/api/tables").json()[1],  # the hall's screens
                  h.client.get(f"/api/team/{ns}").json()["table"]):  # a player's phone
        assert shown["phase"] == "ruled" and shown["result"]["ruling"] == "forfeit"
        assert shown["result"]["winner"] == "NS"
        assert shown["dealer"] is None and not shown["clock_running"]
        assert shown["time_left"] is None
        assert shown["levels"] == playing["levels"]  # the levels it was ruled at


@pytest.mark.sim
def test_a_finished_table_whose_kiosk_went_off_is_no_alarm(tmp_path):
    """After its match (and after the event is closed) a table's kiosk may be switched off:
    the hall says so quietly; a table still playing that is not heard from is the alarm."""
    now = [time.time()]
    h = Hall(tmp_path / "scorer", lambda: now[0])
    h.director.start_round(0)
    link = join(tmp_path / "k1", 1, "http://testserver", h.codes[1], RULESETS, h.client)
    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 1000, 1, 1e9, io.StringIO()).close()
    link2 = join(tmp_path / "k2", 2, "http://testserver", h.codes[2], RULESETS, h.client)
    simulate_synced(tmp_path / "k2", 2, RULESETS, link2, 1, 2, 1e9, io.StringIO()).close()
    now[0] += 5 * 60  # neither kiosk heard from for five minutes
    one, two = hall.snapshot(h.director, "http://x/")["tables"]
    assert one["phase"] == "over" and one["link"]["state"] == "done"
    assert two["phase"] != "over" and two["link"]["state"] == "offline"  # the alarm
    # The console's results say the same (they showed both red, 离线)
    assert [r.link for r in views.round_rows(h.director, 1)] == ["done", "offline"]
    h.director.record_ruling(2, "forfeit", "EW", "未到场", 1, confirm=True)
    # other software reads the tables as the hall shows them: the ruling's result
    assert h.client.get("/api/tables").json() == hall.snapshot(h.director, "http://x/")["tables"]
    ruled = h.client.get("/api/tables").json()[1]
    assert ruled["phase"] == "ruled" and ruled["result"]["ruling"] == "forfeit"
    h.director.close_event(confirm=True)
    closed = hall.snapshot(h.director, "http://x/")["tables"]
    assert [t["link"]["state"] for t in closed] == ["done", "done"]


@pytest.mark.sim
def test_the_read_only_apis_are_read_again_only_when_what_they_show_can_have_changed(
        tmp_path, monkeypatch):
    """Other software polling /api/tables, or a crowd on the hall's Wi-Fi, must not make the
    scorer read every table for each request (at 1,000 teams eight pollers slowed the hall page
    to p50 150 ms): the answer is kept until the store changes, and for the tables until the
    next second too (their clocks count down). A change is never hidden."""
    reads = {"tables": 0, "standings": 0}

    def counting(name, real):
        def counted(director):
            reads[name] += 1
            return real(director)
        return counted

    for name in reads:
        monkeypatch.setattr(hall, name, counting(name, getattr(hall, name)))
    now = [1_000_000.0]
    h = Hall(tmp_path / "scorer", lambda: now[0])
    h.director.start_round(0)
    link = join(tmp_path / "k1", 1, "http://testserver", h.codes[1], RULESETS, h.client)
    tables = [h.client.get("/api/tables").json() for _ in range(5)]
    standings = [h.client.get("/api/standings").json() for _ in range(5)]
    assert reads == {"tables": 1, "standings": 1} and tables[0] == tables[-1]
    assert [t["phase"] for t in tables[0]] == ["idle", "idle"]
    now[0] += 0.5  # the same second: the same answer
    h.client.get("/api/tables")
    assert reads["tables"] == 1
    now[0] += 1  # the next second: read again (a match clock would show a second less)
    h.client.get("/api/tables")
    assert reads["tables"] == 2
    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 1000, 1, 1e9, io.StringIO()).close()
    played = h.client.get("/api/tables").json()  # a kiosk's hands show at once
    assert reads["tables"] == 3 and played[0]["phase"] == "over"
    ranked = h.client.get("/api/standings").json()
    assert reads["standings"] == 2 and ranked != standings[0]
    assert max(s["points"] for s in ranked) > max(s["points"] for s in standings[0])


@pytest.mark.unit
@pytest.mark.parametrize("kiosk_behind", [3 * 3600.0, -2 * 3600.0])
def test_a_kiosk_with_a_wrong_clock_shows_its_matchs_right_time_left(tmp_path, kiosk_behind):
    """A match's time left counts on from the table's last event on the scorer's clock: a
    kiosk hours behind showed 00:00 (its events looked hours old), one two hours ahead more
    time than it had (its events looked to come from the future, so nothing had passed)."""
    now = [time.time() + kiosk_behind]  # the scorer's clock; the kiosk's is the machine's
    h = Hall(tmp_path / "scorer", lambda: now[0])
    h.director.start_round(0)
    link = join(tmp_path / "k", 1, "http://testserver", h.codes[1], RULESETS, h.client)
    assert abs(link.offset - kiosk_behind) < 5
    simulate_synced(tmp_path / "k", 1, RULESETS, link, 2, 1, 1e9, io.StringIO()).close()
    state = h.director.match_state(1, 1)
    clock, last = state.match_clock, state.last_event
    at_last = clock.limit - clock.elapsed_at(state.last_mono)  # left at the table's last event
    assert clock.running and 60 < at_last < clock.limit
    # 30 s after that event, on the scorer's clock (the kiosk stamped it with its own)
    now[0] = last.wall + kiosk_behind + 30
    row = hall.snapshot(h.director, "http://x/")["tables"][0]
    assert row["clock_running"] and row["time_left"] == pytest.approx(at_last - 30, abs=2)
    now[0] += 60  # a minute later, a minute less
    later = hall.snapshot(h.director, "http://x/")["tables"][0]
    assert later["time_left"] == pytest.approx(at_last - 90, abs=2)


@pytest.mark.unit
def test_twins_in_one_unit_are_told_apart_by_id_and_a_name_of_its_own_by_nothing(tmp_path):
    h = Hall(tmp_path / "scorer", time.time)
    ids = [t.id for t in h.director.teams()]
    for team in ids[:2]:  # neither has a unit
        h.director.edit_team(team, "海沧红狮", "", (), confirm=True)
    h.director.start_round(0)
    snap = hall.snapshot(h.director, "http://x/")
    told = {row["team"]: row["tells"] for row in snap["standings"]}
    assert told == {ids[0]: {ids[0]: ids[0]}, ids[1]: {ids[1]: ids[1]}, ids[2]: {}, ids[3]: {}}
    h.director.edit_team(ids[1], "海沧红狮", "思明", (), confirm=True)  # one unit only: still ids
    assert hall.twin_tells(h.director) == {ids[0]: ids[0], ids[1]: ids[1]}
    h.director.edit_team(ids[0], "海沧红狮", "海沧", (), confirm=True)
    assert hall.twin_tells(h.director) == {ids[0]: "海沧", ids[1]: "思明"}
