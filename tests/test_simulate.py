"""Simulated tables, the journal commands, and crash safety under SIGKILL."""

from __future__ import annotations

import io
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from kiosk.rules import replay
from kiosk.sim.table import simulate
from kiosk.table.journal import table_path
from kiosk.table.session import TableSession

from .helpers import ROOT, jsonl
from .helpers import cli as kiosk
from .helpers import kiosk as program

HAND_FIELDS = ("hand", "deal", "dealer", "level", "total", "result", "advance", "levels",
               "next_dealer", "partner", "awards", "totals")


def same_hand(printed: dict, replayed: dict) -> bool:
    return all(printed.get(k) == replayed.get(k) for k in HAND_FIELDS)


def check_table(data, table, rulesets, printed):
    """Every printed hand is in the journal's export, which replays to what the table shows."""
    conn = sqlite3.connect(table_path(data, table))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    seqs = [row[0] for row in conn.execute("SELECT seq FROM events ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1))
    conn.close()
    session = TableSession.open(data, table, rulesets)
    record = session.export()
    lines = list(replay(record, rulesets))
    key = "hand" if "hands" in record else "deal"
    by_number = {line[key]: line for line in lines}
    for line in printed:
        assert same_hand(line, by_number[line[key]]), (line, by_number.get(line[key]))
    if session.state.levels() is not None:
        assert tuple(lines[-1]["levels"].values()) == session.state.levels()
        assert lines[-1]["winner"] == session.state.winner()
    else:
        assert lines[-1]["totals"] == dict(session.state.core.totals)
    session.close()
    return record, lines


@pytest.mark.sim
@pytest.mark.parametrize("ruleset_id", ["xiamen-2015", "standard-80fen", "chaodipi-2011",
                                        "shuangsheng-2011"])
def test_whole_simulated_match(tmp_path, rulesets, ruleset_id):
    out = io.StringIO()
    session = simulate(tmp_path, 4, rulesets, ruleset_id, 1000, seed=11, speed=float("inf"),
                       out=out)
    assert session.state.phase == "over"
    session.close()
    printed = jsonl(out.getvalue())
    _record, lines = check_table(tmp_path, 4, rulesets, printed)
    assert len(printed) == len(lines)
    if ruleset_id == "shuangsheng-2011":
        assert len(lines) == 16
    else:
        assert lines[-1]["winner"] in ("NS", "EW")


@pytest.mark.process
def test_simulate_command_resumes_a_match(tmp_path, rulesets):
    args = ("simulate", "--data", str(tmp_path), "--table", "7", "--ruleset", "xiamen-2015",
            "--speed", "1e9", "--seed", "2")
    first = program(*args, "--hands", "2")
    assert first.returncode == 0, first.stderr
    again = program(*args[:6], "chaodipi-2011", *args[7:], "--hands", "4")  # the journal's wins
    assert again.returncode == 0, again.stderr
    printed = jsonl(first.stdout) + jsonl(again.stdout)
    assert [line["hand"] for line in printed] == list(range(1, len(printed) + 1))
    assert 3 <= len(printed) <= 4 or printed[-1]["winner"]
    record, _ = check_table(tmp_path, 7, rulesets, printed)
    assert record["ruleset"] == "xiamen-2015"


@pytest.mark.unit
def test_journal_show_and_export(tmp_path, rulesets):
    simulate(tmp_path, 5, rulesets, "standard-80fen", 3, seed=4, speed=float("inf"),
             out=io.StringIO()).close()
    shown = kiosk("journal", "show", "--data", str(tmp_path), "--table", "5", "--lang", "en")
    assert shown.returncode == 0, shown.stderr
    assert " match set up " in shown.stdout and " button pressed " in shown.stdout
    assert "Score sheet" in shown.stdout and "Signatures" in shown.stdout
    exported = kiosk("journal", "export", "--data", str(tmp_path), "--table", "5",
                     "--round", "1")
    assert exported.returncode == 0
    replayed = kiosk("replay", "-", stdin=exported.stdout)
    assert replayed.returncode == 0 and len(jsonl(replayed.stdout)) == 3
    missing = kiosk("journal", "export", "--data", str(tmp_path), "--table", "6")
    assert missing.returncode == 2 and "中没有第 6 桌的日志" in missing.stderr
    no_round = kiosk("journal", "show", "--data", str(tmp_path), "--table", "5", "--round", "9")
    assert no_round.returncode == 2 and "没有“9”这一轮；有的轮次：1" in no_round.stderr


@pytest.mark.unit
def test_simulate_refuses_an_unknown_ruleset(tmp_path):
    done = kiosk("simulate", "--data", str(tmp_path), "--table", "1", "--ruleset", "nope")
    assert done.returncode == 2 and done.stderr.startswith("kiosk simulate：没有规则“nope”；")


@pytest.mark.unit
def test_a_broken_journal_file_is_a_clear_error(tmp_path):
    table_path(tmp_path, 3).write_bytes(b"this is not a database" * 100)
    done = kiosk("journal", "show", "--data", str(tmp_path), "--table", "3")
    assert done.returncode == 2 and "日志 table-3.sqlite 已损坏" in done.stderr


KILLS = 50


def run_until_killed(command: list[str], hands: int, rng: random.Random
                     ) -> tuple[subprocess.Popen, bytes, bool]:
    """Run `command` and kill it at a random moment once it has printed `hands` more hands:
    by its progress, not the wall clock, so a busy machine only makes it slower. Its output,
    and whether it was killed (False: it finished first)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    lines: queue.Queue[bytes] = queue.Queue()
    reader = threading.Thread(target=lambda: [*map(lines.put, proc.stdout), lines.put(b"")],
                              daemon=True)
    reader.start()
    got: list[bytes] = []
    while len(got) < hands and (line := lines.get(timeout=60)):  # (a deadline, not a wait)
        got.append(line)
    killed = False
    if len(got) == hands:
        time.sleep(rng.uniform(0, 0.02))  # somewhere in the next hand
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    reader.join(timeout=60)
    while (line := lines.get_nowait() if not lines.empty() else b""):
        got.append(line)
    return proc, b"".join(got), killed


@pytest.mark.process
def test_sigkill_at_random_moments_loses_nothing(tmp_path, rulesets):
    rng = random.Random(20261129)
    kills = table = 0
    while kills < KILLS:
        table += 1
        ruleset_id = ("xiamen-2015", "chaodipi-2011", "standard-80fen")[table % 3]
        printed: list[dict] = []
        while True:
            proc, out, killed = run_until_killed(
                [sys.executable, "-m", "kiosk.cli.main", "simulate", "--data", str(tmp_path),
                 "--table", str(table), "--ruleset", ruleset_id, "--speed", "1e9",
                 "--seed", str(table)], rng.randint(1, 2), rng)
            kills += killed
            complete = out.decode()[: out.decode().rfind("\n") + 1]
            printed.extend(jsonl(complete))
            if proc.returncode == 0:
                break
            assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()
            if kills > KILLS * 3:
                pytest.fail("the simulated match never finished")
        check_table(tmp_path, table, rulesets, printed)
        numbers = [line["hand"] for line in printed]
        assert numbers == sorted(set(numbers))  # no hand printed twice, none out of order
    assert kills >= KILLS and table >= 1



@pytest.mark.unit
def test_a_forfeit_ruled_in_the_middle_of_a_match_ends_the_simulation(tmp_path, rulesets):
    """The head referee's forfeit reaches the table between two of the bots' steps (a team
    withdrew mid-match): the simulation stops there, the match over as ruled. It crashed
    with AttributeError: '_Bot' object has no attribute '_over' (the demo too)."""
    def follow(session):
        if len(session.state.played) >= 2:
            session.follow_ruling("EW", "forfeit", "东西队退赛")

    out = io.StringIO()
    session = simulate(tmp_path, 3, rulesets, "xiamen-2015", 1000, seed=5,
                       speed=float("inf"), out=out, follow=follow)
    assert session.state.phase == "over"
    assert len(session.state.played) == 2  # nothing played after the ruling
    session.close()
    assert len(jsonl(out.getvalue())) == 2
