"""Many simulated kiosks in one asyncio loop, over real sockets to a real scorer: each its own
TLS connection from its own loopback address, pairing with the table's code (the PAKE) and
sending its journal as the kiosk's outbox does (the batch after the scorer's high-water mark,
`kiosk.sync.outbox.next_wait` after a refusal, the link's own timeout). Not a test: the tests
of the hall at full size use it."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import ssl
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kiosk.errors import LinkError
from kiosk.protocol.pairing import KioskPairing
from kiosk.protocol.wire import WIRE_VERSION, event_hash, signed_headers
from kiosk.sync.link import ScorerBusy
from kiosk.sync.outbox import next_wait

TIMEOUT = 5.0  # seconds: ScorerLink's own


#: What `Kiosk.request` raises when no answer came (in TIMEOUT, or a broken one).
NO_ANSWER = (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError)


def address(table: int) -> str:
    return f"127.2.{table // 250}.{table % 250 + 1}"


def journal(device: str, table: int, count: int) -> list[dict[str, Any]]:
    """`count` chained events of a table's kiosk."""
    events, prev = [], ""
    for seq in range(1, count + 1):
        e = {"device": device, "seq": seq, "match": "practice", "kind": "press",
             "data": {"seat": "NESW"[seq % 4], "table": table}, "mono": 100.0 + seq,
             "wall": time.time(), "actor": "seat", "prev": prev}
        prev = event_hash(e)
        events.append(e)
    return events


@dataclass
class Kiosk:
    table: int
    port: int
    secret: str = ""
    statuses: Counter[int] = field(default_factory=Counter)
    timeouts: int = 0
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes = b"",
                      headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        """(status, headers, JSON body); a connection that fails is opened again next time.
        Raises OSError or TimeoutError (after TIMEOUT, as the link's client does)."""
        try:
            return await asyncio.wait_for(self._exchange(method, path, body, headers or {}),
                                          TIMEOUT)
        except NO_ANSWER:
            self.close()
            raise

    async def _exchange(self, method: str, path: str, body: bytes, headers: dict[str, str]
                        ) -> tuple[int, dict[str, str], Any]:
        if self.writer is None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            self.reader, self.writer = await asyncio.open_connection(
                "127.0.0.1", self.port, ssl=context, local_addr=(address(self.table), 0),
                server_hostname="scorer")
        assert self.reader is not None
        head = [f"{method} {path} HTTP/1.1", "Host: scorer", f"Content-Length: {len(body)}",
                "Content-Type: application/json", *(f"{k}: {v}" for k, v in headers.items())]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        status = int((await self.reader.readuntil(b"\r\n")).split()[1])
        found: dict[str, str] = {}
        for line in (await self.reader.readuntil(b"\r\n\r\n")).decode().split("\r\n"):
            name, _, value = line.partition(":")
            if name:
                found[name.strip().lower()] = value.strip()
        raw = await self.reader.readexactly(int(found.get("content-length", "0")))
        if found.get("connection") == "close":
            self.close()
        self.statuses[status] += 1
        return status, found, json.loads(raw) if raw else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def pair(self, code: str, rulesets: dict[str, str]) -> None:
        """Pair with the head referee's code, trying again while the scorer says to wait."""
        device = f"loop-{self.table}"
        while True:
            kiosk = KioskPairing(code, self.table, device)
            try:
                status, headers, body = await self.request("POST", "/api/pair/start", json.dumps(
                    {"table": self.table, "device": device, "message": kiosk.message,
                     "rulesets": rulesets}).encode())
            except NO_ANSWER:
                self.timeouts += 1  # no answer in time: the technician tries again
                await asyncio.sleep(random.uniform(1, 2))
                continue
            if status in (429, 503):
                await asyncio.sleep(float(headers.get("retry-after", "1")) *
                                    random.uniform(1, 2))
                continue
            if status != 200:
                raise RuntimeError(f"table {self.table}: pairing started with {status} {body}")
            proof = kiosk.confirm(body["message"], body["session"])
            status, _, finish = await self.request("POST", "/api/pair/finish", json.dumps(
                {"session": body["session"], "confirm": proof}).encode())
            if status != 200:
                raise RuntimeError(f"table {self.table}: pairing ended with {status} {finish}")
            self.secret = kiosk.open(finish)["secret"]
            return

    async def send(self, events: list[dict[str, Any]], behind: int) -> tuple[int, Any, float]:
        """One signed batch: (status, answer, Retry-After seconds or 0)."""
        path = f"/api/tables/{self.table}/events"
        body = json.dumps({"v": WIRE_VERSION, "events": events, "behind": behind}).encode()
        headers = signed_headers(self.secret, self.table, "POST", path, body, time.time(),
                                 secrets.token_hex(12))
        status, found, answer = await self.request("POST", path, body, headers)
        return status, answer, float(found.get("retry-after", "0"))

    async def sync(self, events: list[dict[str, Any]], batch: int, rng: random.Random,
                   deadline: float) -> int:
        """Send `events` as the outbox does until the scorer holds them all (or `deadline`):
        the scorer's high-water mark at the end."""
        acked, delay = 0, 0.0
        while acked < len(events) and time.monotonic() < deadline:
            chunk = events[acked:acked + batch]
            try:
                status, answer, retry = await self.send(chunk, len(events) - acked - len(chunk))
            except NO_ANSWER:
                self.timeouts += 1
                error: LinkError = LinkError("no answer")
            else:
                if status == 200:
                    acked, delay = int(answer["high_water"]), 0.0
                    continue
                error = ScorerBusy("busy", 503, "wire.busy", {}, retry) if status == 503 and \
                    retry else LinkError(str(answer), status)
            delay, wait = next_wait(delay, error, rng)
            await asyncio.sleep(wait)
        return acked
