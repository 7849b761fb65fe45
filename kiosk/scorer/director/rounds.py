"""Rounds and pairings: the next round's private draft and the head referee's swaps in it,
its publication (what the hall and, once started, the kiosks see), undoing a round that has
no result yet, the round's start, and the hall's round clock (pause, extend, stop).

A round's life: draft (private, editable) → published (the hall shows it; printed for the
wall) → started (the kiosks set up and start their clocks together) → over (every table has
a result or a ruling). The pairing itself is `tournament.swiss_pairing` (the Director's
`pairer`: in the server, a worker process) or the groups' schedules: one function, so its
inside can change; the side balance is a pass after it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ...errors import AdminError, PairingPending, words
from ..tournament import formats
from ..tournament.formats import RoundPlan
from .base import SWISS_FORMATS, DirectorBase, confirm_first, refuse
from .triage import listing, number_list

MAX_EXTEND_MINUTES = 120


@dataclass(frozen=True)
class Warning_:
    """Something about a drafted match the head referee should see before publishing."""

    table: int
    key: str  # a catalog key under admin.warn.
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Draft:
    round: int
    plan: RoundPlan
    basis: str  # what the results and the field were when it was drafted
    edited: bool  # the head referee swapped something
    # the pairs as drafted (or as the round taken back had them): a swap that seats teams of
    # different scores together away from them is pointed out (None: not known)
    drafted: tuple[tuple[str, str], ...] | None = None
    drafted_edited: bool = False  # `edited` as drafted: a round taken back that had been swapped

    def as_json(self) -> str:
        p = self.plan
        return json.dumps({"round": self.round, "pairs": p.pairs, "byes": p.byes,
                           "stage": p.stage, "note": p.note, "bye_scores": p.bye_scores,
                           "groups": p.groups, "basis": self.basis, "edited": self.edited,
                           "drafted": self.drafted, "drafted_edited": self.drafted_edited},
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Draft:
        d = json.loads(text)
        plan = RoundPlan(tuple(tuple(p) for p in d["pairs"]), tuple(d["byes"]), d["stage"],
                         d["note"], d["bye_scores"], tuple(tuple(g) for g in d["groups"]))
        drafted = d.get("drafted")
        return cls(d["round"], plan, d["basis"], d["edited"],
                   None if drafted is None else tuple(tuple(p) for p in drafted),
                   d.get("drafted_edited", False))


class RoundsAndPairings(DirectorBase):
    pairer: Any  # see director.Pairer
    # Checks a round must pass before its clocks start (each raises AdminError: the hall's
    # clocks, director/fleet.py's guard_round_start), and the scorer's clock it watches.
    round_checks: tuple[Callable[[], None], ...] = ()
    scorer_clock: Any = None

    # -- published rounds -------------------------------------------------------------------

    def current_round(self) -> int:
        """The last published round (0: none yet)."""
        row = self._kept("round", lambda: self.store.db.execute(
            "SELECT max(number) FROM rounds").fetchone())
        return int(row[0] or 0)

    def status_shown(self) -> str:
        """The event's status as the console's header says it: setup (准备中) until the first
        round starts, as the hall says, though its publishing made the event running; paused
        (全场暂停) while the head referee holds the hall, as the hall says too."""
        event = self.event()
        if event is None:
            return ""
        if event.status == "running" and self.current_round() == 1 \
                and self.round_start(1) is None:
            return "setup"
        if event.status == "running" and self.paused():
            return "paused"
        return event.status

    def paused(self) -> bool:
        """Whether the head referee holds the hall (全场暂停) now."""
        clock = self.round_clock()
        return clock is not None and clock["state"] == "paused"

    def assignments(self, round_no: int) -> list[tuple[int, str, str]]:
        return list(self._kept(("assignments", round_no), lambda: list(self.store.db.execute(
            "SELECT table_number, ns, ew FROM assignments WHERE round = ? AND seats IS NULL "
            "ORDER BY table_number", [round_no]))))

    def byes(self, round_no: int) -> list[str]:
        return list(self._kept(("byes", round_no), lambda: [t for (t,) in self.store.db.execute(
            "SELECT team FROM byes WHERE round = ? ORDER BY rowid", [round_no])]))

    def stages(self) -> list[str]:
        """The stage of each round published so far, in order."""
        return [stage or "" for (stage,) in self.store.db.execute(
            "SELECT stage FROM rounds ORDER BY number")]

    def round_start(self, round_no: int) -> float | None:
        row = self._kept(("start", round_no), lambda: self.store.db.execute(
            "SELECT start_at FROM rounds WHERE number = ?", [round_no]).fetchone())
        return float(row[0]) if row and row[0] is not None else None

    def round_note(self, round_no: int) -> str:
        row = self.store.db.execute("SELECT pairing_note FROM rounds WHERE number = ?",
                                    [round_no]).fetchone()
        return row[0] or "" if row else ""

    def seats(self, round_no: int) -> dict[int, dict[str, str]]:
        """Individual events: each table's players by drawn seat letter."""
        return dict(self._kept(("seats", round_no), lambda: {
            t: json.loads(seats) for t, seats in self.store.db.execute(
                "SELECT table_number, seats FROM assignments WHERE round = ? AND seats IS NOT "
                "NULL ORDER BY table_number", [round_no])}))

    def group_totals(self, round_no: int) -> list[dict[str, int]] | None:
        """Individual events: each table's {player: big-point total} once every table of the
        round has finished, in table order; else None."""
        if not self.seats(round_no) or self.unfinished(round_no):
            return None
        return self.finished_groups(round_no)

    def finished_groups(self, round_no: int) -> list[dict[str, int]]:
        """Individual events: the {player: big-point total} of each table that has finished
        `round_no`, in table order."""
        from ...rules import IndividualRound

        out = []
        for table, seats in self.seats(round_no).items():
            state = self.match_state(table, round_no)
            if state is not None and state.phase == "over":
                assert isinstance(state.core, IndividualRound)
                out.append({seats[letter]: total for letter, total in state.core.totals})
        return out

    def unfinished(self, round_no: int) -> list[int]:
        """Tables still playing `round_no` (a ruled match counts as finished)."""
        if self.require_event().individual:
            states = {t: self.match_state(t, round_no)
                      for t in self.seats(round_no)}
            return [t for t, s in states.items() if s is None or s.phase != "over"]
        return [t for t, r in self.round_results(round_no).items()
                if r is None]

    def round_over(self, round_no: int) -> bool:
        return round_no > 0 and self.round_start(round_no) is not None and \
            not self.unfinished(round_no)

    def sides_so_far(self) -> dict[str, Counter[str]]:
        """How often each team sat NS and EW in the published rounds."""
        out: dict[str, Counter[str]] = {}
        for ns, ew in self.store.db.execute(
                "SELECT ns, ew FROM assignments WHERE seats IS NULL ORDER BY round"):
            out.setdefault(ns, Counter())["NS"] += 1
            out.setdefault(ew, Counter())["EW"] += 1
        return out

    # -- the next round's plan --------------------------------------------------------------

    def next_round(self, ahead: bool = False) -> tuple[int, RoundPlan]:
        """The next round's number and plan. Raises AdminError when there is none yet. `ahead`:
        the server's pairing worker is only asked to compute it (`worker.pair_ahead`), and
        PairingPending is raised until it has."""
        event = self._open_event()
        current = self.current_round()
        round_no = current + 1
        if event.rounds and round_no > event.rounds:
            raise refuse("admin.error.all_rounds", rounds=event.rounds)
        start = self.round_start(current) if current else None
        if current and start is None:
            raise refuse("admin.error.not_started", round=current)
        if start is not None and start > self.clock():  # its lead-in: no table has begun
            raise refuse("admin.error.starting", round=current, next=round_no)
        if current:
            unfinished = self.unfinished(current)
            if unfinished:
                raise refuse("admin.error.still_playing", round=current, n=len(unfinished),
                              tables=number_list(unfinished))
        teams = self._active(round_no)
        if event.format in SWISS_FORMATS:
            if len(teams) < 2:
                raise refuse("admin.error.two_teams")
            lean = {team: sat["NS"] - sat["EW"] for team, sat in self.sides_so_far().items()}
            args = (teams, self.results(), round_no, event.seed, lean)
            ready = getattr(self.pairer, "ready", None)  # the server's worker: at once
            pairing = ready(*args) if ahead and ready else self.pairer(*args)
            if pairing is None:
                raise PairingPending()
            note = "rematches" if pairing.rematches else ""
            pairs = self._balance_sides(pairing.pairs)
            plan = RoundPlan(pairs, (pairing.bye,) if pairing.bye else (), "swiss", note,
                             bye_scores=True)
        elif event.individual:
            if not teams or len(teams) % 4:
                raise refuse("admin.error.groups_of_four", players=len(teams))
            prelims = self.group_totals(1) if round_no == 2 else None
            plan = formats.individual_next([t.id for t in teams], event.seed, prelims)
        else:
            groups = self.ruleset().event.groups or 1
            everyone = self.teams()
            if len(everyone) < 2 * groups:
                raise refuse("admin.error.group_teams", groups=groups, teams=2 * groups)
            next_plan = formats.groups_knockout_next(
                [t.id for t in everyone], groups, event.seed,
                self.results(), self.stages())
            if next_plan is None:
                raise refuse("admin.error.knockout_decided")
            plan = next_plan
        self._check_tables(round_no, len(plan.tables))
        return round_no, plan

    def _check_tables(self, round_no: int, needed: int) -> None:
        have = self.table_count()
        if needed > have:
            raise refuse("admin.error.too_few_tables", round=round_no, needed=needed,
                         have=have, where=words("admin.where.tables"))

    def _balance_sides(self, pairs: tuple[tuple[str, str], ...]
                       ) -> tuple[tuple[str, str], ...]:
        """Who of each pair sits NS: the team that sat NS less often so far, then the one
        that was EW last time; else the matcher's order (costs nothing in the pairing)."""
        sides = self.sides_so_far()
        last = self._last_side()
        out = []
        for a, b in pairs:
            lean_a = sides.get(a, Counter())["NS"] - sides.get(a, Counter())["EW"]
            lean_b = sides.get(b, Counter())["NS"] - sides.get(b, Counter())["EW"]
            if lean_b < lean_a or (lean_a == lean_b and last.get(a) == "NS" and
                                   last.get(b) != "NS"):
                a, b = b, a
            out.append((a, b))
        return tuple(out)

    def _last_side(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for ns, ew in self.store.db.execute(
                "SELECT ns, ew FROM assignments WHERE seats IS NULL ORDER BY round"):
            out[ns], out[ew] = "NS", "EW"
        return out

    def _basis(self, round_no: int) -> str:
        """A fingerprint of what the draft was computed from."""
        results = sorted((r.round, r.a, r.b or "", r.winner or "", sorted(r.points.items()))
                         for r in self.results())
        field_ = [(t.id, t.unit) for t in self._active(round_no)]
        return json.dumps([round_no, results, field_, self.table_count()],
                          ensure_ascii=False)

    # -- the private draft ------------------------------------------------------------------

    def current_draft(self) -> Draft | None:
        text = self.store.setting("draft")
        return Draft.from_json(text) if text else None

    def draft_is_stale(self, draft: Draft) -> bool:
        """Results or the field changed since the draft was made."""
        try:
            return self._basis(draft.round) != draft.basis
        except Exception:
            return True

    def make_draft(self, by: str = "", confirm: bool = False) -> Draft:
        """Compute the next round's pairing as a private draft (replacing any draft: one the
        head referee swapped by hand only when confirmed, as the swaps are lost)."""
        self._ask_before_losing_swaps("admin.confirm.redraft", confirm)
        round_no, plan = self.next_round()
        draft = Draft(round_no, plan, self._basis(round_no), False, plan.pairs)
        with self.store.db.atomic():
            self._save_draft(draft)
            self._audit(by, "round.draft", round=round_no)
        self._changed()
        return draft

    def _save_draft(self, draft: Draft | None) -> None:
        if draft is None:
            self.store.db.execute("DELETE FROM settings WHERE key = 'draft'")
        else:
            self.store.db.execute("INSERT OR REPLACE INTO settings VALUES ('draft', ?)",
                                  [draft.as_json()])

    def discard_draft(self, by: str = "", quiet: bool = False, confirm: bool = False) -> None:
        """Drop the draft (one swapped by hand only when confirmed). `quiet`: as part of
        another action (inside its transaction). Without a draft it is refused: nothing to
        say 草稿已放弃 of (quietly, nothing is done)."""
        if self.current_draft() is None:
            if quiet:
                return
            raise refuse("admin.error.no_draft_to_discard")
        if quiet:
            self._save_draft(None)
            return
        self._ask_before_losing_swaps("admin.confirm.discard", confirm)
        with self.store.db.atomic():
            self._save_draft(None)
            self._audit(by, "round.discard")
        self._changed()

    def _ask_before_losing_swaps(self, key: str, confirm: bool) -> None:
        draft = self.current_draft()
        if draft is not None and draft.edited and not confirm:
            raise confirm_first(key, round=draft.round)

    def _editable_draft(self) -> Draft:
        draft = self.current_draft()
        if draft is None:
            raise refuse("admin.error.no_draft")
        return draft

    def swap_teams(self, first: str, second: str, by: str = "") -> Draft:
        """Exchange two teams' places in the draft (a bye is a place too); in an individual
        event, two players' groups (a tie at a prize-final group's edge, as the head referee
        decides it)."""
        draft = self._editable_draft()
        if self.require_event().format not in (*SWISS_FORMATS, "individual-groups"):
            raise refuse("admin.error.swap_format")
        a, b = self.team(first).id, self.team(second).id
        if a == b:
            raise refuse("admin.error.swap_same")
        placed = draft.plan.placed()
        for t in (a, b):
            if t not in placed:
                raise refuse("admin.error.not_in_draft", team=self.label(t))

        def swapped(team: str) -> str:
            return b if team == a else a if team == b else team

        plan = replace(draft.plan,
                       pairs=tuple((swapped(x), swapped(y)) for x, y in draft.plan.pairs),
                       byes=tuple(swapped(x) for x in draft.plan.byes),
                       groups=tuple(tuple(swapped(x) for x in g) for g in draft.plan.groups))
        return self._edited(draft, plan, by, "round.swap_teams", first=self.label(a),
                            second=self.label(b))

    def swap_tables(self, first: int, second: int, by: str = "") -> Draft:
        """Exchange the matches of two tables in the draft."""
        draft = self._editable_draft()
        count = len(draft.plan.tables)
        if first == second or not (1 <= first <= count and 1 <= second <= count):
            raise refuse("admin.error.swap_tables", count=count)
        i, j = first - 1, second - 1
        plan = draft.plan
        if plan.pairs:
            pairs = list(plan.pairs)
            pairs[i], pairs[j] = pairs[j], pairs[i]
            plan = replace(plan, pairs=tuple(pairs))
        else:
            groups = list(plan.groups)
            groups[i], groups[j] = groups[j], groups[i]
            plan = replace(plan, groups=tuple(groups))
        return self._edited(draft, plan, by, "round.swap_tables", first=first, second=second)

    def swap_sides(self, table: int, by: str = "") -> Draft:
        """The draft's match at `table` changes sides: NS sits EW and EW sits NS."""
        draft = self._editable_draft()
        if not 1 <= table <= len(draft.plan.pairs):
            raise refuse("admin.error.swap_tables", count=len(draft.plan.pairs))
        pairs = list(draft.plan.pairs)
        pairs[table - 1] = (pairs[table - 1][1], pairs[table - 1][0])
        return self._edited(draft, replace(draft.plan, pairs=tuple(pairs)), by,
                            "round.swap_sides", table=table)

    def _edited(self, draft: Draft, plan: RoundPlan, by: str, action: str,
                **params: Any) -> Draft:
        # (swapped back to the pairs as drafted: no longer edited by hand)
        back = bool(plan.pairs) and plan.pairs == draft.drafted
        new = replace(draft, plan=plan, edited=draft.drafted_edited if back else True)
        with self.store.db.atomic():
            self._save_draft(new)
            self._audit(by, action, round=draft.round, **params)
        self._changed()
        return new

    def draft_warnings(self, draft: Draft) -> list[Warning_]:
        """Rematches, teams of one unit, a team three rounds more on one side than the other,
        teams of different scores a swap seated together, a second bye, in the draft."""
        results = self.results()
        met = {frozenset((r.a, r.b)): r.round for r in results if r.b is not None}
        had_bye = {r.a: r.round for r in results if r.b is None and r.winner == r.a}
        units = {t.id: t.unit for t in self.teams()}
        sides = self.sides_so_far()
        drafted = {frozenset(p) for p in draft.drafted or ()}
        swapped = [p for p in draft.plan.pairs if frozenset(p) not in drafted]
        standings = self.standings() if draft.drafted is not None and swapped else []
        points = {s.team: s.points for s in standings}
        out = []
        for table, (ns, ew) in enumerate(draft.plan.pairs, 1):
            pair = frozenset((ns, ew))
            if (ns, ew) in swapped and points.get(ns, 0) != points.get(ew, 0):
                out.append(Warning_(table, "admin.warn.points_apart", {
                    "ns": self.label(ns), "ew": self.label(ew),
                    "a": points.get(ns, 0), "b": points.get(ew, 0)}))
            if pair in met:
                out.append(Warning_(table, "admin.warn.rematch", {
                    "ns": self.label(ns), "ew": self.label(ew), "round": met[pair]}))
            if units.get(ns) and units.get(ns) == units.get(ew):
                out.append(Warning_(table, "admin.warn.same_unit", {
                    "ns": self.label(ns), "ew": self.label(ew), "unit": units[ns]}))
            lopsided = _lopsided(sides, ns, ew)
            # a swap of the table's sides is advised only where it helps: not when both
            # teams sat the same side (the swap moves the warning to the other team)
            advice = words("admin.warn.sides_swap") \
                if len(_lopsided(sides, ew, ns)) < len(lopsided) else ""
            for team, sat in lopsided:
                out.append(Warning_(table, "admin.warn.sides", {
                    "team": self.label(team), "ns": sat["NS"], "ew": sat["EW"],
                    "gap": abs(sat["NS"] - sat["EW"]), "advice": advice}))
        for team in draft.plan.byes:
            if draft.plan.bye_scores and team in had_bye:
                out.append(Warning_(0, "admin.warn.second_bye", {
                    "team": self.label(team), "round": had_bye[team]}))
        out += self._final_group_warnings(draft)
        note = draft.plan.note
        if note == "rematches":
            out.append(Warning_(0, "admin.warn.no_rematch_free", {}))
        elif note == "playoff":
            out.append(Warning_(0, "admin.note.playoff", {}))
        for tie in _tied(note):  # each edge's players of one total: 甲、乙与丙
            out.append(Warning_(0, "admin.note.tie_at_cut", {
                "a": listing([self.label(p) for p in tie[:-1]]), "b": self.label(tie[-1])}))
        return out

    def _final_group_warnings(self, draft: Draft) -> list[Warning_]:
        """An individual event's finals edited away from the groups its rules form (a
        player moved, or two tables swapped: final group N is table N's): each player out of
        place, but for the players of a tie at a group's edge, which the head referee
        orders."""
        if draft.plan.stage != "final" or not draft.edited:
            return []
        prelims = self.group_totals(1)
        if prelims is None:
            return []
        rule = formats.individual_next([], self.require_event().seed, prelims)
        where = {p: n for n, group in enumerate(rule.groups, 1) for p in group}
        tied = {p for tie in _tied(draft.plan.note) for p in tie}
        return [Warning_(table, "admin.warn.final_group", {
                    "player": self.label(p), "rule": where[p], "now": table})
                for table, group in enumerate(draft.plan.groups, 1) for p in group
                if where.get(p, table) != table and p not in tied]

    # -- publishing and starting ------------------------------------------------------------

    def publish(self, confirm: bool = False, by: str = "") -> int:
        """Make the draft the next round (a new draft first if there is none): the hall
        shows it and it can be printed; the kiosks get it when the round starts."""
        draft = self.current_draft()
        if draft is None:
            draft = self.make_draft(by)
        elif self.draft_is_stale(draft) and not confirm:
            raise confirm_first("admin.confirm.stale_draft" + self._individual_words(),
                                round=draft.round)
        warnings = [w for w in self.draft_warnings(draft) if w.key not in PLAIN_NOTES]
        warned = {w.table for w in warnings}
        if warnings and not confirm:  # (a rematch, a second bye, a tie at a cut: seen first)
            if 0 in warned:  # the round's own, then its tables'
                raise confirm_first("admin.confirm.publish_warned_round", round=draft.round,
                                    warnings=warnings_said(warnings))
            raise confirm_first("admin.confirm.publish_warned", round=draft.round,
                                n=len(warned), tables=warnings_said(warnings))
        event = self._open_event()
        round_no = self.current_round() + 1
        if draft.round != round_no:
            raise refuse("admin.error.draft_round", round=draft.round, next=round_no)
        self._check_tables(round_no, len(draft.plan.tables))
        plan = draft.plan
        with self.store.db.atomic():
            db = self.store.db
            db.execute("INSERT INTO rounds (number, start_at, pairing_note, stage, "
                       "published_at, clock) VALUES (?, NULL, ?, ?, ?, NULL)",
                       [round_no, plan.note, plan.stage, self.clock()])
            db.conn.executemany(
                "INSERT INTO assignments VALUES (?, ?, ?, ?, NULL)",
                [(round_no, n, a, b) for n, (a, b) in enumerate(plan.pairs, 1)])
            db.conn.executemany(
                "INSERT INTO assignments VALUES (?, ?, '', '', ?)",
                [(round_no, n, json.dumps(dict(zip(formats.DRAWN_SEATS, g, strict=True))))
                 for n, g in enumerate(plan.groups, 1)])
            if plan.bye_scores:
                db.conn.executemany("INSERT INTO byes VALUES (?, ?)",
                                    [(round_no, team) for team in plan.byes])
            if event.status == "setup":
                db.execute("UPDATE event SET status = 'running' WHERE id = 1")
            self._save_draft(None)
            self._audit(by, "round.publish", round=round_no, tables=len(plan.tables),
                        edited=draft.edited)
        self._changed()
        return round_no

    def undo_round(self, confirm: bool = False, by: str = "") -> int:
        """Take back the last published round while no hand has been played at any of its
        tables and no ruling was made. Its pairing becomes the draft again, to edit or re-pair.
        A round already started is withdrawn from the kiosks: each drops the match it set up
        (it has no hand) and waits for an assignment again."""
        self._open_event()
        round_no = self.current_round()
        refusal = self.undo_refusal(round_no)
        if refusal is not None:
            raise refusal
        if not confirm:
            started = self.round_start(round_no) is not None
            raise confirm_first("admin.confirm.undo_started" if started else
                                "admin.confirm.undo_round", round=round_no)
        stage, note = self.stages()[-1], self.round_note(round_no)
        pairs = tuple((ns, ew) for _, ns, ew in self.assignments(round_no))
        groups = tuple(tuple(s.values()) for s in self.seats(round_no).values())
        byes = tuple(self.byes(round_no))
        start = self.round_start(round_no)
        with self.store.db.atomic():
            db = self.store.db
            for table in ("assignments", "byes"):
                db.execute(f"DELETE FROM {table} WHERE round = ?", [round_no])
            db.execute("DELETE FROM rounds WHERE number = ?", [round_no])
            if round_no == 1:
                db.execute("UPDATE event SET status = 'setup' WHERE id = 1")
            if start is not None:  # the kiosks set it up: they drop it
                withdrawn = [*self._withdrawn(), {"round": str(round_no), "start_at": start}]
                db.execute("INSERT OR REPLACE INTO settings VALUES ('withdrawn', ?)",
                           [json.dumps(withdrawn)])
            plan = RoundPlan(pairs, byes, stage, note, bool(byes) or stage == "swiss", groups)
            edited = self._published_edited(round_no)
            self._save_draft(Draft(round_no, plan, self._basis(round_no), edited, plan.pairs,
                                   edited))
            self._audit(by, "round.undo", round=round_no)
        self._changed()
        return round_no

    def _published_edited(self, round_no: int) -> bool:
        """Whether the round was published from a draft the head referee swapped by hand (its
        pairing taken back is that draft again, marked so only then)."""
        for entry in reversed(self.audit_log()):
            if entry.action == "round.publish" and entry.params.get("round") == round_no:
                return bool(entry.params.get("edited", True))
        return True  # a store from before the flag was logged: ask before losing it

    def undo_refusal(self, round_no: int) -> AdminError | None:
        """Why the round `round_no` cannot be taken back now (None: it can): the console says
        it where its 撤回 button would be."""
        if not round_no:
            return refuse("admin.error.no_round")
        tables = [t for t, _, _ in self.assignments(round_no)] + list(self.seats(round_no))
        played = [t for t in tables if _has_play(
            self.match_state(t, round_no))]
        if played:
            return refuse("admin.error.undo_played" + self._individual_words(), round=round_no,
                          tables=number_list(played))
        if any(r.round == round_no for r in self.rulings()):
            return refuse("admin.error.undo_ruled", round=round_no)
        return None

    def _withdrawn(self) -> list[dict[str, Any]]:
        text = self.store.setting("withdrawn")
        return list(json.loads(text)) if text else []

    def withdrawn(self) -> list[dict[str, Any]]:
        """The started rounds the head referee took back, for every kiosk: a match set up
        for one of them (its event, round and start) is dropped at the table."""
        event = self.event()
        if event is None:
            return []
        return [{"event": event.match_name, **w} for w in self._withdrawn()]

    def start_clock(self, start_in: float = 30.0, by: str = "", confirm: bool = False) -> int:
        """Start the published round: every kiosk sets up its match and starts its match
        clock `start_in` seconds from now (scorer time), together. Asks first when a table
        the round uses has no kiosk paired: the round's clock runs on without it."""
        if not (math.isfinite(start_in) and 0 <= start_in <= 3600):
            raise refuse("admin.error.start_in_range")
        self._open_event()
        for check in self.round_checks:
            check()
        round_no = self.current_round()
        if not round_no or self.round_start(round_no) is not None:
            raise refuse("admin.error.nothing_to_start")
        used = {t for t, _, _ in self.assignments(round_no)} | set(self.seats(round_no))
        unpaired = sorted(used - set(self.store.paired_tables()))
        if unpaired and not confirm:
            raise confirm_first("admin.confirm.start_unpaired", round=round_no,
                                tables=number_list(unpaired))
        with self.store.db.atomic():
            self.store.db.execute("UPDATE rounds SET start_at = ? WHERE number = ?",
                                  [self.clock() + start_in, round_no])
            self._audit(by, "round.start", round=round_no, seconds=round(start_in))
        self._changed()
        return round_no

    def start_round(self, start_in: float = 30.0, by: str = "") -> int:
        """Publish the next round (its draft, or a new one) and start it: one step for
        scripts and the demo (a table without a kiosk starts when one is paired). Returns the
        round number."""
        if not (math.isfinite(start_in) and 0 <= start_in <= 3600):
            raise refuse("admin.error.start_in_range")
        for check in self.round_checks:  # before publishing: nothing half done
            check()
        current = self.current_round()
        if not current or self.round_start(current) is not None:
            self.publish(confirm=True, by=by)
        return self.start_clock(start_in, by, confirm=True)

    def published_pairings(self) -> tuple[int, list[tuple[int, tuple[str, ...],
                                                          tuple[str, ...]]]] | None:
        """The published round that has not started yet, for the hall's pairing panel."""
        round_no = self.current_round()
        if not round_no or self.round_start(round_no) is not None:
            return None
        tables: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = [
            (t, (ns,), (ew,)) for t, ns, ew in self.assignments(round_no)]
        tables += [(t, tuple(s.values()), ()) for t, s in self.seats(round_no).items()]
        return round_no, sorted(tables)

    # -- the hall's round clock -------------------------------------------------------------

    def _clock(self, round_no: int) -> dict[str, Any]:
        row = self.store.db.execute("SELECT clock FROM rounds WHERE number = ?",
                                    [round_no]).fetchone()
        stored = json.loads(row[0]) if row and row[0] else {}
        return {"paused_at": None, "resumed_at": None, "paused_total": 0.0, "extra": 0.0,
                "stopped_at": None, **stored}

    def _running_round(self) -> int:
        round_no = self.current_round()
        if not round_no or self.round_start(round_no) is None:
            raise refuse("admin.error.no_running_round")
        if self.round_over(round_no):
            raise refuse("admin.error.round_over", round=round_no)
        return round_no

    def _set_clock(self, round_no: int, clock: dict[str, Any], by: str, action: str,
                   **params: Any) -> None:
        with self.store.db.atomic():
            self.store.db.execute("UPDATE rounds SET clock = ? WHERE number = ?",
                                  [json.dumps(clock), round_no])
            self._audit(by, action, round=round_no, **params)
        self._changed()

    def pause_clock(self, by: str = "") -> None:
        """Pause the round for the whole hall: its clock and every kiosk's clocks."""
        self._open_event()
        round_no = self._running_round()
        clock = self._clock(round_no)
        if clock["stopped_at"] is not None:
            raise refuse("admin.error.clock_stopped")
        if clock["paused_at"] is not None:
            raise refuse("admin.error.clock_paused")
        clock["paused_at"] = self.clock()
        self._set_clock(round_no, clock, by, "clock.pause")

    def resume_clock(self, by: str = "") -> None:
        self._open_event()
        round_no = self._running_round()
        clock = self._clock(round_no)
        if clock["paused_at"] is None:
            raise refuse("admin.error.clock_not_paused")
        clock["resumed_at"] = self.clock()
        clock["paused_total"] += max(0.0, clock["resumed_at"] - clock["paused_at"])
        clock["paused_at"] = None
        self._set_clock(round_no, clock, by, "clock.resume")

    def extend_clock(self, minutes: float, by: str = "") -> None:
        """Give the whole hall `minutes` more (a delayed start, a disturbance)."""
        if self._open_event().match_minutes is None:
            raise refuse("admin.error.extend_untimed")
        if not (math.isfinite(minutes) and 0 < minutes <= MAX_EXTEND_MINUTES):
            raise refuse("admin.error.extend_range", most=MAX_EXTEND_MINUTES)
        round_no = self._running_round()
        clock = self._clock(round_no)
        if clock["stopped_at"] is not None:
            raise refuse("admin.error.clock_stopped")
        clock["extra"] += minutes * 60
        self._set_clock(round_no, clock, by, "clock.extend", minutes=minutes)

    def stop_clock(self, confirm: bool = False, by: str = "") -> None:
        """Call time for the whole hall now."""
        event = self._open_event()
        if not event.time_up:  # (the tables would be left with nothing to decide by)
            raise refuse("admin.error.stop_no_rule", ruleset=self.ruleset().name)
        round_no = self._running_round()
        clock = self._clock(round_no)
        if clock["stopped_at"] is not None:
            raise refuse("admin.error.clock_stopped")
        if not confirm:  # (an individual round ends on its deals: no ruling to mend it)
            raise confirm_first("admin.confirm.stop_clock" + self._individual_words(),
                                round=round_no)
        if clock["paused_at"] is not None:
            clock["paused_total"] += max(0.0, self.clock() - clock["paused_at"])
            clock["paused_at"] = None
        clock["stopped_at"] = self.clock()
        self._set_clock(round_no, clock, by, "clock.stop")

    def round_clock(self, round_no: int | None = None) -> dict[str, Any] | None:
        """The round clock as the hall shows it: `state` is waiting (published, not started),
        running, paused, stopped (time called), over (every table finished) or closed (the
        event is over); `ends_at` is when time is up on the scorer's clock while running."""
        event = self.event()
        round_no = round_no or self.current_round()
        if event is None or not round_no:
            return None
        start = self.round_start(round_no)
        minutes = event.match_minutes
        clock = self._clock(round_no)
        out: dict[str, Any] = {"round": round_no, "started_at": start, "minutes": minutes,
                               "extra_seconds": clock["extra"], "paused_total":
                               clock["paused_total"], "paused_at": clock["paused_at"],
                               "stopped_at": clock["stopped_at"], "ends_at": None}
        if event.status == "closed":
            out["state"] = "closed"
        elif start is None:
            out["state"] = "waiting"
        elif self.round_over(round_no):
            out["state"] = "over"
        elif clock["stopped_at"] is not None:
            out["state"] = "stopped"
        elif clock["paused_at"] is not None:
            out["state"] = "paused"
        else:
            out["state"] = "running"
        if start is not None and minutes:
            out["ends_at"] = start + minutes * 60 + clock["extra"] + clock["paused_total"]
        return out

    def round_time_left(self, clock: dict[str, Any]) -> float | None:
        """Seconds left in the round of `round_clock()`: now, or when it was paused (a pause
        adds itself to the end only once it is over). Not part of the clock itself, which
        the hall's feed sends only when it changes."""
        if clock.get("ends_at") is None:
            return None
        held = clock["paused_at"] if clock["state"] == "paused" else self.clock()
        return max(0.0, clock["ends_at"] - held)

    def names_at(self, round_no: int, table: int) -> tuple[dict[str, str], dict[str, str]]:
        """The teams (NS, EW) and the players (by seat) at `table` in `round_no`, named as
        they are now: as its kiosk was told them, or as the roster was corrected since."""
        row = self.store.db.execute(
            "SELECT ns, ew, seats FROM assignments WHERE round = ? AND table_number = ?",
            [round_no, table]).fetchone()
        return self._names(row) if row is not None else ({}, {})

    def _names(self, row: tuple[str, str, str | None]
               ) -> tuple[dict[str, str], dict[str, str]]:
        names = self.team_names()
        teams, players = {}, {}
        if row[2]:  # an individual group: the players by their drawn seats
            players = {seat: names[p] for seat, p in json.loads(row[2]).items()}
        else:  # a team match: each team's first two players sit N and S, or E and W
            teams = {"NS": names[row[0]], "EW": names[row[1]]}
            for seats, team in (("NS", row[0]), ("EW", row[1])):
                players |= dict(zip(seats, self._players(team), strict=False))
        return teams, players

    def assignment(self, table: int) -> dict[str, Any] | None:
        """What `table` plays now, once its round has started: the kiosk sets its match up
        from this, follows the hall's clock (`hall_clock`) and ends its match when the head
        referee ruled it lost by forfeit or disqualification (`ruling`)."""
        event, round_no = self.event(), self.current_round()
        row = self.store.db.execute(
            "SELECT ns, ew, seats FROM assignments WHERE round = ? AND table_number = ?",
            [round_no, table]).fetchone()
        start = self.round_start(round_no) if round_no else None
        if event is None or row is None or start is None:
            return None
        teams, players = self._names(row)
        clock = self._clock(round_no)
        ruled = self.ruling_for(round_no, table)
        return {"event": event.match_name, "round": str(round_no), "teams": teams,
                "players": players, "ruleset": event.ruleset,
                "ruleset_sha256": event.ruleset_sha256, "match_minutes": event.match_minutes,
                "start_at": start,
                # (its moments on the scorer's clock: a kiosk hears them at its next poll)
                "hall_clock": {"paused": clock["paused_at"] is not None,
                               "paused_at": clock["paused_at"],
                               "resumed_at": clock["resumed_at"],
                               # (a kiosk that starts its clock late counts only the time run)
                               "paused_seconds": clock["paused_total"] + (
                                   self.clock() - clock["paused_at"]
                                   if clock["paused_at"] is not None else 0.0),
                               "extra_seconds": clock["extra"],
                               "stopped": clock["stopped_at"] is not None},
                # a forfeit or disqualification the head referee ruled: the table stops there
                "ruling": {"kind": ruled.kind, "loser": ruled.loser, "reason": ruled.reason}
                if ruled is not None and ruled.kind != "adjusted" else None}


def _lopsided(sides: dict[str, Counter[str]], ns: str, ew: str
              ) -> list[tuple[str, Counter[str]]]:
    """The teams of a match, NS and EW as given, that would sit one side more than twice
    more than the other after it (the most the Swiss allows, `swiss`), with their sides."""
    out = []
    for team, side in ((ns, "NS"), (ew, "EW")):
        sat = sides.get(team, Counter()) + Counter({side: 1})
        if abs(sat["NS"] - sat["EW"]) > 2:
            out.append((team, sat))
    return out


def _tied(note: str) -> list[list[str]]:
    """The ties at a finals plan's groups' edges ("tied:a, b, c; d, e": each edge's players
    of one total), none for another note. A draft saved before gave a pair an edge
    ("ties:a, b, c, d")."""
    if note.startswith("tied:"):
        return [tie.split(", ") for tie in note[5:].split("; ")]
    if note.startswith("ties:"):
        pairs = [p.strip() for p in note[5:].split(",")]
        return [pairs[i:i + 2] for i in range(0, len(pairs), 2)]
    return []


#: What a draft page says of its round that is no warning: publishing it asks nothing.
PLAIN_NOTES = frozenset({"admin.note.playoff"})
#: A warning said otherwise in the question before publishing (the page's points to a form).
ASKED_AS = {"admin.note.tie_at_cut": "admin.warn.tie_at_cut"}


def warnings_said(warnings: list[Warning_], most: int = 10) -> Any:
    """What a draft is warned of, as words, for the question before publishing: the round's
    own warnings (a second bye, a tie at a final group's edge), then what each warned table
    has: 第 3 桌：甲 与 乙 同属 厦大；第 5 桌：… (at most `most` tables, then how many more)."""
    whole = [words(ASKED_AS.get(w.key, w.key), **w.params) for w in warnings if not w.table]
    tables: dict[int, list[Any]] = {}
    for w in warnings:
        if w.table:
            tables.setdefault(w.table, []).append(words(w.key, **w.params))
    said = [words("admin.warn.at_table", table=n,
                  warnings=listing(found, "console.list.clause"))
            for n, found in sorted(tables.items())[:most]]
    if len(tables) > most:
        said.append(words("admin.warn.more_tables", n=len(tables) - most))
    return listing([*whole, *said], "console.list.then")


def _has_play(state: Any) -> bool:
    """A hand has been played (or is being played) at the table, or its match has ended:
    the round can no longer be taken back there."""
    return state is not None and bool(
        state.played or state.phase not in ("setup", "ready") or state.time_up or state.end)
