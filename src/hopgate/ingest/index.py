"""Pass one of a load: the ids a ledger defines, and what its spans need of its versions.

The loader reads the ledger twice (docs/spec/ledger.md "Spellings", its rule **Order**:
records may come in any order). This first pass validates every record
against the schema, refuses duplicate ids and cases, and keeps what the
second pass needs to check references and anchor spans: every id by kind,
each version's text and readers, the cases, and the judgments' subjects.
It also refuses a second final judgment of a subject's question in one
ledger (docs/spec/adjudication.md "Recording"). It reads no store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from hopgate import progress as _progress
from hopgate.errors import FileRefused, LedgerError
from hopgate.ids import case_key
from hopgate.ingest.anchoring import sha256_digest
from hopgate.ingest.ledger import Record, check_values, read_records, read_version_file
from hopgate.inputs import MAX_LITERAL_BYTES, literal_size
from hopgate.vocab import HG

#: Ledger kinds and the IRI kind and class their ids denote.
ID_KINDS = {
    "evaluation": ("evaluation", HG + "Evaluation"),
    "reader": ("reader", HG + "ReaderClass"),
    "source": ("source", HG + "Source"),
    "version": ("version", HG + "Version"),
    "span": ("span", HG + "Span"),
    "question": ("question", HG + "Question"),
    "claim": ("claim", HG + "Claim"),
    "evidence_set": ("set", HG + "EvidenceSet"),
    "contradiction": ("contradiction", HG + "Contradiction"),
    "run": ("run", HG + "Run"),
    "output": ("output", HG + "OutputClaim"),
    "judgment": ("judgment", HG + "Judgment"),
}


@dataclass
class VersionFacts:
    """What a span needs of its version: the retained text (None: withheld) and its readers."""

    text: str | None
    readers: frozenset[str] | None


@dataclass
class LedgerIndex:
    """Pass one: the ids this ledger defines, and the facts spans need of versions."""

    #: Ledger kind -> id -> where it is defined (``line 7``, ``cases[0].outputs[1]``).
    ids: dict[str, dict[str, str]] = field(default_factory=lambda: {k: {} for k in ID_KINDS})
    versions: dict[str, VersionFacts] = field(default_factory=dict)
    #: A case's key (run, question[, intervention]) -> where it is.
    cases: dict[tuple[str, ...], str] = field(default_factory=dict)
    #: Judgments: id -> (subject, question, final).
    judgments: dict[str, tuple[str, str | None, bool]] = field(default_factory=dict)
    #: Outputs that assert no claim (extra assertions).
    extra_outputs: set[str] = field(default_factory=set)
    #: Every string a record gives under a ``version`` key (spans, inline spans):
    #: the versions pass two may anchor in, asked of the store together beforehand.
    named_versions: set[str] = field(default_factory=set)
    #: The ids of the inline spans given by offsets (``<version>[<start>:<end>]``,
    #: docs/spec/ledger.md "Delivered spans"), known before anchoring: the store is
    #: asked for these spans, not for every span quoting their versions.
    placed_spans: set[str] = field(default_factory=set)
    #: The versions named where no offsets are given (a quote to anchor, a span
    #: record placed by its quote): every span the store holds quoting them is
    #: read beforehand. (A span record with offsets adds its id-shaped name to
    #: ``placed_spans``: asked, harmlessly, like an inline span's.)
    unplaced_versions: set[str] = field(default_factory=set)

    def empty(self) -> bool:
        """True when the ledger defines no record at all."""
        return not any(table for table in self.ids.values()) and not self.cases

    def records(self) -> int:
        """How many records pass two will read (outputs are parts of cases)."""
        return len(self.cases) + sum(len(t) for k, t in self.ids.items() if k != "output")


def fail(file: str, message: str, record: Record, name: str) -> NoReturn:
    """Raise the :class:`LedgerError` naming the file, the record, its id and the field."""
    raise LedgerError(message, file=file, record=record.where, field=name, record_id=record.id)


def index_ledger(path: Path, *, allow_files: tuple[Path, ...] = ()) -> LedgerIndex:
    """Read the ledger at ``path`` once, validating every record; return its index.

    A version's ``file:`` is read here (inside the ledger's folder or one of
    ``allow_files``), checked like the ledger's own strings and against its
    digest.

    Raises:
        LedgerError: a record fails the schema, an id or a case is defined
            twice, or a version's text is unreadable, too large or not its digest.
    """
    file = str(path)
    index = LedgerIndex()
    finals: dict[tuple[str, str], Record] = {}
    name = f"load {path.name}: check"
    for record in _progress.counted(read_records(path), name, unit="records"):
        _named_versions(record.data, index)
        if record.kind == "case":
            key = case_key(record.data)
            if key in index.cases:
                fail(
                    file,
                    f"duplicate case for run {key[0]!r} and question {key[1]!r}"
                    f"{' and this intervention' if len(key) > 2 else ''} "
                    f"(first at {index.cases[key]})",
                    record,
                    "question",
                )
            index.cases[key] = record.where
            for number, output in enumerate(record.data.get("outputs") or []):
                where = f"{record.where}.outputs[{number}]"
                _register(file, index, "output", output["id"], where)
                if output.get("claim") is None:
                    index.extra_outputs.add(output["id"])
            continue
        assert record.id is not None
        _register(file, index, record.kind, record.id, record.where)
        if record.kind == "version":
            index.versions[record.id] = _version_facts(file, path.parent, record, allow_files)
        elif record.kind == "judgment":
            d = record.data
            index.judgments[record.id] = (d["subject"], d.get("question"), bool(d.get("final")))
            _one_final(file, finals, record)
    return index


def _named_versions(data: object, index: LedgerIndex) -> None:
    """Add every string under a ``version`` key, at any depth of ``data``, to the
    index's named versions: with the inline span id it names when ``start`` and
    ``end`` are given, else to the unplaced versions."""
    if isinstance(data, dict):
        version = data.get("version")
        if isinstance(version, str):
            index.named_versions.add(version)
            start, end = data.get("start"), data.get("end")
            if type(start) is int and type(end) is int:
                index.placed_spans.add(f"{version}[{start}:{end}]")
            else:
                index.unplaced_versions.add(version)
        for value in data.values():
            if isinstance(value, dict | list):
                _named_versions(value, index)
    elif isinstance(data, list):
        for value in data:
            if isinstance(value, dict | list):
                _named_versions(value, index)


def _one_final(file: str, finals: dict[tuple[str, str], Record], record: Record) -> None:
    """At most one final judgment of a subject's question per load (adjudication.md
    "Recording"): which one is in force never depends on the order of a file."""
    d = record.data
    question = d.get("question")
    if not d.get("final") or question is None:
        return
    # Entailment and alternatives both re-annotate a set: one decision.
    decides = "re-annotation" if question in ("entailment", "alternatives") else question
    key = (str(d["subject"]), decides)
    first = finals.setdefault(key, record)
    if first is not record:
        fail(
            file,
            f"a second final judgment of {d['subject']!r} ({decides}) in this ledger, after "
            f"{first.id!r} at {first.where}: one load records at most one final judgment of a "
            "subject's question, so which is in force never depends on the order of a file; "
            "record it with a later load (hopgate judge, or another ledger)",
            record,
            "final",
        )


def _register(file: str, index: LedgerIndex, kind: str, ledger_id: str, where: str) -> None:
    table = index.ids[kind]
    if ledger_id in table:
        raise LedgerError(
            f"duplicate {kind} id (first defined at {table[ledger_id]})",
            file=file,
            record=where,
            field="id",  # ``where`` already names the output: cases[0].outputs[1]
            record_id=ledger_id,
        )
    table[ledger_id] = where


def _version_facts(
    file: str, base: Path, record: Record, allow_files: tuple[Path, ...]
) -> VersionFacts:
    data = record.data
    if "text" in data and "file" in data:
        fail(file, "give text or file, not both", record, "file")
    text: str | None = data.get("text")
    if "file" in data:
        try:
            text = read_version_file(base, data["file"], allowed=allow_files)
        except FileRefused as exc:
            fail(file, str(exc), record, "file")
        if text is not None:  # what the ledger's own strings may not hold, neither may it
            check_values({"file": text}, file=file, where=record.where)
    if text is not None and literal_size(text) > MAX_LITERAL_BYTES:
        fail(
            file,
            f"the text is {literal_size(text):,} bytes as a literal, over the "
            f"{MAX_LITERAL_BYTES:,}-byte limit of one text (split the version)",
            record,
            "file" if "file" in data else "text",
        )
    if text is not None and "digest" in data:
        actual = sha256_digest(text)
        if actual != data["digest"]:
            fail(file, f"digest does not match the bytes (they hash to {actual})", record, "digest")
    readers = data.get("readers")
    return VersionFacts(text, frozenset(readers) if readers else None)


__all__ = ["ID_KINDS", "LedgerIndex", "VersionFacts", "fail", "index_ledger"]
