"""A kiosk updates itself from the scorer, safely.

`kiosk-update.timer` runs `kiosk fleet update` as root every few minutes. It asks the scorer
which version it serves; when that is not the installed one, it downloads the bundle to the
data partition, checks its signature (bundle.py), installs it into a **new** venv beside the
running one (pip --no-index from the bundle's wheels: nothing from the internet), checks it,
and waits until the table is idle (no event for a few minutes: never mid-hand) and its kiosk
runs (one a technician stopped by hand stays stopped: no update starts it). Then it points
`current` at the new venv (one rename) and restarts the kiosk. If systemd does not hear the
new kiosk's READY=1 within N seconds, `current` goes back to the version before and the kiosk
is restarted on it. Only when that one says READY again is the new version remembered as bad
(not tried again): a table that starts on no version (its kiosk.toml, its house rulesets, its
unit) is not the version's fault, nor is a unit systemd cannot restart at all; such an update
is tried again later. Nothing is ever uninstalled first; the venvs live on the data partition
(a read-only root keeps them).

Refused before anything is touched: a version older than the installed one (unless the head
referee allowed it: `kiosk fleet publish` asked, or `--allow-downgrade` by hand), a bundle for
another Python than the kiosk's (Bookworm has 3.11, Trixie 3.13: each gets its own bundle),
and an update the data partition has no room for."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import httpx

from ..errors import BundleError, UpdateRefused
from .bundle import Manifest, extract, is_older, verify

APP_DIR = Path("/var/lib/kiosk-app")
VERSION_FILE = ".kiosk-version"
MIB = 1024 * 1024
# Room an install takes besides the bundle itself: its wheels unpacked for pip (about the
# bundle's size) and the new venv (wheels are zip files: installed, about three times their
# size), plus a margin for the journal, which shares the partition and must never run out.
UNPACKED_PER_BUNDLE_BYTE = 4
MARGIN = 64 * MIB


class RestartError(Exception):
    """systemd could not restart the kiosk's unit (`systemctl restart` failed)."""

    def __init__(self, unit: str, code: int | str) -> None:
        super().__init__(f"systemctl restart {unit}: {code}")
        self.unit, self.code = unit, code


def room_needed(bundle_size: int) -> int:
    """Free bytes an install of a bundle of `bundle_size` bytes needs, the bundle aside."""
    return bundle_size * UNPACKED_PER_BUNDLE_BYTE + MARGIN


def free_bytes(path: Path) -> int:
    """Free bytes for root on the file system holding `path` (or its nearest parent)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


def no_room(version: str, need: int, free: int) -> UpdateRefused:
    return UpdateRefused(f"update {version}: needs {need} bytes, {free} free").explained(
        "fleet.update.no_space", version=version, need=-(-need // MIB), free=free // MIB)


@dataclass(frozen=True)
class Outcome:
    """What an update did: `status` is current (nothing to do), installed, rolled_back (no
    READY in time while the version before says it again: marked bad), not_started (no READY
    from the version before either: the table's trouble, not the version's; rolled back and
    tried again later), restart_failed (systemd could not restart the unit: rolled back, and
    tried again later), failed (the new version did not install; the old one runs on), refused
    (a bad bundle, an older version, another Python, no room, or a version that failed
    before), busy (a match is on: later), stopped (the kiosk was stopped by hand: later, once
    it runs again) or offline (no scorer)."""

    status: str
    version: str = ""
    detail: str = ""
    # Why, in catalog words: a refused bundle's problem (BundleError, UpdateRefused), or the
    # restart that failed (status restart_failed: rolled back all the same).
    error: Exception | None = None


class Service(Protocol):
    def stopped(self) -> bool: ...
    def restart(self) -> None: ...
    def wait_ready(self, timeout: float) -> bool: ...


class SystemdService:
    """The kiosk's unit. Type=notify: the unit is "active" only once the app said READY=1;
    until then it is "activating" (also while Restart= brings a crashing app back)."""

    def __init__(self, unit: str = "kiosk-table.service", settle: float = 5.0) -> None:
        self.unit, self.settle = unit, settle
        self._before = "0"

    def _show(self) -> dict[str, str]:
        try:
            out = subprocess.run(["systemctl", "show", "-p",
                                  "ActiveState,MainPID,ConditionResult", self.unit],
                                 capture_output=True, text=True, timeout=30).stdout
        except (subprocess.TimeoutExpired, OSError):
            return {}  # systemd not answering: nothing is active (a restart then fails)
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def stopped(self) -> bool:
        """Whether the kiosk was stopped (`systemctl stop`: a technician at work on the
        table): not running, though it could start (not a card whose settings were refused,
        which its conditions keep from starting), nor starting or failed."""
        state = self._show()
        return state.get("ActiveState") == "inactive" and state.get("ConditionResult") == "yes"

    def restart(self) -> None:
        """Raises RestartError when systemctl cannot queue the restart (a unit that is
        masked or missing, systemd not answering)."""
        self._before = self._show().get("MainPID", "0")
        try:
            subprocess.run(["systemctl", "restart", "--no-block", self.unit], check=True,
                           timeout=30, capture_output=True)
        except subprocess.CalledProcessError as exc:
            raise RestartError(self.unit, exc.returncode) from None
        except (subprocess.TimeoutExpired, OSError) as exc:
            raise RestartError(self.unit, type(exc).__name__) from None

    def wait_ready(self, timeout: float) -> bool:
        """True once a new process of the unit is active (it said READY=1), and still so
        `settle` seconds later."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self._show()
            # Right after the restart was queued the old process may still be "active".
            if state.get("ActiveState") == "active" and \
                    state.get("MainPID") not in ("0", self._before):
                time.sleep(self.settle)
                again = self._show()
                return again.get("ActiveState") == "active" and \
                    again.get("MainPID") == state.get("MainPID")
            time.sleep(0.5)
        return False


def table_idle(data_dir: Path, idle_after: float = 300.0,
               now: Callable[[], float] = time.time) -> bool:
    """True when no table journal in `data_dir` has had an event for `idle_after` seconds (a
    match in play writes every few seconds). Read-only: the kiosk keeps writing meanwhile."""
    for path in data_dir.glob("table-*.sqlite"):
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
                (last,) = db.execute("SELECT max(wall) FROM events").fetchone()
        except sqlite3.Error:
            return False  # cannot tell: not now
        if last is not None and now() - float(last) < idle_after:
            return False
    return True


class Updater:
    """Installs verified bundles into `app_dir` (venvs/, current, previous) and switches the
    kiosk's service over to them."""

    def __init__(self, app_dir: Path, public_key: bytes, service: Service,
                 ready_timeout: float = 90.0, python: str = "python3",
                 free: Callable[[Path], int] = free_bytes) -> None:
        # Absolute: `current` and `previous` are links read from anywhere (the unit, pip,
        # the next update), so a relative --app-dir must not make relative link targets.
        self.app_dir = Path(os.path.abspath(app_dir))
        self.public_key, self.service = public_key, service
        self.ready_timeout, self.python, self.free = ready_timeout, python, free
        self._python_version: str | None = None

    def python_version(self) -> str:
        """The major.minor of the Python new venvs are made with ("3.11")."""
        if self._python_version is None:
            done = subprocess.run([self.python, "-c", "import sys; print('%d.%d' % "
                                   "sys.version_info[:2])"], capture_output=True, text=True,
                                  timeout=60)
            self._python_version = done.stdout.strip()
        return self._python_version

    # -- what is installed -------------------------------------------------------------------

    def installed_version(self) -> str | None:
        try:
            return (self.app_dir / "current" / VERSION_FILE).read_text().strip() or None
        except OSError:
            return None

    def bad_versions(self) -> set[str]:
        try:
            return set(json.loads((self.app_dir / "bad-versions.json").read_text()))
        except (OSError, ValueError):
            return set()

    def _mark_bad(self, version: str) -> None:
        bad = sorted(self.bad_versions() | {version})
        _write_atomic(self.app_dir / "bad-versions.json", json.dumps(bad).encode())

    # -- the update --------------------------------------------------------------------------

    def apply(self, bundle: Path, idle: Callable[[], bool] = lambda: True,
              allow_downgrade: bool = False) -> Outcome:
        """Install `bundle` and switch to it (see the module's words). `allow_downgrade`: the
        head referee chose to go back to an older version."""
        try:
            manifest = verify(bundle, self.public_key)
        except BundleError as exc:
            return Outcome("refused", "", str(exc), exc)
        installed = self.installed_version()
        if manifest.version == installed:
            return Outcome("current", manifest.version)
        if manifest.version in self.bad_versions():
            return Outcome("refused", manifest.version, "this version failed to start before")
        refusal = self._refusal(bundle, manifest, installed, allow_downgrade)
        if refusal is not None:
            return Outcome("refused", manifest.version, str(refusal), refusal)
        venv = self.app_dir / "venvs" / f"{manifest.version}-{_digest(manifest)}"
        if not (venv / VERSION_FILE).exists():
            problem = self._install(bundle, manifest, venv)
            if problem:
                shutil.rmtree(venv, ignore_errors=True)
                return Outcome("failed", manifest.version, problem)
        if not idle():
            return Outcome("busy", manifest.version, "a match is in play")
        if self.service.stopped():  # (a restart would bring it back under the technician)
            return Outcome("stopped", manifest.version, "the kiosk was stopped")
        return self._switch(venv, manifest.version)

    def _refusal(self, bundle: Path, manifest: Manifest, installed: str | None,
                 allow_downgrade: bool) -> UpdateRefused | None:
        """Why this bundle must not be installed here, before anything is touched; or None."""
        if installed and not allow_downgrade and is_older(manifest.version, installed):
            return UpdateRefused(f"{manifest.version} is older than {installed}").explained(
                "fleet.update.older", version=manifest.version, installed=installed)
        if manifest.python and manifest.python != self.python_version():
            return UpdateRefused(f"bundle for Python {manifest.python}").explained(
                "fleet.update.wrong_python", python=manifest.python,
                here=self.python_version())
        venv_built = any((self.app_dir / "venvs").glob(f"{manifest.version}-*/{VERSION_FILE}"))
        need, free = room_needed(bundle.stat().st_size), self.free(self.app_dir)
        if not venv_built and free < need:
            return no_room(manifest.version, need, free)
        return None

    def _system_site_packages(self) -> bool:
        """Whether the running venv sees the OS's Python packages: on Trixie (Python 3.13)
        lgpio comes from the OS (python3-lgpio; PyPI has no wheel for 3.13), so every new
        venv must see it too."""
        try:
            config = (self.app_dir / "current" / "pyvenv.cfg").read_text()
        except OSError:
            return False
        return any(line.replace(" ", "").lower() == "include-system-site-packages=true"
                   for line in config.splitlines())

    def _install(self, bundle: Path, manifest: Manifest, venv: Path) -> str:
        """Build the new venv; returns "" or what went wrong."""
        shutil.rmtree(venv, ignore_errors=True)  # the rest of an interrupted try
        venv.parent.mkdir(parents=True, exist_ok=True)
        system_site = ["--system-site-packages"] if self._system_site_packages() else []
        with tempfile.TemporaryDirectory(dir=self.app_dir, prefix="staging-") as staging:
            files = Path(staging)
            extract(bundle, manifest, files)
            wheel = files / "wheels" / manifest.wheel
            steps = [
                [self.python, "-m", "venv", *system_site, str(venv)],
                [str(venv / "bin" / "python"), "-m", "pip", "--isolated", "install", "--quiet",
                 "--no-index", "--find-links", str(files / "wheels"),
                 "--constraint", str(files / "constraints.txt"), f"{wheel}[{manifest.extra}]"],
                [str(venv / "bin" / "kiosk"), "rules", "list"],
            ]
            for step in steps:
                try:
                    done = subprocess.run(step, capture_output=True, text=True, timeout=1800)
                except (subprocess.TimeoutExpired, OSError) as exc:
                    return f"{Path(step[0]).name} {' '.join(step[1:3])}: {type(exc).__name__}"
                if done.returncode != 0:
                    tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                    return f"{Path(step[0]).name} {' '.join(step[1:3])}: {' / '.join(tail)}"
        _write_atomic(venv / VERSION_FILE, f"{manifest.version}\n".encode())
        return ""

    def _switch(self, venv: Path, version: str) -> Outcome:
        current = self.app_dir / "current"
        before = self._target(current)
        _link(current, str(venv))
        failed: RestartError | None = None
        try:
            self.service.restart()
            ready = self.service.wait_ready(self.ready_timeout)
        except RestartError as exc:
            ready, failed = False, exc
        if ready:
            if before and before != str(venv):
                _link(self.app_dir / "previous", before)
            self._prune()
            return Outcome("installed", version)
        # Back to the version that ran before. Whether that one says READY again is what tells
        # a bad version from a table that starts on no version (its settings, its rulesets,
        # its unit): only the first is the version's fault.
        back = False  # a first install has no version before to tell it by
        if before:
            _link(current, before)
            try:
                self.service.restart()
                back = self.service.wait_ready(self.ready_timeout)
            except RestartError:
                pass  # the unit's own Restart= (or the next boot) starts the version before
        back_on = self.installed_version() or "the version before"
        if failed is not None:  # systemd never started the new version: nothing known of it
            return Outcome("restart_failed", version, f"{failed}; back on {back_on}",
                           UpdateRefused(str(failed)).explained(
                               "fleet.update.restart_failed", unit=failed.unit,
                               code=failed.code))
        if not back:  # kept, built, for the next try once the table starts again
            return Outcome("not_started", version,
                           f"no READY within {self.ready_timeout:g} s from this version nor "
                           f"from {back_on}")
        self._mark_bad(version)  # never this one again
        shutil.rmtree(venv, ignore_errors=True)
        return Outcome("rolled_back", version,
                       f"no READY within {self.ready_timeout:g} s; back on {back_on}")

    def _target(self, link: Path) -> str | None:
        """Where `link` points, as an absolute path (an old install's relative link too)."""
        if not link.is_symlink():
            return None
        return os.path.normpath(os.path.join(link.parent, os.readlink(link)))

    def _prune(self) -> None:
        keep = {os.path.realpath(self.app_dir / name) for name in ("current", "previous")}
        for venv in (self.app_dir / "venvs").iterdir():
            if venv.is_dir() and os.path.realpath(venv) not in keep:
                shutil.rmtree(venv, ignore_errors=True)


def _digest(manifest: Manifest) -> str:
    return hashlib.sha256(manifest.to_json()).hexdigest()[:12]


def _link(path: Path, target: str) -> None:
    """Point `path` at `target` with one rename: it always names the old or the new."""
    temp = path.with_name(path.name + ".new")
    temp.unlink(missing_ok=True)
    temp.symlink_to(target)
    temp.replace(path)


def _write_atomic(path: Path, data: bytes) -> None:
    temp = path.with_name(path.name + ".new")
    temp.write_bytes(data)
    temp.replace(path)


def scorer_client(data_dir: Path, table: int | None) -> httpx.Client:
    """HTTPS to the scorer with the certificate this kiosk pinned when it paired; before it
    paired, any certificate (the bundle's own signature is what is trusted either way)."""
    from ..sync.link import Credential, _unverified_context, pinned_context

    credential = Credential.load(data_dir, table) if table is not None else None
    if credential is not None and credential.certificate:
        return httpx.Client(verify=pinned_context(credential.certificate), timeout=30)
    return httpx.Client(verify=_unverified_context(), timeout=30)


@dataclass(frozen=True)
class Fetched:
    """A bundle the scorer served: where it was saved, and whether the head referee allowed
    it to replace a newer version (`kiosk fleet publish` asked, and was told yes)."""

    path: Path
    version: str
    allow_downgrade: bool = False


def download(scorer: str, into: Path, installed: str | None,
             client: httpx.Client | None = None, python: str = "",
             free: Callable[[Path], int] = free_bytes) -> Fetched | None:
    """The scorer's bundle for this kiosk's Python (`python`, "3.11"), if it serves one for
    another version than `installed`: fetched into `into` (the data partition), its size and
    SHA-256 checked against what the scorer announced. Returns it, or None when there is
    nothing new. Raises httpx.HTTPError, BundleError (a download that does not match), or
    UpdateRefused before fetching anything: an older version the head referee did not allow,
    or one the data partition has no room for."""
    from ..sync.link import https

    scorer = https(scorer)
    own = client is None
    client = client or httpx.Client(timeout=30)
    try:
        answer = client.get(f"{scorer.rstrip('/')}/api/update/manifest",
                            params={"python": python} if python else None)
        if answer.status_code == 404:
            return None  # the scorer serves no update
        answer.raise_for_status()
        offer = answer.json()
        version, digest = str(offer["version"]), str(offer["sha256"])
        size, allowed = int(offer.get("size", 0)), offer.get("allow_downgrade") is True
        if version == installed:
            return None
        if installed and not allowed and is_older(version, installed):
            raise UpdateRefused(f"{version} is older than {installed}").explained(
                "fleet.update.older", version=version, installed=installed)
        into.mkdir(parents=True, exist_ok=True)
        path = into / f"kiosk80-{digest[:16]}.bundle"
        if path.exists() and _file_sha256(path) == digest:
            return Fetched(path, version, allowed)
        need = size + room_needed(size)
        if free(into) < need:
            raise no_room(version, need, free(into))
        part = path.with_name(path.name + ".part")
        hasher = hashlib.sha256()
        with client.stream("GET", f"{scorer.rstrip('/')}/api/update/bundle",
                           params={"python": python} if python else None) as stream, \
                part.open("wb") as handle:
            stream.raise_for_status()
            for chunk in stream.iter_bytes(1 << 16):
                hasher.update(chunk)
                handle.write(chunk)
        if hasher.hexdigest() != digest:
            part.unlink(missing_ok=True)
            raise BundleError("update bundle: damaged: the download does not match the "
                              "scorer's checksum").explained("fleet.update.damaged",
                                                             detail="checksum")
        part.replace(path)
        for old in into.glob("kiosk80-*.bundle"):
            if old != path:
                old.unlink(missing_ok=True)
        return Fetched(path, version, allowed)
    finally:
        if own:
            client.close()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def python_for_venvs() -> str:
    """The interpreter new venvs are made with: the OS's python3 on a kiosk."""
    return shutil.which("python3") or sys.executable
