"""The table session: match setup, the hand's life, move and match clocks, and the journal.

No Kivy here: the app and the scorer sync sit on top of this API. The package itself imports
nothing: the scorer folds matches with `state` and needs none of a kiosk's session."""
