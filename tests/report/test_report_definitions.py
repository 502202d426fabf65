"""The report's definitions are the spec's, and its numbers are ``metrics``' (issue 28 item 5).

Each figure and count the report defines is quoted from the section of
docs/spec/acceptance.md that defines it (hopgate.library.spec: one home), and
each number it prints is the number ``hopgate.metrics`` gives for the same
evaluation, in every format.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import hopgate
from hopgate import escaping
from hopgate.api import FIGURES
from hopgate.library import spec
from hopgate.library.artefacts import artefact
from hopgate.report.build import COUNTS, DEFINITIONS

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "docs" / "spec" / "acceptance.md").read_text(encoding="utf-8")


def _whole_answer_store() -> hopgate.Store:
    """The issue's trial: q1 passes with its retrieval incomplete (it cites what it never
    retrieved); q2 fails with retrieval complete and a correct answer (a hop uncited)."""
    builder = hopgate.LedgerBuilder(run="trial")
    builder.add_document("a", "Alpha is mapped to R17.")
    builder.add_document("b", "R17 belongs to Entity R.")
    builder.add_question(
        "q1", "Who owns Alpha?", answer="Entity R", evidence_sets=[["a", "b"]], consequential=True
    )
    builder.add_question("q2", "What is Alpha's record?", answer="R17", evidence_sets=[["a", "b"]])
    builder.record(
        question="q1", answer="Entity R.", contexts=["a"], citations=[1, "b"], correct=True
    )
    builder.record(question="q2", answer="R17 [1].", contexts=["a", "b"], correct=True)
    store = hopgate.open_store(None)
    builder.load(store)
    hopgate.evaluate(store, run="trial")
    return store


@pytest.mark.parametrize("name", [*spec.FIGURES, *spec.COUNTS])
def test_each_definition_is_quoted_from_its_spec_section(name: str) -> None:
    definition = {**DEFINITIONS, **COUNTS}[name]
    section, term = {**spec.FIGURES, **spec.COUNTS}[name]
    assert definition.section == f'docs/spec/acceptance.md "{section}"'
    body = SPEC.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    assert f"**{term}**" in body
    # The quoted words are the spec's, in order (markdown marks aside).
    plain = " ".join(re.sub(r"[*`]", "", body).split())
    assert definition.text.rstrip(".;") in plain


def test_every_figure_and_count_of_metrics_is_defined() -> None:
    figures = hopgate.metrics(_whole_answer_store(), run="trial")["trial"]
    assert set(FIGURES) == set(DEFINITIONS)
    assert set(figures.counts) <= set(COUNTS)


def test_the_whole_answer_definition_is_the_spec_not_retrieval() -> None:
    text = DEFINITIONS["whole_answer"].text
    assert text.startswith("Whole-answer pass rate = cases that pass")
    assert "retrieved complete" not in text and "verdict accept" in text


def test_the_spec_ships_in_the_package() -> None:
    assert artefact("spec").joinpath("acceptance.md").read_text("utf-8").startswith("# ")


@pytest.mark.parametrize("fmt", ["json", "md", "html"])
def test_the_reports_numbers_are_metrics_numbers(fmt: str) -> None:
    store = _whole_answer_store()
    found = hopgate.metrics(store, run="trial")["trial"]
    # The trial: q1 accepted though its retrieval missed b; q2 retrieved all, answered right,
    # and fails on an uncited hop.
    rows = {row.question: row for row in hopgate.verdicts(store, run="trial")}
    assert (rows["q1"].verdict, rows["q1"].retrieved_complete) == ("accept", False)
    assert (rows["q2"].verdict, rows["q2"].retrieved_complete) == ("revise-citations", True)
    assert (found.whole_answer.numerator, found.whole_answer.denominator) == (1, 2)
    report = hopgate.build_report(store, run="trial", pictures=0)
    text = hopgate.render_report(report, format=fmt)
    if fmt == "json":
        data = json.loads(text)
        for name in FIGURES:
            shown, expected = data["metrics"][name], getattr(found, name)
            assert (shown["numerator"], shown["denominator"], shown["value"]) == (
                expected.numerator,
                expected.denominator,
                expected.value,
            ), name
            assert data["definitions"][name]["text"] == DEFINITIONS[name].text
        assert data["metrics"]["counts"] == found.counts
        return
    for name in FIGURES:
        figure = getattr(found, name)
        value = "undefined" if figure.value is None else f"{100 * figure.value:.1f}%"
        if fmt == "md":
            row = f"| {figure.numerator} | {figure.denominator} | {value} |"
        else:
            row = (
                f'<td class="num">{figure.numerator}</td><td class="num">{figure.denominator}'
                f'</td><td class="num">{value}</td>'
            )
        assert row in text, name
        shown = escaping.html if fmt == "html" else escaping.markdown
        assert str(shown(DEFINITIONS[name].text)) in text, name
    for key, n in found.counts.items():
        assert (f"| {n} |" if fmt == "md" else f'<td class="num">{n}</td>') in text, key
