"""Shared fixtures and helpers: the worked example, a minimal valid ledger in every spelling,
a store, the shared data (../shared/data), a private Virtuoso, and the test session's options.

Under ``CI=true`` what a test needs must be there: missing data, Virtuoso, graphviz or
Chromium fail the test instead of skipping it. Hypothesis explores new examples on every
CI run; the seed is printed in the session header (``HOPGATE_HYPOTHESIS_SEED`` replays it).
"""

from __future__ import annotations

import copy
import functools
import gzip
import importlib.util
import json
import os
import random
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, settings

import hopgate
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.ingest.ledger import KINDS
from hopgate.library.steps import reading_projection
from hopgate.store import snapshots
from hopgate.vocab import CATALOG_GRAPH

#: The project's root folder, its worked example and the ledgers the tests share.
ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CEDAR = EXAMPLES / "cedar.yaml"
LEDGERS = ROOT / "tests" / "fixtures" / "ledgers"
#: The worked example's verdicts (the header of examples/cedar.yaml).
CEDAR_VERDICTS = {
    "sys-a/qA/o1": "revise-citations",
    "sys-a/qB/o1": "revise-citations",
    "sys-a/qC/o1": "accept",
    "sys-a/qD/o1": "reject",
}
#: Real benchmark data and test suites beside the project, never committed (its README):
#: ``shared/data`` in the nearest folder above the checkout that has one (beside a
#: clone or a worktree too); HOPGATE_SHARED_DATA names another folder.
SHARED_DATA = Path(
    os.environ.get("HOPGATE_SHARED_DATA")
    or next(
        (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
        ROOT.parent / "shared" / "data",
    )
)

#: Under CI=true a test's requirements must be met: a missing one fails the test.
CI = os.environ.get("CI", "").lower() == "true"
#: Tests marked slow (10k claims, minutes each) run under CI=true or HOPGATE_SLOW_TESTS=1;
#: `make test` on a workstation stays within minutes without them.
RUN_SLOW = CI or os.environ.get("HOPGATE_SLOW_TESTS") == "1"
#: Tests marked benchmark only measure scale: they run with HOPGATE_BENCHMARKS=1 (bench/README.md).
RUN_BENCHMARKS = os.environ.get("HOPGATE_BENCHMARKS") == "1"

T = TypeVar("T")


def examples(count: int) -> int:
    """How many examples a Hypothesis test draws: ``count`` under CI (or with slow tests),
    a quarter of it otherwise, so that `make test` on a workstation stays within five
    minutes (a third took it to 4:47 of tests and 5:20 in all on 7 December, with the
    servers installed)."""
    return count if RUN_SLOW else max(5, count // 4)


@functools.cache
def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` (bench/ is no package) as the module ``bench_<name>``, loaded once."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def required(reason: str) -> None:
    """A test's requirement is missing: fail under ``CI=true``, else skip with ``reason``."""
    if CI:
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def shared_data(*parts: str) -> Path:
    """The path of ``../shared/data/<parts>``; a missing one fails under CI, else skips."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        required(f"the shared data is not present: {path} (see {SHARED_DATA / 'README.md'})")
    return path


_OPEN_ELSEWHERE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import hopgate
    try:
        hopgate.open_store(Path(sys.argv[1]), read_only=sys.argv[2] == "read").close()
    except Exception as exc:
        print(type(exc).__name__)
    else:
        print("opened")
    """
)


def open_elsewhere(path: Path, mode: str = "write") -> str:
    """Open the store at ``path`` in another process (``mode`` "write" or "read"), close
    it: "opened", or the name of the exception the open raised."""
    done = subprocess.run(
        [sys.executable, "-c", _OPEN_ELSEWHERE, str(path), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


def keep_bundle_snapshot(store: hopgate.Store, bundle: str, scratch: Path) -> None:
    """Keep a recorded snapshot of ``bundle``'s quads, as hopgate kept one of every
    evaluation's bundle before 5 December 2026 (a read of such a store still parses it)."""
    nquads = scratch / "bundle.nq"
    with nquads.open("wb") as out:
        store.dump(out, format="nquads", graph=bundle)
    lines = snapshots.keep(store, nquads, bundle, [reading_projection()])
    assert lines
    entry = scratch / "entry.nq"
    entry.write_text("".join(f"{line} <{CATALOG_GRAPH}> .\n" for line in lines), "utf-8")
    store.add_nquads(entry)


def within(seconds: float, call: Callable[[], T]) -> T:
    """``call()``, failing the test if it has not returned after ``seconds`` (a hang guard).

    Not a timing: the bound is minutes above what the call takes on a loaded machine, and
    only says that the call came back at all. The call runs in a daemon thread, so a hung
    call is abandoned with the test.
    """
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # re-raised in the test's thread
            outcome["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"still running after {seconds:.0f} s: it hangs", pytrace=False)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


# ---- the session: Hypothesis under CI, slow tests, benchmarks ---------------------------

#: Under CI every run draws new examples (Hypothesis's own "ci" profile derandomizes,
#: so each CI run would replay the same ones); no example database is kept.
settings.register_profile(
    "hopgate-ci",
    derandomize=False,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
if CI:
    settings.load_profile("hopgate-ci")


def _hypothesis_seed() -> int | None:
    """The seed asked for (HOPGATE_HYPOTHESIS_SEED), a fresh one under CI, else None."""
    asked = os.environ.get("HOPGATE_HYPOTHESIS_SEED")
    if asked:
        return int(asked)
    return random.SystemRandom().randrange(2**32) if CI else None


#: The session's seed: new on each CI run, printed in the header, replayed by
#: HOPGATE_HYPOTHESIS_SEED; None on a workstation (each test draws its own).
SESSION_SEED = _hypothesis_seed()
if SESSION_SEED is not None:
    # Run in pytest-xdist workers (`make test`), each worker imports this file
    # after the controller and inherits its environment, so every worker draws
    # from the seed the header prints.
    os.environ.setdefault("HOPGATE_HYPOTHESIS_SEED", str(SESSION_SEED))
#: The seed of the fuzz tests (tests/ingest/test_hostile_input.py, ``@seed``): the session's
#: under CI, so that each run explores new inputs; fixed on a workstation; HOPGATE_FUZZ_SEED
#: sets it. The header prints it.
FUZZ_SEED = int(
    os.environ.get("HOPGATE_FUZZ_SEED") or (SESSION_SEED if SESSION_SEED is not None else 20250025)
)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Seed Hypothesis (unless ``--hypothesis-seed`` was given) before its plugin reads it."""
    if config.getoption("hypothesis_seed", None) is None and SESSION_SEED is not None:
        config.option.hypothesis_seed = SESSION_SEED


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The Hypothesis seed of this session and the fuzz seed, and how to replay them."""
    seed = config.getoption("hypothesis_seed", None)
    profile = f"hypothesis profile {settings.get_current_profile_name()!r}, "
    fuzz = f"hopgate fuzz seed: {FUZZ_SEED} (HOPGATE_FUZZ_SEED to change)"
    if seed is None:
        return [profile + "seed random per test (HOPGATE_HYPOTHESIS_SEED=N fixes one)", fuzz]
    replay = f"{'CI=true ' if CI else ''}HOPGATE_HYPOTHESIS_SEED={seed} make test"
    return [profile + f"seed {seed} (replay: {replay})", fuzz]


#: Fixtures that start Virtuoso servers (tens of seconds each, and minutes of tests on them),
#: a Virtuoso with the packaged settings (``packaged``), and the Oxigraph server and Jena
#: ARQ beside each other (``engines``): their tests run under CI, where the servers must be.
SERVER_FIXTURES = {"virtuoso", "servers", "packaged", "engines"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip slow tests unless CI=true or HOPGATE_SLOW_TESTS=1, benchmarks unless asked for.

    A test on a Virtuoso server is slow: it runs under CI=true (where a missing
    server fails it) or HOPGATE_SLOW_TESTS=1.
    """
    slow = pytest.mark.skip(reason="slow: runs under CI=true or HOPGATE_SLOW_TESTS=1")
    benchmark = pytest.mark.skip(reason="a benchmark of scale: runs with HOPGATE_BENCHMARKS=1")
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
        if "benchmark" in item.keywords and not RUN_BENCHMARKS:
            item.add_marker(benchmark)
        elif "slow" in item.keywords and not RUN_SLOW:
            item.add_marker(slow)


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


@contextmanager
def counted_calls(owner: Any, name: str) -> Iterator[list[int]]:
    """Inside the block, ``owner.name`` still runs and each call appends to the yielded list
    (a test that a cache was used asks that the function filling it never ran)."""
    whole = getattr(owner, name)
    calls: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return whole(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(owner, name, counted)
        yield calls


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


@pytest.fixture(scope="module")
def cedar() -> Iterator[hopgate.OxigraphStore]:
    """The worked example (examples/cedar.yaml), loaded and evaluated once per module, in memory."""
    with hopgate.open_store(None) as store:
        hopgate.load(store, CEDAR)
        evaluate(store)
        yield store  # type: ignore[misc]


@pytest.fixture
def hg(tmp_path: Path) -> Callable[..., Result]:
    """``hg(*args)``: ``hopgate --store <tmp_path>/store ARGS`` in-process (stderr apart)."""
    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(cli, ["--store", str(tmp_path / "store"), *args], obj={})

    return run


@pytest.fixture
def locate() -> Callable[[dict[str, Any], str, int, str], str]:
    """``locate(ledger, plural, index, fmt)``: the record location a load error names."""
    return where


# ---- a private Virtuoso server (tests/virtuoso.py) ---------------------------


@pytest.fixture(scope="module")
def oxigraph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A private ``oxigraph serve`` per test module (skipped without the oxigraph
    package, failed under ``CI=true``)."""
    from oxigraph_server import OxigraphServer, missing

    reason = missing()
    if reason is not None:
        required(reason)
    server = OxigraphServer(tmp_path_factory.mktemp("oxigraph"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


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
        required(reason)
    server = VirtuosoServer(tmp_path_factory.mktemp("virtuoso"))
    try:
        server.start()
        yield server
    finally:
        server.stop()
