"""The scorer's store: the SQLite database of paired tables, pairing codes and every table's
events; its one writer thread; its backups."""
