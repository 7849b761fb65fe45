"""The score slip a thermal printer prints at the end of a match, as text or ESC/POS bytes.

It carries what the seeds' 记分表 ask: event, round, table, ruleset, teams and players, every
hand (dealer, level, defenders' total, result), penalties, final levels, the winner, big points
and net levels, and lines to sign. 58 mm paper holds 32 columns, 80 mm 48 (a Chinese character
takes two). Chinese text goes to the printer in GB18030."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..i18n import translator
from ..rules import Ruleset
from ..textfmt import pad, width

COLUMNS = {58: 32, 80: 48}

# ESC/POS commands
INIT = b"\x1b@"
CHINESE_ON = b"\x1c&"  # FS &: double-byte (GB18030) characters
CENTER, LEFT = b"\x1ba\x01", b"\x1ba\x00"
BOLD_ON, BOLD_OFF = b"\x1bE\x01", b"\x1bE\x00"
FEED_AND_CUT = b"\x1bd\x04\x1dVB\x00"


def slip_lines(record: Mapping[str, Any], ruleset: Ruleset, lines: Sequence[Mapping[str, Any]],
               paper: int, lang: str) -> list[tuple[str, str]]:
    """The slip as (style, text) lines; style is "title", "text" or "rule"."""
    t = translator(lang)
    cols = COLUMNS[paper]
    out: list[tuple[str, str]] = [("title", line) for title in (t("sheet.title"),
                                                                   ruleset.name(lang))
                                  for line in wrap(title, cols)]
    if record.get("event"):
        out += [("text", line) for line in wrap(f"{t('sheet.event')}: {record['event']}", cols)]
    where = [f"{t('sheet.' + key)}: {record[key]}" for key in ("round", "table") if key in record]
    out += [("text", line) for line in wrap("  ".join(where), cols) if line]
    out.append(("text", f"{t('sheet.ruleset')}: {ruleset.id} {ruleset.sha256[:8]}"))
    teams, players = record.get("teams") or {}, record.get("players") or {}
    if ruleset.kind == "team":
        for team in ("NS", "EW"):
            who = "/".join(players[s] for s in team if s in players)
            out += [("text", x) for x in wrap(f"{t('team.' + team)}: {teams.get(team, '')} "
                                              f"{who}".rstrip(), cols)]
    elif players:
        out += [("text", x) for x in wrap("  ".join(f"{p} {n}" for p, n in players.items()),
                                          cols)]
    out.append(("rule", "-" * cols))
    out += _hands(ruleset, lines, cols, lang) if ruleset.kind == "team" else \
        _deals(ruleset, lines, cols, lang)
    out.append(("rule", "-" * cols))
    out += [("text", x) for x in _result(ruleset, lines, cols, lang)]
    out.append(("text", ""))
    signers = ([t("team.NS"), t("team.EW")] if ruleset.kind == "team"
               else list(ruleset.deals.dealer_order if ruleset.deals else ()))
    for who in [*signers, t("slip.referee")]:
        label = t("slip.sign", who=who)
        out += [("text", label + "_" * max(4, cols - width(label))), ("text", "")]
    return out


def _hands(ruleset: Ruleset, lines: Sequence[Mapping[str, Any]], cols: int,
           lang: str) -> list[tuple[str, str]]:
    t = translator(lang)
    widths = (2, 2, 2, 3, 4, 3, 4, 4)  # hand dealer level T result + NS EW
    heads = (t("slip.col.hand"), t("slip.col.dealer"), t("slip.col.level"),
             t("slip.col.total"), t("slip.col.result"), t("slip.col.advance"), t("team.NS"),
             t("team.EW"))
    out = [("text", _row(heads, widths, cols))]
    notes = []
    for line in lines:
        if line.get("hand") is None:
            continue
        advance = "" if line["advance"] is None else f"+{line['advance']}"
        total = "" if line["total"] is None else str(line["total"])
        cells = (str(line["hand"]), line["dealer"], line["level"], total,
                 t("slip.result." + line["result"]), advance, line["levels"]["NS"],
                 line["levels"]["EW"])
        out.append(("text", _row(cells, widths, cols)))
        notes += [f"{line['hand']} {_penalty(p, ruleset, lang)}"
                  for p in line.get("penalties", [])]
    return out + _notes(notes, cols, lang)


def _deals(ruleset: Ruleset, lines: Sequence[Mapping[str, Any]], cols: int,
           lang: str) -> list[tuple[str, str]]:
    t = translator(lang)
    order = ruleset.deals.dealer_order if ruleset.deals else ()
    widths = (2, 2, 2, 2, 3, *(3,) * len(order))
    heads = (t("slip.col.hand"), t("slip.col.level"), t("slip.col.dealer"),
             t("slip.col.partner"), t("slip.col.total"), *order)
    out = [("text", _row(heads, widths, cols))]
    notes = []
    for line in lines:
        cells = (str(line["deal"]), line["level"], line["dealer"], line["partner"],
                 str(line["total"]), *(str(line["awards"][p]) for p in order))
        out.append(("text", _row(cells, widths, cols)))
        notes += [f"{line['deal']} {_penalty(p, ruleset, lang)}"
                  for p in line.get("penalties", [])]
    if lines:
        totals = lines[-1]["totals"]
        out.append(("text", _row(("", "", "", "", "", *(str(totals[p]) for p in order)),
                                 widths, cols)))
    return out + _notes(notes, cols, lang)


def _notes(notes: list[str], cols: int, lang: str) -> list[tuple[str, str]]:
    if not notes:
        return []
    out = [("text", translator(lang)("slip.penalties") + ":")]
    for note in notes:
        out += [("text", x) for x in wrap(note, cols)]
    return out


def _penalty(p: Mapping[str, Any], ruleset: Ruleset, lang: str) -> str:
    penalty = ruleset.penalties.get(p["code"])
    name = penalty.name(lang) if penalty else p["code"]
    cost = f"{p['points']:+d}" if p["points"] else translator(lang)("effect." + p["effect"])
    return f"{p['seat']} {name} {cost}"


def _result(ruleset: Ruleset, lines: Sequence[Mapping[str, Any]], cols: int,
            lang: str) -> list[str]:
    t = translator(lang)
    last = lines[-1] if lines else None
    if ruleset.kind != "team":
        if not last:
            return [t("sheet.no_winner")]
        totals = last["totals"]
        ranked = sorted(totals, key=lambda p: -totals[p])
        return wrap(" > ".join(f"{p} {totals[p]}" for p in ranked), cols)
    if last is None or not last.get("winner"):
        return [t("sheet.no_winner")]
    out = wrap(t("sheet.winner", team=t("team." + last["winner"]), by=t("by." + last["by"])),
               cols)
    if last.get("reason"):
        out += wrap(str(last["reason"]), cols)
    levels = last["levels"]
    out.append(f"{t('sheet.final_levels')}: {t('team.NS')} {levels['NS']}  "
               f"{t('team.EW')} {levels['EW']}")
    for key, label in (("big_points", "sheet.big_points"), ("net_levels", "sheet.net_levels")):
        if key in last:
            out += wrap(f"{t(label)}: {t('team.NS')} {last[key]['NS']}  {t('team.EW')} "
                        f"{last[key]['EW']}", cols)
    return out


def _row(cells: Sequence[str], widths: Sequence[int], cols: int) -> str:
    return " ".join(pad(c, w) for c, w in zip(cells, widths, strict=True)).rstrip()


def wrap(text: str, cols: int) -> list[str]:
    """Split `text` into lines of at most `cols` columns (Chinese characters take two)."""
    lines, current = [], ""
    for ch in text:
        if width(current + ch) > cols:
            lines.append(current.rstrip())
            current = ch.lstrip()
        else:
            current += ch
    return [*lines, current.rstrip()] if current.strip() or not lines else lines


def as_text(slip: list[tuple[str, str]], paper: int) -> str:
    cols = COLUMNS[paper]
    return "\n".join(pad("", (cols - width(text)) // 2) + text if style == "title" else text
                     for style, text in slip) + "\n"


def as_escpos(slip: list[tuple[str, str]]) -> bytes:
    """ESC/POS for a Chinese thermal printer: GB18030 text, titles centred in bold."""
    out = bytearray(INIT + CHINESE_ON)
    for style, text in slip:
        if style == "title":
            out += CENTER + BOLD_ON + text.encode("gb18030") + b"\n" + BOLD_OFF + LEFT
        else:
            out += text.encode("gb18030") + b"\n"
    return bytes(out + FEED_AND_CUT)
