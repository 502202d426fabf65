"""Ragas samples: what ``EvaluationDataset`` exports, in the column names of v0.1 and v0.2.

Read from JSON Lines, one JSON list, CSV (``to_csv``; list cells as JSON or
Python lists) or Parquet (``pip install hopgate[parquet]``). Column names:
``user_input`` / ``question``; ``response`` / ``answer``; ``reference`` /
``ground_truth`` / ``ground_truths`` (the first); ``retrieved_contexts`` /
``contexts``; ``reference_contexts``; ``retrieved_context_ids``;
``reference_context_ids``. Sample N of the files (numbered on across files)
is ``ragas-N``.

Mapping:

- **with context ids** (a sample with ``retrieved_context_ids`` or
  ``reference_context_ids``): each id -> a ``source``
  (``urn:ragas:context:<id>``) and a ``version`` ``context:<id>`` whose text
  is retained when some sample retrieved it (one span over the whole text),
  else withheld (the span is addressed by the locator ``context <id>``);
- **without ids** (texts only): each distinct reference context text -> a
  ``version`` ``text:<sha256 prefix>`` retaining it, with one span over it.
  A retrieved context is anchored by text in the sample's reference
  contexts: the same text (or a passage of one) is a span of that version;
  a chunk that contains reference contexts delivers each of them whole; any
  other text is a distractor version of its own;
- the sample -> a ``question`` requiring one ``claim`` (the reference, else
  the question); its reference contexts -> one adjudicated ``evidence_set``
  (none: the claim is not found, as in v0.1 data without reference contexts);
- the retrieval -> a ``case`` of the run ``ragas-run`` in rank order, and
  the ``response`` -> one output claim asserting the sample's claim. It cites
  the contexts its ``[n]`` markers name, else every retrieved context (Ragas
  has no citations: the response is grounded on what was retrieved). It is
  correct by a ``correct`` column when there is one, else by
  ``answer_correctness`` or ``factual_correctness`` >= 0.5 when the export
  carries that score, else when the response is the reference after SQuAD
  normalization; otherwise its correctness is unknown (``correct: null``:
  one text holding the other decides nothing); ``x-correct-by`` says which.

A context id retrieved with two different texts is an error naming the line.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hopgate import progress
from hopgate.errors import InputRefused, LedgerError, MissingExtraError
from hopgate.ingest.adapters.common import Record, checked, evaluation, read_items, refused
from hopgate.ingest.adapters.rag import citation_markers, strip_markers
from hopgate.ingest.correctness import exact_match
from hopgate.inputs import MAX_IMPORT_BYTES, decode_text, parse_json, read_document

OBSERVED = "2024-01-01"
EVALUATION = "ragas"
RUN = "ragas-run"
COLUMNS = {
    "question": ("user_input", "question"),
    "response": ("response", "answer"),
    "reference": ("reference", "ground_truth", "ground_truths"),
    "retrieved": ("retrieved_contexts", "contexts"),
    "reference_contexts": ("reference_contexts",),
    "retrieved_ids": ("retrieved_context_ids",),
    "reference_ids": ("reference_context_ids",),
}
SCORES = ("answer_correctness", "factual_correctness")
#: The columns that hold lists (a CSV writes them as JSON or Python lists); in any other
#: column "[2, 3, 5]" or "[Home]" is text.
LIST_COLUMNS = frozenset(
    {"ground_truths", "retrieved_context_ids", "reference_context_ids"}
    | set(COLUMNS["retrieved"])
    | set(COLUMNS["reference_contexts"])
)


def samples(path: Path) -> Iterator[tuple[str, Any]]:
    """(where, sample) for each sample of a JSON Lines, JSON list, CSV or Parquet file."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        yield from _parquet(path)
    elif name.endswith((".csv", ".csv.gz")):
        yield from _csv(path)
    else:
        yield from read_items(path)


def _parquet(path: Path) -> Iterator[tuple[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingExtraError(
            f"{path}: reading Parquet needs pyarrow: pip install 'hopgate[parquet]'"
        ) from None
    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # pyarrow raises its own error types
        raise LedgerError(f"not a Parquet file: {exc}", file=str(path)) from None
    for number, row in enumerate(rows, start=1):
        yield f"row {number}", row


def _csv(path: Path) -> Iterator[tuple[str, Any]]:
    import io

    try:
        text = decode_text(read_document(path, limit=MAX_IMPORT_BYTES))
    except InputRefused as exc:
        raise refused(path, exc) from None
    # A cell may be as long as the file (a retrieved context of 200k characters): the csv
    # module's default limit, 131,072, ended such an export in a traceback.
    if csv.field_size_limit() < MAX_IMPORT_BYTES:
        csv.field_size_limit(MAX_IMPORT_BYTES)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            raise LedgerError(
                f"not CSV: {exc}", file=str(path), record=f"line {reader.line_num}"
            ) from None
        where = f"line {reader.line_num}"
        cells = {k: _cell(v, path, where, k) for k, v in row.items() if k}
        yield where, checked(path, cells, where)


def _cell(value: str | None, path: Path, where: str, column: str) -> Any:
    """A CSV cell: a list written as JSON or as a Python list, a number, or text."""
    if value is None or value == "":
        return None
    stripped = value.strip()
    if column in LIST_COLUMNS and stripped.startswith("[") and stripped.endswith("]"):
        try:
            return parse_json(stripped, strict=False)
        except json.JSONDecodeError:
            pass
        except InputRefused as exc:
            raise refused(path, exc, where) from None
        try:
            return ast.literal_eval(stripped)
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            raise LedgerError(
                "expected a list (JSON or Python syntax)",
                file=str(path),
                record=where,
                field=column,
            ) from None
    if column in SCORES or column.startswith(SCORES):
        try:
            return float(stripped)
        except ValueError:
            return value
    if column == "correct" and stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    return value


def _column(item: dict[str, Any], key: str) -> tuple[str | None, Any]:
    for name in COLUMNS[key]:
        if item.get(name) is not None:
            value = item[name]
            if name == "ground_truths" and isinstance(value, list):
                value = value[0] if value else None
            return name, value
    return None, None


def _texts(item: dict[str, Any], key: str, path: Path, where: str) -> tuple[str | None, list[Any]]:
    name, value = _column(item, key)
    if value is None:
        return name, []
    if isinstance(value, str):
        return name, [value]
    if not isinstance(value, list | tuple):
        raise LedgerError("expected a list", file=str(path), record=where, field=name)
    return name, list(value)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class _Texts:
    """Versions of context texts (no ids): reference texts, then distractors."""

    def __init__(self) -> None:
        self.versions: dict[str, str] = {}  # version id -> text

    def version(self, text: str) -> str:
        vid = f"text:{_digest(text)}"
        self.versions.setdefault(vid, text)
        return vid


def records(inputs: list[Path], notes: list[str] | None = None) -> Iterator[Record]:
    """Ledger records for Ragas sample files.

    Raises:
        LedgerError: a malformed sample, misaligned contexts and ids, or one id
            retrieved with two texts.
        MissingExtraError: a Parquet file without pyarrow installed.
    """
    texts: dict[str, str] = {}
    contexts: list[str] = []
    by_text = _Texts()
    body: list[Record] = []
    judged: Counter[str] = Counter()
    cited_all = no_reference_contexts = 0
    count = 0
    for path in inputs:
        for where, item in progress.counted(samples(path), f"import {path.name}", unit="samples"):
            if not isinstance(item, dict):
                raise LedgerError("expected a JSON object", file=str(path), record=where)
            count += 1
            key = f"ragas-{count}"
            name, question = _column(item, "question")
            if not isinstance(question, str) or not question.strip():
                raise LedgerError(
                    "missing field (Ragas v0.2 user_input, or v0.1 question)"
                    if question is None
                    else "expected a non-empty string",
                    file=str(path),
                    record=where,
                    field=name or "user_input",
                )
            _, reference = _column(item, "reference")
            reference = reference if isinstance(reference, str) and reference.strip() else None
            retrieved_ids = [str(x) for x in _list(item, "retrieved_context_ids", path, where)]
            reference_ids = [str(x) for x in _list(item, "reference_context_ids", path, where)]
            retrieved_name, retrieved_texts = _texts(item, "retrieved", path, where)
            _, reference_texts = _texts(item, "reference_contexts", path, where)
            delivered: list[list[Any]] = []  # per retrieved context: what it delivers
            members: list[str] = []
            if retrieved_ids or reference_ids:
                _check_aligned(retrieved_texts, retrieved_ids, path, where, retrieved_name)
                for cid, text in zip(retrieved_ids, retrieved_texts, strict=False):
                    if not isinstance(text, str) or not text:
                        continue
                    if texts.setdefault(cid, text) != text:
                        raise LedgerError(
                            f"context id {cid!r} was retrieved with another text before",
                            file=str(path),
                            record=where,
                            field=retrieved_name,
                        )
                for cid in retrieved_ids + reference_ids:
                    if cid not in contexts:
                        contexts.append(cid)
                delivered = [[_span(c)] for c in retrieved_ids]
                members = list(dict.fromkeys(_span(c) for c in reference_ids))
                if not reference_ids:
                    # Reference contexts given as texts beside retrieved ones given by id:
                    # each is the retrieved context of that text, else it cannot be named.
                    members = _referenced_by_text(
                        reference_texts, retrieved_ids, retrieved_texts, path, where
                    )
            else:
                refs = [t for t in reference_texts if isinstance(t, str) and t.strip()]
                if not refs:
                    no_reference_contexts += 1
                members = list(dict.fromkeys(f"{by_text.version(t)}#all" for t in refs))
                for number, text in enumerate(retrieved_texts):
                    if not isinstance(text, str) or not text.strip():
                        raise LedgerError(
                            "expected a non-empty context text",
                            file=str(path),
                            record=where,
                            field=f"{retrieved_name}[{number}]",
                        )
                    delivered.append(_anchor(text, refs, by_text))
            body.append({"type": "claim", "id": key, "text": reference or question})
            body.append({"type": "question", "id": key, "text": question, "claims": [key]})
            if members:
                body.append(
                    {
                        "type": "evidence_set",
                        "id": key,
                        "claim": key,
                        "members": members,
                        "inference": "Ragas reference contexts",
                        "status": "adjudicated",
                        "annotation": {"version": 1, "by": "reference", "at": OBSERVED},
                    }
                )
            retrieved = _unique(d for group in delivered for d in group)
            case: Record = {"type": "case", "run": RUN, "question": key, "retrieved": retrieved}
            _, response = _column(item, "response")
            if isinstance(response, str) and response.strip():
                markers = citation_markers(response)
                wrong = [m for m in markers if not 1 <= m <= len(delivered)]
                if wrong:
                    # As the rag format: citing everything instead turned "[2][3]" of two
                    # contexts into a response that cites every hop.
                    raise LedgerError(
                        f"citation marker [{wrong[0]}] names no retrieved context "
                        f"({len(delivered)} retrieved)",
                        file=str(path),
                        record=where,
                        field=_column(item, "response")[0] or "response",
                    )
                if markers:
                    cites = _unique(d for m in markers for d in delivered[m - 1])
                else:
                    cites = retrieved
                    cited_all += 1
                correct, how = _correct(item, response, reference, path, where)
                judged[how] += 1
                case["outputs"] = [
                    {
                        "id": f"{RUN}/{key}",
                        "text": response,
                        "claim": key,
                        "correct": correct,
                        "cites": cites,
                        "x-correct-by": how,
                    }
                ]
            body.append(case)
    yield from evaluation(EVALUATION, cutoff=OBSERVED, corpus="Ragas sample contexts")
    yield from _context_records(contexts, texts)
    for vid, text in by_text.versions.items():
        yield {"type": "source", "id": vid, "address": "urn:ragas:" + vid}
        yield {"type": "version", "id": vid, "source": vid, "text": text, "observed_at": OBSERVED}
        yield {"type": "span", "id": f"{vid}#all", "version": vid, "start": 0, "end": len(text)}
    yield {"type": "run", "id": RUN, "evaluation": EVALUATION, "system": "ragas samples"}
    yield from body
    if notes is not None:
        outputs = sum(judged.values())
        notes.append(f"{count} samples; {outputs} responses recorded as output claims")
        for how, n in sorted(judged.items()):
            notes.append(f"{n} response(s) judged correct or not by {how}")
        if cited_all:
            notes.append(
                f"{cited_all} response(s) without [n] markers cite every retrieved context"
            )
        if no_reference_contexts:
            notes.append(
                f"{no_reference_contexts} sample(s) without reference contexts or ids: their "
                "claims have no evidence set (not found)"
            )


def _context_records(contexts: list[str], texts: dict[str, str]) -> Iterator[Record]:
    for cid in contexts:
        source = f"context:{cid}"
        yield {
            "type": "source",
            "id": source,
            "address": "urn:ragas:context:" + quote(cid, safe=""),
        }
        version: Record = {
            "type": "version",
            "id": source,
            "source": source,
            "observed_at": OBSERVED,
        }
        span: Record = {"type": "span", "id": _span(cid), "version": source}
        if cid in texts:
            version["text"] = texts[cid]
            span.update(start=0, end=len(texts[cid]))
        else:
            span["locator"] = f"context {cid}"
        yield version
        yield span


def _anchor(text: str, references: list[str], by_text: _Texts) -> list[Any]:
    """What a retrieved text delivers, anchored in the sample's reference contexts."""
    for reference in references:
        if text == reference:
            return [f"{by_text.version(reference)}#all"]
    for reference in references:
        position = reference.find(text)
        if position != -1:
            vid = by_text.version(reference)
            return [{"version": vid, "start": position, "end": position + len(text)}]
    inside = [f"{by_text.version(r)}#all" for r in references if r in text]
    if inside:
        return inside
    return [f"{by_text.version(text)}#all"]


def _correct(
    item: dict[str, Any], response: str, reference: str | None, path: Path, where: str
) -> tuple[bool | None, str]:
    """The sample's correctness and how it was decided; None (unknown) rather than a guess.

    One text inside the other decides nothing ("not in Zurich" holds "in
    Zurich"): only the response being the reference after normalization does
    (hopgate.ingest.correctness).
    """
    given = item.get("correct")
    if isinstance(given, bool):
        return given, "the sample's correct column"
    if given is not None:
        # "false" or 0 was skipped, and an exact match then said the opposite.
        raise LedgerError(
            f"expected true or false, got {given!r:.40}",
            file=str(path),
            record=where,
            field="correct",
        )
    for column, value in item.items():
        if not (column in SCORES or column.startswith(SCORES)) or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise LedgerError(
                f"expected a number, got {value!r:.40}", file=str(path), record=where, field=column
            )
        if value == value:  # a number, not NaN
            return value >= 0.5, f"{column} >= 0.5"
    if reference is not None and exact_match(strip_markers(response), reference):
        return True, "exact match of response and reference (SQuAD normalization)"
    return None, "unknown: no correct column, no score, response not the reference"


def _referenced_by_text(
    references: list[Any], ids: list[str], texts: list[Any], path: Path, where: str
) -> list[str]:
    """The spans of the retrieved contexts whose texts are ``references`` (a sample with
    retrieved context ids and reference contexts as texts)."""
    by_text = {text: cid for cid, text in zip(ids, texts, strict=False) if isinstance(text, str)}
    members = []
    for number, reference in enumerate(references):
        if not isinstance(reference, str) or not reference.strip():
            continue
        if reference not in by_text:
            raise LedgerError(
                "a reference context given as text matches no retrieved context, and the "
                "sample's contexts are named by id: give reference_context_ids",
                file=str(path),
                record=where,
                field=f"reference_contexts[{number}]",
            )
        members.append(_span(by_text[reference]))
    return list(dict.fromkeys(members))


def _unique(items: Iterator[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def _check_aligned(
    retrieved_texts: list[Any], retrieved_ids: list[str], path: Path, where: str, name: str | None
) -> None:
    if retrieved_texts and len(retrieved_texts) != len(retrieved_ids):
        raise LedgerError(
            "retrieved_contexts and retrieved_context_ids must align one to one",
            file=str(path),
            record=where,
            field=name or "retrieved_contexts",
        )


def _list(item: Any, name: str, path: Path, where: str) -> list[Any]:
    if not isinstance(item, dict) or item.get(name) is None:
        return []
    value = item[name]
    if not isinstance(value, list | tuple):
        raise LedgerError("expected a list", file=str(path), record=where, field=name)
    return list(value)


def _span(cid: str) -> str:
    return f"context:{cid}#all"
