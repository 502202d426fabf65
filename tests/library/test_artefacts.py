"""The packaged artefacts (hopgate.library.artefacts): the query library, shapes, ontology.

What each query answers is tests/library/test_queries.py; here, how a query file's
header is read and how the library is looked up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hopgate.errors import QueryError
from hopgate.library.artefacts import (
    artefact,
    library_queries,
    library_query,
    library_update,
    library_updates,
    parse_query,
)

ROOT = Path(__file__).resolve().parents[2]

HEADER = """# id: probe
# description: Which claims does the probe find?
# parameters: ?run (IRI of a run)
#  and nothing else
# returns: ?claim
# A comment after the header is not a field.
SELECT ?claim WHERE { ?claim a hg:Claim }
"""


def test_a_header_is_read_field_by_field_with_continuations() -> None:
    query = parse_query(HEADER, name="probe.rq")
    assert (query.id, query.description, query.returns) == (
        "probe",
        "Which claims does the probe find?",
        "?claim",
    )
    assert query.parameters == "?run (IRI of a run) and nothing else"
    assert query.text == HEADER and not query.update
    assert parse_query(HEADER, name="probe.ru").update


def test_a_header_without_its_fields_names_the_file_and_what_lacks() -> None:
    with pytest.raises(QueryError, match=r"probe\.rq: the query header lacks parameters, returns"):
        parse_query("# id: probe\n# description: Why?\nSELECT * {}", name="probe.rq")


def test_the_library_is_every_file_of_queries() -> None:
    files = {p.stem for p in (ROOT / "queries").iterdir() if p.suffix in (".rq", ".ru")}
    assert set(library_queries()) | set(library_updates()) == files
    assert all(not q.update for q in library_queries().values())
    assert all(u.update for u in library_updates().values())
    # The id in a file's header is its file name.
    assert all(q.id == name for name, q in {**library_queries(), **library_updates()}.items())
    assert {entry.name for entry in artefact("shapes").iterdir()} >= {
        p.name for p in (ROOT / "shapes").glob("*.ttl")
    }


def test_an_unknown_id_lists_the_known_ones() -> None:
    with pytest.raises(QueryError, match=r"no query 'nope' in the library \(known: .*verdicts"):
        library_query("nope")
    with pytest.raises(QueryError, match=r"no update 'verdicts' in the library"):
        library_update("verdicts")
    assert library_query("verdicts").id == "verdicts"
