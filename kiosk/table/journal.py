"""The table's journal: every fact, appended and made durable before anything reacts to it.

One SQLite database per table in the data directory (``table-N.sqlite``), in WAL mode with
``synchronous=FULL`` so that a committed event survives a power cut. Events carry a gapless
sequence number per device, the device id, monotonic and wall time, who entered them, and the
hash of the event before (`prev`): a chain the kiosk checks at start-up and the scorer checks
on every batch (`kiosk.protocol.wire`). The schema is built by migrations.

One program at a time writes a journal (a lock file next to it); others read it through
`Journal.reader`, which opens the file read-only and never creates or changes anything (a card
taken out of a broken kiosk may be mounted read-only). A writer keeps a small reserve file
beside the journal: when the card fills up, the reserve is given back so the kiosk can still
start, record the pause of its restart and send what it has, while it warns of the full card.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import JournalError
from ..protocol.chain import broken_link, event_hash
from ..protocol.schema import Event  # (the one event schema: the journal's, the wire's)
from ..sqlite import Database, Migrations, Schema, durable, journal_error

migrations = Migrations("kiosk.table.journal")
RESERVE = 2_000_000  # bytes held back for a full card: thousands of events
LOW_SPACE = 50_000_000  # bytes free under which the kiosk warns


@migrations()
def create_events(db: Schema) -> None:
    db.table("events").create(
        {"seq": int, "device": str, "match": str, "kind": str, "data": str, "mono": float,
         "wall": float, "actor": str},
        pk="seq", not_null={"device", "kind", "data", "mono", "wall", "actor"})
    db.table("events").create_index(["match", "seq"])
    db.table("device").create({"id": str}, pk="id")


@migrations()
def chain_events(db: Schema) -> None:
    # Each event carries the hash of the one before; a journal from before the chain gets its
    # chain computed here, once.
    db.table("events").add_column("prev", str)
    db.table("events").add_column("hash", str)
    prev = ""
    rows = db.execute("SELECT seq, device, match, kind, data, mono, wall, actor FROM events "
                      "ORDER BY seq").fetchall()
    for seq, device, match, kind, data, mono, wall, actor in rows:
        event = {"prev": prev, "device": device, "seq": seq, "match": match, "kind": kind,
                 "data": json.loads(data), "mono": mono, "wall": wall, "actor": actor}
        digest = event_hash(event)
        db.execute("UPDATE events SET prev = ?, hash = ? WHERE seq = ?", [prev, digest, seq])
        prev = digest


@migrations()
def index_kinds(db: Schema) -> None:
    # The kiosk asks at every poll which match a round's setup made (`setups`): without this
    # index, each poll reads the whole day's journal.
    db.table("events").create_index(["kind", "match"])


def table_path(data_dir: str | Path, table: int) -> Path:
    return Path(data_dir) / f"table-{table}.sqlite"


class Journal:
    """The append-only event log of one table. `Journal(path)` writes (one program at a time);
    `Journal.reader(path)` only reads."""

    _lock: int | None
    _chained = True  # False for a reader of a journal from before the hash chain

    def __init__(self, path: str | Path, device: str | None = None) -> None:
        self.path = Path(path)
        self.readonly = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise journal_error(self.path, exc) from None
        self._lock = self._take_lock()
        try:
            self._open(device)
        except JournalError as exc:
            # A full card: the WAL's files cannot be made. Give back the reserve, once.
            if exc.key not in ("journal.full", "journal.unreadable") or \
                    not self._reserve.exists():
                self._release()
                raise
            self._reserve.unlink()
            try:
                self._open(device)
            except BaseException:
                self._release()
                raise
        except BaseException:
            self._release()
            raise
        self._keep_reserve()

    def _open(self, device: str | None) -> None:
        self.db = durable(self.path)
        try:
            migrations.apply(self.db)
        except sqlite3.DatabaseError as exc:
            self.db.close()
            failure = journal_error(self.path, exc)
            if failure.key == "journal.unreadable":
                failure = JournalError(f"{self.path}: not a kiosk journal: {exc}",
                                       "journal.not-a-journal", path=self.path.name)
            raise failure from None
        try:
            self.device = self._device(device)
            self._load_head()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise journal_error(self.path, exc) from None

    @classmethod
    def reader(cls, path: str | Path) -> Journal:
        """The journal opened read-only: nothing on the card is created or changed (a card
        mounted read-only, a journal another program writes). Raises JournalError."""
        self = cls.__new__(cls)
        self.path, self.readonly, self._lock = Path(path), True, None
        if not self.path.is_file():
            raise JournalError(f"{self.path}: no such journal", "journal.missing",
                               path=self.path.name)
        uri = f"file:{self.path.resolve()}?mode=ro"
        try:
            try:
                conn = sqlite3.connect(uri, uri=True, isolation_level=None,
                                       check_same_thread=False)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError:  # a read-only card without the WAL's files
                conn = sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None,
                                       check_same_thread=False)
            self.db = Database(conn)
            columns = {c[1] for c in conn.execute("PRAGMA table_info(events)")}
            if "seq" not in columns:
                raise JournalError(f"{self.path}: not a kiosk journal", "journal.not-a-journal",
                                   path=self.path.name)
            self._chained = "prev" in columns  # a journal from before the chain: computed
            row = self.db.execute("SELECT id FROM device").fetchone()
            self.device = str(row[0]) if row else ""
            self._load_head()
        except sqlite3.DatabaseError as exc:
            raise journal_error(self.path, exc) from None
        return self

    # -- the lock, the reserve and the card's space -----------------------------------------

    def _take_lock(self) -> int:
        lock = self.path.with_name(self.path.name + ".lock")
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise journal_error(self.path, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalError(f"{self.path}: another program is writing this journal",
                               "journal.in-use", path=self.path.name) from None
        return fd

    def _release(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # (closing the descriptor releases the lock)
            self._lock = None

    @property
    def _reserve(self) -> Path:
        return self.path.with_name(self.path.name + ".reserve")

    def _keep_reserve(self) -> None:
        """Hold RESERVE bytes for the day the card is full (if there is room for them now)."""
        if self._reserve.exists() or self.free_bytes() < RESERVE + LOW_SPACE // 10:
            return
        try:
            with open(self._reserve, "wb") as f:
                os.posix_fallocate(f.fileno(), 0, RESERVE)
        except OSError:
            with contextlib.suppress(OSError):
                self._reserve.unlink()

    def free_bytes(self) -> int:
        """Bytes free on the journal's card."""
        try:
            return shutil.disk_usage(self.path.parent).free
        except OSError:
            return 0

    def storage(self) -> str | None:
        """The card's state for the table's notice area: None (fine), "low" (under
        LOW_SPACE free) or "full" (under a megabyte free, or the reserve given back)."""
        # (a reader sees the writer's reserve file too)
        free = self.free_bytes()
        if free < LOW_SPACE and (free < 1_000_000 or not self._reserve.exists()):
            return "full"
        return "low" if free < LOW_SPACE else None

    # -- reading and writing ----------------------------------------------------------------

    def _device(self, wanted: str | None) -> str:
        row = self.db.execute("SELECT id FROM device").fetchone()
        if row:
            return str(row[0])
        device = wanted or f"kiosk-{secrets.token_hex(4)}"
        with self.db.atomic():
            self.db.execute("INSERT INTO device (id) VALUES (?)", [device])
        return device

    def _load_head(self) -> None:
        row = self.db.execute("SELECT max(seq) FROM events").fetchone()
        self.last_seq: int = row[0] or 0
        self.last_hash = self.hash_at(self.last_seq)

    def hash_at(self, seq: int) -> str:
        """The hash of event `seq` ("" for 0 or an event this journal does not have)."""
        if seq <= 0:
            return ""
        if self._chained:
            row = self._read("SELECT hash FROM events WHERE seq = ?", [seq]).fetchone()
            return str(row[0]) if row else ""
        events = self.events_after(seq - 1, 1)
        return event_hash(events[0].to_json()) if events and events[0].seq == seq else ""

    def _read(self, sql: str, args: list[Any] | None = None) -> sqlite3.Cursor:
        try:
            return self.db.execute(sql, args or [])
        except sqlite3.DatabaseError as exc:
            raise journal_error(self.path, exc) from None

    def append(self, match: str, facts: list[tuple[str, dict[str, Any]]], mono: float,
               wall: float, actor: str) -> list[Event]:
        """Append facts (kind, data) as events in one transaction and commit them durably.
        Raises JournalError on a write failure; nothing is then recorded and the caller must
        not act on them."""
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only", "journal.read-only",
                               path=self.path.name)
        events, hashes, prev = [], [], self.last_hash
        for i, (kind, data) in enumerate(facts, 1):
            # (an EventKind is kept as its string: the journal and the wire hold plain text)
            event = Event(self.last_seq + i, self.device, match, str(kind), data, mono, wall,
                          actor, prev)
            prev = event_hash(event.to_json())
            events.append(event)
            hashes.append(prev)
        rows = [(e.seq, e.device, e.match, e.kind,
                 json.dumps(e.data, ensure_ascii=False, sort_keys=True), mono, wall, actor,
                 e.prev, h) for e, h in zip(events, hashes, strict=True)]
        try:
            self._insert(rows)
        except sqlite3.DatabaseError as exc:
            failure = journal_error(self.path, exc, "not recorded")
            if failure.key != "journal.full" or not self._reserve.exists():
                raise failure from None
            self._reserve.unlink()  # the card is full: give back the reserve, and warn
            try:
                self._insert(rows)
            except sqlite3.DatabaseError as again:
                raise journal_error(self.path, again, "not recorded") from None
        self.last_seq += len(events)
        self.last_hash = prev
        return events

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        with self.db.atomic():
            self.db.conn.executemany(
                "INSERT INTO events (seq, device, match, kind, data, mono, wall, actor, prev, "
                "hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def _rows(self, where: str, args: list[Any]) -> Iterator[Event]:
        prev = self._chained
        columns = "seq, device, match, kind, data, mono, wall, actor" + \
            (", prev" if prev else "")
        cursor = self._read(f"SELECT {columns} FROM events {where}", args)
        try:
            for seq, device, match, kind, data, mono, wall, actor, *link in cursor:
                yield Event(seq, device, match, kind, json.loads(data), mono, wall, actor,
                            link[0] if link else "")
        except sqlite3.DatabaseError as exc:
            raise journal_error(self.path, exc) from None

    def events(self, match: str | None = None) -> Iterator[Event]:
        """Every event in order, or those of one match."""
        where, args = ("WHERE match = ?", [match]) if match is not None else ("", [])
        if not self._chained:
            yield from self._legacy(self._rows("ORDER BY seq", []), match)
            return
        yield from self._rows(f"{where} ORDER BY seq", args)

    @staticmethod
    def _legacy(events: Iterator[Event], match: str | None) -> Iterator[Event]:
        """A journal from before the chain, read-only: the chain computed on the way."""
        prev = ""
        for e in events:
            linked = Event(e.seq, e.device, e.match, e.kind, e.data, e.mono, e.wall, e.actor,
                           prev)
            prev = event_hash(linked.to_json())
            if match is None or e.match == match:
                yield linked

    def events_after(self, seq: int, limit: int) -> list[Event]:
        """Up to `limit` events after `seq`, in order (what the outbox sends next)."""
        if not self._chained:
            return [e for e in self.events() if e.seq > seq][:limit]
        return list(self._rows("WHERE seq > ? ORDER BY seq LIMIT ?", [seq, limit]))

    def newest(self) -> int:
        """The last sequence number on disk (another connection may have added events)."""
        return int(self._read("SELECT max(seq) FROM events").fetchone()[0] or 0)

    def broken_chain(self) -> int | None:
        """The first event that is not what its hash says, whose `prev` is not the hash of
        the event before it, or whose sequence number skips one (an edited or damaged
        journal), or None."""
        if not self._chained:
            return None  # a journal from before the chain: nothing to check it against
        prev, expected = "", 1
        rows = self._read("SELECT seq, device, match, kind, data, mono, wall, actor, prev, "
                          "hash FROM events ORDER BY seq")
        try:
            for seq, device, match, kind, data, mono, wall, actor, link, stored in rows:
                event = {"seq": seq, "device": device, "match": match, "kind": kind,
                         "data": json.loads(data), "mono": mono, "wall": wall,
                         "actor": actor, "prev": link}
                digest = event_hash(event)
                if seq != expected or link != prev or digest != stored:
                    return int(seq)
                prev, expected = digest, seq + 1
        except (sqlite3.DatabaseError, ValueError) as exc:
            raise journal_error(self.path, exc) from None
        return None

    def adopt(self, events: list[dict[str, Any]]) -> None:
        """Start an empty journal from another kiosk's events for this table (a replacement
        kiosk continues the table's sequence). Raises JournalError if this journal has events
        or the events are not the table's whole chain from its first."""
        if self.last_seq:
            raise JournalError(f"{self.path}: already has {self.last_seq} events; a "
                               "replacement kiosk starts from an empty journal",
                               "journal.not-empty", n=self.last_seq)
        if [e["seq"] for e in events] != list(range(1, len(events) + 1)) or \
                (events and events[0]["prev"] != "") or \
                broken_link(events, "") is not None:
            raise JournalError("the downloaded events are not a whole chain from 1",
                               "journal.bad-download")
        hashes = [event_hash(e) for e in events]
        rows = [(e["seq"], e["device"], e["match"], e["kind"],
                 json.dumps(e["data"], ensure_ascii=False, sort_keys=True), e["mono"],
                 e["wall"], e["actor"], e["prev"], h) for e, h in zip(events, hashes,
                                                                      strict=True)]
        try:
            self._insert(rows)
        except sqlite3.DatabaseError as exc:
            raise journal_error(self.path, exc, "not recorded") from None
        self.last_seq = len(events)
        self.last_hash = hashes[-1] if hashes else ""

    def setups(self) -> list[tuple[str, dict[str, Any]]]:
        """Each match's setup, oldest first: (the journal's name for the match, its data);
        a match dropped since (`abandon`) is left out."""
        rows = self._read("SELECT match, data FROM events WHERE kind = 'setup' AND match NOT IN "
                          "(SELECT match FROM events WHERE kind = 'abandon') ORDER BY seq")
        return [(match, json.loads(data)) for match, data in rows]

    def matches(self) -> list[str]:
        """The matches recorded at this table, oldest first."""
        rows = self._read(
            "SELECT match FROM events WHERE match != '' GROUP BY match ORDER BY min(seq)")
        return [row[0] for row in rows]

    def close(self) -> None:
        self.db.close()
        self._release()
