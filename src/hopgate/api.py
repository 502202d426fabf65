"""The Python twin of the ``hopgate`` command line: one function per command.

Each command calls its function here, once, and nothing else of hopgate
(``tests/cli/test_imports.py``), so both give the same answers, with the same
defaults and the same errors (every one a :class:`hopgate.HopgateError`); what
the command adds is parsing arguments, opening the store (:func:`open_store`,
:func:`open_endpoint`), printing and the exit code. Options are keyword-only,
results are dataclasses. ``docs/api.md`` lists each function beside its
command; every example below runs as a doctest (``tests/test_api.py``).

The examples use the bundled worked example (``examples/cedar.yaml``, as
``hopgate demo`` does) in an in-memory store::

    >>> from hopgate import evaluate, load, open_store
    >>> from hopgate.library.artefacts import artefact
    >>> store = open_store(None)
    >>> _ = load(store, artefact("examples") / "cedar.yaml")
    >>> [record.cards for record in evaluate(store)]
    [4]

Every name here is a function or a class; no module of the package has the
name of one (the modules live in packages named for the stage of the data:
``hopgate.ingest``, ``hopgate.store``, ``hopgate.decide``, ``hopgate.audit``,
``hopgate.shacl``, ``hopgate.bundles``, ``hopgate.report``,
``hopgate.interventions``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from importlib.resources.abc import Traversable
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

# What every read needs is imported here; what only some commands need (SHACL,
# signing, PROV, the report's templates, the loader, the evaluation) is imported
# inside the functions that use it, and the names this module gives from those
# modules through ``__getattr__`` (_LAZY).
from hopgate import ids
from hopgate import progress as _progress
from hopgate.audit.inspection import Stats
from hopgate.audit.inspection import stats as stats
from hopgate.audit.results import (
    FIGURES,
    VERDICT_COLUMNS,
    GateResult,
    RunMetrics,
    VerdictRow,
    check_gate_policy,
)
from hopgate.audit.results import gate as _gate
from hopgate.audit.results import metrics as _metrics
from hopgate.audit.results import verdicts as _verdicts
from hopgate.audit.withholding import (
    Readers,
    Withholding,
    check_reader,
    for_reader,
    reader_copy,
)
from hopgate.decide.variants import VARIANTS
from hopgate.errors import (
    ExportError,
    InputRefused,
    QueryError,
    ReportError,
    ReviewError,
    StoreError,
)
from hopgate.inputs import decode_text, read_regular
from hopgate.lazy import lazy_getattr
from hopgate.library.artefacts import LibraryQuery, artefact, header_parameters
from hopgate.library.artefacts import library_queries as _library_queries
from hopgate.library.steps import (
    AUTHORITY_POLICIES,
    AUTHORITY_POLICY,
    GATE_POLICIES,
    GATE_POLICY,
)
from hopgate.processes import DEFAULT_OUTPUT_CAP, Limits
from hopgate.progress import Reporter
from hopgate.report.explain import Explanation, reasons
from hopgate.report.explain import explain as explain
from hopgate.report.sentences import authority_reason
from hopgate.store import IRI, OxigraphStore, Row, Store, Value, catalog
from hopgate.store import open_store as _open_store
from hopgate.store.dialect import variables
from hopgate.store.terms import parse_value as parse_value

if TYPE_CHECKING:
    from hopgate._version import __version__
    from hopgate.audit.adjudication import Recorded, ScoreChanges, Signer
    from hopgate.audit.agreement import Agreement, Comparison
    from hopgate.audit.peers import PeerMetric
    from hopgate.audit.queue import JudgmentRecord, QueueItem
    from hopgate.audit.triage import TriageResult
    from hopgate.bundles.export import FORMATS as EXPORT_FORMATS
    from hopgate.bundles.export import Export
    from hopgate.bundles.formats import PICTURE_FORMATS
    from hopgate.bundles.judgment_proofs import Signature
    from hopgate.bundles.proofs import SignResult
    from hopgate.bundles.signing import SigningKey, WrittenKey
    from hopgate.bundles.verify import VerifyReport
    from hopgate.decide.evaluation import EvaluationRecord
    from hopgate.ingest.adapters import FORMATS as IMPORT_FORMATS
    from hopgate.ingest.adapters import ImportResult
    from hopgate.ingest.adapters.shapes import SHAPES as ANSWER_SHAPES
    from hopgate.ingest.baseline import BaselineResult
    from hopgate.ingest.judgments import QUESTIONS as JUDGMENT_QUESTIONS
    from hopgate.ingest.loader import LoadResult, load
    from hopgate.interventions.plan import PlanResult
    from hopgate.interventions.run import BUILTIN_BM25, RunResult
    from hopgate.report.build import Report
    from hopgate.report.diff import Diff
    from hopgate.shacl.graphs import SHACL_ENGINES, ShaclReport, validate_graph
    from hopgate.shacl.validation import ValidationResult
    from hopgate.store.remote.doctor import ServerReport

#: The names this module gives from modules it imports only when a function needs
#: them (PEP 562): a read command does not import SHACL (rdflib), signing
#: (cryptography), PROV, the report's templates, the loader or the evaluation
#: (0.3 s of the 0.45 s its imports took).
_LAZY = {
    "JUDGMENT_QUESTIONS": ("hopgate.ingest.judgments", "QUESTIONS"),
    "PICTURE_FORMATS": ("hopgate.bundles.formats", "PICTURE_FORMATS"),
    "ANSWER_SHAPES": ("hopgate.ingest.adapters.shapes", "SHAPES"),
    "Agreement": ("hopgate.audit.agreement", "Agreement"),
    "BUILTIN_BM25": ("hopgate.interventions.run", "BUILTIN_BM25"),
    "BaselineResult": ("hopgate.ingest.baseline", "BaselineResult"),
    "Comparison": ("hopgate.audit.agreement", "Comparison"),
    "Diff": ("hopgate.report.diff", "Diff"),
    "EXPORT_FORMATS": ("hopgate.bundles.export", "FORMATS"),
    "EvaluationRecord": ("hopgate.decide.evaluation", "EvaluationRecord"),
    "Export": ("hopgate.bundles.export", "Export"),
    "IMPORT_FORMATS": ("hopgate.ingest.adapters", "FORMATS"),
    "ImportResult": ("hopgate.ingest.adapters", "ImportResult"),
    "JudgmentRecord": ("hopgate.audit.queue", "JudgmentRecord"),
    "LoadResult": ("hopgate.ingest.loader", "LoadResult"),
    "PeerMetric": ("hopgate.audit.peers", "PeerMetric"),
    "PlanResult": ("hopgate.interventions.plan", "PlanResult"),
    "QueueItem": ("hopgate.audit.queue", "QueueItem"),
    "Recorded": ("hopgate.audit.adjudication", "Recorded"),
    "Report": ("hopgate.report.build", "Report"),
    "RunResult": ("hopgate.interventions.run", "RunResult"),
    "SHACL_ENGINES": ("hopgate.shacl.graphs", "SHACL_ENGINES"),
    "ScoreChanges": ("hopgate.audit.adjudication", "ScoreChanges"),
    "ServerReport": ("hopgate.store.remote.doctor", "ServerReport"),
    "ShaclReport": ("hopgate.shacl.graphs", "ShaclReport"),
    "SignResult": ("hopgate.bundles.proofs", "SignResult"),
    "Signature": ("hopgate.bundles.judgment_proofs", "Signature"),
    "SigningKey": ("hopgate.bundles.signing", "SigningKey"),
    "TriageResult": ("hopgate.audit.triage", "TriageResult"),
    "ValidationResult": ("hopgate.shacl.validation", "ValidationResult"),
    "VerifyReport": ("hopgate.bundles.verify", "VerifyReport"),
    "WrittenKey": ("hopgate.bundles.signing", "WrittenKey"),
    "__version__": ("hopgate._version", "__version__"),
    "load": ("hopgate.ingest.loader", "load"),
    "validate_graph": ("hopgate.shacl.graphs", "validate_graph"),
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)


__all__ = [
    # What the commands' options choose from, and the columns and figures they print.
    "ANSWER_SHAPES",
    "BUILTIN_BM25",
    "DEFAULT_OUTPUT_CAP",
    "EXPORT_FORMATS",
    "FIGURES",
    "GATE_POLICIES",
    "GATE_POLICY",
    "AUTHORITY_POLICIES",
    "AUTHORITY_POLICY",
    "IMPORT_FORMATS",
    "JUDGMENT_QUESTIONS",
    "PICTURE_FORMATS",
    "SHACL_ENGINES",
    "VARIANTS",
    "VERDICT_COLUMNS",
    "__version__",
    # Results.
    "Agreement",
    "BaselineResult",
    "Comparison",
    "Diff",
    "EvaluationRecord",
    "Explanation",
    "Export",
    "GateResult",
    "ImportResult",
    "JudgmentRecord",
    "LibraryQuery",
    "LoadResult",
    "PeerMetric",
    "PlanResult",
    "QueueItem",
    "Recorded",
    "Report",
    "RunFigures",
    "RunMetrics",
    "RunResult",
    "ScoreChanges",
    "ServerReport",
    "ShaclReport",
    "Signature",
    "SignResult",
    "SigningKey",
    "Stats",
    "TriageResult",
    "ValidationResult",
    "VerdictRow",
    "VerifyReport",
    "WrittenKey",
    # The store a command works on, and what every command shares.
    "Store",
    "example",
    "library_queries",
    "open_endpoint",
    "open_store",
    "parse_value",
    "read_query",
    "runs",
    "short_name",
    "show_progress",
    # One function per command (docs/api.md; docs/cli.md is the commands' reference).
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
    "plan_interventions",
    "query",
    "absent_parameters",
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
    "validate_graph",
    "verdicts",
    "verify",
]


def open_store(path: str | os.PathLike[str] | None, *, read_only: bool = False) -> OxigraphStore:
    """Open the embedded store in the folder ``path`` (made when absent), or in memory for None.

    ``hopgate --store PATH COMMAND`` (default ``.hopgate/store``). The store is
    a context manager: ``with open_store(path) as store:`` closes it. Reading
    commands refuse a folder that holds no store instead of making one, and
    open it ``read_only``: nothing of the store's files changes, the store may
    be one its user cannot write, several readers share it, and a writer waits
    for them (a write on it raises StoreError).

    Raises:
        StoreLockedError: another process has the store open.
        StoreError: the folder cannot be opened as a store.

    Example:
        >>> from hopgate.api import load, open_store
        >>> with open_store(None) as store:
        ...     result = load(store, example("cedar.yaml"))
        ...     result.graph in store.graphs()
        True
    """
    return _open_store(None if path is None else Path(path), read_only=read_only)


def open_endpoint(
    endpoint: str,
    *,
    update_endpoint: str | None = None,
    graph_store: str | None = None,
    user: str | None = None,
    password: str | None = None,
    auth: Literal["digest", "basic"] = "digest",
    evaluate_on_server: bool = True,
    timeout: float = 600.0,
) -> Store:
    """A store on a SPARQL 1.1 server: its query ``endpoint`` (docs/remote-virtuoso.md).

    ``hopgate --endpoint URL [--update-endpoint URL] [--graph-store URL]
    [--user U --password-env VAR] [--auth digest|basic]
    [--evaluate-on-server/--evaluate-on-client] COMMAND``. ``update_endpoint``
    takes SPARQL Update (default: ``endpoint``); ``graph_store`` is a SPARQL
    1.1 Graph Store endpoint for bulk writes (default: INSERT DATA batches).
    ``evaluate_on_server`` runs an evaluation as SPARQL Update into a scratch
    graph on the server; False evaluates a copy of the run's load graphs in
    client memory. ``timeout`` is in seconds per request. Nothing is sent
    until the store is used.

    Raises:
        StoreError: an unknown ``auth``; later, a server that cannot be reached
            or refuses a request.

    Example:
        >>> from hopgate.api import open_endpoint
        >>> store = open_endpoint("http://localhost:8890/sparql", user="dba", password="dba")
        >>> store.update_endpoint
        'http://localhost:8890/sparql'
    """
    from hopgate.store.remote import RemoteStore

    return RemoteStore(
        endpoint,
        update_endpoint=update_endpoint,
        graph_store=graph_store,
        user=user,
        password=password,
        auth=auth,
        evaluate_on_server=evaluate_on_server,
        timeout=timeout,
    )


@contextmanager
def show_progress(*, quiet: bool = False) -> Iterator[None]:
    """Show the progress of long work (load, import, evaluate) on stderr inside the block.

    As every command does: a bar with counts and time left on a terminal, one
    line per phase otherwise, nothing when ``quiet`` (``hopgate --quiet``).
    Without it, library calls print nothing.

    Example:
        >>> from hopgate.api import evaluate, load, open_store, show_progress
        >>> with show_progress(quiet=True), open_store(None) as store:
        ...     _ = load(store, example("cedar.yaml"))
        ...     [record.cards for record in evaluate(store)]
        [4]
    """
    with _progress.reporting(_progress.for_stream(quiet=quiet)):
        yield


def example(name: str) -> Traversable:
    """A bundled example file (``examples/`` of the source tree), to read or load.

    ``cedar.yaml`` is the worked example (``hopgate demo`` loads it),
    ``withheld.yaml`` a ledger whose readers may not see every text, and
    ``rag-docs.jsonl``, ``rag-gold.jsonl``, ``rag-answers.jsonl`` a pipeline's
    files for ``hopgate import rag`` (docs/rag-format.md).

    Example:
        >>> from hopgate.api import example
        >>> example("cedar.yaml").read_text("utf-8").startswith("# The worked example")
        True
    """
    return artefact("examples").joinpath(name)


def runs(store: Store) -> list[str]:
    """The ledger ids of the runs the store holds, sorted.

    Example:
        >>> from hopgate.api import load, open_store, runs
        >>> store = open_store(None)
        >>> _ = load(store, example("cedar.yaml"))
        >>> runs(store)
        ['sys-a']
    """
    return catalog.runs(store)


def library_queries() -> dict[str, LibraryQuery]:
    """The documented queries of ``queries/``, by id: each with its description and SPARQL text.

    ``hopgate query ID`` runs one (as :func:`query` with ``name=ID``).

    Example:
        >>> from hopgate.api import library_queries
        >>> print(library_queries()["claim-status"].text)  # doctest: +ELLIPSIS
        # id: claim-status
        ...
    """
    return _library_queries()


def read_query(path: Path) -> str:
    """The SPARQL text of a query file, read as every input is: a regular file, bounded, UTF-8.

    ``hopgate query FILE.rq`` reads its argument so (:func:`query` with ``path=``).

    Raises:
        InputRefused: not a regular file, too large, or not UTF-8 text (``detail`` says which).

    Example:
        >>> from pathlib import Path
        >>> from hopgate.api import read_query
        >>> read_query(Path("no-such.rq"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        hopgate.errors.InputRefused: ...
    """
    return decode_text(read_regular(path))


def short_name(iri: str) -> str:
    """The name users read for an IRI: the ledger id of one hopgate minted, else a prefixed name.

    As the commands print query results (``hopgate query`` without ``--iris``);
    an IRI of neither kind is returned as it is.

    Example:
        >>> from hopgate.api import short_name
        >>> short_name("https://w3id.org/hopgate/id/claim/cA"), short_name(
        ...     "http://www.w3.org/ns/prov#Entity"), short_name("https://example.org/x")
        ('cA', 'prov:Entity', 'https://example.org/x')
    """
    return ids.short_name(iri)


def evaluate(
    store: Store,
    *,
    run: str | None = None,
    force: bool = False,
    by: str | None = None,
    progress: Reporter | None = None,
) -> list[EvaluationRecord]:
    """Decide every output claim of a run and record acceptance cards as a PROV bundle.

    ``hopgate evaluate [--run RUN] [--force] [--by NAME]``. With no ``run``,
    every run whose latest evaluation is missing or stale is evaluated; a
    current one is not evaluated again (its record has ``reused``) unless
    ``force``. ``by`` names the person responsible, recorded with the
    evaluation. ``progress`` hears of each phase (default: the ambient
    reporter, :mod:`hopgate.progress`).

    Raises:
        EvaluationError: the store holds no run, or ``run`` is unknown.

    Example:
        >>> from hopgate import evaluate, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> [(r.run, r.cards, r.claim_cases, r.reused) for r in evaluate(store, run="sys-a")]
        [('sys-a', 4, 4, False)]
        >>> [r.reused for r in evaluate(store, run="sys-a")]  # nothing changed since
        [True]
    """
    from hopgate.decide.evaluation import evaluate as _evaluate

    return _evaluate(store, run=run, force=force, by=by, progress=progress)


def verdicts(
    store: Store, *, run: str | None = None, reader: str | None = None, brief: bool = False
) -> list[VerdictRow]:
    """The acceptance card of every output claim of each run's latest evaluation.

    ``hopgate verdicts [--run RUN] [--reader R]``; ``VerdictRow.as_dict()`` is
    one object of ``--format json``. Reads only: a run never evaluated is not
    shown; a stale evaluation is read as recorded, with ``stale`` and
    ``stale_reason``. Each run's rows are for ``reader`` (default: that run's
    evaluation's reader): a text repeating one withheld from it (a judgment's
    reason) is the withheld marker (docs/spec/records.md "What a reader is shown").
    ``brief``: each row's judgments, source truth, contradictions and
    interventions left empty (what the table and CSV of ``hopgate verdicts``
    show none of).

    Raises:
        NotEvaluatedError: ``run`` is unknown or has no evaluation.
        ReportError: an unknown reader.

    Example:
        >>> from hopgate import evaluate, load, open_store, verdicts
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> for row in verdicts(store, run="sys-a"):
        ...     print(row.output, row.verdict, row.missing)
        sys-a/qA/o1 revise-citations ['a1']
        sys-a/qB/o1 revise-citations ['b1']
        sys-a/qC/o1 accept []
        sys-a/qD/o1 reject ['d2']
    """
    readers = Readers(store, reader, ReportError)
    readers.start(catalog.runs(store) if run is None else [run])
    # Each run's rows through its reader's filter as one list (walked field by field).
    shown: list[VerdictRow] = []
    for each, rows in groupby(_verdicts(store, run=run, brief=brief), key=attrgetter("run")):
        shown += readers.of_run(each).redact(list(rows))
    return shown


@dataclass
class RunFigures(RunMetrics):
    """One run's metrics as ``hopgate metrics`` shows them: with a baseline's settings, and peers."""

    #: A baseline run's settings (retriever, k, citer) and a one-line ``summary``; else None.
    baseline: dict[str, Any] | None = None
    #: The peer figures of the same claim-cases (``peers=True``); else None.
    peers: list[PeerMetric] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``hopgate metrics`` (one run's entry)."""
        found = asdict(self)
        # Present only when they apply, after the figures (the JSON the command always wrote).
        for name in ("baseline", "peers"):
            value = found.pop(name)
            if value is not None:
                found[name] = value
        return found


def metrics(
    store: Store, *, run: str | None = None, peers: bool = False, reader: str | None = None
) -> dict[str, RunFigures]:
    """Complete-set recall, citation-set completeness and answer correctness, per run.

    ``hopgate metrics [--run RUN] [--peers] [--reader R]``; ``RunFigures.as_dict()``
    is one run's entry of ``--format json``. Every figure carries its numerator
    and denominator; an empty denominator gives ``value`` None. A baseline run
    carries its settings (``baseline``); ``peers`` adds the figures other
    benchmarks report on the same claim-cases (Hits@k, MAP, MRR, context
    recall, supporting-fact EM/F1, FEVER scores), each with its own name and
    denominator. Reads only. Texts (a stale reason, a baseline's settings)
    pass the reader filter as in :func:`verdicts`; figures are the same for
    every reader.

    Raises:
        NotEvaluatedError: ``run`` is unknown or has no evaluation.
        ReportError: an unknown reader.

    Example:
        >>> from hopgate import evaluate, load, metrics, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> figures = metrics(store)["sys-a"]
        >>> for name in ("complete_set_recall", "citation_set_completeness", "answer_correctness"):
        ...     p = getattr(figures, name)
        ...     print(f"{name}: {p.numerator}/{p.denominator} = {p.value:.3f}")
        complete_set_recall: 2/4 = 0.500
        citation_set_completeness: 1/3 = 0.333
        answer_correctness: 3/4 = 0.750
    """
    from hopgate.ingest.baseline import baseline_labels

    readers = Readers(store, reader, ReportError)
    readers.start(catalog.runs(store) if run is None else [run])
    labels = baseline_labels(store)
    peer_figures = {}
    if peers:
        from hopgate.audit.peers import peer_metrics

        peer_figures = peer_metrics(store, run=run)
    found = {}
    for run_id, figures in _metrics(store, run=run).items():
        shown = readers.of_run(run_id)
        # Redacted as RunMetrics (the filter keeps that class's names); a baseline's
        # settings are texts of its run as well.
        figures = shown.redact(figures)
        label = labels.get(run_id)
        found[run_id] = RunFigures(
            **{f.name: getattr(figures, f.name) for f in fields(RunMetrics)},
            baseline=None if label is None else shown.redact(label),
            peers=peer_figures.get(run_id, []) if peers else None,
        )
    return found


def gate(
    store: Store,
    *,
    run: str,
    evaluate: bool = False,
    consequential: str = GATE_POLICY,
    require_authority: str = AUTHORITY_POLICY,
) -> GateResult:
    """The release gate: pass only when every output claim it weighs in ``run`` is accepted.

    ``hopgate gate --run RUN [--evaluate] [--consequential marked|all]``, whose
    exit code is 0 exactly when ``passed``. The policy says which outputs it
    weighs (docs/spec/acceptance.md "Release gate", ``queries/gate.rq``):
    ``marked`` (the default), those asserting a claim marked consequential;
    ``all``, every output claim. When the policy weighs nothing, nothing was
    gated (``nothing_gated``, ``state``): never a pass. Reads only, unless
    ``evaluate``: then the run is first evaluated when its latest evaluation
    is missing or stale. A missing or stale evaluation fails the gate with
    ``stale`` and its ``reason``; ``reasons`` says, for each output in
    ``failing``, why it is not accepted. ``require_authority`` (``primary`` or
    ``secondary``; default ``none``) is a disclosed policy: an accepted output
    whose route authority is weaker fails the gate (``below_authority``), its
    verdict unchanged (docs/spec/acceptance.md "Source truth"). The result is for the run's
    evaluation's reader: a text of a failing row repeating one withheld from
    it is the withheld marker.

    Raises:
        NotEvaluatedError: ``run`` is unknown (the message names the known runs).
        EvaluationError: ``evaluate`` is set and ``run`` is unknown.
        GateError: an unknown policy.

    Example:
        >>> from hopgate import gate, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> gate(store, run="sys-a").reason
        "run 'sys-a' has never been evaluated"
        >>> result = gate(store, run="sys-a", evaluate=True)
        >>> result.state, result.weighed, [row.output for row in result.failing]
        ('failed', 2, ['sys-a/qA/o1'])
        >>> print(result.reasons["sys-a/qA/o1"])  # doctest: +ELLIPSIS
        Revise-citations: ... its citations leave out a1 of the nearest eligible set ...
        >>> gate(store, run="sys-a", consequential="all").weighed
        4
        >>> gate(store, run="sys-a", consequential="all", require_authority="primary").below_authority
        ['sys-a/qC/o1']
    """
    check_gate_policy(consequential)
    if evaluate:
        from hopgate.decide.evaluation import evaluate as _evaluate

        _evaluate(store, run=run)
    readers = Readers(store, None, ReportError)
    readers.start([run])
    result = _gate(
        store,
        run=run,
        consequential=consequential,
        require_authority=require_authority,
        explain=reasons,
    )
    if not (result.passed or result.stale):
        found = dict(result.reasons)
        for row in result.failing:
            if row.output in result.below_authority:
                found[row.output] = authority_reason(row, result.require_authority)
        result = replace(result, reasons=found)
    # The failing rows carry judgments' reasons: for the evaluation's reader, as verdicts.
    return readers.of_run(run).redact(result)


def validate(
    store: Store,
    *,
    extra_shapes: Sequence[Path] = (),
    graph: str | None = None,
    run: str | None = None,
    strict: bool = False,
    engine: Literal["store", "pyshacl"] = "store",
    all_history: bool = False,
) -> ValidationResult:
    """Check the store against the SHACL shapes; the results grouped by focus node.

    ``hopgate validate [--shapes FILE]... [--graph IRI] [--run RUN] [--strict]
    [--engine store|pyshacl] [--all-history]``, which exits 1 exactly when
    ``conforms`` is False. Each evaluation bundle is checked with the loads it
    used; ``strict`` makes Warnings fail as Violations do; ``report`` is the
    ``sh:ValidationReport`` as Turtle (``--format turtle``). See
    :func:`hopgate.shacl.validation.validate` for the scopes.

    Raises:
        ValidationError: a shapes file cannot be read, the data cannot be
            selected, or the engine is unknown.

    Example:
        >>> from hopgate import evaluate, load, open_store, validate
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> result = validate(store, run="sys-a", strict=True)
        >>> result.conforms, len(result.violations), len(result.warnings)
        (True, 0, 0)
    """
    from hopgate.shacl.validation import validate as _validate

    return _validate(
        store,
        extra_shapes=extra_shapes,
        graph=graph,
        run=run,
        strict=strict,
        engine=engine,
        all_history=all_history,
    )


def export(
    store: Store,
    *,
    format: str = "trig",
    run: str | None = None,
    evaluation: str | None = None,
    graph: str | None = None,
    card: str | None = None,
    reader: str | None = None,
    with_text: bool = False,
    output: Path | None = None,
    key: Path | None = None,
    by: str | None = None,
) -> Export:
    """Export PROV bundles as ``reader`` may see them: TriG, JSON-LD, PROV-N, PROV-JSON, PROV-XML.

    ``hopgate export [--run RUN | --evaluation RUN@TIME | --graph IRI | --card
    ID] [--reader R] [--with-text] [--format F] [-o OUTPUT [--sign KEY --by
    NAME]]``; ``data`` holds the bytes the command writes to stdout. Choose
    at most one scope; none exports every bundle. A ``format`` of
    :data:`PICTURE_FORMATS` (``dot``, ``svg``, ``png``) draws the picture of
    one ``card`` instead. With ``output`` (a folder, or a file named for the
    format) the export is written there and recorded in the folder's
    ``manifest.json``; ``path`` says where. With ``key`` (a private key file)
    the written file, a picture too, is signed by ``by`` (:func:`sign`), and
    ``signer`` says so.

    Raises:
        ExportError: an unknown format, scope or reader, an ambiguous reader, a
            picture without ``card``, a ``key`` without ``output``, or an output
            that cannot be written.
        ManifestError: the output folder holds a manifest that is not hopgate's.
        SigningError: an unreadable key, or no signer's name.

    Example:
        >>> from hopgate import evaluate, export, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> result = export(store, run="sys-a", format="provn")
        >>> result.scope.description, result.scope.reader
        ('run sys-a', 'analyst')
        >>> result.data.splitlines()[0]
        b'document'
        >>> import tempfile
        >>> from pathlib import Path
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     written = export(store, run="sys-a", output=Path(folder))
        ...     sorted(p.name for p in Path(folder).iterdir()), written.path.name
        (['export.trig', 'manifest.json'], 'export.trig')
    """
    from hopgate.bundles.export import Export, export_bundle, write_export
    from hopgate.bundles.formats import PICTURE_FORMATS
    from hopgate.bundles.picture import card_dot
    from hopgate.bundles.picture import render as draw
    from hopgate.bundles.proofs import sign_directory
    from hopgate.bundles.scope import resolve_scope
    from hopgate.bundles.signing import read_private_key

    signing_key = None
    if key is not None:
        if output is None:
            raise ExportError("a signature signs an export written to output")
        signing_key = read_private_key(key)
    if format in PICTURE_FORMATS:
        if card is None:
            raise ExportError("a picture shows one acceptance card: give --card ID")
        scope = resolve_scope(store, card=card, reader=reader)
        result = Export(draw(card_dot(store, scope), format), format, scope, with_text=False)
    else:
        result = export_bundle(
            store,
            format=format,
            run=run,
            evaluation=evaluation,
            graph=graph,
            card=card,
            reader=reader,
            with_text=with_text,
        )
    if output is None:
        return result
    target = write_export(result, output)
    if signing_key is None:
        return replace(result, path=target)
    signed = sign_directory(target.parent, signing_key, by=by or "", names=[target.name])
    return replace(result, path=target, signer=signed.signer)


def verify(directory: Path, *, trust: Sequence[str] = ()) -> VerifyReport:
    """Check an export directory: signatures, sha256 digests, quotes, PROV-CONSTRAINTS.

    ``hopgate verify DIR [--trust KEY]...``, which exits 1 exactly when
    ``ok`` is False (``problems`` says why). ``trust`` holds trusted signers'
    public keys (a ``.pub`` file, a ``did:key`` or a Multikey): every export
    file must then carry a valid proof by one of them.

    Raises:
        ManifestError: the directory has no readable hopgate manifest, and no proofs.
        SigningError: a ``trust`` value is not a public key.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import evaluate, export, load, open_store, verify
        >>> from hopgate.bundles.export import write_export
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     _ = write_export(export(store, run="sys-a", with_text=True), Path(folder))
        ...     report = verify(Path(folder))
        >>> report.ok, report.files, report.quotes_checked, report.problems
        (True, 1, 13, [])
    """
    from hopgate.bundles.signing import read_public_key
    from hopgate.bundles.verify import verify as _verify

    trusted = [read_public_key(value) for value in trust] if trust else None
    return _verify(directory, trusted=trusted)


def _check_params(sparql: str, params: Mapping[str, Value]) -> None:
    """Refuse a parameter the query cannot take: a name it has no variable for (it would
    be ignored, and the query answer for every run, say), or, where the query's
    ``# parameters:`` header declares it, a value of the wrong kind: a string for an
    IRI (it would match nothing), or a word the header does not list."""
    if not params:
        return
    used = variables(sparql)
    declared = header_parameters(sparql) or None  # a header naming none by ?name: no list
    for name, value in params.items():
        if name not in used:
            known = ", ".join(f"?{n}" for n in (declared or sorted(used))) or "none"
            which = "its parameters" if declared is not None else "its variables"
            raise QueryError(
                f"parameter {name!r}: the query has no variable ?{name} ({which}: {known})"
            )
        described = (declared or {}).get(name)
        if not described:
            continue
        if re.match(r"(optional )?IRI of\b", described) and not isinstance(value, IRI):
            raise QueryError(
                f"parameter {name!r} takes an IRI ({described}), not {value!r}: on the command "
                "line a ledger id as KIND:ID (run:sys-a) or a full IRI as <...>; in Python "
                "hopgate.IRI(hopgate.ids.mint('run', 'sys-a'))"
            )
        words = re.findall(r'"([^"]*)"', described.split(":")[0]) if described[0] == '"' else []
        if words and value not in words:
            raise QueryError(
                f"parameter {name!r} is one of {', '.join(map(repr, words))} ({described}), "
                f"not {value!r}"
            )


def absent_parameters(store: Store, params: Mapping[str, Value]) -> list[str]:
    """The names of the IRI ``params`` that occur nowhere in ``store`` (as a subject,
    predicate, object or graph name): a query bound to one matches nothing, which
    usually means a mistyped id (``hopgate query`` notes them)."""
    ask = (
        "ASK { { ?term ?p ?o } UNION { ?s ?term ?o } UNION { ?s ?p ?term } "
        "UNION { GRAPH ?term { ?s ?p ?o } } }"
    )
    return [
        name
        for name, value in params.items()
        if isinstance(value, IRI) and store.query_any(ask, params={"term": value}) is False
    ]


def query(
    store: Store,
    sparql: str | None = None,
    *,
    path: Path | None = None,
    name: str | None = None,
    params: Mapping[str, Value] | None = None,
    reader: str | None = None,
) -> list[Row] | bool | bytes:
    """Run a SPARQL query: its text, a ``.rq`` file, or a library query by id.

    ``hopgate query QUERY [--param NAME=VALUE]... [--reader R]``. Give exactly one of
    ``sparql`` (the text), ``path`` (a file) or ``name`` (an id of
    ``queries/``, e.g. ``claim-status``). ``params`` are bound to variables
    as escaped terms, never formatted from input: an IRI only matched is
    written in, the rest bound by ``VALUES`` (a ledger id's IRI is
    ``IRI(hopgate.ids.mint(kind, id))``). The default graph is the union of
    the loaded graphs. Returns rows for SELECT (ledger values as IRIs,
    strings, numbers), a bool for ASK, N-Triples bytes for CONSTRUCT and
    DESCRIBE. With ``reader``, every literal text of the result that repeats
    a text withheld from that reader is the withheld marker
    (docs/spec/records.md "What a reader is shown"), and the query runs over a
    copy of the store without those texts (so that it cannot carry one out in
    another form); without it the result is the store's, unfiltered.

    Raises:
        QueryError: not exactly one of ``sparql``, ``path``, ``name``; an
            unknown library id; a parameter the query has no variable for, or
            whose value is not of the kind the query's ``# parameters:`` header
            declares (an IRI, one of the listed words); an unknown reader; or a
            query the store rejects.
        StoreError: ``path`` is not a readable file.

    Example:
        >>> from hopgate import load, open_store, query
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> query(store, "SELECT (COUNT(?c) AS ?n) WHERE { ?c a hg:Claim }")
        [{'n': 4}]
        >>> query(store, "ASK { ?q hg:ledgerId ?id }", params={"id": "qA"})
        True
    """
    if sum(given is not None for given in (sparql, path, name)) != 1:
        raise QueryError("give exactly one of sparql, path or name")
    if path is not None:
        try:
            sparql = read_query(path)
        except InputRefused as exc:
            raise StoreError(f"{path}: cannot read the query: {exc.detail}") from None
    elif name is not None:
        queries = library_queries()
        if name not in queries:
            raise QueryError(
                f"{name!r} is not a library query (known: {', '.join(sorted(queries))})"
            )
        sparql = queries[name].text
    assert sparql is not None
    _check_params(sparql, params or {})
    if reader is None:
        return store.query_any(sparql, params=params)
    check_reader(store, reader, QueryError)
    withholding = for_reader(store, reader)
    # The query asks a copy without the withheld texts (what it cannot read it cannot
    # carry out in any form), and its answer passes the filter as every output's does.
    asked = reader_copy(store, withholding, sparql) if withholding else store
    found = asked.query_any(sparql, params=params)
    if isinstance(found, bool):
        return found
    return withholding.ntriples(found) if isinstance(found, bytes) else withholding.rows(found)


def dump(
    store: Store,
    out: BinaryIO | None = None,
    *,
    path: Path | None = None,
    format: Literal["trig", "nquads"] = "trig",
    graph: str | None = None,
) -> None:
    """Write the store (or one named graph) as TriG or sorted N-Quads, to ``out`` or to ``path``.

    ``hopgate dump [--graph IRI] [--format trig|nquads] [-o FILE]``: ``out``
    is a binary stream (the command's stdout), ``path`` a file (``-o``),
    opened only once the graph is known to exist.

    Raises:
        StoreError: not exactly one of ``out`` and ``path``, ``graph`` is not
            a named graph of the store, or ``path`` cannot be written.

    Example:
        >>> import io
        >>> from hopgate import dump, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> result = load(store, artefact("examples") / "cedar.yaml")
        >>> out = io.BytesIO()
        >>> dump(store, out, format="nquads", graph=result.graph)
        >>> len(out.getvalue().splitlines()) == result.triples
        True
    """
    if (out is None) == (path is None):
        raise StoreError("give exactly one of out or path")
    if graph is not None and graph not in store.graphs():
        raise StoreError(f"no named graph {graph} in the store")
    if out is not None:
        store.dump(out, format=format, graph=graph)
        return
    assert path is not None
    try:
        handle = path.open("wb")
    except OSError as exc:
        raise StoreError(f"{path}: cannot write: {exc.strerror or exc}") from None
    with handle:
        store.dump(handle, format=format, graph=graph)


def doctor(
    endpoint: str,
    *,
    update_endpoint: str | None = None,
    graph_store: str | None = None,
    user: str | None = None,
    password: str | None = None,
    auth: Literal["digest", "basic"] = "digest",
    timeout: float = 600.0,
) -> ServerReport:
    """Check a SPARQL server for what hopgate needs, changing nothing on it.

    ``hopgate --endpoint URL [--update-endpoint URL] [--graph-store URL]
    [--user U --password-env VAR] doctor [--format text|json]``. Probes the
    result-row cap, reads the query cost, query time and transaction limits
    where the server lets a query read them (Virtuoso's ini), and tries the
    reads and writes hopgate sends (a write that drops a graph no one has,
    an empty upload). Each finding names, when hopgate would fail or slow
    down on it, the setting to change and the value to use
    (docs/servers.md); ``ServerReport.needs_change`` is True when a command
    would fail until one changes.

    Raises:
        StoreError: the server cannot be reached.

    Example:
        >>> from hopgate import StoreError, doctor
        >>> try:
        ...     doctor("http://127.0.0.1:9/sparql", timeout=2)
        ... except StoreError as exc:
        ...     print("cannot reach the server" in str(exc))
        True
    """
    from hopgate.store.remote import RemoteStore
    from hopgate.store.remote.doctor import check_server

    store = RemoteStore(
        endpoint,
        update_endpoint=update_endpoint,
        graph_store=graph_store,
        user=user,
        password=password,
        auth=auth,
        timeout=timeout,
    )
    try:
        return check_server(store)
    finally:
        store.close()


def review_queue(
    store: Store, *, run: str | None = None, reader: str | None = None
) -> list[QueueItem]:
    """The subjects awaiting adjudication, disagreements first.

    ``hopgate review queue [--run RUN] [--reader R]``; ``QueueItem.as_dict()``
    is one object of ``--format json``. Reads only. Each item is for
    ``reader`` (default: its run's evaluation's reader): a judgment's decision
    or reason repeating a text withheld from it is the withheld marker
    (docs/spec/records.md "What a reader is shown").

    Raises:
        ReviewError: an unknown run or reader.

    Example:
        >>> from hopgate import load, open_store, review_queue
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> review_queue(store, run="sys-a")
        []
    """
    from hopgate.audit import queue as _review

    readers = Readers(store, reader, ReviewError)
    return [readers.of_run(item.run).redact(item) for item in _review.queue(store, run)]


def review_agreement(store: Store, *, reader: str | None = None) -> list[Agreement]:
    """Each automated judge's agreement with the reviewers' final decisions, per question.

    ``hopgate review agreement [--reader R]``; ``Agreement.as_dict()`` is one
    object of ``--format json``: agreed / finals judged, with each machine
    judgment beside the final judgment in force of its subject and question
    (docs/spec/adjudication.md "Machine triage"). Reads only. Every text (a
    judgment's reason) is shown for ``reader``; with none given, a text
    withheld from any reader of the store is withheld, as in
    :func:`review_judgments`.

    Raises:
        ReviewError: an unknown reader.

    Example:
        >>> from hopgate import load, open_store, review_agreement
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> review_agreement(store)
        []
    """
    from hopgate.audit.agreement import agreement as _agreement

    if reader is not None:
        check_reader(store, reader, ReviewError)
        shown = for_reader(store, reader)
    else:
        shown = _withheld_from_any_reader(store)
    return [shown.redact(found) for found in _agreement(store)]


def triage(
    store: Store,
    *,
    run: str,
    judge: str,
    by: str | None = None,
    timeout: float = 60.0,
    max_output: int = DEFAULT_OUTPUT_CAP,
    pass_env: Sequence[str] = (),
    keep_in: Path | None = None,
) -> TriageResult:
    """Run a judge command on each subject awaiting adjudication for ``run``; record its answers.

    ``hopgate triage --run R --judge CMD [--by NAME] [--timeout S]
    [--max-output BYTES] [--pass-env NAME]... [--keep-in DIR]``. The
    command reads one subject as JSON on standard input (claim, question
    asked, quoted spans with their versions, the question to decide and its
    terms, as the run's evaluation reader may see them) and answers
    ``{"decision", "reason"}``; it gets the minimal environment plus
    ``pass_env``, runs in its own process group, killed after ``timeout``
    seconds, its output read up to ``max_output`` bytes. Each answer is
    recorded as a machine judgment by ``by`` (the judge's name and version;
    default the command), as :func:`judge` records one: initial, changing
    nothing that is scored (docs/spec/adjudication.md "Machine triage").
    Subjects the judge already judged are skipped; a failed or malformed
    answer is listed in ``failed`` with its subject, nothing recorded for it.

    Raises:
        ReviewError: ``run`` is not a run of the store.
        AdjudicationError: no folder to keep the judgments in (an in-memory
            store needs ``keep_in``).

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import load, open_store, triage
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     found = triage(store, run="sys-a", judge="true", keep_in=Path(folder))
        >>> found.answered, found.failed
        ([], [])
    """
    from hopgate.audit import triage as _triage

    limits = Limits(timeout=timeout, output_cap=max_output, pass_env=tuple(pass_env))
    shown = Readers(store, None, ReviewError).of_run(run)
    return _triage.triage(
        store, run=run, command=judge, limits=limits, shown=shown, by=by, folder=keep_in
    )


def review_changes(store: Store, *, run: str, reader: str | None = None) -> ScoreChanges:
    """Compare a run's two latest evaluations: changed verdicts, metrics before and after.

    ``hopgate review changes --run RUN [--reader R]``; ``ScoreChanges.as_dict()``
    is its ``--format json``. Reads only; for ``reader`` (default: the run's
    evaluation's reader) as :func:`review_queue` is.

    Raises:
        NotEvaluatedError: ``run`` is unknown or has no evaluation.
        ReviewError: an unknown reader.

    Example:
        >>> from hopgate import evaluate, load, open_store, review_changes
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> found = review_changes(store, run="sys-a")
        >>> found.before, found.verdicts, found.metrics["complete_set_recall"]["changed"]
        (None, [], False)
    """
    from hopgate.audit import adjudication

    found = adjudication.changes(store, run)
    return Readers(store, reader, ReviewError).of_run(run).redact(found)


def judge(
    store: Store,
    subject: str,
    *,
    question: str,
    decision: str,
    by: str,
    reason: str,
    final: bool = False,
    settles: Sequence[str] = (),
    judgment_id: str | None = None,
    keep_in: Path | None = None,
    sign: Path | None = None,
) -> Recorded:
    """Record one judgment of ``subject``, appended as a one-judgment ledger loaded all or nothing.

    ``hopgate judge SUBJECT --question Q --decision D --by NAME --reason TEXT
    [--final] [--settles J1,J2] [--id ID] [--keep-in DIR] [--sign KEY]``.
    Nothing earlier is edited; a final judgment takes effect at the next
    :func:`evaluate`, where the judgment recorded last is in force
    (docs/spec/adjudication.md "Recording"). ``keep_in`` is where the ledger
    file is kept (default: beside an on-disk store; an in-memory store needs
    one). ``sign`` is a private key file (``hopgate keys new``): the judgment
    carries its signature, which :func:`review_judgments` and the report
    check against trusted keys.

    Raises:
        AdjudicationError: an unknown question, a decision that is not a term of
            the question (its near misses named), a missing reviewer or reason,
            settles on an initial judgment, or no folder to keep the file in.
        LedgerError: an unknown subject, or a subject of the wrong kind (naming
            the judgment); nothing is kept.
        SigningError: ``sign`` is not a readable private key.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import judge, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     recorded = judge(store, "gC2", question="alternatives", decision="sufficient",
        ...                      by="ana", reason="both hops stated", judgment_id="j-ana",
        ...                      keep_in=Path(folder))
        >>> recorded.id
        'j-ana'
    """
    from hopgate.audit import adjudication

    return adjudication.judge(
        store,
        subject,
        question=question,
        decision=decision,
        by=by,
        reason=reason,
        final=final,
        settles=settles,
        judgment_id=judgment_id,
        folder=keep_in,
        signer=_signer(sign),
    )


def _signer(key_file: Path | None) -> Signer | None:
    from hopgate.bundles import judgment_proofs
    from hopgate.bundles.signing import read_private_key

    if key_file is None:
        return None
    key = read_private_key(key_file)
    return lambda fields: judgment_proofs.sign(fields, key)


def review_judgments(
    store: Store,
    *,
    subject: str | None = None,
    final_only: bool = True,
    trust: Sequence[str] = (),
    reader: str | None = None,
) -> list[tuple[JudgmentRecord, Signature]]:
    """The judgments of the store (of ``subject``, a ledger id, when given), each with its signature.

    ``hopgate review judgments [--subject ID] [--all] [--trust KEY]...``: in
    the order the store recorded them (the last recorded final
    judgment of a question is the one in force, docs/spec/adjudication.md
    "Recording"), with who recorded each, when, and whether it is signed by
    a key in ``trust`` (.pub files, did:keys or Multikeys; none given: the
    signature is checked, the key is not). ``final_only`` (the default)
    leaves initial judgments out. Reads only. Every text is shown for
    ``reader`` (docs/spec/records.md "What a reader is shown"); with none
    given, a text withheld from any reader of the store is withheld (the
    judgments belong to no one run, so no run's reader is the default). Each
    signature is checked against what the store holds, before that filter.

    Raises:
        SigningError: a ``trust`` value is not a public key.
        ReviewError: an unknown reader.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import judge, load, open_store, review_judgments
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     _ = judge(store, "gC2", question="entailment", decision="sufficient", by="ana",
        ...               reason="both hops stated", final=True, judgment_id="j-ana",
        ...               keep_in=Path(folder))
        >>> [(j.id, j.recorded_by, s.describe()) for j, s in review_judgments(store)]
        [('j-ana', 'ana', 'unsigned')]
    """
    from hopgate.audit import queue as _review
    from hopgate.bundles import judgment_proofs
    from hopgate.bundles.signing import read_public_key

    trusted = [read_public_key(value) for value in trust] if trust else None
    if reader is not None:
        check_reader(store, reader, ReviewError)
        shown = for_reader(store, reader)
    else:
        shown = _withheld_from_any_reader(store)
    found = [
        j
        for j in _review.judgments(store)
        if (subject is None or j.subject == subject) and (j.final or not final_only)
    ]
    return [(shown.redact(j), shown.redact(judgment_proofs.check(j, trusted))) for j in found]


def _withheld_from_any_reader(store: Store) -> Withholding:
    """The filter withholding every text that any reader class of the store may not see."""
    texts: set[str] = set()
    for row in store.select("SELECT DISTINCT ?id WHERE { ?r a hg:ReaderClass ; hg:ledgerId ?id }"):
        texts.update(for_reader(store, str(row["id"])).texts)
    return Withholding("every reader", texts)


def baseline(
    store: Store,
    *,
    retriever: str = "bm25",
    k: int = 10,
    citer: str = "top1",
    evaluation: str | None = None,
    output: Path | None = None,
) -> BaselineResult:
    """Make and load a BASELINE run: BM25 over the store's spans, one output per required claim.

    ``hopgate baseline [--retriever bm25] [--k K] [--citer top1|topk]
    [--evaluation ID] [-o FILE]``. The run's id is
    ``baseline-<retriever>-k<K>-<citer>``; its outputs are recorded as correct.

    Raises:
        BaselineError: an unknown retriever or citer, k < 1, no indexable span,
            no question, or an ambiguous evaluation.

    Example:
        >>> from hopgate import baseline, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> result = baseline(store, k=3)
        >>> result.run, result.questions
        ('baseline-bm25-k3-top1', 4)
    """
    from hopgate.ingest.baseline import baseline as _baseline

    return _baseline(
        store, retriever=retriever, k=k, citer=citer, evaluation=evaluation, output=output
    )


def sign(directory: Path, *, key: Path, by: str) -> SignResult:
    """Sign every export file of ``directory`` (W3C Data Integrity, eddsa-rdfc-2022).

    ``hopgate sign DIR --key FILE --by NAME``: the proofs, naming ``by``, go
    to ``proofs.json`` beside ``manifest.json``; :func:`verify` checks them.

    Raises:
        SigningError: an unreadable key, no signer name, a file that is not an
            export, or one altered since the manifest was written.
        ManifestError: the directory has no hopgate manifest.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import evaluate, export, load, open_store, sign, verify
        >>> from hopgate.bundles.export import write_export
        >>> from hopgate.bundles.signing import new_key, write_key
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     private, public = write_key(new_key(), Path(folder) / "ann.key")
        ...     _ = write_export(export(store, run="sys-a"), Path(folder) / "out")
        ...     signed = sign(Path(folder) / "out", key=private, by="Ann Lee")
        ...     report = verify(Path(folder) / "out", trust=[str(public)])
        >>> signed.files, report.ok, report.signatures_checked
        (['export.trig'], True, 1)
    """
    from hopgate.bundles.proofs import sign_directory
    from hopgate.bundles.signing import read_private_key

    return sign_directory(directory, read_private_key(key), by=by)


def new_key(output: Path) -> WrittenKey:
    """Make an Ed25519 key pair: the private key at ``output`` (mode 0600), the public beside it.

    ``hopgate keys new -o OUTPUT``: the public key goes to ``OUTPUT.pub``
    (``public_file``); the returned key's ``public_multibase`` is the Multikey
    (``did:key:`` and it is what the command prints) to give to auditors for
    :func:`verify`. Existing files are never overwritten; a missing folder is
    made (owner only).

    Raises:
        SigningError: a key file exists already, or its folder cannot be made.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import new_key
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     key = new_key(Path(folder) / "ann.key")
        ...     written = sorted(p.name for p in Path(folder).iterdir())
        >>> written, key.public_multibase.startswith("z6Mk")
        (['ann.key', 'ann.key.pub'], True)
    """
    from hopgate.bundles.signing import WrittenKey, write_key
    from hopgate.bundles.signing import new_key as _new_key

    key = _new_key()
    private_file, public_file = write_key(key, output)
    return WrittenKey(key.private, private_file, public_file)


def import_files(
    format: str,
    inputs: Sequence[Path] = (),
    *,
    output: Path,
    docs: Sequence[Path] = (),
    gold: Path | None = None,
    answers: Path | None = None,
    run: str | None = None,
    evaluation: str | None = None,
    shape: str | None = None,
    predictions: Path | None = None,
    max_evidence: int = 5,
    drop_empty: bool = False,
    correctness_judge: str | None = None,
    judge_timeout: float = 60.0,
    pass_env: Sequence[str] = (),
) -> ImportResult:
    """Convert a pipeline's or a benchmark's files to a JSON Lines ledger at ``output``.

    ``hopgate import FORMAT [INPUTS]... -o OUTPUT``: ``rag`` (your pipeline:
    ``docs``, ``gold``, ``answers``, ``run``, ``evaluation``, ``shape``: the
    answers' log shape, detected when None (docs/pipeline-shapes.md); no
    ``inputs``; docs/rag-format.md), ``fever`` and ``hotpotqa`` (``predictions``;
    ``max_evidence`` for fever), ``multihop-rag``, ``wice`` (``drop_empty``),
    ``ragas`` (docs/adapters.md). ``--load`` is :func:`load` of ``output``
    after it. ``notes`` says what the import took by default or ignored.
    ``correctness_judge`` (rag) is a command deciding the answers with no
    ``correct`` label and no ``short_answer`` matching the reference, run with
    ``judge_timeout`` seconds and the minimal environment plus ``pass_env``
    (:mod:`hopgate.processes`); without one they are of unknown correctness.

    Raises:
        LedgerError: an input is malformed; the message names file, record
            and field. No ledger is written.
        HopgateError: an unknown format.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import import_files
        >>> from hopgate.library.artefacts import artefact
        >>> examples = artefact("examples")
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     result = import_files(
        ...         "rag", output=Path(folder) / "rag.jsonl", docs=[examples / "rag-docs.jsonl"],
        ...         gold=examples / "rag-gold.jsonl", answers=examples / "rag-answers.jsonl")
        >>> result.records["question"], result.records["case"], result.records["run"]
        (5, 5, 1)
    """
    from hopgate.ingest.adapters import import_files as _import_files
    from hopgate.ingest.correctness import Judge

    return _import_files(
        format,
        list(inputs),
        output=output,
        predictions=predictions,
        max_evidence=max_evidence,
        drop_empty=drop_empty,
        docs=tuple(docs),
        gold=gold,
        answers=answers,
        run=run,
        evaluation=evaluation,
        shape=shape,
        judge=None
        if correctness_judge is None
        else Judge(correctness_judge, Limits(timeout=judge_timeout, pass_env=tuple(pass_env))),
    )


def plan_interventions(
    store: Store,
    *,
    run: str,
    output: Path,
    evaluation: str | None = None,
    variants: Sequence[str] = VARIANTS,
    max_sets: int | None = None,
) -> PlanResult:
    """Plan the interventions of ``run``, record the plan in the store and write it to ``output``.

    ``hopgate interventions plan --run RUN -o OUTPUT [--evaluation RUN@TIME]
    [--variants V]... [--max-sets N]`` (docs/spec/interventions.md): one JSON
    line per planned variant with what the evidence expects of it; variants
    that do not apply are counted in ``inapplicable`` by reason. The plan is
    made from the run's latest evaluation (which must be current) or
    ``evaluation``.

    Raises:
        PlanError: an unknown run, no current evaluation, an unknown variant.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import evaluate, load, open_store, plan_interventions
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     planned = plan_interventions(store, run="sys-a", output=Path(folder) / "plan.jsonl")
        >>> len(planned.variants), sorted({v["expected"] for v in planned.variants})
        (37, ['abstention', 'supported answer'])
    """
    from hopgate.interventions.plan import plan as _plan
    from hopgate.interventions.plan import write_plan

    result = _plan(store, run, evaluation=evaluation, variants=tuple(variants), max_sets=max_sets)
    write_plan(result, output)
    return result


def run_interventions(
    plan: Path,
    *,
    system: str,
    output: Path,
    jobs: int = 1,
    timeout: float = 60.0,
    max_output: int = DEFAULT_OUTPUT_CAP,
    pass_env: Sequence[str] = (),
    correctness_judge: str | None = None,
    store: Store | Callable[[], Store] | None = None,
    only_failed: Path | None = None,
) -> RunResult:
    """Run a system on every variant of a plan and write its answers as ledger cases.

    ``hopgate interventions run --plan PLAN --system SYSTEM -o OUTPUT [--jobs N]
    [--timeout S] [--max-output BYTES] [--pass-env NAME]...
    [--correctness-judge CMD]``: ``system`` is a shell command answering one
    variant (JSON on stdin and stdout) or ``builtin:bm25``; it runs with the
    minimal environment plus ``pass_env``, in its own process group, its
    output read up to ``max_output`` bytes (:mod:`hopgate.processes`). A
    timeout, a non-zero exit, output over the cap or malformed output is a
    failed variant (listed with its reason in ``OUTPUT.failed.jsonl``), never
    an abstention. Correctness is never guessed (:mod:`hopgate.ingest.correctness`).
    ``--load`` is :func:`load` of ``output`` after it (when a variant was
    answered), and passes the ``store``: an answer citing, outside its
    variant's context, a span id the store does not hold is then a failed
    variant too (the loader would refuse the whole answers ledger for it).
    ``store`` may be a function that opens it, called once the answers are in
    (so that the system may read the store while it runs). ``only_failed``
    (``--only-failed``: an earlier run's ``OUTPUT.failed.jsonl``) runs only the
    variants that run failed, for a system that answers differently each time
    (the variants it answered are loaded already, and would not load again).

    Raises:
        RunError: the plan holds no variant.
        PlanError: the plan file cannot be read, or a failed variant of
            ``only_failed`` is not one of the plan's.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from hopgate import evaluate, load, open_store, plan_interventions, run_interventions
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> _ = evaluate(store)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     plan = Path(folder) / "plan.jsonl"
        ...     _ = plan_interventions(store, run="sys-a", output=plan)
        ...     result = run_interventions(plan, system="builtin:bm25", output=Path(folder) / "a.jsonl")
        >>> result.answered, len(result.failed)
        (37, 0)
    """
    from hopgate.ingest.stored import StoredRecords
    from hopgate.interventions.plan import read_plan
    from hopgate.interventions.run import failed_variants, run_plan

    def undefined_spans(span_ids: list[str]) -> set[str]:
        assert store is not None
        held = store() if callable(store) else store
        # The loader's own check of a reference to a stored record (one home).
        missing = StoredRecords(held).undefined([("span", i) for i in span_ids])
        return {i for _, i in missing}

    items = read_plan(plan)
    if only_failed is not None:
        items = failed_variants(items, only_failed)
    return run_plan(
        items,
        system,
        output,
        jobs=jobs,
        timeout=timeout,
        pass_env=tuple(pass_env),
        output_cap=max_output,
        correctness_judge=correctness_judge,
        undefined_spans=None if store is None else undefined_spans,
    )


def build_report(
    store: Store,
    *,
    run: str,
    reader: str | None = None,
    evaluation: str | None = None,
    pictures: int = 50,
    peers: bool = False,
    signed_export: Path | None = None,
    trust: Sequence[str] = (),
    consequential: str = GATE_POLICY,
    require_authority: str = AUTHORITY_POLICY,
) -> Report:
    """The audit report of ``run``: header to sign, metrics, charts, every card and why.

    ``hopgate report --run RUN [--reader R] [--evaluation RUN@TIME]
    [--pictures N] [--peers] [--signed-export DIR [--trust KEY]...]
    [--consequential marked|all] [--require-authority primary|secondary]``;
    :func:`render_report` writes it as HTML, Markdown or JSON. Reads the run's
    latest recorded evaluation (or ``evaluation``), filtered for ``reader``
    exactly as an export is. ``pictures`` caps the card pictures drawn
    (graphviz's ``dot``; cards needing attention first). ``signed_export`` is
    a signed export of the evaluation whose signatures are checked, against
    the ``trust`` keys (as :func:`verify` reads them) when given, for the
    header's signature line. The release decision is the gate's under the
    ``consequential`` policy and the ``require_authority`` policy (as
    :func:`gate`), both stated on the report.

    Raises:
        NotEvaluatedError: the run is unknown or was never evaluated.
        ReportError: an unknown evaluation or reader.
        SigningError: a ``trust`` value is not a public key.
        GateError: an unknown policy.

    Example:
        >>> from hopgate import build_report, evaluate, load, open_store
        >>> store = open_store(None)
        >>> _ = load(store, example("cedar.yaml"))
        >>> _ = evaluate(store)
        >>> found = build_report(store, run="sys-a", pictures=0)
        >>> found.gate.passed, found.gate.failing, len(found.cards)
        (False, ['sys-a/qA/o1'], 4)
    """
    from hopgate.bundles.signing import read_public_key
    from hopgate.report.build import build_report as _build_report

    trusted = [read_public_key(value) for value in trust] if trust else None
    return _build_report(
        store,
        run=run,
        reader=reader,
        evaluation=evaluation,
        pictures=pictures,
        peers=peers,
        signed_export=signed_export,
        trusted=trusted,
        consequential=consequential,
        require_authority=require_authority,
    )


def render_report(report: Report, *, format: str = "html") -> str:
    """A report from :func:`build_report` as ``html`` (one self-contained page), ``md`` or ``json``.

    ``hopgate report --format html|md|json``: every text from the store is
    escaped for the format.

    Raises:
        ReportError: an unknown format.

    Example:
        >>> import json
        >>> from hopgate import build_report, evaluate, load, open_store, render_report
        >>> store = open_store(None)
        >>> _ = load(store, example("cedar.yaml"))
        >>> _ = evaluate(store)
        >>> report = build_report(store, run="sys-a", pictures=0)
        >>> json.loads(render_report(report, format="json"))["header"]["run"]
        'sys-a'
        >>> render_report(report, format="md").startswith("#")
        True
    """
    from hopgate.report.pages import render as _render_report

    return _render_report(report, format)


def diff(
    store: Store,
    *,
    run: str | None = None,
    before: str | None = None,
    after: str | None = None,
    reader: str | None = None,
) -> Diff:
    """What changed between two recorded evaluations of ``run`` (default: its two latest).

    ``hopgate diff [EVAL_A EVAL_B] [--run RUN] [--reader R]``: every output
    whose verdict, route or missing hops changed, the loads and records added
    between them, the metrics side by side. Without ``run``: the run of
    ``before`` (an evaluation id, ``RUN@TIME``), else the store's only run.
    Texts withheld from ``reader`` (default: the run's evaluation's), and
    texts repeating them, are the withheld marker.

    Raises:
        NotEvaluatedError: the run is unknown or has fewer than two evaluations.
        ReportError: a named evaluation is not one of the run's, only one of
            ``before`` and ``after`` is named, or no run is given and the store
            holds several.

    Example:
        >>> from hopgate import diff, evaluate, load, open_store
        >>> store = open_store(None)
        >>> _ = load(store, example("cedar.yaml"))
        >>> _ = evaluate(store)
        >>> _ = evaluate(store, force=True)
        >>> found = diff(store)
        >>> found.run, found.outputs, found.metrics_after.complete_set_recall.numerator
        ('sys-a', [], 2)
    """
    from hopgate.report.diff import diff as _diff

    if run is None and before is not None:
        run = before.rpartition("@")[0]
    if run is None:
        known = catalog.runs(store)
        if len(known) != 1:
            raise ReportError(f"choose a run with --run (runs in the store: {', '.join(known)})")
        run = known[0]
    return _diff(store, run=run, before=before, after=after, reader=reader)
