"""Swiss pairing in a worker process, so the scorer's event loop never waits on a matching.

The matcher is compiled code that holds Python's global lock while it runs: in a thread it
would still stop the loop. `BackgroundPairer` is the Director's pairer in the server. After
every build of the hall feed, `pair_ahead` asks `ready` for the next round: it answers at once
from what the worker computed for the same field, or starts the worker on it (once per change
of the results). Drafting the round calls the pairer itself: the console waits for the worker
first (`prepare_pairing`), so the draft takes its pairing as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import struct
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import IO, Any

from ...errors import AdminError
from ..pipes import as_child, receive, send, worker_command
from ..tournament.core import Pairing, Result, Team, swiss_pairing
from . import Director

log = logging.getLogger(__name__)
KEEP = 4  # pairings remembered (the preview, and a round started from it)


class WorkerGone(Exception):
    """The worker process ended (killed, out of memory): the next job starts another."""


class Worker:
    """A Python child process that runs `swiss_pairing` on what it is sent, one job at a time
    (pickles over its standard input and output, `pipes.as_child`). It ends when its parent's
    pipe closes: when the server stops, or dies."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()  # one job at a time
        self._spawning = threading.Lock()  # a worker is started, or the pairer closed, at once
        self.closed = False

    def submit(self, args: tuple[Any, ...]) -> Future[Pairing]:
        future: Future[Pairing] = Future()
        threading.Thread(target=self._run, args=(args, future), daemon=True,
                         name="pairing").start()
        return future

    def _run(self, args: tuple[Any, ...], future: Future[Pairing]) -> None:
        with self._lock:
            for attempt in (1, 2):  # a worker found dead is replaced once
                try:
                    process = self._started()
                    assert process.stdin is not None and process.stdout is not None
                    send(process.stdin, args)
                    ok, value = receive(process.stdout)
                    break
                except (OSError, EOFError, pickle.UnpicklingError, struct.error) as exc:
                    self._end()
                    if attempt == 2 or self.closed:
                        future.set_exception(WorkerGone(str(exc)))
                        return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def _started(self) -> subprocess.Popen[bytes]:
        with self._spawning:
            if self.closed:  # (the server stopped while the job waited its turn)
                raise OSError("the pairing worker is closed")
            process = self._process
            if process is None or process.poll() is not None:
                process = self._process = subprocess.Popen(
                    worker_command(__name__), stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE)
            return process

    def close(self) -> None:
        """No more jobs: the worker ends, and a job it was doing or that waits ends in
        WorkerGone (the server is stopping)."""
        with self._spawning:
            self.closed = True
        self._end()

    def _end(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


def serve_jobs(jobs: IO[bytes], answers: IO[bytes]) -> None:
    """The worker's side: pair every field sent, until the pipe closes."""
    while True:
        try:
            args = receive(jobs)
        except EOFError:
            return
        try:
            answer: tuple[bool, Any] = (True, swiss_pairing(*args))
        except Exception as exc:  # raised again in the server, as it would have been there
            answer = (False, exc)
        send(answers, answer)


class BackgroundPairer:
    def __init__(self, on_done: Callable[[], None] = lambda: None) -> None:
        self.on_done = on_done
        self._worker = Worker()
        self._done: list[tuple[tuple[Any, ...], Pairing | Exception]] = []
        self._running: tuple[tuple[Any, ...], Future[Pairing]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __call__(self, teams: list[Team], results: list[Result], round_no: int,
                 seed: int, lean: dict[str, int] | None = None) -> Pairing:
        """The pairing of this field, waiting for the worker if it must."""
        args = (list(teams), list(results), round_no, seed, dict(lean or {}))
        known = self._known(args)
        if known is not None:
            return known
        if self._running is not None and self._running[0] == args:
            return self._running[1].result()
        return swiss_pairing(*args)  # not asked for before: here, as the admin command does

    def ready(self, teams: list[Team], results: list[Result], round_no: int,
              seed: int, lean: dict[str, int] | None = None) -> Pairing | None:
        """The pairing of this field if the worker has computed it; else None, and the
        worker is started on it."""
        args = (list(teams), list(results), round_no, seed, dict(lean or {}))
        known = self._known(args)
        if known is None and (self._running is None or self._running[0] != args):
            self._start(args)
        return known

    def _known(self, args: tuple[Any, ...]) -> Pairing | None:
        for known, pairing in self._done:
            if known == args:
                if isinstance(pairing, Exception):
                    raise pairing  # as it would have in-process
                return pairing
        return None

    def _start(self, args: tuple[Any, ...]) -> None:
        with_loop = self._loop
        future = self._worker.submit(args)
        self._running = (args, future)

        def finished(done: Future[Pairing]) -> None:
            if with_loop is not None:
                with contextlib.suppress(RuntimeError):  # the server stopped: nothing to keep
                    with_loop.call_soon_threadsafe(self._finished, args, done)
            else:
                self._finished(args, done)

        future.add_done_callback(finished)

    def _finished(self, args: tuple[Any, ...], future: Future[Pairing]) -> None:
        if self._running is not None and self._running[1] is future:
            self._running = None
        pairing: Pairing | Exception
        try:
            pairing = future.result()
        except WorkerGone as exc:
            log.warning("terminal.scorer.log.pairer_ended", extra={"details": repr(exc)})
            return
        except Exception as exc:  # the error the pairing raises in-process: kept, raised again
            pairing = exc
        self._done = [*self._done[-(KEEP - 1):], (args, pairing)]
        self.on_done()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Results come back on `loop` (the server's)."""
        self._loop = loop

    async def settled(self) -> None:
        """Wait for the pairing being computed, if any."""
        running = self._running
        if running is not None:
            with contextlib.suppress(Exception):  # kept by _finished
                await asyncio.wrap_future(running[1])
            while self._running is running:  # _finished comes back on the loop
                await asyncio.sleep(0.01)

    def close(self) -> None:
        self._worker.close()


def pair_ahead(director: Director) -> None:
    """Once a round is over, have the server's worker compute the next Swiss round's pairing
    (once per change of the results), so that drafting it takes no time on the event loop."""
    if isinstance(director.pairer, BackgroundPairer):
        with contextlib.suppress(AdminError):  # no next round yet, or it is on its way
            director.next_round(ahead=True)


async def prepare_pairing(director: Director) -> None:
    """The next round's pairing computed by the worker, waited for without holding up the
    event loop (before the console drafts the round)."""
    pairer = director.pairer
    if isinstance(pairer, BackgroundPairer):
        pair_ahead(director)
        await pairer.settled()


if __name__ == "__main__":  # the worker process
    as_child(serve_jobs)
