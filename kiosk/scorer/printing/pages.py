"""Printed pages: A4 HTML with a print stylesheet, and the same HTML as PDF through WeasyPrint.

- pairings by table and by team (alphabetical, Chinese names by pinyin), for the wall;
- standings with every tie-break column and the withdrawn/late markers;
- each team's scorecard (opponents, results, big points, net levels per round);
- the match score sheets in the seeds' 记分表 form (players, units, big points, penalties,
  levels, level difference, signatures) with the table's hands and any ruling.

Every word is a catalog key (kiosk/i18n/<lang>/print.toml), in 简体, 繁體 or English. Only
published rounds are printed: the private draft never leaves the console.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple
from urllib.parse import quote

from ...errors import PrintError
from ...i18n import LANGS, translator
from ...rules import Ruleset, Rulesets, replay
from ...words import hand as words
from ..director import Director, views
from ..store.database import CODE_HOURS
from . import layout
from .templating import render

# The printed pages, and what each reads of the round, table and team asked for (the rest is
# ignored, and no part of what names the page: else `?team=x1`, `x2` … each made it again).
READS = {"pairings-table": ("round_no",), "pairings-team": ("round_no",), "standings": (),
         "scorecards": ("team",), "sheets": ("round_no", "table")}
KINDS = tuple(READS)
FONTS = {"zh-Hans": '"Noto Sans CJK SC", "Noto Sans SC", sans-serif',
         "zh-Hant": '"Noto Sans CJK TC", "Noto Sans TC", sans-serif',
         "en": '"Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", sans-serif'}


@dataclass(frozen=True)
class Parts:
    """A page's template and what it shows, read from the director. The director's folds and
    caches are the event loop's (a worker thread folding beside it can wipe tables' matches):
    `gather` reads them on the loop; `html` lays out what was read and touches the director no
    more, so it may run in another thread."""

    template: str
    lang: str
    context: dict[str, Any]
    rulesets: Rulesets

    def html(self) -> str:
        context = self.context
        if "sheets" in context:  # (the replays, the sheets' heavy part, happen here)
            context = {**context, "sheets": [fill_sheet(s, self.rulesets, self.lang)
                                             for s in context["sheets"]]}
        return render(self.template, self.lang, **context)


def html(director: Director, kind: str, lang: str, round_no: int | None = None,
         team: str | None = None, table: int | None = None, printed: str | None = None
         ) -> str:
    """The page `kind` as HTML (`printed`: the time it says it was printed, now unless
    given). Raises PrintError for what cannot be printed."""
    return gather(director, kind, lang, round_no, team, table, printed).html()


def gather(director: Director, kind: str, lang: str, round_no: int | None = None,
           team: str | None = None, table: int | None = None, printed: str | None = None
           ) -> Parts:
    """What the page `kind` shows, read from the director (on the event loop), as of one
    moment. Raises PrintError for what cannot be printed."""
    with director.reading():
        return _gather(director, kind, lang, round_no, team, table, printed)


def _gather(director: Director, kind: str, lang: str, round_no: int | None, team: str | None,
            table: int | None, printed: str | None) -> Parts:
    if kind not in KINDS:
        raise PrintError("print.error.kind")
    lang = lang if lang in LANGS else "zh-Hans"
    event = director.event()
    if event is None:
        raise PrintError("print.error.no_event")
    current = director.current_round()
    round_no = round_no or current
    context: dict[str, Any] = {"event": event, "kind": kind, "font": FONTS[lang],
                               "printed": printed or _now(director),
                               "ruleset_name": director.ruleset().name(lang)}
    if kind in ("pairings-table", "pairings-team", "sheets"):
        if not current:
            raise PrintError("print.error.no_rounds")
        if not 1 <= round_no <= current:
            raise PrintError("print.error.no_round", round=round_no, current=current)
        context["round"] = round_no
        context["started"] = director.round_start(round_no) is not None
    if kind == "pairings-table":
        context |= {"rows": views.round_rows(director, round_no),
                    "byes": views.bye_rows(director, round_no),
                    "groups": director.seats(round_no), "names": director.team_names(),
                    "units": {t.id: t.unit for t in director.teams()},
                    # an individual event's finals: table N seats final group N
                    "finals": director.stages()[round_no - 1] == "final"}
    elif kind == "pairings-team":
        context["rows"] = views.pairings_by_team(director, round_no)
        context["individual"] = event.individual
    elif kind == "standings":
        played = current if current and director.round_start(current) is not None \
            else max(0, current - 1)  # a published round not started yet has no results
        context |= {"rows": views.standing_rows(director), "round": played,
                    "tie_breaks": director.tie_breaks() if event.format in ("swiss", "single")
                    else (), "over": director.round_over(played),
                    "closed": event.status == "closed"}
    elif kind == "scorecards":
        context["cards"] = views.cards(director, team)
        if team and not context["cards"]:
            raise PrintError("print.error.no_team")
    else:
        tables = [t for t, _, _ in director.assignments(round_no)] + list(
            director.seats(round_no))
        if table:
            if table not in tables:
                raise PrintError("print.error.no_table")
            tables = [table]
        rows = {m.table: m for m in views.round_rows(director, round_no)}  # once, not a sheet
        context["sheets"] = [gather_sheet(director, round_no, t, lang, rows.get(t))
                             for t in sorted(tables)]
    return Parts(f"print/{kind}.html", lang, context, director.rulesets)


def codes_html(director: Director, lang: str, printed: str | None = None) -> str:
    """The pairing codes of the tables that still need one, one slip a table to cut out and
    hand to its referee or the technician (or what the table has instead: a voided or expired
    code). Tables already paired are left out and counted on the first page: mid-event they
    are most of the hall. Secret: served only to the head referee's session
    (`/admin/print/codes.*`), never under /print."""
    lang = lang if lang in LANGS else "zh-Hans"
    event = director.event()
    if event is None:
        raise PrintError("print.error.no_event")
    now = director.clock()
    codes, states = director.store.open_codes(now), director.store.code_states(now)
    pairings = director.store.pairings()
    count = director.table_count()
    rows = [{"table": n, "code": codes.get(n),
             "state": "open" if n in codes else states.get(n, "none")}
            for n in range(1, count + 1) if not pairings.get(n, ("", 0.0))[0]]
    return render("print/codes.html", lang, event=event, kind="codes", font=FONTS[lang],
                  rows=rows, tables=count, paired=count - len(rows), hours=round(CODE_HOURS),
                  printed=printed or _now(director))


def _now(director: Director) -> str:
    return datetime.datetime.fromtimestamp(director.clock()).strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class Page:
    """A page to lay out as a PDF, and the digest of what it shows (its printed time left
    out): the same digest, the same PDF."""

    html: str
    content: str


_PRINTED = "\ue000printed\ue000"  # stands for the printed time while the digest is taken


def page_of(director: Director, kind: str, lang: str, **where: Any) -> Callable[[], Page]:
    """The page read from the director now (on the event loop; `kind` "codes": the pairing
    codes, `codes_html`), and the function that lays it out with its digest, which may run in
    another thread."""
    now = _now(director)
    if kind == "codes":
        codes = codes_html(director, lang, printed=_PRINTED)  # (a small page: all at once)
        parts: Parts | None = None
    else:
        parts = gather(director, kind, lang, printed=_PRINTED, **where)

    def page() -> Page:
        marked = codes if parts is None else parts.html()
        return Page(marked.replace(_PRINTED, now), hashlib.sha256(marked.encode()).hexdigest())
    return page


def pdf(director: Director, kind: str, lang: str, **where: Any) -> bytes:
    """The same page as a PDF: WeasyPrint lays the HTML and its print CSS out on A4, in a
    child process (`layout`). Raises layout.LayoutFailed."""
    return layout.pdf_of(html(director, kind, lang, **where))


def file_name(director: Director, kind: str, lang: str, ext: str,
              round_no: int | None = None) -> str:
    """A download's name: the event, the round, what it is, e.g. 厦门杯-第3轮-对阵表(桌).pdf."""
    from .templating import words

    event = director.event()
    t = words(lang, director.wording())
    parts = [event.name if event else "event"]
    if kind in ("pairings-table", "pairings-team", "sheets"):
        parts.append(t("print.file.round", round=round_no or director.current_round()))
    parts.append(t(f"print.file.{kind}"))
    return "-".join(p.replace("/", "_") for p in parts) + f".{ext}"


def disposition(name: str, inline: bool = False) -> str:
    """Content-Disposition with the UTF-8 name (RFC 6266) and an ASCII fallback."""
    fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_"
                       for c in name)
    return (f'{"inline" if inline else "attachment"}; filename="{fallback}"; '
            f"filename*=UTF-8''{quote(name)}")


# -- the score sheet ------------------------------------------------------------------------


def sheet_context(director: Director, round_no: int, table: int, lang: str,
                  match: views.MatchRow | None = None) -> dict[str, Any]:
    """What a match's score sheet shows: the seeds' 记分表 form filled from the table's
    events and the rulings (and left blank for hand writing where nothing is known).
    `match`: the table's row of the round, when the caller has it."""
    return fill_sheet(gather_sheet(director, round_no, table, lang, match), director.rulesets,
                      lang)


class Sheet(NamedTuple):
    """A score sheet as read from the director, for `fill_sheet`."""

    out: dict[str, Any]
    record: dict[str, Any] | None  # the match's record (a copy); None before its setup
    ruleset: Any


def gather_sheet(director: Director, round_no: int, table: int, lang: str,
                 match: views.MatchRow | None = None) -> Sheet:
    """The score sheet's part read from the director (on the event loop): the teams, the
    result, and the match's record (a copy) for `fill_sheet` to replay."""
    event = director.event()
    state = director.match_state(table, round_no)
    ruleset = director.ruleset()
    out: dict[str, Any] = {"round": round_no, "table": table, "event": event,
                           "ruleset_name": ruleset.name(lang), "hands": [], "deals": [],
                           "individual": ruleset.kind != "team", "ruling": None,
                           "forfeited": None, "revoked": None, "dispute": None,
                           "result": None, "ending": None,
                           "win_points": ruleset.result.win_points,
                           "loss_points": ruleset.result.loss_points, "final": None,
                           # the hands the table's referee corrected, as its history says
                           "corrected": state.corrected() if state is not None else {},
                           # still being played: its totals are so far, not its result
                           "unfinished": state is not None and state.phase != "over",
                           # the hand in play that time up left uncounted, as the slip says
                           "dropped": state.dropped_at_time_up() if state is not None else None}
    names = director.team_names()
    teams = {r.id: r for r in director.team_rows()}
    if out["individual"]:
        seats = director.seats(round_no).get(table, {})
        out["players"] = [(seat, names.get(p, p)) for seat, p in seats.items()]
        out["totals"] = []  # (none before the table's first deal: a sheet to fill by hand)
    else:
        pairing = next(((ns, ew) for t, ns, ew in director.assignments(round_no)
                        if t == table), ("", ""))
        out["sides"] = {}
        for side, team in zip(("NS", "EW"), pairing, strict=True):
            row = teams.get(team)
            out["sides"][side] = {"team": team, "name": names.get(team, team),
                                  "unit": row.unit if row else "",
                                  "players": list(row.players[:2]) if row else [],
                                  "penalties": []}
        if match is None:
            match = next((m for m in views.round_rows(director, round_no)
                          if m.table == table), None)
        if match is not None:
            out["result"], out["ruling"] = match.result, match.ruling
            out["forfeited"], out["revoked"] = match.forfeited, match.revoked
            out["dispute"] = match.dispute
            out["winner_side"] = match.winner_side
    return Sheet(out, state.export() if state is not None and state.ruleset is not None
                 else None, ruleset)


def fill_sheet(sheet: Sheet, rulesets: Rulesets, lang: str) -> dict[str, Any]:
    """The score sheet with the match's hands, replayed from its record (no director: this
    may run in another thread)."""
    out, record, ruleset = sheet
    if record is None and not out["individual"]:
        return out
    out = {**out, "hands": [], "deals": []}  # (filled anew: the gathered sheet stays as it is)
    if "sides" in out:
        out["sides"] = {side: {**value, "penalties": []} for side, value in out["sides"].items()}
    lines = list(replay(record, rulesets)) if record is not None else []
    record = record or {}  # (an individual table not yet set up: its deals all to write)
    players = record.get("players") or dict(out.get("players", ()))
    out["total_head"] = translator(lang)("words.col.total", **words.terms(ruleset, lang))
    if out["individual"]:
        order = words.table_order(ruleset)
        out["order"] = [words.seat_name(p, lang) for p in order]  # (names: the table above)
        for line in lines:
            out["deals"].append({"deal": line["deal"], "level": line["level"],
                                 "dealer": words.seat_name(line["dealer"], lang),
                                 "partner": words.seat_name(line["partner"], lang),
                                 "total": line["total"],
                                 "awards": [line["awards"][p] for p in order],
                                 "notes": words.notes(record, line, ruleset, lang, players) + (
                                     _corrected(out["corrected"], line["deal"], line, lang))})
        out["totals"] = [lines[-1]["totals"][p] for p in order] if lines else []
        out["played"] = len(lines)
        if not record or out["unfinished"]:
            out["deals"] += _deals_to_write(ruleset, len(lines), lang)
        return out
    for line in lines:
        if line["hand"] is None:
            continue
        for p in _penalties(line, ruleset, lang):
            side = "NS" if p["seat"] in "NS" else "EW"
            out["sides"][side]["penalties"].append(p)
        out["hands"].append({"hand": line["hand"],
                             "dealer": words.seat_name(line["dealer"], lang),
                             "level": line["level"], "total": line["total"],
                             "result": words.result_words(line, ruleset, lang),
                             "advance": line["advance"],
                             "levels": {team: words.level_words(line, team, lang)
                                        for team in ("NS", "EW")},  # (「过10」: the slip's)
                             "notes": words.notes(record, line, ruleset, lang, players) + (
                                 _corrected(out["corrected"], line["hand"], line, lang))})
    for side in out["sides"].values():
        side["penalties"] = _grouped(side["penalties"])
    if lines:
        last = lines[-1]
        out["final"] = {team: words.level_words(last, team, lang) for team in ("NS", "EW")}
        if last.get("by") == "time-up":  # (the ✓ by the big points does not say it)
            out["ending"] = [words.winner_words(last, ruleset, lang),
                             *words.called_words(record.get("end"), lang)]
            if out["dropped"]:
                out["ending"].append(translator(lang)("slip.dropped", n=out["dropped"]))
    return out


def _deals_to_write(ruleset: Ruleset, played: int, lang: str) -> list[dict[str, Any]]:
    """An individual round's deals after the first `played`, each with its level and dealer
    (fixed by the rules, as on the seeds' 计分表) and the rest left to write by hand, should
    the table's kiosk fail."""
    assert ruleset.deals is not None
    order = ruleset.deals.dealer_order
    return [{"deal": n + 1, "level": level, "dealer": words.seat_name(order[n % len(order)], lang),
             "partner": "", "total": "", "awards": [""] * len(order), "notes": []}
            for n, level in enumerate(ruleset.deals.levels) if n >= played]


def _corrected(corrected: dict[int, Any], number: int, line: dict[str, Any],
               lang: str) -> list[str]:
    """A hand the table's referee corrected: its note, as the slip says it."""
    if number not in corrected:
        return []
    was, reason = corrected[number]
    return [words.corrected_words(was, reason, line["total"], lang)]


def _penalties(line: dict[str, Any], ruleset: Any, lang: str) -> list[dict[str, Any]]:
    out = [{"seat": p["seat"], "name": words.penalty_name(p, ruleset, lang),
            "points": p.get("points") or 0, "levels": p.get("levels"), "times": 1}
           for p in line.get("penalties", [])]
    return _grouped(out)


def _grouped(penalties: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same penalty of one seat, counted once with how many times (a sheet stays one
    page when a seat overran twenty times)."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for p in penalties:
        key = (p["seat"], p["name"], p["points"], p["levels"])
        if key in out:
            out[key]["times"] += p["times"]
        else:
            out[key] = dict(p)
    return list(out.values())
