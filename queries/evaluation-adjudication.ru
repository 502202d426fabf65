# id: evaluation-adjudication
# description: Which final judgments are in force for the run's evaluation: the annotation version of each evidence set (re-annotated by its latest final entailment or alternatives judgment), the contradictions a final contradiction judgment resolves, and the extra assertions a final boundary judgment decides? Writes the answer into the evaluation's scratch graph; the load graphs are only read.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?set hg:reannotatedBy ?judgment (the latest final entailment or alternatives judgment of the set), ?set hg:statusInForce ?status (hg:Adjudicated, hg:Proposed or hg:Rejected: the re-annotated status, else the loaded one), ?contradiction hg:resolvedBy ?judgment, ?output hg:boundaryDecidedBy ?judgment
# spec: docs/spec/adjudication.md "Effect on scoring", docs/spec/adjudication.md "Edge cases"
#
# Runs first among the evaluation's updates; evaluation-eligibility and
# evaluation-routes read hg:statusInForce instead of the loaded hg:setStatus,
# evaluation-verdicts reads hg:resolvedBy and hg:boundaryDecidedBy.
# Only final judgments whose decision is a term of their question count
# (initial judgments, and the old spelling without hg:question, score
# nothing). The latest final judgment wins: the greatest time (a judgment
# without one is the earliest), then the greatest hg:ledgerId (compared as
# plain strings: on Virtuoso 7.2.5, MAX of xsd:string literals is not the
# greatest string); judgments stay terms, no key is built from an id. An update's
# WHERE reads no union default graph, so every pattern names its graph.
INSERT { GRAPH ?scratch { ?set hg:reannotatedBy ?judgment } }
WHERE {
  {
    SELECT ?set ?latestAt (MAX(STR(?id)) AS ?latestId)
    WHERE {
      {
        SELECT ?set (MAX(?when) AS ?latestAt)
        WHERE {
          GRAPH ?g1 { ?j hg:judges ?set ; hg:final true ; hg:question ?q ; hg:decision ?d }
          GRAPH ?g2 { ?set hg:supportsClaim ?claim }
          FILTER (?q IN ("entailment", "alternatives") && ?d IN ("sufficient", "insufficient"))
          OPTIONAL { GRAPH ?g3 { ?j prov:generatedAtTime ?at } }
          BIND (COALESCE(?at, "0001-01-01T00:00:00Z"^^xsd:dateTime) AS ?when)
        }
        GROUP BY ?set
      }
      GRAPH ?g4 { ?j hg:judges ?set ; hg:final true ; hg:question ?q ; hg:decision ?d ; hg:ledgerId ?id }
      FILTER (?q IN ("entailment", "alternatives") && ?d IN ("sufficient", "insufficient"))
      OPTIONAL { GRAPH ?g5 { ?j prov:generatedAtTime ?at } }
      FILTER (COALESCE(?at, "0001-01-01T00:00:00Z"^^xsd:dateTime) = ?latestAt)
    }
    GROUP BY ?set ?latestAt
  }
  GRAPH ?g6 { ?judgment hg:judges ?set ; hg:ledgerId ?judgmentId ; a hg:Judgment }
  FILTER (STR(?judgmentId) = ?latestId)
} ;
INSERT { GRAPH ?scratch { ?set hg:statusInForce ?status } }
WHERE {
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; hg:setStatus ?loaded }
  OPTIONAL {
    SELECT ?set ?decision
    WHERE {
      GRAPH ?scratch { ?set hg:reannotatedBy ?j }
      GRAPH ?gJ { ?j hg:decision ?decision }
    }
  }
  BIND (IF(BOUND(?decision), IF(?decision = "sufficient", hg:Adjudicated, hg:Rejected), ?loaded)
        AS ?status)
} ;
INSERT { GRAPH ?scratch { ?contradiction hg:resolvedBy ?judgment } }
WHERE {
  {
    SELECT ?contradiction ?latestAt (MAX(STR(?id)) AS ?latestId)
    WHERE {
      {
        SELECT ?contradiction (MAX(?when) AS ?latestAt)
        WHERE {
          GRAPH ?g1 { ?j hg:judges ?contradiction ; hg:final true ; hg:question "contradiction" ; hg:decision ?d }
          FILTER (?d IN ("material", "immaterial"))
          OPTIONAL { GRAPH ?g3 { ?j prov:generatedAtTime ?at } }
          BIND (COALESCE(?at, "0001-01-01T00:00:00Z"^^xsd:dateTime) AS ?when)
        }
        GROUP BY ?contradiction
      }
      GRAPH ?g4 { ?j hg:judges ?contradiction ; hg:final true ; hg:question "contradiction" ; hg:decision ?d ; hg:ledgerId ?id }
      FILTER (?d IN ("material", "immaterial"))
      OPTIONAL { GRAPH ?g5 { ?j prov:generatedAtTime ?at } }
      FILTER (COALESCE(?at, "0001-01-01T00:00:00Z"^^xsd:dateTime) = ?latestAt)
    }
    GROUP BY ?contradiction ?latestAt
  }
  GRAPH ?g6 { ?judgment hg:judges ?contradiction ; hg:ledgerId ?judgmentId ; a hg:Judgment }
  FILTER (STR(?judgmentId) = ?latestId)
} ;
INSERT { GRAPH ?scratch { ?output hg:boundaryDecidedBy ?judgment } }
WHERE {
  {
    SELECT ?output ?latestAt (MAX(STR(?id)) AS ?latestId)
    WHERE {
      {
        SELECT ?output (MAX(?when) AS ?latestAt)
        WHERE {
          GRAPH ?g1 { ?j hg:judges ?output ; hg:final true ; hg:question "boundary" ; hg:decision ?d }
          FILTER (?d IN ("new-claim", "not-a-claim", "unsupported"))
          OPTIONAL { GRAPH ?g3 { ?j prov:generatedAtTime ?at } }
          BIND (COALESCE(?at, "0001-01-01T00:00:00Z"^^xsd:dateTime) AS ?when)
        }
        GROUP BY ?output
      }
      GRAPH ?g4 { ?j hg:judges ?output ; hg:final true ; hg:question "boundary" ; hg:decision ?d ; hg:ledgerId ?id }
      FILTER (?d IN ("new-claim", "not-a-claim", "unsupported"))
      OPTIONAL { GRAPH ?g5 { ?j prov:generatedAtTime ?at } }
      FILTER (COALESCE(?at, "0001-01-01T00:00:00Z"^^xsd:dateTime) = ?latestAt)
    }
    GROUP BY ?output ?latestAt
  }
  GRAPH ?g6 { ?judgment hg:judges ?output ; hg:ledgerId ?judgmentId ; a hg:Judgment }
  FILTER (STR(?judgmentId) = ?latestId)
  GRAPH ?g7 { ?output prov:wasGeneratedBy ?case }
  GRAPH ?g8 { ?case hg:ofRun ?run }
  MINUS { GRAPH ?g9 { ?output hg:asserts ?anyClaim } }
}
