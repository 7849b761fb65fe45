"""The 牌桌 tab: the hall's tables and their kiosks (paired, online, troubled), the pairing
codes, swapping a kiosk, the hall's mute, and the scorer's clock checked by hand."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ...director import Director, fleet, refuse, triage, views
from . import forms
from .forms import Said


def tables(director: Director, request: Request) -> dict[str, Any]:
    director.require_event()
    now = director.clock()
    count = director.table_count()
    known = (director.store.links(), director.store.paired_tables())
    current = director.current_round()  # its tables whose match is over: a kiosk switched
    done: set[int] = set()  # off then is no alarm (as on the results page and the hall's)
    if current and director.round_start(current) is not None:
        played = {t for t, _, _ in director.assignments(current)} | set(director.seats(current))
        done = played - set(director.unfinished(current))
    links = {n: views.link_state(director, n, now, known, n in done)
             for n in range(1, count + 1)}
    problems = [(n, p) for n in range(1, count + 1) for p in director.unscored(n)]
    conflicts = director.store.conflicts()
    report = fleet.view(director, now, done)  # versions, health, clocks (fleet.py)
    troubled = {n for n, _ in problems} | {c["table"] for c in conflicts} | \
        {n for n, k in report["kiosks"].items() if k["bad"]}
    every = [{"table": n, "paired": n in known[1], "link": links[n],
              "problem": n in troubled} for n in range(1, count + 1)]
    show = forms.shown(request, triage.TABLE_FILTERS)
    asked = forms.query_int(request, "table", 0)  # the finder: one table's row alone
    shown = [asked] if 1 <= asked <= count else \
        [t["table"] for t in triage.chosen(every, triage.TABLE_FILTERS, show)]
    return {"count": count, "paired": known[1], "codes": director.store.open_codes(now),
            "shown": shown, "asked": asked,
            "show": show, "counts": triage.counted(every, triage.TABLE_FILTERS),
            "pairings": director.store.pairings(),
            "code_states": director.store.code_states(now),
            "conflicts": conflicts, "links": links, "problems": problems,
            "orphans": len(director.store.orphans()), "muted": director.muted(),
            "in_use": director.tables_in_use(), "fleet": report}


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
