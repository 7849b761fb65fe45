"""A kiosk and a scorer one release apart still talk (issue 34): a batch from the release before
(0.1.0: no version, signed over the body only) and one from the release after (a higher version,
fields this release does not know, in the batch and in its events) are both taken; the later
release's fields are kept, hashed with their event and given back with it. One version further
is refused in words. Also the scorer's backpressure as a kiosk meets it: 503 with Retry-After,
signed, said at once, and the outbox's wait after it."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kiosk.errors import LinkError
from kiosk.protocol import chain as event_chain
from kiosk.protocol.wire import (
    WIRE_VERSION,
    check_batch,
    event_hash,
    sign,
    sign_answer,
    signed_headers,
)
from kiosk.sync.link import ScorerBusy, ScorerLink
from kiosk.sync.outbox import BACKOFF_FIRST, next_wait

from .strategies import JSON
from .test_scorer_sync import NOW, Hall, chain

pytestmark = pytest.mark.unit


@pytest.fixture
def hall(tmp_path):
    h = Hall(tmp_path)
    yield h
    h.store.close()


def test_a_batch_from_the_release_before_is_taken(hall):
    secret = hall.pair(7)
    path = "/api/tables/7/events"
    body = json.dumps({"events": chain(1, 2), "behind": 0}).encode()  # no "v"
    headers = {"X-Kiosk-Table": "7", "X-Kiosk-Time": f"{NOW:014.3f}", "X-Kiosk-Nonce": "ab" * 8,
               "X-Kiosk-Signature": sign(secret, "POST", path, 7, f"{NOW:014.3f}", "ab" * 8,
                                         body)}  # the body's signature only, as 0.1.0 signs
    reply = hall.client.post(path, content=body, headers=headers)
    assert reply.status_code == 200 and reply.json()["high_water"] == 2
    assert hall.store.events(7) == chain(1, 2)
    tampered = hall.client.post(path, content=body.replace(b"seat", b"SEAT"),
                                headers={**headers, "X-Kiosk-Nonce": "cd" * 8})
    assert tampered.status_code == 401


def test_a_batch_from_the_release_after_is_taken_and_its_new_fields_kept(hall):
    secret = hall.pair(7)
    (first,) = chain(1)
    later = {**first, "zone": "A", "hints": {"colour": "red"}}  # fields a later release adds
    second = {**chain(2, prev=event_hash(later))[0]}
    batch = {"v": WIRE_VERSION + 1, "events": [later, second], "behind": 0,
             "lights": {"brightness": 3}}  # (and the batch's own new field)
    reply = hall.send(7, secret, batch)
    assert reply.status_code == 200 and reply.json()["high_water"] == 2
    assert hall.store.events(7) == [later, second]  # given back as it was sent
    assert hall.store.hash_at(7, 1) == event_hash(later) != event_hash(first)
    # The chain goes on from the later release's event.
    third = chain(3, prev=event_hash(second))
    assert hall.send(7, secret, {"v": WIRE_VERSION, "events": third},
                     nonce="ef" * 8).status_code == 200


def test_a_batch_two_releases_ahead_is_refused_in_words(hall):
    secret = hall.pair(7)
    reply = hall.send(7, secret, {"v": WIRE_VERSION + 2, "events": chain(1)})
    assert reply.status_code == 400 and reply.json()["key"] == "wire.too-new"
    assert hall.store.events(7) == []


@pytest.mark.parametrize("extra", [{"Zone": 1}, {f"f{i}": i for i in range(9)},
                                   {"note": "x" * 300}])
def test_a_later_releases_fields_are_few_plain_and_small(extra):
    event = {**chain(1)[0], **extra}
    with pytest.raises(Exception, match="each event has"):
        check_batch({"events": [event]})


def test_this_releases_events_hash_as_0_1_0s_did(hall):
    # (a journal from 0.1.0 goes on with the same chain)
    event = chain(1)[0]
    assert event_hash(event) == event_hash({**event})
    assert check_batch({"events": [event]}).version == 1  # no "v": the release before


# The chain's bytes as 0.1.0 defined them: the fields in one array, through the standard
# library's encoder (every kiosk in a hall must hash an event as every scorer does).
ENCODE = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                          allow_nan=False).encode
NUMBER = st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**9, 10**9)


@given(st.dictionaries(st.text(max_size=6), JSON, max_size=4),
       st.lists(st.text(max_size=10), min_size=5, max_size=5), st.integers(1, 2**53),
       NUMBER, NUMBER,
       st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True).filter(
           lambda k: k not in event_chain.EVENT_FIELDS), JSON, max_size=2))
def test_an_event_is_hashed_over_the_same_bytes_as_ever(data, texts, seq, mono, wall, extra):
    prev, device, match, kind, actor = texts
    event = {"device": device, "seq": seq, "match": match, "kind": kind, "data": data,
             "mono": mono, "wall": wall, "actor": actor, "prev": prev, **extra}
    fields = [prev, device, seq, match, kind, data, float(mono), float(wall), actor]
    try:
        expected = ENCODE([*fields, extra] if extra else fields).encode()
    except ValueError:  # an infinity in the data: no JSON for it, either way
        with pytest.raises(ValueError):
            event_chain.canonical(event)
        return
    assert event_chain.canonical(event) == expected
    assert event_chain.seal(event) == (hashlib.sha256(expected).hexdigest(), ENCODE(data))


def test_without_the_standard_librarys_c_encoder_the_bytes_are_the_same(monkeypatch):
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    plain = event_chain._one_encoder()
    value = {"b": [1.5, "é\u2028", None], "a": {"x": -3}}
    assert plain(value) == ENCODE(value) == event_chain._CANONICAL(value)


# -- backpressure ---------------------------------------------------------------------------

def test_a_scorer_behind_says_so_at_once_signed_and_the_kiosk_waits(hall, monkeypatch):
    link = ScorerLink("http://testserver", hall.client)
    link.pair(hall.store.issue_code(7, NOW), 7, "kiosk-a", {})
    monkeypatch.setattr(type(hall.store.writer()), "backlog", lambda self: 5.0)
    path = "/api/tables/7/events"
    body = json.dumps({"v": WIRE_VERSION, "events": chain(1)}).encode()
    reply = hall.client.post(path, content=body, headers=signed_headers(
        link.credential.secret, 7, "POST", path, body, NOW, "12" * 8))
    assert reply.status_code == 503 and reply.headers["retry-after"] == "2"
    assert reply.headers["x-scorer-signature"] == sign_answer(
        link.credential.secret, "12" * 8, 503, reply.content)
    assert hall.store.events(7) == []  # nothing taken: the kiosk sends it again
    with pytest.raises(ScorerBusy) as busy:
        link.send(chain(1), 0)
    assert busy.value.retry_after == 2 and busy.value.key == "wire.busy"
    monkeypatch.undo()
    assert link.send(chain(1), 0)["high_water"] == 1  # and later it is taken


def test_the_outbox_waits_what_the_scorer_asked_and_up_to_as_long_again():
    rng = random.Random(1)
    busy = ScorerBusy("busy", 503, "wire.busy", {}, 2.0)
    waits = [next_wait(0.0, busy, rng)[1] for _ in range(200)]
    assert min(waits) >= 2.0 and max(waits) <= 4.0 and len(set(waits)) > 100  # jittered
    delay, failures = 0.0, []
    for _ in range(8):  # no answer at all: the delay doubles up to its ceiling
        delay, wait = next_wait(delay, LinkError("no answer"), rng)
        failures.append((delay, wait))
    assert failures[0][0] == BACKOFF_FIRST and failures[-1][0] == 30.0
    assert all(d / 2 <= w <= d for d, w in failures)
