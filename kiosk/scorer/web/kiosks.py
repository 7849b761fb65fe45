"""The tables' side of the LAN: pairing, the authenticated event ingest, assignments and the
table download a replacement kiosk starts from.

Pairing is a PAKE keyed by the table's code (`kiosk.protocol.pairing`): the code never crosses the
wire, a wrong guess burns it, and the table's secret and this scorer's certificate fingerprint
travel sealed. Every later request is signed (`kiosk.protocol.wire`); its headers are checked before
its body is read, so a body that cannot be valid is never read. Nonces are remembered for the
signature window (memory: a request older than that is refused by its time; one made before
this process started is refused too). Answers to a request whose signature checked out are
signed, so a kiosk takes its time and its assignment only from this scorer.

Batches go to the store's one writer (group commit) and are answered when durable. A batch
that parts from the scorer's record of the table (same place, other content, or a broken
chain) is answered 409 naming the sequence number; its events are kept aside.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ...errors import StoreError, WireError
from ...i18n import translator
from ...protocol.pairing import ScorerPairing
from ...protocol.wire import (
    HASH,
    MAX_BODY,
    MAX_SKEW,
    MAX_TABLE,
    check_batch,
    dumps,
    loads,
    read_headers,
    same,
    sign,
    sign_answer,
)
from ..director import Director, fleet
from ..director.access import Limiter
from ..net import tls
from ..store.database import Ingested, Store

PAIR_TTL = 60.0  # seconds between the two steps of a pairing
MAX_PAIR_BODY = 8_000
BODY_TIMEOUT = 15.0  # seconds to send a body once its headers are in
BODIES_IN_FLIGHT = 16_000_000  # bytes of request bodies being read at once
DEVICE = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_english = translator("en")


def ruleset_mismatch(director: Director, ruleset: str, sha256: str | None
                     ) -> dict[str, Any] | None:
    """Why a kiosk's copy of the event's ruleset is refused (catalog parameters), or None."""
    event = director.event()
    if event is None or ruleset != event.ruleset or sha256 == event.ruleset_sha256:
        return None
    return {"ruleset": ruleset, "scorer": event.ruleset_sha256, "kiosk": sha256 or "-"}


class Signed(NamedTuple):
    """A request its table's kiosk signed."""

    table: int
    now: float  # when it arrived, by the scorer's clock
    signer: tuple[str, str]  # the table's secret and the request's nonce: signs the answer
    body: bytes
    confirmed: bool  # the table's credential was used before


class Replays:
    """The nonces of the last 2 × MAX_SKEW seconds, per table, in memory."""

    def __init__(self, started: float) -> None:
        self.started = started  # requests signed before this process began are refused
        self.seen: dict[int, OrderedDict[str, float]] = {}

    def check(self, table: int, nonce: str, now: float) -> bool:
        """True for a nonce not seen before (it is remembered)."""
        seen = self.seen.setdefault(table, OrderedDict())
        while seen and next(iter(seen.values())) < now - 2 * MAX_SKEW:
            seen.popitem(last=False)
        if nonce in seen:
            return False
        seen[nonce] = now
        return True


class Budget:
    """Bytes of request bodies being read at once: past the budget, 503 before reading."""

    def __init__(self, total: int) -> None:
        self.total, self.used = total, 0

    def take(self, size: int) -> bool:
        if self.used + size > self.total:
            return False
        self.used += size
        return True

    def give(self, size: int) -> None:
        self.used -= size


def routes(director: Director) -> list[Route]:
    store, clock = director.store, director.clock
    reports = fleet.Reports()
    replays = Replays(clock())
    # Attempts that have not (yet) paired, per source; a hall pairs its tables one by one.
    pairing_tries = Limiter(per_source=5, ceiling=300)
    pending: dict[str, tuple[int, str, str, ScorerPairing, float, dict[str, str]]] = {}
    budget = Budget(BODIES_IN_FLIGHT)

    def answer(body: dict[str, Any], status: int = 200, now: float | None = None,
               signer: tuple[str, str] | None = None) -> Response:
        """JSON with the scorer's time (`now`, when the request arrived); signed with the
        table's secret over the request's nonce when `signer` is (secret, nonce)."""
        content = dumps({**body, "now": clock() if now is None else now})
        headers = {"Cache-Control": "no-store"}
        if signer is not None:
            headers["X-Scorer-Signature"] = sign_answer(signer[0], signer[1], status, content)
        return Response(content, status, headers, media_type="application/json")

    def refusal(status: int, key: str, now: float, signer: tuple[str, str] | None = None,
                headers: dict[str, str] | None = None, **params: Any) -> Response:
        """A refusal: `key` and `params` for the kiosk to say it in its language; `error`
        in English for logs."""
        reply = answer({"error": _english(key, **params), "key": key, "params": params},
                       status, now, signer)
        reply.headers.update(headers or {})
        return reply

    async def read_json(request: Request, limit: int) -> Any:
        raw = await _read(request, limit, budget)
        return loads(raw)

    # -- pairing ----------------------------------------------------------------------------

    async def pair_start(request: Request) -> Response:
        now = clock()
        wait = pairing_tries.attempt(_source(request), now)  # counted before any await
        if wait:
            return refusal(429, "sync.too-many-pairings", now,
                           headers={"Retry-After": str(int(wait) + 1)}, s=int(wait) + 1)
        try:
            body = await read_json(request, MAX_PAIR_BODY)
            table, device, rulesets = _pair_request(body)
        except WireError as exc:
            return refusal(_status(exc), exc.key or "wire.not-json", now, **exc.params)
        event = director.event()
        if event is not None:
            problem = ruleset_mismatch(director, event.ruleset, rulesets.get(event.ruleset))
            if problem:
                return refusal(409, "sync.ruleset-differs", now, **problem)
        code = store.pairing_code(table, device, now)
        if code is None:
            return refusal(403, "sync.no-code", now, table=table)
        session = secrets.token_hex(16)
        try:
            side = await run_in_threadpool(ScorerPairing, code, table, device,
                                           body.get("message"), session)
        except WireError as exc:
            return refusal(400, exc.key or "sync.pair-garbled", now)
        for stale in [s for s, p in pending.items() if p[4] < now]:
            del pending[stale]
        pending[session] = (table, device, code, side, now + PAIR_TTL, rulesets)
        return answer({"session": session, "message": side.message}, now=now)

    async def pair_finish(request: Request) -> Response:
        now = clock()
        try:
            body = await read_json(request, MAX_PAIR_BODY)
        except WireError as exc:
            return refusal(_status(exc), exc.key or "wire.not-json", now)
        session = body.get("session") if isinstance(body, dict) else None
        entry = pending.pop(session, None) if isinstance(session, str) else None
        if entry is None or entry[4] < now:
            return refusal(403, "sync.pair-expired", now)
        table, device, code, side, _, rulesets = entry
        if not side.confirms(body.get("confirm")):
            store.burn_code(code)  # one wrong guess: the code pairs nothing any more
            return refusal(403, "sync.wrong-code", now, table=table)
        event = director.event()  # (the head referee may have changed the ruleset meanwhile)
        problem = ruleset_mismatch(director, event.ruleset, rulesets.get(event.ruleset)) \
            if event is not None else None
        if problem:
            return refusal(409, "sync.ruleset-differs", now, **problem)
        try:
            secret = store.pair(table, code, device, now, rulesets)
        except StoreError:
            return refusal(403, "sync.no-code", now, table=table)
        pairing_tries.forgive(_source(request))  # a kiosk that paired is not a guesser
        fingerprint = tls.identity(store).fingerprint
        return answer(side.seal({"table": table, "secret": secret,
                                 "certificate": fingerprint}), now=now)

    # -- signed requests --------------------------------------------------------------------

    async def signed(request: Request, limit: int) -> Signed | Response:
        """The request, signed by the table's kiosk, or the refusal. The headers are checked
        before the body is read."""
        now, table = clock(), request.path_params["table"]
        if not 1 <= table <= MAX_TABLE:
            return refusal(404, "sync.no-table", now, table=MAX_TABLE)
        try:
            headers = read_headers(request.headers, table)
        except WireError as exc:
            return refusal(401, exc.key or "wire.unsigned", now)
        credential = store.credential(table)
        if credential is None:
            return refusal(401, "wire.unsigned", now)
        if headers.nonce in replays.seen.get(table, {}):
            return refusal(401, "sync.replayed", now)
        try:
            body = await _read(request, limit, budget)
        except WireError as exc:
            return refusal(_status(exc), exc.key or "wire.not-json", now, **exc.params)
        expected = sign(credential[0], request.method, request.url.path, table,
                        headers.stamp, headers.nonce, body)
        if not same(expected, headers.signature):
            return refusal(401, "sync.bad-signature", now)
        signer = (credential[0], headers.nonce)
        if not replays.check(table, headers.nonce, now):
            return refusal(401, "sync.replayed", now, signer)
        if abs(headers.time - now) > MAX_SKEW or headers.time < replays.started:
            # (signed: the kiosk sets its clock from this answer)
            return refusal(401, "sync.stale", now, signer, s=round(headers.time - now, 1))
        return Signed(table, now, signer, body, credential[2])

    async def events(request: Request) -> Response:
        checked = await signed(request, MAX_BODY)
        if isinstance(checked, Response):
            return checked
        table, now, signer, raw, confirmed = checked
        try:
            body = loads(raw, nesting=False)  # (check_batch checks what it takes)
            batch = check_batch(body)
        except WireError as exc:
            return refusal(400, exc.key or "wire.not-json", now, signer, **exc.params)
        # The kiosk's version, health and clock offset, for the admin page (director/fleet.py).
        await fleet.note(director, reports, table, body.get("kiosk"), now)
        confirm = not confirmed
        if batch.events or confirm:
            def job(db: Any) -> Ingested:
                if confirm:
                    Store.confirm(db, table)
                done = store.apply(db, table, batch.events, now, batch.head, batch.sealed)
                if done.conflict and not batch.events:
                    store.record_conflict(db, table, done.conflict, now)
                return done

            done = await store.writer().run(
                job, lambda d: store.committed(table, d, now, batch.behind))
        else:  # a heartbeat: nothing to commit
            done = store.apply(store.db, table, [], now, batch.head)
            if done.conflict:
                await store.writer().run(
                    lambda db: store.record_conflict(db, table, done.conflict, now))
            store.heard(table, now, batch.behind)
        if done.conflict:
            seq, why = done.conflict
            return refusal(409, f"sync.conflict.{why}", now, signer, seq=seq, table=table,
                           high_water=done.high_water)
        return answer({"high_water": done.high_water, "aside": done.aside,
                       "muted": director.muted(),
                       "problems": director.problems(table, fresh=False)},
                      now=now, signer=signer)

    def signed_read(reply: Callable[[int], dict[str, Any]]
                    ) -> Callable[[Request], Awaitable[Response]]:
        """A GET only the table's own kiosk may make: `reply(table)` is the answer."""
        async def endpoint(request: Request) -> Response:
            checked = await signed(request, 0)
            if isinstance(checked, Response):
                return checked
            table, now, signer = checked.table, checked.now, checked.signer
            return answer(reply(table), now=now, signer=signer)
        return endpoint

    def assignment(table: int) -> dict[str, Any]:
        event = director.event()  # its ruleset: the only one a paired table offers
        return {"assignment": director.assignment(table), "withdrawn": director.withdrawn(),
                "muted": director.muted(), "high_water": store.high_water(table),
                "ruleset": event.ruleset if event is not None else None}

    def journal(table: int) -> dict[str, Any]:
        mark = store.high_water(table)
        return {"high_water": mark, "events": store.events(table, 0, mark)}

    return [Route("/api/pair/start", pair_start, methods=["POST"]),
            Route("/api/pair/finish", pair_finish, methods=["POST"]),
            Route("/api/tables/{table:int}/events", events, methods=["POST"]),
            Route("/api/tables/{table:int}/assignment", signed_read(assignment),
                  methods=["GET"]),
            Route("/api/tables/{table:int}/journal", signed_read(journal), methods=["GET"])]


def _source(request: Request) -> str:
    return request.client.host if request.client else "?"


def _status(exc: WireError) -> int:
    return {"wire.too-large": 413, "wire.length-required": 411, "wire.slow-body": 408,
            "wire.busy": 503}.get(exc.key or "", 400)


def _pair_request(body: Any) -> tuple[int, str, dict[str, str]]:
    """The table, device id and ruleset hashes of a pairing's first step. Raises WireError."""
    if not isinstance(body, dict):
        raise WireError("give the table, the device id and the pairing message",
                        "sync.pair-garbled")
    table, device, rulesets = body.get("table"), body.get("device"), body.get("rulesets", {})
    if not isinstance(table, int) or isinstance(table, bool) or not 1 <= table <= MAX_TABLE:
        raise WireError("table: a number from 1", "sync.no-table", table=MAX_TABLE)
    if not isinstance(device, str) or not DEVICE.fullmatch(device):
        raise WireError("device: the kiosk's id", "sync.pair-garbled")
    if not isinstance(rulesets, dict) or len(rulesets) > 100 or not all(
            isinstance(k, str) and len(k) <= 64 and isinstance(v, str) and HASH.fullmatch(v)
            for k, v in rulesets.items()):
        raise WireError("rulesets: each ruleset's id and sha256", "sync.pair-garbled")
    return table, device, rulesets


async def _read(request: Request, limit: int, budget: Budget) -> bytes:
    """The body, when its Content-Length says it is at most `limit` bytes, sent within
    BODY_TIMEOUT, and the budget of bodies being read has room. Raises WireError."""
    size = request.headers.get("content-length", "")
    if not size and request.method == "GET":
        return b""
    if not size.isdigit() or len(size) > 12:
        raise WireError("give the body's length", "wire.length-required")
    length = int(size)
    if length > limit:
        raise WireError(f"at most {limit} bytes", "wire.too-large", n=limit)
    if not budget.take(length):
        raise WireError("too many bodies at once", "wire.busy")
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            chunks, got = [], 0
            async for chunk in request.stream():
                got += len(chunk)
                if got > length:
                    raise WireError(f"at most {limit} bytes", "wire.too-large", n=limit)
                chunks.append(chunk)
    except TimeoutError:
        raise WireError("the body came too slowly", "wire.slow-body") from None
    finally:
        budget.give(length)
    return b"".join(chunks)
