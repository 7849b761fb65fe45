"""A team match as a fold of hands into a state (docs/rules.md §2–§5 and §8).

`TeamMatch` is immutable: `play` returns the next state and what the hand did. The same fold
serves `kiosk replay`, the table session and the scorer's recomputation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from .errors import EntryError, MatchOver, seat_words, seats_words, value_words, words
from .hand import HandScore, KittyEntry, PenaltyEntry, score_hand
from .ruleset import Ruleset
from .seats import OTHER_TEAM, PARTNER_OF, SEATS, TEAM_OF, TEAMS, next_seat

_TEAM_SEATS = {"NS": frozenset({"N", "S"}), "EW": frozenset({"E", "W"})}
_NO_COUNTS: Mapping[tuple[str, str, str], int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class HandEntry:
    """What the referee entered for one hand of a team match (docs/rules.md §9)."""

    points: int | None = None
    kitty: KittyEntry | None = None
    penalties: tuple[PenaltyEntry, ...] = ()
    redeal: bool = False
    dealer: str | None = None
    as_played: bool = False  # played after a correction: the dealer is taken as given
    buried_by: str | None = None  # who buried the kitty last, where frying lets another seat
    called_by: str | None = None  # a redeal: the defender who called it


@dataclass(frozen=True, slots=True)
class HandResult:
    """What one hand did, as `kiosk replay` prints it."""

    hand: int
    dealer: str
    level: str
    total: int | None
    result: str  # "hold", "take-over", "redeal" or "match-loss"
    advance: int | None
    levels: tuple[str, str]  # NS, EW after the hand
    next_dealer: str | None
    winner: str | None = None
    by: str | None = None
    penalties: tuple[Any, ...] = ()
    called_by: str | None = None  # a redeal: the defender who called it
    # The must-play level where the advance stopped short of what the total gave (docs/rules.md
    # §3): players who count the band's levels see why they moved fewer.
    stopped_at: str | None = None
    # chaodipi's 0 (or less): the level the dealer side went straight to, whatever the band's
    # advance says (a referee reads 直升A, not 升3级). Screens only: not in the record's line.
    straight_to: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hand": self.hand, "dealer": self.dealer, "level": self.level, "total": self.total,
            "result": self.result, "advance": self.advance,
            "levels": {"NS": self.levels[0], "EW": self.levels[1]},
            "next_dealer": self.next_dealer, "winner": self.winner,
        }
        if self.by is not None:
            out["by"] = self.by
        if self.called_by is not None:
            out["called_by"] = self.called_by
        if self.stopped_at is not None:
            out["stopped_at"] = self.stopped_at
        if self.penalties:
            out["penalties"] = [p.to_json() for p in self.penalties]
        return out


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The end of a match (docs/rules.md §8): big points and net levels by team."""

    winner: str
    by: str  # "ladder", "time-up", "forfeit" or "penalty"
    levels: tuple[str, str]
    big_points: tuple[int, int] | None  # None where the ruleset gives no points
    net_levels: tuple[int, int] | None  # only where the ruleset breaks ties by net levels
    tie: str | None = None  # time up on equal levels: what decided (`TeamMatch.tie`)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"winner": self.winner, "by": self.by}
        if self.tie is not None:
            out["tie"] = self.tie
        if self.big_points is not None:
            out["big_points"] = dict(zip(TEAMS, self.big_points, strict=True))
        if self.net_levels is not None:
            out["net_levels"] = dict(zip(TEAMS, self.net_levels, strict=True))
        return out


@dataclass(frozen=True, slots=True)
class TimeUpDecision:
    """What happens when the match time runs out: a winner now, or finish the hand in play."""

    winner: str | None
    finish_hand: bool
    tie: str | None = None  # the levels equal: what decided (`TeamMatch.tie`)


@dataclass(frozen=True, slots=True)
class TeamMatch:
    """The state of a team match after some hands. Levels are indices into `ruleset.ladder`;
    `reached` is the hand at which each team reached its current level (0: at the start)."""

    ruleset: Ruleset
    next_dealer: str | None  # None: grabbed at the table
    levels: tuple[int, int] = (0, 0)
    reached: tuple[int, int] = (0, 0)
    hands: int = 0  # hands entered, redeals included
    played: int = 0  # hands played out
    last_hand_winner: str | None = None
    counts: Mapping[tuple[str, str, str], int] = field(default_factory=lambda: _NO_COUNTS)
    winner: str | None = None
    by: str | None = None
    time_up_pending: bool = False  # time ran out during the hand in play: it is the last
    # time up on equal levels: what decided, "reached-first" (the team that reached that level
    # first) or "last-hand" (the side that won the last hand)
    tie: str | None = None

    @classmethod
    def start(cls, ruleset: Ruleset, first_dealer: str | None = None) -> TeamMatch:
        """A new match at 2–2. `first_dealer` None: the first hand's entry names the grabbed
        dealer. Raises EntryError for a bad seat or an individual ruleset."""
        if ruleset.kind != "team":
            raise EntryError("ruleset", f"{ruleset.id} is not a team ruleset").explained(
                "rules.entry.not_team", ruleset=ruleset.name)
        if first_dealer is not None and first_dealer not in SEATS:
            raise EntryError("first_dealer", f"{first_dealer!r} is not a seat; give N, E, S or "
                             "W").explained("rules.entry.not_a_seat",
                                            value=value_words(first_dealer))
        return cls(ruleset, first_dealer)

    # -- levels -----------------------------------------------------------------------------

    def level_of(self, team: str) -> str:
        """The level `team` is playing at (its final level once it has won)."""
        return self.ruleset.ladder[self.levels[TEAMS.index(team)]]

    def shown_levels(self) -> tuple[str, str]:
        ladder = self.ruleset.ladder
        return ladder[self.levels[0]], ladder[self.levels[1]]

    # -- playing ----------------------------------------------------------------------------

    def play(self, entry: HandEntry) -> tuple[TeamMatch, HandResult]:
        """Apply one hand. Raises EntryError (naming the field) when the entry is refused and
        MatchOver when the match already has a winner; the state is then unchanged."""
        if self.winner is not None:
            raise self._over()
        dealer = self._dealer_for(entry)
        hand = self.hands + 1
        team = TEAM_OF[dealer]
        t = TEAMS.index(team)
        level = self.ruleset.ladder[self.levels[t]]
        self._check_burier(entry, dealer)
        if entry.redeal:
            return self._redeal(entry, dealer, hand, level)
        if entry.called_by is not None:
            raise EntryError("called_by", "only a redeal is called by a seat").explained(
                "rules.entry.called_by_unused")
        score, new_counts = score_hand(
            self.ruleset, entry.points, entry.kitty, entry.penalties, _TEAM_SEATS[team],
            self.counts, TEAM_OF, dealer=dealer, buried_by=entry.buried_by)
        counts = self.counts if new_counts is None else MappingProxyType(new_counts)
        if score.result == "match-loss":
            assert score.match_loser_seat is not None
            state = replace(self, hands=hand, played=self.played + 1, counts=counts)._end(
                OTHER_TEAM[TEAM_OF[score.match_loser_seat]], "penalty")
            return state, HandResult(hand, dealer, level, score.total, "match-loss", None,
                                     state.shown_levels(), None, state.winner, state.by,
                                     score.penalties)
        return self._advance(score, dealer, hand, level, counts)

    def _dealer_for(self, entry: HandEntry) -> str:
        given = entry.dealer
        if given is not None and given not in SEATS:
            raise EntryError("dealer", f"{given!r} is not a seat; give N, E, S or W").explained(
                "rules.entry.not_a_seat", value=value_words(given))
        if entry.as_played:
            if given is None:
                raise EntryError("dealer", "a hand played after a correction carries the dealer "
                                 "it was played with").explained("rules.entry.as_played_dealer")
            return given
        if self.next_dealer is None:
            if given is None:
                raise EntryError("dealer", "the dealer is grabbed at the table here; give it"
                                 ).explained("rules.entry.dealer_grabbed")
            return given
        if given is not None and given != self.next_dealer:
            raise EntryError("dealer", f"'{given}' is not the dealer: by {self.ruleset.id} "
                             f"the dealer is '{self.next_dealer}'").explained(
                "rules.entry.dealer_wrong", given=seat_words(given),
                dealer=seat_words(self.next_dealer), ruleset=self.ruleset.name)
        return self.next_dealer

    def _check_burier(self, entry: HandEntry, dealer: str) -> None:
        """`buried_by` is a seat; without frying only the dealer buries."""
        burier = entry.buried_by
        if burier is None:
            return
        if burier not in SEATS:
            raise EntryError("buried_by", f"{burier!r} is not a seat; give N, E, S or W"
                             ).explained("rules.entry.not_a_seat", value=value_words(burier))
        if not self.ruleset.frying and burier != dealer:
            raise EntryError("buried_by", f"only the dealer {dealer} buries in "
                             f"{self.ruleset.id}").explained(
                "rules.entry.buried_by_dealer", seat=seat_words(burier),
                dealer=seat_words(dealer), ruleset=self.ruleset.name)

    def _redeal(self, entry: HandEntry, dealer: str, hand: int, level: str
                ) -> tuple[TeamMatch, HandResult]:
        redeal = self.ruleset.redeal
        if redeal is None:
            raise EntryError("redeal", f"{self.ruleset.id} has no redeal").explained(
                "rules.entry.no_redeal", ruleset=self.ruleset.name)
        if entry.points is not None or entry.kitty is not None or entry.penalties:
            raise EntryError("redeal", "a redeal scores nothing: give no points, kitty or "
                             "penalties with it").explained("rules.entry.redeal_scores_nothing")
        if self.time_up_pending:
            raise EntryError("redeal", "time is up: the hand in play is finished, not redealt"
                             ).explained("rules.entry.redeal_time_up")
        caller = entry.called_by
        if caller is not None:
            callers = self.ruleset.redeal_callers(dealer)
            if caller not in SEATS:
                raise EntryError("called_by", f"{caller!r} is not a seat; give N, E, S or W"
                                 ).explained("rules.entry.not_a_seat", value=value_words(caller))
            if caller not in callers:
                raise EntryError("called_by", f"{caller} is on the dealer side; only a defender "
                                 f"({', '.join(callers)}) calls a redeal").explained(
                    "rules.entry.redeal_caller", seat=seat_words(caller),
                    defenders=self.ruleset.terms["defenders"], seats=seats_words(callers),
                    condition=self.ruleset.redeal_condition())
        rule = redeal.dealer_before_first_hand if self.played == 0 else redeal.dealer_after
        next_dealer = dealer if rule == "same" else None
        state = replace(self, hands=hand, next_dealer=next_dealer)
        return state, HandResult(hand, dealer, level, None, "redeal", None, state.shown_levels(),
                                 next_dealer, called_by=caller)

    def _advance(self, score: HandScore, dealer: str, hand: int, level: str,
                 counts: Mapping[tuple[str, str, str], int]) -> tuple[TeamMatch, HandResult]:
        rules = self.ruleset
        dealer_team = TEAM_OF[dealer]
        hold = score.result == "hold"
        mover = dealer_team if hold else OTHER_TEAM[dealer_team]
        m = TEAMS.index(mover)
        start = self.levels[m]
        if score.straight:
            won = start == len(rules.ladder) - 1
            final = len(rules.ladder) - 1
            new, moved = (start, 1) if won else (final, final - start)
        else:
            new, moved, won = climb(rules, start, score.advance, first_step_free=hold)
        # (climb stops short of the advance only at a must-play level, or by winning)
        stopped_at = rules.ladder[new] if not score.straight and not won and \
            moved < score.advance else None
        levels = list(self.levels)
        reached = list(self.reached)
        levels[m] = new
        if moved and not won:
            reached[m] = hand
        for seat, down in score.level_losses:
            t = TEAMS.index(TEAM_OF[seat])
            levels[t] = max(0, levels[t] - down)
            reached[t] = hand
        if hold:
            next_dealer = PARTNER_OF[dealer] if rules.dealer.hold == "partner" else dealer
        else:
            next_dealer = next_seat(dealer, rules.dealer.direction)
        # One constructor call, not dataclasses.replace: this is the scorer's hot path.
        state = TeamMatch(rules, next_dealer, (levels[0], levels[1]), (reached[0], reached[1]),
                          hand, self.played + 1, mover, counts, None, None,
                          self.time_up_pending)
        if won:
            state = state._end(mover, "ladder")
        elif self.time_up_pending:
            winner, tie = state._time_up_winner(after_hand=True)
            state = state._end(winner, "time-up", tie)
        return state, HandResult(hand, dealer, level, score.total, score.result, moved,
                                 state.shown_levels(), next_dealer, state.winner, state.by,
                                 score.penalties, stopped_at=stopped_at,
                                 straight_to=rules.ladder[new] if score.straight and not won
                                 else None)

    # -- endings ----------------------------------------------------------------------------

    def _over(self) -> MatchOver:
        error = MatchOver("", f"the match is over: {self.winner} won ({self.by})")
        error.explained("rules.entry.match_over", team=words(f"team.{self.winner}"),
                        by=words(f"by.{self.by}"))
        return error

    def _end(self, winner: str, by: str, tie: str | None = None) -> TeamMatch:
        return replace(self, winner=winner, by=by, time_up_pending=False, tie=tie)

    def time_up(self, hand_in_progress: bool) -> tuple[TeamMatch, TimeUpDecision]:
        """The match time ran out (docs/rules.md §5). Returns the new state and the decision:
        a winner now, or finish the hand in play (the next `play` then ends the match). Raises
        EntryError when the ruleset has no time-up rule or no hand was played, MatchOver after
        a winner."""
        if self.winner is not None:
            raise self._over()
        rule = self.ruleset.time.time_up
        if rule == "none":
            raise EntryError("end.time_up", f"{self.ruleset.id} has no time-up rule; the event "
                             "must set one in a house ruleset").explained(
                "rules.entry.no_time_up", ruleset=self.ruleset.name)
        equal = self.levels[0] == self.levels[1]
        if hand_in_progress and (rule == "finish-hand-then-leader" or equal):
            return replace(self, time_up_pending=True), TimeUpDecision(None, True)
        winner, tie = self._time_up_winner(after_hand=False)
        return self._end(winner, "time-up", tie), TimeUpDecision(winner, False, tie)

    def _time_up_winner(self, after_hand: bool) -> tuple[str, str | None]:
        """Who wins at time up, and what broke a tie of levels (None: the levels differ)."""
        ns, ew = self.levels
        if ns != ew:
            return ("NS" if ns > ew else "EW"), None
        if (not after_hand and self.ruleset.time.time_up == "higher-level-now"
                and self.reached[0] != self.reached[1]):
            return ("NS" if self.reached[0] < self.reached[1] else "EW"), "reached-first"
        if self.last_hand_winner is None:
            raise EntryError("end.time_up", "no hand was played, so time up cannot pick a "
                             "winner; the referee rules (record a forfeit)").explained(
                "rules.entry.time_up_no_hand")
        return self.last_hand_winner, "last-hand"

    def forfeit(self, loser: str) -> TeamMatch:
        """`loser` forfeits (late, disqualified, a ruling): the other team wins. Raises
        EntryError for a bad team, MatchOver after a winner."""
        if self.winner is not None:
            raise self._over()
        if loser not in TEAMS:
            raise EntryError("end.forfeit", f"{loser!r} is not a team; give NS or EW").explained(
                "rules.entry.not_a_team", value=value_words(loser))
        return self._end(OTHER_TEAM[loser], "forfeit")

    def result(self) -> MatchResult | None:
        """The match result once there is a winner (docs/rules.md §8), else None."""
        if self.winner is None or self.by is None:
            return None
        scoring = self.ruleset.result
        w = TEAMS.index(self.winner)
        net = max(0, self.levels[w] - self.levels[1 - w] - 1)
        big = [scoring.loss_points, scoring.loss_points]
        big[w] = scoring.win_points
        nets = (net, -net) if w == 0 else (-net, net)
        return MatchResult(self.winner, self.by, self.shown_levels(),
                           (big[0], big[1]) if scoring.big_points else None,
                           nets if scoring.tie_break == "net-levels" else None, self.tie)


def climb(ruleset: Ruleset, start: int, steps: int, first_step_free: bool
          ) -> tuple[int, int, bool]:
    """Advance `steps` levels from ladder index `start` (docs/rules.md §3). A step out of a
    must-play level is allowed only as the first step of a hand won as the dealer side at that level
    (`first_step_free`); stepping out of the final level wins. Returns the new index, the levels
    actually moved, and whether the team won."""
    ladder = ruleset.ladder
    final = len(ladder) - 1
    index = start
    for step in range(steps):
        if ladder[index] in ruleset.must_play and not (step == 0 and first_step_free):
            return index, step, False
        if index == final:
            return index, step + 1, True
        index += 1
    return index, steps, False

