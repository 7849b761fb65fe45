"""Signed requests from a table's kiosk, and the scorer's signed answers.

A request carries two HMAC-SHA256 signatures with the table's secret:
- the head's (`X-Kiosk-Head-Signature`), over the method, the path, the table, the time
  (fixed format, scorer time), a nonce, the body's length and its SHA-256 (`X-Kiosk-Body`).
  The scorer checks it, with the time and the nonce, before it admits a single byte of the
  body: a stranger who does not hold the secret never gets a body read, so never takes a
  table's share of the scorer's memory (issue 30's first attack). Once the body is in, its
  hash must be the one signed.
- the body's (`X-Kiosk-Signature`), over the same head and the body itself: what 0.1.0
  checks, sent so a scorer one release behind still takes this kiosk's requests.
An answer to a request whose signature checked out is signed too, over the request's nonce,
the status and the body: a kiosk takes the time and its assignment only from such answers.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import WireError

MAX_SKEW = 30.0  # seconds a request's time may be off the scorer's (kiosks sign in its time)
HASH = re.compile(r"[0-9a-f]{64}")
STAMP = re.compile(r"[0-9]{10}\.[0-9]{3}")
NONCE = re.compile(r"[0-9a-f]{16,64}")
EMPTY = hashlib.sha256(b"").hexdigest()


def stamp(t: float) -> str:
    """A request's time on the wire: seconds with three decimals, ten digits before the point."""
    return f"{t:014.3f}"


def parse_stamp(text: str) -> float:
    """The time of a request. Raises WireError unless it is in the fixed format."""
    if not STAMP.fullmatch(text):
        raise WireError(f"bad time {text[:20]!r}", "wire.bad-time")
    return float(text)


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest() if body else EMPTY


def sign(secret: str, method: str, path: str, table: int, stamp_: str, nonce: str,
         body: bytes) -> str:
    """The body's signature (0.1.0's only one)."""
    message = f"{method} {path}\n{table}\n{stamp_}\n{nonce}\n".encode() + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def sign_head(secret: str, method: str, path: str, table: int, stamp_: str, nonce: str,
              length: int, body_digest: str) -> str:
    """The head's signature: checked before the body is read. (Its message begins with
    "head", a body signature's with the method, an answer's with "answer": none can pass for
    another.)"""
    message = f"head\n{method} {path}\n{table}\n{stamp_}\n{nonce}\n{length}\n{body_digest}"
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()


def signed_headers(secret: str, table: int, method: str, path: str, body: bytes, now: float,
                   nonce: str) -> dict[str, str]:
    """The headers of a signed request made at scorer time `now`."""
    at, hashed = stamp(now), digest(body)
    return {"X-Kiosk-Table": str(table), "X-Kiosk-Time": at, "X-Kiosk-Nonce": nonce,
            "X-Kiosk-Body": hashed,
            "X-Kiosk-Head-Signature": sign_head(secret, method, path, table, at, nonce,
                                                len(body), hashed),
            "X-Kiosk-Signature": sign(secret, method, path, table, at, nonce, body)}


def sign_answer(secret: str, nonce: str, status: int, body: bytes) -> str:
    """The scorer's signature on its answer to a request with `nonce`."""
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
    signature: str  # the body's
    body_digest: str | None = None  # None: a kiosk of 0.1.0 (no head signature)
    head_signature: str = ""

    def head_signed_by(self, secret: str, method: str, path: str, length: int) -> bool:
        """Whether the head signature is the table's, for a body of `length` bytes."""
        if self.body_digest is None:
            return False
        return same(sign_head(secret, method, path, self.table, self.stamp, self.nonce,
                              length, self.body_digest), self.head_signature)


def read_headers(headers: Mapping[str, str], table: int) -> SignedHeaders:
    """The signature headers of a request for `table`, checked for form only (before its body
    is read). Raises WireError naming what is missing or malformed."""
    claimed = headers.get("x-kiosk-table", "")
    nonce, signature = headers.get("x-kiosk-nonce", ""), headers.get("x-kiosk-signature", "")
    if claimed != str(table) or not NONCE.fullmatch(nonce) or not HASH.fullmatch(signature):
        raise WireError("not signed by this table's kiosk", "wire.unsigned")
    body, head = headers.get("x-kiosk-body"), headers.get("x-kiosk-head-signature", "")
    if body is not None and not (HASH.fullmatch(body) and HASH.fullmatch(head)):
        raise WireError("not signed by this table's kiosk", "wire.unsigned")
    at = headers.get("x-kiosk-time", "")
    return SignedHeaders(table, parse_stamp(at), at, nonce, signature, body, head)
