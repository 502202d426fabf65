"""Every library query runs against a fixture and gives its expected rows, every column.

Expected rows live in ``tests/expected/queries/<id>.json`` with ledger ids in
place of minted IRIs (as ``hopgate query`` shows them), and the times a load or
an evaluation ran (which mint the IRIs of cards and bundles) written as
``<time-1>``, ``<time-2>``, ... in the order they happened. The fixture is the
worked example; the queries about judgments, the review queue, unretrieved
citations and interventions, which find nothing in it, run on the worked
example with tests/fixtures/ledgers/review.yaml loaded after it. Every expected
file holds rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from conftest import CEDAR, LEDGERS

import hopgate
from hopgate import ids
from hopgate.cli.formatting import show_value
from hopgate.decide.evaluation import evaluate
from hopgate.library.artefacts import library_queries, library_update
from hopgate.library.steps import SCRATCH_UPDATES
from hopgate.vocab import CATALOG_GRAPH

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parents[1] / "expected" / "queries"
QUERIES = sorted(library_queries())


SCRATCH = "https://w3id.org/hopgate/id/evaluation-activity/test/scratch"
RUN = "https://w3id.org/hopgate/id/run/sys-a"
#: The report queries' reader: public, from whom the rights schedule's quotes are withheld.
READER = "https://w3id.org/hopgate/id/reader/public"
#: The load graph of examples/cedar.yaml (its IRI derives from the file's sha256).
LOAD = "https://w3id.org/hopgate/id/load/5df94a17a0ddb6e983809a72afb5ecd634cef6d631b5c3b4189bdf153ab014d5"


#: The queries that find nothing in the worked example: run on the review fixture.
REVIEWED = {
    "card-judgments",
    "evaluation-annotations",
    "evaluation-interventions",
    "review-agreement",
    "review-queue",
    "unretrieved-citations",
}


def _evaluated(*ledgers: Path) -> tuple[hopgate.Store, str]:
    """The ledgers loaded and evaluated, with a scratch graph filled as evaluate does."""
    store = hopgate.open_store(None)
    for ledger in ledgers:
        hopgate.load(store, ledger)
    bundle = evaluate(store)[0].graph
    for update_id in SCRATCH_UPDATES:
        store.update(
            library_update(update_id).text,
            params={"run": hopgate.IRI(RUN), "scratch": hopgate.IRI(SCRATCH)},
        )
    return store, bundle


@pytest.fixture(scope="module")
def with_scratch() -> Iterator[tuple[hopgate.Store, str]]:
    """The worked example, evaluated once, with a scratch graph filled as evaluate does."""
    store, bundle = _evaluated(CEDAR)
    yield store, bundle
    store.close()


@pytest.fixture(scope="module")
def reviewed() -> Iterator[tuple[hopgate.Store, str]]:
    """The worked example and what it leaves to a reviewer, evaluated, with a scratch graph."""
    store, bundle = _evaluated(CEDAR, LEDGERS / "review.yaml")
    yield store, bundle
    store.close()


def _params(parameters: str, bundle: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if "?bundle" in parameters:
        params["bundle"] = hopgate.IRI(bundle)
    if "?scratch" in parameters:
        params["scratch"] = hopgate.IRI(SCRATCH)
    if "?run" in parameters:
        params["run"] = hopgate.IRI(RUN)
    if "?reader" in parameters:
        params["reader"] = hopgate.IRI(READER)
    if "?activity" in parameters:
        params["activity"] = hopgate.IRI(bundle.removesuffix("/bundle"))
    if "?catalog" in parameters:
        params["catalog"] = hopgate.IRI(CATALOG_GRAPH)
    if "?subject" in parameters and "?output" in parameters:
        # triage-subject: the set gB1 and the output it holds back.
        params["subject"] = hopgate.IRI("https://w3id.org/hopgate/id/set/gB1")
        params["output"] = hopgate.IRI("https://w3id.org/hopgate/id/output/sys-a%2FqB%2Fo1")
    if "?g " in parameters:
        params["g"] = hopgate.IRI(LOAD)
        params["run"] = hopgate.IRI(RUN)
    if "?policy" in parameters:
        params["policy"] = "marked"  # the gate's default (queries/gate.rq)
    return params


def _rounded(value: Any) -> Any:
    # A sum of xsd:double terms depends on the order the engine adds them in,
    # which follows the minted (timestamped) IRIs: compare to 12 digits.
    return float(f"{value:.12g}") if isinstance(value, float) else value


def _times(store: hopgate.Store) -> dict[str, str]:
    """Each time a load or an evaluation ran (catalog), as ``<time-N>`` in time order."""
    rows = store.select(
        "SELECT DISTINCT ?t WHERE { GRAPH ?c { ?a prov:startedAtTime|prov:endedAtTime ?t } }",
        params={"c": hopgate.IRI(CATALOG_GRAPH)},
    )
    found = sorted({str(show_value(row["t"])) for row in rows})
    names = {}
    for n, stamp in enumerate(found, start=1):
        names[stamp] = f"<time-{n}>"
        # A literal drops trailing zeros of its microseconds; an IRI minted from the
        # time keeps all six (strftime's %f): name both spellings.
        whole, dot, fraction = stamp.removesuffix("Z").partition(".")
        if dot:
            names.setdefault(f"{whole}.{fraction.ljust(6, '0')}Z", f"<time-{n}>")
    return names


def _stable(value: Any, times: dict[str, str]) -> Any:
    if not isinstance(value, str):
        return value
    for stamp, name in times.items():
        value = value.replace(stamp, name).replace(quote(stamp, safe=""), name)
    return value


def rows_of(store: hopgate.Store, bundle: str, query_id: str) -> list[dict[str, Any]]:
    """The query's rows as ``hopgate query`` shows them, run times named (see the header)."""
    query = library_queries()[query_id]
    times = _times(store)
    found = store.select(query.text, params=_params(query.parameters, bundle))
    return [{k: _stable(show_value(v), times) for k, v in row.items()} for row in found]


def _canonical(rows: list[dict[str, Any]], columns: list[str] | None = None) -> list[str]:
    """Rows as sorted JSON texts, of ``columns`` (default: every column of each row)."""
    return sorted(
        json.dumps(
            {c: _rounded(row.get(c)) for c in (row if columns is None else columns)},
            sort_keys=True,
        )
        for row in rows
    )


@pytest.mark.parametrize("query_id", QUERIES)
def test_query_gives_expected_rows(with_scratch: Any, reviewed: Any, query_id: str) -> None:
    store, bundle = reviewed if query_id in REVIEWED else with_scratch
    path = EXPECTED / f"{query_id}.json"
    assert path.is_file(), f"no expected result for query {query_id}: write {path}"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert expected, f"{path} holds no row: give the query a fixture where it answers"
    rows = rows_of(store, bundle, query_id)
    assert _canonical(rows) == _canonical(expected)


@pytest.mark.metadata
def test_every_query_has_an_expected_file_and_no_file_is_left_over() -> None:
    assert sorted(p.stem for p in EXPECTED.glob("*.json")) == QUERIES
    assert set(QUERIES) >= REVIEWED


@pytest.mark.parametrize(
    ("evaluation_query", "standalone"),
    [
        ("evaluation-verdicts", "verdicts"),
        ("evaluation-missing-hops", "missing-hops"),
        ("evaluation-claim-cases", "claim-cases"),
    ],
)
def test_the_record_reads_back_what_the_evaluation_decided(
    with_scratch: Any, evaluation_query: str, standalone: str
) -> None:
    """Write, then read: the auditor's query over the recorded cards returns what the
    evaluation's query decided from the scratch graph (not a second derivation: each rule
    has one home, tests/library/test_steps.py; the independent derivation is the spec's
    model, tests/decide/test_spec_model.py and test_property.py)."""
    store, bundle = with_scratch
    fast = store.select(
        library_queries()[evaluation_query].text,
        params=_params(library_queries()[evaluation_query].parameters, bundle),
    )
    plain = store.select(library_queries()[standalone].text, params={"run": hopgate.IRI(RUN)})
    assert fast and plain
    columns = sorted(set(fast[0]) & set(plain[0]))
    assert len(fast) == len(plain)
    assert _canonical(fast, columns) == _canonical(plain, columns)


@pytest.mark.metadata
@pytest.mark.parametrize("query_id", QUERIES)
def test_query_header_is_documented(query_id: str) -> None:
    query = library_queries()[query_id]
    assert "?" in query.description, "the description is the auditor's question"
    assert query.parameters and query.returns


def test_run_parameter_restricts_rows(with_scratch: Any) -> None:
    store, _ = with_scratch
    text = library_queries()["verdicts"].text
    run = hopgate.IRI("https://w3id.org/hopgate/id/run/sys-a")
    other = hopgate.IRI("https://w3id.org/hopgate/id/run/none")
    assert len(store.select(text, params={"run": run})) == 4
    assert store.select(text, params={"run": other}) == []


def test_the_gate_policy_all_weighs_every_output(with_scratch: Any) -> None:
    store, bundle = with_scratch
    text = library_queries()["gate"].text
    rows = store.select(text, params={"bundle": hopgate.IRI(bundle), "policy": "all"})
    assert len(rows) == 4  # one per output claim of sys-a, consequential or not
    assert sum(1 for r in rows if r["passes"]) == 1
    assert not store.select(text, params={"bundle": hopgate.IRI(bundle), "policy": "some"})


# ---- not applicable (docs/spec/acceptance.md "Not applicable") ---------------------------

#: The worked example with tests/fixtures/ledgers/not-applicable.yaml loaded after it:
#: claim cE not applicable for eval-oct (its set gE1 would be eligible and is cited),
#: claim cF marked only for another evaluation.
NOT_APPLICABLE_REASON = "=eval-oct covers <b>Cedar</b> & US rights only\nnot Birch"


@pytest.fixture(scope="module")
def not_applicable() -> Iterator[tuple[hopgate.Store, str]]:
    store, bundle = _evaluated(CEDAR, LEDGERS / "not-applicable.yaml")
    yield store, bundle
    store.close()


def _only(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    found = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (match, rows)
    return found[0]


def test_not_applicable_is_decided_before_eligibility(not_applicable: Any) -> None:
    """evaluation-eligibility.ru: the statement, the answerability, no set weighed."""
    store, _ = not_applicable
    scratch = {"s": hopgate.IRI(SCRATCH)}
    rows = store.select(
        "SELECT ?claim ?a ?statement WHERE { GRAPH ?s { ?claim hg:claimAnswerability ?a"
        " OPTIONAL { ?claim hg:notApplicableBy ?statement } } }",
        params=scratch,
    )
    states = {ids.ledger_id(str(r["claim"])): (show_value(r["a"]), r["statement"]) for r in rows}
    assert states["cE"] == (
        "hg:NotApplicable",
        hopgate.IRI("https://w3id.org/hopgate/id/claim/cE/not-applicable/eval-oct"),
    )
    assert states["cF"] == ("hg:Answerable", None)  # marked for eval-nov only
    eligible = store.select(
        "SELECT ?set WHERE { GRAPH ?s { ?set hg:eligibleFor ?e } }", params=scratch
    )
    assert "gE1" not in {ids.ledger_id(str(r["set"])) for r in eligible}
    assert "gF1" in {ids.ledger_id(str(r["set"])) for r in eligible}


def test_not_applicable_rows_of_each_rule(not_applicable: Any) -> None:
    """The verdict (rule 2: abstain), the claim-case and card records, the counts, the
    report's rule and the reason, each from the query that is its one home."""
    store, bundle = not_applicable
    verdict = _only(rows_of(store, bundle, "evaluation-verdicts"), output="sys-a/qE/o1")
    assert verdict["answerability"] == "hg:NotApplicable"
    statement = "https://w3id.org/hopgate/id/claim/cE/not-applicable/eval-oct"
    assert verdict["notApplicable"] == statement
    assert verdict["verdict"] == "hg:Abstain"
    assert (verdict["supported"], verdict["citationComplete"], verdict["nearestSet"]) == (
        False,
        False,
        None,
    )
    other = _only(rows_of(store, bundle, "evaluation-verdicts"), output="sys-a/qE/o2")
    assert (other["verdict"], other["notApplicable"]) == ("hg:Accept", None)
    case = _only(rows_of(store, bundle, "evaluation-claim-cases"), claim="cE")
    assert (case["answerability"], case["eligibleSets"], case["hops"]) == (
        "hg:NotApplicable",
        None,
        None,
    )
    assert case["notApplicable"] == statement
    card = _only(rows_of(store, bundle, "cards"), output="sys-a/qE/o1")
    assert card["notApplicableReason"] == NOT_APPLICABLE_REASON
    assert (
        _only(rows_of(store, bundle, "cards"), output="sys-a/qE/o2")["notApplicableReason"] is None
    )
    assert _only(rows_of(store, bundle, "report-cards"), output="sys-a/qE/o1")["rule"] == (
        "not-applicable"
    )
    [figures] = rows_of(store, bundle, "metrics")
    # Counted apart; the worked example's denominators unchanged (4 answerable + cF).
    assert (figures["notApplicable"], figures["blocked"], figures["notFound"]) == (1, 0, 0)
    assert (figures["answerable"], figures["supported"], figures["unsupported"]) == (5, 4, 2)
    assert (figures["wholeAnswerable"], figures["wholePassed"]) == (4, 1)
    status = _only(rows_of(store, bundle, "claim-status"), claim="cE")
    assert status["status"] == "hg:NotApplicable"
    assert _only(rows_of(store, bundle, "claim-cases"), claim="cE")["answerability"] == (
        "hg:NotApplicable"
    )
