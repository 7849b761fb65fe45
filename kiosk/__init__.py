"""80分 table kiosk and central scorer.

The package root imports nothing, so `import kiosk.rules` stays standard-library only.
"""

__version__ = "0.2.0"
