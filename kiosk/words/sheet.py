"""A match's score sheet in the style of the seeds' 记分表: every hand with its kitty and
penalties in words, the result and lines to sign in table order. Used by `kiosk replay --format
sheet`, `kiosk journal show` and the scorer's exports; the slip printer prints the same facts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..i18n import translator
from ..rules import Ruleset
from . import hand as words
from .textfmt import table

Translate = Callable[..., str]
NOTE_INDENT = "      "


def score_sheet(record: Mapping[str, Any], ruleset: Ruleset, lines: Sequence[Mapping[str, Any]],
                lang: str, error: str | None = None) -> str:
    """The sheet for the replayed `lines` of `record`; `error` is shown where replay stopped."""
    t = translator(lang)
    out = [f"{ruleset.name(lang)} — {t('sheet.title')}", ""]
    for key in ("event", "round", "table"):
        if key in record:
            out.append(t("words.field", label=t(f"sheet.{key}"), value=record[key]))
    out.append(t("words.field", label=t("sheet.ruleset"),
                 value=ruleset.version))  # the name heads the sheet
    if ruleset.kind == "team":
        out += _team_sheet(record, ruleset, lines, lang, t)
    else:
        out += _individual_sheet(record, ruleset, lines, lang, t)
    if error:
        out += ["", t("sheet.stopped", error=error)]
    line = "  ".join(f"{who} ________" for who in words.signers(ruleset, record, lang))
    out += ["", f"{t('words.sign')}{line}"]
    return "\n".join(out) + "\n"


def _team_sheet(record: Mapping[str, Any], ruleset: Ruleset,
                lines: Sequence[Mapping[str, Any]], lang: str, t: Translate) -> list[str]:
    out = []
    teams, players = record.get("teams") or {}, record.get("players") or {}
    for team in ("NS", "EW"):
        line = words.team_line(team, teams, players, lang)
        if line:
            out.append(line)
    rows, row_notes = [], []
    for hand in lines:  # (a hand's line; `line` above is a team's)
        if hand["hand"] is None:
            continue
        advance = "" if hand["advance"] is None else f"+{hand['advance']}"
        rows.append((hand["hand"], words.seat_name(hand["dealer"], lang), hand["level"],
                     _blank(hand["total"]), words.result_words(hand, ruleset, lang), advance,
                     *(words.level_words(hand, team, lang) for team in ("NS", "EW"))))
        row_notes.append(words.notes(record, hand, ruleset, lang, players))
    heads = [t("col.hand"), t("col.dealer"), t("col.level"),
             t("words.col.total", **words.terms(ruleset, lang)), t("col.result"),
             t("col.advance"), t("team.NS"), t("team.EW")]
    out += ["", *_with_notes(table(heads, rows, indent=""), row_notes)]
    out.append("")
    out += words.ending_words(lines[-1] if lines else None, ruleset, lang, record.get("end"))
    return out


def _individual_sheet(record: Mapping[str, Any], ruleset: Ruleset,
                      lines: Sequence[Mapping[str, Any]], lang: str, t: Translate) -> list[str]:
    order = words.table_order(ruleset)
    names = record.get("players") or {}
    heads = [words.seat_name(p, lang, names) for p in order]
    rows: list[tuple[Any, ...]] = []
    row_notes = []
    for line in lines:
        rows.append((line["deal"], line["level"], words.seat_name(line["dealer"], lang),
                     words.seat_name(line["partner"], lang), line["total"],
                     *(line["awards"][p] for p in order)))
        row_notes.append(words.notes(record, line, ruleset, lang, names))
    totals = lines[-1]["totals"] if lines else {p: 0 for p in order}
    places = {p: 1 + sum(totals[q] > totals[p] for q in order) for p in order}
    rows.append((t("sheet.totals"), "", "", "", "", *(totals[p] for p in order)))
    rows.append((t("sheet.rank"), "", "", "", "", *(places[p] for p in order)))
    row_notes += [[], []]
    sheet = table([t("col.deal"), t("col.level"), t("col.dealer"), t("col.partner"),
                   t("words.col.total", **words.terms(ruleset, lang)), *heads], rows, indent="")
    out = ["", *_with_notes(sheet, row_notes)]
    out += ["", words.ranking_words(totals, order, lang, names)]
    return out


def _with_notes(rendered: str, row_notes: Sequence[Sequence[str]]) -> list[str]:
    """The table's lines with each row's notes (kitty, penalties) indented under it."""
    head, *body = rendered.split("\n")
    out = [head, body[0]]
    for row, extra in zip(body[1:], row_notes, strict=True):
        out.append(row)
        out += [NOTE_INDENT + note for note in extra]
    return out


def _blank(value: Any) -> Any:
    return "" if value is None else value
