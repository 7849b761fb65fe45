"""Benchmark: the table session and its journal.

    .venv/bin/python bench/bench_session.py [--presses 2000] [--rows 2000] [--dir DIR]

Prints
  press → event   latency of TableSession.press (checked, journaled durably, folded): p50, p99
  pause key       the referee's pause key to the clocks stopped (journaled, folded), and its
                  ratio to a press
  journal appends per second with synchronous=FULL (one event a transaction), and the same rows
                  through plain sqlite3 insert-and-commit on the same disk in the same run, with
                  the same WAL/FULL settings; the ratio of the two.
DIR defaults to a temporary directory on the disk that holds this checkout (/tmp may be RAM).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from kiosk.rules import Rulesets
from kiosk.table.clock import ManualClock
from kiosk.table.journal import Journal
from kiosk.table.session import SessionConfig, TableSession


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def playing_table(directory: Path) -> tuple[ManualClock, TableSession]:
    """A table whose first hand is in play (the bury done)."""
    clock = ManualClock()
    session = TableSession.open(directory, 1, Rulesets.load(), clock, SessionConfig())
    session.setup_match(event="bench", round="1", teams={}, players={},
                        ruleset="standard-80fen")
    session.grab_dealer("N")
    session.declare_trump("♠", "N")
    session.start_bury()
    session.press("N")
    return clock, session


def press_latency(directory: Path, presses: int) -> list[float]:
    clock, session = playing_table(directory)
    latencies = []
    for _ in range(presses):
        if session.state.clock.done:  # every trick played: the next hand (not timed)
            next_hand(session)
        clock.advance(1.5)
        seat = session.state.clock.seat or "N"
        start = time.perf_counter()
        session.press(seat)
        latencies.append(time.perf_counter() - start)
    session.close()
    return latencies


def next_hand(session: TableSession) -> None:
    session.end_play()
    session.enter_points(60)
    session.finish_entries()
    session.confirm("N")
    session.confirm("E")
    if session.state.phase != "ready":  # the match is over: another round
        session.setup_match(event="bench", round=str(len(session.journal.matches()) + 1),
                            teams={}, players={}, ruleset="standard-80fen")
    if session.state.draft.dealer is None:
        session.grab_dealer("N")
    session.declare_trump("♠", "N")
    session.start_bury()
    session.press(session.state.clock.seat)


def pause_latency(directory: Path, pauses: int) -> list[float]:
    """The referee's pause key: from the call to the clocks stopped, journaled and folded."""
    clock, session = playing_table(directory)
    latencies = []
    for _ in range(pauses):
        clock.advance(1.0)
        start = time.perf_counter()
        session.pause_key()
        assert session.state.paused and not session.state.clock.running
        latencies.append(time.perf_counter() - start)
        session.pause_key()  # resume (not timed)
    session.close()
    return latencies


def journal_rate(directory: Path, rows: int) -> float:
    journal = Journal(directory / "journal.sqlite")
    data = {"seat": "N", "overrun_ids": []}
    start = time.perf_counter()
    for i in range(rows):
        journal.append("1", [("press", data)], 1000.0 + i, 1.79e9 + i, "seat:N")
    elapsed = time.perf_counter() - start
    journal.close()
    return rows / elapsed


def plain_rate(directory: Path, rows: int) -> float:
    conn = sqlite3.connect(directory / "plain.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, device TEXT, match TEXT, "
                 "kind TEXT, data TEXT, mono REAL, wall REAL, actor TEXT)")
    text = json.dumps({"seat": "N", "overrun_ids": []})
    start = time.perf_counter()
    for i in range(rows):
        conn.execute("BEGIN")
        conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (i + 1, "dev", "1", "press", text, 1000.0 + i, 1.79e9 + i, "seat:N"))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return rows / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description="table session benchmark")
    parser.add_argument("--presses", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        latencies = press_latency(Path(tmp) / "press", args.presses)
        print(f"press → event ({args.presses} presses): p50 {percentile(latencies, .5) * 1e3:.2f} "
              f"ms, p99 {percentile(latencies, .99) * 1e3:.2f} ms")
        pauses = pause_latency(Path(tmp) / "pause", args.presses // 4)
        print(f"pause key → clocks stopped, journaled ({len(pauses)} pauses): p50 "
              f"{percentile(pauses, .5) * 1e3:.2f} ms, p99 {percentile(pauses, .99) * 1e3:.2f} ms; "
              f"ratio to a press {statistics.median(pauses) / statistics.median(latencies):.2f}")
        ours, plain = [], []
        for i in range(args.repeat):
            run = Path(tmp) / f"run{i}"
            run.mkdir()
            ours.append(journal_rate(run, args.rows))
            plain.append(plain_rate(run, args.rows))
        a, b = statistics.median(ours), statistics.median(plain)
        print(f"journal appends, synchronous=FULL: {a:,.0f}/s; plain sqlite3 insert+commit: "
              f"{b:,.0f}/s; ratio {a / b:.2f} (median of {args.repeat})")


if __name__ == "__main__":
    main()
