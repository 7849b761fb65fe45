"""The hall at full size, over real sockets to the real scorer: kiosks pairing all at once while
others send their events, and a thousand tables sending their journals at once, the scorer
turning batches away with 503 and Retry-After when it is behind and the kiosks backing off with
jitter until every event is in, once (issue 30)."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store

from .helpers import ScorerProcess
from .loopback_kiosks import NO_ANSWER, Kiosk, journal

pytestmark = pytest.mark.process

RULESETS = Rulesets.load([])


def hall(data: Path, tables: int) -> dict[int, str]:
    """A scorer's store with an event and `tables` tables; their pairing codes."""
    director = Director(Store(data / "scorer.sqlite"), RULESETS)
    director.create_event("杯", "xiamen-2015", seed=1)
    director.set_password("hall-admin-2026")
    codes = director.add_tables(tables)
    director.store.close()
    return codes


def paired(data: Path, tables: range) -> dict[int, str]:
    """Tables paired directly in the store (as if earlier): their secrets."""
    store = Store(data / "scorer.sqlite")
    try:
        secrets = {}
        for table in tables:
            code = store.issue_code(table)
            secrets[table] = store.pair(table, code, f"loop-{table}", time.time())
        return secrets
    finally:
        store.close()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("at_once", [10, 50])
def test_kiosks_pairing_at_once_while_others_send_never_get_500(tmp_path, at_once):
    data = tmp_path / "scorer"
    codes = hall(data, at_once + 5)
    senders = paired(data, range(at_once + 1, at_once + 6))
    rulesets = {r.id: r.sha256 for r in RULESETS.values()}

    async def run(port: int) -> tuple[list[Kiosk], list[Kiosk]]:
        pairing = [Kiosk(t, port) for t in range(1, at_once + 1)]
        sending = [Kiosk(t, port, senders[t]) for t in senders]
        done = asyncio.Event()

        async def send(kiosk: Kiosk) -> None:  # the writer commits all the while
            events = journal(f"loop-{kiosk.table}", kiosk.table, 10_000)
            acked = 0
            while not done.is_set() and acked < len(events):
                try:
                    status, answer, retry = await kiosk.send(events[acked:acked + 5], 0)
                except NO_ANSWER:  # no answer in time: the outbox tries again
                    kiosk.timeouts += 1
                    await asyncio.sleep(0.5)
                    continue
                if status == 200:
                    acked = int(answer["high_water"])
                else:
                    await asyncio.sleep(max(retry, 0.1))

        background = [asyncio.create_task(send(k)) for k in sending]
        await asyncio.sleep(0.5)
        try:
            await asyncio.gather(*(k.pair(codes[k.table], rulesets) for k in pairing))
        finally:
            done.set()
            await asyncio.gather(*background)
            for k in pairing + sending:
                k.close()
        return pairing, sending

    with ScorerProcess(data) as scorer:
        pairing, sending = asyncio.run(run(scorer.port))
    assert all(k.secret for k in pairing)
    statuses = sum((k.statuses for k in pairing + sending), start=type(pairing[0].statuses)())
    assert statuses[500] == 0, statuses
    assert sum(k.statuses[200] for k in sending) > 0  # (the writer was committing meanwhile)
    assert "database is locked" not in (data / "scorer.log").read_text()


@pytest.mark.timeout(900)
def test_a_thousand_tables_sending_at_once_converge_with_nothing_lost_or_twice(tmp_path):
    tables, per_table, batch = 1000, 24, 8
    data = tmp_path / "scorer"
    hall(data, tables)
    secrets = paired(data, range(1, tables + 1))
    journals = {t: journal(f"loop-{t}", t, per_table) for t in secrets}

    async def run(port: int) -> list[Kiosk]:
        kiosks = [Kiosk(t, port, secrets[t]) for t in secrets]
        deadline = time.monotonic() + 600
        rng = random.Random(30)
        try:
            marks = await asyncio.gather(*(k.sync(journals[k.table], batch,
                                                  random.Random(rng.random()), deadline)
                                           for k in kiosks))
        finally:
            for k in kiosks:
                k.close()
        assert marks == [per_table] * tables
        return kiosks

    with ScorerProcess(data) as scorer:
        kiosks = asyncio.run(run(scorer.port))
    statuses = sum((k.statuses for k in kiosks), start=type(kiosks[0].statuses)())
    print(f"answers by status: {dict(statuses)}; no answer within the kiosk's timeout: "
          f"{sum(k.timeouts for k in kiosks)}")
    assert statuses[500] == 0, statuses
    store = Store(data / "scorer.sqlite")
    try:
        for table, events in journals.items():
            assert store.events(table) == events  # every event, once, as the kiosk wrote it
        assert store.orphans() == [] and store.conflicts() == []
        count = store.db.execute("SELECT count(*) FROM events").fetchone()[0]
        assert count == tables * per_table  # nothing twice
    finally:
        store.close()
