"""Shared fixtures."""

from __future__ import annotations

import pytest

from kiosk.rules import Rulesets


@pytest.fixture(scope="session")
def rulesets() -> Rulesets:
    return Rulesets.load()
