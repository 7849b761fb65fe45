"""The kiosks' batches checked in a process of their own (`kiosk/scorer/checker.py`), as the
real server runs it: the child's answer is the one the server would make itself, refusals and
all; a small batch, or any batch while no child runs, is checked in the server; a killed child
is replaced and the batches keep being answered meanwhile; a child is killed without asyncio
being robbed of its end."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from kiosk.errors import WireError
from kiosk.scorer.checker import SENT_FROM, Checker, check
from kiosk.scorer.director import Director
from kiosk.scorer.pipes import kill
from kiosk.scorer.store.database import Store, rows_of
from kiosk.scorer.web.app import create_app
from kiosk.sync.link import ScorerLink

from .browser import serve
from .hall_events import RULESETS, recorded
from .helpers import children_running

pytestmark = pytest.mark.process
REPORT = {"version": "0.2.0", "health": ["disk_low"], "offset": 0.25}


def body(events: list[dict[str, Any]], **more: Any) -> bytes:
    return json.dumps({"v": 2, "events": events, "behind": 3, "kiosk": REPORT, **more},
                      ensure_ascii=False).encode()


def hand() -> list[dict[str, Any]]:
    """A recorded match's first 60 events: a batch well past SENT_FROM."""
    return [dict(e) for e in recorded(1)[:60]]


async def until(check_: Callable[[], Any], what: str, within: float = 60.0) -> Any:
    """`check_()`'s first true value (a child starts on its own time: waited for)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        found = check_()
        if found:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"never: {what}")


def with_child(scenario: Callable[[Checker], Awaitable[None]]) -> None:
    async def run() -> None:
        checker = Checker()
        running = asyncio.create_task(checker.run())
        try:
            await until(checker.pid, "the child started")
            await scenario(checker)
        finally:
            await checker.stop()
            await asyncio.wait_for(running, 30)
    asyncio.run(run())


def refusal(raw: bytes) -> tuple[str | None, dict[str, Any]]:
    with pytest.raises(WireError) as refused:
        check(raw, 1)
    return refused.value.key, refused.value.params


def test_the_child_answers_as_the_server_would_and_refuses_as_it_would():
    events = hand()
    good = body(events, head={"seq": 60, "hash": "ab" * 32})
    assert len(good) >= SENT_FROM
    broken = [dict(e) for e in events]
    broken[20]["mono"] = "soon"  # event 20 only: the refusal names it
    far = [dict(e, seq=e["seq"] + (5 if i >= 30 else 0)) for i, e in enumerate(events)]

    async def scenario(checker: Checker) -> None:
        ready = await checker.check(good, 7)
        assert ready == check(good, 7)
        assert ready.rows == rows_of(7, events)  # each event as the store keeps it, sealed
        assert ready.behind == 3 and ready.head == (60, "ab" * 32)
        assert ready.kiosk == ("0.2.0", ("disk_low",), 0.25)  # the kiosk's report, read
        for raw in (body(broken), body(far), body(events, v=9), b"[" * 5000):
            with pytest.raises(WireError) as refused:
                await checker.check(raw, 7)
            assert (refused.value.key, refused.value.params) == refusal(raw)
        assert checker.by_child == 5
        # A heartbeat and a seat's press: checked in the server.
        assert (await checker.check(body([]), 7)).rows == []
        assert len((await checker.check(body(events[:2]), 7)).rows) == 2
        assert checker.by_child == 5

    with_child(scenario)
    assert refusal(body(broken)) == ("wire.times", {"i": 20})


def test_a_child_runs_the_servers_code_whatever_folder_the_server_was_started_in(
        tmp_path, monkeypatch):
    """`python -m` looks in the working directory first: a scorer started in a folder holding
    another `kiosk` (a release unpacked there) had workers that crashed on the server's
    words, one a second, and the hall built on the server's own loop meanwhile."""
    decoy = tmp_path / "kiosk"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise SystemExit('another kiosk')\n")
    monkeypatch.chdir(tmp_path)
    events = hand()
    good = body(events)

    async def scenario(checker: Checker) -> None:
        assert await checker.check(good, 7) == check(good, 7)
        assert checker.by_child == 1  # (checked by the child, not here)

    with_child(scenario)


def test_a_kiosk_report_nested_deep_is_no_report_and_does_not_end_the_child():
    """What a kiosk says of itself is read in the child: a report nested 600 deep (a kiosk's
    secret is all it takes) once ended the child, which could not pickle it back."""
    deep: Any = "x"
    for _ in range(600):
        deep = {"a": deep}
    raw = body(hand(), kiosk={"version": "0.2.0", "health": [], "offset": deep})

    async def scenario(checker: Checker) -> None:
        first = checker.pid()
        ready = await checker.check(raw, 1)
        assert ready.kiosk is None and len(ready.rows) == 60  # the events kept all the same
        assert checker.by_child == 1 and checker.pid() == first

    with_child(scenario)


def test_a_killed_child_is_replaced_and_every_batch_is_answered_meanwhile():
    raw = body(hand())
    wanted = check(raw, 1)

    async def scenario(checker: Checker) -> None:
        assert await checker.check(raw, 1) == wanted
        first = checker.pid()
        os.kill(first, signal.SIGKILL)
        answers = []
        while checker.pid() in (first, None):  # until the next child runs
            answers.append(await checker.check(raw, 1))  # in the server meanwhile
            await asyncio.sleep(0.05)
        assert answers and all(answer == wanted for answer in answers)
        by_child = checker.by_child
        assert await checker.check(raw, 1) == wanted
        assert checker.by_child == by_child + 1  # the new child checked it

    with_child(scenario)


def test_a_burst_of_batches_waits_for_the_child_in_its_pipe_not_in_the_server():
    """A hall's kiosks post together: forty hands' batches (600 KB) sent while the child is
    busy are held by the pipe itself (1 MiB), not by asyncio's transport, which shifts all it
    holds at each write; the child then answers every one."""
    raw = body(hand())
    wanted = check(raw, 1)

    async def scenario(checker: Checker) -> None:
        checker.patience = 60.0
        child = checker.pid()
        await checker.check(raw, 1)  # (the child has set its pipes' size by now)
        os.kill(child, signal.SIGSTOP)  # busy: it reads nothing meanwhile
        try:
            burst = [asyncio.ensure_future(checker.check(raw, 1)) for _ in range(40)]
            await asyncio.sleep(0.05)  # (each batch written to the pipe)
            assert 40 * len(raw) > 500_000
            assert checker._process.stdin.transport.get_write_buffer_size() == 0
        finally:
            os.kill(child, signal.SIGCONT)
        assert await asyncio.gather(*burst) == [wanted] * 40
        assert checker.by_child == 41

    with_child(scenario)


def test_a_stuck_child_holds_no_batch_and_is_replaced():
    raw = body(hand())
    wanted = check(raw, 1)

    async def scenario(checker: Checker) -> None:
        checker.patience = 0.3  # (the server's is 2 s)
        stuck = checker.pid()
        os.kill(stuck, signal.SIGSTOP)  # (alive, answering nothing)
        assert await checker.check(raw, 1) == wanted  # checked here, after its patience
        assert checker.by_child == 0
        await until(lambda: checker.pid() not in (stuck, None), "another child runs")
        checker.patience = 60.0  # (the new child checks the next: however busy the machine)
        assert await checker.check(raw, 1) == wanted
        assert checker.by_child == 1

    with_child(scenario)


def test_a_checker_stopped_while_its_child_starts_ends_that_child():
    """(As when the scorer stops at once: a child still importing has not said it started.)"""
    async def run() -> None:
        checker = Checker()
        running = asyncio.create_task(checker.run())
        while not children_running(os.getpid(), "kiosk.scorer.checker"):
            await asyncio.sleep(0.001)
        assert checker.pid() is None  # (not started yet: takes no batch)
        await checker.stop()
        await asyncio.wait_for(running, 30)
    asyncio.run(run())
    assert children_running(os.getpid(), "kiosk.scorer.checker") == []


def test_killing_a_child_that_just_ended_leaves_its_exit_code_and_says_nothing(caplog):
    """The child's end seen on its pipe before asyncio's watcher reaped it (as when the server
    stops): `process.kill()` reaps it first about one time in seven here, and asyncio then
    reports exit code 255 and writes an English warning on the scorer's terminal."""
    async def ended_then_killed() -> int:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-S", "-c", "import sys; sys.stdin.read()",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        await process.stdout.read()  # its end, seen on the pipe
        kill(process)
        return await process.wait()

    async def twenty() -> list[int]:
        return [await ended_then_killed() for _ in range(20)]

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        codes = asyncio.run(twenty())
    assert codes == [0] * 20
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def test_a_hand_s_batch_over_the_wire_is_checked_by_the_child_and_stored(tmp_path):
    director = Director(Store(tmp_path / "scorer.sqlite"), RULESETS)
    director.create_event("测试赛", "xiamen-2015", seed=1)
    director.import_teams("name\n甲队\n乙队\n".encode())
    codes = director.add_tables(1)
    events = hand()
    app = create_app(director, processes=True)
    with serve(app) as live:
        checker = app.state.kiosks.checker
        link = ScorerLink(live.url, httpx.Client(timeout=10))
        link.pair(codes[1], 1, events[0]["device"],
                  {"xiamen-2015": RULESETS["xiamen-2015"].sha256})
        asyncio.run(_started(checker))
        assert link.send(events, 0)["high_water"] == 60
        assert checker.by_child == 1
    stored = Store(director.store.path).events(1)
    assert stored == events


async def _started(checker: Checker) -> None:
    await until(checker.pid, "the server's checking process started")
