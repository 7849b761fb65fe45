"""What the director remembers between requests: the head referee's data (teams, rounds,
rulings …) until it changes, from this server or from another connection (an admin command
run while the server is up), and not read again after every kiosk batch."""

from __future__ import annotations

import io
import sqlite3

import pytest
from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.hall import snapshot as hall
from kiosk.scorer.store.database import DIRECTOR_TABLES, Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sync.join import join

RULESETS = Rulesets.load([])
# Tables the director's memory does not read: a kiosk's events and what guards the link.
NOT_DIRECTOR = {"events", "aside", "conflicts", "codes", "tables", "sessions", "audit",
                "revision", "_sqlite_migrations"}


@pytest.mark.unit
def test_every_table_is_either_the_directors_with_triggers_or_named_as_not(tmp_path):
    Store(tmp_path / "scorer.sqlite")
    db = sqlite3.connect(tmp_path / "scorer.sqlite")
    tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    triggers = {(t, sql.split(" AFTER ")[1].split()[0]) for t, sql in db.execute(
        "SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger'")}
    assert tables - NOT_DIRECTOR == set(DIRECTOR_TABLES)
    # (and the tables' credentials, which the kiosks' requests remember: store/keys.py)
    assert triggers == {(t, change) for t in (*DIRECTOR_TABLES, "tables")
                        for change in ("INSERT", "UPDATE", "DELETE")}


@pytest.mark.sim
def test_a_kiosk_batch_keeps_what_the_director_remembers_a_change_anywhere_does_not(tmp_path):
    path = tmp_path / "scorer" / "scorer.sqlite"
    director = Director(Store(path), RULESETS)
    director.create_event("杯", "xiamen-2015", seed=5)
    director.import_teams("name\n甲\n乙\n".encode())
    codes = director.add_tables(1)
    director.make_draft()
    director.publish()
    director.start_clock(0, confirm=True)
    client = TestClient(create_app(director))
    link = join(tmp_path / "k1", 1, "http://testserver", codes[1], RULESETS, client)
    revision, version = director.revision(), director.version()
    simulate_synced(tmp_path / "k1", 1, RULESETS, link, 1000, 1, 1e9, io.StringIO()).close()
    assert director.version() != version  # the table's events are in ...
    assert director.revision() == revision  # ... and the teams, rounds, rulings as they were
    snap = hall.snapshot(director, "http://x/")
    assert snap["tables"][0]["phase"] == "over"
    assert {row["name"] for row in snap["standings"]} == {"甲", "乙"}

    # The head referee adds a late entry from the command line while the server runs.
    other = Director(Store(path), RULESETS)
    other.add_team("丙")
    assert director.revision() != revision
    assert {row["name"] for row in hall.snapshot(director, "http://x/")["standings"]} == \
        {"甲", "乙", "丙"}
    assert [t.name for t in director.teams()] == ["甲", "乙", "丙"]
