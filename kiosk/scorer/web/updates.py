"""The scorer serves the kiosks' update bundle (see kiosk/update/): the technician signs a
bundle on their own machine and publishes it here (`kiosk fleet publish`); every kiosk asks
`/api/update/manifest` which version is served, fetches `/api/update/bundle`, and checks the
signature itself. The scorer holds no signing key and installs nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ...update.bundle import verify

BUNDLE, OFFER = "current.bundle", "current.json"


def updates_dir(data_dir: str | Path) -> Path:
    return Path(data_dir) / "updates"


def publish(data_dir: str | Path, bundle: Path, public_key: bytes | None = None) -> dict[str, Any]:
    """Serve `bundle` from now on. With the fleet's public key the bundle is checked first (a
    bad one raises BundleError and the one served before stays). Returns the offer."""
    version = verify(bundle, public_key).version if public_key else _unverified_version(bundle)
    folder = updates_dir(data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / (BUNDLE + ".new")
    shutil.copyfile(bundle, temp)
    digest = hashlib.sha256(temp.read_bytes()).hexdigest()
    offer = {"version": version, "sha256": digest, "size": temp.stat().st_size}
    temp.replace(folder / BUNDLE)
    (folder / (OFFER + ".new")).write_text(json.dumps(offer))
    (folder / (OFFER + ".new")).replace(folder / OFFER)
    return offer


def _unverified_version(bundle: Path) -> str:
    import tarfile

    from ...update.bundle import MANIFEST, _parse

    with tarfile.open(bundle, "r:") as tar:
        handle = tar.extractfile(MANIFEST)
        if handle is None:
            raise ValueError("no manifest")
        return _parse(handle.read()).version


def offer(data_dir: str | Path) -> dict[str, Any] | None:
    try:
        return dict(json.loads((updates_dir(data_dir) / OFFER).read_text()))
    except (OSError, ValueError):
        return None


def routes(data_dir: str | Path) -> list[Route]:
    async def manifest(request: Request) -> Response:
        current = offer(data_dir)
        if current is None:
            return JSONResponse({"error": "no update is served"}, status_code=404)
        return JSONResponse(current)

    async def bundle(request: Request) -> Response:
        path = updates_dir(data_dir) / BUNDLE
        if offer(data_dir) is None or not path.exists():
            return JSONResponse({"error": "no update is served"}, status_code=404)
        return FileResponse(path, media_type="application/octet-stream")

    return [Route("/api/update/manifest", manifest), Route("/api/update/bundle", bundle)]
