"""The console's 牌桌 tab as the tester found it (M4): its 有问题 count is the rows that say a
problem in words — a kiosk offline while its table plays, what a kiosk reports wrong —, an
idle table's kiosk switched off is no problem, 正常 and +0.001 s are no error, and an offline
kiosk says when it was last heard from."""

from __future__ import annotations

import re
import time

import pytest

from kiosk.scorer.director import fleet

from .console_client import Window, event, log_in

pytestmark = pytest.mark.unit


@pytest.fixture
def director(tmp_path):
    yield from event(tmp_path)


# -- M4: the tables' troubles, counted as the rows say them --------------------------------


def test_the_tables_problem_count_and_its_rows_agree_and_say_why(director):
    d = director
    now = d.now[0]
    codes = d.store.open_codes()
    for table in range(1, 5):
        d.store.pair(table, codes[table], f"pi-{table}", time.time())
    status = {"version": "0.2.0", "health": [], "offset": 0.001}
    for table in (1, 2, 3, 4):
        fleet.record(d, table, status, now)
        d.store.heard(table, now, 0)
    d.make_draft(by="陈")
    d.publish(by="陈")
    d.start_clock(0, by="陈")
    d.now[0] = now + 180  # three minutes later: tables 1 and 3 went quiet mid-match
    for table in (2, 4):
        d.store.heard(table, d.now[0], 0)
    fleet.record(d, 2, status, d.now[0])
    fleet.record(d, 4, {**status, "offset": 0.9}, d.now[0])  # heard, its clock off
    client = log_in(d)
    page = Window(client).load("/admin/tables")
    counts = dict(re.findall(r'data-show="([\w-]+)"[^>]*>[^<]*<b>(\d+)</b>', page))
    assert counts["offline"] == "2"
    troubled = Window(client).load("/admin/tables?show=problem")
    rows = re.findall(r'<tr data-table="(\d+)"', troubled)
    assert counts["problem"] == str(len(rows))  # the count is the rows shown
    said = dict(re.findall(r'<tr class="problem" data-for="(\d+)"><td></td><td colspan="\d+">'
                           r'(.*?)</td></tr>', troubled))
    assert set(said) == set(rows)  # every counted row says its problem in words
    assert "第 1 轮比赛中平板离线" in said["1"] and "3 分钟前" in said["1"]
    assert "平板时钟慢 0.9 秒（与记分台相差超过 0.5 秒）" in said["4"]
    assert 'class="offset error"' in troubled  # its clock cell says it too
    assert "2" not in rows  # online, nothing wrong: no problem
    assert "最后联系" in page  # an offline kiosk says when it was last heard from


def test_an_idle_table_offline_is_no_problem_and_a_small_offset_is_no_error(director):
    d = director
    now = d.now[0]
    codes = d.store.open_codes()
    d.store.pair(1, codes[1], "pi-1", time.time())
    fleet.record(d, 1, {"version": "0.2.0", "health": [], "offset": 0.001}, now)
    d.store.heard(1, now, 0)
    d.now[0] = now + 3600  # no round: the kiosk was switched off for the night
    page = Window(log_in(d)).load("/admin/tables")
    counts = dict(re.findall(r'data-show="([\w-]+)"[^>]*>[^<]*<b>(\d+)</b>', page))
    assert counts["offline"] == "1" and counts["problem"] == "0"
    assert not re.search(r'class="(offset|health)[^"]* error"', page)  # 正常, +0.001 s: fine
    assert "最后联系" in page and "1 小时前" in page


def test_a_kiosk_offline_before_its_round_starts_is_not_said_to_be_offline_in_play(director):
    """A round published, its start not given yet: every row said 「第 1 轮比赛中平板离线」
    (a head referee's review), though nothing was being played."""
    d = director
    now = d.now[0]
    codes = d.store.open_codes()
    d.store.pair(1, codes[1], "pi-1", time.time())
    d.store.heard(1, now, 0)
    d.make_draft(by="陈")
    d.publish(by="陈")
    d.now[0] = now + 600  # the kiosk switched off while the hall waits for the start
    page = Window(log_in(d)).load("/admin/tables")
    assert "比赛中平板离线" not in page
    d.start_clock(0, by="陈", confirm=True)
    page = Window(log_in(d)).load("/admin/tables")
    assert "第 1 轮比赛中平板离线" in page  # once it is played, it is trouble
