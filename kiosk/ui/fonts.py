"""The CJK fonts the screens use. Kivy opens face 0 of a font collection, and face 0 of Noto
Sans CJK's .ttc is the Japanese one, so the Simplified and Traditional Chinese faces are
extracted (with fontTools) into standalone files once, and registered under their own names."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import FontError

COLLECTIONS = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
)
FACES = {"KioskSC": "Noto Sans CJK SC", "KioskTC": "Noto Sans CJK TC",
         "KioskMonoSC": "Noto Sans Mono CJK SC", "KioskMonoTC": "Noto Sans Mono CJK TC"}
FONT_FOR_LANG = {"zh-Hans": "KioskSC", "zh-Hant": "KioskTC", "en": "KioskSC"}
#: The slip on screen lines up its columns as on paper: a Chinese character is two columns.
MONO_FOR_LANG = {"zh-Hans": "KioskMonoSC", "zh-Hant": "KioskMonoTC", "en": "KioskMonoSC"}


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kiosk" / "fonts"


def font_files(collection: str | None = None) -> dict[str, Path]:
    """The extracted SC and TC faces, by registration name (extracting them if needed).
    Raises FontError when no Noto Sans CJK collection is installed."""
    source = collection or next((c for c in COLLECTIONS if Path(c).exists()), None)
    if source is None:
        raise FontError("no Noto Sans CJK font: install fonts-noto-cjk (make test and deploy/ "
                        "do)")
    out = cache_dir()
    files = {name: out / f"{name}-{Path(source).stat().st_size}.otf" for name in FACES}
    if all(f.exists() for f in files.values()):
        return files
    from fontTools.ttLib import TTCollection

    out.mkdir(parents=True, exist_ok=True)
    faces = {font["name"].getDebugName(1): font
             for font in TTCollection(source, lazy=True).fonts}
    for name, family in FACES.items():
        if family not in faces:
            raise FontError(f"{source} has no {family} face")
        temp = files[name].with_suffix(".tmp")
        faces[family].save(str(temp))
        temp.replace(files[name])
    return files


def register() -> dict[str, Path]:
    """Register the faces with Kivy; returns the files."""
    from kivy.core.text import LabelBase

    files = font_files()
    for name, path in files.items():
        LabelBase.register(name, str(path))
    return files
