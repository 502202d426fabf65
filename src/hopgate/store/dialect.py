"""Rewrites that let the library's portable SPARQL run on servers with known gaps.

The query files in ``queries/`` are the only copy of the logic; a server that
needs a different spelling of the same meaning gets it here, applied by the
remote store just before sending, never in the library. Each rewrite keeps
the query's meaning and is pinned by a test (``tests/store/test_dialect.py``) and by
the Virtuoso parity tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hopgate.vocab import HG

#: Virtuoso's pragma that makes it join in the order the text is written
#: (its SQL compiler's ``OPTION (ORDER)``). Not a rewrite: the remote store
#: sends it on request (``join_order="written"``), so the parity tests see the
#: rule files under a second plan, chosen by the text instead of the
#: server's statistics (docs/remote-virtuoso.md).
WRITTEN_JOIN_ORDER = 'DEFINE sql:select-option "order"'

#: A library file's header line asking a server to join in the written order.
_DECLARED_ORDER = re.compile(r"^# join-order:\s*written\s*$", re.MULTILINE)
#: A query's header: its leading comment, PREFIX, BASE and blank lines (matched
#: without reading on: a query may carry a VALUES block of 200 kB).
_HEADER = re.compile(r"(?:(?:#[^\n]*|[ \t]*(?:(?i:PREFIX|BASE)[ \t][^\n]*)?)(?:\n|$))*")


def declares_written_order(text: str) -> bool:
    """Whether the query ``text``'s header (its leading comment lines, a prologue
    of PREFIX and BASE lines before or among them) says ``# join-order: written``:
    a file whose written order is the plan to use on a server that plans
    otherwise (Virtuoso: :data:`WRITTEN_JOIN_ORDER`)."""
    header = _HEADER.match(text)
    return header is not None and bool(_DECLARED_ORDER.search(header.group()))


def order_declaration(text: str) -> str:
    """The header line ``# join-order: written`` (with its line break) when ``text``
    declares it, else "": put before a page or count made from ``text`` without its
    comments, so that the server joins it as the file asks."""
    return "# join-order: written\n" if declares_written_order(text) else ""


_EXISTS = re.compile(r"(NOT\s+)?EXISTS\s*\{", re.IGNORECASE)
_BIND = re.compile(r"\bBIND\s*\(", re.IGNORECASE)
_IRIREF = re.compile(r'<[^<>"{}|^`\\\s]*>')


def _skip_token(text: str, i: int) -> int:
    """The index after a string literal, IRI or comment starting at ``i`` (``i`` otherwise)."""
    ch = text[i]
    if ch == "#":
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if ch in "\"'":
        quote = ch * 3 if text.startswith(ch * 3, i) else ch
        j = i + len(quote)
        while j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            if text.startswith(quote, j):
                return j + len(quote)
            j += 1
        return len(text)
    if ch == "<":
        match = _IRIREF.match(text, i)
        if match:
            return match.end()
    return i


def _code(text: str, start: int = 0) -> Iterator[int]:
    """The indexes from ``start`` on that are not inside a string literal, IRI or comment."""
    i = start
    while i < len(text):
        skipped = _skip_token(text, i)
        if skipped != i:
            i = skipped
            continue
        yield i
        i += 1


def _closing(text: str, i: int, opener: str, closer: str) -> int:
    """The index of the bracket closing the one at ``i``."""
    depth = 0
    for j in _code(text, i):
        if text[j] == opener:
            depth += 1
        elif text[j] == closer:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"unbalanced {opener}{closer} in the query")


def operations(update: str) -> list[str]:
    """The operations of a SPARQL Update request, split at its top-level ``;``.

    A ``;`` inside a string, IRI, comment or group is not a separator. The
    prologue, if any, stays with the first operation only, so callers split
    the library text before adding one. Empty operations are dropped.
    """
    parts = []
    depth = 0
    start = 0
    for i in _code(update):
        ch = update[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            parts.append(update[start:i])
            start = i + 1
    parts.append(update[start:])
    return [part for part in parts if without_comments(part).strip()]


#: The predicate of a scoped view's list of its graphs (:func:`join_scope`).
SCOPE_OF = HG + "scopeOf"
_GRAPH_VARIABLE = re.compile(r"GRAPH\s+[?$]([A-Za-z_][A-Za-z0-9_]*)\s*\{", re.IGNORECASE)


def join_scope(update: str, listed_in: str) -> str:
    """``update`` with each ``GRAPH ?g { ... }`` followed, in the same group, by
    ``GRAPH <listed_in> { ?g hg:scopeOf <listed_in> }``.

    Sent with no dataset, the operation then reads exactly the graphs listed in
    ``listed_in`` (each as ``<graph> hg:scopeOf <listed_in>``), as it would with
    them as its dataset: a join in the group the ``GRAPH`` pattern is in keeps
    its meaning inside ``OPTIONAL``, ``MINUS``, ``EXISTS`` and sub-selects.
    Virtuoso 7.2.5 looks a ``GRAPH ?g`` pattern up once per graph of a dataset
    (or of an ``IN`` list or ``VALUES``), so a run's rule steps cost more for
    each input graph, even an empty one; joined to the list, once
    (docs/remote-virtuoso.md "The evaluation on the server"). A graph written as a constant
    (``GRAPH <...>``, a bound parameter) is left as it is.
    """
    # Only in WHERE clauses: a template's GRAPH ?g says where to write, not what to read.
    clauses = [(start, _closing(update, start - 1, "{", "}")) for start in where_groups(update)]
    joins = []
    for i in _code(update):
        if update[i] not in "Gg" or (
            i > 0 and (update[i - 1].isalnum() or update[i - 1] in "_:?$")
        ):
            continue
        if not any(start <= i < end for start, end in clauses):
            continue
        match = _GRAPH_VARIABLE.match(update, i)
        if match:
            end = _closing(update, match.end() - 1, "{", "}")
            joins.append((end + 1, match.group(1)))
    out, last = [], 0
    for at, variable in sorted(joins):
        out += [
            update[last:at],
            f" GRAPH <{listed_in}> {{ ?{variable} <{SCOPE_OF}> <{listed_in}> }}",
        ]
        last = at
    out.append(update[last:])
    return "".join(out)


def without_comments(text: str) -> str:
    """``text`` with every comment removed (its line break kept); strings and IRIs untouched.

    SPARQLWrapper guesses a request's form from the first keyword it finds
    after removing whole-line comments, and its pattern skips every other
    line of a comment block: a query whose header said "Which load graphs"
    was sent to the update endpoint as a LOAD. Sent without comments, the
    first keyword after the prologue is the form.
    """
    parts = []
    start = 0
    i = 0
    while i < len(text):
        skipped = _skip_token(text, i)
        if skipped == i:
            i += 1
            continue
        if text[i] == "#":
            parts.append(text[start:i])
            start = skipped
        i = skipped
    parts.append(text[start:])
    return "".join(parts)


def _wrap_exists(expression: str) -> str:
    out = []
    i = 0
    while True:
        match = _EXISTS.search(expression, i)
        if match is None:
            out.append(expression[i:])
            return "".join(out)
        brace = match.end() - 1
        end = _closing(expression, brace, "{", "}")
        out.append(expression[i : match.start()])
        out.append(f"IF({expression[match.start() : end + 1]}, true, false)")
        i = end + 1


def exists_as_values(query: str) -> str:
    """Write each ``EXISTS {...}`` / ``NOT EXISTS {...}`` inside a ``BIND`` as ``IF(..., true, false)``.

    Virtuoso 7 compiles ``BIND (EXISTS {...} && NOT EXISTS {...} AS ?v)`` into
    SQL it then rejects (SQ074); it accepts each EXISTS wrapped in ``IF``,
    which has the same value. FILTERs are left alone (Virtuoso compiles
    ``FILTER (NOT EXISTS ...)`` as an anti-join, which ``IF`` would defeat).
    """
    out = []
    i = 0
    while True:
        match = _BIND.search(query, i)
        if match is None:
            out.append(query[i:])
            return "".join(out)
        # A BIND inside a comment or string is left alone.
        if _inside_comment_or_string(query, match.start()):
            out.append(query[i : match.end()])
            i = match.end()
            continue
        paren = match.end() - 1
        end = _closing(query, paren, "(", ")")
        out.append(query[i : paren + 1])
        out.append(_wrap_exists(query[paren + 1 : end]))
        out.append(")")
        i = end + 1


def _inside_comment_or_string(text: str, position: int) -> bool:
    j = 0
    while j < position:
        skipped = _skip_token(text, j)
        if skipped != j:
            if skipped > position:
                return True
            j = skipped
            continue
        j += 1
    return False


_SERVICE = re.compile(r"(?<![\w:?$.-])SERVICE(?![\w:-])", re.IGNORECASE)


def uses_service(query: str) -> bool:
    """Whether ``query`` holds the keyword SERVICE (outside strings, IRIs and comments).

    Not a rewrite: the stores refuse such a query (:func:`hopgate.store.terms.refuse_service`).
    A prefixed name (``ex:service``) or a variable (``?service``) is not the keyword.
    """
    return any(
        not _inside_comment_or_string(query, match.start()) for match in _SERVICE.finditer(query)
    )


_FROM = re.compile(r"(?<![\w:?$.-])FROM(?![\w:-])", re.IGNORECASE)


def uses_from(query: str) -> bool:
    """Whether ``query`` holds the keyword FROM (``FROM <g>``, ``FROM NAMED <g>``) outside
    strings, IRIs and comments: a dataset of its own (refused by
    :func:`hopgate.store.terms.refuse_dataset_clause`)."""
    return any(
        not _inside_comment_or_string(query, match.start()) for match in _FROM.finditer(query)
    )


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


#: A prefixed name's local part after its ``:`` (PN_LOCAL, read generously: up to the next
#: delimiter; a triple's closing ``.`` read with it changes nothing that is looked for).
_LOCAL = re.compile(r"[^\s{}()\[\];,<>\"'#=!&|*+/^?$]*")


def _name_end(query: str, i: int) -> int:
    """The index after the variable or prefixed name that starts at ``i`` (``i`` when none
    does): ``?name`` and ``$name`` by SPARQL's VARNAME, ``prefix:local`` and ``:local``."""
    ch = query[i]
    if ch in "?$":
        match = _VARNAME.match(query, i + 1)
        return match.end() if match else i
    if ch == ":":
        return _LOCAL.match(query, i + 1).end()  # type: ignore[union-attr]
    if ch.isalpha() and (i == 0 or not (query[i - 1].isalnum() or query[i - 1] in "_-.")):
        match = _VARNAME.match(query, i)
        if match and query.startswith(":", match.end()):
            return _LOCAL.match(query, match.end() + 1).end()  # type: ignore[union-attr]
    return i


def where_groups(query: str) -> list[int]:
    """The offsets just inside each group that opens a WHERE clause (of a query or sub-select).

    Read with the same tokenizer as the rewrites above, so braces, keywords
    and ``WHERE {`` inside strings, IRIs and comments are never taken for
    syntax. A WHERE clause's group is the first ``{`` after ``WHERE``, or,
    where the keyword is optional, the first ``{`` after ``ASK`` or after a
    ``SELECT`` projection (outside its parentheses). ``CONSTRUCT`` templates
    and ``INSERT``/``DELETE`` templates are not WHERE groups.

    Raises:
        ValueError: the text uses ``DELETE WHERE`` (its quad pattern cannot
            take a VALUES block) or has an unbalanced bracket.
    """
    found: list[int] = []
    expecting = False  # the next "{" at parenthesis depth `level` opens a WHERE group
    level = 0
    depth = 0  # parentheses
    previous = ""
    i = 0
    while i < len(query):
        skipped = _skip_token(query, i)
        if skipped != i:
            i = skipped
            continue
        ch = query[i]
        named = _name_end(query, i)
        if named != i:
            # A variable or a prefixed name (?éWhere, ex:a.ask, where:x): never a keyword.
            i = named
            continue
        if ch.isalnum() and i > 0 and query[i - 1] in "_-":
            match = _WORD.match(query, i)
            i = match.end() if match else i + 1
            continue
        match = _WORD.match(query, i)
        if match:
            word = match.group(0).upper()
            if word == "WHERE":
                if previous == "DELETE":
                    raise ValueError(
                        "DELETE WHERE cannot take bound values; write DELETE {...} WHERE {...}"
                    )
                expecting, level = True, depth
            elif word in ("SELECT", "ASK"):
                expecting, level = True, depth
            elif word in ("CONSTRUCT", "INSERT", "DELETE", "DESCRIBE"):
                expecting = False
            previous = word
            i = match.end()
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "{" and expecting and depth == level:
            found.append(i + 1)
            expecting = False
        if not ch.isspace():
            previous = ""
        i += 1
    return found


#: A SPARQL variable's name after its ``?`` or ``$`` (VARNAME of the SPARQL 1.1 grammar):
#: not ASCII alone, so that ``?runé`` is never read as ``?run`` followed by text.
_VARNAME = re.compile(
    "[A-Za-z0-9_\u00b7\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u037d\u037f-\u1fff"
    "\u200c\u200d\u203f\u2040\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff"
    "\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff\u0300-\u036f]+"
)


def inline_constants(query: str, terms: dict[str, str]) -> tuple[str, set[str]]:
    """Write each parameter in ``terms`` (name -> serialised IRI) as that constant.

    A parameter means its value written in (:func:`hopgate.store.terms.bind_parameters`):
    a ``VALUES`` block binds it only where the group's own patterns are joined,
    not inside a ``UNION`` branch or an ``OPTIONAL`` evaluated on its own. And
    Virtuoso 7.2.5 answers ``evaluation-verdicts`` with ``VALUES`` in each
    group with a plan chosen from sampled cardinalities,
    different from one server to the next, and some of those plans lose rows
    (two verdicts of four) or never finish (docs/remote-virtuoso.md); with the
    parameter written as a constant it answered right on every server. A name
    that is projected (``SELECT ... ?name``, ``SELECT *``, ``DESCRIBE *``),
    assigned (``AS ?name``), tested by ``BOUND``, listed by ``VALUES`` or used
    in ``GROUP BY`` / ``ORDER BY`` is left for ``VALUES``, as is one the scan
    did not see at every place.
    ``MINUS`` removes a solution only through a variable both sides share: in a
    ``MINUS`` group that shares no other variable with what precedes it in its
    group, the parameter stays a variable (and the name is bound by ``VALUES``
    too), since a constant there would share none. Strings, IRIs and comments
    are not touched.

    Returns:
        The rewritten text and the names written in as constants at every place
        (a name kept anywhere is bound by ``VALUES`` as well).
    """
    keep: set[str] = set()
    # Each place of a parameter: start, end, name, and the MINUS groups it is inside.
    spans: list[tuple[int, int, str, tuple[int, ...]]] = []
    context = ""  # "select", "by", "values" or "": where a variable here may not be a constant
    previous = ""
    depth = 0  # parentheses
    groups: list[int] = []  # where each open group's "{" is
    # Each MINUS group: where its enclosing group opens, where the keyword is, and its
    # own group's span (end -1 while open); the open ones by index, innermost last.
    minus_groups: list[list[int]] = []
    open_minus: list[tuple[int, int]] = []  # (index, brace depth it opened at)
    minus_at: int | None = None  # a MINUS keyword whose group is next
    i = 0
    while i < len(query):
        skipped = _skip_token(query, i)
        if skipped != i:
            i = skipped
            continue
        ch = query[i]
        if ch in "?$":
            match = _VARNAME.match(query, i + 1)
            if match is None:
                i += 1
                continue
            name = match.group(0)
            if name in terms:
                if context or previous in ("AS", "BOUND("):
                    keep.add(name)
                spans.append((i, match.end(), name, tuple(k for k, _ in open_minus)))
            previous = ""
            i = match.end()
            continue
        named = _name_end(query, i)
        if named != i:  # a prefixed name (a variable was read above)
            i = named
            continue
        if ch.isalnum() and i > 0 and query[i - 1] in "_-":
            match = _WORD.match(query, i)
            i = match.end() if match else i + 1
            continue
        match = _WORD.match(query, i)
        if match:
            word = match.group(0).upper()
            if word in ("SELECT", "DESCRIBE"):
                context = "select"
            elif word == "BY":
                context = "by"
            elif word == "VALUES":
                context = "values"
            elif word in ("WHERE", "LIMIT", "OFFSET", "HAVING"):
                context = ""
            elif word == "MINUS":
                minus_at = i
            previous = word
            i = match.end()
            continue
        if ch == "*" and context == "select" and depth == 0:
            return query, set()  # SELECT * projects every variable
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "{":
            if minus_at is not None:
                minus_groups.append([groups[-1] if groups else 0, minus_at, i, -1])
                open_minus.append((len(minus_groups) - 1, len(groups)))
                minus_at = None
            groups.append(i)
        elif ch == "}":
            if groups:
                groups.pop()
            if open_minus and open_minus[-1][1] == len(groups):
                minus_groups[open_minus.pop()[0]][3] = i
        if ch in "{}" and not (context == "select" and depth > 0):
            # A group ends a projection or a VALUES list; an EXISTS group inside a
            # projection's expression does not.
            context = ""
        if not ch.isspace():
            previous = "BOUND(" if ch == "(" and previous == "BOUND" else ""
        i += 1
    chosen = set(terms) - keep
    unshared = {
        k
        for k, (enclosing, keyword, begin, end) in enumerate(minus_groups)
        if not (
            (_variables(query, begin, end if end >= 0 else len(query)) - chosen)
            & _variables(query, enclosing, keyword)
        )
    }
    out = []
    start = 0
    kept_at_a_place: set[str] = set()
    for begin, end, name, inside in spans:
        if name not in chosen:
            continue
        if unshared.intersection(inside):
            kept_at_a_place.add(name)
            continue
        out.append(query[start:begin])
        out.append(terms[name])
        start = end
    out.append(query[start:])
    text = "".join(out)
    # A place the scan did not see (a comparison such as ``?n<3 && ?x != ?y && 3>?n``
    # is read as an IRI) stays a variable: its name is bound by VALUES as well.
    unseen = chosen & _variables(text, 0, len(text), iris=False)
    inlined = {name for _, _, name, _ in spans if name in chosen} - kept_at_a_place - unseen
    return text, inlined


def variables(query: str) -> set[str]:
    """The names of the variables ``query`` writes (not those in its strings, IRIs or
    comments): what a parameter can bind. A comparison the scan reads as an IRI
    (``?n<3 && 3>?n``) keeps its variables: both readings are taken."""
    return _variables(query, 0, len(query)) | _variables(query, 0, len(query), iris=False)


def _variables(query: str, start: int, end: int, *, iris: bool = True) -> set[str]:
    """The names of the variables written in ``query[start:end]`` (strings, comments and,
    unless ``iris`` is False, what reads as an IRI skipped)."""
    found: set[str] = set()
    i = start
    while i < end:
        skipped = _skip_token(query, i) if iris or query[i] != "<" else i
        if skipped != i:
            i = skipped
            continue
        if query[i] in "?$":
            match = _VARNAME.match(query, i + 1)
            if match is not None:
                found.add(match.group(0))
                i = match.end()
                continue
        i += 1
    return found


__all__ = [
    "WRITTEN_JOIN_ORDER",
    "declares_written_order",
    "exists_as_values",
    "inline_constants",
    "variables",
    "where_groups",
]
