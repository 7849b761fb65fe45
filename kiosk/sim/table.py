"""A simulated table: a bot referee and four bot players drive the real session, clocks and
journal. Used by `kiosk simulate`, the demo, load tests and the scorer's simulations."""

from __future__ import annotations

import contextlib
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..rules import Ruleset, Rulesets
from ..rules.seats import SEATS
from ..table.clock import SimulatedClock
from ..table.journal import Journal, table_path
from ..table.session import SessionConfig, SessionError, TableSession

PIN = "2468"
HALL_WAIT = 0.2  # seconds between looks at the hall's clock while it holds the table
SHAPES = ("single", "pair", "pairs2", "tractor2", "tractor3")
TEAMS = {"NS": "南北队", "EW": "东西队"}
PLAYERS = {"N": "赵", "E": "钱", "S": "孙", "W": "李"}


def simulate(data_dir: str | Path, table: int, rulesets: Rulesets, ruleset_id: str,
             hands: int, seed: int, speed: float, out: TextIO = sys.stdout,
             after_hand: Callable[[TableSession], None] | None = None,
             assignment: dict[str, Any] | None = None,
             follow: Callable[[TableSession], None] | None = None) -> TableSession:
    """Play (or resume) the match at `table` until it ends or `hands` hands are confirmed,
    printing each hand's replay line once its confirmation is durable. `assignment`: the
    scorer's (event, round, teams, players, ruleset); a new round's match is set up from it.
    `follow(session)`, before each step, applies the hall's round clock: while the hall holds
    the table paused the bots wait for it (in real time), as a table's players do."""
    path = table_path(data_dir, table)
    start = 1000.0
    if path.exists():  # resume the clocks after the last recorded moment
        journal = Journal(path)
        start = max(start, max((e.mono for e in journal.events()), default=start) + 1.0)
        journal.close()
    clock = SimulatedClock(start, speed)
    session = TableSession.open(data_dir, table, rulesets, clock, SessionConfig(pin=PIN))
    bot = _Bot(session, clock, random.Random(seed * 1_000_003 + session.journal.last_seq))
    if assignment is not None and session.state.phase in ("setup", "over") and \
            not session.find_match(assignment["event"], assignment["round"]):
        session.setup_match(event=assignment["event"], round=assignment["round"],
                            teams=assignment["teams"], players=assignment["players"],
                            ruleset=assignment["ruleset"],
                            match_minutes=assignment.get("match_minutes"),
                            match=session.free_match_name(assignment["round"]))
    elif session.state.phase == "setup":
        session.setup_match(event="simulated", round="1", teams=TEAMS, players=PLAYERS,
                            ruleset=ruleset_id)
    if session.state.paused:
        bot.referee(session.resume)
    if session.state.match_clock is not None and not session.state.match_started:
        session.start_match_clock()
    while session.state.phase != "over" and len(session.state.played) < hands:
        if follow is not None:
            follow(session)
            if session.state.phase == "over":  # the head referee ruled on it meanwhile
                break  # (a forfeit: a team withdrew in the middle of the match)
            if session.state.paused and session.state.pause_reason == "hall":
                time.sleep(HALL_WAIT)
                continue
        done = len(session.state.played)
        bot.step()
        for played in session.state.played[done:]:
            print(json.dumps(played.result.to_json(), ensure_ascii=False), file=out, flush=True)
            if after_hand:
                after_hand(session)
    return session


class _Bot:
    """One step at a time: whatever the phase asks for, with human-like delays."""

    def __init__(self, session: TableSession, clock: SimulatedClock, rng: random.Random) -> None:
        self.session, self.clock, self.rng = session, clock, rng

    @property
    def ruleset(self) -> Ruleset:
        assert self.session.state.ruleset is not None
        return self.session.state.ruleset

    def wait(self, seconds: float) -> None:
        self.clock.sleep(max(0.05, seconds))
        self.session.tick()

    def referee(self, action: Callable[[], Any]) -> Any:
        self.session.unlock(PIN)
        return action()

    def step(self) -> None:
        state = self.session.state
        if state.needs_ruling and state.team:  # time up picked no winner: the referee decides
            levels = state.levels() or ("2", "2")
            loser = "NS" if self.ruleset.ladder.index(levels[0]) < \
                self.ruleset.ladder.index(levels[1]) else "EW"
            self.referee(lambda: self.session.end_match(loser, "forfeit", state.needs_ruling or ""))
            return
        getattr(self, "_" + state.phase)()

    def _ready(self) -> None:
        s, rng, state = self.session, self.rng, self.session.state
        draft = state.draft
        assert draft is not None
        self.wait(rng.uniform(5, 20))
        if state.phase != "ready":
            return
        if draft.dealer is None:
            s.grab_dealer(rng.choice(SEATS))
        if self.ruleset.kind == "individual" and state.partner() is None:
            s.draw_partner(card=rng.choice(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                            "J", "Q", "K")))
        if self.ruleset.redeal and rng.random() < 0.04:
            dealer = draft.dealer
            assert dealer is not None
            s.redeal(rng.choice([x for x in SEATS if (x in "NS") != (dealer in "NS")]))
            return
        s.declare_trump(rng.choice("♠♥♣♦"), rng.choice(SEATS))
        s.start_bury()

    def _bury(self) -> None:
        clock = self.session.state.clock
        assert clock is not None and clock.seat is not None
        self.wait(self.rng.uniform(0.3, 1.25) * clock.limit)
        if self.session.state.phase == "bury":
            self.session.press(clock.seat)

    def _fry(self) -> None:
        """After a bury: now and then a seat fries (with a new trump), else nobody does."""
        s, rng = self.session, self.rng
        self.wait(rng.uniform(1, 4))
        seats = s.state.fry_seats()
        if seats and rng.random() < 0.1:
            s.fry(rng.choice(seats), rng.choice("♠♥♣♦"))
        elif seats:
            s.no_fry()

    def _play(self) -> None:
        s, rng, state = self.session, self.rng, self.session.state
        clock = state.clock
        assert clock is not None
        if clock.trick > rng.randint(10, 25) and clock.plays == 0:
            self.wait(rng.uniform(1, 3))
            s.end_play()
            return
        self.wait(rng.lognormvariate(0, 0.5) * clock.limit / 3)
        if state.phase != "play":
            return
        seat = clock.seat or rng.choice(SEATS)
        s.press(seat)
        if rng.random() < 0.01 and state.phase == "play":
            self.referee(s.undo)

    def _entry(self) -> None:
        s, rng = self.session, self.rng
        self.wait(rng.uniform(10, 40))
        if s.state.phase != "entry":
            return
        points = round(rng.triangular(0, 200, 70) / 5) * 5
        kitty = None
        if rng.random() < 0.2:
            kitty = {"points": rng.randrange(0, min(40, 200 - points) // 5 + 1) * 5,
                     "shape": rng.choices(SHAPES, weights=(50, 30, 10, 8, 2))[0]}
        s.enter_points(points, kitty)
        if rng.random() < 0.08:
            # a penalty this hand cannot take is refused, as the kiosk refuses the referee
            with contextlib.suppress(SessionError):
                s.add_penalty(**self._penalty())
        try:
            s.finish_entries()
        except SessionError:
            for penalty_id in list(s.state.draft.penalties if s.state.draft else ()):
                s.remove_penalty(penalty_id)

    def _penalty(self) -> dict[str, Any]:
        rng, ruleset = self.rng, self.ruleset
        code = rng.choice(sorted(c for c, p in ruleset.penalties.items()
                                 if p.default is None or p.default.effect != "match-loss"))
        penalty = ruleset.penalties[code]
        choices = ([None] if penalty.default else []) + [
            name for name, c in penalty.choices.items() if c.outcome.effect != "match-loss"]
        choice = rng.choice(choices)
        outcome = penalty.outcome(choice)
        entry: dict[str, Any] = {"code": code, "seat": rng.choice(SEATS), "choice": choice}
        if outcome.per_card:
            entry["cards"] = rng.randint(1, 3)
        if outcome.effect == "referee-points":
            entry["points"] = outcome.min
        if outcome.effect == "referee-levels":
            entry["levels"] = 1
        return entry

    def _result(self) -> None:
        s, rng = self.session, self.rng
        self.wait(rng.uniform(3, 10))
        if s.state.phase != "result":
            return
        if rng.random() < 0.03:
            s.dispute(rng.choice(SEATS))
            return
        sides: dict[str, list[str]] = {}
        for seat in SEATS:
            sides.setdefault(s.state.side_of(seat), []).append(seat)
        for seats in rng.sample(list(sides.values()), len(sides)):
            if s.state.phase == "result":
                s.press(rng.choice(seats))

    def _disputed(self) -> None:
        self.wait(self.rng.uniform(30, 90))
        self.referee(lambda: self.session.rule_dispute("the referee checked the tricks"))
