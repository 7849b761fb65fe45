"""kiosk.fleet.watchdog against a real AF_UNIX datagram socket standing in for systemd."""

from __future__ import annotations

import os
import socket
import uuid

import pytest

from kiosk.fleet.watchdog import Watchdog, notify


def received(sock: socket.socket) -> list[str]:
    """Every datagram waiting on the socket, without blocking."""
    out = []
    while True:
        try:
            out.append(sock.recv(4096).decode())
        except BlockingIOError:
            return out


@pytest.fixture
def systemd(tmp_path, monkeypatch):
    """A socket bound in tmp_path, named in $NOTIFY_SOCKET as systemd would."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    yield sock
    sock.close()


@pytest.mark.process
def test_notify_sends_the_message(systemd):
    assert notify("READY=1") is True
    assert received(systemd) == ["READY=1"]


@pytest.mark.unit
def test_not_under_systemd_nothing_is_sent_and_nothing_fails(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    dog = Watchdog()
    assert (notify("READY=1"), dog.ready(), dog.ping()) == (False, False, False)


@pytest.mark.unit
def test_a_socket_that_is_gone_is_false_not_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    assert notify("WATCHDOG=1") is False


@pytest.mark.process
def test_abstract_socket(monkeypatch):
    name = f"kiosk-test-{os.getpid()}-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.setblocking(False)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert Watchdog().ready() is True
        assert received(sock) == ["READY=1"]


@pytest.mark.process
def test_ping_is_rate_limited_to_half_the_watchdog_interval(systemd, monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")  # WatchdogSec=10
    now = [100.0]
    dog = Watchdog(clock=lambda: now[0])
    assert dog.interval == 5.0
    sent = []
    for t in (100.0, 101.0, 104.9, 105.0, 109.9, 110.0):
        now[0] = t
        sent.append(dog.ping())
    assert sent == [True, False, False, True, False, True]
    assert received(systemd) == ["WATCHDOG=1"] * 3


@pytest.mark.process
def test_without_watchdog_usec_every_ping_is_sent(systemd):
    dog = Watchdog(clock=lambda: 0.0)
    assert dog.interval == 0.0
    assert [dog.ready(), dog.ping(), dog.ping()] == [True, True, True]
    assert received(systemd) == ["READY=1", "WATCHDOG=1", "WATCHDOG=1"]


@pytest.mark.process
@pytest.mark.parametrize("value", ["", "soon", "-5", "0"])
def test_an_odd_watchdog_usec_means_no_rate_limit(systemd, monkeypatch, value):
    monkeypatch.setenv("WATCHDOG_USEC", value)
    assert Watchdog().interval == 0.0
