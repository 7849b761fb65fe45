"""The scorer's ASGI app: the tables' sync API, the admin page, the read-only APIs, the
exports and the hall page with its server-sent events."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import admin, hall, hall_page, outputs, sync, updates
from .director import Director
from .shield import SecurityHeaders

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
PING_EVERY = 5.0  # seconds between the feed's keep-alive pings
WATCH_EVERY = 0.25  # seconds between looks at the store for changes


class HallFeed:
    """One snapshot for every screen: rebuilt when the store changes (whoever changed it: this
    server, or an admin command in another process) and at every ping, when link health and
    lateness move on with the time."""

    def __init__(self, director: Director, address: str | Callable[[], str]) -> None:
        self.director = director
        # The address may change while the scorer runs (scorer/advertise.py).
        self._address = address if callable(address) else lambda: address
        self.serial = 0
        self.text = ""
        self.closing = False  # set when the server stops: the streams end
        self._version = -1
        self._changed = asyncio.Condition()

    def current(self) -> str:
        version = self.director.store.version()
        if version != self._version or not self.text:
            self._version = version
            try:
                self.text = json.dumps(hall.snapshot(self.director, self._address()),
                                       ensure_ascii=False)
            except Exception:  # a bug must not stop the hall's screens: keep the last one
                log.exception("hall snapshot failed; the screens keep the previous one")
                return self.text
            self.serial += 1
        return self.text

    async def watch(self) -> None:
        """Runs for the server's life: wakes the streams when the snapshot changes."""
        since_ping = 0.0
        while True:
            await asyncio.sleep(WATCH_EVERY)
            since_ping += WATCH_EVERY
            serial = self.serial
            if since_ping >= PING_EVERY:
                self._version, since_ping = -1, 0.0  # rebuild: time has moved on
            self.current()
            if self.serial != serial:
                async with self._changed:
                    self._changed.notify_all()

    async def stream(self) -> AsyncIterator[str]:
        serial, last_ping = -1, 0.0
        while not self.closing:
            if self.serial != serial:
                text, serial = self.current(), self.serial
                yield f"event: snapshot\ndata: {text}\n\n"
            try:  # wake at least every second to notice the server stopping
                async with self._changed:
                    await asyncio.wait_for(self._changed.wait(), 1.0)
            except TimeoutError:
                pass
            now = self.director.clock()
            if now - last_ping >= PING_EVERY:
                last_ping = now
                yield f"event: ping\ndata: {json.dumps({'now': now})}\n\n"

    def close(self) -> None:
        """End every stream within a second (safe to call from a signal handler)."""
        self.closing = True


def create_app(director: Director, address: str | Callable[[], str] = "http://127.0.0.1:8080/"
               ) -> Starlette:
    feed = HallFeed(director, address)

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(hall_page.html())

    async def snapshot(request: Request) -> Response:
        return Response(feed.current(), media_type="application/json")

    async def stream(request: Request) -> StreamingResponse:
        return StreamingResponse(feed.stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    async def standings(request: Request) -> JSONResponse:
        return JSONResponse(hall.standings(director))

    async def tables(request: Request) -> JSONResponse:
        return JSONResponse(hall.tables(director))

    async def qr(request: Request) -> Response:
        return Response(hall_page.qr_svg(feed._address()), media_type="image/svg+xml")

    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        watcher = asyncio.create_task(feed.watch())
        yield
        watcher.cancel()

    app = Starlette(
        routes=[Route("/", page), Route("/api/hall", snapshot),
                Route("/api/hall/stream", stream), Route("/api/standings", standings),
                Route("/api/tables", tables), Route("/qr.svg", qr),
                *outputs.routes(director), *sync.routes(director), *admin.routes(director),
                *updates.routes(director.store.path.parent),
                Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=[Middleware(SecurityHeaders)],
        lifespan=contextlib.asynccontextmanager(lifespan))
    app.state.feed = feed
    return app
