"""The garbage collector, kept from holding up the hall while the scorer serves.

A full collection walks every object the process holds, with the event loop held. In a busy
hall (a thousand streams open, the event's matches folded) that took 30–100 ms and came every
few seconds, freeing nothing: the scorer's data is freed by reference counting. So while the
scorer serves, the interpreter's own collections are off. Every `SETTLE_EVERY` seconds the
objects made since the last settle are collected and what lived is frozen (`gc.freeze`: out of
the collector's sight), so the garbage a reference cycle leaves waits at most that long, and
each collection walks only what came since the one before. Frozen objects are still freed
when their last reference goes. Only a reference cycle among them waits for the sweep every
`SWEEP_EVERY` seconds, which unfreezes everything and collects once, the whole pause it costs
once in a while.

With 1,000 tables posting hands, the interpreter's own collections had run about 2,200 times
every 10 s, 17 of them full ones of 65 ms, in all 16 % of the event loop's core; with them off,
the one settle in those 10 s takes 0.1–0.24 s (1–2 %).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Iterator

SETTLE_EVERY = 10.0
SWEEP_EVERY = 600.0


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """The interpreter's collections off from the scorer's start (the checkpoint loaded, the
    folds brought up to date, the first frame built) until `thaw`; what starting made is frozen.
    Late in a big event a start makes a million objects that all live, and the collections they
    set off walked them again and again: the first answer after a power cut took 0.67 s in the
    process, 0.24 s without. Reference counting still frees the start's garbage; its few cycles
    wait for the first sweep. A start that fails turns the collector back on."""
    gc.disable()
    try:
        yield
    except BaseException:
        gc.enable()
        raise
    gc.freeze()


def settle() -> None:
    """Collect what is not frozen, then freeze what lived (the walk covers only the objects
    made since the last settle)."""
    gc.collect()
    gc.freeze()


def sweep() -> None:
    """Collect everything, frozen or not (cycles among frozen objects too), then freeze."""
    gc.unfreeze()
    settle()


async def keep_collections_short() -> None:
    """The only collections while the scorer serves (after `starting`, and `thaw` after)."""
    since_sweep = 0.0
    while True:
        await asyncio.sleep(SETTLE_EVERY)
        since_sweep += SETTLE_EVERY
        if since_sweep >= SWEEP_EVERY:
            since_sweep = 0.0
            sweep()
        else:
            settle()


def thaw() -> None:
    """Everything back in the collector's sight, and its own collections on (the scorer
    stops serving)."""
    gc.unfreeze()
    gc.enable()
