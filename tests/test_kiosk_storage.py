"""The kiosk's own storage, as a hall meets it: a journal restored from an older copy and
played on (the scorer answers 409 naming the event, keeps the kiosk's events aside, and the
admin page and the table's top bar say so), a journal edited or damaged, a second program on
the same journal, a read-only card, and a full one."""

from __future__ import annotations

import contextlib
import html
import io
import os
import shutil
import sqlite3
import subprocess
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from kiosk.errors import JournalError
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sim.table import PLAYERS, TEAMS, simulate
from kiosk.sync.join import join
from kiosk.sync.outbox import Outbox
from kiosk.table.clock import SystemClock
from kiosk.table.journal import Journal, table_path
from kiosk.table.session import TableSession
from kiosk.table.view import snapshot
from kiosk.ui.presenter import present

from .helpers import cli as kiosk
from .helpers import kiosk as program

RULESETS = Rulesets.load([])


@pytest.fixture
def hall(tmp_path):
    director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), RULESETS)
    director.create_event("杯", "xiamen-2015", seed=1)
    director.import_teams("name\n甲\n乙\n".encode())
    codes = director.add_tables(1)
    yield director, codes, TestClient(create_app(director))
    director.store.close()


def admin_page(director, path):
    """What the head referee's console shows at `path`, logged in."""
    director.set_password("hall-referee-2026")
    with TestClient(create_app(director)) as console:
        assert console.post("/admin/login", data={"password": "hall-referee-2026"},
                            follow_redirects=False).status_code == 303
        return html.unescape(console.get(path).text)


def top_bar(data, state, lang="en"):
    session = TableSession.open(data, 1, RULESETS)
    try:
        view = replace(snapshot(session), link=state)
        return present(view, session.clock.now(), lang).status
    finally:
        session.close()


def copy_journal(source, target):
    """The whole SD card's journal, as an image copy takes it (the kiosk stopped)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in source.glob("table-1.sqlite*"):
        shutil.copy(path, target / path.name)


@pytest.mark.sim
def test_a_journal_restored_from_an_older_copy_and_played_on_ends_in_a_409(tmp_path, hall):
    director, codes, client = hall
    k = tmp_path / "k"
    link = join(k, 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    simulate_synced(k, 1, RULESETS, link, 2, 1, 1e9, io.StringIO()).close()
    copy_journal(k, tmp_path / "sd-copy")  # last night's copy of the card
    simulate_synced(k, 1, RULESETS, link, 5, 1, 1e9, io.StringIO()).close()
    at_scorer = director.store.events(1)
    for path in k.glob("table-1.sqlite*"):  # the card is restored from the copy ...
        path.unlink()
    copy_journal(tmp_path / "sd-copy", k)
    simulate(k, 1, RULESETS, "xiamen-2015", 9, 77, 1e9, io.StringIO()).close()  # ... played on
    outbox = Outbox(table_path(k, 1), link)
    assert not outbox.flush(timeout=2)
    state = outbox.state
    assert state.status == "refused" and state.conflict is not None
    assert state.error_key.startswith("sync.conflict.")
    assert director.store.events(1) == at_scorer  # nothing spliced into the scorer's record
    (conflict,) = director.store.conflicts()
    assert conflict["table"] == 1 and conflict["seq"] == state.conflict
    kept = director.store.orphans()
    assert kept and all(e["seq"] >= state.conflict for e in kept)  # kept aside, not lost
    assert {e["seq"] for e in kept} <= {e.seq for e in Journal.reader(table_path(k, 1))
                                         .events()}
    page = admin_page(director, "/admin/tables?lang=en")
    assert f"Table 1: {len(kept)} records from a kiosk part from the scorer's" in page
    assert f"from record {state.conflict}) and are kept aside, not scored" in page
    # what to do, as it depends: a replaced kiosk's need nothing (a head referee's review:
    # it said to pair the table's kiosk again, whatever the records were)
    page = admin_page(director, "/admin/tables")
    assert "若是换下的旧平板或它的日志文件（新平板已接着打），不必处理；" \
        "若是本桌现在用的平板，请在“牌桌”页为该桌发新码、重新配对。" in page
    bar = top_bar(k, state)
    assert f"event {state.conflict}" in bar and "call the head referee" in bar
    assert f"第 {state.conflict} 个事件" in top_bar(k, state, "zh-Hans")


@pytest.mark.unit
def test_a_rolled_back_journal_is_said_at_the_scorer_and_on_the_table(tmp_path, hall):
    director, codes, client = hall
    k = tmp_path / "k"
    link = join(k, 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    simulate_synced(k, 1, RULESETS, link, 2, 1, 1e9, io.StringIO()).close()
    sent = len(director.store.events(1))
    with contextlib.closing(sqlite3.connect(table_path(k, 1))) as db:  # a torn write
        db.execute("DELETE FROM events WHERE seq = ?", [sent])
        db.commit()
    outbox = Outbox(table_path(k, 1), link)
    assert not outbox.flush(timeout=2)
    assert outbox.state.error_key == "sync.conflict.rolled-back"
    assert outbox.state.conflict == sent
    assert director.store.conflicts()[0]["why"] == "rolled-back"


@pytest.mark.unit
def test_a_kiosk_checks_its_own_chain_at_start(tmp_path, hall):
    director, codes, client = hall
    k = tmp_path / "k"
    link = join(k, 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    simulate_synced(k, 1, RULESETS, link, 1, 1, 1e9, io.StringIO()).close()
    with contextlib.closing(sqlite3.connect(table_path(k, 1))) as db:  # an edited result
        db.execute("UPDATE events SET data = '{\"points\": 80}' WHERE seq = 5")
        db.commit()
    outbox = Outbox(table_path(k, 1), link)
    outbox.flush(timeout=1)
    assert (outbox.state.storage, outbox.state.broken_at) == ("broken", 5)
    assert "Journal damaged at event 5" in top_bar(k, outbox.state)


@pytest.mark.unit
def test_one_program_at_a_time_writes_a_journal(tmp_path):
    first = Journal(tmp_path / "table-1.sqlite")
    with pytest.raises(JournalError) as refused:
        Journal(tmp_path / "table-1.sqlite")
    assert refused.value.key == "journal.in-use"
    reader = Journal.reader(tmp_path / "table-1.sqlite")  # reading is fine
    assert reader.newest() == 0
    reader.close()
    first.close()
    Journal(tmp_path / "table-1.sqlite").close()  # free again once the first has closed


@pytest.mark.unit
def test_a_damaged_journal_is_a_clear_error_not_a_traceback(tmp_path):
    simulate(tmp_path, 1, RULESETS, "xiamen-2015", 3, 1, 1e9, io.StringIO()).close()
    path = table_path(tmp_path, 1)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    with open(path, "r+b") as f:  # zero the last page (the events table's data)
        f.seek((pages - 1) * size)
        f.write(b"\0" * size)
    with pytest.raises(JournalError) as damaged:
        list(Journal.reader(path).events())
    assert damaged.value.key == "journal.damaged"
    shown = kiosk("journal", "show", "--data", str(tmp_path), "--table", "1")
    assert shown.returncode == 2 and "Traceback" not in shown.stderr
    assert "日志 table-1.sqlite 已损坏" in shown.stderr  # said in Chinese, by its catalog key


@contextlib.contextmanager
def small_card(path, megabytes):
    """A real file system of `megabytes` (tmpfs) mounted at `path`, unmounted after."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("mounting a small card needs root")
        pytest.skip("mounting a small card needs root")
    path.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(path)],
                   check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


@pytest.mark.process
def test_a_read_only_card_is_read_and_said(tmp_path, hall):
    director, _, _ = hall
    with small_card(tmp_path / "card", 16) as card:
        simulate(card, 1, RULESETS, "xiamen-2015", 2, 1, 1e9, io.StringIO()).close()
        reader = Journal.reader(table_path(card, 1))
        events = [e.to_json() for e in reader.events()]
        reader.close()
        subprocess.run(["mount", "-o", "remount,ro", str(card)], check=True)
        with pytest.raises(JournalError) as refused:
            Journal(table_path(card, 1))
        assert refused.value.key == "journal.read-only"
        shown = program("journal", "show", "--data", str(card), "--table", "1")
        assert shown.returncode == 0, shown.stderr  # the head referee can still read it
        new, aside = director.import_journal(1, table_path(card, 1))
        assert (new, aside) == (len(events), 0)
        assert director.store.events(1) == events


@pytest.mark.process
def test_a_full_card_still_starts_records_its_pause_and_sends(tmp_path, hall):
    director, codes, client = hall
    with small_card(tmp_path / "card", 12) as card:
        link = join(card, 1, "http://testserver", codes[1], RULESETS, client)
        director.start_round(0)
        session = TableSession.open(card, 1, RULESETS, SystemClock())
        session.setup_match(event="x", round="9", teams=TEAMS, players=PLAYERS,
                            ruleset="xiamen-2015", match_minutes=90)
        session.start_match_clock()  # a clock runs when the kiosk stops
        session.close()
        with open(card / "filler", "wb", buffering=0) as f:  # something else fills the card
            for chunk in (65536, 4096, 512, 1):
                with contextlib.suppress(OSError):
                    while True:
                        f.write(b"\0" * chunk)
        assert shutil.disk_usage(card).free < 4096
        session = TableSession.open(card, 1, RULESETS, SystemClock())  # records the pause
        assert session.state.paused
        assert session.journal.storage() == "full"
        session.close()
        outbox = Outbox(table_path(card, 1), link)
        assert outbox.flush(timeout=5)  # and sends what it has
        assert outbox.state.storage == "full"
        assert len(director.store.events(1)) == Journal.reader(table_path(card, 1)).newest()
        # (the bar is read from a kiosk started again: a paired match's running clock is
        # paused again from its new boot, one more event, after what was sent)
        assert "Storage card full" in top_bar(card, outbox.state)


@pytest.mark.unit
def test_low_space_is_said(tmp_path, hall, monkeypatch):
    _, codes, client = hall
    k = tmp_path / "k"
    link = join(k, 1, "http://testserver", codes[1], RULESETS, client)
    simulate(k, 1, RULESETS, "xiamen-2015", 1, 1, 1e9, io.StringIO()).close()
    monkeypatch.setattr(Journal, "free_bytes", lambda self: 10_000_000)  # 10 MB left
    outbox = Outbox(table_path(k, 1), link)
    outbox.flush(timeout=2)
    assert outbox.state.storage == "low"
    assert "Storage card almost full" in top_bar(k, outbox.state)
