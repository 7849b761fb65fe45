"""shuangsheng-2011: an individual round of fixed deals with partners drawn by card
(docs/rules.md §6).

Players are named by the seat letter they drew (E, N, W, S). Each deal's dealer comes in turn,
the partner is drawn by a card, and every player scores big points from the defenders' total.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from .errors import EntryError, MatchOver, seat_words, value_words
from .hand import KittyEntry, PenaltyEntry, score_hand
from .ruleset import Ruleset
from .seats import PARTNER_OF, RANKS, SEATS, next_seat, previous_seat

_SELF: Final = {seat: seat for seat in SEATS}
_JOKERS: Final = frozenset({"joker", "JOKER", "Joker", "大王", "小王", "王"})


@dataclass(frozen=True, slots=True)
class DealEntry:
    """What the players entered for one deal. Give `partner` (a player letter) or `partner_card`
    (the rank the dealer turned), or both when they agree."""

    points: int | None = None
    kitty: KittyEntry | None = None
    penalties: tuple[PenaltyEntry, ...] = ()
    partner: str | None = None
    partner_card: str | None = None
    dealer: str | None = None


@dataclass(frozen=True, slots=True)
class DealResult:
    deal: int
    level: str
    dealer: str
    partner: str
    total: int
    awards: dict[str, int]
    totals: dict[str, int]
    penalties: tuple[Any, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "deal": self.deal, "level": self.level, "dealer": self.dealer,
            "partner": self.partner, "total": self.total, "awards": dict(self.awards),
            "totals": dict(self.totals),
        }
        if self.penalties:
            out["penalties"] = [p.to_json() for p in self.penalties]
        return out


@dataclass(frozen=True, slots=True)
class IndividualRound:
    """The state of a round after some deals: big-point totals by player letter."""

    ruleset: Ruleset
    deals: int = 0
    totals: tuple[tuple[str, int], ...] = ()

    @classmethod
    def start(cls, ruleset: Ruleset) -> IndividualRound:
        """A new round. Raises EntryError for a team ruleset."""
        if ruleset.kind != "individual" or ruleset.deals is None:
            raise EntryError("ruleset", f"{ruleset.id} is not an individual ruleset").explained(
                "rules.entry.not_individual", ruleset=ruleset.name)
        order = ruleset.deals.dealer_order
        return cls(ruleset, 0, tuple((player, 0) for player in order))

    @property
    def finished(self) -> bool:
        assert self.ruleset.deals is not None
        return self.deals >= len(self.ruleset.deals.levels)

    def next_dealer(self) -> str:
        assert self.ruleset.deals is not None
        order = self.ruleset.deals.dealer_order
        return order[self.deals % len(order)]

    def partner_by_card(self, dealer: str, rank: Any) -> str:
        """The partner the turned card names (drawn seats: right is the next to play).
        Raises EntryError for a joker or a rank that is not a card."""
        assert self.ruleset.deals is not None
        if isinstance(rank, str) and rank in _JOKERS:
            raise EntryError("partner_card", "a joker is turned again; give the card that "
                             "named the partner").explained("rules.entry.joker")
        where = self.ruleset.deals.partner_by_card.get(rank) if isinstance(rank, str) else None
        if where is None:
            raise EntryError("partner_card", f"{rank!r} is not a card rank; give one of "
                             f"{' '.join(RANKS)}").explained(
                "rules.entry.rank_bad", value=value_words(rank), ranks=" ".join(RANKS))
        direction = self.ruleset.dealer.direction
        if where == "right":
            return next_seat(dealer, direction)
        if where == "left":
            return previous_seat(dealer, direction)
        return PARTNER_OF[dealer]

    def play(self, entry: DealEntry) -> tuple[IndividualRound, DealResult]:
        """Apply one deal. Raises EntryError naming the field, MatchOver after the last deal."""
        deals = self.ruleset.deals
        assert deals is not None
        if self.finished:
            raise MatchOver("", f"a {self.ruleset.id} round is {len(deals.levels)} deals"
                            ).explained("rules.entry.round_over", ruleset=self.ruleset.name,
                                        deals=len(deals.levels))
        dealer = self.next_dealer()
        if entry.dealer is not None and entry.dealer != dealer:
            raise EntryError("dealer", f"{entry.dealer!r} is not the dealer: deal "
                             f"{self.deals + 1} is dealt by {dealer}").explained(
                "rules.entry.deal_dealer", given=value_words(entry.dealer), deal=self.deals + 1,
                dealer=seat_words(dealer))
        partner = self.partner_for(dealer, entry)
        dealer_side = frozenset({dealer, partner})
        score, _ = score_hand(self.ruleset, entry.points, entry.kitty, entry.penalties,
                              dealer_side, {}, _SELF, dealer=dealer)
        assert score.total is not None
        band = self.ruleset.big_points_for(score.total)
        awards = {p: band.dealer_side if p in dealer_side else band.defenders
                  for p, _ in self.totals}
        if score.big_points is not None and score.big_points_seat is not None:
            outcome = score.big_points
            erring = dealer_side if score.big_points_seat in dealer_side else (
                frozenset(SEATS) - dealer_side)
            for player in awards:
                awards[player] = (outcome.erring if player in erring
                                  else max(outcome.other_at_least, awards[player]))
        totals = tuple((p, t + awards[p]) for p, t in self.totals)
        state = replace(self, deals=self.deals + 1, totals=totals)
        level = deals.levels[self.deals]
        return state, DealResult(state.deals, level, dealer, partner, score.total, awards,
                                 dict(totals), score.penalties)

    def partner_for(self, dealer: str, entry: DealEntry) -> str:
        """The partner an entry names, by letter or card (both must agree). Raises EntryError."""
        by_card = (self.partner_by_card(dealer, entry.partner_card)
                   if entry.partner_card is not None else None)
        given = entry.partner
        if given is None:
            if by_card is None:
                raise EntryError("partner", "give the partner (a player letter) or the "
                                 "partner_card the dealer turned").explained(
                    "rules.entry.partner_missing")
            return by_card
        if given not in SEATS or given == dealer:
            raise EntryError("partner", f"{given!r} cannot partner the dealer {dealer}; give "
                             "one of the other three players").explained(
                "rules.entry.partner_bad", given=value_words(given), dealer=seat_words(dealer))
        if by_card is not None and by_card != given:
            raise EntryError("partner", f"'{given}' disagrees with partner_card "
                             f"'{entry.partner_card}', which names '{by_card}'").explained(
                "rules.entry.partner_disagrees", given=seat_words(given),
                card=entry.partner_card, named=seat_words(by_card))
        return given


@dataclass(frozen=True, slots=True)
class PrizeFinals:
    """The prize-final groups, best first, and each tie across a cut between groups: the
    players of one block (firsts, middles, lasts) with the total at the cut, whose places
    only input order decided (the head referee should confirm)."""

    groups: tuple[tuple[str, ...], ...]
    ties_at_cuts: tuple[tuple[str, ...], ...]


def form_prize_finals(groups: Sequence[Sequence[tuple[str, int]]], size: int = 4) -> PrizeFinals:
    """Form the prize-final groups from prelim results (docs/rules.md §6). Each group lists its
    players as (name, total) in final order (ties already ordered by the head referee). Group
    winners come first and group lasts last, each block by total; the ranking is cut into groups
    of `size` from the top. Raises EntryError when the field does not divide into groups."""
    if any(len(g) < 2 for g in groups):
        raise EntryError("groups", "every prelim group needs at least a first and a last"
                         ).explained("rules.entry.group_too_small")
    players = [p for g in groups for p in g]
    if len({name for name, _ in players}) != len(players):
        raise EntryError("groups", "a player appears twice").explained(
            "rules.entry.player_twice")
    if not players or len(players) % size:
        raise EntryError("groups", f"{len(players)} players do not divide into final groups "
                         f"of {size}").explained("rules.entry.groups_divide", n=len(players),
                                                 size=size)
    firsts = [g[0] for g in groups]
    lasts = [g[-1] for g in groups]
    middles = [p for g in groups for p in g[1:-1]]
    ranking: list[tuple[str, int]] = []
    for block in (firsts, middles, lasts):
        ranking.extend(sorted(block, key=lambda p: -p[1]))  # stable: input order breaks ties
    finals = tuple(tuple(name for name, _ in ranking[i:i + size])
                   for i in range(0, len(ranking), size))
    ties: list[tuple[str, ...]] = []
    for cut in range(size, len(ranking), size):
        above, below = ranking[cut - 1], ranking[cut]
        shared = [b for b in (firsts, middles, lasts) if above in b and below in b]
        if above[1] == below[1] and shared:  # all of their block with that total
            tie = tuple(name for name, total in ranking if total == above[1] and
                        (name, total) in shared[0])
            if tie not in ties:  # (one tie spanning two edges is said once)
                ties.append(tie)
    return PrizeFinals(finals, tuple(ties))

