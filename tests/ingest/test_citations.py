"""Citations as they come (issue 28 item 1) and citation segments (issue 30 item 2).

An answer cites a context position, a document id (retrieved or not), a quote
or offsets in a document, or a passage of a context; each is anchored like a
ledger span, a citation of what was never retrieved is kept and shown, and a
citation may carry the segment of the answer it supports, which the ledger
records as ``{span, segment}`` (a qualified derivation with an
oa:TextPositionSelector on the output) and checks against the output's text.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import hopgate
from hopgate.audit.results import verdicts
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.errors import LedgerError
from hopgate.ingest.adapters import import_files
from hopgate.ingest.adapters.corpus import Corpus, Located
from hopgate.ingest.adapters.gold import GoldClaim, GoldQuestion
from hopgate.ingest.adapters.items import ItemError
from hopgate.ingest.adapters.rag import case_record
from hopgate.ingest.correctness import Tally

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DOCS, GOLD = EXAMPLES / "rag-docs.jsonl", EXAMPLES / "rag-gold.jsonl"
CHARTER = (
    "Project Orion is led by Dana Reyes. The project started in March 2024 and builds the new "
    "billing platform."
)
VENDORS = "The payment processor for the billing platform is Stripe. The contract runs until December 2027."


def _write(path: Path, items: list[Any]) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def _ledger(tmp_path: Path, answers: list[Any]) -> list[dict[str, Any]]:
    out = tmp_path / "rag.ledger.jsonl"
    import_files(
        "rag",
        [],
        output=out,
        docs=[DOCS],
        gold=GOLD,
        answers=_write(tmp_path / "answers.jsonl", answers),
    )
    return [json.loads(line) for line in out.read_text("utf-8").splitlines()]


def _cases(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["question"]: r for r in records if r["type"] == "case"}


def _verdicts(tmp_path: Path, answers: list[Any]) -> dict[str, Any]:
    store = hopgate.open_store(None)
    out = tmp_path / "rag.ledger.jsonl"
    import_files(
        "rag",
        [],
        output=out,
        docs=[DOCS],
        gold=GOLD,
        answers=_write(tmp_path / "answers.jsonl", answers),
    )
    hopgate.load(store, out)
    evaluate(store, run="rag-run")
    return {row.question: row for row in verdicts(store, run="rag-run")}


Q3 = {
    "id": "q3",
    "answer": "It uses Stripe.",
    "contexts": [{"doc": "charter", "text": "builds the new billing platform"}],
    "correct": True,
}


def test_a_document_never_retrieved_is_kept_cited_and_shown(tmp_path: Path) -> None:
    # The answer cites the vendors page, which the retriever never delivered: the
    # citation counts (the verdict is accept) and is shown as cited, never retrieved.
    rows = _verdicts(tmp_path, [{**Q3, "citations": [1, "vendors"]}])
    assert rows["q3"].verdict == "accept"
    assert rows["q3"].unretrieved_citations == [f"vendors[0:{len(VENDORS)}]"]
    assert not rows["q3"].retrieved_complete


def test_the_verdicts_table_and_csv_show_what_was_cited_never_retrieved(tmp_path: Path) -> None:
    answers = _write(tmp_path / "answers.jsonl", [{**Q3, "citations": [1, "vendors"]}])
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    result = runner.invoke(
        cli,
        [*store, "import", "rag", "--docs", str(DOCS), "--gold", str(GOLD), "--answers"]
        + [str(answers), "-o", str(tmp_path / "l.jsonl"), "--load"],
    )
    assert result.exit_code == 0, result.output
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    table = runner.invoke(cli, [*store, "verdicts"]).stdout.splitlines()
    # The card's route authority is the last column (docs/spec/acceptance.md "Source truth").
    assert table[0].split()[-2:] == ["unretrieved_citations", "route_authority"]
    (q3,) = [line for line in table if line.startswith("rag-run  q3")]
    assert q3.split()[-3:] == ["accept", f"vendors[0:{len(VENDORS)}]", "unstated"]
    rows = list(
        csv.DictReader(
            io.StringIO(runner.invoke(cli, [*store, "verdicts", "--format", "csv"]).stdout)
        )
    )
    assert [r["unretrieved_citations"] for r in rows if r["question"] == "q3"] == [
        f"vendors[0:{len(VENDORS)}]"
    ]


def test_a_retrieved_document_cited_by_id_cites_what_was_retrieved_of_it(tmp_path: Path) -> None:
    cases = _cases(_ledger(tmp_path, [{**Q3, "citations": ["charter"]}]))
    (output,) = cases["q3"]["outputs"]
    start = CHARTER.index("builds the new billing platform")
    assert output["cites"] == [{"version": "charter", "start": start, "end": start + 31}]


def test_a_quote_is_precise_and_a_document_is_not(tmp_path: Path) -> None:
    quote = {"doc": "vendors", "quote": "payment processor for the billing platform is Stripe"}
    offsets = {"doc": "vendors", "start": 4, "end": 56}
    cases = _cases(_ledger(tmp_path, [{**Q3, "citations": [1, quote, offsets]}]))
    cites = cases["q3"]["outputs"][0]["cites"]
    # The quote is anchored where the offsets point: one citation, not two.
    assert cites[1] == {"version": "vendors", "start": 4, "end": 56}
    assert len(cites) == 2


def test_a_passage_of_a_context(tmp_path: Path) -> None:
    answer = {
        "id": "q1",
        "answer": "Dana Reyes.",
        "contexts": [{"doc": "charter", "text": CHARTER}],
        "citations": [
            {"context": 1, "quote": "led by Dana Reyes"},
            {"context": 1, "start": 0, "end": 13},
        ],
    }
    cites = _cases(_ledger(tmp_path, [answer]))["q1"]["outputs"][0]["cites"]
    assert cites == [
        {"version": "charter", "start": CHARTER.index("led by"), "end": CHARTER.index(".")},
        {"version": "charter", "start": 0, "end": 13},
    ]


def test_a_quote_not_in_the_document_names_line_and_field(tmp_path: Path) -> None:
    with pytest.raises(LedgerError) as caught:
        _ledger(tmp_path, [{**Q3, "citations": [{"doc": "vendors", "quote": "PayPal"}]}])
    assert caught.value.record == "line 1" and caught.value.field == "citations[0].quote"
    assert "not found" in str(caught.value)


@pytest.mark.parametrize(
    ("citation", "field", "said"),
    [
        (0, "citations[0]", "outside the 1 context(s)"),
        ({"context": 1, "doc": "charter"}, "citations[0].doc", "not both"),
        ({"quote": "Stripe"}, "citations[0]", 'needs "context"'),
        ({"doc": "vendors", "qoute": "Stripe"}, "citations[0].qoute", "did you mean 'quote'"),
        ({"doc": "vendors", "page": 2}, "citations[0].page", "allowed:"),
        ({"context": 1, "segment": [3]}, "citations[0].segment", "expected [start, end]"),
        ({"context": 1, "segment": [3, 99]}, "citations[0].segment", "outside the answer"),
        ({"context": 1, "segment": [5, 5]}, "citations[0].segment", "outside the answer"),
        (True, "citations[0]", "expected"),
    ],
)
def test_malformed_citations(tmp_path: Path, citation: Any, field: str, said: str) -> None:
    with pytest.raises(LedgerError) as caught:
        _ledger(tmp_path, [{**Q3, "citations": [citation]}])
    assert caught.value.field == field
    assert said in str(caught.value)


def test_a_citation_key_misspelt_is_an_error_not_an_answer_citing_nothing(tmp_path: Path) -> None:
    # `citation` for `citations`: imported silently, every answer would cite nothing.
    answer = {**Q3, "citation": [1]}
    with pytest.raises(LedgerError) as caught:
        _ledger(tmp_path, [answer])
    assert (caught.value.record, caught.value.field) == ("line 1", "citation")
    assert "unknown field (did you mean 'citations'?)" in str(caught.value)
    runner = CliRunner()
    answers = _write(tmp_path / "typo.jsonl", [answer])
    result = runner.invoke(
        cli,
        ["import", "rag", "--docs", str(DOCS), "--gold", str(GOLD), "--answers", str(answers)]
        + ["-o", str(tmp_path / "typo.ledger.jsonl")],
    )
    assert result.exit_code == 2
    assert "did you mean 'citations'?" in result.output
    assert not (tmp_path / "typo.ledger.jsonl").exists()


def test_segments_reach_the_ledger_and_the_store(tmp_path: Path) -> None:
    answer = {
        "id": "q2",
        "answer": "Dana Reyes leads Project Orion and works in the Lisbon office.",
        "correct": True,
        "contexts": [
            {"doc": "charter", "text": "Project Orion is led by Dana Reyes."},
            {"doc": "directory", "text": "Dana Reyes works in the Lisbon office."},
        ],
        "citations": [
            {"context": 1, "segment": [0, 30]},
            {"context": 2, "segment": [35, 62]},
        ],
    }
    records = _ledger(tmp_path, [answer])
    cites = _cases(records)["q2"]["outputs"][0]["cites"]
    assert cites == [
        {"span": {"version": "charter", "start": 0, "end": 35}, "segment": [0, 30]},
        {"span": {"version": "directory", "start": 0, "end": 38}, "segment": [35, 62]},
    ]
    store = hopgate.open_store(None)
    hopgate.load(store, tmp_path / "rag.ledger.jsonl")
    rows = store.select(
        "SELECT ?spanId ?start ?end WHERE { ?o prov:qualifiedDerivation ?c . "
        "?c a hg:Citation ; prov:entity ?span ; hg:supportsSegment ?seg . ?span hg:ledgerId ?spanId . "
        "?seg oa:hasSource ?o ; oa:hasSelector ?sel . ?sel a oa:TextPositionSelector ; "
        "oa:start ?start ; oa:end ?end } ORDER BY ?start"
    )
    assert [(str(r["spanId"]), r["start"], r["end"]) for r in rows] == [
        ("charter[0:35]", 0, 30),
        ("directory[0:38]", 35, 62),
    ]
    evaluate(store, run="rag-run")
    (row,) = verdicts(store, run="rag-run")
    assert row.verdict == "accept"  # a segment never changes a verdict


def _ledger_file(tmp_path: Path, cites: list[Any], text: str | None = "Entity R holds it.") -> Path:
    output: dict[str, Any] = {"id": "o1", "claim": "c1", "correct": True, "cites": cites}
    if text is not None:
        output["text"] = text
    records = [
        {"type": "reader", "id": "public"},
        {"type": "evaluation", "id": "e", "reader": "public", "observation_cutoff": "2026-01-02"},
        {"type": "source", "id": "s", "address": "https://example.org/s"},
        {
            "type": "version",
            "id": "v",
            "source": "s",
            "text": "R17 belongs to Entity R.",
            "observed_at": "2026-01-01",
        },
        {"type": "span", "id": "a", "version": "v", "quote": "belongs to Entity R"},
        {"type": "question", "id": "q", "text": "Who?", "claims": ["c1"]},
        {"type": "claim", "id": "c1", "text": "Entity R holds it."},
        {"type": "run", "id": "r", "evaluation": "e", "system": "s"},
        {"type": "case", "run": "r", "question": "q", "retrieved": ["a"], "outputs": [output]},
    ]
    return _write(tmp_path / "ledger.jsonl", records)


def test_a_ledger_citation_segment_outside_the_output_names_the_record(tmp_path: Path) -> None:
    store = hopgate.open_store(None)
    with pytest.raises(LedgerError) as caught:
        hopgate.load(store, _ledger_file(tmp_path, [{"span": "a", "segment": [0, 40]}]))
    assert caught.value.record == "line 9"
    assert caught.value.field == "outputs[0].cites[0].segment"
    assert "output 'o1': segment [0, 40] is outside the output's text (18 code points" in str(
        caught.value
    )
    assert not store.select("SELECT ?s WHERE { ?s a hg:OutputClaim }")  # nothing loaded


def test_a_ledger_citation_segment_needs_the_output_text(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="needs the output's text"):
        hopgate.load(
            hopgate.open_store(None),
            _ledger_file(tmp_path, [{"span": "a", "segment": [0, 3]}], text=None),
        )


def test_a_segment_spelled_with_floats_is_the_same_segment(tmp_path: Path) -> None:
    """JSON Schema counts 0.0 as an integer: [0.0, 8.0] is the segment [0, 8], one citation
    node with xsd:integer offsets, which validate accepts (it was "0.0"^^xsd:integer)."""
    stores = []
    for segment in ([0, 8], [0.0, 8.0]):
        store = hopgate.open_store(None)
        hopgate.load(store, _ledger_file(tmp_path, [{"span": "a", "segment": segment}]))
        stores.append(store)
    ask = "SELECT ?c ?start WHERE { ?c hg:supportsSegment/oa:hasSelector/oa:start ?start }"
    assert stores[0].select(ask) == stores[1].select(ask)
    assert hopgate.validate(stores[1]).conforms


def test_a_ledger_citation_of_an_inline_span_with_a_segment(tmp_path: Path) -> None:
    cites = ["a", {"span": {"version": "v", "quote": "Entity R"}, "segment": [0, 8]}]
    store = hopgate.open_store(None)
    hopgate.load(store, _ledger_file(tmp_path, cites))
    cited = store.select("SELECT ?id WHERE { ?o hg:cites ?s . ?s hg:ledgerId ?id } ORDER BY ?id")
    assert [str(r["id"]) for r in cited] == ["a", "v[15:23]"]


def test_a_ledger_cites_item_of_an_unknown_shape_says_the_spellings(tmp_path: Path) -> None:
    with pytest.raises(LedgerError) as caught:
        hopgate.load(hopgate.open_store(None), _ledger_file(tmp_path, [{"span": "a"}]))
    assert "{span, segment}" in str(caught.value)


def test_the_record_api_takes_every_citation_form() -> None:
    store = hopgate.open_store(None)
    builder = hopgate.LedgerBuilder(run="p")
    builder.add_document("charter", CHARTER)
    builder.add_document("vendors", VENDORS)
    builder.add_question(
        "q3",
        "Which payment processor does the platform use?",
        answer="Stripe",
        consequential=True,
        evidence_sets=[[{"doc": "charter", "quote": "builds the new billing platform"}, "vendors"]],
    )
    builder.load(store)
    hopgate.record(
        store,
        run="p",
        question="q3",
        answer="The platform pays through Stripe.",
        short_answer="Stripe",
        contexts=[{"doc": "charter", "text": "builds the new billing platform"}],
        citations=[
            {"context": 1, "segment": [0, 12]},
            {"doc": "vendors", "segment": [13, 33]},  # never retrieved: kept
        ],
    )
    evaluate(store, run="p")
    (row,) = verdicts(store, run="p")
    assert row.verdict == "accept"
    assert row.unretrieved_citations == [f"vendors[0:{len(VENDORS)}]"]


def test_case_record_cites_without_repeats() -> None:
    corpus = Corpus()
    corpus.texts["d"] = "Alpha is R17."
    question = GoldQuestion("q", "R17", [GoldClaim("q", "R17")])
    item = {"answer": "R17 [1][1].", "contexts": ["d"], "citations": [1, "d", {"context": 1}]}
    case = case_record(corpus, question, item, run="r", judging=Tally())
    assert case["outputs"][0]["cites"] == [Located("d", 0, 13).inline()]
    with pytest.raises(ItemError):
        case_record(corpus, question, {**item, "citations": "1"}, run="r", judging=Tally())
