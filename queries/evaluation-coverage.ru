# id: evaluation-coverage
# description: Which delivered spans cover which reference spans (members of evidence sets, and the spans a case's outputs cite), and so which does each output's citations, and each case's retrieved spans, cover? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?deliverer hg:delivers ?span (an output claim of the run cites it, or a case of the run retrieved it), ?span hg:deliveredIn ?case (either, within the case), ?target hg:coverageTargetOf ?case (a span coverage within the case is weighed against), ?span hg:coversSpan ?target (the same span, by containment or by locator), ?span hg:containsSpan ?target (by containment), ?span hg:coverageCandidate ?target (a target of the same case and version, which ways 2 and 3 test), and ?deliverer hg:covers ?target
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
# (Virtuoso 7.2.5 answers a DISTINCT subquery of UNIONs wrongly). Each
# delivered span's and target's version, offsets and locator are copied into
# the scratch graph once, and ways 2 and 3 join within that graph: on
# Virtuoso 7.2.5 the earlier form, uncorrelated subqueries of the load graphs
# joined on (?d) and (?target, ?v), took 265 s at 2,000 claims (the server
# evaluated the subqueries again for each pair); this form takes well under
# a second there, and about as long as the old one on Oxigraph. Locators are
# compared by equality, a join on (?v, ?locator).
# Deliveries: what each output claim of the run cites and each case retrieved,
# and, per case, every span delivered in it (retrieved, or cited by its outputs).
INSERT { GRAPH ?scratch { ?deliverer hg:delivers ?d . ?d hg:deliveredIn ?case } }
WHERE {
  GRAPH ?scratch { ?deliverer hg:runOutputIn ?case }
  GRAPH ?g2 { ?deliverer hg:cites ?d }
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
  GRAPH ?scratch { ?claim hg:assertedInCase ?case }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
} ;
INSERT { GRAPH ?scratch { ?cited hg:coverageTargetOf ?case } }
WHERE {
  GRAPH ?scratch { ?output hg:runOutputIn ?case }
  GRAPH ?g2 { ?output hg:cites ?cited }
} ;
# Coverage, way 1: the same span.
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?d } }
WHERE {
  GRAPH ?scratch { ?d hg:deliveredIn ?case ; hg:coverageTargetOf ?case }
} ;
# Where each delivered span and each target is: its version, and its offsets
# or its locator, copied into the scratch graph once per span, so that ways 2
# and 3 are joins within one graph.
INSERT { GRAPH ?scratch { ?s hg:spanVersion ?v ; hg:spanStart ?start ; hg:spanEnd ?end } }
WHERE {
  { SELECT DISTINCT ?s WHERE { GRAPH ?scratch { ?s hg:deliveredIn ?case } } }
  GRAPH ?g { ?s prov:wasQuotedFrom ?v ; oa:hasSelector ?position . ?position oa:start ?start ; oa:end ?end }
} ;
INSERT { GRAPH ?scratch { ?s hg:spanVersion ?v ; hg:spanStart ?start ; hg:spanEnd ?end } }
WHERE {
  { SELECT DISTINCT ?s WHERE { GRAPH ?scratch { ?s hg:coverageTargetOf ?case } } }
  GRAPH ?g { ?s prov:wasQuotedFrom ?v ; oa:hasSelector ?position . ?position oa:start ?start ; oa:end ?end }
} ;
INSERT { GRAPH ?scratch { ?s hg:spanVersion ?v ; hg:spanLocator ?locator } }
WHERE {
  { SELECT DISTINCT ?s WHERE { GRAPH ?scratch { ?s hg:deliveredIn ?case } } }
  GRAPH ?g { ?s prov:wasQuotedFrom ?v ; oa:hasSelector ?selector . ?selector rdf:value ?locator }
} ;
INSERT { GRAPH ?scratch { ?s hg:spanVersion ?v ; hg:spanLocator ?locator } }
WHERE {
  { SELECT DISTINCT ?s WHERE { GRAPH ?scratch { ?s hg:coverageTargetOf ?case } } }
  GRAPH ?g { ?s prov:wasQuotedFrom ?v ; oa:hasSelector ?selector . ?selector rdf:value ?locator }
} ;
# The pairs ways 2 and 3 test: a delivered span and a target of the same case and
# the same version, found by equalities alone. Ways 2 and 3 then look up each
# pair's offsets or locators by subject. Joined in one pattern with the offsets
# and the containment filter, Virtuoso 7.2.5 chose a plan that took 5.4 s for
# 3,000 claims on a fresh server and 137-217 s once a few evaluations had run
# there (a whole evaluation 22 s, then 222 s); this way it takes 1.1 s, and
# 0.55 s instead of 0.25 s on Oxigraph (bench/README.md "4 December, night").
INSERT { GRAPH ?scratch { ?d hg:coverageCandidate ?target } }
WHERE {
  GRAPH ?scratch {
    ?d hg:deliveredIn ?case ; hg:spanVersion ?v .
    ?target hg:coverageTargetOf ?case ; hg:spanVersion ?v .
  }
} ;
# Coverage, way 2: a span of the same version whose offsets contain the target's.
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?target ; hg:containsSpan ?target } }
WHERE {
  GRAPH ?scratch {
    ?d hg:coverageCandidate ?target ; hg:spanStart ?ds ; hg:spanEnd ?de .
    ?target hg:spanStart ?ts ; hg:spanEnd ?te .
  }
  FILTER (?ds <= ?ts && ?te <= ?de)
} ;
# Coverage, way 3: a span of the same version with the same locator (withheld text).
INSERT { GRAPH ?scratch { ?d hg:coversSpan ?target } }
WHERE {
  GRAPH ?scratch {
    ?d hg:coverageCandidate ?target ; hg:spanLocator ?locator .
    ?target hg:spanLocator ?locator .
  }
} ;
# What each deliverer covers: the spans its delivered spans cover.
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?target } }
WHERE {
  GRAPH ?scratch { ?deliverer hg:delivers ?d . ?d hg:coversSpan ?target }
}
