"""The central scorer: tournaments recomputed from the tables' results (the server and sync are
issue 6's next steps)."""
