# id: evaluation-coverage
# description: Which members of the evidence sets of the claims a run touches does each output's citations, and each case's retrieved spans, cover? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?deliverer hg:covers ?member (?deliverer an output claim or a case, ?member a member of a set of a claim it asserts, or its question requires, or one of its outputs asserts)
#
# Coverage (spec/acceptance.md): a delivered span covers a member when it is
# the member, or is of the same version with start <= member start and member
# end <= end, or is of the same version with the same locator. One insert per
# way, each a plain join, so no OPTIONAL depends on outer bindings. An
# update's WHERE reads no union default graph, so every pattern names its
# graph (GRAPH ?gN).
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    SELECT DISTINCT ?deliverer ?d ?claim WHERE {
      {
        GRAPH ?g1 { ?deliverer hg:cites ?d ; hg:asserts ?claim ; prov:wasGeneratedBy ?case }
        GRAPH ?g2 { ?case hg:ofRun ?run }
      } UNION {
        GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d ; hg:forQuestion ?question }
        GRAPH ?g4 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g5 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
        GRAPH ?g6 { ?output prov:wasGeneratedBy ?deliverer ; hg:asserts ?claim }
      }
    }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?d }
  BIND (?d AS ?m)
} ;
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    SELECT DISTINCT ?deliverer ?d ?claim WHERE {
      {
        GRAPH ?g1 { ?deliverer hg:cites ?d ; hg:asserts ?claim ; prov:wasGeneratedBy ?case }
        GRAPH ?g2 { ?case hg:ofRun ?run }
      } UNION {
        GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d ; hg:forQuestion ?question }
        GRAPH ?g4 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g5 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
        GRAPH ?g6 { ?output prov:wasGeneratedBy ?deliverer ; hg:asserts ?claim }
      }
    }
  }
  GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dPosition . ?dPosition oa:start ?ds ; oa:end ?de }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
  GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mPosition . ?mPosition oa:start ?ms ; oa:end ?me }
  FILTER (?ds <= ?ms && ?me <= ?de)
} ;
INSERT { GRAPH ?scratch { ?deliverer hg:covers ?m } }
WHERE {
  {
    SELECT DISTINCT ?deliverer ?d ?claim WHERE {
      {
        GRAPH ?g1 { ?deliverer hg:cites ?d ; hg:asserts ?claim ; prov:wasGeneratedBy ?case }
        GRAPH ?g2 { ?case hg:ofRun ?run }
      } UNION {
        GRAPH ?g3 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d ; hg:forQuestion ?question }
        GRAPH ?g4 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g5 { ?deliverer hg:ofRun ?run ; hg:retrieved ?d }
        GRAPH ?g6 { ?output prov:wasGeneratedBy ?deliverer ; hg:asserts ?claim }
      }
    }
  }
  GRAPH ?gD { ?d prov:wasQuotedFrom ?v ; oa:hasSelector ?dLocator . ?dLocator rdf:value ?locator }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
  GRAPH ?gM { ?m prov:wasQuotedFrom ?v ; oa:hasSelector ?mLocator . ?mLocator rdf:value ?locator }
}
