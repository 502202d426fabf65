# id: evaluation-eligibility
# description: Which adjudicated evidence sets of the claims a run touches are eligible for the run's evaluation, and which pass rules 1-3 (all but the reader rule)? Writes the answer into a scratch graph for the evaluation's later steps.
# parameters: ?run (IRI of a run) ?scratch (IRI of the scratch graph the evaluation writes and removes)
# returns: nothing; inserts into GRAPH ?scratch: ?set hg:excludedBy ?evaluation (a member is not admissible), ?set hg:untimelyFor ?evaluation (a member fails rules 1-3), ?set hg:eligibleFor ?evaluation, ?set hg:timelyFor ?evaluation
# spec: docs/spec/acceptance.md "Eligibility", docs/spec/acceptance.md "Answerability", docs/spec/adjudication.md "Effect on scoring"
#
# Set-at-a-time form of the eligibility test of complete-sets.rq (same rules,
# docs/spec/acceptance.md "Eligibility"): the failing members are found with plain
# joins, OPTIONAL single triples and MINUS, never a correlated (NOT) EXISTS.
# An update's WHERE reads no union default graph (Oxigraph, Virtuoso), so
# every pattern names its graph: GRAPH ?gN over the load graphs.
# The claims a run touches are those its cases' questions require and those
# its outputs assert. A set's status is the one in force (hg:statusInForce,
# written by evaluation-adjudication: a final judgment's re-annotation, else
# the loaded status; docs/spec/adjudication.md "Effect on scoring").
INSERT { GRAPH ?scratch { ?set hg:untimelyFor ?evaluation ; hg:excludedBy ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:observationCutoff ?cutoff }
  {
    SELECT DISTINCT ?claim WHERE {
      {
        GRAPH ?g1 { ?case hg:ofRun ?run ; hg:forQuestion ?question }
        GRAPH ?g2 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g3 { ?output hg:asserts ?claim ; prov:wasGeneratedBy ?outputCase }
        GRAPH ?g4 { ?outputCase hg:ofRun ?run }
      }
    }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?xv }
  GRAPH ?gVersion { ?xv prov:wasGeneratedBy ?fetch }
  GRAPH ?gFetch { ?fetch prov:endedAtTime ?observed }
  OPTIONAL { GRAPH ?gClaim { ?claim hg:appliesAt ?at } }
  OPTIONAL { GRAPH ?gInvalidated { ?xv prov:invalidatedAtTime ?invalidated } }
  OPTIONAL { GRAPH ?gFrom { ?xv hg:effectiveFrom ?from } }
  OPTIONAL { GRAPH ?gUntil { ?xv hg:effectiveUntil ?until } }
  FILTER (?observed > ?cutoff
    || (BOUND(?invalidated) && ?invalidated <= ?cutoff)
    || (BOUND(?at) && BOUND(?from) && ?at < ?from)
    || (BOUND(?at) && BOUND(?until) && ?at >= ?until))
} ;
# Rule 4, a member with readers of its own that exclude the evaluation's reader.
INSERT { GRAPH ?scratch { ?set hg:excludedBy ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:reader ?reader }
  {
    SELECT DISTINCT ?claim WHERE {
      {
        GRAPH ?g1 { ?case hg:ofRun ?run ; hg:forQuestion ?question }
        GRAPH ?g2 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g3 { ?output hg:asserts ?claim ; prov:wasGeneratedBy ?outputCase }
        GRAPH ?g4 { ?outputCase hg:ofRun ?run }
      }
    }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  GRAPH ?gReaders { ?x hg:readableBy ?anyone }
  MINUS { GRAPH ?gAllowed { ?x hg:readableBy ?reader } }
} ;
# Rule 4, a member without readers of its own whose version's readers exclude the reader.
INSERT { GRAPH ?scratch { ?set hg:excludedBy ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  GRAPH ?gEvaluation { ?evaluation hg:reader ?reader }
  {
    SELECT DISTINCT ?claim WHERE {
      {
        GRAPH ?g1 { ?case hg:ofRun ?run ; hg:forQuestion ?question }
        GRAPH ?g2 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g3 { ?output hg:asserts ?claim ; prov:wasGeneratedBy ?outputCase }
        GRAPH ?g4 { ?outputCase hg:ofRun ?run }
      }
    }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim ; prov:hadMember ?x }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  GRAPH ?gSpan { ?x prov:wasQuotedFrom ?xv }
  GRAPH ?gReaders { ?xv hg:readableBy ?anyone }
  MINUS { GRAPH ?gSpanReaders { ?x hg:readableBy ?someone } }
  MINUS { GRAPH ?gAllowed { ?xv hg:readableBy ?reader } }
} ;
# Eligible: adjudicated and not excluded; timely: adjudicated and passing rules 1-3.
INSERT { GRAPH ?scratch { ?set hg:eligibleFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  {
    SELECT DISTINCT ?claim WHERE {
      {
        GRAPH ?g1 { ?case hg:ofRun ?run ; hg:forQuestion ?question }
        GRAPH ?g2 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g3 { ?output hg:asserts ?claim ; prov:wasGeneratedBy ?outputCase }
        GRAPH ?g4 { ?outputCase hg:ofRun ?run }
      }
    }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  MINUS { SELECT ?set ?evaluation WHERE { GRAPH ?scratch { ?set hg:excludedBy ?evaluation } } }
} ;
INSERT { GRAPH ?scratch { ?set hg:timelyFor ?evaluation } }
WHERE {
  GRAPH ?gRun { ?run hg:evaluation ?evaluation }
  {
    SELECT DISTINCT ?claim WHERE {
      {
        GRAPH ?g1 { ?case hg:ofRun ?run ; hg:forQuestion ?question }
        GRAPH ?g2 { ?question hg:requiresClaim ?claim }
      } UNION {
        GRAPH ?g3 { ?output hg:asserts ?claim ; prov:wasGeneratedBy ?outputCase }
        GRAPH ?g4 { ?outputCase hg:ofRun ?run }
      }
    }
  }
  GRAPH ?gSet { ?set hg:supportsClaim ?claim }
  GRAPH ?scratch { ?set hg:statusInForce hg:Adjudicated }
  MINUS { SELECT ?set ?evaluation WHERE { GRAPH ?scratch { ?set hg:untimelyFor ?evaluation } } }
}
