"""The wire between a table's kiosk and the hall's scorer, imported by both sides (and by
nothing heavier than the standard library and msgspec), in three parts by job:

- `signing`: the signed request (its head checked before its body is read) and answer;
- `schema`: the event and the versioned batch, their limits, the strict reading of JSON;
- `chain`: the hash chain that links a table's events.

This module gathers their names for the code on both sides, and keeps the two text helpers
every page and sheet uses for what a person reads.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from .chain import EVENT_FIELDS, broken_link, canonical, event_hash, extras, seal
from .schema import (
    FIELD_CAPS,
    HASH,
    MAX_BODY,
    MAX_DATA,
    MAX_DEPTH,
    MAX_EVENTS,
    MAX_SEQ,
    MAX_TABLE,
    MAX_TEXT,
    WIRE_VERSION,
    Batch,
    Event,
    check_batch,
    check_event,
    finite,
    loads,
)
from .signing import (
    MAX_SKEW,
    NONCE,
    STAMP,
    SignedHeaders,
    digest,
    parse_stamp,
    read_headers,
    same,
    sign,
    sign_answer,
    sign_head,
    signed_headers,
    stamp,
)

SERVICE = "_kiosk80._tcp.local."  # mDNS: it finds an address, never confers trust

__all__ = ["EVENT_FIELDS", "FIELD_CAPS", "HASH", "MAX_BODY", "MAX_DATA", "MAX_DEPTH",
           "MAX_EVENTS", "MAX_SEQ", "MAX_SKEW", "MAX_TABLE", "MAX_TEXT", "NONCE", "SERVICE",
           "STAMP", "WIRE_VERSION", "Batch", "Event", "SignedHeaders", "broken_link",
           "canonical", "check_batch", "check_event", "clean_name", "csv_cell", "digest",
           "dumps", "event_hash", "extras", "finite", "loads", "parse_stamp", "read_headers",
           "same", "seal", "sign", "sign_answer", "sign_head", "signed_headers", "stamp"]


def dumps(value: Any) -> bytes:
    """JSON for the wire (UTF-8, no NaN)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False).encode()


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
