"""The scorer on the LAN: the connection guard below the app, its TLS identity, the address it
gives out and its mDNS announcement, and the garbage collector kept from stalling it."""
