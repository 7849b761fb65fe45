"""The scorer's store: paired tables, pairing codes, and every table's journal events.

SQLite (`kiosk/sqlite.py`), WAL and synchronous=FULL like the kiosks' journals: an event the
scorer acknowledged survives a power cut. Events are kept once by (table, sequence), so a kiosk
may resend freely; the high-water mark tells it from where to resend after a gap. Every event
carries the hash of the table's event before it: an event whose place holds another, or that
does not follow on from its neighbours, is a conflict, kept aside (never lost, never spliced
in) and named by its sequence number.

The file holds the tables' secrets and the scorer's TLS key, so it (and every backup copy) is
readable by the scorer's user only; admin session tokens are kept as hashes. A table's last
contact is kept in memory: a heartbeat writes nothing.

Writes: the tables' batches and pairings go through the one writer thread (`writer.py`), which
group-commits them. Every other connection (the head referee's console, `kiosk scorer admin`)
begins its transactions IMMEDIATE: a write waits its turn behind the writer's commit (the busy
timeout) instead of failing because that commit made its snapshot stale ("database is
locked", the 500 ten kiosks pairing at once met).
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import StoreError
from ...protocol.chain import EVENT_FIELDS, event_hash, extras, seal
from ...sqlite import Database, Migrations, Schema, durable
from .keys import DIRECTOR_REVISION, KEYS_REVISION
from .writer import Writer

migrations = Migrations("kiosk.scorer.store.database")


@migrations()
def create_tables(db: Schema) -> None:
    db.table("tables").create({"number": int, "secret": str, "device": str, "paired_at": float},
                        pk="number")
    db.table("codes").create({"code": str, "table_number": int, "used": int}, pk="code")
    db.table("events").create(
        {"device": str, "seq": int, "table_number": int, "match": str, "kind": str,
         "data": str, "mono": float, "wall": float, "actor": str}, pk=("device", "seq"))
    db.table("nonces").create({"table_number": int, "nonce": str}, pk=("table_number", "nonce"))


@migrations()
def create_event_tables(db: Schema) -> None:
    # A table's events have one sequence across its kiosks: a replacement kiosk continues the
    # journal it downloaded, so (table, seq) is unique too.
    db.table("events").create_index(["table_number", "seq"], unique=True)
    db.table("nonces").add_column("at", float)
    db.table("nonces").create_index(["at"])
    db.table("settings").create({"key": str, "value": str}, pk="key")
    db.table("event").create({"id": int, "name": str, "ruleset": str, "ruleset_sha256": str,
                        "format": str, "rounds": int, "match_minutes": float, "seed": int,
                        "status": str, "created": float}, pk="id")
    db.table("teams").create({"id": str, "name": str, "unit": str, "players": str,
                        "withdrawn_after": int}, pk="id")
    db.table("assignments").create({"round": int, "table_number": int, "ns": str, "ew": str},
                             pk=("round", "table_number"))
    db.table("byes").create({"round": int, "team": str}, pk=("round", "team"))
    db.table("rounds").create({"number": int, "start_at": float, "pairing_note": str},
                        pk="number")
    db.table("rulings").create({"id": int, "round": int, "table_number": int, "kind": str,
                          "loser": str, "data": str, "reason": str, "at": float}, pk="id")
    db.table("sessions").create({"token": str, "csrf": str, "expires": float}, pk="token")
    db.table("orphans").create({"device": str, "seq": int, "table_number": int, "event": str,
                          "why": str, "at": float}, pk=("device", "seq"))
    db.table("links").create({"table_number": int, "last_seen": float, "behind": int},
                       pk="table_number")


@migrations()
def add_round_stages(db: Schema) -> None:
    db.table("rounds").add_column("stage", str)  # "swiss", "group", "playoff", "final" …
    # Individual events: the table's four players by drawn seat letter, as JSON.
    db.table("assignments").add_column("seats", str)


@migrations()
def events_keyed_by_table(db: Schema) -> None:
    # Two tables' kiosks with one device id (cloned from one image) must not collide.
    db.table("events").transform(pk=("table_number", "device", "seq"))
    db.table("orphans").transform(pk=("table_number", "device", "seq"))


@migrations()
def director_console(db: Schema) -> None:
    """The head referee's console (issue 12): late entries, a round's private draft and its
    publication, the hall's round clock, rulings that can be removed, the audit log."""
    db.table("teams").add_column("joined_round", int)  # a late entry plays from this round on
    db.table("teams").add_column("missed_points", int)  # big points for each round it missed
    db.table("teams").add_column("added", float)
    db.table("rounds").add_column("published_at", float)
    db.table("rounds").add_column("clock", str)  # the hall's pauses, extensions and stop, as JSON
    for column in ("removed_at", "removed_reason", "removed_by", "by"):
        db.table("rulings").add_column(column, float if column == "removed_at" else str)
    db.table("sessions").add_column("who", str)
    db.table("audit").create({"id": int, "at": float, "who": str, "action": str, "params": str},
                       pk="id")


@migrations()
def chain_and_access(db: Schema) -> None:
    # The hash chain: each stored event's link and hash (computed once for an older store).
    db.table("events").add_column("prev", str)
    db.table("events").add_column("hash", str)
    tables = [t for (t,) in db.execute("SELECT DISTINCT table_number FROM events")]
    for table in tables:
        prev = ""
        for row in db.execute(f"SELECT {EVENT_COLUMNS} FROM events WHERE table_number = ? "
                              "ORDER BY seq", [table]).fetchall():
            event = _event(row, prev)
            digest = event_hash(event)
            db.execute("UPDATE events SET prev = ?, hash = ? WHERE table_number = ? AND "
                       "seq = ?", [prev, digest, table, event["seq"]])
            prev = digest
    # Events kept aside: a conflict's events, an import's events whose places were taken.
    db.table("aside").create({"id": int, "table_number": int, "seq": int, "hash": str,
                        "event": str, "why": str, "at": float}, pk="id")
    db.table("aside").create_index(["table_number", "hash"], unique=True)
    for d, s, t, e, at in db.execute(  # (an older orphan has no hash: keyed by its device)
            "SELECT device, seq, table_number, event, at FROM orphans").fetchall():
        db.execute("INSERT OR IGNORE INTO aside (table_number, seq, hash, event, why, at) "
                   "VALUES (?, ?, ?, ?, ?, ?)", [t, s, f"{d}:{s}", e, "place-taken", at])
    db.table("orphans").drop()
    db.table("conflicts").create({"table_number": int, "seq": int, "why": str, "at": float,
                            "resolved": int}, pk=("table_number", "seq"))
    # Codes expire, and a wrong guess burns one; a credential is confirmed by its first use.
    db.table("codes").add_column("issued", float)
    db.table("codes").add_column("used_at", float)
    db.execute("UPDATE codes SET issued = 0")  # codes from before expiry: expired
    db.table("tables").add_column("confirmed", int)
    db.execute("UPDATE tables SET confirmed = 1")
    # Session tokens are kept as hashes from now on: the old plain ones end.
    db.execute("DELETE FROM sessions")
    # Nonces and link health live in memory (a heartbeat writes nothing).
    db.table("nonces").drop()
    db.table("links").drop()


# The head referee's data: what the director reads and remembers between kiosk batches. A
# change to any of these tables, from any connection, moves the store's `revision` (triggers);
# a table added here later needs its triggers too (tests/test_director_memory.py checks).
DIRECTOR_TABLES = ("event", "teams", "rounds", "assignments", "byes", "rulings", "settings")


@migrations()
def director_revision(db: Schema) -> None:
    db.table("revision").create({"id": int, "n": int}, pk="id")
    db.execute(f"INSERT INTO revision VALUES ({DIRECTOR_REVISION}, 0)")
    for table in DIRECTOR_TABLES:
        for change in ("INSERT", "UPDATE", "DELETE"):
            db.execute(f"CREATE TRIGGER {table}_{change.lower()}_revision AFTER {change} ON "
                       f"{table} BEGIN UPDATE revision SET n = n + 1 "
                       f"WHERE id = {DIRECTOR_REVISION}; END")


@migrations()
def event_edits(db: Schema) -> None:
    """The event can be corrected after it was created (admin: edit the event)."""
    # The name the tables' matches carry (they are found by it): the created name, kept when
    # the name is corrected after a round was given to the tables.
    db.table("event").add_column("match_name", str)
    db.execute("UPDATE event SET match_name = name")
    # Each kiosk's ruleset copies when it paired ({id: sha256}, JSON): another ruleset for the
    # event is checked against them.
    db.table("tables").add_column("rulesets", str)


@migrations()
def event_extras(db: Schema) -> None:
    # Fields a later release's kiosk adds to an event (kiosk.protocol.schema), as JSON: kept,
    # hashed with the event and given back with it.
    db.table("events").add_column("extra", str)


@migrations()
def events_keyed_once(db: Schema) -> None:
    # (table, seq) is unique already, and says (table, device, seq) is: that primary key was a
    # second index every kept event paid for (a quarter of its insert). Rowids are kept.
    db.table("events").transform(pk=None)



@migrations()
def code_misses(db: Schema) -> None:
    # A code takes a few wrong guesses before it is burnt (a typo at the table costs no code).
    db.table("codes").add_column("misses", int)


@migrations()
def keys_revision(db: Schema) -> None:
    # A second counter, moved by any change to the tables' credentials: the kiosks' requests
    # read them from memory while it stands still (keys.py).
    db.execute(f"INSERT INTO revision VALUES ({KEYS_REVISION}, 0)")
    for change in ("INSERT", "UPDATE", "DELETE"):
        db.execute(f"CREATE TRIGGER tables_{change.lower()}_keys AFTER {change} ON tables "
                   f"BEGIN UPDATE revision SET n = n + 1 WHERE id = {KEYS_REVISION}; END")


# The events table's columns for an event's fields (kiosk.protocol.schema: all but `prev`,
# which is kept beside the event's hash).
EVENT_COLUMNS = ", ".join(f for f in EVENT_FIELDS if f != "prev")
CODE_HOURS = 12.0  # a pairing code expires this long after it was issued
REPAIR_WITHIN = 600.0  # seconds: a kiosk whose pairing answer was lost may pair again
OPEN, USED, BURNT = 0, 1, 2  # a code's state
MISSES = 3  # wrong guesses that burn a code: a typo or two, never a search of a million


ROW_COLUMNS = f"{EVENT_COLUMNS}, table_number, prev, hash, extra"  # a `Row`'s, in its order
# Rows an INSERT statement takes at most (768 values: within SQLite's oldest limit, 999).
INSERT_AT_ONCE = 64


@functools.cache
def _insert_sql(rows: int) -> str:
    row = "(" + ", ".join(["?"] * len(ROW_COLUMNS.split(", "))) + ")"
    return f"INSERT INTO events ({ROW_COLUMNS}) VALUES " + ", ".join([row] * rows)


def _insert_events(conn: sqlite3.Connection, rows: list[Row]) -> int:
    """Insert `rows` (`Row`s) into events; returns the last one's rowid.

    A statement takes a power of two of rows (a batch of 60: 32 + 16 + 8 + 4), so a handful
    of statement texts serve every batch. Not `executemany`: sqlite3 lets go of the
    interpreter's lock for every row it steps, and the writer's thread then waits for a busy
    event loop to give it back (up to the 5 ms switch interval) once a row
    (bench/bench_insert.py)."""
    start, last = 0, 0
    while start < len(rows):
        size = min(INSERT_AT_ONCE, 1 << ((len(rows) - start).bit_length() - 1))
        values = [value for row in rows[start:start + size] for value in row]
        last = conn.execute(_insert_sql(size), values).lastrowid or 0
        start += size
    return last


def _event(row: Iterable[Any], prev: str | None = None) -> dict[str, Any]:
    d, s, m, k, x, mo, w, a, *link = row
    event = {"device": d, "seq": s, "match": m, "kind": k, "data": json.loads(x), "mono": mo,
             "wall": w, "actor": a, "prev": link[0] if prev is None else prev}
    if len(link) > 1 and link[1]:  # a later release's fields
        event.update(json.loads(link[1]))
    return event


# An event's row in the store, as `Store.apply` inserts it and the folds read it: (device, seq,
# match, kind, data, mono, wall, actor, table, prev, hash, extra).
Row = tuple[Any, ...]
# A batch's rows as `Store.apply` inserted them, with the rowid of the first: consecutive.
Landed = tuple[int, list[Row]]
LANDED_KEPT = 1024  # batches kept for the folds (2 s of a full hall); past that: the store


def rows_of(table: int, events: list[dict[str, Any]],
            sealed: Iterable[tuple[str, str]] | None = None) -> list[Row]:
    """The table's `events` as the store keeps them (`Row`); `sealed`: each event's
    `chain.seal`, when their check made them already."""
    rows = []
    for e, (digest, data) in zip(events, sealed or map(seal, events), strict=True):
        more = extras(e) if len(e) > len(EVENT_FIELDS) else None
        rows.append((e["device"], e["seq"], e["match"], e["kind"], data, float(e["mono"]),
                     float(e["wall"]), e["actor"], table, e["prev"], digest,
                     json.dumps(more, ensure_ascii=False) if more else None))
    return rows


@dataclass(frozen=True)
class Ingested:
    """What a batch did: the table's high-water mark after it, events kept aside, and the
    conflict if there was one: (sequence number, reason key). `landed`: the rows it added."""

    high_water: int
    aside: int = 0
    conflict: tuple[int, str] | None = None
    landed: Landed | None = field(default=None, compare=False, repr=False)


class WaitingDatabase(Database):
    """A connection whose transactions take the write lock when they begin (BEGIN IMMEDIATE),
    so they wait for another connection's commit rather than fail on a stale snapshot."""

    BEGIN = "BEGIN IMMEDIATE"


def open_store(path: str | Path) -> WaitingDatabase:
    """A connection to the store: WAL, synchronous=FULL, the busy timeout, immediate
    transactions."""
    return WaitingDatabase(durable(path).conn)


class Store:
    """The scorer's SQLite file. Every method commits before it returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _private(self.path)
        self.db: Database = open_store(self.path)
        migrations.apply(self.db)
        for suffix in ("-wal", "-shm"):
            _private(Path(f"{self.path}{suffix}"), create=False)
        self.own_writes = 0  # commits on `db`: data_version counts other connections' only
        self._marks: dict[int, int] = {}  # high-water marks, kept by whoever commits events
        self._links: dict[int, tuple[float, int]] = {}
        # Tables whose kiosk was online when the scorer last stopped, with the scorer time
        # each has to come back by (`director/contacts.py`): until then not called offline.
        self.returning: dict[int, float] = {}
        self._lock = threading.Lock()
        self._writer: Writer | None = None
        # The batches committed, in order, for the folds to take without reading them back
        # (`Folds.update`): a third of the fold's work. Appended by the writer's thread.
        self.landed: deque[Landed] = deque(maxlen=LANDED_KEPT)

    def writer(self) -> Writer:
        """The store's one writer (a thread with its own connection), started on first use."""
        if self._writer is None:
            self._writer = Writer(self.path)
        return self._writer

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self.db.close()

    def version(self) -> int:
        """Changes whenever this or another connection (an admin command) commits."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0]) + self.own_writes

    def revision(self) -> int:
        """Changes whenever the head referee's data does (`DIRECTOR_TABLES`), and only then:
        a kiosk's batch leaves it be."""
        return int(self.db.execute("SELECT n FROM revision WHERE id = ?",
                                   [DIRECTOR_REVISION]).fetchone()[0])

    def _wrote(self) -> None:
        self.own_writes += 1

    # -- settings ---------------------------------------------------------------------------

    def setting(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def set_setting(self, key: str, value: str) -> None:
        with self.db.atomic():
            self.db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", [key, value])
        self._wrote()

    # -- pairing ----------------------------------------------------------------------------

    def issue_code(self, table: int, now: float | None = None) -> str:
        """A one-time pairing code for `table` (the head referee hands it to the kiosk); it
        expires after CODE_HOURS. The table's other open codes end."""
        with self.db.atomic():
            self.db.execute("DELETE FROM codes WHERE table_number = ? AND used != ?",
                            [table, USED])
            code = f"{secrets.randbelow(10**6):06d}"
            while self.db.execute("SELECT 1 FROM codes WHERE code = ?", [code]).fetchone():
                code = f"{secrets.randbelow(10**6):06d}"  # (another table's: a new draw)
            self.db.execute("INSERT OR REPLACE INTO codes (code, table_number, used, issued) "
                            "VALUES (?, ?, ?, ?)", [code, table, OPEN, _now(now)])
        self._wrote()
        return code

    def end_codes(self, beyond: int) -> None:
        """The open codes of tables numbered above `beyond` end (the hall has fewer)."""
        with self.db.atomic():
            self.db.execute("DELETE FROM codes WHERE table_number > ? AND used != ?",
                            [beyond, USED])
        self._wrote()

    def pairing_code(self, table: int, device: str, now: float,
                     db: Database | None = None) -> str | None:
        """The code a kiosk pairing `table` must prove it knows: the table's open code, or
        (the kiosk's answer was lost) the code it used a moment ago, while its credential is
        still unused. None: there is none, or it expired."""
        db = db or self.db
        row = db.execute(
            "SELECT code FROM codes WHERE table_number = ? AND used = ? AND issued > ? "
            "ORDER BY issued DESC", [table, OPEN, now - CODE_HOURS * 3600]).fetchone()
        if row:
            return str(row[0])
        again = db.execute(
            "SELECT c.code FROM codes c JOIN tables t ON t.number = c.table_number "
            "WHERE c.table_number = ? AND c.used = ? AND c.used_at > ? AND t.device = ? "
            "AND NOT t.confirmed ORDER BY c.used_at DESC",
            [table, USED, now - REPAIR_WITHIN, device]).fetchone()
        return str(again[0]) if again else None

    def miss_code(self, code: str, db: Database | None = None) -> int:
        """A wrong guess was made against `code`: the guesses it has left; at none it pairs
        nothing any more. `db`: the writer's connection, inside its transaction (else this
        one's, committed here)."""
        with (db or self.db).atomic() as d:
            d.execute("UPDATE codes SET misses = coalesce(misses, 0) + 1 WHERE code = ? AND "
                      "used = ?", [code, OPEN])
            row = d.execute("SELECT misses FROM codes WHERE code = ? AND used = ?",
                            [code, OPEN]).fetchone()
            left = max(0, MISSES - row[0]) if row else 0
            if row and not left:
                d.execute("UPDATE codes SET used = ? WHERE code = ? AND used = ?",
                          [BURNT, code, OPEN])
        if db is None:
            self._wrote()
        return left

    def pair(self, table: int, code: str, device: str, now: float,
             rulesets: dict[str, str] | None = None,
             db: Database | None = None) -> str:
        """The table's new credential, for the kiosk that proved it knows `code` (the table's
        earlier kiosk loses its credential); `rulesets`: the kiosk's copies, {id: sha256};
        `db` as for `miss_code`. Raises StoreError if the code is no longer the one to pair
        with."""
        with (db or self.db).atomic() as d:
            if self.pairing_code(table, device, now, d) != code:
                raise StoreError("unknown or used pairing code")
            secret = secrets.token_hex(32)
            d.execute("UPDATE codes SET used = ?, used_at = ? WHERE code = ?",
                      [USED, now, code])
            d.execute("INSERT OR REPLACE INTO tables (number, secret, device, paired_at, "
                      "confirmed, rulesets) VALUES (?, ?, ?, ?, 0, ?)",
                      [table, secret, device, now, json.dumps(rulesets or {})])
            d.execute("UPDATE conflicts SET resolved = 1 WHERE table_number = ?", [table])
        if db is None:
            self._wrote()
        return secret

    def open_codes(self, now: float | None = None) -> dict[int, str]:
        """The pairing codes not used, burnt or expired yet, by table."""
        return {t: c for c, t in self.db.execute(
            "SELECT code, table_number FROM codes WHERE used = ? AND issued > ? "
            "ORDER BY table_number", [OPEN, _now(now) - CODE_HOURS * 3600])}

    def code_states(self, now: float | None = None) -> dict[int, str]:
        """Each unpaired table's latest code's state: "open", "burnt" (a wrong guess) or
        "expired", for the admin page (the head referee issues a new one)."""
        states: dict[int, str] = {}
        for table, used, issued in self.db.execute(
                "SELECT table_number, used, issued FROM codes WHERE used != ? "
                "ORDER BY issued", [USED]):
            states[table] = ("burnt" if used == BURNT else "expired"
                             if (issued or 0) <= _now(now) - CODE_HOURS * 3600 else "open")
        return states

    def revoke(self, table: int) -> None:
        """The table's kiosk loses its credential (it is being replaced)."""
        with self.db.atomic():
            self.db.execute("DELETE FROM tables WHERE number = ?", [table])
            self.db.execute("UPDATE conflicts SET resolved = 1 WHERE table_number = ?",
                            [table])
        self._wrote()

    def credential(self, table: int) -> tuple[str, str, bool] | None:
        """(secret, device, confirmed) of a paired table, or None. Confirmed: the credential
        has been used (`confirm`)."""
        row = self.db.execute("SELECT secret, device, confirmed FROM tables WHERE number = ?",
                              [table]).fetchone()
        return (row[0], row[1], bool(row[2])) if row else None

    @staticmethod
    def confirm(db: Database, table: int) -> None:
        """The table's credential has been used: its code cannot pair again."""
        db.execute("UPDATE tables SET confirmed = 1 WHERE number = ?", [table])

    def kiosk_rulesets(self) -> dict[int, dict[str, str]]:
        """Each paired table's kiosk's ruleset copies, {id: sha256}, as it said when it paired
        ({} for a kiosk paired before the scorer kept them)."""
        return {n: json.loads(r or "{}") for n, r in
                self.db.execute("SELECT number, rulesets FROM tables")}

    def pairings(self) -> dict[int, tuple[str, float]]:
        """Each paired table's kiosk: (device id, when it paired)."""
        return {n: (d, at or 0.0) for n, d, at in
                self.db.execute("SELECT number, device, paired_at FROM tables")}

    def paired_tables(self) -> dict[int, str]:
        return {n: d for n, d in self.db.execute("SELECT number, device FROM tables")}

    # -- events -----------------------------------------------------------------------------

    def ingest(self, table: int, events: Iterable[dict[str, Any]], now: float,
               behind: int = 0) -> tuple[int, int]:
        """Keep a batch of the table's events on this connection and commit (an import, a
        test). Returns (high-water mark, events kept aside)."""
        with self.db.atomic():
            done = self.apply(self.db, table, rows_of(table, list(events)), now)
        self.committed(table, done, now, behind)
        self._wrote()
        return done.high_water, done.aside

    def apply(self, db: Database, table: int, rows: list[Row], now: float,
              head: tuple[int, str] | None = None) -> Ingested:
        """Add a batch of the table's consecutive events (`rows_of`) inside the caller's
        transaction: duplicates are skipped; from the first event whose place holds another
        event or that does not follow on from its neighbours, the batch is a conflict and kept
        aside. `head`: the kiosk journal's last (seq, hash), checked against the events here."""
        mark = self._mark(db, table)
        if not rows:
            return Ingested(mark, 0, self._head_conflict(db, table, mark, head))
        first, last = rows[0][1], rows[-1][1]
        stored = {s: (h, p) for s, h, p in db.execute(
            "SELECT seq, hash, prev FROM events WHERE table_number = ? AND seq BETWEEN ? AND ?",
            [table, first - 1, last + 1])}
        before = stored.get(first - 1, (None, None))[0]
        fresh, conflict, cut = [], None, len(rows)
        for i, row in enumerate(rows):
            seq, prev, digest = row[1], row[9], row[10]
            held = stored.get(seq)
            if held is not None and held[0] == digest:
                before = digest
                continue  # sent before: a duplicate
            why = ("place-taken" if held is not None else
                   "chain-broken" if before is not None and prev != before else
                   "chain-broken" if seq == last and last + 1 in stored and
                   stored[last + 1][1] != digest else None)
            if why:
                conflict, cut = (seq, why), i
                break
            fresh.append(row)
            before = digest
        landed = None
        if fresh:
            # (one connection inserting in one transaction: the rows' rowids follow on)
            landed = (_insert_events(db.conn, fresh) - len(fresh) + 1, fresh)
        aside = 0
        if conflict is not None:
            aside = self._keep_aside(db, table, rows[cut:], conflict[1], now)
            self._conflict(db, table, conflict, now)
        if conflict is None and first <= mark + 1 and \
                [row[1] for row in rows] == list(range(first, last + 1)):
            mark = max(mark, last)  # (every event from the mark to `last` is stored now)
        mark = self._advance(db, table, mark)
        if conflict is None:
            conflict = self._head_conflict(db, table, mark, head)
        return Ingested(mark, aside, conflict, landed)

    def _head_conflict(self, db: Database, table: int, mark: int,
                       head: tuple[int, str] | None) -> tuple[int, str] | None:
        """A kiosk whose journal ends before what it already sent (rolled back) or whose last
        event is not the scorer's (restored from an older copy, then played on)."""
        if head is None or head[0] > mark:
            return None
        row = db.execute("SELECT hash FROM events WHERE table_number = ? AND seq = ?",
                         [table, head[0]]).fetchone() if head[0] else ("",)
        if row is not None and row[0] != head[1]:
            return (head[0], "head-differs")
        if head[0] < mark:
            return (head[0] + 1, "rolled-back")
        return None

    def _keep_aside(self, db: Database, table: int, rows: list[Row], why: str,
                    now: float) -> int:
        db.conn.executemany(
            "INSERT OR IGNORE INTO aside (table_number, seq, hash, event, why, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(table, row[1], row[10], json.dumps(_event((*row[:8], row[9], row[11])),
                                                 ensure_ascii=False), why, now)
             for row in rows])
        return len(rows)

    @staticmethod
    def _conflict(db: Database, table: int, conflict: tuple[int, str],
                  now: float) -> None:
        db.execute("INSERT OR IGNORE INTO conflicts VALUES (?, ?, ?, ?, 0)",
                   [table, conflict[0], conflict[1], now])

    def record_conflict(self, db: Database, table: int,
                        conflict: tuple[int, str], now: float) -> None:
        """Note a conflict a kiosk's head revealed (nothing to keep aside)."""
        self._conflict(db, table, conflict, now)

    def _mark(self, db: Database, table: int) -> int:
        with self._lock:
            mark = self._marks.get(table)
        return self._advance(db, table, mark) if mark is not None else \
            self._high_water(db, table)

    def _advance(self, db: Database, table: int, mark: int) -> int:
        """The mark moved on over the events stored after `mark` with no gap."""
        if db.execute("SELECT 1 FROM events WHERE table_number = ? AND seq = ?",
                      [table, mark + 1]).fetchone() is None:
            return mark
        row = db.execute(
            "SELECT min(seq) FROM events e WHERE table_number = ? AND seq > ? AND NOT EXISTS "
            "(SELECT 1 FROM events f WHERE f.table_number = e.table_number AND "
            "f.seq = e.seq + 1)", [table, mark]).fetchone()
        return int(row[0])

    def committed(self, table: int, done: Ingested, now: float, behind: int) -> None:
        """After the commit of a batch: its mark is durable, its rows are the folds' to
        take, the table was heard from."""
        with self._lock:
            if done.high_water >= self._marks.get(table, 0):
                self._marks[table] = done.high_water
        if done.landed is not None:
            self.landed.append(done.landed)
        self.heard(table, now, behind)

    def heard(self, table: int, now: float, behind: int) -> None:
        """The table's kiosk was heard from (its link health: memory only)."""
        self._links[table] = (now, behind)

    def high_water(self, table: int) -> int:
        """The table's last sequence number with no gap before it."""
        return self._mark(self.db, table)

    @staticmethod
    def _high_water(db: Database, table: int) -> int:
        count, top = db.execute(
            "SELECT count(*), coalesce(max(seq), 0) FROM events WHERE table_number = ?",
            [table]).fetchone()
        if count == top:  # sequence numbers are unique per table: no gap (the usual case)
            return int(top)
        row = db.execute(  # the first event whose successor is missing
            "SELECT min(seq) FROM events e WHERE table_number = ? AND NOT EXISTS (SELECT 1 "
            "FROM events f WHERE f.table_number = e.table_number AND f.seq = e.seq + 1)",
            [table]).fetchone()
        has_first = db.execute("SELECT 1 FROM events WHERE table_number = ? AND seq = 1",
                               [table]).fetchone()
        return int(row[0]) if has_first else 0

    def hash_at(self, table: int, seq: int) -> str:
        """The hash of the table's event `seq` ("" for 0 or an event not here)."""
        row = self.db.execute("SELECT hash FROM events WHERE table_number = ? AND seq = ?",
                              [table, seq]).fetchone()
        return str(row[0]) if row else ""

    def events(self, table: int, after: int = 0, upto: int | None = None
               ) -> list[dict[str, Any]]:
        """The table's events in sequence order, from after `after` to `upto`."""
        rows = self.db.execute(
            f"SELECT {EVENT_COLUMNS}, prev, extra FROM events WHERE table_number = ? AND seq > ? "
            "AND seq <= ? ORDER BY seq", [table, after, upto if upto is not None else 2**62])
        return [_event(row) for row in rows]

    def links(self) -> dict[int, tuple[float, int]]:
        """Each table's last contact (scorer time) and the events it said it had unsent."""
        return dict(self._links)

    def orphans(self) -> list[dict[str, Any]]:
        """Every event kept aside, by table and sequence."""
        return [json.loads(e) for (e,) in self.db.execute(
            "SELECT event FROM aside ORDER BY table_number, seq, id")]

    def conflicts(self) -> list[dict[str, Any]]:
        """The tables whose kiosk's journal and the scorer's record part, not yet resolved
        by a new pairing, one each: table, the first sequence number they differ at, why,
        when, and how many of the kiosk's events are kept aside from there on (a kiosk that
        sent more batches from another history parts at more places: the first says it)."""
        return [{"table": t, "seq": s, "why": why, "at": at, "aside": n}
                for t, s, why, at, n in self.db.execute(
                    "SELECT c.table_number, c.seq, c.why, c.at, (SELECT count(*) FROM aside a "
                    "WHERE a.table_number = c.table_number AND a.seq >= c.seq) FROM conflicts c "
                    "WHERE NOT c.resolved AND c.seq = (SELECT min(seq) FROM conflicts d WHERE "
                    "d.table_number = c.table_number AND NOT d.resolved) "
                    "ORDER BY c.table_number")]

    def backup(self, target: str | Path) -> Path:
        """A consistent copy of the store (SQLite's online backup), safe while serving. The
        copy holds the tables' secrets and the TLS key: readable by this user only."""
        target = Path(target)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _private(target)
        copy = sqlite3.connect(str(target))
        try:
            self.db.conn.backup(copy)
        finally:
            copy.close()
        return target


def _private(path: Path, create: bool = True) -> None:
    """`path` readable and writable by its owner only (created empty if it is missing)."""
    if create and not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    if path.exists():
        os.chmod(path, 0o600)


def _now(now: float | None) -> float:
    return time.time() if now is None else now
