"""Query texts that read an answer larger than a server's row cap in pages, in a stable order.

A server with a row cap (Virtuoso's ``ResultSetMaxRows``) cuts a larger
answer short, so hopgate reads it page by page: the query itself, its order
made total, as a sub-select, and ``OFFSET``/``LIMIT`` outside it
(:func:`select_page`). The order is the query's own ``ORDER BY`` followed by
every projected variable, so rows the query leaves unordered come in one
order on every page. The sort sits inside the sub-select because Virtuoso
7.2.5 refuses a top-level ``ORDER BY`` whose ``OFFSET`` + ``LIMIT`` passes
its ``MaxSortedTopRows`` (SR353), and keeps a sub-select's order. A
CONSTRUCT is paged over the distinct solutions of its template's variables
(:func:`construct_page`), which give the same triples.

The texts are built from the query as sent (comments removed, parameters
bound), never from a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hopgate.errors import QueryError

_IRI = re.compile(r'<[^<>"{}|^`\\\s]*>')
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE = re.compile(r"[?$]([A-Za-z_][A-Za-z0-9_]*)")


def _tokens(text: str) -> list[tuple[int, str]]:
    """(offset, token) of every keyword, variable and bracket outside strings and IRIs."""
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < len(text) and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            i = j + len(quote)
            continue
        if ch == "<":
            match = _IRI.match(text, i)
            if match:
                i = match.end()
                continue
        if ch in "?$":
            match = _WORD.match(text, i + 1)
            if match:
                found.append((i, "?" + match.group(0)))
                i = match.end()
                continue
        if ch == ":" or (ch.isalnum() and i > 0 and text[i - 1] in ":_-"):
            # A prefixed name's local part, never a keyword.
            match = _WORD.match(text, i + 1 if ch == ":" else i)
            i = match.end() if match else i + 1
            continue
        match = _WORD.match(text, i)
        if match:
            found.append((i, match.group(0).upper()))
            i = match.end()
            continue
        if ch in "{}()":
            found.append((i, ch))
        i += 1
    return found


@dataclass(frozen=True)
class Shape:
    """Where a query's parts are: the prologue's end, the form, its top-level modifiers."""

    #: Where the query form (SELECT / CONSTRUCT) starts: what is before is the prologue.
    start: int
    form: str
    #: Where the top-level ORDER BY starts (or -1), and where its keys end.
    order_at: int
    order_end: int
    #: True when the query has a top-level LIMIT, OFFSET or trailing VALUES (not paged).
    sliced: bool
    #: A CONSTRUCT's template (between its braces), else "".
    template: str
    #: A CONSTRUCT's WHERE group (with braces) and where it ends, else "" and -1.
    where: str


def shape(text: str) -> Shape:
    """Read the parts of a SELECT or CONSTRUCT query that paging needs.

    Raises:
        QueryError: not a SELECT or CONSTRUCT query, or unbalanced brackets.
    """
    tokens = _tokens(text)
    start = next((i for i, t in tokens if t in ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE")), -1)
    form = next((t for _, t in tokens if t in ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE")), "")
    if form not in ("SELECT", "CONSTRUCT"):
        raise QueryError("only SELECT and CONSTRUCT answers are read in pages")
    depth = 0
    order_at = order_end = -1
    sliced = False
    template = ""
    where = ""
    template_open = -1
    where_open = -1
    seen_where_group = False
    previous = ""
    for index, (offset, token) in enumerate(tokens):
        if offset < start:
            continue
        if token in "{(":
            if token == "{" and depth == 0:
                if form == "CONSTRUCT" and template_open < 0 and not template:
                    template_open = offset
                elif where_open < 0 and not seen_where_group:
                    where_open = offset
            depth += 1
        elif token in "})":
            depth -= 1
            if depth < 0:
                raise QueryError("unbalanced brackets in the query")
            if token == "}" and depth == 0:
                if template_open >= 0 and not template:
                    template = text[template_open + 1 : offset]
                    template_open = -1
                elif where_open >= 0:
                    where = text[where_open : offset + 1]
                    where_open = -1
                    seen_where_group = True
        elif depth == 0 and seen_where_group:
            if token == "BY" and previous == "ORDER":
                order_at = tokens[index - 1][0]
                order_end = len(text)
            elif token in ("LIMIT", "OFFSET", "VALUES"):
                sliced = True
                if order_at >= 0 and order_end == len(text):
                    order_end = offset
        previous = token if depth == 0 else ""
    if depth != 0:
        raise QueryError("unbalanced brackets in the query")
    return Shape(start, form, order_at, order_end, sliced, template, where)


def _total_order(body: str, found: Shape, variables: list[str], base: int) -> str:
    """``body`` with its top-level ORDER BY extended by ``variables`` (or one added)."""
    keys = " ".join(f"?{name}" for name in variables)
    if found.order_at < 0:
        return f"{body}\nORDER BY {keys}"
    end = found.order_end - base
    return f"{body[:end].rstrip()} {keys}\n{body[end:]}"


def select_page(text: str, variables: list[str], offset: int, limit: int) -> str:
    """One page of a SELECT's answer: its rows ``offset`` to ``offset + limit`` in a total order.

    ``variables`` are the answer's variables (its ``head.vars``).

    Raises:
        QueryError: the query slices its own answer (LIMIT, OFFSET, a trailing
            VALUES), so its pages cannot be taken from outside.
    """
    found = shape(text)
    if found.form != "SELECT":
        raise QueryError("not a SELECT query")
    if found.sliced:
        raise QueryError("a query with its own LIMIT, OFFSET or trailing VALUES is not paged")
    prologue, body = text[: found.start], text[found.start :]
    ordered = _total_order(body, found, variables, found.start)
    return f"{prologue}SELECT * WHERE {{ {{ {ordered} }} }} OFFSET {offset} LIMIT {limit}"


def count_query(text: str) -> str:
    """How many rows a SELECT answers, or solutions a CONSTRUCT's template has, as one query."""
    found = shape(text)
    prologue, body = text[: found.start], text[found.start :]
    if found.form == "SELECT":
        return f"{prologue}SELECT (COUNT(*) AS ?n) WHERE {{ {{ {body} }} }}"
    names = template_variables(found.template)
    inner = f"SELECT DISTINCT {' '.join('?' + n for n in names)} WHERE {found.where}"
    return f"{prologue}SELECT (COUNT(*) AS ?n) WHERE {{ {{ {inner} }} }}"


def template_variables(template: str) -> list[str]:
    """The variables of a CONSTRUCT template, in order of first use."""
    names: list[str] = []
    for match in _VARIABLE.finditer(_syntax(template)):
        if match.group(1) not in names:
            names.append(match.group(1))
    return names


def template_triples(template: str) -> int:
    """At most how many triples one solution of a CONSTRUCT template makes.

    Counts the separators (``.``, ``;``, ``,``) outside strings and IRIs; a
    dot inside a number or a prefixed name counts too, which only makes the
    pages smaller.
    """
    plain = _syntax(template)
    return 1 + sum(plain.count(ch) for ch in ".;,")


def _syntax(text: str) -> str:
    """``text`` without its strings and IRIs: what is syntax and variables."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < len(text) and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            i = j + len(quote)
            out.append(" ")
            continue
        if ch == "<":
            match = _IRI.match(text, i)
            if match:
                i = match.end()
                out.append(" ")
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def construct_page(text: str, offset: int, limit: int) -> str:
    """One page of a CONSTRUCT: the triples of its template's distinct solutions ``offset`` on.

    Raises:
        QueryError: the query slices its own answer, or its template makes
            blank nodes (fresh per solution, so paging would change them).
    """
    found = shape(text)
    if found.form != "CONSTRUCT" or not found.where:
        raise QueryError("not a CONSTRUCT query with a WHERE clause")
    if found.sliced:
        raise QueryError("a query with its own LIMIT, OFFSET or trailing VALUES is not paged")
    syntax = _syntax(found.template)
    if "_:" in syntax or "[" in syntax:
        raise QueryError("a CONSTRUCT template with blank nodes is not paged")
    names = template_variables(found.template)
    keys = " ".join(f"?{name}" for name in names)
    inner = f"SELECT DISTINCT {keys} WHERE {found.where} ORDER BY {keys}"
    return (
        f"{text[: found.start]}CONSTRUCT {{{found.template}}} "
        f"WHERE {{ {{ {inner} }} }} OFFSET {offset} LIMIT {limit}"
    )


__all__ = [
    "Shape",
    "construct_page",
    "count_query",
    "select_page",
    "shape",
    "template_triples",
    "template_variables",
]
