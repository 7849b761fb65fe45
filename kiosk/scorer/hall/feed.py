"""The hall feed: the hall's screens and the players' phones, from one update task.

The task alone builds the hall's snapshot — when the store changes, at most every
`min_interval` seconds, and every `REFRESH_EVERY` seconds as link health and lateness move on
with the time — and encodes it once; in the server, the hall's own process does the same
(`hall/process.py`) and the feed publishes the frames it sends (`Built`). Every stream sends
the same bytes: a stream that had the previous frame gets a patch (the parts and table rows
that changed), one that fell behind gets the whole snapshot again, and a phone following one
team gets that team's view when it changes. Streams wait on one shared event; one pinger
sends the scorer's time every `PING_EVERY` seconds. Streams are capped in all and per address.

The wire format (server-sent events; `?since=SERIAL&boot=BOOT`: the screen has that snapshot
already):
- `snapshot`: the whole snapshot (as `GET /api/hall`), with its `serial` and `boot`: the
  scorer's start the serials count from (a restarted scorer counts from 1 again, so a serial
  says nothing of another start's frames);
- `patch`: `{"serial", "boot", "generated", "set": {key: value}, "tables": [rows],
  "standings": [rows], "order": [team ids], "ranks": [ranks], "sent"}` — top-level keys
  replaced, table rows replaced by number, standings rows by team, the standings' order when
  it changed, and every row's rank, in that order, when the order or a rank changed (the
  ranks go by place; one result moves the ranks of half the hall: their rows are not sent
  again for it);
- `team`: one team's view (`hall.team_views`), whole, when it changed (with `sent`, as a
  patch);
- `ping`: `{"now": scorer time}`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from ..director import Director
from . import snapshot as hall

log = logging.getLogger(__name__)
MIN_INTERVAL = 0.5  # seconds between two builds at most: the feed's rate cap
WATCH_EVERY = 0.1  # seconds between looks at the store's version
REFRESH_EVERY = 5.0  # rebuild anyway: link health and lateness move on with the time
PING_EVERY = 5.0
MAX_STREAMS = 3000  # a national final: ~2,000 phones and the hall's screens
MAX_STREAMS_PER_ADDRESS = 20  # a screen wall behind one address; a phone needs one
RETRY_MS = 2000  # the browsers' reconnect delay, said in every stream's first lines


# The frames' JSON: a hall's snapshot (1,000 tables, Chinese names) in a fourteenth of the
# time the standard library's encoder takes, a tenth of the hall process's work before.
_JSON = msgspec.json.Encoder()


def encode(kind: str, data: Any) -> bytes:
    return b"event: " + kind.encode() + b"\ndata: " + _JSON.encode(data) + b"\n\n"


@dataclass(repr=False)
class Frame:
    """One build of the hall: the snapshot, the patch from the frame before, and what the
    phones are sent, each encoded at most once."""

    serial: int
    version: Any  # the director's version it was built from
    snapshot: dict[str, Any]
    keys: dict[str, Any]  # what identifies each part's content (see `_keys`)
    patch: bytes | None  # from frame serial - 1; None: send the whole snapshot
    director: Director
    # Each team's view as last encoded, (what it shows, the bytes): shared by the frames.
    encoded: dict[str, tuple[Any, bytes]]
    _json: bytes | None = None
    _views: dict[str, dict[str, Any]] | None = None  # each team's view, made once a frame
    _given: dict[str, bytes | None] | None = None  # the views this frame gave out

    def __repr__(self) -> str:
        return f"<Frame {self.serial}>"

    @property
    def json(self) -> bytes:
        if self._json is None:
            self._json = _JSON.encode({**self.snapshot, "serial": self.serial})
        return self._json

    @property
    def full(self) -> bytes:
        return b"event: snapshot\ndata: " + self.json + b"\n\n"

    def team(self, team: str) -> bytes | None:
        """The team's view as a `team` event, encoded when first asked for (the same bytes
        object as before when nothing in it changed), or None for an unknown team."""
        if self._given is None:
            self._given = {}
        elif team in self._given:
            return self._given[team]
        if self._views is None:
            self._views = hall.team_views(self.snapshot, self.director)
        view = self._views.get(team)
        out = None
        if view is not None:
            table = view["table"]
            key = ({k: v for k, v in view.items() if k != "table"},
                   self.keys["tables"].get(table["table"]) if table else None)
            known = self.encoded.get(team)
            if known is None or known[0] != key:
                known = self.encoded[team] = (key, encode("team", {
                    **view, "generated": self.snapshot["generated"], "sent": time.time()}))
            out = known[1]
        self._given[team] = out
        return out


class Built:
    """A frame the hall's own process built (`hall/process.py`): its bytes, as `Frame`'s."""

    def __init__(self, serial: int, json: bytes, patch: bytes | None,
                 views: dict[str, bytes | None]) -> None:
        self.serial, self.json, self.patch, self._views = serial, json, patch, views

    def __repr__(self) -> str:
        return f"<Built {self.serial}>"

    @property
    def full(self) -> bytes:
        return b"event: snapshot\ndata: " + self.json + b"\n\n"

    def team(self, team: str) -> bytes | None:
        return self._views.get(team)


def _keys(snap: dict[str, Any], rows: dict[int, Any]) -> dict[str, Any]:
    return {"tables": rows,
            "standings": {row["team"]: {**row, "rank": None} for row in snap["standings"]},
            "order": [row["team"] for row in snap["standings"]],
            "ranks": [row["rank"] for row in snap["standings"]],
            "set": {k: v for k, v in snap.items()
                    if k not in ("generated", "tables", "standings")}}


def _patch(serial: int, snap: dict[str, Any], keys: dict[str, Any], old: Frame
           ) -> bytes | None:
    """What changed since `old`, as a `patch` event; None when nothing a screen shows did."""
    before = old.keys
    changed = {k: v for k, v in keys["set"].items() if before["set"].get(k, ...) != v}
    out: dict[str, Any] = {"serial": serial, "boot": snap["boot"],
                           "generated": snap["generated"], "set": changed}
    if list(keys["tables"]) != list(before["tables"]):
        out["set"]["tables"] = snap["tables"]
    else:
        out["tables"] = [row for row in snap["tables"]
                         if keys["tables"][row["table"]] != before["tables"][row["table"]]]
    if set(keys["order"]) != set(before["order"]):
        out["set"]["standings"] = snap["standings"]
    else:
        out["standings"] = [row for row in snap["standings"] if
                            before["standings"][row["team"]] != keys["standings"][row["team"]]]
        moved = keys["order"] != before["order"]
        if moved:
            out["order"] = keys["order"]
        if moved or keys["ranks"] != before["ranks"]:  # (a rank goes by place: see _keys)
            out["ranks"] = keys["ranks"]
    if not any(out.get(k) for k in ("set", "tables", "standings", "order", "ranks")):
        return None
    out["sent"] = time.time()  # when the bytes exist: what a stream's delay is counted from
    return encode("patch", out)


class Remote(Protocol):
    """The hall's own process, as the feed sees it (`hall/process.HallProcess`)."""

    problems: dict[int, list[str]]  # by table, as its last fold found

    def refresh(self) -> None: ...

    async def follow(self, team: str) -> None: ...


class Slot:
    """A stream's place under the caps; given back once, however the stream ends."""

    def __init__(self, counts: Counter[str], address: str) -> None:
        self.counts, self.address, self.held = counts, address, True
        counts[""] += 1
        counts[address] += 1

    def release(self) -> None:
        if self.held:
            self.held = False
            self.counts[""] -= 1
            self.counts[self.address] -= 1
            if not self.counts[self.address]:
                del self.counts[self.address]


class HallFeed:
    def __init__(self, director: Director, address: str | Callable[[], str],
                 min_interval: float = MIN_INTERVAL, max_streams: int = MAX_STREAMS,
                 max_per_address: int = MAX_STREAMS_PER_ADDRESS,
                 on_build: Callable[[], None] | None = None) -> None:
        self.director = director
        # The address may change while the scorer runs (scorer/net/advertise.py).
        self.address: Callable[[], str] = address if callable(address) else lambda: address
        self.min_interval, self.on_build = min_interval, on_build
        self.max_streams, self.max_per_address = max_streams, max_per_address
        self.frame: Frame | Built | None = None
        self.first_serial = 1  # a new hall process goes on from the last serial sent
        self.boot = secrets.token_hex(4)  # this start of the scorer (see the wire format)
        # Builds the frames in a process of its own (`hall/process.py`), or None: here.
        self.remote: Remote | None = None
        self._first = asyncio.Event()  # a first frame, or the hall process gave up before it
        self.ping = encode("ping", {"now": director.clock()})
        self.pings = 0
        self.closing = False  # set when the server stops: the streams end
        self.streams: Counter[str] = Counter()  # open streams: "" all, and by address
        self._wake = asyncio.Event()
        self._asked = False

    # -- the update task --------------------------------------------------------------------

    def build(self) -> Frame:
        """A new frame from the store as it is now (on the event loop: it is incremental)."""
        director, old = self.director, self.frame
        version = director.version()
        snap, rows = hall.snapshot_and_keys(director, self.address())
        snap["boot"] = self.boot
        keys = _keys(snap, rows)
        if not isinstance(old, Frame):
            return Frame(self.first_serial, version, snap, keys, None, director, {})
        patch = _patch(old.serial + 1, snap, keys, old)
        if patch is None:  # nothing a screen shows changed: the same frame, its time moved on
            old.version, old.snapshot, old._json = version, snap, None
            return old
        return Frame(old.serial + 1, version, snap, keys, patch, director, old.encoded)

    def current(self) -> Frame | Built:
        """The latest frame, built now if there is none yet."""
        if self.frame is None:
            self._publish(self.build())
        assert self.frame is not None
        return self.frame

    async def ready(self) -> Frame | Built:
        """The latest frame, once the hall's process has sent its first (see `current`)."""
        if self.frame is None and self.remote is not None:
            await self._first.wait()
        return self.current()

    def problems(self, table: int) -> list[str]:
        """Why some of the table's matches are not scored, as the last fold found."""
        if self.remote is not None:
            return self.remote.problems.get(table, [])
        return self.director.problems(table, fresh=False)

    def due(self, now: float, last_build: float) -> bool:
        """Whether to build a frame now (with the rate cap, the asks, the refresh)."""
        if now - last_build < self.min_interval:
            return False
        frame = self.frame
        return frame is None or self._asked or now - last_build >= REFRESH_EVERY or \
            not isinstance(frame, Frame) or self.director.version() != frame.version

    def refresh(self) -> None:
        """Ask for a build as soon as the rate cap allows (something changed)."""
        self._asked = True
        if self.remote is not None:
            self.remote.refresh()

    async def run(self) -> None:
        """Runs for the server's life."""
        last_build = last_ping = 0.0
        while not self.closing:
            await asyncio.sleep(WATCH_EVERY)
            now = time.monotonic()
            if now - last_ping >= PING_EVERY:
                last_ping = now
                self.ping = encode("ping", {"now": self.director.clock()})
                self.pings += 1
                self._wake_all()
                await asyncio.sleep(0)  # the streams send it before a build holds the loop
            if self.remote is not None or not self.due(now, last_build):
                continue
            self._asked, last_build = False, now
            try:
                built = self.build()
            except Exception:  # a bug must not stop the hall's screens: keep the last one
                log.exception("terminal.scorer.log.hall_build")
                continue
            self._publish(built)
        self._wake_all()

    def _publish(self, frame: Frame | Built) -> None:
        if frame is self.frame:
            return  # nothing to send
        self.frame = frame
        self._first.set()
        if self.on_build is not None:
            self.on_build()
        self._wake_all()

    def _wake_all(self) -> None:
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()

    def close(self) -> None:
        """End every stream within WATCH_EVERY (safe from a signal handler or a thread)."""
        self.closing = True

    # -- streams ----------------------------------------------------------------------------

    def admit(self, address: str) -> Slot | None:
        """A place for a new stream from `address`, or None when the caps are reached."""
        if self.streams[""] >= self.max_streams or \
                self.streams[address] >= self.max_per_address:
            return None
        return Slot(self.streams, address)

    async def stream(self, slot: Slot, since: int | None = None, boot: str = ""
                     ) -> AsyncIterator[bytes]:
        """The hall: the whole snapshot (unless the screen has frame `since` of this start,
        `boot`, already: then what changed since), then patches."""
        if boot != self.boot:
            since = None
        try:
            frame = await self.ready()
            sent, pings = frame.serial, self.pings
            yield f"retry: {RETRY_MS}\n\n".encode()
            if since != frame.serial:  # the same bytes object for every stream: no copy
                yield frame.patch if since == frame.serial - 1 and frame.patch else frame.full
            while not self.closing:
                frame = self.current()
                if frame.serial != sent:  # published while this stream was sending
                    yield frame.patch if frame.serial == sent + 1 and frame.patch else frame.full
                    sent = frame.serial
                elif self.pings != pings:
                    pings = self.pings
                    yield self.ping
                else:
                    await self._wake.wait()
        finally:
            slot.release()

    async def team_stream(self, slot: Slot, team: str) -> AsyncIterator[bytes]:
        """One team's view, whenever it changes."""
        try:
            await self.ready()
            if self.remote is not None and team in self.director.team_names():
                await self.remote.follow(team)
            frame = self.current()
            last, seen, pings = frame.team(team), frame.serial, self.pings
            yield f"retry: {RETRY_MS}\n\n".encode()
            yield (last or b"") + self.ping
            while not self.closing:
                frame = self.current()
                if frame.serial != seen:
                    seen, view = frame.serial, frame.team(team)
                    if view is not None and view is not last:
                        last = view
                        yield view
                elif self.pings != pings:
                    pings = self.pings
                    yield self.ping
                else:
                    await self._wake.wait()
        finally:
            slot.release()

    async def team_json(self, team: str) -> bytes | None:
        """The team's view for `GET /api/team/ID`, the id in any letter case as a link may
        give it (None: no such team)."""
        await self.ready()
        names = self.director.team_names()
        if team not in names:
            same = [known for known in names if known.casefold() == team.casefold()]
            if len(same) != 1:
                return None
            team = same[0]
        if self.remote is not None:
            await self.remote.follow(team)
        view = self.current().team(team)
        if view is None:
            return None
        return view.split(b"data: ", 1)[1].rstrip(b"\n")
