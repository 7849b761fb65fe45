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
