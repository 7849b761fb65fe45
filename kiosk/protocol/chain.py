"""The hash chain that links a table's events, the same on the kiosk and at the scorer.

Each event carries `prev`, the hash of the table's event before it (empty for the first), so a
journal restored from an older copy, rolled back or edited cannot be spliced into the scorer's
record: the place where two histories part is named.

An event's hash is taken over its fields in one fixed order and form (`canonical`). Optional
fields a later release adds (`schema.Event.extra`) follow as one object, keys sorted, only when
there are any: an event of this release hashes exactly as it did in 0.1.0, and a scorer one
release behind can still hash (and keep) an event that carries fields it does not know.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: Every event's fields (this release's schema, `schema.Event`), in the order the journal,
#: the wire and the store name them.
EVENT_FIELDS = ("device", "seq", "match", "kind", "data", "mono", "wall", "actor", "prev")
# The one encoding of the chain and of an event's stored data.
_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                            allow_nan=False)
# What that encoder writes for a string (the same C function), without its dispatch.
_TEXT = json.encoder.encode_basestring


def _one_encoder() -> Callable[[Any], str]:
    """`_ENCODER.encode` for a dict, its C part made once: `encode` makes it again at each call
    (half the cost of sealing a seat's press). The standard library's own where the C part is
    missing or writes other bytes (a Python that changed it)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    try:
        parts = make(None, _ENCODER.default, _TEXT, None, ":", ",", True, False,  # type: ignore
                     False)
        probe = {"z": [1, -0.5, 1e16, "é\n\u2028"], "a": {"b": None, "c": True}}
        if "".join(parts(probe, 0)) == _ENCODER.encode(probe):
            return lambda value: "".join(parts(value, 0))
    except Exception:  # (any trouble: the plain way)
        pass
    return _ENCODER.encode


_CANONICAL = _one_encoder()
_FIELDS = frozenset(EVENT_FIELDS)


def extras(event: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of `event` beyond this release's schema (a later release's)."""
    return {k: v for k, v in event.items() if k not in _FIELDS}


def _canonical(event: Mapping[str, Any], data: str) -> str:
    # The JSON array [prev, device, seq, match, kind, data, mono, wall, actor(, extras)], as
    # _CANONICAL writes it, with the data's encoding made once for the hash and the store.
    more = extras(event) if len(event) > len(_FIELDS) else None
    return (f"[{_TEXT(event['prev'])},{_TEXT(event['device'])},{int(event['seq'])},"
            f"{_TEXT(event['match'])},{_TEXT(event['kind'])},{data},"
            f"{float(event['mono'])!r},{float(event['wall'])!r},{_TEXT(event['actor'])}"
            + (f",{_CANONICAL(more)}]" if more else "]"))


def canonical(event: Mapping[str, Any]) -> bytes:
    """The bytes an event's hash is taken over: every field, in one fixed order and form."""
    return _canonical(event, _CANONICAL(event["data"])).encode()


def event_hash(event: Mapping[str, Any]) -> str:
    """The hash the next event of the table carries as its `prev`."""
    return hashlib.sha256(canonical(event)).hexdigest()


def seal(event: Mapping[str, Any]) -> tuple[str, str]:
    """An event's hash, and its data as the scorer's store keeps it (JSON, keys sorted)."""
    data = _CANONICAL(event["data"])
    return hashlib.sha256(_canonical(event, data).encode()).hexdigest(), data


def broken_link(events: Sequence[Mapping[str, Any]], prev: str | None) -> int | None:
    """The sequence number of the first event (in `events`, consecutive and in order) whose
    `prev` is not the hash of the one before it, or None. `prev`: the hash of the event before
    the first (None: not known, the first's link is not checked)."""
    for e in events:
        if prev is not None and e["prev"] != prev:
            return int(e["seq"])
        prev = event_hash(e)
    return None
