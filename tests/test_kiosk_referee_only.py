"""What only the referee may do at the table (audit of the kiosk, finding 8): strike out a
recorded penalty and take back a redeal, behind the PIN and journaled as the referee's, through
the real controller, runner, session and journal on an injected clock."""

from __future__ import annotations

import pytest

from kiosk.table.session import SessionError
from tests.kiosk_driver import PIN

pytestmark = pytest.mark.unit


def an_overrun_then_the_entry(table) -> str:
    """xiamen: N overruns the lead of trick 1 (a warning recorded), then the hand is entered
    up to its penalties. Returns the recorded penalty's id."""
    table.start()
    table.clock.advance(8)
    table.press("N")
    table.play_out()
    table.tap("end_play", "e_points:40", "e_last:dealer")
    assert table.screen.name == "entry.penalties"
    (penalty_id,) = dict(table.state.draft.penalties)
    return penalty_id


def test_deleting_a_recorded_penalty_asks_the_referees_pin(table):
    penalty_id = an_overrun_then_the_entry(table)
    delete = next(r.button for r in table.screen.rows if r.button is not None)
    assert delete.action == f"e_del:{penalty_id}"
    table.tap(delete.action)  # a player at the table taps 删除
    assert table.screen.name == "referee.pin"
    assert table.screen.title == "裁判密码：删除罚则"
    assert penalty_id in dict(table.state.draft.penalties)  # nothing struck out yet
    table.tap("close")  # no PIN: the penalty stays, and the entry is where it was
    assert table.screen.name == "entry.penalties"
    assert penalty_id in dict(table.state.draft.penalties)

    table.tap(delete.action)
    table.pin()
    assert penalty_id not in dict(table.state.draft.penalties)
    assert table.screen.name == "entry.penalties"  # back to the entry, the menu locked again
    assert not table.session.unlocked
    kinds = [(e.kind, e.actor) for e in table.session.journal.events()]
    removed = kinds.index(("penalty-removed", "referee"))
    assert ("referee-unlocked", "referee") in kinds[:removed]


def test_the_session_refuses_to_strike_out_a_penalty_without_the_pin(table):
    penalty_id = an_overrun_then_the_entry(table)
    for phase in ("entry", "result"):
        if phase == "result":
            table.tap("e_finish")
        assert table.state.phase == phase
        with pytest.raises(SessionError, match="referee only"):
            table.session.remove_penalty(penalty_id)
    assert penalty_id in dict(table.state.draft.penalties)


def test_undoing_a_redeal_asks_the_referees_pin(table):
    table.tap("setup:xiamen-2015", "dealer:N", "redeal", "redeal:E", "ok")
    assert table.state.draft.number == 2
    assert "撤销革命" in [b.label for b in table.screen.nav]
    with pytest.raises(SessionError, match="referee only"):
        table.session.undo()  # straight to the session: refused too
    table.tap("undo")  # anyone may tap it: the PIN is asked
    assert table.screen.name == "referee.pin"
    assert table.screen.title == "裁判密码：撤销革命"
    assert table.state.draft.number == 2
    table.tap("pin:1", "pin:1", "pin:1", "pin:1", "pin_ok")  # a wrong PIN takes nothing back
    assert table.state.draft.number == 2
    table.pin(PIN)
    assert table.state.draft.number == 1 and table.state.draft.dealer == "N"
    assert table.screen.name == "ready"
    undo = [e for e in table.session.journal.events() if e.kind == "undo"]
    assert [e.actor for e in undo] == ["referee"]
    table.tap("undo")  # the dealer grab is the table's own step: no PIN
    assert table.state.draft.dealer is None and table.screen.name == "ready.dealer"
