"""The rules core: the four tournament rulesets, hand scoring, the ladder, dealers, time-up,
match results, shuangsheng's individual rounds, and the replay of match records.

Standard library only (a test checks it in a subprocess), so the kiosk, the scorer and any
other program can stand on it. Every value is immutable; a match is a fold of hands.
"""

from typing import TYPE_CHECKING, Any

from .errors import EntryError, MatchOver, RecordError, RulesError, RulesetError, Words
from .hand import AppliedPenalty, HandScore, KittyEntry, PenaltyEntry, score_hand
from .match import HandEntry, HandResult, MatchResult, TeamMatch, TimeUpDecision, climb
from .record import replay
from .registry import BUILTIN_IDS, Rulesets
from .ruleset import EFFECTS, LANGS, Penalty, Ruleset, Text, parse_ruleset
from .seats import LEVELS, SEATS, TEAM_OF, TEAMS

if TYPE_CHECKING:
    from .individual import DealEntry, DealResult, IndividualRound, PrizeFinals, form_prize_finals

# Individual events' names, imported when first asked for: a team match (a replay, a table's
# session) needs none of them, and each class costs start-up time to make.
_INDIVIDUAL = frozenset({"DealEntry", "DealResult", "IndividualRound", "PrizeFinals",
                         "form_prize_finals"})


def __getattr__(name: str) -> Any:
    if name in _INDIVIDUAL:
        from . import individual

        return getattr(individual, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BUILTIN_IDS",
    "EFFECTS",
    "LANGS",
    "LEVELS",
    "SEATS",
    "TEAMS",
    "TEAM_OF",
    "AppliedPenalty",
    "DealEntry",
    "DealResult",
    "EntryError",
    "HandEntry",
    "HandResult",
    "HandScore",
    "IndividualRound",
    "KittyEntry",
    "MatchOver",
    "MatchResult",
    "Penalty",
    "PenaltyEntry",
    "PrizeFinals",
    "RecordError",
    "RulesError",
    "Ruleset",
    "RulesetError",
    "Rulesets",
    "TeamMatch",
    "Text",
    "TimeUpDecision",
    "Words",
    "climb",
    "form_prize_finals",
    "parse_ruleset",
    "replay",
    "score_hand",
]
