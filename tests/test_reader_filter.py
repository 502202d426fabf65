"""One reader filter for every output (docs/spec/records.md "What a reader is shown").

Issue 25, item 3: a span narrowed to ``analyst`` whose words a claim, an
output, a question, a reference answer, an inference, a contradiction's
decision and judgments' reasons repeat, and a version restricted to
``analyst`` whose text (and a span of it) other records repeat. Each test
below is one finding of the issue or one output that had no filter: it
fails on the code before the filter and passes with it. The evaluation is
for ``public``, so every default output is for a reader the words are
withheld from; ``analyst`` sees them all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import hopgate
from hopgate.audit.withholding import MARKER
from hopgate.cli import cli

try:
    from tests.conftest import write
except ImportError:  # run from inside tests/
    from conftest import write  # type: ignore[no-redef]

#: The words of the span narrowed to analyst, in a public version.
NARROWED = "Cedar maps to zqnarrowed7731 kestrel"
#: The whole text of the version restricted to analyst, and its one span's words.
PRIVATE = "Private memo: zqprivate4410 osprey holds Cedar."
PRIVATE_SPAN = "zqprivate4410 osprey"
TOKENS = ("zqnarrowed7731", "zqprivate4410")


def _ledger() -> dict[str, Any]:
    public_text = f"Public registry. {NARROWED}. Public closing."
    return {
        "ledger": 1,
        "evaluations": [
            {"id": "e", "reader": "public", "observation_cutoff": "2026-10-07T00:00:00Z"}
        ],
        "readers": [{"id": "analyst"}, {"id": "public"}],
        "sources": [
            {"id": "reg", "address": "https://example.org/reg", "title": "Registry"},
            {"id": "memo", "address": "https://example.org/memo"},
        ],
        "versions": [
            {"id": "reg@1", "source": "reg", "text": public_text, "observed_at": "2026-10-01"},
            {
                "id": "memo@1",
                "source": "memo",
                "text": PRIVATE,
                "observed_at": "2026-10-01",
                "readers": ["analyst"],
            },
        ],
        "spans": [
            {"id": "n1", "version": "reg@1", "quote": NARROWED, "readers": ["analyst"]},
            {"id": "p1", "version": "reg@1", "quote": "Public registry."},
            {"id": "m1", "version": "memo@1", "quote": PRIVATE_SPAN},
        ],
        "questions": [
            {
                "id": "q1",
                "text": f"Is it true that {NARROWED}?",
                "answer": f"Yes: {NARROWED}",
                "claims": ["c1"],
            },
            {"id": "q2", "text": "Who holds Cedar?", "claims": ["c2"]},
        ],
        "claims": [
            {"id": "c1", "text": f"The registry says {NARROWED}.", "consequential": True},
            {"id": "c2", "text": f"The memo says {PRIVATE_SPAN}."},
        ],
        "evidence_sets": [
            {
                "id": "g1",
                "claim": "c1",
                "members": ["p1"],
                "inference": f"reading {NARROWED}",
                "status": "adjudicated",
                "annotation": {"version": 1, "by": "ann", "at": "2026-10-02"},
            },
            {
                "id": "g2",
                "claim": "c1",
                "members": ["n1"],
                "inference": "direct",
                "status": "proposed",
                "annotation": {"version": 1, "by": "ann", "at": "2026-10-02"},
            },
            {
                "id": "g3",
                "claim": "c2",
                "members": ["m1"],
                "inference": "direct",
                "status": "adjudicated",
                "annotation": {"version": 1, "by": "ann", "at": "2026-10-02"},
            },
        ],
        "contradictions": [
            {
                "id": "k1",
                "claim": "c1",
                "span": "p1",
                "status": "resolved",
                "decision": f"superseded, as {NARROWED}",
            }
        ],
        "runs": [{"id": "r", "evaluation": "e", "system": "rag"}],
        "cases": [
            {
                "run": "r",
                "question": "q1",
                "retrieved": ["p1"],
                "outputs": [
                    {
                        "id": "o1",
                        "text": f"The answer: {NARROWED}!",
                        "claim": "c1",
                        "correct": True,
                        "cites": ["p1"],
                    },
                    # Judged incorrect: it fails the gate, whose rows carry judgments.
                    {"id": "o3", "text": "Wrong.", "claim": "c1", "correct": False},
                ],
            },
            {
                "run": "r",
                "question": "q2",
                "retrieved": ["m1"],
                "outputs": [
                    # The restricted version's whole text, repeated by the system.
                    {"id": "o2", "text": PRIVATE, "claim": "c2", "correct": True, "cites": ["m1"]}
                ],
            },
        ],
        "judgments": [
            {
                "id": "j1",
                "subject": "g2",
                "question": "entailment",
                "decision": "sufficient",
                "by": "rev-1",
                "reason": f"it says {NARROWED}",
            },
            {
                "id": "j2",
                "subject": "g2",
                "question": "entailment",
                "decision": "insufficient",
                "by": "rev-2",
                "reason": f"not only {NARROWED}",
            },
            {
                "id": "j3",
                "subject": "g1",
                "question": "entailment",
                "decision": "sufficient",
                "by": "chief",
                "final": True,
                "at": "2026-10-03",
                "reason": f"final: {NARROWED}",
            },
        ],
    }


#: A later load: a contradiction whose decision repeats the narrowed words (shown by diff),
#: and a claim not applicable for the evaluation whose reason repeats them
#: (docs/spec/acceptance.md "Not applicable": the card shows the reason).
LATER = {
    "ledger": 1,
    "questions": [{"id": "q3", "text": "Where is Birch?", "claims": ["c3"]}],
    "claims": [
        {
            "id": "c3",
            "text": "Birch is in scope.",
            "not_applicable": [{"evaluation": "e", "reason": f"out of scope, as {NARROWED}"}],
        }
    ],
    "cases": [
        {
            "run": "r",
            "question": "q3",
            "outputs": [{"id": "o4", "text": "Birch.", "claim": "c3", "correct": True}],
        }
    ],
    "contradictions": [
        {
            "id": "k2",
            "claim": "c1",
            "span": "p1",
            "status": "resolved",
            "decision": f"later: {NARROWED}",
        }
    ],
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An on-disk store: the ledger evaluated, the later load evaluated again."""
    root = tmp_path_factory.mktemp("reader-filter")
    runner = CliRunner()
    for ledger, name in ((_ledger(), "base"), (LATER, "later")):
        path = write(root / name, ledger, "yaml")
        for args in (["load", str(path)], ["evaluate"]):
            result = runner.invoke(cli, ["--store", str(root / "store"), *args], obj={})
            assert result.exit_code == 0, result.output
    yield root


def _run(folder: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--store", str(folder / "store"), *args], obj={})
    assert result.exit_code == 0, result.output
    return result.output


def _hits(text: str) -> int:
    return sum(text.count(token) for token in TOKENS)


# --- the findings of issue 25 item 3 ----------------------------------------------


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_report_withholds_every_text_repeating_withheld_words(folder: Path, fmt: str) -> None:
    """Finding: `report --reader public` printed them (5 in HTML, 4 in Markdown, 6 in JSON)."""
    shown = _run(folder, "report", "--run", "r", "--reader", "public", "--format", fmt)
    assert _hits(shown) == 0
    assert "withheld from this reader" in shown
    seen = _run(folder, "report", "--run", "r", "--reader", "analyst", "--format", fmt)
    assert all(token in seen for token in TOKENS)


def test_report_json_marks_each_withheld_field_and_keeps_every_figure(folder: Path) -> None:
    public = json.loads(_run(folder, "report", "--run", "r", "--format", "json"))
    analyst = json.loads(
        _run(folder, "report", "--run", "r", "--reader", "analyst", "--format", "json")
    )
    assert public["header"]["reader"] == "public"  # the evaluation's reader by default
    card = next(c for c in public["cards"] if c["output"] == "o1")
    for name in ("output_text", "claim_text", "question_text", "reference_answer", "inference"):
        assert card[name] == MARKER, name
    assert card["contradictions"][0]["decision"] == MARKER
    assert card["judgments"][0]["reason"] == MARKER
    other = next(c for c in public["cards"] if c["output"] == "o2")
    assert other["output_text"] == MARKER and other["claim_text"] == MARKER
    # Figures, verdicts and ids are the same for every reader.
    assert public["metrics"] == analyst["metrics"]
    assert public["verdict_counts"] == analyst["verdict_counts"]
    assert [c["verdict"] for c in public["cards"]] == [c["verdict"] for c in analyst["cards"]]


def test_explain_withholds_them(folder: Path) -> None:
    """Finding: `explain --reader public` printed them 4 times."""
    for fmt in ("text", "json"):
        shown = _run(folder, "explain", "o1", "--reader", "public", "--format", fmt)
        assert _hits(shown) == 0 and "withheld from this reader" in shown
        assert "zqnarrowed7731" in _run(folder, "explain", "o1", "--reader", "analyst")


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_verdicts_withhold_a_not_applicable_reason(folder: Path, fmt: str) -> None:
    """The ledger's reason a claim is not applicable is text like any other."""
    shown = _run(folder, "verdicts", "--format", fmt)
    assert _hits(shown) == 0
    if fmt == "json":
        [row] = [r for r in json.loads(shown) if r["output"] == "o4"]
        assert (row["not_applicable"], row["not_applicable_reason"]) == (True, MARKER)
        seen = json.loads(_run(folder, "verdicts", "--reader", "analyst", "--format", fmt))
        [row] = [r for r in seen if r["output"] == "o4"]
        assert row["not_applicable_reason"] == f"out of scope, as {NARROWED}"
    explained = _run(folder, "explain", "o4", "--reader", "public")
    assert _hits(explained) == 0 and "not applicable" in explained


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_verdicts_withhold_a_judgment_reason(folder: Path, fmt: str) -> None:
    """Finding: `verdicts --format json` printed them once (a final judgment's reason)."""
    shown = _run(folder, "verdicts", "--format", fmt)
    assert _hits(shown) == 0
    if fmt == "json":
        assert "zqnarrowed7731" in _run(folder, "verdicts", "--reader", "analyst", "--format", fmt)


def test_export_withholds_literals_repeating_a_restricted_versions_text(folder: Path) -> None:
    """Finding: the export withheld repeats of narrowed spans only, not of a version whose
    readers exclude the reader (an output repeating its whole text, a claim its span)."""
    for fmt in ("trig", "provn", "provjson", "provxml", "jsonld"):
        for with_text in ([], ["--with-text"]):
            shown = _run(folder, "export", "--run", "r", "--format", fmt, *with_text)
            assert "zqprivate4410" not in shown, (fmt, with_text)
            assert "withheldFor" in shown or "withheld" in shown
    seen = _run(folder, "export", "--run", "r", "--reader", "analyst")
    assert "The memo says zqprivate4410 osprey." in seen


# --- the outputs that had no reader filter ------------------------------------------


def test_diff_withholds_a_contradiction_decision(folder: Path) -> None:
    for fmt in ("text", "json"):
        shown = _run(folder, "diff", "--run", "r", "--format", fmt)
        assert _hits(shown) == 0 and "withheld from this reader" in shown
    assert "later: Cedar maps" in _run(folder, "diff", "--run", "r", "--reader", "analyst")


def test_review_queue_and_changes_withhold_judgment_reasons(folder: Path) -> None:
    for fmt in ("text", "json"):
        shown = _run(folder, "review", "queue", "--format", fmt)
        assert _hits(shown) == 0 and "withheld from this reader" in shown
        assert _hits(_run(folder, "review", "changes", "--run", "r", "--format", fmt)) == 0
    seen = _run(folder, "review", "queue", "--reader", "analyst", "--format", "json")
    assert "it says Cedar maps to zqnarrowed7731 kestrel" in seen


def test_review_judgments_withholds_judgment_reasons(folder: Path) -> None:
    """`review judgments` (issue 25 item 5) passes the same filter: for a reader, or, with
    none given, withholding what any reader of the store may not see."""
    for args in ((), ("--reader", "public")):
        for fmt in ("text", "json"):
            shown = _run(folder, "review", "judgments", "--all", *args, "--format", fmt)
            assert _hits(shown) == 0, (args, fmt)
    seen = _run(folder, "review", "judgments", "--all", "--reader", "analyst", "--format", "json")
    assert "it says Cedar maps to zqnarrowed7731 kestrel" in seen


def test_gate_rows_withhold_a_judgment_reason(folder: Path) -> None:
    result = CliRunner().invoke(
        cli, ["--store", str(folder / "store"), "gate", "--run", "r"], obj={}
    )
    assert result.exit_code == 1 and "o3" in result.output and _hits(result.output) == 0
    with hopgate.open_store(folder / "store") as store:
        failing = hopgate.gate(store, run="r").failing
    assert [row.output for row in failing] == ["o3"]
    assert [j["reason"] for j in failing[0].judgments] == [MARKER]


def test_metrics_keep_every_figure_for_every_reader(folder: Path) -> None:
    public = json.loads(_run(folder, "metrics", "--format", "json"))
    analyst = json.loads(_run(folder, "metrics", "--reader", "analyst", "--format", "json"))
    assert public == analyst


def test_query_with_a_reader_withholds_and_without_one_reads_the_store(folder: Path) -> None:
    texts = "SELECT ?text WHERE { ?s prov:value ?text }"
    every = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER (isLiteral(?o)) }"
    for query in (texts, every):
        for fmt in ("table", "json", "csv"):
            shown = _run(folder, "query", query, "--reader", "public", "--format", fmt)
            assert _hits(shown) == 0 and "withheld from this reader" in shown, (query, fmt)
        assert all(token in _run(folder, "query", query) for token in TOKENS)
        assert all(token in _run(folder, "query", query, "--reader", "analyst") for token in TOKENS)
    # Counts are figures: the same for every reader.
    count = "SELECT (COUNT(?text) AS ?n) WHERE { ?s prov:value ?text }"
    assert _run(folder, "query", count, "--reader", "public") == _run(folder, "query", count)


def test_a_query_cannot_carry_a_withheld_text_out_in_another_form(folder: Path) -> None:
    """Query files are attacker-controlled: typed as a number or a time (which the filter
    took as figures), percent-encoded into an IRI (a name, kept) or cut into pieces, a
    withheld text came out of `query --reader`. The query now asks a copy without it."""
    typed = (
        "CONSTRUCT { ?s <urn:t> ?t . ?s <urn:n> ?n } WHERE { ?s prov:value ?v "
        "BIND (STRDT(?v, xsd:dateTime) AS ?t) BIND (STRDT(?v, xsd:integer) AS ?n) }"
    )
    encoded = (
        'SELECT (IRI(CONCAT("urn:x:", ENCODE_FOR_URI(?v))) AS ?iri) (SUBSTR(?v, 5) AS ?cut) '
        "WHERE { ?s prov:value ?v }"
    )
    for query in (typed, encoded):
        for fmt in ("table", "json", "csv"):
            shown = _run(folder, "query", query, "--reader", "public", "--format", fmt)
            assert "zqnarrowed7731" not in shown and "zqprivate4410" not in shown, (query, fmt)
        assert "zqprivate4410" in _run(folder, "query", query, "--reader", "analyst")


@pytest.mark.parametrize(
    "query",
    [
        "SELECT ?s ?text WHERE { ?s prov:value ?text } ORDER BY ?s ?text",
        "SELECT ?c (COUNT(?o) AS ?n) WHERE { ?o hg:asserts ?c ; prov:value ?t } GROUP BY ?c ORDER BY ?c",
        "SELECT ?q ?t WHERE { ?q a hg:Question ; prov:value ?t . "
        "FILTER EXISTS { ?q hg:requiresClaim/^hg:asserts ?o } } ORDER BY ?q",
        "SELECT ?s ?t WHERE { GRAPH ?g { ?s oa:hasSelector/oa:exact ?t } } ORDER BY ?s ?t",
        "SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER (isLiteral(?o)) } ORDER BY ?s ?p ?o",
        "SELECT ?x ?c WHERE { ?x a ?c } ORDER BY ?x ?c",
    ],
)
def test_a_reader_query_asks_a_copy_of_what_it_can_read_and_answers_as_on_the_whole(
    folder: Path, query: str
) -> None:
    """`query --reader` copies only the quads a query's algebra can read (the whole store
    for a variable predicate): the same answer as on a copy of everything."""
    from hopgate.audit.withholding import for_reader, reader_copy

    with hopgate.open_store(folder / "store", read_only=True) as store:
        withholding = for_reader(store, "public")
        whole = reader_copy(store, withholding).select(query)
        assert hopgate.query(store, query, reader="public") == withholding.rows(whole)
        assert whole and not any(
            "zqnarrowed7731" in str(value) for row in whole for value in row.values()
        )


def test_a_reader_query_shows_no_part_of_a_withheld_span_or_version_an_export_leaves_out(
    tmp_path: Path,
) -> None:
    """A withheld span's prefix and suffix and the x- fields of a withheld span or version
    are left out of an export; `query --reader` showed them."""
    ledger = _ledger()
    span = next(s for s in ledger["spans"] if s["id"] == "m1")
    span.update({"prefix": "Private memo: ", "suffix": " holds", "x-note": "zqspannote9 heron"})
    next(v for v in ledger["versions"] if v["id"] == "memo@1")["x-summary"] = "zqversum3 deal"
    path = write(tmp_path / "x", ledger, "yaml")
    store = str(tmp_path / "store")
    for args in (["load", str(path)], ["evaluate"]):
        result = CliRunner().invoke(cli, ["--store", store, *args], obj={})
        assert result.exit_code == 0, result.output
    every = "SELECT ?p ?o WHERE { ?s ?p ?o FILTER (isLiteral(?o)) }"
    ask = ["--store", store, "query", every, "--format", "json", "--reader"]
    shown = {row["o"] for row in json.loads(CliRunner().invoke(cli, [*ask, "public"]).stdout)}
    for text in ('{"x-note": "zqspannote9 heron"}', '{"x-summary": "zqversum3 deal"}'):
        assert text not in shown
    assert "Private memo: " not in shown and " holds" not in shown
    seen = {row["o"] for row in json.loads(CliRunner().invoke(cli, [*ask, "analyst"]).stdout)}
    assert {"Private memo: ", " holds", '{"x-note": "zqspannote9 heron"}'} <= seen


def test_a_withheld_text_escaped_inside_an_x_field_is_withheld(tmp_path: Path) -> None:
    """An ``x-`` field is kept as one JSON literal, where a quote's ``"`` and line ends are
    escaped: the filter compared the escaped form, and the words left in exports,
    queries and reports."""
    ledger = _ledger()
    quoted = 'wrote "zqquoted5512 heron"\non the file.'
    ledger["versions"][0]["text"] += f" He {quoted}"
    span = {"id": "n2", "version": "reg@1", "quote": quoted, "readers": ["analyst"]}
    ledger["spans"].append(span)
    ledger["cases"][0]["outputs"][0]["x-answer"] = f"The minister {quoted}"
    _withheld_from_public_only(tmp_path, ledger, "SELECT ?x WHERE { ?s hg:extension ?x }")


@pytest.mark.parametrize(
    "address",
    [
        "https://intranet.example/search?q=wrote%20zqquoted5512%20heron",
        "https://intranet.example/search?q=wrote+zqquoted5512+heron",
        "https://intranet.example/search?q=wrote%2520zqquoted5512%2520heron",
        "https://intranet.example/#wrote&#32;zqquoted5512&#x20;heron",
    ],
    ids=["percent", "plus", "percent twice", "html references"],
)
def test_a_withheld_text_encoded_inside_an_address_is_withheld(
    tmp_path: Path, address: str
) -> None:
    """A source's address holding a withheld quote percent-encoded (a search page's
    query) or as HTML character references was shown whole: the filter compared the
    encoded form (found by a user trial, 7 December)."""
    ledger = _ledger()
    quoted = "wrote zqquoted5512 heron"
    ledger["versions"][0]["text"] += f" He {quoted}."
    ledger["spans"].append(
        {"id": "n2", "version": "reg@1", "quote": quoted, "readers": ["analyst"]}
    )
    ledger["sources"][0]["address"] = address
    _withheld_from_public_only(tmp_path, ledger, "SELECT ?a WHERE { ?s hg:address ?a }")


def _withheld_from_public_only(tmp_path: Path, ledger: dict[str, Any], query: str) -> None:
    """``ledger`` loaded and evaluated: the export, ``query`` and the report show the
    public reader no "zqquoted5512"; ``query`` shows it the analyst, who may read it."""
    path = write(tmp_path / "x", ledger, "yaml")
    store = str(tmp_path / "store")
    for args in (["load", str(path)], ["evaluate"]):
        assert CliRunner().invoke(cli, ["--store", store, *args], obj={}).exit_code == 0
    outputs = [
        ["export", "--run", "r"],
        ["query", query, "--reader", "public"],
        ["report", "--run", "r", "--format", "json"],
    ]
    for args in outputs:
        result = CliRunner().invoke(cli, ["--store", store, *args], obj={})
        assert result.exit_code == 0, result.output
        assert "zqquoted5512" not in result.output, args
    seen = ["query", query, "--reader", "analyst"]
    assert "zqquoted5512" in CliRunner().invoke(cli, ["--store", store, *seen], obj={}).output


def test_an_unknown_reader_is_an_error_naming_the_readers(folder: Path) -> None:
    for args in (["verdicts"], ["metrics"], ["review", "queue"], ["query", "ASK {}"]):
        result = CliRunner().invoke(
            cli, ["--store", str(folder / "store"), *args, "--reader", "nobody"], obj={}
        )
        assert result.exit_code == 2, args
        assert "unknown reader 'nobody'" in result.output and "analyst, public" in result.output


def test_the_python_api_filters_as_the_commands_do(folder: Path) -> None:
    with hopgate.open_store(folder / "store") as store:
        rows = hopgate.verdicts(store, run="r")
        assert [j["reason"] for r in rows for j in r.judgments] == [MARKER, MARKER]
        seen = hopgate.verdicts(store, run="r", reader="analyst")
        assert [j["reason"] for r in seen for j in r.judgments] == [f"final: {NARROWED}"] * 2
        found = hopgate.query(store, "SELECT ?t WHERE { ?c a hg:Claim ; prov:value ?t }")
        assert isinstance(found, list) and len(found) == 3  # c3: the later load's
        hidden = hopgate.query(
            store, "SELECT ?t WHERE { ?c a hg:Claim ; prov:value ?t }", reader="public"
        )
        assert isinstance(hidden, list)
        assert sorted(str(row["t"]) for row in hidden) == sorted(
            [MARKER, MARKER, "Birch is in scope."]
        )
