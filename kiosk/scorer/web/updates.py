"""The scorer serves the kiosks' update bundle (see kiosk/update/): the technician signs a
bundle on their own machine and publishes it here (`kiosk fleet publish`); every kiosk asks
`/api/update/manifest?python=3.11` which version is served for its Python, fetches
`/api/update/bundle?python=3.11`, and checks the signature itself. The scorer holds no signing
key and installs nothing.

One bundle is served per Python: a hall may mix cards of Raspberry Pi OS Bookworm (Python 3.11)
and Trixie (3.13), whose compiled wheels differ. A bundle of pure-Python wheels serves every
kiosk that has no bundle of its own Python. A kiosk that names no Python (made before this) is
a Bookworm one: 3.11.

Publishing an older version than the one served is a downgrade: `confirm` must say yes (the
command asks the head referee, or takes --yes), and the offer then tells the kiosks that going
back was chosen; without it a kiosk refuses a version older than its own."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ...errors import UpdateRefused
from . import refusals

BUNDLE, OFFER = "current.bundle", "current.json"
ANY = "any"  # the slot of a bundle of pure wheels
LEGACY_PYTHON = "3.11"  # what a kiosk that names no Python has


def updates_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "updates"


def _slot(data_dir: str | Path, python: str) -> Path:
    return updates_dir(data_dir) / (f"python-{python}" if python else ANY)


def publish(data_dir: str | Path, bundle: Path, public_key: bytes | None = None,
            confirm: Callable[[str, str], bool] | None = None) -> dict[str, Any]:
    """Serve `bundle` from now on, to the kiosks of its Python. With the fleet's public key the
    bundle is checked first (a bad one raises BundleError and the one served before stays).
    An older version than the one served asks `confirm(new, served)`; without a yes it raises
    UpdateRefused and nothing changes. Returns the offer."""
    from ...update.bundle import is_older, verify  # (here: cryptography, ~15 ms of the start)

    manifest = verify(bundle, public_key) if public_key else _unverified(bundle)
    version, python = manifest.version, manifest.python
    served = _read_offer(_slot(data_dir, python))
    older = served is not None and is_older(version, str(served["version"]))
    if older and served is not None and (confirm is None or
                                         not confirm(version, str(served["version"]))):
        raise UpdateRefused(f"{version} is older than the served {served['version']}").explained(
            "fleet.publish.older", version=version, served=str(served["version"]))
    folder = _slot(data_dir, python)
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / (BUNDLE + ".new")
    shutil.copyfile(bundle, temp)
    digest = hashlib.sha256(temp.read_bytes()).hexdigest()
    offer = {"version": version, "sha256": digest, "size": temp.stat().st_size,
             "python": python, "allow_downgrade": older}
    temp.replace(folder / BUNDLE)
    (folder / (OFFER + ".new")).write_text(json.dumps(offer))
    (folder / (OFFER + ".new")).replace(folder / OFFER)
    return offer


def _unverified(bundle: Path) -> Any:
    import tarfile

    from ...update.bundle import MANIFEST, _parse

    with tarfile.open(bundle, "r:") as tar:
        handle = tar.extractfile(MANIFEST)
        if handle is None:
            raise ValueError("no manifest")
        return _parse(handle.read())


def _read_offer(folder: Path) -> dict[str, Any] | None:
    try:
        return dict(json.loads((folder / OFFER).read_text()))
    except (OSError, ValueError):
        return None


def _served_folder(data_dir: str | Path, python: str) -> Path | None:
    """Where the bundle for a kiosk of `python` is: its own Python's, else a pure one, else
    (a scorer that published before bundles were per Python) the old single place."""
    candidates = [_slot(data_dir, python), _slot(data_dir, ""), updates_dir(data_dir)]
    for folder in candidates:
        if (folder / OFFER).exists() and (folder / BUNDLE).exists():
            return folder
    return None


def offer(data_dir: str | Path, python: str = LEGACY_PYTHON) -> dict[str, Any] | None:
    folder = _served_folder(data_dir, python)
    return None if folder is None else _read_offer(folder)


def _python_of(request: Request) -> str | None:
    from ...update.bundle import PYTHON  # (here, not at the start: it imports cryptography)

    python = request.query_params.get("python", LEGACY_PYTHON)
    return python if python == "" or PYTHON.match(python) else None


def routes(data_dir: str | Path) -> list[Route]:
    async def manifest(request: Request) -> Response:
        python = _python_of(request)
        current = offer(data_dir, python) if python is not None else None
        if current is None:
            return refusals.page(request, 404, "web.no_update")
        return JSONResponse(current)

    async def bundle(request: Request) -> Response:
        python = _python_of(request)
        folder = _served_folder(data_dir, python) if python is not None else None
        if folder is None:
            return refusals.page(request, 404, "web.no_update")
        return FileResponse(folder / BUNDLE, media_type="application/octet-stream")

    return [Route("/api/update/manifest", manifest), Route("/api/update/bundle", bundle)]
