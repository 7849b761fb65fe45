"""HTML from Jinja2 templates (`templates/`), for the admin pages and the printed pages: names
are escaped by the template engine, every word comes from the catalogs through `t`."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from ...i18n import DEFAULT_LANG, LANGS, catalog
from ...i18n import render as render_words

if TYPE_CHECKING:
    import jinja2

LANG_COOKIE = "kiosk_lang"  # the language picked on the console, for every page of the scorer


@functools.cache
def environment() -> jinja2.Environment:
    import jinja2  # (here: the first page made, not the scorer's start; ~25 ms)

    env = jinja2.Environment(loader=jinja2.PackageLoader("kiosk.scorer.printing", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["clock"] = clock_text
    env.filters["when"] = when_text
    env.filters["signed"] = signed
    env.filters["number"] = number_text
    env.filters["duration"] = duration_text
    return env


def render(template: str, lang: str, **context: Any) -> str:
    """`template` in `lang`; in the event's words where they differ when it shows one."""
    t = words(lang, getattr(context.get("event"), "wording", ""))
    return environment().get_template(template).render(
        t=t, who_text=lambda by: who_text(t, by), decided=lambda how: decided_text(t, how),
        result=lambda won, how: result_text(t, won, how), lang=lang, langs=LANGS, **context)


def lang_of(request: Request) -> str:
    """The visitor's language: `?lang=`, else the one picked on the console, else 简体中文."""
    lang = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE)
    return lang if lang in LANGS else DEFAULT_LANG


def words(lang: str, wording: str = "") -> Callable[..., str]:
    """`t(key, **params)` in `lang`; a parameter that is itself a catalog key (a field's
    label, a side) or words (`kiosk.rules.errors.Words`) is said in `lang` first.
    `wording` (`EventInfo.wording`): the event's words where they differ (`key_individual`:
    选手 for 队伍; `key_wins`: 胜场 for 大分)."""
    lang = lang if lang in LANGS else DEFAULT_LANG
    messages = catalog(lang)

    def said_first(value: Any) -> Any:  # (a field's label too in the event's words: 胜场)
        if isinstance(value, str) and value in messages:
            return say(value)
        key, params = getattr(value, "key", None), getattr(value, "params", None)
        return say(key, **params) if isinstance(key, str) and isinstance(params, Mapping) \
            else value

    def say(key: str, **params: Any) -> str:
        if wording and f"{key}_{wording}" in messages:
            key = f"{key}_{wording}"
        return render_words(key, {k: said_first(v) for k, v in params.items()}, lang)
    return say


def said(t: Callable[..., str], value: Any) -> str:
    """A value that may be words (a team with its id) as text in the words of `t`."""
    key, params = getattr(value, "key", None), getattr(value, "params", None)
    return t(key, **params) if isinstance(key, str) and params is not None else str(value)


#: The head referee's rulings: named as the console names them when it records one.
RULING_KINDS = ("forfeit", "disqualification", "adjusted")


def decided_text(t: Callable[..., str], how: str) -> str:
    """How a match was decided, in words: a ruling by the console's own name for it (判负,
    取消资格, 改判结果: one wording on the console, the printed pages and the exports), else
    at the table, a bye or a late entry's missed round."""
    return t(f"admin.ruling.kind.{how}" if how in RULING_KINDS else f"print.decided.{how}")


def result_text(t: Callable[..., str], won: bool, how: str) -> str:
    """A team's result in a match as its scorecard says it: 胜 or 负, and a ruled one as the
    phones say it, for the winner too (胜（对方判负）: 「胜 判负」 read as won, forfeited)."""
    if how in RULING_KINDS:
        return t(f"phone.ruled_{'won' if won else 'lost'}_{how}")
    return t("print.won" if won else "print.lost")


def who_text(t: Callable[..., str], by: str) -> str:
    """Who did something, as the audit log and the rulings list say it."""
    if by.startswith("cli:"):
        return t("admin.who.cli", user=by[4:])
    return by or t("admin.who.unnamed")


def number_text(value: float | None) -> str:
    """A number as a person writes it: 90, 2.5 (never 90.0); a dash for none."""
    if value is None:
        return "—"
    return f"{value:.1f}".removesuffix(".0")


def clock_text(at: float | None) -> str:
    """A time of day (the scorer's local time), or a dash."""
    if at is None:
        return "—"
    return datetime.datetime.fromtimestamp(at).strftime("%H:%M:%S")


def duration_text(seconds: float) -> str:
    """A span of time as a clock counts it down: 1:29:30, or 4:05 under an hour."""
    whole = int(seconds + 0.999)  # a countdown shows a second until it is all gone
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def when_text(at: float | None) -> str:
    if at is None:
        return "—"
    return datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S")


def signed(value: int | None) -> str:
    if value is None:
        return ""
    return f"+{value}" if value > 0 else str(value)
