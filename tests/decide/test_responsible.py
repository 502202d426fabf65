"""Issue 15: responsible persons. An evaluation names the person on whose behalf it ran;
the OS user name is never recorded unless asked."""

from __future__ import annotations

import getpass
from pathlib import Path

from click.testing import CliRunner

from hopgate.cli import cli

ROOT = Path(__file__).resolve().parents[2]
CEDAR = ROOT / "examples" / "cedar.yaml"

PERSONS = """
SELECT ?activity ?name WHERE {
  GRAPH <https://w3id.org/hopgate/id/catalog> {
    ?activity prov:wasAssociatedWith ?person .
    ?person a prov:Person ; hg:ledgerId ?name .
    ?software a prov:SoftwareAgent ; prov:actedOnBehalfOf ?person .
  }
}
"""


def test_evaluate_by_records_the_person_and_the_picture_shows_it(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    assert runner.invoke(cli, [*store, "load", str(CEDAR)]).exit_code == 0
    result = runner.invoke(cli, [*store, "evaluate", "--run", "sys-a"], env={"HOPGATE_USER": "Ann"})
    assert result.exit_code == 0, result.output
    rows = runner.invoke(cli, [*store, "query", PERSONS, "--format", "csv"]).output
    assert "sys-a@" in rows and ",Ann" in rows
    dot = runner.invoke(cli, [*store, "export", "--card", "sys-a/qA/o1", "--format", "dot"]).output
    assert "on behalf of Ann" in dot
    bundle = runner.invoke(cli, [*store, "export", "--run", "sys-a", "--format", "provn"]).output
    assert "actedOnBehalfOf(agent:hopgate%200.1.0, agent:Ann" in bundle


def test_the_os_user_is_not_recorded_unless_asked(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    assert (
        runner.invoke(cli, [*store, "load", str(CEDAR)], env={"HOPGATE_USER": None}).exit_code == 0
    )
    assert runner.invoke(cli, [*store, "evaluate"], env={"HOPGATE_USER": None}).exit_code == 0
    dump = runner.invoke(cli, [*store, "dump", "--format", "nquads"]).output
    user = getpass.getuser()
    assert f'"{user}"' not in dump and "unknown user" not in dump
    assert "prov#Person" not in dump
    # Asked: the load names the person.
    other = tmp_path / "other.yaml"
    other.write_text("ledger: 1\nreaders:\n  - id: auditor\n")
    result = runner.invoke(cli, [*store, "load", str(other), "--by", "Bo"])
    assert result.exit_code == 0, result.output
    rows = runner.invoke(cli, [*store, "query", PERSONS, "--format", "csv"]).output
    assert "Bo" in rows
