"""The score-slip printer: an ESC/POS thermal printer on a serial port, opened by pyserial URL
(the header's UART ``/dev/kiosk-uart``, a USB printer's stable udev name ``/dev/kiosk-printer``,
``loop://`` or a pty in tests), or a USB printer of the printer class (``/dev/usb/lpN``, which
is no tty: written and read as a plain character device).

Printing never blocks the clock or the journal: `PrintQueue` keeps every slip on disk first (for
reprints), prints on its own thread, and reports the outcome through the door."""

from __future__ import annotations

import contextlib
import errno
import os
import select
import termios
import threading
from dataclasses import dataclass
from pathlib import Path
from queue import SimpleQueue

import serial

from ..errors import PrinterError
from .door import Door

PAPER_STATUS = b"\x10\x04\x04"  # DLE EOT 4: the paper roll sensor
PAPER_END = 0x60  # both "paper end" bits
PAPER_LOW = 0x0C  # both "paper near end" bits
CHUNK = 256
BAUD_RATES = (9600, 19200, 38400, 57600, 115200)  # what ESC/POS panel printers are set to


def is_line_printer(url: str) -> bool:
    """True for a USB printer-class device (the kernel's usblp: /dev/usb/lpN), whatever link
    names it."""
    return os.path.realpath(url).startswith("/dev/usb/lp")


class LinePrinterPort:
    """A printer-class device opened as a file, with the few calls `SlipPrinter` makes of a
    pyserial port. Reads wait at most `timeout` seconds (usblp answers a status request when
    the printer is bidirectional)."""

    def __init__(self, path: str, timeout: float) -> None:
        self.timeout = timeout
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)

    def reset_input_buffer(self) -> None:
        while select.select([self.fd], [], [], 0)[0]:
            if not os.read(self.fd, 256):
                break

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]
        return len(data)

    def flush(self) -> None:
        pass  # os.write has handed every byte to the kernel

    def read(self, size: int) -> bytes:
        if not select.select([self.fd], [], [], self.timeout)[0]:
            return b""
        return os.read(self.fd, size)

    def close(self) -> None:
        os.close(self.fd)


@dataclass(frozen=True)
class PrintResult:
    """What became of a slip, for the screen: `reason` is "printed", "paper_low" or one of
    PrinterError's reasons."""

    name: str
    reason: str
    detail: str = ""


#: Why a printer could not be opened, by the system's error: each has its own remedy (plug
#: it in or fix its name, the user's groups or the udev rule), none of them power or paper.
OPEN_ERRORS = {errno.ENOENT: "no_device", errno.ENODEV: "no_device", errno.ENXIO: "no_device",
               errno.EACCES: "no_permission", errno.EPERM: "no_permission"}


def _open_reason(exc: Exception) -> str:
    """A PrinterError's reason for an error opening the printer."""
    if isinstance(exc, ValueError) or isinstance(exc.__context__, termios.error):
        return "bad_setting"  # an unknown URL or speed, or a path that is no serial port
    return OPEN_ERRORS.get(getattr(exc, "errno", None) or 0, "not_answering")


class SlipPrinter:
    """`url`: a pyserial URL or device, or a printer-class device. `baudrate`: the printer's
    serial speed (its self-test page says it; 9600 unless set otherwise), unused for USB."""

    def __init__(self, url: str, baudrate: int = 9600, timeout: float = 1.0) -> None:
        self.url, self.baudrate, self.timeout = url, baudrate, timeout

    def _open(self) -> serial.SerialBase | LinePrinterPort:
        try:
            if is_line_printer(self.url):
                return LinePrinterPort(self.url, self.timeout)
            return serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=self.timeout,
                                         write_timeout=self.timeout * 5)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise PrinterError(_open_reason(exc), f"{self.url}: {exc}") from None

    def print_slip(self, data: bytes) -> str:
        """Check the paper, then send the slip. Returns "printed" or "paper_low". Raises
        PrinterError when the printer does not answer, has no paper, or goes away."""
        port = self._open()
        try:
            try:
                port.reset_input_buffer()
                port.write(PAPER_STATUS)
                port.flush()
                status = port.read(1)
            except (serial.SerialException, OSError) as exc:
                raise PrinterError("not_answering", str(exc)) from None
            if not status:
                raise PrinterError("not_answering", f"no status from {self.url}")
            if status[0] & PAPER_END:
                raise PrinterError("no_paper", f"status byte {status[0]:#04x}")
            try:
                for start in range(0, len(data), CHUNK):
                    port.write(data[start:start + CHUNK])
                port.flush()
                port.write(PAPER_STATUS)  # still there at the end of the slip?
                port.flush()
                after = port.read(1)
            except (serial.SerialException, OSError) as exc:
                raise PrinterError("lost", str(exc)) from None
            if not after:
                raise PrinterError("lost", "no answer after the slip")
            return "paper_low" if status[0] & PAPER_LOW else "printed"
        finally:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()


class PrintQueue:
    """Slips are saved to `directory` before printing and printed one at a time on a worker
    thread; each outcome is put through `door` as a PrintResult."""

    def __init__(self, printer: SlipPrinter, directory: str | Path, door: Door) -> None:
        self.printer, self.door = printer, door
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._jobs: SimpleQueue[str | None] = SimpleQueue()
        self._thread = threading.Thread(target=self._work, name="slip-printer", daemon=True)
        self._thread.start()

    def submit(self, name: str, data: bytes) -> Path:
        """Keep the slip as `name`.bin and queue it. Returns where it is kept."""
        path = self.directory / f"{name}.bin"
        temp = path.with_suffix(".tmp")
        temp.write_bytes(data)
        temp.replace(path)
        self._jobs.put(name)
        return path

    def reprint(self, name: str) -> None:
        self._jobs.put(name)

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join()

    def _work(self) -> None:
        while (name := self._jobs.get()) is not None:
            try:
                outcome = self.printer.print_slip((self.directory / f"{name}.bin").read_bytes())
                self.door.put(PrintResult(name, outcome))
            except PrinterError as exc:
                self.door.put(PrintResult(name, exc.reason, str(exc)))
            except OSError as exc:
                self.door.put(PrintResult(name, "lost", str(exc)))
