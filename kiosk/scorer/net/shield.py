"""The scorer's defences below the app: connection caps, the TLS handshake, slow or oversized
request heads, and the security headers of every answer.

`GuardedConnection` is what uvicorn creates for each TCP connection. Before TLS begins it
counts the connection against a cap per source address and a cap for everyone (a laptop
opening a thousand idle sockets is turned away at once, and the scorer never runs out of
file descriptors). When every place is taken, the oldest connection still in its TLS
handshake makes room: idle sockets from many machines cannot lock a kiosk out. Then it does
the TLS handshake itself, with a timeout, and hands the decrypted stream to uvicorn's HTTP
protocol (`GuardedHttp`), which must receive a whole request head of at most MAX_HEAD bytes
(counted as it is parsed, however it arrives) within HEAD_TIMEOUT of the connection or of the
previous answer, and then the whole body within BODY_TIMEOUT, whatever the route (408).

Forwarded headers (X-Forwarded-For, -Proto) are believed from no one unless a proxy is named
(`server.server_for`): a laptop cannot claim other addresses to escape the limits per
address, nor plain HTTP to get a session cookie without Secure.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from asyncio import sslproto
from collections import Counter
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

PER_SOURCE = 64  # open connections from one address (a browser opens about 6)
HANDSHAKE_TIMEOUT = 10  # seconds for a TLS handshake
HEAD_TIMEOUT = 10.0  # seconds for a whole request head
MAX_HEAD = 32_000  # bytes of a request head
BODY_TIMEOUT = 15.0  # seconds to send a body once its head is in
ARRIVED = "kiosk80.arrived"  # the scope's key for the loop's time when the head was in


class Gate:
    """Open connections, per source address and in all; and those still in their handshake,
    oldest first, each with the way to end it."""

    def __init__(self, per_source: int, total: int) -> None:
        self.per_source, self.total = per_source, total
        self.open: Counter[str] = Counter()
        self.count = 0
        self.shaking: dict[object, Callable[[], None]] = {}  # (insertion order: oldest first)

    def admit(self, source: str) -> bool:
        if self.open[source] >= self.per_source:
            return False
        if self.count >= self.total and self.shaking:  # the oldest stranger makes room
            oldest = next(iter(self.shaking))
            self.shaking.pop(oldest)()
        if self.count >= self.total:
            return False
        self.open[source] += 1
        self.count += 1
        return True

    def leave(self, source: str) -> None:
        self.count -= 1
        self.open[source] -= 1
        if self.open[source] <= 0:
            del self.open[source]


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol with a deadline and a size cap on each request head, and its
    answer to bytes that are no HTTP request in the scorer's words."""

    not_http = "请求的格式不对。"  # (`guarded` sets the scorer's language's web.http.400)
    too_large = "请求头太大。"  # (… web.http.431)
    too_slow = "请求传得太慢。"  # (… web.http.408)

    def send_400_response(self, msg: str) -> None:
        # uvicorn's own answer is its English `msg` ("Invalid HTTP request received."), sent
        # before any request (and its Accept-Language) could be read: the same plain-text
        # answer, in the words of the scorer's language.
        if self._head_bytes > MAX_HEAD:  # (the parser stopped at our word: see `_count`)
            self._plain(431, self.too_large)
        else:
            self._plain(400, self.not_http)

    def _plain(self, status: int, words: str) -> None:
        """A plain-text answer in the scorer's words, and the connection closed."""
        body = words.encode()
        head = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [b"content-type: text/plain; charset=utf-8\r\n",
                 b"content-length: %d\r\n" % len(body), b"connection: close\r\n", b"\r\n"]
        self.transport.write(b"".join(head) + body)
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head: asyncio.TimerHandle | None = None
        self._body: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._arm()

    def _arm(self) -> None:
        self._head_bytes = 0
        self._head = self.loop.call_later(HEAD_TIMEOUT, self._too_slow)

    def _too_slow(self) -> None:
        self._head = None
        if not self.transport.is_closing():
            self.transport.close()

    def _body_too_slow(self) -> None:
        """The body did not come within BODY_TIMEOUT: 408 if nothing was answered yet."""
        self._body = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_started:
            # Answered here: the route still waiting for the body is told the client has
            # gone, and what it answers then is dropped (not an error of the app's).
            self.cycle.response_started = self.cycle.response_complete = True
            self.cycle.disconnected = True
            self.cycle.message_event.set()
            self._plain(408, self.too_slow)
        else:
            self.transport.close()

    def _count(self, size: int) -> None:
        """Bytes of the head parsed so far; past MAX_HEAD the parser stops (431)."""
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD:
            raise ValueError("request head too large")

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self._head is not None:
            self._head.cancel()
            self._head = None
        self.scope[ARRIVED] = self.loop.time()  # type: ignore[literal-required]
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.more_body and self._has_body():
            self._body = self.loop.call_later(BODY_TIMEOUT, self._body_too_slow)

    def _has_body(self) -> bool:
        for name, value in self.headers:
            if name == b"transfer-encoding" or (name == b"content-length" and
                                                value.strip() not in (b"0", b"")):
                return True
        return False

    def on_message_complete(self) -> None:
        if self._body is not None:
            self._body.cancel()
            self._body = None
        super().on_message_complete()

    def on_response_complete(self) -> None:
        unread = self.cycle is not None and self.cycle.more_body
        super().on_response_complete()
        if unread and not self.transport.is_closing():  # answered before its body was in
            self.transport.close()  # (a refused upload is not read to its end)
        elif not self.transport.is_closing() and self._head is None:
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._head, self._body):
            if timer is not None:
                timer.cancel()
        self._head = self._body = None
        super().connection_lost(exc)


class _SmallBufferTLS(sslproto.SSLProtocol):
    max_size = 16 * 1024  # bytes read from the socket at once (a TLS record)


class OneSendATurn:
    """A connection's transport whose writes within one turn of the event loop leave
    together: uvicorn writes an answer's head and its body apart, and on a TLS connection
    each write is a record and a system call of its own (with the interpreter's lock let go
    and taken back), twice an answer."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport, self._loop = transport, loop
        self._pending: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self._flush)
        self._pending.append(bytes(data))  # (a copy, as a transport's write makes)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def _flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            self._transport.write(data)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending.clear()
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(map(len, self._pending))

    def __getattr__(self, name: str) -> Any:  # is_closing, pause_reading, get_extra_info…
        return getattr(self._transport, name)


def guarded(gate: Gate, context: ssl.SSLContext | None,
            not_http: str = GuardedHttp.not_http, too_large: str = GuardedHttp.too_large,
            too_slow: str = GuardedHttp.too_slow) -> type[asyncio.Protocol]:
    """The protocol class uvicorn should make for each connection (`Config(http=…)`);
    `not_http` answers bytes that are no HTTP request, `too_large` a head over MAX_HEAD,
    `too_slow` a body past BODY_TIMEOUT."""

    class GuardedConnection(asyncio.Protocol):
        def __init__(self, config: Any, server_state: Any, app_state: Any,
                     _loop: asyncio.AbstractEventLoop | None = None) -> None:
            self.loop = _loop or asyncio.get_event_loop()
            self.http = GuardedHttp(config=config, server_state=server_state,
                                    app_state=app_state, _loop=self.loop)
            self.http.not_http, self.http.too_large = not_http, too_large
            self.http.too_slow = too_slow
            self.source: str | None = None
            self.started = False
            self.early: list[bytes] = []  # decrypted before the handshake's waiter woke us

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            peer = transport.get_extra_info("peername")
            source = str(peer[0]) if peer else "?"
            if not gate.admit(source):
                transport.abort()
                return
            self.source = source
            if context is None:
                self._start(transport)
                return
            transport.pause_reading()  # the ClientHello waits for start_tls
            gate.shaking[self] = lambda: self._evict(transport)  # (until its handshake ends)
            self.loop.create_task(self._handshake(transport))

        async def _handshake(self, transport: asyncio.Transport) -> None:
            assert context is not None
            # loop.start_tls, with a protocol whose read buffer is small (asyncio's own keeps
            # 256 KB a connection: 60 MB for a few hundred idle phones and laptops).
            waiter = self.loop.create_future()
            tls = _SmallBufferTLS(self.loop, self, context, waiter, server_side=True,
                                  ssl_handshake_timeout=HANDSHAKE_TIMEOUT,
                                  ssl_shutdown_timeout=2.0, call_connection_made=False)
            transport.set_protocol(tls)
            self.loop.call_soon(tls.connection_made, transport)
            self.loop.call_soon(transport.resume_reading)
            try:
                await waiter
            except (OSError, ssl.SSLError, TimeoutError, ConnectionError, RuntimeError):
                transport.abort()
                self._leave()
                return
            gate.shaking.pop(self, None)
            if self.source is None:  # (made room for a newer one meanwhile)
                return
            self._start(tls._app_transport)

        def _start(self, transport: asyncio.Transport) -> None:
            self.started = True
            self.http.connection_made(OneSendATurn(transport, self.loop))  # type: ignore[arg-type]
            for data in self.early:
                self.http.data_received(data)
            self.early.clear()

        def _evict(self, transport: asyncio.Transport) -> None:
            """Make room for a newer connection: this one's place is free at once."""
            self._leave()
            transport.abort()

        def _leave(self) -> None:
            gate.shaking.pop(self, None)
            if self.source is not None:
                gate.leave(self.source)
                self.source = None

        def data_received(self, data: bytes) -> None:
            if self.started:
                self.http.data_received(data)
            elif len(self.early) < 64:  # (a request sent with the handshake's last flight)
                self.early.append(data)

        def eof_received(self) -> bool | None:
            if self.started:
                self.http.eof_received()
            return None

        def connection_lost(self, exc: Exception | None) -> None:
            self._leave()
            if self.started:
                self.http.connection_lost(exc)

        def pause_writing(self) -> None:
            if self.started:
                self.http.pause_writing()

        def resume_writing(self) -> None:
            if self.started:
                self.http.resume_writing()

    return GuardedConnection


# -- security headers -----------------------------------------------------------------------

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
       "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
       "form-action 'self'")
ALWAYS = [(b"content-security-policy", CSP.encode()), (b"x-frame-options", b"DENY"),
          (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]
PRIVATE = ("/admin", "/api/tables/", "/api/pair")  # answers no cache may keep


class SecurityHeaders:
    """ASGI middleware: every answer forbids framing, sniffing and foreign scripts; the admin
    pages' and the tables' answers are never cached. An answer given before the request's body
    was read to its end (a refusal: too many logins, too large) says `Connection: close`: the
    connection ends after it (`GuardedHttp.on_response_complete`), and a client told so opens
    a new one for its next request instead of sending it down one that is closing."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        private = scope["path"].startswith(PRIVATE)
        unread = [any(name in (b"content-length", b"transfer-encoding") and value != b"0"
                      for name, value in scope["headers"])]

        async def read(*args: Any) -> Any:
            message = await receive(*args)
            if message["type"] == "http.request" and not message.get("more_body"):
                unread[0] = False
            return message

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", [])
                           if not (private and h[0].lower() == b"cache-control")]
                headers += ALWAYS
                if private:
                    headers.append((b"cache-control", b"no-store"))
                if unread[0]:
                    headers.append((b"connection", b"close"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, read if unread[0] else receive, send_with_headers)


def raise_file_limit(wanted: int = 65536) -> int:
    """Lift this process's open-file limit toward `wanted` (as far as the hard limit allows);
    returns the limit in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def return_large_blocks() -> None:
    """Have glibc give large freed blocks (a password hash's 16 MB) back to the system at
    once, rather than keep them in the heap after the first (its default)."""
    import ctypes
    import ctypes.util

    with contextlib.suppress(OSError, AttributeError, TypeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD: fixed, so never raised
