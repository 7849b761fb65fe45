"""A hall's kiosks all pairing in the same second (the morning of an event: every card boots
at once), against the real scorer over HTTPS, each table from its own address and with the
kiosk's own 5 s timeout. A kiosk turned away (429, 503) comes back after the Retry-After and
a little; one that got no answer in time tries again after 3 s, as `kiosk pair` does.

Prints how long the whole hall took, each table's time to pair (median, p99), how many
requests got no answer within the kiosk's timeout (the aim: none), how many were asked to come
back, and the scorer's CPU a pairing.

    python bench/bench_pairing_burst.py [--tables 500]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scorer import Scorer, address, client_tls, load, percentile, prepare_store
from kiosk_client import ConnectionLost, KioskClient

from kiosk.protocol.pairing import KioskPairing
from kiosk.rules import Rulesets

KIOSK_TIMEOUT = 5.0  # kiosk.sync.link.ScorerLink's
SLOW_WAIT = 3.0  # kiosk.sync.join.SLOW_WAIT


async def pair_hall(url: str, codes: dict[int, str]) -> tuple[list[float], collections.Counter]:
    rulesets = {r.id: r.sha256 for r in Rulesets.load([]).values()}
    host, port = url.split("://")[1].rsplit(":", 1)
    tls = client_tls()
    seen: collections.Counter[str] = collections.Counter()
    took: list[float] = []

    async def post(client: KioskClient, path: str, value: object) -> tuple[int, dict]:
        status, body = await client.request("POST", path, json.dumps(value).encode(),
                                            {"Content-Type": "application/json"})
        seen[str(status)] += 1
        return status, json.loads(body)

    async def pair(table: int) -> None:
        client = KioskClient(host, int(port), address(table), tls, timeout=KIOSK_TIMEOUT)
        began = time.monotonic()
        try:
            while True:
                kiosk = KioskPairing(codes[table], table, f"burst-{table}")
                try:
                    status, start = await post(client, "/api/pair/start", {
                        "table": table, "device": f"burst-{table}", "message": kiosk.message,
                        "rulesets": rulesets})
                    if status in (429, 503):
                        await asyncio.sleep(client.retry_after * random.uniform(1.0, 1.2))
                        continue
                    if status != 200:
                        raise RuntimeError(f"table {table}: {status} {start}")
                    status, finish = await post(client, "/api/pair/finish", {
                        "session": start["session"],
                        "confirm": kiosk.confirm(start["message"], start["session"])})
                    if status != 200:
                        raise RuntimeError(f"table {table}: {status} {finish}")
                    kiosk.open(finish)
                    took.append(time.monotonic() - began)
                    return
                except ConnectionLost:
                    seen["no answer in 5 s"] += 1
                    await asyncio.sleep(SLOW_WAIT * random.uniform(1.0, 1.2))
        finally:
            client.close()

    await asyncio.gather(*(pair(t) for t in codes))
    return took, seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=Path(__file__).parent) as directory:
        data = Path(directory)
        codes = prepare_store(data, args.tables)
        scorer = Scorer(data)
        scorer.start()
        try:
            cpu = scorer.cpu() + scorer.workers_cpu()
            began = time.monotonic()
            took, seen = asyncio.run(pair_hall(scorer.url, codes))
            hall = time.monotonic() - began
            cpu = scorer.cpu() + scorer.workers_cpu() - cpu
            failures = scorer.failures()
        finally:
            scorer.stop()
    print(f"{args.tables} kiosks pairing at once ({load()}):")
    print(f"  the whole hall paired in {hall:.1f} s; a table's pairing p50 "
          f"{percentile(took, 0.5):.1f} s, p99 {percentile(took, 0.99):.1f} s")
    print(f"  requests with no answer within the kiosk's {KIOSK_TIMEOUT:g} s: "
          f"{seen['no answer in 5 s']} (aim: 0); asked to come back: 503 {seen['503']}, "
          f"429 {seen['429']}; 500: {seen['500']}")
    print(f"  the scorer's CPU {1000 * cpu / args.tables:.1f} ms a pairing; "
          f"tracebacks in its log: {len(failures)}")


if __name__ == "__main__":
    main()
