"""The `kiosk` command and its subcommands."""
