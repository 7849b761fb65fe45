"""The score slip a thermal printer prints at the end of a match, as text or ESC/POS bytes.

It carries what the seeds' 记分表 ask: event, round, table, ruleset, teams and players, every
hand (dealer as 北/东/南/西, level, defenders' total, result) with its kitty and penalties under
it in words, final levels, the winner, big points and net levels, and a line for each player to
sign, in table order, and for the referee. 58 mm paper holds 32 columns, 80 mm 48 (a Chinese
character takes two). Chinese text goes to the printer in GB18030."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..i18n import translator
from ..rules import Ruleset
from ..words import hand as words
from ..words.textfmt import pad, width, wrap

COLUMNS = {58: 32, 80: 48}

# ESC/POS commands
INIT = b"\x1b@"
CHINESE_ON = b"\x1c&"  # FS &: double-byte (GB18030) characters
CENTER, LEFT = b"\x1ba\x01", b"\x1ba\x00"
BOLD_ON, BOLD_OFF = b"\x1bE\x01", b"\x1bE\x00"
FEED_AND_CUT = b"\x1bd\x04\x1dVB\x00"


def slip_lines(record: Mapping[str, Any], ruleset: Ruleset, lines: Sequence[Mapping[str, Any]],
               paper: int, lang: str,
               corrected: Mapping[int, tuple[int | None, str]] | None = None,
               printed_at: str = "", edition: int = 1,
               dropped: int | None = None) -> list[tuple[str, str]]:
    """The slip as (style, text) lines; style is "title", "text" or "rule". `corrected`: the
    hands the table's referee corrected (`MatchState.corrected`: the total first confirmed and
    the reason), each noted as the scorer's sheet notes it. `printed_at`: when (as the slip
    says it); `edition`: the times the match was decided (`MatchState.finishes`), more than
    one when a correction after its end made it again: that slip says it replaces the one
    printed before. `dropped`: the hand in play that time up left unfinished
    (`MatchState.dropped_at_time_up`): the slip says why the players do not find it."""
    t = translator(lang)
    cols = COLUMNS[paper]
    corrected = corrected or {}
    out: list[tuple[str, str]] = [("title", line) for title in (t("sheet.title"),
                                                                   ruleset.name(lang))
                                  for line in wrap(title, cols)]
    if record.get("event"):
        out += [("text", line) for line in wrap(t("words.field", label=t("sheet.event"),
                                                  value=record["event"]), cols)]
    where = [t("words.field", label=t(f"sheet.{key}"), value=record[key])
             for key in ("round", "table") if key in record]
    out += [("text", line) for line in wrap("  ".join(where), cols) if line]
    out.append(("text", t("words.field", label=t("sheet.ruleset"),
                          value=ruleset.version)))  # the name is in the title
    if printed_at:
        out.append(("text", t("words.field", label=t("slip.printed_at"), value=printed_at)))
    if edition > 1:  # two signed slips of one match: which is the record is said on it
        out += [("text", line) for part in t("slip.edition", n=edition).split("\n")
                for line in wrap(part, cols)]
    teams, players = record.get("teams") or {}, record.get("players") or {}
    if ruleset.kind == "team":  # the team's name, then its players on a line of their own
        for team in ("NS", "EW"):
            line = words.team_line(team, {team: teams.get(team)} if teams.get(team) else {},
                                   {}, lang) if teams.get(team) else None
            who = "  ".join(words.seat_name(s, lang, players) for s in team if s in players)
            if line is None and who:
                line = words.team_line(team, {}, players, lang)
                who = ""
            out += [("text", x) for x in wrap(line, cols)] if line else []
            out += [("text", "  " + x) for x in wrap(who, cols - 2)] if who else []
    elif players:
        out += [("text", x) for x in wrap("  ".join(
            words.seat_name(p, lang, players) for p in words.table_order(ruleset)
            if p in players), cols)]
    out.append(("rule", "-" * cols))
    out += _hands(record, ruleset, lines, cols, lang, corrected) if ruleset.kind == "team" \
        else _deals(record, ruleset, lines, cols, lang, corrected)
    out.append(("rule", "-" * cols))
    out += [("text", x) for x in _result(record, ruleset, lines, cols, lang)]
    if dropped:
        out += [("text", x) for x in wrap(t("slip.dropped", n=dropped), cols)]
    out.append(("text", ""))
    for who in words.signers(ruleset, record, lang):
        label = t("slip.sign", who=who)
        out += [("text", label + "_" * max(4, cols - width(label))), ("text", "")]
    return out


def _hands(record: Mapping[str, Any], ruleset: Ruleset, lines: Sequence[Mapping[str, Any]],
           cols: int, lang: str, corrected: Mapping[int, tuple[int | None, str]]
           ) -> list[tuple[str, str]]:
    t = translator(lang)
    heads = (t("slip.col.hand"), t("slip.col.dealer"), t("slip.col.level"),
             t("slip.col.total"), t("slip.col.result"), t("slip.col.advance"), t("team.NS"),
             t("team.EW"))
    rows, row_notes = [], []
    players = record.get("players") or {}
    for line in lines:
        if line.get("hand") is None:
            continue
        advance = "" if line["advance"] is None else f"+{line['advance']}"
        total = "" if line["total"] is None else str(line["total"])
        rows.append((str(line["hand"]), words.seat_name(line["dealer"], lang), line["level"],
                     total, t("slip.result." + line["result"]), advance,
                     *(words.level_words(line, team, lang) for team in ("NS", "EW"))))
        notes = words.notes(record, line, ruleset, lang, players)
        if line["result"] == "redeal" and line.get("called_by"):  # (its column says 革命)
            seat = words.seat_name(line["called_by"], lang, players)
            notes = [t("slip.redeal_by", seat=seat), *notes]
        if line["hand"] in corrected:
            was, reason = corrected[line["hand"]]
            notes.append(words.corrected_words(was, reason, line["total"], lang))
        row_notes.append(notes)
    return _grid(heads, rows, row_notes, cols)


def _deals(record: Mapping[str, Any], ruleset: Ruleset, lines: Sequence[Mapping[str, Any]],
           cols: int, lang: str, corrected: Mapping[int, tuple[int | None, str]]
           ) -> list[tuple[str, str]]:
    t = translator(lang)
    order = words.table_order(ruleset)
    players = record.get("players") or {}
    heads = (t("slip.col.hand"), t("slip.col.level"), t("slip.col.dealer"),
             t("slip.col.partner"), t("slip.col.total"),
             *(words.seat_name(p, lang) for p in order))
    rows, row_notes = [], []
    for line in lines:
        rows.append((str(line["deal"]), line["level"], words.seat_name(line["dealer"], lang),
                     words.seat_name(line["partner"], lang), str(line["total"]),
                     *(str(line["awards"][p]) for p in order)))
        row_notes.append(words.notes(record, line, ruleset, lang, players) + (
            [words.corrected_words(*corrected[line["deal"]], line["total"], lang)]
            if line["deal"] in corrected else []))
    if lines:
        totals = lines[-1]["totals"]
        rows.append((t("sheet.totals"), "", "", "", "", *(str(totals[p]) for p in order)))
        row_notes.append([])
    return _grid(heads, rows, row_notes, cols)


def _grid(heads: Sequence[str], rows: Sequence[Sequence[str]],
          row_notes: Sequence[Sequence[str]], cols: int) -> list[tuple[str, str]]:
    """Heads and rows in columns as wide as their widest cell (one space between), each row's
    notes wrapped under it, indented."""
    widths = [max(width(str(r[i])) for r in [heads, *rows]) for i in range(len(heads))]
    out = [("text", _row(heads, widths, cols))]
    for row, extra in zip(rows, row_notes, strict=True):
        out.append(("text", _row(row, widths, cols)))
        for note in extra:
            out += [("text", "  " + x) for x in wrap(note, cols - 2)]
    return out


def _result(record: Mapping[str, Any], ruleset: Ruleset, lines: Sequence[Mapping[str, Any]],
            cols: int, lang: str) -> list[str]:
    t = translator(lang)
    last = lines[-1] if lines else None
    if ruleset.kind != "team":
        if not last:
            return [t("sheet.no_winner")]
        return wrap(words.ranking_words(last["totals"], words.table_order(ruleset), lang,
                                        record.get("players") or {}), cols)
    return [x for line in words.ending_words(last, ruleset, lang, record.get("end"))
            for x in wrap(line, cols)]


def _row(cells: Sequence[str], widths: Sequence[int], cols: int) -> str:
    return " ".join(pad(c, w) for c, w in zip(cells, widths, strict=True)).rstrip()


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
