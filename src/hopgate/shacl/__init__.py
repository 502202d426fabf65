"""SHACL beside the store: shapes compiled to SPARQL (one compiler per constraint component), pre-binding, lexical forms, validating the store and any graph."""
