"""Running a fleet of kiosks: each card's identity from kiosk.toml, the Pi's self-test."""
