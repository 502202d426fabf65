"""Every library query runs against the worked example and gives its expected rows.

Expected rows live in ``tests/expected/queries/<id>.json`` with ledger ids in
place of minted IRIs (as ``hopgate query`` shows them). Columns that carry
evaluation timestamps are left out of the comparison.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hopgate
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
LOAD = "https://w3id.org/hopgate/id/load/06f03c8cfb3fe0dd7f810fd17becfbbcbfe9a5be05ded3a6b7d641873a03e411"


@pytest.fixture(scope="module")
def cedar() -> Any:
    """The worked example, evaluated once, with a scratch graph filled as evaluate does."""
    store = hopgate.open_store(None)
    hopgate.load(store, ROOT / "examples" / "cedar.yaml")
    bundle = evaluate(store)[0].graph
    for update_id in SCRATCH_UPDATES:
        store.update(
            library_update(update_id).text,
            params={"run": hopgate.IRI(RUN), "scratch": hopgate.IRI(SCRATCH)},
        )
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


def _canonical(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    return sorted(
        json.dumps({c: _rounded(row.get(c)) for c in columns}, sort_keys=True) for row in rows
    )


@pytest.mark.parametrize("query_id", QUERIES)
def test_query_gives_expected_rows(cedar: Any, query_id: str) -> None:
    store, bundle = cedar
    query = library_queries()[query_id]
    path = EXPECTED / f"{query_id}.json"
    assert path.is_file(), f"no expected result for query {query_id}: write {path}"
    expected = json.loads(path.read_text(encoding="utf-8"))
    params = _params(query.parameters, bundle)
    rows = [
        {k: show_value(v) for k, v in r.items()} for r in store.select(query.text, params=params)
    ]
    columns = sorted({key for row in expected for key in row})
    assert len(rows) == len(expected)
    assert _canonical(rows, columns) == _canonical(expected, columns)


@pytest.mark.parametrize(
    ("evaluation_query", "standalone"),
    [
        ("evaluation-verdicts", "verdicts"),
        ("evaluation-missing-hops", "missing-hops"),
        ("evaluation-claim-cases", "claim-cases"),
    ],
)
def test_materialised_queries_agree_with_standalone_ones(
    cedar: Any, evaluation_query: str, standalone: str
) -> None:
    store, bundle = cedar
    fast = store.select(
        library_queries()[evaluation_query].text,
        params=_params(library_queries()[evaluation_query].parameters, bundle),
    )
    plain = store.select(library_queries()[standalone].text, params={"run": hopgate.IRI(RUN)})
    columns = sorted(set(fast[0]) & set(plain[0])) if fast and plain else []
    assert len(fast) == len(plain)
    assert _canonical(fast, columns) == _canonical(plain, columns)


@pytest.mark.parametrize("query_id", QUERIES)
def test_query_header_is_documented(query_id: str) -> None:
    query = library_queries()[query_id]
    assert "?" in query.description, "the description is the auditor's question"
    assert query.parameters and query.returns


def test_run_parameter_restricts_rows(cedar: Any) -> None:
    store, _ = cedar
    text = library_queries()["verdicts"].text
    run = hopgate.IRI("https://w3id.org/hopgate/id/run/sys-a")
    other = hopgate.IRI("https://w3id.org/hopgate/id/run/none")
    assert len(store.select(text, params={"run": run})) == 4
    assert store.select(text, params={"run": other}) == []


def test_the_gate_policy_all_weighs_every_output(cedar: Any) -> None:
    store, bundle = cedar
    text = library_queries()["gate"].text
    rows = store.select(text, params={"bundle": hopgate.IRI(bundle), "policy": "all"})
    assert len(rows) == 4  # one per output claim of sys-a, consequential or not
    assert sum(1 for r in rows if r["passes"]) == 1
    assert not store.select(text, params={"bundle": hopgate.IRI(bundle), "policy": "some"})
