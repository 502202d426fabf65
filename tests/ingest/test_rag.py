"""``hopgate import rag``: the worked example end to end, the spellings it reads, its errors."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import hopgate
from hopgate.audit.results import gate, metrics, verdicts
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.errors import LedgerError
from hopgate.ingest.adapters import import_files
from hopgate.ingest.adapters.rag import citation_markers
from hopgate.ingest.correctness import exact_match

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DOCS, GOLD, ANSWERS = (EXAMPLES / f"rag-{name}.jsonl" for name in ("docs", "gold", "answers"))
EXPECTED = {
    "q1": "accept",
    "q2": "revise-citations",
    "q3": "accept",
    "q4": "escalate",  # its short answer does not match: correctness unknown
}


def _import(tmp_path: Path, **files: Path) -> Path:
    out = tmp_path / "rag.ledger.jsonl"
    options = {"docs": [DOCS], "gold": GOLD, "answers": ANSWERS, **files}
    if "docs_file" in options:
        options["docs"] = [options.pop("docs_file")]  # type: ignore[list-item]
    import_files("rag", [], output=out, **options)
    return out


def _write(path: Path, items: list[object], *, spelling: str = "jsonl") -> Path:
    if spelling == "list":
        path.write_text(json.dumps(items, indent=2), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_worked_example_verdicts_metrics_and_gate(tmp_path: Path) -> None:
    store = hopgate.open_store(None)
    hopgate.load(store, _import(tmp_path))
    evaluate(store, run="rag-run")
    found = {row.question: row.verdict for row in verdicts(store, run="rag-run")}
    assert found == EXPECTED
    q2 = next(r for r in verdicts(store, run="rag-run") if r.question == "q2")
    assert q2.missing == ["charter@0-35"]  # the hop to the project lead is not cited
    m = metrics(store, run="rag-run")["rag-run"]
    assert (m.complete_set_recall.numerator, m.complete_set_recall.denominator) == (3, 4)
    assert (m.citation_set_completeness.numerator, m.citation_set_completeness.denominator) == (
        2,
        3,
    )
    # q4's correctness is unknown: out of the denominator, counted apart.
    assert (m.answer_correctness.numerator, m.answer_correctness.denominator) == (3, 3)
    assert m.counts["answer_correctness_unknown"] == 1 and m.counts["correctness_unknown"] == 1
    assert m.counts["not_found"] == 1 and m.counts["appropriate_abstentions"] == 1
    result = gate(store, run="rag-run")
    assert not result.passed
    assert sorted(r.question for r in result.failing) == ["q2", "q4"]


def _transcript(page: Path) -> list[tuple[list[list[str]], list[str]]]:
    """The ``console`` blocks of a page: each ``$`` command (its ``&&`` parts, each split
    into words) with the lines it prints."""
    found: list[tuple[list[list[str]], list[str]]] = []
    block = page.read_text("utf-8").split("```console\n", 1)[1].split("```", 1)[0]
    for chunk in block.replace("\\\n", " ").split("$ ")[1:]:
        command, *printed = chunk.rstrip("\n").split("\n")
        parts = [part.split()[1:] for part in command.split("&&")]
        found.append((parts, printed))
    return found


def test_the_worked_example_prints_what_the_docs_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/rag-format.md "Worked example" had drifted from what the commands print.
    (tmp_path / "examples").mkdir()
    for path in (DOCS, GOLD, ANSWERS):
        (tmp_path / "examples" / path.name).write_bytes(path.read_bytes())
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for parts, printed in _transcript(ROOT / "docs" / "rag-format.md"):
        shown = []
        for words in parts:
            result = runner.invoke(cli, ["--store", "store", *words], obj={})
            assert result.exit_code == 0, result.output
            shown += result.stdout.splitlines()
        assert len(shown) == len(printed), (shown, printed)
        for line, expected in zip(shown, printed, strict=True):
            pattern = ".*".join(map(re.escape, expected.split("...")))  # "..." stands for any
            assert re.fullmatch(pattern, line), (line, expected)


def test_cli_import_says_what_it_assumed(tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    # No observed_at: the file's time is used, and the output says so.
    _write(docs, [{k: v for k, v in d.items() if k != "observed_at"} for d in _lines(DOCS)])
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    result = runner.invoke(
        cli,
        [*store, "import", "rag", "--docs", str(docs), "--gold", str(GOLD)]
        + ["--answers", str(ANSWERS), "--run", "my-rag", "-o", str(tmp_path / "l.jsonl"), "--load"],
    )
    assert result.exit_code == 0, result.output
    assert "observed_at not given for 6 document(s): used the file's time" in result.output
    # And what that means for the next run's import (a rewritten docs file has another time).
    assert "give observed_at to import other runs against these documents" in result.output
    assert "3 judged by exact match of the short answer with the reference answer, 3 correct" in (
        result.output
    )
    assert "1 of unknown correctness" in result.output
    assert "run my-rag: 5 answers (1 abstained), 4 output claims" in result.output
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    rows = json.loads(runner.invoke(cli, [*store, "verdicts", "--format", "json"]).output)
    assert {r["question"]: r["verdict"] for r in rows} == EXPECTED


@pytest.mark.parametrize("spelling", ["list", "bom", "gzip"])
def test_json_list_bom_and_gzip_read_alike(tmp_path: Path, spelling: str) -> None:
    answers = _lines(ANSWERS)
    if spelling == "list":
        path = _write(tmp_path / "answers.json", list(answers), spelling="list")
    elif spelling == "bom":
        path = tmp_path / "answers.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + ANSWERS.read_bytes())
    else:
        path = tmp_path / "answers.jsonl.gz"
        path.write_bytes(gzip.compress(ANSWERS.read_bytes()))
    plain = [r for r in _lines(_import(tmp_path / "a", answers=ANSWERS)) if r["type"] == "case"]
    other = [r for r in _lines(_import(tmp_path / "b", answers=path)) if r["type"] == "case"]
    assert plain == other


def _error(tmp_path: Path, **files: Path) -> LedgerError:
    out = tmp_path / "rag.ledger.jsonl"
    options = {"docs": [DOCS], "gold": GOLD, "answers": ANSWERS, **files}
    with pytest.raises(LedgerError) as caught:
        import_files("rag", [], output=out, **options)
    assert not out.exists()
    return caught.value


def test_unanchored_context_names_the_answer_line_and_context(tmp_path: Path) -> None:
    answers = _lines(ANSWERS)
    answers[2]["contexts"] = [{"doc": "vendors", "text": "The processor is Adyen."}]
    error = _error(tmp_path, answers=_write(tmp_path / "answers.jsonl", answers))
    assert (error.record, error.field) == ("line 3", "contexts[0].text")
    assert "not found in document 'vendors'" in str(error)


def test_list_items_are_named_by_line_and_index(tmp_path: Path) -> None:
    answers = _lines(ANSWERS)
    answers[1]["citations"] = [3]
    error = _error(tmp_path, answers=_write(tmp_path / "a.json", answers, spelling="list"))
    assert error.record is not None and error.record.endswith("([1])")
    assert error.field == "citations[0]"
    assert "outside the 2 context(s)" in str(error)


@pytest.mark.parametrize(
    ("kind", "line", "change", "field", "message"),
    [
        ("docs", 2, lambda d: d.pop("text"), "text", "missing field"),
        ("docs", 1, lambda d: d.update(observed_at="yesterday"), "observed_at", "ISO 8601"),
        (
            "gold",
            1,
            lambda g: g.update(evidence_sets=["charter"]),
            "evidence_sets[0]",
            "each a list",
        ),
        (
            "gold",
            2,
            lambda g: g.update(
                evidence_sets=[[{"doc": "charter", "quote": "Orion is led by Sam"}]]
            ),
            "evidence_sets[0][0].quote",
            "quote not found",
        ),
        (
            "gold",
            3,
            lambda g: g.update(evidence_sets=[["nowhere"]]),
            "evidence_sets[0][0]",
            "unknown",
        ),
        ("answers", 4, lambda a: a.update(id="q9"), "id", "unknown question"),
        ("answers", 1, lambda a: a.update(answer="Dana [7]"), "answer", "marker [7]"),
        ("answers", 2, lambda a: a.update(contexts="charter"), "contexts", "expected a list"),
        ("answers", 3, lambda a: a.update(contexts=["no such passage"]), "contexts[0]", "neither"),
        # A negative offset would be read from the text's end (Python's slice) and land on
        # text the answer never cited: a gold span it did not cite became its citation.
        (
            "answers",
            2,
            lambda a: a.update(citations=[1, {"context": 2, "start": -36, "end": -1}]),
            "citations[1].start",
            "an offset of 0 or more",
        ),
        (
            "gold",
            1,
            lambda g: g.update(evidence_sets=[[{"doc": "charter", "start": -5, "end": 10}]]),
            "evidence_sets[0][0].start",
            "an offset of 0 or more",
        ),
    ],
)
def test_bad_input_names_file_line_and_field(
    tmp_path: Path, kind: str, line: int, change: object, field: str, message: str
) -> None:
    source = {"docs": DOCS, "gold": GOLD, "answers": ANSWERS}[kind]
    items = _lines(source)
    change(items[line - 1])  # type: ignore[operator]
    path = _write(tmp_path / f"{kind}.jsonl", items)
    error = _error(tmp_path, **({"docs": [path]} if kind == "docs" else {kind: path}))  # type: ignore[dict-item]
    assert error.file == str(path)
    assert (error.record, error.field) == (f"line {line}", field)
    assert message in str(error)


def test_not_json_is_an_error_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(ANSWERS.read_text(encoding="utf-8") + "{oops\n", encoding="utf-8")
    error = _error(tmp_path, answers=path)
    assert error.record == "line 6" and "not JSON" in str(error)


def test_cli_error_exit_2(tmp_path: Path) -> None:
    answers = _lines(ANSWERS)
    answers[0]["citations"] = ["chartr"]  # a document id mistyped
    path = _write(tmp_path / "answers.jsonl", answers)
    result = CliRunner().invoke(
        cli,
        ["--store", str(tmp_path / "s"), "import", "rag", "--docs", str(DOCS)]
        + ["--gold", str(GOLD), "--answers", str(path)],
    )
    assert result.exit_code == 2
    assert f"Error: {path}: line 1: field 'citations[0]'" in result.output
    assert "unknown document 'chartr'" in result.output
    assert "did you mean 'charter'?" in result.output


def test_whitespace_differences_and_split_claims(tmp_path: Path) -> None:
    docs = _write(
        tmp_path / "docs.jsonl",
        [
            {"id": "a", "text": "Alpha  is\nmapped to R17.", "observed_at": "2026-01-01"},
            {"id": "b", "text": "R17 belongs to Entity R.", "observed_at": "2026-01-01"},
        ],
    )
    gold = _write(
        tmp_path / "gold.jsonl",
        [
            {
                "id": 1,
                "question": "Who owns Alpha, and what is its record?",
                "consequential": True,
                "claims": [
                    {
                        "id": "owner",
                        "text": "Entity R owns Alpha.",
                        "answer": "Entity R",
                        "evidence_sets": [["a", "b"]],
                    },
                    {
                        "id": "record",
                        "text": "Alpha is R17.",
                        "answer": "R17",
                        "evidence_sets": [[{"doc": "a", "quote": "mapped to R17"}]],
                    },
                ],
            }
        ],
    )
    answers = _write(
        tmp_path / "answers.jsonl",
        [
            {
                "id": 1,
                "answer": "Entity R [1, 2]; record R17.",
                "correct": True,
                "contexts": [
                    "Alpha is mapped to R17.",
                    {"doc": "b", "text": "R17 belongs to Entity R."},
                ],
            }
        ],
    )
    store = hopgate.open_store(None)
    hopgate.load(store, _import(tmp_path, docs_file=docs, gold=gold, answers=answers))
    evaluate(store)
    rows = {r.claim: r for r in verdicts(store)}
    assert rows["owner"].verdict == "accept"
    assert rows["record"].verdict == "accept"
    assert rows["owner"].output == "rag-run/1/owner"


def test_exact_match_and_markers() -> None:
    assert exact_match("Dana Reyes.", "dana reyes")
    assert exact_match("Lisbon.", "the Lisbon")
    assert not exact_match("Lisbonne", "Lisbon")
    assert not exact_match("The lead is Dana Reyes [1].", "dana reyes")  # no containment
    assert not exact_match("anything", "")
    assert citation_markers("A [2] b [1, 3][2]") == [2, 1, 3]


def test_format_page_shows_the_shipped_example() -> None:
    page = (ROOT / "docs" / "rag-format.md").read_text(encoding="utf-8")
    for path in (DOCS, GOLD, ANSWERS):
        block = f"(`{path.relative_to(ROOT)}`):\n\n```json\n{path.read_text(encoding='utf-8')}```"
        assert block in page, f"docs/rag-format.md no longer shows {path.name} as shipped"


def test_without_answers_a_baseline_can_run(tmp_path: Path) -> None:
    from hopgate.ingest.baseline import baseline

    out = tmp_path / "gold-only.jsonl"
    import_files("rag", [], output=out, docs=[DOCS], gold=GOLD)
    assert not [r for r in _lines(out) if r["type"] in ("run", "case")]
    store = hopgate.open_store(None)
    hopgate.load(store, out)
    made = baseline(store, k=2, citer="topk")
    assert made.questions == 5
    evaluate(store, run=made.run)
    assert len(verdicts(store, run=made.run)) == 5  # one output per required claim


def test_a_second_run_imported_under_the_first_runs_id_is_told_to_take_its_own(
    tmp_path: Path,
) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]

    def load(answers: Path, *run: str) -> Result:
        return runner.invoke(
            cli,
            [*store, "import", "rag", "--docs", str(DOCS), "--gold", str(GOLD)]
            + ["--answers", str(answers), *run, "-o", str(tmp_path / "l.jsonl"), "--load"],
        )

    first = load(ANSWERS)
    assert first.exit_code == 0, first.output
    changed = [
        {**item, "answer": "Dana Reyes leads it [1]."} if item["id"] == "q1" else item
        for item in _lines(ANSWERS)
    ]
    again = _write(tmp_path / "answers-2.jsonl", changed)
    second = load(again)
    assert second.exit_code == 2
    said = second.output
    assert "redefines ids already in the store with different content: case 'rag-run/q1'" in said
    assert "needs a run id of its own (hopgate import rag ... --run NEW" in said
    # Under a run id of its own, it loads beside the first.
    third = load(again, "--run", "rag-run-2")
    assert third.exit_code == 0, third.output
