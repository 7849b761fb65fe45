"""sqlite-utils, imported without numpy.

sqlite-utils imports numpy when it is installed (it is, on the scorer, for the Swiss matching),
only to guess column types for numpy values, which neither the journals nor the store ever
hold. That import was half a second of every kiosk command's and the scorer's start, so here
numpy is hidden from it for the moment of the import; whoever needs numpy later imports it as
usual."""

from __future__ import annotations

import sys

if "sqlite_utils" not in sys.modules:
    _hidden = "numpy" not in sys.modules
    if _hidden:
        sys.modules["numpy"] = None  # type: ignore[assignment]  # (an import of it fails)
    try:
        import sqlite_utils
        from sqlite_utils.migrations import Migrations
    finally:
        if _hidden:
            del sys.modules["numpy"]
else:
    import sqlite_utils
    from sqlite_utils.migrations import Migrations

__all__ = ["Migrations", "sqlite_utils"]
