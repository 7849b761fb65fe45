"""A stand-in `kiosk80` wheel, made in a second without a network or a build backend, for the
tests of installing and updating: what they test is how versions are installed, switched,
started and rolled back, not the kiosk inside (which every other test runs for real).

Its `kiosk` command answers `rules list` (the installer's check), `version`, and `table`, which
behaves as the kiosk does under its unit: it says READY=1 to $NOTIFY_SOCKET (unless the wheel
was made `ready=False`, a broken release), then keeps running."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

APP = '''\
import os, socket, sys, time

VERSION = {version!r}
READY = {ready!r}


def notify(message):
    address = os.environ.get("NOTIFY_SOCKET", "")
    if address.startswith("@"):
        address = "\\0" + address[1:]
    if not address:
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(address)
        sock.sendall(message.encode())


def main():
    args = sys.argv[1:]
    if args[:2] == ["rules", "list"]:
        print("xiamen-2015")
    elif args[:1] == ["version"]:
        print(VERSION)
    elif args[:1] == ["table"]:
        if READY:
            notify("READY=1")
        while True:
            time.sleep(1)
    else:
        print("unknown command", args, file=sys.stderr)
        return 2
    return 0
'''


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
        b"=").decode()


def make_wheel(directory: Path, version: str, ready: bool = True) -> Path:
    """Write kiosk80-VERSION-py3-none-any.whl into `directory`; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    info = f"kiosk80-{version}.dist-info"
    files = {
        "kiosk_fake.py": APP.format(version=version, ready=ready).encode(),
        f"{info}/METADATA": (f"Metadata-Version: 2.1\nName: kiosk80\nVersion: {version}\n"
                             "Provides-Extra: table\nProvides-Extra: scorer\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: fakewheel\nRoot-Is-Purelib: true\n"
                         b"Tag: py3-none-any\n",
        f"{info}/entry_points.txt": b"[console_scripts]\nkiosk = kiosk_fake:main\n",
    }
    record = "".join(f"{name},{_digest(data)},{len(data)}\n" for name, data in files.items())
    record += f"{info}/RECORD,,\n"
    path = directory / f"kiosk80-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr(f"{info}/RECORD", record)
    return path


def make_source(directory: Path, version: str) -> Path:
    """A project directory whose build needs setuptools from the index (as the real one)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "kiosk80"\nversion = "{version}"\n'
        '[project.optional-dependencies]\ntable = []\n'
        '[project.scripts]\nkiosk = "kiosk_fake:main"\n')
    (directory / "kiosk_fake.py").write_text(APP.format(version=version, ready=True))
    return directory
