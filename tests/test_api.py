"""The Python API is the CLI's twin: a function per command, doctested, giving the CLI's answers."""

from __future__ import annotations

import doctest
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

import hopgate
import hopgate.api
from hopgate.cli import cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

#: Each command (space-separated for a group's command) -> its function in ``hopgate``.
TWINS = {
    "load": "load",
    "evaluate": "evaluate",
    "verdicts": "verdicts",
    "metrics": "metrics",
    "gate": "gate",
    "validate": "validate",
    "export": "export",
    "verify": "verify",
    "query": "query",
    "stats": "stats",
    "dump": "dump",
    "doctor": "doctor",
    "explain": "explain",
    "diff": "diff",
    "report": "build_report",
    "review queue": "review_queue",
    "review changes": "review_changes",
    "review judgments": "review_judgments",
    "review agreement": "review_agreement",
    "triage": "triage",
    "judge": "judge",
    "baseline": "baseline",
    "sign": "sign",
    "keys new": "new_key",
    "import": "import_files",
    "interventions plan": "plan_interventions",
    "interventions run": "run_interventions",
    "shacl": "validate_graph",
    # Its figures are RunMetrics.interventions, per variant.
    "interventions metrics": "metrics",
}

#: Commands with no function in ``hopgate``, each with the reason.
CLI_ONLY = {
    # A guided tour that copies the example, loads it and prints; its steps are
    # load, evaluate, verdicts, metrics and export.
    "demo": "a printed walk through the worked example",
}

#: Commands not yet twinned (none today; a new command is listed here until it has one).
NOT_YET_TWINNED: dict[str, str] = {}


def _commands(group: click.Group, prefix: str = "") -> Iterator[str]:
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if isinstance(command, click.Group):
            yield from _commands(command, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}"


def _twin(name: str) -> Callable[..., Any]:
    function = getattr(hopgate, TWINS[name])
    assert callable(function), name
    return function  # type: ignore[no-any-return]


@pytest.mark.metadata
def test_every_command_has_a_twin_or_is_listed() -> None:
    commands = set(_commands(cli))
    listed = set(TWINS) | set(CLI_ONLY) | set(NOT_YET_TWINNED)
    assert commands - listed == set(), "commands with no API function and not listed"
    assert listed - commands == set(), "listed commands the CLI no longer has"
    assert not set(TWINS) & (set(CLI_ONLY) | set(NOT_YET_TWINNED))
    for name in TWINS:
        assert TWINS[name] in hopgate.__all__, name
        _twin(name)


@pytest.mark.metadata
def test_twins_take_options_by_keyword() -> None:
    """Everything after the store (and a command's arguments) is keyword-only."""
    import inspect

    arguments = {"load": 2, "explain": 2, "judge": 2, "dump": 2, "query": 2, "shacl": 2,
                 "import": 2}  # fmt: skip
    for name in TWINS:
        parameters = list(inspect.signature(_twin(name)).parameters.values())
        positional = [p for p in parameters if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert len(positional) <= arguments.get(name, 1), (name, positional)


@pytest.mark.metadata
def test_every_twin_has_a_doctest() -> None:
    """Each twin shows its use; tests/test_doctests.py runs every example of the package."""
    finder = doctest.DocTestFinder()
    for name in sorted(set(TWINS.values())):
        found = finder.find(getattr(hopgate, name), f"hopgate.{name}", globs={})
        assert any(test.examples for test in found), f"hopgate.{name} has no doctest"


@pytest.fixture
def cli_run(tmp_path: Path) -> Callable[..., Any]:
    runner = CliRunner()

    def _run(*args: str) -> Any:
        return runner.invoke(cli, ["--quiet", "--store", str(tmp_path / "store"), *args], obj={})

    return _run


def _loaded(tmp_path: Path, ledger: str, run: str) -> Path:
    path = tmp_path / "store"
    with hopgate.open_store(path) as store:
        hopgate.load(store, EXAMPLES / ledger)
        hopgate.evaluate(store, run=run)
    return path


def test_verdicts_and_metrics_equal_the_cli_json(tmp_path: Path, cli_run: Any) -> None:
    path = _loaded(tmp_path, "cedar.yaml", "sys-a")
    with hopgate.open_store(path) as store:
        rows = [row.as_dict() for row in hopgate.verdicts(store, run="sys-a")]
        figures = {run: m.as_dict() for run, m in hopgate.metrics(store).items()}
        checked = hopgate.validate(store, run="sys-a")
    shown = cli_run("verdicts", "--run", "sys-a", "--format", "json")
    assert shown.exit_code == 0 and json.loads(shown.output) == rows
    assert [row["verdict"] for row in rows] == ["revise-citations", "revise-citations",
                                                "accept", "reject"]  # fmt: skip
    shown = cli_run("metrics", "--format", "json")
    assert shown.exit_code == 0 and json.loads(shown.output) == json.loads(json.dumps(figures))
    shown = cli_run("validate", "--run", "sys-a", "--format", "json")
    assert json.loads(shown.output)["conforms"] is checked.conforms
    assert shown.exit_code == (0 if checked.conforms else 1)


@pytest.mark.parametrize(
    ("ledger", "run", "policy", "passed"),
    [
        ("cedar.yaml", "sys-a", "marked", False),
        # withheld.yaml marks no claim consequential: the default policy gates nothing,
        # which is never a pass; weighing every output, its one accepted output passes.
        ("withheld.yaml", "run-public", "marked", False),
        ("withheld.yaml", "run-public", "all", True),
    ],
)
def test_gate_passed_is_the_cli_exit_code(
    tmp_path: Path, cli_run: Any, ledger: str, run: str, policy: str, passed: bool
) -> None:
    path = _loaded(tmp_path, ledger, run)
    with hopgate.open_store(path) as store:
        result = hopgate.gate(store, run=run, consequential=policy)
    shown = cli_run("gate", "--run", run, "--consequential", policy)
    assert result.passed is passed
    assert shown.exit_code == (0 if result.passed else 1)
    for output, reason in result.reasons.items():
        assert f"  {output} (claim " in shown.output and reason in shown.output
    assert set(result.reasons) == {row.output for row in result.failing}


def test_gate_on_a_run_never_evaluated_fails_as_the_cli_does(tmp_path: Path, cli_run: Any) -> None:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, EXAMPLES / "cedar.yaml")
        result = hopgate.gate(store, run="sys-a")
        assert not result.passed and result.stale and result.reason
        with pytest.raises(hopgate.HopgateError, match="unknown run"):
            hopgate.gate(store, run="nobody")
    shown = cli_run("gate", "--run", "sys-a")
    assert shown.exit_code == 1 and str(result.reason) in shown.output
    assert cli_run("gate", "--run", "nobody").exit_code == 2


def test_query_takes_text_a_file_or_a_library_id(tmp_path: Path) -> None:
    with hopgate.open_store(None) as store:
        hopgate.load(store, EXAMPLES / "cedar.yaml")
        text = "SELECT ?id WHERE { ?q a hg:Question ; hg:ledgerId ?id } ORDER BY ?id"
        (tmp_path / "q.rq").write_text(text, encoding="utf-8")
        expected = [{"id": q} for q in ("qA", "qB", "qC", "qD")]
        assert hopgate.query(store, text) == expected
        assert hopgate.query(store, path=tmp_path / "q.rq") == expected
        assert isinstance(hopgate.query(store, name="claim-status"), list)
        with pytest.raises(hopgate.QueryError, match="exactly one"):
            hopgate.query(store, text, name="claim-status")
        with pytest.raises(hopgate.QueryError, match="not a library query"):
            hopgate.query(store, name="no-such-query")
        with pytest.raises(hopgate.StoreError, match="cannot read"):
            hopgate.query(store, path=tmp_path / "absent.rq")


@pytest.mark.metadata
def test_docs_api_has_a_section_and_a_row_per_twin() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text("utf-8")
    headings = {
        name.strip() for line in text.splitlines() if line.startswith("## ")
        for name in line[3:].split(",")
    }  # fmt: skip
    for command, name in TWINS.items():
        assert f"| `hopgate {command}" in text, f"docs/api.md: no row for hopgate {command}"
        if command != "interventions metrics":  # a part of metrics
            assert name in headings, f"docs/api.md: no section for {name}"
    for command in [*CLI_ONLY, *NOT_YET_TWINNED]:
        assert f"`hopgate {command}`" in text, f"docs/api.md does not mention hopgate {command}"


def test_export_and_stats_equal_the_cli(tmp_path: Path, cli_run: Any) -> None:
    path = _loaded(tmp_path, "cedar.yaml", "sys-a")
    with hopgate.open_store(path) as store:
        exported = hopgate.export(store, run="sys-a", format="provn")
        counted = hopgate.stats(store)
    shown = cli_run("export", "--run", "sys-a", "--format", "provn")
    assert shown.exit_code == 0 and shown.stdout_bytes == exported.data
    shown = cli_run("stats", "--format", "json")
    assert json.loads(shown.output)["records"] == counted.records


#: Commands whose body calls a second function of hopgate.api, each with the reason.
SECOND_CALL = {
    "import": {"load"},  # --load: `hopgate load OUTPUT` after the import
    "interventions run": {"load"},  # --load: `hopgate load OUTPUT` after the run
    "report": {"render_report"},  # the report's text in the chosen format
    "query": {"absent_parameters"},  # an empty answer: the IRI parameters the store lacks
}


def _api_calls(command: click.Command) -> list[str]:
    """The functions of ``hopgate.api`` a command's own body calls (``api.NAME(...)``)."""
    import ast
    import inspect
    import textwrap

    assert command.callback is not None
    source = textwrap.dedent(inspect.getsource(inspect.unwrap(command.callback)))
    return [
        node.func.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "api"
    ]


def test_each_command_calls_its_twin_once() -> None:
    """Each command parses, calls its function in hopgate.api once, and prints (docs/api.md)."""
    groups = {"keys", "review", "interventions"}
    for name in sorted(set(_commands(cli)) - set(CLI_ONLY)):
        command: Any = cli
        for part in name.split():
            command = command.get_command(click.Context(command), part)
        calls = _api_calls(command)
        expected = {TWINS[name]} | SECOND_CALL.get(name, set())
        assert sorted(set(calls)) == sorted(expected), (name, calls)
        assert calls.count(TWINS[name]) == 1, (name, calls)
    for name in groups:
        assert _api_calls(cli.get_command(click.Context(cli), name)) == [], name


def test_open_endpoint_is_the_store_the_cli_opens(monkeypatch: pytest.MonkeyPatch) -> None:
    from hopgate.cli.shared import open_remote, remote_settings

    monkeypatch.setenv("HOPGATE_TEST_PASSWORD", "secret")
    settings = remote_settings(
        endpoint="http://localhost:8890/sparql",
        update_endpoint=None,
        graph_store="http://localhost:8890/sparql-graph-crud-auth",
        user="dba",
        password_env="HOPGATE_TEST_PASSWORD",
        auth="basic",
        evaluate_on_server=False,
    )
    assert settings is not None
    opened = open_remote(settings)
    made = hopgate.open_endpoint(
        "http://localhost:8890/sparql",
        graph_store="http://localhost:8890/sparql-graph-crud-auth",
        user="dba",
        password="secret",
        auth="basic",
        evaluate_on_server=False,
    )
    assert isinstance(opened, hopgate.Store) and type(opened) is type(made)
    settled = {name: value for name, value in vars(made).items() if not name.startswith("_")}
    assert {name: vars(opened)[name] for name in settled} == settled
    assert settled["graph_store"] and settled["user"] == "dba" and settled["auth"] == "basic"
    with pytest.raises(hopgate.StoreError, match="unknown authentication"):
        hopgate.open_endpoint("http://localhost:8890/sparql", auth="oauth")  # type: ignore[arg-type]


def test_the_request_timeout_reaches_the_remote_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """--request-timeout (env HOPGATE_REQUEST_TIMEOUT) is the remote store's wait for one
    answer: a rule step of an evaluation on the server at 1M claims runs past the default
    600 s."""
    from hopgate.cli.shared import open_remote, remote_settings

    base = {
        "endpoint": "http://localhost:8890/sparql",
        "update_endpoint": None,
        "graph_store": None,
        "user": None,
        "password_env": None,
        "auth": "digest",
    }
    default = remote_settings(**base)
    assert default is not None and open_remote(default).timeout == 600  # type: ignore[attr-defined]
    longer = remote_settings(**base, request_timeout=7200)
    assert longer is not None and open_remote(longer).timeout == 7200  # type: ignore[attr-defined]
    runner = CliRunner()
    for value in ("0", "-5", "nan", "inf"):
        done = runner.invoke(
            cli, ["--endpoint", base["endpoint"], "--request-timeout", value, "verdicts"]
        )
        assert done.exit_code == 2 and "--request-timeout: expected a number" in done.output, value
    done = runner.invoke(cli, ["--request-timeout", "60", "verdicts"])
    assert done.exit_code == 2 and "--request-timeout needs --endpoint" in done.output


def test_diff_takes_the_only_run_as_the_cli_does(tmp_path: Path, cli_run: Any) -> None:
    path = _loaded(tmp_path, "cedar.yaml", "sys-a")
    with hopgate.open_store(path) as store:
        hopgate.evaluate(store, run="sys-a", force=True)
        found = hopgate.diff(store)
        assert found.run == "sys-a" and found == hopgate.diff(store, run="sys-a")
        named = hopgate.diff(store, before=found.after, after=found.before)
        assert named.run == "sys-a" and named.before == found.after
    # `hopgate diff` without --run opens the store once (it once failed: "in use by another process").
    shown = cli_run("diff", "--format", "json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output) == json.loads(
        json.dumps(found.as_dict(), ensure_ascii=False, default=str)
    )
    with hopgate.open_store(path) as store:
        hopgate.load(store, EXAMPLES / "withheld.yaml")
        with pytest.raises(hopgate.ReportError, match="choose a run with --run"):
            hopgate.diff(store)
    shown = cli_run("diff")
    assert shown.exit_code == 2 and "Error: choose a run with --run (runs in the store: " in (
        shown.output
    )


def test_dump_to_a_path_writes_what_the_cli_writes(tmp_path: Path, cli_run: Any) -> None:
    path = _loaded(tmp_path, "cedar.yaml", "sys-a")
    with hopgate.open_store(path) as store:
        hopgate.dump(store, path=tmp_path / "api.nq", format="nquads")
        with pytest.raises(hopgate.StoreError, match="no named graph"):
            hopgate.dump(store, path=tmp_path / "never.nq", graph="https://example.org/none")
        with pytest.raises(hopgate.StoreError, match="exactly one of out or path"):
            hopgate.dump(store)
        with pytest.raises(hopgate.StoreError, match="cannot write"):
            hopgate.dump(store, path=tmp_path / "no" / "folder.nq")
    # A graph the store does not hold is refused before the file is made.
    assert not (tmp_path / "never.nq").exists()
    assert cli_run("dump", "--format", "nquads", "-o", str(tmp_path / "cli.nq")).exit_code == 0
    assert (tmp_path / "api.nq").read_bytes() == (tmp_path / "cli.nq").read_bytes()


def test_export_written_and_signed_as_the_cli_does(tmp_path: Path, cli_run: Any) -> None:
    path = _loaded(tmp_path, "cedar.yaml", "sys-a")
    key = hopgate.new_key(tmp_path / "ann.key")
    assert (key.private_file, key.public_file) == (tmp_path / "ann.key", tmp_path / "ann.key.pub")
    with hopgate.open_store(path) as store:
        written = hopgate.export(
            store, run="sys-a", format="provn", output=tmp_path / "api", key=key.private_file,
            by="Ann Lee",
        )  # fmt: skip
        assert written.path == tmp_path / "api" / "export.provn" and written.signer == "Ann Lee"
        dot = hopgate.export(store, card="sys-a/qA/o1", format="dot")
        assert dot.data.startswith(b"digraph") and dot.path is None
        with pytest.raises(hopgate.ExportError, match="give --card ID"):
            hopgate.export(store, format="dot")
        with pytest.raises(hopgate.ExportError, match="written to output"):
            hopgate.export(store, run="sys-a", key=key.private_file, by="Ann Lee")
    assert hopgate.verify(tmp_path / "api", trust=[str(key.public_file)]).ok
    shown = cli_run(
        "export", "--run", "sys-a", "--format", "provn", "-o", str(tmp_path / "cli"),
        "--sign", str(key.private_file), "--by", "Ann Lee",
    )  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert f"{written.path.name}: signed by Ann Lee" in shown.stderr
    api_bytes = written.path.read_bytes()
    assert (tmp_path / "cli" / "export.provn").read_bytes() == api_bytes
    assert cli_run("export", "--card", "sys-a/qA/o1", "--format", "dot").stdout_bytes == dot.data


def test_metrics_with_baseline_and_peers_equal_the_cli_json(tmp_path: Path, cli_run: Any) -> None:
    path = _loaded(tmp_path, "cedar.yaml", "sys-a")
    with hopgate.open_store(path) as store:
        made = hopgate.baseline(store, k=3)
        hopgate.evaluate(store)
        plain = hopgate.metrics(store)
        figures = hopgate.metrics(store, peers=True)
    assert plain[made.run].baseline is not None and plain["sys-a"].baseline is None
    assert "citer=top1" in plain[made.run].baseline["summary"]  # type: ignore[index]
    assert "peers" not in plain["sys-a"].as_dict() and "baseline" not in plain["sys-a"].as_dict()
    assert figures["sys-a"].peers and all(p.name for p in figures["sys-a"].peers)
    for peers, found in (([], plain), (["--peers"], figures)):
        shown = cli_run("metrics", *peers, "--format", "json")
        assert shown.exit_code == 0, shown.output
        expected = {run: m.as_dict() for run, m in found.items()}
        assert json.loads(shown.output) == json.loads(json.dumps(expected))
    table = cli_run("metrics", "--peers").output
    assert f"run {made.run} BASELINE (bm25 k=3 citer=top1;" in table
    assert all(p.name in table for p in figures["sys-a"].peers or [])


def test_report_text_is_the_cli_report(tmp_path: Path, cli_run: Any) -> None:
    path = _loaded(tmp_path, "cedar.yaml", "sys-a")
    with hopgate.open_store(path) as store:
        found = hopgate.build_report(store, run="sys-a", pictures=0)
        text = hopgate.render_report(found, format="md")
        with pytest.raises(hopgate.SigningError):
            hopgate.build_report(store, run="sys-a", signed_export=tmp_path, trust=["nonsense"])
        with pytest.raises(hopgate.ReportError, match="unknown report format"):
            hopgate.render_report(found, format="pdf")
    shown = cli_run("report", "--run", "sys-a", "--format", "md")
    assert shown.exit_code == 0 and shown.stdout == text


def test_the_cli_reads_values_and_names_as_the_api_does() -> None:
    from hopgate.cli import parse_param
    from hopgate.cli.formatting import show_value

    for raw in (
        "run:sys-a",
        "<https://example.org/a>",
        '"3"',
        "3",
        "-4",
        "true",
        "x: y",
        "nokind:z",
    ):
        assert parse_param(f"p={raw}") == ("p", hopgate.api.parse_value(raw))
    assert hopgate.api.parse_value("claim:cA") == hopgate.IRI(
        "https://w3id.org/hopgate/id/claim/cA"
    )
    with pytest.raises(hopgate.QueryError, match="not an IRI"):
        hopgate.api.parse_value("<not an iri>")
    with pytest.raises(click.ClickException, match="--param p: not an IRI"):
        parse_param("p=<not an iri>")
    iri = hopgate.IRI(hopgate.api.parse_value("run:sys-a"))  # type: ignore[arg-type]
    assert show_value(iri) == hopgate.api.short_name(iri) == "sys-a"
    assert show_value(hopgate.IRI("http://www.w3.org/ns/prov#Entity")) == "prov:Entity"
    assert show_value(iri, iris=True) == "https://w3id.org/hopgate/id/run/sys-a"


def test_open_store_takes_a_folder_as_text_or_path(tmp_path: Path) -> None:
    # A user of the library passes the folder as they have it: a str or a Path.
    with hopgate.open_store(str(tmp_path / "as-text")) as store:
        hopgate.load(store, hopgate.api.example("cedar.yaml"))
        graphs = store.graphs()
    with hopgate.open_store(tmp_path / "as-text") as again:
        assert again.graphs() == graphs != []
