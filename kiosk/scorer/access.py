"""Access to the admin page: the scorer's password and the head referee's sessions."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

from ..table.journal import Journal
from .base import DirectorBase, refuse

SESSION_HOURS = 12.0


class Access(DirectorBase):
    def first_password(self) -> str | None:
        """On the very first start: a new random password, to print once. Else None."""
        if self.store.setting("password") is not None:
            return None
        password = secrets.token_urlsafe(9)
        self.set_password(password)
        return password

    def set_password(self, password: str) -> None:
        if len(password) < 8:
            raise refuse("admin.error.password_short")
        salt = secrets.token_bytes(16)
        digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
        self.store.set_setting("password", salt.hex() + ":" + digest.hex())

    def check_password(self, password: str) -> bool:
        return password_matches(self.store.setting("password"), password)

    def open_session(self, who: str = "") -> tuple[str, str]:
        """A new admin session for `who` (the name given at login, for the audit log):
        (token for the cookie, CSRF token for the forms)."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        db = self.store.db
        with db.atomic():
            db.execute("DELETE FROM sessions WHERE expires < ?", [self.clock()])
            db.execute("INSERT INTO sessions (token, csrf, expires, who) VALUES (?, ?, ?, ?)",
                       [token, csrf, self.clock() + SESSION_HOURS * 3600, who.strip()[:40]])
        return token, csrf

    def session_csrf(self, token: str) -> str | None:
        """The CSRF token of a live session, or None."""
        found = self.session(token)
        return found[0] if found else None

    def session(self, token: str) -> tuple[str, str] | None:
        """(CSRF token, who) of a live session, or None."""
        row = self.store.db.execute(
            "SELECT csrf, coalesce(who, '') FROM sessions WHERE token = ? AND expires > ?",
            [token, self.clock()]).fetchone()
        return (row[0], row[1]) if row else None

    def close_session(self, token: str) -> None:
        with self.store.db.atomic():
            self.store.db.execute("DELETE FROM sessions WHERE token = ?", [token])


def password_matches(stored: str | None, password: str) -> bool:
    """Whether `password` is the one whose salted scrypt hash is `stored` (slow on purpose:
    run it off the server's event loop)."""
    if stored is None:
        return False
    salt, digest = (bytes.fromhex(x) for x in stored.split(":"))
    given = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return hmac.compare_digest(given, digest)


class HallTables(DirectorBase):
    """The hall's tables, their kiosks' pairing codes, a kiosk's replacement, the mute."""

    def add_tables(self, count: int, by: str = "") -> dict[int, str]:
        """Tables 1..count get a pairing code each (a table already paired keeps its kiosk).
        Fewer tables than the current round or the draft uses are refused."""
        if not 1 <= count <= 500:
            raise refuse("admin.error.tables_range")
        in_use = self.tables_in_use()
        if count < in_use:
            raise refuse("admin.error.tables_in_use", count=count, used=in_use)
        with self.store.db.atomic():
            self.store.db.execute("INSERT OR REPLACE INTO settings VALUES ('tables', ?)",
                                  [str(count)])
            self._audit(by, "tables.set", count=count)
        self._changed()
        paired = self.store.paired_tables()
        return {n: self.store.issue_code(n) for n in range(1, count + 1) if n not in paired}

    def tables_in_use(self) -> int:
        """The highest table the current round or the draft plays at."""
        row = self.store.db.execute(
            "SELECT max(table_number) FROM assignments WHERE round = "
            "(SELECT max(number) FROM rounds)").fetchone()
        draft = self.current_draft()  # type: ignore[attr-defined]
        return max(int(row[0] or 0), len(draft.plan.tables) if draft else 0)

    def table_count(self) -> int:
        return int(self.store.setting("tables") or 0)

    def swap(self, table: int, by: str = "") -> str:
        """Move `table` to a new kiosk: the old kiosk's credential is revoked now, and the
        code pairs the new one, which downloads the table's events and resumes."""
        if not 1 <= table <= self.table_count():
            raise refuse("admin.error.no_table", table=table, count=self.table_count())
        self.store.revoke(table)
        with self.store.db.atomic():
            self._audit(by, "tables.swap", table=table)
        return self.store.issue_code(table)

    def import_journal(self, table: int, path: str | Path, by: str = "") -> tuple[int, int]:
        """The events of an old kiosk's journal file (its SD card survived) that the scorer
        does not have yet. Returns (events new to the scorer, events kept aside as orphans)."""
        if not Path(path).is_file():
            raise refuse("admin.error.no_journal", path=str(path))
        journal = Journal(path)
        try:
            events = [e.to_json() for e in journal.events()]
        finally:
            journal.close()
        tables = {e["data"].get("table") for e in events if e["kind"] == "setup"}
        if tables - {table}:
            raise refuse("admin.error.other_journal", path=str(path), table=table,
                         tables=", ".join(map(str, sorted(tables - {table}))))
        before = len(self.store.events(table))
        _, orphans = self.store.ingest(table, events, self.clock())
        added = len(self.store.events(table)) - before
        with self.store.db.atomic():
            self._audit(by, "tables.import", table=table, events=added, orphans=orphans)
        self._changed()
        return added, orphans

    def mute(self, on: bool, by: str = "") -> None:
        with self.store.db.atomic():
            self.store.db.execute("INSERT OR REPLACE INTO settings VALUES ('muted', ?)",
                                  ["1" if on else "0"])
            self._audit(by, "hall.mute" if on else "hall.unmute")
        self._changed()

    def muted(self) -> bool:
        return self.store.setting("muted") == "1"
