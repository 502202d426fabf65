"""What the store already holds that a ledger refers to or restates: the loader's checks.

A ledger may name records loaded earlier (docs/spec/ledger.md "Record
basics", "References") and may restate them (docs/spec/ledger.md
"Loading": an identical record is not written again, a different one is a
:class:`~hopgate.errors.ConflictError`). This module asks the store those
questions, each at most once per load; it only reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.errors import ConflictError
from hopgate.ids import case_iri
from hopgate.ingest.anchoring import Anchor
from hopgate.ingest.index import ID_KINDS, LedgerIndex, VersionFacts
from hopgate.ingest.ledger import Record
from hopgate.store import IRI, Store, Value
from hopgate.vocab import CATALOG_GRAPH, HG, ID_BASE

#: Ids or IRIs per batched ``VALUES`` query.
BATCH = 500

#: The loader's stamp on a judgment it records: its place in the store's order
#: of recordings (docs/spec/adjudication.md "Recording"). Never a ledger's to state.
RECORD_NUMBER = HG + "recordNumber"


@dataclass(frozen=True)
class StoredSpan:
    """A span the store already holds under an inline span's IRI: where, and what."""

    loads: tuple[str, ...]  # the ledger file and load graph of each load holding it
    facts: frozenset[tuple[bool, Value, Value, Value, Value]]  # inline, version, start, end, exact
    version_ids: tuple[str, ...]  # the hg:ledgerId of its version(s), as stored

    def is_inline_span(self, version: str, found: Anchor) -> bool:
        """True when the stored span is the inline span of ``version`` at ``found``."""
        return self.facts == {(True, version, found.start, found.end, found.exact)}

    def describe(self) -> str:
        """The stored span as an error names it: kind, version, and the loads holding it."""
        kinds = {"an inline span" if inline else "a ledger span" for inline, *_ in self.facts}
        of = ", ".join(repr(v) for v in self.version_ids) or "(unknown)"
        return (
            f"{' or '.join(sorted(kinds))} of version {of} already in the store, "
            f"loaded from {'; '.join(self.loads)}"
        )


class StoredRecords:
    """The store's records as one load sees them: referenced, restated, or absent."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # Whether the store holds any ledger record at all: when it does not,
        # nothing needs looking up there (one ASK per record is skipped; figures
        # in bench/README.md, "Figures behind the code").
        self.has_records = store.ask("ASK { ?s hg:ledgerId ?id }")
        self._defined: dict[tuple[str, str], bool] = {}
        self._versions: dict[str, VersionFacts] = {}
        self._spans: dict[str, StoredSpan] = {}
        #: Versions (IRIs) whose quoting spans are all in ``_spans`` (:meth:`prefetch`).
        self._quoted: set[str] = set()
        #: Spans (IRIs) asked by name: each one the store holds is in ``_spans``.
        self._asked: set[str] = set()
        #: Versions (IRIs) the ledger defines that the store holds nothing about
        #: (:meth:`existing`): no inline span of theirs is stored (:meth:`absent_known`).
        self._new_versions: set[str] = set()

    def defines(self, kind: str, ledger_id: str) -> bool:
        """Whether the store holds a record of ``kind`` (a ledger kind) with this id."""
        key = (kind, ledger_id)
        if key not in self._defined:
            iri_kind, cls = ID_KINDS[kind]
            self._defined[key] = self.store.ask(
                "ASK { ?node a ?class }",
                params={"node": IRI(ids.mint(iri_kind, ledger_id)), "class": IRI(cls)},
            )
        return self._defined[key]

    def undefined(self, references: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which of ``references`` ((ledger kind, id) pairs) the store holds no record of.

        Asked in batches of one kind (a ``VALUES`` query each), so a load's
        cost does not grow with its references' round trips to a remote store.
        """
        by_kind: dict[str, list[str]] = {}
        for kind, ledger_id in references:
            if (kind, ledger_id) not in self._defined:
                by_kind.setdefault(kind, []).append(ledger_id)
        for kind, wanted in by_kind.items():
            iri_kind, cls = ID_KINDS[kind]
            for start in range(0, len(wanted), BATCH):
                chunk = {ids.mint(iri_kind, i): i for i in wanted[start : start + BATCH]}
                values = " ".join(f"<{c}>" for c in chunk)  # minted IRIs: percent-encoded, safe
                # The class written in the text, not bound as ?class: bound, Oxigraph
                # scanned every instance of it per batch (0.19 s against 0.009 s for
                # 500 spans at 3.3k claims; a later run's load, bench/README.md).
                rows = self.store.select(
                    "SELECT DISTINCT ?node WHERE { VALUES ?node { "
                    f"{values} }} ?node a {nt.iri(cls)} }}"
                )
                held = {str(row["node"]) for row in rows}
                for node, ledger_id in chunk.items():
                    self._defined[(kind, ledger_id)] = node in held
        return {key for key in references if not self._defined[key]}

    def is_a(self, node: str, cls: str) -> bool:
        """Whether the store holds ``node`` as an instance of ``cls``."""
        if not self.has_records:
            return False
        return self.store.ask("ASK { ?n a ?c }", params={"n": IRI(node), "c": IRI(cls)})

    def version(self, ledger_id: str) -> VersionFacts:
        """A stored version's retained text and readers, as a span needs them."""
        if ledger_id not in self._versions:
            rows = self.store.select(
                "SELECT ?text ?reader WHERE { OPTIONAL { ?v prov:value ?text } "
                "OPTIONAL { ?v hg:readableBy ?r . ?r hg:ledgerId ?reader } }",
                params={"v": IRI(ids.mint("version", ledger_id))},
            )
            self._versions[ledger_id] = _version_facts(rows)
        return self._versions[ledger_id]

    def prefetch(
        self,
        versions: list[str],
        *,
        placed: set[str] | None = None,
        unplaced: set[str] | None = None,
    ) -> None:
        """Ask at once about the stored versions a ledger anchors spans in (ids).

        Each version's existence, text and readers, and the spans an inline
        span may be, with their facts, are read in batched ``VALUES`` queries, so
        that :meth:`defines`, :meth:`version` and :meth:`span` answer from them:
        one round trip per inline span made a later run's load on a remote
        store grow with its spans (bench/README.md, "Two servers and a team's
        history"). Answers are the same as asked one by one.

        The spans read are those named ``placed`` (inline span ids, known by their
        offsets before anchoring) and every span quoting a version of ``unplaced``
        (ids; None: every version), whose inline spans are named only once their
        quotes are anchored. Reading every span of every version grew each load
        with the runs loaded before (the runs' inline spans quote the same
        versions: 7.9 s of a 10k-claim run's load after 20 runs).
        """
        if not self.has_records:
            return
        self._prefetch_placed(versions, placed or set())
        iri_kind, cls = ID_KINDS["version"]
        for start in range(0, len(versions), BATCH):
            chunk = {ids.mint(iri_kind, v): v for v in versions[start : start + BATCH]}
            # Plain joins only, one question each: Virtuoso 7.2.5 loses OPTIONAL
            # bindings on some plans (docs/remote-virtuoso.md), and a lost text or
            # reader here would pass a span it should refuse.
            # The class written in the text, not bound: see undefined().
            held = set(self._nodes(chunk, f"?node a {nt.iri(cls)} BIND (true AS ?value)"))
            texts = self._nodes(chunk, "?node prov:value ?value")
            readers = self._nodes(chunk, "?node hg:readableBy ?r . ?r hg:ledgerId ?value")
            for node, ledger_id in chunk.items():
                self._defined[("version", ledger_id)] = node in held
                if node in held:
                    rows = [{"text": t, "reader": None} for t in texts.get(node, [])]
                    rows += [{"text": None, "reader": r} for r in readers.get(node, [])]
                    self._versions[ledger_id] = _version_facts(rows)
            whole = {
                c for c, v in chunk.items() if c in held and (unplaced is None or v in unplaced)
            }
            quoting = self._nodes(
                {c: c for c in whole}, "?span prov:wasQuotedFrom ?node", answer="span"
            )
            spans = sorted({str(span) for found in quoting.values() for span in found})
            # Every span quoting a prefetched version must be known, or a new inline
            # span could be written twice: each is held (the join just found it).
            self._read_spans(spans, held=lambda missing: missing)
            self._quoted.update(whole)

    def _read_spans(self, nodes: list[str], *, held: Callable[[list[str]], Iterable[str]]) -> None:
        """Read the facts of ``nodes`` into ``_spans``, in batches. A node the batched
        answer left out that ``held`` (given the missing nodes) says the store holds is
        asked alone: Virtuoso's plans can lose rows of a batch."""
        for first in range(0, len(nodes), BATCH):
            part = nodes[first : first + BATCH]
            facts = self._span_facts(part)
            for node in held([n for n in part if n not in facts]):
                facts.update(self._span_facts([node]))
            self._spans.update(facts)

    def _prefetch_placed(self, versions: list[str], placed: set[str]) -> None:
        """Read the spans named ``placed`` (inline span ids) whose version is one of
        ``versions``: each that the store holds into ``_spans``, and every one into
        ``_asked``. A span the batched answer left out but the store holds (asked by
        a plain join) is asked alone, so that a span asked and not known is absent."""
        named = set(versions)
        nodes = sorted(
            ids.mint("span", span_id) for span_id in placed if span_id.rsplit("[", 1)[0] in named
        )
        # A named span may not exist: one left out is asked alone only when a plain
        # join says the store holds it.
        self._read_spans(nodes, held=self.spans_held)
        self._asked.update(nodes)

    def _nodes(
        self,
        chunk: dict[str, str],
        pattern: str,
        params: dict[str, Value] | None = None,
        *,
        answer: str = "value",
    ) -> dict[str, list[Value]]:
        """The ``?answer`` values of each node of ``chunk`` (as ``?node``) in ``pattern``."""
        if not chunk:
            return {}
        rows = self.store.select(
            f"SELECT DISTINCT ?node ?{answer} WHERE {{ VALUES ?node {{ "
            + " ".join(f"<{c}>" for c in chunk)  # minted IRIs: percent-encoded, safe
            + f" }} {pattern} }}",
            params=params,
        )
        found: dict[str, list[Value]] = {}
        for row in rows:
            found.setdefault(str(row["node"]), []).append(row.get(answer))
        return found

    def absent_known(self, node: str, version: str) -> bool:
        """Whether the store is known to hold no span ``node`` quoting ``version`` (an
        IRI): it was asked by name, or every span quoting the version was read, and
        neither found it; or the version is new (:meth:`existing` found nothing about
        it).

        A new version's inline spans are new: an earlier load could write one only
        with its version, which the store would then hold. A ledger span stored under
        the same id (a collision) is looked for at the end, with the references
        (``Context.check_references``). Asked one by one instead, the inline spans of
        a ledger's own versions cost a round trip each on a server: 43,858 requests
        for the second of ten parts of 1M claims, stopped after 11 minutes
        (bench/README.md)."""
        return node not in self._spans and (
            node in self._asked or version in self._quoted or version in self._new_versions
        )

    def span(self, node: str, *, alone: bool = False) -> StoredSpan | None:
        """What the store holds of the span ``node`` (None when it holds no such span).

        With ``alone``, asked by a query of its own even when prefetched.
        """
        if not self.has_records:
            return None
        if node in self._spans and not alone:
            return self._spans[node]
        return self._span_facts([node]).get(node)

    def spans_held(self, nodes: list[str]) -> set[str]:
        """Which of ``nodes`` the store holds as spans (batched)."""
        held: set[str] = set()
        for start in range(0, len(nodes), BATCH):
            values = " ".join(f"<{n}>" for n in nodes[start : start + BATCH])
            rows = self.store.select(
                f"SELECT DISTINCT ?span WHERE {{ VALUES ?span {{ {values} }} "
                "GRAPH ?graph { ?span a hg:Span } }"
            )
            held.update(str(row["span"]) for row in rows)
        return held

    def _span_facts(self, nodes: list[str]) -> dict[str, StoredSpan]:
        """The stored facts of each of ``nodes`` that the store holds as a span."""
        if not nodes:
            return {}
        rows = self.store.select(
            "SELECT ?span ?graph ?file ?inline ?version ?versionId ?start ?end ?exact WHERE { "
            "VALUES ?span { " + " ".join(f"<{n}>" for n in nodes) + " } "
            "GRAPH ?graph { ?span a hg:Span } "
            "OPTIONAL { GRAPH ?catalog { ?graph hg:ledgerFile ?file } } "
            "OPTIONAL { ?span hg:inline ?inline } "
            "OPTIONAL { ?span prov:wasQuotedFrom ?version "
            "OPTIONAL { ?version hg:ledgerId ?versionId } } "
            "OPTIONAL { ?span oa:hasSelector ?position . "
            "?position oa:start ?start ; oa:end ?end } "
            "OPTIONAL { ?span oa:hasSelector ?quote . ?quote oa:exact ?exact } }",
            params={"catalog": IRI(CATALOG_GRAPH)},
        )
        by_span: dict[str, list[dict[str, Value]]] = {}
        for row in rows:
            by_span.setdefault(str(row["span"]), []).append(row)
        found = {}
        for node, mine in by_span.items():
            loads = {f"{r['file'] or 'an unknown file'} (load graph {r['graph']})" for r in mine}
            found[node] = StoredSpan(
                loads=tuple(sorted(loads)),
                facts=frozenset(
                    (r["inline"] is True, r["version"], r["start"], r["end"], r["exact"])
                    for r in mine
                ),
                version_ids=tuple(sorted({str(r["versionId"]) for r in mine if r["versionId"]})),
            )
        return found

    def asserts_a_claim(self, output: str) -> bool:
        """Whether the stored output ``output`` asserts a reference claim."""
        return self.store.ask("ASK { ?o hg:asserts ?claim }", params={"o": IRI(output)})

    def judgment(self, node: str) -> tuple[str, str | None, bool] | None:
        """A stored judgment's subject IRI, question and finality (None: no such judgment)."""
        if not self.has_records:
            return None
        rows = self.store.select(
            "SELECT ?subject ?question ?final WHERE { ?j a hg:Judgment ; hg:judges ?subject . "
            "OPTIONAL { ?j hg:question ?question } OPTIONAL { ?j hg:final ?final } }",
            params={"j": IRI(node)},
        )
        if not rows:
            return None
        row = rows[0]
        question = None if row["question"] is None else str(row["question"])
        return str(row["subject"]), question, bool(row["final"])

    def latest_record_number(self) -> int:
        """The greatest judgment recording number in the store (0: none yet).

        docs/spec/adjudication.md "Recording": each load numbers the judgments
        it writes after this one.
        """
        rows = self.store.select(f"SELECT (MAX(?n) AS ?latest) WHERE {{ ?j <{RECORD_NUMBER}> ?n }}")
        latest = rows[0]["latest"] if rows else None
        return latest if isinstance(latest, int) and not isinstance(latest, bool) else 0

    # ---- restated records -------------------------------------------------

    def existing(self, index: LedgerIndex) -> set[str]:
        """Minted IRIs of the ledger's records that the store already holds."""
        if not self.has_records:
            return set()
        found: set[str] = set()
        candidates = [
            ids.mint(ID_KINDS[kind][0], i) for kind, table in index.ids.items() for i in table
        ]
        candidates += [case_iri(key) for key in index.cases]
        for start in range(0, len(candidates), BATCH):
            chunk = candidates[start : start + BATCH]
            values = " ".join(f"<{c}>" for c in chunk)  # minted IRIs: percent-encoded, safe
            rows = self.store.select(
                f"SELECT DISTINCT ?s WHERE {{ VALUES ?s {{ {values} }} ?s ?p ?o }}"
            )
            found.update(str(row["s"]) for row in rows)
        self._new_versions = {ids.mint("version", v) for v in index.ids["version"]} - found
        return found

    def settle(
        self,
        file: str,
        captured: dict[str, tuple[Record, list[str]]],
        taken: list[tuple[str, str]],
    ) -> int:
        """Compare restated records with the store's; return how many are identical.

        ``captured`` maps a restated record's IRI to the record and the lines
        it would write; ``taken`` lists the outputs of new cases whose ids the
        store holds.

        Raises:
            ConflictError: a restated record differs, or an output id is taken.
        """
        import rdflib

        skipped = 0
        conflicts: list[tuple[str, str]] = list(taken)
        for main, (_record, lines) in captured.items():
            subjects = sorted({line.split(" ", 1)[0] for line in lines})
            mine = _normalised(
                rdflib.Graph().parse(data="".join(x + " .\n" for x in lines), format="nt")
            )
            values = " ".join(subjects)
            # The records as loaded (load graphs only: not the catalog's facts
            # about agents, nor what an evaluation recorded about a record),
            # without the store's own stamp (a judgment's recording number).
            theirs_nt = self.store.construct(
                f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ VALUES ?s {{ {values} }} GRAPH ?g {{ ?s ?p ?o }}"
                f" GRAPH <{CATALOG_GRAPH}> {{ ?g prov:wasGeneratedBy ?load . ?load a hg:Load }}"
                f" FILTER (?p NOT IN (<{RECORD_NUMBER}>)) }}"
            )
            theirs = _normalised(rdflib.Graph().parse(data=theirs_nt.decode("utf-8"), format="nt"))
            if mine == theirs:
                skipped += 1
                continue
            conflicts.append(_named(main))
        if conflicts:
            raise ConflictError(file, sorted(conflicts))
        return skipped


#: Where an intervention case's IRI (hopgate.ids.case_iri) puts its key's parts.
_INTERVENTION_CASE = f"{ID_BASE}intervention-case/"


def _named(iri: str) -> tuple[str, str]:
    """The kind and id an error names a record by: its ledger id, or for an intervention
    case (which has none) its run, question, set, variant, member and replacement."""
    if iri.startswith(_INTERVENTION_CASE):
        parts = [unquote(part) for part in iri[len(_INTERVENTION_CASE) :].split("/")]
        return "intervention case", " ".join(parts)
    return ids.parse(iri)


def _version_facts(rows: list[dict[str, Value]]) -> VersionFacts:
    """A version's text and readers from rows binding ``?text`` and ``?reader``."""
    text = next((r["text"] for r in rows if r["text"] is not None), None)
    readers = {str(r["reader"]) for r in rows if r["reader"] is not None}
    return VersionFacts(
        text if isinstance(text, str) else None, frozenset(readers) if readers else None
    )


def _normalised(graph: Any) -> set[tuple[Any, Any, Any]]:
    """Triples with ``xsd:string`` literals made plain, so both spellings compare equal."""
    from rdflib import XSD as RDFLIB_XSD
    from rdflib import Literal

    result = set()
    for s, p, o in graph:
        if isinstance(o, Literal) and o.datatype == RDFLIB_XSD.string:
            o = Literal(str(o))
        result.add((s, p, o))
    return result


__all__ = ["RECORD_NUMBER", "StoredRecords", "StoredSpan"]
