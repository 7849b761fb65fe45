"""Tournament formats as pure functions of the results: the values, standings and draws (core),
what each format plays next (formats), the Swiss matching (swiss)."""
