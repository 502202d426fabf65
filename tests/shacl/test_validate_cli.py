"""``hopgate validate``: exit codes, formats, --strict, --graph, --run, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import rdflib
from click.testing import CliRunner
from rdflib.namespace import SH

from hopgate import open_store
from hopgate.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "cedar.yaml"

#: Make one version withheld (no text) without digest: a Warning only.
WITHHELD_NO_DIGEST = (
    "DELETE { GRAPH ?g { ?v hg:textWithheld false ; hg:digest ?d ; prov:value ?text } } "
    "INSERT { GRAPH ?g { ?v hg:textWithheld true } } "
    "WHERE { GRAPH ?g { ?v hg:ledgerId 'registry@2' ; hg:textWithheld false ; hg:digest ?d ; "
    "prov:value ?text } }"
)
#: Remove the verdict of every card: Violations.
NO_VERDICTS = (
    "DELETE { GRAPH ?g { ?card hg:verdict ?v } } "
    "WHERE { GRAPH ?g { ?card a hg:AcceptanceCard ; hg:verdict ?v } }"
)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store directory holding the worked example, loaded and evaluated."""
    path = tmp_path_factory.mktemp("validate") / "store"
    runner = CliRunner()
    for args in (["load", str(EXAMPLE)], ["evaluate"]):
        result = runner.invoke(cli, ["--store", str(path), *args], obj={})
        assert result.exit_code == 0, result.output
    return path


def _copy_with(evaluated: Path, tmp_path: Path, update: str | None) -> Path:
    target = tmp_path / "store"
    with open_store(evaluated) as source, open_store(target) as copy:
        data = tmp_path / "dump.nq"
        with data.open("wb") as handle:
            source.dump(handle, format="nquads")
        copy.add_nquads(data)
        if update is not None:
            copy.update(update)
    return target


def _run(store: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--store", str(store), "validate", *args], obj={})
    # A report goes to stdout and progress lines to stderr; an error goes to stderr.
    return result.exit_code, result.stdout if result.exit_code in (0, 1) else result.stderr


def test_conforms_exit_0(evaluated: Path) -> None:
    """The worked example conforms: exit 0 and a summary line."""
    code, output = _run(evaluated)
    assert code == 0, output
    assert "conforms: 0 violation(s), 0 warning(s)" in output


def test_violations_exit_1_grouped_by_focus(evaluated: Path, tmp_path: Path) -> None:
    """Violations exit 1; the text report groups results under each card's ledger id."""
    store = _copy_with(evaluated, tmp_path, NO_VERDICTS)
    code, output = _run(store)
    assert code == 1, output
    headers = [line for line in output.splitlines() if line.startswith("sys-a/")]
    assert len(headers) == 4  # the four cards, each once
    assert output.count("Violation: card verdict: ") == 4
    assert "4 violation(s)" in output


def test_warning_passes_unless_strict(evaluated: Path, tmp_path: Path) -> None:
    """A Warning alone exits 0; --strict makes it exit 1."""
    store = _copy_with(evaluated, tmp_path, WITHHELD_NO_DIGEST)
    code, output = _run(store)
    assert code == 0, output
    assert "Warning: withheld version digest" in output
    assert "registry@2 <" in output
    code, output = _run(store, "--strict")
    assert code == 1, output
    assert "(strict)" in output


def test_json_and_turtle(evaluated: Path, tmp_path: Path) -> None:
    """--format json lists focus nodes with ids; --format turtle is a sh:ValidationReport."""
    store = _copy_with(evaluated, tmp_path, WITHHELD_NO_DIGEST)
    code, output = _run(store, "--format", "json", "--strict")
    assert code == 1
    payload = json.loads(output)
    assert payload["conforms"] is False and payload["warnings"] == 1
    [focus] = payload["focus_nodes"]
    assert focus["id"] == "registry@2"
    assert focus["results"][0]["severity"] == "Warning"
    code, output = _run(store, "--format", "turtle")
    assert code == 0
    report = rdflib.Graph().parse(data=output, format="turtle")
    [node] = report.subjects(SH.conforms, None)
    assert len(list(report.objects(node, SH.result))) == 1


def test_graph_and_run(evaluated: Path) -> None:
    """--graph validates one named graph, --run one run's evaluation; unknown ones exit 2."""
    with open_store(evaluated) as store:
        bundle = next(g for g in store.graphs() if g.endswith("/bundle"))
        load = next(g for g in store.graphs() if "/load/" in g)
    assert _run(evaluated, "--graph", load)[0] == 0
    # A bundle alone does not hold what its cards point to: --run adds the loads it used.
    assert _run(evaluated, "--graph", bundle)[0] == 1
    assert _run(evaluated, "--run", "sys-a")[0] == 0
    code, output = _run(evaluated, "--graph", "https://example.org/none")
    assert code == 2 and "Error: no named graph" in output
    code, output = _run(evaluated, "--run", "nope")
    assert code == 2 and "has no evaluation" in output
    code, output = _run(evaluated, "--run", "sys-a", "--graph", bundle)
    assert code == 2 and "not both" in output


def test_extra_shapes(evaluated: Path, tmp_path: Path) -> None:
    """--shapes adds shapes; a missing or broken file is an error (exit 2)."""
    extra = tmp_path / "extra.ttl"
    extra.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "@prefix hg: <https://w3id.org/hopgate/ns#> .\n"
        "<https://example.org/shapes#ClaimTime> a sh:NodeShape ; sh:targetClass hg:Claim ;\n"
        "  sh:property [ sh:path hg:appliesAt ; sh:minCount 1 ;\n"
        '    sh:name "claim time" ; sh:message "every claim needs hg:appliesAt" ] .\n',
        encoding="utf-8",
    )
    code, output = _run(evaluated, "--shapes", str(extra))
    assert code == 1
    assert output.count("Violation: claim time: every claim needs hg:appliesAt") == 2
    code, output = _run(evaluated, "--shapes", str(tmp_path / "missing.ttl"))
    assert code == 2 and "no such shapes file" in output
    broken = tmp_path / "broken.ttl"
    broken.write_text("this is not turtle", encoding="utf-8")
    code, output = _run(evaluated, "--shapes", str(broken))
    assert code == 2 and "not valid Turtle" in output
    # Ill-formed (SHACL 1.0 2.1.3: a class target is an IRI): refused, the file named.
    literal = tmp_path / "literal.ttl"
    literal.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        '<https://example.org/shapes#S> a sh:NodeShape ; sh:targetClass "Claim" ;\n'
        "  sh:nodeKind sh:IRI .\n",
        encoding="utf-8",
    )
    code, output = _run(evaluated, "--shapes", str(literal))
    assert code == 2
    assert f'{literal}: ill-formed shapes: sh:targetClass "Claim" of' in output


def test_end_to_end_subprocess(evaluated: Path, tmp_path: Path) -> None:
    """The real console entry point, once, as a subprocess."""
    store = _copy_with(evaluated, tmp_path, NO_VERDICTS)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from hopgate.cli import main; main()",
            "--store",
            str(store),
            "validate",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["violations"] == 4


#: A consequential claim c with one adjudicated set {a}, and a run whose output o asserts
#: c, retrieving and citing b (the ledgers below say what a and b are).
_CLAIM_AND_RUN = """\
claims: [{id: c, text: C, consequential: true}]
questions: [{id: q, text: Q, claims: [c]}]
evidence_sets:
  - {id: g, claim: c, members: [a], inference: i, status: adjudicated,
     annotation: {version: 1, by: x, at: 2026-02-01}}
runs: [{id: run, evaluation: e, system: s}]
cases: [{run: run, question: q, retrieved: [b], outputs: [{id: o, claim: c, correct: true, cites: [b]}]}]
"""


#: A consequential claim whose only set's member is a locator span of a version that
#: withholds its text and declares no digest; the output cites another span of that
#: version with the same locator (docs/spec/acceptance.md "Coverage", ledger.md
#: "Withheld text"): the card accepts, the gate passes.
LOCATOR_LEDGER = (
    """\
ledger: 1
evaluations: [{id: e, reader: r, observation_cutoff: 2026-06-01}]
readers: [{id: r}]
sources: [{id: s, address: "https://e/s"}]
versions: [{id: v, source: s, observed_at: 2026-01-01}]
spans:
  - {id: a, version: v, locator: "line 3"}
  - {id: b, version: v, locator: "line 3"}
"""
    + _CLAIM_AND_RUN
)


@pytest.mark.parametrize("engine", ["store", "pyshacl"])
def test_the_shapes_accept_what_the_gate_accepts_by_locator_without_a_digest(
    tmp_path: Path, engine: str
) -> None:
    """The card shapes covered a member only by offsets and required a digest of every
    cited version: an accepted card citing by locator a withheld version without one (every
    evaluated FEVER import) was a Violation that the evaluation and the gate do not see
    (found by a user trial)."""
    ledger = tmp_path / "locator.yaml"
    ledger.write_text(LOCATOR_LEDGER, encoding="utf-8")
    store = tmp_path / "store"
    runner = CliRunner()
    for args in (["load", str(ledger)], ["evaluate"], ["gate", "--run", "run"]):
        result = runner.invoke(cli, ["--store", str(store), *args], obj={})
        assert result.exit_code == 0, result.output
    code, output = _run(store, "--engine", engine)
    assert code == 0, output
    # The missing digest is the documented warning, on the version.
    assert "withheld version digest" in output
    assert _run(store, "--engine", engine, "--strict")[0] == 1


#: Span b contains member a of the consequential claim's set, by offsets in retained text.
RETAINED_LEDGER = (
    """\
ledger: 1
evaluations: [{id: e, reader: r, observation_cutoff: 2026-06-01}]
readers: [{id: r}]
sources: [{id: s, address: "https://e/s"}]
versions: [{id: v, source: s, observed_at: 2026-01-01, text: "Alpha beta. Gamma delta."}]
spans:
  - {id: a, version: v, start: 0, end: 5}
  - {id: b, version: v, start: 0, end: 11}
"""
    + _CLAIM_AND_RUN
)
#: The cited span moved off the member, and both given one locator: offsets spans of a
#: version that retains its text, which no locator rule covers.
FORGED_LOCATORS = (
    "DELETE { GRAPH ?g { ?p oa:start 0 ; oa:end 11 . ?q oa:exact 'Alpha beta.' } } "
    "INSERT { GRAPH ?g { ?p oa:start 12 ; oa:end 24 . ?q oa:exact 'Gamma delta.' } } "
    "WHERE { GRAPH ?g { ?b hg:ledgerId 'b' ; oa:hasSelector ?p , ?q . ?p oa:start 0 . "
    "?q oa:exact 'Alpha beta.' } } ; "
    "INSERT { GRAPH ?g { ?span oa:hasSelector ?loc . ?loc a hg:LocatorSelector ; "
    "rdf:value 'line 3' } } WHERE { GRAPH ?g { ?span a hg:Span ; hg:ledgerId ?id } "
    "BIND (IRI(CONCAT(STR(?span), '/locator')) AS ?loc) }"
)
#: The version flagged withheld and its digest removed; its text stays.
FORGED_WITHHELD = (
    "DELETE { GRAPH ?g { ?v hg:textWithheld false ; hg:digest ?d } } "
    "INSERT { GRAPH ?g { ?v hg:textWithheld true } } "
    "WHERE { GRAPH ?g { ?v a hg:Version ; hg:textWithheld false ; hg:digest ?d } }"
)


@pytest.mark.parametrize("engine", ["store", "pyshacl"])
@pytest.mark.parametrize(
    ("forgery", "shape"),
    [
        (FORGED_LOCATORS, "consequential accept needs a cited set"),
        (FORGED_WITHHELD, "card source versions"),
    ],
    ids=["locators-on-retained-text", "withheld-flag-on-retained-text"],
)
def test_the_relaxed_card_shapes_still_catch_a_forged_store(
    tmp_path: Path, engine: str, forgery: str, shape: str
) -> None:
    """The locator and withheld-version cases of the card shapes (aee1a3f) let a forged
    store conform: any rdf:value counted as a locator, and a version flagged withheld that
    still held its text needed no digest (review, 7 December)."""
    ledger = tmp_path / "retained.yaml"
    ledger.write_text(RETAINED_LEDGER, encoding="utf-8")
    store = tmp_path / "store"
    for args in (["load", str(ledger)], ["evaluate"]):
        assert CliRunner().invoke(cli, ["--store", str(store), *args], obj={}).exit_code == 0
    assert _run(store, "--engine", engine)[0] == 0
    forged = _copy_with(store, tmp_path / "forged", forgery)
    code, output = _run(forged, "--engine", engine)
    assert code == 1 and shape in output, output
