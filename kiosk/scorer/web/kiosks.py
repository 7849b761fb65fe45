"""The tables' side of the LAN: pairing, the authenticated event ingest, assignments and the
table download a replacement kiosk starts from.

Pairing is a PAKE keyed by the table's code (`kiosk.protocol.pairing`): the code never crosses the
wire, three wrong guesses burn it, and the table's secret and this scorer's certificate fingerprint
travel sealed. Its writes go through the store's one writer, as the batches do, so a hall of
kiosks pairing at once never meets a locked database.

Every later request is signed (`kiosk.protocol.signing`). Its head — the table, the time, a
nonce not seen in the signature window, and the head signature, which covers the body's length
and hash — is checked before one byte of the body is admitted, so a stranger never takes the
memory a table's body needs. Bodies being read are capped in all, per source address and at one
per table (`Shares`); the pairings' bodies, and 0.1.0 kiosks' (signed over the body only, so
read before they can be checked), draw on small pools of their own. Every body, on every route,
must arrive within BODY_TIMEOUT of its head (`net.shield`). Answers to a signed request are
signed, so a kiosk takes its time and its assignment only from this scorer.

Batches go to the store's one writer (group commit) and are answered when durable. When the
scorer is behind — a request waited on the event loop for more than `LATE`, or the writer has
more than `BACKLOG` seconds of work — a batch is answered at once with 503 and `Retry-After`
rather than late: the kiosk's outbox backs off with jitter and sends it again, and no kiosk
waits past its own timeout for an answer it would then resend. A batch that parts from the
scorer's record of the table (same place, other content, or a broken chain) is answered 409
naming the sequence number; its events are kept aside.

The endpoints are module-level functions that find what they share (`Door`) in
`request.app.state.kiosks`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import re
import secrets
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ...errors import StoreError, WireError
from ...i18n import translator
from ...protocol.pairing import ScorerPairing
from ...protocol.schema import HASH, MAX_BODY, MAX_TABLE, loads
from ...protocol.signing import MAX_SKEW, digest, read_headers, same, sign, sign_answer
from ...protocol.wire import dumps
from ..checker import Checker
from ..director import Director, fleet
from ..director.access import Limiter
from ..net import tls
from ..net.shield import ARRIVED, BODY_TIMEOUT
from ..store.database import Ingested, Store
from ..store.keys import KioskKeys

log = logging.getLogger(__name__)
PAIR_TTL = 60.0  # seconds between the two steps of a pairing
MAX_PAIR_BODY = 8_000
TABLE_BODIES = 16_000_000  # bytes of signed bodies being read at once, in all
SOURCE_BODIES = 2 * MAX_BODY  # … from one address
PAIRING_BODIES = 1_000_000  # bytes of pairing bodies being read at once
PAIRING_SOURCE = 2 * MAX_PAIR_BODY  # … from one address
OLD_KIOSK_BODIES = 4 * MAX_BODY  # bytes of 0.1.0 kiosks' bodies (signed over the body only)
PAIRINGS_PER_SOURCE = 5  # pairing attempts a minute from one address
PAIRINGS_IN_HALL = 300  # … at tables with a code, from everyone
PAIRINGS_AT_ONCE = 16  # pairing steps computed at once; more kiosks are asked to come back …
PAIRINGS_A_SECOND = 40  # … spread over the time the scorer takes to pair them all (about)
LATE = 1.0  # seconds a batch may have waited on the event loop before it is turned away
BACKLOG = 1.0  # seconds of work the writer may have waiting before batches are turned away
RETRY_AFTER = 2  # seconds a kiosk turned away waits at least (its outbox adds jitter)
# Events a table may send at once: more than a whole day's journal (nine matches of about
# 3,000), which a kiosk back after a day offline, or sending again to a restored store, sends…
EVENT_BURST = 50_000
EVENT_RATE = 20.0  # … and events a second after that: a table in play makes one or two
DEVICE = re.compile(r"[A-Za-z0-9._:-]{1,64}")


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


class Shares:
    """Bytes of request bodies being read at once: at most `total` in all, `per_source` from
    one address, and (for signed requests) one body per table. Past a share: 503, unread."""

    def __init__(self, total: int, per_source: int) -> None:
        self.total, self.per_source = total, per_source
        self.used = 0
        self.by_source: Counter[str] = Counter()
        self.tables: set[int] = set()

    def take(self, size: int, source: str, table: int | None = None) -> bool:
        if self.used + size > self.total or self.by_source[source] + size > self.per_source \
                or table in self.tables:
            return False
        self.used += size
        self.by_source[source] += size
        if table is not None:
            self.tables.add(table)
        return True

    def give(self, size: int, source: str, table: int | None = None) -> None:
        self.used -= size
        self.by_source[source] -= size
        if self.by_source[source] <= 0:
            del self.by_source[source]
        self.tables.discard(table)  # type: ignore[arg-type]


class EventBudget:
    """Events each table may still send, refilled at `rate` a second up to `burst`. A kiosk
    never comes near it; a stolen credential cannot fill the store at the writer's speed. A
    table past its budget is answered 503 with the wait, so its kiosk's outbox sends the
    batch again then and nothing is lost."""

    def __init__(self, burst: int = EVENT_BURST, rate: float = EVENT_RATE) -> None:
        self.burst, self.rate = burst, rate
        self._left: dict[int, tuple[float, float]] = {}  # by table: (events left, as of when)

    def wait(self, table: int, now: float) -> int:
        """Seconds before `table` may send again (0: now)."""
        left = self._left_at(table, now)
        return 0 if left >= 0 else math.ceil(-left / self.rate)

    def spend(self, table: int, events: int, now: float) -> bool:
        """Take `events` (a batch already let in, so it may overdraw); True when it does."""
        left = self._left_at(table, now)
        self._left[table] = (left - events, now)
        return left >= 0 > left - events

    def _left_at(self, table: int, now: float) -> float:
        left, when = self._left.get(table, (self.burst, now))
        return min(self.burst, left + max(0.0, now - when) * self.rate)


@dataclass
class Pending:
    """A pairing between its two steps."""

    table: int
    device: str
    code: str
    side: ScorerPairing
    until: float
    rulesets: dict[str, str]


@dataclass
class Door:
    """What the tables' endpoints share, kept in `app.state.kiosks`."""

    director: Director
    # Why a table's matches are not scored, as the last fold found (the hall feed folds).
    problems: Callable[[int], list[str]]
    reports: fleet.Reports = field(default_factory=fleet.Reports)
    # Reads and checks the batches: in a process of its own while it runs (`checker.py`).
    checker: Checker = field(default_factory=Checker)
    replays: Replays = field(init=False)
    keys: KioskKeys = field(init=False)  # the tables' credentials and the mute, in memory
    # Attempts that have not (yet) paired: per source, and in the hall at tables that have a
    # code (attempts at a table with none cannot guess anything, so they use no one's turn).
    pairing_tries: Limiter = field(
        default_factory=lambda: Limiter(per_source=PAIRINGS_PER_SOURCE, ceiling=10**9))
    hall_pairings: Limiter = field(
        default_factory=lambda: Limiter(per_source=10**9, ceiling=PAIRINGS_IN_HALL))
    pending: dict[str, Pending] = field(default_factory=dict)
    signed_bodies: Shares = field(default_factory=lambda: Shares(TABLE_BODIES, SOURCE_BODIES))
    pairing_bodies: Shares = field(
        default_factory=lambda: Shares(PAIRING_BODIES, PAIRING_SOURCE))
    old_kiosk_bodies: Shares = field(
        default_factory=lambda: Shares(OLD_KIOSK_BODIES, SOURCE_BODIES))
    budget: EventBudget = field(default_factory=EventBudget)
    turned_away: int = 0  # batches answered 503 because the scorer was behind
    pairing_now: int = 0  # pairing steps being computed (a hall's kiosks all pair at once)
    pairing_waits: deque[float] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.replays = Replays(self.director.clock())
        self.keys = KioskKeys(self.store, self.director.clock)

    @property
    def store(self) -> Store:
        return self.director.store

    def clock(self) -> float:
        return self.director.clock()

    def turn_away(self, request: Request, table: int, now: float) -> int:
        """Seconds a batch from `table` is asked to wait (0: taken now): when the scorer is
        behind (see the module's words), or the table has sent more than its budget."""
        arrived = request.scope.get(ARRIVED)
        late = arrived is not None and asyncio.get_running_loop().time() - arrived > LATE
        if late or self.store.writer().backlog() > BACKLOG:
            self.turned_away += 1
            return RETRY_AFTER
        return self.budget.wait(table, now)


def door(request: Request) -> Door:
    found: Door = request.app.state.kiosks
    return found


# -- answers --------------------------------------------------------------------------------

def answer(request: Request, body: dict[str, Any], status: int = 200, now: float | None = None,
           signer: tuple[str, str] | None = None, headers: dict[str, str] | None = None
           ) -> Response:
    """JSON with the scorer's time (`now`, when the request arrived); signed with the
    table's secret over the request's nonce when `signer` is (secret, nonce)."""
    content = dumps({**body, "now": door(request).clock() if now is None else now})
    out = {"Cache-Control": "no-store", **(headers or {})}
    if signer is not None:
        out["X-Scorer-Signature"] = sign_answer(signer[0], signer[1], status, content)
    return Response(content, status, out, media_type="application/json")


def refusal(request: Request, status: int, key: str, now: float,
            signer: tuple[str, str] | None = None, headers: dict[str, str] | None = None,
            **params: Any) -> Response:
    """A refusal: `key` and `params` for the kiosk to say it in its language; `error` in
    English for logs."""
    english = translator("en")  # (the catalog read at the first refusal, not at the start)
    return answer(request, {"error": english(key, **params), "key": key, "params": params},
                  status, now, signer, headers)


def busy(request: Request, now: float, signer: tuple[str, str] | None = None,
         wait: int = RETRY_AFTER) -> Response:
    """503 with the wait before trying again: said at once, not after a queue."""
    return refusal(request, 503, "wire.busy", now, signer, headers={"Retry-After": str(wait)})


# -- pairing --------------------------------------------------------------------------------

async def pair_start(request: Request) -> Response:
    here, now = door(request), door(request).clock()
    if here.pairing_now >= PAIRINGS_AT_ONCE:  # come back later: an answer at once, long
        # before the kiosk's timeout (waiting here, a burst's kiosks time out), and not a try
        # of the code (no limit counts it)
        return refusal(request, 503, "sync.pairing-busy", now,
                       headers={"Retry-After": str(_pairing_turn(here.pairing_waits, now))})
    here.pairing_now += 1
    try:
        return await _pair_start(request, here, now)
    finally:
        here.pairing_now -= 1


def _pairing_turn(waits: deque[float], now: float) -> int:
    """When a kiosk turned away comes back: anywhere in the time the scorer takes to pair the
    kiosks it turned away in the last few seconds, so that they do not all come back at once
    (and are turned away again)."""
    waits.append(now)
    while waits[0] < now - 2 * RETRY_AFTER:
        waits.popleft()
    return random.randint(RETRY_AFTER, max(RETRY_AFTER, len(waits) // PAIRINGS_A_SECOND))


async def _pair_start(request: Request, here: Door, now: float) -> Response:
    source = _source(request)
    wait = here.pairing_tries.attempt(source, now)  # counted before any await
    if wait:
        return _too_many(request, now, wait)
    try:
        body = loads(await _read(request, MAX_PAIR_BODY, here.pairing_bodies, source))
        table, device, rulesets = _pair_request(body)
    except WireError as exc:
        return refusal(request, _status(exc), exc.key or "wire.not-json", now,
                       headers=_retry(exc), **exc.params)
    director = here.director
    event = director.event()
    if event is not None:
        problem = ruleset_mismatch(director, event.ruleset, rulesets.get(event.ruleset))
        if problem:
            return refusal(request, 409, "sync.ruleset-differs", now, **problem)
    code = here.store.pairing_code(table, device, now)
    if code is None:
        return refusal(request, 403, "sync.no-code", now, table=table)
    wait = here.hall_pairings.attempt("", now)  # (no await since the table's code was read)
    if wait:
        return _too_many(request, now, wait, "sync.hall-pairings-busy")
    session = secrets.token_hex(16)
    try:
        side = await run_in_threadpool(ScorerPairing, code, table, device,
                                       body.get("message"), session)
    except WireError as exc:
        return refusal(request, 400, exc.key or "sync.pair-garbled", now)
    for stale in [s for s, p in here.pending.items() if p.until < now]:
        del here.pending[stale]
    here.pending[session] = Pending(table, device, code, side, now + PAIR_TTL, rulesets)
    return answer(request, {"session": session, "message": side.message}, now=now)


async def pair_finish(request: Request) -> Response:
    here, now = door(request), door(request).clock()
    try:
        body = loads(await _read(request, MAX_PAIR_BODY, here.pairing_bodies,
                                 _source(request)))
    except WireError as exc:
        return refusal(request, _status(exc), exc.key or "wire.not-json", now,
                       headers=_retry(exc))
    session = body.get("session") if isinstance(body, dict) else None
    entry = here.pending.pop(session, None) if isinstance(session, str) else None
    if entry is None or entry.until < now:
        return refusal(request, 403, "sync.pair-expired", now)
    # A started pairing is always finished: only counted, and only once its body is in and
    # its session known (bodies that never came, held open, turned every kiosk away).
    here.pairing_now += 1
    try:
        return await _pair_finish(request, here, now, entry, body)
    finally:
        here.pairing_now -= 1


async def _pair_finish(request: Request, here: Door, now: float, entry: Pending,
                       body: dict[str, Any]) -> Response:
    store, director = here.store, here.director
    if not entry.side.confirms(body.get("confirm")):
        left = await store.writer().run(lambda db: store.miss_code(entry.code, db))
        if left:
            return refusal(request, 403, "sync.wrong-code-left", now, table=entry.table,
                           left=left)
        return refusal(request, 403, "sync.wrong-code", now, table=entry.table)
    event = director.event()  # (the head referee may have changed the ruleset meanwhile)
    problem = ruleset_mismatch(director, event.ruleset, entry.rulesets.get(event.ruleset)) \
        if event is not None else None
    if problem:
        return refusal(request, 409, "sync.ruleset-differs", now, **problem)
    try:
        secret = await store.writer().run(lambda db: store.pair(
            entry.table, entry.code, entry.device, now, entry.rulesets, db))
    except StoreError:
        return refusal(request, 403, "sync.no-code", now, table=entry.table)
    here.keys.changed()  # (its earlier kiosk's secret, if any, is no longer the table's)
    here.pairing_tries.forgive(_source(request))  # a kiosk that paired is not a guesser
    here.hall_pairings.forgive("")
    fingerprint = tls.identity(store).fingerprint
    return answer(request, entry.side.seal({"table": entry.table, "secret": secret,
                                            "certificate": fingerprint}), now=now)


def ruleset_mismatch(director: Director, ruleset: str, sha256: str | None
                     ) -> dict[str, Any] | None:
    """Why a kiosk's copy of the event's ruleset is refused (catalog parameters), or None."""
    event = director.event()
    if event is None or ruleset != event.ruleset or sha256 == event.ruleset_sha256:
        return None
    return {"ruleset": ruleset, "scorer": event.ruleset_sha256, "kiosk": sha256 or "-"}


def _too_many(request: Request, now: float, wait: float,
              key: str = "sync.too-many-pairings") -> Response:
    return refusal(request, 429, key, now, headers={"Retry-After": str(int(wait) + 1)},
                   s=int(wait) + 1)


# -- signed requests ------------------------------------------------------------------------

def _table(request: Request) -> int:
    """The path's table number; 0 for what is none (Starlette's `int` path convertor let a
    number of 5,000 digits through, which int() refuses: a 500)."""
    said = request.path_params["table"]
    return int(said) if said.isascii() and said.isdigit() and len(said) <= \
        len(str(MAX_TABLE)) else 0


async def signed(request: Request, limit: int, batch: bool = False) -> Signed | Response:
    """The request, signed by the table's kiosk, or the refusal. Everything but the body's
    hash is checked before the body is read; a `batch` is turned away (503) when the scorer
    is behind."""
    here = door(request)
    now, table = here.clock(), _table(request)
    if not 1 <= table <= MAX_TABLE:
        return refusal(request, 404, "sync.no-table", now, table=MAX_TABLE)
    try:
        headers = read_headers(request.headers, table)
    except WireError as exc:
        return refusal(request, 401, exc.key or "wire.unsigned", now)
    try:
        length = _length(request, limit)
    except WireError as exc:
        return refusal(request, _status(exc), exc.key or "wire.not-json", now, **exc.params)
    credential = here.keys.credential(table)
    if credential is None:
        return refusal(request, 401, "wire.unsigned", now)
    if headers.nonce in here.replays.seen.get(table, {}):
        return refusal(request, 401, "sync.replayed", now)
    method, path, source = request.method, request.scope["path"], _source(request)
    signer = (credential[0], headers.nonce)
    if headers.body_digest is not None:  # the head is signed: all is checked before the body
        if not headers.head_signed_by(credential[0], method, path, length):
            return refusal(request, 401, "sync.bad-signature", now)
        if not here.replays.check(table, headers.nonce, now):
            return refusal(request, 401, "sync.replayed", now, signer)
        problem = _time_problem(here, headers.time, now)
        if problem is not None:  # (signed: the kiosk sets its clock from this answer)
            return refusal(request, 401, "sync.stale", now, signer, s=problem)
        if batch and (wait := here.turn_away(request, table, now)):
            return busy(request, now, signer, wait)
        shares, owner = here.signed_bodies, table
    else:  # a kiosk of 0.1.0: only its body's signature, checked once the body is in
        shares, owner = here.old_kiosk_bodies, None
    try:
        body = await _read(request, limit, shares, source, owner, length)
    except WireError as exc:
        return refusal(request, _status(exc), exc.key or "wire.not-json", now,
                       signer if owner is not None else None, _retry(exc), **exc.params)
    if headers.body_digest is not None:
        if digest(body) != headers.body_digest:
            return refusal(request, 401, "sync.bad-signature", now)
    else:
        expected = sign(credential[0], method, path, table, headers.stamp, headers.nonce, body)
        if not same(expected, headers.signature):
            return refusal(request, 401, "sync.bad-signature", now)
        if not here.replays.check(table, headers.nonce, now):
            return refusal(request, 401, "sync.replayed", now, signer)
        problem = _time_problem(here, headers.time, now)
        if problem is not None:
            return refusal(request, 401, "sync.stale", now, signer, s=problem)
        if batch and (wait := here.turn_away(request, table, now)):
            return busy(request, now, signer, wait)
    return Signed(table, now, signer, body, credential[2])


def _time_problem(here: Door, sent: float, now: float) -> float | None:
    """How far off a request's time is (seconds), when it is outside the window."""
    if abs(sent - now) > MAX_SKEW or sent < here.replays.started:
        return round(sent - now, 1)
    return None


async def events(request: Request) -> Response:
    """A batch of the table's events (or none: a heartbeat), answered once durable."""
    checked = await signed(request, MAX_BODY, batch=True)
    if isinstance(checked, Response):
        return checked
    here = door(request)
    store = here.store
    table, now, signer, raw, confirmed = checked
    try:
        ready = await here.checker.check(raw, table)
    except WireError as exc:
        return refusal(request, 400, exc.key or "wire.not-json", now, signer, **exc.params)
    if here.budget.spend(table, len(ready.rows), now):
        log.warning("terminal.scorer.log.table_over_budget",
                    {"table": table, "n": here.budget.burst, "rate": round(here.budget.rate)})
    # The kiosk's version, health and clock offset, for the admin page (director/fleet.py),
    # when worth a write: in the batch's own transaction when it has one.
    report = ready.kiosk
    if report is not None and not here.reports.due(table, report, now):
        report = None
    confirm = not confirmed
    if ready.rows or confirm:
        def job(db: Any) -> Ingested:
            if confirm:
                Store.confirm(db, table)
            if report is not None:
                fleet.save(db, table, report, now)
            done = store.apply(db, table, ready.rows, now, ready.head)
            if done.conflict and not ready.rows:
                store.record_conflict(db, table, done.conflict, now)
            return done

        done = await store.writer().run(
            job, lambda d: store.committed(table, d, now, ready.behind))
    else:  # a heartbeat: nothing to commit (but a report or a conflict, now and then)
        done = store.apply(store.db, table, [], now, ready.head)
        conflict = done.conflict
        if conflict or report is not None:
            def note(db: Any) -> None:
                if report is not None:
                    fleet.save(db, table, report, now)
                if conflict:
                    store.record_conflict(db, table, conflict, now)

            await store.writer().run(note)
        store.heard(table, now, ready.behind)
    if done.conflict:
        seq, why = done.conflict
        return refusal(request, 409, f"sync.conflict.{why}", now, signer, seq=seq, table=table,
                       high_water=done.high_water)
    return answer(request, {"high_water": done.high_water, "aside": done.aside,
                            "muted": here.keys.muted(),
                            "problems": here.problems(table)},
                  now=now, signer=signer)


def signed_read(reply: Callable[[Door, int], dict[str, Any]]
                ) -> Callable[[Request], Awaitable[Response]]:
    """A GET only the table's own kiosk may make: `reply(door, table)` is the answer."""
    async def endpoint(request: Request) -> Response:
        checked = await signed(request, 0)
        if isinstance(checked, Response):
            return checked
        return answer(request, reply(door(request), checked.table), now=checked.now,
                      signer=checked.signer)
    return endpoint


def _assignment(here: Door, table: int) -> dict[str, Any]:
    director = here.director
    event = director.event()  # its ruleset: the only one a paired table offers
    return {"assignment": director.assignment(table), "withdrawn": director.withdrawn(),
            "muted": here.keys.muted(), "high_water": here.store.high_water(table),
            "ruleset": event.ruleset if event is not None else None}


def _journal(here: Door, table: int) -> dict[str, Any]:
    mark = here.store.high_water(table)
    return {"high_water": mark, "events": here.store.events(table, 0, mark)}


assignment = signed_read(_assignment)
journal = signed_read(_journal)

ROUTES = [Route("/api/pair/start", pair_start, methods=["POST"]),
          Route("/api/pair/finish", pair_finish, methods=["POST"]),
          Route("/api/tables/{table}/events", events, methods=["POST"]),
          Route("/api/tables/{table}/assignment", assignment, methods=["GET"]),
          Route("/api/tables/{table}/journal", journal, methods=["GET"])]


# -- reading a body -------------------------------------------------------------------------

def _source(request: Request) -> str:
    return request.client.host if request.client else "?"


def _status(exc: WireError) -> int:
    return {"wire.too-large": 413, "wire.length-required": 411, "wire.slow-body": 408,
            "wire.busy": 503}.get(exc.key or "", 400)


def _retry(exc: WireError) -> dict[str, str] | None:
    return {"Retry-After": str(RETRY_AFTER)} if exc.key == "wire.busy" else None


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


def _length(request: Request, limit: int) -> int:
    """The body's length its Content-Length declares (a GET may have none), at most `limit`.
    Raises WireError."""
    size = request.headers.get("content-length", "")
    if not size and request.method == "GET":
        return 0
    if not size.isdigit() or len(size) > 12:
        raise WireError("give the body's length", "wire.length-required")
    length = int(size)
    if length > limit:
        raise WireError(f"at most {limit} bytes", "wire.too-large", n=limit)
    return length


async def _read(request: Request, limit: int, shares: Shares, source: str,
                table: int | None = None, length: int | None = None) -> bytes:
    """The body, when its Content-Length says it is at most `limit` bytes, sent within
    BODY_TIMEOUT, and `shares` have room for it. Raises WireError."""
    length = _length(request, limit) if length is None else length
    if length == 0:
        return b""
    if not shares.take(length, source, table):
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
        shares.give(length, source, table)
    return b"".join(chunks)
