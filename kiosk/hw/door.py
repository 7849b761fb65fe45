"""The one door from other threads (gpiozero callbacks, the UI, the network) to the session."""

from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Edge:
    """A button's pin changed: `pressed` or released, at `at` (the session's clock)."""

    part: str
    pressed: bool
    at: float


class Door:
    """A thread-safe queue: any thread may `put`; only the session's thread takes."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def put(self, item: Any) -> None:
        self._queue.put(item)

    def take(self, timeout: float = 0.0) -> list[Any]:
        """Everything waiting, after waiting up to `timeout` seconds for the first item."""
        items = []
        try:
            items.append(self._queue.get(timeout=timeout) if timeout > 0
                         else self._queue.get_nowait())
            while True:
                items.append(self._queue.get_nowait())
        except queue.Empty:
            pass
        return items
