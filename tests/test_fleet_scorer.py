"""The scorer's side of the fleet (issue 16): each kiosk reports its version, health and clock
offset with its batches and the admin page lists them; no round starts while a kiosk is more
than 0.5 s off or while the scorer's own clock is unsynced since boot (and the page says so)."""

from __future__ import annotations

import importlib.metadata
import os
import re
import time

import pytest
from starlette.testclient import TestClient

from kiosk.i18n import render
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director, fleet
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sync.link import ScorerLink

from .helpers import ScorerProcess, kiosk

pytestmark = pytest.mark.process

TEAMS = "name\n甲\n乙\n丙\n丁\n"
SYNCED = "C0A80802,192.168.8.2,3,1777000000.1,-0.000012,0.00001,0.00002,-1.2,0.01,0.1," \
         "0.01,0.001,64.5,Normal\n"
LOCAL_ONLY = "7F7F0101,,8,1777000000.1,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,Normal\n"


def fake_chronyc(tmp_path, output: str | None):
    """A chronyc on PATH that answers `-c tracking` with `output` (None: chrony not running)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "chronyc"
    body = "exit 1" if output is None else f"cat <<'EOF'\n{output}EOF"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def event_with_tables(data) -> str:
    """An event of four teams on two tables; returns the `tables` command's codes."""
    def admin(*args):
        done = kiosk("scorer", "admin", "--data", str(data), *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    admin("event", "--name", "杯", "--ruleset", "standard-80fen")
    (data / "teams.csv").write_text(TEAMS)
    admin("teams", str(data / "teams.csv"))
    return admin("tables", "2", "--lang", "en")


def test_kiosks_report_version_health_and_offset_and_the_admin_page_lists_them(tmp_path):
    with ScorerProcess(tmp_path / "scorer") as scorer:
        codes = dict(re.findall(r"^table (\d+): pairing code (\S+)$",
                                event_with_tables(scorer.data), re.M))
        # The first password is in a file only the scorer's user reads (never its log).
        password = (scorer.data / "admin-password.txt").read_text().strip()
        rulesets = {r.id: r.sha256 for r in Rulesets.load().values()}
        for table, offset in (("1", None), ("2", 0.8)):
            link = ScorerLink(scorer.url)
            link.pair(codes[table], int(table), f"kiosk-{table}", rulesets)
            if offset is None:  # the real report: this kiosk's version, health and offset
                from kiosk.fleet.status import kiosk_status

                link.report = lambda off: kiosk_status(tmp_path, off)
            else:  # a kiosk whose clock is 0.8 s off
                link.report = lambda off, o=offset: {"version": "0.0.9", "offset": o,
                                                     "health": ["clock_off"]}
            link.send([], 0)
            link.send([], 0)  # the second carries the offset measured by the first
        import httpx

        with httpx.Client(base_url=scorer.url, follow_redirects=False, verify=False) as client:
            client.post("/admin/login", data={"password": password})
            page = client.get("/admin/tables").text
        refused = kiosk("scorer", "admin", "--data", str(scorer.data), "start-round")
    version = importlib.metadata.version("kiosk80")
    rows = {int(n): row for n, row in re.findall(
        r'<tr data-table="(\d+)"[^>]*>(.*?)</tr>', page, re.S)}
    cells = {n: [re.sub(r"<[^>]+>", "", c).strip()
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
             for n, row in rows.items()}
    assert cells[1][3:5] == [version, "正常"], cells[1]
    # same machine: next to nothing (the cell's title has the signed number)
    assert re.fullmatch(r"与记分台一致|平板时钟(快|慢) 0(\.\d+)? 秒", cells[1][5]), cells[1]
    # the scorer 0.8 s ahead of the kiosk: the kiosk's clock is slow, said in words
    assert cells[2][3:6] == ["0.0.9", "时钟不准", "平板时钟慢 0.8 秒"], cells[2]
    assert 'title="+0.800 s' in rows[2]
    assert 'class="offset error"' in rows[2] and 'class="offset error"' not in rows[1]
    assert "第 2 桌（平板时钟慢 0.8 秒）" in page  # why no round starts now, on the same page
    # The round is refused while table 2 is off, naming it.
    assert refused.returncode == 2
    assert "第 2 桌（平板时钟慢 0.8 秒）" in refused.stderr and "0.5" in refused.stderr


@pytest.fixture
def director(tmp_path):
    d = Director(Store(tmp_path / "scorer.sqlite"), Rulesets.load())
    d.create_event("杯", "standard-80fen")
    d.import_teams(TEAMS.encode())
    d.add_tables(2)
    yield d
    d.store.close()


def test_an_unsynced_scorer_clock_holds_the_round_until_confirmed(tmp_path, director,
                                                                  monkeypatch):
    env = fake_chronyc(tmp_path, LOCAL_ONLY)  # chrony serves only its own clock
    monkeypatch.setenv("PATH", env["PATH"])
    clock = fleet.guard_round_start(director, tmp_path)
    assert clock.state() == "unsynced"
    with pytest.raises(fleet.RoundRefused) as err:
        director.start_round(0)
    assert err.value.key == "fleet.round.scorer_unsynced"
    assert director.current_round() == 0
    # The admin page says so, and the head referee confirms after checking by hand.
    director.set_password("correct horse battery")
    client = TestClient(create_app(director), follow_redirects=False)
    client.post("/admin/login", data={"password": "correct horse battery"})
    page = client.get("/admin/tables").text
    assert "记分台的时钟自启动以来尚未同步" in page and "/admin/clock-ok" in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    client.post("/admin/clock-ok", data={"csrf": csrf})
    assert clock.state() == "confirmed"
    assert "本次启动后已人工核对" in client.get("/admin/tables").text
    assert director.start_round(0) == 1


def test_a_clock_synced_once_since_boot_stays_good(tmp_path, director, monkeypatch):
    monkeypatch.setenv("PATH", fake_chronyc(tmp_path, SYNCED)["PATH"])
    clock = fleet.guard_round_start(director, tmp_path)
    assert clock.state() == "synced"
    monkeypatch.setenv("PATH", fake_chronyc(tmp_path, LOCAL_ONLY)["PATH"])  # source gone
    assert clock.state() == "synced"  # it was right once since boot, and runs on
    assert director.start_round(0) == 1
    other_boot = fleet.ScorerClock(tmp_path, boot=str(tmp_path / "no-boot-id"))
    assert other_boot.state() == "unsynced"  # a new boot starts unsynced again


def test_kiosks_off_or_stale_and_malformed_reports(tmp_path, director, monkeypatch):
    monkeypatch.setenv("PATH", fake_chronyc(tmp_path, None)["PATH"])  # no chrony: not judged
    fleet.guard_round_start(director, tmp_path)
    now = time.time()
    fleet.record(director, 1, {"version": "0.1.0", "health": [], "offset": 0.2}, now)
    fleet.record(director, 2, {"version": "0.1.0", "health": [], "offset": -3.0}, now - 300)
    for junk in ("x", {"version": "0.1.0; drop", "health": [], "offset": 0},
                 {"version": "0.1.0", "health": ["on fire"], "offset": 0},
                 {"version": "0.1.0", "health": [], "offset": float("nan")}):
        fleet.record(director, 3, junk, now)
    assert [k.table for k in fleet.kiosks(director)] == [1, 2]  # the junk changed nothing
    assert director.start_round(0) == 1  # table 2 is off but not heard for 5 min
    fleet.record(director, 1, {"version": "0.1.0", "health": ["clock_off"], "offset": -0.6},
                 time.time())
    problems = fleet.round_start_problems(director, None, time.time())
    assert [key for key, _ in problems] == ["fleet.round.kiosks_off"]
    assert render(*problems[0], "zh-Hans") == (
        "以下平板与记分台的时钟相差超过 0.5 秒：第 1 桌（平板时钟快 0.6 秒）。"
        "它们的比赛计时会在错误的时刻开始；同步之前不能开始新一轮（请检查平板的网络，或重新启动平板）。")
    fleet.record(director, 2, {"version": "0.1.0", "health": [], "offset": -0.0002},
                 time.time())
    assert fleet.view(director, time.time())["kiosks"][2]["offset"] == "+0.000 s"  # not -0.000


def test_chrony_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", fake_chronyc(tmp_path, SYNCED)["PATH"])
    assert fleet.chrony_synced() is True
    monkeypatch.setenv("PATH", fake_chronyc(tmp_path, LOCAL_ONLY)["PATH"])
    assert fleet.chrony_synced() is False
    monkeypatch.setenv("PATH", fake_chronyc(tmp_path, None)["PATH"])
    assert fleet.chrony_synced() is None
    assert fleet.chrony_synced(str(tmp_path / "no-chronyc")) is None


def test_a_kiosk_switched_off_after_its_match_is_no_trouble_on_the_tables_page(tmp_path,
                                                                              director,
                                                                              monkeypatch):
    """Tables that finished and went quiet were counted under red 有问题 (and 离线) while
    their row said 正常; the results page and the hall call them 已下线, and so does this.
    A table quiet in the middle of its match is the problem, and its row says so in words,
    with when its kiosk was last heard from (its health, 正常, is no error)."""
    monkeypatch.setenv("PATH", fake_chronyc(tmp_path, None)["PATH"])
    fleet.guard_round_start(director, tmp_path)
    director.start_round(0)
    long_ago = time.time() - 600
    codes = director.store.open_codes(long_ago)
    for table in (1, 2):  # both kiosks paired and heard ten minutes ago, then no more
        director.store.pair(table, codes[table], f"pi-{table}", long_ago)
        fleet.record(director, table, {"version": "0.1.0", "health": [], "offset": 0.0},
                     long_ago)
    director.record_ruling(1, "forfeit", "EW", "未到场", confirm=True)  # table 1's match is over
    director.set_password("correct horse battery")
    client = TestClient(create_app(director), follow_redirects=False)
    client.post("/admin/login", data={"password": "correct horse battery"})
    page = client.get("/admin/tables").text
    chips = dict(re.findall(r'data-show="(\w+)"[^>]*>[^<]*<b>(\d+)</b>', page))
    assert (chips["problem"], chips["offline"]) == ("1", "1"), chips  # table 2 alone
    rows = dict(re.findall(r'<tr data-table="(\d+)"[^>]*>(.*?)</tr>', page, re.S))
    assert "已下线" in rows["1"] and "error" not in rows["1"]
    assert "离线" in rows["2"] and "error" not in rows["2"] and "最后联系" in rows["2"]
    said = re.search(r'<tr class="problem" data-for="2">(.*?)</tr>', page, re.S).group(1)
    assert "第 1 轮比赛中平板离线，最后联系" in said and "10 分钟前" in said


@pytest.mark.parametrize(("offset", "said"), [
    (-7200.0, {"zh-Hans": "平板时钟快 2 小时", "zh-Hant": "平板時鐘快 2 小時",
               "en": "kiosk clock 2 h fast"}),
    (90000.0, {"zh-Hans": "平板时钟慢 25 小时", "zh-Hant": "平板時鐘慢 25 小時",
               "en": "kiosk clock 25 h slow"}),
    (90.0, {"zh-Hans": "平板时钟慢 1.5 分钟", "zh-Hant": "平板時鐘慢 1.5 分鐘",
            "en": "kiosk clock 1.5 min slow"}),
    (-0.0002, {"zh-Hans": "与记分台一致", "zh-Hant": "與記分台一致",
               "en": "in step with the scorer"}),
])
def test_a_kiosks_clock_offset_is_said_as_fast_or_slow(offset, said):
    """The offset is the scorer's clock minus the kiosk's: a kiosk two hours ahead was shown
    as -7200 s, which people read as two hours behind. The console says fast or slow."""
    w = fleet.clock_words(offset)
    assert {lang: render(w.key, w.params, lang) for lang in said} == said
