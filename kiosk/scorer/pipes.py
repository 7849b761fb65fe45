"""Values between the scorer and its worker processes: pickles, each after its length, over
the child's standard input and output (the child is this same program: pickle is safe). And
the server's side of a worker it keeps running (`Respawned`)."""

from __future__ import annotations

import asyncio
import logging
import pickle
import struct
from typing import IO, Any

HEAD = struct.Struct("!Q")
RESTART_AFTER = 1.0  # seconds before a worker process that ended is replaced
log = logging.getLogger(__name__)


class Respawned:
    """A worker process the server keeps running for its whole life, one at a time: when one
    ends (killed, crashed, its pipe broken), another starts RESTART_AFTER seconds later."""

    ended = "a worker process ended (%s); another starts"  # (the log's words, per kind)

    def __init__(self) -> None:
        self._stopping = False

    async def run(self) -> None:
        while not self._stopping:
            try:
                await self._one_child()
            except (OSError, EOFError, asyncio.IncompleteReadError, pickle.UnpicklingError,
                    ValueError) as exc:
                if not self._stopping:
                    log.warning(self.ended, exc)
            if self._stopping:
                return
            self._meanwhile()
            await asyncio.sleep(RESTART_AFTER)

    async def _one_child(self) -> None:
        """Start a child and serve it until it ends."""
        raise NotImplementedError

    def _meanwhile(self) -> None:
        """What the server does once a child ended, before the next one is up."""


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
