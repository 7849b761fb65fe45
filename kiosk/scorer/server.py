"""Running the scorer: uvicorn on the given address, announced by mDNS while it runs."""

from __future__ import annotations

from types import FrameType

import uvicorn
from starlette.applications import Starlette

from .advertise import Advertiser
from .director import Director
from .web import create_app


def public_url(host: str, port: int) -> str:
    """The address players and kiosks use: the LAN's when listening on every interface."""
    return Advertiser(host, port, mdns=False).url


class ScorerServer(uvicorn.Server):
    """uvicorn, ending the hall's event streams as soon as it is asked to stop (they would
    otherwise be cut off after the graceful-shutdown timeout, with a traceback)."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.config.app.state.feed.close()
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        self.config.app.state.feed.close()
        self.should_exit = True


def server_for(app: Starlette, host: str, port: int) -> ScorerServer:
    return ScorerServer(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                       timeout_graceful_shutdown=3))


def serve(director: Director, host: str, port: int, mdns: bool = True,
          advertise: str | None = None) -> int:
    event = director.event()
    # The address given out (QR code, hall page, mDNS): --advertise, else the LAN's, kept
    # true while the scorer runs (scorer/advertise.py).
    advertiser = Advertiser(host, port, advertise, event.name if event else "scorer", mdns)
    server = server_for(create_app(director, lambda: advertiser.url), host, port)
    advertiser.start()
    try:
        print(f"scorer: hall page {advertiser.url}  admin {advertiser.url}admin", flush=True)
        server.run()
    finally:
        advertiser.stop()
    director.store.close()
    return 0
