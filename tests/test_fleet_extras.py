"""The two installs (issue 16, finding 9): the scorer's (`kiosk80[scorer]`) never imports
Kivy, GPIO or serial libraries, and the kiosk's (`kiosk80[table]`) never imports the web
server, the QR code or form parsing; each checked by running the commands with the other
extra's libraries made unimportable."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from .helpers import ROOT

pytestmark = pytest.mark.process

BLOCKER = r'''
import importlib.abc, runpy, sys
BLOCK = set(sys.argv[1].split(","))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCK:
            raise ImportError(f"{name} is not installed with this extra")
sys.meta_path.insert(0, Block())
sys.argv = ["kiosk", *sys.argv[2:]]
from kiosk.cli.main import main
sys.exit(main())
'''


def extra_modules(extra: str) -> set[str]:
    names = {"kivy": "kivy", "fonttools": "fontTools", "gpiozero": "gpiozero",
             "pyserial": "serial", "lgpio": "lgpio", "uvicorn": "uvicorn",
             "httptools": "httptools", "starlette": "starlette", "rustworkx": "rustworkx",
             "numpy": "numpy",
             "jinja2": "jinja2", "weasyprint": "weasyprint", "openpyxl": "openpyxl",
             "pypinyin": "pypinyin", "python-multipart": "multipart", "segno": "segno",
             "opencc-python-reimplemented": "opencc"}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["optional-dependencies"][extra]
    return {names[r.split(">")[0].split(";")[0].strip()] for r in requirements}


def run_without(extra: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCKER, ",".join(extra_modules(extra)),
                           *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_the_scorer_runs_without_the_tables_libraries(tmp_path):
    assert extra_modules("table") == {"kivy", "fontTools", "gpiozero", "serial", "lgpio"}
    data = str(tmp_path)
    for args in (("scorer", "admin", "--data", data, "event", "--name", "e", "--ruleset",
                  "xiamen-2015"),
                 ("scorer", "admin", "--data", data, "tables", "2"),
                 ("fleet", "prune-backups", "--dir", data)):
        done = run_without("table", *args)
        assert done.returncode == 0, done.stderr[-1500:]
    imported = subprocess.run(
        [sys.executable, "-c", BLOCKER.replace("from kiosk.cli.main import main\nsys.exit(main())",
                                               "import kiosk.scorer.web.app, kiosk.scorer.server"),
         ",".join(extra_modules("table"))], capture_output=True, text=True, cwd=ROOT)
    assert imported.returncode == 0, imported.stderr[-1500:]


def test_the_kiosk_runs_without_the_scorers_libraries(tmp_path):
    assert {"starlette", "uvicorn", "weasyprint", "segno"} <= extra_modules("scorer")
    for args in (("rules", "list"), ("hw", "check"),
                 ("simulate", "--data", str(tmp_path), "--table", "1", "--ruleset",
                  "xiamen-2015", "--hands", "2", "--speed", "1e9")):
        done = run_without("scorer", *args)
        assert done.returncode == 0, done.stderr[-1500:]
    imported = subprocess.run(
        [sys.executable, "-c", BLOCKER.replace("from kiosk.cli.main import main\nsys.exit(main())",
                                               "import kiosk.sync.wiring, kiosk.sync.join, "
                                               "kiosk.update.apply, kiosk.ui.app"),
         ",".join(extra_modules("scorer"))], capture_output=True, text=True, cwd=ROOT)
    assert imported.returncode == 0, imported.stderr[-1500:]
