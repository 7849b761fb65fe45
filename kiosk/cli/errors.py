"""The commands' own errors (kept apart from the rules core, so that `kiosk --help` and a
command's parser start without importing it)."""

from __future__ import annotations

from typing import Any


class CommandError(Exception):
    """Input a person can fix (a missing file, a wrong option): one line, exit 2. Like
    `kiosk.rules.errors.Explained`, it may carry a catalog `key` and its `params`, which
    `kiosk.i18n.explain` renders."""

    key: str | None = None
    params: dict[str, Any] = {}  # noqa: RUF012 (replaced per instance by `explained`)

    def explained(self, key: str, **params: Any) -> CommandError:
        """Attach the catalog key and parameters; returns self, for one-line raises."""
        self.key, self.params = key, params
        return self
