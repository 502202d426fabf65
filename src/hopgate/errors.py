"""hopgate's exceptions: one base class, one subclass per kind of failure."""

from __future__ import annotations

import errno
from typing import Any


class HopgateError(Exception):
    """Base class of every error hopgate raises on purpose."""


class LedgerError(HopgateError):
    """A ledger record is malformed or inconsistent; names file, record and field."""

    def __init__(
        self,
        message: str,
        *,
        file: str,
        record: str | None = None,
        field: str | None = None,
        record_id: str | None = None,
    ) -> None:
        self.file = file
        self.record = record
        self.field = field
        self.record_id = record_id
        self.detail = message
        where = file
        if record:
            where += f": {record}"
        if record_id is not None:
            where += f" (id {record_id!r})"
        if field:
            where += f": field '{field}'"
        super().__init__(f"{where}: {message}")


class StoreError(HopgateError):
    """The store could not be opened, read or written."""


class RowCapReached(StoreError):
    """A server cut an answer at its row cap; the caller reads it in pages or reports it."""

    def __init__(self, cap: int, body: dict[str, Any] | None = None) -> None:
        super().__init__(
            f"the server cut an answer at {cap:,} rows (a result-row cap such as "
            "Virtuoso's [SPARQL] ResultSetMaxRows); raise it in the server's settings "
            "(hopgate's tests use 100000000) and restart the server"
        )
        self.cap = cap
        self.body = body


class StoreLockedError(StoreError):
    """Another process holds the on-disk store."""


class DiskFullError(StoreError):
    """A disk filled while hopgate wrote a graph or its temporary files; nothing half
    written was kept in the store."""


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says a disk (or the user's quota on it) is full: by its error number,
    or, from the engine, which gives none, by its message."""
    if not isinstance(exc, OSError):
        return False
    return exc.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left on device" in str(exc)


class QueryError(HopgateError):
    """A SPARQL query or its parameters are invalid."""


class ConflictError(HopgateError):
    """A ledger redefines ids already in the store with different content."""

    def __init__(self, file: str, conflicts: list[tuple[str, str]]) -> None:
        self.file = file
        self.conflicts = conflicts
        listed = ", ".join(f"{kind} {ledger_id!r}" for kind, ledger_id in conflicts[:20])
        more = f" and {len(conflicts) - 20} more" if len(conflicts) > 20 else ""
        hint = ""
        if any(kind in _RUN_KINDS for kind, _ in conflicts):
            # The usual cause: a second run of the same pipeline imported under the first's id.
            hint = (
                "; a new run of the same questions needs a run id of its own "
                "(hopgate import rag ... --run NEW, the ledger's run id, or record(run=NEW))"
            )
        elif any(kind == "intervention case" for kind, _ in conflicts):
            hint = (
                "; each planned variant of a run is answered once, and these were answered before"
            )
        super().__init__(
            f"{file}: redefines ids already in the store with different content: "
            f"{listed}{more}{hint}"
        )


#: The kinds of record a run's answers make (a conflict among them hints at --run).
_RUN_KINDS = frozenset({"run", "case", "output"})


class MetricError(HopgateError):
    """A metric's arithmetic failed in the store: a term or a sum came back unbound."""


class AnchorError(HopgateError, ValueError):
    """A span cannot be placed in its version's text; ``field`` names the culprit.

    Raised by :func:`hopgate.ingest.anchoring.anchor`; the loader reports it as a
    :class:`LedgerError` naming the record. It is also a :class:`ValueError`
    for callers that catch that.
    """

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class InputRefused(HopgateError, ValueError):
    """An input is outside hopgate's bounds (:mod:`hopgate.inputs`): too large, too deep,
    a refused character, not a regular file; ``record`` and ``field`` say where, when known.

    Readers report it in their own error (a :class:`LedgerError` naming the file,
    a :class:`ShaclError`, a :class:`SigningError`).
    """

    def __init__(
        self, message: str, *, record: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.detail = message
        self.record = record
        self.field = field


class FileRefused(InputRefused):
    """A version's ``file:`` is outside the allowed folders, not a regular file, or too large.

    Raised by :func:`hopgate.ingest.ledger.read_version_file`; the loader reports it
    as a :class:`LedgerError` naming the record.
    """


class EvaluationError(HopgateError):
    """The store holds nothing to evaluate, or an unknown run was asked for."""


class NotEvaluatedError(HopgateError):
    """A run asked for has no evaluation in the store (``hopgate evaluate`` makes one)."""


class GateError(HopgateError):
    """The release gate was asked for a policy it does not know."""


class ValidationError(HopgateError):
    """The shapes or the data to validate could not be read or selected."""


class ShaclError(HopgateError):
    """The data or shapes cannot be read, or the shapes are ill-formed SHACL."""

    def __init__(self, message: str, *, engine: str | None = None) -> None:
        super().__init__(message)
        #: The engine that refused the shapes (None: they were not run).
        self.engine = engine


class IllFormedShape(HopgateError):
    """A shape breaks a rule of SHACL 1.0 (a pre-binding restriction, a malformed query)."""


class UnsupportedShape(HopgateError, ValueError):
    """A shape uses a SHACL feature the SPARQL compiler does not translate exactly.

    Raised by :func:`hopgate.shacl.compiler.compile_shapes`; the validators
    catch it and fall back to the reference engine. It is also a
    :class:`ValueError` for callers that catch that.
    """


class ExportError(HopgateError):
    """An export was asked for something the store does not hold, or ambiguously."""


class ManifestError(HopgateError):
    """A manifest is missing, unreadable or not a hopgate manifest."""


class SigningError(HopgateError):
    """A key cannot be made, read or used, or a proof is malformed."""


class UnmappedRecord(HopgateError, ValueError):
    """A PROV record :func:`hopgate.bundles.provdoc.prov_quads` cannot map in full (so it cannot be signed)."""


class ReportError(HopgateError):
    """A report, explanation or diff was asked of something the store does not record."""


class ExplainError(HopgateError):
    """The output asked about has no acceptance card in the run's recorded evaluation."""


class BaselineError(HopgateError):
    """A baseline run cannot be made from this store."""


class PipelineError(HopgateError):
    """A response cannot be recorded: an unknown question or run, or an ambiguous evaluation."""


class ReviewError(HopgateError):
    """A review read named a run the store does not hold."""


class AdjudicationError(HopgateError):
    """A judgment could not be recorded, or scores could not be compared."""


class PlanError(HopgateError):
    """A plan cannot be made: unknown run, no current evaluation, unknown variant."""


class RunError(HopgateError):
    """A plan cannot be run (no variants, an unusable system command)."""


class SystemAnswerError(HopgateError):
    """A system's answer to one variant cannot be used (kept as the variant's failure)."""


class CommandError(HopgateError):
    """A command the user named could not start, ran past its time, or wrote past its cap."""


class MissingExtraError(HopgateError):
    """An optional dependency of this input format is not installed; names the pip command."""


__all__ = [
    "AdjudicationError",
    "AnchorError",
    "BaselineError",
    "CommandError",
    "ConflictError",
    "DiskFullError",
    "EvaluationError",
    "ExplainError",
    "ExportError",
    "FileRefused",
    "GateError",
    "HopgateError",
    "IllFormedShape",
    "InputRefused",
    "LedgerError",
    "ManifestError",
    "MetricError",
    "MissingExtraError",
    "NotEvaluatedError",
    "PipelineError",
    "PlanError",
    "QueryError",
    "RowCapReached",
    "ReportError",
    "ReviewError",
    "RunError",
    "ShaclError",
    "SigningError",
    "StoreError",
    "StoreLockedError",
    "SystemAnswerError",
    "UnmappedRecord",
    "UnsupportedShape",
    "ValidationError",
]
