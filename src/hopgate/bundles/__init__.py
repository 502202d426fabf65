"""Provenance bundles out: reader-filtered exports in PROV formats, card pictures, signing and verifying, PROV-CONSTRAINTS checks."""
