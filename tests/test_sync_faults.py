"""The kiosk's outbox against the scorer when things go wrong: a scorer that is down, killed
mid-ingest, lost and rebuilt from a backup; kiosks killed; a broken kiosk swapped mid-match;
a kiosk with another copy of the ruleset. Afterwards every event is at the scorer once."""

from __future__ import annotations

import io
import random
import shutil
import subprocess
import sys
import time
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from kiosk.errors import LinkError
from kiosk.hw.door import Door
from kiosk.hw.runner import TableRunner
from kiosk.i18n import render
from kiosk.protocol.wire import event_hash
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.director.folds import Unscored
from kiosk.scorer.director.results import unscored_words
from kiosk.scorer.hall.snapshot import tables as hall_tables
from kiosk.scorer.net.tls import make_identity
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sim.table import simulate
from kiosk.sync.join import join, pair_later
from kiosk.sync.link import Credential, ScorerLink
from kiosk.sync.outbox import Outbox
from kiosk.sync.wiring import connect
from kiosk.table.clock import SystemClock
from kiosk.table.journal import Journal, table_path
from kiosk.table.session import TableSession
from kiosk.table.state import MatchState
from kiosk.ui.presenter import present

from .helpers import ROOT, ScorerProcess, kiosk

RULESETS = Rulesets.load([])
TEAMS = "name,player1,player2\n甲队,赵,钱\n乙队,孙,李\n丙队,周,吴\n丁队,郑,王\n".encode()


def hall(path, tables=2):
    director = Director(Store(path / "scorer.sqlite"), RULESETS)
    director.create_event("测试赛", "xiamen-2015", seed=1)
    director.import_teams(TEAMS)
    return director, director.add_tables(tables)


def journal_events(data, table):
    journal = Journal.reader(table_path(data, table))
    events = [e.to_json() for e in journal.events()]
    journal.close()
    return events


@pytest.mark.unit
def test_link_state_offline_behind_then_in_sync(tmp_path):
    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    link = join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    simulate(tmp_path / "k", 1, RULESETS, "xiamen-2015", 2, 1, 1e9, io.StringIO(),
             assignment=link.assignment()["assignment"]).close()
    unsent = len(journal_events(tmp_path / "k", 1))
    pinned = replace(link.credential, certificate=make_identity(["x"]).certificate)
    dead = ScorerLink("https://127.0.0.1:9", credential=pinned, timeout=0.5)
    offline = Outbox(table_path(tmp_path / "k", 1), dead)
    assert not offline.flush(timeout=1.0)
    state = offline.state
    assert (state.status, state.behind) == ("offline", unsent)
    assert state.offline_since is not None and "does not answer" in state.error
    outbox = Outbox(table_path(tmp_path / "k", 1), link)
    assert outbox.flush(timeout=10)
    assert (outbox.state.status, outbox.state.behind, outbox.state.offline_since) == \
        ("in-sync", 0, None)
    assert outbox.state.synchronised is True  # same machine, same clock
    assert director.store.events(1) == journal_events(tmp_path / "k", 1)


@pytest.mark.unit
def test_a_running_replacement_pairing_late_is_told_to_restart_and_then_downloads(tmp_path):
    """A replacement kiosk paired from its outbox (its first boot's code, the scorer late)
    cannot take the table's events into the journal its session writes: it is told to
    restart, with nothing saved; started again, it pairs before its session and downloads."""
    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    old, new = tmp_path / "old", tmp_path / "new"
    link = join(old, 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    simulate_synced(old, 1, RULESETS, link, 3, 1, 1e9, io.StringIO()).close()
    code = director.swap(1, confirm=True)
    session = TableSession.open(new, 1, RULESETS, SystemClock())  # the kiosk is running
    try:
        with pytest.raises(LinkError) as restart:
            join(new, 1, "http://testserver", code, RULESETS, client, running=True)
    finally:
        session.close()
    assert restart.value.key == "sync.pair-restart"
    assert restart.value.params == {"m": len(director.store.events(1))}
    assert Credential.load(new, 1) is None and journal_events(new, 1) == []
    join(new, 1, "http://testserver", code, RULESETS, client)  # the restart, before its session
    assert journal_events(new, 1) == director.store.events(1)


@pytest.mark.unit
def test_a_table_whose_first_code_waits_for_the_scorer_plays_on_its_own_meanwhile(tmp_path):
    """With its first boot's code pending and the scorer not answering, the setup said
    「本桌已连接记分台…」 and offered neither names nor rulesets: no match could be played."""
    from kiosk.table.view import snapshot
    from kiosk.ui.presenter import present

    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    k = tmp_path / "k"
    session = TableSession.open(k, 1, RULESETS, SystemClock())
    outbox = Outbox(table_path(k, 1), ScorerLink("http://127.0.0.1:9"), pair=lambda: join(
        k, 1, "http://testserver", codes[1], RULESETS, client, running=True))

    def setup_screen():
        return present(replace(snapshot(session), link=outbox.state), time.time(), "zh-Hans")

    try:
        screen = setup_screen()
        buttons = [b.action for g in screen.grids for b in g.buttons]
        assert "name:NS" in buttons and "setup:xiamen-2015" in buttons
        assert len([b for b in buttons if b.startswith("setup:")]) > 1  # any ruleset
        assert screen.lines == ("名字可以不填（个人赛不用队名）；选一套规则就开始比赛",)
        assert screen.strip[-1].value == "等待配对"
        journal = Journal.reader(table_path(k, 1))
        try:
            assert outbox.sync_once(journal)  # the scorer answers: paired, and so said
        finally:
            journal.close()
        assert not outbox.state.pairing and setup_screen().lines[0].startswith("本桌已连接记分台")
    finally:
        session.close()


@pytest.mark.unit
def test_a_first_code_turned_away_is_said_on_the_table_not_waited_for(tmp_path):
    """A mistyped code in kiosk.toml: the strip said 等待配对 for ever, the reason only in the
    system log."""
    from kiosk.table.view import snapshot
    from kiosk.ui.presenter import present

    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    wrong = f"{(int(codes[1]) + 1) % 10**6:06d}"
    k = tmp_path / "k"
    session = TableSession.open(k, 1, RULESETS, SystemClock())
    outbox = Outbox(table_path(k, 1), ScorerLink("http://127.0.0.1:9"),
                    pair=pair_later(k, 1, "http://testserver", wrong, RULESETS, client))

    def setup_screen(link):
        return present(replace(snapshot(session), link=link), time.time(), "zh-Hans")

    try:
        assert not outbox.flush(0.1)  # one try, turned away
        assert not outbox.flush(0.1)  # and not sent again: it would use up the code's tries
        assert director.store.code_states()[1] == "open"
        screen = setup_screen(outbox.state)
        assert screen.strip[-1].value == "配对未成"
        assert screen.lines[-1].startswith("配对未成：第 1 桌的配对码不对")
        assert "还可再试 2 次" in screen.lines[-1]
        assert "setup:xiamen-2015" in [b.action for g in screen.grids for b in g.buttons]
        # the scorer busy with other tables' pairings: still waiting, not 「差 0 条」
        busy = replace(outbox.state, status="behind", behind=0)
        assert setup_screen(busy).strip[-1].value == "等待配对"
        # refused already at the table's start (`kiosk table`): not sent from the thread
        at_start = LinkError("wrong code", 403, "sync.wrong-code-left", {"table": 1, "left": 2})
        with pytest.raises(LinkError) as again:
            pair_later(k, 1, "http://testserver", wrong, RULESETS, client, first=at_start)()
        assert again.value is at_start and director.store.code_states()[1] == "open"
    finally:
        session.close()


@pytest.mark.unit
def test_a_kiosk_with_another_copy_of_the_ruleset_is_refused(tmp_path):
    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    link = ScorerLink("http://testserver", client)
    with pytest.raises(LinkError) as refused:
        link.pair(codes[1], 1, "kiosk-x", {"xiamen-2015": "ab" * 32})
    sha = RULESETS["xiamen-2015"].sha256
    assert refused.value.status == 409
    assert sha in str(refused.value) and "ab" * 32 in str(refused.value)
    link.pair(codes[1], 1, "kiosk-x", {"xiamen-2015": sha})
    director.start_round(0)
    # A match set up with another copy anyway: kept (nothing is lost), never scored, and
    # the kiosk and the hall are told why, with both hashes.
    setup = {"device": "kiosk-x", "seq": 1, "match": "1", "kind": "setup",
             "data": {**director.assignment(1), "table": 1, "ruleset_sha256": "cd" * 32},
             "mono": 1.0, "wall": time.time(), "actor": "referee", "prev": ""}
    answer = link.send([setup], 0)
    assert answer["high_water"] == 1 and len(director.store.events(1)) == 1
    assert director.match_state(1, 1) is None  # (the hall folds; the batch's answer did not)
    (problem,) = link.send([], 0)["problems"]  # the kiosk hears of it at its next contact
    assert "cd" * 32 in problem and sha in problem
    assert hall_tables(director)[0]["error"] == problem
    admin = TestClient(create_app(director))  # the head referee sees it, in words
    admin.post("/admin/login", data={"password": director.first_password()})
    said = (f"平板设置这场比赛时用的 xiamen-2015 与记分台的这份不同（比赛的校验值 {'cd' * 32}，"
            f"记分台的 {sha}）：请告知技术人员")
    tables = admin.get("/admin/tables").text
    assert f"第 1 桌未计分：比赛 1 的第 1 条记录（设置比赛）：{said}" in tables
    assert f"未计分：比赛 1 的第 1 条记录（设置比赛）：{said}" in \
        admin.get("/admin/results?round=1").text
    english = admin.get("/admin/tables?lang=en").text
    assert "Table 1 not scored: match 1, event 1 (" in english and "cd" * 32 in english


@pytest.mark.unit
def test_a_match_the_rules_refuse_midway_is_named_in_words_never_in_python(tmp_path):
    director, codes = hall(tmp_path / "scorer")
    link = ScorerLink("http://testserver", TestClient(create_app(director)))
    link.pair(codes[1], 1, "kiosk-x", {"xiamen-2015": RULESETS["xiamen-2015"].sha256})
    director.start_round(0)
    setup = {"device": "kiosk-x", "seq": 1, "match": "1", "kind": "setup",
             "data": {**director.assignment(1), "table": 1}, "mono": 1.0,
             "wall": time.time(), "actor": "referee", "prev": ""}
    odd = {**setup, "seq": 2, "kind": "teleport", "data": {}, "prev": event_hash(setup)}
    assert link.send([setup, odd], 0)["high_water"] == 2  # kept: nothing is lost
    assert director.match_state(1, 1) is None
    (said,) = [render(w.key, w.params, "zh-Hans") for w in director.unscored(1)]
    assert said == "比赛 1 的第 2 条记录（teleport）：日志里有本机不认识的记录：请告知技术人员"
    # An error that has no words (a bug in the fold) is said as the catalog's unexpected.
    bug = unscored_words("1", Unscored(5, "press", None, "KeyError: 'seat'"))
    assert render(bug.key, bug.params, "zh-Hans") == "比赛 1 的第 5 条记录（按键）：" + \
        render("error.unexpected", {}, "zh-Hans")


@pytest.mark.unit
def test_a_broken_kiosk_is_swapped_mid_match_without_losing_anything(tmp_path):
    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    old, new = tmp_path / "old", tmp_path / "new"
    link = join(old, 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    simulate_synced(old, 1, RULESETS, link, 3, 1, 1e9, io.StringIO()).close()
    # Two more hands, then the kiosk breaks before it could send them.
    simulate(old, 1, RULESETS, "xiamen-2015", 5, 1, 1e9, io.StringIO()).close()
    assert len(journal_events(old, 1)) > len(director.store.events(1))
    code = director.swap(1, confirm=True)
    with pytest.raises(LinkError) as revoked:
        link.send([], 0)
    assert revoked.value.status == 401
    # Its SD card survived: the head referee imports it before pairing the replacement.
    imported, orphans = director.import_journal(1, table_path(old, 1))
    assert imported > 0 and orphans == 0
    assert director.store.events(1) == journal_events(old, 1)
    replacement = join(new, 1, "http://testserver", code, RULESETS, client)
    assert journal_events(new, 1) == journal_events(old, 1)  # it starts where the old left
    simulate_synced(new, 1, RULESETS, replacement, 1000, 2, 1e9, io.StringIO()).close()
    assert director.match_state(1, 1).phase == "over"
    assert director.store.events(1) == journal_events(new, 1)
    devices = {e["device"] for e in director.store.events(1)}
    assert len(devices) == 2  # the old kiosk's events and the new one's, in one sequence


@pytest.mark.sim
def test_a_lost_scorer_is_rebuilt_from_its_backup_and_the_kiosks_resending(tmp_path):
    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    dirs = {t: tmp_path / f"k{t}" for t in codes}
    links = {t: join(dirs[t], t, "http://testserver", c, RULESETS, client)
             for t, c in codes.items()}
    director.start_round(0)
    backup = director.store.backup(tmp_path / "backups" / "scorer.sqlite")
    for t, link in links.items():
        simulate_synced(dirs[t], t, RULESETS, link, 1000, t, 1e9, io.StringIO()).close()
    before = director.standings()
    assert sum(s.points for s in before) == 6  # two matches, 3 big points a win
    director.store.close()
    rebuilt_dir = tmp_path / "rebuilt"
    rebuilt_dir.mkdir()
    shutil.copy(backup, rebuilt_dir / "scorer.sqlite")
    rebuilt = Director(Store(rebuilt_dir / "scorer.sqlite"), RULESETS)
    assert rebuilt.standings() != before and rebuilt.store.events(1) == []
    client = TestClient(create_app(rebuilt))
    for t in dirs:  # each kiosk's outbox, told a lower high-water mark, sends it all again
        link = ScorerLink("http://testserver", client, Credential.load(dirs[t], t))
        assert Outbox(table_path(dirs[t], t), link).flush(timeout=10)
        assert rebuilt.store.events(t) == journal_events(dirs[t], t)
    assert rebuilt.standings() == before


@pytest.mark.process
@pytest.mark.timeout(300)
def test_sync_survives_a_killed_scorer_and_killed_kiosks(tmp_path):
    """SIGKILL the scorer (restarting it after a pause) and the kiosk processes at random
    moments while a match is played and sent; then every event is at the scorer once."""
    rng = random.Random(11)
    data = tmp_path / "scorer"
    director, codes = hall(data)  # table 2's match is not played here
    director.store.close()
    scorer = ScorerProcess(data).start()
    kills = {"scorer": 0, "kiosk": 0}
    try:
        join(tmp_path / "k", 1, scorer.url, codes[1], RULESETS).client.close()
        assert kiosk("scorer", "admin", "--data", str(data), "start-round", "--in", "0"
                     ).returncode == 0
        for run_no in range(12):  # one more hand a run, played at 300x: about a second
            before = newest(tmp_path / "k")
            # The kiosk is killed in the first runs, before the match can be over (a resumed
            # hand is played another way, so how long the match lasts varies), then every
            # third; a run to be killed plays at 30x, so the kill lands inside its hand.
            kill_kiosk = run_no < 3 or run_no % 3 == 2
            speed = "30" if kill_kiosk else "300"
            run = subprocess.Popen(
                [sys.executable, "-m", "kiosk.cli.main", "simulate", "--data",
                 str(tmp_path / "k"), "--table", "1", "--scorer", scorer.url, "--hands",
                 str(run_no + 1), "--seed", "3", "--speed", speed], cwd=ROOT,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if kill_kiosk:  # mid-hand, once it is writing
                deadline = time.monotonic() + 5  # (a finished match writes nothing)
                while newest(tmp_path / "k") <= before and time.monotonic() < deadline:
                    time.sleep(0.02)
                time.sleep(rng.uniform(0.0, 0.3))
                if run.poll() is None:
                    run.kill()
                    kills["kiosk"] += 1
            else:
                time.sleep(rng.uniform(0.3, 1.0))
            if run_no % 2 == 0:  # and the scorer, while the kiosk sends
                scorer.kill()
                kills["scorer"] += 1
                time.sleep(rng.uniform(0.2, 1.0))
                scorer.start()
            run.wait(timeout=120)
        final = kiosk("simulate", "--data", str(tmp_path / "k"), "--table", "1",
                      "--scorer", scorer.url, "--speed", "1e9")
        assert final.returncode == 0, final.stderr
    finally:
        scorer.kill(15)
    assert phase(tmp_path / "k") == "over"
    assert kills["scorer"] == 6 and kills["kiosk"] >= 3, kills
    store = Store(data / "scorer.sqlite")
    assert store.events(1) == journal_events(tmp_path / "k", 1)
    assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.close()


def newest(data):
    """The kiosk journal's last sequence number, read as another process would."""
    path = table_path(data, 1)
    if not path.exists():
        return 0
    journal = Journal.reader(path)
    try:
        return journal.newest()
    finally:
        journal.close()


def phase(data):
    journal = Journal.reader(table_path(data, 1))
    state = MatchState(RULESETS)
    for event in journal.events():
        state.apply(event)
    journal.close()
    return state.phase


@pytest.mark.unit
def test_the_kiosk_sets_up_the_assigned_round_and_starts_it_with_the_hall(tmp_path):
    """The app's wiring without a window: the outbox's thread reaches the runner only through
    the door; the round's match clock starts at the scorer's start time; the hall mute and the
    link's state reach the table."""
    director, codes = hall(tmp_path / "scorer")
    client = TestClient(create_app(director))
    link = join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(start_in=0.6)
    director.mute(True)
    session = TableSession.open(tmp_path / "k", 1, RULESETS, SystemClock())
    door = Door()
    runner = TableRunner(session, door)
    outbox = Outbox(table_path(tmp_path / "k", 1), link)
    connect(outbox, door, session.clock)
    journal = Journal.reader(table_path(tmp_path / "k", 1))
    outbox.sync_once(journal)
    runner.step()
    assert session.state.phase == "ready"
    assert session.state.setup["teams"] == director.assignment(1)["teams"]
    assert not session.state.match_started and runner.lights.muted
    deadline = time.monotonic() + 5
    while not session.state.match_started and time.monotonic() < deadline:
        runner.step(timeout=0.02)
    assert session.state.match_started
    outbox.sync_once(journal)
    runner.step()
    status = present(runner.view, session.clock.now(), "en").status
    assert "Scorer: in sync" in status and "Table 1" in status
    assert director.match_state(1, 1).match_started  # the scorer saw the start
    journal.close()
    session.close()


@pytest.mark.process
def test_a_scorer_that_takes_the_connection_but_does_not_answer_is_said_as_slow():
    """A scorer busy with a hall's pairings (its TLS handshake not answered in time): the
    technician read 「记分台没有应答。请检查……记分台是否正在运行」 of a scorer that was running."""
    import socket
    import threading

    from kiosk.cli.table_cmd import not_paired
    from kiosk.i18n import explain

    listener = socket.create_server(("127.0.0.1", 0))
    held = []
    threading.Thread(target=lambda: held.append(listener.accept()), daemon=True).start()
    link = ScorerLink(f"http://127.0.0.1:{listener.getsockname()[1]}", timeout=0.5)
    try:
        with pytest.raises(LinkError) as slow:
            link.pair("123456", 3, "kiosk-3", {})
    finally:
        link.close()
        listener.close()
        for connection, _ in held:
            connection.close()
    assert (slow.value.status, slow.value.key) == (None, "sync.slow")
    said = explain(not_paired(slow.value, 3), "zh-Hans")
    assert "记分台 0.5 秒内没有应答：它可能正忙" in said and "是否正在运行" not in said
