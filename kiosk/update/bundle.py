"""The signed update bundle: one file the technician makes and signs on their own machine, the
scorer serves, and every kiosk checks before it installs anything.

A bundle is a tar file of:

- `manifest.json`: the version, the project's wheel, the extra to install (table), the
  Python its compiled wheels are for (`3.11` on Bookworm, `3.13` on Trixie; empty when every
  wheel is pure Python), and the SHA-256 of every other file;
- `manifest.sig`: the Ed25519 signature of `manifest.json`, by the fleet's update key;
- `constraints.txt` and `wheels/*.whl`: the project's wheel and every wheel it needs (a
  wheelhouse: the kiosk installs with pip --no-index, so nothing comes from the internet).

A kiosk holds only the public key (`/etc/kiosk/update-key.pub`). A bundle without a signature,
signed by another key, or whose files do not match the manifest is refused before a single
file of it is used."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import BundleError
from ..rules.errors import Words, words

MANIFEST, SIGNATURE, CONSTRAINTS = "manifest.json", "manifest.sig", "constraints.txt"
VERSION = re.compile(r"^[0-9][0-9A-Za-z.+-]{0,40}$")
MEMBER = re.compile(r"^(constraints\.txt|wheels/[A-Za-z0-9_.+-]+\.whl)$")
PYTHON = re.compile(r"^3\.[0-9]{1,2}$")
# A compiled wheel's ABI tag names the CPython it is for: cp311 is 3.11, cp313 is 3.13 (abi3,
# the stable ABI, and none say nothing: such a wheel serves many).
CP_ABI = re.compile(r"^cp3([0-9]{1,2})$")
MAX_BUNDLE = 512 * 1024 * 1024


def _refuse(problem: str, detail: str | Words = "") -> BundleError:
    """The refusal `problem` (`fleet.update.*`); `detail` is what the bundle says (a name, a
    version) or, in words (`bundle.why.*`), what is wrong with it."""
    shown = detail.key if isinstance(detail, Words) else detail
    return BundleError(f"update bundle: {problem}: {shown}".rstrip(": ")).explained(
        f"fleet.update.{problem}", detail=detail)


@dataclass(frozen=True)
class Manifest:
    version: str
    wheel: str  # its name under wheels/
    extra: str
    files: dict[str, str]  # member name -> sha256 hex
    # The Python (3.11, 3.13) its compiled wheels need; "" when any Python 3 will do (pure
    # wheels only; bundles made before this field existed read as "").
    python: str = ""

    def to_json(self) -> bytes:
        fields = {"version": self.version, "wheel": self.wheel, "extra": self.extra,
                  "files": self.files}
        if self.python:
            fields["python"] = self.python
        return json.dumps(fields, sort_keys=True, indent=1).encode()


def new_key() -> tuple[bytes, bytes]:
    """A new update key: (private key PEM, public key PEM). Keep the private key off the
    scorer and the kiosks."""
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def wheels_python(names: list[str]) -> str:
    """The one Python the compiled wheels among `names` are for ("3.11"), or "" when all are
    pure. Raises BundleError when they are for more than one: such a bundle installs nowhere
    whole."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    found: set[str] = set()
    for name in names:
        try:
            tags = parse_wheel_filename(name)[3]
        except InvalidWheelFilename:
            continue  # a name pip itself would not take: it says nothing of the Python
        found |= {f"3.{m.group(1)}" for tag in tags if (m := CP_ABI.match(tag.abi))}
    if len(found) > 1:
        raise _refuse("mixed_python", ", ".join(sorted(found)))
    return found.pop() if found else ""


def build(out: Path, version: str, wheel: Path, wheelhouse: Path, constraints: Path,
          private_key_pem: bytes, extra: str = "table") -> Manifest:
    """Write a signed bundle to `out`. `wheel` is the project's wheel; `wheelhouse` holds the
    wheels it needs (it may hold `wheel` too); the Python it is for is read from the compiled
    wheels' tags. Raises BundleError on a bad version or name, or wheels for two Pythons."""
    if not VERSION.match(version) or not _pep440(version):
        raise _refuse("bad_version", version)
    try:
        key = serialization.load_pem_private_key(private_key_pem, password=None)
    except (ValueError, TypeError):  # not a PEM key, or one with a password
        raise _refuse("bad_key", words("bundle.why.not_private_key")) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise _refuse("bad_key", words("bundle.why.not_private_key"))
    members = {CONSTRAINTS: constraints, f"wheels/{wheel.name}": wheel}
    for path in sorted(wheelhouse.glob("*.whl")):
        members.setdefault(f"wheels/{path.name}", path)
    for name in members:
        if not MEMBER.match(name):
            raise _refuse("bad_member", name)
    files = {name: _sha256(path) for name, path in members.items()}  # a missing one: OSError
    if not _wheel_is(wheel.name, version):  # the kiosks would install another than they say
        raise BundleError(f"update bundle: {wheel.name} is not version {version}").explained(
            "fleet.update.not_the_wheels", version=version, wheel=wheel.name)
    python = wheels_python([name.removeprefix("wheels/") for name in members
                            if name.endswith(".whl")])
    manifest = Manifest(version, wheel.name, extra, files, python)
    body = manifest.to_json()
    temp = out.with_name(out.name + ".part")
    with tarfile.open(temp, "w") as tar:
        for name, data in ((MANIFEST, body), (SIGNATURE, key.sign(body))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, path in members.items():
            tar.add(path, arcname=name, recursive=False)
    temp.replace(out)
    return manifest


def load_public_key(pem: bytes) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError:  # not a PEM public key (the private one, given by mistake)
        raise _refuse("bad_key", words("bundle.why.not_public_key")) from None
    if not isinstance(key, Ed25519PublicKey):
        raise _refuse("bad_key", words("bundle.why.not_public_key"))
    return key


def verify(path: Path, public_key_pem: bytes) -> Manifest:
    """The bundle's manifest, once its signature and every file's hash are checked. Raises
    BundleError otherwise (and for anything but plain files with the expected names)."""
    key = load_public_key(public_key_pem)
    if path.stat().st_size > MAX_BUNDLE:
        raise _refuse("damaged", words("bundle.why.too_large"))
    try:
        with tarfile.open(path, "r:") as tar:
            members = {m.name: m for m in tar.getmembers()}
            for name, member in members.items():
                if not member.isfile() or (name not in (MANIFEST, SIGNATURE) and \
                        not MEMBER.match(name)):
                    raise _refuse("bad_member", name)
            if SIGNATURE not in members:
                raise _refuse("unsigned")
            if MANIFEST not in members:
                raise _refuse("damaged", words("bundle.why.no_manifest"))
            body = _read(tar, members[MANIFEST])
            try:
                key.verify(_read(tar, members[SIGNATURE]), body)
            except InvalidSignature:
                raise _refuse("bad_signature") from None
            manifest = _parse(body)
            if set(manifest.files) != set(members) - {MANIFEST, SIGNATURE}:
                raise _refuse("damaged", words("bundle.why.files_differ"))
            for name, digest in manifest.files.items():
                if hashlib.sha256(_read(tar, members[name])).hexdigest() != digest:
                    raise _refuse("damaged", words("bundle.why.hash", name=name))
    except tarfile.TarError:
        raise _refuse("damaged", words("bundle.why.not_tar")) from None
    except OSError:
        raise _refuse("damaged", words("bundle.why.unreadable")) from None
    return manifest


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = tar.extractfile(member)
    if handle is None:
        raise _refuse("bad_member", member.name)
    return handle.read()


def _parse(body: bytes) -> Manifest:
    try:
        raw = json.loads(body)
        manifest = Manifest(str(raw["version"]), str(raw["wheel"]), str(raw["extra"]),
                            {str(k): str(v) for k, v in raw["files"].items()},
                            str(raw.get("python", "")))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise _refuse("damaged", words("bundle.why.bad_manifest")) from None
    if not VERSION.match(manifest.version) or f"wheels/{manifest.wheel}" not in manifest.files \
            or manifest.extra not in ("table", "scorer") or not _pep440(manifest.version) \
            or (manifest.python and not PYTHON.match(manifest.python)):
        raise _refuse("damaged", words("bundle.why.bad_manifest"))
    return manifest


def _pep440(version: str) -> bool:
    """Whether `version` is one that can be ordered (PEP 440): a kiosk refuses to go back to
    an older version, so it must be able to tell which is older."""
    from packaging.version import InvalidVersion, Version

    try:
        Version(version)
    except InvalidVersion:
        return False
    return True


def _wheel_is(name: str, version: str) -> bool:
    """Whether the wheel file `name` is of `version` (its file name says its version)."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename
    from packaging.version import Version

    try:
        return parse_wheel_filename(name)[1] == Version(version)
    except InvalidWheelFilename:
        return False


def is_older(version: str, than: str) -> bool:
    """True when `version` is older than `than`; False when either cannot be ordered (an
    install from before versions were checked)."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version) < Version(than)
    except InvalidVersion:
        return False


def extract(path: Path, manifest: Manifest, into: Path) -> None:
    """Unpack a verified bundle's files into `into` (constraints.txt, wheels/)."""
    with tarfile.open(path, "r:") as tar:
        for name in manifest.files:
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_read(tar, tar.getmember(name)))
