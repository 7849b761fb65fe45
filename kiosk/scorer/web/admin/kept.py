"""What the console keeps for a browser between a form and the page after it, by a random id,
in a SQLite file of its own beside the store (`console.sqlite`), so that a restart of the
scorer keeps it too:

- a confirmation it asked (`confirmation`): the question, the form to send again and the page
  it came from, until it is answered; once answered, the id only says so;
- a refused form (`refusal`): what was typed and why it was refused, for the page the 303
  after it leads to (so Back to that page is a page, never Chromium's ERR_CACHE_MISS).

The newest are kept, within a count and a size (a team file sent back is up to 2.7 MB of
base64), for a day at most. Nothing here is the event's record: losing the file loses only
pages to go back to, each of which then says to do it again."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FILE = "console.sqlite"
SCHEMA = ("CREATE TABLE IF NOT EXISTS kept (id TEXT PRIMARY KEY, kind TEXT NOT NULL, "
          "at REAL NOT NULL, size INTEGER NOT NULL, body TEXT NOT NULL)")


class Kept:
    MOST, BYTES, KEEP = 64, 16_000_000, 86_400.0  # of each kind; bytes of all; seconds

    def __init__(self, folder: Path | None, clock: Callable[[], float] = time.time) -> None:
        where = str(folder / FILE) if folder is not None and folder.is_dir() else ":memory:"
        # (the console's endpoints run on the server's one event loop: one thread)
        self.db = sqlite3.connect(where, isolation_level=None, check_same_thread=False)
        if where != ":memory:":  # (typed names and team files: as private as the store)
            os.chmod(where, 0o600)
        self.db.execute("PRAGMA journal_mode=WAL")
        # Not the event's record, and written on the event loop: no fsync a commit (a power
        # cut loses at most the last pages to go back to; on an SD card an fsync is 100 ms).
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(SCHEMA)
        self.clock = clock

    def add(self, kind: str, body: dict[str, Any]) -> str:
        key = secrets.token_urlsafe(16)
        text = json.dumps(body, ensure_ascii=False)
        with self.db:
            self.db.execute("INSERT INTO kept VALUES (?, ?, ?, ?, ?)",
                            [key, kind, self.clock(), len(text), text])
            self.db.execute("DELETE FROM kept WHERE at < ?", [self.clock() - self.KEEP])
            self.db.execute("DELETE FROM kept WHERE kind = ? AND id NOT IN (SELECT id FROM kept "
                            "WHERE kind = ? ORDER BY at DESC, rowid DESC LIMIT ?)",
                            [kind, kind, self.MOST])
            while self.db.execute("SELECT count(*) > 1 AND sum(size) > ? FROM kept",
                                  [self.BYTES]).fetchone()[0]:
                self.db.execute("DELETE FROM kept WHERE rowid = (SELECT min(rowid) FROM kept)")
        return key

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT body FROM kept WHERE id = ? AND kind = ? AND at >= ?",
                              [key, kind, self.clock() - self.KEEP]).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, body: dict[str, Any]) -> None:
        text = json.dumps(body, ensure_ascii=False)
        self.db.execute("UPDATE kept SET body = ?, size = ? WHERE id = ?", [text, len(text), key])

    def close(self) -> None:
        self.db.close()
