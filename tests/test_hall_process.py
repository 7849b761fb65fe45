"""The hall's frames built by a process of their own (`hall/process.py`), as the real server
runs them: the screens, a phone and a kiosk's answer get what the child folded while the server
folds nothing; a killed child is replaced and the hall goes on from its last serial; the
server's own folds, when the head referee's pages need them, catch up from the child's
checkpoint; a finished Swiss round is paired ahead from what the child folded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kiosk.errors import PairingPending
from kiosk.rules import Rulesets
from kiosk.scorer import terminal
from kiosk.scorer.director import Director
from kiosk.scorer.director.folds import Folds
from kiosk.scorer.hall.process import Sent
from kiosk.scorer.hall.snapshot import tables as hall_tables
from kiosk.scorer.pipes import DETAILS_ENV, HEAD, receive
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sync.link import ScorerLink

from .browser import serve
from .hall_events import Tables
from .hall_events import hall as make_hall

pytestmark = pytest.mark.process
RULESETS = Rulesets.load([])
SHOWN = ("table", "round", "ns", "ew", "hand", "levels", "dealer", "phase", "result", "error")


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def until(check: Callable[[], Any], what: str, within: float = 60.0) -> Any:
    """`check()`'s first true value (the child builds on its own time: a condition, waited
    for, not a time asserted)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"never: {what}")


def another(director: Director) -> Tables:
    """The tables' events written through a connection of their own (the server's is its
    loop's)."""
    return Tables(Director(Store(director.store.path), RULESETS))


def fresh_rows(path: Path) -> list[dict[str, Any]]:
    """Every table's row as a new director folds it from the store, in this process."""
    return [{k: row[k] for k in SHOWN} for row in hall_tables(Director(Store(path), RULESETS))]


def shown(url: str, wanted: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The hall's snapshot if its tables' rows are `wanted`, else None."""
    snap = get(url + "/api/hall")
    return snap if [{k: row[k] for k in SHOWN} for row in snap["tables"]] == wanted else None


def test_the_hall_is_folded_and_built_by_its_own_process(tmp_path):
    director = make_hall(tmp_path)
    director.start_round(0)
    tables = another(director)
    with serve(create_app(director, processes=True)) as live:
        first = get(live.url + "/api/hall")
        for table in (1, 2, 3, 4):
            tables.post(table, 120)
        wanted = fresh_rows(director.store.path)
        assert wanted[0]["hand"] > 1  # (hands were played)
        now = until(lambda: shown(live.url, wanted), "the hall shows the tables' hands")
        assert now["serial"] > first["serial"]
        assert director.folds.rowid == 0 and not director.folds.tables  # the server: no fold
        # A phone's team, by its id in any letter case; no such team: 404.
        ns = tables.director.assignments(1)[0][1]
        view = get(f"{live.url}/api/team/{ns.upper()}")
        assert view["team"]["id"] == ns and view["table"]["hand"] == wanted[0]["hand"]
        with pytest.raises(urllib.error.HTTPError) as missing:
            get(live.url + "/api/team/nobody")
        assert missing.value.code == 404  # in words, as any refusal under /api/
        assert json.loads(missing.value.read())["message"] == "没有这支队伍：请检查队伍编号。"
        assert director.folds.rowid == 0


def test_a_kiosk_hears_the_hall_process_s_problems_with_its_match(tmp_path):
    director = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    director.create_event("测试赛", "xiamen-2015", seed=1)
    director.import_teams("name\n甲队\n乙队\n".encode())
    codes = director.add_tables(1)
    admin = Director(Store(director.store.path), RULESETS)  # (the server's is its loop's)
    with serve(create_app(director, processes=True)) as live:
        link = ScorerLink(live.url, httpx.Client(timeout=10))
        sha = RULESETS["xiamen-2015"].sha256
        link.pair(codes[1], 1, "kiosk-x", {"xiamen-2015": sha})
        admin.start_round(0)
        # A match set up with another copy of the ruleset: kept, never scored, and said why.
        setup = {"device": "kiosk-x", "seq": 1, "match": "1", "kind": "setup",
                 "data": {**admin.assignment(1), "table": 1, "ruleset_sha256": "cd" * 32},
                 "mono": 1.0, "wall": time.time(), "actor": "referee", "prev": ""}
        assert link.send([setup], 0)["high_water"] == 1
        (problem,) = until(lambda: link.send([], 0)["problems"], "the kiosk hears why")
        assert "cd" * 32 in problem and sha in problem
        hall_row = until(lambda: get(live.url + "/api/hall")["tables"][0]["error"],
                         "the hall shows it")
        assert hall_row == problem
        assert director.folds.rowid == 0  # (the child folded it, not the server)


def test_a_killed_hall_process_is_replaced_and_the_hall_goes_on(tmp_path):
    director = make_hall(tmp_path)
    director.start_round(0)
    tables = another(director)
    with serve(create_app(director, processes=True)) as live:
        app = live.server.config.app
        tables.post(1, 120)
        wanted = fresh_rows(director.store.path)
        before = until(lambda: shown(live.url, wanted), "table 1's first hands")
        child = app.feed.remote._process
        os.kill(child.pid, signal.SIGKILL)
        until(lambda: app.feed.remote._process is not child, "another hall process")
        tables.post(1, 240)
        later = fresh_rows(director.store.path)
        assert later[0]["hand"] > wanted[0]["hand"]
        after = until(lambda: shown(live.url, later), "the later hands")
        assert after["serial"] > before["serial"]  # (a screen's ?since= stays meaningful)


def test_the_server_s_folds_catch_up_from_a_newer_checkpoint_only(tmp_path):
    director = make_hall(tmp_path)
    director.start_round(0)
    tables, db = Tables(director), director.store.db.conn
    checkpoint = tmp_path / "folds.sqlite"
    for table in (1, 2):
        tables.post(table, 60)
    hall_process = Folds(RULESETS)  # what the child holds
    hall_process.update(db)
    server = Folds(RULESETS)  # the server's, behind it
    server.update(db)
    tables.post(2, 150)
    hall_process.update(db)
    hall_process.save(checkpoint)
    kept = server.tables[1].matches["1"]
    assert server.load(checkpoint, db, newer=True)
    assert server.rowid == hall_process.rowid
    assert server.tables[1].matches["1"] is kept  # unchanged there: not loaded again
    assert server.tables[2].revisions == hall_process.tables[2].revisions
    assert server.tables[2].matches["1"].played == hall_process.tables[2].matches["1"].played
    # Not further on than these folds: left alone.
    tables.post(1, 150)
    server.update(db)
    mark = server.rowid
    assert not server.load(checkpoint, db, newer=True) and server.rowid == mark
    fresh = Folds(RULESETS)
    fresh.update(db)
    assert {n: f.revisions for n, f in server.tables.items()} == \
        {n: f.revisions for n, f in fresh.tables.items()}


def test_a_finished_swiss_round_is_paired_ahead_with_no_fold_in_the_server(tmp_path):
    director = make_hall(tmp_path)
    director.start_round(0)
    tables = another(director)
    with serve(create_app(director, processes=True)) as live:
        get(live.url + "/api/hall")
        tables.finish_round()
        pairer = director.pairer  # the server's worker (the app's lifespan set it)
        until(lambda: pairer._done, "round 2 paired ahead")
        ((args, pairing),) = pairer._done
        assert pairing.pairs and director.folds.rowid == 0  # (the child's fold, not the server's)
        # What the head referee's draft will ask: the same field, so it is answered at once.
        probe = Director(Store(director.store.path), RULESETS)
        probe.pairer = asked = Sent()  # type: ignore[assignment]
        with pytest.raises(PairingPending):
            probe.next_round(ahead=True)
        assert asked._asked == args


WORKERS = ["kiosk.scorer.hall.process", "kiosk.scorer.checker", "kiosk.scorer.director.pairer"]


@pytest.mark.parametrize("module", WORKERS)
def test_a_crashing_worker_leaves_its_traceback_in_the_details_never_on_the_terminal(
        module, tmp_path):
    details = tmp_path / terminal.DETAILS
    details.write_text("before\n", encoding="utf-8")
    env = {**os.environ, DETAILS_ENV: str(details)}
    nonsense = HEAD.pack(5) + b"nope!"  # (no pickle: a bug of the server's, say)
    done = subprocess.run([sys.executable, "-m", module], input=nonsense, env=env,
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (1, b"")
    kept = details.read_text("utf-8")
    assert kept.startswith("before\n")  # (added to, not replaced)
    assert f" {module} (process " in kept and "Traceback (most recent call last)" in kept
    assert "UnpicklingError" in kept


def test_a_worker_that_dies_in_c_leaves_its_python_stack_in_the_details(tmp_path):
    details = tmp_path / terminal.DETAILS
    env = {**os.environ, DETAILS_ENV: str(details)}
    with subprocess.Popen([sys.executable, "-m", "kiosk.scorer.checker"], env=env,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as worker:
        assert worker.stdout is not None
        assert receive(worker.stdout) == "started"  # (its imports done, waiting for a batch)
        worker.send_signal(signal.SIGSEGV)
        _, said = worker.communicate(timeout=60)
    assert (worker.returncode, said) == (-signal.SIGSEGV, b"")
    assert "Segmentation fault" in details.read_text("utf-8")


@pytest.mark.parametrize("module", WORKERS)
def test_a_worker_whose_server_stopped_as_it_started_ends_saying_nothing(module):
    """(A scorer stopped while its worker starts closes the pipe before saying anything: the
    worker's terminal is the scorer's, where a traceback would be a developer's English.)"""
    done = subprocess.run([sys.executable, "-m", module], stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=120)
    assert (done.returncode, done.stderr.decode()) == (0, "")
