"""What every tab of the console shares: the session (a cookie, and the CSRF token each form
carries), the page around a tab's content, and the two kinds of endpoint a tab is made of —
a page (`screen`) and a form's operation (`operation`).

An operation that cannot be simply undone, or that overrides a warning, first shows what it
will do and asks again (`NeedsConfirmation` → a page of its own, /admin/confirm?id=…, which
confirm.html shows); a refused one shows its page again with the refusal and the form as it
was typed. Without a live session (it expired, or the password changed) a page and a form
both go to the login, which comes back to where they were; a form says it was not done.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ....errors import AdminError, Choice, NeedsConfirmation, RosterError, StoreError
from ....i18n import LANGS, explain
from ....i18n import render as render_words
from ...director import Director
from ...printing.templating import LANG_COOKIE, lang_of, render, words
from .. import refusals
from . import flash
from .forms import Said
from .kept import Kept

COOKIE = "kiosk_admin"
MAX_UPLOAD = 2_000_000  # bytes: a roster of a few thousand rows

#: A tab's content: what its template shows, read from the director and the address.
PageBuilder = Callable[[Director, Request], dict[str, Any]]
#: A form's operation: (director, form, who) -> what to say (a catalog key, its parameters).
Handler = Callable[[Director, FormData, str], "Awaitable[Said] | Said"]
Endpoint = Callable[[Request], Awaitable[Response]]


def director_of(request: Request) -> Director:
    return request.app.state.director  # type: ignore[no-any-return]


def session(request: Request) -> tuple[str, str] | None:
    """(CSRF token, who) of the request's live session, or None."""
    token = request.cookies.get(COOKIE)
    return director_of(request).session(token) if token else None


def to_login(back: str = "", expired: bool = False) -> RedirectResponse:
    """To the login page, which comes back to `back` (a page of this console) after it;
    `expired`: a form was sent without a live session, and the login says it was not done."""
    fields = [("next", back)] if back and back != "/admin" else []
    if expired:
        fields.append(("expired", "1"))
    return RedirectResponse("/admin/login" + ("?" + urlencode(fields) if fields else ""),
                            status_code=303)


def here(request: Request) -> str:
    """The address of the page asked for, as a login comes back to it."""
    query = request.url.query
    return request.url.path + ("?" + query if query else "")


MAX_PEEK = 8_000  # bytes of a form read without a session, for the page it came from


async def came_from(request: Request, back: str) -> str:
    """The page a form sent without a live session came from: its `back` field (a small
    urlencoded form is read for it, never an upload), else the tab's page `back`."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    size = request.headers.get("content-length", "")
    if kind == "application/x-www-form-urlencoded" and size.isdigit() and \
            int(size) <= MAX_PEEK:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_PEEK:
                return back
        sent = parse_qs(body.decode("utf-8", "replace")).get("back", [""])[0]
        if sent:
            return flash.safe_back(sent)
    return back


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A console page (admin/<template>.html) in the head referee's language."""
    lang = lang_of(request)
    context.setdefault("director", director_of(request))
    context.setdefault("event", context["director"].event())
    shown = context.pop("flash", None) or flash.shown(
        request, lang, getattr(context["event"], "wording", ""))
    context.setdefault("tab", "")
    context.setdefault("error_params", {})
    context.setdefault("kept", {})  # what a refused form had typed, by field name
    context.setdefault("kept_action", "")  # and that form's action

    def keep(action: str, name: str, default: Any = "") -> Any:
        """A field's value: as typed, in the refused form `action`; else `default`."""
        if context["kept_action"] == action and name in context["kept"]:
            return context["kept"][name]
        return default
    context["keep"] = keep
    kept_query = [(k, v) for k, v in request.query_params.multi_items()
                  if k not in ("lang", "flash", "kind", "sig") and not k.startswith(("p_", "w_"))]

    def in_lang(code: str) -> str:
        """This page's address in another language: its own query kept (a confirmation's
        id, a filter), never a message's fields (nor what a forged link put in them)."""
        return "?" + urlencode([*kept_query, ("lang", code)])
    context["in_lang"] = in_lang
    reply = HTMLResponse(render(f"admin/{template}.html", lang, flash=shown,
                                path=request.url.path, **context), status_code=status)
    if request.query_params.get("lang") in LANGS:
        reply.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="strict", path="/")
    return reply


def screen(name: str, build: PageBuilder) -> Endpoint:
    """The endpoint of tab `name`, whose content `build` reads."""
    async def endpoint(request: Request) -> Response:
        found = session(request)
        if found is None:  # (a bookmarked page: the login comes back to it)
            return to_login(here(request))
        csrf, who = found
        director = director_of(request)
        try:
            context = build(director, request)
        except AdminError as exc:
            return flash.refusal("/admin", exc)
        return page(request, name, csrf=csrf, who=who, event=director.event(), tab=name,
                    **_refusal_shown(request), **context)
    return endpoint


def _refusal_shown(request: Request) -> dict[str, Any]:
    """A refused form's page (`?refused=…`, the 303 after it): the refusal above it, and
    the form as it was typed."""
    refused = kept(request).get("refusal", request.query_params.get("refused", ""))
    if refused is None or refused["page"] != request.url.path:
        return {}
    say = words(lang_of(request), director_of(request).wording())
    try:
        text = say(refused["key"], **{k: flash.from_json(v)
                                      for k, v in refused["params"].items()})
    except (KeyError, IndexError, ValueError, TypeError):
        text = say("error.unexpected")
    return {"flash": ("error", text), "kept": refused["fields"],
            "kept_action": refused["action"]}


def operation(handler: Handler, back: str) -> Endpoint:
    """The endpoint of a form: checks the session and its CSRF token, runs `handler`, and
    goes back to the form's page (`back`, or the form's own `back` field) saying how it went,
    or why it was refused, with the form as it was typed."""
    async def endpoint(request: Request) -> Response:
        found = session(request)
        if found is None:  # expired, or the password changed: the login says the form was
            # not done, and comes back to the page it was sent from to do it again
            return to_login(await came_from(request, back), expired=True)
        csrf, who = found
        size = request.headers.get("content-length", "")
        if not size.isdigit():  # (a browser says how long a form is; a chunked body is
            # read whole by the form parser, whatever its size)
            return refusals.page(request, 411, "web.http.411")
        if int(size) > MAX_UPLOAD:
            return flash.back(back, "error", "admin.error.upload_large")
        form = await request.form(max_part_size=MAX_UPLOAD)
        if form.get("csrf") != csrf:
            return HTMLResponse(words(lang_of(request))("admin.error.csrf"), status_code=403)
        target = flash.safe_back(str(form.get("back") or back))
        asked = str(form.get("confirm_id") or "")
        if asked:  # an answer to a question: only once, and only on the event it was asked on
            question = pending(request).get(asked)
            if question is None or not question.asked_on(director_of(request)):
                return flash.back(target, "error", "admin.error.confirm_gone")
            if question.answered:
                return flash.back(question.back, "note", "admin.note.confirm_done")
        try:
            result = handler(director_of(request), form, who)
            if not isinstance(result, tuple):
                result = await result
        except NeedsConfirmation as exc:
            return await _confirm(request, form, csrf, who, exc, target)
        except (AdminError, RosterError, StoreError) as exc:
            return _refused(request, form, target, exc)
        key, params = result
        if asked:  # the confirmation is answered: Back to it says so, and does nothing
            pending(request).answered(asked)
        return flash.back(target, "note", key, params)
    return endpoint


def _refused(request: Request, form: FormData, target: str, exc: Exception) -> Response:
    """Back to the page the form was on (303: Back to it later is a page, never Chromium's
    ERR_CACHE_MISS), showing the refusal and the form as it was typed, kept under a random
    id (`?refused=…`; a file field cannot be given back)."""
    base, mark, anchor = target.partition("#")  # (a row to land on, #t437, goes last)
    path, _, query = base.partition("?")
    fields = {k: v for k, v in form.multi_items() if isinstance(v, str) and
              k not in ("csrf", "confirmed", "confirm_id")}
    refused = kept(request).add("refusal", {
        "page": path, "action": request.url.path, "fields": fields,
        "key": getattr(exc, "key", None) or "error.unexpected",
        "params": {k: flash.as_json(v) for k, v in (getattr(exc, "params", None) or {}).items()}})
    again = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True)
             if k not in ("refused", "flash", "kind", "sig") and not k.startswith(("p_", "w_"))]
    if "lang" in request.query_params and "lang" not in dict(again):  # (in its words)
        again.append(("lang", request.query_params["lang"]))
    address = f"{path}?{urlencode([*again, ('refused', refused)])}{mark}{anchor}"
    return RedirectResponse(address, status_code=303)


async def _confirm(request: Request, form: FormData, csrf: str, who: str,
                   exc: NeedsConfirmation, back: str) -> Response:
    """What the operation will do, on a page of its own (POST → 303 → GET): the same form
    again with `confirmed`, kept here under a random id until it is answered."""
    fields: list[tuple[str, str]] = []
    chosen_here = {c.field for c in exc.choices}  # (each choice's button sends its own)
    for name, value in form.multi_items():
        if name in ("csrf", "confirmed", "confirm_id") or name in chosen_here:
            continue
        if isinstance(value, UploadFile):  # the file comes back as its bytes
            await value.seek(0)  # (the handler read it)
            fields.append(("file_b64", base64.b64encode(await value.read()).decode()))
        else:
            fields.append((name, str(value)))
    asked = pending(request).add(Asked(exc, request.url.path, tuple(fields), back,
                                       director_of(request).record_mark()))
    query = [("id", asked)]
    if request.query_params.get("lang") in LANGS:  # (the question in the words asked for)
        query.append(("lang", request.query_params["lang"]))
    return RedirectResponse(f"/admin/confirm?{urlencode(query)}", status_code=303)


@dataclass
class Asked:
    """A confirmation the console asked for: the question, the form to send again (its
    action and fields), the page it came from, and the record it was asked on (`mark`);
    `answered` once its action was done."""

    question: NeedsConfirmation
    action: str
    fields: tuple[tuple[str, str], ...]
    back: str
    mark: tuple[float, int] = (0.0, 0)
    answered: bool = False

    def asked_on(self, director: Director) -> bool:
        """Whether the event is still the one it was asked on: the same event, its record
        never gone back (a store restored from an older copy). What changed since in other
        windows is each form's own check (the rounds page's `seen`)."""
        created, last = director.record_mark()
        return created == self.mark[0] and last >= self.mark[1]

    def as_json(self) -> dict[str, Any]:
        q = self.question
        return {"key": q.key, "params": {k: flash.as_json(v) for k, v in q.params.items()},
                "choices": [[c.field, c.value, c.key, {k: flash.as_json(v) for k, v in
                                                       c.params.items()}, c.flags]
                            for c in q.choices],
                "action": self.action, "fields": self.fields, "back": self.back,
                "mark": self.mark, "answered": self.answered}

    @classmethod
    def from_json(cls, kept: dict[str, Any]) -> Asked:
        params = {k: flash.from_json(v) for k, v in kept["params"].items()}
        question = NeedsConfirmation(render_words(kept["key"], params, "en"))
        question.explained(kept["key"], **params)
        question.choices = tuple(Choice(field, value, key, {
            k: flash.from_json(v) for k, v in choice_params.items()}, flags)
            for field, value, key, choice_params, flags in kept["choices"])
        return cls(question, kept["action"], tuple(tuple(f) for f in kept["fields"]),
                   kept["back"], tuple(kept["mark"]), kept["answered"])  # type: ignore[arg-type]


class Pending:
    """The confirmations asked for, by a random id: the question is a page the browser can go
    back to, before and after a restart of the scorer (kept in `kept.Kept`)."""

    def __init__(self, kept: Kept) -> None:
        self.kept = kept

    def add(self, asked: Asked) -> str:
        return self.kept.add("confirmation", asked.as_json())

    def get(self, key: str) -> Asked | None:
        found = self.kept.get("confirmation", key)
        return Asked.from_json(found) if found else None

    def answered(self, key: str) -> None:
        asked = self.get(key)
        if asked is not None:
            asked.answered = True
            asked.fields = ()  # (what it would send again is no longer needed)
            self.kept.put(key, asked.as_json())


def kept(request: Request) -> Kept:
    """What the console keeps for the browser (app.state.kept; an app made without it keeps
    it in memory)."""
    state = request.app.state
    if getattr(state, "kept", None) is None:
        state.kept = Kept(None)
    return state.kept  # type: ignore[no-any-return]


def pending(request: Request) -> Pending:
    return Pending(kept(request))


async def confirm_page(request: Request) -> Response:
    """GET /admin/confirm?id=…: the question, and the form that answers it. One already
    answered (Back from the page after it) goes back to where it came from, saying it was
    done: nothing is done twice. One unknown (a day old, or asked on a record the scorer
    no longer has) says to do it again; a restart keeps it."""
    found = session(request)
    if found is None:
        return to_login(here(request))
    csrf, who = found
    asked = pending(request).get(request.query_params.get("id", ""))
    if asked is None or not asked.asked_on(director_of(request)):
        return flash.back("/admin", "error", "admin.error.confirm_gone")
    if asked.answered:
        return flash.back(asked.back, "note", "admin.note.confirm_done")
    exc, director = asked.question, director_of(request)
    lang = lang_of(request)
    message = words(lang, director.wording())(exc.key, **exc.params) if exc.key \
        else explain(exc, lang)
    return page(request, "confirm", csrf=csrf, who=who, event=director.event(),
                tab="", message=message, action=asked.action,
                fields=asked.fields, back=asked.back, choices=exc.choices,
                confirm_id=request.query_params.get("id", ""))
