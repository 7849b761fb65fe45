"""The kiosk's outbox: a thread that sends the journal to the scorer.

It reads the journal through its own connection (WAL lets it read while the session writes),
sends the events after the scorer's high-water mark in batches, and takes the scorer's answer
as the truth: a gap, or a scorer rebuilt from an older backup, answers a lower mark and the
events from there are sent again. When the scorer cannot be reached it waits with exponential
backoff (with jitter, so a hall's tables do not all knock at once) and the table goes on
playing; when the scorer answers that it is behind (503 with Retry-After) the outbox waits that
long and up to as long again (`next_wait`), and the link shows "behind", not offline.
Between batches it asks for the table's assignment, which carries the round start, the hall's
round clock and the started rounds the head referee took back.

Each batch carries the journal's head (its last event's sequence number and hash): a journal
restored from an older copy or rolled back is refused by the scorer with a 409 naming the
event where the two records part, and the table's top bar says so. At start the outbox checks
the journal's own chain, and each pass it looks at the card's free space.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from ..errors import JournalError, LinkError
from ..fleet.status import kiosk_status
from ..table.journal import Journal
from .link import ScorerBusy, ScorerLink

BATCH = 200
BACKOFF_FIRST, BACKOFF_MAX = 0.5, 30.0  # seconds
ASK_EVERY = 5.0  # seconds between assignment requests while in sync
HEARTBEAT = 5.0  # seconds between requests when there is nothing to send (link health)


def next_wait(delay: float, error: LinkError, rng: random.Random) -> tuple[float, float]:
    """After a failed pass: (the backoff's delay from now on, the seconds to wait now). A
    scorer that said how long to wait is waited for that long and up to as long again; else
    the delay doubles (from BACKOFF_FIRST to BACKOFF_MAX) and the wait is half to all of it."""
    delay = min(BACKOFF_MAX, max(BACKOFF_FIRST, delay * 2))
    if isinstance(error, ScorerBusy):
        return delay, max(BACKOFF_FIRST, error.retry_after) * rng.uniform(1.0, 2.0)
    return delay, delay * rng.uniform(0.5, 1.0)


@dataclass(frozen=True)
class LinkState:
    """What the kiosk shows about its link: `status` is "in-sync", "behind" (`behind` events
    not yet at the scorer), "offline" (since `offline_since`, wall time) or "refused" (the
    scorer's reason: `error_key` and `error_params` for the catalog, `error` in English for
    logs; `conflict`, the event where the journal and the scorer's record part).
    `synchronised`: the wall clock agrees with the scorer's. `storage`: the card is "low" on
    space or "full", or the journal's chain is "broken" at `broken_at`."""

    status: str = "offline"
    behind: int = 0
    offline_since: float | None = None
    error: str | None = None
    synchronised: bool | None = None
    offset: float | None = None
    muted: bool = False
    problem: str | None = None  # the scorer stores the events but cannot score a match
    error_key: str | None = None
    error_params: dict[str, Any] = field(default_factory=dict)
    conflict: int | None = None
    storage: str | None = None
    broken_at: int | None = None
    ruleset: str | None = None  # the event's ruleset, as the scorer last said it
    pairing: bool = False  # a first boot's code waits for the scorer: no table of its yet


class Outbox:
    def __init__(self, journal_path: str | Path, link: ScorerLink,
                 on_assignment: Callable[[dict[str, Any], ScorerLink], None] | None = None,
                 on_state: Callable[[LinkState], None] | None = None,
                 rng: random.Random | None = None,
                 pair: Callable[[], ScorerLink] | None = None) -> None:
        self.journal_path, self.link = Path(journal_path), link
        link.report = partial(kiosk_status, self.journal_path.parent)
        # A table not paired yet (its first boot's code, the scorer not answering then): the
        # link this makes, tried with the backoff of any pass until the scorer answers.
        self.pair = pair
        self.on_assignment, self.on_state = on_assignment, on_state
        # the rounds the head referee took back after they started (a kiosk drops its match)
        self.on_withdrawn: Callable[[list[dict[str, Any]]], None] | None = None
        self.rng = rng or random.Random()
        self.acked: int | None = None  # the scorer's high-water mark, as last answered
        self.state = LinkState(offline_since=time.time(), pairing=pair is not None)
        self._wake, self._stop = threading.Event(), threading.Event()
        self._thread: threading.Thread | None = None
        self._asked = 0.0
        self._sent = float("-inf")  # when the last batch went (monotonic)
        self._newest = 0  # the journal's last event, for the link state when offline

    # -- one pass ---------------------------------------------------------------------------

    def sync_once(self, journal: Journal) -> bool:
        """Send what the scorer lacks and ask for the assignment. True when in sync.
        Raises LinkError when the scorer cannot be reached or refuses."""
        if self.pair is not None:
            link = self.pair()
            link.report, self.pair = self.link.report, None
            self.link.close()
            self.link = link
            self._set(pairing=False)
        if self.acked is None:
            # First ask where the scorer stands rather than send from event 1: a replacement
            # kiosk's journal begins with its predecessor's events, which the scorer has.
            newest = journal.newest()
            self.acked = int(self.link.send([], newest, self._head(journal, newest))
                             ["high_water"])
        while True:
            newest = journal.newest()
            if newest <= self.acked and time.monotonic() - self._sent < HEARTBEAT and \
                    self.state.status == "in-sync":
                break  # nothing new, and the scorer heard from us a moment ago
            batch = [e.to_json() for e in journal.events_after(self.acked, BATCH)]
            answer = self.link.send(batch, max(0, newest - self.acked - len(batch)),
                                    self._head(journal, newest))
            self._sent = time.monotonic()
            mark = int(answer["high_water"])
            if mark > newest:  # the scorer has events for this table this journal lacks
                raise LinkError(f"the scorer has {mark} events for this table, this kiosk's "
                                f"journal {newest}", 409, "sync.scorer-ahead",
                                {"mark": mark, "newest": newest})
            progressed = mark > self.acked
            self.acked = mark
            problems = answer.get("problems") or []
            self._set(status="in-sync" if mark >= newest else "behind",
                      behind=max(0, newest - mark), muted=bool(answer.get("muted")),
                      problem="; ".join(problems) or None)
            if mark >= journal.newest():
                break
            if not progressed:  # the scorer keeps a gap we cannot fill: say so, retry later
                raise LinkError(f"the scorer stays at event {mark}", None, "sync.stays-at",
                                {"mark": mark})
        if time.monotonic() - self._asked >= ASK_EVERY:
            self._asked = time.monotonic()
            reply = self.link.assignment()
            ruleset = reply.get("ruleset")
            self._set(muted=bool(reply.get("muted")),
                      ruleset=ruleset if isinstance(ruleset, str) else None)
            if reply.get("withdrawn") and self.on_withdrawn:  # before the new assignment
                self.on_withdrawn(reply["withdrawn"])
            if reply.get("assignment") and self.on_assignment:
                self.on_assignment(reply["assignment"], self.link)
        return self.state.status == "in-sync"

    @staticmethod
    def _head(journal: Journal, newest: int) -> tuple[int, str]:
        return newest, journal.hash_at(newest)

    def _set(self, **changes: Any) -> None:
        state = replace(self.state, **changes, synchronised=self.link.synchronised,
                        offset=self.link.offset)
        if state.status in ("in-sync", "behind"):
            state = replace(state, offline_since=None, error=None, error_key=None,
                            error_params={}, conflict=None)
        elif state.offline_since is None:
            state = replace(state, offline_since=time.time())
        self.state = state
        if self.on_state:
            self.on_state(self.state)

    def _failed(self, exc: LinkError) -> None:
        if isinstance(exc, ScorerBusy):  # reachable, and says when to come back
            self._set(status="behind", behind=max(0, self._newest - (self.acked or 0)))
            return
        refused = exc.status is not None and exc.status < 500
        conflict = exc.params.get("seq") if exc.status == 409 else None
        self._set(status="refused" if refused else "offline", error=str(exc),
                  error_key=exc.key, error_params=dict(exc.params), conflict=conflict,
                  behind=max(0, self._newest - (self.acked or 0)))

    def _look(self, journal: Journal) -> None:
        """The card's space, for the table's notice area."""
        storage = journal.storage()
        if storage != self.state.storage:
            self._set(storage=storage)

    def _open(self) -> Journal | None:
        """The journal, read-only, its chain checked; None (and said) if it cannot be read."""
        try:
            journal = Journal.reader(self.journal_path)
            broken = journal.broken_chain()
        except JournalError as exc:
            self._set(status="refused", error=str(exc), error_key=exc.key,
                      error_params=dict(exc.params))
            return None
        if broken is not None:
            self._set(storage="broken", broken_at=broken)
        return journal

    # -- the thread -------------------------------------------------------------------------

    def poke(self) -> None:
        """A new event was journaled: send it now rather than at the next round."""
        self._wake.set()

    def run(self, idle: float = 1.0) -> None:
        journal = self._open()
        while journal is None and not self._stop.wait(BACKOFF_MAX):
            journal = self._open()
        if journal is None:
            return
        delay = 0.0
        try:
            while not self._stop.is_set():
                try:
                    self._newest = journal.newest()
                    if self.state.storage != "broken":
                        self._look(journal)
                    self.sync_once(journal)
                    delay = 0.0
                    wait = idle
                except (LinkError, JournalError) as exc:
                    error = exc if isinstance(exc, LinkError) else \
                        LinkError(str(exc), None, exc.key or "", dict(exc.params))
                    self._failed(error)
                    delay, wait = next_wait(delay, error, self.rng)
                self._wake.wait(wait)
                self._wake.clear()
        finally:
            journal.close()

    def start(self, idle: float = 1.0) -> None:
        self._thread = threading.Thread(target=self.run, args=(idle,), name="outbox",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def flush(self, timeout: float) -> bool:
        """Keep syncing on this thread until in sync or `timeout` seconds pass."""
        journal = self._open()
        if journal is None:
            return False
        deadline, delay = time.monotonic() + timeout, 0.0
        try:
            while time.monotonic() < deadline:
                self._newest = journal.newest()
                if self.state.storage != "broken":
                    self._look(journal)
                try:
                    if self.sync_once(journal):
                        return True
                except LinkError as exc:
                    self._failed(exc)
                    delay, wait = next_wait(delay, exc, self.rng)
                    time.sleep(min(wait, max(0.0, deadline - time.monotonic())))
            return False
        finally:
            journal.close()
