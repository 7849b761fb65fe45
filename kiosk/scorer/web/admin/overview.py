"""The 概览 tab: the event (create, edit, the bye's points), what to do next, what needs the
head referee now, and closing or reopening the event."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ...director import Director, triage, views
from ...printing.templating import clock_text, lang_of, words
from . import forms
from .forms import Said


def overview(director: Director, request: Request) -> dict[str, Any]:
    event = director.event()
    names = ruleset_names(director, lang_of(request))
    if event is None:
        return {"rulesets": list(director.rulesets.values()), "ruleset_names": names}
    current = director.current_round()
    playing = bool(current) and director.round_start(current) is not None and \
        not director.round_over(current)
    return {"next_step": next_step(director), "bye_points": director.bye_points(),
            "attention": triage.attention(views.round_rows(director, current))
            if playing else [],
            "tables_told": director.tables_told(),
            "win_points": director.ruleset().result.win_points,
            "current": director.current_round(), "clock": director.round_clock(),
            "teams": len(director.team_rows()), "tables": director.table_count(),
            "rulesets": list(director.rulesets.values()), "ruleset_names": names}


def ruleset_names(director: Director, lang: str) -> dict[str, str]:
    """Each ruleset as the head referee picks it: by its name (厦门 2015 规则), never its file's
    id; two of one name (a house copy) are told apart by their ids."""
    named = {r.id: r.name(lang) for r in director.rulesets.values()}
    twice = {name for name in named.values() if list(named.values()).count(name) > 1}
    say = words(lang)
    return {id_: say("admin.with_id", name=name, id=id_) if name in twice else name
            for id_, name in named.items()}


def next_step(director: Director) -> Said:
    """What the head referee does next, as a catalog key and its parameters."""
    event = director.require_event()
    if event.status == "closed":
        return "admin.next.closed", {}
    if not director.team_rows():
        return "admin.next.teams", {}
    if not director.table_count():
        return "admin.next.tables", {}
    current = director.current_round()
    start = director.round_start(current) if current else None
    if current and start is None:
        return "admin.next.start", {"round": current}
    if start is not None and start > director.clock() and not director.round_over(current):
        return "admin.next.starting", {"round": current, "time": clock_text(start)}
    if current and director.paused():
        return "admin.next.paused", {"round": current}
    if current and not director.round_over(current):
        rows = views.round_rows(director, current)
        left = len(director.unfinished(current))  # (an individual round's groups too)
        needs = triage.attention_words(rows)
        if needs is None:
            return "admin.next.playing", {"round": current, "n": left}
        return "admin.next.playing_attention", {"round": current, "n": left, "needs": needs}
    if event.rounds and current >= event.rounds:
        if event.individual and any(s.tied and s.prize for s in director.standings()):
            return "admin.next.order_ties", {}  # (the head referee's to order, first)
        return "admin.next.close", {}
    if director.current_draft() is not None:
        return "admin.next.publish", {"round": current + 1}
    if event.individual and len(director._active(current + 1)) % 4:
        return "admin.error.groups_of_four", {"players": len(director._active(current + 1))}
    return "admin.next.draft", {"round": current + 1}


def create_event(director: Director, form: FormData, who: str) -> Said:
    # (a field left empty: the ruleset's; a 0 typed is refused, not taken for empty)
    rounds = forms.whole(form, "rounds", "admin.label.rounds", default=None)
    minutes = forms.number(form, "minutes", "admin.label.minutes", default=None)
    seed = forms.whole(form, "seed", "admin.label.seed", default=None)
    event = director.create_event(forms.text(form, "name"), forms.text(form, "ruleset"),
                                  rounds, minutes, seed, by=who)
    return "admin.note.event_created", {"name": event.name}


def edit_event(director: Director, form: FormData, who: str) -> Said:
    """The fields the form sent (a locked one is not sent: it stays as it is; the minutes
    sent empty: the ruleset's, as when the event was created; 0: no time limit)."""
    rounds = forms.whole(form, "rounds", "admin.label.rounds", default=None)
    minutes = forms.number(form, "minutes", "admin.label.minutes", default=None)
    changed, unpaired = director.edit_event(
        forms.text(form, "name") if "name" in form else None,
        forms.text(form, "ruleset") if "ruleset" in form else None, rounds, minutes,
        confirm=forms.confirmed(form), by=who,
        minutes_by_ruleset="minutes" in form and minutes is None)
    if unpaired:
        return "admin.note.event_edited_codes", {"tables": triage.number_list(unpaired)}
    return ("admin.note.event_edited" if changed else "admin.note.event_unchanged"), {}


def bye_points(director: Director, form: FormData, who: str) -> Said:
    points = forms.whole(form, "points", "admin.label.bye_points")
    director.set_bye_points(points, forms.confirmed(form), by=who)
    return "admin.note.bye_points", {"points": points}


def close(director: Director, form: FormData, who: str) -> Said:
    director.close_event(forms.confirmed(form), by=who)
    return "admin.note.closed", {}


def reopen(director: Director, form: FormData, who: str) -> Said:
    director.reopen_event(forms.text(form, "reason"), by=who)
    return "admin.note.reopened", {}


PAGES = {"overview": overview}
BACK = "/admin"  # where its forms come back to
FORMS = {"event": create_event, "edit-event": edit_event, "bye-points": bye_points,
         "close": close, "reopen": reopen}
