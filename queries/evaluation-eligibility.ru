# id: evaluation-eligibility
# description: Which claims the run touches does the ledger mark not applicable for the run's evaluation, which spans and versions break an admissibility rule for the run's evaluation (observed late, invalidated, out of effect for a claim, unreadable by its reader), which adjudicated evidence sets of the claims a run touches are therefore eligible, and which pass rules 1-3 (all but the reader rule)? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?claim hg:notApplicableBy ?statement (the ledger's inapplicability statement for the evaluation), ?version hg:lateFor ?evaluation (rule 1), ?version hg:invalidatedFor ?evaluation (rule 2), ?version hg:weighedFor ?claim and ?version hg:outOfTimeFor ?claim (rule 3), ?span hg:unreadableFor ?evaluation (rule 4), ?set hg:excludedBy ?evaluation (a member is not admissible), ?set hg:untimelyFor ?evaluation (a member fails rules 1-3), ?set hg:eligibleFor ?evaluation, ?set hg:timelyFor ?evaluation, ?claim hg:claimAnswerability ?answerability (hg:NotApplicable, hg:Answerable, hg:Blocked or hg:NotFound, for each claim the run touches)
# spec: docs/spec/acceptance.md "Not applicable", docs/spec/acceptance.md "Eligibility", docs/spec/acceptance.md "Answerability", docs/spec/adjudication.md "Effect on scoring"
#
# The one home of the admissibility rules (docs/spec/acceptance.md
# "Eligibility"): each rule is written once, here, against the terms it
# concerns (rules 1 and 2 a version, rule 3 a version and a claim, rule 4 a
# span); the set-level answers, the evaluation's later steps, the acceptance
# cards and the auditor queries (admissible-spans, inadmissible-citations,
# report-spans, interventions-plan) read the flags written here.
# The failing members are found with plain joins, OPTIONAL single triples and
# MINUS, never a correlated (NOT) EXISTS. An update's WHERE reads no union
# default graph (Oxigraph, Virtuoso), so every pattern names its graph:
# GRAPH ?gN over the load graphs.
# The claims a run touches (those its cases' questions require and those its
# outputs assert) and the run's outputs are read from the scratch graph, where
# evaluation-run wrote them (hg:touchedBy, hg:runOutputIn). A set's status is the one in force (hg:statusInForce,
# written by evaluation-adjudication: a final judgment's re-annotation, else
# the loaded status; docs/spec/adjudication.md "Effect on scoring").
#
# Not applicable (docs/spec/acceptance.md "Not applicable"), decided before
# eligibility: a claim the run touches that the ledger marks not applicable for
# the run's evaluation. Its sets are never eligible nor timely for the
# evaluation (nothing below weighs them), and its answerability is
# hg:NotApplicable, whatever its sets.
INSERT { GRAPH ?scratch { ?claim hg:notApplicableBy ?statement } }
WHERE {
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gClaim { ?claim hg:notApplicable ?statement . ?statement hg:inapplicableTo ?evaluation }
} ;
# Rule 1, observed in time: a version observed after the cutoff.
INSERT { GRAPH ?scratch { ?version hg:lateFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:observationCutoff ?cutoff }
  GRAPH ?gVersion { ?version a hg:Version ; prov:wasGeneratedBy ?fetch }
  GRAPH ?gFetch { ?fetch prov:endedAtTime ?observed }
  FILTER (?observed > ?cutoff)
} ;
# Rule 2, not invalidated: a version invalidated at or before the cutoff.
INSERT { GRAPH ?scratch { ?version hg:invalidatedFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:observationCutoff ?cutoff }
  GRAPH ?gVersion { ?version a hg:Version ; prov:invalidatedAtTime ?invalidated }
  FILTER (?invalidated <= ?cutoff)
} ;
# Rule 3 is weighed for a claim with an applicable time and each version a
# member of its sets quotes, a span its outputs cite quotes, a replacement of
# an intervention quotes, or another version of those versions' sources (the
# temporal replacements of interventions-plan).
INSERT { GRAPH ?scratch { ?version hg:weighedFor ?claim } }
WHERE {
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  GRAPH ?gClaim { ?claim hg:appliesAt ?at }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?version }
} ;
INSERT { GRAPH ?scratch { ?version hg:weighedFor ?claim } }
WHERE {
  GRAPH ?scratch { ?output hg:runOutputIn ?case }
  GRAPH ?g2 { ?output hg:asserts ?claim ; hg:cites ?x }
  GRAPH ?gClaim { ?claim hg:appliesAt ?at }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?version }
} ;
# A replacement takes the place of a member in an intervention (a contradiction
# record's span in a planned variant, a replacement an intervention case names),
# and the member takes its admissibility (docs/spec/interventions.md "Edge cases").
INSERT { GRAPH ?scratch { ?version hg:weighedFor ?claim } }
WHERE {
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  GRAPH ?gClaim { ?claim hg:appliesAt ?at }
  GRAPH ?gRecord { ?record hg:contradictsClaim ?claim ; hg:conflictingSpan ?x }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?version }
} ;
INSERT { GRAPH ?scratch { ?version hg:weighedFor ?claim } }
WHERE {
  GRAPH ?gCase { ?case hg:interventionOfRun ?run ; hg:selectedSet ?set ; hg:replacement ?x }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim }
  GRAPH ?gClaim { ?claim hg:appliesAt ?at }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?version }
} ;
INSERT { GRAPH ?scratch { ?sibling hg:weighedFor ?claim } }
WHERE {
  GRAPH ?scratch { ?version hg:weighedFor ?claim }
  GRAPH ?gSource { ?version prov:specializationOf ?source }
  GRAPH ?gSibling { ?sibling prov:specializationOf ?source }
} ;
# Rule 3, in effect: the claim's applicable time outside the version's
# effective interval (from inclusive, until exclusive, a missing bound open).
INSERT { GRAPH ?scratch { ?version hg:outOfTimeFor ?claim } }
WHERE {
  GRAPH ?scratch { ?version hg:weighedFor ?claim }
  GRAPH ?gClaim { ?claim hg:appliesAt ?at }
  OPTIONAL { GRAPH ?gFrom { ?version hg:effectiveFrom ?from } }
  OPTIONAL { GRAPH ?gUntil { ?version hg:effectiveUntil ?until } }
  FILTER ((BOUND(?from) && ?at < ?from) || (BOUND(?until) && ?at >= ?until))
} ;
# Rule 4, readable: a span with readers of its own that exclude the reader.
INSERT { GRAPH ?scratch { ?x hg:unreadableFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:reader ?reader }
  GRAPH ?gReaders { ?x hg:readableBy ?anyone ; prov:wasQuotedFrom ?xv }
  MINUS { GRAPH ?gAllowed { ?x hg:readableBy ?reader } }
} ;
# Rule 4, readable: a span without readers of its own whose version's readers exclude the reader.
INSERT { GRAPH ?scratch { ?x hg:unreadableFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:reader ?reader }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?xv }
  GRAPH ?gReaders { ?xv hg:readableBy ?anyone }
  MINUS { GRAPH ?gSpanReaders { ?x hg:readableBy ?someone } }
  MINUS { GRAPH ?gAllowed { ?xv hg:readableBy ?reader } }
} ;
# A set with a member whose version breaks rule 1, 2 or 3 is untimely and excluded.
INSERT { GRAPH ?scratch { ?set hg:untimelyFor ?evaluation ; hg:excludedBy ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?xv }
  GRAPH ?scratch { ?xv hg:lateFor ?evaluation }
} ;
INSERT { GRAPH ?scratch { ?set hg:untimelyFor ?evaluation ; hg:excludedBy ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?xv }
  GRAPH ?scratch { ?xv hg:invalidatedFor ?evaluation }
} ;
INSERT { GRAPH ?scratch { ?set hg:untimelyFor ?evaluation ; hg:excludedBy ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?xv }
  GRAPH ?scratch { ?xv hg:outOfTimeFor ?claim }
} ;
# A set with a member that breaks rule 4 is excluded.
INSERT { GRAPH ?scratch { ?set hg:excludedBy ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  GRAPH ?scratch { ?x hg:unreadableFor ?evaluation }
} ;
# Eligible: adjudicated and not excluded; timely: adjudicated and passing rules 1-3;
# neither for a claim not applicable for the evaluation.
INSERT { GRAPH ?scratch { ?set hg:eligibleFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  MINUS { SELECT ?set ?evaluation WHERE { GRAPH ?scratch { ?set hg:excludedBy ?evaluation } } }
  MINUS { SELECT ?claim WHERE { GRAPH ?scratch { ?claim hg:notApplicableBy ?statement } } }
} ;
INSERT { GRAPH ?scratch { ?set hg:timelyFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  MINUS { SELECT ?set ?evaluation WHERE { GRAPH ?scratch { ?set hg:untimelyFor ?evaluation } } }
  MINUS { SELECT ?claim WHERE { GRAPH ?scratch { ?claim hg:notApplicableBy ?statement } } }
} ;
# Answerability (docs/spec/acceptance.md "Answerability"), once per claim the
# run touches: not applicable when the ledger says so for the evaluation (decided
# first, docs/spec/acceptance.md "Not applicable"); else answerable with an
# eligible set; else blocked when an adjudicated set passes rules 1-3 (only the
# reader stops it); else not found.
INSERT { GRAPH ?scratch { ?claim hg:claimAnswerability ?answerability } }
WHERE {
  GRAPH ?scratch { ?claim hg:touchedBy ?run }
  OPTIONAL {
    SELECT DISTINCT ?claim (true AS ?eligible)
    WHERE { GRAPH ?gE { ?set hg:supportsClaim ?claim } GRAPH ?scratch { ?set hg:eligibleFor ?e } }
  }
  OPTIONAL {
    SELECT DISTINCT ?claim (true AS ?timely)
    WHERE { GRAPH ?gT { ?set hg:supportsClaim ?claim } GRAPH ?scratch { ?set hg:timelyFor ?e } }
  }
  OPTIONAL {
    SELECT DISTINCT ?claim (true AS ?inapplicable)
    WHERE { GRAPH ?scratch { ?claim hg:notApplicableBy ?statement } }
  }
  BIND (IF(BOUND(?inapplicable), hg:NotApplicable,
        IF(BOUND(?eligible), hg:Answerable, IF(BOUND(?timely), hg:Blocked, hg:NotFound)))
        AS ?answerability)
}
