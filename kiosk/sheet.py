"""A match's score sheet in the style of the seeds' 记分表: every hand, penalties, the result and
lines to sign. Used by `kiosk replay --format sheet`; the slip printer will print the same."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .i18n import translator
from .rules import Ruleset
from .textfmt import table

Translate = Callable[..., str]


def score_sheet(record: Mapping[str, Any], ruleset: Ruleset, lines: Sequence[Mapping[str, Any]],
                lang: str, error: str | None = None) -> str:
    """The sheet for the replayed `lines` of `record`; `error` is shown where replay stopped."""
    t = translator(lang)
    out = [f"{ruleset.name(lang)} — {t('sheet.title')}", ""]
    for key in ("event", "round", "table"):
        if key in record:
            out.append(f"{t('sheet.' + key)}: {record[key]}")
    out.append(f"{t('sheet.ruleset')}: {ruleset.id}  sha256 {ruleset.sha256[:12]}")
    if ruleset.kind == "team":
        out += _team_sheet(record, ruleset, lines, lang, t)
    else:
        out += _individual_sheet(record, ruleset, lines, lang, t)
    if error:
        out += ["", t("sheet.stopped", error=error)]
    sign = "sheet.sign_teams" if ruleset.kind == "team" else "sheet.sign_players"
    out += ["", t(sign)]
    return "\n".join(out) + "\n"


def _team_sheet(record: Mapping[str, Any], ruleset: Ruleset,
                lines: Sequence[Mapping[str, Any]], lang: str, t: Translate) -> list[str]:
    out = []
    teams, players = record.get("teams") or {}, record.get("players") or {}
    for team in ("NS", "EW"):
        who = " / ".join(str(players[s]) for s in team if s in players)
        name = teams.get(team, "")
        if name or who:
            out.append(f"{t('team.' + team)}: {name}  {who}".rstrip())
    rows = []
    for line in lines:
        if line["hand"] is None:
            continue
        advance = "" if line["advance"] is None else f"+{line['advance']}"
        rows.append((line["hand"], line["dealer"], line["level"], _blank(line["total"]),
                     t(f"result.{line['result']}"), advance, line["levels"]["NS"],
                     line["levels"]["EW"], _penalty_notes(line, ruleset, lang, t)))
    out += ["", table([t("col.hand"), t("col.dealer"), t("col.level"), t("col.total_short"),
                       t("col.result"), t("col.advance"), t("team.NS"), t("team.EW"),
                       t("col.penalties")], rows, indent="")]
    last = lines[-1] if lines else None
    out.append("")
    if last is None or not last.get("winner"):
        out.append(t("sheet.no_winner"))
        return out
    out.append(t("sheet.winner", team=t("team." + last["winner"]), by=t("by." + last["by"])))
    if "reason" in last:
        out.append(f"  {last['reason']}")
    final = last["levels"]
    out.append(f"{t('sheet.final_levels')}: {t('team.NS')} {final['NS']}  "
               f"{t('team.EW')} {final['EW']}")
    for key, label in (("big_points", "sheet.big_points"), ("net_levels", "sheet.net_levels")):
        if key in last:
            out.append(f"{t(label)}: {t('team.NS')} {last[key]['NS']}  "
                       f"{t('team.EW')} {last[key]['EW']}")
    return out


def _individual_sheet(record: Mapping[str, Any], ruleset: Ruleset,
                      lines: Sequence[Mapping[str, Any]], lang: str, t: Translate) -> list[str]:
    assert ruleset.deals is not None
    order = ruleset.deals.dealer_order
    names = record.get("players") or {}
    heads = [f"{p} {names[p]}" if p in names else p for p in order]
    rows: list[tuple[Any, ...]] = [
        (line["deal"], line["level"], line["dealer"], line["partner"], line["total"],
         *(line["awards"][p] for p in order), _penalty_notes(line, ruleset, lang, t))
        for line in lines]
    totals = lines[-1]["totals"] if lines else {p: 0 for p in order}
    ranked = sorted(order, key=lambda p: -totals[p])
    places = {p: 1 + sum(totals[q] > totals[p] for q in order) for p in order}
    rows.append((t("sheet.totals"), "", "", "", "", *(totals[p] for p in order), ""))
    rows.append((t("sheet.rank"), "", "", "", "", *(places[p] for p in order), ""))
    out = ["", table([t("col.deal"), t("col.level"), t("col.dealer"), t("col.partner"),
                      t("col.total_short"), *heads, t("col.penalties")], rows, indent="")]
    out += ["", " > ".join(f"{p} {totals[p]}" for p in ranked)]
    return out


def _penalty_notes(line: Mapping[str, Any], ruleset: Ruleset, lang: str, t: Translate) -> str:
    notes = []
    for p in line.get("penalties", []):
        penalty = ruleset.penalties.get(p["code"])
        name = penalty.name(lang) if penalty else p["code"]
        if p["points"]:
            cost = f"{p['points']:+d}"
        else:
            levels = f" -{p['levels']}" if "levels" in p else ""
            cost = f"({t('effect.' + p['effect'])}{levels})"
        notes.append(f"{p['seat']} {name} {cost}")
    return "; ".join(notes)


def _blank(value: Any) -> str:
    return "" if value is None else str(value)
