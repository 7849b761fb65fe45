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


class StoreError(Exception):
    """A request the store refuses: an unknown pairing code, a table that is not yours."""


class Store:
    def __init__(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.db = connect(path)
        migrations.apply(self.db)

    def issue_code(self, table: int) -> str:
        """A one-time pairing code for `table` (the head referee hands it to the kiosk)."""
        code = f"{secrets.randbelow(10**6):06d}"
        with self.db.atomic():
            self.db.execute("INSERT OR REPLACE INTO codes VALUES (?, ?, 0)", [code, table])
        return code

    def pair(self, code: str, device: str, now: float) -> tuple[int, str]:
        """Trade a pairing code for the table's credential. The table's earlier kiosk loses
        its credential. Raises StoreError for an unknown or used code."""
        with self.db.atomic():
            row = self.db.execute("SELECT table_number, used FROM codes WHERE code = ?",
                                  [code]).fetchone()
            if row is None or row[1]:
                raise StoreError("unknown or used pairing code")
            table, secret = row[0], secrets.token_hex(32)
            self.db.execute("UPDATE codes SET used = 1 WHERE code = ?", [code])
            self.db.execute("INSERT OR REPLACE INTO tables VALUES (?, ?, ?, ?)",
                            [table, secret, device, now])
        return table, secret

    def credential(self, table: int) -> tuple[str, str] | None:
        """(secret, device) of a paired table, or None."""
        row = self.db.execute("SELECT secret, device FROM tables WHERE number = ?",
                              [table]).fetchone()
        return (row[0], row[1]) if row else None

    def use_nonce(self, table: int, nonce: str) -> bool:
        """Record a request's nonce; False if it was seen before (a replay)."""
        try:
            with self.db.atomic():
                self.db.execute("INSERT INTO nonces VALUES (?, ?)", [table, nonce])
        except sqlite3.IntegrityError:
            return False
        return True

    def ingest(self, table: int, device: str, events: Iterable[dict[str, Any]]) -> int:
        """Keep a batch of the table's events (duplicates ignored) and commit before answering.
        Returns the high-water mark: the device's last sequence number with no gap before it."""
        rows = [(device, int(e["seq"]), table, str(e["match"]), str(e["kind"]),
                 json.dumps(e["data"], ensure_ascii=False, sort_keys=True), float(e["mono"]),
                 float(e["wall"]), str(e["actor"])) for e in events]
        with self.db.atomic():
            self.db.conn.executemany(
                "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return self.high_water(device)

    def high_water(self, device: str) -> int:
        seqs = [r[0] for r in self.db.execute(
            "SELECT seq FROM events WHERE device = ? ORDER BY seq", [device])]
        mark = 0
        for seq in seqs:
            if seq != mark + 1:
                break
            mark = seq
        return mark

    def events(self, table: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT device, seq, match, kind, data, mono, wall, actor FROM events "
            "WHERE table_number = ? ORDER BY device, seq", [table])
        return [{"device": d, "seq": s, "match": m, "kind": k, "data": json.loads(x),
                 "mono": mo, "wall": w, "actor": a} for d, s, m, k, x, mo, w, a in rows]
