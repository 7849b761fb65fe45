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


def file_reason(error: BaseException) -> Any:
    """Why a file cannot be read or written, as catalog words (`terminal.file.*`), never the
    system's English (``[Errno 2] No such file or directory``)."""
    import errno

    from ..rules.errors import words

    reasons = {errno.ENOENT: "missing", errno.EACCES: "denied", errno.EPERM: "denied",
               errno.EISDIR: "directory", errno.ENOTDIR: "not_directory", errno.EIO: "damaged",
               errno.ENOSPC: "full", errno.EROFS: "read_only", errno.EEXIST: "exists"}
    if isinstance(error, UnicodeDecodeError):
        return words("terminal.file.not_utf8")
    return words(f"terminal.file.{reasons.get(getattr(error, 'errno', None), 'other')}")
