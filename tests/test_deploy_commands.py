"""Every `kiosk …` command line the deployment runs (systemd units) or tells a technician to
type (deploy/README.md) is one the `kiosk` command accepts."""

from __future__ import annotations

import re
import shlex

import pytest

from kiosk.cli.main import build_parser

from .helpers import ROOT

pytestmark = pytest.mark.unit

SAMPLE = {"KIOSK_TABLE": "7", "KIOSK_SCORER": "https://scorer.local:8080",
          "KIOSK_EXTRA_ARGS": "--printer /dev/kiosk-printer"}


def unit_commands() -> list[str]:
    out = []
    for unit in sorted((ROOT / "deploy" / "systemd").glob("*.service")):
        for line in unit.read_text().splitlines():
            if line.startswith("Exec") and "/bin/kiosk " in line:
                out.append(line.split("/bin/kiosk ", 1)[1])
    return out


def guide_commands() -> list[str]:
    text = (ROOT / "deploy" / "README.md").read_text()
    # The command (after the rules directory it may be given) up to the end of its line, or to
    # a pipe into another tool.
    return [m.group(1) for m in re.finditer(
        r"(?:^|\s)kiosk ((?:--rules-dir \S+ )?(?:table|pair|scorer)[^\n`|]*)", text)]


@pytest.mark.parametrize("command", unit_commands() + guide_commands())
def test_the_command_parses(command):
    for name, value in SAMPLE.items():
        command = command.replace("${" + name + "}", value).replace("$" + name, value)
    args = build_parser().parse_args(shlex.split(command))  # SystemExit on a bad line
    assert callable(args.run)


def test_there_are_commands_to_check():
    assert len(unit_commands()) >= 3 and len(guide_commands()) >= 4
