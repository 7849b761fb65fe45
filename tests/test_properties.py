"""Properties over random match records (hypothesis): levels never move backward, nothing passes
the final level without a winner, nothing is accepted after a winner, replay is deterministic,
and any input ends in a result or a clean error, never a traceback."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.i18n import LANGS, catalog, explain
from kiosk.rules import EntryError, MatchOver, RecordError, Rulesets, TeamMatch, replay

from .helpers import hand, jsonl, kiosk
from .strategies import JSON, team_record

RULESETS = Rulesets.load()
PROPERTY = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def materialise(raw: dict[str, Any]) -> tuple[dict[str, Any], list[Any], TeamMatch]:
    """Play the random hands through the fold, naming the grabbed dealer where the table grabs
    one; cut the record at the winner. Returns the record, the results and the final state."""
    ruleset = RULESETS[raw["ruleset"]]
    state = TeamMatch.start(ruleset, raw["first_dealer"])
    hands, results = [], []
    for number, entry in enumerate(raw["hands"]):
        entry = dict(entry)
        if state.next_dealer is None:
            entry["dealer"] = raw["grab"][number]
        try:
            state, result = state.play(to_entry(entry))
        except EntryError:
            continue  # e.g. a redeal right after time-up; drop it as a referee would
        hands.append(entry)
        results.append(result)
        if state.winner:
            break
    record = {"ruleset": ruleset.id, "first_dealer": raw["first_dealer"], "hands": hands}
    return record, results, state


def to_entry(entry: dict[str, Any]):
    return hand(entry.get("points"),
                kitty=(entry["kitty"]["points"], entry["kitty"]["shape"])
                if "kitty" in entry else None,
                penalties=entry.get("penalties", ()), redeal=entry.get("redeal", False),
                dealer=entry.get("dealer"))


@pytest.mark.sim
@PROPERTY
@given(team_record(RULESETS))
def test_levels_never_move_backward_and_stay_on_the_ladder(raw):
    record, results, _ = materialise(raw)
    ladder = RULESETS[record["ruleset"]].ladder
    previous = {"NS": 0, "EW": 0}
    for result in results:
        now = dict(zip(("NS", "EW"), (ladder.index(lv) for lv in result.levels), strict=True))
        assert all(now[team] >= previous[team] for team in now)
        moved = sum(now[t] - previous[t] for t in now)
        if result.advance is not None and result.winner is None:
            assert moved == result.advance  # every level counted; none passed silently
        previous = now


@pytest.mark.sim
@PROPERTY
@given(team_record(RULESETS))
def test_a_winner_only_by_passing_the_final_level_and_nothing_after(raw):
    record, results, state = materialise(raw)
    final = RULESETS[record["ruleset"]].final
    winners = [r for r in results if r.winner]
    if state.winner is None:
        assert not winners
        return
    assert winners == [results[-1]]
    last = results[-1]
    assert last.by in ("ladder", "penalty")
    if last.by == "ladder":
        assert last.levels[("NS", "EW").index(last.winner)] == final
    with pytest.raises(MatchOver):
        state.play(hand(40, dealer=state.next_dealer))
    extra = {**record, "hands": [*record["hands"], {"points": 40}]}
    with pytest.raises(RecordError) as err:
        list(replay(extra, RULESETS))
    assert err.value.where == f"hand {len(record['hands']) + 1}"


@pytest.mark.sim
@PROPERTY
@given(team_record(RULESETS, allow_levels=True))
def test_replay_is_deterministic_and_agrees_with_the_fold(raw):
    record, results, _ = materialise(raw)
    first = list(replay(record, RULESETS))
    again = list(replay(json.loads(json.dumps(record)), RULESETS))
    assert first == again
    assert [line["levels"] for line in first] == [
        {"NS": r.levels[0], "EW": r.levels[1]} for r in results]


def mutate(record: dict[str, Any], path_choice: int, value: Any) -> dict[str, Any]:
    """Replace one field somewhere in the record with an arbitrary JSON value."""
    broken = copy.deepcopy(record)
    slots: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in list(items):
            slots.append((node, key))
            if isinstance(child, dict | list):
                walk(child)

    walk(broken)
    node, key = slots[path_choice % len(slots)]
    node[key] = value
    return broken


@pytest.mark.sim
@PROPERTY
@given(team_record(RULESETS), st.integers(0, 10_000), JSON)
def test_malformed_records_end_in_a_clean_error(raw, where, value):
    record, _, _ = materialise(raw)
    broken = mutate(record, where, value)
    try:
        lines = list(replay(broken, RULESETS))
    except RecordError as err:
        assert str(err) and err.where
        assert_explained(err)
    else:
        assert all("levels" in line for line in lines)


@pytest.mark.sim
@PROPERTY
@given(JSON)
def test_arbitrary_json_ends_in_a_clean_error(value):
    try:
        list(replay(value, RULESETS))
    except RecordError as err:
        assert str(err)
        assert_explained(err)


def assert_explained(err: RecordError) -> None:
    """The error has words in every language, naming where it sits, never the generic text."""
    assert err.key in catalog("en"), err
    for lang in LANGS:
        words = explain(err, lang)
        assert words != catalog(lang)["error.unexpected"]
        assert not re.search(r"\{[a-z_]\w*\}", words), words  # every placeholder filled


@pytest.mark.process
@settings(max_examples=25, deadline=None)
@given(team_record(RULESETS, max_hands=12), st.integers(0, 10_000), JSON)
def test_the_command_never_shows_a_traceback(raw, where, value):
    record, _, _ = materialise(raw)
    done = kiosk("replay", "-", stdin=json.dumps(mutate(record, where, value)))
    assert done.returncode in (0, 2)
    assert "Traceback" not in done.stderr
    if done.returncode == 2:
        assert done.stderr.startswith("kiosk replay：")
    jsonl(done.stdout)  # every printed line is JSON
