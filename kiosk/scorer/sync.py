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
import math
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from . import fleet
from .director import Director
from .store import StoreError

MAX_SKEW = 300.0  # seconds a request's time may be off the scorer's
MAX_BODY = 4_000_000  # bytes: a batch of 200 events is about 60 KB
MAX_SEQ = 2**53
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


class FailureLimit:
    """At most `limit` failures in any `window` seconds, whoever fails: it makes guessing a
    6-digit pairing code or the admin password take days, not minutes."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self.failures: deque[float] = deque()

    def blocked(self, now: float) -> bool:
        while self.failures and self.failures[0] < now - self.window:
            self.failures.popleft()
        return len(self.failures) >= self.limit

    def failed(self, now: float) -> None:
        self.failures.append(now)


def check_batch(body: Any) -> tuple[list[dict[str, Any]], int]:
    """The events and the `behind` count of a batch. Raises ValueError naming the problem."""
    if not isinstance(body, dict) or not isinstance(body.get("events"), list):
        raise ValueError("give {\"events\": [...]}")
    behind = body.get("behind", 0)
    if not isinstance(behind, int) or isinstance(behind, bool) or not 0 <= behind <= 10**9:
        raise ValueError("behind: a count of events, 0 or more")
    for i, e in enumerate(body["events"]):
        if not isinstance(e, dict) or not set(EVENT_FIELDS) <= set(e):
            raise ValueError(f"event {i}: each event needs " + ", ".join(EVENT_FIELDS))
        if not isinstance(e["seq"], int) or isinstance(e["seq"], bool) or \
                not 1 <= e["seq"] <= MAX_SEQ:
            raise ValueError(f"event {i}: seq must be a whole number from 1")
        if not all(isinstance(e[k], int | float) and not isinstance(e[k], bool) and
                   math.isfinite(e[k]) for k in ("mono", "wall")):
            raise ValueError(f"event {i}: mono and wall must be finite numbers")
        if not isinstance(e["data"], dict) or not all(
                isinstance(e[k], str) for k in ("device", "match", "kind", "actor")):
            raise ValueError(f"event {i}: data is an object; device, match, kind, actor "
                             "are text")
    return body["events"], behind


def routes(director: Director) -> list[Route]:
    store, clock = director.store, director.clock
    wrong_codes = FailureLimit(30, 60.0)

    def answer(body: dict[str, Any], status: int = 200, now: float | None = None
               ) -> JSONResponse:
        # `now` is when the request arrived: the kiosk measures its clock against it.
        return JSONResponse({**body, "now": clock() if now is None else now},
                            status_code=status)

    async def pair(request: Request) -> JSONResponse:
        now = clock()
        if wrong_codes.blocked(now):
            return answer({"error": "too many wrong pairing codes: wait a minute"}, 429, now)
        body = await _body(request)
        if not isinstance(body, dict) or not isinstance(body.get("code"), str) or \
                not isinstance(body.get("device"), str):
            return answer({"error": "give the pairing code and the device id"}, 400, now)
        event, kiosk_rulesets = director.event(), body.get("rulesets") or {}
        if event is not None and isinstance(kiosk_rulesets, dict):
            problem = ruleset_mismatch(director, event.ruleset,
                                       kiosk_rulesets.get(event.ruleset))
            if problem:
                return answer({"error": problem}, 409, now)
        try:
            table, secret = store.pair(body["code"], body["device"], now)
        except StoreError as exc:
            wrong_codes.failed(now)
            return answer({"error": str(exc)}, 403, now)
        return answer({"table": table, "secret": secret}, now=now)

    async def events(request: Request) -> JSONResponse:
        now, table = clock(), request.path_params["table"]
        raw = await _raw(request)
        if raw is None:
            return answer({"error": f"a batch is at most {MAX_BODY} bytes"}, 413, now)
        problem = _authenticate(director, request, table, raw)
        if problem:
            return answer({"error": problem}, 401, now)
        try:  # (events keep their device: a replacement kiosk resends its predecessor's)
            body = json.loads(raw)
            batch, behind = check_batch(body)
        except ValueError as exc:  # (a JSONDecodeError is one)
            return answer({"error": f"bad batch: {exc}"}, 400, now)
        fleet.record(director, table, body.get("kiosk"), now)  # version, health, clock
        mark, orphans = store.ingest(table, batch, now, behind)
        return answer({"high_water": mark, "orphans": orphans, "muted": director.muted(),
                       "problems": director.problems(table)}, now=now)

    def signed_read(reply: Callable[[int], dict[str, Any]]
                    ) -> Callable[[Request], Awaitable[JSONResponse]]:
        """A GET only the table's own kiosk may make: `reply(table)` is the answer."""
        async def endpoint(request: Request) -> JSONResponse:
            now, table = clock(), request.path_params["table"]
            problem = _authenticate(director, request, table, await _raw(request) or b"")
            if problem:
                return answer({"error": problem}, 401, now)
            return answer(reply(table), now=now)
        return endpoint

    def assignment(table: int) -> dict[str, Any]:
        return {"assignment": director.assignment(table), "muted": director.muted(),
                "high_water": store.high_water(table)}

    def journal(table: int) -> dict[str, Any]:
        mark = store.high_water(table)
        return {"high_water": mark, "events": store.events(table, 0, mark)}

    return [Route("/api/pair", pair, methods=["POST"]),
            Route("/api/tables/{table:int}/events", events, methods=["POST"]),
            Route("/api/tables/{table:int}/assignment", signed_read(assignment),
                  methods=["GET"]),
            Route("/api/tables/{table:int}/journal", signed_read(journal), methods=["GET"])]


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


async def _raw(request: Request) -> bytes | None:
    """The body, or None when it is larger than MAX_BODY (read no further)."""
    size = request.headers.get("content-length", "")
    if size.isdigit() and int(size) > MAX_BODY:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return body


async def _body(request: Request) -> Any:
    raw = await _raw(request)
    try:
        return json.loads(raw) if raw is not None else None
    except ValueError:
        return None
