"""The demo's simulated tables follow the hall's round clock as a real kiosk does (through
`kiosk.sync.wiring.follow_hall`): while the head referee holds the hall paused the bots play
nothing, and when time is called the table's match ends by the ruleset's time-up rule. Run
against the real `kiosk scorer` on loopback, with the head referee's commands."""

from __future__ import annotations

import io
import threading

import pytest

from kiosk.rules import Rulesets
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join
from kiosk.table.journal import Journal, table_path

from .helpers import ScorerProcess, kiosk

pytestmark = pytest.mark.process

RULESETS = Rulesets.load([])


def admin(data, *args):
    done = kiosk("scorer", "admin", "--data", str(data), *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_simulated_tables_wait_for_the_hall_and_stop_when_time_is_called(tmp_path, monkeypatch):
    monkeypatch.setattr("kiosk.sync.outbox.ASK_EVERY", 0.2)  # the outbox asks often
    data = tmp_path / "scorer"
    admin(data, "event", "--name", "厦门杯", "--ruleset", "xiamen-2015", "--seed", "7")
    (tmp_path / "teams.csv").write_text("队名\n甲队\n乙队\n丙队\n丁队\n")
    admin(data, "teams", str(tmp_path / "teams.csv"))
    codes = {int(line.split()[1].rstrip(":")): line.split()[-1]
             for line in admin(data, "tables", "2", "--lang", "en").splitlines()}
    dirs = {t: tmp_path / f"kiosk-{t}" for t in codes}
    with ScorerProcess(data) as scorer:
        links = {t: join(dirs[t], t, scorer.url, codes[t], RULESETS) for t in codes}
        admin(data, "start-round", "--in", "0")
        admin(data, "clock", "pause")
        resume = threading.Timer(1.5, admin, (data, "clock", "resume"))
        resume.start()
        try:
            first = simulate_synced(dirs[1], 1, RULESETS, links[1], 1000, seed=1, speed=1e9,
                                    out=io.StringIO())
        finally:
            resume.join()
        assert first.state.phase == "over"
        first.close()
        admin(data, "clock", "stop", "--yes")
        second = simulate_synced(dirs[2], 2, RULESETS, links[2], 1000, seed=2, speed=1e9,
                                 out=io.StringIO())
        assert second.state.phase == "over" and second.state.time_up is not None
        assert len(second.state.played) <= 1  # level at time up: the hand is finished, no more
        second.close()

    journal = Journal.reader(table_path(dirs[1], 1))
    kinds = [(e.kind, e.actor, e.data.get("reason")) for e in journal.events()]
    journal.close()
    paused = kinds.index(("pause", "scorer", "hall"))
    resumed = kinds.index(("resume", "scorer", None), paused)
    assert not [k for k in kinds[paused:resumed] if k[0] == "press"]  # nothing played meanwhile
    assert not [k for k in kinds[paused:resumed] if k[:2] == ("resume", "referee")]  # the bots
    assert [k for k in kinds[resumed:] if k[0] == "press"]  # then the match was played
