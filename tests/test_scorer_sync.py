"""The scorer's pairing and authenticated ingest, in process (Starlette's TestClient)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from starlette.testclient import TestClient

from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store import Store
from kiosk.scorer.sync import signed_headers
from kiosk.scorer.web import create_app

NOW = 1_790_000_000.0


def event(seq: int, device: str = "kiosk-a") -> dict:
    return {"device": device, "seq": seq, "match": "1", "kind": "press",
            "data": {"seat": "N"}, "mono": 1000.0 + seq, "wall": NOW + seq, "actor": "seat:N"}


@pytest.fixture
def scorer(tmp_path):
    store = Store(tmp_path / "scorer.sqlite")
    client = TestClient(create_app(Director(store, Rulesets.load([]), clock=lambda: NOW)))
    code = store.issue_code(7)
    paired = client.post("/api/pair", json={"code": code, "device": "kiosk-a"}).json()
    return store, client, paired


def send(client, table, secret, events, nonce="n1", now=NOW, tamper=False):
    body = json.dumps({"events": events}).encode()
    path = f"/api/tables/{table}/events"
    headers = signed_headers(secret, table, "POST", path, body, now, nonce)
    if tamper:
        body = body.replace(b'"N"', b'"S"')
    return client.post(f"/api/tables/{table}/events", content=body, headers=headers)


def test_pairing_gives_a_credential_once(scorer):
    store, client, paired = scorer
    assert paired["table"] == 7 and len(paired["secret"]) == 64
    code = store.issue_code(7)
    assert client.post("/api/pair", json={"code": code, "device": "b"}).status_code == 200
    again = client.post("/api/pair", json={"code": code, "device": "c"})
    assert (again.status_code, again.json()["error"]) == (403, "unknown or used pairing code")
    assert client.post("/api/pair", content=b"{garbled").status_code == 400


def test_ingest_commits_ignores_duplicates_and_reports_gaps(scorer):
    store, client, paired = scorer
    secret = paired["secret"]
    reply = send(client, 7, secret, [event(1), event(2), event(4)], nonce="a")
    assert (reply.status_code, reply.json()["high_water"]) == (200, 2)  # 3 is missing
    reply = send(client, 7, secret, [event(2), event(3), event(4)], nonce="b")
    assert reply.json()["high_water"] == 4
    assert [e["seq"] for e in store.events(7)] == [1, 2, 3, 4]  # each once
    conn = sqlite3.connect(store.db.conn.execute("PRAGMA database_list").fetchone()[2])
    assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 4  # on disk


def test_events_with_one_device_id_at_two_tables_do_not_collide(scorer):
    store, client, paired = scorer  # e.g. kiosks cloned from one image with its journal
    other = client.post("/api/pair", json={"code": store.issue_code(8), "device": "kiosk-a"})
    send(client, 7, paired["secret"], [event(1)], nonce="a")
    assert send(client, 8, other.json()["secret"], [event(1)], nonce="b").json()[
        "high_water"] == 1
    assert len(store.events(7)) == len(store.events(8)) == 1 and store.orphans() == []


def test_an_imported_event_in_a_taken_place_is_kept_aside(scorer):
    store, client, paired = scorer
    send(client, 7, paired["secret"], [event(1)], nonce="a")
    assert store.ingest(7, [event(1, device="kiosk-z")], NOW) == (1, 1)  # (mark, orphans)
    assert [e["device"] for e in store.events(7)] == ["kiosk-a"]
    assert store.orphans()[0]["device"] == "kiosk-z"  # kept, not lost


@pytest.mark.parametrize(("batch", "problem"), [
    ({"events": [event(1)], "behind": 1e400}, "behind"),
    ({"events": [{**event(1), "seq": 2**70}]}, "seq"),
    ({"events": [{**event(1), "seq": 0}]}, "seq"),
    ({"events": [{**event(1), "wall": float("nan")}]}, "finite"),
    ({"events": [{**event(1), "data": "x"}]}, "data is an object"),
    ({"events": "x"}, "events"), ([], "events")])
def test_a_garbled_signed_batch_gets_400_and_changes_nothing(scorer, batch, problem):
    store, client, paired = scorer
    body = json.dumps(batch).encode()
    headers = signed_headers(paired["secret"], 7, "POST", "/api/tables/7/events", body, NOW,
                             "g")
    reply = client.post("/api/tables/7/events", content=body, headers=headers)
    assert reply.status_code == 400 and problem in reply.json()["error"]
    assert store.events(7) == []


def test_a_huge_body_is_refused_before_it_is_read(scorer):
    store, client, _ = scorer
    reply = client.post("/api/tables/7/events", content=b"x" * 5_000_000)
    assert reply.status_code == 413 and store.events(7) == []


def test_guessing_pairing_codes_is_slowed_to_30_a_minute(scorer):
    store, client, _ = scorer
    code = store.issue_code(9)
    wrong = [client.post("/api/pair", json={"code": f"{n:06d}", "device": "x"}).status_code
             for n in range(31) if f"{n:06d}" != code]
    assert wrong[:30] == [403] * 30 and wrong[30:] == [429]
    assert client.post("/api/pair", json={"code": code, "device": "y"}).status_code == 429


def test_a_kiosk_whose_answer_was_lost_pairs_again_with_the_same_code(scorer):
    store, client, _ = scorer
    code = store.issue_code(9)
    first = client.post("/api/pair", json={"code": code, "device": "kiosk-9"}).json()
    again = client.post("/api/pair", json={"code": code, "device": "kiosk-9"}).json()
    assert first["secret"] == again["secret"]
    other = client.post("/api/pair", json={"code": code, "device": "kiosk-x"})
    assert other.status_code == 403


@pytest.mark.parametrize("attack", ["unsigned", "wrong-secret", "other-table", "tampered",
                                    "replayed", "stale", "other-path"])
def test_unauthenticated_writes_get_401_and_change_nothing(tmp_path, scorer, attack):
    store, client, paired = scorer
    other = client.post("/api/pair", json={"code": store.issue_code(8), "device": "kiosk-b"})
    assert send(client, 7, paired["secret"], [event(1)], nonce="first").status_code == 200
    before = store.events(7) + store.events(8)
    secret, table, kw = paired["secret"], 7, {"nonce": "x"}
    if attack == "unsigned":
        reply = client.post("/api/tables/7/events", json={"events": [event(2)]})
    else:
        if attack == "wrong-secret":
            secret = "0" * 64
        elif attack == "other-table":  # table 8's kiosk tries to write table 7's events
            secret = other.json()["secret"]
        elif attack == "tampered":
            kw["tamper"] = True
        elif attack == "replayed":
            kw["nonce"] = "first"
        elif attack == "stale":
            kw["now"] = NOW - 3600
        if attack == "other-path":  # a signed read replayed as a write
            headers = signed_headers(secret, 7, "GET", "/api/tables/7/assignment", b"", NOW,
                                     "p")
            reply = client.post("/api/tables/7/events", headers=headers,
                                content=json.dumps({"events": [event(2)]}).encode())
        else:
            reply = send(client, table, secret, [event(2)], **kw)
    assert reply.status_code == 401
    assert store.events(7) + store.events(8) == before


def test_a_new_kiosk_revokes_the_old_ones_credential(scorer):
    store, client, paired = scorer
    new = client.post("/api/pair", json={"code": store.issue_code(7), "device": "kiosk-new"})
    assert send(client, 7, paired["secret"], [event(1)], nonce="old").status_code == 401
    reply = send(client, 7, new.json()["secret"], [event(1, "kiosk-new")], nonce="new")
    assert reply.status_code == 200


def test_a_malformed_batch_is_refused_and_changes_nothing(scorer):
    store, client, paired = scorer
    reply = send(client, 7, paired["secret"], [{"seq": 1}], nonce="m")
    assert reply.status_code == 400 and "each event needs" in reply.json()["error"]
    assert store.events(7) == []
