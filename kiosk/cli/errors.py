"""The commands' own errors (kept apart from the rules core, so that `kiosk --help` and a
command's parser start without importing it)."""

from __future__ import annotations


class CommandError(Exception):
    """Input a person can fix (a missing file, a wrong option): one line, exit 2."""
