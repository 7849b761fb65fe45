"""Signed update bundles for the kiosks: building and checking a bundle, installing it with a
rollback."""
