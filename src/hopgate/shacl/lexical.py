"""Literals as written: XSD well-formedness, and the form the validation store keeps.

Oxigraph stores a literal of a datatype it knows by value: ``"01"^^xsd:integer``
comes back as ``"1"``, ``"1"^^xsd:int`` as ``"1"^^xsd:integer``,
``"1.50"^^xsd:decimal`` as ``"1.5"``, ``"1"^^xsd:boolean`` as ``"true"`` and a
language tag in lower case. SHACL sees literals as written (``sh:datatype``,
``sh:pattern``, ``sh:minLength``, ``sh:in`` and the reported ``sh:value`` all
depend on the lexical form and the declared datatype), so data that comes from
outside hopgate (:func:`hopgate.shacl.graphs.validate_graph`, ``hopgate shacl``)
is loaded with every such literal replaced by a *written* literal: its lexical
form kept, its datatype (or language tag) moved into a private datatype IRI
(:data:`WRITTEN` + the datatype, :data:`WRITTEN_LANG` + the tag). The
compiled checks read the datatype, language and value through
:func:`datatype_expr`, :func:`lang_expr` and :func:`value_expr`, and the report
writes the original literal back (:func:`unwrite`).

hopgate's own store is validated as it is stored: the loader writes canonical
literals, and the ledger file is where the original text lives.

:func:`well_formed_expr` is the SPARQL test of an XSD lexical form, for the
datatypes SHACL users meet: the integer family (with its ranges), decimal,
float, double, boolean, the date and time types, string, anyURI and
rdf:langString. Other datatypes are not checked (any lexical form passes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pyoxigraph as ox
from rdflib.namespace import RDF, XSD
from rdflib.term import Literal, Node, URIRef

#: The datatype IRI prefix of a written literal of a datatype (``WRITTEN + datatype IRI``).
WRITTEN = "urn:hopgate:written:"
#: The datatype IRI prefix of a written language-tagged literal (``WRITTEN_LANG + tag``).
WRITTEN_LANG = "urn:hopgate:written-lang:"

_TZ = r"(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
_DATE = r"-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_TIME = r"(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?)"
_INTEGER = r"^[+-]?[0-9]+$"
_DECIMAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"
_FLOAT = r"^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)$"

#: Lexical forms per XSD datatype (XSD 1.1 Part 2), as regular expressions.
LEXICAL: dict[str, str] = {
    str(XSD.integer): _INTEGER,
    str(XSD.decimal): _DECIMAL,
    str(XSD.float): _FLOAT,
    str(XSD.double): _FLOAT,
    str(XSD.boolean): r"^(true|false|1|0)$",
    str(XSD.dateTime): f"^{_DATE}T{_TIME}{_TZ}$",
    str(XSD.dateTimeStamp): f"^{_DATE}T{_TIME}(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))$",
    str(XSD.date): f"^{_DATE}{_TZ}$",
    str(XSD.time): f"^{_TIME}{_TZ}$",
    str(XSD.gYear): f"^-?([1-9][0-9]{{3,}}|0[0-9]{{3}}){_TZ}$",
    str(XSD.gYearMonth): f"^-?([1-9][0-9]{{3,}}|0[0-9]{{3}})-(0[1-9]|1[0-2]){_TZ}$",
    str(XSD.gMonth): f"^--(0[1-9]|1[0-2]){_TZ}$",
    str(XSD.gDay): f"^---(0[1-9]|[12][0-9]|3[01]){_TZ}$",
    str(XSD.gMonthDay): f"^--(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]){_TZ}$",
}
#: The integer types derived by range: (lowest, highest), None where unbounded.
INTEGER_RANGES: dict[str, tuple[int | None, int | None]] = {
    str(XSD.long): (-(2**63), 2**63 - 1),
    str(XSD.int): (-(2**31), 2**31 - 1),
    str(XSD.short): (-(2**15), 2**15 - 1),
    str(XSD.byte): (-(2**7), 2**7 - 1),
    str(XSD.nonNegativeInteger): (0, None),
    str(XSD.positiveInteger): (1, None),
    str(XSD.nonPositiveInteger): (None, 0),
    str(XSD.negativeInteger): (None, -1),
    str(XSD.unsignedLong): (0, 2**64 - 1),
    str(XSD.unsignedInt): (0, 2**32 - 1),
    str(XSD.unsignedShort): (0, 2**16 - 1),
    str(XSD.unsignedByte): (0, 2**8 - 1),
}
for _name in INTEGER_RANGES:
    LEXICAL[_name] = _INTEGER
#: Datatypes whose every lexical form (a string of XML characters) is well formed.
ANY_FORM = {str(XSD.string), str(XSD.anyURI)}


def well_formed(lexical: str, datatype: str) -> bool | None:
    """Whether ``lexical`` is a lexical form of ``datatype``; None for a datatype not checked."""
    if datatype in ANY_FORM:
        return True
    pattern = LEXICAL.get(datatype)
    if pattern is None:
        return None
    if re.fullmatch(pattern.strip("^$"), lexical) is None:
        return False
    low, high = INTEGER_RANGES.get(datatype, (None, None))
    value = int(lexical) if datatype in INTEGER_RANGES else 0
    return (low is None or value >= low) and (high is None or value <= high)


def well_formed_expr(datatype: str, value: str) -> str | None:
    """A SPARQL expression: the literal ``value`` (already of ``datatype``) is well formed.

    None when every form passes (strings, unchecked datatypes). The ranges of
    the integer types are compared on the digits as text, so that values
    beyond 64 bits (``xsd:unsignedLong``, an out-of-range ``xsd:long``) are
    judged exactly.
    """
    pattern = LEXICAL.get(datatype)
    if pattern is None:
        return None
    lexical = f"STR({value})"
    tests = [f"REGEX({lexical}, {Literal(pattern).n3()})"]
    low, high = INTEGER_RANGES.get(datatype, (None, None))
    negative = f'STRSTARTS({lexical}, "-")'
    # The magnitude's digits without sign or leading zeros ("" for zero); the
    # pattern always matches the "x", never an empty string.
    digits = f'REPLACE(CONCAT("x", {lexical}), "^x[+-]?0*", "")'
    if low is not None:
        if low > 0:
            tests.append(f"(!{negative} && {_at_least(digits, low)})")
        else:
            tests.append(f"(!{negative} || {_at_most(digits, -low)})")
    if high is not None:
        if high < 0:
            tests.append(f"({negative} && {_at_least(digits, -high)})")
        else:
            tests.append(f"({negative} || {_at_most(digits, high)})")
    return "(" + " && ".join(tests) + ")"


def _at_most(digits: str, bound: int) -> str:
    text = str(bound)
    return (
        f"(STRLEN({digits}) < {len(text)} || "
        f'(STRLEN({digits}) = {len(text)} && {digits} <= "{text}"))'
    )


def _at_least(digits: str, bound: int) -> str:
    text = str(bound)
    return (
        f"(STRLEN({digits}) > {len(text)} || "
        f'(STRLEN({digits}) = {len(text)} && {digits} >= "{text}"))'
    )


def datatype_expr(value: str, *, written: bool) -> str:
    """SPARQL for the datatype of ``value`` as written."""
    if not written:
        return f"DATATYPE({value})"
    dt = f"STR(DATATYPE({value}))"
    return (
        f"IF(isLiteral({value}) && STRSTARTS({dt}, {_s(WRITTEN_LANG)}), <{RDF.langString}>, "
        f"IF(isLiteral({value}) && STRSTARTS({dt}, {_s(WRITTEN)}), "
        f"IRI(STRAFTER({dt}, {_s(WRITTEN)})), DATATYPE({value})))"
    )


def lang_expr(value: str, *, written: bool) -> str:
    """SPARQL for the language tag of ``value`` as written ("" for none)."""
    if not written:
        return f"LANG({value})"
    dt = f"STR(DATATYPE({value}))"
    return (
        f"IF(isLiteral({value}) && STRSTARTS({dt}, {_s(WRITTEN_LANG)}), "
        f"STRAFTER({dt}, {_s(WRITTEN_LANG)}), LANG({value}))"
    )


def value_expr(value: str, *, written: bool) -> str:
    """SPARQL for the value of ``value``, for comparisons (``<``, ``>=``)."""
    if not written:
        return value
    dt = f"STR(DATATYPE({value}))"
    return (
        f"IF(isLiteral({value}) && STRSTARTS({dt}, {_s(WRITTEN_LANG)}), "
        f"STRLANG(STR({value}), STRAFTER({dt}, {_s(WRITTEN_LANG)})), "
        f"IF(isLiteral({value}) && STRSTARTS({dt}, {_s(WRITTEN)}), "
        f"STRDT(STR({value}), IRI(STRAFTER({dt}, {_s(WRITTEN)}))), {value}))"
    )


def _s(text: str) -> str:
    return Literal(text).n3()


_Key = tuple[str, str, str]


def _key(literal: Literal) -> _Key:
    # rdflib compares language tags ignoring case; the store and SHACL do not.
    return (str(literal), str(literal.datatype or ""), literal.language or "")


class Writer:
    """Maps the literals the store would not keep as written to written literals."""

    def __init__(self, literals: Iterable[Literal]) -> None:
        self.changed: dict[_Key, Literal] = {}
        candidates = sorted(
            {
                _key(literal)
                for literal in literals
                if literal.language is not None
                or (literal.datatype is not None and literal.datatype != XSD.string)
            }
        )
        for lexical, _, language in candidates:
            if language and language != language.lower():
                self.changed[(lexical, "", language)] = Literal(
                    lexical, datatype=URIRef(WRITTEN_LANG + language)
                )
        typed = [key for key in candidates if key[1]]
        if not typed:
            return
        probe = ox.Store()
        probe.extend(
            ox.Quad(
                ox.NamedNode(f"urn:hopgate:probe:{index}"),
                ox.NamedNode("urn:hopgate:probe"),
                ox.Literal(lexical, datatype=ox.NamedNode(datatype)),
            )
            for index, (lexical, datatype, _) in enumerate(typed)
        )
        for quad in probe:
            key = typed[int(quad.subject.value.rpartition(":")[2])]
            kept = quad.object
            assert isinstance(kept, ox.Literal)
            if (kept.value, kept.datatype.value) != key[:2]:
                self.changed[key] = Literal(key[0], datatype=URIRef(WRITTEN + key[1]))

    @property
    def active(self) -> bool:
        """Some literal is stored as a written literal."""
        return bool(self.changed)

    def write(self, node: Node) -> Node:
        """``node`` as the validation store holds it."""
        if isinstance(node, Literal):
            return self.changed.get(_key(node), node)
        return node


def unwrite(node: Node) -> Node:
    """The literal as written, for a written literal read back from the store."""
    if isinstance(node, Literal) and node.datatype is not None:
        datatype = str(node.datatype)
        if datatype.startswith(WRITTEN_LANG):
            return Literal(str(node), lang=datatype[len(WRITTEN_LANG) :], normalize=False)
        if datatype.startswith(WRITTEN):
            return Literal(str(node), datatype=URIRef(datatype[len(WRITTEN) :]), normalize=False)
    return node


__all__ = [
    "ANY_FORM",
    "INTEGER_RANGES",
    "LEXICAL",
    "WRITTEN",
    "WRITTEN_LANG",
    "Writer",
    "datatype_expr",
    "lang_expr",
    "unwrite",
    "value_expr",
    "well_formed",
    "well_formed_expr",
]
