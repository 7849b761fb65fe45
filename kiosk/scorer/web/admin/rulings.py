"""The 判罚 tab: every ruling, the removed ones too, and removing one (with a reason)."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ...director import Director
from ...printing.templating import lang_of, said, words
from . import forms
from .forms import Said


def rulings(director: Director, request: Request) -> dict[str, Any]:
    director.require_event()
    t = words(lang_of(request))
    teams = {}
    for r in director.rulings(removed=True):
        ns, ew = director.teams_at(r.round, r.table)
        teams[r.id] = (said(t, director.label(ns)), said(t, director.label(ew)))
    return {"rulings": director.rulings(removed=True), "teams": teams}


def unrule(director: Director, form: FormData, who: str) -> Said:
    removed = director.remove_ruling(forms.whole(form, "ruling", "admin.label.ruling"),
                                     forms.text(form, "reason"), forms.confirmed(form), by=who)
    return "admin.note.unruled", {"round": removed.round, "table": removed.table}


PAGES = {"rulings": rulings}
BACK = "/admin/rulings"
FORMS = {"unrule": unrule}
