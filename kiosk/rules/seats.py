"""Seats, teams, levels and play directions: the vocabulary every other module shares."""

from __future__ import annotations

from typing import Final

SEATS: Final = ("N", "E", "S", "W")
TEAMS: Final = ("NS", "EW")
TEAM_OF: Final = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}
PARTNER_OF: Final = {"N": "S", "S": "N", "E": "W", "W": "E"}
OTHER_TEAM: Final = {"NS": "EW", "EW": "NS"}

#: The ladder every ruleset climbs; a ruleset may end it early (standard-80fen ends at 10).
LEVELS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
#: Ranks a card can show (for the shuangsheng partner draw).
RANKS: Final = LEVELS

#: Seat order of play for each direction, starting from N.
PLAY_ORDER: Final = {
    "clockwise": ("N", "E", "S", "W"),
    "counter-clockwise": ("N", "W", "S", "E"),
}


def next_seat(seat: str, direction: str) -> str:
    """The seat that plays after `seat` in `direction`."""
    order = PLAY_ORDER[direction]
    return order[(order.index(seat) + 1) % 4]


def previous_seat(seat: str, direction: str) -> str:
    """The seat that plays before `seat` in `direction`."""
    order = PLAY_ORDER[direction]
    return order[(order.index(seat) - 1) % 4]
