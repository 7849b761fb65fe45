"""The scorer's one writer: a thread that commits the tables' batches in groups.

Every request that writes hands its work to this thread and waits. The thread takes all the
work pending, does each piece in its own savepoint (one that fails is undone alone), commits
them in one durable transaction (WAL, synchronous=FULL: one fsync for the group), and only
then answers each request. So the event loop never waits on a commit, and under load the
commits per second stay few while the batches per commit grow.

The WAL is copied into the database file by a thread of its own, not by whichever commit
passes SQLite's 1,000 pages: that copy syncs the WAL and the database, and on a slow disk (an
SD card, 100 ms an fsync) it held a whole group of batches behind it, 0.3–0.6 s a commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...sqlite import Database, durable

T = TypeVar("T")
Job = Callable[[Database], Any]
After = Callable[[Any], None]

CHECKPOINT_EVERY = 1.0  # seconds between two copies of the WAL while commits come
log = logging.getLogger(__name__)


class Writer:
    """One connection, one thread, group commits. `await writer.run(job)` gives `job(db)`'s
    result once the transaction it ran in is durable (`after(result)` runs first, on the
    writer's thread, right after the commit)."""

    def __init__(self, path: str | Path,
                 checkpoint_every: float | None = CHECKPOINT_EVERY) -> None:
        """`checkpoint_every` None: the WAL copied by the commits, as SQLite does by itself
        (bench/bench_writer.py compares the two)."""
        self.db = durable(path)
        self._queue: queue.SimpleQueue[tuple[asyncio.Future[Any], Job, After | None] | None] \
            = queue.SimpleQueue()
        self.commits = self.jobs = 0  # so far: jobs per commit shows the grouping
        self._waiting: deque[float] = deque()  # when each job not yet taken was handed over
        self._committed, self._closing = threading.Event(), threading.Event()
        self._checkpointer: threading.Thread | None = None
        if checkpoint_every is not None:
            self.db.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = threading.Thread(
                target=self._checkpoints, args=(durable(path), checkpoint_every),
                name="scorer-checkpoints", daemon=True)
            self._checkpointer.start()
        self._thread = threading.Thread(target=self._loop, name="scorer-writer", daemon=True)
        self._thread.start()

    async def run(self, job: Callable[[Database], T],
                  after: Callable[[T], None] | None = None) -> T:
        """`job(db)`, committed durably. Raises what `job` raised (its work undone)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append(time.monotonic())
        self._queue.put((future, job, after))
        return await future

    def backlog(self) -> float:
        """Seconds the oldest job handed over has waited for its turn (0: none waits)."""
        try:
            return time.monotonic() - self._waiting[0]
        except IndexError:
            return 0.0

    def close(self) -> None:
        """Finish the work already handed over, then stop."""
        self._queue.put(None)
        self._thread.join(timeout=30)
        self._closing.set()
        self._committed.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=30)
        self.db.close()

    def _checkpoints(self, db: Database, every: float) -> None:
        """Copy what was committed from the WAL into the database, at most every `every`
        seconds, beside the commits (a PASSIVE checkpoint takes no lock a commit needs)."""
        try:
            while True:
                self._committed.wait()  # (`close` sets it too, to end this)
                self._committed.clear()
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as exc:  # (the WAL keeps it all: the next one tries again)
                    log.warning("terminal.scorer.log.checkpoint_failed",
                                extra={"details": repr(exc)})
                if self._closing.wait(every):
                    return
        finally:
            db.close()

    def _loop(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            work = [first]
            while True:  # everything pending goes into this transaction
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                work.append(more)
            for _ in work:  # (taken: their wait is over)
                with contextlib.suppress(IndexError):
                    self._waiting.popleft()
            self._commit(work)

    def _commit(self, work: list[tuple[asyncio.Future[Any], Job, After | None]]) -> None:
        done: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            for future, job, _ in work:
                db.execute("SAVEPOINT job")
                try:
                    done.append((future, job(db), None))
                    db.execute("RELEASE job")
                except Exception as exc:
                    db.execute("ROLLBACK TO job")
                    db.execute("RELEASE job")
                    done.append((future, None, exc))
            db.execute("COMMIT")
        except Exception as exc:  # the commit itself failed (a full disk…): nothing is kept
            if db.conn.in_transaction:
                db.execute("ROLLBACK")
            done = [(future, None, exc) for future, _, _ in work]
        self.commits += 1
        self.jobs += len(work)
        self._committed.set()
        for (_, _, after), (_, result, error) in zip(work, done, strict=True):
            if after is not None and error is None:
                after(result)
        by_loop: dict[asyncio.AbstractEventLoop, list[Any]] = {}
        for item in done:
            by_loop.setdefault(item[0].get_loop(), []).append(item)
        for loop, items in by_loop.items():  # one wake-up of each loop for the group
            with contextlib.suppress(RuntimeError):  # (a loop closed meanwhile: nobody waits)
                loop.call_soon_threadsafe(_settle, items)


def _settle(items: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, result, error in items:
        if future.cancelled():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
