"""The scorer's connections send what one turn of the event loop wrote in one piece (an
answer's head and body: one TLS record, one system call), in order, and what is pending
before they close."""

from __future__ import annotations

import asyncio

import pytest

from kiosk.scorer.net.shield import OneSendATurn


async def _connected() -> tuple[asyncio.Transport, list[bytes], asyncio.StreamReader,
                                asyncio.AbstractServer]:
    """A real loopback TCP connection: our transport, the writes that reached it, and the
    peer's reader."""
    accepted: asyncio.Queue[asyncio.StreamReader] = asyncio.Queue()

    async def peer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put(reader)

    server = await asyncio.start_server(peer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    transport, _ = await asyncio.get_running_loop().create_connection(
        asyncio.Protocol, "127.0.0.1", port)
    writes: list[bytes] = []
    send = transport.write

    def counted(data: bytes) -> None:
        writes.append(bytes(data))
        send(data)

    transport.write = counted  # type: ignore[method-assign]  # (the real one still sends)
    return transport, writes, await accepted.get(), server


@pytest.mark.process
def test_one_turns_writes_leave_in_one_send_in_order_and_close_sends_what_is_pending():
    async def scenario() -> None:
        transport, writes, reader, server = await _connected()
        loop = asyncio.get_running_loop()
        batched = OneSendATurn(transport, loop)
        batched.write(b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\n")
        batched.write(bytearray(b"body"))
        assert writes == [] and batched.get_write_buffer_size() >= 42  # not yet: this turn
        await asyncio.sleep(0)
        assert writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nbody"]
        assert await reader.readexactly(42) == writes[0]
        batched.writelines([b"last ", b"words"])
        batched.close()  # in the same turn: sent first, then the connection ends
        assert writes[1:] == [b"last words"] and batched.is_closing()
        assert await reader.read() == b"last words"  # … and then the end of the stream
        server.close()
        await server.wait_closed()

    asyncio.run(scenario())


@pytest.mark.process
def test_an_aborted_connection_drops_what_is_pending():
    async def scenario() -> None:
        transport, writes, reader, server = await _connected()
        batched = OneSendATurn(transport, asyncio.get_running_loop())
        batched.write(b"never sent")
        batched.abort()
        await asyncio.sleep(0)
        try:
            rest = await reader.read()
        except ConnectionResetError:  # (an abort resets the connection)
            rest = b""
        assert writes == [] and rest == b""
        server.close()
        await server.wait_closed()

    asyncio.run(scenario())
