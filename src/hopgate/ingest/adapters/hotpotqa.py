"""HotpotQA: the official JSON (``_id``, ``question``, ``answer``, ``supporting_facts``, ``context``).

Mapping:

- each context paragraph ``[title, sentences]`` -> a ``source`` (the English
  Wikipedia page ``title``) and a ``version`` whose text is retained: the
  sentences concatenated as given (HotpotQA keeps each sentence's leading
  space, so this is the paragraph). The version id is the title; a title whose
  paragraph differs between questions gets one version per distinct text
  (``title@2``, ...);
- each non-blank sentence -> a ``span`` ``<version>#<index>`` with its offsets
  and exact quote (blank sentences have no span);
- each question -> a ``question`` and one ``claim`` (``"<question> <answer>"``,
  the reference answer asserted), with its ``supporting_facts`` as one
  adjudicated ``evidence_set`` (HotpotQA gives one gold set per question);
- ``--predictions`` in the official prediction format
  (``{"answer": {id: text}, "sp": {id: [[title, index], ...]}}``) -> one run:
  per question a case retrieving and an output citing the predicted
  supporting facts; the output is correct when its answer equals the gold
  answer after the official normalisation (lower case, no punctuation, no
  articles, single spaces).

Lost: ``type`` and ``level`` (kept as ``x-type`` / ``x-level`` on the
question), and the paragraph order within a question's context.

Errors: a supporting fact whose title is not in the question's context, or
whose index is outside the paragraph or names a blank sentence, names the file,
the record (``[i]``) and the field.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopgate.errors import LedgerError
from hopgate.ingest.adapters.common import (
    Record,
    evaluation,
    first_time,
    kept_apart,
    read_json,
    require,
    sentence_spans,
    wiki_address,
)

#: The HotpotQA paragraphs are from the October 2017 Wikipedia dump.
OBSERVED = "2017-10-01"
EVALUATION = "hotpotqa"


def normalize_answer(text: str) -> str:
    """The official HotpotQA / SQuAD answer normalisation."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def records(
    inputs: list[Path], predictions: Path | None = None, *, run: str = "hotpotqa-run"
) -> Iterator[Record]:
    """Ledger records for HotpotQA files (and optionally an official prediction file).

    Raises:
        LedgerError: a malformed record or an unanchored supporting fact.
    """
    versions: dict[tuple[str, str], str] = {}  # (title, text) -> version id
    per_title: dict[str, int] = {}
    used_versions: set[str] = set()
    questions: dict[str, str] = {}  # _id as text -> where it was first read
    head: list[Record] = []
    body: list[Record] = []
    answers: dict[str, str] = {}
    anchored: dict[str, dict[tuple[str, int], str]] = {}
    for path in inputs:
        data = read_json(path)
        if not isinstance(data, list):
            raise LedgerError("expected a JSON list of questions", file=str(path))
        for i, item in enumerate(data):
            where = f"[{i}]"
            qid = str(require(item, "_id", (str, int), file=path, record=where))
            first_time(questions, qid, "_id", file=path, record=where, field="_id")
            question = require(item, "question", str, file=path, record=where)
            answer = require(item, "answer", str, file=path, record=where)
            context = require(item, "context", list, file=path, record=where)
            facts = require(item, "supporting_facts", list, file=path, record=where)
            spans: dict[tuple[str, int], str] = {}
            for p, paragraph in enumerate(context):
                if (
                    not isinstance(paragraph, list)
                    or len(paragraph) != 2
                    or not isinstance(paragraph[0], str)
                    or not isinstance(paragraph[1], list)
                ):
                    raise LedgerError(
                        "expected [title, [sentences]]",
                        file=str(path),
                        record=where,
                        field=f"context[{p}]",
                    )
                title = kept_apart(paragraph[0], file=path, record=where, field=f"context[{p}][0]")
                sentences = paragraph[1]
                text, offsets = sentence_spans([str(s) for s in sentences])
                version = versions.get((title, text))
                if version is None:
                    first = title not in per_title
                    per_title[title] = per_title.get(title, 0) + 1
                    version = title if first else f"{title}@{per_title[title]}"
                    # Another title may be spelled like a generated id ("A@2" beside a
                    # title "A" with two texts): the next free number, never a shared id.
                    while version in used_versions:
                        per_title[title] += 1
                        version = f"{title}@{per_title[title]}"
                    used_versions.add(version)
                    versions[(title, text)] = version
                    if first:
                        head.append(
                            {
                                "type": "source",
                                "id": title,
                                "address": wiki_address(title),
                                "title": title,
                            }
                        )
                    head.append(
                        {
                            "type": "version",
                            "id": version,
                            "source": title,
                            "text": text,
                            "observed_at": OBSERVED,
                        }
                    )
                    for s, where_in in enumerate(offsets):
                        if where_in is not None:
                            start, end = where_in
                            head.append(
                                {
                                    "type": "span",
                                    "id": f"{version}#{s}",
                                    "version": version,
                                    "start": start,
                                    "end": end,
                                    "quote": text[start:end],
                                }
                            )
                for s, where_in in enumerate(offsets):
                    if where_in is not None:
                        spans[(title, s)] = f"{version}#{s}"
            members = [
                _member(spans, fact, path, where, f"supporting_facts[{f}]")
                for f, fact in enumerate(facts)
            ]
            if not members:
                raise LedgerError(
                    "no supporting facts: the question has no evidence set",
                    file=str(path),
                    record=where,
                    field="supporting_facts",
                )
            anchored[qid] = spans
            answers[qid] = answer
            question_record: Record = {
                "type": "question",
                "id": qid,
                "text": question,
                "answer": answer,
                "claims": [qid],
            }
            for extra in ("type", "level"):
                if isinstance(item.get(extra), str):
                    question_record[f"x-{extra}"] = item[extra]
            body.append({"type": "claim", "id": qid, "text": f"{question} {answer}"})
            body.append(question_record)
            body.append(
                {
                    "type": "evidence_set",
                    "id": qid,
                    "claim": qid,
                    "members": list(dict.fromkeys(members)),
                    "inference": "HotpotQA supporting facts (multi-hop reasoning over the sentences)",
                    "status": "adjudicated",
                    "annotation": {"version": 1, "by": "HotpotQA annotators", "at": OBSERVED},
                }
            )
    yield from evaluation(EVALUATION, cutoff=OBSERVED, corpus="Wikipedia paragraphs (HotpotQA)")
    yield from head
    yield from body
    if predictions is not None:
        yield from _run(predictions, run, answers, anchored)


def _fact_key(fact: Any) -> tuple[str, int] | None:
    """A supporting fact ``[title, sentence index]`` as a key; None for anything else."""
    if (
        not isinstance(fact, list)
        or len(fact) != 2
        or not isinstance(fact[0], str)
        or not isinstance(fact[1], int)
    ):
        return None
    return (fact[0], fact[1])


def _member(spans: dict[tuple[str, int], str], fact: Any, path: Path, where: str, name: str) -> str:
    key = _fact_key(fact)
    if key is None:
        raise LedgerError(
            "expected [title, sentence index]", file=str(path), record=where, field=name
        )
    if key not in spans:
        raise LedgerError(
            f"supporting fact {fact[0]!r} sentence {fact[1]} is not a non-blank sentence of "
            "the question's context",
            file=str(path),
            record=where,
            field=name,
        )
    return spans[key]


def _run(
    path: Path, run: str, answers: dict[str, str], anchored: dict[str, dict[tuple[str, int], str]]
) -> Iterator[Record]:
    data = read_json(path)
    sp = require(data, "sp", dict, file=path, record="top level")
    predicted = data.get("answer") or {}
    if not isinstance(predicted, dict):
        raise LedgerError(
            "expected an object of question ids and answers",
            file=str(path),
            record="top level",
            field="answer",
        )
    yield {"type": "run", "id": run, "evaluation": EVALUATION, "system": path.name}
    for qid in answers:
        facts = sp.get(qid, [])
        if not isinstance(facts, list):
            raise LedgerError(
                "expected a list of [title, sentence index]", file=str(path), record="sp", field=qid
            )
        cited = []
        for f, fact in enumerate(facts):
            # Typed as the gold's are: a list or object inside is no key (was a traceback).
            key = _fact_key(fact)
            if key is None:
                raise LedgerError(
                    "expected [title, sentence index]",
                    file=str(path),
                    record="sp",
                    field=f"{qid}[{f}]",
                )
            # A predicted fact outside the context cannot be cited: the official
            # scorer counts it as a false positive, here it is dropped.
            if key in anchored[qid]:
                cited.append(anchored[qid][key])
        cited = list(dict.fromkeys(cited))
        answer = str(predicted.get(qid, ""))
        yield {
            "type": "case",
            "run": run,
            "question": qid,
            "retrieved": cited,
            "outputs": [
                {
                    "id": f"{run}/{qid}",
                    "text": answer,
                    "claim": qid,
                    "correct": normalize_answer(answer) == normalize_answer(answers[qid]),
                    "cites": cited,
                }
            ],
        }
