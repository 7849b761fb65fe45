"""The address the scorer gives out — in the QR code and on the hall page, and to the kiosks by
mDNS — and keeping it true.

`--advertise ADDR` fixes it (the hall's reserved address, or a name such as scorer.local).
Otherwise, listening on every interface, it is this machine's LAN address, looked at again
every few seconds: a scorer started before DHCP answered would otherwise announce 127.0.0.1 all
day, and a laptop with Docker the address of its bridge. When it changes, the mDNS record is
announced again with the new address, and the hall page and QR code show it at their next
refresh."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable

from .discovery import announce, lan_address


class Advertiser:
    """The scorer's public URL, and its mDNS record while `start`ed. `find` gives the current
    LAN address (injected by the tests); `fixed` is --advertise."""

    def __init__(self, host: str, port: int, fixed: str | None = None, name: str = "scorer",
                 mdns: bool = True, find: Callable[[], str] = lan_address,
                 every: float = 10.0, secure: bool = True) -> None:
        self.port, self.fixed, self.name, self.find, self.every = port, fixed, name, find, every
        self.scheme = "https" if secure else "http"
        self.listening_everywhere = host in ("0.0.0.0", "")
        self.host = fixed or (find() if self.listening_everywhere else host)
        self._mdns_wanted = mdns
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._record: contextlib.ExitStack | None = None
        self.changes = 0

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}/"

    def _announce(self) -> None:
        if self._record is not None:
            self._record.close()
            self._record = None
        address = self._mdns_address()
        if self._mdns_wanted and address and not address.startswith("127."):
            stack = contextlib.ExitStack()
            stack.enter_context(announce(address, self.port, self.name))
            self._record = stack

    def _mdns_address(self) -> str | None:
        """mDNS carries an IPv4 address: a name given to --advertise is resolved here."""
        try:
            return socket.gethostbyname(self.host)
        except OSError:
            return None

    def refresh(self) -> bool:
        """Look at the LAN address again; announce anew when it changed. True if it did."""
        if self.fixed or not self.listening_everywhere:
            return False
        address = self.find()
        if address == self.host:
            return False
        self.host = address
        self.changes += 1
        self._announce()
        return True

    def start(self) -> Advertiser:
        self._announce()
        if not self.fixed and self.listening_everywhere:
            self._thread = threading.Thread(target=self._watch, name="advertise", daemon=True)
            self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(self.every):
            with contextlib.suppress(Exception):  # a failed look is tried again next time
                self.refresh()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self._record is not None:
            self._record.close()
            self._record = None
