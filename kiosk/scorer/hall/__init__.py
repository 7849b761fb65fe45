"""The hall's screens and the players' phones: the snapshot of the event, the feed that builds it
once a change, and the server-sent event streams."""
