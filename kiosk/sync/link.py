"""The kiosk's side of the LAN: pairing with the scorer and its signed requests.

Pairing runs the PAKE of `kiosk.protocol.pairing` with the table's code over TLS, and pins the
certificate the scorer vouched for inside it: from then on the kiosk talks only to a peer
presenting exactly that certificate (an mDNS answer or a saved address finds it, never
vouches for it). The credential (scorer URL, table, secret, certificate) is kept next to the
journal, mode 600, written atomically, so a restarted kiosk needs no new code.

Every answer to a signed request is signed by the scorer; only those answers set the clock
and carry assignments. The clock: each signed answer's `now` against this machine's
monotonic clock (half the round trip taken as the delay, the quickest recent round trip
kept), so a step of the wall clock (chrony at boot) changes nothing, and requests are signed
in the scorer's time whatever the wall clock says.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import ssl
import string
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ..errors import LinkError, WireError
from ..i18n import catalog
from ..protocol.pairing import KioskPairing
from ..protocol.wire import WIRE_VERSION, dumps, loads, same, sign_answer, signed_headers

SYNCED_WITHIN = 0.5  # seconds: a wall clock this close to the scorer's counts as synchronised


@dataclass(frozen=True)
class Credential:
    url: str
    table: int
    secret: str
    certificate: str = ""  # the scorer's certificate (PEM), pinned at pairing

    @staticmethod
    def path(data_dir: str | Path, table: int) -> Path:
        return Path(data_dir) / f"scorer-table-{table}.json"

    @classmethod
    def load(cls, data_dir: str | Path, table: int) -> Credential | None:
        path = cls.path(data_dir, table)
        if not path.exists():
            return None
        raw = json.loads(path.read_text())
        return cls(raw["url"], int(raw["table"]), raw["secret"], raw.get("certificate", ""))

    def save(self, data_dir: str | Path) -> None:
        path = self.path(data_dir, self.table)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"url": self.url, "table": self.table, "secret": self.secret,
                       "certificate": self.certificate}, f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)


class ScorerBusy(LinkError):
    """The scorer turned the request away for now and said when to come back: it is behind
    (503), or too many pairings came from this address at once (429). Try again after
    `retry_after` seconds, with jitter, so a hall's tables do not all come back together."""

    def __init__(self, message: str, status: int, key: str, params: dict[str, Any],
                 retry_after: float) -> None:
        super().__init__(message, status, key, params)
        self.retry_after = retry_after


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number of seconds; a date is not used here)."""
    try:
        seconds = float(value or "")
    except ValueError:
        return None
    return min(seconds, 300.0) if math.isfinite(seconds) and seconds >= 0 else None


def https(url: str) -> str:
    """The scorer's URL: it speaks HTTPS only, so an http:// address means the same host and
    port over TLS."""
    url = url.strip().rstrip("/")
    return "https://" + url[len("http://"):] if url.startswith("http://") else url


def pinned_context(certificate: str) -> ssl.SSLContext:
    """TLS that accepts exactly this certificate, whatever name or address it is reached by."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = False  # the address comes from mDNS or DHCP: the pin is the trust
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(cadata=certificate)
    return context


def _unverified_context() -> ssl.SSLContext:
    # Pairing only: the certificate is checked afterwards against the one the PAKE vouched for.
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class ScorerLink:
    """Requests to the scorer for one table. `client`: an httpx.Client already set up to
    reach the scorer (a Starlette TestClient in tests); without one, the link makes its own,
    pinned to the credential's certificate."""

    def __init__(self, url: str, client: httpx.Client | None = None,
                 credential: Credential | None = None, timeout: float = 5.0) -> None:
        self.injected = client is not None
        self.url = url.rstrip("/") if self.injected else https(url)
        self.timeout = timeout
        self.credential = credential
        # The kiosk's version, health and offset sent with each batch (kiosk/fleet/status.py).
        self.report: Callable[[float | None], dict[str, Any]] | None = None
        self.client = client or self._client()
        # (round trip, scorer time minus this machine's monotonic time) of signed answers
        self._samples: deque[tuple[float, float]] = deque(maxlen=16)

    def _client(self) -> httpx.Client:
        if self.credential is not None and self.credential.certificate:
            return httpx.Client(verify=pinned_context(self.credential.certificate),
                                timeout=self.timeout)
        return httpx.Client(verify=_unverified_context(), timeout=self.timeout)

    # -- the scorer's clock -----------------------------------------------------------------

    def scorer_time(self) -> float:
        """Now, on the scorer's clock (this machine's wall clock until an answer came)."""
        if not self._samples:
            return time.time()
        return time.monotonic() + min(self._samples)[1]

    @property
    def offset(self) -> float | None:
        """The scorer's wall clock minus this machine's, once measured."""
        return self.scorer_time() - time.time() if self._samples else None

    @property
    def synchronised(self) -> bool | None:
        offset = self.offset
        return None if offset is None else abs(offset) <= SYNCED_WITHIN

    # -- requests ---------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: bytes = b"", signed: bool = True
                 ) -> dict[str, Any]:
        try:
            return self._once(method, path, body, signed)
        except LinkError as exc:
            if exc.key != "sync.stale" or not self._samples:
                raise
            # Refused for its time, in an answer signed by the scorer that set our clock:
            # once more, now in the scorer's time (a wall-clock step costs one refusal).
            return self._once(method, path, body, signed)

    def _once(self, method: str, path: str, body: bytes, signed: bool) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        nonce = secrets.token_hex(12)
        if signed:
            if self.credential is None:
                raise LinkError("this kiosk is not paired with the scorer", None,
                                "sync.not-paired-yet")
            if not self.injected and not self.credential.certificate:
                # paired before certificates were pinned: it cannot tell the scorer apart
                raise LinkError("pair this kiosk again (no pinned certificate)", None,
                                "sync.pair-again")
            headers |= signed_headers(self.credential.secret, self.credential.table, method,
                                      path, body, self.scorer_time(), nonce)
        sent = time.monotonic()
        try:
            reply = self.client.request(method, self.url + path, content=body, headers=headers)
        except httpx.TimeoutException as exc:
            # no answer in time (its handshake included): a scorer busy with a hall's kiosks
            # pairing at once, or nothing at that address (one that refuses is `unreachable`)
            raise LinkError(f"the scorer did not answer in time: {exc!r}", None, "sync.slow",
                            {"url": self.url, "s": f"{self.timeout:g}"}) from None
        except httpx.HTTPError as exc:
            raise LinkError(f"the scorer does not answer: {exc}", None, "sync.unreachable",
                            {"url": self.url}) from None
        received = time.monotonic()
        self.last_reply = reply
        try:
            answer = loads(reply.content)
            if not isinstance(answer, dict):
                raise WireError("an answer is an object", "wire.batch-shape")
        except WireError:
            raise LinkError(f"the scorer answered {reply.status_code} without JSON",
                            reply.status_code, "sync.garbled-answer",
                            {"status": reply.status_code}) from None
        authentic = signed and same(
            reply.headers.get("x-scorer-signature", ""),
            sign_answer(self.credential.secret, nonce, reply.status_code, reply.content)
            if self.credential else "")
        now = answer.get("now")
        if authentic and isinstance(now, int | float) and not isinstance(now, bool) and \
                math.isfinite(now):
            if answer.get("key") == "sync.stale":
                self._samples.clear()  # the scorer's clock moved: older samples are wrong
            self._samples.append((received - sent, float(now) - (sent + received) / 2))
        if reply.status_code != 200:
            key, params = _words(answer.get("key"), answer.get("params"), reply.status_code)
            wait = _retry_after(reply.headers.get("retry-after"))
            if reply.status_code in (429, 503) and wait is not None:  # "come back then"
                raise ScorerBusy(str(answer.get("error", reply.status_code)),
                                 reply.status_code, key, params, wait)
            raise LinkError(str(answer.get("error", reply.status_code)), reply.status_code,
                            key, params)
        if signed and not authentic:
            raise LinkError("the answer is not signed by the scorer", reply.status_code,
                            "sync.unsigned-answer")
        return answer

    def _peer_certificate(self) -> bytes | None:
        """The certificate (DER) the last answer came over (None: not over TLS)."""
        reply = getattr(self, "last_reply", None)
        stream = reply.extensions.get("network_stream") if reply is not None else None
        tls = stream.get_extra_info("ssl_object") if stream is not None else None
        return tls.getpeercert(True) if tls is not None else None

    def pair(self, code: str, table: int, device: str, rulesets: dict[str, str]
             ) -> Credential:
        """Pair `table` with the head referee's `code` (PAKE: the code never crosses the
        wire). Raises LinkError: a wrong or burnt code, another ruleset copy, or a peer that
        is not the scorer the code belongs to."""
        if not self.injected and not self.url.startswith("https://"):
            raise LinkError("the scorer is reached over https only", None, "sync.not-https")
        kiosk = KioskPairing(code, table, device)
        start = self._request("POST", "/api/pair/start", dumps(
            {"table": table, "device": device, "message": kiosk.message,
             "rulesets": rulesets}), signed=False)
        seen = [self._peer_certificate()]
        try:
            proof = kiosk.confirm(start.get("message"), str(start.get("session", "")))
        except WireError as exc:
            raise LinkError(str(exc), 200, "sync.pair-garbled") from None
        finish = self._request("POST", "/api/pair/finish", dumps(
            {"session": start.get("session"), "confirm": proof}), signed=False)
        try:
            payload = kiosk.open(finish)
        except WireError as exc:
            raise LinkError(str(exc), 200, exc.key or "sync.pair-impostor") from None
        if payload.get("table") != table or not isinstance(payload.get("secret"), str):
            raise LinkError("the pairing answer is garbled", 200, "sync.pair-garbled")
        seen.append(self._peer_certificate())
        certificate = ""
        if any(seen):
            if {hashlib.sha256(d).hexdigest() if d else None for d in seen} != \
                    {payload.get("certificate")}:
                # A relay: the PAKE reached the real scorer, this connection did not.
                raise LinkError("the certificate on this connection is not the one the "
                                "scorer vouched for", 200, "sync.pair-impostor")
            der = seen[-1]
            if der is None:  # (a relay on one of the two connections: refused above)
                raise LinkError("no certificate on this connection", 200, "sync.pair-impostor")
            certificate = ssl.DER_cert_to_PEM_cert(der)
        self.credential = Credential(self.url, table, payload["secret"], certificate)
        if not self.injected:  # from now on, that certificate only
            self.client.close()
            self.client = self._client()
        return self.credential

    def send(self, events: list[dict[str, Any]], behind: int,
             head: tuple[int, str] | None = None) -> dict[str, Any]:
        """Send a batch; the answer has the scorer's high-water mark for this table. `head`:
        this journal's last (seq, hash), which the scorer checks against its record."""
        assert self.credential is not None
        batch: dict[str, Any] = {"v": WIRE_VERSION, "events": events, "behind": behind}
        if head is not None:
            batch["head"] = {"seq": head[0], "hash": head[1]}
        if self.report is not None:
            batch["kiosk"] = self.report(self.offset)
        return self._request("POST", f"/api/tables/{self.credential.table}/events",
                             dumps(batch))

    def assignment(self) -> dict[str, Any]:
        assert self.credential is not None
        return self._request("GET", f"/api/tables/{self.credential.table}/assignment")

    def download(self) -> list[dict[str, Any]]:
        """Every event the scorer has for this table (a replacement kiosk starts from them)."""
        assert self.credential is not None
        return list(self._request("GET", f"/api/tables/{self.credential.table}/journal")
                    ["events"])

    def close(self) -> None:
        self.client.close()


def _words(key: Any, params: Any, status: int) -> tuple[str, dict[str, Any]]:
    """The catalog key and parameters of a refusal, when they are ones this kiosk can say;
    else the generic refusal with its status."""
    if isinstance(key, str) and isinstance(params, dict) and key in catalog("en"):
        wanted = {name for _, name, _, _ in string.Formatter().parse(catalog("en")[key])
                  if name}
        if wanted <= set(params) and all(isinstance(params[n], str | int | float)
                                         for n in wanted):
            return key, {n: params[n] for n in wanted}
    return "sync.refused", {"status": status}
