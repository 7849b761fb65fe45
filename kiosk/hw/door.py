"""The one door from other threads (gpiozero callbacks, the UI, the network) to the session."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Edge:
    """A button's pin changed: `pressed` or released, at `at` (the session's clock)."""

    part: str
    pressed: bool
    at: float


class Door:
    """A thread-safe queue: any thread may `put`; only the session's thread takes. Items are
    numbered as they are put (`sent`), and `taken` is the number of the last one taken, so
    the screen can tell when the table has answered a tap (`TableRunner.answered`)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self.sent = 0
        self.taken = 0

    def put(self, item: Any) -> None:
        with self._lock:  # (numbered in the order they are queued, whatever the thread)
            self.sent += 1
            self._queue.put((self.sent, item))

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
        if items:
            self.taken = items[-1][0]
        return [item for _, item in items]
