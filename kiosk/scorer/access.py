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
from typing import Any

from ..rules.errors import Explained
from .store import Store

SESSION_HOURS = 12.0
MIN_PASSWORD = 10  # characters
MIN_DISTINCT = 5  # different characters in a password
HASHES_AT_ONCE = 1
# A thread of their own: a pool's threads would each keep a 16 MB memory arena.
_hasher = ThreadPoolExecutor(max_workers=HASHES_AT_ONCE, thread_name_prefix="password-hash")


class AccessError(Explained, ValueError):
    """A password the rules refuse. `key` and `params` say why, for a person."""

    def __init__(self, text: str, key: str, **params: Any) -> None:
        super().__init__(text)
        self.explained(key, **params)


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


def open_session(store: Store, now: float) -> tuple[str, str]:
    """A new admin session: (token for the cookie, CSRF token for the forms). Only the
    token's hash is stored."""
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    with store.db.atomic():
        store.db.execute("DELETE FROM sessions WHERE expires < ?", [now])
        store.db.execute("INSERT INTO sessions VALUES (?, ?, ?)",
                         [_token_hash(token), csrf, now + SESSION_HOURS * 3600])
    return token, csrf


def session_csrf(store: Store, token: str, now: float) -> str | None:
    """The CSRF token of a live session, or None."""
    row = store.db.execute("SELECT csrf FROM sessions WHERE token = ? AND expires > ?",
                           [_token_hash(token), now]).fetchone()
    return row[0] if row else None


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
