"""Printed pages are made one at a time. Reading a page from the director holds the event loop
for a moment and laying its HTML out holds the interpreter for up to a second (500 score
sheets), so people on the hall's Wi-Fi asking for big pages over and over would stall the
kiosks and the hall: eight of them asking for the score sheets' HTML made the hall page answer
in 4–7 s. The same page asked for while it is being made is shared; at most `WAITING` other
pages wait behind it; beyond that a request is refused (`QueueFull`, with how long to wait).
The exports go through the same gate, and a page that names the store's version may be kept:
asked for again at that version, it is not made again.

The head referee's console is never refused for the public's pages.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from .pdf_queue import QueueFull

T = TypeVar("T")
WAITING = 4  # pages that may wait behind the one being made
KEPT = 8  # pages kept to be handed out again


class PageGate:
    def __init__(self, waiting: int = WAITING) -> None:
        self._waiting = waiting
        self._turn = asyncio.Lock()
        self._pending: dict[Hashable, asyncio.Future[Any]] = {}  # being made or waiting
        self._took = 1.0  # seconds the last page took, for the wait a refusal names
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()

    async def make(self, page: Hashable, gather: Callable[[], Callable[[], T]],
                   keep: bool = False, console: bool = False) -> T:
        """`gather()` on the event loop (it reads the director), then what it returns in a
        worker thread (the layout of what was read), one page at a time; whoever asks for the
        same `page` meanwhile gets the same result. `keep`: the page is the same whenever it
        is asked for (its key names the store's version), so the last few such pages are
        kept and handed out again. `console`: the head referee's console asks: it is never
        refused. Raises what they raise, or QueueFull."""
        if page in self._kept:
            self._kept.move_to_end(page)
            return self._kept[page]  # type: ignore[no-any-return]
        shared = self._pending.get(page)
        if shared is not None:
            return await asyncio.shield(shared)  # type: ignore[no-any-return]
        if len(self._pending) > self._waiting and not console:
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
        if keep:
            self._kept[page] = result
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return result


def _seen(future: asyncio.Future[Any]) -> None:
    """(A failure nobody else waited for is not reported as never retrieved.)"""
    if not future.cancelled():
        future.exception()
