"""The wire between a table's kiosk and the hall's scorer, imported by both sides (and by
nothing heavier than the standard library): request and answer signatures, strict parsing of
what arrives, the batch schema, and the hash chain that links a table's events.

A request from a table is signed with HMAC-SHA256 over the method, the path, the table, the
time (fixed format, scorer time), a nonce and the body. An answer to a request whose signature
checked out is signed too, over the request's nonce, the status and the body: a kiosk takes
the time and its assignment only from such answers.

Each event carries `prev`, the hash of the table's event before it (empty for the first), so
a journal restored from an older copy, rolled back or edited cannot be spliced into the
scorer's record: the place where two histories part is named.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import WireError

SERVICE = "_kiosk80._tcp.local."  # mDNS: it finds an address, never confers trust
MAX_SKEW = 30.0  # seconds a request's time may be off the scorer's (kiosks sign in its time)
MAX_BODY = 1_000_000  # bytes of a batch: 200 events are about 60 KB
MAX_EVENTS = 500  # events in one batch
MAX_SEQ = 2**53
MAX_TABLE = 9999
MAX_DEPTH = 8  # nesting of a JSON document
MAX_TEXT = 256  # characters of any string inside an event's data
MAX_DATA = 16_000  # characters of one event's data, encoded as the store keeps it
FIELD_CAPS = {"device": 64, "match": 40, "kind": 32, "actor": 40}
EVENT_FIELDS = ("device", "seq", "match", "kind", "data", "mono", "wall", "actor", "prev")
_FIELD_SET = frozenset(EVENT_FIELDS)
HASH = re.compile(r"[0-9a-f]{64}")
STAMP = re.compile(r"[0-9]{10}\.[0-9]{3}")
NONCE = re.compile(r"[0-9a-f]{16,64}")
TABLE = re.compile(r"[1-9][0-9]{0,3}")
# A JSON text can hold an unpaired surrogate only as an escape of one (UTF-8 cannot carry it).
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# The one encoding of the hash chain and of an event's stored data (made once: json.dumps with
# options builds an encoder per call).
_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                              allow_nan=False).encode


# -- signatures -----------------------------------------------------------------------------

def stamp(t: float) -> str:
    """A request's time on the wire: seconds with three decimals, ten digits before the point."""
    return f"{t:014.3f}"


def parse_stamp(text: str) -> float:
    """The time of a request. Raises WireError unless it is in the fixed format."""
    if not STAMP.fullmatch(text):
        raise WireError(f"bad time {text[:20]!r}", "wire.bad-time")
    return float(text)


def sign(secret: str, method: str, path: str, table: int, stamp_: str, nonce: str,
         body: bytes) -> str:
    """The signature a table sends with a request."""
    message = f"{method} {path}\n{table}\n{stamp_}\n{nonce}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signed_headers(secret: str, table: int, method: str, path: str, body: bytes, now: float,
                   nonce: str) -> dict[str, str]:
    """The headers of a signed request made at scorer time `now`."""
    at = stamp(now)
    return {"X-Kiosk-Table": str(table), "X-Kiosk-Time": at, "X-Kiosk-Nonce": nonce,
            "X-Kiosk-Signature": sign(secret, method, path, table, at, nonce, body)}


def sign_answer(secret: str, nonce: str, status: int, body: bytes) -> str:
    """The scorer's signature on its answer to a request with `nonce`. (An answer's message
    begins with "answer", a request's with its method: one can never pass for the other.)"""
    message = f"answer\n{nonce}\n{status}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two signatures (any text: non-ASCII is simply unequal)."""
    return hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8", "replace"))


@dataclass(frozen=True)
class SignedHeaders:
    table: int
    time: float
    stamp: str
    nonce: str
    signature: str


def read_headers(headers: Mapping[str, str], table: int) -> SignedHeaders:
    """The signature headers of a request for `table`, checked for form only (before its body
    is read). Raises WireError naming what is missing or malformed."""
    claimed = headers.get("x-kiosk-table", "")
    nonce, signature = headers.get("x-kiosk-nonce", ""), headers.get("x-kiosk-signature", "")
    if claimed != str(table) or not NONCE.fullmatch(nonce) or not HASH.fullmatch(signature):
        raise WireError("not signed by this table's kiosk", "wire.unsigned")
    at = headers.get("x-kiosk-time", "")
    return SignedHeaders(table, parse_stamp(at), at, nonce, signature)


# -- strict JSON ----------------------------------------------------------------------------

def _no_constant(name: str) -> Any:
    raise WireError(f"{name} is not a number JSON allows", "wire.not-finite")


def loads(raw: bytes, max_depth: int = MAX_DEPTH, nesting: bool = True) -> Any:
    """A JSON document, strictly: UTF-8, finite numbers only (no NaN or Infinity), no
    unpaired surrogates, nested at most `max_depth` deep. `nesting` False: the caller checks
    the nesting of what it uses (a batch: `check_batch`). Raises WireError."""
    try:
        text = raw.decode("utf-8")
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except WireError:
        raise
    except RecursionError:
        raise WireError("JSON nested too deep", "wire.too-deep", depth=max_depth) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"not JSON: {exc}", "wire.not-json") from None
    if nesting or SURROGATE_ESCAPE.search(text):
        _walk(value, max_depth)
    return value


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as inf
        raise WireError("a number out of range", "wire.not-finite")
    return value


def _walk(value: Any, depth: int) -> None:
    if isinstance(value, dict | list):
        if depth <= 0:
            raise WireError("JSON nested too deep", "wire.too-deep", depth=MAX_DEPTH)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            if isinstance(k, str):
                _text(k)
            _walk(v, depth - 1)
    elif isinstance(value, str):
        _text(value)


def _text(value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise WireError("text with an unpaired surrogate", "wire.bad-text") from None


def dumps(value: Any) -> bytes:
    """JSON for the wire (UTF-8, no NaN)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False).encode()


# -- the batch and the hash chain -----------------------------------------------------------

def canonical(event: Mapping[str, Any]) -> bytes:
    """The bytes an event's hash is taken over: every field, in one fixed order and form."""
    return _CANONICAL(
        [event["prev"], event["device"], int(event["seq"]), event["match"], event["kind"],
         event["data"], float(event["mono"]), float(event["wall"]), event["actor"]]).encode()


def event_hash(event: Mapping[str, Any]) -> str:
    """The hash the next event of the table carries as its `prev`."""
    return hashlib.sha256(canonical(event)).hexdigest()


def seal(event: Mapping[str, Any]) -> tuple[str, str]:
    """An event's hash, and its data as the scorer's store keeps it (JSON, keys sorted)."""
    return event_hash(event), _CANONICAL(event["data"])


def broken_link(events: list[Mapping[str, Any]], prev: str | None) -> int | None:
    """The sequence number of the first event (in `events`, consecutive and in order) whose
    `prev` is not the hash of the one before it, or None. `prev`: the hash of the event before
    the first (None: not known, the first's link is not checked)."""
    for e in events:
        if prev is not None and e["prev"] != prev:
            return int(e["seq"])
        prev = event_hash(e)
    return None


@dataclass(frozen=True)
class Batch:
    events: list[dict[str, Any]]
    behind: int  # events the kiosk has not sent yet after these
    head: tuple[int, str] | None  # the kiosk journal's last event: (seq, hash)
    sealed: list[tuple[str, str]]  # each event's `seal`, made while it was checked


def check_batch(body: Any) -> Batch:
    """The events, the `behind` count and the head of a batch. Raises WireError naming the
    problem (and the event, by its index in the batch)."""
    if not isinstance(body, dict) or not isinstance(body.get("events"), list):
        raise WireError('give {"events": [...]}', "wire.batch-shape")
    behind = body.get("behind", 0)
    if not _count(behind, 10**9, 0):
        raise WireError("behind: a count of events, 0 or more", "wire.behind")
    events = body["events"]
    if len(events) > MAX_EVENTS:
        raise WireError(f"at most {MAX_EVENTS} events a batch", "wire.too-many",
                        n=MAX_EVENTS)
    sealed = [check_event(e, i) for i, e in enumerate(events)]
    for i, (a, b) in enumerate(itertools.pairwise(events), 1):
        if b["seq"] != a["seq"] + 1:
            raise WireError(f"event {i}: not consecutive", "wire.not-consecutive", i=i)
    head = body.get("head")
    if head is not None:
        if not isinstance(head, dict) or not _count(head.get("seq"), MAX_SEQ, 0) or \
                not (head.get("hash") == "" or HASH.fullmatch(str(head.get("hash")))):
            raise WireError("head: the journal's last sequence number and hash",
                            "wire.head")
        head = (head["seq"], head["hash"])
    return Batch(events, behind, head, sealed)


def check_event(e: Any, i: int = 0) -> tuple[str, str]:
    """One event of a batch: its `seal` once it is checked. Raises WireError."""
    if not isinstance(e, dict) or e.keys() != _FIELD_SET:
        raise WireError(f"event {i}: each event has exactly " + ", ".join(EVENT_FIELDS),
                        "wire.event-fields", i=i, fields=", ".join(EVENT_FIELDS))
    if not _count(e["seq"], MAX_SEQ, 1):
        raise WireError(f"event {i}: seq must be a whole number from 1", "wire.seq", i=i)
    if not (_number(e["mono"]) and _number(e["wall"])):
        raise WireError(f"event {i}: mono and wall must be finite numbers", "wire.times", i=i)
    for name, cap in FIELD_CAPS.items():
        if not isinstance(e[name], str) or len(e[name]) > cap:
            raise WireError(f"event {i}: {name} is text of at most {cap} characters",
                            "wire.field-text", i=i, field=name, n=cap)
    if not isinstance(e["data"], dict):
        raise WireError(f"event {i}: data is an object", "wire.data", i=i)
    # (the batch, its list of events and the event hold the data: three levels)
    problem = _data_problem(e["data"], MAX_DEPTH - 3)
    if problem == "wire.too-deep":
        raise WireError("JSON nested too deep", problem, depth=MAX_DEPTH)
    prev = e["prev"]
    if not isinstance(prev, str) or not (HASH.fullmatch(prev) or (prev == "" and
                                                                   e["seq"] == 1)):
        raise WireError(f"event {i}: prev is the hash of the event before",
                        "wire.prev", i=i)
    sealed = seal(e)
    if problem or len(sealed[1]) > MAX_DATA:
        raise WireError(f"event {i}: data too large", "wire.data-size", i=i, n=MAX_TEXT)
    return sealed


def _count(value: Any, top: int, bottom: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and bottom <= value <= top


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and \
        finite(value)


def finite(value: int | float) -> bool:
    """A finite number (an integer too large for a float is not one)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _data_problem(value: Any, depth: int) -> str | None:
    """An event's data nested too deep ("wire.too-deep"), a text in it too long
    ("wire.data-size"), or None."""
    if isinstance(value, str):
        return None if len(value) <= MAX_TEXT else "wire.data-size"
    if isinstance(value, dict | list):
        if depth <= 0:
            return "wire.too-deep"
        for k, v in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(k, str) and len(k) > MAX_TEXT:
                return "wire.data-size"
            problem = _data_problem(v, depth - 1)
            if problem:
                return problem
    return None


# -- text a person will see -----------------------------------------------------------------

# Bidi embeddings, overrides and isolates, marks, and zero-width characters: they make a name
# read differently from what it is ("evil" shown as "live").
_INVISIBLE = dict.fromkeys(
    [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C,
     *range(0x200B, 0x200E), 0x2060, 0xFEFF, 0x00AD, 0x180E])


def clean_name(text: str, limit: int = 64) -> str:
    """A name as it may be shown and printed: NFC, no bidi controls, zero-width or other
    control characters, single spaces, at most `limit` characters."""
    text = unicodedata.normalize("NFC", str(text)).translate(_INVISIBLE)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Cs",
                                                                        "Co", "Cn")
                   or ch in " ")
    return " ".join(text.split())[:limit]


def csv_cell(value: Any) -> Any:
    """A spreadsheet cell that is never run as a formula: text starting with =, +, -, @, a tab
    or a carriage return gets a leading apostrophe. Numbers pass unchanged."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
