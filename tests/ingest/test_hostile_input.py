"""Issue 15: input that an attacker (or an accident) writes. Every case is refused with
``Error:`` naming the file, record and field, exit 2, and the store unchanged; the
cases that must be accepted load.

The fuzz harness (issue 25): malformed ledgers, ``import rag`` files, export directories
for ``verify``, shapes for ``shacl`` and ledgers with hostile texts for the report, each
drawn with the fixed seed ``conftest.FUZZ_SEED`` (printed in pytest's header), as many
examples as each test names under CI and a third of them on a workstation
(``conftest.examples``); only hopgate's own errors may come out. Cases that once hung or crashed, one by one, are in
tests/test_hostile_files.py."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import CEDAR, FUZZ_SEED, examples, within, write
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st
from ledger_strategies import ledgers

import hopgate
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.errors import AnchorError, LedgerError
from hopgate.ingest.anchoring import anchor
from hopgate.inputs import MAX_LINE_BYTES, MAX_LITERAL_BYTES, refused_character
from hopgate.report.build import build_report
from hopgate.report.pages import render
from hopgate.store import catalog
from hopgate.vocab import CATALOG_GRAPH, HG

ROOT = Path(__file__).resolve().parents[2]

HEADER = {"type": "ledger", "ledger": 1}
TEXT = "Project Cedar is mapped to record R17."


def _version(**fields: Any) -> dict[str, Any]:
    return {
        "id": "v@1",
        "source": "src",
        "observed_at": "2026-10-01",
        **fields,
    }


def _document(*versions: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "ledger": 1,
        "sources": [{"id": "src", "address": "https://example.org/src"}],
        "versions": list(versions),
        **top,
    }


@pytest.fixture
def disk_store(tmp_path: Path) -> tuple[list[str], Callable[[], bytes]]:
    """An on-disk store holding the worked example, and a dump of it (to compare bytes)."""
    runner = CliRunner()
    args = ["--quiet", "--store", str(tmp_path / "store")]
    assert runner.invoke(cli, [*args, "load", str(CEDAR)]).exit_code == 0
    assert runner.invoke(cli, [*args, "evaluate"]).exit_code == 0

    def dump() -> bytes:
        result = runner.invoke(cli, [*args, "dump", "--format", "nquads"])
        assert result.exit_code == 0
        return result.stdout_bytes

    return args, dump


#: A hang guard, not a timing: a refused load that has not come back by then never will
#: (a FIFO read, an alias bomb expanded, a gzip bomb read whole).
HANG = 600.0


def _refused(
    disk_store: tuple[list[str], Callable[[], bytes]],
    ledger: Path,
    *phrases: str,
    extra: tuple[str, ...] = (),
) -> str:
    args, dump = disk_store
    before = dump()
    result = within(HANG, lambda: CliRunner().invoke(cli, [*args, "load", str(ledger), *extra]))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: "), result.output
    assert str(ledger) in result.output
    for phrase in phrases:
        assert phrase in result.output, result.output
    assert dump() == before, "the store must be byte-identical after a refused load"
    return result.output


# --- file: confined --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "phrase"),
    [
        ("/proc/self/environ", "is an absolute path"),
        ("/etc/passwd", "is an absolute path"),
        ("../outside.txt", "climbs out of the ledger's folder"),
        ("sub/../../outside.txt", "climbs out of the ledger's folder"),
        ("link.txt", "outside the ledger's folder"),
        ("fifo", "is not a regular file"),
        ("folder", "is not a regular file"),
        ("missing.txt", "cannot read the version's file"),
    ],
)
def test_file_is_confined_to_the_ledgers_folder(
    disk_store: Any, tmp_path: Path, name: str, phrase: str
) -> None:
    (tmp_path / "outside.txt").write_text(TEXT)
    ledger_dir = tmp_path / "ledger"
    ledger_dir.mkdir()
    (ledger_dir / "link.txt").symlink_to(tmp_path / "outside.txt")
    os.mkfifo(ledger_dir / "fifo")
    (ledger_dir / "folder").mkdir()
    path = ledger_dir / "l.yaml"
    path.write_text(yaml.safe_dump(_document(_version(file=name))))
    output = _refused(disk_store, path, "versions[0]", "field 'file'", phrase)
    assert "PATH=" not in output and "root:" not in output


def test_allow_files_names_a_folder_outside(disk_store: Any, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "v.txt").write_text(TEXT)
    path = tmp_path / "ledger" / "l.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(_document(_version(file=str(shared / "v.txt")))))
    _refused(disk_store, path, "is an absolute path", "--allow-files")
    args, _ = disk_store
    result = CliRunner().invoke(cli, [*args, "load", str(path), "--allow-files", str(shared)])
    assert result.exit_code == 0, result.output
    # Allowing /dev does not make a device a text.
    path.write_text(yaml.safe_dump(_document(_version(id="v@2", file="/dev/zero"))))
    _refused(disk_store, path, "/dev/zero is not a regular file", extra=("--allow-files", "/dev"))


def test_a_file_over_the_text_limit_is_refused_without_reading_it_all(
    disk_store: Any, tmp_path: Path
) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:
        handle.truncate(MAX_LITERAL_BYTES + 1)  # sparse: no disk, no memory
    path = tmp_path / "l.yaml"
    path.write_text(yaml.safe_dump(_document(_version(file="big.txt"))))
    _refused(disk_store, path, "field 'file'", "larger than")


# --- small inputs, large harm ----------------------------------------------------------------

ALIAS_BOMB = """ledger: 1
x-bomb:
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
  h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
  i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
readers: [{id: r1}]
"""


def test_a_yaml_alias_bomb_is_refused_at_once(disk_store: Any, tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 600
    # Refused before the aliases are expanded (9**9 nodes would not fit in memory).
    _refused(disk_store, path, "line 2", "field 'x-bomb'", "YAML aliases expand to more than")


def test_modest_yaml_aliases_still_load(tmp_path: Path) -> None:
    text = "ledger: 1\nreaders:\n  - &r {id: r1, x-note: &n {a: 1}}\n  - {id: r2, x-note: *n}\n"
    path = tmp_path / "ok.yaml"
    path.write_text(text)
    with hopgate.open_store(None) as store:
        assert hopgate.load(store, path).records == {"reader": 2}


def test_a_gzip_line_bomb_is_refused_in_bounded_memory(disk_store: Any, tmp_path: Path) -> None:
    path = tmp_path / "bomb.jsonl.gz"
    block = b"a" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(b'{"type": "ledger", "ledger": 1}\n{"type": "reader", "id": "')
        for _ in range(MAX_LINE_BYTES // len(block) + 2):
            handle.write(block)
        handle.write(b'"}\n')
    assert path.stat().st_size < 1 << 20
    # Read in bounded steps: refused at the first line longer than the limit.
    _refused(disk_store, path, "line 2", f"line longer than {MAX_LINE_BYTES:,} bytes")


def test_a_version_text_over_the_literal_limit_is_refused(disk_store: Any, tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    text = "x" * (MAX_LITERAL_BYTES - 10) + '"' * 20  # escapes count
    lines = [HEADER, {"type": "source", "id": "src", "address": "https://example.org/src"}]
    lines.append({"type": "version", **_version(text=text)})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    _refused(disk_store, path, "line 3", "field 'text'", "over the")


def test_any_text_over_the_literal_limit_is_refused(disk_store: Any, tmp_path: Path) -> None:
    """Not only version texts: a claim's text, or x- fields that add up, would stop
    Oxigraph's parser (its largest token is 16 MiB) after the checks."""
    claim = tmp_path / "claim.jsonl"
    record = {"type": "claim", "id": "c1", "text": "x" * (MAX_LITERAL_BYTES + 1)}
    claim.write_text(json.dumps(record) + "\n")
    _refused(disk_store, claim, "line 1", "field 'text'", "over the")
    extension = tmp_path / "extension.json"
    parts = ["y" * (1 << 20)] * 17
    ledger = {"ledger": 1, "readers": [{"id": "r1", "x-a": parts}]}
    extension.write_text(json.dumps(ledger))
    _refused(disk_store, extension, "readers[0]", "field 'x-a'", "x- fields")


class _Watched(str):
    """A text that counts the searches and copies anchoring makes of it."""

    finds = 0
    copied = 0

    def find(self, *args: Any) -> int:
        type(self).finds += 1
        return super().find(*args)

    def __getitem__(self, key: Any) -> str:
        part = super().__getitem__(key)
        type(self).copied += len(part)
        return part


def test_quote_anchoring_is_linear_in_the_text() -> None:
    """8 quotes of "a" followed by "b" in 1 MB took 97 s (each occurrence of the bare quote
    tested by copying the text before it). Now one search per hit and no copy of the text,
    so 10 MB anchors as 8 linear scans; the guard only catches a return to quadratic
    (figures: ``python bench/hostile.py``)."""
    _Watched.finds = _Watched.copied = 0
    text = _Watched("a" * 10_000_000 + "b")
    for _ in range(8):
        assert within(HANG, lambda: anchor(text, quote="a", suffix="b")).start == 10_000_000 - 1
    assert anchor(text, quote="aab", prefix="aaaa").start == 10_000_000 - 2
    # One hit each: one search that finds it, one that finds no other.
    assert (_Watched.finds, _Watched.copied) == (9 * 2, 0)
    # Many hits: still one search per hit, and the count stops past MAX_COUNTED.
    _Watched.finds = 0
    with pytest.raises(AnchorError, match="more than 1000 times"):
        anchor(_Watched("ab" * 5000), quote="a")
    assert _Watched.finds == 1002 and _Watched.copied == 0


def test_a_10_mb_version_loads_and_anchors(tmp_path: Path) -> None:
    text = "a" * 10_000_000 + "b"
    (tmp_path / "big.txt").write_text(text)
    spans = [
        {"id": f"s{n}", "version": "v@1", "quote": "a", "suffix": "b", "prefix": "a" * n}
        for n in range(8)
    ]
    path = tmp_path / "l.yaml"
    path.write_text(yaml.safe_dump(_document(_version(file="big.txt"), spans=spans)))
    with hopgate.open_store(None) as store:
        assert within(HANG, lambda: hopgate.load(store, path)).records["span"] == 8
        rows = store.select(
            "SELECT ?id ?start ?end WHERE { ?s hg:ledgerId ?id ; oa:hasSelector ?p . "
            "?p a oa:TextPositionSelector ; oa:start ?start ; oa:end ?end }"
        )
    # Every prefix of a's chooses the one "a" before the "b".
    assert sorted((r["id"], r["start"], r["end"]) for r in rows) == [
        (f"s{n}", 10_000_000 - 1, 10_000_000) for n in range(8)
    ]


# --- malformed values: errors, never tracebacks ----------------------------------------------


def _yaml(tmp_path: Path, text: str, name: str = "l.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


READER = "readers:\n  - id: r1\n"
CASES: list[Any] = [
    pytest.param("l.yaml", "ledger: 1.0\n" + READER, ("field 'ledger'", "version 1"), id="ledger-1.0"),
    pytest.param("l.json", '{"ledger": 1.0, "readers": [{"id": "r1"}]}', ("field 'ledger'",), id="json-1.0"),
    pytest.param("l.yaml", "ledger: 1\n", ("holds no records",), id="empty"),
    pytest.param("l.yaml", "ledger: 1\nreaders: []\n", ("holds no records",), id="empty-list"),
    pytest.param("l.yaml", "ledger: 1\n1: x\n" + READER, ("text keys",), id="int-key-top"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-a: {1: b}}\n", ("readers[0]", "field 'x-a'", "text keys"), id="int-key"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-a: {null: b}}\n", ("readers[0]", "text keys"), id="null-key"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-a: !!binary aGVsbG8=}\n", ("field 'x-a'", "YAML bytes"), id="binary"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-a: !!set {a, b}}\n", ("field 'x-a'", "YAML set"), id="set"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-a: !!timestamp 2001-12-14}\n", ("field 'x-a'", "YAML date"), id="timestamp"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-a: .nan}\n", ("field 'x-a'", "finite number"), id="yaml-nan"),
    pytest.param("l.json", '{"ledger": 1, "readers": [{"id": "r1", "x-a": NaN}]}', ("NaN",), id="json-nan"),
    # Python reads 1e400 as infinity; a JSON Lines line had it stored as "Infinity".
    pytest.param("l.jsonl", '{"type": "reader", "id": "r1", "x-a": 1e400}\n', ("line 1", "field 'x-a'", "finite number"), id="jsonl-1e400"),
    pytest.param("l.jsonl", '{"type": "reader", "id": "r1", "x-a": -' + "9" * 400 + '.0}\n', ("line 1", "field 'x-a'", "finite number"), id="jsonl-400-digit-float"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, id: r2}\n", ("given twice",), id="yaml-duplicate"),
    pytest.param("l.yaml", "ledger: 1\nreaders: []\nreaders: []\n", ("given twice",), id="yaml-duplicate-top"),
    pytest.param("l.json", '{"ledger": 1, "readers": [{"id": "r1", "id": "r2"}]}', ("given twice",), id="json-duplicate"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-n: " + "9" * 5000 + "}\n", ("digits",), id="yaml-5000-digits"),
    pytest.param("l.json", '{"ledger": 1, "readers": [{"id": "r1", "x-n": ' + "9" * 5000 + "}]}", ("digits",), id="json-5000-digits"),
    pytest.param("l.yaml", "ledger: 1\nreaders:\n  - {id: r1, x-a: " + "[" * 500 + "]" * 500 + "}\n", ("levels deep", "line 3"), id="yaml-500-deep"),
    pytest.param("l.json", '{"ledger": 1, "readers": [{"id": "r1", "x-a": ' + "[" * 1000 + "]" * 1000 + "}]}", ("levels deep",), id="json-1000-deep"),
    pytest.param("l.jsonl", '{"type": "reader", "id": "r1", "x-a": ' + "[" * 1000 + "]" * 1000 + "}\n", ("line 1", "levels deep"), id="jsonl-1000-deep"),
    pytest.param("l.jsonl", '{"type": ["claim"], "id": "c1", "text": "t"}\n', ("line 1", "field 'type'", "['claim']"), id="type-list"),
    pytest.param("l.jsonl", '{"type": "reader", "id": "r1", "id": "r2"}\n', ("line 1", "given twice"), id="jsonl-duplicate"),
    pytest.param("l.jsonl", '{"type": "ledger", "ledger": 1.0}\n{"type": "reader", "id": "r1"}\n', ("line 1", "field 'ledger'"), id="jsonl-1.0"),
    pytest.param("l.yaml", 'ledger: 1\nclaims:\n  - {id: c1, text: "nul \\0 here"}\n', ("claims[0]", "field 'text'", "U+0000"), id="nul"),
    pytest.param("l.jsonl", '{"type": "claim", "id": "c1", "text": "nul \\u0000"}\n', ("line 1", "field 'text'", "U+0000"), id="nul-jsonl"),
    pytest.param("l.yaml", "ledger: 1\nsources: [{id: s, address: 'https://e.org'}]\nversions:\n  - {id: v, source: s, text: t, observed_at: '0001-01-01T00:00:00+01:00'}\n", ("versions[0]", "field 'observed_at'", "0001"), id="year-1-offset"),
    pytest.param("l.gz", "ledger: 1\n", ("expected a ledger ending in",), id="unknown-suffix"),
    pytest.param("l.yaml", "!!timestamp 2001-01-01ledger: 1\n", ("not valid YAML",), id="bad-timestamp"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "phrases"), CASES)
def test_malformed_input_is_an_error_not_a_traceback(
    disk_store: Any, tmp_path: Path, name: str, text: str, phrases: tuple[str, ...]
) -> None:
    _refused(disk_store, _yaml(tmp_path, text, name), *phrases)


def test_a_bad_gzip_is_an_error(disk_store: Any, tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00garbage")
    _refused(disk_store, path, "cannot read the ledger")


def test_year_0001_in_utc_loads_with_four_digits(tmp_path: Path) -> None:
    text = (
        "ledger: 1\nsources: [{id: s, address: 'https://e.org'}]\nversions:\n"
        "  - {id: v, source: s, text: t, observed_at: '0001-01-01T05:00:00+01:00'}\n"
    )
    with hopgate.open_store(None) as store:
        hopgate.load(store, _yaml(tmp_path, text))
        rows = store.select("SELECT ?t WHERE { ?f a hg:Fetch ; prov:endedAtTime ?t }")
    assert [str(row["t"]) for row in rows] == ["0001-01-01T04:00:00Z"]


# --- the command line's own inputs ----------------------------------------------------------


def test_cli_inputs_are_errors_not_tracebacks(disk_store: Any, tmp_path: Path) -> None:
    args, _ = disk_store
    runner = CliRunner()
    for command, phrase in [
        ([*args, "query", "SELECT * WHERE { ?s ?p ?o } LIMIT 1", "--param", "p=<a b>"], "not an IRI"),
        ([*args, "dump", "-o", str(tmp_path / "missing" / "x.trig")], "cannot write"),
        (["--endpoint", "not a url", "stats"], "expected an http:// or https:// URL"),
        ([*args, "export", "--run", "sys-a", "--format", "trig", "-o", str(tmp_path / "x.provn")],
         "the name says provn"),
    ]:  # fmt: skip
        result = runner.invoke(cli, command)
        assert result.exit_code == 2, (command, result.output)
        assert "Error: " in result.output and phrase in result.output, result.output
        assert "Traceback" not in result.output
    assert not (tmp_path / "x.provn").exists()


def test_a_damaged_store_is_an_error(tmp_path: Path) -> None:
    runner = CliRunner()
    store = tmp_path / "store"
    assert runner.invoke(cli, ["--store", str(store), "load", str(CEDAR)]).exit_code == 0
    (store / "CURRENT").write_text("garbage\n")
    result = runner.invoke(cli, ["--store", str(store), "stats"])
    assert result.exit_code == 2 and "Error: cannot open the store" in result.output


def test_export_never_overwrites_before_a_foreign_manifest_stops_it(
    disk_store: Any, tmp_path: Path
) -> None:
    args, _ = disk_store
    out = tmp_path / "out"
    out.mkdir()
    (out / "export.trig").write_text("keep me")
    (out / "manifest.json").write_text('{"someone": "else"}')
    result = CliRunner().invoke(cli, [*args, "export", "--run", "sys-a", "-o", str(out)])
    assert result.exit_code == 2 and "not a hopgate manifest" in result.output
    assert (out / "export.trig").read_text() == "keep me"


# --- the fuzz harness: malformed ledgers never raise anything but LedgerError ---------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.one_of(st.text(max_size=6), st.integers()), children, max_size=3),
    ),
    max_leaves=12,
)
_kinds = st.sampled_from(
    ["readers", "sources", "versions", "spans", "claims", "questions", "evidence_sets", "cases"]
)
_records = st.dictionaries(
    st.sampled_from(["id", "text", "source", "version", "quote", "start", "end", "file",
                     "observed_at", "claim", "members", "readers", "x-a", "type", "ledger"]),
    _values,
    max_size=5,
)  # fmt: skip
_ledgers = st.dictionaries(
    st.one_of(_kinds, st.sampled_from(["ledger", "x-top"]), st.text(max_size=4)),
    st.one_of(st.lists(_records, max_size=3), _values),
    max_size=4,
)


def _loaded_or_refused(path: Path) -> None:
    """Load ``path`` into an empty store: either it loads (its graph published, the records
    counted), or a LedgerError names the file (and the record where there is one) and the
    store stays empty. Any other exception fails the test."""
    with hopgate.open_store(None) as store:
        try:
            result = hopgate.load(store, path)
        except LedgerError as error:
            assert error.file == str(path) and str(error).startswith(f"{path}: "), error
            assert error.detail, "a refusal says what was wrong"
            assert store.count() == 0, "nothing of a failed load may be kept"
        else:
            assert store.graphs() == sorted([CATALOG_GRAPH, result.graph])
            assert catalog.load_graphs(store) == [result.graph]
            assert result.triples == store.count(result.graph) > 0
            assert all(count > 0 for count in result.records.values())


@seed(FUZZ_SEED)
@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ledger=_ledgers, spelling=st.sampled_from(["yaml", "json", "jsonl"]))
def test_fuzz_malformed_ledgers_never_raise_a_traceback(
    tmp_path: Path, ledger: dict[Any, Any], spelling: str
) -> None:
    path = tmp_path / f"fuzz.{spelling}"
    if spelling == "yaml":
        path.write_text(yaml.safe_dump(ledger, allow_unicode=False))
    elif spelling == "json":
        path.write_text(json.dumps(ledger, default=str))
    else:
        lines = []
        for key, value in ledger.items():
            for record in value if isinstance(value, list) else [value]:
                item = dict(record) if isinstance(record, dict) else {"value": record}
                item.setdefault("type", str(key).rstrip("s"))
                lines.append(json.dumps(item, default=str))
        path.write_text("\n".join(lines) + "\n")
    _loaded_or_refused(path)


def test_a_control_character_already_in_a_store_stops_prov_exports_cleanly(
    tmp_path: Path,
) -> None:
    """A store loaded before control characters were refused: PROV-XML and PROV-N refuse
    it with an error (no traceback, no raw NUL written); TriG carries it escaped."""
    import pyoxigraph as ox

    from hopgate.bundles.export import export_bundle
    from hopgate.decide.evaluation import evaluate
    from hopgate.errors import ExportError

    with hopgate.open_store(None) as store:
        result = hopgate.load(store, CEDAR)
        evaluate(store)
        claim = ox.NamedNode("https://w3id.org/hopgate/id/claim/cA")
        store._store.add(
            ox.Quad(claim, ox.NamedNode(HG + "note"), ox.Literal("bel \x07 nul \x00"),
                    ox.NamedNode(result.graph))
        )  # fmt: skip
        for fmt in ("provxml", "provn", "provjson"):
            with pytest.raises(ExportError, match="U\\+0000"):
                export_bundle(store, format=fmt, run="sys-a")
        assert b"\\u0007" in export_bundle(store, format="trig", run="sys-a").data


def test_output_naming_an_existing_directory_writes_into_it(
    disk_store: Any, tmp_path: Path
) -> None:
    args, _ = disk_store
    folder = tmp_path / "named.trig"
    folder.mkdir()
    result = CliRunner().invoke(cli, [*args, "export", "--run", "sys-a", "-o", str(folder)])
    assert result.exit_code == 0, result.output
    assert (folder / "export.trig").is_file() and (folder / "manifest.json").is_file()


_FRAGMENTS = [
    "ledger: 1\n", '{"type": "ledger", "ledger": 1}\n', "readers:\n", "  - id: r1\n",
    '{"type": "reader", "id": "r1"}\n', "versions:\n", "  - {id: v, source: s, file: ",
    "/etc/passwd", "../x", "&a ", "*a", "!!binary aGk=", "!!set {a}", "!!timestamp 2001-01-01",
    "!!python/object:os.system ", "{", "}", "[", "]", ": ", "- ", "\"\\0\"", "\"\\a\"",
    "x-a: ", "1e999", "NaN", ".nan", "~", "\n", "  ", "'", '"', "\\u0000", "\\ud800",
    "9" * 50, "0001-01-01T00:00:00+01:00", '"type": ["claim"]', "null: 1", "1: 2", ",",
]  # fmt: skip
_texts = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=4)), max_size=25).map(
    "".join
)


@seed(FUZZ_SEED)
@settings(max_examples=examples(200), deadline=None)
@given(text=_texts, suffix=st.sampled_from([".yaml", ".json", ".jsonl"]))
def test_fuzz_raw_ledger_text_never_raises_a_traceback(text: str, suffix: str) -> None:
    """Malformed bytes at the parser level: only hopgate's own errors, never another."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"fuzz{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        _loaded_or_refused(path)


_HOSTILE_VALUES = st.one_of(
    _values,
    st.sampled_from(
        ["", "a1", "a2", "registry@1", "c1", "/etc/passwd", "../x", "R17", "Zürich", "\x07",
         -1, 0, 10**6, 2.5, [], {}, ["a1", "a1"], {"version": "registry@1", "quote": "R17"},
         {"version": "registry@1", "start": 5, "end": 2}, "0001-01-01T00:00:00+01:00"]
    ),
)  # fmt: skip


@seed(FUZZ_SEED)
@settings(max_examples=examples(150), deadline=None)
@given(
    data=st.data(),
    spelling=st.sampled_from(["yaml", "json", "jsonl"]),
)
def test_fuzz_one_field_of_a_valid_ledger_never_raises_a_traceback(
    data: st.DataObject, spelling: str
) -> None:
    """Deeper than the schema: a valid ledger with one field set to a hostile value reaches
    the loader's references, anchoring and times; only hopgate's errors may come out."""
    import tempfile

    from conftest import _minimal_ledger, write

    ledger = _minimal_ledger()
    plural = data.draw(st.sampled_from(sorted(k for k in ledger if k != "ledger")))
    record = data.draw(st.sampled_from(ledger[plural]))
    target = record
    if plural == "cases" and data.draw(st.booleans()):
        target = record["outputs"][0]
    key = data.draw(st.one_of(st.sampled_from(sorted(target)), st.text(max_size=4)))
    target[key] = data.draw(_HOSTILE_VALUES)
    with tempfile.TemporaryDirectory() as scratch:
        path = write(Path(scratch) / "fuzz", ledger, spelling)
        _loaded_or_refused(path)


# --- the fuzz harness beyond ledgers (issue 25) ---------------------------------------------

#: Texts an attacker writes: markup, script, control characters (refused), line breaks JSON
#: Lines must not split on, bidi overrides, CommonMark, huge and deep JSON.
_HOSTILE_TEXTS = [
    "<script>alert(1)</script>", "\x1b[31m", "\x7f", "\x0c", "\x9b", "\x00", "\ud800",
    "\u2028", "\u2029", "\x85", "\r\n", "\t", "\u202e", "**PASS**", "# title", "[x](javascript:1)",
    "[1]", "[99]", "é", "😀", "", " ", "Dana Reyes", "Project Orion is led by Dana Reyes.",
]  # fmt: skip
_RAW_FRAGMENTS = [
    "{", "}", "[", "]", ",", ":", '"', "\n", "\r", " ", "\u2028", "\x85", "\x1b", "\x7f",
    "9" * 4400, "[" * 2000, "]" * 2000, "NaN", "-Infinity", "1e999", "null", "true",
    '{"id": "q1", "answer": "x", "contexts": []}', '{"id": "d1", "text": "t"}',
    '{"id": "q1", "question": "Q?", "answer": "a", "evidence_sets": [["d1"]]}',
]  # fmt: skip
_rag_values = st.one_of(
    st.sampled_from(_HOSTILE_TEXTS),
    st.text(max_size=6),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.booleans(),
    st.none(),
    st.lists(
        st.sampled_from(["d1", "d2", 1, {"doc": "d1", "quote": "t"}, [], {"doc": "d1"}]), max_size=3
    ),
    st.lists(
        st.lists(st.sampled_from(["d1", "d2", {"doc": "d1", "text": "t"}]), max_size=2), max_size=2
    ),
)
_rag_items = st.dictionaries(
    st.sampled_from(["id", "text", "url", "title", "observed_at", "question", "answer",
                     "evidence_sets", "claims", "contexts", "citations", "abstained", "correct",
                     "consequential", "x"]),
    _rag_values,
    max_size=6,
)  # fmt: skip


def _rag_file(draw: st.DrawFn, base: list[dict[str, Any]]) -> str:
    """JSON Lines or a JSON list of items that start valid and are then made hostile."""
    items = [dict(item) for item in base]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2, 3]))):
        if items and draw(st.booleans()):
            target = draw(st.sampled_from(items))
            target[draw(st.sampled_from(sorted(target) + ["x"]))] = draw(_rag_values)
        else:
            items.append(draw(_rag_items))
    if draw(st.booleans()):
        text = json.dumps(items, ensure_ascii=draw(st.booleans()))
    else:
        text = "".join(
            json.dumps(i, ensure_ascii=False) + draw(st.sampled_from(["\n", "\r\n", "\n\n"]))
            for i in items
        )
    if draw(st.integers(0, 5)) == 0:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(_RAW_FRAGMENTS)) + text[cut:]
    return text


@st.composite
def _rag_inputs(draw: st.DrawFn) -> tuple[str, str, str]:
    docs = [{"id": "d1", "text": "Project Orion is led by Dana Reyes."}, {"id": "d2", "text": "t"}]
    gold = [{"id": "q1", "question": "Who leads?", "answer": "Dana Reyes",
             "evidence_sets": [[{"doc": "d1", "quote": "led by Dana Reyes"}]]}]  # fmt: skip
    answers = [{"id": "q1", "answer": "Dana Reyes [1].", "contexts": [{"doc": "d1", "text": "t"}]}]
    return _rag_file(draw, docs), _rag_file(draw, gold), _rag_file(draw, answers)


@seed(FUZZ_SEED)
@settings(max_examples=examples(120), deadline=None)
@given(files=_rag_inputs(), gzipped=st.booleans())
def test_fuzz_import_rag_never_raises_a_traceback(
    files: tuple[str, str, str], gzipped: bool
) -> None:
    """Hostile pipeline files: only hopgate's errors, no ledger on an error, and a ledger
    written is one the loader loads or refuses with its own error."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        paths = []
        for name, text in zip(("docs", "gold", "answers"), files, strict=True):
            data = text.encode("utf-8", errors="surrogatepass")
            path = Path(scratch) / (f"{name}.jsonl.gz" if gzipped else f"{name}.jsonl")
            path.write_bytes(gzip.compress(data) if gzipped else data)
            paths.append(path)
        output = Path(scratch) / "out.jsonl"
        try:
            hopgate.import_files(
                "rag", [], output=output, docs=[paths[0]], gold=paths[1], answers=paths[2]
            )
        except hopgate.HopgateError as exc:
            event(f"import refused: {type(exc).__name__}")
            assert not output.exists()
            return
        event("imported")
        _loaded_or_refused(output)


@pytest.fixture(scope="module")
def export_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A signed export of the worked example (every format), made once."""
    from hopgate.bundles.export import FORMATS, export_bundle, write_export
    from hopgate.bundles.proofs import sign_directory
    from hopgate.bundles.signing import new_key

    out = tmp_path_factory.mktemp("signed")
    with hopgate.open_store(None) as store:
        hopgate.load(store, CEDAR)
        evaluate(store)
        for fmt in FORMATS:
            write_export(export_bundle(store, format=fmt, run="sys-a", with_text=True), out)
    sign_directory(out, new_key(), by="Fuzz Signer")
    return out


_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
              st.sampled_from(["export.trig", "did:key:z6Mk", "eddsa-rdfc-2022", "sha256"])),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(max_size=8), children, max_size=3)),
    max_leaves=10,
)  # fmt: skip


@seed(FUZZ_SEED)
@settings(
    max_examples=examples(80),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzz_verify_never_raises_a_traceback(export_directory: Path, data: st.DataObject) -> None:
    """A signed directory with one file rewritten: verify reports or refuses, nothing else."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(shutil.copytree(export_directory, Path(scratch) / "out"))
        names = sorted(p.name for p in directory.iterdir())
        name = data.draw(st.sampled_from(names))
        original = (directory / name).read_bytes()
        how = data.draw(st.sampled_from(["json", "splice", "truncate", "fragment"]))
        if how == "json":
            text = json.dumps(data.draw(_json_values)).encode()
        elif how == "splice" and original.startswith(b"{"):
            document = json.loads(original)
            key = data.draw(st.sampled_from(sorted(document) or ["x"]))
            document[key] = data.draw(_json_values)
            text = json.dumps(document).encode()
        elif how == "truncate":
            text = original[: data.draw(st.integers(0, len(original)))]
        else:
            cut = data.draw(st.integers(0, len(original)))
            fragment = data.draw(st.sampled_from(_RAW_FRAGMENTS)).encode("utf-8", "surrogatepass")
            text = original[:cut] + fragment + original[cut:]
        (directory / name).write_bytes(text)
        try:
            report = hopgate.verify(directory)
        except hopgate.HopgateError as exc:
            event(f"verify refused: {type(exc).__name__}")
            return
        event(f"verify {'ok' if report.ok else 'failed'}")
        assert isinstance(report.ok, bool)


_SHAPE_PARTS = [
    "sh:minCount 1", "sh:maxCount 0", "sh:datatype xsd:integer", "sh:class ex:C",
    'sh:in ( "x" 1 ex:a )', 'sh:in ( )', 'sh:languageIn ( "en" )', "sh:nodeKind sh:IRI",
    'sh:pattern "^(a+)+$"', 'sh:pattern "(a)\\\\1"', 'sh:pattern "["', 'sh:pattern "^x" ; sh:flags "i"',
    "sh:minLength 2", "sh:maxLength 0", "sh:hasValue ex:a", "sh:node ex:S1", "sh:node ex:S0",
    "sh:not [ sh:class ex:C ]", "sh:or ( [ sh:class ex:C ] [ sh:datatype xsd:string ] )",
    "sh:xone ( ex:S1 ex:S1 )", "sh:and ( ex:S1 [ sh:minCount 1 ; sh:path ex:q ] )",
    "sh:qualifiedValueShape ex:S1 ; sh:qualifiedMinCount 1", "sh:closed true",
    "sh:equals ex:q", "sh:disjoint ex:q", "sh:lessThan ex:q", "sh:minInclusive 1",
    "sh:uniqueLang true", "sh:deactivated true", "sh:severity sh:Warning",
    'sh:sparql [ sh:select "SELECT $this WHERE { $this <https://example.org/p> ?v }" ]',
    'sh:sparql [ sh:select "SELECT $this WHERE { SERVICE <http://127.0.0.1:9/> { $this ?p ?v } }" ]',
    'sh:sparql [ sh:select "SELECT $this ?failure WHERE { BIND(true AS ?failure) }" ]',
    "sh:foo 1", "sh:property ex:S2",
]  # fmt: skip
_PATHS = ["ex:p", "ex:q", "( ex:p ex:q )", "[ sh:inversePath ex:p ]", "[ sh:alternativePath ( ex:p ex:q ) ]",
          "[ sh:zeroOrMorePath ex:q ]", '"literal"', "_:cyc", "( )"]  # fmt: skip
_TARGETS = ["sh:targetNode ex:a", "sh:targetClass ex:C", "sh:targetSubjectsOf ex:p",
            "sh:targetObjectsOf ex:q", "sh:targetNode \"x\""]  # fmt: skip


@st.composite
def _shapes_text(draw: st.DrawFn) -> str:
    lines = [
        "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <https://example.org/> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        "_:cyc sh:inversePath _:cyc .",
    ]
    for number in range(3):
        parts = draw(st.lists(st.sampled_from(_SHAPE_PARTS), max_size=4))
        if draw(st.booleans()):
            parts.append(f"sh:path {draw(st.sampled_from(_PATHS))}")
        if number == 0 or draw(st.booleans()):
            parts.append(draw(st.sampled_from(_TARGETS)))
        body = " ; ".join(parts) or 'sh:name "empty"'
        lines.append(f"ex:S{number} a sh:NodeShape ; {body} .")
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 4)) == 0:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["[", "(", '"', ".", ";", "<", "@"])) + text[cut:]
    return text


#: 18 a's and a b: ^(a+)+$ backtracks 2^18 times in pySHACL (a fraction of a second); the
#: time limit itself is tested on 40 (tests/test_hostile_files.py).
_SHACL_DATA = """@prefix ex: <https://example.org/> .
ex:a a ex:C ; ex:p "x" , "aaaaaaaaaaaaaaaaaab" , ex:b ; ex:q 2 , "en"@en .
ex:b ex:p ex:a ; ex:q ex:a .
"""


@seed(FUZZ_SEED)
@settings(max_examples=examples(60), deadline=None)
@given(shapes=_shapes_text(), engine=st.sampled_from(["store", "store", "pyshacl"]))
def test_fuzz_shacl_never_raises_a_traceback(shapes: str, engine: str) -> None:
    """Random shapes (catastrophic and uncompilable patterns, cycles, SERVICE, unknown
    parameters, broken Turtle): a report or a ShaclError, within the time limit."""
    import tempfile

    from hopgate.shacl.graphs import validate_graph

    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "data.ttl"
        data.write_text(_SHACL_DATA)
        path = Path(scratch) / "shapes.ttl"
        path.write_text(shapes)
        try:
            report = validate_graph(data, path, engine=engine, time_limit=20)
        except hopgate.ShaclError as exc:
            event(f"shacl refused ({exc.engine or 'before any engine'})")
            assert "\n" not in str(exc), str(exc)
            return
        event(f"shacl report ({report.engine})")
        assert report.conforms == (not report.results)


@st.composite
def _hostile_report_ledgers(draw: st.DrawFn) -> dict[str, Any]:
    ledger = draw(ledgers())
    allowed = [t for t in _HOSTILE_TEXTS if refused_character(t) is None and t]
    for plural, field in (("claims", "text"), ("questions", "text"), ("sources", "title")):
        for record in ledger.get(plural) or []:
            if draw(st.booleans()):
                record[field] = "".join(
                    draw(st.lists(st.sampled_from(allowed), min_size=1, max_size=4))
                )
    for case in ledger.get("cases") or []:
        for output in case.get("outputs") or []:
            if draw(st.booleans()):
                output["text"] = draw(st.sampled_from(allowed))
    return ledger


@seed(FUZZ_SEED)
@settings(max_examples=examples(12), deadline=None)
@given(ledger=_hostile_report_ledgers())
def test_fuzz_the_report_of_hostile_texts_never_raises_a_traceback(ledger: dict[str, Any]) -> None:
    """A valid ledger whose free texts are hostile: every report format renders."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        path = write(Path(scratch) / "ledger", ledger, "json")
        with hopgate.open_store(None) as store:
            hopgate.load(store, path)
            evaluate(store)
            for run in sorted({r["id"] for r in ledger.get("runs") or []}):
                report = build_report(store, run=run, pictures=0)
                for fmt in ("html", "md", "json"):
                    assert render(report, fmt)
