"""WiCE (claim level): ``label``, ``supporting_sentences``, ``claim``, ``evidence``, ``meta``.

Mapping (one record per claim of a ``claim/*.jsonl`` file):

- the cited web page of the claim -> a ``source`` and a ``version`` (id
  ``wice-<meta.id>``) whose text is retained: the ``evidence`` sentences
  joined by newlines;
- each non-blank evidence sentence -> a ``span`` ``<version>#<index>``
  with offsets and exact quote;
- the claim -> a ``question`` and a ``claim`` (the claim text);
  ``label`` is kept as ``x-label`` on the claim;
- every listed set of ``supporting_sentences`` -> an ``evidence_set``
  ``<version>/s<k>``: adjudicated when the claim's label is ``supported``
  (per the WiCE README every listed set is then a valid alternative);
  ``rejected`` when it is ``partially_supported`` or ``not_supported``, as
  such a set supports only part of the claim (WiCE's sub-claims), so it is
  no complete evidence set of the claim, kept and shown but never eligible;
  a claim without a label keeps its sets adjudicated. Sets are kept as
  listed: duplicates and strict supersets stay (the shapes' warnings report
  them).

An empty set would be trivially contained in any retrieval, so it is
rejected, naming the file, line and field; with ``drop_empty`` it is
dropped instead and counted. Lost: ``meta.claim_title``, ``claim_section``
and ``claim_context`` (kept as ``x-meta`` on the claim), and the page's URL
(the data gives none: the source address is a ``urn:wice:`` name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from hopgate.errors import LedgerError
from hopgate.ingest.adapters.common import (
    Record,
    evaluation,
    first_time,
    id_text,
    read_jsonl,
    require,
    sentence_spans,
)

#: WiCE's web pages were archived by Common Crawl before the 2022 release.
OBSERVED = "2022-06-01"
EVALUATION = "wice"
#: The labels whose listed sets support only part of the claim.
PARTIAL_LABELS = frozenset({"partially_supported", "not_supported"})


def records(
    inputs: list[Path], *, drop_empty: bool = False, dropped: Counter[str] | None = None
) -> Iterator[Record]:
    """Ledger records for WiCE claim-level files.

    Raises:
        LedgerError: a malformed line, an index out of range or naming a blank
            sentence, or (without ``drop_empty``) an empty supporting set.
    """
    dropped = Counter() if dropped is None else dropped
    yield from evaluation(EVALUATION, cutoff=OBSERVED, corpus="Web pages cited in Wikipedia (WiCE)")
    seen: dict[str, str] = {}  # claim key -> where it was first read
    for path in inputs:
        for number, item in read_jsonl(path):
            where = f"line {number}"
            claim = require(item, "claim", str, file=path, record=where)
            sentences = require(item, "evidence", list, file=path, record=where)
            sets = require(item, "supporting_sentences", list, file=path, record=where)
            meta = item.get("meta") if isinstance(item.get("meta"), dict) else {}
            name = (
                id_text(meta["id"], file=path, record=where, field="meta.id")
                if "id" in meta
                else f"{path.stem}-{number}"
            )
            key = f"wice-{name}"
            first_time(seen, key, "claim id", file=path, record=where, field="meta.id")
            for s, sentence in enumerate(sentences):
                if not isinstance(sentence, str):
                    raise LedgerError(
                        f"expected a sentence (text), got {sentence!r:.80}",
                        file=str(path),
                        record=where,
                        field=f"evidence[{s}]",
                    )
            text, offsets = sentence_spans(sentences, separator="\n")
            label = item.get("label")
            if label is not None and not isinstance(label, str):
                raise LedgerError(
                    f"expected a label (text), got {label!r:.80}",
                    file=str(path),
                    record=where,
                    field="label",
                )
            partial = label in PARTIAL_LABELS
            yield {
                "type": "source",
                "id": key,
                "address": "urn:wice:" + quote(key, safe=""),
            }
            yield {
                "type": "version",
                "id": key,
                "source": key,
                "text": text,
                "observed_at": OBSERVED,
            }
            for s, where_in in enumerate(offsets):
                if where_in is not None:
                    yield {
                        "type": "span",
                        "id": f"{key}#{s}",
                        "version": key,
                        "start": where_in[0],
                        "end": where_in[1],
                        "quote": text[where_in[0] : where_in[1]],
                    }
            claim_record: Record = {"type": "claim", "id": key, "text": claim}
            if isinstance(item.get("label"), str):
                claim_record["x-label"] = item["label"]
            extra = {k: v for k, v in meta.items() if k != "id"}
            if extra:
                claim_record["x-meta"] = extra
            yield claim_record
            yield {"type": "question", "id": key, "text": claim, "claims": [key]}
            for k, members in enumerate(sets):
                name = f"supporting_sentences[{k}]"
                if not isinstance(members, list):
                    raise LedgerError(
                        "expected a list of sentence indices",
                        file=str(path),
                        record=where,
                        field=name,
                    )
                if not members:
                    if drop_empty:
                        dropped["empty supporting set"] += 1
                        continue
                    raise LedgerError(
                        "empty supporting-sentence set: it would be contained in any "
                        "retrieval (use --drop-empty to drop such sets)",
                        file=str(path),
                        record=where,
                        field=name,
                    )
                for m in members:
                    if type(m) is not int or not 0 <= m < len(offsets) or offsets[m] is None:
                        raise LedgerError(
                            f"sentence index {m!r} is not a non-blank evidence sentence",
                            file=str(path),
                            record=where,
                            field=name,
                        )
                yield {
                    "type": "evidence_set",
                    "id": f"{key}/s{k}",
                    "claim": key,
                    "members": [f"{key}#{m}" for m in dict.fromkeys(members)],
                    "inference": (
                        f"WiCE supporting sentences of a claim labelled {label}: they do not "
                        "entail the whole claim"
                        if partial
                        else "WiCE supporting sentences (jointly entail the claim)"
                    ),
                    "status": "rejected" if partial else "adjudicated",
                    "annotation": {"version": 1, "by": "WiCE annotators", "at": OBSERVED},
                }
