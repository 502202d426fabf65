"""The packaged artefacts: the query library, the shapes and the ontology.

``queries/``, ``shapes/`` and ``ontology/`` are top-level folders of the
repository (auditors read them there) mapped into the wheel as data packages.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from hopgate.errors import QueryError

_HEADER = re.compile(r"^#\s*(id|description|parameters|returns):\s*(.*)$")


@dataclass(frozen=True)
class LibraryQuery:
    """One documented query of ``queries/``: its header and its SPARQL text."""

    id: str
    description: str
    parameters: str
    returns: str
    text: str
    update: bool = False


#: Where a packaged folder lives in a source checkout, when not at the top.
_CHECKOUT = {"spec": Path("docs") / "spec"}


def artefact(folder: str) -> Traversable:
    """The packaged folder ``ontology``, ``shapes``, ``queries``, ``examples`` or ``spec``
    (docs/spec, the contracts).

    In a source checkout run without installing (or installed editable), the
    repository's folder is used.
    """
    try:
        return resources.files(f"hopgate.artefacts.{folder}")
    except ModuleNotFoundError:
        checkout = Path(__file__).resolve().parents[3] / _CHECKOUT.get(folder, Path(folder))
        if checkout.is_dir():
            return checkout
        raise


def declared_parameters(parameters: str) -> dict[str, str]:
    """The parameters a query header's ``# parameters:`` field declares, by name, each
    with its description: ``?run (IRI of a run) ?g (...)`` gives
    ``{"run": "IRI of a run", "g": "..."}``; ``none`` gives nothing."""
    found: dict[str, str] = {}
    for match in re.finditer(r"\?([A-Za-z_][A-Za-z0-9_]*)\s*", parameters):
        if match.start() and parameters[match.start() - 1] not in " ,\t":
            continue  # a "?" inside a description
        found.setdefault(match.group(1), _parenthesised(parameters, match.end()))
    return found


def _parenthesised(text: str, start: int) -> str:
    """The text inside the parentheses opening at ``start`` (nested ones kept), or ''."""
    depth = 0
    for at in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        if depth == 0:
            return text[start + 1 : at].strip() if at > start else ""
    return ""


def header_parameters(text: str) -> dict[str, str] | None:
    """The parameters declared by the ``# parameters:`` header of a query's text (a
    library query's, or an auditor's file written the same way); None without one."""
    found = _header_fields(text).get("parameters")
    return None if found is None else declared_parameters(found)


def _header_fields(text: str) -> dict[str, str]:
    """A query text's header fields (``# id:``, ``# description:``, ...): the comment
    lines it opens with; a continuation line starts with ``#`` and two spaces."""
    fields: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        match = _HEADER.match(line)
        if match:
            current = match.group(1)
            fields[current] = match.group(2).strip()
        elif current and line.startswith("#  "):
            fields[current] += " " + line[1:].strip()
    return fields


def parse_query(text: str, *, name: str) -> LibraryQuery:
    """Read a query file's header (``# id:``, ``# description:``, ...) and keep its text.

    Continuation lines of a header field start with ``#`` and two spaces. A
    ``.ru`` file is a SPARQL 1.1 Update (``update`` is set).
    """
    fields = _header_fields(text)
    missing = [key for key in ("id", "description", "parameters", "returns") if key not in fields]
    if missing:
        raise QueryError(f"{name}: the query header lacks {', '.join(missing)}")
    return LibraryQuery(
        id=fields["id"],
        description=fields["description"],
        parameters=fields["parameters"],
        returns=fields["returns"],
        text=text,
        update=name.endswith(".ru"),
    )


def _library(suffix: str) -> dict[str, LibraryQuery]:
    return dict(_parsed_library(suffix))


@functools.cache
def _parsed_library(suffix: str) -> dict[str, LibraryQuery]:
    # The packaged files do not change while hopgate runs; reading and parsing
    # all of them on every call cost 3.7 ms, 20-30 times a command.
    found = {}
    for entry in sorted(artefact("queries").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(suffix):
            query = parse_query(entry.read_text("utf-8"), name=entry.name)
            found[query.id] = query
    return found


def library_queries() -> dict[str, LibraryQuery]:
    """Every query (``queries/*.rq``) of the packaged library, by id."""
    return _library(".rq")


def library_updates() -> dict[str, LibraryQuery]:
    """Every update (``queries/*.ru``) of the packaged library, by id.

    The evaluation runs them to materialise intermediate results in a scratch
    graph it removes again; they are listed apart so that ``hopgate query``
    never runs one as a query.
    """
    return _library(".ru")


def library_query(query_id: str) -> LibraryQuery:
    """One query of the library by its id; raise :class:`QueryError` when unknown."""
    queries = library_queries()
    if query_id not in queries:
        known = ", ".join(sorted(queries)) or "none"
        raise QueryError(f"no query {query_id!r} in the library (known: {known})")
    return queries[query_id]


def library_update(update_id: str) -> LibraryQuery:
    """One update of the library by its id; raise :class:`QueryError` when unknown."""
    updates = library_updates()
    if update_id not in updates:
        known = ", ".join(sorted(updates)) or "none"
        raise QueryError(f"no update {update_id!r} in the library (known: {known})")
    return updates[update_id]
