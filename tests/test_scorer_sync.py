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


def test_another_kiosks_event_in_a_taken_place_is_kept_aside(scorer):
    store, client, paired = scorer
    send(client, 7, paired["secret"], [event(1)], nonce="a")
    reply = send(client, 7, paired["secret"], [event(1, device="kiosk-z")], nonce="b")
    assert reply.json()["orphans"] == 1
    assert [e["device"] for e in store.events(7)] == ["kiosk-a"]
    assert store.orphans()[0]["device"] == "kiosk-z"  # kept, not lost


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
    assert send(client, 7, new.json()["secret"], [event(1)], nonce="new").status_code == 200


def test_a_malformed_batch_is_refused_and_changes_nothing(scorer):
    store, client, paired = scorer
    reply = send(client, 7, paired["secret"], [{"seq": 1}], nonce="m")
    assert reply.status_code == 400 and "each event needs" in reply.json()["error"]
    assert store.events(7) == []
