"""Finding the scorer's address on the LAN by mDNS (`_kiosk80._tcp`). An answer is only an
address to try: trust comes from the pairing code (PAKE) and, after it, the pinned
certificate, so a rogue answering first gains nothing."""

from __future__ import annotations

import threading

from ..protocol.wire import SERVICE


def candidates(timeout: float = 5.0, address: str | None = None) -> list[str]:
    """The URLs of every scorer announced within `timeout` seconds (after the first answer,
    a moment more for the others), in the order they answered."""
    from zeroconf import IPVersion, ServiceBrowser, ServiceListener, Zeroconf

    zc = (Zeroconf(ip_version=IPVersion.V4Only) if address in (None, "", "0.0.0.0")
          else Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only))
    found: list[str] = []
    first = threading.Event()

    class Listener(ServiceListener):
        def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            info = zc.get_service_info(type_, name, timeout=int(timeout * 1000))
            if info is None or not info.parsed_addresses():
                return
            path = (info.properties.get(b"path") or b"/").decode()
            found.append(f"https://{info.parsed_addresses()[0]}:{info.port}{path}")
            first.set()

        def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            pass

        def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            pass

    browser = ServiceBrowser(zc, SERVICE, Listener())
    try:
        if first.wait(timeout):
            threading.Event().wait(min(1.0, timeout))  # the others answer within a moment
    finally:
        browser.cancel()
        zc.close()
    return list(dict.fromkeys(found))
