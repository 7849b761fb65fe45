"""A scorer with an event whose tables' journals are real recorded matches, written straight
into the store (as a table's batches would be, hash chain and all), for the hall feed and
fold tests."""

from __future__ import annotations

import functools
import io
import json
import tempfile
from pathlib import Path
from typing import Any

from kiosk.protocol.wire import event_hash
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store, rows_of
from kiosk.sim.table import simulate
from kiosk.table.journal import Journal, table_path

RULESETS = Rulesets.load([])
EVENT = "厦门杯"
NAMES = ["鼓浪屿队", "集美队", "思明队", "湖里队", "海沧队", "同安队", "翔安队", "厦大队"]


@functools.cache
def recorded(seed: int) -> tuple[dict[str, Any], ...]:
    """A whole xiamen-2015 match played by the simulator's bots, as journal events."""
    with tempfile.TemporaryDirectory() as tmp:
        simulate(tmp, 1, RULESETS, "xiamen-2015", 10**6, seed, 1e9, io.StringIO()).close()
        journal = Journal(table_path(tmp, 1))
        try:
            return tuple(e.to_json() for e in journal.events())
        finally:
            journal.close()


def hand_ends(events: tuple[dict[str, Any], ...]) -> list[int]:
    """How many events each hand takes to be confirmed (cumulative)."""
    return [i + 1 for i, e in enumerate(events) if e["kind"] == "entries-done"]


def hall(path: Path, teams: int = 8, clock: Any = None, name: str = EVENT) -> Director:
    director = Director(Store(path / "scorer.sqlite"), RULESETS,
                        **({"clock": clock} if clock else {}))
    director.create_event(name, "xiamen-2015", seed=5)
    director.import_teams(("name,unit\n" + "".join(
        f"{NAMES[i] if i < len(NAMES) else f'第{i + 1}队'},U{i % 3}\n"
        for i in range(teams))).encode())
    director.add_tables(teams // 2)
    return director


class Tables:
    """Posts each table's recorded match into the store, a part at a time."""

    def __init__(self, director: Director) -> None:
        self.director = director
        self.sent: dict[tuple[int, int], int] = {}  # events posted, by (table, round)
        self.seq: dict[int, int] = {}  # the table's journal sequence so far
        self.prev: dict[int, str] = {}  # the hash of the table's last event (the chain)

    def post(self, table: int, upto: int, round_no: int | None = None, seed: int = 1,
             as_a_batch: bool = False) -> None:
        """The table's match of `round_no` (default: the current round) up to event `upto`;
        `as_a_batch`: through `Store.apply` and `committed`, as the scorer's writer keeps a
        kiosk's batch (else inserted as another connection would)."""
        round_no = round_no or self.director.current_round()
        match = recorded(seed + table % 4)
        start = self.sent.get((table, round_no), 0)
        event_name = self.director.event().match_name  # type: ignore[union-attr]
        rows, events = [], []
        for e in match[start:upto]:
            seq = self.seq[table] = self.seq.get(table, 0) + 1
            data = e["data"]
            if e["kind"] == "setup":
                data = {**data, "event": event_name, "round": str(round_no), "table": table}
            event = {**e, "device": f"kiosk-{table}", "seq": seq, "match": str(round_no),
                     "data": data, "prev": self.prev.get(table, "")}
            self.prev[table] = event_hash(event)
            events.append(event)
            rows.append((event["device"], seq, table, event["match"], e["kind"],
                         json.dumps(data, ensure_ascii=False, sort_keys=True), e["mono"],
                         e["wall"], e["actor"], event["prev"], self.prev[table]))
        self.sent[(table, round_no)] = max(start, upto)
        store = self.director.store
        db = store.db
        if as_a_batch:
            with db.atomic():
                done = store.apply(db, table, rows_of(table, events), 1.0)
            store.committed(table, done, 1.0, 0)
            return
        with db.atomic():
            db.conn.executemany(
                "INSERT INTO events (device, seq, table_number, match, kind, data, mono, wall, "
                "actor, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def finish(self, table: int, round_no: int | None = None) -> None:
        self.post(table, 10**9, round_no)

    def finish_round(self) -> None:
        for table, _, _ in self.director.assignments(self.director.current_round()):
            self.finish(table)
