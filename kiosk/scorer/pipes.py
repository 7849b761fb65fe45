"""Values between the scorer and its worker processes: pickles, each after its length, over
the child's standard input and output (the child is this same program: pickle is safe). And
the server's side of a worker it keeps running (`Respawned`), and the worker's (`as_child`).

A worker's standard error is the scorer's details file when the scorer keeps one (named in
the environment, `DETAILS_ENV`, by `terminal.install`): a crash's traceback is a developer's
English, and the scorer's terminal says in words that the worker ended and names that file."""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import fcntl
import logging
import os
import pickle
import signal
import struct
import sys
import time
import traceback
from collections.abc import Callable
from typing import IO, Any

HEAD = struct.Struct("!Q")
RESTART_AFTER = 1.0  # seconds before a worker process that ended is replaced
PIPE_LIMIT = 2**24  # bytes of a child's answers buffered before reading pauses
# Bytes each pipe to and from a worker holds (Linux's own 64 KB is four batches of a hand: the
# rest waited in asyncio's transport, which shifted its whole buffer at each write; 1 MiB is
# what a user may ask for by default, /proc/sys/fs/pipe-max-size).
PIPE_BYTES = 2**20
DETAILS_ENV = "KIOSK_SCORER_DETAILS"  # the details file's path, for the workers
log = logging.getLogger(__name__)


def worker_command(module: str) -> list[str]:
    """A worker process: `module` of this program, run by this interpreter. `-P`: not from the
    working directory, which `-m` searches first (started in a folder holding another
    `kiosk`, a release unpacked there, the workers ran other code than the server's)."""
    return [sys.executable, "-P", "-m", module]


class Respawned:
    """A worker process the server keeps running for its whole life, one at a time: when one
    ends (killed, crashed, its pipe broken), another starts RESTART_AFTER seconds later."""

    ended = ""  # what the terminal says when one ended (its catalog key, per kind)
    stop_wait = 5.0  # seconds a stopping child has to end before it is killed
    slow_stop = ""  # what the terminal says when it had to be killed ("": nothing)

    def __init__(self) -> None:
        self._stopping = False
        self._process: asyncio.subprocess.Process | None = None  # (the child, from its start)

    async def run(self) -> None:
        while not self._stopping:
            try:
                await self._one_child()
            except (OSError, EOFError, asyncio.IncompleteReadError, pickle.UnpicklingError,
                    ValueError) as exc:
                if not self._stopping:
                    log.warning(self.ended, {"s": round(RESTART_AFTER)},
                                extra={"details": repr(exc)})
            if self._stopping:
                return
            self._meanwhile()
            await asyncio.sleep(RESTART_AFTER)

    async def _one_child(self) -> None:
        """Start a child (`spawn`) and serve it until it ends."""
        raise NotImplementedError

    async def spawn(self, module: str) -> asyncio.subprocess.Process:
        """`python -m module`, its standard input and output the pipes to it."""
        process = await asyncio.create_subprocess_exec(
            *worker_command(module), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, limit=PIPE_LIMIT)
        if self._stopping and process.stdin is not None:  # (stopped while it was starting)
            process.stdin.close()  # (it ends at once)
        return process

    def _meanwhile(self) -> None:
        """What the server does once a child ended, before the next one is up."""

    async def stop(self) -> None:
        """No more children: this one's input closes, so it finishes what it has and ends
        (killed after `stop_wait` seconds)."""
        self._stopping = True
        process = self._process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(OSError):
            assert process.stdin is not None
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), self.stop_wait)
        except TimeoutError:
            if self.slow_stop:
                log.warning(self.slow_stop, {"s": round(self.stop_wait)})
            kill(process)
            await process.wait()


def kill(process: asyncio.subprocess.Process) -> None:
    """SIGKILL to a child not known to have ended. Not `process.kill()`: subprocess polls the
    child first, and a poll that finds it just ended reaps it before asyncio's watcher, which
    then logs a warning (in English, to the scorer's terminal) and reports exit code 255. Only
    the watcher reaps our children, so the pid cannot have been given to another process."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)


def packed(value: Any) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return HEAD.pack(len(data)) + data


def send(pipe: IO[bytes], value: Any) -> None:
    pipe.write(packed(value))
    pipe.flush()


def receive(pipe: IO[bytes]) -> Any:
    """The next value; EOFError when the pipe closed."""
    head = pipe.read(HEAD.size)
    if len(head) < HEAD.size:
        raise EOFError("the pipe closed")
    (size,) = HEAD.unpack(head)
    data = pipe.read(size)
    if len(data) < size:
        raise EOFError("the pipe closed")
    return pickle.loads(data)


async def next_value(stream: asyncio.StreamReader) -> Any:
    """The next value a child sent (asyncio.IncompleteReadError when its pipe closed)."""
    (size,) = HEAD.unpack(await stream.readexactly(HEAD.size))
    return pickle.loads(await stream.readexactly(size))


def as_child(run: Callable[[IO[bytes], IO[bytes]], None]) -> None:
    """A worker process's `__main__`: `run(from_server, to_server)`. It lives as long as the
    server's pipe: Ctrl-C or a stop reaches the server, which closes it (or dies, which closes
    it too), so the child ignores them and ends when its input ends. What it would say on
    standard error (a crash's traceback) goes to the details file, after a line that says
    when and which worker."""
    to_server, sys.stdout = sys.stdout.buffer, sys.stderr  # nothing else may write to the pipe
    _errors_to_details()
    for pipe in (sys.stdin, to_server):
        with contextlib.suppress(OSError, ValueError):  # (not a pipe, or a lower limit: as is)
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    faulthandler.enable()  # (a crash in C, a segfault: its Python stack there too)
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.SIG_IGN)
    try:
        with contextlib.suppress(BrokenPipeError):  # (the server gone while it was sending)
            run(sys.stdin.buffer, to_server)
    except Exception:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        worker = getattr(sys.modules["__main__"].__spec__, "name", run.__module__)
        print(f"{stamp} {worker} (process {os.getpid()})", file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)


def _errors_to_details() -> None:
    path = os.environ.get(DETAILS_ENV)
    if not path:
        return
    try:
        details = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError:  # (the data's disk full or read-only: the terminal, as before)
        return
    sys.stderr.flush()
    os.dup2(details, sys.stderr.fileno())
    os.close(details)
