"""Who may do what at the scorer: the admin password and its rules, the admin sessions, and
the limits on guessing (admin passwords, pairing codes).

A limit counts an attempt the moment it arrives, before anything is awaited, so a thousand
requests sent at once are counted as a thousand. Attempts are limited per source address,
with a backoff that doubles for a source that keeps hitting its limit, under one ceiling for
the whole hall (a laptop cannot lock out the head referee or a real kiosk elsewhere in the
hall, and many laptops together cannot guess faster than the ceiling). Password hashes are
deliberately slow and large (scrypt, 16 MB each): one is computed at a time (the issue allows
two; one keeps 300 logins at once within 40 MB), the others wait their turn.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import secrets
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import AccessError
from ..store.database import Store
from .base import DirectorBase, confirm_first, refuse
from .triage import number_list

SESSION_HOURS = 12.0
MAX_TABLES = 1000  # bench_scorer.py --tables 1000 runs a hall that size
MIN_PASSWORD = 10  # characters
MIN_DISTINCT = 5  # different characters in a password
HASHES_AT_ONCE = 1
# A thread of their own: a pool's threads would each keep a 16 MB memory arena.
_hasher = ThreadPoolExecutor(max_workers=HASHES_AT_ONCE, thread_name_prefix="password-hash")


# -- the password ---------------------------------------------------------------------------

def check_strength(password: str) -> None:
    """Raises AccessError unless `password` is long and varied enough to resist guessing."""
    if len(password) < MIN_PASSWORD:
        raise AccessError(f"the password needs at least {MIN_PASSWORD} characters",
                          "security.password-short", n=MIN_PASSWORD)
    if password.isdigit() or len(set(password)) < MIN_DISTINCT or _run(password):
        raise AccessError("the password is too easy to guess (digits only, repeated or "
                          "in sequence)", "security.password-weak", n=MIN_DISTINCT)


def _run(password: str) -> bool:
    """Whether `password` is one run up or down the alphabet or the digits (abcdefghij…)."""
    steps = {ord(b) - ord(a) for a, b in itertools.pairwise(password)}
    return steps in ({1}, {-1})


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    return salt.hex() + ":" + _scrypt(password, salt).hex()


def password_matches(stored: str | None, password: str) -> bool:
    """Whether `password` is the one whose salted scrypt hash is `stored` (slow on purpose:
    call it off the event loop, through `checked`)."""
    if not stored or ":" not in stored:
        return False
    salt, digest = stored.split(":", 1)
    return hmac.compare_digest(_scrypt(password, bytes.fromhex(salt)).hex(), digest)


def _scrypt(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode("utf-8", "replace"), salt=salt, n=2**14, r=8, p=1)


async def checked(stored: str | None, password: str) -> bool:
    """`password_matches` in the hashing thread (the others wait their turn)."""
    return await asyncio.get_running_loop().run_in_executor(_hasher, password_matches,
                                                            stored, password)


def set_password(store: Store, password: str) -> None:
    """A new admin password; every open session ends. Raises AccessError for a weak one."""
    check_strength(password)
    digest = hash_password(password)
    with store.db.atomic():
        store.db.execute("INSERT OR REPLACE INTO settings VALUES ('password', ?)", [digest])
        store.db.execute("DELETE FROM sessions")
    store._wrote()


# -- sessions -------------------------------------------------------------------------------

def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def open_session(store: Store, now: float, who: str = "") -> tuple[str, str]:
    """A new admin session for `who` (the name given at login, for the audit log): (token for
    the cookie, CSRF token for the forms). Only the token's hash is stored."""
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    with store.db.atomic():
        store.db.execute("DELETE FROM sessions WHERE expires < ?", [now])
        store.db.execute("INSERT INTO sessions (token, csrf, expires, who) VALUES (?, ?, ?, ?)",
                         [_token_hash(token), csrf, now + SESSION_HOURS * 3600, who.strip()[:40]])
    return token, csrf


def session(store: Store, token: str, now: float) -> tuple[str, str] | None:
    """(CSRF token, who) of a live session, or None."""
    row = store.db.execute(
        "SELECT csrf, coalesce(who, '') FROM sessions WHERE token = ? AND expires > ?",
        [_token_hash(token), now]).fetchone()
    return (row[0], row[1]) if row else None


def close_session(store: Store, token: str) -> None:
    with store.db.atomic():
        store.db.execute("DELETE FROM sessions WHERE token = ?", [_token_hash(token)])


# -- limits ---------------------------------------------------------------------------------

@dataclass
class _Source:
    attempts: deque[float] = field(default_factory=deque)
    strikes: int = 0  # times this source hit its limit in a row
    until: float = 0.0  # refused until then


class Limiter:
    """At most `per_source` attempts a `window` from one address, then a wait that doubles
    each time the source comes back to its limit; at most `ceiling` a window from everyone.
    `attempt` counts before the caller awaits anything."""

    def __init__(self, per_source: int, ceiling: int, window: float = 60.0,
                 max_sources: int = 10_000) -> None:
        self.per_source, self.ceiling, self.window = per_source, ceiling, window
        self.max_sources = max_sources
        self.sources: dict[str, _Source] = {}
        self.everyone: deque[float] = deque()

    def attempt(self, source: str, now: float) -> float:
        """0.0 if the attempt may go ahead (it is counted), else the seconds to wait."""
        while self.everyone and self.everyone[0] <= now - self.window:
            self.everyone.popleft()
        entry = self.sources.get(source)
        if entry is None:
            if len(self.sources) >= self.max_sources:
                self._forget(now)
            entry = self.sources.setdefault(source, _Source())
        if now < entry.until:
            return entry.until - now
        while entry.attempts and entry.attempts[0] <= now - self.window:
            entry.attempts.popleft()
        if not entry.attempts and now >= entry.until + self.window:
            entry.strikes = 0  # quiet for a whole window after its wait: forgiven
        if len(entry.attempts) >= self.per_source:
            entry.strikes += 1
            entry.until = entry.attempts[0] + self.window * 2 ** (entry.strikes - 1)
            return entry.until - now
        if len(self.everyone) >= self.ceiling:
            return self.everyone[0] + self.window - now
        entry.attempts.append(now)
        self.everyone.append(now)
        return 0.0

    def forgive(self, source: str) -> None:
        """The attempt succeeded (the right password): it does not count against the source."""
        entry = self.sources.get(source)
        if entry and entry.attempts:
            self.everyone.remove(entry.attempts.pop())
            entry.strikes = 0

    def _forget(self, now: float) -> None:
        for source in [s for s, e in self.sources.items()
                       if now >= e.until and all(t <= now - self.window for t in e.attempts)]:
            del self.sources[source]
        if len(self.sources) >= self.max_sources:  # a flood of addresses: the oldest go
            for source in list(self.sources)[: self.max_sources // 10]:
                del self.sources[source]


# -- the director's side --------------------------------------------------------------------

class Access(DirectorBase):
    """The admin password and the head referee's sessions (the rules are above)."""

    def first_password(self) -> str | None:
        """On the very first start: a new random password, to give the head referee once.
        Else None."""
        if self.store.setting("password") is not None:
            return None
        password = secrets.token_urlsafe(12)
        self.set_password(password)
        return password

    def set_password(self, password: str) -> None:
        """Raises AccessError for a password too easy to guess; ends every session."""
        set_password(self.store, password)

    def check_password(self, password: str) -> bool:
        return password_matches(self.store.setting("password"), password)

    def open_session(self, who: str = "") -> tuple[str, str]:
        """A new admin session for `who`: (token for the cookie, CSRF token for the forms)."""
        return open_session(self.store, self.clock(), who)

    def session(self, token: str) -> tuple[str, str] | None:
        """(CSRF token, who) of a live session, or None."""
        return session(self.store, token, self.clock())

    def close_session(self, token: str) -> None:
        close_session(self.store, token)


class HallTables(DirectorBase):
    """The hall's tables, their kiosks' pairing codes, a kiosk's replacement, the mute."""

    def add_tables(self, count: int, by: str = "") -> dict[int, str]:
        """The codes of tables 1..count not paired yet: a table already paired keeps its
        kiosk, and one whose code is still open keeps that code (slips handed out stay good);
        the others get a new one. A table beyond `count` can no longer be paired. Fewer
        tables than the current round or the draft uses are refused."""
        if not 1 <= count <= MAX_TABLES:
            raise refuse("admin.error.tables_range", max=MAX_TABLES)
        in_use = self.tables_in_use()
        if count < in_use:
            raise refuse("admin.error.tables_in_use", count=count, used=in_use)
        with self.store.db.atomic():
            self.store.db.execute("INSERT OR REPLACE INTO settings VALUES ('tables', ?)",
                                  [str(count)])
            self._audit(by, "tables.set", count=count)
        self.store.end_codes(beyond=count)
        self._changed()
        paired, open_codes = self.store.paired_tables(), self.store.open_codes()
        return {n: open_codes.get(n) or self.store.issue_code(n)
                for n in range(1, count + 1) if n not in paired}

    def tables_in_use(self) -> int:
        """The highest table the current round or the draft plays at."""
        row = self.store.db.execute(
            "SELECT max(table_number) FROM assignments WHERE round = "
            "(SELECT max(number) FROM rounds)").fetchone()
        draft = self.current_draft()
        return max(int(row[0] or 0), len(draft.plan.tables) if draft else 0)

    def table_count(self) -> int:
        return int(self.store.setting("tables") or 0)

    def swap(self, table: int, confirm: bool = False, by: str = "") -> str:
        """Move `table` to a new kiosk: the old kiosk's credential is revoked now, and the
        code pairs the new one, which downloads the table's events and resumes. A paired
        table's swap is confirmed first (its kiosk stops uploading at once)."""
        if not 1 <= table <= self.table_count():
            raise refuse("admin.error.no_table", table=table, count=self.table_count())
        if not confirm and table in self.store.paired_tables():
            raise confirm_first("admin.confirm.swap_kiosk", table=table)
        self.store.revoke(table)
        with self.store.db.atomic():
            self._audit(by, "tables.swap", table=table)
        return self.store.issue_code(table)

    def new_code(self, table: int, by: str = "") -> str:
        """A fresh pairing code for a table whose kiosk has not paired (its code was voided by
        a wrong guess, or expired). A paired table changes kiosk by `swap` instead."""
        if not 1 <= table <= self.table_count():
            raise refuse("admin.error.no_table", table=table, count=self.table_count())
        if table in self.store.paired_tables():
            raise refuse("admin.error.table_paired", table=table)
        with self.store.db.atomic():
            self._audit(by, "tables.new_code", table=table)
        return self.store.issue_code(table)

    def import_journal(self, table: int, path: str | Path, by: str = "") -> tuple[int, int]:
        """The events of an old kiosk's journal file (its SD card survived) that the scorer
        does not have yet. Returns (events new to the scorer, events kept aside as orphans)."""
        if not Path(path).is_file():
            raise refuse("admin.error.no_journal", path=str(path))
        from ...table.journal import Journal  # (a kiosk's; the scorer's start needs none of it)

        journal = Journal.reader(path)  # the old kiosk's card, perhaps mounted read-only
        try:
            events = [e.to_json() for e in journal.events()]
        finally:
            journal.close()
        tables = {e["data"].get("table") for e in events if e["kind"] == "setup"}
        if tables - {table}:
            raise refuse("admin.error.other_journal", path=str(path), table=table,
                         tables=number_list(tables - {table}))
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
