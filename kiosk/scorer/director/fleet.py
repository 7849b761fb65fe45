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
import io
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import RoundRefused, Words, words
from ...i18n import render
from ...protocol.report import Report, parse
from . import Director
from .triage import listing

OFFSET_LIMIT = 0.5  # seconds
HEARD_WITHIN = 60.0  # a kiosk not heard from for a minute does not hold a round back
LOCAL_REFS = {"7F7F0101", "00000000"}  # chrony's own clock (local), or no reference at all
BOOT_ID = "/proc/sys/kernel/random/boot_id"


@dataclass(frozen=True)
class Kiosk:
    table: int
    version: str
    health: tuple[str, ...]
    offset: float | None
    seen: float


TABLE_SQL = ("CREATE TABLE IF NOT EXISTS fleet_kiosks (table_number INTEGER PRIMARY KEY, "
             "version TEXT NOT NULL, health TEXT NOT NULL, offset REAL, seen REAL NOT NULL)")
WRITE_EVERY = 30.0  # seconds: an unchanged report is written at most this often
OFFSET_STEP = 0.1  # seconds: a change of the offset larger than this is written at once


def save(db: Any, table: int, report: Report, now: float) -> None:
    """Keep a kiosk's report (run by the store's writer, or a test's connection)."""
    version, health, offset = report
    db.execute(TABLE_SQL)
    db.execute("INSERT OR REPLACE INTO fleet_kiosks VALUES (?, ?, ?, ?, ?)",
               [table, version, ",".join(health), offset, now])


class Reports:
    """Which reports are worth a write: a change of version or health, an offset moved by
    more than OFFSET_STEP, or WRITE_EVERY seconds since the last (for "last heard")."""

    def __init__(self) -> None:
        self.last: dict[int, tuple[Report, float]] = {}

    def due(self, table: int, report: Report, now: float) -> bool:
        before = self.last.get(table)
        if before is not None:
            (version, health, offset), written = before
            moved = (offset is None) != (report[2] is None) or (
                offset is not None and report[2] is not None
                and abs(offset - report[2]) > OFFSET_STEP)
            if (version, health) == report[:2] and not moved and now - written < WRITE_EVERY:
                return False
        self.last[table] = (report, now)
        return True


def record(director: Director, table: int, status: Any, now: float) -> None:
    """Keep a kiosk's report at once, on the director's own connection (the admin commands
    and the tests; the server goes through its writer: `note`)."""
    report = parse(status)
    if report is not None:
        with director.store.db.atomic():
            save(director.store.db, table, report, now)


async def note(director: Director, reports: Reports, table: int, status: Any,
               now: float) -> None:
    """The server's hook: a kiosk's report, written by the store's one writer when due."""
    report = parse(status)
    if report is not None and reports.due(table, report, now):
        await director.store.writer().run(lambda db: save(db, table, report, now))


def kiosks(director: Director) -> list[Kiosk]:
    try:
        rows = director.store.db.execute(
            "SELECT table_number, version, health, offset, seen FROM fleet_kiosks "
            "ORDER BY table_number").fetchall()
    except sqlite3.OperationalError:  # no kiosk has reported yet: no table
        return []
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
            "tables": listing([words("fleet.round.kiosk_off", table=k.table,
                                     offset=clock_words(k.offset or 0.0)) for k in off]),
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
            key, params = problems[0]
            raise RoundRefused(" ".join(render(k, p, "en") for k, p in problems)).explained(
                key, **params)

    director.round_checks = (*director.round_checks, check)
    director.scorer_clock = clock
    return clock


# -- the admin page --------------------------------------------------------------------------


def clock_words(offset: float) -> Words:
    """A kiosk's offset (the scorer's clock minus the kiosk's) as people read it: the kiosk's
    clock is fast or slow, by how much (平板时钟快 2 小时, 平板时钟慢 0.8 秒). A signed number
    of seconds read the wrong way round: -7200 s looked like a kiosk two hours behind."""
    size = abs(offset)
    if size < 0.0005:
        return words("fleet.admin.clock_same")
    if size < 60:
        amount = words("fleet.admin.seconds", n=_short(size, 3))
    elif size < 3600:
        amount = words("fleet.admin.minutes", n=_short(size / 60, 1))
    else:
        amount = words("fleet.admin.hours", n=_short(size / 3600, 1))
    return words("fleet.admin.clock_slow" if offset > 0 else "fleet.admin.clock_fast",
                 amount=amount)


def _short(value: float, digits: int) -> str:
    """`value` with at most `digits` decimals, none trailing: 0.8, 2, 25, 1.5."""
    return f"{value:.{digits}f}".rstrip("0").rstrip(".")


def view(director: Director, now: float) -> dict[str, Any]:
    """What the admin page's tables screen shows of the fleet: each table's kiosk report (its
    offset shown as text), the scorer's clock ("synced", "confirmed", "unsynced", "unknown"),
    and why a round would not start now. `bad`: what the kiosk reports is wrong now (its
    health, or its clock more than OFFSET_LIMIT off, `off`, while it is heard); `at`: when it
    last reported. A kiosk no longer heard is said by its table's link, and is trouble only
    while its table plays (the console's 牌桌, web/admin/tables.py): an idle table's kiosk
    switched off, or one switched off after its match as kiosks are, is none."""
    clock = director.scorer_clock
    state = clock.state() if clock is not None else "unknown"
    reports = {}
    for k in kiosks(director):
        late = now - k.seen > HEARD_WITHIN
        off = k.offset is not None and abs(k.offset) > OFFSET_LIMIT
        reports[k.table] = {
            "version": k.version, "health": k.health or ("ok",), "late": late,
            # (rounded first: a kiosk 0.1 ms behind shows +0.000, not -0.000)
            "offset": "–" if k.offset is None else f"{round(k.offset, 3) or 0.0:+.3f} s",
            # (in words: 平板时钟快 2 小时, never a bare -7200 s; the number is its title)
            "clock": None if k.offset is None else clock_words(k.offset),
            "seen": time.strftime("%H:%M:%S", time.localtime(k.seen)), "at": k.seen,
            # (a kiosk not heard from is said by its link, where it matters: console's 牌桌)
            "off": off and not late, "bad": bool(k.health) or (off and not late)}
    problems = [p for p in round_start_problems(director, None, now)]
    return {"kiosks": reports, "clock": state, "problems": problems}
