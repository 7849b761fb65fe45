"""A lean HTTP/1.1 client for the scorer benchmarks' simulated kiosks (not a benchmark).

One keep-alive connection per table, from the table's own address, over asyncio streams:
httpx spends about 1.2 ms of CPU a request, more than the scorer itself spends answering a
small batch, and the load generator shares this machine's cores with the scorer. This client
only writes a request and reads the status line, the headers and a Content-Length body (the
scorer's API answers never stream). A dropped connection is opened again for the next request.
"""

from __future__ import annotations

import asyncio
import ssl


class ConnectionLost(OSError):
    """The scorer closed the connection or did not answer in time."""


class KioskClient:
    def __init__(self, host: str, port: int, source: str, tls: ssl.SSLContext | None,
                 timeout: float = 120.0) -> None:
        self.host, self.port, self.source, self.tls = host, port, source, tls
        self.timeout = timeout
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.retry_after = 0.0  # the last answer's Retry-After (seconds), 0 without one

    async def request(self, method: str, path: str, body: bytes = b"",
                      headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """The answer's status and body. Raises ConnectionLost."""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        message = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        try:
            return await asyncio.wait_for(self._exchange(message), self.timeout)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self.close()
            raise ConnectionLost(f"{type(exc).__name__}: {exc}") from None

    async def _exchange(self, message: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                self.host, self.port, ssl=self.tls, local_addr=(self.source, 0),
                server_hostname="scorer" if self.tls else None)
        assert self.reader is not None
        self.writer.write(message)
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        length, keep = 0, True
        self.retry_after = 0.0
        for line in (await self.reader.readuntil(b"\r\n\r\n")).split(b"\r\n"):
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"retry-after":
                self.retry_after = float(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                keep = False
        body = await self.reader.readexactly(length)
        if not keep:
            self.close()
        return status, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None
