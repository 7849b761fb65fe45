"""Printed pages are made one at a time. Reading a page from the director holds the event loop
for a moment and laying its HTML out holds the interpreter for up to a second (500 score
sheets), so people on the hall's Wi-Fi asking for big pages over and over would stall the
kiosks and the hall: eight of them asking for the score sheets' HTML made the hall page answer
in 4–7 s. The same page asked for while it is being made is shared; at most `WAITING` other
pages wait behind it; beyond that a request is refused (`QueueFull`, with how long to wait).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from .pdf_queue import QueueFull

T = TypeVar("T")
WAITING = 4  # pages that may wait behind the one being made


class PageGate:
    def __init__(self, waiting: int = WAITING) -> None:
        self._waiting = waiting
        self._turn = asyncio.Lock()
        self._pending: dict[Hashable, asyncio.Future[Any]] = {}  # being made or waiting
        self._took = 1.0  # seconds the last page took, for the wait a refusal names

    async def make(self, page: Hashable, gather: Callable[[], Callable[[], T]]) -> T:
        """`gather()` on the event loop (it reads the director), then what it returns in a
        worker thread (the layout of what was read), one page at a time; whoever asks for the
        same `page` meanwhile gets the same result. Raises what they raise, or QueueFull."""
        shared = self._pending.get(page)
        if shared is not None:
            return await asyncio.shield(shared)  # type: ignore[no-any-return]
        if len(self._pending) > self._waiting:
            raise QueueFull(len(self._pending),
                            max(5, math.ceil(len(self._pending) * self._took)))
        made: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        made.add_done_callback(_seen)
        self._pending[page] = made
        try:
            async with self._turn:
                started = time.monotonic()
                result = await run_in_threadpool(gather())
                self._took = time.monotonic() - started
        except asyncio.CancelledError:
            made.cancel()
            raise
        except Exception as exc:
            made.set_exception(exc)
            raise
        finally:
            del self._pending[page]
        made.set_result(result)
        return result


def _seen(future: asyncio.Future[Any]) -> None:
    """(A failure nobody else waited for is not reported as never retrieved.)"""
    if not future.cancelled():
        future.exception()
