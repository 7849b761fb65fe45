"""The kiosk's side of the hall: pairing, signed requests, the outbox, finding the scorer and
joining the hall, and the app's wiring to them."""
