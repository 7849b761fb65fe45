"""Joining the hall: find the scorer, pair with the head referee's code (or reuse the saved
credential), and, for a replacement kiosk, start from the table's events at the scorer."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from ..errors import LinkError, NotPaired
from ..protocol.wire import event_hash
from ..rules import Rulesets
from ..table.journal import Journal, table_path
from .link import Credential, ScorerBusy, ScorerLink


def join(data_dir: str | Path, table: int, url: str | None, code: str | None,
         rulesets: Rulesets, client: httpx.Client | None = None,
         running: bool = False) -> ScorerLink:
    """The link of `table` to the scorer at `url` ("auto" or None with a saved credential:
    the saved URL, else every scorer mDNS finds, in turn). With `code`, pair afresh; a kiosk
    whose journal is empty then downloads what the scorer has for the table and continues
    from it. `running`: the table's session has the journal open (pairing from the running
    kiosk's outbox): it is only read, and a download it would need is refused.
    Raises LinkError (NotPaired: no credential and no code) or JournalError."""
    saved = Credential.load(data_dir, table)
    if code is None and saved is None:
        raise NotPaired(f"table {table} is not paired with the scorer yet: "
                        f"kiosk pair --data {data_dir} --table {table} CODE", None,
                        "sync.not-paired", {"table": table, "data": str(data_dir)})
    if code is None:
        assert saved is not None
        return ScorerLink(saved.url if url in (None, "auto") else url, client, saved)
    if saved is not None:
        kept = _still_paired(saved, url, client)
        if kept is not None:
            return kept
    urls = _discover() if url in (None, "auto") else [url]
    failure: LinkError | None = None
    for candidate in urls:  # an mDNS answer is only an address to try
        link = ScorerLink(candidate, client)
        try:
            _pair(link, data_dir, table, code, rulesets, running)
            return link
        except LinkError as exc:
            if client is None:
                link.close()
            failure = exc
            if exc.key != "sync.pair-impostor" and exc.status is not None:
                break  # the scorer itself refused: another address will not help
    assert failure is not None
    raise failure


#: Refusals of the code itself: the same code would be refused again (and a wrong one would
#: use up its tries), so a code refused so is not sent again.
CODE_REFUSED = frozenset({"sync.wrong-code-left", "sync.wrong-code", "sync.no-code",
                          "sync.ruleset-differs"})


def pair_later(data_dir: str | Path, table: int, url: str | None, code: str,
               rulesets: Rulesets, client: httpx.Client | None = None,
               first: LinkError | None = None) -> Callable[[], ScorerLink]:
    """A first boot's code, to be tried from the outbox's thread until the scorer answers: each
    call is `join` (running), until the scorer refuses the code itself; from then on that
    refusal is raised again without asking (a new code, or the right ruleset file, comes
    with a restart). `first`: the refusal of the try at the table's start."""
    refused = [first] if first is not None and first.key in CODE_REFUSED else []

    def pair() -> ScorerLink:
        if refused:
            raise refused[0]
        try:
            return join(data_dir, table, url, code, rulesets, client, running=True)
        except LinkError as exc:
            if exc.key in CODE_REFUSED:
                refused.append(exc)
            raise

    return pair


PAIR_TRIES = 10  # tries of a pairing turned away for now: the waits the scorer asks, a minute or so
SLOW_WAIT = 3.0  # seconds before a pairing the scorer did not answer in time is tried again


def join_when_let(data_dir: str | Path, table: int, url: str | None, code: str | None,
                  rulesets: Rulesets, waiting: Callable[[LinkError, float], None],
                  sleep: Callable[[float], None] = time.sleep,
                  client: httpx.Client | None = None) -> ScorerLink:
    """`join`, tried again when the scorer says to come back later (more kiosks pairing at the
    same moment from one address than it allows, as simulators on one machine are; or a scorer
    that is behind): after the wait it asks for, a little more so that they do not all come
    back together; or that did not answer in time. `waiting(error, seconds)` is told before
    each wait. Any other refusal is raised at once, as is the last."""
    for attempt in range(1, PAIR_TRIES + 1):
        try:
            return join(data_dir, table, url, code, rulesets, client)
        except LinkError as exc:
            if isinstance(exc, ScorerBusy):
                wait = exc.retry_after
            elif exc.key == "sync.slow":
                wait = SLOW_WAIT
            else:
                raise
            if attempt == PAIR_TRIES:
                raise
            wait *= random.uniform(1.0, 1.2)
            waiting(exc, wait)
            sleep(wait)
    raise AssertionError("unreachable")


def _still_paired(saved: Credential, url: str | None, client: httpx.Client | None
                  ) -> ScorerLink | None:
    """The saved pairing's link, if the scorer still takes it: a code given again (an old one
    on a restarted kiosk's command line, a technician pairing twice) is then not needed and
    not used up. None when the scorer refuses it (the kiosk was swapped out) or cannot be
    reached at the saved address (a new scorer: pair afresh)."""
    link = ScorerLink(saved.url if url in (None, "auto") else url, client, saved)
    try:
        link.assignment()
    except LinkError:
        if client is None:
            link.close()
        return None
    return link


def _pair(link: ScorerLink, data_dir: str | Path, table: int, code: str,
          rulesets: Rulesets, running: bool = False) -> None:
    path = table_path(data_dir, table)
    journal = Journal.reader(path) if running else Journal(path)
    try:
        credential = link.pair(code, table, journal.device,
                               {r.id: r.sha256 for r in rulesets.values()})
        at_scorer = link.download()
        if journal.last_seq == 0 and at_scorer:
            if running:  # the session writes this journal: it downloads when it starts
                raise LinkError(f"the scorer has {len(at_scorer)} events for this table: "
                                "restart the kiosk to download them", 409,
                                "sync.pair-restart", {"m": len(at_scorer)})
            journal.adopt(at_scorer)
        elif journal.last_seq:
            _check_same_table(journal, at_scorer)
        # Saved last: if the download failed, pairing again with the same code works (the
        # scorer lets the same kiosk pair again while its credential is unused).
        credential.save(data_dir)
    finally:
        journal.close()


def _check_same_table(journal: Journal, at_scorer: list[dict[str, object]]) -> None:
    """A kiosk with a journal may pair only if its journal and the scorer's events for the
    table agree: one must be the start of the other, event for event (by their hashes)."""
    ours = [event_hash(e.to_json()) for e in journal.events_after(0, len(at_scorer))]
    theirs = [event_hash(e) for e in at_scorer[:len(ours)]]
    if ours != theirs or len(at_scorer) > journal.last_seq:
        raise LinkError(
            f"this kiosk's journal ({journal.last_seq} events) is not the scorer's record of "
            f"this table ({len(at_scorer)} events): move {journal.path.name} aside (keep it: "
            "the head referee can import it) and pair again to start from the scorer's",
            409, "sync.journal-differs",
            {"n": journal.last_seq, "m": len(at_scorer), "file": journal.path.name})


def _discover() -> list[str]:
    from .discover import candidates

    found = candidates(timeout=5.0)
    if not found:
        raise LinkError("no scorer announced itself on the LAN; give its URL (--scorer URL)",
                        None, "sync.no-scorer-found")
    return found
