"""Loading ``claims[].not_applicable`` (docs/spec/ledger.md "Claims", "Errors").

Each entry becomes one inapplicability statement of the claim for one
evaluation, with its reason (docs/model.md); a bad entry is refused naming the
file, the record and the field, and leaves the store as it was.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CEDAR, LEDGERS

import hopgate
from hopgate import ids
from hopgate.vocab import HG, PROV

FIXTURE = LEDGERS / "not-applicable.yaml"


def _dump(store: hopgate.Store) -> bytes:
    out = io.BytesIO()
    store.dump(out, format="nquads")
    return out.getvalue()


def _fixture() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(FIXTURE.read_text("utf-8"))
    return loaded


def _write(path: Path, ledger: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(ledger, allow_unicode=True, sort_keys=False), "utf-8")
    return path


@pytest.fixture
def cedar_store(store: hopgate.OxigraphStore) -> hopgate.OxigraphStore:
    hopgate.load(store, CEDAR)
    return store


def test_each_entry_is_a_statement_of_the_claim_for_one_evaluation(
    cedar_store: hopgate.OxigraphStore,
) -> None:
    hopgate.load(cedar_store, FIXTURE)
    claim = ids.mint("claim", "cE")
    rows = cedar_store.select(
        "SELECT ?statement ?type ?evaluation ?reason WHERE { ?claim hg:notApplicable ?statement ."
        " ?statement a ?type ; hg:inapplicableTo ?evaluation ; hg:reason ?reason }",
        params={"claim": hopgate.IRI(claim)},
    )
    assert {str(r["statement"]) for r in rows} == {f"{claim}/not-applicable/eval-oct"}
    assert {str(r["type"]) for r in rows} == {PROV + "Entity", HG + "Inapplicability"}
    assert {str(r["evaluation"]) for r in rows} == {ids.mint("evaluation", "eval-oct")}
    # The reason as written: ledger text, never rewritten at loading.
    assert {str(r["reason"]) for r in rows} == {
        "=eval-oct covers <b>Cedar</b> & US rights only\nnot Birch"
    }
    # A claim with no entry has no statement.
    assert not cedar_store.ask(
        "ASK { ?claim hg:notApplicable ?s }", params={"claim": hopgate.IRI(ids.mint("claim", "cA"))}
    )


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        (
            lambda c: c["not_applicable"][0].update(evaluation="eval-dec"),
            r"not-applicable\.yaml: claims\[0\] \(id 'cE'\): field "
            r"'not_applicable\[0\]\.evaluation': unknown evaluation id 'eval-dec'",
        ),
        (
            lambda c: c["not_applicable"].append(dict(c["not_applicable"][0])),
            r"claims\[0\] \(id 'cE'\): field 'not_applicable\[1\]\.evaluation': "
            r"evaluation 'eval-oct' is listed twice",
        ),
        (
            lambda c: c["not_applicable"][0].update(reason="  \n"),
            r"claims\[0\] \(id 'cE'\): field 'not_applicable\[0\]\.reason': "
            r"a not-applicable claim needs its reason",
        ),
        (
            lambda c: c["not_applicable"][0].pop("reason"),
            r"claims\[0\] \(id 'cE'\).*not_applicable.*reason",
        ),
        (
            lambda c: c["not_applicable"][0].update(why="scope"),
            r"claims\[0\] \(id 'cE'\).*not_applicable.*why",
        ),
    ],
    ids=["unknown evaluation", "listed twice", "blank reason", "no reason", "unknown field"],
)
def test_a_bad_entry_is_refused_and_the_store_unchanged(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path, change: Any, pattern: str
) -> None:
    ledger = _fixture()
    change(ledger["claims"][0])
    before = _dump(cedar_store)
    with pytest.raises(hopgate.LedgerError, match=pattern):
        hopgate.load(cedar_store, _write(tmp_path / "not-applicable.yaml", ledger))
    assert _dump(cedar_store) == before


def test_the_evaluation_may_be_in_the_store(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    """eval-oct is the worked example's; the fixture names it without defining it."""
    ledger = _fixture()
    assert "eval-oct" not in {e["id"] for e in ledger["evaluations"]}
    hopgate.load(cedar_store, _write(tmp_path / "na.yaml", ledger))


def test_a_restated_claim_with_other_entries_is_a_conflict(
    cedar_store: hopgate.OxigraphStore, tmp_path: Path
) -> None:
    hopgate.load(cedar_store, FIXTURE)
    ledger = _fixture()
    ledger["claims"][0]["not_applicable"][0]["reason"] = "another reason"
    with pytest.raises(hopgate.ConflictError, match="cE"):
        hopgate.load(cedar_store, _write(tmp_path / "again.yaml", ledger))
    ledger["claims"][0].pop("not_applicable")
    with pytest.raises(hopgate.ConflictError, match="cE"):
        hopgate.load(cedar_store, _write(tmp_path / "without.yaml", ledger))
