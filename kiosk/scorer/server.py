"""Running the scorer: uvicorn on the given address over TLS (the scorer's own certificate),
behind the connection guard, announced by mDNS while it runs."""

from __future__ import annotations

import ssl
from types import FrameType

import uvicorn
from starlette.applications import Starlette

from ..i18n import DEFAULT_LANG, translator
from . import tls
from .advertise import Advertiser
from .director import Director
from .shield import PER_SOURCE, Gate, guarded, raise_file_limit, return_large_blocks
from .web import create_app

MAX_CONNECTIONS = 8192  # open connections in all (the unit's LimitNOFILE is 65536)


def public_url(host: str, port: int, secure: bool = True) -> str:
    """The address players and kiosks use: the LAN's when listening on every interface."""
    return Advertiser(host, port, mdns=False, secure=secure).url


class ScorerServer(uvicorn.Server):
    """uvicorn, ending the hall's event streams as soon as it is asked to stop (they would
    otherwise be cut off after the graceful-shutdown timeout, with a traceback)."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.config.app.state.feed.close()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        self.config.app.state.feed.close()
        self.should_exit = True


def server_for(app: Starlette, host: str, port: int,
               context: ssl.SSLContext | None = None) -> ScorerServer:
    """uvicorn behind the connection guard; TLS with `context` (None: plain HTTP, for the
    benchmark's comparison only)."""
    files = raise_file_limit()
    return_large_blocks()
    gate = Gate(PER_SOURCE, max(64, min(MAX_CONNECTIONS, files - 256)))
    return ScorerServer(uvicorn.Config(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3,
        http=guarded(gate, context), loop="asyncio", timeout_keep_alive=15, backlog=1024))


def serve(director: Director, host: str, port: int, mdns: bool = True,
          secure: bool = True, advertise: str | None = None, lang: str = DEFAULT_LANG) -> int:
    """Run the scorer until it is stopped. It first says, in `lang`, one item a line, where the
    hall page and the head referee's console are and the fingerprint of its certificate."""
    identity = tls.identity(director.store)
    context = identity.server_context() if secure else None
    event = director.event()
    # The address given out (QR code, hall page, mDNS): --advertise, else the LAN's, kept
    # true while the scorer runs (scorer/advertise.py).
    advertiser = Advertiser(host, port, advertise, event.name if event else "scorer", mdns,
                            secure=secure)
    server = server_for(create_app(director, lambda: advertiser.url), host, port, context)
    advertiser.start()
    try:
        t = translator(lang)
        print(t("terminal.scorer.hall", url=advertiser.url),
              t("terminal.scorer.admin", url=f"{advertiser.url}admin"),
              t("terminal.scorer.certificate", fingerprint=identity.fingerprint),
              sep="\n", flush=True)
        server.run()
    finally:
        advertiser.stop()
    director.store.close()
    return 0
