# id: evaluation-claim-sets
# description: For each claim a case of a run requires, how many eligible sets support it, the fewest members and the fewest unretrieved members among them, and the oldest observation of the versions they quote (with its count of seconds, for the source age). Reads and writes the evaluation's scratch graph.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph, filled by evaluation-eligibility and evaluation-coverage)
# returns: nothing; inserts into GRAPH ?scratch one blank node per (case, claim) with an eligible set: hg:setsForCase ?case, hg:setsForClaim ?claim, hg:setCount, hg:fewestMembers, hg:fewestUnretrieved, hg:oldestObserved (a dateTime) and hg:oldestSeconds (its seconds from a Julian day number)
# spec: docs/spec/acceptance.md "Answerability", docs/spec/acceptance.md "Metrics", docs/spec/acceptance.md "Strata"
#
# Kept apart from evaluation-claim-cases, which reads these counts with a plain
# OPTIONAL: as an OPTIONAL sub-select of that query, some of Virtuoso 7.2.5's
# plans returned a row with ?oldestObservation bound and the counts of the same
# sub-select unbound (docs/remote-virtuoso.md). The oldest observation's
# seconds are counted here, where it is bound: Virtuoso fails a whole query on
# DAY() of an unbound value. Each pattern names its graph: an update's WHERE
# reads the default graph otherwise, which holds nothing (evaluation-eligibility).
INSERT {
  GRAPH ?scratch {
    _:sets hg:setsForCase ?case ; hg:setsForClaim ?claim ; hg:setCount ?eligibleSets ;
      hg:fewestMembers ?hops ; hg:fewestUnretrieved ?fewestUnretrieved ;
      hg:oldestObserved ?oldestObservation ; hg:oldestSeconds ?oldestSeconds .
  }
}
WHERE {
  {
    SELECT ?case ?claim (COUNT(?set) AS ?eligibleSets) (MIN(?members) AS ?hops)
           (MIN(?unretrieved) AS ?fewestUnretrieved) (MIN(?setOldest) AS ?oldestObservation)
    WHERE {
      {
        SELECT ?case ?claim ?set (COUNT(?m) AS ?members) (COUNT(?m) - COUNT(?r) AS ?unretrieved)
               (MIN(?observedAt) AS ?setOldest)
        WHERE {
          GRAPH ?gCase { ?case hg:ofRun ?run ; hg:forQuestion ?q }
          GRAPH ?gQuestion { ?q hg:requiresClaim ?claim }
          GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?m }
          { SELECT ?set WHERE { GRAPH ?scratch { ?set hg:eligibleFor ?evaluation } } }
          GRAPH ?gSpan { ?m prov:wasQuotedFrom ?v }
          GRAPH ?gVersion { ?v prov:wasGeneratedBy ?fetch }
          GRAPH ?gFetch { ?fetch prov:endedAtTime ?observedAt }
          OPTIONAL { SELECT ?case ?m (true AS ?r) WHERE { GRAPH ?scratch { ?case hg:covers ?m } } }
        }
        GROUP BY ?case ?claim ?set
      }
    }
    GROUP BY ?case ?claim
  }
  # The run's own cases (the sub-select's ?run is its own variable).
  GRAPH ?gRun { ?case hg:ofRun ?run }
  BIND (((DAY(?oldestObservation) + FLOOR((153 * (MONTH(?oldestObservation) + 12 * FLOOR((14 - MONTH(?oldestObservation)) / 12) - 3) + 2) / 5)
      + 365 * (YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) + FLOOR((YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) / 4) - FLOOR((YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) / 100) + FLOOR((YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) / 400) - 32045) * 86400
     + HOURS(?oldestObservation) * 3600 + MINUTES(?oldestObservation) * 60 + SECONDS(?oldestObservation)) AS ?oldestSeconds)
}
