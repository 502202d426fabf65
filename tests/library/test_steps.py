"""The evaluation's steps (hopgate.library.steps): each rule has one home, one file of
``queries/`` that decides it, and the steps run in the order queries/README.md lists.

The auditor-facing queries read what the pipeline recorded (the latest
evaluation bundle of a run) instead of deriving the rules a second time
(issue 14, "Each rule once"). These tests find each rule's characteristic
comparison in the SPARQL as written (comments dropped, whitespace
normalised) and assert it occurs in exactly one file, and that the queries
reading the record return nothing before an evaluation (a read never
evaluates).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hopgate
from hopgate.library.artefacts import library_queries

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "queries"

#: Each rule, the pattern that writes it out, and its one home.
RULES = {
    # docs/spec/acceptance.md "Eligibility", rules 1 and 2: a comparison with the cutoff.
    "eligibility: observation cutoff": (
        r"\?\w+ (?:>|>=|<|<=) \?\w*cutoff\b",
        "evaluation-eligibility.ru",
    ),
    # Rule 3: the claim's time against the effective interval.
    "eligibility: effective interval": (
        r"\?\w+ (?:<|>=) \?\w*(?:from|until)\b",
        "evaluation-eligibility.ru",
    ),
    # Rule 4: a span's readers, else its version's.
    "eligibility: readers": (
        r"MINUS \{ GRAPH \?\w+ \{ \?\w+ hg:readableBy \?reader \} \}",
        "evaluation-eligibility.ru",
    ),
    # docs/spec/acceptance.md "Coverage": containment of offsets.
    "coverage: containment": (r"\?\w+ <= \?\w+ && \?\w+ <= \?\w+", "evaluation-coverage.ru"),
    # docs/spec/acceptance.md "Answerability".
    "answerability": (
        r"hg:Answerable, IF\(BOUND\(\?\w+\), hg:Blocked, hg:NotFound\)",
        "evaluation-eligibility.ru",
    ),
    # docs/spec/acceptance.md "Per output claim": the route with fewest uncovered members, ties by id.
    "routes": (r"MIN\(STR\(\?setId\)\)", "evaluation-routes.ru"),
    # The nearest set: the best cited candidate while it leaves members uncited.
    "missing hops: nearest set": (r"FILTER \(\?uncited > 0\)", "evaluation-routes.ru"),
    # docs/spec/acceptance.md "Verdict": the verdict order.
    "verdict order": (r"hg:ReviseCitations\)+ AS \?verdict", "evaluation-verdicts.rq"),
    # docs/spec/acceptance.md "Release gate".
    "release gate": (r"\?verdict = hg:Accept && \?authorityMet AS \?passes", "gate.rq"),
    # docs/spec/acceptance.md "Source truth": the weighed route, the premise basis, the
    # route authority (the weakest member's).
    "weighed route": (
        r"IF\(\?uncited = 0, \?citedSet, IF\(\?unretrieved = 0, \?retrievedSet",
        "evaluation-routes.ru",
    ),
    "premise basis": (
        r'COALESCE\(\?memberReason, \?versionReason, \?sourceBasis, "unstated"\)',
        "evaluation-source-truth.rq",
    ),
    "route authority": (r"IF\(\?weakest = 1, hg:Tertiary", "evaluation-source-truth.rq"),
    # The reader rule of what leaves the store (every output: hopgate.audit.withholding).
    "withheld text": (r"hg:readableBy \?anyVersionReader", "withheld.rq"),
}


def _sparql(path: Path) -> str:
    """The file's SPARQL without comments, whitespace normalised."""
    lines = [re.sub(r"(^|\s)#.*$", "", line) for line in path.read_text("utf-8").splitlines()]
    return re.sub(r"\s+", " ", " ".join(lines))


def _homes(pattern: str) -> list[str]:
    files = sorted(QUERIES.glob("*.r[qu]"))
    return [path.name for path in files if re.search(pattern, _sparql(path))]


@pytest.mark.metadata
@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_is_written_in_one_file(rule: str) -> None:
    pattern, home = RULES[rule]
    assert _homes(pattern) == [home]


@pytest.mark.metadata
def test_a_comment_is_not_a_rule(tmp_path: Path) -> None:
    text = "# FILTER (?observed > ?cutoff)\nSELECT ?s WHERE { ?s ?p ?o } # ?a <= ?b && ?c <= ?d\n"
    path = tmp_path / "one-home-probe.rq"
    path.write_text(text, encoding="utf-8")
    assert not re.search(RULES["eligibility: observation cutoff"][0], _sparql(path))
    assert not re.search(RULES["coverage: containment"][0], _sparql(path))
    # ... while the same comparison outside a comment is one.
    path.write_text("SELECT ?s WHERE { ?s ?p ?o FILTER (?observed > ?cutoff) }", encoding="utf-8")
    assert re.search(RULES["eligibility: observation cutoff"][0], _sparql(path))


@pytest.mark.metadata
def test_joint_support_and_source_of_routes_are_not_minted_in_python() -> None:
    evaluate = (ROOT / "src" / "hopgate" / "decide" / "evaluation.py").read_text("utf-8")
    assert 'mint("rule"' not in evaluate, "joint support is decided in evaluation-verdicts.rq"
    results = (ROOT / "src" / "hopgate" / "audit" / "results.py").read_text("utf-8")
    assert '!= "accept"' not in results, "the gate is decided in queries/gate.rq"


@pytest.mark.metadata
def test_the_export_and_the_picture_take_the_withheld_query_s_answer_from_the_filter() -> None:
    """They bind the answer of queries/withheld.rq the reader filter gives
    (``reader_view``: recorded by the loads, else the rule asked once), and restate no rule."""
    from hopgate.audit import withholding

    assert library_queries()["withheld"].text in withholding.WITHHELD
    for name in ("quads.py", "picture.py"):
        text = (ROOT / "src" / "hopgate" / "bundles" / name).read_text("utf-8")
        assert "reader_view(" in text, name
        assert "WITHHELD" not in text and "RULE_QUERY" not in text, name


def test_every_output_applies_the_one_reader_filter() -> None:
    """docs/spec/records.md "What a reader is shown": one module reads the rule's query
    (library/reader_rule.py: the forms the filter asks it in, which a load also asks to
    record its answers), one applies it and words the marker; every module that writes an
    output for a reader imports the latter."""
    src = ROOT / "src" / "hopgate"
    texts = {path: path.read_text("utf-8") for path in src.rglob("*.py")}
    home = src / "audit" / "withholding.py"
    rule = src / "library" / "reader_rule.py"
    # library/steps.py reads the rule's text for its IRIs only (reader_projection: the
    # quads a load keeps a snapshot of for the rule), never to apply it.
    projection = src / "library" / "steps.py"
    assert texts[projection].count('library_query("withheld")') == 1
    assert texts[rule].count('library_query("withheld")') == 1
    for path, text in texts.items():
        if path not in (rule, projection):
            assert 'library_query("withheld")' not in text, path
        if path != home:
            assert "withheld from this reader" not in text, path
    outputs = ["bundles/quads.py", "bundles/picture.py", "report/build.py", "report/data.py"]
    # The command line prints what hopgate.api returns, filtered there (the metrics command's
    # baseline settings too: api.metrics); tests/cli/test_imports.py keeps the CLI above it.
    outputs += ["report/explain.py", "report/diff.py", "api.py"]
    for name in outputs:
        assert "from hopgate.audit.withholding import" in texts[src / name], name


#: The auditor queries that read the record of a run's latest evaluation.
RECORD_READERS = [
    "admissible-spans",
    "claim-cases",
    "claim-status",
    "complete-sets",
    "coverage",
    "inadmissible-citations",
    "missing-hops",
    "verdicts",
]


@pytest.fixture(scope="module")
def loaded() -> object:
    store = hopgate.open_store(None)
    hopgate.load(store, ROOT / "examples" / "cedar.yaml")
    yield store
    store.close()


@pytest.mark.parametrize("query_id", RECORD_READERS)
def test_record_reader_returns_nothing_before_an_evaluation(loaded: object, query_id: str) -> None:
    query = library_queries()[query_id]
    header = " ".join(line.lstrip("# ") for line in query.text.splitlines() if line.startswith("#"))
    assert (
        "before a run is evaluated" in header.lower() or "before any evaluation" in header.lower()
    )
    assert loaded.select(query.text) == []  # type: ignore[attr-defined]


@pytest.mark.metadata
@pytest.mark.parametrize("query_id", RECORD_READERS)
def test_record_reader_decides_nothing(query_id: str) -> None:
    """No rule pattern occurs in a query that reads the record."""
    text = _sparql(QUERIES / f"{query_id}.rq")
    for rule, (pattern, _) in RULES.items():
        assert not re.search(pattern, text), rule


def _anchor(heading: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")


@pytest.mark.metadata
def test_readme_lists_the_pipeline_in_order_with_existing_sections() -> None:
    from hopgate.library.steps import RESULT_QUERIES, SCRATCH_UPDATES

    readme = (QUERIES / "README.md").read_text("utf-8")
    steps = re.findall(r"^\d+\. `([\w-]+)\.r[qu]`: (.*)$", readme, flags=re.MULTILINE)
    assert [name for name, _ in steps] == [*SCRATCH_UPDATES, *RESULT_QUERIES]
    for name, line in steps:
        cited = re.findall(r"`(docs/spec/[\w-]+\.md)#([\w-]+)`", line)
        assert cited, f"{name}: no spec section cited"
        for doc, anchor in cited:
            headings = re.findall(r"^#+ (.+)$", (ROOT / doc).read_text("utf-8"), flags=re.MULTILINE)
            assert anchor in {_anchor(h) for h in headings}, f"{name}: {doc}#{anchor}"
