"""The kiosks' batches read, checked and sealed in a process of their own.

With 1,000 tables posting hands, reading a hand's batch (about 60 events), checking every
event and sealing it (`chain.seal`: the canonical JSON and its hash) was nearly half of the
time the server's event loop held the interpreter's lock: time every other answer waited
behind. Here a child process does that work on the machine's other core and sends back the
batch ready to store (`Ready`: its events as the store's rows, which cost the loop a third of
what the events themselves cost to unpickle) or the refusal, so the loop only signs, stores
and answers.

A small batch (a heartbeat, a seat's press) is checked where it arrives: sending it costs more
than checking it. So is any batch while no child is running (none started yet, or one that
ended and is being replaced: `pipes.Respawned`), and a batch the child has not answered within
`PATIENCE`: the answer is the same either way, only the core differs. A child that answers
nothing for that long (stopped, or stuck) is killed and replaced, so it never holds the
uploads.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import IO, Any, NamedTuple

from ..errors import WireError
from ..protocol import report
from ..protocol.report import Report
from ..protocol.schema import check_batch, loads
from .pipes import Respawned, as_child, kill, next_value, packed, receive, send
from .store.database import Row, rows_of

log = logging.getLogger(__name__)
SENT_FROM = 4096  # bytes of a batch from which the child checks it (about 15 events)
PATIENCE = 2.0  # seconds a batch waits for the child (see Checker.patience)


class Ready(NamedTuple):
    """A table's batch checked, ready to store: its events' rows (`Store.apply`), how many
    events its kiosk has yet to send, its journal's head (`Batch`), and what the kiosk
    reports of itself (`report.parse`: None when it sent none, or one that cannot be read)."""

    rows: list[Row]
    behind: int
    head: tuple[int, str] | None
    kiosk: Report | None


def check(raw: bytes, table: int) -> Ready:
    """Table `table`'s batch read and checked here. Raises WireError."""
    body = loads(raw, nesting=False)  # (check_batch checks what it takes)
    batch = check_batch(body)
    return Ready(rows_of(table, batch.events, batch.sealed), batch.behind, batch.head,
                 report.parse(body.get("kiosk")))


class Checker(Respawned):
    """The server's side: `await checker.check(raw, table)` answers as `check` does; `run()`
    keeps a child running for the server's life."""

    ended = "terminal.scorer.log.checker_ended"
    stop_wait = 5.0  # (to finish the batch in hand)

    def __init__(self) -> None:
        super().__init__()
        self._taking = False  # whether it takes batches: once it said it has started
        self._waiting: dict[int, asyncio.Future[tuple[Ready | None, Any]]] = {}
        self._numbers = itertools.count()
        self.by_child = 0  # batches the child checked
        # Seconds a batch waits for the child before it is checked here (within the kiosk's
        # 5 s): a child stopped or starved of the processor must not hold the uploads.
        self.patience = PATIENCE
        self._answered = 0.0  # (the loop's time of the child's last answer)

    async def check(self, raw: bytes, table: int) -> Ready:
        process = self._process
        if len(raw) < SENT_FROM or not self._taking or process is None or \
                process.stdin is None or process.stdin.is_closing():
            return check(raw, table)
        number = next(self._numbers)
        answer = self._waiting[number] = asyncio.get_running_loop().create_future()
        try:
            process.stdin.write(packed((number, table, raw)))
            ready, refused = await asyncio.wait_for(answer, self.patience)
        except (ConnectionError, EOFError):  # the child ended meanwhile: checked here
            return check(raw, table)
        except TimeoutError:  # checked here; a child that answers nothing at all is stuck
            if self._answered < asyncio.get_running_loop().time() - self.patience:
                log.warning("terminal.scorer.log.checker_stuck", {"s": round(self.patience, 1)})
                kill(process)
            return check(raw, table)
        finally:
            self._waiting.pop(number, None)
        self.by_child += 1
        if ready is None:
            text, key, params = refused
            raise WireError(text, key, **params)
        return ready

    async def _one_child(self) -> None:
        process = await self.spawn(__name__)
        assert process.stdout is not None
        self._process = process
        try:
            # Its first word says it has started (its imports done): batches go to it only
            # then, so a child slow to start on a busy machine is not taken for a stuck one.
            await next_value(process.stdout)
            self._taking, self._answered = True, asyncio.get_running_loop().time()
            while True:
                number, ready, refused = await next_value(process.stdout)
                self._answered = asyncio.get_running_loop().time()
                waiting = self._waiting.get(number)
                if waiting is not None and not waiting.done():
                    waiting.set_result((ready, refused))
        finally:
            self._process, self._taking = None, False
            for waiting in self._waiting.values():  # (their batches are checked here)
                if not waiting.done():
                    waiting.set_exception(EOFError("the checking process ended"))
            kill(process)
            await process.wait()

    def pid(self) -> int | None:
        """The process id of the child taking batches (None: none is)."""
        return self._process.pid if self._process is not None and self._taking else None


def child(batches: IO[bytes], out: IO[bytes]) -> None:
    """Check each batch the server sends, until its pipe closes (first: say it has started)."""
    send(out, "started")
    while True:
        try:
            number, table, raw = receive(batches)
        except EOFError:
            return
        try:
            send(out, (number, check(raw, table), None))
        except WireError as exc:
            send(out, (number, None, (str(exc), exc.key, exc.params)))


if __name__ == "__main__":  # (the module imported by its name: its `Ready` is the server's)
    from kiosk.scorer.checker import child as imported

    as_child(imported)
