"""The command line, in-process with CliRunner and once end to end as a subprocess."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import hopgate
import hopgate.errors
from hopgate.cli import cli, parse_param
from hopgate.cli.group import FAMILIES, commands
from hopgate.errors import HopgateError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LEDGERS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ledgers"


@pytest.fixture
def run(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Invoke ``hopgate --store <tmp> ARGS`` in-process; return the click result."""
    runner = CliRunner()

    def _run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, ["--store", str(tmp_path / "store"), *args], obj={})

    return _run


def test_load_then_stats(run) -> None:  # type: ignore[no-untyped-def]
    result = run("load", str(EXAMPLES / "cedar.yaml"))
    assert result.exit_code == 0, result.output
    assert "loaded" in result.output and "12 span" in result.output
    again = run("load", str(EXAMPLES / "cedar.yaml"))
    assert again.exit_code == 0 and "already loaded" in again.output
    stats = run("stats", "--format", "json")
    payload = json.loads(stats.output)
    assert payload["records"]["claims"] == 4 and payload["records"]["spans"] == 13
    assert any(g["kind"] == "load" and g["label"] == "cedar.yaml" for g in payload["graphs"])


def test_bad_ledger_exits_2_with_error(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("ledger: 1\nclaims:\n  - {id: c1}\n", encoding="utf-8")
    result = run("load", str(bad))
    assert result.exit_code == 2
    assert result.output.startswith("Error: ") and "claims[0]" in result.output
    assert "'text'" in result.output


def test_query_with_parameters_and_formats(run) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    text = "SELECT ?claim ?text WHERE { ?claim a hg:Claim ; prov:value ?text }"
    result = run("query", text, "--param", "claim=claim:cA", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == [
        {"claim": "cA", "text": "Entity R holds the rights to Project Cedar."}
    ]
    csv_out = run("query", text, "--format", "csv").output.splitlines()
    assert csv_out[0] == "claim,text" and len(csv_out) == 5
    iris = run("query", text, "--param", "claim=claim:cB", "--format", "json", "--iris")
    assert json.loads(iris.output)[0]["claim"] == "https://w3id.org/hopgate/id/claim/cB"


def test_query_parameter_is_bound_not_spliced(run) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    hostile = '"} } SELECT * WHERE { ?s ?p ?o } #'
    result = run(
        "query",
        "SELECT ?claim WHERE { ?claim prov:value ?text }",
        "--param",
        f"text={hostile}",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == []


def test_library_query_by_id_and_file(run) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    # The auditor queries read the latest evaluation: nothing before one (a read never evaluates).
    before = run("query", "claim-status", "--format", "json")
    assert before.exit_code == 0, before.output
    assert json.loads(before.output) == []
    run("evaluate")
    by_id = run("query", "claim-status", "--format", "json")
    assert by_id.exit_code == 0, by_id.output
    assert {row["status"] for row in json.loads(by_id.output)} == {"hg:Answerable"}
    path = str(Path(__file__).resolve().parents[2] / "queries" / "missing-hops.rq")
    by_file = run("query", path, "--param", "run=run:sys-a", "--format", "json")
    assert [row["spanId"] for row in json.loads(by_file.output)] == ["a1", "b1", "d2"]
    unknown = run("query", "no-such-query")
    assert unknown.exit_code == 2 and "known:" in unknown.output


def test_query_parameter_mistakes_are_named(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    run("evaluate")
    # A name the query has no variable for would be ignored: every run's rows.
    misspelt = run("query", "missing-hops", "--param", "rnu=run:sys-a")
    assert misspelt.exit_code == 2
    assert "no variable ?rnu" in misspelt.output and "its parameters: ?run" in misspelt.output
    # A bare id where the header declares an IRI would match nothing.
    bare = run("query", "missing-hops", "--param", "run=sys-a")
    assert bare.exit_code == 2 and "takes an IRI" in bare.output and "run:sys-a" in bare.output
    listed = run(
        "query", "gate", "--param", "bundle=<https://example.org/b>", "--param", "policy=mark"
    )
    assert listed.exit_code == 2 and "one of 'marked', 'all'" in listed.output
    # A well-formed id the store does not hold: the empty answer comes with a note.
    absent = run("query", "missing-hops", "--param", "run=run:sys-z", "--format", "json")
    assert absent.exit_code == 0 and json.loads(absent.stdout) == []
    assert "--param run=run:sys-z: no such IRI in the store" in absent.stderr
    held = run("query", "missing-hops", "--param", "run=run:sys-a", "--format", "json")
    assert held.exit_code == 0 and held.stderr == "" and json.loads(held.stdout)
    # A header that allows more than an IRI is not read as requiring one.
    either = tmp_path / "either.rq"
    either.write_text(
        "# parameters: ?run (IRI or ledger id of a run)\n"
        "SELECT ?r WHERE { ?r a hg:Run ; hg:ledgerId ?run }\n",
        encoding="utf-8",
    )
    assert run("query", str(either), "--param", "run=sys-a").exit_code == 0
    # An ad hoc query without a header: the name must still be one of its variables.
    adhoc = run("query", "SELECT ?c WHERE { ?c a hg:Claim }", "--param", "claim=claim:cA")
    assert adhoc.exit_code == 2 and "its variables: ?c" in adhoc.output


def test_a_query_that_does_not_parse_is_located_in_its_own_text(run) -> None:  # type: ignore[no-untyped-def]
    # The prefixes put before the text made the line 8 for a one-line query.
    run("load", str(EXAMPLES / "cedar.yaml"))
    result = run("query", "SELECT ?s WHERE { ?s a hg:Claim ")
    assert result.exit_code == 2 and "error at 1:33" in result.output


def test_only_a_load_makes_a_store_and_reads_before_an_evaluation_say_so(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    # A mistyped --store made an empty store, where verdicts then printed an empty table.
    for args in (["evaluate"], ["gate", "--run", "sys-a", "--evaluate"], ["baseline"]):
        result = run(*args)
        assert result.exit_code == 2 and "no store at" in result.output, args
        assert not (tmp_path / "store").exists(), args
    run("load", str(EXAMPLES / "cedar.yaml"))
    for args in (
        ["metrics"],
        ["verdicts"],
        ["metrics", "--peers"],
        ["verdicts", "--format", "json"],
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
        assert "no run in the store has an evaluation (runs: sys-a)" in result.stderr, args


def test_ask_and_construct(run) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    assert run("query", "ASK { ?s a hg:Claim }").output.strip() == "true"
    out = run("query", "CONSTRUCT { ?s a hg:Claim } WHERE { ?s a hg:Claim }").output
    assert out.count(" .\n") == 4


def test_syntax_error_exits_2(run) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    result = run("query", "SELECT WHERE {")
    assert result.exit_code == 2 and result.output.startswith("Error: ")


def test_dump_formats(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    target = tmp_path / "out.nq"
    assert run("dump", "--format", "nquads", "-o", str(target)).exit_code == 0
    lines = target.read_text(encoding="utf-8").splitlines()
    # 532, plus 4 rank triples (a prov:Usage with hg:rank) for each of the 8 retrieved spans,
    # less the 4 that recorded the OS user as the load's person (issue 15: only --by names
    # one), plus the catalog's three snapshot digests and the digest of the reader rule's
    # recorded answers, plus the recording number of the ledger's judgment
    # (docs/spec/adjudication.md "Recording"), plus the 7 authority and authority-basis
    # triples of its sources (docs/spec/ledger.md "Sources").
    assert lines == sorted(lines) and len(lines) == 572
    trig = run("dump", "--format", "trig").output
    assert "GRAPH" in trig or "{" in trig
    missing = run("dump", "--graph", "https://example.org/nope")
    assert missing.exit_code == 2


def test_verdicts_metrics_gate(run) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    assert run("evaluate").exit_code == 0
    rows = json.loads(run("verdicts", "--format", "json").output)
    assert [r["verdict"] for r in rows] == [
        "revise-citations",
        "revise-citations",
        "accept",
        "reject",
    ]
    assert rows[0]["missing"] == ["a1"] and rows[0]["claim"] == "cA"
    figures = json.loads(run("metrics", "--format", "json").output)["sys-a"]
    assert figures["citation_set_completeness"]["numerator"] == 1
    assert figures["citation_set_completeness"]["denominator"] == 3
    table = run("metrics").output
    assert "50.0%" in table and "33.3%" in table and "75.0%" in table
    gate = run("gate", "--run", "sys-a")
    assert gate.exit_code == 1 and "sys-a/qA/o1" in gate.output and "a1" in gate.output
    evaluate = run("evaluate", "--run", "sys-a")
    assert evaluate.exit_code == 0 and "up to date" in evaluate.output


def test_a_claim_not_applicable_on_every_output(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """docs/spec/acceptance.md "Not applicable": the flag, the reason (ledger text, escaped
    for each format) and the count, in verdicts, metrics, explain and the report."""
    reason = "=eval-oct covers <b>Cedar</b> & US rights only\nnot Birch"
    run("load", str(EXAMPLES / "cedar.yaml"))
    loaded = run("load", str(LEDGERS / "not-applicable.yaml"))
    assert loaded.exit_code == 0, loaded.output
    assert run("evaluate").exit_code == 0
    rows = {r["output"]: r for r in json.loads(run("verdicts", "--format", "json").output)}
    na = rows["sys-a/qE/o1"]
    assert (na["verdict"], na["answerability"], na["not_applicable"]) == (
        "abstain",
        "not applicable",
        True,
    )
    assert na["not_applicable_reason"] == reason
    assert not rows["sys-a/qE/o2"]["not_applicable"] and rows["sys-a/qE/o2"]["verdict"] == "accept"
    csv_line = next(
        line for line in run("verdicts", "--format", "csv").output.splitlines() if "qE/o1" in line
    )
    # A formula start is neutralised and the line end escaped (hopgate.escaping).
    assert csv_line.endswith(",true,'=eval-oct covers <b>Cedar</b> & US rights only\\nnot Birch")
    counts = json.loads(run("metrics", "--format", "json").output)["sys-a"]["counts"]
    assert (counts["not_applicable"], counts["unsupported"]) == (1, 2)
    assert "not_applicable 1" in run("metrics").output
    explained = run("explain", "--", "sys-a/qE/o1").output
    assert "Claim cE is not applicable for this evaluation" in explained
    assert "US rights only\\nnot Birch" in explained  # no raw line end reaches the terminal
    html = tmp_path / "report.html"
    assert run("report", "--run", "sys-a", "--format", "html", "-o", str(html)).exit_code == 0
    page = html.read_text("utf-8")
    assert "(the ledger's reason: =eval-oct covers &lt;b&gt;Cedar&lt;/b&gt; &amp; US" in page
    assert "<b>Cedar" not in page
    markdown = tmp_path / "report.md"
    assert run("report", "--run", "sys-a", "--format", "md", "-o", str(markdown)).exit_code == 0
    assert "not-applicable claim-cases | 1 |" in markdown.read_text("utf-8")
    assert "(the ledger's reason: =eval-oct covers \\<b>Cedar" in markdown.read_text("utf-8")


def test_a_gate_that_weighs_nothing_is_not_a_pass(run) -> None:  # type: ignore[no-untyped-def]
    # withheld.yaml marks no claim consequential: the default policy weighs nothing.
    run("load", str(EXAMPLES / "withheld.yaml"))
    result = run("gate", "--run", "run-public", "--evaluate")
    assert result.exit_code == 1, result.output
    assert "NOTHING GATED (not a pass)" in result.output and "--consequential all" in result.output
    assert "passed" not in result.output
    # Weighing every output claim, the run's one accepted output passes it.
    result = run("gate", "--run", "run-public", "--consequential", "all")
    assert result.exit_code == 0, result.output
    assert "gate passed: all 1 output claim(s) accepted" in result.output


def test_gate_names_the_known_runs(run) -> None:  # type: ignore[no-untyped-def]
    run("load", str(EXAMPLES / "cedar.yaml"))
    result = run("gate", "--run", "sys-b")
    assert result.exit_code == 2
    assert "unknown run 'sys-b' (did you mean 'sys-a'?) (runs in the store: sys-a)" in result.output


def test_parse_param() -> None:
    assert parse_param("run=run:sys-a") == (
        "run",
        hopgate.IRI("https://w3id.org/hopgate/id/run/sys-a"),
    )
    assert parse_param("n=3") == ("n", 3)
    assert parse_param("flag=true") == ("flag", True)
    assert parse_param('s="3"') == ("s", "3")
    assert parse_param("x=<https://example.org/a>") == ("x", hopgate.IRI("https://example.org/a"))
    assert parse_param("t=hello: world") == ("t", "hello: world")


@pytest.mark.metadata
def test_every_command_has_an_example() -> None:
    for name, command in commands().items():
        assert command.help and "Example:" in command.help, name


def test_each_command_is_found_in_its_family() -> None:
    """The group imports a command's family when it is asked for (FAMILIES): the map
    names every command of every family, and a read command imports only its own family,
    and none of what it never runs (SHACL and rdflib, signing, PROV, the loader)."""
    families = {}
    for module in sorted({*FAMILIES.values()}):
        for command in importlib.import_module(f"hopgate.cli.{module}").COMMANDS:
            families[command.name] = module
    assert families == FAMILIES
    code = (
        "import json, sys; from hopgate.cli import cli; import click; "
        "cli.get_command(click.Context(cli), 'gate'); "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('hopgate', 'rdflib', 'prov')))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)
    assert "hopgate.cli.evaluation" in loaded
    assert not any(
        m.startswith(("hopgate.cli.validation", "hopgate.cli.export", "rdflib", "prov"))
        or m in ("hopgate.shacl", "hopgate.bundles.signing", "hopgate.ingest.loader")
        for m in loaded
    ), loaded


@pytest.mark.metadata
def test_public_api() -> None:
    errors = set(hopgate.errors.__all__)
    assert sorted(set(hopgate.__all__) - errors) == sorted(
        [
            "IRI",
            "LedgerBuilder",
            "LoadResult",
            "OxigraphStore",
            "Store",
            "__version__",
            "open_store",
            "record",
            "validate_graph",
            # hopgate.api: the twin of each command (tests/test_api.py) and its results.
            "GateResult",
            "RunMetrics",
            "ValidationResult",
            "VerdictRow",
            "VerifyReport",
            "baseline",
            "build_report",
            "diff",
            "doctor",
            "dump",
            "evaluate",
            "explain",
            "export",
            "gate",
            "import_files",
            "judge",
            "load",
            "metrics",
            "new_key",
            "open_endpoint",
            "plan_interventions",
            "query",
            "render_report",
            "review_agreement",
            "review_changes",
            "review_judgments",
            "review_queue",
            "run_interventions",
            "sign",
            "stats",
            "triage",
            "validate",
            "verdicts",
            "verify",
        ]
    )
    assert errors <= set(hopgate.__all__)


@pytest.mark.metadata
def test_every_error_is_a_hopgate_error_in_errors() -> None:
    """One home for the errors: each class hopgate raises on purpose lives in hopgate.errors."""
    for info in pkgutil.walk_packages(hopgate.__path__, "hopgate."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if not (inspect.isclass(value) and issubclass(value, HopgateError)):
                continue
            assert value.__module__ == "hopgate.errors", f"{info.name}.{name}"
    for name in hopgate.errors.__all__:
        assert issubclass(getattr(hopgate.errors, name), hopgate.HopgateError), name
        assert getattr(hopgate.errors, name).__doc__, name


def test_end_to_end_subprocess(tmp_path: Path) -> None:
    """The installed console script, as a user runs it: demo, then load into a named store."""
    env = dict(os.environ, HOPGATE_STORE=str(tmp_path / "store"))
    command = [sys.executable, "-m", "hopgate.cli"]
    demo = subprocess.run(
        [*command, "demo", "--dir", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert demo.returncode == 0, demo.stderr
    assert "complete set recall: 2/4 = 50.0%" in demo.stdout
    assert "citation set completeness: 1/3 = 33.3%" in demo.stdout
    assert "answer correctness: 3/4 = 75.0%" in demo.stdout
    load = subprocess.run(
        [*command, "load", str(EXAMPLES / "cedar.yaml")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert load.returncode == 0, load.stderr
    assert (tmp_path / "store").is_dir()
