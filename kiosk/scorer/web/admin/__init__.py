"""The head referee's console at /admin: a login with the scorer's password and a session
cookie; one module per tab (overview, teams, rounds, results, standings, rulings, tables,
printing, log), each a page and the forms on it, every form carrying the session's CSRF token
and calling the same `Director` method as `kiosk scorer admin …`.

Endpoints are module-level and read the scorer from `request.app.state` (`director`, and
`logins`, the login attempts' limit); `console.py` holds what the tabs share (the session,
the page, the confirmation and the refusal), `forms.py` reads fields, `flash.py` carries the
message back. Every word is a catalog key (kiosk/i18n/<lang>/admin.toml), in the language the
head referee picked (a cookie; 简体中文 by default).
"""

from __future__ import annotations

from starlette.routing import Route

from . import (
    console,
    kept,
    log,
    login,
    overview,
    printing,
    results,
    rulings,
    standings,
    tables,
    teams,
)
from . import rounds as rounds_tab
from .console import PageBuilder, confirm_page, operation, screen

TABS = (overview, teams, rounds_tab, results, standings, rulings, tables, printing, log)
PAGES: dict[str, PageBuilder] = {name: build for tab in TABS
                                 for name, build in tab.PAGES.items()}

__all__ = ["PAGES", "TABS", "console", "kept", "login", "routes"]


def routes() -> list[Route]:
    forms = [(name, handler, tab.BACK) for tab in TABS
             for name, handler in getattr(tab, "FORMS", {}).items()]
    return [Route("/admin", screen("overview", overview.overview)),
            *[Route(f"/admin/{name}", screen(name, build), methods=["GET"])
              for name, build in PAGES.items() if name != "overview"],
            Route("/admin/confirm", confirm_page, methods=["GET"]),
            Route("/admin/login", login.login_page, methods=["GET"]),
            Route("/admin/login", login.login, methods=["POST"]),
            Route("/admin/logout", login.logout, methods=["POST"]),
            Route("/admin/export/{name}", printing.private_export, methods=["GET"]),
            Route("/admin/print/jobs/{job}.pdf", printing.console_job, methods=["GET"]),
            Route("/admin/print/jobs/{job}", printing.console_job, methods=["GET"]),
            Route("/admin/print/{kind}.{ext}", printing.console_print, methods=["GET"]),
            *[Route(f"/admin/{name}", operation(handler, back), methods=["POST"])
              for name, handler, back in forms]]
