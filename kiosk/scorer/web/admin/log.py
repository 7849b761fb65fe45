"""The 日志 tab: every action of the head referee, newest first, with who made it."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from ...director import Director


def log(director: Director, request: Request) -> dict[str, Any]:
    return {"entries": list(reversed(director.audit_log()))}


PAGES = {"log": log}
