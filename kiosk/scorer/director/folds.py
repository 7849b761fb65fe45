"""Every table's matches, folded from the store's events by the tables' own fold (`MatchState`).

The folds are extended, never redone: each look takes the events committed since the last one
(by rowid, for the whole hall: the batches the store's writer hands over, or else one query),
and each table applies its events in sequence order up to its first gap (an event after a gap
waits for the missing one, as the high-water mark does).

A checkpoint file beside the store (`folds.sqlite`) keeps the folded matches, so a restarted
scorer loads them and folds only what came after. It is a cache: it is used only when it was
written by the same fold code and rulesets and the store still holds the very events it
folded; otherwise it is ignored and the event is folded again from its first event.
"""

from __future__ import annotations

import copyreg
import dataclasses
import functools
import hashlib
import io
import json
import pickle
import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

from ...protocol.schema import Event
from ...rules import Ruleset, Rulesets
from ...rules.errors import Words
from ...table.state import MatchState
from ..store.database import Landed

BATCH = 20_000  # events read at a time on a cold fold
# The code whose objects a checkpoint holds: another version of any of them refolds.
FOLD_CODE = ("table/state.py", "table/journal.py", "protocol/schema.py", "rules/*.py",
             "scorer/director/folds.py")


@dataclass(frozen=True, slots=True)
class Unscored:
    """Why a match is not scored: the event the rules core refused, and why."""

    seq: int
    kind: str
    why: Words | None  # the refusal's words (None: an error without words, a bug)
    text: str  # in English, for logs and the kiosk's link

    @classmethod
    def of(cls, event: Event, error: Exception) -> Unscored:
        key = getattr(error, "key", None)
        why = Words(key, getattr(error, "params", {})) if isinstance(key, str) else None
        return cls(event.seq, event.kind, why, f"event {event.seq} ({event.kind}): {error}")


@dataclass
class TableFold:
    """A table's matches folded so far: events up to `seq` applied. A match the rules core
    cannot fold (another copy of the ruleset, a practice's broken journal) is not scored: its
    events are kept, and `unscored` says why."""

    seq: int = 0
    matches: dict[str, MatchState] = field(default_factory=dict)
    unscored: dict[str, Unscored] = field(default_factory=dict)  # by the journal's match name
    revisions: dict[str, int] = field(default_factory=dict)  # events folded, by match
    waiting: dict[int, tuple[int, Event]] = field(default_factory=dict)  # (rowid, event) by seq
    last: tuple[int, str] = (0, "")  # rowid and device of the event at `seq`
    by_setup: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (event, round)

    def apply(self, event: Event, rulesets: Rulesets) -> None:
        name = event.match
        if not name or name in self.unscored:
            return
        try:
            state = self.matches.get(name)
            if state is None:
                state = self.matches[name] = MatchState(rulesets)
            state.apply(event)
        except Exception as exc:  # the rules core cannot fold this match
            self.unscored[name] = Unscored.of(event, exc)
            self.matches.pop(name, None)
            return
        self.revisions[name] = self.revisions.get(name, 0) + 1
        if event.kind == "setup":
            key = (str(state.setup.get("event")), str(state.setup.get("round")))
            self.by_setup.setdefault(key, []).append(name)

    def find(self, event: str, round_no: int, table: int, start_at: float | None = None
             ) -> tuple[str, MatchState] | None:
        """The table's match set up for (event, round) — the last one if there are several —
        and for the round's start `start_at` (a match set up for an earlier start, the round
        taken back since, is not the round's; nor is one the kiosk dropped)."""
        for name in reversed(self.by_setup.get((event, str(round_no)), [])):
            state = self.matches.get(name)
            if state is not None and state.setup.get("table") == table and \
                    not state.abandoned and state.setup.get("start_at", start_at) == start_at:
                return name, state
        return None


class Folds:
    """The hall's folds, brought up to date from a SQLite connection to the store."""

    def __init__(self, rulesets: Rulesets) -> None:
        self.rulesets = rulesets
        self.tables: dict[int, TableFold] = {}
        self.rowid = 0  # the last event row read
        self.last_row: tuple[int, int, str] = (0, 0, "")  # its table, seq and device
        self.saved: dict[tuple[int, str], int] = {}  # revision of each match checkpointed
        # Held while a checkpoint is written: one at a time, so the last taken is written last.
        self.writing = threading.Lock()

    def table(self, number: int) -> TableFold:
        fold = self.tables.get(number)  # (not setdefault: a TableFold per event adds up)
        if fold is None:
            fold = self.tables[number] = TableFold()
        return fold

    def update(self, db: sqlite3.Connection, landed: deque[Landed] | None = None) -> set[int]:
        """Fold the events committed since the last look: first the batches the store's
        writer handed over (`Store.landed`) while they follow on from the last row read,
        then whatever else the store holds past it. Returns the tables that changed."""
        changed: set[int] = set()
        while landed:
            first, rows = landed.popleft()
            if first > self.rowid + 1:
                break  # rows another connection wrote come between: read the store
            if first > self.rowid:  # (else read from the store already)
                self._fold(range(first, first + len(rows)), rows, changed)
        while True:
            rows = db.execute(
                "SELECT device, seq, match, kind, data, mono, wall, actor, table_number, rowid "
                "FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?",
                [self.rowid, BATCH]).fetchall()
            if rows:
                self._fold([row[9] for row in rows], rows, changed)
            if len(rows) < BATCH:
                break
        while landed and landed[0][0] <= self.rowid:
            landed.popleft()  # read from the store just now
        return changed

    def _fold(self, rowids: Sequence[int], rows: list[tuple[Any, ...]],
              changed: set[int]) -> None:
        """Fold `rows`, the store's event rows (device, seq, match, kind, data, mono, wall,
        actor, table…) in the order of their `rowids`."""
        # One decode for the batch: json.loads per event costs as much as the fold.
        data = json.loads("[" + ",".join(row[4] for row in rows) + "]")
        for rowid, row, payload in zip(rowids, rows, data, strict=True):
            device, seq, table = row[0], row[1], row[8]
            fold = self.table(table)
            if seq <= fold.seq:
                continue  # folded already: a checkpoint taken a table at a time
            event = Event(seq, device, row[2], row[3], payload, row[5], row[6], row[7])
            if seq == fold.seq + 1:  # (nearly always: straight in, and any it freed)
                fold.seq, fold.last = seq, (rowid, device)
                fold.apply(event, self.rulesets)
                if fold.waiting:
                    self._drain(fold)
                changed.add(table)
            else:
                fold.waiting[seq] = (rowid, event)
        last = rows[-1]
        self.rowid, self.last_row = rowids[-1], (last[8], last[1], last[0])

    def _drain(self, fold: TableFold) -> None:
        while fold.seq + 1 in fold.waiting:
            rowid, event = fold.waiting.pop(fold.seq + 1)
            fold.seq, fold.last = event.seq, (rowid, event.device)
            fold.apply(event, self.rulesets)

    # -- the checkpoint ----------------------------------------------------------------------

    def save(self, path: Path) -> int:
        """Write the matches folded further since the last save. Returns how many."""
        checkpoint = self.checkpoint()
        with self.writing:
            written = checkpoint.write(path)
        self.wrote(checkpoint)
        return written

    def checkpoint(self) -> Checkpoint:
        """What `save` writes, taken now (the writing may happen in another thread)."""
        checkpoint = self.begin_checkpoint()
        for number in list(self.tables):
            checkpoint.take(self, number)
        return checkpoint

    def begin_checkpoint(self) -> Checkpoint:
        """A checkpoint as of the last event row read, still without its tables: `take` each
        table in turn (the event loop may fold more between two; see `Checkpoint`)."""
        return Checkpoint(code_version(self.rulesets), [self.rowid, *self.last_row], [], [],
                          set(), {})

    def wrote(self, checkpoint: Checkpoint) -> None:
        """`checkpoint` is written: its matches need not be written again until they change."""
        self.saved.update(checkpoint.revisions)

    def load(self, path: Path, db: sqlite3.Connection, newer: bool = False) -> bool:
        """Start from the checkpoint at `path` if it is valid for this store (see the module's
        docstring); with `newer`, only if it is further on than these folds. A match these
        folds hold at the same revision is kept, not loaded again. Returns whether it was
        used."""
        if not path.exists():
            return False
        try:
            conn = _open(path)
        except sqlite3.DatabaseError:
            return False
        try:
            conn.execute("BEGIN")  # (one snapshot: another process may be writing it)
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            if meta.get("code") != code_version(self.rulesets) or "rowid" not in meta:
                return False
            rowid, table, seq, device = json.loads(meta["rowid"])
            if newer and rowid <= self.rowid:
                return False
            if rowid and db.execute("SELECT table_number, seq, device FROM events WHERE "
                                    "rowid = ?", [rowid]).fetchone() != (table, seq, device):
                return False  # not the store it was taken from (restored from a backup?)
            tables = {n: _loads(blob, self.rulesets) for n, blob in
                      conn.execute("SELECT number, fold FROM tables")}
            for number, fold in tables.items():
                if fold.seq and db.execute(
                        "SELECT rowid, device FROM events WHERE table_number = ? AND seq = ?",
                        [number, fold.seq]).fetchone() != fold.last:
                    return False
            saved = {}
            for number, name, revision, blob in conn.execute(
                    "SELECT table_number, name, revision, state FROM matches"):
                known = self.tables.get(number)
                tables[number].matches[name] = known.matches[name] if known is not None and \
                    known.revisions.get(name) == revision and name in known.matches else \
                    _loads(blob, self.rulesets)
                saved[(number, name)] = revision
        except (sqlite3.DatabaseError, pickle.UnpicklingError, KeyError, ValueError,
                AttributeError, TypeError, EOFError):
            return False  # a damaged or foreign cache: fold again
        finally:
            conn.close()
        self.tables, self.saved = tables, saved
        self.rowid, self.last_row = rowid, (table, seq, device)
        return True


@dataclass
class Checkpoint:
    """The folds as `Folds.checkpoint` takes them, pickled, to be written to the file.

    It may be taken a table at a time, with the event loop folding new events between two
    tables: each table is taken whole in one step (its fold and its matches agree), and
    `last_row` is the last event row read when it began, so a restart reads again every event
    after it; a table taken later already holds some of those, and skips them by their
    sequence number (`Folds.update`)."""

    code: str
    last_row: list[Any]
    matches: list[tuple[int, str, int, bytes]]  # the matches changed since the last one
    tables: list[tuple[int, bytes]]
    kept: set[tuple[int, str]]  # every match folded now
    revisions: dict[tuple[int, str], int]  # of the matches in `matches`

    def take(self, folds: Folds, number: int) -> None:
        """Pickle table `number`'s fold and its matches changed since the last written."""
        fold = folds.tables[number]
        for name, state in fold.matches.items():
            revision = fold.revisions.get(name, 0)
            self.kept.add((number, name))
            if folds.saved.get((number, name)) != revision:
                self.matches.append((number, name, revision, _dumps(state)))
                self.revisions[(number, name)] = revision
        self.tables.append((number, _dumps(_table_part(fold))))

    def write(self, path: Path) -> int:
        """Write it to the file at `path`. Returns the matches written."""
        conn = _open(path)
        try:
            with conn:
                conn.execute("DELETE FROM meta")
                conn.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("code", self.code), ("rowid", json.dumps(self.last_row))])
                conn.executemany("INSERT OR REPLACE INTO matches VALUES (?, ?, ?, ?)",
                                 self.matches)
                conn.execute("DELETE FROM tables")
                conn.executemany("INSERT INTO tables VALUES (?, ?)", self.tables)
                gone = [k for k in conn.execute("SELECT table_number, name FROM matches")
                        if k not in self.kept]
                conn.executemany("DELETE FROM matches WHERE table_number = ? AND name = ?", gone)
        finally:
            conn.close()
        return len(self.matches)


def code_version(rulesets: Rulesets) -> str:
    """Identifies the fold's code and the rulesets a checkpoint was made with."""
    digest = hashlib.sha256(_code_digest().encode())
    for ruleset in rulesets.values():
        digest.update(f"{ruleset.id}:{ruleset.sha256}".encode())
    return digest.hexdigest()


@functools.cache
def _code_digest() -> str:
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]
    for pattern in FOLD_CODE:
        for path in sorted(root.glob(pattern)):
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def _table_part(fold: TableFold) -> TableFold:
    """The table's fold without its matches (saved one by one)."""
    return TableFold(fold.seq, {}, dict(fold.unscored), dict(fold.revisions),
                     dict(fold.waiting), fold.last,
                     {k: list(v) for k, v in fold.by_setup.items()})


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=10)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost write costs a refold
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE IF NOT EXISTS tables (number INTEGER PRIMARY KEY, fold BLOB)")
    conn.execute("CREATE TABLE IF NOT EXISTS matches (table_number INTEGER, name TEXT, "
                 "revision INTEGER, state BLOB, PRIMARY KEY (table_number, name))")
    return conn


def _proxy(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


def _rebuild(cls: type, values: tuple[Any, ...]) -> Any:
    """A slotted dataclass (the rules core's values) from its slots' values."""
    obj: Any = object.__new__(cls)
    for put, value in zip(_setters(cls), values, strict=True):
        put(obj, value)
    return obj


@functools.cache
def _setters(cls: type) -> tuple[Callable[[Any, Any], None], ...]:
    """Each slot's own setter, which a frozen class's __setattr__ does not stand in front of
    (a quarter quicker than object.__setattr__ by name; a restart calls it 34,000 times)."""
    return tuple(getattr(cls, name).__set__ for name in _slots(cls))


@functools.cache
def _slots(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


class _Pickler(pickle.Pickler):
    """Rulesets are saved by name (they are loaded again from their files); the rules core's
    slotted dataclasses as their values (dataclasses' own way back is ten times slower, and a
    restart loads tens of thousands of them)."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = {**copyreg.dispatch_table,
                               MappingProxyType: lambda m: (_proxy, (dict(m),))}

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if hasattr(cls, "__slots__") and dataclasses.is_dataclass(cls) and \
                not isinstance(obj, Ruleset):
            return _rebuild, (cls, tuple(getattr(obj, n) for n in _slots(cls)))
        return NotImplemented

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Ruleset):
            return ("ruleset", obj.id)
        if isinstance(obj, Rulesets):
            return ("rulesets", "")
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, rulesets: Rulesets) -> None:
        super().__init__(io.BytesIO(data))
        self.rulesets = rulesets

    def persistent_load(self, pid: Any) -> Any:
        kind, name = pid
        return self.rulesets if kind == "rulesets" else self.rulesets[name]


def _dumps(obj: Any) -> bytes:
    out = io.BytesIO()
    _Pickler(out).dump(obj)
    return out.getvalue()


def _loads(data: bytes, rulesets: Rulesets) -> Any:
    return _Unpickler(data, rulesets).load()
