"""The 成绩 tab: a round's matches counted by state with a filter each, one table's score
sheet, and a ruling on a table (forfeit, disqualification, adjusted result …)."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ...director import RULING_KINDS, Director, refuse, triage, views
from ...printing.pages import sheet_context
from ...printing.templating import lang_of
from . import forms
from .forms import Said


def results(director: Director, request: Request) -> dict[str, Any]:
    director.require_event()
    current = director.current_round()
    round_no = forms.query_int(request, "round", current)
    round_no = min(max(round_no, 1), max(current, 1))
    asked = request.query_params.get("round")  # a round the link names that is not shown
    other = asked[:12] if current and asked is not None and asked.strip() != str(round_no) \
        else None
    rows = views.round_rows(director, round_no) if current else []
    show = forms.shown(request, triage.MATCH_FILTERS)
    table = forms.query_int(request, "table", 0)
    groups = views.groups_now(director, round_no) if current else {}  # an individual round's
    return {"round": round_no, "current": current, "show": show, "total": len(rows),
            "asked_round": other,
            "rows": triage.chosen(rows, triage.MATCH_FILTERS, show),
            "counts": triage.counted(rows, triage.MATCH_FILTERS),
            "attention": triage.ATTENTION,
            "byes": views.bye_rows(director, round_no) if current and not show else [],
            "kinds": RULING_KINDS, "table": table,
            "chosen": next((r for r in rows if r.table == table), None),
            "individual": director.require_event().individual,
            "groups": {t: g for t, g in groups.items() if show != "unfinished" or not g.over},
            "group_count": len(groups), "groups_left": sum(not g.over for g in groups.values()),
            "names": director.team_names()}


def sheet(director: Director, request: Request) -> dict[str, Any]:
    """A match's score sheet; a round or table that is no number, or has no match, is refused
    (a blank sheet to fill by hand said 第 0 桌 for `?table=abc`)."""
    current = director.current_round()
    asked = request.query_params
    round_no = forms.whole(asked, "round", "admin.label.round", default=current)
    table = forms.whole(asked, "table", "admin.label.table")
    if not 1 <= round_no <= current:
        raise refuse("admin.error.no_such_round", round=round_no, current=current)
    if table not in {t for t, _, _ in director.assignments(round_no)} | \
            set(director.seats(round_no)):
        raise refuse("admin.error.no_match_at", table=table, round=round_no)
    return {"sheet": sheet_context(director, round_no, table, lang_of(request))}


def ruling(director: Director, form: FormData, who: str) -> Said:
    kind = forms.text(form, "kind")
    # an adjusted result is the levels it is won by: left empty, it is asked for, never 0
    # (an event whose ties net levels do not break asks none: the form has no such field)
    net = forms.whole(form, "net", "admin.label.net") \
        if kind == "adjusted" and director.require_event().net_levels else 0
    made = director.record_ruling(
        forms.whole(form, "table", "admin.label.table"), kind, forms.text(form, "loser"),
        forms.text(form, "reason"), forms.whole(form, "round", "admin.label.round"), net,
        by=who, confirm=forms.confirmed(form))
    return "admin.note.ruled", {"round": made.round, "table": made.table}


PAGES = {"results": results, "sheet": sheet}
BACK = "/admin/results"
FORMS = {"ruling": ruling}
