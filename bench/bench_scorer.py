"""Benchmark: the scorer under a whole hall, over real HTTP.

    .venv/bin/python bench/bench_scorer.py [--quick] [--tables 200] [--repeat 3]
                                           [--duration 30] [--pace 1,2] [--gap 1,4]
                                           [--dir DIR] [--keep] [--tls on,off]
                                           [--only kiosk,latency,ingest,catch-up]
                                           [--fsync-ms MS] [--batch 50]

The scorer runs as it does in the hall: `kiosk scorer --data DIR --port P --no-mdns` in its
own process (uvicorn on 127.0.0.1, a free port, HTTPS with its own certificate), its store
prepared by `kiosk scorer admin` (event, tables, teams, round 1 started: the hall shows a
table's hand only once the table has a match in the current round). One asyncio load generator
(a lean keep-alive client, bench/kiosk_client.py: httpx would cost the shared cores more than
the scorer) plays every table: it pairs each one with its code (the PAKE) and replays one real
table journal, recorded first with `kiosk simulate`, as that table's events (its own
device id, its own hash chain), in signed batches. With `--tls on,off` (the default) each part
runs over HTTPS and then over plain HTTP (`kiosk scorer --no-tls`, for this comparison only:
kiosks refuse it), so the cost of TLS is measured in the same run.

`--fsync-ms MS` runs the scorer and the plain sqlite3 floor on a slower disk: a small library
(bench/slow_fsync.c, built with cc, loaded with LD_PRELOAD into both processes) makes each
fsync and fdatasync wait MS milliseconds more once the real one is done. This machine's disk
makes a write durable in about 0.2 ms; an SD card or a cheap SSD takes milliseconds.

Prints
  kiosk-like      each table plays at a hall's pace, one event (a seat's press, a result …)
                  every 1–4 s (--gap, uniform), and its outbox behaves as kiosk.sync.outbox
                  does: once a second it sends the events the scorer lacks (or an empty batch
                  when 5 s passed without one, the link's heartbeat), and every 5 s it asks for
                  its assignment: answers a second, p50 / p99 / max of every answer (batches
                  and assignments apart too), the server's CPU a request
  table → hall    tables post one hand's events at a time, every 1–2 s (jittered); a reader
                  in another process follows /api/hall/stream (snapshot, then patches) and
                  notes when each table's confirmed hands first reach the posted count: p50
                  and p99 of (seen − posted), and of the ingest answer alone
  ingest          every table sends its first 500 events in batches of 50 (--batch: 50 is what
                  the outbox sends when behind, 1 is live play), each as soon as the last is
                  answered: events acknowledged per second; in the same run, plain sqlite3
                  inserts of the same rows with the same durability (WAL, synchronous=FULL,
                  one transaction per batch) on the same disk; the ratio of the two
                  and the bound on it: the same batches through the scorer's own steps in one
                  process with no HTTP (decode and check, keep, fold for the hall), CPU µs an
                  event each, and the events/s and ratio they alone allow
  catch-up        every table has 500 events queued when the scorer (re)starts; each sends them
                  as the kiosk outbox does (batches of kiosk.sync.outbox.BATCH, resuming from
                  the answered high-water mark): time from the scorer answering until every
                  table's high-water mark is 500; then how long the hall's parts
                  (/api/tables, /api/standings) take to rebuild with every event in
and any refused request (status and reason), with the CPU seconds the server process and the
load generator spent in each part and the load average (they share this machine's cores, and
other work on it shows in the figures).
Medians over --repeat runs, each on a fresh copy of the store and a fresh server process.
DIR defaults to a temporary directory on the disk that holds this checkout (/tmp may be RAM).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import itertools
import json
import multiprocessing
import os
import queue
import random
import re
import secrets
import shutil
import socket
import sqlite3
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from hall_stream import follow
from kiosk_client import ConnectionLost, KioskClient

from kiosk.cli.scorer_cmd import STORE_NAME
from kiosk.protocol.pairing import KioskPairing
from kiosk.protocol.wire import event_hash, signed_headers
from kiosk.rules import Rulesets
from kiosk.sync.link import ScorerBusy, ScorerLink
from kiosk.sync.outbox import ASK_EVERY, HEARTBEAT, next_wait
from kiosk.sync.outbox import BATCH as OUTBOX_BATCH
from kiosk.table.journal import Event, Journal
from kiosk.table.state import MatchState

RULESET = "xiamen-2015"
INGEST_BATCH = 50
QUEUED = 500  # events each table has waiting when the scorer comes back
LINK_TIMEOUT = ScorerLink.__init__.__defaults__[-1]  # the kiosk's own timeout (5 s)
T = TypeVar("T")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load() -> str:
    """The machine's load average: other work on it slows the scorer and the generator."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min)"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms" if seconds >= 0.1 else f"{seconds * 1e3:.1f} ms"


# -- the kiosk command line ---------------------------------------------------------------------

def kiosk_command() -> list[str]:
    script = Path(sys.executable).with_name("kiosk")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from kiosk.cli.main import main; "
            "sys.argv[0] = 'kiosk'; sys.exit(main())"]


def kiosk(*args: str) -> str:
    done = subprocess.run([*kiosk_command(), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"kiosk {' '.join(args)} failed ({done.returncode}):\n"
                           f"{done.stderr.strip()}")
    return done.stdout


def record_journal(directory: Path) -> list[dict[str, Any]]:
    """One real table's journal: a whole match played by the simulator's bots."""
    kiosk("simulate", "--data", str(directory), "--table", "1", "--ruleset", RULESET,
          "--speed", "1e9")
    journal = Journal.reader(directory / "table-1.sqlite")
    try:
        return [e.to_json() for e in journal.events()]
    finally:
        journal.close()


def hand_ends(events: list[dict[str, Any]]) -> list[int]:
    """The index (in `events`) of each event that confirms a hand, folded as the scorer does."""
    state = MatchState(Rulesets.load([]))
    ends, played = [], 0
    for i, e in enumerate(events):
        state.apply(Event(**e))
        if len(state.played) > played:
            played = len(state.played)
            ends.append(i)
    return ends


def prepare_store(directory: Path, tables: int) -> dict[int, str]:
    """A scorer store with the event, `tables` tables, twice as many teams and round 1 started
    now; returns the tables' pairing codes."""
    data = str(directory)
    kiosk("scorer", "admin", "--data", data, "event", "--name", "Bench", "--ruleset", RULESET)
    kiosk("scorer", "admin", "--data", data, "tables", str(tables))
    roster = directory / "teams.csv"
    roster.write_text("id,name,player1,player2\n" + "".join(
        f"b{i:03d},Bench {i},P{i}a,P{i}b\n" for i in range(1, 2 * tables + 1)))
    kiosk("scorer", "admin", "--data", data, "teams", str(roster))
    kiosk("scorer", "admin", "--data", data, "start-round", "--in", "0")
    codes = {}
    for line in kiosk("scorer", "admin", "--data", data, "codes").splitlines():
        table = re.search(r"\d+", line)  # "第 1 桌：配对码 526586": the table, the last word
        if table:
            codes[int(table.group())] = line.split()[-1]
    if len(codes) != tables:
        raise RuntimeError(f"expected {tables} pairing codes, got {len(codes)}")
    return codes


# -- the scorer process -------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (0 where there is no /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


TLS = True  # the scorer's transport in the part being run (main() sets it)
SLOW_DISK: dict[str, str] = {}  # the environment that slows fsync (--fsync-ms), or nothing


def client_tls() -> ssl.SSLContext:
    """What a kiosk's client does (TLS 1.2+, the certificate checked; here not pinned, as the
    generator's cost of checking a pin is the same)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class Scorer:
    """`kiosk scorer` in a child process; its output goes to scorer.log in the data dir."""

    def __init__(self, data: Path) -> None:
        self.data, self.port = data, free_port()
        self.tls = TLS
        self.url = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.launched = self.ready = 0.0

    def start(self, timeout: float = 30.0) -> None:
        self.launched = time.monotonic()
        with open(self.data / "scorer.log", "ab") as log:
            self.process = subprocess.Popen(
                [*kiosk_command(), "scorer", "--data", str(self.data), "--port", str(self.port),
                 "--no-mdns", *([] if self.tls else ["--no-tls"])], stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env={**os.environ, **SLOW_DISK})
        deadline = self.launched + timeout
        with httpx.Client(timeout=2.0, verify=client_tls()) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the scorer exited with {self.process.returncode}:\n"
                                       f"{self.log_tail()}")
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(self.url + "/api/hall").status_code == 200:
                        self.ready = time.monotonic()
                        return
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"the scorer did not answer within {timeout:.0f} s:\n"
                           f"{self.log_tail()}")

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid) if self.process else 0.0

    def workers_cpu(self, module: str = "") -> float:
        """The CPU of its worker processes alive now (the hall's, the batches' checks', the
        pairing's), or of those whose command names `module` ("hall", "checker")."""
        if self.process is None:
            return 0.0
        try:
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
            pids = [pid for pid in children.read_text().split()
                    if module in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")]
        except OSError:
            return 0.0
        return sum(cpu_seconds(int(pid)) for pid in pids)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)

    def failures(self) -> list[str]:
        """The tracebacks in the scorer's log (each answer of 500 is logged with one)."""
        path = self.data / "scorer.log"
        blocks: list[list[str]] = []
        current: list[str] | None = None
        for line in (path.read_text(errors="replace").splitlines() if path.exists() else []):
            if line.startswith("Traceback"):
                current = [line]
                blocks.append(current)
            elif current is not None:
                current.append(line)
                if not line.startswith(" "):  # the exception's own line ends the block
                    current = None
        return ["\n".join(block) for block in blocks]

    def log_tail(self, lines: int = 20) -> str:
        path = self.data / "scorer.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) \
            if path.exists() else ""


# -- simulated tables ---------------------------------------------------------------------------

@dataclass
class Table:
    number: int
    device: str
    events: list[dict[str, Any]]  # the recorded journal, as this table's kiosk wrote it
    secret: str = ""


@dataclass
class Tally:
    """What the scorer answered, by status (and reason for refusals)."""

    counts: collections.Counter[str] = field(default_factory=collections.Counter)

    def add(self, what: str) -> None:
        self.counts[what] += 1

    def refused(self) -> dict[str, int]:
        return {k: v for k, v in self.counts.items() if k != "200"}


def tables_for(count: int, events: list[dict[str, Any]]) -> list[Table]:
    """Each table replays the recorded journal as its own: its device, and a setup that names
    the bench event's round 1 at that table (the scorer scores only the event's matches)."""
    out = []
    for n in range(1, count + 1):
        device = f"bench-kiosk-{n:03d}"
        own = [{**e, "device": device, "match": "1"} for e in events]
        prev = ""
        for e in own:  # its own chain: each event carries the hash of the one before
            if e["kind"] == "setup":
                e["data"] = {**e["data"], "event": "Bench", "round": "1", "table": n}
            e["prev"] = prev
            prev = event_hash(e)
        out.append(Table(n, device, own))
    return out


def address(table: int) -> str:
    """A loopback address of the table's own (each kiosk is its own machine in the hall, and
    the scorer limits what one address may do)."""
    return f"127.1.{table // 250}.{table % 250 + 1}"


async def each_table(url: str, tables: list[Table],
                     work: Callable[[KioskClient, Table], Awaitable[None]]) -> None:
    """Run `work` for every table at once, each table with its own connection from its own
    address, as in the hall (each kiosk is its own machine)."""
    host, port = url.split("://")[1].rsplit(":", 1)
    tls = client_tls() if url.startswith("https") else None
    clients = [KioskClient(host, int(port), address(t.number), tls) for t in tables]
    try:
        await asyncio.gather(*(work(c, t) for c, t in zip(clients, tables, strict=True)))
    finally:
        for client in clients:
            client.close()


async def post_json(client: KioskClient, path: str, value: Any) -> tuple[int, Any]:
    status, body = await client.request("POST", path, json.dumps(value).encode(),
                                        {"Content-Type": "application/json"})
    return status, json.loads(body)


async def pair_all(url: str, tables: list[Table], codes: dict[int, str]) -> None:
    rulesets = {r.id: r.sha256 for r in Rulesets.load([]).values()}

    async def pair(client: KioskClient, table: Table) -> None:
        kiosk = KioskPairing(codes[table.number], table.number, table.device)
        while True:  # (a whole hall pairing at once is asked to come back: wait)
            status, body = await post_json(client, "/api/pair/start", {
                "table": table.number, "device": table.device, "message": kiosk.message,
                "rulesets": rulesets})
            if status not in (429, 503):
                break
            await asyncio.sleep(max(client.retry_after, 0.5) * random.uniform(1.0, 1.2))
        if status != 200:
            raise RuntimeError(f"pairing table {table.number}: {status} {body}")
        proof = kiosk.confirm(body["message"], body["session"])
        status, finish = await post_json(client, "/api/pair/finish", {
            "session": body["session"], "confirm": proof})
        if status != 200:
            raise RuntimeError(f"pairing table {table.number}: {status} {finish}")
        table.secret = kiosk.open(finish)["secret"]

    await each_table(url, tables, pair)


async def send(client: KioskClient, table: Table, batch: list[dict[str, Any]], behind: int,
               tally: Tally) -> dict[str, Any] | None:
    """One signed batch; the scorer's answer, or None when it refused (counted in `tally`)."""
    path = f"/api/tables/{table.number}/events"
    body = json.dumps({"events": batch, "behind": behind}, ensure_ascii=False).encode()
    return await signed(client, table, "POST", path, body, tally)


async def signed(client: KioskClient, table: Table, method: str, path: str, body: bytes,
                 tally: Tally) -> dict[str, Any] | None:
    """One signed request, as the kiosk's link makes it; the answer, or None (in `tally`)."""
    headers = {"Content-Type": "application/json"} | signed_headers(
        table.secret, table.number, method, path, body, time.time(), secrets.token_hex(12))
    try:
        status, raw = await client.request(method, path, body, headers)
    except ConnectionLost as exc:
        tally.add(f"no answer: {exc}")
        return None
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = {"error": raw[:80].decode(errors="replace")}
    if status != 200:
        tally.add(f"{status} {answer.get('error', '')}"
                  + (f" (Retry-After {client.retry_after:g} s)" if client.retry_after else ""))
        return None
    tally.add("200")
    return dict(answer)


# -- 0. kiosk-like traffic --------------------------------------------------------------------

async def kiosk_traffic(url: str, tables: list[Table], gap: tuple[float, float],
                        duration: float, tally: Tally, rng: random.Random,
                        server_cpu: Callable[[], float]
                        ) -> tuple[float, dict[str, list[float]], float, float]:
    """Every table for `duration` seconds as a kiosk in play: its journal grows an event every
    `gap` seconds and its outbox syncs once a second. First every table connects and asks where
    the scorer stands (as an outbox does when it starts), all at once; the seconds that take are
    returned apart, with the answers' latencies afterwards by kind ("batch", "heartbeat",
    "assignment") and the CPU seconds the server and the generator spent afterwards."""
    latencies: dict[str, list[float]] = collections.defaultdict(list)
    connected = asyncio.Event()
    ready, began = 0, time.monotonic()
    measured: dict[str, float] = {}  # the measured part: when it ends, and the CPU at its start

    async def run(client: KioskClient, table: Table) -> None:
        nonlocal ready
        await send(client, table, [], 0, tally)
        ready += 1
        if ready == len(tables):  # the last table is in: the measured part begins
            now = time.monotonic()
            measured.update(connecting=now - began, end=now + duration,
                            cpu=time.process_time(), server=server_cpu())
            connected.set()
        await connected.wait()
        await asyncio.sleep(rng.uniform(0, 1))  # tables do not sync in step
        written, acked = 0, 0  # events in the table's journal, and at the scorer
        next_event = time.monotonic() + rng.uniform(*gap)
        sent, asked = time.monotonic(), float("-inf")
        while (now := time.monotonic()) < measured["end"]:
            while now >= next_event and written < len(table.events):
                written += 1
                next_event += rng.uniform(*gap)
            if written > acked or now - sent >= HEARTBEAT:
                batch = table.events[acked:min(written, acked + OUTBOX_BATCH)]
                answer = await send(client, table, batch, written - acked - len(batch), tally)
                latencies["batch" if batch else "heartbeat"].append(time.monotonic() - now)
                sent = now
                if answer is not None:
                    acked = int(answer["high_water"])
            if now - asked >= ASK_EVERY:
                started = time.monotonic()
                await signed(client, table, "GET", f"/api/tables/{table.number}/assignment",
                             b"", tally)
                latencies["assignment"].append(time.monotonic() - started)
                asked = now
            await asyncio.sleep(1.0)  # the outbox's idle wait

    await each_table(url, tables, run)
    return (measured["connecting"], latencies, server_cpu() - measured["server"],
            time.process_time() - measured["cpu"])


def kiosk_run(base: Path, template: Path, codes: dict[int, str], tables: list[Table],
              gap: tuple[float, float], duration: float) -> None:
    scorer = Scorer(fresh_store(base, template, "outbox"))
    tally = Tally()
    try:
        scorer.start()
        asyncio.run(pair_all(scorer.url, tables, codes))
        connecting, latencies, server_cpu, gen_cpu = asyncio.run(kiosk_traffic(
            scorer.url, tables, gap, duration, tally, random.Random(2), scorer.cpu))
    finally:
        scorer.stop()
    every = [x for values in latencies.values() for x in values]
    print(f"kiosk-like ({len(tables)} tables, an event every {gap[0]:g}–{gap[1]:g} s, "
          f"outbox once a second, {duration:.0f} s): {len(every) / duration:.0f} answers/s")
    print(f"  before that, every table connected and asked where the scorer stands, all "
          f"at once: {connecting:.1f} s")
    if every:
        print(f"  every answer: p50 {ms(percentile(every, .5))}, p99 "
              f"{ms(percentile(every, .99))}, max {ms(max(every))}; "
              + ", ".join(f"{kind} p99 {ms(percentile(values, .99))} ({len(values)})"
                          for kind, values in sorted(latencies.items())))
    print(f"  CPU: server {server_cpu:.1f} s ({ms(server_cpu / max(1, len(every)))} a request),"
          f" load generator {gen_cpu:.1f} s; {load()}")
    report(tally, [scorer])


# -- 1. table → hall latency --------------------------------------------------------------------

def hall_reader(url: str, out: Any, stop: Any) -> None:
    """In its own process: follow the hall's event stream (snapshots and patches) and report
    each table's confirmed hands when they first grow, with the moment the message arrived."""
    confirmed: dict[int, int] = {}
    broken: set[int] = set()
    try:
        for kind, snapshot, now, size in follow(url, verify=client_tls()):
            if kind not in ("snapshot", "patch"):
                continue
            out.put(("snapshot", now, size))
            for row in snapshot["tables"]:
                if row.get("error") and row["table"] not in broken:
                    broken.add(row["table"])  # the scorer could not fold its events
                    out.put(("error", f"table {row['table']}: {row['error']}"))
                if row.get("hand") is None:
                    continue
                done = row["hand"] - (0 if row.get("phase") == "over" else 1)
                if done > confirmed.get(row["table"], 0):
                    confirmed[row["table"]] = done
                    out.put(("seen", row["table"], done, now))
            if stop.is_set():
                break
    except Exception as exc:  # the stream broke: say so rather than die silently
        out.put(("error", f"{type(exc).__name__}: {exc}"))
    out.put(("done",))


answers: list[float] = []  # every answer's wait in the latency run, 503s included


async def post_hands(url: str, tables: list[Table], ends: list[int], pace: tuple[float, float],
                     duration: float, tally: Tally, rng: random.Random
                     ) -> tuple[list[tuple[int, int, float, float]], float]:
    """Each table sends one hand's events at a time, `pace` seconds apart (uniform), for at most
    `duration` seconds. Returns (table, hands confirmed, posted, answered) per accepted batch."""
    posts: list[tuple[int, int, float, float]] = []
    deadline = time.monotonic() + duration
    start_cpu = time.process_time()

    async def play(client: KioskClient, table: Table) -> None:
        await asyncio.sleep(rng.uniform(0, pace[1]))  # tables do not start in step
        acked = 0  # as the outbox: send everything after the scorer's high-water mark
        delay = 0.0
        for hands, last in enumerate(ends, 1):
            if time.monotonic() >= deadline:
                return
            batch = table.events[acked:last + 1]
            posted = time.monotonic()
            answer = await send(client, table, batch, 0, tally)
            answered = time.monotonic()
            answers.append(answered - posted)
            while answer is None and client.retry_after and time.monotonic() < deadline:
                # turned away at once (503): the outbox waits as asked, with jitter, and
                # sends the same events again
                delay, wait = next_wait(delay, ScorerBusy("", 503, "", {}, client.retry_after),
                                        rng)
                await asyncio.sleep(wait)
                again = time.monotonic()
                answer = await send(client, table, batch, 0, tally)
                answered = time.monotonic()
                answers.append(answered - again)
            delay = 0.0
            if answer is not None:
                acked = int(answer["high_water"])
                if acked == batch[-1]["seq"]:
                    posts.append((table.number, hands, posted, answered))
                else:
                    tally.add(f"high water {acked} after seq {batch[-1]['seq']}")
            pause = rng.uniform(*pace)
            if time.monotonic() + pause >= deadline:
                return
            await asyncio.sleep(pause)

    answers.clear()
    await each_table(url, tables, play)
    return posts, time.process_time() - start_cpu


def floor_run(tables: list[Table], ends: list[int], pace: tuple[float, float],
              duration: float) -> tuple[float, float, float]:
    """The same clients posting the same batches to bench/floor_server.py (the scorer's web
    stack answering with no work): (batches/s, every answer's p99, server CPU a batch)."""
    port = free_port()
    server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("floor_server.py")),
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"https://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        with httpx.Client(verify=client_tls(), timeout=2) as client:
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(url + "/").status_code == 200:
                        break
                time.sleep(0.05)
        cpu0, started = cpu_seconds(server.pid), time.monotonic()
        posts, _ = asyncio.run(post_hands(url, tables, ends, pace, duration, Tally(),
                                          random.Random(1)))
        elapsed, cpu = time.monotonic() - started, cpu_seconds(server.pid) - cpu0
    finally:
        server.terminate()
        server.wait(10)
    return len(posts) / elapsed, percentile(answers, .99), cpu / max(1, len(posts))


def latency_run(base: Path, template: Path, codes: dict[int, str], tables: list[Table],
                ends: list[int], pace: tuple[float, float], duration: float) -> None:
    floor = floor_run(tables, ends, pace, duration) if TLS else None
    data = fresh_store(base, template, "latency")
    scorer = Scorer(data)
    tally = Tally()
    context = multiprocessing.get_context("spawn")
    seen_q, stop = context.Queue(), context.Event()
    reader = None
    try:
        scorer.start()
        asyncio.run(pair_all(scorer.url, tables, codes))
        reader = context.Process(target=hall_reader, args=(scorer.url, seen_q, stop),
                                 daemon=True)
        reader.start()
        message = seen_q.get(timeout=30)  # the first snapshot: the reader is following
        if message[0] != "snapshot":
            raise RuntimeError(f"the hall reader: {message}")
        cpu0, hall0, checks0 = (scorer.cpu(), scorer.workers_cpu("hall"),
                                scorer.workers_cpu("checker"))
        started = time.monotonic()
        posts, gen_cpu = asyncio.run(post_hands(scorer.url, tables, ends, pace, duration,
                                                tally, random.Random(1)))
        elapsed = time.monotonic() - started
        server_cpu = scorer.cpu() - cpu0
        hall_cpu = scorer.workers_cpu("hall") - hall0
        checks_cpu = scorer.workers_cpu("checker") - checks0
        workers_cpu = hall_cpu + checks_cpu
        # Let the hall catch up with the last posts, then stop the reader.
        seen: dict[int, list[tuple[int, float]]] = collections.defaultdict(list)
        snapshots: list[tuple[float, int]] = []
        wanted = {(t, h) for t, h, _, _ in posts}
        reached: dict[int, int] = {}
        grace = time.monotonic() + 15.0
        errors = []
        done = False

        def take(message: tuple[Any, ...]) -> None:
            nonlocal done
            if message[0] == "seen":
                seen[message[1]].append((message[2], message[3]))
                reached[message[1]] = message[2]
            elif message[0] == "snapshot":
                snapshots.append((message[1], message[2]))
            elif message[0] == "error":
                errors.append(message[1])
            elif message[0] == "done":
                done = True

        while not done and time.monotonic() < grace and \
                any(reached.get(t, 0) < h for t, h in wanted):
            with contextlib.suppress(queue.Empty):
                take(seen_q.get(timeout=0.5))
        stop.set()
        deadline = time.monotonic() + 10.0
        while not done and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                take(seen_q.get(timeout=0.5))
    finally:
        stop.set()
        scorer.stop()
        if reader is not None:
            reader.join(5)
            if reader.is_alive():
                reader.terminate()
                reader.join(5)

    lags, missing = [], 0
    for table, hands, posted, _ in posts:
        first = next((t for h, t in seen[table] if h >= hands), None)
        if first is None:
            missing += 1
        else:
            lags.append(first - posted)
    acks = [answered - posted for _, _, posted, answered in posts]
    in_run = [s for s in snapshots if started <= s[0] <= started + elapsed]
    # What the pace lets the tables send at most (each waits for its answer, then the pace): a
    # rate this bench cannot show above, whatever serves it (the floor's too; --pace 0.5,1).
    offered = len(tables) / (sum(pace) / 2)
    print(f"table → hall ({len(tables)} tables, one hand a batch every {pace[0]:g}–{pace[1]:g} s, "
          f"at most {offered:.0f} batches/s offered; {len(posts)} batches in {elapsed:.1f} s, "
          f"{len(posts) / elapsed:.0f} batches/s):")
    if lags:
        print(f"  seen in the hall feed: p50 {ms(percentile(lags, .5))}, "
              f"p99 {ms(percentile(lags, .99))}, max {ms(max(lags))}"
              + (f"; {missing} batches never seen" if missing else ""))
    else:
        print(f"  seen in the hall feed: none of {len(posts)} batches was seen")
    if acks:
        print(f"  ingest answer alone:   p50 {ms(percentile(acks, .5))}, "
              f"p99 {ms(percentile(acks, .99))}, max {ms(max(acks))}")
    if answers:
        late = sum(1 for a in answers if a > LINK_TIMEOUT)
        print(f"  every answer (503s with Retry-After included): p50 "
              f"{ms(percentile(answers, .5))}, p99 {ms(percentile(answers, .99))}, max "
              f"{ms(max(answers))}; {late} of {len(answers)} past the kiosk's timeout "
              f"({LINK_TIMEOUT:g} s)")
    if floor is not None:
        rate, p99, cpu = floor
        print(f"  floor in the same run (the same clients and batches, the same web stack "
              f"and TLS answering with no work, bench/floor_server.py): {rate:.0f} batches/s, "
              f"every answer p99 {ms(p99)}, server CPU {ms(cpu)} a batch; the scorer: "
              f"{len(posts) / elapsed / rate:.2f}× the batches/s, "
              f"{(server_cpu / max(1, len(posts))) / cpu:.1f}× the CPU a batch "
              f"({((server_cpu + workers_cpu) / max(1, len(posts))) / cpu:.1f}× with its own "
              "processes)")
    if in_run:
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(in_run)]
        print(f"  hall messages (snapshot, then patches): {len(in_run)} during the run"
              + (f", every {ms(statistics.median(gaps))} (median), longest gap {ms(max(gaps))}"
                 if gaps else "")
              + f", {statistics.median(s[1] for s in in_run) / 1024:.0f} KiB each")
    def each(seconds: float) -> str:
        return f"{seconds:.1f} s ({ms(seconds / max(1, len(posts)))} a batch)"
    print(f"  CPU: server {each(server_cpu)}, its hall process {each(hall_cpu)}, its batches' "
          f"checking process {each(checks_cpu)}, load generator {gen_cpu:.1f} s; {load()}")
    report(tally, [scorer], errors)


def report(tally: Tally, scorers: list[Scorer], errors: list[str] | None = None) -> None:
    refused = tally.refused()
    for what, count in sorted(refused.items()):
        print(f"  refused or failed: {count} × {what}")
    for error in errors or []:
        print(f"  hall reader: {error}")
    failures = [f for scorer in scorers for f in scorer.failures()]
    if failures:  # (a failure's cause, not only its count)
        print(f"  the scorer logged {len(failures)} traceback(s); the last:")
        print("    " + failures[-1].replace("\n", "\n    "))


# -- 2. ingest ----------------------------------------------------------------------------------

async def ingest_all(url: str, tables: list[Table], per_table: int, batch: int,
                     duration: float, tally: Tally) -> tuple[int, float, float]:
    """Every table sends its first `per_table` events, `batch` at a time, each batch as soon as
    the last one is answered. Returns (events acknowledged, seconds, generator CPU seconds)."""
    acked = 0
    started, cpu0 = time.monotonic(), time.process_time()
    deadline = started + duration

    async def run(client: KioskClient, table: Table) -> None:
        nonlocal acked
        events = table.events[:per_table]
        for first in range(0, len(events), batch):
            if time.monotonic() >= deadline:
                return
            chunk = events[first:first + batch]
            answer = await send(client, table, chunk, len(events) - first - len(chunk),
                                tally)
            if answer is None:
                return
            if answer["high_water"] != chunk[-1]["seq"]:
                tally.add(f"high water {answer['high_water']} after seq {chunk[-1]['seq']}")
                return
            acked += len(chunk)

    await each_table(url, tables, run)
    return acked, time.monotonic() - started, time.process_time() - cpu0


def plain_inserts(path: Path, tables: list[Table], per_table: int, batch: int) -> float:
    """The same rows into a table of the store's shape, through plain sqlite3: WAL,
    synchronous=FULL, one transaction a batch, tables taking turns as the server saw them.
    Returns rows per second."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE events (device TEXT, seq INTEGER, table_number INTEGER, "
                 "match TEXT, kind TEXT, data TEXT, mono FLOAT, wall FLOAT, actor TEXT, "
                 "PRIMARY KEY (device, seq))")
    conn.execute("CREATE UNIQUE INDEX events_table_seq ON events (table_number, seq)")
    batches = []
    for first in range(0, per_table, batch):
        for t in tables:
            batches.append([(e["device"], e["seq"], t.number, e["match"], e["kind"],
                             json.dumps(e["data"], ensure_ascii=False, sort_keys=True),
                             e["mono"], e["wall"], e["actor"])
                            for e in t.events[first:min(first + batch, per_table)]])
    rows = sum(len(b) for b in batches)
    started = time.perf_counter()
    for rows_of in batches:
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows_of)
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - started
    conn.close()
    return rows / elapsed


def own_work(path: Path, tables: list[Table], per_table: int, batch: int) -> dict[str, float]:
    """The scorer's own work on the same batches with no HTTP, in one process as its server
    does it: read and check each batch into its rows (kiosk.scorer.checker), keep them through
    `Store.apply` (every table's batch of a turn in one commit: more grouping than the writer
    gets), then fold them for the hall (`Folds`). Returns CPU microseconds an event for each
    step."""
    # (imported here, in the spawned process: the load generator needs none of the scorer)
    from kiosk.protocol.wire import dumps
    from kiosk.scorer.checker import check
    from kiosk.scorer.director.folds import Folds
    from kiosk.scorer.net import heap
    from kiosk.scorer.store.database import Store
    from kiosk.sqlite import durable

    turns = [[(t.number, dumps({"events": t.events[first:first + batch], "behind": 0}))
              for t in tables] for first in range(0, per_table, batch)]
    store = Store(path)
    db = durable(path)  # the writer's own connection, as in the server
    spent = dict.fromkeys(("check", "keep", "fold"), 0.0)
    folds = Folds(Rulesets.load([]))
    for turn in turns:
        heap.settle()  # as the server does every few seconds (uncounted, as often as can help)
        started = time.process_time()
        checked = [(table, check(raw, table)) for table, raw in turn]
        kept = time.process_time()
        db.execute("BEGIN IMMEDIATE")
        ingested = [(table, store.apply(db, table, ready.rows, time.time(), ready.head))
                    for table, ready in checked]
        db.execute("COMMIT")
        for table, did in ingested:  # (as the writer does once the commit is durable)
            store.committed(table, did, time.time(), 0)
        folded = time.process_time()
        folds.update(store.db.conn, store.landed)
        done = time.process_time()
        spent["check"] += kept - started
        spent["keep"] += folded - kept
        spent["fold"] += done - folded
    store.close()
    db.close()
    events = len(tables) * per_table
    return {step: seconds / events * 1e6 for step, seconds in spent.items()}


def on_the_scorers_disk(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in a fresh Python process on the disk the scorer runs on (slowed as
    the scorer's is, when --fsync-ms slows it)."""
    saved = dict(os.environ)
    os.environ.update(SLOW_DISK)  # a spawned process starts with the environment as it is now
    try:
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            return pool.apply(function, args)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def fsync_ms(directory: Path) -> float:
    """Milliseconds one fsync of a page written in `directory` takes, median of 50."""
    with tempfile.TemporaryFile(dir=directory) as f:
        times = []
        for _ in range(50):
            f.write(b"x" * 4096)
            f.flush()
            started = time.perf_counter()
            os.fsync(f.fileno())
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def slow_disk(base: Path, ms: float) -> dict[str, str]:
    """The environment under which every fsync waits `ms` more: bench/slow_fsync.c built
    into `base`."""
    library = base / "slow_fsync.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(library),
                    str(Path(__file__).resolve().parent / "slow_fsync.c"), "-ldl"], check=True)
    return {"LD_PRELOAD": str(library), "SLOW_FSYNC_MS": str(ms)}


def ingest_runs(base: Path, template: Path, codes: dict[int, str], tables: list[Table],
                per_table: int, repeat: int, duration: float, batch: int) -> None:
    ours, plain, own, server_cpu, hall_cpu, gen_cpu = [], [], [], [], [], []
    tally, scorers = Tally(), []
    for i in range(repeat):
        data = fresh_store(base, template, f"ingest{i}")
        scorer = Scorer(data)
        scorers.append(scorer)
        try:
            scorer.start()
            asyncio.run(pair_all(scorer.url, tables, codes))
            cpu0, workers0 = scorer.cpu(), scorer.workers_cpu()
            acked, elapsed, gen = asyncio.run(ingest_all(scorer.url, tables, per_table,
                                                         batch, duration, tally))
            server_cpu.append(scorer.cpu() - cpu0)
            hall_cpu.append(scorer.workers_cpu() - workers0)
            gen_cpu.append(gen)
        finally:
            scorer.stop()
        if acked < len(tables) * per_table:
            print(f"  run {i + 1}: only {acked} of {len(tables) * per_table} events acknowledged "
                  f"within {duration:.0f} s")
        ours.append(acked / elapsed)
        plain.append(on_the_scorers_disk(plain_inserts, data / "plain.sqlite", tables,
                                         per_table, batch))
        own.append(on_the_scorers_disk(own_work, fresh_store(base, template, f"own{i}")
                                       / STORE_NAME, tables, per_table, batch))
    a, b = statistics.median(ours), statistics.median(plain)
    print(f"ingest ({len(tables)} tables × {per_table} events, batches of {batch}): "
          f"{a:,.0f} events/s ({a / batch:,.0f} batches/s); plain sqlite3, same rows, "
          f"WAL + FULL, a transaction a batch: {b:,.0f} rows/s; ratio {a / b:.2f} "
          f"(median of {repeat}: {', '.join(f'{x:,.0f}' for x in ours)})")
    steps = {step: statistics.median(o[step] for o in own) for step in own[0]}
    ceiling = 1e6 / sum(steps.values())
    print(f"  the scorer's own work an event, no HTTP, one core: decode and check "
          f"{steps['check']:.1f} µs, keep {steps['keep']:.1f} µs, fold for the hall "
          f"{steps['fold']:.1f} µs: at most {ceiling:,.0f} events/s, ratio {ceiling / b:.2f} "
          "(the bound for this code on this machine)")
    batches = len(tables) * -(-per_table // batch)
    print(f"  CPU per run: server {statistics.median(server_cpu):.1f} s "
          f"({ms(statistics.median(server_cpu) / batches)} a batch), its own processes "
          f"{statistics.median(hall_cpu):.1f} s, load generator "
          f"{statistics.median(gen_cpu):.1f} s; {load()}")
    report(tally, scorers)


# -- 3. catch-up after an outage ----------------------------------------------------------------

async def catch_up(url: str, tables: list[Table], queued: int, duration: float,
                   tally: Tally) -> tuple[list[float], dict[int, int]]:
    """Each table sends what the scorer lacks as the outbox does: a batch of BATCH after the
    answered high-water mark, with how many are still behind it, until the mark is `queued`.
    Returns each table's seconds until done and the marks reached."""
    started = time.monotonic()
    deadline = started + duration
    marks: dict[int, int] = {}
    finished: list[float] = []

    async def run(client: KioskClient, table: Table) -> None:
        events, acked, delay = table.events[:queued], 0, 0.5
        while acked < queued and time.monotonic() < deadline:
            chunk = events[acked:acked + OUTBOX_BATCH]
            answer = await send(client, table, chunk, queued - acked - len(chunk), tally)
            if answer is None:  # the outbox backs off, with jitter, and tries again
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(30.0, delay * 2)
                continue
            mark = int(answer["high_water"])
            if mark <= acked:
                tally.add(f"high water stays at {mark}")
                return
            acked = marks[table.number] = mark
        if acked >= queued:
            finished.append(time.monotonic() - started)

    await each_table(url, tables, run)
    return finished, marks


def catch_up_runs(base: Path, template: Path, codes: dict[int, str], tables: list[Table],
                  repeat: int, duration: float) -> None:
    totals, starts, medians, server_cpu, hall_cpu = [], [], [], [], []
    parts: dict[str, float] = {}
    tally, scorers = Tally(), []
    queued = min(QUEUED, len(tables[0].events))
    for i in range(repeat):
        data = fresh_store(base, template, f"catchup{i}")
        scorer = Scorer(data)
        scorers.append(scorer)
        try:
            scorer.start()  # the tables pair while the scorer is up ...
            asyncio.run(pair_all(scorer.url, tables, codes))
            scorer.stop()  # ... then it goes down while they play on
            scorer.start()
            starts.append(scorer.ready - scorer.launched)
            cpu0, workers0 = scorer.cpu(), scorer.workers_cpu()
            finished, marks = asyncio.run(catch_up(scorer.url, tables, queued, duration, tally))
            server_cpu.append(scorer.cpu() - cpu0)
            hall_cpu.append(scorer.workers_cpu() - workers0)
            if i == repeat - 1:
                parts = hall_parts(scorer.url)
        finally:
            scorer.stop()
        if len(finished) < len(tables):
            late = [t.number for t in tables if marks.get(t.number, 0) < queued]
            print(f"  run {i + 1}: {len(late)} tables not caught up within {duration:.0f} s "
                  f"(e.g. table {late[0]} at {marks.get(late[0], 0)})")
            totals.append(float("inf"))
        else:
            totals.append(max(finished))
        medians.append(statistics.median(finished) if finished else float("inf"))
    total = statistics.median(totals)
    events = len(tables) * queued
    print(f"catch-up ({len(tables)} tables × {queued} queued events, batches of {OUTBOX_BATCH}): "
          f"all tables at {queued} after {total:.2f} s ({events / total:,.0f} events/s); "
          f"half the tables after {statistics.median(medians):.2f} s; the scorer's own start "
          f"{statistics.median(starts):.2f} s before that (median of {repeat}: "
          f"{', '.join(f'{x:.2f}' for x in totals)} s)")
    print(f"  CPU per run: server {statistics.median(server_cpu):.1f} s, its own processes "
          f"{statistics.median(hall_cpu):.1f} s; {load()}")
    print("  then, with every table's events at the scorer (median of 5 requests, one at a "
          "time): " + ", ".join(f"GET {path} {ms(t)}" for path, t in parts.items()))
    report(tally, scorers)


def hall_parts(url: str) -> dict[str, float]:
    """How long the scorer takes to answer the hall's parts, each rebuilt from the store."""
    out = {}
    with httpx.Client(timeout=60.0, verify=client_tls()) as client:
        for path in ("/api/tables", "/api/standings"):
            times = []
            for _ in range(5):
                started = time.perf_counter()
                client.get(url + path).raise_for_status()
                times.append(time.perf_counter() - started)
            out[path] = statistics.median(times)
    return out


# -- main ---------------------------------------------------------------------------------------

def fresh_store(base: Path, template: Path, name: str) -> Path:
    data = base / f"{name}-{'tls' if TLS else 'plain'}"
    shutil.copytree(template, data)
    return data


def filesystem(path: Path) -> str:
    """The file system type under `path`, from /proc/mounts (tmpfs means RAM: no fsync cost)."""
    best, kind = "", "unknown"
    with contextlib.suppress(OSError):
        real = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            mount = parts[1]
            if (real == mount or real.startswith(mount.rstrip("/") + "/")) and \
                    len(mount) >= len(best):
                best, kind = mount, parts[2]
    return kind


@contextlib.contextmanager
def workspace(parent: Path, keep: bool) -> Iterator[Path]:
    if keep:
        path = Path(tempfile.mkdtemp(prefix="bench-scorer-", dir=parent))
        print(f"(keeping {path})")
        yield path
    else:
        with tempfile.TemporaryDirectory(prefix="bench-scorer-", dir=parent) as tmp:
            yield Path(tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description="scorer benchmark (real server, real HTTP)")
    parser.add_argument("--quick", action="store_true",
                        help="a small run to check that it works (20 tables, seconds)")
    parser.add_argument("--tables", type=int, help="simulated tables (default 200; quick 20)")
    parser.add_argument("--repeat", type=int, help="runs of ingest and catch-up (default 3)")
    parser.add_argument("--duration", type=float,
                        help="seconds of the latency run at most (default 30; quick 5)")
    parser.add_argument("--pace", default=None, metavar="LO,HI",
                        help="seconds between a table's batches in the latency run "
                             "(default 1,2; quick 0.5,1)")
    parser.add_argument("--gap", default="1,4", metavar="LO,HI",
                        help="seconds between a table's events in the kiosk-like run (1,4)")
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent,
                        help="where the temporary data goes (default: beside this file)")
    parser.add_argument("--keep", action="store_true", help="keep the data and server logs")
    parser.add_argument("--only", default="kiosk,latency,ingest,catch-up",
                        help="the parts to run (default all: kiosk,latency,ingest,catch-up)")
    parser.add_argument("--tls", default="on,off",
                        help="run each part over HTTPS (on), plain HTTP (off) or both (on,off)")
    parser.add_argument("--batch", type=int, default=INGEST_BATCH, metavar="N",
                        help=f"events a batch in the ingest run (default {INGEST_BATCH}, as the "
                             "outbox sends when behind; 1 is live play, a press at a time)")
    parser.add_argument("--fsync-ms", type=float, default=0.0, metavar="MS",
                        help="make every fsync of the scorer and the floor wait MS ms more, "
                             "as a slower disk would (default 0: this disk as it is)")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    modes = [m == "on" for m in args.tls.split(",")]
    count = args.tables or (20 if args.quick else 200)
    repeat = args.repeat or (1 if args.quick else 3)
    duration = args.duration or (5.0 if args.quick else 30.0)
    if args.pace:
        lo, hi = (float(x) for x in args.pace.split(","))
        pace = (lo, hi)
    else:
        pace = (0.5, 1.0) if args.quick else (1.0, 2.0)
    lo, hi = (float(x) for x in args.gap.split(","))
    gap = (lo, hi)
    per_table = 200 if args.quick else 500
    limit = 60.0 if args.quick else 120.0  # seconds any one load run may take

    begun = time.monotonic()
    with workspace(args.dir, args.keep) as base:
        print(f"data in {base} ({filesystem(base)}); {os.cpu_count()} CPUs shared by the "
              f"scorer and the load generator; {load()}")
        global SLOW_DISK
        if args.fsync_ms > 0:
            SLOW_DISK = slow_disk(base, args.fsync_ms)
        print(f"an fsync takes {on_the_scorers_disk(fsync_ms, base):.2f} ms"
              + (f" (slowed by {args.fsync_ms:g} ms: --fsync-ms)" if SLOW_DISK else ""))
        events = record_journal(base / "kiosk")
        ends = hand_ends(events)
        if args.quick:
            ends = ends[:4]
        per_table = min(per_table, len(events))
        print(f"recorded journal: {len(events)} events, {len(hand_ends(events))} hands "
              f"({RULESET}, kiosk simulate)")
        template = base / "template"
        template.mkdir()
        codes = prepare_store(template, count)
        (template / "teams.csv").unlink()
        tables = tables_for(count, events)

        global TLS
        for TLS in modes:
            print(f"— {'HTTPS (TLS on)' if TLS else 'plain HTTP (TLS off, comparison only)'} —")
            if "kiosk" in parts:
                kiosk_run(base, template, codes, tables, gap, duration)
            if "latency" in parts:
                latency_run(base, template, codes, tables, ends, pace, duration)
            if "ingest" in parts:
                ingest_runs(base, template, codes, tables, per_table, repeat, limit,
                            args.batch)
            if "catch-up" in parts:
                catch_up_runs(base, template, codes, tables, repeat, limit)
    print(f"(whole benchmark {time.monotonic() - begun:.0f} s)")


if __name__ == "__main__":
    main()
