"""What reaches the terminal from RDF: the Turtle of a validation report, the N-Triples of a
CONSTRUCT, a dump, and a library's warnings (docs/security.md "What each output escapes").

Shapes, data and query files are attacker-controlled. Each finding of the security
review of 7 December had an escape sequence, a C1 control or a bidi override reach
stdout or stderr raw; here each output is scanned for them and read back as the same
terms.
"""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import rdflib
from click.testing import CliRunner
from rdflib.namespace import SH

from hopgate.cli import cli

#: Any character a terminal acts on or draws as nothing, but tab and LF.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "see \x1b[2J\x1b]8;;http://evil.example/\x07here \x9b31m\u202eevil\u2028end"
LEDGER = 'ledger: 1\nclaims:\n  - {id: c1, text: "The sky\\u202e\\u2066 is\\u0085blue\\u2028."}\n'


def _turtle_string(text: str) -> str:
    return '"' + "".join(f"\\u{ord(c):04X}" if RAW.match(c) else c for c in text) + '"'


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), obj={})
    return result.exit_code, result.stdout, result.stderr


def _store(tmp_path: Path) -> str:
    ledger = tmp_path / "l.yaml"
    ledger.write_text(LEDGER, encoding="utf-8")
    store = str(tmp_path / "store")
    assert _invoke("--store", store, "load", str(ledger))[0] == 0
    return store


def test_a_library_warning_quoting_a_shapes_file_is_one_escaped_line(tmp_path: Path) -> None:
    """rdflib warned about an ill-typed literal with a traceback quoting it raw."""
    shapes = tmp_path / "shapes.ttl"
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "<http://example.org/S> a sh:NodeShape ;\n"
        "  sh:targetClass <https://w3id.org/hopgate/ns#Claim> ;\n"
        f"  <http://example.org/note> {_turtle_string(HOSTILE)}^^xsd:duration ;\n"
        "  sh:property [ sh:path <http://www.w3.org/ns/prov#value> ; sh:minLength 1 ] .\n",
        encoding="utf-8",
    )
    store = _store(tmp_path)
    for args in (
        ["--store", store, "validate", "--shapes", str(shapes)],
        ["shacl", str(shapes), str(shapes)],
    ):
        # A process of its own: in-process, pytest's log capture takes the warning.
        done = subprocess.run(
            [sys.executable, "-m", "hopgate.cli", *args], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert not RAW.search(done.stdout + done.stderr), args
        assert "Traceback" not in done.stderr, args


def test_a_turtle_validation_report_escapes_what_the_terminal_acts_on(tmp_path: Path) -> None:
    shapes = tmp_path / "extra.ttl"
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "<http://example.org/S> a sh:NodeShape ;\n"
        "  sh:targetClass <https://w3id.org/hopgate/ns#Claim> ;\n"
        "  sh:property [ sh:path <http://www.w3.org/ns/prov#value> ; sh:maxLength 1 ;\n"
        f"    sh:message {_turtle_string(HOSTILE)} ] .\n",
        encoding="utf-8",
    )
    store = _store(tmp_path)
    code, out, _ = _invoke(
        "--store", store, "validate", "--shapes", str(shapes), "--format", "turtle"
    )
    assert code == 1 and not RAW.search(out)
    # The same texts read back: the escapes are Turtle's own.
    report = rdflib.Graph().parse(data=out, format="turtle")
    assert {str(m) for m in report.objects(None, SH.resultMessage)} >= {HOSTILE}
    assert "The sky\u202e\u2066 is\x85blue\u2028." in {
        str(v) for v in report.objects(None, SH.value)
    }


def test_shacl_writes_a_report_about_an_iri_the_store_rejects(tmp_path: Path) -> None:
    """An IRI holding a C1 control: pyoxigraph refused to write it, a traceback."""
    data, shapes = tmp_path / "data.ttl", tmp_path / "shapes.ttl"
    data.write_text("<http://example.org/b\\u009B2J> a <http://example.org/Thing> .\n")
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "<http://example.org/S> a sh:NodeShape ; sh:targetClass <http://example.org/Thing> ;\n"
        "  sh:property [ sh:path <http://example.org/name> ; sh:minCount 1 ] .\n"
    )
    code, out, err = _invoke("shacl", str(data), str(shapes), "--format", "turtle")
    assert code == 1, err
    assert not RAW.search(out + err) and "Traceback" not in err
    # The IRI as N-Triples (Turtle) escapes it (no parser reads it back: it is not an IRI).
    assert "shacl#focusNode> <http://example.org/b\\u009B2J>" in out


def test_construct_and_dump_escape_what_the_terminal_acts_on(tmp_path: Path) -> None:
    store = _store(tmp_path)
    construct = (
        "CONSTRUCT { ?s <http://www.w3.org/ns/prov#value> ?o ; <http://e/q> "
        + _turtle_string("x\x9b2J\x1b[2J")
        + " } WHERE { ?s <http://www.w3.org/ns/prov#value> ?o }"
    )
    code, out, err = _invoke("--store", store, "query", construct)
    assert code == 0, err
    assert not RAW.search(out)
    read = {str(t.object.value) for t in ox.parse(out.encode(), format=ox.RdfFormat.N_TRIPLES)}
    assert read == {"The sky\u202e\u2066 is\x85blue\u2028.", "x\x9b2J\x1b[2J"}
    for fmt in ("nquads", "trig"):
        code, shown, err = _invoke("--store", store, "dump", "--format", fmt)
        assert code == 0, err
        assert not RAW.search(shown)
        written = tmp_path / f"dump.{fmt}"
        assert _invoke("--store", store, "dump", "--format", fmt, "-o", str(written))[0] == 0
        rdf_format = ox.RdfFormat.N_QUADS if fmt == "nquads" else ox.RdfFormat.TRIG
        # The file keeps the store's bytes; both read back as the same quads.
        assert "\u202e" in written.read_text(encoding="utf-8")
        assert set(ox.parse(shown.encode(), format=rdf_format)) == set(
            ox.parse(written.read_bytes(), format=rdf_format)
        )


def test_a_report_with_an_iri_holding_an_invisible_character_is_still_turtle(
    tmp_path: Path,
) -> None:
    """Turtle has no escape inside a prefixed name: ``xsd:in<ZWJ>teger`` escaped there no
    longer parsed (review, 7 December); such a report is written as N-Triples (Turtle)."""
    data, shapes = tmp_path / "data.ttl", tmp_path / "shapes.ttl"
    data.write_text(
        "@prefix ex: <http://example.org/> .\n"
        'ex:s a ex:Thing ; ex:p "5"^^<http://www.w3.org/2001/XMLSchema#in\\u200Dteger> .\n'
    )
    shapes.write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://example.org/> .\n"
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        "ex:S a sh:NodeShape ; sh:targetClass ex:Thing ;\n"
        "  sh:property [ sh:path ex:p ; sh:datatype xsd:integer ] .\n"
    )
    code, out, err = _invoke("shacl", str(data), str(shapes), "--format", "turtle")
    assert code == 1, err
    assert not RAW.search(out)
    read = list(ox.parse(out.encode(), format=ox.RdfFormat.TURTLE))
    values = [t.object for t in read if t.predicate.value.endswith("#value")]
    assert [v.datatype.value for v in values] == ["http://www.w3.org/2001/XMLSchema#in\u200dteger"]


def test_a_command_run_in_process_leaves_the_programs_logging_as_it_was(tmp_path: Path) -> None:
    """The notes' handler on the root logger and rdflib's silenced literal warnings stayed
    after the command: a program running it in-process printed its warnings twice and lost
    rdflib's (review, 7 December)."""
    root, terms = logging.getLogger(), logging.getLogger("rdflib.term")
    before = (list(root.handlers), terms.level)
    store = _store(tmp_path)
    assert _invoke("--store", store, "stats")[0] == 0
    assert (list(root.handlers), terms.level) == before
    assert not any(type(handler).__name__ == "_NoteLines" for handler in root.handlers)
    assert terms.level != logging.ERROR
