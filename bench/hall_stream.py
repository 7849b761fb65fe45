"""Following the hall's event stream as a screen does, for the benchmarks (not a benchmark).

`merge` is the page's feed.js in Python: a `patch` replaces top-level keys, table rows by
number and standings rows by team; `follow` yields (kind, data, arrival time, size) and keeps
the snapshot up to date through the patches.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx


def merge(snap: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any] | None:
    """The snapshot after `patch`, or None when the patch does not follow it (another
    serial, or another start of the scorer)."""
    if patch.get("serial") != snap.get("serial", -2) + 1 or patch.get("boot") != snap.get("boot"):
        return None
    out = {**snap, **patch["set"]}
    if "tables" not in patch["set"]:
        changed = {row["table"]: row for row in patch.get("tables", [])}
        out["tables"] = [changed.get(row["table"], row) for row in snap["tables"]]
    if "standings" not in patch["set"]:
        rows = {row["team"]: row for row in snap["standings"]}
        rows.update({row["team"]: row for row in patch.get("standings", [])})
        order = patch.get("order") or [row["team"] for row in snap["standings"]]
        out["standings"] = [rows[team] for team in order]
        if "ranks" in patch:
            out["standings"] = [{**row, "rank": rank}
                                for row, rank in zip(out["standings"], patch["ranks"], strict=True)]
    out["generated"], out["serial"] = patch["generated"], patch["serial"]
    return out


def follow(url: str, timeout: float = 30.0, verify: Any = True
           ) -> Iterator[tuple[str, dict[str, Any], float, int]]:
    """Each message of /api/hall/stream as (kind, the snapshot after it or the ping's data,
    when its last line arrived (monotonic), its size in bytes)."""
    snap: dict[str, Any] | None = None
    with httpx.Client(timeout=httpx.Timeout(timeout, read=timeout), verify=verify) as client, \
            client.stream("GET", url + "/api/hall/stream") as reply:
        kind = ""
        for line in reply.iter_lines():
            now = time.monotonic()
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                data = json.loads(line[5:])
                if kind == "snapshot":
                    snap = data
                elif kind == "patch":
                    merged = merge(snap, data) if snap is not None else None
                    if merged is None:
                        raise RuntimeError(f"patch {data.get('serial')} does not follow "
                                           f"snapshot {snap and snap.get('serial')}")
                    snap = merged
                else:
                    yield kind, data, now, len(line)
                    continue
                yield kind, snap, now, len(line)
