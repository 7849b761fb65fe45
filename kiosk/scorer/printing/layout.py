"""WeasyPrint lays a printed page's HTML out as a PDF in a child process of its own, never in
the scorer's: a 500-page score-sheet PDF takes most of a minute of one core and over a gigabyte
of memory, which in the scorer would hold Python's global lock away from the kiosks and the
hall page and stay with the process for good. The child reads the HTML on its standard input,
writes the PDF on its standard output and exits, so its memory goes back to the system with it.
It runs at a lower priority than the scorer (`NICE`): the tables' traffic comes first.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from ..pipes import worker_command

log = logging.getLogger(__name__)
NICE = 10  # the child's priority below the scorer's
LIMIT_SECONDS = 600.0  # a layout still running after this is stopped (no PDF takes so long)


class LayoutFailed(Exception):
    """No PDF came out: the message key says why, in words for the person who asked."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key, self.params = key, params


def pdf_of(html: str, started: Callable[[subprocess.Popen[bytes]], None] = lambda p: None,
           limit: float = LIMIT_SECONDS) -> bytes:
    """`html` laid out as a PDF by a child process; `started` is told of the child (the print
    queue keeps it, to stop it when the scorer stops). Raises LayoutFailed."""
    begun = time.monotonic()
    child = subprocess.Popen(worker_command(__name__), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    started(child)
    try:
        pdf, errors = child.communicate(html.encode(), timeout=limit)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        log.warning("terminal.scorer.log.pdf_too_long", {"s": round(limit)})
        raise LayoutFailed("print.queue.too_long", minutes=round(limit / 60)) from None
    if child.returncode != 0 or not pdf.startswith(b"%PDF"):
        log.warning("terminal.scorer.log.pdf_failed", {"code": child.returncode},
                    extra={"details": errors.decode(errors="replace")[-2000:]})
        raise LayoutFailed("print.queue.failed")
    log.info("laid out a PDF of %d bytes in %.1f s in process %d", len(pdf),
             time.monotonic() - begun, child.pid)
    return pdf


def serve() -> None:
    """The child's side: one HTML document in, its PDF out."""
    os.nice(NICE)
    html = sys.stdin.buffer.read().decode()
    import weasyprint  # a second or so: only the child pays it

    sys.stdout.buffer.write(weasyprint.HTML(string=html).write_pdf())


if __name__ == "__main__":
    serve()
