"""The scorer's one writer (kiosk/scorer/store/writer.py) on a real SQLite file: work handed over
while a commit is under way goes into one transaction, a job that fails is undone alone, a
commit that fails fails every job in it and keeps nothing, an answer comes only once its
work is durable (another connection sees it), and the WAL is copied into the database by a
thread of its own, never by a commit."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest

from kiosk.scorer.store.writer import Writer

pytestmark = pytest.mark.unit


@pytest.fixture
def path(tmp_path):
    return tmp_path / "store.sqlite"


@pytest.fixture
def writer(path):
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE teams (name TEXT PRIMARY KEY);
        CREATE TABLE results (team TEXT REFERENCES teams (name) DEFERRABLE INITIALLY DEFERRED,
                              points INTEGER);""")
    conn.close()
    w = Writer(path)
    w.db.execute("PRAGMA foreign_keys=ON")  # so that a COMMIT itself can fail (a deferred key)
    yield w
    w.close()


def rows(path, sql: str) -> list[tuple]:
    """What a second connection sees: only what was committed."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def insert(team: str, points: int = 0):
    def job(db):
        db.execute("INSERT INTO teams VALUES (?)", [team])
        db.execute("INSERT INTO results VALUES (?, ?)", [team, points])
        return team
    return job


async def while_the_writer_is_held(writer: Writer, jobs) -> list:
    """Run `jobs` handed over while the writer is busy with a first job, so they queue up and
    go into one transaction together; returns their results or exceptions."""
    gate, holding = threading.Event(), threading.Event()

    def hold(db):
        holding.set()
        gate.wait(10)
        return "held"

    first = asyncio.ensure_future(writer.run(hold))
    await asyncio.get_running_loop().run_in_executor(None, holding.wait, 10)
    rest = [asyncio.ensure_future(writer.run(job)) for job in jobs]
    await asyncio.sleep(0.05)  # every job is in the writer's queue
    gate.set()
    assert await first == "held"
    return await asyncio.gather(*rest, return_exceptions=True)


def test_work_handed_over_meanwhile_is_committed_in_one_transaction(writer, path):
    results = asyncio.run(while_the_writer_is_held(writer, [insert(f"队{i}") for i in range(20)]))
    assert results == [f"队{i}" for i in range(20)]
    assert writer.commits == 2 and writer.jobs == 21  # the held job's commit, then the twenty
    assert len(rows(path, "SELECT * FROM results")) == 20


def test_a_job_that_fails_is_undone_alone(writer, path):
    def fails_half_way(db):
        db.execute("INSERT INTO teams VALUES ('半途')")
        raise ValueError("a batch that breaks the chain")

    results = asyncio.run(while_the_writer_is_held(
        writer, [insert("甲"), fails_half_way, insert("乙")]))
    assert results[0] == "甲" and results[2] == "乙"
    assert isinstance(results[1], ValueError)
    assert rows(path, "SELECT name FROM teams ORDER BY name") == [("乙",), ("甲",)]
    assert writer.commits == 2  # the others still committed together


def test_a_commit_that_fails_fails_every_job_in_it_and_keeps_nothing(writer, path):
    def orphan(db):  # a result for a team that does not exist: refused only at COMMIT
        db.execute("INSERT INTO results VALUES ('无此队', 5)")

    results = asyncio.run(while_the_writer_is_held(writer, [insert("甲"), orphan]))
    assert all(isinstance(r, sqlite3.IntegrityError) for r in results), results
    assert rows(path, "SELECT * FROM teams") == []
    # and the writer goes on working
    assert asyncio.run(writer.run(insert("乙"))) == "乙"
    assert rows(path, "SELECT name FROM teams") == [("乙",)]


def test_the_answer_comes_after_the_commit_and_after_its_follow_up(writer, path):
    seen = []

    def after(team):  # runs on the writer's thread once the commit is durable
        seen.append(rows(path, "SELECT name FROM teams"))

    async def main():
        team = await writer.run(insert("甲"), after)
        return team, list(seen), rows(path, "SELECT name FROM teams")

    team, seen_by_after, seen_by_caller = asyncio.run(main())
    assert team == "甲"
    assert seen_by_after == [[("甲",)]] and seen_by_caller == [("甲",)]


def test_close_finishes_the_work_already_handed_over(path):
    sqlite3.connect(path).execute("CREATE TABLE teams (name TEXT)").connection.close()
    writer = Writer(path)

    async def hand_over_then_close():
        loop = asyncio.get_running_loop()
        pending = [asyncio.ensure_future(writer.run(
            lambda db, i=i: db.execute("INSERT INTO teams VALUES (?)", [str(i)]) and i))
            for i in range(50)]
        await asyncio.sleep(0)  # every job handed over
        await loop.run_in_executor(None, writer.close)
        return await asyncio.gather(*pending)

    assert asyncio.run(hand_over_then_close()) == list(range(50))
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM teams").fetchone() == (50,)
    conn.close()


def in_the_database_file(path, sql: str) -> list[tuple]:
    """What the database file itself holds, its WAL left unread (SQLite's immutable mode): only
    what a checkpoint has copied into it."""
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_the_wal_is_copied_by_a_thread_of_its_own_never_by_a_commit(path):
    """The copy syncs the WAL and the database: done by the commit that passed SQLite's 1,000
    pages, it held that commit's whole group of batches behind two more fsyncs (0.3–0.6 s a
    commit on a disk of 100 ms an fsync; bench/bench_writer.py)."""
    sqlite3.connect(path).execute("CREATE TABLE teams (name TEXT)").connection.close()
    writer = Writer(path)
    try:
        assert writer.db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
        asyncio.run(writer.run(lambda db: db.execute("INSERT INTO teams VALUES ('甲')") and 1))
        deadline = time.monotonic() + 30  # (the copy comes within a second; a busy machine)
        while not in_the_database_file(path, "SELECT name FROM teams") and \
                time.monotonic() < deadline:
            time.sleep(0.02)
        assert in_the_database_file(path, "SELECT name FROM teams") == [("甲",)]
    finally:
        writer.close()
