"""The awkward cases a hall meets: a kiosk that played a practice match first, a pairing whose
answer was lost, a spare kiosk carrying another table's journal, the wrong journal imported,
impossible start times, and a hall snapshot that fails."""

from __future__ import annotations

import asyncio
import io

import pytest
from starlette.testclient import TestClient

from kiosk.errors import AdminError, LinkError, NotPaired
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.hall import snapshot as hall
from kiosk.scorer.hall.feed import HallFeed
from kiosk.scorer.store.database import Store
from kiosk.scorer.web.app import create_app
from kiosk.sim.hall import simulate_synced
from kiosk.sim.table import simulate
from kiosk.sync.join import join
from kiosk.sync.link import Credential, ScorerLink
from kiosk.table.journal import table_path

from .helpers import kiosk

RULESETS = Rulesets.load([])


@pytest.fixture
def scorer(tmp_path):
    director = Director(Store(tmp_path / "scorer" / "scorer.sqlite"), RULESETS)
    director.create_event("杯", "xiamen-2015", seed=1)
    director.import_teams("name\n甲\n乙\n丙\n丁\n".encode())
    codes = director.add_tables(2)
    yield director, codes, TestClient(create_app(director))
    director.store.close()


@pytest.mark.sim
def test_a_practice_match_is_not_scored_as_the_round(tmp_path, scorer):
    director, codes, client = scorer
    k = tmp_path / "k"
    simulate(k, 1, RULESETS, "xiamen-2015", 1000, 1, 1e9, io.StringIO()).close()  # "round 1"
    link = join(k, 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    assert director.match_state(1, 1) is None  # the practice reached the scorer, unscored
    session = simulate_synced(k, 1, RULESETS, link, 1000, 2, 1e9, io.StringIO())
    assert session.match == "1.2" and session.journal.matches() == ["1", "1.2"]
    session.close()
    state = director.match_state(1, 1)
    assert state.phase == "over" and state.setup["teams"] == director.assignment(1)["teams"]


@pytest.mark.unit
def test_pairing_again_after_the_download_failed(tmp_path, scorer, monkeypatch):
    _, codes, client = scorer
    failing = ScorerLink.download

    def lost(self):
        monkeypatch.setattr(ScorerLink, "download", failing)
        raise LinkError("the scorer does not answer: timed out")

    monkeypatch.setattr(ScorerLink, "download", lost)
    with pytest.raises(LinkError, match="timed out"):
        join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS, client)
    assert Credential.load(tmp_path / "k", 1) is None  # not saved half-paired
    join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS, client)  # same code
    assert Credential.load(tmp_path / "k", 1) is not None


@pytest.mark.unit
def test_a_spare_with_another_tables_journal_is_refused(tmp_path, scorer):
    director, codes, client = scorer
    link = join(tmp_path / "a", 1, "http://testserver", codes[1], RULESETS, client)
    director.start_round(0)
    simulate_synced(tmp_path / "a", 1, RULESETS, link, 2, 1, 1e9, io.StringIO()).close()
    spare = tmp_path / "spare"  # last weekend's journal for table 1, another device
    simulate(spare, 1, RULESETS, "xiamen-2015", 2, 9, 1e9, io.StringIO()).close()
    with pytest.raises(LinkError, match=r"move table-1\.sqlite aside"):
        join(spare, 1, "http://testserver", director.swap(1, confirm=True), RULESETS, client)
    assert Credential.load(spare, 1) is None


@pytest.mark.unit
def test_an_unpaired_kiosk_is_told_how_to_pair(tmp_path):
    with pytest.raises(NotPaired, match="kiosk pair --data"):
        join(tmp_path, 3, "http://127.0.0.1:9", None, RULESETS)


@pytest.mark.unit
def test_the_wrong_journal_is_not_imported(tmp_path, scorer):
    director, codes, client = scorer
    link = join(tmp_path / "k2", 2, "http://testserver", codes[2], RULESETS, client)
    director.start_round(0)
    simulate_synced(tmp_path / "k2", 2, RULESETS, link, 1, 1, 1e9, io.StringIO()).close()
    with pytest.raises(AdminError, match="journal of table"):
        director.import_journal(1, table_path(tmp_path / "k2", 2))
    assert director.store.events(1) == []


@pytest.mark.process
def test_impossible_start_times_and_match_lengths_are_refused(tmp_path, scorer):
    director, _, _ = scorer
    for start_in in (float("nan"), float("inf"), -1.0):
        with pytest.raises(AdminError, match="0 to 3600 seconds"):
            director.start_round(start_in)
    assert director.current_round() == 0
    refused = kiosk("scorer", "admin", "--data", str(tmp_path / "x"), "event", "--name", "x",
                    "--ruleset", "xiamen-2015", "--minutes", "nan")
    assert refused.returncode == 2 and "每场分钟数填 0（不限时）到 1440（一天）" in refused.stderr


@pytest.mark.unit
def test_a_failing_snapshot_keeps_the_feed_and_its_last_picture(scorer, monkeypatch):
    director, _, _ = scorer
    feed = HallFeed(director, "http://x/", min_interval=0)
    first = feed.current()

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(hall, "snapshot_and_keys", broken)
    director.mute(True)  # a change: the feed tries to rebuild

    async def follow():
        updating = asyncio.create_task(feed.run())
        stream = feed.stream(feed.admit("127.0.0.1"))
        out = [await anext(stream), await anext(stream)]
        await asyncio.sleep(0.5)  # the update task tries, and fails, a few times
        feed.close()
        out += [m async for m in stream]
        await updating
        return out

    messages = asyncio.run(follow())
    assert feed.current() is first and feed.streams[""] == 0
    assert messages[0].startswith(b"retry: ") and b"event: snapshot" in messages[1]
    assert len(messages) <= 3  # (a ping perhaps) then it ends


@pytest.mark.unit
def test_a_kiosk_already_paired_keeps_its_pairing_when_given_a_code_again(tmp_path, scorer):
    """A restarted kiosk's command line still carries the code it paired with: the saved
    pairing goes on (not 'no valid code'); once swapped out, a new code pairs afresh."""
    director, codes, client = scorer
    first = join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS, client)
    again = join(tmp_path / "k", 1, "http://testserver", codes[1], RULESETS, client)
    assert again.credential == first.credential
    assert "high_water" in again.assignment()  # its signed requests are taken
    new_code = director.swap(1, confirm=True)  # the old kiosk's pairing is revoked
    fresh = join(tmp_path / "k", 1, "http://testserver", new_code, RULESETS, client)
    assert fresh.credential != first.credential
    assert Credential.load(tmp_path / "k", 1) == fresh.credential
