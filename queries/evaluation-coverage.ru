# id: evaluation-coverage
# description: Which members of evidence sets does each output's citations, and each case's retrieved spans, cover? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?deliverer hg:covers ?member (?deliverer an output claim or a case of the run, ?member a member of any evidence set)
# spec: docs/spec/acceptance.md "Coverage"
#
# Coverage (docs/spec/acceptance.md "Coverage"): a delivered span covers a member when it is
# the member, or is of the same version with start <= member start and member
# end <= end, or is of the same version with the same locator. One insert per
# way, each a plain join, so no OPTIONAL depends on outer bindings. An
# update's WHERE reads no union default graph, so every pattern names its
# graph (GRAPH ?gN).
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?d } }
WHERE {
  {
    SELECT DISTINCT ?deliverer ?d WHERE {
      {
        GRAPH ?g1 { ?deliverer hg:cites ?d ; prov:wasGeneratedBy ?case }
        GRAPH ?g2 { ?case hg:ofRun ?run }
      } UNION {
        GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
      }
    }
  }
  GRAPH ?gSet { ?set prov:hadMember ?d }
} ;
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    SELECT DISTINCT ?deliverer ?d WHERE {
      {
        GRAPH ?g1 { ?deliverer hg:cites ?d ; prov:wasGeneratedBy ?case }
        GRAPH ?g2 { ?case hg:ofRun ?run }
      } UNION {
        GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
      }
    }
  }
  GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dPosition . ?dPosition oa:start ?ds ; oa:end ?de }
  GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mPosition . ?mPosition oa:start ?ms ; oa:end ?me }
  FILTER (?ds <= ?ms && ?me <= ?de)
  GRAPH ?gSet { ?set prov:hadMember ?m }
} ;
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    SELECT DISTINCT ?deliverer ?d WHERE {
      {
        GRAPH ?g1 { ?deliverer hg:cites ?d ; prov:wasGeneratedBy ?case }
        GRAPH ?g2 { ?case hg:ofRun ?run }
      } UNION {
        GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
      }
    }
  }
  GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dLocator . ?dLocator rdf:value ?locator }
  GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mLocator . ?mLocator rdf:value ?locator }
  GRAPH ?gSet { ?set prov:hadMember ?m }
}
