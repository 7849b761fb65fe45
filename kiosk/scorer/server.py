"""Running the scorer: uvicorn on the given address over TLS (the scorer's own certificate),
behind the connection guard, announced by mDNS while it runs."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from starlette.applications import Starlette

from ..i18n import DEFAULT_LANG, translator
from . import terminal
from .director import Director
from .net import tls
from .net.advertise import Advertiser
from .net.shield import PER_SOURCE, Gate, guarded, raise_file_limit, return_large_blocks
from .web.app import create_app

MAX_CONNECTIONS = 8192  # open connections in all (the unit's LimitNOFILE is 65536)


class ScorerServer(uvicorn.Server):
    """uvicorn, ending the hall's event streams as soon as it is asked to stop (they would
    otherwise be cut off after the graceful-shutdown timeout, with a traceback), and calling
    `on_started` once it listens (never when its address cannot be had)."""

    on_started: Callable[[], None] | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)  # (uvicorn ends the process when it cannot listen)
        if self.started and self.on_started is not None:
            self.on_started()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self._close_feed()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        self._close_feed()
        self.should_exit = True

    def _close_feed(self) -> None:
        app: Any = self.config.app  # the scorer's app (create_app), which uvicorn types loosely
        app.state.feed.close()


def server_for(app: Starlette, host: str, port: int, context: ssl.SSLContext | None = None,
               lang: str = DEFAULT_LANG, proxy: str | None = None,
               details: Path | None = None) -> ScorerServer:
    """uvicorn behind the connection guard; TLS with `context` (None: plain HTTP, for the
    benchmark's comparison only). What is logged while it serves, uvicorn's lines too, is
    said in `lang` (`terminal`), with a developer's details in the file `details` (None: not
    kept). Forwarded headers are believed only from `proxy` (an address), when one is named:
    from no one by default (uvicorn's own default believes loopback)."""
    files = raise_file_limit()
    return_large_blocks()
    gate = Gate(PER_SOURCE, max(64, min(MAX_CONNECTIONS, files - 256)))
    t = translator(lang)
    terminal.install(lang, details, host, port)
    return ScorerServer(uvicorn.Config(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3,
        http=guarded(gate, context, t("web.http.400"), t("web.http.431"), t("web.http.408")),
        loop="asyncio", timeout_keep_alive=15, backlog=1024,
        proxy_headers=proxy is not None, forwarded_allow_ips=proxy or ""))


class CannotAnnounce(Exception):
    """The scorer cannot announce itself by mDNS on `address` (before it serves anything)."""

    def __init__(self, address: str) -> None:
        super().__init__(f"cannot announce the scorer by mDNS on {address}")
        self.address = address


def serve(director: Director, host: str, port: int, mdns: bool = True,
          secure: bool = True, advertise: str | None = None, lang: str = DEFAULT_LANG) -> int:
    """Run the scorer until it is stopped. It first says, in `lang`, one item a line, where the
    hall page and the head referee's console are and the fingerprint of its certificate."""
    identity = tls.identity(director.store)
    context = identity.server_context() if secure else None
    event = director.event()
    # The address given out (QR code, hall page, mDNS): --advertise, else the LAN's, kept
    # true while the scorer runs (scorer/net/advertise.py).
    advertiser = Advertiser(host, port, advertise, event.name if event else "scorer", mdns,
                            secure=secure)
    details = director.store.path.parent / terminal.DETAILS
    server = server_for(create_app(director, lambda: advertiser.url, processes=True), host,
                        port, context, lang, details=details)
    try:
        advertiser.start()
    except OSError as exc:  # mDNS cannot use that address: not this machine's, no multicast
        raise CannotAnnounce(advertiser.host) from exc
    t = translator(lang)
    # Said once it listens: an address it cannot have is said instead (UvicornWords).
    server.on_started = lambda: print(
        t("terminal.scorer.hall", url=advertiser.url),
        t("terminal.scorer.admin", url=f"{advertiser.url}admin"),
        t("terminal.scorer.certificate", fingerprint=identity.fingerprint), sep="\n", flush=True)
    try:
        server.run()
    finally:
        advertiser.stop()
    director.store.close()
    return 0
