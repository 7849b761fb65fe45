"""Shared fixtures."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from kiosk.rules import Rulesets

# CI replays the same examples every run, so a landing never hangs on a lucky draw; run the
# suite locally (or FUZZ_EXAMPLES=5000 for the session fuzz) to explore new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def rulesets() -> Rulesets:
    return Rulesets.load()


@pytest.fixture
def table(tmp_path, rulesets):
    """A kiosk at a table, driven through its real controller, runner and session on an
    injected clock (tests/test_kiosk_screens.py's `Table`)."""
    from tests.test_kiosk_screens import Table

    kiosk = Table(tmp_path, rulesets)
    yield kiosk
    kiosk.session.close()
