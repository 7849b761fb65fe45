"""Benchmark: the kiosk command's start-up against a bare Python start, in the same run.

    .venv/bin/python bench/bench_startup.py [--runs 21]

Each command runs `--runs` times, interleaved with the floor (`python -c pass` with the same
interpreter and site-packages, so the editable install's path hook is in both), and the
median wall time of each is printed with its ratio to the floor (aim ≤ 3 for `kiosk --help`
and `kiosk replay`; ≤ 6 for the scorer's app, shown beside the libraries it cannot start
without: asyncio, ssl, Starlette, uvicorn and sqlite3). Also the modules each start
imports, from `-X importtime`: the largest.
The commands run with their bytecode cached (in a temporary PYTHONPYCACHEPREFIX), as on an
installed kiosk, even where the shell sets PYTHONDONTWRITEBYTECODE.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "xiamen-2015-example.json"
KIOSK = [sys.executable, "-c", "import sys; from kiosk.cli.main import main; "
         "sys.argv[0] = 'kiosk'; sys.exit(main())"]
COMMANDS = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "kiosk --help": [*KIOSK, "--help"],
    "kiosk replay (xiamen example)": [*KIOSK, "replay", str(EXAMPLE)],
    "kiosk table --help": [*KIOSK, "table", "--help"],
    "kiosk scorer --help": [*KIOSK, "scorer", "--help"],
    # The scorer's whole app imported (what `kiosk scorer` loads before it listens): aim ≤ 6,
    # numpy not among its modules (issue 30).
    "the scorer's app imported": [sys.executable, "-c", "import sys, kiosk.scorer.web.app; "
                                  "sys.exit('numpy' in sys.modules)"],
    # What the scorer cannot start without, none of it this project's: its floor.
    "the scorer's libraries alone": [sys.executable, "-c", "import asyncio, ssl, "
                                     "starlette.applications, starlette.routing, "
                                     "uvicorn.protocols.http.httptools_impl, sqlite3"],
}


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   cwd=ROOT, env=ENV)
    return time.perf_counter() - started


def heaviest(command: list[str], count: int = 4) -> str:
    """The largest cumulative imports of one start (python -X importtime)."""
    done = subprocess.run([command[0], "-X", "importtime", *command[1:]], capture_output=True,
                          text=True, cwd=ROOT, env=ENV)
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            rows.append((int(parts[1]), parts[2].strip()))
    return ", ".join(f"{name} {us / 1000:.0f} ms" for us, name in sorted(rows)[-count:][::-1])


def main() -> None:
    parser = argparse.ArgumentParser(description="start-up of the kiosk command")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as cache:
        ENV["PYTHONPYCACHEPREFIX"] = cache
        measure(args.runs)


def measure(runs: int) -> None:
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for command in COMMANDS.values():
        once(command)  # warm the file cache
    for _ in range(runs):
        for name, command in COMMANDS.items():  # interleaved: load changes hit them all
            times[name].append(once(command))
    floor = statistics.median(times["python -c pass (floor)"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"start-up, median of {runs} runs ({os.cpu_count()} CPUs, load average "
          f"{load:.1f}):")
    for name, values in times.items():
        median = statistics.median(values)
        ratio = "" if name.endswith("(floor)") else f"  ratio {median / floor:.2f}"
        aim = " (aim ≤ 3)" if name in ("kiosk --help", "kiosk replay (xiamen example)") else \
            " (aim ≤ 6)" if name == "the scorer's app imported" else ""
        print(f"  {name:<32} {median * 1e3:6.1f} ms{ratio}{aim}")
    for name in ("kiosk --help", "kiosk replay (xiamen example)", "the scorer's app imported"):
        print(f"  {name}: top-level imports {heaviest(COMMANDS[name])}")


if __name__ == "__main__":
    main()
