"""The floor for the hall feed's fan-out: a bare Starlette app that sends one payload to every
server-sent-events client, on uvicorn like the scorer (not a benchmark by itself).

    python bench/sse_floor.py --port P --sizes BYTES[,BYTES...] --every SECONDS

Every `--every` seconds one task makes a message of the next size in `--sizes` (round and
round; the sizes the scorer's messages had, in their order), with the time it was made last,
as the hall's patches have it; every stream sends those same bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, StreamingResponse
from starlette.routing import Route


def app(sizes: list[int], every: float) -> Starlette:
    state = {"message": b"", "serial": 0, "wake": asyncio.Event()}

    async def publish() -> None:
        while True:
            await asyncio.sleep(every)
            size = sizes[state["serial"] % len(sizes)]  # type: ignore[operator]
            pad = "x" * max(0, size - 80)
            body = json.dumps({"serial": state["serial"] + 1, "pad": pad, "sent": time.time()})
            state["message"] = f"event: patch\ndata: {body}\n\n".encode()
            state["serial"] += 1  # type: ignore[operator]
            wake, state["wake"] = state["wake"], asyncio.Event()
            wake.set()  # type: ignore[union-attr]

    async def stream(request: Request) -> StreamingResponse:
        async def body() -> AsyncIterator[bytes]:
            sent = state["serial"]
            yield b"retry: 2000\n\n"
            while True:
                if state["serial"] != sent:
                    sent = state["serial"]
                    yield state["message"]  # type: ignore[misc]
                else:
                    await state["wake"].wait()  # type: ignore[union-attr]

        return StreamingResponse(body(), media_type="text/event-stream")

    async def ready(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(publish())
        yield
        task.cancel()

    return Starlette(routes=[Route("/stream", stream), Route("/ready", ready)],
                     lifespan=lifespan)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sizes", default="2000", help="bytes, comma-separated")
    parser.add_argument("--every", type=float, default=0.5)
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    uvicorn.run(app(sizes, args.every), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
