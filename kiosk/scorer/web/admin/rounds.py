"""The 轮次 tab: the next round's private draft (swaps, discard), publishing it, undoing it,
starting it, and the round's clock (pause, resume, extend, stop)."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from starlette.datastructures import FormData
from starlette.requests import Request

from ....errors import AdminError
from ....i18n import explain
from ...director import Director, Draft, views
from ...director.pairer import prepare_pairing
from ...printing.templating import lang_of
from . import forms
from .forms import FormRefusal, Said


def rounds(director: Director, request: Request) -> dict[str, Any]:
    director.require_event()
    draft = director.current_draft()
    current = director.current_round()
    draft_tables = []
    if draft is not None:
        names, units = director.team_names(), {t.id: t.unit for t in director.teams()}
        warnings = director.draft_warnings(draft)
        facts = _draft_facts(director)
        for n, (ns, ew) in enumerate(draft.plan.pairs, 1):
            draft_tables.append({"table": n, "ns": ns, "ew": ew, "ns_name": names[ns],
                                 "ew_name": names[ew], "ns_unit": units.get(ns, ""),
                                 "ew_unit": units.get(ew, ""),
                                 "ns_facts": facts.get(ns), "ew_facts": facts.get(ew),
                                 "warnings": [w for w in warnings if w.table == n]})
        for n, group in enumerate(draft.plan.groups, 1):
            draft_tables.append({"table": n, "group": [names[p] for p in group],
                                 "warnings": [w for w in warnings if w.table == n]})
        general = [w for w in warnings if w.table == 0]
    else:
        general = []
    can_draft = None
    if draft is None:
        try:
            director.next_round()
            can_draft = ""
        except AdminError as exc:
            can_draft = explain(exc, lang_of(request))
    published = bool(current) and director.round_start(current) is None
    undo_refusal = director.undo_refusal(current) if current and not published else None
    names = director.team_names()
    placed = draft.plan.placed() if draft else []
    clock = director.round_clock()
    warned_only = request.query_params.get("show") == "warned"  # a hall's draft: the
    warned = [d for d in draft_tables if d["warnings"]]  # tables to look at, alone
    # the lead-in before a round's start: its time left is not yet the round's, nor has a
    # table begun it
    starts_in = clock["started_at"] - director.clock() if clock and clock["state"] == "running" \
        and clock["started_at"] > director.clock() else None
    return {"draft": draft, "draft_teams": [(x, names[x]) for x in placed],
            "draft_tables": warned if warned_only else draft_tables,
            "draft_total": len(draft_tables), "warned": len(warned),
            "warned_only": warned_only, "general": general,
            "stale": draft is not None and director.draft_is_stale(draft),
            "can_draft": can_draft, "current": current, "published": published,
            "can_undo": bool(current) and not published and undo_refusal is None,
            # (why 撤回 is not there, while the round is played; a round over needs no why)
            "undo_refused": explain(undo_refusal, lang_of(request))
            if undo_refusal and not director.round_over(current) else "",
            "seen_draft": seen_draft(draft, current + 1),
            "seen_round": seen_round(director, current),
            "rows": views.round_rows(director, current) if current else [],
            "byes": views.bye_rows(director, current) if current else [],
            "groups": director.seats(current) if current else {},
            "names": names, "clock": clock,
            "time_left": director.round_time_left(clock) if clock else None,
            "starts_in": starts_in, "note": director.round_note(current) if current else "",
            "unfinished": len(director.unfinished(current))
            if current and not published and not starts_in else 0}


def _draft_facts(director: Director) -> dict[str, dict[str, Any]]:
    """What the head referee weighs a drafted match by, for each team: its rank and big
    points so far, and how often it sat NS and EW (a swap of sides keeps them level). None
    before any match is played: every team 「并列第 1 名 · 0 大分」 says nothing."""
    sides = director.sides_so_far()
    none: Counter[str] = Counter()
    standings = director.standings()
    if not any(s.played for s in standings):
        return {}
    return {s.team: {"rank": s.rank, "tied": s.tied, "points": s.points,
                     "ns": sides.get(s.team, none)["NS"], "ew": sides.get(s.team, none)["EW"]}
            for s in standings}


def seen_draft(draft: Draft | None, next_round: int) -> str:
    """What a page showed of the next round, sent back by every form on its draft: the
    draft's round and a fingerprint of its pairing (any swap changes it), or "none"."""
    if draft is None:
        return f"{next_round}:none"
    return f"{draft.round}:{hashlib.sha256(draft.as_json().encode()).hexdigest()[:16]}"


def seen_round(director: Director, current: int) -> str:
    """What a page showed of the last published round, sent back by its forms (undo, start,
    the hall's clock): its number and whether it had started."""
    started = bool(current) and director.round_start(current) is not None
    return f"{current}:{'started' if started else 'published'}"


def as_seen(director: Director, form: FormData) -> None:
    """Refuse, in words, a form sent from a page that showed the draft or the round as it no
    longer is: another window (or the command line) published, discarded, drafted again,
    swapped, undid or started it meanwhile. The action would otherwise fall on something the
    head referee never saw, or report a success that did not happen ("草稿已放弃" for a draft
    already published). A form without `seen` (a script's) is taken as it is."""
    seen = forms.text(form, "seen")
    if not seen:
        return
    number, _, what = seen.partition(":")
    if not number.isdigit():
        raise FormRefusal("admin.stale.page")
    round_no, current = int(number), director.current_round()
    if what in ("published", "started"):
        if seen == seen_round(director, current):
            return
        if current < round_no:
            raise FormRefusal("admin.stale.undone", round=round_no)
        if current > round_no:
            raise FormRefusal("admin.stale.next_round", round=round_no, current=current)
        raise FormRefusal("admin.stale.started" if what == "published" else
                          "admin.stale.republished", round=round_no)
    draft = director.current_draft()
    if seen == seen_draft(draft, current + 1):
        return
    if current >= round_no:
        raise FormRefusal("admin.stale.published", round=round_no)
    if what == "none":
        raise FormRefusal("admin.stale.drafted", round=round_no)
    if draft is None:
        raise FormRefusal("admin.stale.discarded", round=round_no)
    raise FormRefusal("admin.stale.changed", round=round_no)


async def draft(director: Director, form: FormData, who: str) -> Said:
    await prepare_pairing(director)  # in the worker: the event loop goes on meanwhile
    as_seen(director, form)  # (after the wait: another window may have acted meanwhile)
    made = director.make_draft(by=who, confirm=forms.confirmed(form))
    return "admin.note.drafted", {"round": made.round}


def discard(director: Director, form: FormData, who: str) -> Said:
    as_seen(director, form)
    director.discard_draft(by=who, confirm=forms.confirmed(form))
    return "admin.note.discarded", {}


def swap_teams(director: Director, form: FormData, who: str) -> Said:
    as_seen(director, form)
    a = forms.text(form, "first") or forms.required("admin.rounds.first_team")
    b = forms.text(form, "second") or forms.required("admin.rounds.second_team")
    director.swap_teams(a, b, by=who)
    return "admin.note.swapped_teams", {"first": director.label(director.team(a).id),
                                        "second": director.label(director.team(b).id)}


def swap_tables(director: Director, form: FormData, who: str) -> Said:
    as_seen(director, form)
    a = forms.whole(form, "first", "admin.label.table")
    b = forms.whole(form, "second", "admin.label.table")
    director.swap_tables(a, b, by=who)
    return "admin.note.swapped_tables", {"first": a, "second": b}


def swap_sides(director: Director, form: FormData, who: str) -> Said:
    as_seen(director, form)
    table = forms.whole(form, "table", "admin.label.table")
    director.swap_sides(table, by=who)
    return "admin.note.swapped_sides", {"table": table}


async def publish(director: Director, form: FormData, who: str) -> Said:
    await prepare_pairing(director)  # (publishing without a draft drafts it first)
    as_seen(director, form)
    return "admin.note.published", {"round": director.publish(forms.confirmed(form), by=who)}


def undo(director: Director, form: FormData, who: str) -> Said:
    as_seen(director, form)
    return "admin.note.undone", {"round": director.undo_round(forms.confirmed(form), by=who)}


def start(director: Director, form: FormData, who: str) -> Said:
    as_seen(director, form)
    seconds = forms.number(form, "start_in", "admin.label.start_in", default=30.0)
    round_no = director.start_clock(seconds, by=who, confirm=forms.confirmed(form))
    if round(seconds) == 0:  # not 「将于 0 秒后开始」
        return "admin.note.started_now", {"round": round_no}
    return "admin.note.started", {"round": round_no, "seconds": round(seconds)}


def clock(director: Director, form: FormData, who: str) -> Said:
    as_seen(director, form)
    action = forms.text(form, "action")
    if action == "pause":
        director.pause_clock(by=who)
    elif action == "resume":
        director.resume_clock(by=who)
    elif action == "extend":
        minutes = forms.number(form, "minutes", "admin.label.extend_minutes")
        director.extend_clock(minutes, by=who)
        return "admin.note.clock_extend", {"minutes": forms.shown_number(minutes)}
    elif action == "stop":
        director.stop_clock(forms.confirmed(form), by=who)
    else:
        raise FormRefusal("admin.error.clock_action")
    return f"admin.note.clock_{action}", {}


PAGES = {"rounds": rounds}
BACK = "/admin/rounds"
FORMS = {"draft": draft, "discard": discard, "swap-teams": swap_teams,
         "swap-tables": swap_tables, "swap-sides": swap_sides, "publish": publish,
         "undo": undo, "start": start, "clock": clock}
