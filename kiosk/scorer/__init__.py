"""The central scorer, inner parts first: the store (store/), the tournament's pure formats
(tournament/), the head referee's operations over them (director/), the hall's feed (hall/),
printed pages and exports (printing/), the network's guards (net/), the web surface (web/),
and `server`, which runs it all."""
