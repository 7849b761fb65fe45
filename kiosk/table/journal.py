"""The table's journal: every fact, appended and made durable before anything reacts to it.

One SQLite database per table in the data directory (``table-N.sqlite``), in WAL mode with
``synchronous=FULL`` so that a committed event survives a power cut. Events carry a gapless
sequence number per device, the device id, monotonic and wall time and who entered them; the
scorer will deduplicate by (device, sequence). The schema is built by migrations.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils.migrations import Migrations

migrations = Migrations("kiosk.table.journal")


@migrations()
def create_events(db: sqlite_utils.Database) -> None:
    db["events"].create(
        {"seq": int, "device": str, "match": str, "kind": str, "data": str, "mono": float,
         "wall": float, "actor": str},
        pk="seq", not_null={"device", "kind", "data", "mono", "wall", "actor"})
    db["events"].create_index(["match", "seq"])
    db["device"].create({"id": str}, pk="id")


class JournalError(Exception):
    """The journal cannot be opened or written (disk full, a file that is not a journal…)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One recorded fact. `match` names the match (its round) the event belongs to."""

    seq: int
    device: str
    match: str
    kind: str
    data: dict[str, Any]
    mono: float
    wall: float
    actor: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "device": self.device, "match": self.match, "kind": self.kind,
                "data": self.data, "mono": self.mono, "wall": self.wall, "actor": self.actor}


def table_path(data_dir: str | Path, table: int) -> Path:
    return Path(data_dir) / f"table-{table}.sqlite"


def connect(path: str | Path) -> sqlite_utils.Database:
    """Open a journal database with the durability settings every connection must have:
    WAL and ``synchronous=FULL``. Raises JournalError when they cannot be set."""
    try:
        # One thread at a time uses a journal (the session's runner once it starts), so the
        # connection may move from the thread that opened it.
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=10,
                               check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        level = conn.execute("PRAGMA synchronous").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise JournalError(f"{path}: cannot open the journal: {exc}") from None
    if mode != "wal" or level != 2:
        raise JournalError(f"{path}: journal_mode={mode}, synchronous={level}; "
                           "need wal and FULL (2)")
    return sqlite_utils.Database(conn)


class Journal:
    """The append-only event log of one table."""

    def __init__(self, path: str | Path, device: str | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = connect(self.path)
        try:
            migrations.apply(self.db)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a kiosk journal: {exc}") from None
        self.device = self._device(device)
        row = self.db.execute("SELECT max(seq) FROM events").fetchone()
        self.last_seq: int = row[0] or 0

    def _device(self, wanted: str | None) -> str:
        row = self.db.execute("SELECT id FROM device").fetchone()
        if row:
            return str(row[0])
        device = wanted or f"kiosk-{secrets.token_hex(4)}"
        with self.db.atomic():
            self.db.execute("INSERT INTO device (id) VALUES (?)", [device])
        return device

    def append(self, match: str, facts: list[tuple[str, dict[str, Any]]], mono: float,
               wall: float, actor: str) -> list[Event]:
        """Append facts (kind, data) as events in one transaction and commit them durably.
        Raises JournalError on a write failure; nothing is then recorded and the caller must
        not act on them."""
        events = [Event(self.last_seq + i, self.device, match, kind, data, mono, wall, actor)
                  for i, (kind, data) in enumerate(facts, 1)]
        rows = [(e.seq, e.device, e.match, e.kind, json.dumps(e.data, ensure_ascii=False,
                                                             sort_keys=True), mono, wall, actor)
                for e in events]
        try:
            with self.db.atomic():
                self.db.conn.executemany(
                    "INSERT INTO events (seq, device, match, kind, data, mono, wall, actor) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not recorded: {exc}") from None
        self.last_seq += len(events)
        return events

    def events(self, match: str | None = None) -> Iterator[Event]:
        """Every event in order, or those of one match."""
        where, args = ("WHERE match = ?", [match]) if match is not None else ("", [])
        cursor = self.db.execute(
            f"SELECT seq, device, match, kind, data, mono, wall, actor FROM events {where} "
            "ORDER BY seq", args)
        for seq, device, match_, kind, data, mono, wall, actor in cursor:
            yield Event(seq, device, match_, kind, json.loads(data), mono, wall, actor)

    def events_after(self, seq: int, limit: int) -> list[Event]:
        """Up to `limit` events after `seq`, in order (what the outbox sends next)."""
        cursor = self.db.execute(
            "SELECT seq, device, match, kind, data, mono, wall, actor FROM events WHERE seq > ? "
            "ORDER BY seq LIMIT ?", [seq, limit])
        return [Event(s, d, m, k, json.loads(x), mo, w, a) for s, d, m, k, x, mo, w, a in cursor]

    def newest(self) -> int:
        """The last sequence number on disk (another connection may have added events)."""
        return int(self.db.execute("SELECT max(seq) FROM events").fetchone()[0] or 0)

    def adopt(self, events: list[dict[str, Any]]) -> None:
        """Start an empty journal from another kiosk's events for this table (a replacement
        kiosk continues the table's sequence). Raises JournalError if this journal has events
        or the events are not the table's from its first."""
        if self.last_seq:
            raise JournalError(f"{self.path}: already has {self.last_seq} events; a "
                               "replacement kiosk starts from an empty journal")
        if [e["seq"] for e in events] != list(range(1, len(events) + 1)):
            raise JournalError("the downloaded events are not a whole sequence from 1")
        rows = [(e["seq"], e["device"], e["match"], e["kind"],
                 json.dumps(e["data"], ensure_ascii=False, sort_keys=True), e["mono"],
                 e["wall"], e["actor"]) for e in events]
        with self.db.atomic():
            self.db.conn.executemany(
                "INSERT INTO events (seq, device, match, kind, data, mono, wall, actor) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        self.last_seq = len(events)

    def setups(self) -> list[tuple[str, dict[str, Any]]]:
        """Each match's setup, oldest first: (the journal's name for the match, its data)."""
        rows = self.db.execute("SELECT match, data FROM events WHERE kind = 'setup' ORDER BY seq")
        return [(match, json.loads(data)) for match, data in rows]

    def matches(self) -> list[str]:
        """The matches recorded at this table, oldest first."""
        rows = self.db.execute(
            "SELECT match FROM events WHERE match != '' GROUP BY match ORDER BY min(seq)")
        return [row[0] for row in rows]

    def close(self) -> None:
        self.db.close()
