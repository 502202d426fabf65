"""The answer shapes pipelines log (issue 28 item 2): each documented example read, loaded, decided.

Every example of docs/pipeline-shapes.md is imported as a one-line answers
file against the worked example's documents and questions, its shape
detected, and evaluated: the verdict written above it must be the verdict it
gets. Then each reader's particular rules: Anthropic's three location types
and its segments, OpenAI's segments and unknown files, Cohere v1 and a text
that is not at its offsets, LlamaIndex's citation chunks and marker rule,
LangChain's citation forms, Haystack's extracted answers; detection,
--shape, the fields used and ignored, and the wrapping line's fields.
"""

from __future__ import annotations

import copy
import json
import re
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
from hopgate.ingest.adapters.shapes import READERS, detect

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "pipeline-shapes.md"
DOCS, GOLD = ROOT / "examples" / "rag-docs.jsonl", ROOT / "examples" / "rag-gold.jsonl"
MARK = re.compile(r"<!-- shape example: (\S+) answers (\S+): (\S+) -->\n```json\n(.*?)\n```", re.S)


def _examples() -> list[tuple[str, str, str, dict[str, Any]]]:
    return [
        (shape, question, verdict, json.loads(body))
        for shape, question, verdict, body in MARK.findall(PAGE.read_text("utf-8"))
    ]


EXAMPLES = _examples()
CHARTER = json.loads(DOCS.read_text("utf-8").splitlines()[0])["text"]


def _import(
    tmp_path: Path, lines: list[Any], *, shape: str | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "ledger.jsonl"
    result = import_files(
        "rag", [], output=out, docs=[DOCS], gold=GOLD, answers=answers, shape=shape
    )
    return [json.loads(line) for line in out.read_text("utf-8").splitlines()], result.notes


def _outputs(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["question"]: r["outputs"][0] for r in records if r["type"] == "case" and r["outputs"]}


def test_every_shape_has_a_documented_example() -> None:
    assert {shape for shape, *_ in EXAMPLES} == set(READERS)


@pytest.mark.parametrize(
    ("shape", "question", "verdict", "line"), EXAMPLES, ids=[f"{e[0]}-{e[1]}" for e in EXAMPLES]
)
def test_the_documented_example_gets_its_verdict(
    tmp_path: Path, shape: str, question: str, verdict: str, line: dict[str, Any]
) -> None:
    assert detect(line) == shape
    _, notes = _import(tmp_path, [line])
    assert any(note.endswith(f"read as {shape} (detected)") for note in notes)
    assert any("fields used: " in note for note in notes)
    store = hopgate.open_store(None)
    hopgate.load(store, tmp_path / "ledger.jsonl")
    evaluate(store, run="rag-run")
    (row,) = verdicts(store, run="rag-run")
    assert (row.question, row.verdict) == (question, verdict)


def _example(shape: str, question: str) -> dict[str, Any]:
    found = next(e for e in EXAMPLES if e[0] == shape and e[1] == question)
    return copy.deepcopy(found[3])


def test_anthropic_segments_are_the_cited_text_blocks(tmp_path: Path) -> None:
    records, notes = _import(tmp_path, [_example("anthropic", "q2")])
    output = _outputs(records)["q2"]
    assert output["text"] == "Dana Reyes leads Project Orion and works in the Lisbon office."
    assert output["cites"] == [
        {"span": {"version": "charter", "start": 0, "end": 36}, "segment": [0, 30]},
        {"span": {"version": "directory", "start": 0, "end": 39}, "segment": [44, 61]},
    ]
    ignored = next(note for note in notes if "fields ignored" in note)
    assert "response.usage.input_tokens (1)" in ignored and "request.model (1)" in ignored


def test_anthropic_page_and_content_block_locations(tmp_path: Path) -> None:
    line = _example("anthropic", "q2")
    blocks = line["request"]["messages"][0]["content"]
    blocks[1]["source"] = {
        "type": "content",
        "content": [
            {"type": "text", "text": "Dana Reyes works in the Lisbon office."},
            {"type": "text", "text": "Sam Patel works in the Berlin office."},
        ],
    }
    content = line["response"]["content"]
    content[0]["citations"][0] = {
        "type": "page_location",
        "cited_text": "Project Orion is led by Dana Reyes.",
        "document_index": 0,
        "document_title": "Project Orion charter",
        "start_page_number": 1,
        "end_page_number": 2,
    }
    content[2]["citations"][0] = {
        "type": "content_block_location",
        "cited_text": "Dana Reyes works in the Lisbon office.",
        "document_index": 1,
        "document_title": "Staff directory",
        "start_block_index": 0,
        "end_block_index": 1,
    }
    records, notes = _import(tmp_path, [line])
    cites = _outputs(records)["q2"]["cites"]
    assert [c["span"] for c in cites] == [
        {"version": "charter", "start": 0, "end": 35},
        {"version": "directory", "start": 0, "end": 38},
    ]
    ignored = next(note for note in notes if "fields ignored" in note)
    assert "response.content[].citations[].start_page_number (1)" in ignored


def test_anthropic_char_offsets_that_miss_the_cited_text_fall_back_to_it(tmp_path: Path) -> None:
    line = _example("anthropic", "q2")
    citation = line["response"]["content"][0]["citations"][0]
    citation["start_char_index"], citation["end_char_index"] = 3, 39  # off by three
    records, _ = _import(tmp_path, [line])
    assert _outputs(records)["q2"]["cites"][0]["span"] == {
        "version": "charter",
        "start": 0,
        "end": 36,
    }


def test_anthropic_documents_beside_the_response(tmp_path: Path) -> None:
    line = _example("anthropic", "q2")
    del line["request"]
    line["documents"] = ["charter", {"doc": "directory"}]
    records, _ = _import(tmp_path, [line])
    assert len(_outputs(records)["q2"]["cites"]) == 2


def test_anthropic_a_document_index_outside_the_request(tmp_path: Path) -> None:
    line = _example("anthropic", "q2")
    line["response"]["content"][2]["citations"][0]["document_index"] = 7
    with pytest.raises(LedgerError) as caught:
        _import(tmp_path, [line])
    assert caught.value.field == "content[2].citations[0].document_index"
    assert "names no document of the request (2 given" in str(caught.value)


def test_openai_url_citation_segment_and_an_unknown_file(tmp_path: Path) -> None:
    records, _ = _import(tmp_path, [_example("openai", "q1")])
    (cite,) = _outputs(records)["q1"]["cites"]
    assert cite["segment"] == [0, 35] and cite["span"]["version"] == "charter"
    line = _example("openai", "q3")
    note = line["response"]["output"][1]["content"][0]["annotations"][0]
    note["filename"], note["file_id"] = "budget.xlsx", "file-unknown"
    with pytest.raises(LedgerError) as caught:
        _import(tmp_path, [line])
    assert caught.value.field == "output[1].content[0].annotations[0]"
    assert "'budget.xlsx'" in str(caught.value)


def test_cohere_v1_and_a_citation_text_not_at_its_offsets(tmp_path: Path) -> None:
    answer = "Dana Reyes leads Project Orion and works in the Lisbon office."
    line = {
        "id": "q2",
        "response": {
            "text": answer,
            "generation_id": "a9b1",
            "citations": [
                {
                    "start": 0,
                    "end": 30,
                    "text": "Dana Reyes leads Project Orion",
                    "document_ids": ["doc_0"],
                },
                {"start": 40, "end": 57, "text": "the Lisbon office", "document_ids": ["doc_1"]},
            ],
            "documents": [
                {
                    "id": "doc_0",
                    "text": "Project Orion is led by Dana Reyes.",
                    "title": "Project Orion charter",
                },
                {
                    "id": "doc_1",
                    "snippet": "Dana Reyes works in the Lisbon office.",
                    "title": "Staff directory",
                },
            ],
        },
    }
    assert detect(line) == "cohere"
    records, _ = _import(tmp_path, [line])
    cites = _outputs(records)["q2"]["cites"]
    # The second citation's offsets do not hold its text: the text where it is in the answer.
    assert [c["segment"] for c in cites] == [[0, 30], [44, 61]]
    line["response"]["citations"][1]["text"] = "the Porto office"
    with pytest.raises(LedgerError) as caught:
        _import(tmp_path, [line])
    assert caught.value.field == "citations[1].text"


def test_llamaindex_without_markers_cites_every_node(tmp_path: Path) -> None:
    line = _example("llamaindex", "q2")
    line["response"]["response"] = "Dana Reyes leads Project Orion and works in the Lisbon office."
    records, notes = _import(tmp_path, [line])
    assert len(_outputs(records)["q2"]["cites"]) == 2
    assert any("each answer cites every context it retrieved" in note for note in notes)


def test_llamaindex_markers_in_one_answer_make_the_others_cite_nothing(tmp_path: Path) -> None:
    marked = _example("llamaindex", "q2")
    plain = _example("llamaindex", "q2")
    plain["id"] = "q1"
    plain["response"]["response"] = "Dana Reyes leads Project Orion."
    records, _ = _import(tmp_path, [marked, plain])
    outputs = _outputs(records)
    assert len(outputs["q2"]["cites"]) == 2 and outputs["q1"]["cites"] == []


def test_langchain_citation_forms(tmp_path: Path) -> None:
    line = _example("langchain", "q2")
    line["citations"] = [{"source_id": 0, "quote": "led by Dana Reyes"}, 1]
    records, _ = _import(tmp_path, [line])
    cites = _outputs(records)["q2"]["cites"]
    assert cites[0] == {"version": "charter", "start": 17, "end": 34}
    assert cites[1] == {"version": "directory", "start": 0, "end": 38}
    line["citations"] = [2]
    with pytest.raises(LedgerError, match="from 0 to 1"):
        _import(tmp_path, [line])
    del line["citations"]
    line["sources"] = "https://wiki.example.org/directory, https://wiki.example.org/vendors"
    records, _ = _import(tmp_path, [line])
    cites = _outputs(records)["q2"]["cites"]
    assert [c["version"] for c in cites] == ["directory", "vendors"]  # vendors never retrieved


def test_langchain_dumpd_documents(tmp_path: Path) -> None:
    line = _example("langchain", "q2")
    line["source_documents"] = [
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "document", "Document"],
            "kwargs": d,
        }
        for d in line["source_documents"]
    ]
    records, _ = _import(tmp_path, [line])
    assert len(_outputs(records)["q2"]["cites"]) == 2


def test_haystack_extracted_answer(tmp_path: Path) -> None:
    text = "Billing platform 2.0 was released on 4 November 2025. It replaced the legacy invoicing system."
    answer = {
        "type": "haystack.dataclasses.answer.ExtractedAnswer",
        "init_parameters": {
            "data": "4 November 2025",
            "query": "When was billing platform 2.0 released?",
            "document": {"id": "d7", "content": text, "meta": {"file_path": "release-notes.txt"}},
            "context": None,
            "score": 0.93,
            "document_offset": {"start": 37, "end": 52},
            "context_offset": None,
            "meta": {},
        },
    }
    records, _ = _import(tmp_path, [{"answers": [answer]}])
    assert _outputs(records)["q4"]["cites"] == [
        {"version": "release-notes", "start": 37, "end": 52}
    ]
    answer["init_parameters"]["data"] = None
    records, _ = _import(tmp_path, [{"answers": [answer]}])
    (case,) = [r for r in records if r["type"] == "case"]
    assert case["abstained"] is True


def test_shape_named_on_the_command_line(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps(_example("cohere", "q2")) + "\n", encoding="utf-8")
    base = ["import", "rag", "--docs", str(DOCS), "--gold", str(GOLD), "--answers", str(answers)]
    result = CliRunner().invoke(cli, [*base, "-o", str(tmp_path / "l.jsonl"), "--shape", "cohere"])
    assert result.exit_code == 0, result.output
    assert "read as cohere (--shape)" in result.output
    result = CliRunner().invoke(cli, [*base, "-o", str(tmp_path / "l.jsonl"), "--shape", "openai"])
    assert result.exit_code == 2
    assert "line 1: field 'response': not a openai response" in result.output
    result = CliRunner().invoke(cli, [*base, "--shape", "cohere2"])
    assert result.exit_code == 2


def test_a_wrapping_line_takes_no_other_field(tmp_path: Path) -> None:
    line = _example("cohere", "q2")
    line["corect"] = True
    with pytest.raises(LedgerError) as caught:
        _import(tmp_path, [line])
    assert caught.value.field == "corect"


def test_an_answer_without_id_is_matched_by_its_question_text(tmp_path: Path) -> None:
    line = _example("langchain", "q2")
    del line["id"]
    records, _ = _import(tmp_path, [line])
    assert "q2" in _outputs(records)
    line["query"] = "Who is the lead of Project Orion?"
    with pytest.raises(LedgerError) as caught:
        _import(tmp_path, [line])
    assert caught.value.field == "question" and 'give its "id"' in str(caught.value)


def test_the_native_format_is_still_detected(tmp_path: Path) -> None:
    line = {"id": "q1", "answer": "Dana Reyes [1].", "contexts": ["charter"]}
    assert detect(line) == "hopgate"
    records, notes = _import(tmp_path, [line])
    assert _outputs(records)["q1"]["cites"] == [
        {"version": "charter", "start": 0, "end": len(CHARTER)}
    ]
    assert not any("read as" in note for note in notes)
