"""Recording a RAG pipeline's responses from Python, as they are produced.

Two ways, both writing an ordinary ledger (``docs/spec/ledger.md``) in the
``hopgate import rag`` format's terms (``docs/rag-format.md``):

- :class:`LedgerBuilder` collects documents, gold questions and responses in
  memory and writes one ledger (``write``) or loads it (``load``): one load
  graph per batch, the cheap way for many responses.
- :func:`record` adds one response to a store that already holds the
  documents and gold questions (loaded with ``hopgate import rag`` or a
  ledger): each call is one small load.

Then ``hopgate.evaluate(store, run=...)`` records the verdicts, and
``hopgate.verdicts`` / ``metrics`` / ``gate`` read them (reads never
evaluate); ``hopgate.testing.assert_gate`` fails a test on the gate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hopgate import ids
from hopgate.errors import LedgerError, PipelineError
from hopgate.ingest.adapters import gold, rag
from hopgate.ingest.adapters.common import ImportResult, Record, write_ledger
from hopgate.ingest.adapters.corpus import Corpus
from hopgate.ingest.adapters.items import Item, ItemError, item_error
from hopgate.ingest.correctness import Tally
from hopgate.ingest.loader import LoadResult, load
from hopgate.scratch import folder as scratch_folder
from hopgate.store import IRI, Store
from hopgate.times import xsd_datetime

#: The file name errors of in-memory records name.
SOURCE = "<pipeline>"


def _now() -> str:
    return xsd_datetime(seconds_only=True)


def _drop_none(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _copy(value: Any) -> Any:
    """A caller's set or ref as plain JSON values (a tuple as a list, a mapping as a dict)."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list | tuple):
        return list(value)
    return value


class LedgerBuilder:
    """Documents, gold questions and one run's responses, written as one ledger.

    Each call checks what it is given at once (an unknown document, a context
    that cannot be anchored, a citation out of range raise ``LedgerError``
    naming the call and the field), so a pipeline fails where it records.

    Example:
        >>> builder = LedgerBuilder(run="my-rag")
        >>> builder.add_document("d1", "Project Orion is led by Dana Reyes.")
        >>> builder.add_question("q1", "Who leads Project Orion?", answer="Dana Reyes",
        ...                      evidence_sets=[["d1"]])
        >>> builder.record(question="q1", answer="Dana Reyes [1].", contexts=["d1"])
    """

    def __init__(
        self,
        *,
        run: str = "pipeline-run",
        evaluation: str = rag.EVALUATION,
        reader: str | None = None,
        observation_cutoff: str | None = None,
    ) -> None:
        """``reader``: the reader class the decision is for (default ``public``);
        ``observation_cutoff``: default the latest document's ``observed_at``
        (docs/rag-format.md "docs: the evidence universe")."""
        self.run = run
        self.evaluation = evaluation
        self._docs: list[Item] = []
        self._gold: list[Item] = []
        setting = _drop_none(reader=reader, observation_cutoff=observation_cutoff)
        if setting:
            self._gold.append((SOURCE, "LedgerBuilder(...)", {"evaluation": setting}))
        self._answers: list[Item] = []
        self._corpus = Corpus()
        self._questions: dict[str, gold.GoldQuestion] = {}
        self._time = _now()

    def add_document(
        self,
        id: str,
        text: str,
        *,
        url: str | None = None,
        title: str | None = None,
        observed_at: str | None = None,
        published_at: str | None = None,
        effective: dict[str, str | None] | None = None,
        invalidated_at: str | None = None,
        readers: Sequence[str] | None = None,
    ) -> None:
        """Add a document of the evidence universe (observed now unless ``observed_at``).

        ``effective`` (``{"from", "until"}``), ``invalidated_at`` and ``readers``
        are the version facts of docs/rag-format.md "docs: the evidence universe".
        """
        item = _drop_none(
            id=id,
            text=text,
            url=url,
            title=title,
            observed_at=observed_at,
            published_at=published_at,
            effective=None if effective is None else dict(effective),
            invalidated_at=invalidated_at,
            readers=None if readers is None else list(readers),
        )
        where = f"add_document {len(self._docs) + 1}"
        probe = rag.Conversion()
        gold.documents(
            [(SOURCE, where, item)], Corpus(), probe, default_time=self._time
        )  # checks the item
        if str(id) in self._corpus.texts:
            raise LedgerError("duplicate document id", file=SOURCE, record=where, field="id")
        self._corpus.texts[str(id)] = text
        self._docs.append((SOURCE, where, item))

    def add_question(
        self,
        id: str,
        question: str,
        *,
        answer: str | None = None,
        evidence_sets: Sequence[Any] | None = None,
        claims: Sequence[dict[str, Any]] | None = None,
        consequential: bool | None = None,
        applies_at: str | None = None,
        contradictions: Sequence[Any] | None = None,
    ) -> None:
        """Add a gold question: its evidence sets, or ``claims`` splitting it.

        An evidence set is a list of refs (adjudicated), or ``{"members": [...],
        "status", "inference"}``; ``contradictions`` are the refs of passages
        contradicting its claim, or ``{..., "status", "decision"}``
        (docs/rag-format.md "gold: questions and their evidence sets").
        """
        item = _drop_none(
            id=id,
            question=question,
            answer=answer,
            consequential=consequential,
            applies_at=applies_at,
            evidence_sets=None if evidence_sets is None else [_copy(s) for s in evidence_sets],
            contradictions=None if contradictions is None else [_copy(c) for c in contradictions],
            claims=None if claims is None else [dict(c) for c in claims],
        )
        if claims is None and evidence_sets is None:
            item["evidence_sets"] = []
        where = f"add_question {len(self._gold) + 1}"
        if str(id) in self._questions:
            raise LedgerError("duplicate question id", file=SOURCE, record=where, field="id")
        probe = rag.Conversion()
        found = gold.gold_questions(
            [(SOURCE, where, item)], self._corpus, probe, annotated_at=self._time
        )
        gold.mark_answerable(found, probe.records)
        self._questions.update(found)
        self._gold.append((SOURCE, where, item))

    def record(
        self,
        *,
        question: str,
        answer: str | None = None,
        contexts: Iterable[Any] = (),
        citations: Sequence[Any] | None = None,
        abstained: bool = False,
        correct: bool | None = None,
        short_answer: str | None = None,
    ) -> None:
        """Record the pipeline's response to ``question`` (a gold question's id).

        ``contexts`` in rank order: document ids, ``{"doc", "text"}``,
        ``{"doc", "quote"}``, ``{"doc", "start", "end"}`` or bare texts found in
        one document; ``citations`` (default: the answer's ``[n]`` markers) as
        docs/rag-format.md "answers: one run of your pipeline" spells them: 1-based context positions,
        document ids (retrieved or not), ``{"doc", "quote"}``, ``{"doc",
        "start", "end"}``, ``{"context", "quote"}``, each object optionally with
        ``"segment": [start, end]``, the part of the answer it supports.
        Correctness is ``correct``, else True when ``short_answer`` is the
        reference answer after SQuAD normalization, else unknown
        (:mod:`hopgate.ingest.correctness`): never guessed from ``answer``'s text.

        Raises:
            LedgerError: an unknown question, a second response to it, a context
                that cannot be anchored, a citation out of range.
        """
        item = _drop_none(
            id=question,
            answer=answer,
            contexts=list(contexts),
            citations=None if citations is None else list(citations),
            abstained=abstained or None,
            correct=correct,
            short_answer=short_answer,
        )
        where = f"record {len(self._answers) + 1}"
        if str(question) in {str(a[2]["id"]) for a in self._answers}:
            raise LedgerError(
                f"a second response to question {question!r}", file=SOURCE, record=where, field="id"
            )
        if str(question) not in self._questions:
            raise LedgerError(
                f"unknown question {question!r} (add_question it first)",
                file=SOURCE,
                record=where,
                field="id",
            )
        try:
            rag.case_record(
                self._corpus,
                self._questions[str(question)],
                item,
                run=self.run,
                judging=Tally(),
            )
        except ItemError as exc:
            raise item_error(SOURCE, where, exc) from None
        self._answers.append((SOURCE, where, item))

    def records(self) -> list[Record]:
        """The ledger records (without the header)."""
        return rag.convert(
            self._docs,
            self._gold,
            self._answers,
            run=self.run,
            evaluation=self.evaluation,
            default_time=self._time,
        ).records

    def write(self, path: Path | str) -> ImportResult:
        """Write the ledger as JSON Lines at ``path``; what it holds, by kind."""
        result = ImportResult(format="pipeline", ledger=str(path))
        result.records = write_ledger(self.records(), Path(path))
        return result

    def load(self, store: Store) -> LoadResult:
        """Load the ledger into ``store`` (written to a temporary file first)."""
        with scratch_folder("pipeline") as scratch:
            path = scratch / f"{self.run}.jsonl"
            self.write(path)
            return load(store, path)


def record(
    store: Store,
    *,
    run: str,
    question: str,
    answer: str | None = None,
    contexts: Iterable[Any] = (),
    citations: Sequence[Any] | None = None,
    abstained: bool = False,
    correct: bool | None = None,
    evaluation: str | None = None,
    short_answer: str | None = None,
) -> LoadResult:
    """Record one response of ``run`` to ``question`` in ``store`` (one small load).

    The documents and the gold question must be in the store already. A new
    run is created for ``evaluation`` (needed only when the store holds
    several). Contexts, citations and correctness are as for
    :meth:`LedgerBuilder.record`; contexts given as text are anchored in the
    store's version texts.

    Raises:
        PipelineError: the question is not in the store, or the evaluation of a
            new run is ambiguous or unknown.
        LedgerError: a context that cannot be anchored, a citation out of range.
        ConflictError: the run already holds a different response to the question.
    """
    asked = _gold_question(store, question)
    records: list[Record] = []
    if not store.ask("ASK { ?r a hg:Run }", params={"r": IRI(ids.mint("run", run))}):
        records.append(
            {"type": "run", "id": run, "evaluation": _evaluation(store, evaluation), "system": run}
        )
    corpus = Corpus(fetch=lambda doc: _version_text(store, doc), universe=lambda: _versions(store))
    item = _drop_none(
        id=question,
        answer=answer,
        contexts=list(contexts),
        citations=None if citations is None else list(citations),
        abstained=abstained or None,
        correct=correct,
        short_answer=short_answer,
    )
    try:
        records.append(rag.case_record(corpus, asked, item, run=run, judging=Tally()))
    except ItemError as exc:
        raise item_error(SOURCE, f"record (question {question!r})", exc) from None
    with scratch_folder("record") as scratch:
        name = hashlib.sha256(f"{run}\n{question}".encode()).hexdigest()[:16]
        path = scratch / f"record-{name}.jsonl"
        write_ledger(records, path)
        return load(store, path)


def _gold_question(store: Store, question: str) -> gold.GoldQuestion:
    rows = store.select(
        "SELECT ?answer ?claimId ?withSet WHERE { ?q a hg:Question . "
        "OPTIONAL { ?q hg:referenceAnswer ?answer } "
        "OPTIONAL { ?q hg:requiresClaim ?c . ?c hg:ledgerId ?claimId . "
        "BIND(EXISTS { ?set hg:supportsClaim ?c } AS ?withSet) } } ORDER BY ?claimId",
        params={"q": IRI(ids.mint("question", question))},
    )
    if not rows:
        raise PipelineError(
            f"unknown question {question!r}: load the gold questions first "
            "(hopgate import rag --docs ... --gold ... --load)"
        )
    answer = rows[0]["answer"]
    reference = str(answer) if answer is not None else None
    claims = [
        gold.GoldClaim(str(r["claimId"]), reference) for r in rows if r["claimId"] is not None
    ]
    return gold.GoldQuestion(
        question, reference, claims, answerable=any(r["withSet"] is True for r in rows)
    )


def _evaluation(store: Store, evaluation: str | None) -> str:
    known = sorted(
        str(r["id"])
        for r in store.select("SELECT ?id WHERE { ?e a hg:Evaluation ; hg:ledgerId ?id }")
    )
    if evaluation is not None:
        if evaluation not in known:
            raise PipelineError(f"unknown evaluation {evaluation!r} (known: {', '.join(known)})")
        return evaluation
    if len(known) != 1:
        raise PipelineError(
            "name the evaluation of the new run with evaluation= "
            f"(the store holds {', '.join(known) or 'none'})"
        )
    return known[0]


def _version_text(store: Store, doc: str) -> str | None:
    rows = store.select(
        "SELECT ?text WHERE { ?v a hg:Version ; prov:value ?text }",
        params={"v": IRI(ids.mint("version", doc))},
    )
    return str(rows[0]["text"]) if rows else None


def _versions(store: Store) -> list[str]:
    rows = store.select(
        "SELECT ?id WHERE { ?v a hg:Version ; hg:ledgerId ?id ; prov:value ?text } ORDER BY ?id"
    )
    return [str(r["id"]) for r in rows]


__all__ = ["LedgerBuilder", "record"]
