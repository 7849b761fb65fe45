"""The rules core: the four tournament rulesets, hand scoring, the ladder, dealers, time-up,
match results, shuangsheng's individual rounds, and the replay of match records.

Standard library only (a test checks it in a subprocess), so the kiosk, the scorer and any
other program can stand on it. Every value is immutable; a match is a fold of hands.
"""

from .errors import EntryError, MatchOver, RecordError, RulesError, RulesetError, Words
from .hand import AppliedPenalty, HandScore, KittyEntry, PenaltyEntry, score_hand
from .individual import DealEntry, DealResult, IndividualRound, PrizeFinals, form_prize_finals
from .match import HandEntry, HandResult, MatchResult, TeamMatch, TimeUpDecision, climb
from .record import replay
from .registry import BUILTIN_IDS, Rulesets
from .ruleset import EFFECTS, LANGS, Penalty, Ruleset, Text, parse_ruleset
from .seats import LEVELS, SEATS, TEAM_OF, TEAMS

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
