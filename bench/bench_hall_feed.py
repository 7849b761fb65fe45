"""Benchmark: the hall feed with the hall's phones watching, over real HTTP.

    .venv/bin/python bench/bench_hall_feed.py [--quick] [--tables 200] [--viewers 1000]
                                              [--duration 30] [--phones]

The real scorer (`kiosk scorer`, its own process) and 200 simulated tables posting a hand
every 1–2 s each (bench_scorer's load generator); a reader process follows the hall stream as
a TV does. Viewers: one more process holding N server-sent-event connections (asyncio
sockets, each from its own loopback address as each phone has its own), noting for every
message when it arrived against the time the scorer generated it.

Prints
  hand → hall   p50/p99 of (a posted hand seen by the TV reader − posted), with no viewers
                and with N viewers; the ratio (aim ≤ 2)
  fan-out       p50/p99 of (arrival − generated) over every message at every viewer; the floor
                is a bare Starlette SSE app (bench/sse_floor.py) sending messages of the sizes
                the TV got with the crowd watching, in their order and as often, to as many
                viewers in the same run; the ratio (aim ≤ 2)
  memory        the scorer's resident memory per viewer (RSS with N viewers − without) / N,
                and the floor's; the ratio (aim ≤ 2)
  bandwidth     bytes a viewer received per second (the whole hall, or with --phones one
                team's view each: what 2,000 phones cost the hall's Wi-Fi)
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import multiprocessing
import os
import queue
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import bench_scorer
from bench_scorer import (
    Scorer,
    Tally,
    free_port,
    fresh_store,
    hall_reader,
    hand_ends,
    load,
    ms,
    pair_all,
    percentile,
    post_hands,
    prepare_store,
    record_journal,
    tables_for,
    workspace,
)

# When the message's bytes were made: a patch says "sent" (its last key), a ping its "now",
# a whole snapshot only when it was generated. (The scorer's JSON is compact, the floor's is
# not: a space after a colon or a comma is optional.)
SENT = re.compile(rb'"sent": ?([0-9.e+]+)\}$|"now": ?([0-9.e+]+)')
GENERATED = re.compile(rb'"generated": ?([0-9.e+]+)')
SERIAL = re.compile(rb'"boot": ?"([0-9a-f]+)", ?"serial": ?([0-9]+)\}')


# -- the viewers ---------------------------------------------------------------------------------

async def first_paint(host: str, port: int, source: str) -> str | None:
    """GET /api/hall as the hall page does before it opens the stream: the stream's query
    for the snapshot it got (its serial and the scorer's start)."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    writer.write(f"GET /api/hall HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                 .encode())
    body = await reader.read()
    writer.close()
    found = SERIAL.search(body, max(0, len(body) - 80))
    return f"?since={int(found.group(2))}&boot={found.group(1).decode()}" if found else None


async def watch(host: str, port: int, path: str, record: Any, source: str) -> None:
    if path == "/api/hall/stream":  # the hall page: the snapshot first, then what changed
        query = await first_paint(host, port, source)
        if query is not None:
            path += query
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0),
                                                   limit=2**24)  # a whole snapshot a line
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        record("refused", 0.0, 0)
        writer.close()
        return
    record("open", 0.0, 0)
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                arrived = time.time()
                found = SENT.search(line.rstrip(), max(0, len(line) - 60))
                stamp = (found.group(1) or found.group(2)) if found else None
                if stamp is None:  # a snapshot says it first, a team's view last
                    generated = GENERATED.search(line, 0, 200) or \
                        GENERATED.search(line, max(0, len(line) - 60))
                    stamp = generated.group(1) if generated else None
                if stamp is not None:
                    record("message", arrived - float(stamp), len(line))
    finally:
        writer.close()


def viewers(host: str, port: int, paths: list[str], out: Any, stop: Any) -> None:
    """In its own process: hold one stream per path; report what arrived when told to stop."""
    lags: list[float] = []
    counts: collections.Counter[str] = collections.Counter()
    received = [0]
    started = [0.0]

    def record(kind: str, lag: float, size: int) -> None:
        counts[kind] += 1
        if kind == "message" and started[0]:
            lags.append(lag)
            received[0] += size

    async def run() -> None:
        tasks = []
        for i, path in enumerate(paths):  # not all at once: phones arrive over minutes
            source = f"127.1.{i // 250}.{i % 250 + 1}"  # a phone: its own address
            tasks.append(asyncio.create_task(watch(host, port, path, record, source)))
            await asyncio.sleep(0.002)
        while counts["open"] + counts["refused"] < len(paths):
            await asyncio.sleep(0.1)
        out.put(("connected", counts["open"], counts["refused"]))
        while not stop.is_set():  # the measured part begins when the main process says
            await asyncio.sleep(0.1)
            if not started[0] and os.path.exists(out_flag):
                started[0] = time.time()
        elapsed = time.time() - started[0] if started[0] else 0.0
        for task in tasks:
            task.cancel()
        out.put(("done", lags, received[0], elapsed, dict(counts)))

    out_flag = f"/tmp/bench-hall-feed-{os.getppid()}-measure"
    asyncio.run(run())


class Viewers:
    """The viewer process: connect, then measure between `measure()` and `finish()`."""

    def __init__(self, url: str, paths: list[str]) -> None:
        host, port = url.split("//")[1].split(":")
        context = multiprocessing.get_context("spawn")
        self.out, self.stop = context.Queue(), context.Event()
        self.flag = Path(f"/tmp/bench-hall-feed-{os.getpid()}-measure")
        self.flag.unlink(missing_ok=True)
        self.process = context.Process(target=viewers, args=(host, int(port), paths, self.out,
                                                             self.stop), daemon=True)
        self.process.start()
        message = self.out.get(timeout=300)
        self.connected, self.refused = message[1], message[2]

    def measure(self) -> None:
        self.flag.touch()

    def finish(self) -> tuple[list[float], int, float, dict[str, int]]:
        self.stop.set()
        _, lags, received, elapsed, counts = self.out.get(timeout=120)
        self.process.join(10)
        self.flag.unlink(missing_ok=True)
        return lags, received, elapsed, counts


def rss(pid: int) -> int:
    """Resident memory of a process in bytes (0 without /proc)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


# -- hand → hall ---------------------------------------------------------------------------------

def hand_to_hall(scorer: Scorer, tables: list[Any], ends: list[int], pace: tuple[float, float],
                 duration: float, during: Any = None) -> tuple[list[float], int, list[int]]:
    """Tables post hands for `duration` s while a TV reader follows the stream. Returns the
    lags (seen − posted), the batches and the sizes of the messages the reader got."""
    context = multiprocessing.get_context("spawn")
    seen_q, stop = context.Queue(), context.Event()
    reader = context.Process(target=hall_reader, args=(scorer.url, seen_q, stop), daemon=True)
    reader.start()
    try:
        if seen_q.get(timeout=60)[0] != "snapshot":
            raise RuntimeError("the hall reader got no snapshot")
        if during is not None:
            during()
        posts, _ = asyncio.run(post_hands(scorer.url, tables, ends, pace, duration, Tally(),
                                          random.Random(1)))
        seen: dict[int, list[tuple[int, float]]] = collections.defaultdict(list)
        sizes: list[int] = []
        wanted = {(t, h) for t, h, _, _ in posts}
        reached: dict[int, int] = {}
        grace = time.monotonic() + 20.0
        while time.monotonic() < grace and any(reached.get(t, 0) < h for t, h in wanted):
            with contextlib.suppress(queue.Empty):
                message = seen_q.get(timeout=0.5)
                if message[0] == "seen":
                    seen[message[1]].append((message[2], message[3]))
                    reached[message[1]] = message[2]
                elif message[0] == "snapshot":
                    sizes.append(message[2])
                elif message[0] == "error":
                    print(f"  hall reader: {message[1]}")
    finally:
        stop.set()
        reader.join(5)
        if reader.is_alive():
            reader.terminate()
    lags = []
    for table, hands, posted, _ in posts:
        first = next((t for h, t in seen[table] if h >= hands), None)
        if first is not None:
            lags.append(first - posted)
    return lags, len(posts), sizes


def figures(values: list[float]) -> str:
    if not values:
        return "none"
    return f"p50 {ms(percentile(values, .5))}, p99 {ms(percentile(values, .99))}"


def main() -> None:
    parser = argparse.ArgumentParser(description="the hall feed under 1,000 viewers")
    parser.add_argument("--quick", action="store_true", help="20 tables, 100 viewers, 8 s")
    parser.add_argument("--tables", type=int)
    parser.add_argument("--viewers", type=int)
    parser.add_argument("--duration", type=float)
    parser.add_argument("--phones", action="store_true",
                        help="viewers follow one team each (the phone view), not the hall")
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args()
    bench_scorer.TLS = False  # plain HTTP, as the floor (bench_scorer measures TLS' cost)
    count = args.tables or (20 if args.quick else 200)
    crowd = args.viewers or (100 if args.quick else 1000)
    duration = args.duration or (8.0 if args.quick else 30.0)
    pace = (0.5, 1.0) if args.quick else (1.0, 2.0)

    with workspace(args.dir, False) as base:
        print(f"{os.cpu_count()} CPUs shared by the scorer, the tables, the TV reader and the "
              f"viewers; {load()}")
        events = record_journal(base / "kiosk")
        ends = hand_ends(events)
        template = base / "template"
        template.mkdir()
        codes = prepare_store(template, count)
        (template / "teams.csv").unlink()
        tables = tables_for(count, events)
        teams = [f"b{i:03d}" for i in range(1, 2 * count + 1)]
        paths = [f"/api/hall/stream?team={teams[i % len(teams)]}" if args.phones
                 else "/api/hall/stream" for i in range(crowd)]

        # 1. No viewers: the hand → hall floor.
        scorer = Scorer(fresh_store(base, template, "alone"))
        try:
            scorer.start()
            asyncio.run(pair_all(scorer.url, tables, codes))
            alone, batches, _ = hand_to_hall(scorer, tables, ends, pace, duration)
        finally:
            scorer.stop()

        # 2. The same with the crowd watching.
        scorer = Scorer(fresh_store(base, template, "crowd"))
        crowd_view: Viewers | None = None
        memory: dict[str, int] = {}
        try:
            scorer.start()
            asyncio.run(pair_all(scorer.url, tables, codes))
            assert scorer.process is not None
            time.sleep(1.0)
            memory["before"] = rss(scorer.process.pid)
            crowd_view = Viewers(scorer.url, paths)
            time.sleep(2.0)
            memory["after"] = rss(scorer.process.pid)
            watched, batches2, sizes = hand_to_hall(scorer, tables, ends, pace, duration,
                                                during=crowd_view.measure)
            lags, received, elapsed, counts = crowd_view.finish()
            crowd_view = None
        finally:
            if crowd_view is not None:
                crowd_view.finish()
            scorer.stop()

        # 3. The floor: a bare Starlette SSE app, the same messages' sizes (what the TV got
        # while the crowd watched: the patches' sizes vary, and the big ones make the p99),
        # as often, the same crowd. A phone's view is about 2 KB.
        floor_sizes = sizes if sizes and not args.phones else [2000]
        every = duration / max(1, len(sizes)) if sizes else 0.5
        port = free_port()
        floor = subprocess.Popen([sys.executable, str(Path(__file__).with_name("sse_floor.py")),
                                  "--port", str(port),
                                  "--sizes", ",".join(map(str, floor_sizes)),
                                  "--every", f"{every:.3f}"])
        try:
            time.sleep(1.5)
            floor_before = rss(floor.pid)
            floor_view = Viewers(f"http://127.0.0.1:{port}", ["/stream"] * crowd)
            time.sleep(2.0)
            floor_after = rss(floor.pid)
            floor_view.measure()
            time.sleep(duration)
            floor_lags, floor_received, floor_elapsed, _ = floor_view.finish()
        finally:
            floor.terminate()
            floor.wait(10)

    a, b = percentile(alone, .99) if alone else 0, percentile(watched, .99) if watched else 0
    print(f"hand → hall ({count} tables, {batches} and {batches2} batches in {duration:.0f} s): "
          f"no viewers {figures(alone)}; {counts.get('open', 0)} viewers "
          f"({'phones, one team each' if args.phones else 'the whole hall'}; "
          f"{counts.get('refused', 0)} refused) {figures(watched)}; p99 ratio {b / a:.2f} "
          f"(aim ≤ 2)")
    f, g = percentile(lags, .99) if lags else 0, percentile(floor_lags, .99) if floor_lags else 0
    print(f"fan-out ({len(lags)} messages received in all): scorer {figures(lags)}; bare "
          f"Starlette SSE floor ({len(floor_sizes)} sizes, median "
          f"{statistics.median(floor_sizes):,.0f} B, every {every:.2f} s) "
          f"{figures(floor_lags)}; p99 ratio {f / g:.2f} (aim ≤ 2)")
    per, floor_per = ((memory["after"] - memory["before"]) / max(1, crowd),
                      (floor_after - floor_before) / max(1, crowd))
    print(f"memory: scorer {memory['before'] / 2**20:.0f} → {memory['after'] / 2**20:.0f} MiB, "
          f"{per / 1024:.1f} KiB a viewer; floor {floor_per / 1024:.1f} KiB a viewer; ratio "
          f"{per / floor_per:.2f} (aim ≤ 2)")
    print(f"bandwidth: {received / max(1, counts.get('open', 1)) / max(elapsed, 1e-9) / 1024:.1f}"
          f" KiB/s a viewer (the floor's {floor_received / crowd / floor_elapsed / 1024:.1f}); "
          f"hall messages to the TV: median {statistics.median(sizes) / 1024 if sizes else 0:.1f}"
          f" KiB; {load()}")


if __name__ == "__main__":
    main()
