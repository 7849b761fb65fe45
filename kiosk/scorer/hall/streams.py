"""`/api/hall/stream` as a bare ASGI app, in front of the scorer's Starlette app.

A national final's 2,000 phones each get every message of the feed: through Starlette's
middleware and StreamingResponse every send passes four wrappers and a task group's, which on
a busy hall took a quarter of the event loop. Here a stream is one loop of `send` calls (the
security headers of every answer added once, at its start) and one task that notices the
phone going away.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette

from ..net.shield import ALWAYS
from .feed import HallFeed

PATH = "/api/hall/stream"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
HEADERS = [(b"content-type", b"text/event-stream; charset=utf-8"),
           (b"cache-control", b"no-store"), (b"x-accel-buffering", b"no"), *ALWAYS]


class ScorerApp(Starlette):
    """The scorer's app: the hall's streams first (see the module's docstring), then the rest."""

    feed: HallFeed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == PATH:
            await stream(self.feed, scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


async def stream(feed: HallFeed, scope: Scope, receive: Receive, send: Send) -> None:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    team = query.get("team", [""])[0]
    since, boot = query.get("since", [""])[0], query.get("boot", [""])[0]
    # (read before a place is taken: ² is a digit to isdigit(), and 5,000 digits are too many
    # for int(), either a 500 that kept the place)
    serial = int(since) if since.isascii() and since.isdigit() and len(since) <= 15 else None
    client = scope.get("client")
    slot = feed.admit(client[0] if client else "")
    if slot is None:  # the page retries by itself, later
        body = json.dumps({"error": "hall.too_many_viewers"}).encode()
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json"), (b"retry-after", b"10"),
            (b"content-length", str(len(body)).encode()), *ALWAYS]})
        await send({"type": "http.response.body", "body": body})
        return
    messages = feed.team_stream(slot, team) if team else \
        feed.stream(slot, serial, boot)
    this = asyncio.current_task()

    async def gone() -> None:  # the phone closed the page or walked out of the Wi-Fi
        while (await receive())["type"] != "http.disconnect":
            pass
        if this is not None:
            this.cancel()

    watcher = asyncio.create_task(gone())
    try:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        async for message in messages:
            await send({"type": "http.response.body", "body": message, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except asyncio.CancelledError:
        if not watcher.done():
            raise  # not the phone going away: the server is stopping this task
    except OSError:
        pass  # the connection went: nothing more to send
    finally:
        watcher.cancel()
        slot.release()
        with contextlib.suppress(Exception):
            await messages.aclose()  # type: ignore[attr-defined]  # (a generator's)
