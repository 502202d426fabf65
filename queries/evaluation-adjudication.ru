# id: evaluation-adjudication
# description: Which final judgments are in force for the run's evaluation: the annotation version of each evidence set (re-annotated by its latest recorded final entailment or alternatives judgment), the contradictions a final contradiction judgment resolves, and the extra assertions a final boundary judgment decides? Writes the answer into the evaluation's scratch graph; the load graphs are only read.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?set hg:reannotatedBy ?judgment (the latest recorded final entailment or alternatives judgment of the set), ?set hg:statusInForce ?status (hg:Adjudicated, hg:Proposed or hg:Rejected: the re-annotated status, else the loaded one), ?contradiction hg:resolvedBy ?judgment, ?output hg:boundaryDecidedBy ?judgment, ?subject hg:admissibilityDecidedBy ?judgment (a span or version: the final admissibility judgment in force, whose reason is the basis for accepting the premise)
# spec: docs/spec/adjudication.md "Effect on scoring", docs/spec/adjudication.md "Recording", docs/spec/adjudication.md "Edge cases", docs/spec/acceptance.md "Source truth"
#
# Runs after evaluation-run (whose hg:runOutputIn it reads); evaluation-eligibility and
# evaluation-routes read hg:statusInForce instead of the loaded hg:setStatus,
# evaluation-verdicts reads hg:resolvedBy and hg:boundaryDecidedBy,
# evaluation-source-truth hg:admissibilityDecidedBy (which scores nothing).
# Only final judgments whose decision is a term of their question count
# (initial judgments, and the old spelling without hg:question, score
# nothing). Rule latest recorded: the judgment in force is the one the store
# recorded last, the greatest hg:recordNumber (the loader's stamp, in the
# order loads and their ledgers recorded them; never the time a judgment
# claims, prov:generatedAtTime, which its author chose). A judgment recorded
# before the store numbered its recordings counts as number 0, recorded
# before every numbered one; among equal numbers (only those, or two writers
# racing on a remote store) the greatest hg:ledgerId, compared as a plain
# string (on Virtuoso 7.2.5, MAX of xsd:string literals is not the greatest
# string). Judgments stay terms, no key is built from an id. An update's
# WHERE reads no union default graph, so every pattern names its graph.
INSERT { GRAPH ?scratch { ?set hg:reannotatedBy ?judgment } }
WHERE {
  {
    SELECT ?set ?latestRecord (MAX(STR(?id)) AS ?latestId)
    WHERE {
      {
        SELECT ?set (MAX(?rank) AS ?latestRecord)
        WHERE {
          GRAPH ?g1 { ?j hg:judges ?set ; hg:final true ; hg:question ?q ; hg:decision ?d }
          GRAPH ?g2 { ?set hg:supportsClaim ?claim }
          FILTER (?q IN ("entailment", "alternatives") && ?d IN ("sufficient", "insufficient"))
          OPTIONAL { GRAPH ?g3 { ?j hg:recordNumber ?number } }
          BIND (COALESCE(?number, 0) AS ?rank)
        }
        GROUP BY ?set
      }
      GRAPH ?g4 { ?j hg:judges ?set ; hg:final true ; hg:question ?q ; hg:decision ?d ; hg:ledgerId ?id }
      FILTER (?q IN ("entailment", "alternatives") && ?d IN ("sufficient", "insufficient"))
      OPTIONAL { GRAPH ?g5 { ?j hg:recordNumber ?recorded } }
      FILTER (COALESCE(?recorded, 0) = ?latestRecord)
    }
    GROUP BY ?set ?latestRecord
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
    SELECT ?contradiction ?latestRecord (MAX(STR(?id)) AS ?latestId)
    WHERE {
      {
        SELECT ?contradiction (MAX(?rank) AS ?latestRecord)
        WHERE {
          GRAPH ?g1 { ?j hg:judges ?contradiction ; hg:final true ; hg:question "contradiction" ; hg:decision ?d }
          FILTER (?d IN ("material", "immaterial"))
          OPTIONAL { GRAPH ?g3 { ?j hg:recordNumber ?number } }
          BIND (COALESCE(?number, 0) AS ?rank)
        }
        GROUP BY ?contradiction
      }
      GRAPH ?g4 { ?j hg:judges ?contradiction ; hg:final true ; hg:question "contradiction" ; hg:decision ?d ; hg:ledgerId ?id }
      FILTER (?d IN ("material", "immaterial"))
      OPTIONAL { GRAPH ?g5 { ?j hg:recordNumber ?recorded } }
      FILTER (COALESCE(?recorded, 0) = ?latestRecord)
    }
    GROUP BY ?contradiction ?latestRecord
  }
  GRAPH ?g6 { ?judgment hg:judges ?contradiction ; hg:ledgerId ?judgmentId ; a hg:Judgment }
  FILTER (STR(?judgmentId) = ?latestId)
} ;
INSERT { GRAPH ?scratch { ?output hg:boundaryDecidedBy ?judgment } }
WHERE {
  {
    SELECT ?output ?latestRecord (MAX(STR(?id)) AS ?latestId)
    WHERE {
      {
        SELECT ?output (MAX(?rank) AS ?latestRecord)
        WHERE {
          GRAPH ?g1 { ?j hg:judges ?output ; hg:final true ; hg:question "boundary" ; hg:decision ?d }
          FILTER (?d IN ("new-claim", "not-a-claim", "unsupported"))
          OPTIONAL { GRAPH ?g3 { ?j hg:recordNumber ?number } }
          BIND (COALESCE(?number, 0) AS ?rank)
        }
        GROUP BY ?output
      }
      GRAPH ?g4 { ?j hg:judges ?output ; hg:final true ; hg:question "boundary" ; hg:decision ?d ; hg:ledgerId ?id }
      FILTER (?d IN ("new-claim", "not-a-claim", "unsupported"))
      OPTIONAL { GRAPH ?g5 { ?j hg:recordNumber ?recorded } }
      FILTER (COALESCE(?recorded, 0) = ?latestRecord)
    }
    GROUP BY ?output ?latestRecord
  }
  GRAPH ?g6 { ?judgment hg:judges ?output ; hg:ledgerId ?judgmentId ; a hg:Judgment }
  FILTER (STR(?judgmentId) = ?latestId)
  GRAPH ?scratch { ?output hg:runOutputIn ?case }
  MINUS { GRAPH ?g9 { ?output hg:asserts ?anyClaim } }
} ;
INSERT { GRAPH ?scratch { ?subject hg:admissibilityDecidedBy ?judgment } }
WHERE {
  {
    SELECT ?subject ?latestRecord (MAX(STR(?id)) AS ?latestId)
    WHERE {
      {
        SELECT ?subject (MAX(?rank) AS ?latestRecord)
        WHERE {
          GRAPH ?g1 { ?j hg:judges ?subject ; hg:final true ; hg:question "admissibility" ; hg:decision ?d }
          FILTER (?d IN ("admissible", "inadmissible"))
          OPTIONAL { GRAPH ?g3 { ?j hg:recordNumber ?number } }
          BIND (COALESCE(?number, 0) AS ?rank)
        }
        GROUP BY ?subject
      }
      GRAPH ?g4 { ?j hg:judges ?subject ; hg:final true ; hg:question "admissibility" ; hg:decision ?d ; hg:ledgerId ?id }
      FILTER (?d IN ("admissible", "inadmissible"))
      OPTIONAL { GRAPH ?g5 { ?j hg:recordNumber ?recorded } }
      FILTER (COALESCE(?recorded, 0) = ?latestRecord)
    }
    GROUP BY ?subject ?latestRecord
  }
  GRAPH ?g6 { ?judgment hg:judges ?subject ; hg:ledgerId ?judgmentId ; a hg:Judgment }
  FILTER (STR(?judgmentId) = ?latestId)
}
