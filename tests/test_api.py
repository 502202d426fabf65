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
    "explain": "explain",
    "diff": "diff",
    "report": "build_report",
    "review queue": "review_queue",
    "review changes": "review_changes",
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
    for name, command in group.commands.items():
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
    ("ledger", "run", "passed"),
    [("cedar.yaml", "sys-a", False), ("withheld.yaml", "run-public", True)],
)
def test_gate_passed_is_the_cli_exit_code(
    tmp_path: Path, cli_run: Any, ledger: str, run: str, passed: bool
) -> None:
    path = _loaded(tmp_path, ledger, run)
    with hopgate.open_store(path) as store:
        result = hopgate.gate(store, run=run)
    shown = cli_run("gate", "--run", run)
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
