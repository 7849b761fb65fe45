"""The tables' side of the LAN: pairing, the authenticated event ingest, assignments and the
table download a replacement kiosk starts from.

Every request from a table is signed: HMAC-SHA256 with the table's secret over the method, the
path, the table number, the time, a nonce and the body. A missing, forged or other table's
signature gets 401 and changes nothing; a replayed request (a nonce seen before, or a time more
than five minutes off) gets 401 too. Every answer carries the scorer's time (`now`), from which
a kiosk measures its clock's offset.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .director import Director
from .store import StoreError

MAX_SKEW = 300.0  # seconds a request's time may be off the scorer's
EVENT_FIELDS = ("device", "seq", "match", "kind", "data", "mono", "wall", "actor")


def sign(secret: str, method: str, path: str, table: int, stamp: str, nonce: str,
         body: bytes) -> str:
    """The signature a table sends with a request."""
    message = f"{method} {path}\n{table}\n{stamp}\n{nonce}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signed_headers(secret: str, table: int, method: str, path: str, body: bytes, now: float,
                   nonce: str) -> dict[str, str]:
    stamp = f"{now:.3f}"
    return {"X-Kiosk-Table": str(table), "X-Kiosk-Time": stamp, "X-Kiosk-Nonce": nonce,
            "X-Kiosk-Signature": sign(secret, method, path, table, stamp, nonce, body)}


def ruleset_mismatch(director: Director, ruleset: str, sha256: str | None) -> str | None:
    """Why a kiosk's copy of the event's ruleset is refused, or None if it is the same."""
    event = director.event()
    if event is None or ruleset != event.ruleset or sha256 == event.ruleset_sha256:
        return None
    return (f"ruleset {ruleset} differs: the scorer's has sha256 {event.ruleset_sha256}, "
            f"this kiosk's has {sha256 or 'none'}")


def routes(director: Director) -> list[Route]:
    store, clock = director.store, director.clock

    def answer(body: dict[str, Any], status: int = 200) -> JSONResponse:
        return JSONResponse({**body, "now": clock()}, status_code=status)

    async def pair(request: Request) -> JSONResponse:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) or \
                not isinstance(body.get("device"), str):
            return answer({"error": "give the pairing code and the device id"}, 400)
        event, kiosk_rulesets = director.event(), body.get("rulesets") or {}
        if event is not None and isinstance(kiosk_rulesets, dict):
            problem = ruleset_mismatch(director, event.ruleset,
                                       kiosk_rulesets.get(event.ruleset))
            if problem:
                return answer({"error": problem}, 409)
        try:
            table, secret = store.pair(body["code"], body["device"], clock())
        except StoreError as exc:
            return answer({"error": str(exc)}, 403)
        return answer({"table": table, "secret": secret})

    async def events(request: Request) -> JSONResponse:
        table, raw = request.path_params["table"], await request.body()
        problem = _authenticate(director, request, table, raw)
        if problem:
            return answer({"error": problem}, 401)
        try:
            body = json.loads(raw)
            batch, behind = body["events"], int(body.get("behind", 0))
            if not isinstance(batch, list) or not all(
                    isinstance(e, dict) and set(EVENT_FIELDS) <= set(e) for e in batch):
                raise ValueError("each event needs " + ", ".join(EVENT_FIELDS))
        except (ValueError, KeyError, TypeError) as exc:
            return answer({"error": f"bad batch: {exc}"}, 400)
        for e in batch:
            if e["kind"] == "setup" and isinstance(e["data"], dict):
                mismatch = ruleset_mismatch(director, str(e["data"].get("ruleset")),
                                            e["data"].get("ruleset_sha256"))
                if mismatch:
                    return answer({"error": mismatch}, 409)
        try:
            mark, orphans = store.ingest(table, batch, clock(), behind)
        except (ValueError, TypeError) as exc:
            return answer({"error": f"bad batch: {exc}"}, 400)
        return answer({"high_water": mark, "orphans": orphans, "muted": director.muted()})

    async def assignment(request: Request) -> JSONResponse:
        table = request.path_params["table"]
        problem = _authenticate(director, request, table, await request.body())
        if problem:
            return answer({"error": problem}, 401)
        return answer({"assignment": director.assignment(table), "muted": director.muted(),
                       "high_water": store.high_water(table)})

    async def journal(request: Request) -> JSONResponse:
        table = request.path_params["table"]
        problem = _authenticate(director, request, table, await request.body())
        if problem:
            return answer({"error": problem}, 401)
        mark = store.high_water(table)
        return answer({"high_water": mark, "events": store.events(table, 0, mark)})

    return [Route("/api/pair", pair, methods=["POST"]),
            Route("/api/tables/{table:int}/events", events, methods=["POST"]),
            Route("/api/tables/{table:int}/assignment", assignment, methods=["GET"]),
            Route("/api/tables/{table:int}/journal", journal, methods=["GET"])]


def _authenticate(director: Director, request: Request, table: int, body: bytes) -> str | None:
    headers = request.headers
    claimed, stamp = headers.get("x-kiosk-table"), headers.get("x-kiosk-time", "")
    nonce, signature = headers.get("x-kiosk-nonce", ""), headers.get("x-kiosk-signature", "")
    credential = director.store.credential(table)
    if credential is None or claimed != str(table) or not nonce or not signature:
        return "not signed by this table's kiosk"
    expected = sign(credential[0], request.method, request.url.path, table, stamp, nonce, body)
    if not hmac.compare_digest(expected, signature):
        return "bad signature"
    try:
        if abs(float(stamp) - director.clock()) > MAX_SKEW:
            return "request too old or from the future"
    except ValueError:
        return "bad time"
    if not director.store.use_nonce(table, nonce, director.clock(), 2 * MAX_SKEW):
        return "replayed request"
    return None


async def _json(request: Request) -> Any:
    try:
        return json.loads(await request.body())
    except ValueError:
        return None
