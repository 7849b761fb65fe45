"""Benchmark: the hall while the scorer makes a big PDF (issue 15, scale audit C3).

    .venv/bin/python bench/bench_print_hall.py [--teams 1000] [--played 3] [--idle 15]
                                               [--cache DIR]

A Swiss event of --teams teams with --played rounds played hand by hand (bench/big_event.py,
built once and kept in --cache), served by the real scorer (`kiosk scorer`, its own process,
plain HTTP on loopback). A probe asks for the hall page's snapshot (`/api/hall`) one request
after another, every 0.1 s:

  - for --idle seconds with nothing else happening (the floor);
  - while the score sheets of the last round played (one page a table) are made as a PDF;

and prints both latencies (p50 / p99 / max) and their ratio, the PDF's time and pages, the
scorer's resident memory before and after, and the peak of the layout's child process. Then
the same PDF is asked for again (kept: no layout), and three times at once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import big_event  # noqa: E402


def get(url: str, timeout: float = 600) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as reply:
        return reply.read()


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            out += [int(p) for p in task.read_text().split()]
    return out


def probe(url: str, until: threading.Event | float) -> list[float]:
    """`/api/hall` latencies in seconds, one request every 0.1 s, until the event is set or
    the time (monotonic) has come."""
    times = []
    while not (until.is_set() if isinstance(until, threading.Event) else
               time.monotonic() >= until):
        start = time.perf_counter()
        get(url + "/api/hall", timeout=60)
        times.append(time.perf_counter() - start)
        time.sleep(max(0.0, 0.1 - times[-1]))
    return times


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"p50 {statistics.median(ordered) * 1000:6.0f} ms  p99 {p99 * 1000:6.0f} ms  "
            f"max {ordered[-1] * 1000:6.0f} ms  ({len(ordered)} requests)")


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teams", type=int, default=1000)
    parser.add_argument("--played", type=int, default=3)
    parser.add_argument("--idle", type=float, default=15.0)
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    args = parser.parse_args()
    with big_event.served(args.cache, args.teams, args.played) as scorer:
        return measure(scorer, args)


def measure(scorer: big_event.Served, args: argparse.Namespace) -> int:
    url = scorer.url
    print(f"event: {args.teams} teams, round {args.played} played hand by hand; scorer up "
          f"in {scorer.seconds:.1f} s;  load average {os.getloadavg()[0]:.2f} "
          f"({os.cpu_count()} cores)")
    before = rss_mb(scorer.process.pid)
    idle = probe(url, time.monotonic() + args.idle)
    print(f"/api/hall idle (floor):      {summary(idle)}")

    sheets = f"{url}/print/sheets.pdf?round={args.played}"
    done, peak, out = threading.Event(), [0.0], {}

    def make() -> None:
        start = time.perf_counter()
        out["pdf"] = get(sheets)
        out["seconds"] = time.perf_counter() - start
        done.set()

    def watch_child() -> None:  # the layout's own peak, read while it runs
        while not done.is_set():
            for pid in children(scorer.process.pid):
                with contextlib.suppress(OSError):
                    peak[0] = max(peak[0], rss_mb(pid, "VmHWM"))
            time.sleep(0.2)

    maker = threading.Thread(target=make)
    watcher = threading.Thread(target=watch_child)
    maker.start()
    watcher.start()
    during = probe(url, done)
    maker.join()
    watcher.join()
    after = rss_mb(scorer.process.pid)
    pdf = Path(tempfile.mktemp(suffix=".pdf"))
    pdf.write_bytes(out["pdf"])
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    pages = next((line.split()[-1] for line in info.splitlines() if line.startswith("Pages")),
                 "?")
    pdf.unlink()
    print(f"/api/hall during the layout: {summary(during)}")
    print(f"  p99 during / idle: {p99(during) / p99(idle):.1f}×;  "
          f"p50 during / idle: {statistics.median(during) / statistics.median(idle):.1f}×")
    print(f"score sheets PDF: {out['seconds']:.1f} s, {pages} pages, "
          f"{len(out['pdf']) / 1e6:.1f} MB")
    print(f"scorer RSS: {before:.0f} MB before, {after:.0f} MB after "
          f"(the layout's child process peaked at {peak[0]:.0f} MB, and is gone)")
    start = time.perf_counter()
    get(sheets)
    print(f"the same PDF again (kept until the data changes): "
          f"{time.perf_counter() - start:.2f} s")
    start = time.perf_counter()
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(lambda _: get(sheets), range(3)))
    print(f"three at once: {time.perf_counter() - start:.2f} s for all three; scorer RSS "
          f"{rss_mb(scorer.process.pid):.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
