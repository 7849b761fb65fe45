"""Any sequence of referee and player actions, valid or not, ends in a state or a clear
SessionError, never a traceback; and the journal folds back to exactly the same table."""

from __future__ import annotations

import contextlib
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.rules import Rulesets
from kiosk.table.clock import ManualClock
from kiosk.table.session import SessionConfig, SessionError, TableSession

pytestmark = pytest.mark.sim

RULESETS = Rulesets.load()
HANDS: list[int] = []
SEAT = st.sampled_from(["N", "E", "S", "W", "X", None, 3])
POINTS = st.one_of(st.integers(-20, 220), st.sampled_from([0, 45, 80, 100, 195]),
                   st.text(max_size=2))
KITTY = st.one_of(st.none(), st.fixed_dictionaries(
    {"points": st.integers(0, 90), "shape": st.sampled_from(["single", "pair", "tractor3", "x"])}),
    st.just({"points": 10}), st.just("kitty"))
CODE = st.sampled_from(["exposed-card", "failed-throw", "card-count", "time-overrun",
                        "signalling", "kitty-wrong", "ruling", "no-such", "hidden-card"])

ACTION = st.one_of(
    st.tuples(st.just("press"), SEAT),
    st.tuples(st.just("press_turn")),
    st.tuples(st.just("grab_dealer"), SEAT),
    st.tuples(st.just("draw_partner"), SEAT, st.sampled_from(["A", "2", "Q", "joker", None])),
    st.tuples(st.just("declare_trump"), st.sampled_from(["♠", 5]), SEAT),
    st.tuples(st.just("redeal"), SEAT),
    st.tuples(st.just("start_bury")),
    st.tuples(st.just("fry"), SEAT, st.sampled_from(["♥", "NT", None])),
    st.tuples(st.just("no_fry")),
    st.tuples(st.just("set_leader"), SEAT),
    st.tuples(st.just("undo")),
    st.tuples(st.just("end_play")),
    st.tuples(st.just("enter_points"), POINTS, KITTY),
    st.tuples(st.just("add_penalty"), CODE, SEAT, st.sampled_from(
        [{}, {"cards": 2}, {"choice": "play-on"}, {"points": 15}, {"choice": "points",
                                                                    "points": 20}])),
    st.tuples(st.just("finish_entries")),
    st.tuples(st.just("confirm"), SEAT),
    st.tuples(st.just("dispute"), SEAT),
    st.tuples(st.just("unlock"), st.sampled_from(["1357", "0000"])),
    st.tuples(st.just("rule_dispute"), st.just("ruled")),
    st.tuples(st.just("correct_hand"), st.integers(0, 4), st.sampled_from(
        [{"points": 85}, {"points": 3}, {"dealer": "E"}, "x", {"points": 40, "kitty": None}]),
        st.sampled_from(["recount", ""])),
    st.tuples(st.just("pause")),
    st.tuples(st.just("resume")),
    st.tuples(st.just("declare_time_up")),
    st.tuples(st.just("end_match"), st.sampled_from(["NS", "EW", "XX"]),
              st.sampled_from(["forfeit", "disqualification", "x"]), st.just("late")),
    st.tuples(st.just("wait"), st.floats(0, 400)),
    st.tuples(st.just("tick")),
    st.tuples(st.just("hand"), st.sampled_from([0, 45, 85, 120, 200])),
)


def whole_hand(session: TableSession, clock: ManualClock, points: int) -> None:
    """The usual way through a hand, each step allowed to be refused where it does not fit."""
    steps = [lambda: session.grab_dealer("N"), lambda: session.draw_partner(card="A"),
             lambda: session.declare_trump("♠", "N"), session.start_bury,
             *[lambda: act(session, clock, ("press_turn",))] * 6,
             session.end_play, lambda: session.enter_points(points), session.finish_entries,
             lambda: session.confirm("N"), lambda: session.confirm("E"),
             lambda: session.confirm("W")]
    for step in steps:
        clock.advance(2)
        with contextlib.suppress(SessionError):
            step()


def act(session: TableSession, clock: ManualClock, action: tuple) -> None:
    name, *args = action
    if name == "hand":
        whole_hand(session, clock, args[0])
    elif name == "wait":
        clock.advance(args[0])
    elif name == "press_turn":
        clock_ = session.state.clock
        session.press((clock_.seat if clock_ else None) or "N")
    elif name == "add_penalty":
        session.add_penalty(args[0], args[1], **args[2])
    elif name == "draw_partner":
        session.draw_partner(partner=args[0] if args[1] is None else None, card=args[1])
    else:
        getattr(session, name)(*args)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "300")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(RULESETS)), st.lists(ACTION, min_size=5, max_size=120))
def test_any_actions_end_in_a_state_or_a_clear_error(ruleset_id, actions):
    with tempfile.TemporaryDirectory() as data:
        clock = ManualClock()
        session = TableSession.open(data, 1, RULESETS, clock, SessionConfig(pin="1357"))
        session.setup_match(event="fuzz", round="1", teams={}, players={}, ruleset=ruleset_id,
                            match_minutes=30)
        session.start_match_clock()
        for action in actions:
            try:
                act(session, clock, action)
            except SessionError as err:
                assert str(err)
        shown = (session.state.phase, session.state.levels(), session.export())
        HANDS.append(len(session.state.played))
        session.journal.close()
        again = TableSession.open(data, 1, RULESETS, clock, SessionConfig(pin="1357"))
        assert (again.state.phase, again.state.levels(), again.export()) == shown
        again.close()
