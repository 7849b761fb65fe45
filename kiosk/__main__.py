"""`python -m kiosk …` runs the `kiosk` program (where the script is not on the PATH)."""

import sys

from .cli.main import main

sys.exit(main())
