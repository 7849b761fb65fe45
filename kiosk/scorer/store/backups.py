"""Pruning the scorer's backups: a copy every 5 minutes is 288 a day, and the card fills up.

Kept: the `keep` newest copies, and the newest copy of every hour before them, so that a
mistake noticed late can still be undone to within the hour. Only the files the backup makes
(``scorer-YYYYMMDD-HHMMSS.sqlite``) are ever removed; anything else in the directory stays."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

NAME = re.compile(r"^scorer-(\d{8}-\d{6})\.sqlite$")


def backups(directory: str | Path) -> list[tuple[datetime.datetime, Path]]:
    """The backups in `directory`, oldest first, with the time in their names."""
    found = []
    for path in Path(directory).iterdir():
        match = NAME.match(path.name)
        if match and path.is_file():
            try:
                when = datetime.datetime.strptime(match.group(1), "%Y%m%d-%H%M%S")
            except ValueError:
                continue  # a name that only looks like ours
            found.append((when, path))
    return sorted(found)


def to_prune(directory: str | Path, keep: int) -> list[Path]:
    """The backups `prune` would remove: all but the `keep` newest and one an hour."""
    if keep < 1:
        raise ValueError("keep at least one backup")
    found = backups(directory)
    kept = {path for _, path in found[-keep:]}
    newest_of_hour: dict[datetime.datetime, Path] = {}
    for when, path in found:  # oldest first: the last one seen in an hour is its newest
        newest_of_hour[when.replace(minute=0, second=0)] = path
    kept.update(newest_of_hour.values())
    return [path for _, path in found if path not in kept]


def prune(directory: str | Path, keep: int) -> list[Path]:
    """Remove what `to_prune` names (with each copy's -wal/-shm, should there be any). Returns
    the removed backups."""
    removed = to_prune(directory, keep)
    for path in removed:
        for extra in ("-wal", "-shm"):
            Path(f"{path}{extra}").unlink(missing_ok=True)
        path.unlink(missing_ok=True)
    return removed
