# id: evaluation-coverage
# description: Which members of evidence sets does each output's citations, and each case's retrieved spans, cover? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?deliverer hg:covers ?member (?deliverer an output claim or a case of the run; ?member a member of any evidence set that the deliverer delivers itself, or, by containment or locator, a member of a set of a claim the deliverer concerns)
#
# Coverage (spec/acceptance.md): a delivered span covers a member when it is
# the member, or is of the same version with start <= member start and member
# end <= end, or is of the same version with the same locator. One insert per
# way, each a plain join, so no OPTIONAL depends on outer bindings. An
# update's WHERE reads no union default graph, so every pattern names its
# graph (GRAPH ?gN).
#
# Containment and locators are tested only against the members of the sets
# of the claims a deliverer concerns: an output's asserted claim; for a case,
# the claims its question requires and those its outputs assert. These are
# the only (deliverer, member) pairs the later steps read (evaluation-routes,
# evaluation-missing-hops, evaluation-claim-cases), so the pairs tested grow
# with the cases, not with the square of the spans of a version: pairing
# every delivered span of a version with every member of that version took
# 51 s for 4,000 spans of one version cited by 2,000 cases (issue 14,
# bench/coverage.py). The three ways of concerning a claim are a UNION of
# plain joins, not a DISTINCT subquery (Virtuoso 7.2.5 answers a DISTINCT
# subquery of UNIONs wrongly); a pair found twice is inserted once.
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?d } }
WHERE {
  {
    GRAPH ?g1 { ?case hg:ofRun ?run }
    GRAPH ?g2 { ?deliverer prov:wasGeneratedBy ?case ; hg:cites ?d }
  } UNION {
    GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
  }
  GRAPH ?gSet { ?set prov:hadMember ?d }
} ;
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    GRAPH ?g1 { ?case hg:ofRun ?run }
    GRAPH ?g2 { ?deliverer prov:wasGeneratedBy ?case ; hg:asserts ?claim }
    GRAPH ?g3 { ?deliverer hg:cites ?d }
  } UNION {
    GRAPH ?g4 { ?deliverer hg:ofRun ?run ; hg:forQuestion ?question }
    GRAPH ?g5 { ?question hg:requiresClaim ?claim }
    GRAPH ?g6 { ?deliverer hg:retrieved ?d }
  } UNION {
    GRAPH ?g7 { ?deliverer hg:ofRun ?run }
    GRAPH ?g8 { ?output prov:wasGeneratedBy ?deliverer ; hg:asserts ?claim }
    GRAPH ?g9 { ?deliverer hg:retrieved ?d }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
  GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dPosition . ?dPosition oa:start ?ds ; oa:end ?de }
  GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mPosition . ?mPosition oa:start ?ms ; oa:end ?me }
  FILTER (?ds <= ?ms && ?me <= ?de)
} ;
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    GRAPH ?g1 { ?case hg:ofRun ?run }
    GRAPH ?g2 { ?deliverer prov:wasGeneratedBy ?case ; hg:asserts ?claim }
    GRAPH ?g3 { ?deliverer hg:cites ?d }
  } UNION {
    GRAPH ?g4 { ?deliverer hg:ofRun ?run ; hg:forQuestion ?question }
    GRAPH ?g5 { ?question hg:requiresClaim ?claim }
    GRAPH ?g6 { ?deliverer hg:retrieved ?d }
  } UNION {
    GRAPH ?g7 { ?deliverer hg:ofRun ?run }
    GRAPH ?g8 { ?output prov:wasGeneratedBy ?deliverer ; hg:asserts ?claim }
    GRAPH ?g9 { ?deliverer hg:retrieved ?d }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
  GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dLocator . ?dLocator rdf:value ?locator }
  GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mLocator . ?mLocator rdf:value ?locator }
}
