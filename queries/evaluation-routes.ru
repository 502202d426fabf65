# id: evaluation-routes
# description: For each output claim of a run, which eligible set of its claim leaves fewest members uncited and fewest unretrieved (ties by set id), which set is its nearest when citations are incomplete, and do its citations contain a proposed set? Reads and writes the evaluation's scratch graph.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph, filled by evaluation-eligibility and evaluation-coverage)
# returns: nothing; inserts into GRAPH ?scratch: ?output hg:citedKey and hg:retrievedKey (strings "<1000000 + uncovered> U+0001 <set id> U+0001 <set IRI>", the least over the eligible sets), ?output hg:nearestSet ?set (when the cited key has uncovered members), ?output hg:proposedCited true
#
# The keys are those of verdicts.rq: MIN picks the set with fewest uncovered
# members, ties broken by the set's id. An update's WHERE reads no union
# default graph, so every pattern names its graph; counts are DISTINCT in case
# a triple is in several load graphs.
INSERT { GRAPH ?scratch { ?output hg:citedKey ?bestCited ; hg:retrievedKey ?bestRetrieved } }
WHERE {
  {
    SELECT ?output (MIN(?citedKey) AS ?bestCited) (MIN(?retrievedKey) AS ?bestRetrieved)
    WHERE {
      {
        SELECT ?output ?set ?setId (COUNT(DISTINCT ?m) AS ?members)
               (COUNT(DISTINCT ?c) AS ?cited) (COUNT(DISTINCT ?r) AS ?retrieved)
        WHERE {
          GRAPH ?gOutput { ?output hg:asserts ?claim ; prov:wasGeneratedBy ?case }
          GRAPH ?gCase { ?case hg:ofRun ?run }
          GRAPH ?gSet { ?set hg:supportsClaim ?claim ; hg:ledgerId ?setId ; prov:hadMember ?m }
          { SELECT ?set WHERE { GRAPH ?scratch { ?set hg:eligibleFor ?evaluation } } }
          OPTIONAL { SELECT ?output ?m (?m AS ?c) WHERE { GRAPH ?scratch { ?output hg:covers ?m } } }
          OPTIONAL { SELECT ?case ?m (?m AS ?r) WHERE { GRAPH ?scratch { ?case hg:covers ?m } } }
        }
        GROUP BY ?output ?set ?setId
      }
      BIND (CONCAT(STR(1000000 + ?members - ?cited), "\u0001", ?setId, "\u0001", STR(?set)) AS ?citedKey)
      BIND (CONCAT(STR(1000000 + ?members - ?retrieved), "\u0001", ?setId, "\u0001", STR(?set)) AS ?retrievedKey)
    }
    GROUP BY ?output
  }
} ;
INSERT { GRAPH ?scratch { ?output hg:nearestSet ?set } }
WHERE {
  GRAPH ?scratch { ?output hg:citedKey ?key }
  FILTER (!STRSTARTS(?key, "1000000\u0001"))
  BIND (IRI(REPLACE(?key, "^.*\u0001", "")) AS ?set)
} ;
INSERT { GRAPH ?scratch { ?output hg:proposedCited true } }
WHERE {
  {
    SELECT ?output ?set (COUNT(DISTINCT ?m) AS ?members) (COUNT(DISTINCT ?c) AS ?cited)
    WHERE {
      GRAPH ?gOutput { ?output hg:asserts ?claim ; prov:wasGeneratedBy ?case }
      GRAPH ?gCase { ?case hg:ofRun ?run }
      GRAPH ?gSet { ?set hg:supportsClaim ?claim ; hg:setStatus hg:Proposed ; prov:hadMember ?m }
      OPTIONAL { SELECT ?output ?m (?m AS ?c) WHERE { GRAPH ?scratch { ?output hg:covers ?m } } }
    }
    GROUP BY ?output ?set
  }
  FILTER (?members = ?cited)
}
