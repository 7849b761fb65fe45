"""The 队伍 tab: the teams (search and filters), importing a list, adding, editing and
deleting a team, a late entry, withdrawing and reinstating."""

from __future__ import annotations

import base64
from typing import Any

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request

from ...director import Director, triage
from ...director.base import with_id
from . import forms
from .forms import FormRefusal, Said


def teams(director: Director, request: Request) -> dict[str, Any]:
    event = director.require_event()
    editing = request.query_params.get("edit", "")
    everyone = director.team_rows()
    query = request.query_params.get("q", "").strip()[:40]
    show = forms.shown(request, triage.TEAM_FILTERS)
    rows = [r for r in triage.chosen(everyone, triage.TEAM_FILTERS, show)
            if r.id == editing or triage.found(query, r.id, r.name, r.unit, *r.players)]
    return {"rows": rows, "editing": editing, "query": query, "show": show,
            "total": len(everyone),
            "counts": triage.counted(everyone, triage.TEAM_FILTERS),
            "paired": {r.id for r in rows if director.ever_paired(r.id)},
            "open_matches": {r.id: found for r in rows if not r.withdrawn and
                             (found := director.open_match(
                                 r.id, director.current_round() - 1))},
            # withdrawn after the round it is still playing: it may leave now instead
            "pending": {r.id for r in rows
                        if r.withdrawn_after == director.current_round() and
                        director.open_match(r.id, r.withdrawn_after - 1)},
            "withdrawals": {r.id: director.withdrawal(r.id) for r in rows if r.withdrawn},
            "late": event.status != "setup" and director.current_round() > 0,
            "entry_round": director.current_round() + 1,
            # why no team can join now (the add form's place says it), or None
            "no_entry": director.late_refusal(director.current_round() + 1)
            if event.status != "setup" else None,
            "win_points": director.ruleset().result.win_points,
            "duplicates": _duplicates(everyone)}


def _duplicates(rows: list[Any]) -> set[str]:
    seen: dict[str, int] = {}
    for r in rows:
        seen[r.name] = seen.get(r.name, 0) + 1
    return {name for name, n in seen.items() if n > 1}


async def import_teams(director: Director, form: FormData, who: str) -> Said:
    """A CSV file, or a list pasted in the box (`pasted`: one team a line), through the same
    import: its duplicate names and a corrected list's changes are asked about first."""
    upload = form.get("file")
    pasted = forms.text(form, "pasted")
    data: bytes | str
    if pasted:
        data = pasted
    elif isinstance(upload, UploadFile) and upload.filename:
        data = await upload.read()
    elif form.get("file_b64"):  # the file again, from the confirmation page
        try:
            data = base64.b64decode(str(form.get("file_b64")), validate=True)
        except ValueError:  # not base64 (binascii.Error), or not even ASCII
            raise FormRefusal("admin.error.choose_file") from None
    else:
        raise FormRefusal("admin.error.choose_file")
    report = director.import_teams(
        data, confirm=forms.confirmed(form),
        missed_points=forms.whole(form, "missed_points", "admin.label.missed_points",
                                  default=0), by=who)
    if report.updated:  # (「新增 0 队」 never said)
        return ("admin.note.teams_updated" if report.added else "admin.note.teams_corrected",
                {"n": len(report.updated), "added": len(report.added)})
    if report.joined_round > 1:
        return "admin.note.imported_late", {"n": len(report.added),
                                            "round": report.joined_round}
    if report.ignored:
        return "admin.note.imported_ignored", {"n": len(report.added),
                                               "ignored": triage.listing(list(report.ignored))}
    return "admin.note.imported", {"n": len(report.added)}


def add_team(director: Director, form: FormData, who: str) -> Said:
    team = director.add_team(
        forms.text(form, "name"), forms.text(form, "unit"), forms.players(form),
        forms.text(form, "id"), confirm=forms.confirmed(form),
        missed_points=forms.whole(form, "missed_points", "admin.label.missed_points",
                                  default=0), by=who)
    return "admin.note.team_added", {"team": director.label(team)}


def edit_team(director: Director, form: FormData, who: str) -> Said:
    team = forms.text(form, "team")
    director.edit_team(team, forms.text(form, "name"), forms.text(form, "unit"),
                       forms.players(form), confirm=forms.confirmed(form), by=who)
    return "admin.note.team_edited", {"team": director.label(team)}


def delete_team(director: Director, form: FormData, who: str) -> Said:
    team = director.team(forms.text(form, "team"))
    director.delete_team(team.id, confirm=forms.confirmed(form), by=who)
    return "admin.note.team_deleted", {"team": with_id(team.name, team.id)}


def withdraw(director: Director, form: FormData, who: str) -> Said:
    """Withdraw a team; one in the middle of a match is asked when, on the confirmation
    (`when`: after this round, or now, losing the match by forfeit)."""
    team = forms.text(form, "team")
    after = forms.whole(form, "after_round", "admin.label.after_round", default=None)
    when = form.get("when")
    if after is None and when == "now":  # out of the match it has not played
        after = director.current_round() - 1
    elif after is None and when == "next":
        after = director.current_round()
    director.withdraw(team, after, confirm=forms.confirmed(form), by=who)
    return "admin.note.withdrawn", {"team": director.label(director.team(team).id)}


def reinstate(director: Director, form: FormData, who: str) -> Said:
    team = forms.text(form, "team")
    director.reinstate(team, confirm=forms.confirmed(form), by=who)
    return "admin.note.reinstated", {"team": director.label(director.team(team).id)}


PAGES = {"teams": teams}
BACK = "/admin/teams"
FORMS = {"import": import_teams, "add-team": add_team, "edit-team": edit_team,
         "delete-team": delete_team, "withdraw": withdraw, "reinstate": reinstate}
