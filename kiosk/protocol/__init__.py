"""What a table's kiosk and the hall's scorer share on the wire: the signed requests, the batch
and event schema, the hash chain (wire) and pairing by the table's code (pairing)."""
