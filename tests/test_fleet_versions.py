"""Fleet updates that must not happen silently (issue 30, issue 33): an older signed bundle
after a newer one, a bundle for another Python, an update the data partition has no room for;
and a restart systemd refuses, which must roll back and say so in one line. The kiosk side is
`Updater` with a stand-in for systemd; the scorer side is its real routes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from kiosk.errors import BundleError, UpdateRefused
from kiosk.scorer.web.updates import offer, publish, routes
from kiosk.update.apply import MIB, RestartError, Updater, download
from kiosk.update.bundle import build, new_key

from .fakewheel import make_wheel
from .helpers import ROOT, kiosk

CONSTRAINTS = ROOT / "deploy" / "constraints.txt"


class Service:
    """systemd's part, as the updater meets it: restart() and wait_ready()."""

    def __init__(self, ready: bool = True, restart_fails: bool = False) -> None:
        self.ready, self.restart_fails, self.restarts = ready, restart_fails, 0

    def stopped(self) -> bool:
        return False

    def restart(self) -> None:
        self.restarts += 1
        if self.restart_fails:
            raise RestartError("kiosk-table.service", 1)

    def wait_ready(self, timeout: float) -> bool:
        return self.ready


def bundle(tmp: Path, private: bytes, version: str, extra_wheels: tuple[str, ...] = ()) -> Path:
    wheels = make_wheel(tmp / f"wheels-{version}", version).parent
    for name in extra_wheels:  # a compiled wheel's name is what says its Python
        (wheels / name).write_bytes(b"not a real wheel: only its name is read")
    out = tmp / f"kiosk80-{version}-{len(extra_wheels)}.bundle"
    build(out, version, wheels / f"kiosk80-{version}-py3-none-any.whl", wheels, CONSTRAINTS,
          private)
    return out


@pytest.fixture
def keys():
    return new_key()


def venvs(app: Path) -> list[str]:
    return sorted(p.name.split("-")[0] for p in (app / "venvs").iterdir())


@pytest.mark.process
def test_an_older_signed_bundle_is_refused_unless_going_back_was_chosen(tmp_path, keys):
    private, public = keys
    service = Service()
    updater = Updater(tmp_path / "app", public, service, python=sys.executable)
    assert updater.apply(bundle(tmp_path, private, "0.2.1")).status == "installed"
    newer = os.path.realpath(tmp_path / "app/current")
    older = bundle(tmp_path, private, "0.1.0")
    outcome = updater.apply(older)
    assert (outcome.status, outcome.error.key) == ("refused", "fleet.update.older")
    assert os.path.realpath(tmp_path / "app/current") == newer
    assert service.restarts == 1 and venvs(tmp_path / "app") == ["0.2.1"]
    # 0.10.0 is newer than 0.2.1: versions are ordered as versions, not as text.
    assert updater.apply(bundle(tmp_path, private, "0.10.0")).status == "installed"
    assert updater.apply(older, allow_downgrade=True).status == "installed"
    assert updater.installed_version() == "0.1.0"


@pytest.mark.process
def test_publishing_an_older_version_asks_and_the_kiosks_follow_only_a_yes(tmp_path, keys):
    private, public = keys
    key = tmp_path / "update-key.pub"
    key.write_bytes(public)
    data = tmp_path / "scorer"
    data.mkdir()
    (data / "scorer.sqlite").write_bytes(b"")  # the scorer's data, for `fleet publish`
    publish(data, bundle(tmp_path, private, "0.2.1"), public)
    older = bundle(tmp_path, private, "0.1.0")
    # No terminal to ask on and no --yes: refused, in one line, and 0.2.1 is still served.
    refused = kiosk("fleet", "publish", "--data", str(data), "--key", str(key), str(older))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert "没有发布：版本 0.1.0 比记分台正在提供的 0.2.1 旧" in refused.stderr
    assert "--yes" in refused.stderr
    assert offer(data)["version"] == "0.2.1"
    with pytest.raises(UpdateRefused):
        publish(data, older, public, confirm=lambda new, served: False)
    assert offer(data)["version"] == "0.2.1"

    # A kiosk on 0.2.1 is not offered anything older; on a newer scorer offer it is.
    client = TestClient(Starlette(routes=routes(data)))
    assert download("http://testserver", tmp_path / "dl", "0.2.1", client) is None
    published = kiosk("fleet", "publish", "--data", str(data), "--key", str(key), "--yes",
                      str(older))
    assert published.returncode == 0, published.stderr
    assert offer(data) | {"sha256": ""} == {"version": "0.1.0", "sha256": "", "python": "",
                                           "size": older.stat().st_size,
                                           "allow_downgrade": True}
    fetched = download("http://testserver", tmp_path / "dl", "0.2.1", client)
    assert fetched is not None and (fetched.version, fetched.allow_downgrade) == ("0.1.0", True)


@pytest.mark.unit
def test_a_kiosk_refuses_an_older_offer_the_head_referee_did_not_choose(tmp_path, keys):
    private, _ = keys
    data = tmp_path / "scorer"
    publish(data, bundle(tmp_path, private, "0.1.0"))
    client = TestClient(Starlette(routes=routes(data)))
    with pytest.raises(UpdateRefused) as refused:
        download("http://testserver", tmp_path / "dl", "0.2.1", client)
    assert refused.value.key == "fleet.update.older"
    assert not (tmp_path / "dl").exists()  # nothing fetched


@pytest.mark.process
def test_a_restart_systemd_refuses_rolls_back_and_is_tried_again(tmp_path, keys):
    """systemd never started the new version (a masked unit, systemd not answering): nothing
    is known of the version, so it is not marked bad, and its venv waits for the next try."""
    private, public = keys
    updater = Updater(tmp_path / "app", public, Service(), python=sys.executable)
    assert updater.apply(bundle(tmp_path, private, "1.0")).status == "installed"
    before = os.path.realpath(tmp_path / "app/current")
    updater.service = Service(restart_fails=True)
    newer = bundle(tmp_path, private, "1.1")
    outcome = updater.apply(newer)
    assert outcome.status == "restart_failed"
    assert outcome.error.key == "fleet.update.restart_failed"
    assert os.path.realpath(tmp_path / "app/current") == before
    assert updater.bad_versions() == set() and venvs(tmp_path / "app") == ["1.0", "1.1"]
    updater.service = Service()  # systemd restarts it again
    assert updater.apply(newer).status == "installed"


class TableThatStarts:
    """systemd's part for a table that says READY only on some versions: on none when what
    stops it is not the version (a broken kiosk.toml or house ruleset, a missing setting)."""

    def __init__(self, app: Path, on: set[str]) -> None:
        self.app, self.on, self.started = app, on, []

    def stopped(self) -> bool:
        return False

    def restart(self) -> None:
        self.started.append((self.app / "current/.kiosk-version").read_text().strip())

    def wait_ready(self, timeout: float) -> bool:
        return self.started[-1] in self.on


@pytest.mark.process
def test_a_table_that_starts_on_no_version_does_not_mark_the_update_bad(tmp_path, keys):
    from kiosk.cli.fleet_cmd import outcome_said

    private, public = keys
    app = tmp_path / "app"
    updater = Updater(app, public, TableThatStarts(app, {"1.0", "1.1"}), python=sys.executable)
    assert updater.apply(bundle(tmp_path, private, "1.0")).status == "installed"
    before = os.path.realpath(app / "current")
    newer = bundle(tmp_path, private, "1.1")
    updater.service = TableThatStarts(app, set())  # its kiosk.toml broke meanwhile
    outcome = updater.apply(newer)
    assert outcome.status == "not_started" and updater.service.started == ["1.1", "1.0"]
    assert os.path.realpath(app / "current") == before and updater.bad_versions() == set()
    assert outcome_said(outcome, "zh-Hans") == (
        "版本 1.1 没有换上：平板用它没有按时启动，退回之前的版本也没有启动，问题不在这个版本"
        "（不记为坏版本，以后再试）。请先查明平板为什么启动不了：journalctl -u kiosk-table -b")
    # Once the table starts again, the same update goes in.
    updater.service = TableThatStarts(app, {"1.0", "1.1"})
    assert updater.apply(newer).status == "installed" and updater.installed_version() == "1.1"

    # A version the table does not start on while the one before starts: that one is bad.
    updater.service = TableThatStarts(app, {"1.1"})
    outcome = updater.apply(bundle(tmp_path, private, "1.2"))
    assert outcome.status == "rolled_back" and updater.service.started == ["1.2", "1.1"]
    assert updater.bad_versions() == {"1.2"} and venvs(app) == ["1.0", "1.1"]
    assert outcome_said(outcome, "zh-Hans") == (
        "版本 1.2 启动后没有按时报告就绪，之前的版本却照常启动：已退回之前的版本，"
        "以后不再安装这个版本")


FAILING_SYSTEMCTL = """#!/bin/sh
# systemctl for a unit that cannot be restarted (it failed, then was masked): `show`
# answers, `restart` fails.
case "$1" in
  show) printf 'ActiveState=failed\\nMainPID=0\\n' ;;
  restart) echo "Failed to restart $3: Unit $3 is masked." >&2; exit 1 ;;
esac
"""


@pytest.mark.process
def test_kiosk_fleet_update_says_a_failed_restart_in_one_line(tmp_path, keys):
    private, public = keys
    app = tmp_path / "app"
    Updater(app, public, Service(), python=sys.executable).apply(bundle(tmp_path, private, "1.0"))
    before = os.path.realpath(app / "current")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/systemctl").write_text(FAILING_SYSTEMCTL)
    (tmp_path / "bin/systemctl").chmod(0o755)
    (tmp_path / "key.pub").write_bytes(public)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}
    done = kiosk("fleet", "update", "--bundle", str(bundle(tmp_path, private, "1.1")),
                 "--key", str(tmp_path / "key.pub"), "--app-dir", str(app), "--data",
                 str(tmp_path / "data"), "--ready-timeout", "1", env=env)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ("版本 1.1 安装后无法重启 kiosk-table.service（systemctl：1），它没有"
                           "运行过：已退回之前的版本，以后再试\n")
    assert os.path.realpath(app / "current") == before
    assert not (app / "bad-versions.json").exists()


@pytest.mark.process
def test_a_relative_app_dir_still_makes_links_that_resolve(tmp_path, keys, monkeypatch):
    private, public = keys
    monkeypatch.chdir(tmp_path)
    updater = Updater(Path("rel/app"), public, Service(), python=sys.executable)
    assert updater.apply(bundle(tmp_path, private, "1.0")).status == "installed"
    assert updater.apply(bundle(tmp_path, private, "1.1")).status == "installed"
    for name in ("current", "previous"):
        target = os.readlink(tmp_path / "rel/app" / name)
        assert os.path.isabs(target) and Path(target, ".kiosk-version").is_file(), name


@pytest.mark.unit
def test_an_update_that_cannot_fit_is_refused_before_anything_is_touched(tmp_path, keys):
    private, public = keys
    service = Service()
    full = Updater(tmp_path / "app", public, service, python=sys.executable,
                   free=lambda path: 5 * MIB)
    outcome = full.apply(bundle(tmp_path, private, "1.0"))
    assert (outcome.status, outcome.error.key) == ("refused", "fleet.update.no_space")
    assert outcome.error.params["free"] == 5
    assert not (tmp_path / "app/venvs").exists() and service.restarts == 0
    # Nor is it downloaded: the scorer's offer says the size first.
    data = tmp_path / "scorer"
    publish(data, bundle(tmp_path, private, "1.0"))
    client = TestClient(Starlette(routes=routes(data)))
    with pytest.raises(UpdateRefused) as refused:
        download("http://testserver", tmp_path / "dl", None, client, free=lambda p: 5 * MIB)
    assert refused.value.key == "fleet.update.no_space"
    assert list((tmp_path / "dl").glob("*")) == []


CP311 = "lgpio-0.2.2.0-cp311-cp311-manylinux_2_17_aarch64.whl"
CP313 = "kivy-2.3.1-cp313-cp313-manylinux_2_17_aarch64.whl"
ABI3 = "cryptography-50.0.2-cp311-abi3-manylinux_2_34_aarch64.whl"  # serves 3.11 and later


@pytest.mark.process
def test_bundles_are_per_python_and_a_kiosk_takes_only_its_own(tmp_path, keys):
    private, public = keys
    for_311 = bundle(tmp_path / "a", private, "1.0", (CP311,))
    for_313 = bundle(tmp_path / "b", private, "1.0", (CP313, ABI3))
    with pytest.raises(BundleError) as mixed:
        bundle(tmp_path / "c", private, "1.0", (CP311, CP313))
    assert mixed.value.key == "fleet.update.mixed_python"

    updater = Updater(tmp_path / "app", public, Service(), python=sys.executable)
    here = updater.python_version()
    other = for_313 if here != "3.13" else for_311
    outcome = updater.apply(other)
    assert (outcome.status, outcome.error.key) == ("refused", "fleet.update.wrong_python")
    assert outcome.error.params["here"] == here
    assert not (tmp_path / "app/venvs").exists()

    # The scorer serves each Python its own; a kiosk that names none is a Bookworm one.
    data = tmp_path / "scorer"
    publish(data, for_311, public)
    publish(data, for_313, public)
    client = TestClient(Starlette(routes=routes(data)))
    assert client.get("/api/update/manifest").json()["python"] == "3.11"
    assert client.get("/api/update/manifest", params={"python": "3.13"}).json()["python"] \
        == "3.13"
    none = client.get("/api/update/manifest", params={"python": "3.12"})
    assert none.status_code == 404 and none.json()["key"] == "web.no_update"
    fetched = download("http://testserver", tmp_path / "dl", None, client, "3.13")
    assert fetched is not None and fetched.path.read_bytes() == for_313.read_bytes()
