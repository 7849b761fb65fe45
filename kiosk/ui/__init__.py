"""The touchscreen app (Kivy): screens laid out in .kv files, presenters in plain Python.

Importing this package sets Kivy's environment before Kivy is imported anywhere: Kivy must not
read the kiosk's own command line (`kiosk --rules-dir DIR table …`), must not take over stderr,
and the clipboard is SDL's (Kivy would otherwise probe xclip and xsel, absent on a kiosk, and
log CRITICAL tracebacks)."""

import os

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
# Kivy's messages go to its log file; stderr stays ours (the unit's journal shows the kiosk's
# own errors, not Kivy's redirection of them)
os.environ.setdefault("KIVY_LOG_MODE", "MIXED")
os.environ.setdefault("KIVY_CLIPBOARD", "sdl2,dummy")


def kivy_config():  # type: ignore[no-untyped-def]
    """Kivy's Config, imported after the environment above is set."""
    from kivy.config import Config

    return Config


def open_window() -> None:
    """Kivy's window, opened now. When it cannot open (no display connected, the KMS driver
    not loaded), Kivy ends the process with its reason in its own log file only, and the
    unit's journal would show nothing: raises WindowError naming that file instead."""
    from kivy.base import EventLoop

    try:
        EventLoop.ensure_window()
    except SystemExit:
        from kivy.logger import FileHandler

        from ..errors import WindowError

        log = FileHandler.filename if FileHandler.fd is not None else "~/.kivy/logs"
        raise WindowError(f"no window: see {log}").explained(
            "terminal.table.no_window", log=log) from None
