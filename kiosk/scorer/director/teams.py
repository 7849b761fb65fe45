"""The event and its teams: creating the event and its settings, importing, adding, editing,
renaming and deleting teams, late entries, withdrawals and reinstatements."""

from __future__ import annotations

import json
import math
import re
import secrets
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...errors import Choice, Words, words
from ...i18n import DEFAULT_LANG, translator
from ...rules import Ruleset
from ..tournament.core import Team
from . import roster
from .base import (
    FORMATS,
    SWISS_FORMATS,
    DirectorBase,
    EventInfo,
    confirm_first,
    decides_time_up,
    refuse,
    ruleset_label,
    with_id,
)
from .triage import number_list

ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,12}$")


@dataclass(frozen=True)
class TeamRow:
    """A team as the console lists it."""

    id: str
    name: str
    unit: str
    players: tuple[str, ...]
    joined_round: int  # 1, or the first round a late entry plays
    missed_points: int  # big points for each round a late entry missed
    withdrawn_after: int | None  # plays no round after this one; None: in the event

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_after is not None


@dataclass(frozen=True)
class ImportReport:
    added: tuple[str, ...]  # the new teams' ids, in file order
    ignored: tuple[str, ...]  # columns the scorer does not use
    joined_round: int  # 1, or the round late entries join at
    updated: tuple[str, ...] = ()  # teams of the event the file corrected, in file order


class EventAndTeams(DirectorBase):
    # -- the event --------------------------------------------------------------------------

    def create_event(self, name: str, ruleset: str, rounds: int | None = None,
                     match_minutes: float | None = None, seed: int | None = None,
                     by: str = "") -> EventInfo:
        if self.event() is not None:
            raise refuse("admin.error.event_exists")
        name = roster.clean(name)
        if not name:
            raise refuse("admin.error.event_name")
        chosen = self.rulesets.get(ruleset)
        if chosen is None:
            raise refuse("admin.error.unknown_ruleset", ruleset=ruleset,
                         known=_listing(list(self.rulesets)))
        fmt = chosen.event.format
        if fmt not in FORMATS:
            raise refuse("admin.error.format_unsupported", ruleset=ruleset, format=fmt)
        rounds = rounds if rounds is not None and fmt in SWISS_FORMATS \
            else _rounds_of(fmt, chosen.event.rounds)  # (0 asked: refused, not the default)
        if not 0 <= rounds <= 99 or (fmt in SWISS_FORMATS and not rounds):
            raise refuse("admin.error.rounds_range")
        if match_minutes is not None and not (math.isfinite(match_minutes) and
                                              0 <= match_minutes <= 24 * 60):
            raise refuse("admin.error.minutes_range")
        # (none given: the ruleset's; 0: no time limit)
        minutes = chosen.time.match_minutes if match_minutes is None else match_minutes or None
        _timed_by_rule(chosen, minutes)
        with self.store.db.atomic():
            self.store.db.execute(
                "INSERT INTO event (id, name, ruleset, ruleset_sha256, format, rounds, "
                "match_minutes, seed, status, created, match_name) "
                "VALUES (1, ?, ?, ?, ?, ?, ?, ?, 'setup', ?, ?)",
                [name, chosen.id, chosen.sha256, fmt, rounds, minutes,
                 seed if seed is not None else secrets.randbelow(10**6), self.clock(), name])
            self._audit(by, "event.create", name=name, ruleset=chosen.name, rounds=rounds)
        self._changed()
        return self.require_event()

    def edit_event(self, name: str | None = None, ruleset: str | None = None,
                   rounds: int | None = None, match_minutes: float | None = None,
                   confirm: bool = False, by: str = "", minutes_by_ruleset: bool = False
                   ) -> tuple[list[str], list[int]]:
        """Correct the event's settings; None leaves one as it is (`match_minutes` 0: no time
        limit; `minutes_by_ruleset`: the event's ruleset's own, as then chosen). Returns the
        settings that changed ("name", "ruleset", "rounds", "minutes"), each written to the
        audit log with its old and new value, and the tables that lost their pairing. The name
        can be corrected until the event is closed; the ruleset and the match minutes until
        round 1 is published (the tables play by them); the rounds at any time, never below
        the rounds published (or drafted). Another ruleset that a paired table's kiosk does
        not hold (the same copy) needs `confirm`: those tables lose their pairing and get new
        codes, so that they cannot play by another copy than the scorer scores by."""
        event = self.require_event()
        if event.status == "closed":
            raise refuse("admin.error.edit_closed")
        changes: list[tuple[str, dict[str, object]]] = []
        if name is not None and roster.clean(name) != event.name:
            name = roster.clean(name)
            if not name:
                raise refuse("admin.error.event_name")
            changes.append(("name", {"was": event.name, "name": name}))
        published = self.current_round()
        chosen, fmt = self.ruleset(), event.format
        if ruleset is not None and ruleset != event.ruleset:
            chosen = self._another_ruleset(ruleset, published)
            fmt = chosen.event.format
            changes.append(("ruleset", {"was": self.ruleset().name, "ruleset": chosen.name}))
        minutes = event.match_minutes
        if minutes_by_ruleset:
            match_minutes = chosen.time.match_minutes or 0
        if match_minutes is not None and (match_minutes or None) != minutes:
            if not (math.isfinite(match_minutes) and 0 <= match_minutes <= 24 * 60):
                raise refuse("admin.error.minutes_range")
            if published:
                raise refuse("admin.error.edit_published_minutes")
            minutes = match_minutes or None
            changes.append(("minutes", {"was": _minutes_said(event.match_minutes),
                                        "minutes": _minutes_said(minutes)}))
        if any(field in ("ruleset", "minutes") for field, _ in changes):
            _timed_by_rule(chosen, minutes)
        new_rounds = event.rounds if _same_kind(fmt, event.format) else \
            _rounds_of(fmt, chosen.event.rounds)
        if rounds is not None and rounds != new_rounds:
            if fmt not in SWISS_FORMATS:
                raise refuse("admin.error.rounds_fixed")
            if not 1 <= rounds <= 99:
                raise refuse("admin.error.rounds_range")
            draft = self.current_draft()
            if rounds < published:
                raise refuse("admin.error.rounds_below", published=published)
            if draft is not None and rounds < draft.round:
                raise refuse("admin.error.rounds_below_draft", round=draft.round)
            new_rounds = rounds
        if new_rounds != event.rounds:
            changes.append(("rounds", {"was": event.rounds, "rounds": new_rounds}))
        if not changes:
            return [], []
        stranded = self._kiosks_without(chosen) if chosen.id != event.ruleset else []
        if stranded and not confirm:
            raise confirm_first("admin.confirm.ruleset_kiosks", ruleset=ruleset_label(chosen),
                                tables=number_list(stranded))
        fields = dict(changes)
        with self.store.db.atomic():
            if "name" in fields:
                self.store.db.execute("UPDATE event SET name = ? WHERE id = 1",
                                      [fields["name"]["name"]])
                if not self.tables_told():  # no table has been given a round under it yet
                    self.store.db.execute("UPDATE event SET match_name = name WHERE id = 1")
            if "ruleset" in fields:
                self.store.db.execute(
                    "UPDATE event SET ruleset = ?, ruleset_sha256 = ?, format = ? WHERE id = 1",
                    [chosen.id, chosen.sha256, fmt])
                if self.bye_points() > chosen.result.win_points:  # (no bye was played yet)
                    self.store.db.execute("DELETE FROM settings WHERE key = 'bye_points'")
            if "minutes" in fields:
                self.store.db.execute("UPDATE event SET match_minutes = ? WHERE id = 1",
                                      [minutes])
            if "rounds" in fields:
                self.store.db.execute("UPDATE event SET rounds = ? WHERE id = 1", [new_rounds])
            for field, params in changes:
                self._audit(by, f"event.edit_{field}", **params)
            for table in stranded:
                self.store.revoke(table)
                self._audit(by, "tables.unpaired_ruleset", table=table,
                            ruleset=ruleset_label(chosen))
        for table in stranded:
            self.store.issue_code(table)
        self._changed()
        return [field for field, _ in changes], stranded

    def _another_ruleset(self, ruleset: str, published: int) -> Ruleset:
        """The ruleset the event may change to, or the refusal saying why not."""
        if published:
            raise refuse("admin.error.edit_published_ruleset")
        chosen = self.rulesets.get(ruleset)
        if chosen is None:
            raise refuse("admin.error.unknown_ruleset", ruleset=ruleset,
                         known=_listing(list(self.rulesets)))
        if chosen.event.format not in FORMATS:
            raise refuse("admin.error.format_unsupported", ruleset=ruleset,
                         format=chosen.event.format)
        if not _same_kind(chosen.event.format, self.require_event().format) and self.team_rows():
            raise refuse("admin.error.edit_format", ruleset=chosen.id)
        if self.current_draft() is not None:
            raise refuse("admin.error.edit_draft")  # (drafted by the other ruleset)
        return chosen

    def _kiosks_without(self, ruleset: Ruleset) -> list[int]:
        """The paired tables whose kiosk did not hold this copy of `ruleset` when it paired."""
        return sorted(n for n, copies in self.store.kiosk_rulesets().items()
                      if copies.get(ruleset.id) != ruleset.sha256)

    def tables_told(self) -> bool:
        """A round has been started (its assignments went out to the tables, with the event's
        name: the tables' matches are found by it from then on)."""
        return self.store.db.execute(
            "SELECT 1 FROM audit WHERE action = 'round.start' LIMIT 1").fetchone() is not None

    def bye_points(self) -> int:
        """The big points a bye scores (default: a win's, the seed's 3)."""
        stored = self.store.setting("bye_points")
        return int(stored) if stored is not None else self.ruleset().result.win_points

    def set_bye_points(self, points: int, confirm: bool = False, by: str = "") -> None:
        """What a bye scores from now on, in every round: a change after byes were played
        changes those teams' standings, so it needs `confirm`. Refused once the event is
        closed (its standings are frozen)."""
        self._open_event()
        win = self.ruleset().result.win_points
        if not 0 <= points <= win:
            raise refuse("admin.error.bye_points_range", win=win)
        byes = [r for r in self.results() if r.b is None and r.winner is not None]
        if byes and points != self.bye_points() and not confirm:
            raise confirm_first("admin.confirm.bye_points", points=points,
                                was=self.bye_points(), byes=len(byes),
                                teams=_listing([self.label(a)
                                               for a in dict.fromkeys(r.a for r in byes)]))
        with self.store.db.atomic():
            self.store.db.execute("INSERT OR REPLACE INTO settings VALUES ('bye_points', ?)",
                                  [str(points)])
            self._audit(by, "event.bye_points", points=points)
        self._changed()

    # -- teams ------------------------------------------------------------------------------

    def teams(self) -> list[Team]:
        return list(self._kept("teams", lambda: [
            Team(i, n, u) for i, n, u in self.store.db.execute(
                "SELECT id, name, unit FROM teams ORDER BY rowid")]))

    def team_rows(self) -> list[TeamRow]:
        return list(self._kept("team rows", lambda: [
            TeamRow(i, n, u or "", tuple(json.loads(p or "[]")), j or 1, m or 0, w)
            for i, n, u, p, j, m, w in self.store.db.execute(
                "SELECT id, name, unit, players, joined_round, missed_points, "
                "withdrawn_after FROM teams ORDER BY rowid")]))

    def team(self, team: str) -> TeamRow:
        """One team by id (in any letter case, as a link gives it), or by its exact name.
        Raises AdminError naming what exists."""
        rows = self.team_rows()
        found = [r for r in rows if r.id == team] or \
            [r for r in rows if r.id.casefold() == team.casefold()] or \
            [r for r in rows if r.name == team]
        if len(found) != 1:
            raise refuse("admin.error.no_team", team=team) if not found else \
                refuse("admin.error.name_ambiguous", team=team,
                       ids=_listing([r.id for r in found]))
        return found[0]

    def _players(self, team: str) -> list[str]:
        row = self.store.db.execute("SELECT players FROM teams WHERE id = ?", [team]).fetchone()
        return list(json.loads(row[0])) if row else []

    def _next_ids(self, count: int, also: Iterable[str] = ()) -> list[str]:
        """The next free ids in the t01, t02 … series, in the letter case the event's list
        uses (T21 after T01 … T20): never one that differs from a taken id only by case.
        `also`: ids taken with them (a file's own: T10 after its T01 … T09)."""
        ids = [r.id for r in self.team_rows()] + list(also)
        taken = {i.casefold() for i in ids}
        series = [i for i in ids if re.fullmatch(r"[tT]\d+", i)]
        letter = max(series, key=lambda i: int(i[1:]))[0] if series else "t"
        width = max((len(i) - 1 for i in series), default=2)
        n = max((int(i[1:]) for i in series), default=0) + 1
        out: list[str] = []
        while len(out) < count:
            candidate = f"{letter}{n:0{width}d}"
            if candidate.casefold() not in taken:
                out.append(candidate)
            n += 1
        return out

    def _entry_round(self) -> int:
        """The round a team added now plays first: 1 before play, else the next round not
        yet published."""
        return self.current_round() + 1

    def import_teams(self, data: bytes | str, confirm: bool = False, missed_points: int = 0,
                     by: str = "") -> ImportReport:
        """Add the teams of a CSV file's bytes, or of a list pasted as text (see `roster`).
        Names already in the event, or twice in the file, need `confirm`. Once rounds have
        been published, the teams are late entries: paired from the next round, each missed
        round scoring `missed_points`. A file naming teams of the event by id is a corrected
        list: `_update_teams`."""
        self._open_event()
        parsed = roster.parse_pasted(data) if isinstance(data, str) else roster.parse(data)
        entrants = list(parsed.entrants)
        known = {r.id.casefold(): r for r in self.team_rows()}  # (t01 is T01 in a link)
        again = [(known[e.id.casefold()], e) for e in entrants
                 if e.id and e.id.casefold() in known]
        if again:  # a corrected list: an update of the teams it names, after a look
            return self._update_teams(parsed, again, confirm, missed_points, by)
        ids = self._add_entrants(entrants, confirm, missed_points, by)
        self._changed()
        return ImportReport(ids, parsed.ignored, self._entry_round())

    def _add_entrants(self, entrants: list[roster.Entrant], confirm: bool, missed_points: int,
                      by: str) -> tuple[str, ...]:
        """Insert the file's new teams (their ids checked, a repeated name asked about);
        returns their ids."""
        known = self.team_rows()
        bad = [e for e in entrants if e.id and not ID_PATTERN.match(e.id)]
        if bad:
            raise refuse("admin.error.bad_id", id=bad[0].id, line=bad[0].line)
        names = Counter([r.name for r in known] + [e.name for e in entrants])
        twice = [e for e in entrants if names[e.name] > 1]
        if twice and not confirm:
            held = {r.name: r.id for r in known}  # (which team of the event has the name)
            raise confirm_first("admin.confirm.duplicate_names", names=_listing([
                words("admin.import.at_line_known", name=name, line=line, id=held[name])
                if name in held else words("admin.import.at_line", name=name, line=line)
                for name, line in dict.fromkeys((e.name, e.line) for e in twice)]))
        joined = self._entry_round()
        self._check_late(joined, missed_points)
        fresh = iter(self._next_ids(sum(1 for e in entrants if not e.id),
                                    [e.id for e in entrants if e.id]))
        ids = [e.id or next(fresh) for e in entrants]
        with self.store.db.atomic():
            self.store.db.conn.executemany(
                "INSERT INTO teams (id, name, unit, players, withdrawn_after, joined_round, "
                "missed_points, added) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)",
                [(i, e.name, e.unit, json.dumps(e.players, ensure_ascii=False), joined,
                  missed_points if joined > 1 else 0, self.clock())
                 for i, e in zip(ids, entrants, strict=True)])
            self._audit(by, "team.import", count=len(ids), late=joined > 1, round=joined,
                        points=missed_points)
            self._draft_outdated(by)
        return tuple(ids)

    def _update_teams(self, parsed: roster.Roster,
                      again: list[tuple[TeamRow, roster.Entrant]], confirm: bool,
                      missed_points: int, by: str) -> ImportReport:
        """A team list imported again, corrected: the teams it names by id take its name,
        unit and players (each change in the audit log, old and new), the teams it adds are
        added (`import_teams`), the event's teams it leaves out stay as they are. Asks first,
        saying every change."""
        changes = [(row, entrant, fields) for row, entrant in again
                   if (fields := _changed_fields(row, entrant))]
        named = {row.id for row, _ in again}
        new = [e for e in parsed.entrants if not (e.id and any(
            e.id.casefold() == i.casefold() for i in named))]
        left_out = [r for r in self.team_rows() if r.id not in named]
        if not changes and not new:
            raise refuse("admin.error.update_nothing", n=len(again))
        if not confirm:
            raise confirm_first(
                "admin.confirm.update_teams", n=len(changes),
                same=len(again) - len(changes),
                changes=_listing([words("admin.update.team", team=self.label(row.id),
                                        what=_listing(fields)) for row, _, fields in changes]),
                # (a clause of none is left out: never 「新增 0 队（—）」)
                new=words("admin.update.new", n=len(new), names=_listing([e.name for e in new]))
                if new else "",
                left_out=words("admin.update.left_out", n=len(left_out)) if left_out else "")
        for row, entrant, _ in changes:
            self._apply_update(row, entrant, by)
        added: tuple[str, ...] = ()
        if new:  # (the new rows alone, as a file of their own: the same checks apply)
            added = self._add_entrants(new, True, missed_points, by)
        self._changed()
        return ImportReport(added, parsed.ignored, self._entry_round() if new else 1,
                            tuple(row.id for row, _, _ in changes))

    def _apply_update(self, row: TeamRow, entrant: roster.Entrant, by: str) -> None:
        players = json.dumps(entrant.players, ensure_ascii=False)
        with self.store.db.atomic():
            self.store.db.execute("UPDATE teams SET name = ?, unit = ?, players = ? WHERE id = ?",
                                  [entrant.name, entrant.unit, players, row.id])
            self._audit(by, "team.update", team=with_id(row.name, row.id),
                        was=_team_text(row.name, row.unit, row.players),
                        now=_team_text(entrant.name, entrant.unit, entrant.players))
            if entrant.unit != row.unit:
                self._draft_outdated(by)

    def late_refusal(self, joined: int) -> str | None:
        """Why a team cannot join from round `joined` (a refusal's key), or None: late entries
        play a Swiss event's rounds still to come."""
        if joined <= 1:
            return None
        event = self.require_event()
        if event.format not in SWISS_FORMATS:
            return "admin.error.late_format"
        return "admin.error.late_no_round" if event.rounds and joined > event.rounds else None

    def _check_late(self, joined: int, missed_points: int) -> None:
        if joined > 1:
            refusal = self.late_refusal(joined)
            if refusal:
                raise refuse(refusal)
            win = self.ruleset().result.win_points
            if not 0 <= missed_points <= win:
                raise refuse("admin.error.missed_points_range", win=win)

    def add_team(self, name: str, unit: str = "", players: tuple[str, ...] = (),
                 team_id: str = "", confirm: bool = False, missed_points: int = 0,
                 by: str = "") -> str:
        """One team from the console. Returns its id."""
        self._open_event()
        name, unit = roster.clean(name), roster.clean(unit)
        players = tuple(p for p in (roster.clean(p) for p in players) if p)
        self._check_team_fields(name, len(players))
        known = self.team_rows()
        team_id = team_id.strip()
        taken = next((r for r in known if r.id.casefold() == team_id.casefold()),
                     None) if team_id else None
        if taken is not None:  # (in any letter case: an id in a link ignores it)
            raise refuse("admin.error.id_taken", id=taken.id, team=taken.name)
        if team_id and not ID_PATTERN.match(team_id):
            raise refuse("admin.error.bad_id", id=team_id, line="—")
        if any(r.name == name for r in known) and not confirm:
            raise confirm_first("admin.confirm.duplicate_name", name=name)
        joined = self._entry_round()
        self._check_late(joined, missed_points)
        team_id = team_id or self._next_ids(1)[0]
        with self.store.db.atomic():
            self.store.db.execute(
                "INSERT INTO teams (id, name, unit, players, withdrawn_after, joined_round, "
                "missed_points, added) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)",
                [team_id, name, unit, json.dumps(players, ensure_ascii=False), joined,
                 missed_points if joined > 1 else 0, self.clock()])
            self._audit(by, "team.late" if joined > 1 else "team.add", team=with_id(name, team_id),
                        round=joined, points=missed_points)
            self._draft_outdated(by)
        self._changed()
        return team_id

    @staticmethod
    def _check_team_fields(name: str, players: int) -> None:
        if not name:
            raise refuse("admin.error.team_name")
        if len(name) > roster.MAX_NAME:
            raise refuse("admin.error.team_name_long", most=roster.MAX_NAME)
        if players > 4:
            raise refuse("admin.error.players_count")

    def edit_team(self, team: str, name: str, unit: str, players: tuple[str, ...],
                  confirm: bool = False, by: str = "") -> None:
        """Rename a team, or change its unit or players (at any time: results are kept by
        id). A unit changes the pairings from the next draft on."""
        row = self.team(team)
        name, unit = roster.clean(name), roster.clean(unit)
        players = tuple(p for p in (roster.clean(p) for p in players) if p)
        self._check_team_fields(name, len(players))
        if name != row.name and any(r.name == name for r in self.team_rows()) and not confirm:
            raise confirm_first("admin.confirm.duplicate_rename", name=name,
                                team=self.label(row.id))
        with self.store.db.atomic():
            self.store.db.execute("UPDATE teams SET name = ?, unit = ?, players = ? WHERE id = ?",
                                  [name, unit, json.dumps(players, ensure_ascii=False), row.id])
            # what changed, each from → to (the log gave the new values alone: which
            # player was corrected could not be told)
            changed = _changed_fields(row, roster.Entrant(row.id, name, unit, players))
            self._audit(by, "team.change", team=with_id(row.name, row.id),
                        changes=_listing(changed, "console.list.clause") if changed
                        else words("admin.update.same"))
            if unit != row.unit:
                self._draft_outdated(by)
        self._changed()

    def ever_paired(self, team: str) -> bool:
        db = self.store.db
        return bool(db.execute("SELECT 1 FROM assignments WHERE ns = ? OR ew = ? OR "
                               "seats LIKE ?", [team, team, f'%"{team}"%']).fetchone() or
                    db.execute("SELECT 1 FROM byes WHERE team = ?", [team]).fetchone())

    def delete_team(self, team: str, confirm: bool = False, by: str = "") -> None:
        """Remove a team that has never been in a published round."""
        row = self.team(team)
        self._open_event()
        if self.ever_paired(row.id):
            raise refuse("admin.error.delete_played", team=self.label(row.id))
        if not confirm:
            raise confirm_first("admin.confirm.delete_team", team=self.label(row.id))
        with self.store.db.atomic():
            self.store.db.execute("DELETE FROM teams WHERE id = ?", [row.id])
            self._audit(by, "team.delete", team=with_id(row.name, row.id))
            self._draft_outdated(by)
        self._changed()

    def withdraw(self, team: str, after_round: int | None = None, confirm: bool = False,
                 by: str = "") -> None:
        """The team plays no round after `after_round` (default: the current round, which it
        finishes). A team withdrawn from a match it has not finished loses it by forfeit
        (its opponent is not left without a result): that needs `confirm`."""
        row = self.team(team)
        event = self._open_event()
        current = self.current_round()
        # A team withdrawn after a round it is still playing may be withdrawn now instead
        # (its match forfeited) without being reinstated first: an earlier round, not later.
        if row.withdrawn_after is not None and (
                after_round is None or after_round >= row.withdrawn_after):
            how, round_no = self.withdrawal(row.id) or ("after", row.withdrawn_after)
            raise refuse("admin.error.already_withdrawn", team=self.label(row.id),
                         when=words_of_withdrawal(how, round_no))
        if after_round is None and not confirm and \
                (playing := self.open_match(row.id, current - 1)) is not None:
            raise self._when_to_withdraw(row, *playing)
        after = current if after_round is None else after_round
        if not 0 <= after <= current:
            raise refuse("admin.error.withdraw_round", current=current)
        played_later = [r for r in self.results()
                        if r.round > after and row.id in (r.a, r.b) and r.b is not None]
        if played_later:
            raise refuse("admin.error.withdraw_played", team=self.label(row.id),
                         round=max(r.round for r in played_later))
        open_match = self.open_match(row.id, after)
        if not confirm:
            if open_match is not None:
                round_no, table, opponent = open_match
                raise confirm_first("admin.confirm.withdraw_forfeit", team=self.label(row.id),
                                    round=round_no, table=table, opponent=self.label(opponent))
            raise confirm_first("admin.confirm.withdraw" + self._individual_words(),
                                team=self.label(row.id),
                                round=after + 1)
        with self.store.db.atomic():
            self.store.db.execute("UPDATE teams SET withdrawn_after = ? WHERE id = ?",
                                  [after, row.id])
            if open_match is None or event.format not in SWISS_FORMATS:
                self._audit(by, "team.withdraw", team=with_id(row.name, row.id), round=after)
            else:  # its unfinished match is forfeited
                round_no, table, _ = open_match
                self._audit(by, "team.withdraw_forfeit", team=with_id(row.name, row.id),
                            round=round_no, table=table)
                side = self._side_of(round_no, table, row.id)
                # the reason in the hall's language (a ruling's reason is the words a person
                # wrote, kept as written)
                reason = translator(DEFAULT_LANG)("admin.reason.withdrawn", team=row.name,
                                                  round=round_no)
                self._insert_ruling(round_no, table, "forfeit", side, 0, reason,
                                    by)
            self._draft_outdated(by)
        self._changed()

    def _when_to_withdraw(self, row: TeamRow, round_no: int, table: int, opponent: str
                          ) -> Exception:
        """The question when a team leaves in the middle of a round: after it (the match is
        played out) or now (it loses the match by forfeit)."""
        asked = confirm_first("admin.confirm.withdraw_when", team=self.label(row.id),
                              round=round_no, table=table, opponent=self.label(opponent))
        asked.choices = (
            Choice("when", "next", "admin.withdraw.choice_next", {"round": round_no},
                   "--yes"),
            Choice("when", "now", "admin.withdraw.choice_now",
                   {"round": round_no, "opponent": self.label(opponent)}, "--now --yes"))
        return asked

    def withdrawal(self, team: str) -> tuple[str, int] | None:
        """How a withdrawn team left, in the one wording every page and printout uses:
        ("after", N), it plays no round after round N; ("during", N), it left in the middle of
        round N and lost that match by a ruling. None: the team is in the event."""
        row = next((r for r in self.team_rows() if r.id == team), None)
        if row is None or row.withdrawn_after is None:
            return None
        left = row.withdrawn_after + 1
        for ruling in self.rulings():
            if ruling.round == left and ruling.kind in ("forfeit", "disqualification"):
                ns, ew = self.teams_at(left, ruling.table)
                if (ns if ruling.loser == "NS" else ew) == team:
                    return "during", left
        return "after", row.withdrawn_after

    def open_match(self, team: str, after: int) -> tuple[int, int, str] | None:
        """The match of a round after `after` that the team is in and that has no result
        yet: (round, table, opponent)."""
        current = self.current_round()
        for round_no in range(after + 1, current + 1):
            results = self.round_results(round_no)
            for table, ns, ew in self.assignments(round_no):
                if team in (ns, ew) and results.get(table) is None:
                    return round_no, table, ew if team == ns else ns
        return None

    def _side_of(self, round_no: int, table: int, team: str) -> str:
        for t, ns, _ in self.assignments(round_no):
            if t == table:
                return "NS" if ns == team else "EW"
        raise refuse("admin.error.no_team", team=team)

    def reinstate(self, team: str, confirm: bool = False, by: str = "") -> None:
        """A withdrawn team plays again from the next round (the rounds it missed score
        nothing)."""
        row = self.team(team)
        self._open_event()
        if not row.withdrawn:
            raise refuse("admin.error.not_withdrawn", team=self.label(row.id))
        if not confirm:  # (a match it forfeited by leaving stays forfeited: said first)
            how, left = self.withdrawal(row.id) or ("after", 0)
            raise confirm_first("admin.confirm.reinstate" + ("_forfeited" if how == "during"
                                                             else ""),
                                team=self.label(row.id), round=self._entry_round(), left=left)
        with self.store.db.atomic():
            self.store.db.execute("UPDATE teams SET withdrawn_after = NULL WHERE id = ?",
                                  [row.id])
            self._audit(by, "team.reinstate", team=with_id(row.name, row.id))
            self._draft_outdated(by)
        self._changed()

    def _active(self, round_no: int) -> list[Team]:
        """The teams that play `round_no`: joined by then, not withdrawn before it."""
        playing = {r.id for r in self.team_rows()
                   if r.joined_round <= round_no and
                   (r.withdrawn_after is None or r.withdrawn_after >= round_no)}
        return [t for t in self.teams() if t.id in playing]

    def missed_rounds(self) -> list[tuple[int, str, int]]:
        """(round, team, big points) for every round a late entry joined after."""
        return [(round_no, r.id, r.missed_points) for r in self.team_rows()
                for round_no in range(1, r.joined_round)]

    def _draft_outdated(self, by: str) -> None:
        """A change to the field discards the private draft (it is computed again)."""
        self.discard_draft(by, quiet=True)


def _changed_fields(row: TeamRow, entrant: roster.Entrant) -> list[Words]:
    """What a corrected list changes of a team, field by field, in words."""
    out = []
    if entrant.name != row.name:
        out.append(words("admin.update.name", was=row.name, now=entrant.name))
    if entrant.unit != row.unit:
        out.append(words("admin.update.unit", was=row.unit or "—", now=entrant.unit or "—"))
    if tuple(entrant.players) != tuple(row.players):
        out.append(words("admin.update.players", was="、".join(row.players) or "—",
                         now="、".join(entrant.players) or "—"))
    return out


def _team_text(name: str, unit: str, players: tuple[str, ...]) -> str:
    return " / ".join((name, unit or "—", "、".join(players) or "—"))


def _listing(items: list[Any], pair: str = "console.list.pair") -> Any:
    from .triage import listing  # (triage reads the director's views: imported when used)

    return listing(items, pair)


def words_of_withdrawal(how: str, round_no: int) -> Words:
    """「第 2 轮后退赛」 or 「第 3 轮中途退赛（本场判负）」 (`EventAndTeams.withdrawal`)."""
    return words(f"admin.withdrawal.{how}", round=round_no)


def _rounds_of(fmt: str, ruleset_rounds: int | None) -> int:
    """The rounds an event of this format plays by its ruleset."""
    if fmt in SWISS_FORMATS:
        return ruleset_rounds or 1
    return 2 if fmt == "individual-groups" else 0  # prelims and finals; or as many as it takes


def _same_kind(one: str, other: str) -> bool:
    """Two formats that pair the same teams the same way (Swiss rounds, one or more)."""
    return one == other or (one in SWISS_FORMATS and other in SWISS_FORMATS)


def _timed_by_rule(ruleset: Ruleset, minutes: float | None) -> None:
    """A match against the clock needs time up to decide it (`decides_time_up`): without it
    the table would reach time up with nothing to decide by and could only forfeit."""
    if minutes and not decides_time_up(ruleset):
        raise refuse("admin.error.minutes_no_time_up", ruleset=ruleset.name)


def _minutes_said(minutes: float | None) -> float | Words:
    """The match minutes as the log says them: 不限时 for none."""
    return minutes if minutes else words("admin.event.untimed")
