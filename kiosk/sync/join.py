"""Joining the hall: find the scorer, pair with the head referee's code (or reuse the saved
credential), and, for a replacement kiosk, start from the table's events at the scorer."""

from __future__ import annotations

from pathlib import Path

import httpx

from ..rules import Rulesets
from ..table.journal import Journal, table_path
from .link import Credential, LinkError, ScorerLink


class NotPaired(LinkError):
    """The table has no credential and no pairing code was given."""


def join(data_dir: str | Path, table: int, url: str | None, code: str | None,
         rulesets: Rulesets, client: httpx.Client | None = None) -> ScorerLink:
    """The link of `table` to the scorer at `url` ("auto" or None with a saved credential:
    the saved URL, else mDNS). With `code`, pair afresh; a kiosk whose journal is empty then
    downloads what the scorer has for the table and continues from it."""
    saved = Credential.load(data_dir, table)
    if code is None and saved is None:
        raise NotPaired(f"table {table} is not paired with the scorer yet: "
                        f"kiosk pair --data {data_dir} --table {table} CODE")
    if url in (None, "auto"):
        url = saved.url if saved and not code else _discover()
    link = ScorerLink(url, client, saved if saved and not code else None)
    if code is None:
        return link
    journal = Journal(table_path(data_dir, table))
    try:
        credential = link.pair(code, journal.device,
                               {r.id: r.sha256 for r in rulesets.values()})
        if credential.table != table:
            raise LinkError(f"that code pairs table {credential.table}, not table {table}")
        at_scorer = link.download()
        if journal.last_seq == 0:
            journal.adopt(at_scorer)
        else:
            _check_same_table(journal, at_scorer)
        # Saved last: if the download failed, pairing again with the same code works (the
        # scorer gives the same kiosk its credential again).
        credential.save(data_dir)
    finally:
        journal.close()
    return link


def _check_same_table(journal: Journal, at_scorer: list[dict[str, object]]) -> None:
    """A kiosk with a journal may pair only if its journal and the scorer's events for the
    table agree: one must be the start of the other."""
    ours = [(e.device, e.seq) for e in journal.events_after(0, len(at_scorer))]
    theirs = [(e["device"], e["seq"]) for e in at_scorer[:len(ours)]]
    if ours != theirs or len(at_scorer) > journal.last_seq:
        raise LinkError(
            f"this kiosk's journal ({journal.last_seq} events) is not the scorer's record of "
            f"this table ({len(at_scorer)} events): move {journal.path.name} aside (keep it: "
            "the head referee can import it) and pair again to start from the scorer's")


def _discover() -> str:
    from ..scorer.discovery import find

    found = find(timeout=5.0)
    if found is None:
        raise LinkError("no scorer announced itself on the LAN; give its URL (--scorer URL)")
    return found
