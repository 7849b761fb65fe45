"""The table session: match setup, the hand's life, move and match clocks, and the journal.

No Kivy here: the app and the scorer sync sit on top of this API."""

from ..errors import JournalError
from .clock import Clock, ManualClock, SimulatedClock, SystemClock
from .journal import Event, Journal, table_path
from .session import SessionConfig, SessionError, Signal, TableSession

__all__ = ["Clock", "Event", "Journal", "JournalError", "ManualClock", "SessionConfig",
           "SessionError", "Signal", "SimulatedClock", "SystemClock", "TableSession",
           "table_path"]
