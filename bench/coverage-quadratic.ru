# id: evaluation-coverage
# description: The coverage update of commit be4da24 (before it was made near-linear), kept for bench/coverage.py --baseline: every delivered span of a version paired with every member of that version.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?deliverer hg:covers ?member
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
