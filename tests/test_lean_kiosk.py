"""What each program imports: the table's kiosk none of the scorer's libraries, `kiosk --help`
not even the rules core (only its own words' catalog file), the scorer without mDNS no
zeroconf. (Start-up time itself is measured in bench/bench_startup.py, never asserted here.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .helpers import ROOT

# (Not numpy: sqlite-utils imports it whenever it is installed, and rustworkx installs it.)
SCORER_LIBRARIES = {"starlette", "uvicorn", "networkx", "rustworkx", "zeroconf", "segno"}


def imported(code: str) -> set[str]:
    """The top-level packages in sys.modules after running `code` in a fresh interpreter."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "KIVY_NO_ARGS": "1", "KIVY_NO_CONSOLELOG": "1",
           "KIVY_NO_FILELOG": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.process
def test_the_table_kiosk_imports_none_of_the_scorer_libraries():
    # `kiosk table`'s import path: the app, the hardware, the session and the sync side.
    modules = imported(
        "from kiosk.cli import ui_cmd\n"
        "import kiosk.ui.app, kiosk.hw.runner, kiosk.hw.panel, kiosk.hw.printer\n"
        "import kiosk.table, kiosk.sync.join, kiosk.sync.link, kiosk.sync.outbox\n"
        "import kiosk.sync.wiring")
    assert {m.split(".")[0] for m in modules} & SCORER_LIBRARIES == set()
    assert not any(m.startswith("kiosk.scorer") for m in modules)


@pytest.mark.process
def test_kiosk_help_starts_without_the_rules_core():
    # Its words come from one catalog file, cli.toml (so tomllib is imported), read once; no
    # other area's catalog is read.
    modules = imported(
        "import contextlib, io, sys\n"
        "from kiosk.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "from kiosk.cli import words\n"
        "from kiosk.i18n import catalog\n"
        "assert words._words.cache_info().currsize == 1, words._words.cache_info()\n"
        "assert catalog.cache_info().currsize == 0, catalog.cache_info()")
    assert "kiosk.cli.main" in modules
    assert not any(m.startswith(("kiosk.rules", "kiosk.table", "kiosk.scorer",
                                 "importlib.resources")) for m in modules)


@pytest.mark.process
def test_the_scorer_imports_zeroconf_only_for_mdns():
    modules = imported("import kiosk.scorer.server, kiosk.scorer.web.app")
    assert "zeroconf" not in modules
    modules = imported("from kiosk.sync.discover import candidates")
    assert "zeroconf" not in modules  # not until `candidates` or `announce` runs


@pytest.mark.process
def test_a_store_and_a_journal_up_to_date_open_without_sqlite_utils(tmp_path):
    # sqlite-utils (with click, dateutil and pluggy) builds the schemas: loaded to build a new
    # file, not to open one already built, nor by the scorer's app before it opens its store.
    build = ("from kiosk.scorer.store.database import Store\n"
             "from kiosk.table.journal import Journal\n"
             f"Store({str(tmp_path / 'scorer.sqlite')!r}).close()\n"
             f"Journal({str(tmp_path / 'table-1.sqlite')!r}).close()\n")
    assert "sqlite_utils" in imported(build)
    modules = imported("import kiosk.scorer.web.app\n" + build)
    assert not {"sqlite_utils", "dateutil", "pluggy", "numpy"} & modules
    assert not any(m.startswith("kiosk.table.session") for m in modules)


@pytest.mark.process
def test_a_replay_builds_its_own_command_and_reads_its_own_ruleset():
    modules = imported(
        "import contextlib, io, sys\n"
        "from kiosk.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['replay', 'examples/xiamen-2015-example.json']) == 0\n"
        "from kiosk.rules import registry\n"
        "assert registry._builtin.cache_info().currsize == 1  # xiamen-2015's file alone")
    assert "kiosk.cli.replay_cmd" in modules
    assert not {"kiosk.cli.scorer_cmd", "kiosk.cli.ui_cmd", "kiosk.cli.fleet_cmd"} & modules
    assert not any(m.startswith(("kiosk.table", "kiosk.scorer", "sqlite3")) for m in modules)
    # A team match makes none of the individual rounds' classes; argparse's width comes
    # without shutil (and the compression modules shutil imports); a record that names no
    # ruleset_sha256 needs no hash (nor OpenSSL's).
    assert not {"kiosk.rules.individual", "shutil", "zlib", "bz2", "lzma", "hashlib",
                "_hashlib"} & modules


@pytest.mark.process
def test_an_individual_round_replays_with_its_module_imported_when_needed():
    modules = imported(
        "import contextlib, io, json\n"
        "from kiosk.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    assert main(['replay', 'examples/shuangsheng-2011-example.json']) == 0\n"
        "lines = [json.loads(line) for line in out.getvalue().splitlines()]\n"
        "expected = open('examples/shuangsheng-2011-example.expected.jsonl').read()\n"
        "assert lines == [json.loads(line) for line in expected.splitlines()], lines\n"
        "from kiosk.rules import IndividualRound, form_prize_finals  # still exported\n"
        "from kiosk.rules.individual import IndividualRound as Same\n"
        "assert IndividualRound is Same and callable(form_prize_finals)")
    assert "kiosk.rules.individual" in modules


@pytest.mark.unit
def test_every_command_is_still_listed_and_each_builds_alone():
    from kiosk.cli.main import COMMANDS, build_parser, command_of

    whole = build_parser()
    listed = next(a for a in whole._actions if a.dest == "command").choices
    assert list(listed) == list(COMMANDS)  # --help lists them all, in this order
    for command in COMMANDS:
        parser = build_parser(command)
        assert command in next(a for a in parser._actions if a.dest == "command").choices
    assert command_of(["--rules-dir", "house", "replay", "-"]) == "replay"
    assert command_of(["--rules-dir=house", "rules", "list"]) == "rules"
    assert command_of(["--help"]) is None


@pytest.mark.process
def test_the_kiosk_program_ends_without_a_last_sweep_but_a_caller_keeps_its_collector():
    # As the program (no argv: the console script), the process ends once the command is
    # done, so the objects are left to it (gc.freeze: the interpreter's final collections skip
    # them); a Python caller that passes argv keeps its garbage collector as it was.
    code = (
        "import contextlib, gc, io, sys\n"
        "from kiosk.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main(['replay', 'examples/xiamen-2015-example.json']) == 0\n"
        "assert out.getvalue().count('\\n') == 8 and gc.get_freeze_count() == 0\n"
        "sys.argv = ['kiosk', 'replay', 'examples/xiamen-2015-example.json']\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main() == 0\n"
        "assert out.getvalue().count('\\n') == 8 and gc.get_freeze_count() > 0\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)
