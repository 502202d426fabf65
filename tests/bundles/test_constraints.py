"""PROV-CONSTRAINTS in verify: each constraint breaks on its violating fixture and holds on
its conforming one, hopgate's own exports conform, and an edited bundle is rejected by name."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

import hopgate
from hopgate.bundles.constraints import CONSTRAINTS, check
from hopgate.bundles.export import FORMATS, export_bundle, write_export
from hopgate.bundles.verify import verify
from hopgate.decide.evaluation import evaluate

ROOT = Path(__file__).resolve().parents[2]

PREFIXES = """@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix : <urn:x:> .
"""


def _t(value: str) -> str:
    return f'"2026-10-0{value}T00:00:00Z"^^xsd:dateTime'


#: constraint -> (violating TriG, conforming TriG); the bundle graph is <urn:x:g>.
FIXTURES = {
    "start-precedes-end": (
        f":a prov:startedAtTime {_t('2')} ; prov:endedAtTime {_t('1')} .",
        f":a prov:startedAtTime {_t('1')} ; prov:endedAtTime {_t('1')} .",
    ),
    "unique-startTime": (
        f":a prov:startedAtTime {_t('1')}, {_t('2')} .",
        f":a prov:startedAtTime {_t('1')} .",
    ),
    "unique-endTime": (
        f":a prov:endedAtTime {_t('1')}, {_t('2')} .",
        f":a prov:endedAtTime {_t('2')} .",
    ),
    "generation-within-activity": (
        f":e prov:wasGeneratedBy :a ; prov:generatedAtTime {_t('3')} . :a prov:endedAtTime {_t('2')} .",
        f":e prov:wasGeneratedBy :a ; prov:generatedAtTime {_t('2')} . :a prov:endedAtTime {_t('2')} .",
    ),
    "generation-precedes-usage": (
        f":a prov:used :e ; prov:endedAtTime {_t('1')} . :e prov:generatedAtTime {_t('2')} .",
        f":a prov:used :e ; prov:endedAtTime {_t('3')} . :e prov:generatedAtTime {_t('2')} .",
    ),
    "generation-precedes-invalidation": (
        f":e prov:generatedAtTime {_t('2')} ; prov:invalidatedAtTime {_t('1')} .",
        f":e prov:generatedAtTime {_t('1')} ; prov:invalidatedAtTime {_t('2')} .",
    ),
    "derivation-generation-generation-ordering": (
        f":e2 prov:wasRevisionOf :e1 ; prov:generatedAtTime {_t('1')} . :e1 prov:generatedAtTime {_t('2')} .",
        f":e2 prov:wasRevisionOf :e1 ; prov:generatedAtTime {_t('2')} . :e1 prov:generatedAtTime {_t('1')} .",
    ),
    "specialization-generation-ordering": (
        f":v prov:specializationOf :s ; prov:generatedAtTime {_t('1')} . :s prov:generatedAtTime {_t('2')} .",
        f":v prov:specializationOf :s ; prov:generatedAtTime {_t('2')} . :s prov:generatedAtTime {_t('1')} .",
    ),
    "impossible-specialization-reflexive": (
        ":v prov:specializationOf :v .",
        ":v prov:specializationOf :s .",
    ),
    "entity-activity-disjoint": (
        ":e prov:wasGeneratedBy :a . :a prov:wasGeneratedBy :b .",
        ":e prov:wasGeneratedBy :a . :a prov:used :e0 .",
    ),
    "typing": (
        f":a prov:wasAssociatedWith :b . :b prov:startedAtTime {_t('1')} .",
        ":a prov:wasAssociatedWith :b . :b prov:actedOnBehalfOf :c .",
    ),
}  # fmt: skip


def _violations(body: str) -> set[str]:
    data = f"{PREFIXES}:g {{ {body} }}".encode()
    return {v.constraint for v in check(list(ox.parse(data, format=ox.RdfFormat.TRIG)))}


@pytest.mark.metadata
def test_every_constraint_has_fixtures() -> None:
    assert set(FIXTURES) == {c.name for c in CONSTRAINTS}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_constraint_breaks_on_its_violating_fixture_only(name: str) -> None:
    violating, conforming = FIXTURES[name]
    assert name in _violations(violating)
    assert _violations(conforming) == set()


def test_constraints_are_checked_per_bundle() -> None:
    """A start in one bundle and an end in another do not meet (PROV validates bundles apart)."""
    data = f"""{PREFIXES}
    :g1 {{ :a prov:startedAtTime {_t("2")} . }}
    :g2 {{ :a prov:endedAtTime {_t("1")} . }}"""
    assert check(list(ox.parse(data.encode(), format=ox.RdfFormat.TRIG))) == []


@pytest.fixture(scope="module")
def cedar(cedar: hopgate.OxigraphStore) -> hopgate.OxigraphStore:
    """The worked example evaluated twice: a revision of the first evaluation's bundle."""
    evaluate(cedar, force=True)
    return cedar


def test_hopgates_own_exports_conform(cedar: Any, tmp_path: Path) -> None:
    for fmt in FORMATS:
        write_export(export_bundle(cedar, format=fmt, with_text=True, reader="analyst"), tmp_path)
    report = verify(tmp_path)
    assert report.ok, report.problems
    assert report.constraints_checked == len(FORMATS)


def _rewrite(directory: Path, name: str, old: bytes, new: bytes) -> None:
    path = directory / name
    data = path.read_bytes()
    assert old in data, (name, old)
    forged = data.replace(old, new)
    path.write_bytes(forged)
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["files"][name]["sha256"] = hashlib.sha256(forged).hexdigest()
    (directory / "manifest.json").write_text(json.dumps(manifest))


def _activity_times(cedar: Any) -> tuple[str, str]:
    rows = cedar.select(
        "SELECT ?start ?end WHERE { ?a a hg:EvaluationActivity ; prov:startedAtTime ?start ;"
        " prov:endedAtTime ?end } ORDER BY DESC(?end) LIMIT 1"
    )
    return str(rows[0]["start"]), str(rows[0]["end"])


@pytest.mark.parametrize("fmt", ["trig", "provn"])
def test_an_activity_edited_to_end_before_it_starts_is_rejected(
    cedar: Any, tmp_path: Path, fmt: str
) -> None:
    write_export(export_bundle(cedar, format=fmt, run="sys-a"), tmp_path)
    start, _ = _activity_times(cedar)
    name = next(p.name for p in tmp_path.iterdir() if p.name.startswith("export."))
    # PROV-N writes the times as Python's isoformat; TriG as the xsd:dateTime written.
    # (six digits of microseconds there: 18.91246Z is written 18.912460+00:00).
    spelled = (
        start if fmt == "trig" else datetime.fromisoformat(start.replace("Z", "+00:00")).isoformat()
    )
    _rewrite(tmp_path, name, spelled.encode(), b"2099-01-01T00:00:00" + spelled[19:].encode())
    problems = verify(tmp_path).problems
    assert any("PROV-CONSTRAINTS start-precedes-end" in p for p in problems), problems


def test_a_load_edited_to_postdate_its_use_is_rejected(cedar: Any, tmp_path: Path) -> None:
    write_export(export_bundle(cedar, format="trig", run="sys-a"), tmp_path)
    rows = cedar.select(
        "SELECT ?t WHERE { ?g a prov:Bundle ; hg:ledgerDigest ?d ; prov:generatedAtTime ?t }"
    )
    generated = str(rows[0]["t"])
    _rewrite(tmp_path, "export.trig", f'generatedAtTime "{generated}"'.encode(),
             b'generatedAtTime "2099-01-01T00:00:00Z"')  # fmt: skip
    problems = verify(tmp_path).problems
    assert any("PROV-CONSTRAINTS generation-precedes-usage" in p for p in problems), problems
