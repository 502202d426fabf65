"""The reader rule's query texts: ``queries/withheld.rq`` and the forms the filter asks it in.

``queries/withheld.rq`` is the rule's one home (docs/spec/records.md "What a
reader is shown"); these are the groups and queries built from it, shared by
the reader filter (:mod:`hopgate.audit.withholding`), the exports that join it
into their own queries (:mod:`hopgate.bundles`) and the record of its answers
that a load keeps (:mod:`hopgate.store.reader_answers`).
"""

from __future__ import annotations

from hopgate.library.artefacts import library_query

#: The spans and versions whose text a reader may not inspect (?node ?class ?why):
#: queries/withheld.rq, the rule's one home.
RULE_QUERY = library_query("withheld").text

#: The same, as a group to join into other queries with ?reader bound.
WITHHELD = "{ " + RULE_QUERY + "\n}"

#: Which withheld nodes' texts are withheld texts: each span whose readers (or its
#: version's) exclude the reader or whose quote overlaps a narrowed span (an inline
#: chunk carrying part of its words), and each version withheld from it. A span
#: withheld only because its prefix or suffix reaches into a narrowed one is not: its
#: own quote holds none of the narrowed words.
_TEXT_NODE = '(?class = hg:Version || ?why IN ("readers", "overlap"))'
_TEXT_NODES = f"FILTER {_TEXT_NODE}"

#: A withheld node's text: a version's whole text, a span's exact quote.
_TEXT_OF_NODE = """
  { ?node a hg:Version ; prov:value ?text }
  UNION { ?node a hg:Span ; oa:hasSelector ?quote . ?quote oa:exact ?text }
"""

#: The withheld texts, in one query (a store without a snapshot folder).
TEXTS_QUERY = f"SELECT DISTINCT ?text WHERE {{\n  {WITHHELD}\n  {_TEXT_NODES}\n{_TEXT_OF_NODE}}}"

#: Every withheld node, each saying whether its text is a withheld text (``?text``):
#: both answers of the reader filter from one run of the rule.
VIEW_QUERY = f"SELECT DISTINCT ?node ?class ({_TEXT_NODE} AS ?text) WHERE {{\n  {WITHHELD}\n}}"

#: The texts of the nodes VIEW_QUERY marks ``?text``, bound by VALUES, asked of the
#: store, each beside its node (so that one lookup serves every reader).
TEXTS_OF_NODES = (
    "SELECT DISTINCT ?node ?text WHERE {\n  VALUES (?node ?class) { %s }\n" + _TEXT_OF_NODE + "}"
)

#: The (subject, predicate) pairs that carry the texts of the spans and versions
#: ``{withheld}`` binds to ``?node`` (a VALUES block of the rule's answer): a version's
#: text and ``x-`` fields, a span's ``x-`` fields and its quote selector's exact text,
#: prefix and suffix. What an export leaves out and ``query --reader`` shows as the marker.
HIDDEN_PAIRS = """
  {{ SELECT DISTINCT ?s ?p WHERE {{
      {withheld}
      {{ ?node a hg:Version . BIND(?node AS ?s) VALUES ?p {{ prov:value hg:extension }} }}
      UNION {{ ?node a hg:Span . BIND(?node AS ?s) VALUES ?p {{ hg:extension }} }}
      UNION {{ ?node a hg:Span ; oa:hasSelector ?s . ?s a oa:TextQuoteSelector .
               VALUES ?p {{ oa:exact oa:prefix oa:suffix }} }}
  }} }}
"""

__all__ = [
    "HIDDEN_PAIRS",
    "RULE_QUERY",
    "TEXTS_OF_NODES",
    "TEXTS_QUERY",
    "VIEW_QUERY",
    "WITHHELD",
]
