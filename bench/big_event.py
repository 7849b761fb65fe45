"""A scorer store holding a big Swiss event, for the benchmarks (not a benchmark itself).

    cached(cache_dir, teams=400, rounds=10, played=9) -> a data directory (build it once)

Real table journals are recorded first (`kiosk.sim.table`, whole xiamen-2015 matches with
different seeds); then every round is started by the real Director (its pairing) and each of
the round's tables gets one of those journals as its match (its setup naming the event, the
round and the table), written straight into the store in one transaction a round.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiosk.protocol.wire import event_hash
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.sim.table import simulate
from kiosk.table.journal import Journal, table_path

RULESET = "xiamen-2015"
EVENT = "全国总决赛"


def record_journals(count: int, rulesets: Rulesets) -> list[list[dict[str, Any]]]:
    """`count` whole matches played by the simulator's bots, as journal events."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, count + 1):
            where = Path(tmp) / str(seed)
            simulate(where, 1, rulesets, RULESET, 10**6, seed, 1e9, io.StringIO()).close()
            journal = Journal(table_path(where, 1))
            try:
                out.append([e.to_json() for e in journal.events()])
            finally:
                journal.close()
    return out


def roster(teams: int, units: int, rng: random.Random) -> bytes:
    rows = [f"t{i:04d},第{i}队,U{rng.randrange(units):02d},P{i}a,P{i}b" for i in
            range(1, teams + 1)]
    return ("id,name,unit,player1,player2\n" + "\n".join(rows) + "\n").encode()


def play_round(director: Director, round_no: int, journals: list[list[dict[str, Any]]],
               last: dict[int, tuple[int, str]], rng: random.Random) -> int:
    """Every table of the round plays one recorded match; returns the events written. `last`:
    each table's last sequence number and hash (the chain), brought up to date."""
    rows = [row for table_rows in round_rows(director, round_no, journals, last, rng).values()
            for row in table_rows]
    write_rows(director.store, rows)
    return len(rows)


def round_rows(director: Director, round_no: int, journals: list[list[dict[str, Any]]],
               last: dict[int, tuple[int, str]], rng: random.Random
               ) -> dict[int, list[tuple[Any, ...]]]:
    """Each table's events of one recorded match in the round, as rows of the store's events
    table (`write_rows`), chained after `last`, which is brought up to date."""
    out = {}
    for table, _, _ in director.assignments(round_no):
        match = rng.choice(journals)
        seq, prev = last.get(table, (0, ""))
        rows = out[table] = []
        for e in match:
            seq += 1
            data = e["data"]
            if e["kind"] == "setup":
                data = {**data, "event": EVENT, "round": str(round_no), "table": table}
            event = {**e, "device": f"hall-kiosk-{table:03d}", "seq": seq,
                     "match": str(round_no), "data": data, "prev": prev}
            digest = event_hash(event)
            rows.append((event["device"], seq, table, event["match"], e["kind"],
                         json.dumps(data, ensure_ascii=False, sort_keys=True), e["mono"],
                         e["wall"], e["actor"], prev, digest))
            prev = digest
        last[table] = (seq, prev)
    return out


def write_rows(store: Store, rows: list[tuple[Any, ...]]) -> None:
    """Events written straight into the store, in one transaction, as a batch lands."""
    with store.db.atomic():
        store.db.conn.executemany(
            "INSERT INTO events (device, seq, table_number, match, kind, data, mono, wall, "
            "actor, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    store._wrote()


def last_events(director: Director) -> dict[int, tuple[int, str]]:
    """Each table's last sequence number and hash in the store."""
    return {t: (s, h) for t, s, h in director.store.db.execute(
        "SELECT e.table_number, e.seq, e.hash FROM events e JOIN (SELECT table_number, "
        "max(seq) AS top FROM events GROUP BY table_number) m ON m.table_number = "
        "e.table_number AND m.top = e.seq").fetchall()}


def cached(cache: Path, teams: int, rounds: int, played: int, log: Any = print) -> Path:
    """A store built by `build` once and kept in `cache` (each benchmark copies it): `rounds`
    rounds in the event, the first `played` of them played."""
    target = cache / f"swiss-{teams}-teams-{played}-of-{rounds}"
    if not (target / "scorer.sqlite").exists():
        work = cache / (target.name + ".building")
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        build_played(work, teams, rounds, played, log)
        work.rename(target)
    return target


def build_played(directory: Path, teams: int, rounds: int, played: int, log: Any = print
                 ) -> Path:
    rng = random.Random(1)
    rulesets = Rulesets.load([])
    started = time.monotonic()
    recorded = record_journals(12, rulesets)
    director = Director(Store(directory / "scorer.sqlite"), rulesets)
    director.create_event(EVENT, RULESET, rounds=rounds, seed=1)
    director.import_teams(roster(teams, 40, rng))
    director.add_tables(teams // 2)
    last: dict[int, tuple[int, str]] = {}
    events = 0
    for round_no in range(1, played + 1):
        director.start_round(0)
        events += play_round(director, round_no, recorded, last, rng)
    director.fold(0)  # every event folded once (a quick check that they all fold)
    director.store.close()
    log(f"(built {teams} teams × {played} rounds, {events:,} events, in "
        f"{time.monotonic() - started:.0f} s)")
    return directory


def count_events(path: Path) -> int:
    conn = sqlite3.connect(str(path))
    try:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


def play_on(path: Path, per_table: int, seed: int = 7) -> int:
    """Start the next round and post the first `per_table` events of each table's match (a
    minute of a hall's play: about a hand a table). Returns the events written."""
    rulesets = Rulesets.load([])
    director = Director(Store(path), rulesets)
    try:
        last = last_events(director)
        round_no = director.start_round(0)
        recorded = [match[:per_table] for match in record_journals(3, rulesets)]
        return play_round(director, round_no, recorded, last, random.Random(seed))
    finally:
        director.store.close()


@dataclass
class Served:
    url: str  # plain HTTP on loopback
    data: Path  # the scorer's data directory (a copy of the cached one)
    process: subprocess.Popen[bytes]
    seconds: float  # until the hall page's snapshot first answered


@contextlib.contextmanager
def served(cache: Path, teams: int, played: int) -> Iterator[Served]:
    """A copy of the cached event (`played` of `played` + 1 rounds played), served by the real
    scorer (`kiosk scorer`, its own process) until the block ends; yields once the hall page's
    snapshot answers. Raises RuntimeError when the scorer does not start within 300 s."""
    source = cached(cache, teams, played + 1, played)
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(source, data)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        with open(data / "scorer.log", "w") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "kiosk.cli.main", "scorer", "--data", str(data),
                 "--port", str(port), "--no-mdns", "--no-tls"], cwd=root, stdout=log,
                stderr=subprocess.STDOUT)
        try:
            started = time.monotonic()
            while True:
                try:
                    urllib.request.urlopen(url + "/api/hall", timeout=60).close()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() - started > 300:
                        raise RuntimeError("the scorer did not start") from None
                    time.sleep(0.2)
            yield Served(url, data, process, time.monotonic() - started)
        finally:
            process.terminate()
            process.wait(timeout=30)
