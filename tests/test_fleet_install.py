"""Installing a new version never removes the running one (issue 16, finding 4): the project
goes into a new venv, is checked, and only then does `current` point to it. Offline (a network
namespace with no route) a re-provision that needs the index fails and the old version keeps
running; from a wheelhouse it installs with no network at all."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .fakewheel import make_source, make_wheel
from .helpers import ROOT

pytestmark = pytest.mark.process

LIB = ROOT / "deploy" / "lib.sh"


def isolated_env(app: Path) -> dict[str, str]:
    """pip as on a fresh Pi: the default index, none of this machine's pip settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DEFAULT_TIMEOUT="3", PIP_RETRIES="0",
               PIP_DISABLE_PIP_VERSION_CHECK="1", KIOSK_APP_DIR=str(app / "app"),
               KIOSK_VENV_LINK=str(app / "opt/kiosk/venv"),
               PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    return env


def install(app: Path, source: Path, wheelhouse: Path | None = None, netns: bool = False):
    script = f'set -euo pipefail; . {LIB}; install_project "$1" table "${{2-}}"; finish'
    command = ["bash", "-c", script, "install", str(source), str(wheelhouse or "")]
    if netns:
        command = ["unshare", "--net", "--", *command]
    return subprocess.run(command, capture_output=True, text=True, env=isolated_env(app),
                          timeout=300)


def kiosk_version(app: Path) -> str:
    result = subprocess.run([str(app / "opt/kiosk/venv/bin/kiosk"), "version"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def app(tmp_path):
    if shutil.which("unshare") is None or os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs as root with unshare (util-linux)")
        pytest.skip("needs root for a network namespace")
    return tmp_path


def test_an_offline_reprovision_keeps_the_old_version_running(app):
    wheels = app / "wheels-1"
    first = install(app, make_wheel(wheels, "1.0"), wheels, netns=True)  # a wheelhouse: offline
    assert first.returncode == 0, first.stdout + first.stderr
    assert kiosk_version(app) == "1.0"
    current = os.readlink(app / "app/current")

    running = subprocess.Popen([str(app / "opt/kiosk/venv/bin/kiosk"), "table"])
    try:
        # Again, from a project directory, whose build needs setuptools from the index: offline.
        offline = install(app, make_source(app / "src-2", "2.0"), netns=True)
        assert offline.returncode == 3
        assert "继续使用原来的版本" in offline.stderr
        assert "uninstall" not in offline.stdout
        assert os.readlink(app / "app/current") == current
        assert kiosk_version(app) == "1.0"
        assert running.poll() is None  # still running, its files untouched
    finally:
        running.terminate()
        running.wait(10)


def test_a_new_version_is_switched_to_once_it_works_and_the_old_one_kept(app):
    wheels = app / "wheels"
    assert install(app, make_wheel(wheels, "1.0"), wheels, netns=True).returncode == 0
    one = os.readlink(app / "app/current")
    again = install(app, wheels / "kiosk80-1.0-py3-none-any.whl", wheels, netns=True)
    assert again.stdout.splitlines()[-1] == "没有改动：本机已经配置好了"

    two_wheels = app / "wheels-2"
    result = install(app, make_wheel(two_wheels, "2.0"), two_wheels, netns=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert kiosk_version(app) == "2.0"
    assert os.readlink(app / "app/previous") == one  # the way back
    assert os.readlink(app / "opt/kiosk/venv") == str(app / "app/current")

    three_wheels = app / "wheels-3"
    assert install(app, make_wheel(three_wheels, "3.0"), three_wheels,
                   netns=True).returncode == 0
    assert kiosk_version(app) == "3.0"
    assert not Path(one).exists()  # only the current and the previous are kept
    assert len(list((app / "app/venvs").iterdir())) == 2


def test_a_venv_from_before_the_switch_is_adopted(app):
    """A kiosk provisioned before this change had its venv at /opt/kiosk/venv itself."""
    wheels = app / "wheels"
    assert install(app, make_wheel(wheels, "1.0"), wheels, netns=True).returncode == 0
    venv = Path(os.readlink(app / "app/current"))
    link = app / "opt/kiosk/venv"
    link.unlink()
    (app / "app/current").unlink()
    shutil.move(venv, link)  # as the old script left it (its scripts name this path)
    two = app / "wheels-2"
    result = install(app, make_wheel(two, "2.0"), two, netns=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "处的 venv 移到" in result.stdout
    assert kiosk_version(app) == "2.0"
    assert os.readlink(app / "app/previous") == str(app / "app/venvs/legacy")
