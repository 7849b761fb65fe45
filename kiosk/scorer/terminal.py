"""What the scorer says on its terminal while it serves, in the scorer's language.

Its own warnings are logged as catalog keys (`log.warning("terminal.scorer.log.…", {params})`)
and said in words; uvicorn's few lines a technician meets are said in the same words; anything
else a library logs (asyncio, zeroconf, uvicorn's "Exception in ASGI application") becomes one
line that says something went wrong inside. What only a developer can use, a traceback or a
library's own text, goes to a file beside the scorer's data (`DETAILS`), which the line names.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from uvicorn.logging import DefaultFormatter

from ..i18n import catalog, translator
from .pipes import DETAILS_ENV

DETAILS = "scorer-details.log"  # beside the store
DETAILS_SIZE = 2**20  # bytes, past which the file becomes DETAILS.1 (one older kept)
KEY = "terminal.scorer.log."  # (the scorer's own log lines' keys begin so)


class Words:
    """Saying a record in the scorer's words (for the two kinds below)."""

    def __init__(self, lang: str, details: Path | None) -> None:
        self.messages, self.t = catalog(lang), translator(lang)
        self.details = details

    def say(self, record: logging.LogRecord, text: str, details: str | None = None) -> None:
        """`record` says `text`, headed by its level in words; `details` (and any traceback)
        go to the details file, named at the end of the line."""
        if record.exc_info:
            details = "\n".join(filter(None, [details, "".join(
                traceback.format_exception(*record.exc_info))]))
        if details and self.details is not None and self._wrote(record, details):
            text += self.t("terminal.scorer.details", path=self.details)
        record.msg, record.args, record.exc_info, record.exc_text = text, (), None, None
        record.said = True
        record.levelname = self.t("terminal.scorer.error" if record.levelno >= logging.ERROR
                                  else "terminal.scorer.warning")

    def _wrote(self, record: logging.LogRecord, details: str) -> bool:
        assert self.details is not None
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.created))
        try:
            if self.details.exists() and self.details.stat().st_size > DETAILS_SIZE:
                self.details.replace(self.details.with_name(self.details.name + ".1"))
            with self.details.open("a", encoding="utf-8") as file:
                file.write(f"{stamp} {record.name}\n{details}\n\n")
        except OSError:  # (the data's disk full or read-only: the line is said anyway)
            return False
        return True


class ScorerWords(Words, DefaultFormatter):
    """The scorer's terminal's formatter (`install`): its own keys in words, a library's
    record as one line in words with its text among the details; headed as uvicorn heads
    its lines. (The record itself is left as it was, for any other handler.)"""

    def __init__(self, lang: str, details: Path | None) -> None:
        Words.__init__(self, lang, details)
        DefaultFormatter.__init__(self, "%(levelprefix)s %(message)s", use_colors=False)

    def format(self, record: logging.LogRecord) -> str:
        if getattr(record, "said", False):  # (uvicorn's, said already by `UvicornWords`)
            return super().format(record)
        said = logging.makeLogRecord(record.__dict__)
        if isinstance(record.msg, str) and record.msg.startswith(KEY) and \
                record.msg in self.messages:
            params = record.args if isinstance(record.args, Mapping) else {}
            self.say(said, self.t(record.msg, **params), getattr(record, "details", None))
        else:
            self.say(said, self.t("terminal.scorer.inside"), record.getMessage())
        return super().format(said)


UVICORN_KEYS = {"Invalid HTTP request received.": "terminal.scorer.not_http",
                "Unsupported upgrade request.": "terminal.scorer.upgrade"}
# Seconds in which one of those (what any device on the LAN can cause) is said once: a laptop
# sending garbage must not scroll everything else off the technician's terminal.
REPEAT_EVERY = 60.0


class UvicornWords(Words, logging.Filter):
    """uvicorn's own lines (as uvicorn 0.54 writes them): the warnings a technician meets, an
    address it cannot listen on, in words; any other line too, as `ScorerWords` says a
    library's. Its advice to install a WebSocket library after an upgrade request is left out:
    the scorer speaks no WebSocket, by design (the hall page uses SSE)."""

    LEFT_OUT = "No supported WebSocket library detected."

    def __init__(self, lang: str, details: Path | None, host: str, port: int) -> None:
        Words.__init__(self, lang, details)
        logging.Filter.__init__(self)
        self.host, self.port = host, port
        self._repeats: dict[str, tuple[float, int]] = {}  # key: (when last said, held since)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, OSError):  # the address cannot be listened on: uvicorn stops
            self.say(record, self.cannot_listen(record.msg))
            return True
        text = record.msg if isinstance(record.msg, str) else ""
        if text.startswith(self.LEFT_OUT):
            return False
        key = UVICORN_KEYS.get(text)
        if key is not None:
            held = self._held(key, record.created)
            if held is None:
                return False
            self.say(record, self.t(key) + (self.t("terminal.scorer.repeated", n=held)
                                            if held else ""))
        elif record.levelno >= logging.WARNING:  # (its info lines are not shown)
            self.say(record, self.t("terminal.scorer.inside"), record.getMessage())
        return True

    def _held(self, key: str, at: float) -> int | None:
        """None when `key` was said less than REPEAT_EVERY before `at` (it is counted); else
        how many times it came meanwhile, unsaid."""
        last, count = self._repeats.get(key, (float("-inf"), 0))
        if at - last < REPEAT_EVERY:
            self._repeats[key] = (last, count + 1)
            return None
        self._repeats[key] = (at, 0)
        return count

    def cannot_listen(self, error: OSError) -> str:
        if isinstance(error, socket.gaierror):
            return self.t("terminal.scorer.unknown_host", host=self.host)
        key = {errno.EADDRINUSE: "terminal.scorer.port_busy",
               errno.EADDRNOTAVAIL: "terminal.scorer.not_this_machine",
               errno.EACCES: "terminal.scorer.port_denied"}.get(error.errno or 0,
                                                                  "terminal.scorer.cannot_listen")
        return self.t(key, host=self.host, port=self.port)


class Terminal(logging.StreamHandler):  # type: ignore[type-arg]
    """The scorer's terminal, where what is logged is said in words: standard error, whatever
    it is when a line is said (as logging's own last resort has it)."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr


def install(lang: str, details: Path | None, host: str, port: int) -> None:
    """Everything logged while the scorer serves is said in `lang`, details to the file
    `details`, the worker processes' standard error too (the last scorer started in this
    process decides: one a process)."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, Terminal)]:
        root.removeHandler(handler)
    terminal = Terminal()
    terminal.setFormatter(ScorerWords(lang, details))
    root.addHandler(terminal)
    uvicorn = logging.getLogger("uvicorn.error")
    for words in [f for f in uvicorn.filters if isinstance(f, UvicornWords)]:
        uvicorn.removeFilter(words)
    uvicorn.addFilter(UvicornWords(lang, details, host, port))
    # A malformed upload is answered 400 in words; its parser's warning about it is no
    # problem of the scorer's (it was said as one, once an upload).
    logging.getLogger("python_multipart").setLevel(logging.ERROR)
    if details is not None:
        os.environ[DETAILS_ENV] = str(details)
    else:
        os.environ.pop(DETAILS_ENV, None)
