# id: evaluation-routes
# description: For each output claim of a run, which eligible set of its claim leaves fewest members uncited and fewest unretrieved (ties by set id), which set is its nearest when citations are incomplete, and do its citations contain a proposed set? Reads and writes the evaluation's scratch graph.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph, filled by evaluation-run, evaluation-eligibility and evaluation-coverage)
# returns: nothing; inserts into GRAPH ?scratch: ?output hg:routeCandidate ?candidate (a blank node per eligible set of its claim, with hg:candidateSet ?set, hg:uncited and hg:unretrieved counts), ?output hg:bestCited ?candidate and hg:bestRetrieved ?candidate (fewest uncited / unretrieved members, ties by set id), ?output hg:nearestSet ?set (when the best cited candidate has uncited members), ?output hg:proposedCited true or false (for every output of the run), ?output hg:truthRoute ?set (the route whose source truth the card states: the cited route, else the retrieved route, else the nearest set)
# spec: docs/spec/acceptance.md "Per output claim", docs/spec/acceptance.md "Verdict", docs/spec/acceptance.md "Source truth"
#
# Sets stay terms throughout: the counts are kept per (output, set) on a
# candidate node, the least count per output is found with GROUP BY, and among
# the sets reaching it the least hg:ledgerId (compared as plain strings: on
# Virtuoso 7.2.5, MIN of xsd:string literals is not the least string,
# docs/remote-virtuoso.md) is matched back to its set. No key is built from an id and no IRI from a string, so
# any id (a newline, U+0001, an emoji) behaves as a plain one. An update's
# WHERE reads no union default graph, so every pattern names its graph;
# counts are DISTINCT in case a triple is in several load graphs.
INSERT {
  GRAPH ?scratch {
    ?output hg:routeCandidate _:candidate .
    _:candidate hg:candidateSet ?set ; hg:uncited ?uncited ; hg:unretrieved ?unretrieved .
  }
}
WHERE {
  {
    SELECT ?output ?set ((COUNT(DISTINCT ?m) - COUNT(DISTINCT ?c)) AS ?uncited)
           ((COUNT(DISTINCT ?m) - COUNT(DISTINCT ?r)) AS ?unretrieved)
    WHERE {
      GRAPH ?scratch { ?output hg:runOutputIn ?case }
      GRAPH ?gOutput { ?output hg:asserts ?claim }
      GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
      { SELECT ?set WHERE { GRAPH ?scratch { ?set hg:eligibleFor ?evaluation } } }
      OPTIONAL { SELECT ?output ?m (?m AS ?c) WHERE { GRAPH ?scratch { ?output hg:covers ?m } } }
      OPTIONAL { SELECT ?case ?m (?m AS ?r) WHERE { GRAPH ?scratch { ?case hg:covers ?m } } }
    }
    GROUP BY ?output ?set
  }
} ;
INSERT { GRAPH ?scratch { ?output hg:bestCited ?candidate } }
WHERE {
  {
    # Among the candidates with fewest uncited members, the least set id.
    SELECT ?output ?fewest (MIN(STR(?setId)) AS ?bestId)
    WHERE {
      {
        SELECT ?output (MIN(?count) AS ?fewest)
        WHERE { GRAPH ?scratch { ?output hg:routeCandidate ?any . ?any hg:uncited ?count } }
        GROUP BY ?output
      }
      GRAPH ?scratch { ?output hg:routeCandidate ?tied . ?tied hg:uncited ?fewest ; hg:candidateSet ?tiedSet }
      GRAPH ?gTied { ?tiedSet hg:ledgerId ?setId }
    }
    GROUP BY ?output ?fewest
  }
  GRAPH ?scratch { ?output hg:routeCandidate ?candidate . ?candidate hg:uncited ?fewest ; hg:candidateSet ?set }
  GRAPH ?gSet { ?set hg:ledgerId ?setId }
  FILTER (STR(?setId) = ?bestId)
} ;
INSERT { GRAPH ?scratch { ?output hg:bestRetrieved ?candidate } }
WHERE {
  {
    # Among the candidates with fewest unretrieved members, the least set id.
    SELECT ?output ?fewest (MIN(STR(?setId)) AS ?bestId)
    WHERE {
      {
        SELECT ?output (MIN(?count) AS ?fewest)
        WHERE { GRAPH ?scratch { ?output hg:routeCandidate ?any . ?any hg:unretrieved ?count } }
        GROUP BY ?output
      }
      GRAPH ?scratch { ?output hg:routeCandidate ?tied . ?tied hg:unretrieved ?fewest ; hg:candidateSet ?tiedSet }
      GRAPH ?gTied { ?tiedSet hg:ledgerId ?setId }
    }
    GROUP BY ?output ?fewest
  }
  GRAPH ?scratch { ?output hg:routeCandidate ?candidate . ?candidate hg:unretrieved ?fewest ; hg:candidateSet ?set }
  GRAPH ?gSet { ?set hg:ledgerId ?setId }
  FILTER (STR(?setId) = ?bestId)
} ;
INSERT { GRAPH ?scratch { ?output hg:nearestSet ?set } }
WHERE {
  GRAPH ?scratch { ?output hg:bestCited ?candidate . ?candidate hg:uncited ?uncited ; hg:candidateSet ?set }
  FILTER (?uncited > 0)
} ;
INSERT { GRAPH ?scratch { ?output hg:proposedCited true } }
WHERE {
  {
    SELECT ?output ?set (COUNT(DISTINCT ?m) AS ?members) (COUNT(DISTINCT ?c) AS ?cited)
    WHERE {
      GRAPH ?scratch { ?output hg:runOutputIn ?case }
      GRAPH ?gOutput { ?output hg:asserts ?claim }
      GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
      GRAPH ?scratch { ?set hg:statusInForce hg:Proposed }
      OPTIONAL { SELECT ?output ?m (?m AS ?c) WHERE { GRAPH ?scratch { ?output hg:covers ?m } } }
    }
    GROUP BY ?output ?set
  }
  FILTER (?members = ?cited)
} ;
# Every other output of the run is stated not to cite a proposed set, so the
# verdict query reads the flag as a plain triple. Computed there as
# BOUND(?flag) of an OPTIONAL that matched nothing, some Virtuoso 7.2.5 plans
# projected another expression's value for it (docs/remote-virtuoso.md).
# Whatever the case generated is stated (its outputs, wherever their type is
# written): the verdict query needs the flag on every output it reads.
INSERT { GRAPH ?scratch { ?output hg:proposedCited false } }
WHERE {
  GRAPH ?scratch { ?output hg:runOutputIn ?case }
  MINUS { GRAPH ?scratch { ?output hg:proposedCited ?flag } }
} ;
# The route the card weighs for source truth (docs/spec/acceptance.md "Source
# truth"): the cited route when the citations contain an eligible set, else
# the retrieved route when retrieval does, else the nearest set. bestCited and
# bestRetrieved are chosen from the same candidates, so both are present or
# neither (no eligible set: no route).
INSERT { GRAPH ?scratch { ?output hg:truthRoute ?route } }
WHERE {
  GRAPH ?scratch {
    ?output hg:bestCited ?cited ; hg:bestRetrieved ?retrieved .
    ?cited hg:candidateSet ?citedSet ; hg:uncited ?uncited .
    ?retrieved hg:candidateSet ?retrievedSet ; hg:unretrieved ?unretrieved .
  }
  BIND (IF(?uncited = 0, ?citedSet, IF(?unretrieved = 0, ?retrievedSet, ?citedSet)) AS ?route)
}
