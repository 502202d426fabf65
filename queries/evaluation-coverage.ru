# id: evaluation-coverage
# description: Which delivered spans cover which reference spans (members of evidence sets, and the spans a case's outputs cite), and so which does each output's citations, and each case's retrieved spans, cover? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?deliverer hg:delivers ?span (an output claim of the run cites it, or a case of the run retrieved it), ?span hg:deliveredIn ?case (either, within the case), ?target hg:coverageTargetOf ?case (a span coverage within the case is weighed against), ?span hg:coversSpan ?target (the same span, by containment or by locator), ?span hg:containsSpan ?target (by containment), and ?deliverer hg:covers ?target
# spec: docs/spec/acceptance.md "Coverage"
#
# The one home of coverage (docs/spec/acceptance.md "Coverage"); the
# evaluation's later steps read hg:covers, and the bundle records the span
# pairs for the auditor queries (coverage, report-coverage,
# unretrieved-citations, the peer metrics). A delivered span covers a target
# when it is the target, or is of the same version with start <= target start
# and target end <= end, or is of the same version with the same locator. One
# insert per way, each a plain join, so no OPTIONAL depends on outer bindings. An
# update's WHERE reads no union default graph, so every pattern names its
# graph (GRAPH ?gN).
#
# Containment is an inequality, which no join can key on: pairing every
# delivered span of a version with every member of that version took 2.7,
# 11.8 and 51 s for 1,000, 2,000 and 4,000 spans of one version cited by
# 2,000 cases (issue 14; bench/coverage.py). So each way is tested only
# within a case: the spans delivered in it (retrieved, or cited by its
# outputs) against its targets, the only pairs the later steps and the
# auditor queries read (evaluation-routes, evaluation-missing-hops,
# evaluation-claim-cases; coverage, report-coverage, unretrieved-citations,
# the peer metrics): the members of the sets of its required claims and of
# its outputs' claims, and the spans its outputs cite. The pairs then grow
# with the cases, not with the square of a version's spans. Deliveries and
# targets are written first as plain joins, so no later insert holds a UNION
# (Virtuoso 7.2.5 answers a DISTINCT subquery of UNIONs wrongly). The
# delivered spans' offsets and the targets' offsets are uncorrelated
# subqueries, each read once and joined on (?d) and (?target, ?v); looking
# them up row by row took twice the time on bench/evaluate.py's ledgers,
# where versions are small. Locators are
# compared by equality, a join on (?v, ?locator).
# Deliveries: what each output claim of the run cites and each case retrieved,
# and, per case, every span delivered in it (retrieved, or cited by its outputs).
INSERT { GRAPH ?scratch { ?deliverer hg:delivers ?d . ?d hg:deliveredIn ?case } }
WHERE {
  GRAPH ?g1 { ?case hg:ofRun ?run }
  GRAPH ?g2 { ?deliverer prov:wasGeneratedBy ?case ; hg:cites ?d }
} ;
INSERT { GRAPH ?scratch { ?case hg:delivers ?d . ?d hg:deliveredIn ?case } }
WHERE {
  GRAPH ?g1 { ?case hg:ofRun ?run ; hg:retrieved ?d }
} ;
# Targets of a case: the members of its required claims' sets and of its
# outputs' claims' sets, and the spans its outputs cite.
INSERT { GRAPH ?scratch { ?m hg:coverageTargetOf ?case } }
WHERE {
  GRAPH ?g1 { ?case hg:ofRun ?run ; hg:forQuestion ?question }
  GRAPH ?g2 { ?question hg:requiresClaim ?claim }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
} ;
INSERT { GRAPH ?scratch { ?m hg:coverageTargetOf ?case } }
WHERE {
  GRAPH ?g1 { ?case hg:ofRun ?run }
  GRAPH ?g2 { ?output prov:wasGeneratedBy ?case ; hg:asserts ?claim }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
} ;
INSERT { GRAPH ?scratch { ?cited hg:coverageTargetOf ?case } }
WHERE {
  GRAPH ?g1 { ?case hg:ofRun ?run }
  GRAPH ?g2 { ?output prov:wasGeneratedBy ?case ; hg:cites ?cited }
} ;
# Coverage, way 1: the same span.
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?d } }
WHERE {
  GRAPH ?scratch { ?d hg:deliveredIn ?case ; hg:coverageTargetOf ?case }
} ;
# Coverage, way 2: a span of the same version whose offsets contain the target's.
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?target ; hg:containsSpan ?target } }
WHERE {
  GRAPH ?scratch { ?d hg:deliveredIn ?case . ?target hg:coverageTargetOf ?case }
  {
    SELECT ?d ?v ?ds ?de
    WHERE { GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dPosition . ?dPosition oa:start ?ds ; oa:end ?de } }
  }
  {
    SELECT DISTINCT ?target ?v ?ts ?te
    WHERE {
      GRAPH ?scratch { ?target hg:coverageTargetOf ?anyCase }
      GRAPH ?gT { ?target prov:wasQuotedFrom ?v ; oa:hasSelector ?tPosition . ?tPosition oa:start ?ts ; oa:end ?te }
    }
  }
  FILTER (?ds <= ?ts && ?te <= ?de)
} ;
# Coverage, way 3: a span of the same version with the same locator (withheld text).
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?target } }
WHERE {
  GRAPH ?scratch { ?d hg:deliveredIn ?case . ?target hg:coverageTargetOf ?case }
  {
    SELECT ?d ?v ?locator
    WHERE { GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dLocator . ?dLocator rdf:value ?locator } }
  }
  {
    SELECT DISTINCT ?target ?v ?locator
    WHERE {
      GRAPH ?scratch { ?target hg:coverageTargetOf ?anyCase }
      GRAPH ?gT { ?target prov:wasQuotedFrom ?v ; oa:hasSelector ?tLocator . ?tLocator rdf:value ?locator }
    }
  }
} ;
# What each deliverer covers: the spans its delivered spans cover.
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?target } }
WHERE {
  GRAPH ?scratch { ?deliverer hg:delivers ?d . ?d hg:coversSpan ?target }
}
