"""hopgate's exceptions: one base class, one subclass per kind of failure."""

from __future__ import annotations


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


class StoreLockedError(StoreError):
    """Another process holds the on-disk store."""


class QueryError(HopgateError):
    """A SPARQL query or its parameters are invalid."""


class ConflictError(HopgateError):
    """A ledger redefines ids already in the store with different content."""

    def __init__(self, file: str, conflicts: list[tuple[str, str]]) -> None:
        self.file = file
        self.conflicts = conflicts
        listed = ", ".join(f"{kind} {ledger_id!r}" for kind, ledger_id in conflicts[:20])
        more = f" and {len(conflicts) - 20} more" if len(conflicts) > 20 else ""
        super().__init__(
            f"{file}: redefines ids already in the store with different content: {listed}{more}"
        )


class MetricError(HopgateError):
    """A metric's arithmetic failed in the store: a term or a sum came back unbound."""
