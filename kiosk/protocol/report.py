"""What a kiosk says of itself beside every batch's events (`kiosk`): its version, its health
and its clock's offset from the scorer's, for the admin page's list of kiosks
(`kiosk/fleet/status.py` makes it, the scorer's checker reads it). A report, never a reason
to refuse a table's events: one that cannot be read is no report."""

from __future__ import annotations

import re
from typing import Any

from .schema import finite

HEALTH = ("disk_low", "memory_low", "clock_off")  # what the technician can act on
VERSION = re.compile(r"[0-9A-Za-z.+?-]{1,40}")
#: (version, health, clock offset in seconds or None)
Report = tuple[str, tuple[str, ...], float | None]


def parse(status: Any) -> Report | None:
    """The report a batch's `kiosk` part makes, or None when it is malformed (nested, too
    long, of unknown words)."""
    if not isinstance(status, dict):
        return None
    version, health, offset = status.get("version"), status.get("health"), status.get("offset")
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        return None
    if not isinstance(health, list) or not all(h in HEALTH for h in health):
        return None
    if offset is not None and (not isinstance(offset, int | float) or isinstance(offset, bool)
                               or not finite(offset) or abs(offset) > 1e9):
        return None
    return version, tuple(health), None if offset is None else float(offset)
