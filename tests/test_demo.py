"""`make demo` as a newcomer runs it: the hall page answers, tables make progress through the
real sync path, and Ctrl-C stops everything, leaving no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from .helpers import ROOT, ctrl_c_reaches, fetch, free_port


def tables(url: str) -> list[dict]:
    return json.loads(fetch(url + "/api/tables", timeout=5))


@pytest.mark.process
@pytest.mark.timeout(180)
def test_make_demo_shows_tables_progressing_and_stops_cleanly(tmp_path):
    port = free_port()
    env = {**os.environ, "PORT": str(port), "SPEED": "400", "DEMO_DATA": str(tmp_path)}
    demo = subprocess.Popen(["make", "-s", "demo"], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=ctrl_c_reaches)
    url = f"https://127.0.0.1:{port}"
    seen: list[int] = []
    quiet: set[int] = set()  # tables the director's page showed offline
    panel = None  # the hall's pairing panel before round 1 starts
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                rows = tables(url)
            except OSError:
                rows = None
            hands = None if rows is None else sum(t["hand"] or 0 for t in rows)
            quiet |= {t["table"] for t in rows or () if t["link"]["state"] == "offline"}
            if hands is not None:
                seen.append(hands)
                if panel is None:
                    snap = json.loads(fetch(url + "/api/hall", timeout=5))
                    if snap["pairings_round"]:
                        panel = snap
            if len(seen) >= 2 and seen[-1] > seen[0] and seen[-1] >= 16:
                break
            assert demo.poll() is None, demo.stdout.read()
            time.sleep(0.5)
        assert b"<html" in fetch(url + "/", timeout=5).lower()
        assert seen and seen[-1] > seen[0], seen  # hands are being played and synced
        # a demo kiosk keeps its link between matches, as a real one does: never offline
        assert not quiet, f"tables shown offline: {sorted(quiet)}"
        # between rounds the hall showed the next round's pairings before it started
        assert panel is not None and panel["pairings_round"] == 1
        assert len(panel["pairings"]) == 8
        hall = json.loads(fetch(url + "/api/hall", timeout=5))
        assert hall["event"]["name"].startswith("厦门") and len(hall["standings"]) == 16
    finally:
        os.killpg(demo.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
        out, _ = demo.communicate(timeout=60)
    # What the newcomer reads, in Chinese: where to look, why the browser warns, the password
    assert f"大厅页面：{url}/" in out and f"裁判长后台：{url}/admin" in out
    assert "记分台自己生成的证书" in out and "裁判长后台密码：" in out
    assert "演示：第 1 轮开赛" in out and "演示：正在停止" in out
    with pytest.raises(ProcessLookupError):
        os.killpg(demo.pid, 0)  # nothing of the demo is left running


@pytest.mark.unit
def test_a_tables_link_trouble_is_said_in_words(capsys):
    from kiosk.errors import LinkError
    from kiosk.sim.demo import _sayer

    say = _sayer("zh-Hans")
    say("demo.table_error", table=3, reason=LinkError("connection refused"))
    say("demo.table_error", table=3, reason=LinkError("409", 409, "a.key.nobody.wrote"))
    out = capsys.readouterr().out.splitlines()
    assert out == ["演示：第 3 桌：记分台没有应答",
                   "演示：第 3 桌：出现意外问题，操作未完成，已记录的数据没有丢失。"
                   "请告知裁判或技术人员。"]


@pytest.mark.unit
def test_every_start_of_the_demo_says_the_admin_password_and_where_it_is_kept(tmp_path):
    from kiosk.rules import Rulesets
    from kiosk.scorer.director import Director
    from kiosk.scorer.store.database import Store
    from kiosk.sim.demo import password_words

    def start() -> tuple[str, dict]:  # a start of the demo: its scorer's own connection
        director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), Rulesets.load([]))
        try:
            return password_words(director, tmp_path)
        finally:
            director.store.close()

    first, second = start(), start()
    assert first[0] == second[0] == "demo.password"
    assert first[1] == second[1] and first[1]["path"] == tmp_path / "admin-password.txt"
    assert first[1]["password"] == first[1]["path"].read_text().strip()
    assert oct(first[1]["path"].stat().st_mode & 0o777) == "0o600"
    director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), Rulesets.load([]))
    director.set_password("a-new-password-2026")  # the head referee changed it
    director.store.close()
    assert start() == ("demo.password_changed", {"path": tmp_path / "admin-password.txt"})


@pytest.mark.unit
def test_a_demo_table_that_cannot_pair_at_once_tries_again(monkeypatch, tmp_path):
    from kiosk.errors import LinkError
    from kiosk.sim import demo

    failures = [LinkError("locked", 500, "web.http.500"), LinkError("no answer")]
    said, waited = [], []

    def join(*args):
        if failures:
            raise failures.pop(0)
        return "the link"

    monkeypatch.setattr(demo, "join", join)
    link = demo.join_retrying(tmp_path, 7, "https://x", "123456", {},
                              lambda key, **kw: said.append((key, kw["table"])),
                              lambda s: waited.append(s) or False)
    assert link == "the link" and said == [("demo.table_error", 7)] * 2
    assert waited == [demo.PAIR_WAIT, demo.PAIR_WAIT * 2]  # waiting longer each time
    monkeypatch.setattr(demo, "join", lambda *a: (_ for _ in ()).throw(
        LinkError("wrong code", 403, "sync.wrong-code")))
    with pytest.raises(LinkError):  # a refusal is not tried again
        demo.join_retrying(tmp_path, 7, "https://x", "123456", {}, lambda *a, **k: None,
                           lambda s: False)


@pytest.mark.process
@pytest.mark.timeout(120)
def test_a_demo_started_again_after_its_event_ended_keeps_the_hall_open(tmp_path):
    from kiosk.rules import Rulesets
    from kiosk.scorer.director import Director
    from kiosk.scorer.store.database import Store
    from kiosk.sim.demo import roster

    # What a finished `make demo` leaves behind: its event played to the end, closed.
    director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), Rulesets.load([]))
    director.create_event("厦门升级邀请赛（演示）", "xiamen-2015", seed=2026)
    director.import_teams(roster())
    director.close_event(confirm=True)
    director.store.close()
    port = free_port()
    demo = subprocess.Popen(["make", "-s", "demo"], cwd=ROOT, text=True,
                            env={**os.environ, "PORT": str(port), "DEMO_DATA": str(tmp_path)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=ctrl_c_reaches)
    url = f"https://127.0.0.1:{port}"
    try:
        said = []
        for line in demo.stdout:  # (the test's timeout ends a demo that never says it)
            said.append(line)
            if line.startswith("演示：上次的演示赛事已经结束"):
                break
        assert "make demo FRESH=1" in said[-1], said
        hall = json.loads(fetch(url + "/api/hall", timeout=5))  # the hall stays open
        assert hall["event"]["status"] == "closed" and len(hall["standings"]) == 16
        assert demo.poll() is None
    finally:
        os.killpg(demo.pid, signal.SIGINT)
        out, _ = demo.communicate(timeout=60)
    assert "演示：正在停止" in out
    with pytest.raises(ProcessLookupError):
        os.killpg(demo.pid, 0)  # nothing of the demo is left running
