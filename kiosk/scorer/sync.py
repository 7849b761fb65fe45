"""The tables' side of the LAN: pairing and the authenticated event ingest (a Starlette app).

Every request from a table is signed: HMAC-SHA256 with the table's secret over the table
number, the time, a nonce and the body. A missing, forged or other table's signature gets 401
and changes nothing; a replayed request (a nonce seen before, or a time more than five minutes
off) gets 401 too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .store import Store, StoreError

MAX_SKEW = 300.0  # seconds a request's time may be off the scorer's
EVENT_FIELDS = ("seq", "match", "kind", "data", "mono", "wall", "actor")


def sign(secret: str, table: int, stamp: str, nonce: str, body: bytes) -> str:
    """The signature a table sends with a request."""
    message = f"{table}\n{stamp}\n{nonce}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signed_headers(secret: str, table: int, body: bytes, now: float, nonce: str
                   ) -> dict[str, str]:
    stamp = f"{now:.3f}"
    return {"X-Kiosk-Table": str(table), "X-Kiosk-Time": stamp, "X-Kiosk-Nonce": nonce,
            "X-Kiosk-Signature": sign(secret, table, stamp, nonce, body)}


def create_app(store: Store, clock: Callable[[], float] = time.time) -> Starlette:
    async def pair(request: Request) -> JSONResponse:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) or \
                not isinstance(body.get("device"), str):
            return _error(400, "give the pairing code and the device id")
        try:
            table, secret = store.pair(body["code"], body["device"], clock())
        except StoreError as exc:
            return _error(403, str(exc))
        return JSONResponse({"table": table, "secret": secret})

    async def events(request: Request) -> JSONResponse:
        table = request.path_params["table"]
        raw = await request.body()
        problem = _authenticate(store, request, table, raw, clock())
        if problem:
            return _error(401, problem)
        try:
            body = json.loads(raw)
            batch = body["events"]
            if not isinstance(batch, list) or not all(
                    isinstance(e, dict) and set(EVENT_FIELDS) <= set(e) for e in batch):
                raise ValueError("each event needs " + ", ".join(EVENT_FIELDS))
            credential = store.credential(table)
            assert credential is not None
            mark = store.ingest(table, credential[1], batch)
        except (ValueError, KeyError, TypeError) as exc:
            return _error(400, f"bad batch: {exc}")
        return JSONResponse({"high_water": mark})

    return Starlette(routes=[Route("/api/pair", pair, methods=["POST"]),
                             Route("/api/tables/{table:int}/events", events,
                                   methods=["POST"])])


def _authenticate(store: Store, request: Request, table: int, body: bytes,
                  now: float) -> str | None:
    headers = request.headers
    claimed, stamp = headers.get("x-kiosk-table"), headers.get("x-kiosk-time", "")
    nonce, signature = headers.get("x-kiosk-nonce", ""), headers.get("x-kiosk-signature", "")
    credential = store.credential(table)
    if credential is None or claimed != str(table) or not nonce or not signature:
        return "not signed by this table"
    expected = sign(credential[0], table, stamp, nonce, body)
    if not hmac.compare_digest(expected, signature):
        return "bad signature"
    try:
        if abs(float(stamp) - now) > MAX_SKEW:
            return "request too old or from the future"
    except ValueError:
        return "bad time"
    if not store.use_nonce(table, nonce):
        return "replayed request"
    return None


async def _json(request: Request) -> Any:
    try:
        return json.loads(await request.body())
    except ValueError:
        return None


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
