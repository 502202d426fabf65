"""hopgate: a provenance graph store for evidence-set tests of multi-hop RAG citations.

Every public name is imported when first used (PEP 562): ``import hopgate.store``, and
each command of the CLI, import only what they use, not the whole API (a read
command's start was 0.4-0.5 s of imports, most of them modules it never called).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hopgate.errors import (
    AdjudicationError,
    AnchorError,
    BaselineError,
    CommandError,
    ConflictError,
    EvaluationError,
    ExplainError,
    ExportError,
    FileRefused,
    GateError,
    HopgateError,
    IllFormedShape,
    InputRefused,
    LedgerError,
    ManifestError,
    MetricError,
    MissingExtraError,
    NotEvaluatedError,
    PipelineError,
    PlanError,
    QueryError,
    ReportError,
    ReviewError,
    RowCapReached,
    RunError,
    ShaclError,
    SigningError,
    StoreError,
    StoreLockedError,
    SystemAnswerError,
    UnmappedRecord,
    UnsupportedShape,
    ValidationError,
)

#: Where each public name other than an error type lives.
_HOMES = {
    "GateResult": "hopgate.api",
    "IRI": "hopgate.store",
    "LedgerBuilder": "hopgate.ingest.pipeline",
    "LoadResult": "hopgate.ingest.loader",
    "OxigraphStore": "hopgate.store",
    "RunMetrics": "hopgate.api",
    "Store": "hopgate.store",
    "ValidationResult": "hopgate.api",
    "VerdictRow": "hopgate.api",
    "VerifyReport": "hopgate.api",
    "__version__": "hopgate._version",
    "baseline": "hopgate.api",
    "build_report": "hopgate.api",
    "diff": "hopgate.api",
    "doctor": "hopgate.api",
    "dump": "hopgate.api",
    "evaluate": "hopgate.api",
    "explain": "hopgate.api",
    "export": "hopgate.api",
    "gate": "hopgate.api",
    "import_files": "hopgate.api",
    "judge": "hopgate.api",
    "load": "hopgate.api",
    "metrics": "hopgate.api",
    "new_key": "hopgate.api",
    "open_endpoint": "hopgate.api",
    "open_store": "hopgate.api",
    "plan_interventions": "hopgate.api",
    "query": "hopgate.api",
    "record": "hopgate.ingest.pipeline",
    "render_report": "hopgate.api",
    "review_agreement": "hopgate.api",
    "review_changes": "hopgate.api",
    "review_judgments": "hopgate.api",
    "review_queue": "hopgate.api",
    "run_interventions": "hopgate.api",
    "sign": "hopgate.api",
    "stats": "hopgate.api",
    "triage": "hopgate.api",
    "validate": "hopgate.api",
    "validate_graph": "hopgate.api",
    "verdicts": "hopgate.api",
    "verify": "hopgate.api",
}

if TYPE_CHECKING:
    from hopgate._version import (
        __version__,
    )
    from hopgate.api import (
        GateResult,
        RunMetrics,
        ValidationResult,
        VerdictRow,
        VerifyReport,
        baseline,
        build_report,
        diff,
        doctor,
        dump,
        evaluate,
        explain,
        export,
        gate,
        import_files,
        judge,
        load,
        metrics,
        new_key,
        open_endpoint,
        open_store,
        plan_interventions,
        query,
        render_report,
        review_agreement,
        review_changes,
        review_judgments,
        review_queue,
        run_interventions,
        sign,
        stats,
        triage,
        validate,
        validate_graph,
        verdicts,
        verify,
    )
    from hopgate.ingest.loader import (
        LoadResult,
    )
    from hopgate.ingest.pipeline import (
        LedgerBuilder,
        record,
    )
    from hopgate.store import (
        IRI,
        OxigraphStore,
        Store,
    )


def __getattr__(name: str) -> Any:
    """Import the module a public name lives in when the name is first used."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'hopgate' has no attribute {name!r}")
    found = getattr(importlib.import_module(home), name)
    globals()[name] = found
    return found


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "AdjudicationError",
    "AnchorError",
    "BaselineError",
    "CommandError",
    "IRI",
    "ConflictError",
    "EvaluationError",
    "ExplainError",
    "ExportError",
    "FileRefused",
    "GateError",
    "LedgerBuilder",
    "HopgateError",
    "IllFormedShape",
    "InputRefused",
    "LedgerError",
    "LoadResult",
    "ManifestError",
    "MetricError",
    "MissingExtraError",
    "NotEvaluatedError",
    "OxigraphStore",
    "PipelineError",
    "PlanError",
    "QueryError",
    "RowCapReached",
    "ReportError",
    "ReviewError",
    "RunError",
    "ShaclError",
    "SigningError",
    "Store",
    "StoreError",
    "StoreLockedError",
    "SystemAnswerError",
    "UnmappedRecord",
    "UnsupportedShape",
    "ValidationError",
    "__version__",
    "open_store",
    "record",
    "validate_graph",
    # The twin of each command (hopgate.api, docs/api.md), and its results.
    "GateResult",
    "RunMetrics",
    "ValidationResult",
    "VerdictRow",
    "VerifyReport",
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
    "open_endpoint",
    "plan_interventions",
    "query",
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
    "verdicts",
    "verify",
]
