"""Running the scorer: uvicorn on the given address, announced by mDNS while it runs."""

from __future__ import annotations

import contextlib

import uvicorn

from .director import Director
from .discovery import announce, lan_address
from .web import create_app


def public_url(host: str, port: int) -> str:
    """The address players and kiosks use: the LAN's when listening on every interface."""
    shown = lan_address() if host in ("0.0.0.0", "") else host
    return f"http://{shown}:{port}/"


def serve(director: Director, host: str, port: int, mdns: bool = True) -> int:
    url = public_url(host, port)
    app = create_app(director, url)
    # Open event streams would hold a shutdown for ever; give them a second.
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    event = director.event()
    with contextlib.ExitStack() as stack:
        if mdns and not host.startswith("127."):
            stack.enter_context(announce(url.split("//")[1].split(":")[0], port,
                                         event.name if event else "scorer"))
        print(f"scorer: hall page {url}  admin {url}admin", flush=True)
        server.run()
    director.store.close()
    return 0
