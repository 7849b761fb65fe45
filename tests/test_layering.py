"""The layering (the README's table): the rules core loads nothing outside the standard
library (and the program's error hierarchy, kiosk.errors, which is standard library only
itself)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .helpers import ROOT

pytestmark = pytest.mark.process

PROBE = """
import json, sys
before = set(sys.modules)
import kiosk.rules
from kiosk.rules import Rulesets, replay
rulesets = Rulesets.load()
record = {"ruleset": "xiamen-2015", "first_dealer": "N", "hands": [{"points": 45}]}
list(replay(record, rulesets))
loaded = sorted(set(sys.modules) - before)
print(json.dumps(loaded))
"""


def test_rules_core_imports_only_the_standard_library():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          cwd=ROOT, check=True, timeout=60)
    loaded = json.loads(done.stdout)
    ours = [m for m in loaded if m == "kiosk" or m.startswith("kiosk.")]
    others = [m for m in loaded if m not in ours]
    assert ours and all(m in ("kiosk", "kiosk.errors") or m.startswith("kiosk.rules")
                        for m in ours), ours
    outside = [m for m in others if m.split(".")[0] not in sys.stdlib_module_names
               and not m.startswith("_")]
    assert outside == []
