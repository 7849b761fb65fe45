"""The hall feed at the Python level: one build a change, the same bytes to every stream, a
patch of what changed (a stream that fell behind gets the whole snapshot), a team's phone
told only when its view changes, and the caps on streams."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace

import pytest

from bench import hall_stream
from kiosk.scorer.hall import snapshot as hall
from kiosk.scorer.hall.feed import HallFeed, _keys, _patch

from .hall_events import Tables
from .hall_events import hall as make_hall


def data(message: bytes) -> tuple[str, dict]:
    head, _, body = message.partition(b"\ndata: ")
    return head.split(b"event: ")[-1].decode(), json.loads(body)


def messages(chunk: bytes) -> list[tuple[str, dict]]:
    return [data(m) for m in chunk.split(b"\n\n") if b"data: " in m]


@pytest.fixture
def scorer(tmp_path):
    director = make_hall(tmp_path)
    director.start_round(0)
    tables = Tables(director)
    for table in (1, 2, 3, 4):
        tables.post(table, 30)
    return director, tables


def merge(snap: dict, patch: dict) -> dict:
    """What the page's feed.js does with a patch (bench/hall_stream.py's, which the benches
    follow the stream with; the browser test keeps the page in step)."""
    out = hall_stream.merge(snap, patch)
    assert out is not None, "the patch does not follow the snapshot"
    return out


def shown(snap: dict) -> dict:
    """A snapshot without what moves with the clock alone."""
    return {**{k: v for k, v in snap.items() if k not in ("generated", "serial")},
            "tables": [{k: v for k, v in row.items() if k != "time_left"}
                       for row in snap["tables"]]}


@pytest.mark.unit
def test_patches_carry_only_what_changed_and_rebuild_the_snapshot(scorer):
    director, tables = scorer
    feed = HallFeed(director, "http://x/")
    first = feed.build()
    feed._publish(first)
    snap = json.loads(first.json)
    assert snap["serial"] == 1 and len(snap["tables"]) == 4
    tables.post(2, 120)  # one table plays on
    second = feed.build()
    kind, patch = data(second.patch)
    assert kind == "patch" and [row["table"] for row in patch["tables"]] == [2]
    assert patch["set"] == {} and patch["standings"] == [] and "order" not in patch
    assert len(second.patch) < len(second.full) / 3
    feed._publish(second)
    snap = merge(snap, patch)
    assert shown(snap) == shown(json.loads(second.json))
    for table in (1, 2, 3, 4):  # the round ends: results and standings change
        tables.finish(table)
    third = feed.build()
    _, patch = data(third.patch)
    assert patch["standings"] and "order" in patch
    snap = merge(snap, patch)
    assert shown(snap) == shown(json.loads(third.json))
    feed._publish(third)
    assert feed.build() is third  # nothing changed: no new frame, no message
    director.publish(confirm=True)  # the next round's pairings go up on the hall
    fourth = feed.build()
    _, patch = data(fourth.patch)
    assert patch["set"]["pairings_round"] == 2 and len(patch["set"]["pairings"]) == 4
    assert shown(merge(snap, patch)) == shown(json.loads(fourth.json))


@pytest.mark.unit
def test_a_result_that_moves_the_ranks_sends_the_ranks_not_every_row(scorer):
    """One table's result moves the ranks of teams that did not play it: the patch carries
    the two teams' rows and the list of ranks, not every row again for its rank."""
    director, tables = scorer
    feed = HallFeed(director, "http://x/")
    first = feed.build()
    feed._publish(first)
    snap = json.loads(first.json)
    tables.finish(1)
    second = feed.build()
    after = json.loads(second.json)

    def without_rank(standings: list) -> dict:
        return {row["team"]: {**row, "rank": None} for row in standings}

    old, new = without_rank(snap["standings"]), without_rank(after["standings"])
    played = {team for team in new if new[team] != old[team]}
    ranks_before = {row["team"]: row["rank"] for row in snap["standings"]}
    moved = {row["team"] for row in after["standings"]
             if row["team"] not in played and row["rank"] != ranks_before[row["team"]]}
    assert len(played) == 2 and moved  # table 1's teams; others moved in rank only
    _, patch = data(second.patch)
    assert {row["team"] for row in patch["standings"]} == played
    assert patch["ranks"] == [row["rank"] for row in after["standings"]]
    assert shown(merge(snap, patch)) == shown(after)


@pytest.mark.unit
def test_two_teams_that_change_places_get_their_new_ranks_though_the_ranks_are_the_same():
    """A result lifts a team past another with no tie either side: the ranks, by place, are
    1, 2, 3 before and after, yet each row's rank is another. The patch says them again (a
    screen that kept the old ones showed two teams 1st and none 2nd)."""
    def snapshot(serial: int, rows: list[tuple[str, int]]) -> dict:
        return {"serial": serial, "boot": "b1", "generated": float(serial), "tables": [],
                "standings": [{"team": team, "points": points, "rank": rank}
                              for rank, (team, points) in enumerate(rows, 1)]}

    before = snapshot(1, [("A", 6), ("B", 3), ("C", 0)])
    after = snapshot(2, [("C", 9), ("A", 6), ("B", 3)])  # C won: A and B unchanged
    old = SimpleNamespace(keys=_keys(before, {}))
    patch = json.loads(_patch(2, after, _keys(after, {}), old).partition(b"data: ")[2])
    assert [row["team"] for row in patch["standings"]] == ["C"]
    assert patch["order"] == ["C", "A", "B"] and patch["ranks"] == [1, 2, 3]
    assert shown(merge(before, patch)) == shown(after)


@pytest.mark.unit
def test_every_stream_gets_the_same_bytes_and_a_late_one_the_whole_snapshot(scorer):
    director, tables = scorer
    feed = HallFeed(director, "http://x/", min_interval=0)

    async def follow():
        feed._publish(feed.build())
        streams = [feed.stream(feed.admit(f"10.0.0.{i}")) for i in range(3)]
        firsts = [await anext(s) + await anext(s) for s in streams]  # retry:, the snapshot
        tables.post(1, 60)
        feed._publish(feed.build())
        got = [await anext(s) for s in streams[:2]]  # the third does not read this one
        tables.post(1, 90)
        feed._publish(feed.build())
        got += [await anext(s) for s in streams]
        feed.close()
        feed._wake_all()
        for s in streams:
            await s.aclose()
        return firsts, got

    firsts, got = asyncio.run(follow())
    assert all(b"event: snapshot" in f for f in firsts)
    assert got[0] is got[1] and data(got[0])[0] == "patch"  # one encoding for every stream
    assert got[2] is got[3] and data(got[2])[0] == "patch"
    assert data(got[4])[0] == "snapshot"  # it missed a patch: the whole snapshot again
    assert feed.streams[""] == 0  # every stream gave its place back


@pytest.mark.unit
def test_a_ping_reaches_the_streams_before_a_build_holds_the_loop(scorer):
    # A busy hall's build holds the event loop for a while: a ping sent just before it must
    # not wait for it (with 1,000 phones, such pings made the fan-out's slowest hundredth).
    director, tables = scorer
    feed = HallFeed(director, "http://x/", min_interval=0)
    feed._publish(feed.build())
    tables.post(1, 60)  # a change: the feed's next look builds
    build, began = feed.build, []

    def slow_build():
        began.append(time.monotonic())
        time.sleep(0.3)
        return build()

    feed.build = slow_build

    async def follow():
        stream = feed.stream(feed.admit("10.0.0.1"))
        await anext(stream)  # retry:
        await anext(stream)  # the snapshot
        runner = asyncio.create_task(feed.run())  # its first look: a ping is due, and a build
        message = await anext(stream)
        arrived = time.monotonic()
        feed.close()
        await runner
        await stream.aclose()
        return message, arrived

    message, arrived = asyncio.run(follow())
    assert data(message)[0] == "ping"
    assert began and arrived < began[0]


@pytest.mark.unit
def test_a_team_stream_sends_the_team_view_only_when_it_changes(scorer):
    director, tables = scorer
    feed = HallFeed(director, "http://x/", min_interval=0)
    table, ns, ew = director.assignments(1)[0]
    views = hall.team_views(feed.current().snapshot, director)
    mine = views[ns]
    assert mine["table"]["table"] == table and mine["side"] == "NS"
    assert mine["team"]["id"] == ns and mine["standing"]["team"] == ns
    assert views[ew]["side"] == "EW" and views[ew]["table"] == mine["table"]

    async def follow():
        stream = feed.team_stream(feed.admit("10.0.0.9"), ns)
        first = await anext(stream) + await anext(stream)  # retry:, the view and a ping
        other = next(t for t, _, _ in director.assignments(1) if t != table)
        tables.post(other, 200)  # another table: nothing for this phone
        feed._publish(feed.build())
        feed.pings += 1  # the pinger's turn
        feed._wake_all()
        quiet = await anext(stream)
        tables.post(table, 200)  # the team's own table
        feed._publish(feed.build())
        news = await anext(stream)
        feed.close()
        await stream.aclose()
        return first, quiet, news

    first, quiet, news = asyncio.run(follow())
    assert [k for k, _ in messages(first)] == ["team", "ping"]
    assert [k for k, _ in messages(quiet)] == ["ping"]
    kind, view = data(news)
    assert kind == "team" and view["table"]["hand"] > messages(first)[0][1]["table"]["hand"]
    assert asyncio.run(feed.team_json("nobody")) is None


@pytest.mark.unit
def test_a_screen_that_has_the_snapshot_starts_with_what_changed_since(scorer):
    director, tables = scorer
    feed = HallFeed(director, "http://x/")
    feed._publish(feed.build())
    tables.post(3, 80)
    feed._publish(feed.build())
    serial = feed.frame.serial

    async def first_messages(since):
        stream = feed.stream(feed.admit("10.0.0.7"), since, feed.boot)
        assert (await anext(stream)).startswith(b"retry: ")
        if since == serial:  # nothing to send until the next change
            tables.post(3, 120)
            feed._publish(feed.build())
        out = await anext(stream)
        feed.close()
        await stream.aclose()
        return out

    assert data(asyncio.run(first_messages(serial - 1)))[0] == "patch"
    feed.closing = False
    assert data(asyncio.run(first_messages(None)))[0] == "snapshot"
    feed.closing = False
    assert data(asyncio.run(first_messages(serial - 5)))[0] == "snapshot"
    feed.closing = False
    kind, patch = data(asyncio.run(first_messages(serial)))
    assert kind == "patch" and (patch["serial"], patch["boot"]) == (serial + 1, feed.boot)


@pytest.mark.unit
def test_a_screen_that_has_a_frame_of_the_scorer_before_a_restart_gets_the_whole_snapshot(
        scorer):
    """A restarted scorer numbers its frames from 1 again. A hall page opened at frame 1
    reconnected asking for what changed since 1, got nothing, then took the new frames for
    ones it had: it showed the hall of before the restart for minutes (a head referee's
    trial)."""
    director, tables = scorer
    before = HallFeed(director, "http://x/")
    before._publish(before.build())
    tables.post(3, 80)
    after = HallFeed(director, "http://x/")  # the scorer started again
    after._publish(after.build())
    assert after.frame.serial == before.frame.serial and after.boot != before.boot

    async def first_message() -> bytes:
        stream = after.stream(after.admit("10.0.0.7"), before.frame.serial, before.boot)
        assert (await anext(stream)).startswith(b"retry: ")
        out = await anext(stream)
        after.close()
        await stream.aclose()
        return out

    kind, snap = data(asyncio.run(first_message()))
    assert kind == "snapshot" and snap["boot"] == after.boot
    assert snap["tables"] != json.loads(before.frame.json)["tables"]  # table 3's new hands


@pytest.mark.unit
def test_a_phone_sees_its_results_and_next_pairing_between_rounds(scorer):
    director, tables = scorer
    tables.finish_round()
    director.publish(confirm=True)
    feed = HallFeed(director, "http://x/")
    _, ns, _ = director.assignments(1)[0]
    view = json.loads(asyncio.run(feed.team_json(ns)))
    assert [h["round"] for h in view["history"]] == [1]
    assert view["history"][0]["won"] in (True, False) and view["history"][0]["opponent"]
    assert view["next"]["round"] == 2 and view["next"]["opponent"]
    assert view["standing"]["played"] == 1


@pytest.mark.unit
def test_streams_are_capped_in_all_and_by_address(scorer):
    director, _ = scorer
    feed = HallFeed(director, "http://x/", max_streams=3, max_per_address=2)
    a, b = feed.admit("10.0.0.1"), feed.admit("10.0.0.1")
    assert a and b and feed.admit("10.0.0.1") is None  # that address has two
    c = feed.admit("10.0.0.2")
    assert c and feed.admit("10.0.0.3") is None  # the hall is full
    a.release()
    a.release()  # once only
    assert feed.streams[""] == 2 and feed.admit("10.0.0.3") is not None


@pytest.mark.process
def test_the_stream_over_http_refuses_past_the_cap_and_frees_a_place_when_a_phone_goes(scorer):
    import time

    import httpx

    from kiosk.scorer.web.app import create_app

    from .browser import serve

    director, _ = scorer
    app = create_app(director)
    app.feed.max_per_address = 1
    with serve(app) as server:
        try:
            with httpx.Client(timeout=10) as client:
                with client.stream("GET", server.url + "/api/hall/stream") as first:
                    assert first.status_code == 200
                    assert first.headers["content-type"].startswith("text/event-stream")
                    assert first.headers["x-frame-options"] == "DENY"  # as every answer
                    lines = first.iter_lines()
                    assert next(line for line in lines if line.startswith("event:")) == \
                        "event: snapshot"
                    second = client.get(server.url + "/api/hall/stream")
                    assert second.status_code == 503 and second.headers["retry-after"] == "10"
                    assert second.json() == {"error": "hall.too_many_viewers"}
                deadline = time.monotonic() + 10  # the phone went: its place is given back
                while app.feed.streams[""] and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert app.feed.streams[""] == 0
                with client.stream("GET", server.url + "/api/hall/stream?team=t01") as again:
                    assert again.status_code == 200
                    assert next(line for line in again.iter_lines()
                                if line.startswith("event:")) == "event: team"
        finally:
            app.feed.close()
