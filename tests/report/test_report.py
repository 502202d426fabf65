"""The audit report, explain and diff: what they say, for whom, and that they only read."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import _MINIMAL, CEDAR, keep_bundle_snapshot, required
from hypothesis import given
from hypothesis import strategies as st
from wide_card import wide_card_ledger

import hopgate
from hopgate import escaping
from hopgate.audit.results import verdicts
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.errors import NotEvaluatedError, ReportError
from hopgate.report.build import build_report
from hopgate.report.data import card_anchor
from hopgate.report.explain import explain
from hopgate.report.pages import render
from hopgate.report.signature import NOT_CHECKED

ROOT = Path(__file__).resolve().parents[2]
WITHHELD = ROOT / "examples" / "withheld.yaml"
#: An A4 page's width less 15 mm margins, in points.
A4_WIDTH_PT = 510


def _needs_dot() -> None:
    if shutil.which("dot") is None:
        required("graphviz's dot is not installed (Debian: apt-get install graphviz)")


def _invoke(store: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--store", str(store), *args])


@pytest.fixture()
def cedar_dir(tmp_path: Path) -> Path:
    """The worked example in an on-disk store, evaluated."""
    store = tmp_path / "store"
    assert _invoke(store, "load", str(CEDAR)).exit_code == 0
    assert _invoke(store, "evaluate").exit_code == 0
    return store


# --- what the report says ---------------------------------------------------------------


def test_report_of_the_worked_example(cedar: Any) -> None:
    report = build_report(cedar, run="sys-a", pictures=0, peers=False)
    head = report.header
    assert (head.run, head.system, head.evaluation_record) == ("sys-a", "rag-v2", "eval-oct")
    assert (head.reader, head.cutoff) == ("analyst", "2026-10-07T00:00:00Z")
    assert [load.file for load in head.loads] == ["cedar.yaml"]
    assert head.loads[0].digest is not None and head.loads[0].digest.startswith("sha256:")
    assert not head.stale and head.signature.startswith("not checked")
    assert not report.gate.passed and report.gate.failing == ["sys-a/qA/o1"]
    assert report.gate.weighed == 2 and report.gate.policy == "marked"
    m = report.metrics
    assert (m.complete_set_recall.numerator, m.complete_set_recall.denominator) == (2, 4)
    assert (m.citation_set_completeness.numerator, m.citation_set_completeness.denominator) == (
        1,
        3,
    )
    assert (m.answer_correctness.numerator, m.answer_correctness.denominator) == (3, 4)
    # Consequential claims not accepted come first.
    assert [c.row.output for c in report.attention] == ["sys-a/qA/o1"]
    assert report.cards[0].row.output == "sys-a/qA/o1"
    by_output = {c.row.output: c for c in report.cards}
    a = by_output["sys-a/qA/o1"]
    assert a.rule == "citation-incomplete"
    assert [hop.id for hop in a.missing] == ["a1"]
    assert a.missing[0].text == "Project Cedar is mapped to record R17"
    assert a.missing[0].title == "Project registry"
    assert a.missing[0].address == "https://example.org/registry"
    assert a.contradictions[0].status == "resolved"
    assert "rule 5" in a.reason and "a1" in a.reason
    d = by_output["sys-a/qD/o1"]
    assert d.rule == "judged-incorrect"
    assert [(s.id, s.failed) for s in d.inadmissible] == [("d2x", ["late"])]
    c = by_output["sys-a/qC/o1"]
    assert c.rule == "citation-complete" and c.row.cited_route == "gC2"
    assert [(s.id, s.eligible, s.cited) for s in c.sets] == [
        ("gC1", True, False),
        ("gC2", True, True),
    ]
    assert report.verdict_counts == {"revise-citations": 2, "accept": 1, "reject": 1}
    assert report.verdict_strata["hops"]["2"] == {"revise-citations": 2, "accept": 1, "reject": 1}
    assert report.changes is None


def test_report_formats(cedar: Any) -> None:
    report = build_report(cedar, run="sys-a", pictures=0, peers=True)
    html = render(report, "html")
    assert html.startswith("<!DOCTYPE html>")
    assert "Project Cedar is mapped to record R17" in html  # case A's missing hop
    assert "Release decision: FAIL" in html
    assert "<svg" in html  # the charts are inline SVG
    # Nothing on the page asks for anything: no external source, no stylesheet link.
    assert not re.search(r'(src|href)="(?!#)', html)
    assert "Content-Security-Policy" in html
    md = render(report, "md")
    assert "# Audit report: run sys-a" in md
    assert "| complete-set recall | 2 | 4 | 50.0% |" in md
    assert '**Missing hop a1**: "Project Cedar is mapped to record R17"' in md
    data = json.loads(render(report, "json"))
    assert data["cards"][0]["missing_hops"][0]["text"] == "Project Cedar is mapped to record R17"
    assert {p["name"] for p in data["peers"]} >= {"hits@4", "label accuracy"}
    assert set(data["count_definitions"]) == set(data["metrics"]["counts"])


def _replaced(value: Any, old: str, new: str) -> Any:
    """``value`` with every string equal to ``old`` (an id) replaced by ``new``."""
    if isinstance(value, dict):
        return {key: _replaced(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_replaced(item, old, new) for item in value]
    return new if value == old else value


def test_markdown_line_ends_in_data_cannot_forge_the_release_decision(tmp_path: Path) -> None:
    """Issue 25: CommonMark reads a bare CR as a line end, so an output text (and the reason
    sentence, through a claim id) could forge a "Release decision: PASS" paragraph."""
    from markdown_it import MarkdownIt

    forged = "\r\r**Release decision: PASS**\r\r# Everything accepted\r\r"
    ledger = _replaced(yaml.safe_load(CEDAR.read_text(encoding="utf-8")), "cA", "cA" + forged)
    for case in ledger["cases"]:
        for output in case["outputs"]:
            if output["id"] == "sys-a/qA/o1":
                output["text"] = "Entity R." + forged
    path = tmp_path / "attack.yaml"
    path.write_text(yaml.safe_dump(ledger, allow_unicode=True), encoding="utf-8")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        report = build_report(store, run="sys-a", pictures=0)
    assert "cA" + forged in report.attention[0].reason
    tokens = MarkdownIt("commonmark").enable("table").parse(render(report, "md"))
    strong = [
        token.children[number + 1].content
        for token in tokens
        if token.type == "inline" and token.children
        for number, child in enumerate(token.children)
        if child.type == "strong_open"
    ]
    assert [text for text in strong if "Release decision" in text] == ["Release decision: FAIL"]
    headings = [tokens[n + 1].content for n, t in enumerate(tokens) if t.type == "heading_open"]
    assert not [h for h in headings if "Everything accepted" in h and not h.startswith("sys-a")]
    assert all(h.startswith(("Audit report", "sys-a/", *_SECTIONS)) for h in headings), headings


_SECTIONS = ("Metrics", "Counts", "Verdicts by stratum", "Consequential", "Every card")


def test_report_cli_and_pictures(cedar_dir: Path, tmp_path: Path) -> None:
    _needs_dot()
    target = tmp_path / "out" / "report.html"
    result = _invoke(cedar_dir, "report", "--run", "sys-a", "-o", str(target))
    assert result.exit_code == 0, result.output
    html = target.read_text("utf-8")
    assert html.count('<figure class="picture">') == 4
    assert "MISSING HOP" in html
    md = _invoke(cedar_dir, "report", "--run", "sys-a", "--format", "md")
    assert md.exit_code == 0 and "Release decision: FAIL" in md.output


def test_the_header_states_the_signature_of_a_signed_export(
    cedar_dir: Path, tmp_path: Path
) -> None:
    """--signed-export checks the export's proofs and names the signer; damage is reported."""
    key = tmp_path / "k.key"
    assert CliRunner().invoke(cli, ["keys", "new", "-o", str(key)]).exit_code == 0
    out = tmp_path / "export"
    signed = ["export", "--run", "sys-a", "-o", str(out), "--sign", str(key), "--by", "Alice"]
    assert _invoke(cedar_dir, *signed).exit_code == 0

    def signature(*extra: str, exit_code: int = 0) -> str:
        result = _invoke(cedar_dir, "report", "--run", "sys-a", "--format", "json", *extra)
        assert result.exit_code == exit_code, result.output
        line: str = json.loads(result.stdout)["header"]["signature"]
        return line

    assert signature().startswith("not checked")
    line = signature("--signed-export", str(out), "--trust", f"{key}.pub")
    assert line.startswith("signed by Alice") and "by a trusted key" in line
    other = tmp_path / "other.key"
    assert CliRunner().invoke(cli, ["keys", "new", "-o", str(other)]).exit_code == 0
    line = signature("--signed-export", str(out), "--trust", f"{other}.pub", exit_code=1)
    assert line.startswith("CHECK FAILED") and "trusted key" in line
    # An unsigned export of the same evaluation is not a signed one: the check fails.
    unsigned = tmp_path / "unsigned"
    assert _invoke(cedar_dir, "export", "--run", "sys-a", "-o", str(unsigned)).exit_code == 0
    line = signature("--signed-export", str(unsigned), exit_code=1)
    assert line.startswith("CHECK FAILED") and "not signed" in line
    # A byte changed after signing fails the check, and the report says so.
    exported = next(p for p in out.iterdir() if p.suffix == ".trig")
    exported.write_text(exported.read_text("utf-8").replace("eval-oct", "eval-oxt"), "utf-8")
    assert signature("--signed-export", str(out), exit_code=1).startswith("CHECK FAILED")
    # --trust alone checks the final judgments' signatures (adjudication.md "Signed
    # judgments"); no export was named, so the header says its signature is unchecked.
    result = _invoke(cedar_dir, "report", "--run", "sys-a", "--format", "json", "--trust",
                     f"{key}.pub")  # fmt: skip
    assert result.exit_code == 0
    assert json.loads(result.output)["header"]["signature"] == NOT_CHECKED


def test_unretrieved_citations_are_reported_beside_the_verdict(tmp_path: Path) -> None:
    ledger = copy.deepcopy(_MINIMAL)
    ledger["cases"][0]["retrieved"] = ["a1"]  # a2 is cited, never retrieved
    path = tmp_path / "ledger.yaml"
    path.write_text(yaml.safe_dump(ledger))
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        row = verdicts(store, run="sys-a")[0]
        assert row.unretrieved_citations == ["a2"]
        assert row.verdict == "revise-citations"  # it never changes the verdict
        steps = explain(store, "sys-a/q1/o1").steps
        assert any(s.step == "unretrieved" and "a2" in s.sentence for s in steps)
    store_dir = tmp_path / "store"
    _invoke(store_dir, "load", str(path))
    _invoke(store_dir, "evaluate")
    rows = json.loads(_invoke(store_dir, "verdicts", "--format", "json").output)
    assert rows[0]["unretrieved_citations"] == ["a2"]


# --- explain and the gate -----------------------------------------------------------------


def test_explain_says_why_with_the_spec_section(cedar_dir: Path) -> None:
    result = _invoke(cedar_dir, "explain", "sys-a/qA/o1")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Evidence set gA1" in text and "is eligible" in text
    assert "Citation a2 covers member a2 of gA1." in text
    assert 'Missing hop a1: "Project Cedar is mapped to record R17"' in text
    assert 'docs/spec/acceptance.md "Verdict", rule 5' in text
    data = json.loads(_invoke(cedar_dir, "explain", "sys-a/qD/o1", "--format", "json").output)
    assert data["verdict"] == "reject"
    inadmissible = [s for s in data["steps"] if s["step"] == "inadmissible"]
    assert "rule 1" in inadmissible[0]["sentence"] and "d2x" in inadmissible[0]["sentence"]
    assert data["steps"][-1]["spec"].endswith("rule 3")
    unknown = _invoke(cedar_dir, "explain", "nope")
    assert unknown.exit_code == 2 and "no output claim 'nope'" in unknown.output
    # An output id given without its run: the message names the one it was meant to be.
    unknown = _invoke(cedar_dir, "explain", "qA/o1")
    assert unknown.exit_code == 2
    assert "no output claim 'qA/o1' in the store (did you mean 'sys-a/qA/o1'?)" in unknown.output


def test_explain_suggests_the_output_id_with_its_run() -> None:
    builder = hopgate.LedgerBuilder(run="my-rag")
    builder.add_document("a", "Alpha is mapped to R17.")
    builder.add_question("q3", "What is Alpha's record?", answer="R17", evidence_sets=[["a"]])
    builder.record(question="q3", answer="R17 [1].", contexts=["a"], correct=True)
    store = hopgate.open_store(None)
    builder.load(store)
    hopgate.evaluate(store, run="my-rag")
    assert hopgate.explain(store, "my-rag/q3").verdict == "accept"
    with pytest.raises(
        ReportError, match=r"no output claim 'q3' in the store \(did you mean 'my-rag/q3'\?\)"
    ):
        hopgate.explain(store, "q3")


def test_gate_prints_the_reason_sentence(cedar_dir: Path) -> None:
    result = _invoke(cedar_dir, "gate", "--run", "sys-a")
    assert result.exit_code == 1
    explained = _invoke(cedar_dir, "explain", "sys-a/qA/o1", "--format", "json")
    reason = json.loads(explained.output)["reason"]
    assert f"sys-a/qA/o1 (claim cA): {reason}" in result.output
    assert "missing hops: -" not in result.output


def test_escalation_and_abstention_reasons(tmp_path: Path) -> None:
    ledger = copy.deepcopy(_MINIMAL)
    ledger["cases"][0]["outputs"].append(
        {
            "id": "sys-a/q1/extra",
            "text": "Cedar is green.",
            "claim": None,
            "correct": True,
            "cites": ["a1"],
        }
    )
    ledger["contradictions"] = [{"id": "k9", "claim": "c1", "span": "a1", "status": "unresolved"}]
    path = tmp_path / "ledger.yaml"
    path.write_text(yaml.safe_dump(ledger))
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        report = build_report(store, run="sys-a", pictures=0, peers=False)
        rules = {c.row.output: (c.rule, c.reason) for c in report.cards}
    assert rules["sys-a/q1/extra"][0] == "extra-assertion"
    assert "unreviewed extra assertion" in rules["sys-a/q1/extra"][1]
    assert rules["sys-a/q1/o1"][0] == "unresolved-contradiction"
    assert "k9" in rules["sys-a/q1/o1"][1] and "rule 1" in rules["sys-a/q1/o1"][1]


def test_withheld_example_for_the_public_reader_shows_no_withheld_text(tmp_path: Path) -> None:
    store = tmp_path / "store"
    _invoke(store, "load", str(WITHHELD))
    _invoke(store, "evaluate")
    memo = "The board approved the Cedar budget on 3 March 2026"
    outputs = []
    for run in ("run-public", "run-analyst"):
        for fmt in ("html", "md", "json"):
            result = _invoke(store, "report", "--run", run, "--reader", "public", "--format", fmt)
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
    for output in ("analyst/q-budget", "analyst/q-site", "public/q-site"):
        for fmt in ("text", "json"):
            result = _invoke(store, "explain", output, "--reader", "public", "--format", fmt)
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
    for text in outputs:
        for secret in (
            memo,
            "Internal memo",
            "approved the Cedar budget",
            "Distribution: analysts",
        ):
            assert secret not in text
    assert any("withheld" in text for text in outputs)
    # The analyst reads the memo's quote in the same report.
    analyst = _invoke(store, "report", "--run", "run-analyst", "--format", "md").output
    assert memo in analyst


# --- reads never write --------------------------------------------------------------------


def _quads(store: Path) -> int:
    stats = json.loads(_invoke(store, "stats", "--format", "json").output)
    return int(stats["quads"])


def test_report_explain_diff_only_read(cedar_dir: Path, tmp_path: Path) -> None:
    before = _quads(cedar_dir)
    assert _invoke(cedar_dir, "report", "--run", "sys-a", "--pictures", "0").exit_code == 0
    assert _invoke(cedar_dir, "explain", "sys-a/qA/o1").exit_code == 0
    assert _invoke(cedar_dir, "diff", "--run", "sys-a").exit_code == 2  # one evaluation only
    assert _quads(cedar_dir) == before


def test_a_run_never_evaluated_is_an_error(tmp_path: Path) -> None:
    store = tmp_path / "store"
    _invoke(store, "load", str(CEDAR))
    for args in (["report", "--run", "sys-a"], ["explain", "sys-a/qA/o1"]):
        result = _invoke(store, *args)
        assert result.exit_code == 2
        assert result.output.startswith("Error:") and "hopgate evaluate" in result.output
    with hopgate.open_store(None) as memory:
        hopgate.load(memory, CEDAR)
        with pytest.raises(NotEvaluatedError):
            build_report(memory, run="sys-a")


MORE = {
    "ledger": 1,
    "evidence_sets": [
        {
            "id": "gA2",
            "claim": "cA",
            "members": ["a2"],
            "inference": "the rights schedule names the project's record directly",
            "status": "adjudicated",
            "annotation": {"version": 1, "by": "reviewer-2", "at": "2026-10-05"},
        }
    ],
    "judgments": [
        {"id": "j2", "subject": "gA2", "by": "reviewer-2", "at": "2026-10-05",
         "decision": "sufficient", "reason": "a direct statement"}
    ],
}  # fmt: skip


def test_stale_report_and_diff_of_two_evaluations(cedar_dir: Path, tmp_path: Path) -> None:
    more = tmp_path / "more.yaml"
    more.write_text(yaml.safe_dump(MORE))
    assert _invoke(cedar_dir, "load", str(more)).exit_code == 0
    stale = _invoke(cedar_dir, "report", "--run", "sys-a", "--format", "md", "--pictures", "0")
    assert stale.exit_code == 0 and "**STALE**" in stale.output
    assert _invoke(cedar_dir, "evaluate", "--run", "sys-a").exit_code == 0
    result = _invoke(cedar_dir, "diff", "--run", "sys-a")
    assert result.exit_code == 0, result.output
    assert "evidence set gA2 for claim cA: adjudicated" in result.output
    assert "judgment j2 for claim cA: sufficient" in result.output
    assert "sys-a/qA/o1: verdict revise-citations -> accept; cited_route - -> gA2" in result.output
    assert re.search(r"citation set completeness\s+1/3 = 33.3%\s+2/3 = 66.7%", result.output)
    data = json.loads(_invoke(cedar_dir, "diff", "--run", "sys-a", "--format", "json").output)
    assert len(data["loads_added"]) == 1 and not data["loads_dropped"]
    assert [o["output"] for o in data["outputs"]] == ["sys-a/qA/o1"]
    # Named evaluations, in either order, and the report's "what changed".
    first, second = data["before"], data["after"]
    named = _invoke(cedar_dir, "diff", second, first)
    assert "verdict accept -> revise-citations" in named.output
    report = _invoke(cedar_dir, "report", "--run", "sys-a", "--format", "md", "--pictures", "0")
    assert f"## What changed since evaluation {first}" in report.output
    assert "**STALE**" not in report.output
    earlier = _invoke(
        cedar_dir, "report", "--run", "sys-a", "--evaluation", first, "--format", "json"
    )
    header = json.loads(earlier.output)["header"]
    assert header["evaluation"] == first and "a later evaluation" in header["stale_reason"]


# --- pictures that fit a page -------------------------------------------------------------


@pytest.mark.parametrize(("sets", "members"), [(3, 4), (5, 5)])
def test_wide_card_pictures_fit_an_a4_page_width(tmp_path: Path, sets: int, members: int) -> None:
    _needs_dot()
    path = tmp_path / "wide.yaml"
    path.write_text(yaml.safe_dump(wide_card_ledger(sets, members)))
    store = tmp_path / "store"
    _invoke(store, "load", str(path))
    _invoke(store, "evaluate")
    dot = _invoke(store, "export", "--card", "wide/q1/o1", "--format", "dot").output
    assert f"evidence set g{sets - 1}" in dot and f"span s{sets - 1}-{members - 1}" in dot
    # The layout itself fits (not only the drawing scaled down to fit): drawn without
    # the size cap, at 72 points to the inch.
    natural = re.sub(r'size="[^"]*", ', "", dot)
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=natural, capture_output=True, text=True, check=True
    ).stdout
    width = float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1))  # type: ignore[union-attr]
    assert width <= A4_WIDTH_PT, width
    capped = _invoke(store, "export", "--card", "wide/q1/o1", "--format", "svg").output
    capped_width = float(re.search(r'<svg width="([\d.]+)pt"', capped).group(1))  # type: ignore[union-attr]
    assert capped_width <= A4_WIDTH_PT


def test_the_json_report_is_its_data_as_json(tmp_path: Path) -> None:
    """The page's JSON is written from the cards' own rows, not copies of them: the same
    text as the report's data (``Report.as_dict()``), with judgments, source truth
    and a reader's withheld texts among it."""
    store = hopgate.open_store(None)
    for ledger in (CEDAR, CEDAR.parent / "withheld.yaml"):
        hopgate.load(store, ledger)
    evaluate(store)
    for run in ("sys-a", "run-public"):
        report = build_report(store, run=run, pictures=0)
        data = report.as_dict()
        assert any(card["source_truth"] for card in data["cards"]) or run != "sys-a"
        assert render(report, "json") == escaping.json_text(data) + "\n"


def test_report_on_disk_reads_the_same_from_the_record_the_copy_and_the_store(
    cedar_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import contextlib

    import hopgate.report.data as data
    from hopgate.audit import results
    from hopgate.store import answers, snapshots

    def cards(store: hopgate.Store, chosen: data.ChosenEvaluation) -> list[dict[str, Any]]:
        return [c.as_dict() for c in data.collect_cards(store, chosen)]

    with hopgate.open_store(cedar_dir) as store:
        chosen = data.resolve_evaluation(store, run="sys-a")
        assert answers.read(store, chosen.evaluation.bundle) is not None  # recorded
        recorded = cards(store, chosen)
        # One card (explain) decodes only its rows: the same card.
        one_by_one = [
            c.as_dict()
            for row in recorded
            for c in data.collect_cards(store, chosen, only_output=row["output"])
        ]
        copies: list[hopgate.Store] = []
        real_copy = snapshots.reading_copy

        @contextlib.contextmanager
        def counted(*args: Any, **kwargs: Any) -> Any:
            with real_copy(*args, **kwargs) as copy:
                copies.append(copy)
                yield copy

        # Without the record: one reading copy of the loads and the bundle serves every query
        # (of a bundle with a snapshot, as an earlier hopgate kept one; now none is kept).
        keep_bundle_snapshot(store, chosen.evaluation.bundle, tmp_path)
        monkeypatch.setattr(results.answers, "read", lambda store, bundle: None)
        monkeypatch.setattr(snapshots, "reading_copy", counted)
        through_copy = cards(store, chosen)
        assert len(copies) == 1 and copies[0] is not store  # the snapshots are verified
        # Without snapshots either: the queries run on the store itself, seen through the
        # evaluation's graphs only (its bundle and the loads it used).
        monkeypatch.setattr(snapshots, "verified", lambda *args: None)
        in_place = cards(store, chosen)
        assert copies[-1] is not store and copies[-1]._store is store._store
    assert recorded == one_by_one == through_copy == in_place
    assert any(span["text"] for card in recorded for span in card["delivered"])


def test_an_abstain_verdict_on_an_answer_says_the_system_answered() -> None:
    # "abstain" names what the system should have done: the sentence must not read as if
    # it had abstained.
    builder = hopgate.LedgerBuilder(run="my-rag")
    builder.add_document("a", "Alpha is mapped to R17.")
    builder.add_question("q2", "What is Alpha's budget?", evidence_sets=[])
    builder.record(question="q2", answer="Alpha's budget is 4 million.", contexts=["a"])
    store = hopgate.open_store(None)
    builder.load(store)
    hopgate.evaluate(store, run="my-rag")
    found = hopgate.explain(store, "my-rag/q2")
    assert found.verdict == "abstain"
    assert found.reason.startswith(
        "Abstain: the system answered, but should have abstained: claim q2 has no eligible "
        "evidence set (not found)"
    )
    page = hopgate.render_report(hopgate.build_report(store, run="my-rag", pictures=0), format="md")
    assert "the system answered, but should have abstained" in page


def test_the_report_names_the_users_files_never_their_folders(tmp_path: Path) -> None:
    # Files given by absolute path (as a CI job gives them): the report names the ledger
    # it read by its file name, and no folder of the user's machine appears in it.
    folder = tmp_path / "home" / "ana" / "my-rag"
    folder.mkdir(parents=True)
    files = {}
    for name in ("docs", "gold", "answers"):
        files[name] = folder / f"{name}.jsonl"
        shutil.copy(ROOT / "examples" / f"rag-{name}.jsonl", files[name])
    store_dir = tmp_path / "store"
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["--store", str(store_dir), "import", "rag", "--docs", str(files["docs"]), "--gold"]
        + [str(files["gold"]), "--answers", str(files["answers"]), "--run", "my-rag"]
        + ["-o", str(folder / "my-rag.ledger.jsonl"), "--load"],
    )
    assert result.exit_code == 0, result.output
    assert runner.invoke(cli, ["--store", str(store_dir), "evaluate"]).exit_code == 0
    for fmt in ("html", "md", "json"):
        shown = runner.invoke(
            cli, ["--store", str(store_dir), "report", "--run", "my-rag", "--format", fmt]
        )
        assert shown.exit_code == 0, shown.output
        assert "my-rag.ledger.jsonl" in shown.stdout
        assert str(tmp_path) not in shown.stdout and "/home/ana" not in shown.stdout, fmt


@given(st.lists(st.text(min_size=1, max_size=8), min_size=2, max_size=6, unique=True))
def test_each_output_id_has_its_own_card_anchor(outputs: list[str]) -> None:
    """Output ids are any strings: ``=`` and ``_3D`` (and ``a b``, ``a_20b``) had one HTML
    anchor, so a link in the report opened another output's card (user trial). An anchor
    is an HTML id: no white space."""
    anchors = [card_anchor(output) for output in outputs]
    assert len(set(anchors)) == len(outputs)
    assert not any(any(c.isspace() for c in a) for a in anchors)
    assert card_anchor("=") != card_anchor("_3D") and card_anchor("a b") != card_anchor("a_20b")


def test_a_report_without_graphviz_says_why_it_has_no_pictures(
    cedar_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without graphviz the page said "drawn for the first 0 card(s)" and nothing else, and
    pointed at a command that needs graphviz too (user trial)."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no dot program on it
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["--store", str(cedar_dir), "report", "--run", "sys-a", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "no card picture is drawn: graphviz's dot program is missing" in result.stderr
    page = out.read_text(encoding="utf-8")
    assert "Note: no card picture is drawn" in page and "--format dot" in page
    assert "drawn for the first 0 card(s)" not in page
    # Asked for none, nothing is said.
    quiet = CliRunner().invoke(
        cli,
        ["--store", str(cedar_dir), "report", "--run", "sys-a", "--pictures", "0", "-o", str(out)],
    )
    assert "dot program" not in quiet.stderr
