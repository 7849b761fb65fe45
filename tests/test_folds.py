"""The scorer's folds: extended by new events only, resumed from a checkpoint after a
restart, and never from a checkpoint that does not belong to the store or to this code."""

from __future__ import annotations

import asyncio
import collections
import json
import shutil
import sqlite3

import pytest

from kiosk.scorer.director import Director
from kiosk.scorer.director import folds as folds_module
from kiosk.scorer.director.folds import Folds
from kiosk.scorer.director.results import WARM_FOR
from kiosk.scorer.hall import snapshot as hall
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import checkpoint

from .hall_events import RULESETS, Tables
from .hall_events import hall as make_hall
from .helpers import ScorerProcess, fetch


def facts(fold) -> list[dict]:
    """Every match of a table's fold, field by field (the rules core's values compare)."""
    return [{k: v for k, v in vars(state).items() if k != "rulesets"}
            for state in fold.matches.values()]


def picture(director: Director) -> dict:
    snap = hall.snapshot(director, "http://x/")
    return {k: v for k, v in snap.items() if k != "generated"}


def reopened(director: Director) -> Director:
    return Director(Store(director.store.path), RULESETS, clock=director.clock)


def fixed_clock() -> float:
    return 1_800_000_000.0


@pytest.mark.sim
def test_a_restart_resumes_from_the_checkpoint_and_folds_only_what_came_after(tmp_path):
    director = make_hall(tmp_path, clock=fixed_clock)
    director.start_round(0)
    tables = Tables(director)
    for table in (1, 2, 3, 4):
        tables.post(table, 150)  # mid-match: the checkpoint holds matches in play
    before = picture(director)
    assert director.folds.save(director.checkpoint_path) == 4
    assert director.folds.save(director.checkpoint_path) == 0  # nothing folded since
    saved_at = director.folds.rowid
    for table in (1, 2):
        tables.finish(table)
    again = reopened(director)
    assert again.folds.load(again.checkpoint_path, again.store.db.conn)
    assert again.folds.rowid == saved_at  # resumed there …
    again._resumed = True  # (the checkpoint is loaded: the first look folds on)
    again.fold(1)
    assert again.folds.rowid > saved_at  # … then folded what came after
    for table in (1, 2, 3, 4):  # every match as a fold from the first event makes it
        assert facts(again.fold(table)) == facts(director.fold(table))
    assert picture(again) == picture(director) != before


@pytest.mark.sim
def test_a_checkpoint_taken_a_table_at_a_time_while_events_land_resumes_whole(tmp_path):
    # The server takes its checkpoint a table at a time, folding new events in between, and
    # writes it in a thread; killed then, its restart resumes from it to every match as a
    # fold from the first event makes it.
    director = make_hall(tmp_path, clock=fixed_clock)
    director.start_round(0)
    tables = Tables(director)
    for table in (1, 2, 3, 4):
        tables.post(table, 100)
    director.fold(0)
    began_at = director.folds.rowid

    async def events_landing() -> None:
        for table, upto in ((1, 130), (4, 140), (2, 150), (4, 170), (3, 120), (1, 180)):
            await asyncio.sleep(0)
            tables.post(table, upto)
            director.fold(0)

    async def both() -> None:
        await asyncio.gather(checkpoint(director), events_landing())

    asyncio.run(both())
    assert director.folds.rowid > began_at  # (events were folded while it was taken)
    # … and the scorer killed: no checkpoint as it stops
    again = reopened(director)
    assert again.folds.load(again.checkpoint_path, again.store.db.conn)
    assert again.folds.rowid == began_at  # resumes where it began, reading later ones again
    again._resumed = True
    straight = Folds(RULESETS)
    straight.update(director.store.db.conn)
    for table in (1, 2, 3, 4):
        assert facts(again.fold(table)) == facts(straight.table(table)) == \
            facts(director.fold(table))
    assert picture(again) == picture(director)
    assert director.folds.save(director.checkpoint_path) == 4  # those moved on since


@pytest.mark.unit
def test_a_checkpoint_of_another_store_or_other_code_is_ignored(tmp_path, monkeypatch):
    director = make_hall(tmp_path / "a", clock=fixed_clock)
    director.start_round(0)
    tables = Tables(director)
    for table in (1, 2):
        tables.post(table, 100)
    backup = director.store.backup(tmp_path / "backup.sqlite")
    for table in (1, 2):
        tables.finish(table)
    director.fold(1)
    director.folds.save(director.checkpoint_path)
    # The store restored from the older backup, the newer checkpoint left beside it.
    restored = tmp_path / "b"
    restored.mkdir()
    shutil.copy(backup, restored / "scorer.sqlite")
    shutil.copy(director.checkpoint_path, restored / director.checkpoint_path.name)
    older = Director(Store(restored / "scorer.sqlite"), RULESETS, clock=fixed_clock)
    fresh = Folds(RULESETS)
    assert not fresh.load(restored / director.checkpoint_path.name, older.store.db.conn)
    assert older.match_state(1, 1).phase != "over"  # what the backup holds, not the cache
    # Another version of the fold's code: the cache is not used either.
    monkeypatch.setattr(folds_module, "code_version", lambda rulesets: "another")
    assert not Folds(RULESETS).load(director.checkpoint_path, director.store.db.conn)
    # A damaged file: folded again from the events.
    director.checkpoint_path.write_bytes(b"not a database at all" * 100)
    again = reopened(director)
    assert again.match_state(1, 1).phase == "over"


@pytest.mark.unit
def test_events_after_a_gap_wait_for_the_missing_one(tmp_path):
    director = make_hall(tmp_path)
    director.start_round(0)
    tables = Tables(director)
    tables.post(1, 10)
    db = director.store.db
    row = db.execute("SELECT * FROM events WHERE table_number = 1 AND seq = 10").fetchone()
    with db.atomic():
        db.execute("DELETE FROM events WHERE table_number = 1 AND seq = 10")
    tables.post(1, 30)  # seq 11 … 30 arrive before 10 is sent again
    assert director.fold(1).seq == 9
    with db.atomic():
        db.execute(f"INSERT INTO events VALUES ({', '.join('?' * len(row))})", row)
    assert director.fold(1).seq == 30
    straight = Folds(RULESETS)
    conn = sqlite3.connect(director.store.path)
    straight.update(conn)
    conn.close()
    assert facts(straight.table(1)) == facts(director.fold(1))


@pytest.mark.process
def test_the_real_scorer_checkpoints_when_it_stops_and_resumes_after_a_kill(tmp_path):
    director = make_hall(tmp_path / "scorer")
    director.start_round(0)
    tables = Tables(director)
    for table in (1, 2, 3, 4):
        tables.post(table, 120)
    data = tmp_path / "scorer"
    with ScorerProcess(data) as process:
        standings = get(process.url + "/api/standings")
    checkpoint = Folds(RULESETS)  # written as the scorer stopped (SIGTERM)
    assert checkpoint.load(director.checkpoint_path, director.store.db.conn)
    assert checkpoint.rowid == director.store.db.execute(
        "SELECT max(rowid) FROM events").fetchone()[0]
    tables.finish_round()
    with ScorerProcess(data) as process:
        process.kill()  # a power cut: no checkpoint written this time
    with ScorerProcess(data) as process:
        after = get(process.url + "/api/standings")
        tables_now = get(process.url + "/api/tables")
    assert after != standings and all(row["phase"] == "over" for row in tables_now)
    assert after == hall.standings(reopened(director))  # as a fold from the first event


def get(url: str):
    return json.loads(fetch(url))


@pytest.mark.unit
def test_the_writers_batches_are_folded_as_they_landed_and_the_store_fills_any_gap(tmp_path):
    # The scorer's writer hands each committed batch to the folds (Store.landed), so they
    # need not read it back; rows another connection wrote in between are read from the
    # store, in their order, and nothing is folded twice.
    director = make_hall(tmp_path)
    director.start_round(0)
    tables, store = Tables(director), director.store
    tables.post(1, 40, as_a_batch=True)
    tables.post(2, 40, as_a_batch=True)
    assert len(store.landed) == 2
    # (taken without the store: an empty one still gives both tables their 40 events)
    alone, empty = Folds(RULESETS), sqlite3.connect(":memory:")
    empty.execute("CREATE TABLE events (device, seq, match, kind, data, mono, wall, actor, "
                  "table_number)")
    alone.update(empty, collections.deque(store.landed))
    assert (alone.table(1).seq, alone.table(2).seq) == (40, 40)
    director.fold(0)
    assert not store.landed  # taken
    tables.post(1, 80, as_a_batch=True)
    tables.post(3, 60)  # another connection's rows …
    tables.post(2, 90, as_a_batch=True)  # … come between this batch and the one before
    tables.post(4, 50, as_a_batch=True)
    director.fold(0)
    assert not store.landed  # read from the store with the rows between, then let go
    straight = Folds(RULESETS)
    conn = sqlite3.connect(store.path)
    straight.update(conn)
    conn.close()
    assert (director.folds.rowid, director.folds.last_row) == (straight.rowid, straight.last_row)
    for table, events in ((1, 80), (2, 90), (3, 60), (4, 50)):
        fold = director.fold(table)
        assert fold.seq == events and sum(fold.revisions.values()) == events  # each once
        assert fold.last == straight.table(table).last
        assert facts(fold) == facts(straight.table(table)) != []


@pytest.mark.unit
def test_with_the_hall_process_folding_the_server_folds_only_while_its_folds_are_in_use(
        tmp_path):
    director = make_hall(tmp_path)
    director.start_round(0)
    tables = Tables(director)
    director.folded_elsewhere = True  # (as the server's app sets it)
    tables.post(1, 60)
    director.keep_folds_warm()  # nobody asked for them yet: nothing folded
    assert director.folds.rowid == 0
    director.fold(1)  # a page of the console
    asked_at = director.folds.rowid
    tables.post(1, 120)
    director.keep_folds_warm()  # in use: they follow the events as they come
    assert director.folds.rowid > asked_at
    director._fold_asked -= WARM_FOR  # long unused: they stay where they are
    tables.post(2, 60)
    kept_at = director.folds.rowid
    director.keep_folds_warm()
    assert director.folds.rowid == kept_at
