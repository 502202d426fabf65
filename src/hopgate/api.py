"""The Python twin of the ``hopgate`` command line: one function per command.

Each function calls the code its command calls, with the same defaults and
the same errors (every one a :class:`hopgate.HopgateError`); what the command
adds is parsing arguments, opening the store, printing and the exit code.
Options are keyword-only, results are dataclasses. ``docs/api.md`` lists each function beside its
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

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO, Literal

# The modules named like the functions below (evaluate, validate, export,
# baseline) are imported here, under other names, before hopgate/__init__.py
# binds ``hopgate.<name>`` to the function: importing such a module for the
# first time later would rebind ``hopgate.<name>`` to the module.
from hopgate.audit import adjudication
from hopgate.audit import queue as _review
from hopgate.audit.adjudication import Recorded, ScoreChanges
from hopgate.audit.inspection import Stats
from hopgate.audit.inspection import stats as stats
from hopgate.audit.queue import QueueItem
from hopgate.audit.results import GateResult, RunMetrics, VerdictRow
from hopgate.audit.results import gate as _gate
from hopgate.audit.results import metrics as _metrics
from hopgate.audit.results import verdicts as _verdicts
from hopgate.audit.withholding import Readers, check_reader, for_reader
from hopgate.bundles.export import Export, export_bundle
from hopgate.bundles.proofs import SignResult, sign_directory
from hopgate.bundles.signing import (
    SigningKey,
    read_private_key,
    read_public_key,
    write_key,
)
from hopgate.bundles.signing import new_key as _new_key
from hopgate.bundles.verify import VerifyReport
from hopgate.bundles.verify import verify as _verify
from hopgate.decide.evaluation import EvaluationRecord
from hopgate.decide.evaluation import evaluate as _evaluate
from hopgate.decide.variants import VARIANTS
from hopgate.errors import InputRefused, QueryError, ReportError, ReviewError, StoreError
from hopgate.ingest.adapters import ImportResult
from hopgate.ingest.adapters import import_files as _import_files
from hopgate.ingest.baseline import BaselineResult
from hopgate.ingest.baseline import baseline as _baseline
from hopgate.ingest.loader import LoadResult
from hopgate.ingest.loader import load as load
from hopgate.inputs import decode_text, read_regular
from hopgate.interventions.plan import PlanResult, read_plan, write_plan
from hopgate.interventions.plan import plan as _plan
from hopgate.interventions.run import RunResult, run_plan
from hopgate.library.artefacts import library_queries
from hopgate.progress import Reporter
from hopgate.report.build import Report
from hopgate.report.build import build_report as build_report
from hopgate.report.diff import Diff
from hopgate.report.diff import diff as diff
from hopgate.report.explain import Explanation, reasons
from hopgate.report.explain import explain as explain
from hopgate.shacl.validation import ValidationResult
from hopgate.shacl.validation import validate as _validate
from hopgate.store import Row, Store, Value

__all__ = [
    "BaselineResult",
    "Diff",
    "EvaluationRecord",
    "Explanation",
    "Export",
    "GateResult",
    "ImportResult",
    "LoadResult",
    "PlanResult",
    "QueueItem",
    "Recorded",
    "Report",
    "RunMetrics",
    "RunResult",
    "ScoreChanges",
    "SignResult",
    "SigningKey",
    "Stats",
    "ValidationResult",
    "VerdictRow",
    "VerifyReport",
    "baseline",
    "build_report",
    "diff",
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
    "review_changes",
    "review_queue",
    "run_interventions",
    "sign",
    "stats",
    "validate",
    "verdicts",
    "verify",
]


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
    return _evaluate(store, run=run, force=force, by=by, progress=progress)


def verdicts(
    store: Store, *, run: str | None = None, reader: str | None = None
) -> list[VerdictRow]:
    """The acceptance card of every output claim of each run's latest evaluation.

    ``hopgate verdicts [--run RUN] [--reader R]``; ``VerdictRow.as_dict()`` is
    one object of ``--format json``. Reads only: a run never evaluated is not
    shown; a stale evaluation is read as recorded, with ``stale`` and
    ``stale_reason``. Each run's rows are for ``reader`` (default: that run's
    evaluation's reader): a text repeating one withheld from it (a judgment's
    reason) is the withheld marker (docs/spec/records.md "What a reader is shown").

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
    return [readers.of_run(row.run).redact(row) for row in _verdicts(store, run=run)]


def metrics(
    store: Store, *, run: str | None = None, reader: str | None = None
) -> dict[str, RunMetrics]:
    """Complete-set recall, citation-set completeness and answer correctness, per run.

    ``hopgate metrics [--run RUN] [--reader R]``; ``RunMetrics.as_dict()`` is
    one run's entry of ``--format json`` (``--peers`` adds
    :func:`hopgate.audit.peers.peer_metrics`). Every figure carries its numerator
    and denominator; an empty denominator gives ``value`` None. Reads only.
    Texts (a stale reason) pass the reader filter as in :func:`verdicts`;
    figures are the same for every reader.

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
    readers = Readers(store, reader, ReportError)
    return {
        run_id: readers.of_run(run_id).redact(figures)
        for run_id, figures in _metrics(store, run=run).items()
    }


def gate(store: Store, *, run: str, evaluate: bool = False) -> GateResult:
    """The release gate: pass only when every consequential output claim of ``run`` is accepted.

    ``hopgate gate --run RUN [--evaluate]``, whose exit code is 0 exactly
    when ``passed``. Reads only, unless ``evaluate``: then the run is first
    evaluated when its latest evaluation is missing or stale. A missing or
    stale evaluation fails the gate with ``stale`` and its ``reason``;
    ``reasons`` says, for each output in ``failing``, why it is not accepted.
    The result is for the run's evaluation's reader: a text of a failing row
    repeating one withheld from it is the withheld marker.

    Raises:
        NotEvaluatedError: ``run`` is unknown.
        EvaluationError: ``evaluate`` is set and ``run`` is unknown.

    Example:
        >>> from hopgate import gate, load, open_store
        >>> from hopgate.library.artefacts import artefact
        >>> store = open_store(None)
        >>> _ = load(store, artefact("examples") / "cedar.yaml")
        >>> gate(store, run="sys-a").reason
        "run 'sys-a' has never been evaluated"
        >>> result = gate(store, run="sys-a", evaluate=True)
        >>> result.passed, result.consequential, [row.output for row in result.failing]
        (False, 2, ['sys-a/qA/o1'])
        >>> print(result.reasons["sys-a/qA/o1"])  # doctest: +ELLIPSIS
        Revise-citations: ... its citations leave out a1 of the nearest eligible set ...
    """
    if evaluate:
        _evaluate(store, run=run)
    result = _gate(store, run=run)
    if not (result.passed or result.stale):
        result = replace(result, reasons=reasons(store, run, result.failing))
    # The failing rows carry judgments' reasons: for the evaluation's reader, as verdicts.
    return Readers(store, None, ReportError).of_run(run).redact(result)


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
) -> Export:
    """Export PROV bundles as ``reader`` may see them: TriG, JSON-LD, PROV-N, PROV-JSON, PROV-XML.

    ``hopgate export [--run RUN | --evaluation RUN@TIME | --graph IRI | --card
    ID] [--reader R] [--with-text] [--format F]``; ``data`` holds the bytes
    the command writes to stdout. ``write_export(result, folder)`` (from
    :mod:`hopgate.bundles.export`) writes them with ``manifest.json`` as ``-o`` does; a card's
    picture (``--format svg``) and ``--sign`` are the command's. Choose at
    most one scope; none exports every bundle.

    Raises:
        ExportError: an unknown format, scope or reader, or an ambiguous reader.

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
    """
    return export_bundle(
        store,
        format=format,
        run=run,
        evaluation=evaluation,
        graph=graph,
        card=card,
        reader=reader,
        with_text=with_text,
    )


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
    trusted = [read_public_key(value) for value in trust] if trust else None
    return _verify(directory, trusted=trusted)


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
    as values, never spliced into the text (a ledger id's IRI is
    ``IRI(hopgate.ids.mint(kind, id))``). The default graph is the union of
    the loaded graphs. Returns rows for SELECT (ledger values as IRIs,
    strings, numbers), a bool for ASK, N-Triples bytes for CONSTRUCT and
    DESCRIBE. With ``reader``, every literal text of the result that repeats
    a text withheld from that reader is the withheld marker
    (docs/spec/records.md "What a reader is shown"); without it the result is
    the store's, unfiltered. The query itself runs over the whole store.

    Raises:
        QueryError: not exactly one of ``sparql``, ``path``, ``name``; an
            unknown library id; an unknown reader; or a query the store rejects.
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
            sparql = decode_text(read_regular(path))
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
    if reader is not None:
        check_reader(store, reader, QueryError)
    found = store.query_any(sparql, params=params)
    if reader is None or isinstance(found, bool):
        return found
    withholding = for_reader(store, reader)
    return withholding.ntriples(found) if isinstance(found, bytes) else withholding.rows(found)


def dump(
    store: Store,
    out: BinaryIO,
    *,
    format: Literal["trig", "nquads"] = "trig",
    graph: str | None = None,
) -> None:
    """Write the store (or one named graph) to ``out`` as TriG or sorted N-Quads.

    ``hopgate dump [--graph IRI] [--format trig|nquads] [-o FILE]``.

    Raises:
        StoreError: ``graph`` is not a named graph of the store.

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
    if graph is not None and graph not in store.graphs():
        raise StoreError(f"no named graph {graph} in the store")
    store.dump(out, format=format, graph=graph)


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
    readers = Readers(store, reader, ReviewError)
    return [readers.of_run(item.run).redact(item) for item in _review.queue(store, run)]


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
) -> Recorded:
    """Record one judgment of ``subject``, appended as a one-judgment ledger loaded all or nothing.

    ``hopgate judge SUBJECT --question Q --decision D --by NAME --reason TEXT
    [--final] [--settles J1,J2] [--id ID] [--keep-in DIR]``. Nothing earlier
    is edited; a final judgment takes effect at the next :func:`evaluate`.
    ``keep_in`` is where the ledger file is kept (default: beside an on-disk
    store; an in-memory store needs one).

    Raises:
        AdjudicationError: a missing reviewer or reason, settles on an initial
            judgment, or no folder to keep the file in.
        LedgerError: an unknown subject or question, a decision that is not a
            term of the question; nothing is kept.

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
    )


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
    return sign_directory(directory, read_private_key(key), by=by)


def new_key(output: Path) -> SigningKey:
    """Make an Ed25519 key pair: the private key at ``output`` (mode 0600), the public beside it.

    ``hopgate keys new -o OUTPUT``: the public key goes to ``OUTPUT.pub``;
    the returned key's ``public_multibase`` is the Multikey (``did:key:`` and
    it is what the command prints) to give to auditors for :func:`verify`.
    Existing files are never overwritten.

    Raises:
        SigningError: a key file exists already, or its folder does not.

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
    key = _new_key()
    write_key(key, output)
    return key


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
) -> ImportResult:
    """Convert a pipeline's or a benchmark's files to a JSON Lines ledger at ``output``.

    ``hopgate import FORMAT [INPUTS]... -o OUTPUT``: ``rag`` (your pipeline:
    ``docs``, ``gold``, ``answers``, ``run``, ``evaluation``, ``shape``: the
    answers' log shape, detected when None (docs/pipeline-shapes.md); no
    ``inputs``; docs/rag-format.md), ``fever`` and ``hotpotqa`` (``predictions``;
    ``max_evidence`` for fever), ``multihop-rag``, ``wice`` (``drop_empty``),
    ``ragas`` (docs/adapters.md). ``--load`` is :func:`load` of ``output``
    after it. ``notes`` says what the import took by default or ignored.

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
    result = _plan(store, run, evaluation=evaluation, variants=tuple(variants), max_sets=max_sets)
    write_plan(result, output)
    return result


def run_interventions(
    plan: Path, *, system: str, output: Path, jobs: int = 1, timeout: float = 60.0
) -> RunResult:
    """Run a system on every variant of a plan and write its answers as ledger cases.

    ``hopgate interventions run --plan PLAN --system SYSTEM -o OUTPUT [--jobs N]
    [--timeout S]``: ``system`` is a shell command answering one variant
    (JSON on stdin and stdout) or ``builtin:bm25``. A timeout, a non-zero exit
    or malformed output is a failed variant (listed with its reason in
    ``OUTPUT.failed.jsonl``), never an abstention. ``--load`` is
    :func:`load` of ``output`` after it (when a variant was answered).

    Raises:
        RunError: the plan holds no variant.
        PlanError: the plan file cannot be read.

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
    return run_plan(read_plan(plan), system, output, jobs=jobs, timeout=timeout)
