# id: evaluation-claim-sets
# description: For each claim a case of a run requires, its claim time (applies_at, else the run's observation cutoff); when eligible sets support it, how many, the fewest members and fewest unretrieved members among them, the oldest observation of the versions they quote, and the source age in whole days. Reads and writes the evaluation's scratch graph.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph, filled by evaluation-run, evaluation-eligibility and evaluation-coverage)
# returns: nothing; inserts into GRAPH ?scratch: ?claim hg:claimTimeForRun ?time (for each claim the run touches), and one blank node per (case, required claim): hg:setsForCase ?case, hg:setsForClaim ?claim, hg:caseClaimTime and hg:caseClaimSeconds; with an eligible set also hg:setCount, hg:fewestMembers, hg:fewestUnretrieved, hg:oldestObserved and hg:caseSourceAge
# spec: docs/spec/acceptance.md "Answerability", docs/spec/acceptance.md "Metrics", docs/spec/acceptance.md "Strata"
#
# evaluation-claim-cases reads these with plain patterns. Computed there, as
# OPTIONAL sub-selects and BINDs after them, some of Virtuoso 7.2.5's plans
# returned a claim-case with the counts, or the age, unbound while the oldest
# observation of the same sub-select was bound (docs/remote-virtuoso.md). Each
# time is counted in seconds where it is bound (Virtuoso fails a whole query on
# DAY() of an unbound value), as a decimal (Virtuoso writes a double in its
# JSON answers to six digits). Each pattern names its graph: an update's WHERE
# reads the default graph otherwise, which holds nothing (evaluation-eligibility).

# The claim time of each claim the run touches: its applies_at, else the
# evaluation's observation cutoff. Written per claim first, from the claims
# evaluation-run wrote, then joined to each claim-case: looked up per
# claim-case, as an OPTIONAL beside the run's evaluation, it grew with the
# number of the run's input graphs on Virtuoso 7.2.5 (0.43 s with one, 1.37 s
# with eight, bench/README.md "5 December"); this way it does not.
INSERT { GRAPH ?scratch { ?claim hg:claimTimeForRun ?at } }
WHERE {
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  GRAPH ?gClaim { ?claim hg:appliesAt ?at }
} ;
INSERT { GRAPH ?scratch { ?claim hg:claimTimeForRun ?cutoff } }
WHERE {
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:observationCutoff ?cutoff }
  MINUS { GRAPH ?scratch { ?claim hg:claimTimeForRun ?at } }
} ;
# Each claim-case with its claim's time, and that time's seconds from a Julian day number.
INSERT {
  GRAPH ?scratch {
    _:sets hg:setsForCase ?case ; hg:setsForClaim ?claim ;
      hg:caseClaimTime ?claimTime ; hg:caseClaimSeconds ?claimSeconds .
  }
}
WHERE {
  GRAPH ?gCase { ?case hg:ofRun ?run ; hg:forQuestion ?question }
  GRAPH ?gQuestion { ?question hg:requiresClaim ?claim }
  GRAPH ?scratch { ?claim hg:claimTimeForRun ?claimTime }
  BIND (xsd:decimal(((DAY(?claimTime) + FLOOR((153 * (MONTH(?claimTime) + 12 * FLOOR((14 - MONTH(?claimTime)) / 12) - 3) + 2) / 5)
          + 365 * (YEAR(?claimTime) + 4800 - FLOOR((14 - MONTH(?claimTime)) / 12)) + FLOOR((YEAR(?claimTime) + 4800 - FLOOR((14 - MONTH(?claimTime)) / 12)) / 4) - FLOOR((YEAR(?claimTime) + 4800 - FLOOR((14 - MONTH(?claimTime)) / 12)) / 100) + FLOOR((YEAR(?claimTime) + 4800 - FLOOR((14 - MONTH(?claimTime)) / 12)) / 400) - 32045) * 86400
         + HOURS(?claimTime) * 3600 + MINUTES(?claimTime) * 60 + SECONDS(?claimTime))) AS ?claimSeconds)
} ;

# The eligible sets of each claim-case, and the source age (docs/spec/acceptance.md
# "Strata"): whole days, rounded down, from the oldest observation to the claim
# time, each counted in seconds from a Julian day number (SPARQL 1.1 has no
# duration arithmetic every engine shares).
INSERT {
  GRAPH ?scratch {
    ?sets hg:setCount ?eligibleSets ; hg:fewestMembers ?hops ;
      hg:fewestUnretrieved ?fewestUnretrieved ; hg:oldestObserved ?oldestObservation ;
      hg:caseSourceAge ?sourceAgeDays .
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
  GRAPH ?scratch { ?sets hg:setsForCase ?case ; hg:setsForClaim ?claim ; hg:caseClaimSeconds ?claimSeconds }
  BIND (xsd:integer(FLOOR((?claimSeconds - xsd:decimal(((DAY(?oldestObservation) + FLOOR((153 * (MONTH(?oldestObservation) + 12 * FLOOR((14 - MONTH(?oldestObservation)) / 12) - 3) + 2) / 5)
          + 365 * (YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) + FLOOR((YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) / 4) - FLOOR((YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) / 100) + FLOOR((YEAR(?oldestObservation) + 4800 - FLOOR((14 - MONTH(?oldestObservation)) / 12)) / 400) - 32045) * 86400
         + HOURS(?oldestObservation) * 3600 + MINUTES(?oldestObservation) * 60 + SECONDS(?oldestObservation)))) / 86400)) AS ?sourceAgeDays)
}
