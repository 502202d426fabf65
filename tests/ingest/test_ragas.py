"""The Ragas importer reads what Ragas users have: v0.1 and v0.2 columns, JSON lists, CSV,
Parquet, contexts without ids; responses become output claims, so `verdicts` has rows."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from evaluated import metrics, verdicts

import hopgate
from hopgate.errors import MissingExtraError
from hopgate.ingest.adapters import import_files

CEDAR = "Project Cedar runs in a Zurich data centre."
BUDGET = "The board approved the Cedar budget in May."
TREES = "Cedar trees grow slowly."

V02 = [
    {
        "user_input": "Where is Project Cedar hosted?",
        "response": "In Zurich [1].",
        "reference": "Project Cedar is hosted in Zurich.",
        "retrieved_contexts": [CEDAR, TREES],
        "reference_contexts": [CEDAR],
        "answer_correctness": 0.92,
    },
    {
        "user_input": "Who approved the budget?",
        "response": "The board.",
        "reference": "The board",  # the response is the reference, normalized: correct
        # A passage of the reference context, and a chunk containing it whole.
        "retrieved_contexts": ["The board approved", f"Minutes. {BUDGET} End."],
        "reference_contexts": [BUDGET],
    },
    {
        "user_input": "What colour is the logo?",
        "response": "Blue.",
        "reference": "The logo is green.",
        "retrieved_contexts": [TREES],
        "reference_contexts": ["The logo is green."],
        "answer_correctness": 0.05,
    },
]
V01 = [
    {
        "question": s["user_input"],
        "answer": s["response"],
        "contexts": s["retrieved_contexts"],
        "ground_truth": s["reference"],
    }
    for s in V02
]


def _store(tmp_path: Path, path: Path) -> hopgate.Store:
    ledger = tmp_path / "ragas.ledger.jsonl"
    result = import_files("ragas", [path], output=ledger)
    assert result.notes
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    return store


def _verdicts(store: hopgate.Store) -> dict[str, str]:
    return {row.question: row.verdict for row in verdicts(store, run="ragas-run")}


def _check_v02(store: hopgate.Store) -> None:
    assert _verdicts(store) == {
        "ragas-1": "accept",  # [1] cites the reference context
        "ragas-2": "accept",  # no markers: every retrieved context is cited, one holds it whole
        "ragas-3": "reject",
    }
    m = metrics(store, run="ragas-run")["ragas-run"]
    assert (m.complete_set_recall.numerator, m.complete_set_recall.denominator) == (2, 3)


def test_v02_json_list_without_ids(tmp_path: Path) -> None:
    path = tmp_path / "samples.json"
    path.write_text(json.dumps(V02, indent=2), encoding="utf-8")
    _check_v02(_store(tmp_path, path))


def test_v01_columns_make_output_claims(tmp_path: Path) -> None:
    path = tmp_path / "v01.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in V01), encoding="utf-8")
    rows = verdicts(_store(tmp_path, path), run="ragas-run")
    # v0.1 has no reference contexts: every claim is not found, every output abstain.
    assert [r.verdict for r in rows] == ["abstain"] * 3
    assert [r.answerability for r in rows] == ["not found"] * 3


def test_csv_export_with_python_list_cells(tmp_path: Path) -> None:
    path = tmp_path / "samples.csv"
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(V02[0]))
        writer.writeheader()
        for sample in V02:  # pandas writes list cells as Python reprs
            writer.writerow({k: str(v) if isinstance(v, list) else v for k, v in sample.items()})
    _check_v02(_store(tmp_path, path))


def test_parquet_export(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "samples.parquet"
    pq.write_table(pa.Table.from_pylist(V02), path)
    _check_v02(_store(tmp_path, path))


def test_parquet_without_pyarrow_names_the_pip_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    path = tmp_path / "samples.parquet"
    path.write_bytes(b"PAR1")
    with pytest.raises(MissingExtraError, match=r"pip install 'hopgate\[parquet\]'"):
        import_files("ragas", [path], output=tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_score_column_decides_correctness(tmp_path: Path) -> None:
    scored: list[dict[str, Any]] = [dict(s, answer_correctness=0.9) for s in V02]
    path = tmp_path / "scored.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in scored), encoding="utf-8")
    found = _verdicts(_store(tmp_path, path))
    assert found["ragas-3"] == "revise-citations"  # judged correct by its score


def test_containment_decides_nothing(tmp_path: Path) -> None:
    # Issue 25: "not in Zurich" holds the reference's words; without a correct
    # column, a score or an exact match, correctness is unknown, never correct.
    negated = [
        {k: v for k, v in V02[0].items() if k != "answer_correctness"}
        | {"response": "It is definitely not hosted in Zurich [1]."}
    ]
    path = tmp_path / "negated.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in negated), encoding="utf-8")
    ledger = tmp_path / "negated.ledger.jsonl"
    import_files("ragas", [path], output=ledger)
    [case] = [json.loads(line) for line in ledger.read_text("utf-8").splitlines()[1:]
              if json.loads(line)["type"] == "case"]  # fmt: skip
    assert case["outputs"][0]["correct"] is None
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    assert _verdicts(store) == {"ragas-1": "escalate"}


def test_missing_question_names_both_spellings(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"response": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(hopgate.LedgerError, match="line 1: field 'user_input'.*v0.1 question"):
        import_files("ragas", [path], output=tmp_path / "out.jsonl")


# ---- inputs a reviewer showed misread (each test fails before its fix) --------------------


def _jsonl(path: Path, samples: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    return path


def test_reference_texts_beside_retrieved_ids_name_the_retrieved_context(tmp_path: Path) -> None:
    """A sample with retrieved_context_ids and reference contexts as texts: the reference
    is the retrieved context of that text. It was dropped: no set, the claim not found,
    a correct answer citing it `abstain`."""
    sample = dict(V02[0], retrieved_context_ids=["d1", "d2"])
    store = _store(tmp_path, _jsonl(tmp_path / "ids.jsonl", [sample]))
    assert _verdicts(store) == {"ragas-1": "accept"}
    unnamed = dict(sample, reference_contexts=["A text nobody retrieved."])
    with pytest.raises(hopgate.LedgerError) as caught:
        import_files("ragas", [_jsonl(tmp_path / "bad.jsonl", [unnamed])], output=tmp_path / "o")
    assert caught.value.field == "reference_contexts[0]"


def test_a_marker_naming_no_retrieved_context_is_an_error_not_a_citation_of_all(
    tmp_path: Path,
) -> None:
    """ "In Zurich [1][3]." with two contexts cited every context (and so every hop)."""
    sample = dict(V02[0], response="In Zurich [1][3].")
    with pytest.raises(hopgate.LedgerError, match=r"marker \[3\]") as caught:
        import_files("ragas", [_jsonl(tmp_path / "m.jsonl", [sample])], output=tmp_path / "o")
    assert (caught.value.record, caught.value.field) == ("line 1", "response")


def test_a_csv_text_cell_written_like_a_list_stays_text(tmp_path: Path) -> None:
    """Only the list columns read "[...]" as a list: a reference "[Home]" is text."""
    path = tmp_path / "s.csv"
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["user_input", "retrieved_contexts", "response", "reference"])
        writer.writerow(["Which page?", json.dumps(["Go to [Home]."]), "Home", "[Home]"])
    ledger = tmp_path / "o.jsonl"
    import_files("ragas", [path], output=ledger)
    claims = [json.loads(x) for x in ledger.read_text("utf-8").splitlines()]
    assert [c["text"] for c in claims if c.get("type") == "claim"] == ["[Home]"]


@pytest.mark.parametrize(
    ("column", "value"), [("correct", "false"), ("correct", 0), ("answer_correctness", "0.1")]
)
def test_a_judgment_column_of_the_wrong_type_is_an_error_not_skipped(
    tmp_path: Path, column: str, value: Any
) -> None:
    """It was skipped, and an exact match then recorded the answer correct."""
    sample = {k: v for k, v in V02[1].items()} | {column: value}
    with pytest.raises(hopgate.LedgerError) as caught:
        import_files("ragas", [_jsonl(tmp_path / "c.jsonl", [sample])], output=tmp_path / "o")
    assert (caught.value.record, caught.value.field) == ("line 1", column)
