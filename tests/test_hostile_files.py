"""Issue 25, items 8 and 9: hostile files for ``shacl``, ``query``, ``import rag``, ``verify``
and ``report``. Each refusal ends the command with exit 2 and one ``Error:`` line (no
traceback), makes no request and reads no other file; what must be accepted is.

A case that once hung or crashed runs as a subprocess: its timeout is a hang guard (the
process is killed and the test fails), never a timing; figures are in bench/hostile.py.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import hopgate
from hopgate.cli import cli
from hopgate.errors import QueryError, ShaclError
from hopgate.inputs import MAX_DEPTH, MAX_PATH_STEPS, MAX_SHAPE_EXPANSION
from hopgate.shacl.graphs import validate_graph

ROOT = Path(__file__).resolve().parents[1]
CEDAR = ROOT / "examples" / "cedar.yaml"
#: Seconds before a hostile command is killed: a hang guard, not a timing.
HANG_GUARD = 300
PREFIXES = (
    "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
    "@prefix ex: <https://example.org/> .\n"
    "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
)


def hopgate_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The ``hopgate`` command as a real process, killed after HANG_GUARD seconds."""
    return subprocess.run(
        [sys.executable, "-m", "hopgate.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=cwd,
    )


def one_error(done: subprocess.CompletedProcess[str] | Any, *phrases: str) -> str:
    """Exit 2, one ``Error:`` line, no traceback; the line holds every phrase."""
    stderr = done.stderr if hasattr(done, "stderr") else done.output
    code = done.returncode if hasattr(done, "returncode") else done.exit_code
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr + done.stdout, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, stderr
    for phrase in phrases:
        assert phrase in errors[0], errors[0]
    return errors[0]


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A local TCP server no hopgate command may connect to (it never answers)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.setblocking(False)
    yield server
    server.close()


def connections(server: socket.socket) -> int:
    """How many connections reached ``server`` (the kernel completes them unanswered)."""
    count = 0
    while True:
        try:
            accepted, _ = server.accept()
        except BlockingIOError:
            return count
        accepted.close()
        count += 1


def _url(server: socket.socket, path: str = "ctx.jsonld") -> str:
    host, port = server.getsockname()
    return f"http://{host}:{port}/{path}"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


DATA = PREFIXES + 'ex:a ex:p "x" ; ex:q ex:b . ex:b ex:p ex:a .\n'


# ---- no network and no other file while parsing ---------------------------------------------


def test_a_json_ld_context_over_http_is_refused_without_a_request(
    tmp_path: Path, listener: socket.socket
) -> None:
    remote = {"@context": _url(listener), "@id": "https://example.org/a", "p": "x"}
    listed = {"@context": [{"ex": "https://example.org/"}, _url(listener, "b")], "@id": "ex:a"}
    nested = {"@context": {"t": {"@id": "https://example.org/t", "@context": _url(listener)}}}
    imported = {"@context": {"@import": _url(listener), "@version": 1.1}, "@id": "urn:a"}
    shapes = _write(tmp_path / "shapes.ttl", PREFIXES)
    for number, document in enumerate([remote, listed, nested, imported]):
        data = _write(tmp_path / f"data{number}.jsonld", json.dumps(document))
        one_error(hopgate_process("shacl", str(data), str(shapes)), "names a document", "inline")
    # As the shapes file too.
    one_error(hopgate_process("shacl", str(shapes), str(data)), "names a document")
    assert connections(listener) == 0


def test_a_json_ld_context_in_a_file_is_refused_unread(tmp_path: Path) -> None:
    secret = tmp_path / "context.jsonld"
    secret.write_text('{"@context": {"secret": "https://example.org/SECRET-VALUE"}}')
    shapes = _write(tmp_path / "shapes.ttl", PREFIXES)
    for reference in (secret.as_uri(), "context.jsonld", "/etc/passwd"):
        data = _write(tmp_path / "data.jsonld", json.dumps({"@context": reference, "secret": 1}))
        line = one_error(hopgate_process("shacl", str(data), str(shapes)), "names a document")
        assert "SECRET-VALUE" not in line and "root:" not in line


def test_json_ld_with_inline_contexts_is_validated(tmp_path: Path) -> None:
    data = _write(
        tmp_path / "data.jsonld",
        json.dumps(
            {
                "@context": {"ex": "https://example.org/", "p": {"@id": "ex:p"}},
                "@graph": [{"@id": "ex:a", "@type": "ex:C", "p": "x"}, {"@id": "ex:b"}],
            }
        ),
    )
    shapes = _write(
        tmp_path / "shapes.ttl",
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetClass ex:C ; "
        "sh:property [ sh:path ex:p ; sh:minCount 2 ] .\n",
    )
    report = validate_graph(data, shapes)
    assert [str(r.focus_node) for r in report.results] == ["https://example.org/a"]


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
<!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="https://example.org/">
<rdf:Description rdf:about="https://example.org/a"><ex:p>&f;</ex:p></rdf:Description>
</rdf:RDF>
"""


@pytest.mark.parametrize(
    ("name", "text", "phrase"),
    [
        ("laughs.rdf", BILLION_LAUGHS, "declares the XML entity 'a'"),
        (
            "xxe.rdf",
            BILLION_LAUGHS.split("<!ENTITY a")[0] + '<!ENTITY x SYSTEM "file:///etc/passwd">\n'
            "]>\n<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/>\n",
            "declares the XML entity 'x'",
        ),
        (
            "parameter.owl",
            '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY % p "x"> ]>\n<r/>\n',
            "declares the XML entity 'p'",
        ),
        (
            "dtd.xml",
            '<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF SYSTEM "http://127.0.0.1:9/x.dtd">\n'
            "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/>\n",
            "external DTD",
        ),
    ],
)
def test_xml_entities_are_refused_before_they_expand(
    tmp_path: Path, name: str, text: str, phrase: str
) -> None:
    data = _write(tmp_path / name, text)
    assert len(BILLION_LAUGHS) < 700
    shapes = _write(tmp_path / "shapes.ttl", PREFIXES)
    line = one_error(hopgate_process("shacl", str(data), str(shapes)), str(data), phrase)
    assert "root:" not in line


def test_rdf_xml_without_entities_is_validated(tmp_path: Path) -> None:
    data = _write(
        tmp_path / "data.rdf",
        '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"'
        ' xmlns:ex="https://example.org/">\n<rdf:Description rdf:about="https://example.org/a">'
        "<ex:p>x</ex:p></rdf:Description>\n</rdf:RDF>\n",
    )
    shapes = _write(
        tmp_path / "shapes.ttl",
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; "
        'sh:hasValue "y" ] .\n',
    )
    report = validate_graph(data, shapes)
    assert not report.conforms and report.engine == "store"


def test_service_in_a_query_is_refused_without_a_request(
    tmp_path: Path, listener: socket.socket
) -> None:
    store = tmp_path / "store"
    assert CliRunner().invoke(cli, ["--store", str(store), "load", str(CEDAR)]).exit_code == 0
    host, port = listener.getsockname()
    for text in (
        f"SELECT * WHERE {{ SERVICE <http://{host}:{port}/sparql> {{ ?s ?p ?o }} }}",
        f"select * where {{ service silent <http://{host}:{port}/> {{ ?s ?p ?o }} }}",
        f"ASK {{ ?s ?p ?o . SERVICE\n<http://{host}:{port}/> {{ ?s ?p ?o }} }}",
    ):
        done = hopgate_process("--store", str(store), "query", text)
        one_error(done, "SERVICE is refused")
    query_file = _write(tmp_path / "q.rq", f"SELECT * {{ SERVICE <http://{host}:{port}/> {{}} }}")
    one_error(hopgate_process("--store", str(store), "query", str(query_file)), "SERVICE")
    assert connections(listener) == 0
    with hopgate.open_store(None) as memory:
        with pytest.raises(QueryError, match="SERVICE is refused"):
            hopgate.query(memory, f"SELECT * {{ SERVICE <http://{host}:{port}/> {{}} }}")
        # A variable, a prefixed name, a string or a comment that says "service" is no SERVICE.
        rows = hopgate.query(
            memory,
            "PREFIX service: <https://example.org/>\nSELECT ?service WHERE { # SERVICE <x>\n"
            '  BIND("SERVICE <http://example.org/>" AS ?service) '
            "FILTER(?service != service:SERVICE) }",
        )
        assert rows == [{"service": "SERVICE <http://example.org/>"}]
        # A dataset of the query's own is refused too (a server would read unpublished graphs).
        with pytest.raises(QueryError, match="FROM and FROM NAMED are refused"):
            hopgate.query(memory, "SELECT * FROM NAMED <https://example.org/g> { ?s ?p ?o }")


def test_the_reference_engine_makes_no_request_for_a_from_clause(
    tmp_path: Path, listener: socket.socket
) -> None:
    """rdflib, under pySHACL, loads a FROM graph over HTTP; the child process may not."""
    data = _write(tmp_path / "data.ttl", DATA)
    shapes = _write(
        tmp_path / "shapes.ttl",
        PREFIXES + f'ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:sparql [ sh:select """\n'
        f"SELECT $this ?value FROM <{_url(listener, 'graph.ttl')}> "
        'WHERE { $this ex:p ?value . } """ ] .\n',
    )
    try:
        validate_graph(data, shapes, engine="pyshacl")
    except ShaclError as exc:
        assert "\n" not in str(exc)
    assert connections(listener) == 0


# ---- recursion and size limits --------------------------------------------------------------


def _path_shapes(path: str) -> str:
    return (
        PREFIXES
        + f"ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path {path} ; sh:minCount 1 ] .\n"
    )


def test_a_3000_step_path_is_refused(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.ttl", DATA)
    steps = " ".join(["ex:q ex:p"] * 1500)
    shapes = _write(tmp_path / "shapes.ttl", _path_shapes(f"( {steps} )"))
    for engine in ("store", "pyshacl"):
        done = hopgate_process("shacl", str(data), str(shapes), "--engine", engine)
        one_error(done, str(shapes), f"more than {MAX_PATH_STEPS} properties")


def test_a_path_within_the_limit_is_validated(tmp_path: Path) -> None:
    """The store engine answers a path of MAX_PATH_STEPS; pySHACL walks a sequence
    recursively and stops itself past ten steps (one error line, not a traceback)."""
    data = _write(tmp_path / "data.ttl", DATA)
    steps = " ".join(["ex:q ex:p"] * (MAX_PATH_STEPS // 2 - 1))  # a -> b -> a ... ends at a
    shapes = _write(tmp_path / "shapes.ttl", _path_shapes(f"( {steps} ex:q ex:p )"))
    assert validate_graph(data, shapes).conforms
    with pytest.raises(ShaclError, match="Path traversal depth") as caught:
        validate_graph(data, shapes, engine="pyshacl")
    assert "\n" not in str(caught.value)
    shapes.write_text(_path_shapes(f"( {steps} ex:q ex:q )"))
    assert not validate_graph(data, shapes).conforms
    short = " ".join(["ex:q ex:p"] * 3)
    for path, conforms in ((f"( {short} )", True), (f"( {short} ex:q ex:q )", False)):
        shapes.write_text(_path_shapes(path))
        for engine in ("store", "pyshacl"):
            assert validate_graph(data, shapes, engine=engine).conforms is conforms


def test_deeply_nested_paths_are_refused(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.ttl", DATA)
    deep = "ex:p"
    for _ in range(3000):
        deep = f"[ sh:inversePath {deep} ]"
    shapes = _write(tmp_path / "deep.ttl", _path_shapes(deep))
    one_error(hopgate_process("shacl", str(data), str(shapes)), str(shapes), "nested too deeply")
    nested = "ex:p"
    for _ in range(MAX_DEPTH + 1):
        nested = f"[ sh:zeroOrOnePath {nested} ]"
    shapes = _write(tmp_path / "nested.ttl", _path_shapes(nested))
    one_error(hopgate_process("shacl", str(data), str(shapes)), f"over the limit of {MAX_DEPTH}")


def _chain(levels: int) -> str:
    lines = [PREFIXES, "ex:N0 a sh:NodeShape ; sh:targetNode ex:a ; sh:node ex:N1 ."]
    lines += [f"ex:N{i} sh:node ex:N{i + 1} ." for i in range(1, levels)]
    lines.append(f"ex:N{levels} sh:property [ sh:path ex:q ; sh:class ex:Missing ] .")
    return "\n".join(lines) + "\n"


def test_a_3000_deep_node_chain_is_refused(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.ttl", DATA)
    shapes = _write(tmp_path / "shapes.ttl", _chain(3000))
    for engine in ("store", "pyshacl"):
        done = hopgate_process("shacl", str(data), str(shapes), "--engine", engine)
        one_error(done, "https://example.org/N0", "3,002 levels deep")


def test_a_node_chain_within_the_limit_is_validated_by_both_engines(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.ttl", DATA)
    shapes = _write(tmp_path / "shapes.ttl", _chain(MAX_DEPTH - 2))  # MAX_DEPTH shapes deep
    reports = [validate_graph(data, shapes, engine=e) for e in ("store", "pyshacl")]
    assert [r.conforms for r in reports] == [False, False]
    assert [r.engine for r in reports] == ["store", "pyshacl"]


def test_a_shape_bomb_is_refused(tmp_path: Path) -> None:
    """Each shape names the next twice: 40 lines would expand to 2^40 nested shapes."""
    lines = [PREFIXES, "ex:N0 a sh:NodeShape ; sh:targetNode ex:a ; sh:and ( ex:N1 ex:N1 ) ."]
    lines += [f"ex:N{i} sh:and ( ex:N{i + 1} ex:N{i + 1} ) ." for i in range(1, 40)]
    lines.append("ex:N40 sh:class ex:C .")
    data = _write(tmp_path / "data.ttl", DATA)
    shapes = _write(tmp_path / "shapes.ttl", "\n".join(lines))
    one_error(
        hopgate_process("shacl", str(data), str(shapes)),
        f"more than {MAX_SHAPE_EXPANSION:,} nested shapes",
    )


@pytest.mark.parametrize(
    ("shapes_text", "phrase"),
    [
        (
            PREFIXES + "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; "
            'sh:in _:l ] . _:l rdf:first "x" ; rdf:rest _:m . _:m rdf:first "y" ; rdf:rest _:l .',
            "is cyclic",
        ),
        (
            PREFIXES + "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path _:p ; "
            "sh:minCount 1 ] . _:p sh:inversePath _:q . _:q sh:zeroOrMorePath _:p .",
            "contains itself",
        ),
    ],
    ids=["cyclic-list", "cyclic-path"],
)
def test_cycles_in_shapes_are_refused(tmp_path: Path, shapes_text: str, phrase: str) -> None:
    data = _write(tmp_path / "data.ttl", DATA)
    shapes = _write(tmp_path / "shapes.ttl", shapes_text)
    for engine in ("store", "pyshacl"):
        done = hopgate_process("shacl", str(data), str(shapes), "--engine", engine)
        one_error(done, str(shapes), phrase)


def test_sh_in_with_10000_values_checks_without_crashing(tmp_path: Path) -> None:
    values = " ".join(f'"v{i}"' for i in range(10_000))
    tags = " ".join(f'"en-x{i}"' for i in range(10_000))
    shapes = _write(
        tmp_path / "shapes.ttl",
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetNode ex:a ; "
        f"sh:property [ sh:path ex:p ; sh:in ( {values} ) ] ; "
        f"sh:property [ sh:path ex:l ; sh:languageIn ( {tags} ) ] .\n",
    )
    bad = _write(tmp_path / "bad.ttl", PREFIXES + 'ex:a ex:p "x" , "v9999" ; ex:l "a"@en .\n')
    good = _write(tmp_path / "good.ttl", PREFIXES + 'ex:a ex:p "v0" , "v9999" ; ex:l "a"@en-x7 .\n')
    done = hopgate_process("shacl", str(bad), str(shapes), "--format", "json")
    assert done.returncode == 1, done.stderr
    results = json.loads(done.stdout)
    assert results["engine"] == "store"
    assert sorted((r["source_constraint_component"], r["value"]) for r in results["results"]) == [
        ("http://www.w3.org/ns/shacl#InConstraintComponent", '"x"'),
        ("http://www.w3.org/ns/shacl#LanguageInConstraintComponent", '"a"@en'),
    ]
    done = hopgate_process("shacl", str(good), str(shapes))
    assert done.returncode == 0, done.stderr + done.stdout


# ---- regular expressions --------------------------------------------------------------------

CATASTROPHIC = PREFIXES + (
    'ex:S a sh:NodeShape ; sh:targetNode ex:r ; sh:property [ sh:path ex:t ; sh:pattern "^(a+)+$" ] .\n'
)
LONG_A = PREFIXES + 'ex:r ex:t "' + "a" * 40 + 'b" .\n'


def test_a_catastrophic_pattern_runs_in_linear_time_in_the_store_engine(tmp_path: Path) -> None:
    data = _write(tmp_path / "data.ttl", LONG_A)
    shapes = _write(tmp_path / "shapes.ttl", CATASTROPHIC)
    done = hopgate_process("shacl", str(data), str(shapes))
    assert done.returncode == 1 and "(engine store)" in done.stdout, done.stdout + done.stderr


def test_a_catastrophic_pattern_in_pyshacl_is_stopped_at_the_time_limit(tmp_path: Path) -> None:
    """Python's backtracking takes 2^40 steps here: the child process is stopped."""
    data = _write(tmp_path / "data.ttl", LONG_A)
    shapes = _write(tmp_path / "shapes.ttl", CATASTROPHIC)
    with pytest.raises(ShaclError, match="did not finish within 2 s") as caught:
        validate_graph(data, shapes, engine="pyshacl", time_limit=2)
    assert caught.value.engine == "pyshacl"
    # The same when the store engine falls back (a sh:sparql reporting ?failure, which it
    # declines).
    fallback = _write(
        tmp_path / "fallback.ttl",
        CATASTROPHIC + 'ex:S sh:sparql [ sh:select """SELECT $this ?failure WHERE { '
        '$this <https://example.org/t> ?x . BIND(false AS ?failure) }""" ] .\n',
    )
    with pytest.raises(ShaclError, match="did not finish"):
        validate_graph(data, fallback, time_limit=2)


def test_a_pattern_the_store_cannot_compile_is_never_an_unchecked_conforms(
    tmp_path: Path,
) -> None:
    """A back-reference: Oxigraph's REGEX is unbound, which read "conforms"; pySHACL answers."""
    data = _write(tmp_path / "data.ttl", PREFIXES + 'ex:r ex:t "ab" .\n')
    shapes = _write(
        tmp_path / "shapes.ttl",
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetNode ex:r ; "
        'sh:property [ sh:path ex:t ; sh:pattern "^(a)\\\\1$" ] .\n',
    )
    report = validate_graph(data, shapes)
    reference = validate_graph(data, shapes, engine="pyshacl")
    assert (report.conforms, report.engine) == (False, "pyshacl")
    assert "cannot compile" in (report.fallback or "")
    assert [r.value for r in report.results] == [r.value for r in reference.results]
    # A pattern no engine compiles is an error, not a verdict.
    shapes.write_text(
        PREFIXES + "ex:S a sh:NodeShape ; sh:targetNode ex:r ; sh:property [ sh:path ex:t ; "
        'sh:pattern "[" ] .\n'
    )
    with pytest.raises(ShaclError):
        validate_graph(data, shapes)


# ---- the smaller input findings -------------------------------------------------------------


def _rag(tmp_path: Path) -> tuple[Path, Path, Path]:
    docs = shutil.copy(ROOT / "examples" / "rag-docs.jsonl", tmp_path / "docs.jsonl")
    gold = shutil.copy(ROOT / "examples" / "rag-gold.jsonl", tmp_path / "gold.jsonl")
    answers = shutil.copy(ROOT / "examples" / "rag-answers.jsonl", tmp_path / "answers.jsonl")
    return Path(docs), Path(gold), Path(answers)


def _import(docs: Path, gold: Path, answers: Path, output: Path, *extra: str) -> Any:
    return CliRunner().invoke(
        cli,
        ["import", "rag", "--docs", str(docs), "--gold", str(gold), "--answers", str(answers),
         "-o", str(output), *extra],
    )  # fmt: skip


def test_import_refuses_an_output_that_names_an_input(tmp_path: Path) -> None:
    docs, gold, answers = _rag(tmp_path)
    before = {p: p.read_bytes() for p in (docs, gold, answers)}
    link = tmp_path / "hard-link.jsonl"
    os.link(gold, link)
    for output in (docs, gold, answers, tmp_path / "." / "answers.jsonl", link):
        one_error(_import(docs, gold, answers, output), "would replace the input")
    assert {p: p.read_bytes() for p in (docs, gold, answers)} == before
    assert _import(docs, gold, answers, tmp_path / "out.jsonl").exit_code == 0


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_json_lines_split_on_line_feed_only(tmp_path: Path, separator: str) -> None:
    docs, gold, answers = _rag(tmp_path)
    lines = docs.read_text(encoding="utf-8").splitlines(keepends=False)
    first = json.loads(lines[0])
    first["text"] = first["text"].replace(". ", "." + separator, 1)
    lines[0] = json.dumps(first, ensure_ascii=False)
    docs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert separator in docs.read_text(encoding="utf-8")
    result = _import(docs, gold, answers, tmp_path / "out.jsonl")
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().split("\n")[1:-1]]
    texts = [r["text"] for r in written if r["type"] == "version"]
    assert first["text"] in texts
    with hopgate.open_store(None) as store:
        hopgate.load(store, tmp_path / "out.jsonl")


@pytest.mark.parametrize(
    ("which", "line", "phrases"),
    [
        ("docs", '{"id": "d", "text": ' + "9" * 5000 + "}", ("line 1", "5,000 digits")),
        (
            "docs",
            '{"id": "d", "text": "x", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
            ("line 1", "levels deep"),
        ),
        ("gold", "[" * 100_000 + "]" * 100_000, ("levels deep",)),
        (
            "answers",
            '{"id": "q1", "answer": "x\\u001b[31m", "contexts": []}',
            ("line 1", "field 'answer'", "U+001B"),
        ),
        ("docs", '{"id": "d", "text": "page\\fbreak"}', ("line 1", "field 'text'", "U+000C")),
        ("docs", '{"id": "d", "text": "del \x7f"}', ("line 1", "field 'text'", "U+007F")),
        ("docs", '{"id": "d", "text": "c1 \x9b"}', ("line 1", "field 'text'", "U+009B")),
        ("docs", '{"id": "d\\u0007", "text": "t"}', ("line 1", "field 'id'", "U+0007")),
    ],  # fmt: skip
)
def test_hostile_import_files_end_in_one_error_naming_file_and_record(
    tmp_path: Path, which: str, line: str, phrases: tuple[str, ...]
) -> None:
    docs, gold, answers = _rag(tmp_path)
    target = {"docs": docs, "gold": gold, "answers": answers}[which]
    target.write_text(line + "\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    one_error(_import(docs, gold, answers, output), str(target), *phrases)
    assert not output.exists()


@pytest.mark.parametrize(
    ("name", "text", "phrases"),
    [
        (
            "l.yaml",
            'ledger: 1\nclaims:\n  - {id: c1, text: "esc \\e[2J"}\n',
            ("claims[0]", "field 'text'", "U+001B"),
        ),
        (
            "l.yaml",
            'ledger: 1\nclaims:\n  - {id: "c\\x7f", text: t}\n',
            ("claims[0]", "field 'id'", "U+007F"),
        ),
        (
            "l.json",
            '{"ledger": 1, "claims": [{"id": "c1", "text": "f\\u000cf"}]}',
            ("claims[0]", "field 'text'", "U+000C"),
        ),
        (
            "l.jsonl",
            '{"type": "claim", "id": "c1", "text": "raw del \x7f"}\n',
            ("line 1", "field 'text'", "U+007F"),
        ),
        (
            "l.jsonl",
            '{"type": "claim", "id": "c1", "text": "raw c1 \x90"}\n',
            ("line 1", "field 'text'", "U+0090"),
        ),
        (
            "l.jsonl",
            '{"type": "claim", "id": "c1", "text": "t", "x-a": {"k\\u001b": 1}}\n',
            ("line 1", "field 'x-a.k", "U+001B"),
        ),
    ],  # fmt: skip
)
def test_control_characters_in_a_ledger_are_refused(
    tmp_path: Path, name: str, text: str, phrases: tuple[str, ...]
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with hopgate.open_store(None) as store:
        with pytest.raises(hopgate.LedgerError) as caught:
            hopgate.load(store, path)
        assert store.count() == 0
    for phrase in (str(path), *phrases):
        assert phrase in str(caught.value), str(caught.value)


def test_tab_and_line_breaks_are_text(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    text = "tab\there, LF\nthere, CRLF\r\nthere, NEL\x85there, LS\u2028there"
    path.write_text(json.dumps({"type": "claim", "id": "c\t1", "text": text}, ensure_ascii=False))
    with hopgate.open_store(None) as store:
        assert hopgate.load(store, path).records == {"claim": 1}
        (row,) = store.select("SELECT ?t WHERE { ?c a hg:Claim ; prov:value ?t }")
    assert row["t"] == text


def test_a_control_character_in_a_version_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "v.txt").write_text("clear \x1b[2J text")
    path = _write(
        tmp_path / "l.yaml",
        "ledger: 1\nsources: [{id: s, address: 'https://example.org/s'}]\n"
        "versions: [{id: v, source: s, file: v.txt, observed_at: '2026-01-01'}]\n",
    )
    with hopgate.open_store(None) as store, pytest.raises(hopgate.LedgerError, match="U\\+001B"):
        hopgate.load(store, path)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with the worked example evaluated, and its export directory."""
    root = tmp_path_factory.mktemp("exported")
    runner = CliRunner()
    args = ["--store", str(root / "store")]
    assert runner.invoke(cli, [*args, "load", str(CEDAR)]).exit_code == 0
    assert runner.invoke(cli, [*args, "evaluate"]).exit_code == 0
    done = runner.invoke(cli, [*args, "export", "--run", "sys-a", "-o", str(root / "out")])
    assert done.exit_code == 0, done.output
    return root


def _fifo_in(directory: Path, name: str) -> Path:
    target = directory / name
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    return target


@pytest.mark.parametrize("name", ["proofs.json", "export.trig", "manifest.json"])
def test_a_fifo_in_an_export_directory_never_hangs_verify(
    exported: Path, tmp_path: Path, name: str
) -> None:
    directory = Path(shutil.copytree(exported / "out", tmp_path / "out"))
    _fifo_in(directory, name)
    done = hopgate_process("verify", str(directory))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "regular file" in done.stdout + done.stderr or "manifest" in done.stdout + done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["load", "{fifo}.jsonl"],
        ["query", "{fifo}.rq"],
        ["shacl", "{fifo}.ttl", "{fifo}.ttl"],
        ["import", "rag", "--docs", "{fifo}.jsonl", "--gold", "{fifo}.jsonl"],
        ["validate", "--shapes", "{fifo}.ttl"],
    ],
)
def test_a_fifo_input_is_refused_not_read(
    exported: Path, tmp_path: Path, command: list[str]
) -> None:
    fifo = tmp_path / "fifo"
    for suffix in (".jsonl", ".rq", ".ttl"):
        os.mkfifo(f"{fifo}{suffix}")
    args = [part.replace("{fifo}", str(fifo)) for part in command]
    done = hopgate_process("--store", str(exported / "store"), *args)
    one_error(done, "regular file")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("proofs.json", '{"proofs": {"export.trig": [' + "9" * 5000 + "]}}"),
        ("proofs.json", "[" * 100_000 + "]" * 100_000),
        ("manifest.json", '{"manifest": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    ],
)
def test_hostile_json_in_an_export_directory_is_one_error(
    exported: Path, tmp_path: Path, name: str, text: str
) -> None:
    directory = Path(shutil.copytree(exported / "out", tmp_path / "out"))
    (directory / name).write_text(text)
    done = hopgate_process("verify", str(directory))
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_report_to_dash_writes_standard_output(exported: Path, tmp_path: Path, fmt: str) -> None:
    args = ["--store", str(exported / "store")]
    done = hopgate_process(
        *args, "report", "--run", "sys-a", "--format", fmt, "-o", "-", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "-").exists()
    if fmt == "json":
        assert json.loads(done.stdout)
    else:
        assert "sys-a" in done.stdout
    dumped = hopgate_process(*args, "dump", "--format", "nquads", "-o", "-", cwd=tmp_path)
    assert dumped.returncode == 0 and dumped.stdout.count("\n") > 100
    assert not (tmp_path / "-").exists()


def test_a_gzip_of_blank_lines_is_read_at_the_speed_of_a_byte_search(tmp_path: Path) -> None:
    """10 million blank lines (10 MB, a 10 KB gzip): the loader says the ledger holds no
    records. Once read a line at a time (16 s); figures in bench/hostile.py."""
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * 10_000_000 + b" \t\r\n" * 1000))
    done = hopgate_process("--store", str(tmp_path / "store"), "load", str(path))
    one_error(done, str(path), "holds no records")


def test_a_plan_keeps_unicode_line_breaks_and_a_system_answer_is_bounded(tmp_path: Path) -> None:
    from hopgate.errors import SystemAnswerError
    from hopgate.interventions.plan import read_plan
    from hopgate.interventions.run import _parse

    item = {"run": "r", "question": "q", "set": "s", "variant": "v", "citable": [],
            "context": [{"id": "c", "text": "one\u2028two\u0085three"}]}  # fmt: skip
    plan = tmp_path / "plan.jsonl"
    plan.write_text(json.dumps(item, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_plan(plan) == [item]
    for text in ('{"cites": [' + "9" * 5000 + "]}", "[" * 100_000 + "]" * 100_000):
        with pytest.raises(SystemAnswerError, match="malformed output"):
            _parse(text.encode("utf-8"))
