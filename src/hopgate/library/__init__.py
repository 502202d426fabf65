"""Access to the project's artefacts (ontology/, shapes/, queries/), the projections of graphs the queries read, and the evaluation's ordered steps."""
