"""Fleet updates end to end on loopback (issue 16): the technician signs a bundle, the real
scorer serves it, the kiosk fetches it, installs it into a new venv beside the running one,
switches and restarts; a kiosk that never says READY is rolled back; a bundle that is unsigned,
signed by another key or tampered with is refused before anything is installed.

systemd is not PID 1 here: `NotifySupervisor` stands in for it exactly where the updater
meets it — it starts `current/bin/kiosk table` with a $NOTIFY_SOCKET, as a Type=notify unit
does, and reports whether READY=1 arrived in time."""

from __future__ import annotations

import io
import os
import socket
import ssl
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import httpx
import pytest

from kiosk.errors import BundleError
from kiosk.sync.link import pinned_context
from kiosk.update.apply import Updater, download, table_idle
from kiosk.update.bundle import build, new_key, verify

from .fakewheel import make_wheel
from .helpers import ROOT, ScorerProcess, kiosk

pytestmark = pytest.mark.process

CONSTRAINTS = ROOT / "deploy" / "constraints.txt"


def _other_certificate() -> str:
    """A self-signed certificate that is not the scorer's (another scorer's, an impostor's)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "impostor")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(1).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


OTHER_CERTIFICATE = _other_certificate()


class NotifySupervisor:
    """A Type=notify service of one command: restart() ends the running process and starts
    `app/current/bin/kiosk table` afresh; wait_ready() is True once it sent READY=1."""

    def __init__(self, app: Path, tmp: Path) -> None:
        self.app = app
        self.socket_path = str(tmp / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.socket_path)
        self.proc: subprocess.Popen[bytes] | None = None
        self.started: list[str] = []  # the venv each start ran from

    def stopped(self) -> bool:
        return False

    def restart(self) -> None:
        self.stop()
        self.sock.settimeout(0)
        try:
            while True:
                self.sock.recv(4096)  # nothing from before counts
        except BlockingIOError:
            pass
        program = self.app / "current" / "bin" / "kiosk"
        self.started.append(os.path.realpath(self.app / "current"))
        self.proc = subprocess.Popen([str(program), "table"],
                                     env={**os.environ, "NOTIFY_SOCKET": self.socket_path})

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            self.sock.settimeout(left)
            try:
                message = self.sock.recv(4096).decode()
            except TimeoutError:
                break
            if "READY=1" in message.split("\n"):
                return True
        return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def running_version(self) -> str:
        assert self.proc is not None and self.proc.poll() is None
        venv = self.started[-1]
        return subprocess.run([f"{venv}/bin/kiosk", "version"], capture_output=True,
                              text=True).stdout.strip()


@pytest.fixture
def fleet(tmp_path):
    private, public = new_key()
    app = tmp_path / "app"
    app.mkdir()
    service = NotifySupervisor(app, tmp_path)
    updater = Updater(app, public, service, ready_timeout=15, python=sys.executable)
    yield tmp_path, private, public, updater, service
    service.stop()


def bundle_of(tmp: Path, private: bytes, version: str, ready: bool = True) -> Path:
    wheels = make_wheel(tmp / f"wheels-{version}", version, ready).parent
    out = tmp / f"kiosk80-{version}.bundle"
    build(out, version, wheels / f"kiosk80-{version}-py3-none-any.whl", wheels, CONSTRAINTS,
          private)
    return out


def test_a_good_bundle_from_the_scorer_installs_and_runs_its_version(fleet):
    tmp, private, public, updater, service = fleet
    assert updater.apply(bundle_of(tmp, private, "1.0")).status == "installed"
    assert service.running_version() == "1.0" and updater.installed_version() == "1.0"

    (tmp / "update-key.pub").write_bytes(public)
    with ScorerProcess(tmp / "scorer") as scorer:
        published = kiosk("fleet", "publish", "--data", str(scorer.data), "--key",
                          str(tmp / "update-key.pub"), str(bundle_of(tmp, private, "2.0")))
        assert published.returncode == 0, published.stderr
        assert published.stdout == "记分台现在向各平板提供版本 2.0\n"
        # The kiosk reaches the scorer with the certificate it pinned when it paired.
        certificate = ssl.get_server_certificate(("127.0.0.1", scorer.port))
        with httpx.Client(verify=pinned_context(certificate)) as client:
            fetched = download(scorer.url, updater.app_dir / "downloads", "1.0", client)
            assert fetched is not None and fetched.path.parent == updater.app_dir / "downloads"
            assert download(scorer.url, updater.app_dir / "downloads", "2.0", client) is None
        with pytest.raises(httpx.ConnectError), \
                httpx.Client(verify=pinned_context(OTHER_CERTIFICATE)) as stranger:
            download(scorer.url, updater.app_dir / "downloads", "1.0", stranger)
    outcome = updater.apply(fetched.path)
    assert (outcome.status, outcome.version) == ("installed", "2.0")
    assert service.running_version() == "2.0"
    # The venvs live in the app directory (the data partition on a card image): the new one,
    # and the one before as the way back.
    assert os.path.realpath(updater.app_dir / "previous") == service.started[0]
    assert sorted(p.name.split("-")[0] for p in (updater.app_dir / "venvs").iterdir()) == [
        "1.0", "2.0"]
    assert updater.apply(fetched.path).status == "current"


def test_a_bundle_whose_kiosk_never_says_ready_is_rolled_back(fleet):
    tmp, private, _, updater, service = fleet
    assert updater.apply(bundle_of(tmp, private, "1.0")).status == "installed"
    before = os.path.realpath(updater.app_dir / "current")
    updater.ready_timeout = 2
    broken = bundle_of(tmp, private, "1.1", ready=False)
    outcome = updater.apply(broken)
    assert outcome.status == "rolled_back" and "no READY within 2 s" in outcome.detail
    assert os.path.realpath(updater.app_dir / "current") == before
    assert service.started[-1] == before and service.running_version() == "1.0"
    assert not any(p.name.startswith("1.1") for p in (updater.app_dir / "venvs").iterdir())
    again = updater.apply(broken)  # never tried twice
    assert (again.status, again.detail) == ("refused", "this version failed to start before")
    assert service.started.count(before) == 2  # nothing restarted for the refusal


def test_bad_signatures_and_tampered_bundles_are_refused_before_installing(fleet):
    tmp, private, public, updater, service = fleet
    assert updater.apply(bundle_of(tmp, private, "1.0")).status == "installed"
    other_private, _ = new_key()
    foreign = bundle_of(tmp / "other", other_private, "6.6")
    unsigned = tmp / "unsigned.bundle"
    tampered = tmp / "tampered.bundle"
    with tarfile.open(foreign) as source, tarfile.open(unsigned, "w") as bare:
        for member in source.getmembers():
            data = source.extractfile(member).read()
            if member.name != "manifest.sig":
                bare.addfile(member, io.BytesIO(data))
    good = bundle_of(tmp / "good", private, "7.0")
    with tarfile.open(good) as source, tarfile.open(tampered, "w") as changed:
        for member in source.getmembers():
            data = source.extractfile(member).read()
            if member.name.endswith(".whl"):
                data = data.replace(b"READY=1", b"READY=0")  # a changed wheel, same manifest
            member.size = len(data)
            changed.addfile(member, io.BytesIO(data))
    for bundle, key in ((foreign, "fleet.update.bad_signature"),
                        (unsigned, "fleet.update.unsigned"), (tampered, "fleet.update.damaged")):
        with pytest.raises(BundleError) as err:
            verify(bundle, public)
        assert err.value.key == key
        outcome = updater.apply(bundle)
        assert outcome.status == "refused", bundle
    assert service.running_version() == "1.0" and len(service.started) == 1
    assert [p.name.split("-")[0] for p in (updater.app_dir / "venvs").iterdir()] == ["1.0"]
    # The scorer, given the fleet's public key, refuses to serve them too.
    (tmp / "update-key.pub").write_bytes(public)
    refused = kiosk("fleet", "publish", "--data", str(tmp / "scorer"), "--key",
                    str(tmp / "update-key.pub"), str(foreign))
    assert refused.returncode == 2 and not (tmp / "scorer" / "updates").exists()


def test_an_update_waits_while_a_match_is_in_play(fleet, tmp_path):
    from kiosk.table.journal import Journal, table_path

    tmp, private, _, updater, service = fleet
    data = tmp_path / "table"
    data.mkdir()
    assert table_idle(data)  # no journal yet
    journal = Journal(table_path(data, 4))
    now = time.time()
    journal.append("m1", [("press", {"seat": "N"})], mono=1.0, wall=now, actor="N")
    assert not table_idle(data, 300, lambda: now + 10)  # a move ten seconds ago: in play
    assert table_idle(data, 300, lambda: now + 600)  # ten minutes of nothing: idle
    journal.close()
    busy = updater.apply(bundle_of(tmp, private, "1.0"), idle=lambda: False)
    assert (busy.status, busy.version) == ("busy", "1.0")
    assert service.started == []  # nothing restarted mid-match; the venv waits, built
    assert updater.apply(bundle_of(tmp, private, "1.0")).status == "installed"


FAKE_SYSTEMCTL = """#!/bin/sh
# A stand-in for systemctl: the unit's state is a file; a restart takes a moment to stop the
# old process (still "active" meanwhile), then the new one is "activating" until it is ready.
dir=$FAKE_UNIT_DIR
case "$1" in
  show) cat "$dir/show" ;;
  restart)
    ( sleep 0.3; printf 'ActiveState=activating\\nMainPID=2222\\n' > "$dir/show"
      sleep 0.3; [ -e "$dir/ready" ] && printf 'ActiveState=active\\nMainPID=2222\\n' > "$dir/show"
    ) & ;;
esac
"""


@pytest.mark.parametrize("ready", [True, False])
def test_the_systemd_adapter_waits_for_a_new_ready_process(tmp_path, monkeypatch, ready):
    """The adapter's logic against a systemctl stand-in (systemd is not PID 1 here): the old
    process still "active" right after the restart is not taken for the new one."""
    from kiosk.update.apply import SystemdService

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(FAKE_SYSTEMCTL)
    (bin_dir / "systemctl").chmod(0o755)
    (tmp_path / "show").write_text("ActiveState=active\nMainPID=1111\n")
    if ready:
        (tmp_path / "ready").touch()
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_UNIT_DIR", str(tmp_path))
    service = SystemdService("kiosk-table.service", settle=0.2)
    assert not service.stopped()
    service.restart()
    assert service.wait_ready(3) is ready


def test_a_kiosk_stopped_by_hand_is_not_started_by_an_update(fleet, tmp_path, monkeypatch):
    """A technician stopped the table's kiosk (`systemctl stop`) to work on it: the update
    waits, built, and starts nothing; once the kiosk runs again, it is installed."""
    from kiosk.cli.fleet_cmd import outcome_said
    from kiosk.update.apply import SystemdService

    tmp, private, _, updater, _ = fleet
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(FAKE_SYSTEMCTL)
    (bin_dir / "systemctl").chmod(0o755)
    (tmp_path / "show").write_text("ActiveState=inactive\nMainPID=0\nConditionResult=yes\n")
    (tmp_path / "ready").touch()
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_UNIT_DIR", str(tmp_path))
    updater.service = SystemdService("kiosk-table.service", settle=0.2)
    waits = updater.apply(bundle_of(tmp, private, "1.0"))
    assert (waits.status, waits.version) == ("stopped", "1.0")
    assert updater.installed_version() is None  # nothing switched
    assert (tmp_path / "show").read_text().startswith("ActiveState=inactive")  # not started
    # (a card whose settings were refused is not "stopped": its unit's conditions failed)
    (tmp_path / "show").write_text("ActiveState=inactive\nMainPID=0\nConditionResult=no\n")
    assert not updater.service.stopped()
    assert outcome_said(waits, "zh-Hans") == \
        "平板程序已被手动停止：版本 1.0 等它再运行时再安装（不会替你启动它）"
    (tmp_path / "show").write_text("ActiveState=active\nMainPID=1111\n")  # it runs again
    assert updater.apply(bundle_of(tmp, private, "1.0")).status == "installed"
