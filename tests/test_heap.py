"""The scorer's garbage collection while it serves (kiosk/scorer/net/heap.py): only its own
settles collect, what lived is frozen out of their walk, garbage is still freed, a cycle among
frozen objects waits only for the sweep, and everything is back in the collector's sight (and
its own collections on) when the server stops."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from kiosk.scorer.net import heap
from kiosk.scorer.web.app import create_app

from .hall_events import hall


class Part:
    """A connection's part: it points at another, as a closed connection's parts do."""

    other: Part | None = None


def pair() -> tuple[Part, weakref.ref[Part]]:
    a, b = Part(), Part()
    a.other, b.other = b, a
    return a, weakref.ref(b)


def walked(thing: object) -> bool:
    """Whether a full collection walks `thing` (the frozen are not in gc.get_objects)."""
    return any(o is thing for o in gc.get_objects())


def frozen(thing: object) -> bool:
    return not walked(thing)


@pytest.fixture(autouse=True)
def thawed():
    yield
    heap.thaw()


@pytest.mark.unit
def test_settle_frees_the_garbage_and_freezes_what_lives():
    kept, _ = pair()
    garbage, gone = pair()
    del garbage
    heap.settle()
    assert gone() is None  # collected before the freeze
    assert not walked(kept)  # frozen: a full collection no longer walks it
    heap.thaw()
    assert walked(kept)


@pytest.mark.unit
def test_a_cycle_among_frozen_objects_is_freed_by_the_sweep():
    first, gone = pair()
    heap.settle()
    del first  # the cycle is garbage now, but frozen
    gc.collect()
    assert gone() is not None  # a full collection does not see it …
    heap.sweep()
    assert gone() is None  # … the sweep does


@pytest.mark.unit
def test_nothing_is_collected_from_the_start_until_the_thaw_but_by_settling():
    collections = gc.get_stats()[0]["collections"]
    with heap.starting():
        made = [pair()[0] for _ in range(5 * gc.get_threshold()[0])]  # would set off several
    assert not walked(made[0])  # what starting made is frozen
    served = [pair()[0] for _ in range(5 * gc.get_threshold()[0])]  # (serving)
    assert gc.get_stats()[0]["collections"] == collections
    garbage, gone = pair()
    del garbage
    assert gone() is not None  # a cycle waits for the settle …
    heap.settle()
    assert gone() is None  # … which frees it
    assert not walked(served[0])
    heap.thaw()
    assert gc.isenabled()


@pytest.mark.unit
def test_the_collector_comes_back_when_starting_fails():
    with pytest.raises(RuntimeError), heap.starting():
        raise RuntimeError("the checkpoint could not be read")
    assert gc.isenabled()


def soon(client: TestClient, condition: Callable[..., bool], *args: object,
         within: float = 10.0) -> bool:
    """Whether `condition(*args)` holds within `within` seconds of the server's loop running
    (a busy machine may run its timers late)."""
    deadline = time.monotonic() + within
    while not condition(*args):
        if time.monotonic() > deadline:
            return False
        client.portal.call(asyncio.sleep, 0.05)
    return True


@pytest.mark.process
def test_the_server_settles_and_sweeps_on_its_own_and_thaws_when_it_stops(
        tmp_path, monkeypatch):
    monkeypatch.setattr(heap, "SETTLE_EVERY", 0.05)
    monkeypatch.setattr(heap, "SWEEP_EVERY", 0.3)
    director = hall(tmp_path)
    with TestClient(create_app(director)) as client:
        assert client.get("/api/hall").status_code == 200
        first, gone = pair()
        assert walked(first)
        assert soon(client, frozen, first)  # a settle froze it
        del first  # garbage among the frozen: freed by the next sweep
        assert soon(client, lambda: gone() is None)
        kept, _ = pair()
        assert soon(client, frozen, kept)
        assert not gc.isenabled()  # its settles are the only collections while it serves
    assert walked(kept)  # the server stopped: nothing stays frozen
    assert gc.isenabled()
    director.store.close()
