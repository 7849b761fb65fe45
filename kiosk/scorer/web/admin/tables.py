"""The 牌桌 tab: the hall's tables and their kiosks (paired, online, troubled), the pairing
codes, swapping a kiosk, the hall's mute, and the scorer's clock checked by hand."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ....errors import Words, words
from ...director import Director, fleet, refuse, triage, views
from ...printing.templating import clock_text
from . import forms
from .forms import Said


def tables(director: Director, request: Request) -> dict[str, Any]:
    """The hall's tables. A table has a problem (the 有问题 filter) only for what its row then
    says in words: a match not scored, its kiosk's journal parting from the scorer's, what
    its kiosk reports wrong (its health, its clock off), or its kiosk offline while its table
    plays the current round. An idle table's kiosk switched off is offline, no problem; so is
    one switched off after its match (as on the results page and the hall's)."""
    director.require_event()
    now = director.clock()
    count = director.table_count()
    known = (director.store.links(), director.store.paired_tables())
    current = director.current_round()
    # the current round's tables whose match is not over, once it started (an offline kiosk
    # is trouble then, not while the round waits for its start), and those whose match is
    playing: set[int] = set()
    done: set[int] = set()
    if current and director.round_start(current) is not None:
        in_round = {t for t, _, _ in director.assignments(current)} | \
            set(director.seats(current))
        playing = set(director.unfinished(current)) & in_round
        done = in_round - playing
    links = {n: views.link_state(director, n, now, known, n in done)
             for n in range(1, count + 1)}
    problems = [(n, p) for n in range(1, count + 1) for p in director.unscored(n)]
    conflicts = director.store.conflicts()
    report = fleet.view(director, now)  # versions, health, clocks (fleet.py)
    pairings = director.store.pairings()
    # when each kiosk was last heard from: its pairing, its last report (both kept in the
    # store) or its last request since the scorer started (memory), the latest of them
    heard: dict[int, float] = {n: at for n, (_, at) in pairings.items() if at}
    for n, k in report["kiosks"].items():
        heard[n] = max(k["at"], heard.get(n, k["at"]))
    for n, (at, _) in known[0].items():
        heard[n] = max(at, heard.get(n, at))
    last_seen = {n: last_heard(heard.get(n), now) for n in links
                 if links[n] in ("offline", "returning")}
    trouble: dict[int, list[Words]] = {}
    for n, p in problems:
        trouble.setdefault(n, []).append(words("admin.results.problem", problem=p))
    for c in conflicts:
        trouble.setdefault(c["table"], []).append(words("admin.tables.trouble.conflict",
                                                        seq=c["seq"]))
    for n, k in report["kiosks"].items():
        if k["health"] != ("ok",):
            trouble.setdefault(n, []).append(words("admin.tables.trouble.health", what=(
                triage.listing([words(f"fleet.health.{h}") for h in k["health"]]))))
        if k["off"]:
            trouble.setdefault(n, []).append(words("admin.tables.trouble.offset",
                                                   offset=k["clock"],
                                                   limit=fleet.OFFSET_LIMIT))
    for n in sorted(playing):
        if links.get(n) == "offline":
            trouble.setdefault(n, []).append(words("admin.tables.trouble.offline",
                                                   round=current, seen=last_seen[n]))
    every = [{"table": n, "paired": n in known[1], "link": links[n],
              "problem": n in trouble} for n in range(1, count + 1)]
    show = forms.shown(request, triage.TABLE_FILTERS)
    asked = forms.query_int(request, "table", 0)  # the finder: one table's row alone
    shown = [asked] if 1 <= asked <= count else \
        [t["table"] for t in triage.chosen(every, triage.TABLE_FILTERS, show)]
    return {"count": count, "paired": known[1], "codes": director.store.open_codes(now),
            "shown": shown, "asked": asked,
            "show": show, "counts": triage.counted(every, triage.TABLE_FILTERS),
            "pairings": pairings,
            "code_states": director.store.code_states(now),
            "conflicts": conflicts, "links": links, "problems": problems,
            "orphans": len(director.store.orphans()), "muted": director.muted(),
            "in_use": director.tables_in_use(), "fleet": report, "last_seen": last_seen,
            "health": {n: triage.listing([words(f"fleet.health.{h}") for h in k["health"]])
                       for n, k in report["kiosks"].items()},
            "trouble": {n: triage.listing(said, "console.list.then")
                        for n, said in trouble.items()}}


def last_heard(at: float | None, now: float) -> Words:
    """When an offline kiosk was last heard from: 最后联系 03:12:40（3 分钟前）, or that no time
    is known (a store from before pairings kept their time, and no word since the start)."""
    if at is None:
        return words("admin.tables.never_heard")
    ago = max(0.0, now - at)
    if ago < 60:
        since = words("admin.ago.seconds", n=int(ago))
    elif ago < 3600:
        since = words("admin.ago.minutes", n=int(ago // 60))
    else:
        since = words("admin.ago.hours", n=int(ago // 3600))
    return words("admin.tables.last_seen", at=clock_text(at), ago=since)


def table_count(director: Director, form: FormData, who: str) -> Said:
    count = forms.whole(form, "count", "admin.label.tables")
    before = director.store.open_codes()
    codes = director.add_tables(count, by=who)
    issued = sum(1 for table, code in codes.items() if before.get(table) != code)
    return "admin.note.tables", {"count": count, "codes": issued}


def swap_kiosk(director: Director, form: FormData, who: str) -> Said:
    table = forms.whole(form, "table", "admin.label.table")
    code = director.swap(table, confirm=forms.confirmed(form), by=who)
    return "admin.note.kiosk_swapped", {"table": table, "code": code}


def new_code(director: Director, form: FormData, who: str) -> Said:
    table = forms.whole(form, "table", "admin.label.table")
    return "admin.note.new_code", {"table": table, "code": director.new_code(table, by=who)}


def mute(director: Director, form: FormData, who: str) -> Said:
    director.mute(form.get("on") == "1", by=who)
    return ("admin.note.muted" if director.muted() else "admin.note.unmuted"), {}


def clock_ok(director: Director, form: FormData, who: str) -> Said:
    """The head referee checked the scorer's clock by hand (fleet.py)."""
    if director.scorer_clock is None:
        raise refuse("fleet.admin.clock_unknown")
    director.scorer_clock.confirm()
    return "fleet.admin.clock_confirmed", {}


PAGES = {"tables": tables}
BACK = "/admin/tables"
FORMS = {"tables": table_count, "swap-kiosk": swap_kiosk, "new-code": new_code,
         "mute": mute, "clock-ok": clock_ok}
