"""Each table's last contact, carried across a restart of the scorer.

The contacts live in memory (`Store.heard`: a heartbeat a second from each table is no write
for the store). A copy is written beside the store every SAVE_EVERY seconds and when the
scorer stops, so a restarted scorer knows which kiosks were online a moment before. Those come
back by themselves: a kiosk whose scorer stopped answering backs off to at most 30 s between
tries (`kiosk.sync.outbox.BACKOFF_MAX`). Until a kiosk is heard from again, and for at most
RESTART_GRACE seconds, the hall and the console say it is reconnecting (`returning`) rather
than 离线 in red, which sent floor staff to tables that were fine. A kiosk that was already
offline stays offline, with the time it was last heard from.

The file is a cache: missing, unreadable or of another shape, it counts as no contact known.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..store.database import Store

NAME = "contacts.json"
SAVE_EVERY = 10.0  # seconds between copies (a SIGKILL loses at most this much)
# Seconds a kiosk online before a restart has to come back: its longest backoff (30 s), its
# request's timeout (5 s) and its outbox's next turn (1 s), with a few to spare.
RESTART_GRACE = 40.0

Links = dict[int, tuple[float, int]]


def path_of(store: Store) -> Path:
    return store.path.parent / NAME


def save(store: Store, now: float) -> None:
    """Write the tables' contacts as of scorer time `now` (atomically: a crash while writing
    leaves the last copy)."""
    links = {str(t): [seen, behind] for t, (seen, behind) in store.links().items()}
    path = path_of(store)
    temporary = path.with_name(f".{NAME}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        json.dump({"saved": now, "links": links}, out)
    os.replace(temporary, path)


def load(path: Path) -> tuple[float, Links]:
    """When the copy was written, and the contacts it holds ((0.0, {}) when there is none)."""
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        saved = float(kept["saved"])
        links = {int(t): (float(seen), int(behind)) for t, (seen, behind) in
                 kept["links"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return 0.0, {}
    return saved, links


def resume(store: Store, now: float, online_within: float) -> None:
    """At the scorer's start (scorer time `now`): the contacts from before the restart, and
    the tables whose kiosk was online then, expected back within RESTART_GRACE."""
    saved, links = load(path_of(store))
    for table, link in links.items():
        store.heard(table, *link)
    store.returning = {table: now + RESTART_GRACE for table, (seen, _) in links.items()
                       if saved - seen <= online_within}
