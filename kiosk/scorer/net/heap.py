"""The garbage collector, kept from holding up the hall while the scorer serves.

A full collection walks every object the process holds, with the event loop held. In a busy
hall (a thousand streams open, the event's matches folded) that took 30–100 ms and came every
few seconds, freeing nothing: the scorer's data is freed by reference counting. So every
`SETTLE_EVERY` seconds the objects of the last few seconds are collected and what lived is
frozen (`gc.freeze`: out of the collector's sight); a full collection then walks only what came
since. Frozen objects are still freed when their last reference goes. Only a reference cycle
among them (a closed connection's parts point at one another) waits for the sweep every
`SWEEP_EVERY` seconds, which unfreezes everything and collects once, the whole pause it costs
once in a while instead of every few seconds.
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
    """No collection while the scorer starts (the checkpoint loaded, the folds brought up to
    date, the first frame built), then what lives frozen. Late in a big event a start makes a
    million objects that all live, and the collections they set off walked them again and
    again: the first answer after a power cut took 0.67 s in the process, 0.24 s without.
    Reference counting still frees the start's garbage; its few cycles wait for the first
    sweep."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


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
    """Runs while the scorer serves (after a first `freeze`, and `thaw` after)."""
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
    """Everything back in the collector's sight (the scorer stops serving)."""
    gc.unfreeze()
