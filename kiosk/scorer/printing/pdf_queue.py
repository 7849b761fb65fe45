"""The scorer's PDF queue: PDFs are laid out one at a time, each by a child process
(`layout.pdf_of`), on a thread of their own, so a 500-page PDF never slows the hall.

- **Once per document and data**: a document (what is printed: kind, language, round …)
  asked for while it is being laid out or waiting joins that job; once laid out it is kept
  and handed out again until the data it shows changes (its HTML, the printed time left out,
  is different), within `KEEP_BYTES`.
- **One at a time, a bounded queue**: at most `WAITING` other documents wait behind the one
  being laid out; beyond that a request is refused (`QueueFull`, with how long to wait), so a
  stranger on the hall's Wi-Fi cannot stack up layouts.
- **The console first**: the head referee's documents (`private`) go ahead of the public's
  and are never refused for them: the pairing codes print while the hall's Wi-Fi is busy.
"""

from __future__ import annotations

import contextlib
import math
import secrets
import subprocess
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from dataclasses import dataclass, field

from . import layout

WAITING = 4  # documents that may wait behind the one being laid out
KEEP_BYTES = 64 * 1024 * 1024  # PDFs kept to hand out again
KEEP_JOBS = 64  # finished jobs remembered for their pages (failures, and who asked late)
SECONDS_PER_BYTE = 40e-6  # of HTML, until a layout here measures it (500 sheets: ~1.2 MB, 50 s)
START_SECONDS = 1.0  # a child's start and WeasyPrint's import


class QueueFull(Exception):
    """Too many documents waiting: try again after `seconds`."""

    def __init__(self, count: int, seconds: int) -> None:
        super().__init__(f"{count} documents in the print queue")
        self.count, self.seconds = count, seconds


@dataclass(eq=False)
class Job:
    id: str
    document: Hashable  # what is printed (kind, language, round …)
    content: str  # the digest of the data it shows
    name: str  # the download's name
    private: bool  # the console's: laid out first, never served under /print
    html: str
    size: int  # of the HTML, for the estimate
    queued: float
    stamp: Hashable = None  # the store's state it was built from: the same, the same data
    started: float | None = None
    finished: float | None = None
    pdf: bytes | None = None
    failure: layout.LayoutFailed | None = None
    done: Future[None] = field(default_factory=Future)


class PdfQueue:
    def __init__(self, lay_out: Callable[..., bytes] = layout.pdf_of, waiting: int = WAITING,
                 keep_bytes: int = KEEP_BYTES, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self._lay_out, self._waiting, self._keep_bytes = lay_out, waiting, keep_bytes
        self.clock = clock
        self._lock = threading.Condition()
        self._queue: deque[Job] = deque()
        self._running: Job | None = None
        self._child: subprocess.Popen[bytes] | None = None
        self._pending: dict[Hashable, Job] = {}  # waiting or being laid out, by document
        self._kept: OrderedDict[Hashable, Job] = OrderedDict()  # laid out, oldest use first
        self._jobs: OrderedDict[str, Job] = OrderedDict()  # by id, for their pages
        self._per_byte = SECONDS_PER_BYTE
        self._start_seconds = START_SECONDS  # learnt too: a busy scorer starts a child slowly
        self._thread: threading.Thread | None = None
        self._closed = False

    def known(self, document: Hashable, stamp: Hashable) -> Job | None:
        """The job `document` has without its page built again: the one being made, or the
        one kept if it was built from the same `stamp` (the store unchanged since)."""
        with self._lock:
            pending = self._pending.get(document)
            if pending is not None:
                return pending
            kept = self._kept.get(document)
            if kept is not None and stamp is not None and kept.stamp == stamp:
                self._kept.move_to_end(document)
                return kept
            return None

    def submit(self, document: Hashable, content: str, html: str, name: str,
               private: bool = False, stamp: Hashable = None) -> Job:
        """The job that gives `document` with this `content`: kept, pending, or new.
        Raises QueueFull."""
        with self._lock:
            kept = self._kept.get(document)
            if kept is not None and kept.content == content:
                self._kept.move_to_end(document)
                kept.stamp = stamp
                return kept
            pending = self._pending.get(document)
            if pending is not None:  # its data is at most one layout older
                return pending
            # (the first in line when none is laid out yet is being started: not waiting)
            waiting = len(self._queue) - (self._running is None and bool(self._queue))
            if waiting >= self._waiting and not private:
                raise QueueFull(len(self._queue) + (self._running is not None),
                                max(5, math.ceil(self._busy_for())))
            job = Job(secrets.token_urlsafe(12), document, content, name, private, html,
                      len(html.encode()), self.clock(), stamp)
            if private:  # behind the console's own, ahead of the public's
                self._queue.insert(sum(j.private for j in self._queue), job)
            else:
                self._queue.append(job)
            self._pending[document] = job
            self._jobs[job.id] = job
            self._start()
            self._lock.notify_all()
            return job

    def job(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def ahead(self, job: Job) -> int:
        """How many documents will be laid out before this one (0: it is being laid out)."""
        with self._lock:
            if job in self._queue:
                return self._queue.index(job) + (self._running is not None)
            return 0

    def estimate(self, job: Job) -> int:
        """Seconds the layout of `job` takes in all, as the layouts before it took: a start
        (the child and WeasyPrint's import, from every layout) and a rate (from large ones)."""
        return math.ceil(self._start_seconds + job.size * self._per_byte)

    def _busy_for(self) -> float:
        jobs = [*([self._running] if self._running else []), *self._queue]
        return sum(self.estimate(j) for j in jobs)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, daemon=True, name="print-queue")
            self._thread.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                job = self._running = self._queue.popleft()
                job.started = self.clock()
            try:
                job.pdf = self._lay_out(job.html, started=self._track)
            except layout.LayoutFailed as failed:
                job.failure = failed
            except Exception as exc:  # the child could not even start: said in words too
                job.failure = layout.LayoutFailed("print.queue.failed")
                layout.log.warning("terminal.scorer.log.pdf_not_started", exc_info=exc)
            self._finish(job)

    def _track(self, child: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._child = child

    def _finish(self, job: Job) -> None:
        with self._lock:
            job.finished = self.clock()
            job.html = ""  # the PDF, or the failure, is what is kept
            self._running = self._child = None
            self._pending.pop(job.document, None)
            if job.pdf is not None and job.started is not None:
                took = job.finished - job.started
                if job.size >= 200_000:  # large: a fair rate
                    self._per_byte = max(1e-6, (took - self._start_seconds) / job.size)
                else:  # small: mostly the start (it said 3 s of one that took 12 s)
                    self._start_seconds = max(START_SECONDS, took - job.size * self._per_byte)
                before = self._kept.get(job.document)
                if before is not None:  # the same document as its data was: gone for good
                    self._forget(before)
                self._kept[job.document] = job
                self._kept.move_to_end(job.document)
                while sum(len(j.pdf or b"") for j in self._kept.values()) > self._keep_bytes \
                        and len(self._kept) > 1:
                    self._forget(self._kept.popitem(last=False)[1])
            while len(self._jobs) > KEEP_JOBS:  # the oldest finished ones
                oldest = next((j for j in self._jobs.values() if j.finished is not None
                               and self._kept.get(j.document) is not j), None)
                if oldest is None:
                    break
                self._forget(oldest)
        job.done.set_result(None)

    def _forget(self, job: Job) -> None:
        job.pdf = None
        self._jobs.pop(job.id, None)

    def close(self) -> None:
        """Stop: the child laying out is ended, the waiting jobs are dropped."""
        with self._lock:
            self._closed = True
            child, dropped = self._child, list(self._queue)
            self._queue.clear()
            self._lock.notify_all()
        for job in dropped:  # whoever waits for them hears that they were not made
            job.failure = layout.LayoutFailed("print.queue.failed")
            job.finished = self.clock()
            job.done.set_result(None)
        if child is not None and child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.kill()
