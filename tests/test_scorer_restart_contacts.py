"""A restart of the scorer does not call every kiosk offline. Kiosks online a moment before it
stopped come back by themselves within their backoff: until then (at most RESTART_GRACE) the
hall and the console say 重连中 in grey, not 离线 in red, which sent staff to tables that were
fine. A kiosk already offline before the restart stays offline, and the console still says
when it was last heard from. The contacts are carried across in a file beside the store."""

from __future__ import annotations

import io
import json
import re
import time

import pytest
from starlette.testclient import TestClient

from kiosk.scorer.director import ONLINE_WITHIN, Director, contacts, views
from kiosk.scorer.hall import snapshot as hall
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join
from kiosk.sync.link import ScorerLink
from kiosk.sync.outbox import BACKOFF_MAX

from .console_client import RULESETS, TEAMS, Window, event, log_in
from .helpers import ScorerProcess, fetch, kiosk


@pytest.fixture
def director(tmp_path):
    yield from event(tmp_path)


def restarted(d: Director, at: float) -> Director:
    """The scorer started again on the same store at scorer time `at`, as its app does."""
    now = [at]
    again = Director(Store(d.store.path), RULESETS, clock=lambda: now[0])
    again.now, again.password = now, d.password
    contacts.resume(again.store, at, ONLINE_WITHIN)
    return again


@pytest.mark.unit
def test_kiosks_online_before_a_restart_are_reconnecting_not_offline(director):
    d = director
    now = d.now[0]
    codes = d.store.open_codes()
    for table in range(1, 5):
        d.store.pair(table, codes[table], f"pi-{table}", time.time())
    d.make_draft(by="陈")
    d.publish(by="陈")
    d.start_clock(0, by="陈")
    d.store.heard(1, now, 0)
    d.store.heard(2, now - 2, 3)
    d.store.heard(3, now - 120, 0)  # two minutes quiet already: offline before the restart
    contacts.save(d.store, now + 1)  # table 4's kiosk was never heard from

    again = restarted(d, now + 60)  # the scorer down for a minute
    states = {t: views.link_state(again, t, again.now[0]) for t in range(1, 5)}
    assert states == {1: "returning", 2: "returning", 3: "offline", 4: "offline"}
    rows = hall.snapshot(again, "http://x/")["tables"]
    assert [r["link"]["state"] for r in rows] == ["returning", "returning", "offline",
                                                  "offline"]
    assert rows[2]["link"]["last_seen"] == now - 120  # when, kept across the restart

    page = Window(log_in(again)).load("/admin/tables")
    counts = dict(re.findall(r'data-show="([\w-]+)"[^>]*>[^<]*<b>(\d+)</b>', page))
    assert counts["offline"] == "2"  # tables 3 and 4, not the two coming back
    row = re.search(r'<tr data-table="1".*?</tr>', page, re.S)
    assert row is not None and "重连中" in row[0] and "最后联系" in row[0]
    assert "离线" not in row[0]

    again.now[0] += 5
    again.store.heard(2, again.now[0], 0)  # table 2's kiosk is back
    assert views.link_state(again, 2, again.now[0]) == "ok"
    again.now[0] = now + 60 + contacts.RESTART_GRACE + 1  # table 1's never came back
    assert views.link_state(again, 1, again.now[0]) == "offline"
    assert hall.snapshot(again, "http://x/")["tables"][0]["link"]["state"] == "offline"
    again.store.close()


@pytest.mark.process  # (the app's lifespan starts its pairing worker)
def test_the_app_keeps_the_contacts_when_it_stops_and_reads_them_when_it_starts(director):
    d = director
    codes = d.store.open_codes()
    d.store.pair(1, codes[1], "pi-1", time.time())
    d.make_draft(by="陈")
    d.publish(by="陈")
    d.start_clock(0, by="陈", confirm=True)
    with TestClient(create_app(d)):
        d.store.heard(1, d.now[0], 0)
    kept = json.loads((d.store.path.parent / contacts.NAME).read_text())
    assert kept == {"saved": d.now[0], "links": {"1": [d.now[0], 0]}}

    again = Director(Store(d.store.path), RULESETS, clock=lambda: d.now[0] + 30)
    with TestClient(create_app(again)) as client:
        snap = client.get("/api/hall").json()
    assert snap["tables"][0]["link"]["state"] == "returning"
    again.store.close()


@pytest.mark.unit
def test_a_broken_contacts_file_is_no_contact_known(director):
    path = director.store.path.parent / contacts.NAME
    for text in ("", "{", '{"saved": 1}', '{"saved": 1, "links": {"x": [1, 0]}}', "[]"):
        path.write_text(text)
        assert contacts.load(path) == (0.0, {})


@pytest.mark.unit
def test_the_grace_outlasts_the_longest_wait_of_a_kiosk_for_its_scorer():
    timeout = ScorerLink.__init__.__defaults__[-1]  # (the link's request timeout)
    assert BACKOFF_MAX + timeout < contacts.RESTART_GRACE


@pytest.mark.process
def test_the_real_scorer_restarted_knows_its_kiosks_last_contact(tmp_path):
    data = tmp_path / "scorer"
    d = Director(Store(data / "scorer.sqlite"), RULESETS)
    d.create_event("厦门杯", "xiamen-2015", seed=11)
    d.import_teams(("编号,队名,单位\n" + TEAMS).encode())
    codes = d.add_tables(4)
    d.store.close()
    scorer = ScorerProcess(data).start()
    try:
        link = join(tmp_path / "k", 1, scorer.url, codes[1], RULESETS)
        assert kiosk("scorer", "admin", "--data", str(data), "start-round", "--in", "0"
                     ).returncode == 0
        simulate_synced(tmp_path / "k", 1, RULESETS, link, 2, 1, 1e9, io.StringIO()).close()
        link.client.close()
        stopped = time.time()
        scorer.kill(15)  # stopped by the head referee, and started again at once
        scorer.start()
        snap = json.loads(fetch(scorer.url + "/api/hall"))
    finally:
        scorer.kill(15)
    # heard a moment before the stop: online still (it was 离线 at once), as of that contact
    one = snap["tables"][0]["link"]
    assert one["state"] == "ok" and stopped - ONLINE_WITHIN < one["last_seen"] <= stopped
    assert [t["link"]["state"] for t in snap["tables"][1:]] == ["never"] * 3
