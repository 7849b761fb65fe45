"""The scorer's store: paired tables, pairing codes, and every table's journal events.

SQLite through sqlite-utils, WAL and synchronous=FULL like the kiosks' journals: an event the
scorer acknowledged survives a power cut. Events are kept once by (device, sequence), so a kiosk
may resend freely; the high-water mark tells it from where to resend after a gap.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils.migrations import Migrations

from ..table.journal import connect

migrations = Migrations("kiosk.scorer.store")


@migrations()
def create_tables(db: sqlite_utils.Database) -> None:
    db["tables"].create({"number": int, "secret": str, "device": str, "paired_at": float},
                        pk="number")
    db["codes"].create({"code": str, "table_number": int, "used": int}, pk="code")
    db["events"].create(
        {"device": str, "seq": int, "table_number": int, "match": str, "kind": str,
         "data": str, "mono": float, "wall": float, "actor": str}, pk=("device", "seq"))
    db["nonces"].create({"table_number": int, "nonce": str}, pk=("table_number", "nonce"))


@migrations()
def create_event_tables(db: sqlite_utils.Database) -> None:
    # A table's events have one sequence across its kiosks: a replacement kiosk continues the
    # journal it downloaded, so (table, seq) is unique too.
    db["events"].create_index(["table_number", "seq"], unique=True)
    db["nonces"].add_column("at", float)
    db["nonces"].create_index(["at"])
    db["settings"].create({"key": str, "value": str}, pk="key")
    db["event"].create({"id": int, "name": str, "ruleset": str, "ruleset_sha256": str,
                        "format": str, "rounds": int, "match_minutes": float, "seed": int,
                        "status": str, "created": float}, pk="id")
    db["teams"].create({"id": str, "name": str, "unit": str, "players": str,
                        "withdrawn_after": int}, pk="id")
    db["assignments"].create({"round": int, "table_number": int, "ns": str, "ew": str},
                             pk=("round", "table_number"))
    db["byes"].create({"round": int, "team": str}, pk=("round", "team"))
    db["rounds"].create({"number": int, "start_at": float, "pairing_note": str},
                        pk="number")
    db["rulings"].create({"id": int, "round": int, "table_number": int, "kind": str,
                          "loser": str, "data": str, "reason": str, "at": float}, pk="id")
    db["sessions"].create({"token": str, "csrf": str, "expires": float}, pk="token")
    db["orphans"].create({"device": str, "seq": int, "table_number": int, "event": str,
                          "why": str, "at": float}, pk=("device", "seq"))
    db["links"].create({"table_number": int, "last_seen": float, "behind": int},
                       pk="table_number")


@migrations()
def add_round_stages(db: sqlite_utils.Database) -> None:
    db["rounds"].add_column("stage", str)  # "swiss", "group", "playoff", "final" …
    # Individual events: the table's four players by drawn seat letter, as JSON.
    db["assignments"].add_column("seats", str)


@migrations()
def events_keyed_by_table(db: sqlite_utils.Database) -> None:
    # Two tables' kiosks with one device id (cloned from one image) must not collide.
    db["events"].transform(pk=("table_number", "device", "seq"))
    db["orphans"].transform(pk=("table_number", "device", "seq"))


@migrations()
def director_console(db: sqlite_utils.Database) -> None:
    """The head referee's console (issue 12): late entries, a round's private draft and its
    publication, the hall's round clock, rulings that can be removed, the audit log."""
    db["teams"].add_column("joined_round", int)  # a late entry plays from this round on
    db["teams"].add_column("missed_points", int)  # big points for each round it missed
    db["teams"].add_column("added", float)
    db["rounds"].add_column("published_at", float)
    db["rounds"].add_column("clock", str)  # the hall's pauses, extensions and stop, as JSON
    for column in ("removed_at", "removed_reason", "removed_by", "by"):
        db["rulings"].add_column(column, float if column == "removed_at" else str)
    db["sessions"].add_column("who", str)
    db["audit"].create({"id": int, "at": float, "who": str, "action": str, "params": str},
                       pk="id")


class StoreError(Exception):
    """A request the store refuses: an unknown pairing code, a table that is not yours."""


EVENT_COLUMNS = "device, seq, match, kind, data, mono, wall, actor"


class Store:
    """The scorer's SQLite file. Every method commits before it returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = connect(self.path)
        migrations.apply(self.db)
        self._own_writes = 0  # data_version counts other connections' commits only

    def close(self) -> None:
        self.db.close()

    def version(self) -> int:
        """Changes whenever this or another connection (an admin command) commits."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0]) + self._own_writes

    def _wrote(self) -> None:
        self._own_writes += 1

    # -- settings ---------------------------------------------------------------------------

    def setting(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def set_setting(self, key: str, value: str) -> None:
        with self.db.atomic():
            self.db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", [key, value])
        self._wrote()

    # -- pairing ----------------------------------------------------------------------------

    def issue_code(self, table: int) -> str:
        """A one-time pairing code for `table` (the head referee hands it to the kiosk)."""
        code = f"{secrets.randbelow(10**6):06d}"
        with self.db.atomic():
            self.db.execute("DELETE FROM codes WHERE table_number = ? AND used = 0", [table])
            self.db.execute("INSERT OR REPLACE INTO codes VALUES (?, ?, 0)", [code, table])
        self._wrote()
        return code

    def pair(self, code: str, device: str, now: float) -> tuple[int, str]:
        """Trade a pairing code for the table's credential. The table's earlier kiosk loses
        its credential. Raises StoreError for an unknown or used code."""
        with self.db.atomic():
            row = self.db.execute("SELECT table_number, used FROM codes WHERE code = ?",
                                  [code]).fetchone()
            if row is not None and row[1]:  # the same kiosk asking again (its answer lost)
                again = self.db.execute("SELECT secret FROM tables WHERE number = ? AND "
                                        "device = ?", [row[0], device]).fetchone()
                if again:
                    return row[0], again[0]
            if row is None or row[1]:
                raise StoreError("unknown or used pairing code")
            table, secret = row[0], secrets.token_hex(32)
            self.db.execute("UPDATE codes SET used = 1 WHERE code = ?", [code])
            self.db.execute("INSERT OR REPLACE INTO tables VALUES (?, ?, ?, ?)",
                            [table, secret, device, now])
        self._wrote()
        return table, secret

    def open_codes(self) -> dict[int, str]:
        """The pairing codes not used yet, by table."""
        return {t: c for c, t in self.db.execute(
            "SELECT code, table_number FROM codes WHERE used = 0 ORDER BY table_number")}

    def revoke(self, table: int) -> None:
        """The table's kiosk loses its credential (it is being replaced)."""
        with self.db.atomic():
            self.db.execute("DELETE FROM tables WHERE number = ?", [table])
        self._wrote()

    def credential(self, table: int) -> tuple[str, str] | None:
        """(secret, device) of a paired table, or None."""
        row = self.db.execute("SELECT secret, device FROM tables WHERE number = ?",
                              [table]).fetchone()
        return (row[0], row[1]) if row else None

    def paired_tables(self) -> dict[int, str]:
        return {n: d for n, d in self.db.execute("SELECT number, device FROM tables")}

    def use_nonce(self, table: int, nonce: str, now: float, keep: float) -> bool:
        """Record a request's nonce; False if it was seen before (a replay). Nonces older
        than `keep` seconds are forgotten: a request that old is refused by its time."""
        try:
            with self.db.atomic():
                self.db.execute("DELETE FROM nonces WHERE at < ?", [now - keep])
                self.db.execute("INSERT INTO nonces VALUES (?, ?, ?)", [table, nonce, now])
        except sqlite3.IntegrityError:
            return False
        return True

    # -- events -----------------------------------------------------------------------------

    def ingest(self, table: int, events: Iterable[dict[str, Any]], now: float,
               behind: int = 0) -> tuple[int, int]:
        """Keep a batch of the table's events (duplicates ignored) and commit before answering.
        An event whose place in the table's sequence is taken by another kiosk's event is kept
        aside as an orphan, never lost. Returns (high-water mark, orphans in this batch)."""
        orphans = 0
        with self.db.atomic():
            for e in events:
                row = (str(e["device"]), int(e["seq"]), table, str(e["match"]), str(e["kind"]),
                       json.dumps(e["data"], ensure_ascii=False, sort_keys=True),
                       float(e["mono"]), float(e["wall"]), str(e["actor"]))
                try:
                    self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
                except sqlite3.IntegrityError:
                    if self.db.execute("SELECT 1 FROM events WHERE device = ? AND seq = ? AND "
                                       "table_number = ?", [row[0], row[1], table]).fetchone():
                        continue  # sent before: a duplicate
                    orphans += 1
                    self.db.execute(
                        "INSERT OR IGNORE INTO orphans VALUES (?, ?, ?, ?, ?, ?)",
                        [row[0], row[1], table, json.dumps(e, ensure_ascii=False),
                         "its place in the table's sequence is taken", now])
            mark = self.high_water(table)
            self.db.execute("INSERT OR REPLACE INTO links VALUES (?, ?, ?)",
                            [table, now, behind])
        self._wrote()
        return mark, orphans

    def high_water(self, table: int) -> int:
        """The table's last sequence number with no gap before it."""
        count, top = self.db.execute(
            "SELECT count(*), coalesce(max(seq), 0) FROM events WHERE table_number = ?",
            [table]).fetchone()
        if count == top:  # sequence numbers are unique per table: no gap (the usual case)
            return int(top)
        row = self.db.execute(  # the first event whose successor is missing
            "SELECT min(seq) FROM events e WHERE table_number = ? AND NOT EXISTS (SELECT 1 "
            "FROM events f WHERE f.table_number = e.table_number AND f.seq = e.seq + 1)",
            [table]).fetchone()
        has_first = self.db.execute("SELECT 1 FROM events WHERE table_number = ? AND seq = 1",
                                    [table]).fetchone()
        return int(row[0]) if has_first else 0

    def events(self, table: int, after: int = 0, upto: int | None = None
               ) -> list[dict[str, Any]]:
        """The table's events in sequence order, from after `after` to `upto`."""
        rows = self.db.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE table_number = ? AND seq > ? "
            "AND seq <= ? ORDER BY seq", [table, after, upto if upto is not None else 2**62])
        return [{"device": d, "seq": s, "match": m, "kind": k, "data": json.loads(x),
                 "mono": mo, "wall": w, "actor": a} for d, s, m, k, x, mo, w, a in rows]

    def links(self) -> dict[int, tuple[float, int]]:
        """Each table's last contact (scorer time) and the events it said it had unsent."""
        return {n: (seen, behind) for n, seen, behind in
                self.db.execute("SELECT table_number, last_seen, behind FROM links")}

    def orphans(self) -> list[dict[str, Any]]:
        return [json.loads(e) for (e,) in self.db.execute(
            "SELECT event FROM orphans ORDER BY table_number, seq")]

    def backup(self, target: str | Path) -> Path:
        """A consistent copy of the store (SQLite's online backup), safe while serving."""
        target = Path(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        copy = sqlite3.connect(str(target))
        try:
            self.db.conn.backup(copy)
        finally:
            copy.close()
        return target
