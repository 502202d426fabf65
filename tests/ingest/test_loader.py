"""Loading ledgers: all or nothing, idempotent, spelling-independent, across ledgers.

Most tests load the worked example ``examples/cedar.yaml`` first and then a
second ledger that builds on it, fails late, or redefines something.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CEDAR

import hopgate
from hopgate import ids
from hopgate.ingest.ledger import read_records
from hopgate.ingest.stored import StoredRecords
from hopgate.vocab import CATALOG_GRAPH, HG, OA, PROV

Ledger = dict[str, Any]


# ---- helpers -------------------------------------------------------------------------


def dump(store: hopgate.Store) -> bytes:
    """The whole store as sorted N-Quads."""
    out = io.BytesIO()
    store.dump(out, format="nquads")
    return out.getvalue()


def graph_triples(store: hopgate.OxigraphStore, graph: str) -> set[str]:
    """The quads of one load graph as N-Triples lines (graph name dropped)."""
    suffix = f" <{graph}> .\n"
    lines = set()
    for line in store.iter_graph_nquads(graph):
        assert line.endswith(suffix)
        lines.add(line.removesuffix(suffix))
    return lines


def records_graph_count(store: hopgate.Store) -> int:
    """Quads outside the catalog graph: the records' triples."""
    return store.count() - store.count(CATALOG_GRAPH)


def values(store: hopgate.Store, node: str, predicate: str) -> list[Any]:
    params = {"s": hopgate.IRI(node), "p": hopgate.IRI(predicate)}
    return [row["o"] for row in store.select("SELECT ?o WHERE { ?s ?p ?o }", params=params)]


def graphs_holding(store: hopgate.Store, node: str) -> list[str]:
    """The named graphs in which ``node`` carries its ``hg:ledgerId``."""
    rows = store.select(
        "SELECT ?g WHERE { GRAPH ?g { ?s hg:ledgerId ?id } }", params={"s": hopgate.IRI(node)}
    )
    return sorted(str(row["g"]) for row in rows)


def cedar_records() -> list[tuple[str, Ledger]]:
    """Cedar's records as (kind, fields), times kept as the strings written."""
    return [(record.kind, record.data) for record in read_records(CEDAR)]


def write_jsonl(path: Path, records: list[tuple[str, Ledger]], *, gz: bool = False) -> Path:
    lines = [json.dumps({"type": "ledger", "ledger": 1})]
    lines += [json.dumps({"type": kind, **data}, ensure_ascii=False) for kind, data in records]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def write_yaml(path: Path, ledger: Ledger) -> Path:
    path.write_text(yaml.safe_dump(ledger, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def disk_store(tmp_path: Path) -> Iterator[hopgate.OxigraphStore]:
    """An on-disk store under tmp_path with cedar loaded."""
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    yield store
    store.close()


@pytest.fixture
def cedar_store(store: hopgate.OxigraphStore) -> hopgate.OxigraphStore:
    """The in-memory store with cedar loaded."""
    hopgate.load(store, CEDAR)
    return store


def follow_up(bad_subject: bool = False) -> Ledger:
    """A second ledger that builds on cedar: new claim, spans, set, run, case, judgment.

    With ``bad_subject`` its very last record (the judgment) names an unknown
    subject, an error only found late in pass two.
    """
    return {
        "ledger": 1,
        "spans": [
            {"id": "e1", "version": "registry@3", "quote": "Record R17 lists interface Q"},
            {"id": "e2", "version": "suppliers@1", "start": 15, "end": 64},
        ],
        "questions": [
            {"id": "qE", "text": "Which interface does record R17 list?", "claims": ["cE"]}
        ],
        "claims": [{"id": "cE", "text": "Record R17 lists interface Q."}],
        "evidence_sets": [
            {
                "id": "gE1",
                "claim": "cE",
                "members": ["e1"],
                "inference": "read directly",
                "status": "proposed",
                "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-03"},
            }
        ],
        "runs": [{"id": "sys-b", "evaluation": "eval-oct", "system": "rag-v3"}],
        "cases": [
            {
                "run": "sys-b",
                "question": "qE",
                "retrieved": ["e1", "a1"],
                "outputs": [{"id": "sys-b/qE/o1", "claim": "cE", "correct": True, "cites": ["e1"]}],
            }
        ],
        "judgments": [
            {
                "id": "jE",
                "subject": "gE9" if bad_subject else "gE1",
                "by": "reviewer-2",
                "decision": "sufficient",
            }
        ],
    }


# ---- atomicity -----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["yaml", "jsonl"])
def test_a_late_error_leaves_the_store_byte_identical(
    disk_store: hopgate.OxigraphStore, tmp_path: Path, fmt: str
) -> None:
    before = dump(disk_store)
    bad = follow_up(bad_subject=True)
    if fmt == "yaml":
        path = write_yaml(tmp_path / "late.yaml", bad)
        location = "judgments[0]"
    else:
        records = [(kind, r) for plural, kind in _kinds() for r in bad.get(plural, [])]
        assert records[-1][0] == "judgment"
        path = write_jsonl(tmp_path / "late.jsonl", records)
        location = f"line {len(records) + 1}"

    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(disk_store, path)
    assert location in str(caught.value)
    assert "field 'subject'" in str(caught.value)
    assert "unknown subject 'gE9'" in str(caught.value)

    assert dump(disk_store) == before
    # the same ledger with the last record fixed loads: the failure was that record alone
    good = write_yaml(tmp_path / "good.yaml", follow_up())
    result = hopgate.load(disk_store, good)
    assert result.records["judgment"] == 1
    assert dump(disk_store) != before


def test_a_failed_load_survives_reopening_the_store(tmp_path: Path) -> None:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
        before = dump(store)
        with pytest.raises(hopgate.LedgerError):
            hopgate.load(store, write_yaml(tmp_path / "late.yaml", follow_up(bad_subject=True)))
    with hopgate.open_store(tmp_path / "store") as store:
        assert dump(store) == before


def test_a_conflict_leaves_the_store_byte_identical(
    disk_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    before = dump(disk_store)
    ledger = follow_up()
    ledger["spans"].append(
        {"id": "a1", "version": "registry@3", "quote": "Project Birch is mapped to record R22"}
    )
    with pytest.raises(hopgate.ConflictError):
        hopgate.load(disk_store, write_yaml(tmp_path / "conflict.yaml", ledger))
    assert dump(disk_store) == before


# ---- redefinitions -------------------------------------------------------------------


def test_redefining_a_span_with_another_quote_is_a_conflict(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    before = cedar_store.count()
    path = write_yaml(
        tmp_path / "redefine.yaml",
        {
            "ledger": 1,
            "spans": [
                {
                    "id": "a1",
                    "version": "registry@3",
                    "quote": "Project Birch is mapped to record R22",
                }
            ],
        },
    )
    with pytest.raises(hopgate.ConflictError) as caught:
        hopgate.load(cedar_store, path)
    assert caught.value.conflicts == [("span", "a1")]
    assert caught.value.file == str(path)
    assert str(path) in str(caught.value)
    assert "span 'a1'" in str(caught.value)
    assert isinstance(caught.value, hopgate.HopgateError)
    assert cedar_store.count() == before


def test_every_conflict_is_named(cedar_store: hopgate.OxigraphStore, tmp_path: Path) -> None:
    ledger = {
        "ledger": 1,
        "claims": [
            {
                "id": "cA",
                "text": "Entity R holds the rights to Project Cedar.",
                "consequential": False,
            },
            {"id": "cB", "text": "Someone else holds Project Birch."},
        ],
        "spans": [{"id": "a2", "version": "rights@1", "quote": "Record R22"}],
        "sources": [{"id": "press", "address": "https://example.org/press/moved"}],
    }
    with pytest.raises(hopgate.ConflictError) as caught:
        hopgate.load(cedar_store, write_yaml(tmp_path / "many.yaml", ledger))
    assert sorted(caught.value.conflicts) == [
        ("claim", "cA"),
        ("claim", "cB"),
        ("source", "press"),
        ("span", "a2"),
    ]


def test_an_output_id_reused_by_a_new_case_is_a_conflict(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    """Output ids are unique in the store: a new case may not take over another case's output."""
    before = dump(cedar_store)
    ledger = follow_up()
    ledger["cases"][0]["outputs"][0]["id"] = "sys-a/qA/o1"  # cedar's output of case sys-a/qA
    with pytest.raises(hopgate.ConflictError) as caught:
        hopgate.load(cedar_store, write_yaml(tmp_path / "taken.yaml", ledger))
    assert caught.value.conflicts == [("output", "sys-a/qA/o1")]
    assert dump(cedar_store) == before


def test_a_changed_case_is_a_conflict(cedar_store: hopgate.OxigraphStore, tmp_path: Path) -> None:
    ledger = {
        "ledger": 1,
        "cases": [{"run": "sys-a", "question": "qB", "retrieved": ["b1", "b2"]}],
    }
    with pytest.raises(hopgate.ConflictError) as caught:
        hopgate.load(cedar_store, write_yaml(tmp_path / "case.yaml", ledger))
    assert caught.value.conflicts == [("case", "sys-a/qB")]


def test_identical_records_are_skipped_and_new_ones_loaded(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    by_id = {(kind, data.get("id")): data for kind, data in cedar_records()}
    ledger = {
        "ledger": 1,
        "readers": [by_id["reader", "analyst"]],
        "sources": [by_id["source", "registry"]],
        "versions": [by_id["version", "registry@3"]],
        # a1 again, but anchored by its quote alone: the same span
        "spans": [
            {"id": "a1", "version": "registry@3", "quote": "Project Cedar is mapped to record R17"},
            {"id": "n1", "version": "registry@3", "quote": "Record R17 lists interface Q"},
        ],
        # cA again, its date spelled as a date-time: the same instant
        "claims": [
            {**by_id["claim", "cA"], "applies_at": "2026-10-01T00:00:00+00:00"},
            {"id": "cN", "text": "Record R17 lists interface Q."},
        ],
    }
    result = hopgate.load(cedar_store, write_yaml(tmp_path / "again.yaml", ledger))

    assert result.skipped_identical == 5
    assert result.records["span"] == 2
    assert result.records["claim"] == 2
    # identical records are written once: only in cedar's graph
    cedar_graph = graphs_holding(cedar_store, ids.mint("span", "a1"))
    assert len(cedar_graph) == 1 and cedar_graph[0] != result.graph
    assert graphs_holding(cedar_store, ids.mint("version", "registry@3")) == cedar_graph
    assert graphs_holding(cedar_store, ids.mint("span", "n1")) == [result.graph]
    assert graphs_holding(cedar_store, ids.mint("claim", "cN")) == [result.graph]
    assert result.triples == cedar_store.count(result.graph) > 0
    assert values(cedar_store, ids.mint("span", "n1") + "/position", OA + "start") == [119]


def test_a_ledger_of_identical_records_adds_no_record_triples(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    before = records_graph_count(cedar_store)
    copy_path = tmp_path / "cedar-copy.yaml"
    copy_path.write_bytes(CEDAR.read_bytes() + b"\n# a copy with other bytes\n")
    result = hopgate.load(cedar_store, copy_path)
    assert not result.already_loaded
    assert result.skipped_identical == len(cedar_records())
    assert result.triples == 0
    assert records_graph_count(cedar_store) == before


# ---- idempotence -----------------------------------------------------------------------


def test_loading_the_same_file_twice(disk_store: hopgate.OxigraphStore) -> None:
    before = dump(disk_store)
    result = hopgate.load(disk_store, CEDAR)
    assert result.already_loaded is True
    assert result.triples == 0
    assert dump(disk_store) == before


def test_the_same_bytes_under_another_name_are_already_loaded(
    disk_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    before = dump(disk_store)
    renamed = tmp_path / "renamed.yaml"
    renamed.write_bytes(CEDAR.read_bytes())
    result = hopgate.load(disk_store, renamed)
    assert result.already_loaded is True
    assert dump(disk_store) == before


def test_first_load_reports_what_it_did(store: hopgate.OxigraphStore) -> None:
    import hashlib

    result = hopgate.load(store, CEDAR)
    digest = "sha256:" + hashlib.sha256(CEDAR.read_bytes()).hexdigest()
    assert result.already_loaded is False
    assert result.digest == digest
    assert result.graph == ids.mint("load", digest.removeprefix("sha256:"))
    assert result.triples == store.count(result.graph) == records_graph_count(store)
    assert result.records["span"] == 12
    assert result.records["case"] == 4
    assert result.records["output"] == 4
    assert result.records["inline span"] == 1
    assert result.graph in store.graphs()
    assert values(store, result.graph, HG + "ledgerDigest") == [digest]
    assert values(store, result.graph, HG + "ledgerFile") == ["cedar.yaml"]


def test_a_span_cited_or_retrieved_twice_is_counted_once(tmp_path: Path) -> None:
    """An output citing a span twice and a case retrieving one twice state each once:
    the load's count of statements is the graph's (found by the one-field fuzz test)."""
    records = cedar_records()
    case = next(data for kind, data in records if kind == "case" and data.get("outputs"))
    case["outputs"][0]["cites"] = [case["outputs"][0]["cites"][0]] * 2
    first = case["retrieved"][0]
    case["retrieved"] = [first, *case["retrieved"], first]
    with hopgate.open_store(None) as store:
        result = hopgate.load(store, write_jsonl(tmp_path / "twice.jsonl", records))
        assert result.triples == store.count(result.graph)
        ranks = store.select(
            "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?case prov:qualifiedUsage ?u } }",
            params={"g": hopgate.IRI(result.graph)},
        )
        # Both retrievals keep their rank.
        cedar_ranks = sum(len(d.get("retrieved") or []) for k, d in records if k == "case")
        assert ranks[0]["n"] == cedar_ranks


# ---- spellings -----------------------------------------------------------------------


def _kinds() -> list[tuple[str, str]]:
    from hopgate.ingest.ledger import KINDS

    return list(KINDS.items())


@pytest.fixture
def cedar_spellings(tmp_path: Path) -> dict[str, Path]:
    """Cedar in every spelling: the YAML itself, JSON, JSON Lines, gzip'd JSON Lines."""
    records = cedar_records()
    document: Ledger = {"ledger": 1}
    for plural, kind in _kinds():
        items = [data for k, data in records if k == kind]
        if items:
            document[plural] = items
    json_path = tmp_path / "cedar.json"
    json_path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return {
        "yaml": CEDAR,
        "json": json_path,
        "jsonl": write_jsonl(tmp_path / "cedar.jsonl", records),
        "jsonl.gz": write_jsonl(tmp_path / "cedar.jsonl.gz", records, gz=True),
    }


def _loaded_triples(path: Path) -> tuple[int, set[str], hopgate.LoadResult]:
    with hopgate.open_store(None) as store:
        result = hopgate.load(store, path)
        assert isinstance(store, hopgate.OxigraphStore)
        return records_graph_count(store), graph_triples(store, result.graph), result


@pytest.mark.parametrize("fmt", ["json", "jsonl", "jsonl.gz"])
def test_every_spelling_loads_the_same_triples(cedar_spellings: dict[str, Path], fmt: str) -> None:
    yaml_count, yaml_triples, yaml_result = _loaded_triples(cedar_spellings["yaml"])
    count, triples, result = _loaded_triples(cedar_spellings[fmt])
    assert count == yaml_count == result.triples == yaml_result.triples
    assert triples == yaml_triples
    assert result.records == yaml_result.records
    assert result.graph != yaml_result.graph  # other bytes, another load


def test_gzip_digest_is_of_the_compressed_bytes(cedar_spellings: dict[str, Path]) -> None:
    import hashlib

    path = cedar_spellings["jsonl.gz"]
    _, _, result = _loaded_triples(path)
    assert result.digest == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("order", ["reversed", "by id"])
def test_jsonl_records_in_any_order(
    cedar_spellings: dict[str, Path], tmp_path: Path, order: str
) -> None:
    records = cedar_records()
    if order == "reversed":
        shuffled = records[::-1]
    else:
        shuffled = sorted(records, key=lambda record: (record[1].get("id", ""), record[0]))
    kinds = [kind for kind, _ in shuffled]
    assert kinds.index("span") < kinds.index("version")
    assert kinds.index("case") < kinds.index("run")
    path = write_jsonl(tmp_path / f"{order.replace(' ', '-')}.jsonl", shuffled)

    _, in_order, _ = _loaded_triples(cedar_spellings["jsonl"])
    _, any_order, result = _loaded_triples(path)
    assert any_order == in_order
    assert result.records["span"] == 12


def test_span_before_its_version_in_jsonl(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path, store: hopgate.Store
) -> None:
    ledger = minimal_ledger()
    records = [("span", span) for span in ledger.pop("spans")]
    for plural, kind in _kinds():
        records += [(kind, data) for data in ledger.get(plural) or []]
    result = hopgate.load(store, write_jsonl(tmp_path / "spans-first.jsonl", records))
    assert result.records["span"] == 2
    a2 = ids.mint("span", "a2")
    assert values(store, a2, PROV + "wasQuotedFrom") == [ids.mint("version", "registry@1")]
    assert values(store, a2 + "/quote", OA + "exact") == ["Record R17 is held by Entity R"]


# ---- references across ledgers ---------------------------------------------------------


def test_a_second_ledger_references_the_first(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    result = hopgate.load(cedar_store, write_yaml(tmp_path / "second.yaml", follow_up()))
    assert result.records["judgment"] == 1

    e1 = ids.mint("span", "e1")
    assert values(cedar_store, e1, PROV + "wasQuotedFrom") == [ids.mint("version", "registry@3")]
    assert values(cedar_store, e1 + "/position", OA + "start") == [119]
    e2 = ids.mint("span", "e2")
    assert values(cedar_store, e2 + "/quote", OA + "exact") == [
        "Interface Q of record R17 is supplied by Vendor V"
    ]
    run = ids.mint("run", "sys-b")
    assert values(cedar_store, run, HG + "evaluation") == [ids.mint("evaluation", "eval-oct")]
    case = ids.mint_case("sys-b", "qE")
    assert sorted(values(cedar_store, case, HG + "retrieved")) == sorted(
        [e1, ids.mint("span", "a1")]
    )


def test_a_second_ledger_sets_up_evidence_for_a_claim_of_the_first(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    ledger = {
        "ledger": 1,
        "evidence_sets": [
            {
                "id": "gA2",
                "claim": "cA",
                "members": ["a2", "b1"],
                "inference": "a wrong route, for the test",
                "status": "rejected",
                "annotation": {"version": 3, "by": "reviewer-2", "at": "2026-10-05"},
            }
        ],
        "contradictions": [
            {"id": "k2", "claim": "cB", "span": "d2x", "status": "unresolved"},
        ],
        "judgments": [{"id": "j2", "subject": "k1", "by": "reviewer-2", "decision": "upheld"}],
    }
    hopgate.load(cedar_store, write_yaml(tmp_path / "second.yaml", ledger))
    gA2 = ids.mint("set", "gA2")
    assert values(cedar_store, gA2, HG + "supportsClaim") == [ids.mint("claim", "cA")]
    assert values(cedar_store, gA2, HG + "setStatus") == [HG + "Rejected"]
    assert values(cedar_store, ids.mint("judgment", "j2"), HG + "judges") == [
        ids.mint("contradiction", "k1")
    ]


@pytest.mark.parametrize(
    ("item", "start", "exact"),
    [
        ({"version": "registry@3", "quote": "Record R17 lists interface Q"}, 119, None),
        ({"version": "press@1", "quote": "Interface Q", "suffix": " is supplied"}, 66, None),
        ({"version": "suppliers@1", "start": 15, "end": 26}, 15, "Interface Q"),
    ],
)
def test_an_inline_span_is_anchored_in_a_version_of_the_first_ledger(
    cedar_store: hopgate.OxigraphStore,
    tmp_path: Path,
    item: Ledger,
    start: int,
    exact: str | None,
) -> None:
    ledger = follow_up()
    ledger["cases"][0]["outputs"][0]["cites"] = [copy.deepcopy(item)]
    result = hopgate.load(cedar_store, write_yaml(tmp_path / "inline.yaml", ledger))
    assert result.records["inline span"] == 1

    exact = exact or item["quote"]
    end = start + len(exact)
    span_id = f"{item['version']}[{start}:{end}]"
    span = ids.mint("span", span_id)
    output = ids.mint("output", "sys-b/qE/o1")
    assert values(cedar_store, output, HG + "cites") == [span]
    assert values(cedar_store, span, HG + "ledgerId") == [span_id]
    assert values(cedar_store, span, HG + "inline") == [True]
    assert values(cedar_store, span, PROV + "wasQuotedFrom") == [
        ids.mint("version", item["version"])
    ]
    assert values(cedar_store, span + "/position", OA + "start") == [start]
    assert values(cedar_store, span + "/position", OA + "end") == [end]
    assert values(cedar_store, span + "/quote", OA + "exact") == [exact]


def test_an_inline_span_already_in_the_store_is_reused(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    # cedar's case qA retrieved {registry@3, quote: "Project Cedar ... R17.\nProject Birch"}
    quote = "Project Cedar is mapped to record R17.\nProject Birch"
    span = ids.mint("span", "registry@3[41:93]")
    assert graphs_holding(cedar_store, span) != []
    ledger = follow_up()
    ledger["cases"][0]["retrieved"] = [{"version": "registry@3", "quote": quote}]
    result = hopgate.load(cedar_store, write_yaml(tmp_path / "reuse.yaml", ledger))
    assert result.records.get("inline span", 0) == 0
    assert len(graphs_holding(cedar_store, span)) == 1
    assert values(cedar_store, ids.mint_case("sys-b", "qE"), HG + "retrieved") == [span]


@pytest.mark.parametrize(
    ("item", "field", "phrase"),
    [
        (
            {"version": "registry@3", "quote": "not in registry@3"},
            "outputs[0].cites[0].quote",
            "quote not found",
        ),
        (
            {"version": "registry@3", "quote": "Project Cedar"},
            "outputs[0].cites[0].quote",
            "quote occurs 2 times",
        ),
        (
            {"version": "licences@1", "start": 0, "end": 500},
            "outputs[0].cites[0].end",
            "offsets outside the text",
        ),
        (
            {"version": "registry@9", "quote": "Project Cedar"},
            "outputs[0].cites[0].version",
            "unknown version id 'registry@9'",
        ),
    ],
)
def test_an_inline_span_that_does_not_anchor_in_the_first_ledger(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path, item: Ledger, field: str, phrase: str
) -> None:
    before = dump(cedar_store)
    ledger = follow_up()
    ledger["cases"][0]["outputs"][0]["cites"] = [item]
    path = write_yaml(tmp_path / "bad-inline.yaml", ledger)
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(cedar_store, path)
    message = str(caught.value)
    assert str(path) in message and "cases[0]" in message
    assert f"field '{field}'" in message
    assert phrase in message
    assert dump(cedar_store) == before


def test_a_span_may_not_widen_readers_of_a_version_in_the_store(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    # rights@1 is readable by analysts only (cedar); "public" is a reader of cedar too
    quote = "Record R22: the rights are held by Entity S"
    narrow = {"id": "r1", "version": "rights@1", "quote": quote, "readers": ["analyst"]}
    wide = {"id": "r2", "version": "rights@1", "quote": quote, "readers": ["public"]}
    path = write_yaml(tmp_path / "wide.yaml", {"ledger": 1, "spans": [narrow, wide]})
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(cedar_store, path)
    assert "spans[1]" in str(caught.value)
    assert "field 'readers'" in str(caught.value)
    assert "widen the version's readers ['analyst']" in str(caught.value)

    hopgate.load(
        cedar_store, write_yaml(tmp_path / "narrow.yaml", {"ledger": 1, "spans": [narrow]})
    )
    assert values(cedar_store, ids.mint("span", "r1"), HG + "readableBy") == [
        ids.mint("reader", "analyst")
    ]


def test_a_reference_to_an_id_in_neither_ledger_nor_store(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    ledger = follow_up()
    ledger["evidence_sets"][0]["members"] = ["e1", "a9"]
    with pytest.raises(hopgate.LedgerError, match=r"evidence_sets\[0\].*field 'members'.*'a9'"):
        hopgate.load(cedar_store, write_yaml(tmp_path / "dangling.yaml", ledger))


def test_a_reference_must_name_the_right_kind(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    """A claim id where a span is expected is unknown, even though the id exists."""
    ledger = follow_up()
    ledger["evidence_sets"][0]["members"] = ["cA"]
    with pytest.raises(hopgate.LedgerError, match="unknown span id 'cA'"):
        hopgate.load(cedar_store, write_yaml(tmp_path / "kind.yaml", ledger))


def test_references_to_the_store_are_checked_in_batches_and_the_first_unknown_is_named(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """References to stored records are asked together, not one query each (a later
    run's load on a remote store paid a round trip per reference); the error still
    names the first unknown reference in file order, and the store is unchanged."""
    before = dump(cedar_store)
    ledger = follow_up()
    claims = [f"c{letter}" for letter in "ABCD"]  # cedar's claims, held by the store
    ledger["questions"][0]["claims"] = ["cE", *claims]
    ledger["questions"].append({"id": "qF", "text": "Two unknowns?", "claims": ["c8", "c9"]})
    path = write_yaml(tmp_path / "unknowns.yaml", ledger)
    with pytest.raises(hopgate.LedgerError) as caught:
        hopgate.load(cedar_store, path)
    assert "questions[1]" in str(caught.value)
    assert "unknown claim id 'c8'" in str(caught.value)
    assert dump(cedar_store) == before

    asked: list[str] = []
    one_by_one = StoredRecords.defines

    def defines(self: StoredRecords, kind: str, ledger_id: str) -> bool:
        asked.append(kind)
        return one_by_one(self, kind, ledger_id)

    monkeypatch.setattr(StoredRecords, "defines", defines)
    ledger["questions"].pop()
    hopgate.load(cedar_store, write_yaml(tmp_path / "known.yaml", ledger))
    # Only a version is asked at once (a span is anchored in its text); the rest together.
    assert set(asked) == {"version"}
    required = values(cedar_store, ids.mint("question", "qE"), HG + "requiresClaim")
    assert sorted(required) == sorted(ids.mint("claim", c) for c in ["cE", *claims])


# ---- unreadable files ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notgzip.jsonl.gz", b'{"type": "ledger", "ledger": 1}\n'),
        # mtime=0: the bytes are in the test's id, which pytest-xdist workers must agree on.
        (
            "truncated.jsonl.gz",
            gzip.compress(b'{"type": "ledger", "ledger": 1}\n' * 50, mtime=0)[:30],
        ),
        (
            "latin1.jsonl",
            '{"type": "ledger", "ledger": 1}\n{"type": "reader", "id": "é"}\n'.encode("latin-1"),
        ),
        ("latin1.yaml", "ledger: 1\nreaders:\n  - id: é\n".encode("latin-1")),
    ],
)
def test_an_unreadable_ledger_is_a_ledger_error(
    tmp_path: Path, store: hopgate.Store, name: str, content: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(hopgate.LedgerError, match="cannot read the ledger") as caught:
        hopgate.load(store, path)
    assert str(path) in str(caught.value)
    assert store.count() == 0


def test_spans_by_locator_on_a_withheld_version_of_the_first_ledger(tmp_path: Path) -> None:
    first = {
        "ledger": 1,
        "sources": [{"id": "fever", "address": "https://example.org/fever"}],
        "versions": [{"id": "fever/Page_1", "source": "fever", "observed_at": "2026-01-01"}],
    }
    span = {"id": "f1", "version": "fever/Page_1", "locator": "line 3"}
    offsets = {"id": "f2", "version": "fever/Page_1", "start": 0, "end": 4}
    with hopgate.open_store(None) as store:
        hopgate.load(store, write_yaml(tmp_path / "first.yaml", first))
        hopgate.load(store, write_yaml(tmp_path / "second.yaml", {"ledger": 1, "spans": [span]}))
        assert values(store, ids.mint("span", "f1") + "/locator", RDF_VALUE) == ["line 3"]
        third = write_yaml(tmp_path / "third.yaml", {"ledger": 1, "spans": [offsets]})
        with pytest.raises(hopgate.LedgerError, match="withholds its text") as caught:
            hopgate.load(store, third)
        assert "field 'locator'" in str(caught.value)


RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"


def test_a_load_interrupted_before_its_catalog_entry_can_be_retried(tmp_path: Path) -> None:
    """Records bulk-loaded but never published (the process died) do not block a retry."""
    from hopgate.ingest.ledger import file_digest
    from hopgate.ingest.loader import graph_for_digest

    ledger = Path(__file__).resolve().parents[2] / "examples" / "cedar.yaml"
    with hopgate.open_store(None) as store:
        graph = graph_for_digest(file_digest(ledger))
        orphan = tmp_path / "orphan.nq"
        orphan.write_text(f'<urn:x> <urn:p> "left over" <{graph}> .\n', encoding="utf-8")
        store.add_graph(orphan, graph)
        result = hopgate.load(store, ledger)
        assert not result.already_loaded and result.triples > 0
        assert not store.ask('ASK { <urn:x> <urn:p> "left over" }')


def test_a_ledger_changed_during_the_load_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pass two skips the schema, so it must read the bytes pass one checked."""
    from hopgate.ingest import loader as loader_module

    source = Path(__file__).resolve().parents[2] / "examples" / "cedar.yaml"
    ledger = tmp_path / "cedar.yaml"
    ledger.write_bytes(source.read_bytes())
    original_emit = loader_module._emit

    def emit_then_edit(*args: Any, **kwargs: Any) -> Any:
        written = original_emit(*args, **kwargs)
        ledger.write_bytes(source.read_bytes() + b"\n# edited\n")
        return written

    monkeypatch.setattr(loader_module, "_emit", emit_then_edit)
    with hopgate.open_store(None) as store:
        with pytest.raises(hopgate.LedgerError, match="changed while it was being loaded"):
            hopgate.load(store, ledger)
        assert store.count() == 0
