"""Simulated tables: bots that drive the real session (table), a simulated table in the hall
syncing with a scorer (hall), and the whole product on one machine (demo)."""
