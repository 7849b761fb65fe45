"""The 排名 tab: the standings, searchable by team, name or unit."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from ...director import Director, triage, views


def standings(director: Director, request: Request) -> dict[str, Any]:
    director.require_event()
    everyone = views.standing_rows(director)
    query = request.query_params.get("q", "").strip()[:40]
    return {"standings": [s for s in everyone if triage.found(query, s.team, s.name, s.unit)],
            "query": query, "total": len(everyone)}


PAGES = {"standings": standings}
