"""A receipt printer at the other end of a raw pty, for the tests of the slip printer."""

from __future__ import annotations

import os
import re
import select
import threading
import time
import tty

OK, NO_PAPER = 0x12, 0x12 | 0x60  # the paper-status answers: paper in, paper out
STATUS_QUERY = b"\x10\x04\x04"
# ESC/POS commands the slip uses, to strip before decoding the text
COMMANDS = re.compile(rb"\x1b@|\x1c&|\x1ba[\x00-\x02]|\x1bE[\x00\x01]|\x1bd.|\x1dVB.|\x10\x04.",
                      flags=re.S)


class PtyPrinter:
    """Answers the paper-status query with `status` (or not at all), keeps what it is sent,
    and can vanish after `vanish_after` bytes (a cable pulled mid-slip). `path` is the device
    the slip printer opens.

    Its thread alone reads and closes the master end, and `close()` ends the thread before
    closing the slave: a file descriptor closed under a reading thread gets its number reused
    by the next file opened, whose bytes the thread would then steal."""

    def __init__(self, status: int = OK, answer: bool = True,
                 vanish_after: int | None = None) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # bytes pass as they are, the status answer without a newline
        self.path = os.ttyname(self.slave)
        self.status, self.answer, self.vanish_after = status, answer, vanish_after
        self.received = bytearray()
        self.queries = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        try:
            while not self._stop.is_set():
                if not select.select([self.master], [], [], 0.05)[0]:
                    continue
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the pty hung up
                    return
                if STATUS_QUERY in chunk:
                    self.queries += 1
                    if self.answer:
                        os.write(self.master, bytes([self.status]))
                    chunk = chunk.replace(STATUS_QUERY, b"")
                self.received += chunk
                if self.vanish_after is not None and len(self.received) >= self.vanish_after:
                    return
        finally:
            os.close(self.master)

    def text(self) -> str:
        """What was printed, without the printer's commands, once the paper has been cut."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not self.received.endswith(b"\x1dVB\x00"):
            time.sleep(0.01)  # the pty hands bytes over asynchronously
        return COMMANDS.sub(b"", bytes(self.received)).decode("gb18030")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        os.close(self.slave)
