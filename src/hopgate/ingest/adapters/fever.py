"""FEVER: the scorer's gold file (``actual.jsonl``) and predictions file.

Mapping (one ledger per gold file; line N of the gold file is aligned with
line N of the predictions file, as the FEVER scorer aligns them):

- each Wikipedia page named anywhere (gold or predicted) -> a ``source``
  (its English Wikipedia address) and one ``version`` whose text is
  withheld (FEVER publishes page/line identifiers, not text);
- each (page, line) -> a ``span`` of that version with locator ``line N``;
  a locator span covers only itself, which is the scorer's exact
  (page, line) match;
- gold line N -> a ``question`` ``fever-N`` requiring one ``claim``
  ``fever-N`` whose text is ``"<label>: <claim text>"`` (the claim is what
  the evidence entails: that the statement is supported, or refuted);
- each gold evidence group -> an adjudicated ``evidence_set``
  ``fever-N/gK`` whose members are the group's (page, line) spans;
  NOT ENOUGH INFO claims have no set (not found, never answerable);
- predictions (optional) -> one run; for line N a ``case`` whose retrieved
  spans are the first ``max_evidence`` (default 5, as the scorer)
  predicted sentences; a predicted NOT ENOUGH INFO is an abstention,
  any other predicted label one output claim asserting ``fever-N``,
  correct when it equals the gold label (upper-cased, as the scorer compares
  them), citing the same spans.

Lost: annotation and evidence ids (kept only in the set's inference text),
the ``verifiable`` flag (implied by the label), predicted sentences beyond
``max_evidence``, the order of the predicted sentences, and their repeats
(the scorer counts each repeat in evidence precision).

Errors: an empty gold evidence group, or a group item without a page or
line on a verifiable claim, is rejected naming the file, line and field.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopgate.errors import LedgerError
from hopgate.ingest.adapters.common import (
    Record,
    evaluation,
    kept_apart,
    read_jsonl,
    require,
    wiki_address,
)

NEI = "NOT ENOUGH INFO"
LABELS = ("SUPPORTS", "REFUTES", NEI)
#: FEVER 1.0 evidence is from the June 2017 Wikipedia dump.
OBSERVED = "2017-06-01"
EVALUATION = "fever"


def span_id(page: str, line: int) -> str:
    """The ledger id of the span for sentence ``line`` of Wikipedia page ``page``."""
    return f"{page}#{line}"


def records(
    gold: Path, predictions: Path | None = None, *, max_evidence: int = 5, run: str = "fever-run"
) -> Iterator[Record]:
    """Ledger records for a FEVER gold file and (optionally) a predictions file.

    Raises:
        LedgerError: a malformed line, an empty evidence group, a label outside
            SUPPORTS / REFUTES / NOT ENOUGH INFO, or files of different lengths.
    """
    pages: dict[str, set[int]] = {}
    body: list[Record] = []
    gold_labels: list[str] = []
    for number, item in read_jsonl(gold):
        where = f"line {number}"
        label = require(item, "label", str, file=gold, record=where)
        if label not in LABELS:
            raise LedgerError(
                f"unknown label {label!r} (expected one of {', '.join(LABELS)})",
                file=str(gold),
                record=where,
                field="label",
            )
        gold_labels.append(label)
        key = f"fever-{len(gold_labels)}"
        text = require(item, "claim", str, file=gold, record=where)
        body.append({"type": "claim", "id": key, "text": f"{label}: {text}"})
        body.append({"type": "question", "id": key, "text": text, "claims": [key]})
        if label == NEI:
            continue
        groups = require(item, "evidence", list, file=gold, record=where)
        for g, group in enumerate(groups):
            members = _group(group, gold, where, f"evidence[{g}]", pages)
            annotation = sorted({str(e[0]) for e in group if isinstance(e, list) and e})
            body.append(
                {
                    "type": "evidence_set",
                    "id": f"{key}/g{g}",
                    "claim": key,
                    "members": members,
                    "inference": "FEVER gold evidence group (annotation "
                    + ", ".join(annotation)
                    + ")",
                    "status": "adjudicated",
                    "annotation": {"version": 1, "by": "FEVER annotators", "at": OBSERVED},
                }
            )
    cases: list[Record] = []
    if predictions is not None:
        cases = list(_cases(predictions, gold_labels, run, max_evidence, pages))
    yield from evaluation(EVALUATION, cutoff=OBSERVED, corpus="Wikipedia, June 2017 dump (FEVER)")
    for page in sorted(pages):
        yield {"type": "source", "id": page, "address": wiki_address(page), "title": page}
        yield {"type": "version", "id": page, "source": page, "observed_at": OBSERVED}
        for line in sorted(pages[page]):
            yield {
                "type": "span",
                "id": span_id(page, line),
                "version": page,
                "locator": f"line {line}",
            }
    yield from body
    if predictions is not None:
        yield {
            "type": "run",
            "id": run,
            "evaluation": EVALUATION,
            "system": predictions.name,
        }
        yield from cases


def _group(group: Any, file: Path, where: str, name: str, pages: dict[str, set[int]]) -> list[str]:
    if not isinstance(group, list) or not group:
        raise LedgerError(
            "empty gold evidence group: a set needs at least one sentence",
            file=str(file),
            record=where,
            field=name,
        )
    members: list[str] = []
    for i, item in enumerate(group):
        if not isinstance(item, list) or len(item) != 4 or not _sentence(item[2], item[3]):
            raise LedgerError(
                "expected [annotation_id, evidence_id, page, line] with a page and a line",
                file=str(file),
                record=where,
                field=f"{name}[{i}]",
            )
        page = kept_apart(item[2], file=file, record=where, field=f"{name}[{i}][2]")
        _add_sentence(members, pages, page, item[3])
    return members


def _sentence(page: object, line: object) -> bool:
    """True for a page name (not empty) and a line number (an int, not ``true``, which
    Python would read as line 1 and hopgate's ids as ``True``)."""
    return isinstance(page, str) and page != "" and type(line) is int


def _add_sentence(spans: list[str], pages: dict[str, set[int]], page: str, line: int) -> None:
    """Note the (page, line) sentence and append its span id once, keeping order."""
    pages.setdefault(page, set()).add(line)
    span = span_id(page, line)
    if span not in spans:
        spans.append(span)


def _cases(
    path: Path, labels: list[str], run: str, max_evidence: int, pages: dict[str, set[int]]
) -> Iterator[Record]:
    count = 0
    for number, item in read_jsonl(path):
        where = f"line {number}"
        count += 1
        if count > len(labels):
            break
        predicted = require(item, "predicted_label", str, file=path, record=where)
        evidence = require(item, "predicted_evidence", list, file=path, record=where)
        retrieved: list[str] = []
        for i, pair in enumerate(evidence[:max_evidence]):
            if not isinstance(pair, list) or len(pair) != 2 or not _sentence(pair[0], pair[1]):
                raise LedgerError(
                    "expected [page, line]",
                    file=str(path),
                    record=where,
                    field=f"predicted_evidence[{i}]",
                )
            page = kept_apart(pair[0], file=path, record=where, field=f"predicted_evidence[{i}][0]")
            _add_sentence(retrieved, pages, page, pair[1])
        key = f"fever-{count}"
        case: Record = {"type": "case", "run": run, "question": key, "retrieved": retrieved}
        # The scorer compares labels upper-cased ("supports" is SUPPORTS): so does this.
        said = predicted.upper()
        if said == NEI:
            case["abstained"] = True
        else:
            case["outputs"] = [
                {
                    "id": f"{run}/{key}",
                    "text": predicted,
                    "claim": key,
                    "correct": said == labels[count - 1],
                    "cites": retrieved,
                }
            ]
        yield case
    if count != len(labels):
        raise LedgerError(
            f"{count} prediction line(s) for {len(labels)} gold line(s): the files must align",
            file=str(path),
        )
