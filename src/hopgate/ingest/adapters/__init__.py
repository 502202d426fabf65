"""Importers: public benchmark files in, ledger records out (one module per format).

Each module documents its mapping (which field becomes which record, and what
is lost); ``docs/adapters.md`` gathers them. ``import_files`` is what
``hopgate import`` calls.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopgate.errors import HopgateError, LedgerError
from hopgate.ingest.adapters.common import ImportResult, Record, write_ledger

FORMATS = ("rag", "fever", "hotpotqa", "multihop-rag", "wice", "ragas")


def _records(
    format: str, inputs: list[Path], options: dict[str, Any], result: ImportResult
) -> Iterator[Record]:
    if format == "rag":
        from hopgate.ingest.adapters import rag

        if inputs:
            raise HopgateError("rag: give the files as --docs, --gold and --answers")
        if not options.get("docs") or options.get("gold") is None:
            raise HopgateError("rag: --docs and --gold are required (--answers for a run)")
        yield from rag.records(
            docs=list(options["docs"]),
            gold=options["gold"],
            answers=options.get("answers"),
            run=options.get("run") or rag.RUN,
            evaluation=options.get("evaluation") or rag.EVALUATION,
            shape=options.get("shape"),
            notes=result.notes,
            counts=result.counts,
            judge=options.get("judge"),
        )
    elif format == "fever":
        from hopgate.ingest.adapters import fever

        if len(inputs) != 1:
            raise HopgateError("fever: give one gold file (and --predictions for a run)")
        yield from fever.records(
            inputs[0], options.get("predictions"), max_evidence=options.get("max_evidence", 5)
        )
    elif format == "hotpotqa":
        from hopgate.ingest.adapters import hotpotqa

        yield from hotpotqa.records(inputs, options.get("predictions"))
    elif format == "multihop-rag":
        from hopgate.ingest.adapters import multihop_rag

        yield from multihop_rag.records(inputs)
    elif format == "wice":
        from hopgate.ingest.adapters import wice

        yield from wice.records(
            inputs, drop_empty=bool(options.get("drop_empty")), dropped=result.dropped
        )
    elif format == "ragas":
        from hopgate.ingest.adapters import ragas

        yield from ragas.records(inputs, notes=result.notes)
    else:
        raise HopgateError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")


def import_files(format: str, inputs: list[Path], *, output: Path, **options: Any) -> ImportResult:
    """Convert benchmark files of ``format`` into one JSON Lines ledger at ``output``.

    Options: ``docs``, ``gold``, ``answers``, ``run``, ``evaluation``, ``shape``,
    ``judge`` (a :class:`hopgate.ingest.correctness.Judge`) (rag; no ``inputs``),
    ``predictions`` (fever, hotpotqa), ``max_evidence`` (fever),
    ``drop_empty`` (wice). What the import wants said (defaults it took,
    fields it ignored) is in ``notes``.

    Raises:
        LedgerError: an input is malformed; the message names file, record and field.
            No ledger is written.
    """
    _refuse_overwriting_an_input(output, inputs, options)
    result = ImportResult(format=format, ledger=str(output))
    result.records = write_ledger(_records(format, inputs, options, result), output)
    return result


def _refuse_overwriting_an_input(output: Path, inputs: list[Path], options: dict[str, Any]) -> None:
    """An import never writes its ledger over one of its own inputs (by name or by link)."""
    named = [*inputs, *(options.get("docs") or ())]
    named += [options[key] for key in ("gold", "answers", "predictions") if options.get(key)]
    target = Path(os.path.realpath(output))
    for given in named:
        path = Path(given)
        same = Path(os.path.realpath(path)) == target
        if not same and target.exists() and path.exists():
            same = os.path.samefile(target, path)
        if same:
            raise LedgerError(
                f"the ledger to write is the input {path}; writing it would replace the input "
                "(give another -o)",
                file=str(output),
            )


__all__ = ["FORMATS", "ImportResult", "import_files"]
