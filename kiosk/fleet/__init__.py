"""Running a fleet of kiosks: each card's identity from kiosk.toml, its status report, and the
systemd watchdog that restarts a frozen app."""
