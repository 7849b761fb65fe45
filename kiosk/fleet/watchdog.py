"""Tell systemd that the kiosk is up and alive (sd_notify), standard library only.

The table's unit runs the app with `Type=notify` and `WatchdogSec=`: the app says `READY=1` once
its window shows, then `WATCHDOG=1` from the UI main loop, so a frozen UI (not only a dead
process) is killed and restarted. Outside systemd (a laptop, the tests, `kiosk table` typed by
hand) nothing is sent and nothing fails.

    from kiosk.fleet.watchdog import Watchdog

    dog = Watchdog()
    dog.ready()        # once, when the first frame is drawn
    dog.ping()         # from the UI loop, as often as you like: sent at most every WatchdogSec/2
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable

__all__ = ["Watchdog", "notify"]


def notify(message: str) -> bool:
    """Send one sd_notify message (e.g. "READY=1") to the socket in $NOTIFY_SOCKET.

    Returns True when it was sent, False when not under systemd (no $NOTIFY_SOCKET, or an
    address family this helper does not speak) or when the socket cannot be reached. Never
    raises: a lost notification must not take the kiosk down with it; systemd's watchdog is
    the one that acts on silence.
    """
    address = os.environ.get("NOTIFY_SOCKET", "")
    if address.startswith("@"):
        # An abstract socket: the name starts with a NUL byte instead of the "@".
        address = "\0" + address[1:]
    elif not address.startswith("/"):
        return False  # not set, or vsock: (a VM's host), which the kiosk never runs under
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError:
        return False
    return True


class Watchdog:
    """The app's side of the unit's `Type=notify` and `WatchdogSec=`.

    `ping()` may be called on every frame: it sends `WATCHDOG=1` at most once per half of
    $WATCHDOG_USEC (systemd's advice), and on every call when no watchdog interval is set.
    `clock` is the monotonic time source in seconds (injected by the tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last_ping: float | None = None
        self.interval = _half_watchdog_seconds()

    def ready(self) -> bool:
        """Tell systemd the kiosk has started. Returns False when not under systemd."""
        return notify("READY=1")

    def ping(self) -> bool:
        """Feed the watchdog. Returns True when a message went out, False when it was not due
        yet or not under systemd."""
        now = self._clock()
        if self._last_ping is not None and now - self._last_ping < self.interval:
            return False
        sent = notify("WATCHDOG=1")
        if sent:
            self._last_ping = now
        return sent


def _half_watchdog_seconds() -> float:
    """Half of $WATCHDOG_USEC in seconds, or 0.0 when it is unset or unreadable."""
    try:
        usec = int(os.environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return 0.0
    return usec / 2_000_000 if usec > 0 else 0.0
