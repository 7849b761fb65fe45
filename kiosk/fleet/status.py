"""What a kiosk tells the scorer about itself with every batch, for the admin page's list of
kiosks: its version, its health and its clock's offset from the scorer's.

Health is what the technician can act on from the hall, checked cheaply on the kiosk itself:
the data partition filling up, memory running low (a Zero 2 W has 512 MB), the clock off. An
empty list is a healthy kiosk."""

from __future__ import annotations

import functools
import importlib.metadata
import os
import shutil
from typing import Any

DISK_LOW = 200 * 1024 * 1024  # bytes free on the data partition
MEMORY_LOW = 60 * 1024 * 1024  # bytes available
CLOCK_OFF = 0.5  # seconds from the scorer's clock


@functools.cache
def version() -> str:
    """The version this process runs (an update restarts the kiosk): read once, as reading the
    package's metadata costs milliseconds and every batch reports it."""
    try:
        return importlib.metadata.version("kiosk80")
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _available_memory(meminfo: str = "/proc/meminfo") -> int | None:
    try:
        with open(meminfo) as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def health(data_dir: str | os.PathLike[str], offset: float | None,
           meminfo: str = "/proc/meminfo") -> list[str]:
    problems = []
    try:
        if shutil.disk_usage(data_dir).free < DISK_LOW:
            problems.append("disk_low")
    except OSError:
        problems.append("disk_low")
    memory = _available_memory(meminfo)
    if memory is not None and memory < MEMORY_LOW:
        problems.append("memory_low")
    if offset is not None and abs(offset) > CLOCK_OFF:
        problems.append("clock_off")
    return problems


def kiosk_status(data_dir: str | os.PathLike[str], offset: float | None) -> dict[str, Any]:
    """The `kiosk` part of a batch: {"version", "health", "offset"} (offset: the scorer's
    wall clock minus this kiosk's, in seconds, or None before it was measured)."""
    return {"version": version(), "health": health(data_dir, offset), "offset": offset}
