"""The kiosk's side of the LAN: pairing with the scorer and its signed requests.

The credential (scorer URL, table, secret) is kept next to the journal, written atomically, so
a restarted kiosk needs no new code. Every answer carries the scorer's time; the link measures
the offset of this machine's wall clock from it (half the round trip taken as the delay), and
signs with the scorer's time, so a kiosk whose clock is not yet synchronised still gets in.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ..scorer.sync import signed_headers

SYNCED_WITHIN = 0.5  # seconds: a wall clock this close to the scorer's counts as synchronised


class LinkError(Exception):
    """The scorer refused a request (the message is its answer) or cannot be reached."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # None: no answer at all


@dataclass(frozen=True)
class Credential:
    url: str
    table: int
    secret: str

    @staticmethod
    def path(data_dir: str | Path, table: int) -> Path:
        return Path(data_dir) / f"scorer-table-{table}.json"

    @classmethod
    def load(cls, data_dir: str | Path, table: int) -> Credential | None:
        path = cls.path(data_dir, table)
        if not path.exists():
            return None
        raw = json.loads(path.read_text())
        return cls(raw["url"], int(raw["table"]), raw["secret"])

    def save(self, data_dir: str | Path) -> None:
        path = self.path(data_dir, self.table)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w") as f:
            json.dump({"url": self.url, "table": self.table, "secret": self.secret}, f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)


class ScorerLink:
    """Requests to the scorer for one table. `client`: an httpx.Client (a Starlette TestClient
    in tests); its base URL is the scorer's."""

    def __init__(self, url: str, client: httpx.Client | None = None,
                 credential: Credential | None = None, timeout: float = 5.0) -> None:
        self.url = url.rstrip("/")
        self.client = client or httpx.Client(timeout=timeout)
        self.credential = credential
        self.offset: float | None = None  # scorer wall time minus ours, once measured
        # The kiosk's version, health and offset sent with each batch (kiosk/fleet/status.py).
        self.report: Callable[[float | None], dict[str, Any]] | None = None
        self._samples: deque[tuple[float, float]] = deque(maxlen=16)  # (round trip, offset)

    @property
    def synchronised(self) -> bool | None:
        return None if self.offset is None else abs(self.offset) <= SYNCED_WITHIN

    def scorer_time(self) -> float:
        return time.time() + (self.offset or 0.0)

    def _request(self, method: str, path: str, body: bytes = b"", signed: bool = True
                 ) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if signed:
            if self.credential is None:
                raise LinkError("this kiosk is not paired with the scorer")
            headers |= signed_headers(self.credential.secret, self.credential.table, method,
                                      path, body, self.scorer_time(), secrets.token_hex(12))
        sent = time.time()
        try:
            reply = self.client.request(method, self.url + path, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise LinkError(f"the scorer does not answer: {exc}") from None
        received = time.time()
        try:
            answer = reply.json()
        except ValueError:
            raise LinkError(f"the scorer answered {reply.status_code} without JSON",
                            reply.status_code) from None
        if isinstance(answer, dict) and isinstance(answer.get("now"), int | float):
            # The quickest of the recent round trips says the most about the offset.
            self._samples.append((received - sent, float(answer["now"]) - (sent + received) / 2))
            self.offset = min(self._samples)[1]
        if reply.status_code != 200:
            raise LinkError(str(answer.get("error", reply.status_code)), reply.status_code)
        return dict(answer)

    def pair(self, code: str, device: str, rulesets: dict[str, str]) -> Credential:
        body = json.dumps({"code": code, "device": device, "rulesets": rulesets}).encode()
        answer = self._request("POST", "/api/pair", body, signed=False)
        self.credential = Credential(self.url, int(answer["table"]), answer["secret"])
        return self.credential

    def send(self, events: list[dict[str, Any]], behind: int) -> dict[str, Any]:
        """Send a batch; the answer has the scorer's high-water mark for this table."""
        assert self.credential is not None
        batch: dict[str, Any] = {"events": events, "behind": behind}
        if self.report is not None:
            batch["kiosk"] = self.report(self.offset)
        body = json.dumps(batch, ensure_ascii=False).encode()
        return self._request("POST", f"/api/tables/{self.credential.table}/events", body)

    def assignment(self) -> dict[str, Any]:
        assert self.credential is not None
        return self._request("GET", f"/api/tables/{self.credential.table}/assignment")

    def download(self) -> list[dict[str, Any]]:
        """Every event the scorer has for this table (a replacement kiosk starts from them)."""
        assert self.credential is not None
        return list(self._request("GET", f"/api/tables/{self.credential.table}/journal")
                    ["events"])
