"""The table's state machine: typed phases and event kinds, one dispatch table, checking kept
apart from applying; and a journal written before all that folds exactly as it did then."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from kiosk.errors import SessionError
from kiosk.rules import parse_ruleset
from kiosk.rules.registry import Rulesets
from kiosk.table.clock import ManualClock
from kiosk.table.journal import Event, Journal, table_path
from kiosk.table.kinds import EventKind, Phase
from kiosk.table.session import SessionConfig, TableSession
from kiosk.table.state import RULES, MatchState

from .old_journal import DATA, EVENTS, FOLDED, summary

pytestmark = pytest.mark.unit


@pytest.fixture
def old_rulesets() -> Rulesets:
    """The rulesets as the old journal's matches were set up with them (a match keeps the
    sha256 of its ruleset: a ruleset changed since is refused for it, as at a table)."""
    files = sorted((DATA / "old-rulesets").glob("*.toml"))
    return Rulesets({f.stem: parse_ruleset(f.read_bytes(), str(f)) for f in files})


def old_events() -> dict[str, list[Event]]:
    matches: dict[str, list[Event]] = defaultdict(list)
    for line in EVENTS.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        matches[f"{raw['device']}/{raw['match']}"].append(Event(**raw))
    return matches


def test_a_journal_written_before_the_types_folds_as_it_did(old_rulesets):
    """Made by `tests/old_journal.py` on the code before this change (every kind of event):
    each match folds to what it folded to then, field for field."""
    expected = json.loads(FOLDED.read_text(encoding="utf-8"))
    matches = old_events()
    assert set(matches) == set(expected)
    kinds = {e.kind for events in matches.values() for e in events}
    assert kinds == set(EventKind)  # the old journal holds every kind there is
    for name, events in matches.items():
        state = MatchState(old_rulesets)
        for event in events:
            state.apply(event)
        assert summary(state) == expected[name], name


def test_the_old_journal_resumes_in_a_session(tmp_path, old_rulesets):
    """The same events in a real journal file, read back and folded by the session."""
    expected = json.loads(FOLDED.read_text(encoding="utf-8"))
    name, events = next((n, e) for n, e in old_events().items() if n.endswith("/4"))
    journal = Journal(table_path(tmp_path, 1), device=name.split("/")[0])
    for event in events:
        journal.append(event.match, [(event.kind, event.data)], event.mono, event.wall,
                       event.actor)
    journal.close()
    session = TableSession(Journal(table_path(tmp_path, 1)), old_rulesets, 1, ManualClock())
    assert summary(session.state) == expected[name]
    assert session.state.phase is Phase.READY  # a phase is a Phase, not a bare string
    session.close()


def test_every_kind_has_its_rules_and_nothing_else_is_taken(rulesets):
    assert set(RULES) == set(EventKind)
    state = MatchState(rulesets)
    with pytest.raises(SessionError) as refused:
        state.check("shuffle", {})
    assert refused.value.key == "table.unknown_event"
    with pytest.raises(SessionError):
        state.apply(Event(1, "d", "1", "shuffle", {}, 0.0, 0.0, "referee"))


def test_checking_changes_nothing_and_a_refused_event_is_not_folded(tmp_path, rulesets):
    """check() only says whether a command may be recorded; apply() of an event that does
    not fit leaves the state as it was."""
    session = TableSession.open(tmp_path, 1, rulesets, ManualClock(), SessionConfig())
    session.setup_match(event="", round="1", teams={}, players={}, ruleset="xiamen-2015")
    state = session.state
    before = summary(state)
    state.check(EventKind.DEALER, {"seat": "N"})  # allowed, and not done
    assert summary(state) == before
    session.close()
    with pytest.raises(SessionError):
        state.check(EventKind.BURY_START, {})  # the dealer first
    with pytest.raises(SessionError):
        state.apply(Event(99, "d", "1", "press", {"seat": "N"}, 0.0, 0.0, "seat:N"))
    assert summary(state) == before


def test_a_rule_added_since_binds_new_commands_not_old_journals(rulesets):
    """The trump before the bury became a rule after journals without it were written: a new
    command is refused, the old event still folds."""
    state = MatchState(rulesets)
    ruleset = rulesets["xiamen-2015"]
    setup = {"table": 1, "event": "", "round": "1", "teams": {}, "players": {},
             "ruleset": ruleset.id, "ruleset_sha256": ruleset.sha256}
    for i, (kind, data) in enumerate([("setup", setup), ("dealer", {"seat": "N"})]):
        state.apply(Event(i + 1, "d", "1", kind, data, 1.0, 1.0, "referee"))
    with pytest.raises(SessionError) as refused:
        state.check(EventKind.BURY_START, {})
    assert refused.value.key == "table.trump_first"
    state.apply(Event(3, "d", "1", "bury-start", {}, 2.0, 2.0, "referee"))
    assert state.phase is Phase.BURY


def test_time_up_while_a_deal_of_an_individual_round_is_entered_then_it_is_confirmed(
        tmp_path, rulesets):
    """Time called while a deal of an individual round is being entered ends the round once
    the deal is confirmed (its confirmation used to fail on the match's winner, which an
    individual round does not have; then it waited for a ruling only team matches have)."""
    session = TableSession.open(tmp_path, 1, rulesets, ManualClock(), SessionConfig(pin="1"))
    session.setup_match(event="", round="1", teams={}, players={}, ruleset="shuangsheng-2011")
    session.draw_partner(card="A")
    session.declare_trump("♠", "N")
    session.start_bury()
    session.press(session.state.clock.seat)
    session.end_play()
    session.enter_points(45)
    session.unlock("1")
    session.declare_time_up()
    session.finish_entries()
    session.press("E")
    session.press("S")
    assert len(session.state.played) == 1
    assert session.state.phase == "over" and session.state.needs_ruling is None
    session.close()
