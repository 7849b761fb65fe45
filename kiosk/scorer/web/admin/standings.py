"""The 排名 tab: the standings, searchable by team, name or unit; in an individual event,
the head referee orders a tie there (rules.md §8)."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ...director import Director, triage, views
from . import forms
from .forms import Said


def standings(director: Director, request: Request) -> dict[str, Any]:
    director.require_event()
    everyone = views.standing_rows(director)
    query = request.query_params.get("q", "").strip()[:40]
    return {"standings": [s for s in everyone if triage.found(query, s.team, s.name, s.unit)],
            "query": query, "total": len(everyone), "tie_order": director.tie_order()}


def order_tie(director: Director, form: FormData, who: str) -> Said:
    """A tied player placed ahead of those they tie with, or (`undo`) tied with them again."""
    player, undo = forms.text(form, "player"), form.get("undo") == "1"
    director.order_tie(player, undo=undo, by=who)
    return ("admin.note.tie_undone" if undo else "admin.note.tie_ordered"), {
        "player": director.label(director.team(player).id)}


PAGES = {"standings": standings}
BACK = "/admin/standings"
FORMS = {"order-tie": order_tie}
