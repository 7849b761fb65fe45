"""Running the scorer: uvicorn on the given address, announced by mDNS while it runs."""

from __future__ import annotations

import contextlib
from types import FrameType

import uvicorn
from starlette.applications import Starlette

from .director import Director
from .discovery import announce, lan_address
from .web import create_app


def public_url(host: str, port: int) -> str:
    """The address players and kiosks use: the LAN's when listening on every interface."""
    shown = lan_address() if host in ("0.0.0.0", "") else host
    return f"http://{shown}:{port}/"


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


def serve(director: Director, host: str, port: int, mdns: bool = True) -> int:
    url = public_url(host, port)
    server = server_for(create_app(director, url), host, port)
    event = director.event()
    with contextlib.ExitStack() as stack:
        if mdns and not host.startswith("127."):
            stack.enter_context(announce(url.split("//")[1].split(":")[0], port,
                                         event.name if event else "scorer"))
        print(f"scorer: hall page {url}  admin {url}admin", flush=True)
        server.run()
    director.store.close()
    return 0
