# id: evaluation-run
# description: Which output claims did the run's cases generate, which claims do they assert, and which claims does the run touch (those its cases' questions require and those its outputs assert)? Writes the answer into the evaluation's scratch graph, for the later steps to start from; the load graphs are only read.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?output hg:runOutputIn ?case (an output claim a case of the run generated), ?claim hg:assertedInCase ?case (an output of the case asserts the claim), ?claim hg:touchedBy ?run (a claim a case's question requires or an output asserts)
# spec: docs/spec/acceptance.md "Terms"
#
# Runs first among the evaluation's updates: the one home of which output
# claims are the run's, which claims they assert and which claims the run
# touches (docs/spec/acceptance.md "Terms": a run's cases, their output
# claims, the claims its questions require). The later steps start from these
# facts in the scratch graph instead of joining the run's cases to its outputs
# again through the load graphs. Why, measured: on Virtuoso 7.2.5 that join,
# written in each step, grew with the number of the run's input graphs
# (coverage's deliveries 0.33 s with one input graph, 1.93 s with eight;
# bench/README.md "5 December"), and so did the sets of the claims outputs
# assert; starting from an output or claim bound in the scratch graph does
# not. One insert per source of a touched claim, no UNION (Virtuoso 7.2.5
# answers a DISTINCT subquery of UNIONs wrongly). An update's WHERE reads no
# union default graph, so every pattern names its graph.
INSERT { GRAPH ?scratch { ?output hg:runOutputIn ?case } }
WHERE {
  GRAPH ?g1 { ?case hg:ofRun ?run }
  GRAPH ?g2 { ?output prov:wasGeneratedBy ?case }
} ;
INSERT { GRAPH ?scratch { ?claim hg:touchedBy ?run } }
WHERE {
  GRAPH ?g1 { ?case hg:ofRun ?run ; hg:forQuestion ?question }
  GRAPH ?g2 { ?question hg:requiresClaim ?claim }
} ;
INSERT { GRAPH ?scratch { ?claim hg:assertedInCase ?case } }
WHERE {
  GRAPH ?scratch { ?output hg:runOutputIn ?case }
  GRAPH ?g1 { ?output hg:asserts ?claim }
} ;
INSERT { GRAPH ?scratch { ?claim hg:touchedBy ?run } }
WHERE {
  GRAPH ?scratch { ?claim hg:assertedInCase ?case }
}
