"""The short version of the scorer's load benchmark: 20 simulated kiosks pair with their codes
and sync a few seconds as the outbox does (signed batches, heartbeats, assignments) against
the real `kiosk scorer` over HTTPS, on the bench's slowed disk (every fsync 1 ms longer), and
every request is answered. The long runs are `make bench`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent


def test_twenty_kiosks_in_play_are_all_answered(tmp_path):
    done = subprocess.run(
        [sys.executable, "bench/bench_scorer.py", "--quick", "--only", "kiosk,ingest",
         "--tls", "on", "--fsync-ms", "1", "--dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    fsync = re.search(r"an fsync takes ([\d.]+) ms \(slowed by 1 ms", out)
    assert fsync and float(fsync.group(1)) >= 1.0, out  # the slow disk really is slow
    assert "refused or failed" not in out, out
    answers = re.search(r"kiosk-like \(20 tables.*\): (\d+) answers/s", out)
    assert answers and int(answers.group(1)) > 0, out
    assert re.search(r"assignment p99 .* \((\d+)\), batch p99", out), out
    ingest = re.search(r"ingest \(20 tables × 200 events.*\): ([\d,]+) events/s", out)
    assert ingest and int(ingest.group(1).replace(",", "")) > 0, out
    assert "acknowledged within" not in out, out  # every table's every event, in time
    # the same batches through the scorer's own steps, no HTTP: what bounds the ratio
    own = re.search(r"decode and check ([\d.]+) µs, keep ([\d.]+) µs, fold for the hall "
                    r"([\d.]+) µs: at most ([\d,]+) events/s", out)
    assert own and all(float(x.replace(",", "")) > 0 for x in own.groups()), out
