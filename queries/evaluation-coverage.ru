# id: evaluation-coverage
# description: Which delivered spans cover which members of evidence sets, and so which members does each output's citations, and each case's retrieved spans, cover? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?span hg:coversSpan ?member (a span the run delivers covers a member: the same span, by containment or by locator), ?span hg:containsSpan ?member (by containment), and ?deliverer hg:covers ?member (?deliverer an output claim or a case of the run, ?member a member a span it delivers covers; by containment, only members of the sets of the claims a deliverer of the span concerns: an output's asserted claim, a case's required claims and its outputs' claims)
# spec: docs/spec/acceptance.md "Coverage"
#
# The one home of coverage (docs/spec/acceptance.md "Coverage"); the
# evaluation's later steps read hg:covers, and the bundle records the span
# pairs for the auditor queries (coverage, report-coverage, the peer metrics).
# A delivered span covers a member when it is
# the member, or is of the same version with start <= member start and member
# end <= end, or is of the same version with the same locator. One insert per
# way, each a plain join, so no OPTIONAL depends on outer bindings. An
# update's WHERE reads no union default graph, so every pattern names its
# graph (GRAPH ?gN).
#
# Containment is an inequality, which no join can key on: pairing every
# delivered span of a version with every member of that version took 2.7,
# 11.8 and 51 s for 1,000, 2,000 and 4,000 spans of one version cited by
# 2,000 cases (issue 14; bench/coverage.py). So it is tested only against the
# members of the sets of the claims a deliverer concerns, the only pairs the
# later steps and the auditor queries read (evaluation-routes, evaluation-missing-hops,
# evaluation-claim-cases) and the auditor queries (the peer metrics): an
# output's asserted claim and its case's required claims; a case's required
# claims, and its outputs' claims the question does not require (the MINUS
# keeps a pair from being found twice). The pairs then grow with the cases,
# not with the square of a version's spans. The three ways are a UNION of
# plain joins, not a DISTINCT subquery of UNIONs, which Virtuoso 7.2.5
# answers wrongly. The delivered spans' offsets and the claims' members with
# their offsets are uncorrelated subqueries, each read once and joined on
# (?d) and (?claim, ?v); looking them up row by row took twice the old
# update's time on bench/evaluate.py's ledgers, where versions are small.
# Locators are compared by equality, a join on (?v, ?locator) that stays
# linear without the restriction.
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?d } }
WHERE {
  {
    GRAPH ?g1 { ?case hg:ofRun ?run }
    GRAPH ?g2 { ?deliverer prov:wasGeneratedBy ?case ; hg:cites ?d }
  } UNION {
    GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
  }
  GRAPH ?gSet { ?set prov:hadMember ?d }
} ;
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?m ; hg:containsSpan ?m } }
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
    GRAPH ?g7 { ?deliverer hg:ofRun ?run ; hg:forQuestion ?asking }
    GRAPH ?g8 { ?output prov:wasGeneratedBy ?deliverer ; hg:asserts ?claim }
    MINUS { GRAPH ?gRequired { ?asking hg:requiresClaim ?claim } }
    GRAPH ?g9 { ?deliverer hg:retrieved ?d }
  } UNION {
    GRAPH ?g10 { ?citing hg:ofRun ?run ; hg:forQuestion ?cited }
    GRAPH ?g11 { ?cited hg:requiresClaim ?claim }
    GRAPH ?g12 { ?deliverer prov:wasGeneratedBy ?citing ; hg:cites ?d }
  }
  {
    SELECT ?d ?v ?ds ?de
    WHERE { GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dPosition . ?dPosition oa:start ?ds ; oa:end ?de } }
  }
  {
    SELECT DISTINCT ?claim ?m ?v ?ms ?me
    WHERE {
      GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
      GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mPosition . ?mPosition oa:start ?ms ; oa:end ?me }
    }
  }
  FILTER (?ds <= ?ms && ?me <= ?de)
} ;
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?m } }
WHERE {
  {
    GRAPH ?g1 { ?case hg:ofRun ?run }
    GRAPH ?g2 { ?deliverer prov:wasGeneratedBy ?case ; hg:cites ?d }
  } UNION {
    GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
  }
  {
    SELECT ?d ?v ?locator
    WHERE { GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dLocator . ?dLocator rdf:value ?locator } }
  }
  {
    SELECT DISTINCT ?m ?v ?locator
    WHERE {
      GRAPH ?gSet { ?set prov:hadMember ?m }
      GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mLocator . ?mLocator rdf:value ?locator }
    }
  }
} ;
# What each deliverer covers: the members its delivered spans cover.
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    GRAPH ?g1 { ?case hg:ofRun ?run }
    GRAPH ?g2 { ?deliverer prov:wasGeneratedBy ?case ; hg:cites ?d }
  } UNION {
    GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
  }
  GRAPH ?scratch { ?d hg:coversSpan ?m }
}
