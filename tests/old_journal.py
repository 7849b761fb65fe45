"""A journal written by the kiosk before its state machine had types (commit 5d655f8), and
what each of its matches folded to then: `tests/data/old-journal.jsonl` and
`tests/data/old-journal-folded.json`, with that commit's rulesets in
`tests/data/old-rulesets/` (a match folds only with the ruleset it was set up with). A test
folds the same events with today's code and expects the same (kiosk/table/state.py's phases
and event kinds are StrEnums whose values are the journal's strings).

Made once, by `python -m tests.old_journal` on that commit: bots play a match of each ruleset
(kiosk.sim.table), then a scripted match uses every kind of event the bots do not (undo,
leader, redeal, pauses, the hall's clock, a correction, a dispute, a forfeit, a dropped
match…). Running it again on later code would only copy that code's behaviour: do not.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
EVENTS, FOLDED = DATA / "old-journal.jsonl", DATA / "old-journal-folded.json"


def _clock(clock: Any) -> dict[str, Any] | None:
    if clock is None:
        return None
    return {k: getattr(clock, k) for k in ("kind", "seat", "limit", "started", "running",
                                           "elapsed", "plays", "trick", "leader", "done")}


def summary(state: Any) -> dict[str, Any]:
    """Everything a fold keeps of a match, as JSON (the same attributes then and now)."""
    draft = state.draft
    out: dict[str, Any] = {
        "phase": state.phase, "paused": state.paused, "pause_reason": state.pause_reason,
        "match_started": state.match_started, "hall_extra": state.hall_extra,
        "time_up": state.time_up, "needs_ruling": state.needs_ruling, "end": state.end,
        "abandoned": state.abandoned, "pin_failures": len(state.pin_failures),
        "fry_step": state.fry_step, "clock": _clock(state.clock),
        "match_clock": _clock(state.match_clock),
        "played": [[p.record, p.corrected, p.result.to_json()] for p in state.played],
        "levels": state.levels(), "winner": state.winner(),
    }
    if state.ruleset is not None:
        out["export"] = state.export()
    if draft is not None:
        out["draft"] = {
            "number": draft.number, "dealer": draft.dealer, "as_played": draft.as_played,
            "partner": draft.partner, "partner_card": draft.partner_card,
            "trump": draft.trump, "points": draft.points, "kitty": draft.kitty,
            "penalties": draft.penalties, "buriers": draft.buriers,
            "undo": [[u.kind, u.phase, u.added, u.seat] for u in draft.undo],
            "confirmed": sorted(draft.confirmed), "disputed_by": draft.disputed_by,
            "entry_step": draft.entry_step}
    return json.loads(json.dumps(out, ensure_ascii=False, sort_keys=True))


def _scripted(data: Path, rulesets: Any) -> None:
    """A stand-alone match, then a paired one, using the rarer events."""
    from kiosk.table.clock import ManualClock
    from kiosk.table.session import SessionConfig, TableSession

    clock = ManualClock()
    s = TableSession.open(data, 9, rulesets, clock, SessionConfig(pin="1357"))
    s.unlock("0000")  # a wrong PIN
    s.setup_match(event="", round="1", teams={"NS": "甲队"}, players={"W": "王"},
                  ruleset="xiamen-2015")
    s.grab_dealer("S")
    s.undo()
    s.grab_dealer("N")
    s.redeal("E")  # a defender calls it: the hand is dealt again, dealer grabbed again
    s.grab_dealer("W")
    s.unlock("0000")  # a wrong PIN, in the match
    s.declare_trump("♥", "W")
    s.start_bury()
    clock.advance(40)
    s.press("W")
    clock.advance(2)
    s.press("W")
    s.unlock("1357")
    s.set_leader("N")
    clock.advance(1)
    s.press(s.state.clock.seat)
    clock.advance(25)  # the next seat overruns
    s.press(s.state.clock.seat)
    s.pause_table()
    clock.advance(30)
    s.resume()
    clock.advance(3)
    s.press(s.state.clock.seat)
    s.pause("referee")
    s.resume()
    s.hold_for_referee()
    s.release_referee_hold()
    s.hold_for_referee(screen=True)
    clock.advance(2)
    s.release_referee_hold(keep_time=True)
    s.pause_key()
    s.pause_key()
    s.end_play()
    s.undo()
    s.end_play()
    s.enter_points(40)
    s.save_entry_step("last_trick")
    s.enter_points(40, {"points": 10, "shape": "pair"})
    s.add_penalty("failed-throw", "S", cards=2, incident=True)
    s.unlock("1357")
    pid = s.add_penalty("look-back", "E", incident=True)
    s.remove_penalty(pid)
    s.finish_entries()
    s.reopen_entries()
    s.finish_entries()
    s.dispute("E")
    s.unlock("1357")
    s.rule_dispute("checked")
    for points in (120, 35):
        s.declare_trump("♠", s.state.draft.dealer)
        s.start_bury()
        clock.advance(5)
        s.press(s.state.clock.seat)
        s.end_play()
        s.enter_points(points)
        s.finish_entries()
        s.confirm("N")
        s.confirm("E")
    s.unlock("1357")
    s.correct_hand(2, {"points": 60, "kitty": {"points": 15, "shape": "pair"}}, "recount")
    s.declare_trump("♣", s.state.draft.dealer)
    s.start_bury()
    clock.advance(2)
    s.unlock("1357")
    s.declare_time_up()
    if s.state.phase == "bury":  # levels equal: the hand is finished
        s.press(s.state.clock.seat)
        s.end_play()
        s.enter_points(80)
        s.finish_entries()
        s.confirm("N")
        s.confirm("E")
    if s.state.phase != "over":
        s.unlock("1357")
        s.end_match("EW", "forfeit", "left the hall")

    # paired: the hall's start, its pause, extension and stop; a round taken back
    s.setup_match(event="Open", round="2", teams={"NS": "A", "EW": "B"},
                  players={}, ruleset="standard-80fen", match_minutes=90, start_at=1.79e9)
    s.abandon_match()
    s.setup_match(event="Open", round="2", teams={"NS": "A", "EW": "B"},
                  players={}, ruleset="standard-80fen", match_minutes=90,
                  match=s.free_match_name("2"), start_at=1.79e9 + 60)
    s.start_match_clock("scorer")
    s.grab_dealer("E")
    s.declare_trump("NT", "E")
    s.start_bury()
    clock.advance(10)
    s.follow_hall(True)
    clock.advance(60)
    s.follow_hall(False)
    s.follow_hall_extension(300)
    s.press("E")
    clock.advance(1)
    s.press("E")
    s.follow_hall_stop()
    s.follow_ruling("NS", "disqualification", "conduct")

    # chaodipi: a bury overrun the referee confirms, a fry
    s.setup_match(event="", round="4", teams={}, players={}, ruleset="chaodipi-2011")
    for fry in (False, True):
        if s.state.draft.dealer is None:
            s.grab_dealer("N")
        s.declare_trump("♠", "N")
        s.start_bury()
        clock.advance(61)
        s.press(s.state.clock.seat)
        if fry:
            s.fry("E", "♦")
            clock.advance(3)
            s.press("E")
        s.no_fry()
        s.end_play()
        s.enter_points(40)
        s.unlock("1357")
        for pid, _ in s.state.unconfirmed():  # the second overrun: the referee's to confirm
            s.confirm_penalty(pid)
        s.finish_entries()
        s.confirm("N")
        s.confirm("E")
    s.close()


def main(data: str) -> None:
    from kiosk.rules import Rulesets
    from kiosk.sim.table import simulate
    from kiosk.table.journal import Journal, table_path
    from kiosk.table.state import MatchState

    rulesets = Rulesets.load()
    path = Path(data)
    for table, ruleset in enumerate(("xiamen-2015", "chaodipi-2011", "shuangsheng-2011",
                                     "standard-80fen"), 1):
        simulate(path, table, rulesets, ruleset, hands=6, seed=table, speed=1e12,
                 out=io.StringIO()).close()
    _scripted(path, rulesets)
    events, folded = [], {}
    for table in (1, 2, 3, 4, 9):
        journal = Journal.reader(table_path(path, table))
        for match in journal.matches():
            state = MatchState(rulesets)
            for event in journal.events(match):
                state.apply(event)
                events.append(event.to_json())
            folded[f"{journal.device}/{match}"] = summary(state)
        journal.close()
    DATA.mkdir(exist_ok=True)
    EVENTS.write_text("".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n"
                              for e in events), encoding="utf-8")
    FOLDED.write_text(json.dumps(folded, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                      encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
