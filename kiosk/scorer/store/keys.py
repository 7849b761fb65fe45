"""What every kiosk request reads from the store, kept in memory: the paired tables'
credentials and the hall's mute switch.

A query on the event loop lets go of the interpreter's lock while SQLite works and must take it
back from the writer's thread, which holds it between its own statements: timed under 1,000
tables, a credential's one-row read cost the loop 270 µs of waiting for 31 µs of work, and
every batch made two such reads. Here they are read again only when the store says they
changed: triggers on `tables` and on the head referee's data (`DIRECTOR_TABLES`, the settings
among them) move two counters, from any connection, and the counters are asked at most every
`REREAD` seconds. So a change made by another process (`kiosk scorer admin`) reaches the
kiosks within that time; one made by this process at once (`changed`, and the store's own
writes); a table not known to be paired asks the store before it is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ...sqlite import Database

REREAD = 0.1  # seconds: how stale another process's change may be when a kiosk asks
DIRECTOR_REVISION, KEYS_REVISION = 1, 2  # the rows of `revision` (database.py)

Credential = tuple[str, str, bool]  # (secret, device, confirmed), as `Store.credential`


class Store(Protocol):  # (database.Store, which imports this module)
    db: Database
    own_writes: int

    def setting(self, key: str) -> str | None: ...


class KioskKeys:
    """The credentials and the mute as the kiosks' requests read them (see the module's words)."""

    def __init__(self, store: Store, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock
        self._credentials: dict[int, Credential] = {}
        self._muted = False
        self._revisions: list[tuple[int, int]] = []  # as last read; [] before the first
        self._asked_at = float("-inf")
        self._own_writes = -1  # the store's count of its own writes when last asked

    def credential(self, table: int) -> Credential | None:
        """The table's (secret, device, confirmed), or None when it is not paired."""
        self._refresh()
        found = self._credentials.get(table)
        if found is None:  # (paired a moment ago by another process? ask now)
            self._refresh(at_once=True)
            found = self._credentials.get(table)
        return found

    def muted(self) -> bool:
        """Whether the head referee muted the tables' buzzers."""
        self._refresh()
        return self._muted

    def changed(self) -> None:
        """This process changed a table's credential (it committed): ask the store next time."""
        self._asked_at = float("-inf")

    def _refresh(self, at_once: bool = False) -> None:
        store, now = self.store, self.clock()
        recent = 0 <= now - self._asked_at < REREAD  # (a clock set back: not recent)
        if recent and not at_once and store.own_writes == self._own_writes:
            return
        self._asked_at, self._own_writes = now, store.own_writes
        revisions = store.db.execute("SELECT id, n FROM revision ORDER BY id").fetchall()
        if revisions == self._revisions:
            return
        self._revisions = revisions
        self._credentials = {n: (secret, device, bool(confirmed)) for n, secret, device,
                             confirmed in store.db.execute(
                                 "SELECT number, secret, device, confirmed FROM tables")}
        self._muted = store.setting("muted") == "1"
