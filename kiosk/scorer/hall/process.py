"""The hall's frames built in a process of their own, on the machine's other core.

With 1,000 tables posting hands, folding every table's new events by the rules core and
building the hall's snapshot took a quarter of the server's event loop: time every kiosk's
answer waited behind. Here a child process opens the same store (SQLite's WAL lets it read
while the writer commits), keeps its own folds, builds the frames as `HallFeed.build` does and
sends each one back as bytes: the snapshot, the patch, the views that changed of the teams
phones follow, each table's problems that changed, and, once a Swiss round is over, what the
next round's pairing is computed from (the server's pairing worker starts on it: `pair_ahead`
without a fold in the server). The server's `HallFeed` publishes the frames to its streams as
if it had built them.

What only the server knows goes the other way: each table's last contact (kept in memory,
see `Store.heard`) and the kiosks expected back after a restart, the address it gives out, a
request to build now, and the teams a phone began to follow. The child writes the folds'
checkpoint; the server folds for itself only when the head referee's pages ask.

When the child ends, the screens keep the last frame and another starts a second later, going
on from the last serial; until the first frame, the routes of the hall wait for it (or, if the
child ended before it, for a frame the server builds itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ...errors import AdminError, PairingPending
from ...rules import Rulesets
from ..director import Director
from ..net import heap
from ..pipes import Respawned, as_child, kill, next_value, packed, receive, send
from ..store.database import Store
from .feed import WATCH_EVERY, Built, Frame, HallFeed

log = logging.getLogger(__name__)
# Seconds between checkpoints of the folds: a restart resumes there, and the server's own folds
# (for the head referee's pages) catch up from there.
CHECKPOINT_EVERY = 5.0
TAKE_AT_ONCE = 50  # tables pickled for the checkpoint between two looks at the news
FOLLOW_WAIT = 5.0  # seconds a phone's first view of a team waits for the child at most


class HallProcess(Respawned):
    """The server's side: starts the child, tells it the news, publishes its frames; `run()`
    keeps a child running for the server's life."""

    ended = "terminal.scorer.log.hall_ended"
    stop_wait = 15.0  # (to write the folds' checkpoint)
    slow_stop = "terminal.scorer.log.hall_slow_stop"

    def __init__(self, feed: HallFeed, rulesets: Rulesets,
                 pair_ahead: Callable[[tuple[Any, ...]], object] = lambda args: None) -> None:
        super().__init__()
        self.feed, self.rulesets, self.pair_ahead = feed, rulesets, pair_ahead
        self.problems: dict[int, list[str]] = {}  # by table, as the child's last fold found
        self.views: dict[str, bytes | None] = {}  # the followed teams' views (None: no team)
        self.followed: set[str] = set()
        self._follow_new: set[str] = set()  # not yet told to the child
        self._asked = False

    def refresh(self) -> None:
        self._asked = True

    async def follow(self, team: str) -> None:
        """The child sends `team`'s view from now on; wait until it has sent its first."""
        if team not in self.followed:
            self.followed.add(team)
            self._follow_new.add(team)
        waited = 0.0
        while team not in self.views and waited < FOLLOW_WAIT and not self._stopping:
            await asyncio.sleep(WATCH_EVERY)
            waited += WATCH_EVERY

    def _meanwhile(self) -> None:
        self.feed._first.set()  # (no frame yet: the routes build one here, `current`)

    async def _one_child(self) -> None:
        feed = self.feed
        process = self._process = await self.spawn(__name__)
        assert process.stdin is not None and process.stdout is not None
        store = feed.director.store
        process.stdin.write(packed((store.path, self.rulesets, feed.address(), feed.boot,
                                    feed.frame.serial + 1 if feed.frame else 1,
                                    store.links(), store.returning)))
        news = asyncio.create_task(self._tell(process.stdin))
        try:
            while True:
                self._take(await next_value(process.stdout))
        finally:
            news.cancel()
            if not self._stopping:
                kill(process)
            await process.wait()

    def _take(self, message: tuple[Any, ...]) -> None:
        serial, json, patch, views, problems, ahead = message
        self.views.update(views)
        self.problems.update(problems)
        frame = self.feed.frame
        if frame is None or frame.serial != serial:  # (else: only views newly followed)
            self.feed._publish(Built(serial, json, patch, self.views))
            self.feed.director.keep_folds_warm()  # (while the console is in use)
        if ahead is not None:
            self.pair_ahead(ahead)

    async def _tell(self, pipe: asyncio.StreamWriter) -> None:
        """Every WATCH_EVERY seconds, what changed: the tables' contacts, the address, a
        build asked for, the teams followed (a new child: all of them)."""
        store, address = self.feed.director.store, self.feed.address()
        sent: dict[int, tuple[float, int]] = {}
        self._follow_new = set(self.followed)
        while True:
            links = store.links()
            changed = {t: link for t, link in links.items() if sent.get(t) != link}
            now_address = self.feed.address()
            if changed or now_address != address or self._asked or self._follow_new:
                pipe.write(packed((changed, now_address, self._asked, self._follow_new)))
                await pipe.drain()
                sent, address, self._asked, self._follow_new = links, now_address, False, set()
            await asyncio.sleep(WATCH_EVERY)


# -- the child ------------------------------------------------------------------------------


def child(news: IO[bytes], out: IO[bytes]) -> None:
    """Build and send the hall's frames until the server's pipe closes."""
    try:
        path, rulesets, address, boot, first_serial, links, returning = receive(news)
    except EOFError:  # (the server stopped while this process was starting)
        return
    store = Store(Path(path))
    for table, (seen, behind) in links.items():  # (for the first frame; then with the news)
        store.heard(table, seen, behind)
    store.returning = returning
    director = Director(store, rulesets)
    here = [address]
    feed = HallFeed(director, lambda: here[0])
    feed.boot, feed.first_serial = boot, first_serial
    inbox: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
    threading.Thread(target=_read_news, args=(news, inbox), daemon=True).start()
    director.pairer = sent = Sent()  # (what `pair_ahead` would ask the server's worker)
    with heap.starting():
        director.fold(0)  # resume from the checkpoint and fold what came after it
        with director.reading():
            frame = feed.frame = feed.build()
            send(out, sent.message(director, frame))
    folds, last_build = director.folds, time.monotonic()
    checkpoint, pending, last_checkpoint = None, [], last_build
    settled = swept = last_build
    while True:
        try:
            message = inbox.get(timeout=WATCH_EVERY)
        except queue.Empty:
            message = ()
        if message is None:
            break
        followed: set[str] = set()
        if message:
            links, here[0], asked, followed = message
            for table, (seen, behind) in links.items():
                store.heard(table, seen, behind)
            feed._asked |= asked
            sent.followed |= followed
        now = time.monotonic()
        due = feed.due(now, last_build)
        if due or followed:
            with director.reading():  # (what the message adds, as of the frame: no new fold)
                if due:
                    feed._asked, last_build = False, now
                    frame = feed.frame = feed.build()
                if frame.serial != sent.serial or followed:
                    send(out, sent.message(director, frame))
        if checkpoint is None and now - last_checkpoint >= CHECKPOINT_EVERY:
            checkpoint, pending = folds.begin_checkpoint(), list(folds.tables)
        if checkpoint is not None:  # a few tables at a time: the frames go on meanwhile
            for number in pending[:TAKE_AT_ONCE]:
                checkpoint.take(folds, number)
            del pending[:TAKE_AT_ONCE]
            if not pending:
                with contextlib.suppress(Exception):  # a cache: a restart folds more
                    checkpoint.write(director.checkpoint_path)
                    folds.wrote(checkpoint)
                checkpoint, last_checkpoint = None, now
        if now - settled >= heap.SETTLE_EVERY:  # (the collector as in the server: heap.py)
            settled = now
            if now - swept >= heap.SWEEP_EVERY:
                swept = now
                heap.sweep()
            else:
                heap.settle()
    folds.save(director.checkpoint_path)
    store.close()


def _read_news(news: IO[bytes], inbox: queue.Queue[tuple[Any, ...] | None]) -> None:
    with contextlib.suppress(EOFError, OSError, ValueError):
        while True:
            inbox.put(receive(news))
    inbox.put(None)


class Sent:
    """What the server was last sent, for the child to send only what changed. It stands in
    for the director's pairer too: `ready` keeps what the next Swiss round's pairing would be
    computed from, for the server's worker."""

    def __init__(self) -> None:
        self.serial = 0
        self.followed: set[str] = set()
        self.views: dict[str, bytes | None] = {}
        self.problems: dict[int, list[str]] = {}
        self.ahead: tuple[Any, ...] | None = None
        self._asked: tuple[Any, ...] | None = None

    def ready(self, *args: Any) -> None:
        self._asked = args

    def __call__(self, *args: Any) -> None:
        raise PairingPending()  # (the child never drafts a round)

    def message(self, director: Director, frame: Frame) -> tuple[Any, ...]:
        """The frame's bytes, the followed teams' views and the tables' problems that changed,
        and what the next round's pairing is computed from when that changed."""
        views = {team: frame.team(team) for team in self.followed}
        views = {team: view for team, view in views.items()
                 if team not in self.views or self.views[team] is not view}
        problems = {t: director.problems(t, fresh=False)
                    for t in range(1, director.table_count() + 1)}
        problems = {t: p for t, p in problems.items() if self.problems.get(t) != p}
        self._asked = None
        with contextlib.suppress(AdminError):  # (the round is not over, or not Swiss)
            director.next_round(ahead=True)
        ahead = self._asked if self._asked is not None and self._asked != self.ahead else None
        self.serial = frame.serial
        self.views.update(views)
        self.problems.update(problems)
        self.ahead = self._asked or self.ahead
        return frame.serial, frame.json, frame.patch, views, problems, ahead


if __name__ == "__main__":
    as_child(child)  # (when its input ends, the child writes the checkpoint, then ends)
