"""The event and the batch, as the kiosk's journal, the wire and the scorer's store all hold
them: one schema, its limits, and the strict reading of what arrives.

A batch carries its version (`v`; a batch without one is from 0.1.0, version 1). A scorer
takes batches from the release before its own and from the one after: a later release's batch
may carry fields this one does not know, at the batch's top level (ignored) or in an event
(kept with the event as its `extra`, hashed with it, stored and given back with it), so a kiosk
and a scorer one release apart still talk. A batch more than one version ahead is refused with
words that say to update the scorer.

JSON is read with msgspec (strict: UTF-8, finite numbers, no unpaired surrogates, four times
quicker than the standard library on a hand's batch) and checked by hand for what a type
cannot say (sizes, nesting, the chain's form), each refusal naming the event by its index.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import msgspec

from ..errors import WireError
from .chain import EVENT_FIELDS, seal

WIRE_VERSION = 2  # this release's batch; 1: 0.1.0's (no "v")
MAX_BODY = 1_000_000  # bytes of a batch: 200 events are about 60 KB
MAX_EVENTS = 500  # events in one batch
MAX_SEQ = 2**53
MAX_TABLE = 9999
MAX_DEPTH = 8  # nesting of a JSON document
MAX_TEXT = 256  # characters of any string inside an event's data
MAX_DATA = 16_000  # characters of one event's data, encoded as the store keeps it
MAX_EXTRA = 8  # fields a later release may add to an event
FIELD_CAPS = {"device": 64, "match": 40, "kind": 32, "actor": 40}
_FIELD_SET = frozenset(EVENT_FIELDS)
HASH = re.compile(r"[0-9a-f]{64}")
EXTRA_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


class Event(msgspec.Struct, frozen=True):
    """One recorded fact. `match` names the match (its round) the event belongs to; `prev` is
    the hash of the table's event before it (empty for the first); `extra`: fields a later
    release added (none in this one's own events). A frozen msgspec struct: made in a tenth
    of a frozen dataclass's time, and the scorer makes one for every event it folds."""

    seq: int
    device: str
    match: str
    kind: str
    data: dict[str, Any]
    mono: float
    wall: float
    actor: str
    prev: str = ""
    extra: Mapping[str, Any] = {}

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "device": self.device, "match": self.match, "kind": self.kind,
                "data": self.data, "mono": self.mono, "wall": self.wall, "actor": self.actor,
                "prev": self.prev, **self.extra}


# -- strict JSON ----------------------------------------------------------------------------

_decode = msgspec.json.Decoder().decode


def loads(raw: bytes, max_depth: int = MAX_DEPTH, nesting: bool = True) -> Any:
    """A JSON document, strictly: UTF-8, finite numbers only (no NaN or Infinity), no
    unpaired surrogates, nested at most `max_depth` deep. `nesting` False: the caller checks
    the nesting of what it uses (a batch: `check_batch`). Raises WireError."""
    try:
        value = _decode(raw)
    except RecursionError:
        raise WireError("JSON nested too deep", "wire.too-deep", depth=max_depth) from None
    except msgspec.ValidationError:  # (untyped: only a number out of a double's range)
        raise WireError("a number out of range", "wire.not-finite") from None
    except msgspec.DecodeError as exc:
        _explain(raw, exc)
    if nesting and _too_deep(value, max_depth):
        raise WireError("JSON nested too deep", "wire.too-deep", depth=max_depth)
    return value


def _explain(raw: bytes, exc: Exception) -> NoReturn:
    """Why msgspec refused `raw`, named as precisely as the standard library's reader can
    (refusals are rare: only they pay for the second reading). Raises WireError."""
    try:
        json.loads(raw.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite)
    except WireError:
        raise
    except RecursionError:
        raise WireError("JSON nested too deep", "wire.too-deep", depth=MAX_DEPTH) from None
    except (UnicodeDecodeError, ValueError):
        pass
    else:  # (read, so its trouble is text UTF-8 cannot carry: an unpaired surrogate)
        raise WireError("text with an unpaired surrogate", "wire.bad-text") from None
    raise WireError(f"not JSON: {exc}", "wire.not-json") from None


def _no_constant(name: str) -> Any:
    raise WireError(f"{name} is not a number JSON allows", "wire.not-finite")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as inf
        raise WireError("a number out of range", "wire.not-finite")
    return value


def _too_deep(value: Any, depth: int) -> bool:
    if isinstance(value, dict | list):
        if depth <= 0:
            return True
        return any(_too_deep(v, depth - 1)
                   for v in (value.values() if isinstance(value, dict) else value))
    return False


# -- the batch ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Batch:
    events: list[dict[str, Any]]
    behind: int  # events the kiosk has not sent yet after these
    head: tuple[int, str] | None  # the kiosk journal's last event: (seq, hash)
    sealed: list[tuple[str, str]]  # each event's `chain.seal`, made while it was checked
    version: int = WIRE_VERSION


def check_batch(body: Any) -> Batch:
    """The events, the `behind` count and the head of a batch. Raises WireError naming the
    problem (and the event, by its index in the batch)."""
    if not isinstance(body, dict) or not isinstance(body.get("events"), list):
        raise WireError('give {"events": [...]}', "wire.batch-shape")
    version = body.get("v", 1)
    if not _count(version, 10**6, 1):
        raise WireError("v: the batch's version, a whole number from 1", "wire.batch-shape")
    if version > WIRE_VERSION + 1:
        raise WireError(f"a batch of version {version}: this scorer reads up to "
                        f"{WIRE_VERSION + 1}", "wire.too-new", v=version)
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
    return Batch(events, behind, head, sealed, version)


def check_event(e: Any, i: int = 0) -> tuple[str, str]:
    """One event of a batch: its `chain.seal` once it is checked. Raises WireError."""
    if not isinstance(e, dict) or not e.keys() >= _FIELD_SET or (
            len(e) > len(_FIELD_SET) and not _extras_ok(e)):
        raise WireError(f"event {i}: each event has " + ", ".join(EVENT_FIELDS),
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


def _extras_ok(e: dict[str, Any]) -> bool:
    """A later release's fields: a few, named plainly, small (as an event's data is)."""
    more = [k for k in e if k not in _FIELD_SET]
    return len(more) <= MAX_EXTRA and all(EXTRA_NAME.fullmatch(k) for k in more) and \
        _data_problem({k: e[k] for k in more}, MAX_DEPTH - 3) is None


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
