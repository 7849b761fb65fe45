"""What the console, the printed pages, the exports and the hall show, as plain values built
from the director: a round's matches with their results and rulings, the standings with
their markers, each team's card, the pairings by team. One place, so the admin page, a print
and an export can never disagree."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ...errors import SessionError
from ...rules.errors import Words
from ...table.state import MatchState
from ..tournament.core import Result
from . import ONLINE_WITHIN, Director, Ruling
from .search import simplified


@dataclass(frozen=True)
class MatchRow:
    round: int
    table: int
    ns: str  # team ids
    ew: str
    ns_name: str
    ew_name: str
    state: str  # waiting, not-set-up, a table phase (ready, play …), over, ruled
    hand: int | None
    levels: dict[str, str] | None
    result: Result | None
    ruling: Ruling | None
    link: str  # ok, behind, offline, done, never (`link_state`)
    problems: tuple[Words, ...] = ()  # why the match is not scored
    # a disputed hand: the side that disputes it and what the table entered (team, points,
    # total), for the head referee to rule on
    dispute: dict[str, Any] | None = None
    # the table referee's forfeit that decided the match (`MatchState.forfeited`), where no
    # ruling overrides it: said as a ruling of its kind is, everywhere
    forfeited: dict[str, Any] | None = None
    # the head referee's ruling the table ended its match by, since taken back: the result
    # stands as the table recorded it, but nobody at the table ruled it
    revoked: Ruling | None = None
    past: str | None = None  # the side that won by moving past the final level (「过10」)
    time_up: str | None = None  # how the match time decided it (`MatchState.time_up_ending`)

    @property
    def winner_side(self) -> str | None:
        if self.result is None or self.result.winner is None:
            return None
        return "NS" if self.result.winner == self.ns else "EW"

    @property
    def decided_by(self) -> str:
        """table, time-up (played, the match time decided it), forfeit, disqualification or
        adjusted (by a ruling, or the first two by the table's own referee); "" while
        undecided."""
        if self.result is None:
            return ""
        if self.ruling:
            return self.ruling.kind
        if self.forfeited:
            return str(self.forfeited.get("kind", "forfeit"))
        return "time-up" if self.time_up else "table"

    @property
    def reason(self) -> str:
        """Why a ruling or the table's referee decided the match, "" where it was played."""
        if self.ruling:
            return self.ruling.reason
        return str(self.forfeited.get("reason", "")) if self.forfeited else ""


@dataclass(frozen=True)
class ByeRow:
    round: int
    team: str
    name: str
    points: int


@dataclass(frozen=True)
class StandingRow:
    rank: int
    tied: bool
    team: str
    name: str
    unit: str
    points: int
    net: int
    opponents: int
    played: int
    group: str
    withdrawn_after: int | None
    joined_round: int
    withdrawal: tuple[str, int] | None = None  # Director.withdrawal: ("during", 3) …
    prize: int = 0  # an individual event's prize-final group (Standing.prize)
    byes: tuple[int, ...] = ()  # the rounds started in which the team had a bye


@dataclass
class CardRound:
    round: int
    table: int | None
    side: str  # NS, EW, bye, missed, out (withdrawn), "" (not paired)
    opponent: str = ""
    opponent_name: str = ""
    points: int | None = None
    net: int | None = None
    won: bool | None = None
    decided_by: str = ""
    seat: str = ""  # side "seat": an individual event's drawn seat (opponent_name: tablemates)
    deals: int = 0  # and the deals its table played


@dataclass
class Card:
    team: str
    name: str
    unit: str
    players: tuple[str, ...]
    rounds: list[CardRound] = field(default_factory=list)
    standing: StandingRow | None = None


def link_state(director: Director, table: int, now: float,
               known: tuple[dict[int, tuple[float, int]], dict[int, str]] | None = None,
               over: bool = False) -> str:
    """ok, behind, offline, done (offline once its match is `over` and all in: a kiosk
    switched off after its match is no alarm, as on the hall page), returning (offline, but
    online when the scorer restarted a moment ago: `contacts.py`) or never (no kiosk paired).
    `known`: the store's links and paired tables, read once for a whole list."""
    links, paired = known or (director.store.links(), director.store.paired_tables())
    if table not in links:
        return "never" if table not in paired else "done" if over else "offline"
    seen, behind = links[table]
    state = heard_state(seen, behind, now, director.store.returning.get(table, 0.0))
    return "done" if over and not behind and state in ("offline", "returning") else state


def heard_state(seen: float, behind: int, now: float, back_by: float) -> str:
    """ok, behind, offline, or returning (offline, but expected back by `back_by` after a
    restart: `contacts.py`) for a kiosk last heard from at `seen` saying `behind`."""
    if now - seen <= ONLINE_WITHIN:
        return "behind" if behind else "ok"
    return "returning" if now < back_by else "offline"


def round_rows(director: Director, round_no: int) -> list[MatchRow]:
    """Every match of a team round, in table order."""
    names = director.team_names()
    results = director.round_results(round_no)
    rulings = {(r.round, r.table): r for r in director.rulings()}
    removed = [r for r in director.rulings(removed=True) if r.round == round_no and r.removed_at]
    started = director.round_start(round_no) is not None
    now = director.clock()
    known = (director.store.links(), director.store.paired_tables())
    out = []
    for table, ns, ew in director.assignments(round_no):
        state = director.match_state(table, round_no)
        ruling = rulings.get((round_no, table))
        if ruling is not None:
            phase = "ruled"
        elif not started:
            phase = "waiting"
        elif state is None:
            phase = "not-set-up"
        else:
            phase = state.phase
        levels = state.levels() if state is not None else None
        hand = None
        if state is not None and state.phase != "setup":
            hand = len(state.played) + (0 if state.phase == "over" else 1)
        forfeited = state.forfeited() if state is not None and ruling is None else None
        out.append(MatchRow(
            round_no, table, ns, ew, names.get(ns, ns), names.get(ew, ew), phase, hand,
            {"NS": levels[0], "EW": levels[1]} if levels else None, results.get(table),
            ruling, link_state(director, table, now, known, phase in ("over", "ruled")),
            tuple(director.unscored(table)),
            _dispute(state, names.get(ns, ns), names.get(ew, ew))
            if phase == "disputed" and state is not None else None,
            forfeited, _revoked_by(forfeited, table, removed),
            state.past_final() if state is not None else None,
            state.time_up_ending() if state is not None and ruling is None else None))
    return out


def _revoked_by(forfeited: dict[str, Any] | None, table: int,
                removed: list[Ruling]) -> Ruling | None:
    """The ruling taken back that the table's end of its match followed (its loser and
    reason), if the end was one."""
    if forfeited is None:
        return None
    return next((r for r in reversed(removed) if r.table == table and
                 (r.loser, r.reason) == (forfeited["forfeit"], forfeited["reason"])), None)


def _dispute(state: MatchState, ns: str, ew: str) -> dict[str, Any]:
    """Who disputes the hand (its number), and the points and total the table entered."""
    draft = state.draft
    side = draft.disputed_by if draft is not None else None
    try:
        total = state.preview().total
    except SessionError:  # (an entry the rules core refuses: its total is not known)
        total = None
    return {"team": ns if side == "NS" else ew if side == "EW" else "",
            "hand": len(state.played) + 1,
            "points": "—" if draft is None or draft.points is None else draft.points,
            "total": "—" if total is None else total}


def bye_rows(director: Director, round_no: int) -> list[ByeRow]:
    names = director.team_names()
    points = director.bye_points()
    return [ByeRow(round_no, t, names.get(t, t), points) for t in director.byes(round_no)]


def standing_rows(director: Director) -> list[StandingRow]:
    teams = {r.id: r for r in director.team_rows()}
    byes: dict[str, tuple[int, ...]] = {}
    for round_no in range(1, director.current_round() + 1):
        if director.round_start(round_no) is not None:  # (a bye counts once its round began)
            for bye in director.byes(round_no):
                byes[bye] = (*byes.get(bye, ()), round_no)
    out = []
    for s in director.standings():
        team = teams.get(s.team)
        out.append(StandingRow(
            s.rank, s.tied, s.team, team.name if team else s.team, team.unit if team else "",
            s.points, s.net, s.opponents, s.played, s.group,
            team.withdrawn_after if team else None, team.joined_round if team else 1,
            director.withdrawal(s.team) if team and team.withdrawn else None, s.prize,
            byes.get(s.team, ())))
    return out


@dataclass
class GroupNow:
    """An individual round's table as it stands: its players by drawn seat, their big points
    so far by seat, the deals played, and whether it has finished."""

    seats: dict[str, str]
    totals: dict[str, int]
    deals: int
    over: bool


def groups_now(director: Director, round_no: int) -> dict[int, GroupNow]:
    """Each table of an individual round as it stands ({} for a team round); finished as
    `Director.unfinished` counts it: its round over at the table."""
    out = {}
    for table, seats in director.seats(round_no).items():
        state = director.match_state(table, round_no)
        out[table] = GroupNow(seats, dict(getattr(state.core, "totals", ())) if state else {},
                              len(state.played) if state else 0,
                              state is not None and state.phase == "over")
    return out


def cards(director: Director, only: str | None = None) -> list[Card]:
    """Each team's scorecard: every round's opponent, side, result, big points, net."""
    rows = {r.id: r for r in director.team_rows()}
    standing = {s.team: s for s in standing_rows(director)}
    picked = [r for r in rows.values() if only in (None, r.id)]
    out = {r.id: Card(r.id, r.name, r.unit, r.players, standing=standing.get(r.id))
           for r in picked}
    names = director.team_names()
    rounds = director.current_round()
    for round_no in range(1, rounds + 1):
        seen: set[str] = set()
        for m in round_rows(director, round_no):
            for side, team, other in (("NS", m.ns, m.ew), ("EW", m.ew, m.ns)):
                seen.add(team)
                if team in out:
                    r = m.result
                    out[team].rounds.append(CardRound(
                        round_no, m.table, side, other, names.get(other, other),
                        r.points.get(team) if r else None, r.net.get(team) if r else None,
                        (r.winner == team) if r and r.winner else None, m.decided_by))
        for table, group in groups_now(director, round_no).items():  # an individual event's
            for seat, player in group.seats.items():
                seen.add(player)
                if player in out:
                    out[player].rounds.append(CardRound(
                        round_no, table, "seat", opponent_name=tablemates(group.seats, player,
                                                                          names),
                        points=group.totals.get(seat), won=True if group.over else None,
                        seat=seat, deals=group.deals))
        for bye in bye_rows(director, round_no):
            seen.add(bye.team)
            if bye.team in out:
                out[bye.team].rounds.append(CardRound(round_no, None, "bye", points=bye.points,
                                                      net=0, won=True, decided_by="bye"))
        for team, card in out.items():
            if team in seen:
                continue
            row = rows[team]
            if round_no < row.joined_round:
                card.rounds.append(CardRound(round_no, None, "missed", points=row.missed_points,
                                             net=0, decided_by="late"))
            elif row.withdrawn_after is not None and round_no > row.withdrawn_after:
                card.rounds.append(CardRound(round_no, None, "out"))
            else:
                card.rounds.append(CardRound(round_no, None, ""))
    return sorted(out.values(), key=lambda c: sort_key(c.name))


#: Chinese characters (the Unified Ideographs, Extension A, the compatibility ideographs and
#: the supplementary planes' extensions), read by their pinyin in a wall list.
_HAN = re.compile("([\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]+)")

SortPart = tuple[int, int | str, int, str]

#: A number in Chinese that counts a team (第二代表队, 二队): compared by value as 第2 and 2队
#: are (a captain looks for 第二 after 第一, not before it, as èr before yī would put it).
_NUMERAL = "[一二三四五六七八九十百两零〇]+"
_ORDINALS = (re.compile(f"(?<=第)({_NUMERAL})"),
             re.compile(f"({_NUMERAL})(?=分队|中队|小队|队|组)"))
_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}


def _chinese_number(text: str) -> int:
    """一 … 九十九 and 一百 … as a number (十二 12, 二十 20, 一百零五 105)."""
    total, digit = 0, 0
    for char in text:
        if char in _DIGITS:
            digit = _DIGITS[char]
        else:  # 十 or 百: the digit before it (none: one) times it
            total += (digit or 1) * (10 if char == "十" else 100)
            digit = 0
    return total + digit


def sort_key(name: str) -> tuple[list[SortPart], str]:
    """Alphabetical for a wall list: Chinese names by their pinyin, others as written, and
    numbers by value (第2队, 第10队, 第100队, 第1000队: a player looks for 第10队 near 第9队).

    Chinese compares character by character, as a dictionary or a phone book orders it:
    first the syllable, then its tone, then the character (集美 jí before 建发 jiàn; every
    集 before the next syllable). A name is read in simplified characters, so that a
    traditional one reads as the same words (廈門 and 厦門 are xià mén, as 厦门 is: pypinyin's
    phrase list knows the simplified spelling only)."""
    from pypinyin import Style, lazy_pinyin  # its dictionary takes a while: only printing

    parts: list[SortPart] = []
    text = simplified(unicodedata.normalize("NFKC", name))
    for ordinal in _ORDINALS:
        text = ordinal.sub(lambda m: str(_chinese_number(m.group(1))), text)
    for i, run in enumerate(_HAN.split(text)):
        if i % 2:  # Chinese: one syllable a character, read in its phrase (长安, 银行)
            spelled = lazy_pinyin(run, style=Style.TONE3, neutral_tone_with_five=True)
            if len(spelled) != len(run):  # (a character pypinyin does not know)
                spelled = [lazy_pinyin(c, style=Style.TONE3, neutral_tone_with_five=True)[0]
                           for c in run]
            # 厦 in a team's name is Xiamen's xià (厦大, 厦航, 厦工), outside 大厦 (a building):
            # pypinyin knows xià only in the phrase 厦门, and filed 厦大南强 under shà.
            spelled = ["xia4" if c == "厦" and (k == 0 or run[k - 1] != "大") else syllable
                       for k, (c, syllable) in enumerate(zip(run, spelled, strict=True))]
            for char, syllable in zip(run, spelled, strict=True):
                letters = syllable.rstrip("0123456789")
                tone = syllable[len(letters):]
                parts.append((1, letters.lower() or char, int(tone) if tone else 0, char))
            continue
        # the rest as written, letter case aside; digit runs compare by value, before letters
        for j, piece in enumerate(re.split(r"([0-9]+)", run.lower())):
            if j % 2:
                parts.append((0, int(piece), 0, ""))
            elif piece.strip():
                parts.append((1, piece.strip(), 0, ""))
    return (parts, name)


def pairings_by_team(director: Director, round_no: int) -> list[dict[str, Any]]:
    """A published round, team by team in alphabetical order: where each team sits."""
    out = []
    for m in round_rows(director, round_no):
        out.append({"team": m.ns, "name": m.ns_name, "table": m.table, "side": "NS",
                    "opponent": m.ew, "opponent_name": m.ew_name})
        out.append({"team": m.ew, "name": m.ew_name, "table": m.table, "side": "EW",
                    "opponent": m.ns, "opponent_name": m.ns_name})
    for bye in bye_rows(director, round_no):
        out.append({"team": bye.team, "name": bye.name, "table": None, "side": "bye",
                    "opponent": "", "opponent_name": ""})
    names = director.team_names()
    for table, seats in director.seats(round_no).items():  # an individual event's groups
        for seat, player in seats.items():
            out.append({"team": player, "name": names.get(player, player), "table": table,
                        "side": "seat", "seat": seat, "opponent": "",
                        "opponent_name": tablemates(seats, player, names)})
    return sorted(out, key=lambda r: sort_key(r["name"]))


def tablemates(seats: dict[str, str], player: str, names: dict[str, str]) -> str:
    """The other players at an individual event's table, by name: 「王芳、周杰、孙丽」."""
    return "、".join(names.get(other, other) for other in seats.values() if other != player)
