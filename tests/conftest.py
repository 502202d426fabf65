"""Shared fixtures: a minimal valid ledger, writing it in every spelling, a store."""

from __future__ import annotations

import copy
import gzip
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import hopgate
from hopgate.ingest.ledger import KINDS

#: Tests marked slow (10k claims, minutes each) run under CI=true or HOPGATE_SLOW_TESTS=1;
#: `make test` on a workstation stays within minutes without them.
RUN_SLOW = os.environ.get("CI", "").lower() == "true" or os.environ.get("HOPGATE_SLOW_TESTS") == "1"


#: The seed of the fuzz tests (tests/test_hostile_input.py): fixed, so CI runs the same
#: examples every time; HOPGATE_FUZZ_SEED explores others. pytest's header prints it.
FUZZ_SEED = int(os.environ.get("HOPGATE_FUZZ_SEED", "20250025"))


def pytest_report_header(config: pytest.Config) -> str:
    """Print the fuzz seed, so that a failing run can be repeated."""
    return f"hopgate fuzz seed: {FUZZ_SEED} (HOPGATE_FUZZ_SEED to change)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked slow unless CI=true or HOPGATE_SLOW_TESTS=1."""
    if RUN_SLOW:
        return
    skip = pytest.mark.skip(reason="slow: runs under CI=true or HOPGATE_SLOW_TESTS=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


#: The text of the minimal ledger's one version (non-ASCII on purpose; "R17" occurs twice).
VERSION_TEXT = (
    "Zürich registry. Project Cedar is mapped to record R17. Record R17 is held by Entity R."
)

_MINIMAL: dict[str, Any] = {
    "ledger": 1,
    "evaluations": [
        {"id": "eval", "reader": "analyst", "observation_cutoff": "2026-10-07T00:00:00Z"}
    ],
    "readers": [{"id": "analyst"}],
    "sources": [{"id": "registry", "address": "https://example.org/registry"}],
    "versions": [
        {
            "id": "registry@1",
            "source": "registry",
            "text": VERSION_TEXT,
            "observed_at": "2026-10-01T12:00:00Z",
        }
    ],
    "spans": [
        {"id": "a1", "version": "registry@1", "quote": "Project Cedar is mapped to record R17"},
        {"id": "a2", "version": "registry@1", "start": 56, "end": 86},
    ],
    "questions": [{"id": "q1", "text": "Who holds Project Cedar?", "claims": ["c1"]}],
    "claims": [{"id": "c1", "text": "Entity R holds Project Cedar."}],
    "evidence_sets": [
        {
            "id": "g1",
            "claim": "c1",
            "members": ["a1", "a2"],
            "inference": "identity join on record id R17",
            "status": "adjudicated",
            "annotation": {"version": 1, "by": "annotator-1", "at": "2026-10-02"},
        }
    ],
    "runs": [
        {
            "id": "sys-a",
            "evaluation": "eval",
            "system": "rag-v2",
            "started_at": "2026-10-05T09:00:00Z",
        }
    ],
    "cases": [
        {
            "run": "sys-a",
            "question": "q1",
            "retrieved": ["a1", "a2"],
            "outputs": [
                {
                    "id": "sys-a/q1/o1",
                    "text": "Entity R holds Cedar.",
                    "claim": "c1",
                    "correct": True,
                    "cites": ["a2"],
                }
            ],
        }
    ],
}

#: Ledger formats the writer knows; "yaml" and "json" are one document, "jsonl" is a stream.
FORMATS = ("yaml", "json", "jsonl")
_SUFFIX = {"yaml": ".yaml", "json": ".json", "jsonl": ".jsonl", "jsonl.gz": ".jsonl.gz"}


def _minimal_ledger() -> dict[str, Any]:
    return copy.deepcopy(_MINIMAL)


def jsonl_records(ledger: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The ledger's records in JSON Lines order (kinds in load order), ``type`` first."""
    for plural, kind in KINDS.items():
        for record in ledger.get(plural) or []:
            yield {"type": kind, **record}


def jsonl_text(ledger: dict[str, Any], *, header: bool = True) -> str:
    """A ledger dict spelled as JSON Lines (one record a line, header first)."""
    lines = [json.dumps({"type": "ledger", "ledger": 1})] if header else []
    lines += [json.dumps(record, ensure_ascii=False) for record in jsonl_records(ledger)]
    return "\n".join(lines) + "\n"


def where(ledger: dict[str, Any], plural: str, index: int, fmt: str) -> str:
    """How a load error locates ``ledger[plural][index]``: a path, or a JSON Lines line."""
    if fmt in ("yaml", "json"):
        return f"{plural}[{index}]"
    line = 2  # line 1 is the header
    for key in KINDS:
        if key == plural:
            return f"line {line + index}"
        line += len(ledger.get(key) or [])
    raise KeyError(plural)


def write(path: Path, ledger: dict[str, Any], fmt: str) -> Path:
    """Write ``ledger`` at ``path`` (its suffix added) in ``fmt``; return the path."""
    target = path.with_name(path.name + _SUFFIX[fmt])
    if fmt == "yaml":
        text = yaml.safe_dump(ledger, allow_unicode=True, sort_keys=False)
        target.write_text(text, encoding="utf-8")
    elif fmt == "json":
        target.write_text(json.dumps(ledger, ensure_ascii=False, indent=1), encoding="utf-8")
    elif fmt == "jsonl":
        target.write_text(jsonl_text(ledger), encoding="utf-8")
    elif fmt == "jsonl.gz":
        target.write_bytes(gzip.compress(jsonl_text(ledger).encode("utf-8")))
    else:
        raise ValueError(fmt)
    return target


@pytest.fixture
def minimal_ledger() -> Callable[[], dict[str, Any]]:
    """A builder: each call returns a fresh small valid ledger dict, free to mutate."""
    return _minimal_ledger


@pytest.fixture
def write_ledger(tmp_path: Path) -> Callable[..., Path]:
    """``write_ledger(ledger, fmt, name="ledger")``: write it under tmp_path, return the path."""

    def _write(ledger: dict[str, Any], fmt: str = "yaml", name: str = "ledger") -> Path:
        return write(tmp_path / name, ledger, fmt)

    return _write


@pytest.fixture
def store() -> Iterator[hopgate.OxigraphStore]:
    """An empty in-memory store."""
    with hopgate.open_store(None) as opened:
        yield opened  # type: ignore[misc]


@pytest.fixture
def locate() -> Callable[[dict[str, Any], str, int, str], str]:
    """``locate(ledger, plural, index, fmt)``: the record location a load error names."""
    return where


# ---- a private Virtuoso server (tests/virtuoso.py) ---------------------------


@pytest.fixture(scope="module")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Virtuoso Open Source server per test module, on loopback, stopped by its PID.

    Per module, not per session: what a module asserts must not depend on
    what ran before it. (The failures that prompted it, ``evaluation-verdicts``
    losing rows or never answering after the coverage module, turned out not
    to come from that module's state but from Virtuoso 7.2.5's per-server
    choice of plan: docs/remote-virtuoso.md, tests/store/test_virtuoso_plans.py.)

    Skips when Virtuoso is not installed, except under ``CI=true``, where a
    missing server is a failure.
    """
    from virtuoso import VirtuosoServer, missing

    reason = missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    server = VirtuosoServer(tmp_path_factory.mktemp("virtuoso"))
    try:
        server.start()
        yield server
    finally:
        server.stop()
