"""The scorer's pairing (a PAKE keyed by the code) and its authenticated ingest, in process
(Starlette's TestClient): what it accepts, what it refuses with which 4xx, and that nothing it
refuses changes anything."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import sqlite3
import time

import pytest
from starlette.testclient import TestClient

from kiosk.cli.table_cmd import waiting_words
from kiosk.errors import LinkError
from kiosk.i18n import explain
from kiosk.protocol.wire import canonical, event_hash, sign, signed_headers
from kiosk.rules import Rulesets
from kiosk.scorer.director import Director
from kiosk.scorer.store.database import Store, migrations, open_store
from kiosk.scorer.store.keys import REREAD
from kiosk.scorer.web import kiosks
from kiosk.scorer.web.app import create_app
from kiosk.scorer.web.kiosks import PAIRINGS_PER_SOURCE
from kiosk.sync.join import join_when_let
from kiosk.sync.link import Credential, ScorerLink

pytestmark = pytest.mark.unit

NOW = 1_790_000_000.0


def chain(*specs, device="kiosk-a", prev=""):
    """Consecutive events from seq specs[0]: each links to the one before (`prev` before the
    first). A spec is a seq, or (seq, data) to make that event differ."""
    events = []
    for spec in specs:
        seq, data = spec if isinstance(spec, tuple) else (spec, {"seat": "N"})
        e = {"device": device, "seq": seq, "match": "1", "kind": "press", "data": data,
             "mono": 1000.0 + seq, "wall": NOW + seq, "actor": "seat:N", "prev": prev}
        prev = event_hash(e)
        events.append(e)
    return events


class Hall:
    def __init__(self, path, now=NOW):
        self.store = Store(path / "scorer.sqlite")
        self.clock = [now]
        self.director = Director(self.store, Rulesets.load([]), clock=lambda: self.clock[0])
        self.client = TestClient(create_app(self.director))
        self.sent: list[bytes] = []  # every request body, as a relay would see them
        self.client.event_hooks["request"].append(lambda r: self.sent.append(r.read()))

    def pair(self, table, device="kiosk-a", code=None):
        link = ScorerLink("http://testserver", self.client)
        link.pair(code or self.store.issue_code(table, self.clock[0]), table, device, {})
        return link.credential.secret

    def send(self, table, secret, body, nonce="aa" * 8, at=None, **headers):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        path = f"/api/tables/{table}/events"
        signed = signed_headers(secret, table, "POST", path, raw,
                                self.clock[0] if at is None else at, nonce)
        return self.client.post(path, content=raw, headers={**signed, **headers})


@pytest.fixture
def hall(tmp_path):
    h = Hall(tmp_path)
    yield h
    h.store.close()


def test_pairing_gives_a_secret_and_the_code_never_crosses_the_wire(hall):
    code = hall.store.issue_code(7, NOW)
    link = ScorerLink("http://testserver", hall.client)
    credential = link.pair(code, 7, "kiosk-a", {})
    assert credential.table == 7 and len(credential.secret) == 64
    assert hall.store.credential(7) == (credential.secret, "kiosk-a", False)  # not used yet
    wire = b"".join(hall.sent)
    assert code.encode() not in wire and credential.secret.encode() not in wire
    assert hall.store.open_codes(NOW) == {}  # used


def test_a_typo_costs_no_code_and_three_wrong_guesses_burn_it(hall):
    code = hall.store.issue_code(8, NOW)  # a referee's typo, then the right code: it pairs
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    with pytest.raises(LinkError) as refused:
        ScorerLink("http://testserver", hall.client).pair(wrong, 8, "kiosk-y", {})
    assert (refused.value.key, refused.value.params) == ("sync.wrong-code-left",
                                                         {"table": 8, "left": 2})
    assert "还可再试 2 次" in explain(refused.value, "zh-Hans")
    assert ScorerLink("http://testserver", hall.client).pair(code, 8, "kiosk-y", {})
    hall.clock[0] += 61  # (a minute on: this address's pairing attempts count afresh)
    code = hall.store.issue_code(7, NOW)
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    for left in (2, 1, 0):  # the third wrong guess voids the code
        with pytest.raises(LinkError) as refused:
            ScorerLink("http://testserver", hall.client).pair(wrong, 7, "kiosk-x", {})
        assert refused.value.status == 403
        assert refused.value.key == ("sync.wrong-code-left" if left else "sync.wrong-code")
    with pytest.raises(LinkError) as burnt:  # even the right code is void now
        ScorerLink("http://testserver", hall.client).pair(code, 7, "kiosk-a", {})
    assert burnt.value.key == "sync.no-code"
    assert hall.store.credential(7) is None and hall.store.code_states(NOW)[7] == "burnt"
    assert hall.pair(7)  # a new code from the head referee pairs


def test_codes_expire(hall):
    code = hall.store.issue_code(7, NOW - 13 * 3600)
    with pytest.raises(LinkError, match="no valid pairing code"):
        ScorerLink("http://testserver", hall.client).pair(code, 7, "kiosk-a", {})
    assert hall.store.code_states(NOW)[7] == "expired"


def test_a_kiosk_whose_answer_was_lost_pairs_again_until_it_uses_its_credential(hall):
    code = hall.store.issue_code(9, NOW)
    first = hall.pair(9, "kiosk-9", code)
    again = hall.pair(9, "kiosk-9", code)  # the same code, the same kiosk: a new secret
    assert again != first and hall.store.credential(9)[:2] == (again, "kiosk-9")
    with pytest.raises(LinkError):  # another device may not
        hall.pair(9, "kiosk-x", code)
    assert hall.send(9, again, {"events": chain(1, device="kiosk-9")}).status_code == 200
    with pytest.raises(LinkError):  # once the credential is used, the code is dead
        hall.pair(9, "kiosk-9", code)


def test_a_ruleset_list_at_pairing_is_refused(hall):
    hall.store.issue_code(7, NOW)
    reply = hall.client.post("/api/pair/start", json={
        "table": 7, "device": "kiosk-a", "message": "00" * 33, "rulesets": ["xiamen-2015"]})
    assert reply.status_code == 400 and hall.store.credential(7) is None


def test_kiosks_pairing_at_once_from_one_address_wait_their_turn_then_pair(hall, tmp_path,
                                                                            capsys):
    # (simulators on one machine: five of them are mid-pairing)
    code = hall.store.issue_code(6, NOW)
    for _ in range(PAIRINGS_PER_SOURCE):
        hall.client.post("/api/pair/start", json={"table": 6, "device": "x", "message": "00"})
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        hall.clock[0] += seconds

    link = join_when_let(tmp_path / "kiosk-6", 6, "http://testserver", code, Rulesets.load([]),
                         waiting_words(6, "zh-Hans"), sleep, hall.client)
    assert hall.store.credential(6)[0] == link.credential.secret
    assert len(slept) == 1 and 60 <= slept[0] <= 62 * 1.2  # the Retry-After, and a little
    said = capsys.readouterr().err.strip()
    assert said.startswith("第 6 桌暂未配对（这个地址配对尝试太多：请等 ") and \
        said.endswith(f"）：{math.ceil(slept[0])} 秒后自动再试"), said


def test_a_burst_of_pairings_is_asked_to_come_back_long_before_the_kiosks_timeout(hall,
                                                                                 tmp_path):
    """480 kiosks pairing in the same second: 196 timed out after 10 s and were told the
    scorer did not answer. Past a few pairings at once the others are answered 503 at once,
    and no try of their codes is counted."""
    door = hall.client.app.state.kiosks
    code = hall.store.issue_code(6, NOW)
    door.pairing_now = kiosks.PAIRINGS_AT_ONCE  # (others' pairings being computed)
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        door.pairing_now = 0  # theirs are done meanwhile

    link = join_when_let(tmp_path / "kiosk-6", 6, "http://testserver", code, Rulesets.load([]),
                         lambda error, s: slept.append(error.key), sleep, hall.client)
    assert link.credential.table == 6
    assert slept[0] == "sync.pairing-busy" and 2 <= slept[1] <= 2.4  # Retry-After, jittered
    assert door.pairing_now == 0  # every step counted out again
    # the busy answer used none of the address's tries (the pairing's own one is forgiven)
    assert not any(e.attempts for e in door.pairing_tries.sources.values())


def test_the_halls_ceiling_is_said_as_the_hall_busy_not_as_this_address(hall):
    door = hall.client.app.state.kiosks
    code = hall.store.issue_code(6, NOW)
    while not door.hall_pairings.attempt("", NOW):  # a hall's first boots, all at once
        pass
    with pytest.raises(LinkError) as busy:
        ScorerLink("http://testserver", hall.client).pair(code, 6, "kiosk-6", {})
    assert (busy.value.status, busy.value.key) == (429, "sync.hall-pairings-busy")
    assert explain(busy.value, "zh-Hans").startswith("大厅里同时配对的平板太多：请等 ")


def test_a_pairing_the_scorer_did_not_answer_in_time_is_tried_again(tmp_path, monkeypatch):
    from kiosk.sync import join as joining

    answers = [LinkError("slow", None, "sync.slow", {"url": "u", "s": "5"})] * 2 + ["paired"]

    def join(*_args):
        answer = answers.pop(0)
        if isinstance(answer, LinkError):
            raise answer
        return answer

    monkeypatch.setattr(joining, "join", join)
    said, slept = [], []
    assert join_when_let(tmp_path, 6, "u", "123456", Rulesets.load([]),
                         lambda error, s: said.append(error.key), slept.append) == "paired"
    assert said == ["sync.slow"] * 2 and all(3 <= s <= 3.6 for s in slept)


def test_a_pairing_refused_for_good_is_not_tried_again(hall, tmp_path):
    said = []
    with pytest.raises(LinkError) as refused:  # table 8 has no code
        join_when_let(tmp_path / "kiosk-8", 8, "http://testserver", "123456",
                      Rulesets.load([]), lambda e, s: said.append(s), lambda s: None,
                      hall.client)
    assert (refused.value.status, refused.value.key, said) == (403, "sync.no-code", [])


def test_ingest_commits_ignores_duplicates_and_reports_gaps(hall):
    secret = hall.pair(7)
    events = chain(1, 2, 3, 4)
    reply = hall.send(7, secret, {"events": events[:2]}, nonce="a1" * 8)
    assert (reply.status_code, reply.json()["high_water"]) == (200, 2)
    reply = hall.send(7, secret, {"events": events[3:]}, nonce="a2" * 8)
    assert reply.json()["high_water"] == 2  # 3 is missing
    reply = hall.send(7, secret, {"events": events[1:]}, nonce="a3" * 8)
    assert reply.json()["high_water"] == 4
    assert [e["seq"] for e in hall.store.events(7)] == [1, 2, 3, 4]  # each once
    path = hall.store.db.conn.execute("PRAGMA database_list").fetchone()[2]
    assert sqlite3.connect(path).execute("SELECT count(*) FROM events").fetchone()[0] == 4


def test_events_with_one_device_id_at_two_tables_do_not_collide(hall):
    secret7, secret8 = hall.pair(7), hall.pair(8)  # kiosks cloned from one image
    hall.send(7, secret7, {"events": chain(1)}, nonce="b1" * 8)
    assert hall.send(8, secret8, {"events": chain(1)}, nonce="b2" * 8).json()[
        "high_water"] == 1
    assert len(hall.store.events(7)) == len(hall.store.events(8)) == 1
    assert hall.store.orphans() == []


def test_a_store_from_before_keeps_its_events_in_order_under_its_one_key(tmp_path):
    path = tmp_path / "scorer.sqlite"
    older = open_store(path)  # a store as the release before left it: keyed twice
    migrations.apply(older, stop_before="events_keyed_once")
    with older.conn:
        for table, device in ((8, "kiosk-b"), (7, "kiosk-a")):
            older.conn.executemany(
                "INSERT INTO events (device, seq, table_number, match, kind, data, mono, wall, "
                "actor, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(device, e["seq"], table, e["match"], e["kind"], json.dumps(e["data"]),
                  e["mono"], e["wall"], e["actor"], e["prev"], event_hash(e))
                 for e in chain(1, 2, 3, device=device)])
    before = older.execute("SELECT rowid, * FROM events ORDER BY rowid").fetchall()
    older.close()
    store = Store(path)
    db = store.db.conn
    assert db.execute("SELECT rowid, * FROM events ORDER BY rowid").fetchall() == before
    # (the folds read new events by rowid: the order the tables sent them in is kept)
    assert [name for (name,) in db.execute("SELECT name FROM pragma_index_list('events')")
            ] == ["idx_events_table_number_seq"]
    assert store.events(7) == chain(1, 2, 3, device="kiosk-a")
    with pytest.raises(sqlite3.IntegrityError):  # a place at a table still holds one event
        db.execute("INSERT INTO events (device, seq, table_number) VALUES ('kiosk-c', 2, 7)")


@pytest.mark.parametrize(("second", "why"), [
    (chain((2, {"seat": "S"}), prev="x" * 64), "place-taken"),  # another event at 2
    (chain(3, prev="0" * 64), "chain-broken"),  # 3 does not follow 2
])
def test_a_conflict_is_409_naming_the_event_and_its_events_are_kept_aside(hall, second, why):
    secret = hall.pair(7)
    first = chain(1, 2)
    assert hall.send(7, secret, {"events": first}, nonce="c1" * 8).status_code == 200
    if why == "place-taken":
        second = chain((2, {"seat": "S"}), prev=event_hash(first[0]))
    reply = hall.send(7, secret, {"events": second}, nonce="c2" * 8)
    assert reply.status_code == 409
    answer = reply.json()
    assert answer["key"] == f"sync.conflict.{why}" and answer["params"]["seq"] == second[0][
        "seq"]
    assert hall.store.events(7) == first  # nothing spliced in
    assert hall.store.orphans() == second  # kept aside, not lost
    (conflict,) = hall.store.conflicts()
    assert (conflict["table"], conflict["seq"], conflict["why"]) == (7, second[0]["seq"], why)
    hall.pair(7, "kiosk-new")  # the head referee pairs the table again: resolved
    assert hall.store.conflicts() == []


def test_a_kiosk_that_parts_at_many_places_is_one_conflict_from_the_first(hall):
    secret = hall.pair(7)
    assert hall.send(7, secret, {"events": chain(1, 2, 3, 4)}, nonce="e1" * 8).status_code == 200
    other = chain((1, {"seat": "S"}), 2, 3, 4)  # another history, sent a batch at a time
    for i, nonce in ((2, "e2"), (0, "e3")):
        assert hall.send(7, secret, {"events": other[i:i + 2]}, nonce=nonce * 8).status_code \
            == 409
    (conflict,) = hall.store.conflicts()
    assert (conflict["seq"], conflict["aside"]) == (1, 4)


def test_a_head_behind_the_scorer_is_a_rolled_back_journal(hall):
    secret = hall.pair(7)
    events = chain(1, 2, 3)
    hall.send(7, secret, {"events": events}, nonce="d1" * 8)
    head = {"seq": 2, "hash": event_hash(events[1])}
    reply = hall.send(7, secret, {"events": [], "head": head}, nonce="d2" * 8)
    assert reply.status_code == 409 and reply.json()["key"] == "sync.conflict.rolled-back"
    assert reply.json()["params"]["seq"] == 3


@pytest.mark.parametrize(("batch", "key"), [
    ({"events": chain(1), "behind": 1e400}, "wire.not-finite"),
    ({"events": [{**chain(1)[0], "seq": 2**70}]}, "wire.seq"),
    ({"events": [{**chain(1)[0], "seq": 0}]}, "wire.seq"),
    ({"events": [{**chain(1)[0], "data": "x"}]}, "wire.data"),
    ({"events": [{**chain(1)[0], "match": "x" * 100_000}]}, "wire.field-text"),
    ({"events": [{**chain(1)[0], "data": {"name": "x" * 300}}]}, "wire.data-size"),
    ({"events": [{**chain(1)[0], "data": {"x": [[[[["deep"]]]]]}}]}, "wire.too-deep"),
    ({"events": [{**chain(1)[0], "mono": 10**400}]}, "wire.times"),  # (no float holds it)
    ({"events": [{**chain(1)[0], "prev": "nope"}]}, "wire.prev"),
    ({"events": [{"seq": 1}]}, "wire.event-fields"),
    ({"events": chain(1, 2)[::-1]}, "wire.not-consecutive"),
    ({"events": "x"}, "wire.batch-shape"), ([], "wire.batch-shape")])
def test_a_garbled_signed_batch_gets_400_and_changes_nothing(hall, batch, key):
    secret = hall.pair(7)
    reply = hall.send(7, secret, batch)
    assert reply.status_code == 400 and reply.json()["key"] == key
    assert hall.store.events(7) == []


def test_a_table_sending_past_its_budget_waits_and_loses_nothing(hall, caplog):
    """A stolen credential cannot fill the store at the writer's speed: past its budget a
    table is asked to wait, other tables are not, and the batch sent again later is kept."""
    hall.client.app.state.kiosks.budget = kiosks.EventBudget(burst=10, rate=2.0)
    secret, other = hall.pair(7), hall.pair(8)
    events = chain(*range(1, 21))
    assert hall.send(7, secret, {"events": events[:8]}, nonce="c1" * 8).status_code == 200
    with caplog.at_level(logging.WARNING, logger=kiosks.__name__):
        assert hall.send(7, secret, {"events": events[8:13]}, nonce="c2" * 8).status_code == 200
    assert [(r.msg, r.args["table"]) for r in caplog.records] == [
        ("terminal.scorer.log.table_over_budget", 7)]
    held = hall.send(7, secret, {"events": events[13:]}, nonce="c3" * 8)
    assert (held.status_code, held.json()["key"]) == (503, "wire.busy")
    assert held.headers["Retry-After"] == "2"  # (3 events over, 2 a second)
    assert len(hall.store.events(7)) == 13
    assert hall.send(8, other, {"events": chain(1, 2)}, nonce="c4" * 8).status_code == 200
    hall.clock[0] += 2
    again = hall.send(7, secret, {"events": events[13:]}, nonce="c5" * 8)
    assert (again.status_code, again.json()["high_water"]) == (200, 20)


def test_a_kiosk_report_no_float_holds_is_ignored_and_its_events_kept(hall):
    secret = hall.pair(7)
    report = {"version": "1.0", "health": [], "offset": 10**400}
    reply = hall.send(7, secret, {"events": chain(1), "kiosk": report})
    assert reply.status_code == 200 and len(hall.store.events(7)) == 1


@pytest.mark.parametrize("data", [
    {"seat": "N"}, {"名": "赵钱", "b": [1, 2.5, -0.0, 1e16, None, True], "a": {"z": {}, "y": []}},
    {"text": "a\"b\\c\n\u2028é😀", "big": 10**20, "tiny": 5e-324}])
def test_the_chain_hashes_one_json_encoding_and_the_store_keeps_the_data(hall, data):
    # The hash chain is kiosks' and scorers' shared record: its bytes are the event's fields,
    # in order, as compact JSON with sorted keys, whatever the code that makes them.
    (event,) = chain((1, data))
    fields = [event[k] for k in ("prev", "device", "seq", "match", "kind", "data", "mono",
                                 "wall", "actor")]
    assert canonical(event) == json.dumps(fields, ensure_ascii=False, sort_keys=True,
                                          separators=(",", ":")).encode()
    assert event_hash(event) == hashlib.sha256(canonical(event)).hexdigest()
    secret = hall.pair(7)
    assert hall.send(7, secret, {"events": [event]}).status_code == 200
    assert hall.store.events(7) == [event] and hall.store.hash_at(7, 1) == event_hash(event)


@pytest.mark.parametrize(("raw", "key"), [
    (b'{"events": [' + b"[" * 50_000 + b"]" * 50_000 + b"]}", "wire.too-deep"),
    (b'{"events": [], "behind": NaN}', "wire.not-finite"),
    (b'{"events": [{"device": "\\udc80"}]}', "wire.bad-text"),
    (json.dumps({"events": [{**chain(1)[0], "data": {"x": float("nan")}}]}).encode(),
     "wire.not-finite"),
    (b"\xff\xfe", "wire.not-json")])
def test_bodies_that_made_500s_get_400(hall, raw, key):
    secret = hall.pair(7)
    reply = hall.send(7, secret, raw)
    assert reply.status_code == 400 and reply.json()["key"] == key
    assert hall.store.events(7) == []
    reply = hall.send(7, secret, {"events": chain(1)}, nonce="ee" * 8)
    assert reply.status_code == 200  # and the scorer goes on


def test_headers_and_paths_that_made_500s_get_4xx(hall):
    secret = hall.pair(7)
    body = json.dumps({"events": chain(1)}).encode()
    headers = signed_headers(secret, 7, "POST", "/api/tables/7/events", body, NOW, "ff" * 8)
    non_ascii = {**headers, "X-Kiosk-Signature": "é" * 64}
    reply = hall.client.post("/api/tables/7/events", content=body,
                             headers={k: v.encode("latin-1") for k, v in non_ascii.items()})
    assert reply.status_code == 401
    assert hall.client.post(f"/api/tables/{10**30}/events", content=body).status_code == 404
    assert hall.client.get(f"/api/tables/{10**30}/journal").status_code == 404
    assert hall.client.get("/api/export/sheets.txt?lang=xx").status_code == 400
    huge = "9" * 5000  # (more digits than int() takes: each of these answered 500)
    assert hall.client.post(f"/api/tables/{huge}/events", content=body).status_code == 404
    for read in ("assignment", "journal"):
        assert hall.client.get(f"/api/tables/{huge}/{read}").status_code == 404
    for asked in ("round", "table"):
        reply = hall.client.get(f"/print/sheets.html?{asked}={huge}")
        assert reply.status_code == 400 and "9999" in reply.text, reply.text[:300]
    assert hall.store.events(7) == []


@pytest.mark.parametrize("stamp", ["nan", "inf", "1e9", "-1790000000.000", "1790000000",
                                   " 1790000000.000"])
def test_a_time_not_in_the_fixed_format_is_refused(hall, stamp):
    secret = hall.pair(7)
    body = json.dumps({"events": chain(1)}).encode()
    headers = signed_headers(secret, 7, "POST", "/api/tables/7/events", body, NOW, "ab" * 8)
    headers["X-Kiosk-Time"] = stamp
    headers["X-Kiosk-Signature"] = sign(secret, "POST", "/api/tables/7/events", 7, stamp,
                                        "ab" * 8, body)
    reply = hall.client.post("/api/tables/7/events", content=body, headers=headers)
    assert reply.status_code == 401 and hall.store.events(7) == []


def test_a_huge_or_unsized_body_is_refused_before_it_is_read(hall):
    secret = hall.pair(7)
    unsigned = hall.client.post("/api/tables/7/events", content=b"x" * 5_000_000)
    assert unsigned.status_code == 401  # its headers cannot be valid: never read
    headers = signed_headers(secret, 7, "POST", "/api/tables/7/events", b"", NOW, "cd" * 8)
    huge = hall.client.post("/api/tables/7/events", content=b"x" * 2_000_000, headers=headers)
    assert huge.status_code == 413 and hall.store.events(7) == []


def test_a_replay_within_the_window_and_one_from_before_a_restart_are_refused(hall, tmp_path):
    secret = hall.pair(7)
    assert hall.send(7, secret, {"events": chain(1)}, nonce="12" * 8).status_code == 200
    replayed = hall.send(7, secret, {"events": chain(1)}, nonce="12" * 8)
    assert replayed.status_code == 401 and replayed.json()["key"] == "sync.replayed"
    restarted = TestClient(create_app(hall.director))  # a new process: no nonces in memory
    hall.client = restarted
    old = hall.send(7, secret, {"events": chain(1)}, nonce="12" * 8, at=NOW - 1)
    assert old.status_code == 401 and old.json()["key"] == "sync.stale"


@pytest.mark.parametrize("attack", ["unsigned", "wrong-secret", "other-table", "tampered",
                                    "stale", "other-path"])
def test_unauthenticated_writes_get_401_and_change_nothing(hall, attack):
    secret, other = hall.pair(7), hall.pair(8, "kiosk-b")
    assert hall.send(7, secret, {"events": chain(1)}, nonce="f1" * 8).status_code == 200
    before = hall.store.events(7) + hall.store.events(8)
    body = json.dumps({"events": chain(1, 2)[1:]}).encode()
    path = "/api/tables/7/events"
    if attack == "unsigned":
        reply = hall.client.post(path, content=body)
    elif attack == "other-path":  # a signed read replayed as a write
        headers = signed_headers(secret, 7, "GET", "/api/tables/7/assignment", b"", NOW,
                                 "f2" * 8)
        reply = hall.client.post(path, content=body, headers=headers)
    else:
        key = {"wrong-secret": "0" * 64, "other-table": other}.get(attack, secret)
        at = NOW - 3600 if attack == "stale" else NOW
        headers = signed_headers(key, 7, "POST", path, body, at, "f3" * 8)
        if attack == "tampered":
            body = body.replace(b'"N"', b'"S"')
        reply = hall.client.post(path, content=body, headers=headers)
    assert reply.status_code == 401
    assert hall.store.events(7) + hall.store.events(8) == before


def test_answers_are_signed_and_only_signed_answers_set_the_clock(hall):
    hall.pair(7)
    link = ScorerLink("http://testserver", hall.client,
                      Credential(
                          "http://testserver", 7, hall.store.credential(7)[0]))
    hall.clock[0] = time.time() + 100
    link.assignment()
    assert abs(link.offset - 100) < 5
    forged = ScorerLink("http://testserver", hall.client,
                        Credential(
                            "http://testserver", 7, "0" * 64))
    with pytest.raises(LinkError):
        forged.assignment()
    assert forged.offset is None  # a 401 not signed with its secret taught it nothing


def test_the_journal_of_a_table_downloads(hall):
    secret = hall.pair(7)
    events = chain(1, 2, 3)
    hall.send(7, secret, {"events": events}, nonce="99" * 8)
    link = ScorerLink("http://testserver", hall.client)
    link.credential = Credential(
        "http://testserver", 7, secret)
    assert link.download() == events


def test_a_batch_reads_no_credential_or_mute_from_the_store_while_they_stand_still(hall):
    secret = hall.pair(7)
    events = chain(1, 2, 3, 4)
    assert hall.send(7, secret, {"events": events[:1]}, nonce="81" * 8).status_code == 200
    hall.clock[0] += 2 * REREAD  # (the credential's first use, committed, is read again)
    assert hall.send(7, secret, {"events": []}, nonce="82" * 8).status_code == 200
    statements: list[str] = []
    hall.store.db.conn.set_trace_callback(statements.append)
    for i, event in enumerate(events[1:]):
        hall.clock[0] += REREAD / 4  # (and a counter asked every REREAD seconds only)
        assert hall.send(7, secret, {"events": [event]}, nonce=f"{90 + i}" * 8).json()[
            "high_water"] == event["seq"]
    assert not [s for s in statements if "FROM tables" in s or "settings" in s]


def test_a_hands_batch_is_kept_in_a_few_statements_not_one_for_every_event(hall):
    # sqlite3 lets go of the interpreter's lock for each statement it runs, and the writer's
    # thread then waits for a busy event loop to give it back: once a row with executemany.
    secret = hall.pair(7)
    events = chain(*range(1, 201))
    statements: list[str] = []
    hall.store.writer().db.conn.set_trace_callback(statements.append)
    sent = 0
    for size, nonce in ((60, "81"), (1, "82"), (64, "83"), (75, "84")):
        reply = hall.send(7, secret, {"events": events[sent:sent + size]}, nonce=nonce * 8)
        sent += size
        assert reply.json()["high_water"] == sent
    inserts = [s for s in statements if s.startswith("INSERT INTO events")]
    assert len(inserts) == 4 + 1 + 1 + 4  # 60 = 32+16+8+4, 1, 64, 75 = 64+8+2+1
    kept = hall.store.db.execute(
        "SELECT rowid, seq, hash FROM events WHERE table_number = 7 ORDER BY seq").fetchall()
    assert [(seq, digest) for _, seq, digest in kept] == [
        (e["seq"], event_hash(e)) for e in events]
    assert [rowid for rowid, _, _ in kept] == list(range(kept[0][0], kept[0][0] + 200))
    first, rows = hall.store.landed[-1]  # what the hall's folds take without reading back
    assert (first, [row[1] for row in rows]) == (kept[125][0], list(range(126, 201)))


def test_a_change_made_by_another_process_reaches_the_kiosks_within_a_tenth_of_a_second(
        hall, tmp_path):
    secret = hall.pair(7)
    assert hall.send(7, secret, {"events": []}, nonce="81" * 8).json()["muted"] is False
    elsewhere = Store(tmp_path / "scorer.sqlite")  # `kiosk scorer admin`, the server running
    elsewhere.set_setting("muted", "1")
    elsewhere.revoke(7)
    elsewhere.close()
    assert hall.send(7, secret, {"events": []}, nonce="82" * 8).status_code == 200
    hall.clock[0] += 2 * REREAD
    assert hall.send(7, secret, {"events": []}, nonce="83" * 8).status_code == 401
    again = hall.pair(7, "kiosk-new")  # (this process's own changes: at once)
    assert hall.send(7, again, {"events": []}, nonce="84" * 8).json()["muted"] is True
    hall.director.mute(False)
    assert hall.send(7, again, {"events": []}, nonce="85" * 8).json()["muted"] is False


def test_a_new_kiosk_revokes_the_old_ones_credential(hall):
    old = hall.pair(7)
    new = hall.pair(7, "kiosk-new")
    assert hall.send(7, old, {"events": chain(1)}, nonce="71" * 8).status_code == 401
    reply = hall.send(7, new, {"events": chain(1, device="kiosk-new")}, nonce="72" * 8)
    assert reply.status_code == 200
