"""The scorer's view of the kiosks as machines: each one's version, health and clock offset (as
it reports them with every batch, kiosk/fleet/status.py), listed on the admin page; and the
hall's time, checked before a round starts.

A round does not start while a kiosk heard from in the last minute is more than 0.5 s off the
scorer's clock (its match clock would start early or late, in public), or while the scorer's own
clock has not been synchronised since it booted (a Pi without a real-time clock boots with the
time it last saved: the whole hall would agree on a wrong time). The admin page says which, and
how to fix it; the head referee may confirm a clock checked by hand."""

from __future__ import annotations

import csv
import html
import io
import math
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..i18n import translator
from ..rules.errors import Explained
from .director import AdminError, Director

OFFSET_LIMIT = 0.5  # seconds
HEARD_WITHIN = 60.0  # a kiosk not heard from for a minute does not hold a round back
HEALTH = ("disk_low", "memory_low", "clock_off")
LOCAL_REFS = {"7F7F0101", "00000000"}  # chrony's own clock (local), or no reference at all
BOOT_ID = "/proc/sys/kernel/random/boot_id"


class RoundRefused(Explained, AdminError):
    """A round cannot start now: the hall's clocks disagree."""

    params: dict[str, Any] = {}  # noqa: RUF012 (replaced per instance by `explained`)


@dataclass(frozen=True)
class Kiosk:
    table: int
    version: str
    health: tuple[str, ...]
    offset: float | None
    seen: float


def _ensure(director: Director) -> None:
    director.store.db.execute(
        "CREATE TABLE IF NOT EXISTS fleet_kiosks (table_number INTEGER PRIMARY KEY, "
        "version TEXT NOT NULL, health TEXT NOT NULL, offset REAL, seen REAL NOT NULL)")


def record(director: Director, table: int, status: Any, now: float) -> None:
    """Keep what a kiosk said about itself (a batch's `kiosk` part). Anything malformed is
    ignored: it is a report, never a reason to refuse a table's events."""
    if not isinstance(status, dict):
        return
    version, health, offset = status.get("version"), status.get("health"), status.get("offset")
    if not isinstance(version, str) or not re.fullmatch(r"[0-9A-Za-z.+?-]{1,40}", version):
        return
    if not isinstance(health, list) or not all(h in HEALTH for h in health):
        return
    if offset is not None and (not isinstance(offset, int | float) or isinstance(offset, bool)
                               or not math.isfinite(offset) or abs(offset) > 1e9):
        return
    _ensure(director)
    with director.store.db.atomic():
        director.store.db.execute(
            "INSERT OR REPLACE INTO fleet_kiosks VALUES (?, ?, ?, ?, ?)",
            [table, version, ",".join(health), offset, now])


def kiosks(director: Director) -> list[Kiosk]:
    _ensure(director)
    rows = director.store.db.execute(
        "SELECT table_number, version, health, offset, seen FROM fleet_kiosks "
        "ORDER BY table_number").fetchall()
    return [Kiosk(n, v, tuple(h for h in health.split(",") if h), offset, seen)
            for n, v, health, offset, seen in rows]


# -- the scorer's own clock ------------------------------------------------------------------


def boot_id(path: str = BOOT_ID) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return "unknown-boot"


def chrony_synced(chronyc: str = "chronyc") -> bool | None:
    """True when chrony follows a real time source now, False when it serves only its own
    clock or none, None when chrony cannot be asked (not installed or not running: a
    development machine)."""
    try:
        done = subprocess.run([chronyc, "-c", "tracking"], capture_output=True, text=True,
                              timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    fields = next(csv.reader(io.StringIO(done.stdout)), [])
    if len(fields) < 14:
        return None
    return fields[0].upper() not in LOCAL_REFS and fields[13] != "Not synchronised"


class ScorerClock:
    """Whether the scorer's clock has been synchronised since this boot: by chrony to a real
    source (remembered for the rest of the boot), or confirmed by the head referee after
    checking it by hand. `synced` is None when chrony cannot be asked."""

    def __init__(self, data_dir: str | Path, chronyc: str = "chronyc",
                 boot: str = BOOT_ID) -> None:
        self.data_dir, self.chronyc, self.boot = Path(data_dir), chronyc, boot

    def _marker(self, kind: str) -> Path:
        return self.data_dir / f"clock-{kind}-{boot_id(self.boot)}"

    def state(self) -> str:
        """"synced", "confirmed", "unsynced" or "unknown" (no chrony here)."""
        synced = chrony_synced(self.chronyc)
        if synced:
            self._marker("synced").touch()
            return "synced"
        if self._marker("synced").exists():
            return "synced"  # since this boot; its source may be away now, the time is kept
        if self._marker("confirmed").exists():
            return "confirmed"
        return "unknown" if synced is None else "unsynced"

    def confirm(self) -> None:
        for old in self.data_dir.glob("clock-confirmed-*"):
            old.unlink(missing_ok=True)
        self._marker("confirmed").touch()


# -- before a round --------------------------------------------------------------------------


def round_start_problems(director: Director, clock: ScorerClock | None, now: float
                         ) -> list[tuple[str, dict[str, Any]]]:
    """Why a round must not start now, as catalog keys with parameters (none: it may)."""
    problems: list[tuple[str, dict[str, Any]]] = []
    if clock is not None and clock.state() == "unsynced":
        problems.append(("fleet.round.scorer_unsynced", {}))
    off = [k for k in kiosks(director) if now - k.seen <= HEARD_WITHIN
           and k.offset is not None and abs(k.offset) > OFFSET_LIMIT]
    if off:
        problems.append(("fleet.round.kiosks_off", {
            "tables": ", ".join(f"{k.table} ({k.offset:+.1f} s)" for k in off),
            "limit": OFFSET_LIMIT}))
    return problems


def guard_round_start(director: Director, data_dir: str | Path,
                      chronyc: str = "chronyc") -> ScorerClock:
    """Make `director.start_round` refuse while the hall's clocks disagree. Returns the
    scorer's clock, for the admin page."""
    clock = ScorerClock(data_dir, chronyc)

    def check() -> None:
        problems = round_start_problems(director, clock, director.clock())
        if problems:
            t = translator("en")
            key, params = problems[0]
            raise RoundRefused(" ".join(t(k, **p) for k, p in problems)).explained(
                key, **params)

    director.round_checks = (*director.round_checks, check)
    director.scorer_clock = clock
    return clock


# -- the admin page --------------------------------------------------------------------------


def admin_section(director: Director, csrf_form: str, now: float | None = None) -> str:
    """The kiosks' list and the clocks' state, in 简体中文 and English (as the admin page)."""
    now = time.time() if now is None else now
    zh, en = translator("zh-Hans"), translator("en")

    def both(key: str, **params: Any) -> str:
        return f"{html.escape(zh(key, **params))} {html.escape(en(key, **params))}"

    parts = [f"<h2>{both('fleet.admin.title')}</h2>"]
    clock = getattr(director, "scorer_clock", None)
    state = clock.state() if clock is not None else "unknown"
    if state == "unsynced":
        parts.append(f'<p class="error">{both("fleet.round.scorer_unsynced")}</p>'
                     + csrf_form)
    else:
        parts.append(f"<p>{both(f'fleet.admin.clock_{state}')}</p>")
    for key, params in round_start_problems(director, None, now):
        if key != "fleet.round.scorer_unsynced":
            parts.append(f'<p class="error">{both(key, **params)}</p>')
    rows = []
    for k in kiosks(director):
        late = now - k.seen > HEARD_WITHIN
        health = ", ".join(f"{zh('fleet.health.' + h)} {en('fleet.health.' + h)}"
                           for h in k.health) or f"{zh('fleet.health.ok')} {en('fleet.health.ok')}"
        offset = "–" if k.offset is None else f"{k.offset:+.3f} s"
        seen = time.strftime("%H:%M:%S", time.localtime(k.seen))
        mark = ' class="error"' if k.health or late or (
            k.offset is not None and abs(k.offset) > OFFSET_LIMIT) else ""
        rows.append(f"<tr{mark}><td>{k.table}</td><td>{html.escape(k.version)}</td>"
                    f"<td>{html.escape(health)}</td><td>{offset}</td><td>{seen}</td></tr>")
    head = "".join(f"<th>{both('fleet.admin.' + c)}</th>"
                   for c in ("table", "version", "health", "offset", "seen"))
    parts.append(f"<table><tr>{head}</tr>{''.join(rows)}</table>" if rows else
                 f"<p>{both('fleet.admin.none')}</p>")
    return "\n".join(parts)
