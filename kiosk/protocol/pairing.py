"""Pairing a kiosk with the scorer by the table's six-digit code, which never crosses the wire.

Both sides run SPAKE2 keyed by the code (the `spake2` package): each sends one message, and
each derives a key that is the same only if both used the same code. Nothing on the wire lets
anyone in between test a guess. Then:

1. the kiosk proves it has the key (`kiosk_confirm`); a wrong one means a wrong code, and the
   scorer burns the code, so each guess costs a code the head referee must reissue;
2. only then does the scorer prove it has the key too and send, sealed with it (AES-GCM), the
   table's secret and its TLS certificate's fingerprint. The kiosk checks that fingerprint
   against the certificate of the connection it is on: a relay in between is found out, and
   learns neither the code nor the secret.

Used by both sides; imports nothing of either.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import Any

from ..errors import WireError

SCORER_ID = b"kiosk80 scorer"
MAX_MESSAGE = 64  # bytes of a SPAKE2 message (33 for Ed25519)


def _kiosk_id(table: int, device: str) -> bytes:
    return f"kiosk80 table {table} device {device}".encode()


def _derive(key: bytes, label: str) -> bytes:
    return hmac.new(key, f"kiosk80 pairing {label}".encode(), hashlib.sha256).digest()


def _mac(key: bytes, label: str, session: str) -> str:
    return hmac.new(_derive(key, label), session.encode(), hashlib.sha256).hexdigest()


def _message(text: Any) -> bytes:
    if not isinstance(text, str) or len(text) > 2 * MAX_MESSAGE:
        raise WireError("a pairing message is hex text", "sync.pair-garbled")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise WireError("a pairing message is hex text", "sync.pair-garbled") from None


class KioskPairing:
    """The kiosk's side: `message` to send, then `confirm(scorer_message, session)`, then
    `open(answer)` for the table's secret and the scorer's fingerprint."""

    def __init__(self, code: str, table: int, device: str) -> None:
        from spake2 import SPAKE2_A  # type: ignore[import-untyped]

        self._pake = SPAKE2_A(code.encode(), idA=_kiosk_id(table, device), idB=SCORER_ID)
        self.message = self._pake.start().hex()
        self._key = b""
        self._session = ""

    def confirm(self, scorer_message: Any, session: str) -> str:
        """The proof that this kiosk used the code the scorer did. Raises WireError."""
        from spake2 import SPAKEError  # type: ignore[import-untyped]

        try:
            self._key = self._pake.finish(_message(scorer_message))
        except SPAKEError:
            raise WireError("a garbled pairing message", "sync.pair-garbled") from None
        self._session = session
        return _mac(self._key, "kiosk confirms", session)

    def open(self, answer: dict[str, Any]) -> dict[str, Any]:
        """The sealed payload of the scorer's last answer, once the scorer proved it knows
        the code too. Raises WireError when it did not (not the scorer the code is for)."""
        if not hmac.compare_digest(str(answer.get("confirm", "")),
                                   _mac(self._key, "scorer confirms", self._session)):
            raise WireError("the answer is not from the scorer this code belongs to",
                            "sync.pair-impostor")
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        try:
            box = bytes.fromhex(str(answer.get("box", "")))
            plain = AESGCM(_derive(self._key, "payload")).decrypt(
                box[:12], box[12:], self._session.encode())
            payload = json.loads(plain)
        except (ValueError, InvalidTag):
            raise WireError("the pairing answer is garbled", "sync.pair-garbled") from None
        if not isinstance(payload, dict):
            raise WireError("the pairing answer is garbled", "sync.pair-garbled")
        return payload


class ScorerPairing:
    """The scorer's side, made from the kiosk's first message: `message` to answer with, then
    `confirms(proof)`, then `seal(payload)`. Raises WireError for a garbled message."""

    def __init__(self, code: str, table: int, device: str, kiosk_message: Any,
                 session: str) -> None:
        from spake2 import SPAKE2_B, SPAKEError  # type: ignore[import-untyped]

        pake = SPAKE2_B(code.encode(), idA=_kiosk_id(table, device), idB=SCORER_ID)
        self.message = pake.start().hex()
        try:
            self._key = pake.finish(_message(kiosk_message))
        except SPAKEError:
            raise WireError("a garbled pairing message", "sync.pair-garbled") from None
        self.session = session

    def confirms(self, proof: Any) -> bool:
        """Whether the kiosk's proof shows it used the same code."""
        return isinstance(proof, str) and hmac.compare_digest(
            proof.encode("utf-8", "replace"),
            _mac(self._key, "kiosk confirms", self.session).encode())

    def seal(self, payload: dict[str, Any]) -> dict[str, str]:
        """The last answer: the scorer's proof and the payload sealed with the shared key."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        nonce = os.urandom(12)
        box = nonce + AESGCM(_derive(self._key, "payload")).encrypt(
            nonce, json.dumps(payload).encode(), self.session.encode())
        return {"confirm": _mac(self._key, "scorer confirms", self.session), "box": box.hex()}
