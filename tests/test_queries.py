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
from hopgate.evaluate import evaluate
from hopgate.formatting import show_value
from hopgate.library import library_queries

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = Path(__file__).resolve().parent / "expected" / "queries"
QUERIES = sorted(library_queries())


@pytest.fixture(scope="module")
def cedar() -> Any:
    """The worked example, loaded and evaluated once for the module."""
    store = hopgate.open_store(None)
    hopgate.load(store, ROOT / "examples" / "cedar.yaml")
    bundle = evaluate(store)[0].graph
    yield store, bundle
    store.close()


def _canonical(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    return sorted(json.dumps({c: row.get(c) for c in columns}, sort_keys=True) for row in rows)


@pytest.mark.parametrize("query_id", QUERIES)
def test_query_gives_expected_rows(cedar: Any, query_id: str) -> None:
    store, bundle = cedar
    query = library_queries()[query_id]
    path = EXPECTED / f"{query_id}.json"
    assert path.is_file(), f"no expected result for query {query_id}: write {path}"
    expected = json.loads(path.read_text(encoding="utf-8"))
    params = {"bundle": hopgate.IRI(bundle)} if "?bundle" in query.parameters else {}
    rows = [
        {k: show_value(v) for k, v in r.items()} for r in store.select(query.text, params=params)
    ]
    columns = sorted({key for row in expected for key in row})
    assert len(rows) == len(expected)
    assert _canonical(rows, columns) == _canonical(expected, columns)


@pytest.mark.parametrize("query_id", QUERIES)
def test_query_header_is_documented(query_id: str) -> None:
    query = library_queries()[query_id]
    assert query.description.endswith("?"), "the description is the auditor's question"
    assert query.parameters and query.returns


def test_run_parameter_restricts_rows(cedar: Any) -> None:
    store, _ = cedar
    text = library_queries()["verdicts"].text
    run = hopgate.IRI("https://w3id.org/hopgate/id/run/sys-a")
    other = hopgate.IRI("https://w3id.org/hopgate/id/run/none")
    assert len(store.select(text, params={"run": run})) == 4
    assert store.select(text, params={"run": other}) == []
