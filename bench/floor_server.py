"""The floor of bench_scorer.py's table → hall run (not a benchmark by itself): the same
web stack as the scorer (uvicorn, httptools, Starlette, TLS with a certificate of its own) on
127.0.0.1, answering every batch with its last sequence number and doing nothing else: no
signature, no check, no store, no hall. What the scorer's figures cost beyond this is the
scorer's own work; what this costs is the machine's and the web stack's.

    .venv/bin/python bench/floor_server.py PORT
"""

from __future__ import annotations

import json
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from kiosk.scorer.net.tls import make_identity


async def events(request: Request) -> Response:
    batch = json.loads(await request.body())
    mark = batch["events"][-1]["seq"] if batch["events"] else 0
    return Response(json.dumps({"high_water": mark}), media_type="application/json")


def main() -> None:
    port = int(sys.argv[1])
    identity = make_identity(["127.0.0.1"])
    app = Starlette(routes=[Route("/api/tables/{table:int}/events", events, methods=["POST"]),
                            Route("/", lambda r: Response("floor"))])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            http="httptools", loop="asyncio", backlog=1024,
                            proxy_headers=False)
    context = identity.server_context()
    server = uvicorn.Server(config)
    config.load()
    config.ssl = context  # (the scorer's own TLS settings, its certificate kind)
    server.run()


if __name__ == "__main__":
    main()
