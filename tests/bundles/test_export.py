"""Provenance bundles out: round trips, reader filtering, determinism, manifest and verify."""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from conftest import CEDAR, bench_module, required
from evaluated import export_bundle

import hopgate
from hopgate.bundles.export import FORMATS, write_export
from hopgate.bundles.formats import parse_rdf, serialize
from hopgate.bundles.picture import card_dot
from hopgate.bundles.provdoc import build_document, parse_document
from hopgate.bundles.quads import export_quads
from hopgate.bundles.scope import resolve_scope
from hopgate.bundles.verify import verify
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.errors import ExportError
from hopgate.report.build import build_report
from hopgate.report.explain import explain
from hopgate.report.pages import render
from hopgate.vocab import CATALOG_GRAPH, HG

ROOT = Path(__file__).resolve().parents[2]
WITHHELD = ROOT / "examples" / "withheld.yaml"
SPAN = "https://w3id.org/hopgate/id/span/"


def _canonical(quads: list[ox.Quad]) -> list[str]:
    # hopgate's graphs have no blank nodes, so equal sorted quads is graph isomorphism.
    return sorted(f"{quad} ." for quad in quads)


@pytest.mark.parametrize("fmt", ["trig", "jsonld"])
def test_rdf_formats_reload_into_an_isomorphic_dataset(cedar: Any, fmt: str) -> None:
    scope = resolve_scope(cedar, run="sys-a")
    expected = export_quads(cedar, scope, with_text=True)
    data = export_bundle(cedar, format=fmt, run="sys-a", with_text=True).data
    with hopgate.open_store(None) as fresh:
        fresh._store.load(data, format=ox.RdfFormat.TRIG if fmt == "trig" else ox.RdfFormat.JSON_LD)
        reloaded = list(fresh._store.quads_for_pattern(None, None, None, None))
    assert _canonical(reloaded) == _canonical(expected.quads)


def test_the_evaluation_readers_export_holds_its_graphs_unchanged(cedar: Any) -> None:
    """For the evaluation's own reader (analyst may read everything here), with texts,
    each exported bundle is exactly the store's graph."""
    scope = resolve_scope(cedar, run="sys-a")
    assert scope.reader == "analyst"
    exported = parse_rdf(
        export_bundle(cedar, format="trig", run="sys-a", with_text=True).data, "trig"
    )
    for graph in scope.graphs:
        in_store = list(cedar._store.quads_for_pattern(None, None, None, ox.NamedNode(graph)))
        in_export = [q for q in exported if q.graph_name == ox.NamedNode(graph)]
        assert _canonical(in_export) == _canonical(in_store)
    assert len(scope.graphs) == 2  # the evaluation bundle and the load it used
    top = [q for q in exported if isinstance(q.graph_name, ox.DefaultGraph)]
    subjects = {q.subject.value for q in top}
    assert set(scope.graphs) <= subjects  # each bundle's own provenance at the top level
    catalog = {
        f"{q.subject} {q.predicate} {q.object}"
        for q in cedar._store.quads_for_pattern(None, None, None, ox.NamedNode(CATALOG_GRAPH))
    }
    assert {f"{q.subject} {q.predicate} {q.object}" for q in top} <= catalog


@pytest.mark.parametrize("fmt", ["provn", "provjson", "provxml"])
def test_prov_formats_round_trip_through_the_prov_package(cedar: Any, fmt: str) -> None:
    scope = resolve_scope(cedar, run="sys-a", reader="public")
    document = build_document(export_quads(cedar, scope, with_text=True).quads)
    data = export_bundle(cedar, format=fmt, run="sys-a", reader="public", with_text=True).data
    parsed = parse_document(data, fmt)
    assert parsed == document
    assert len(list(parsed.bundles)) == 2
    # Not vacuous: a changed record breaks equality.
    tampered = data.replace(b"revise-citations", b"accept").replace(b"ReviseCitations", b"Accept")
    assert parse_document(tampered, fmt) != document


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_is_deterministic(cedar: Any, fmt: str) -> None:
    first = export_bundle(cedar, format=fmt, run="sys-a", reader="public").data
    second = export_bundle(cedar, format=fmt, run="sys-a", reader="public").data
    assert first == second
    assert b"_:" not in first or fmt == "provjson"  # PROV-JSON numbers its relations: _:id1...


def test_a_withheld_span_keeps_its_id_digest_and_a_marker(cedar: Any) -> None:
    quads = export_quads(cedar, resolve_scope(cedar, run="sys-a", reader="public"), with_text=True)
    text = quads.nquads().decode()
    for span in ("a2", "b2"):  # quoted from rights@1, readable by analysts only
        assert (
            f"<{SPAN}{span}> <{HG}withheldFor> <https://w3id.org/hopgate/id/reader/public>" in text
        )
        assert f'<{SPAN}{span}> <{HG}ledgerId> "{span}"' in text
    assert "Record R17: the rights are held by Entity R" not in text
    assert "Rights schedule 2026" not in text
    rights = "<https://w3id.org/hopgate/id/version/rights%401>"
    assert f'{rights} <{HG}digest> "sha256:789b3575' in text
    assert f"{rights} <{HG}withheldFor>" in text
    # The analyst sees them: no marker, quote present.
    analyst = export_quads(cedar, resolve_scope(cedar, run="sys-a"), with_text=True).nquads()
    assert b"withheldFor" not in analyst
    assert b"Record R17: the rights are held by Entity R" in analyst


def test_version_texts_leave_only_with_text(cedar: Any) -> None:
    without = export_bundle(cedar, format="trig", run="sys-a").data
    with_text = export_bundle(cedar, format="trig", run="sys-a", with_text=True).data
    assert b"Project registry export, 1 October 2026." not in without
    assert b"Project registry export, 1 October 2026." in with_text
    assert b"Project Cedar is mapped to record R17" in without  # span quotes stay


def test_scope_errors_name_the_problem(cedar: Any) -> None:
    with pytest.raises(ExportError, match="unknown reader 'nobody'"):
        export_bundle(cedar, format="trig", run="sys-a", reader="nobody")
    with pytest.raises(ExportError, match="unknown run"):
        export_bundle(cedar, format="trig", run="nope")
    with pytest.raises(ExportError, match="choose one of"):
        export_bundle(cedar, format="trig", run="sys-a", graph=CATALOG_GRAPH)
    with pytest.raises(ExportError, match="no acceptance card"):
        export_bundle(cedar, format="trig", card="nope")


def test_default_reader_is_the_evaluations_and_must_be_chosen_when_ambiguous() -> None:
    with hopgate.open_store(None) as store:
        hopgate.load(store, WITHHELD)
        evaluate(store)
        assert resolve_scope(store, run="run-public").reader == "public"
        assert resolve_scope(store, run="run-analyst").reader == "analyst"
        with pytest.raises(ExportError, match="--reader"):
            resolve_scope(store)
        public = export_bundle(store, format="provn", run="run-public").data
        assert b"The board approved" not in public
        assert b"withheldFor" in public
        analyst = export_bundle(store, format="provn", run="run-analyst").data
        assert b"The board approved the Cedar budget on 3 March 2026" in analyst


# --- the adversarial reader-filter test -------------------------------------------

READERS = ("analyst", "public", "partner")


def _secret_ledger(seed: int) -> tuple[dict[str, Any], dict[str, tuple[str | None, list[str]]]]:
    """A ledger whose texts are sentences each carrying a distinctive token.

    Returns the ledger and, per token, the (version readers, span readers) that
    decide who may see it: (None, []) is public.
    """
    rng = random.Random(seed)
    ledger: dict[str, Any] = {
        "ledger": 1,
        "evaluations": [
            {"id": f"eval-{r}", "reader": r, "observation_cutoff": "2026-10-07T00:00:00Z"}
            for r in READERS
        ],
        "readers": [{"id": r} for r in READERS],
        "sources": [],
        "versions": [],
        "spans": [],
        "questions": [],
        "claims": [],
        "evidence_sets": [],
        "runs": [{"id": f"run-{r}", "evaluation": f"eval-{r}", "system": "rag"} for r in READERS],
        "cases": [],
    }
    visibility: dict[str, tuple[Any, Any]] = {}
    for v in range(12):
        readers = rng.choice([None, ["analyst"], ["partner"], ["analyst", "partner"], ["public"]])
        tokens = [f"zq{seed}x{v}x{k}x{rng.getrandbits(40):010x}" for k in range(4)]
        sentences = [f"Sentence {k} says {token}." for k, token in enumerate(tokens)]
        version: dict[str, Any] = {
            "id": f"doc{v}@1",
            "source": f"doc{v}",
            "text": " ".join(sentences),
            "observed_at": "2026-09-01T00:00:00Z",
        }
        if readers:
            version["readers"] = readers
        ledger["sources"].append({"id": f"doc{v}", "address": f"https://example.org/doc{v}"})
        ledger["versions"].append(version)
        spans = []
        for k, sentence in enumerate(sentences[:3]):
            span: dict[str, Any] = {"id": f"s{v}-{k}", "version": f"doc{v}@1", "quote": sentence}
            narrowed = None
            if k == 2 and readers is None:
                narrowed = [rng.choice(READERS)]  # a span narrowing a public version
                span["readers"] = narrowed
            visibility[tokens[k]] = (readers, narrowed)
            ledger["spans"].append(span)
            spans.append(span["id"])
        visibility[tokens[3]] = (readers, "unquoted")
        ledger["questions"].append({"id": f"q{v}", "text": f"Question {v}?", "claims": [f"c{v}"]})
        ledger["claims"].append({"id": f"c{v}", "text": f"Claim {v}."})
        ledger["evidence_sets"].append(
            {
                "id": f"g{v}",
                "claim": f"c{v}",
                "members": spans[:2],
                "inference": "join",
                "status": "adjudicated",
                "annotation": {"version": 1, "by": "annotator", "at": "2026-09-02"},
            }
        )
        for r in READERS:
            ledger["cases"].append(
                {
                    "run": f"run-{r}",
                    "question": f"q{v}",
                    "retrieved": spans + [{"version": f"doc{v}@1", "quote": sentences[3]}],
                    "outputs": [
                        {
                            "id": f"{r}/o{v}",
                            "text": f"Output {v}.",
                            "claim": f"c{v}",
                            "correct": True,
                            # The narrowed sentence again, cited inline (issue 15's leak).
                            "cites": spans[1:] + [{"version": f"doc{v}@1", "quote": sentences[2]}],
                        }
                    ],
                }
            )
    return ledger, visibility


def _may_see(reader: str, visibility: tuple[Any, Any], with_text: bool) -> bool:
    """Who may see a token. With or without texts the same: a version's text
    leaves only for a reader who may inspect every span of it (issue 15)."""
    version_readers, span_readers = visibility
    if version_readers is not None and reader not in version_readers:
        return False
    if span_readers == "unquoted":
        # Only the retrieved inline span quotes it; same readers as the version.
        return True
    return span_readers is None or reader in span_readers


#: Each seed is a minute of exports on a loaded machine: the first runs everywhere, all under CI.
@pytest.mark.parametrize(
    "seed", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)]
)
def test_no_format_leaks_a_string_its_reader_may_not_see(
    seed: int, tmp_path: Path, write_ledger: Any
) -> None:
    ledger, visibility = _secret_ledger(seed)
    path = write_ledger(ledger, "yaml", name=f"secret{seed}")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        cards = {reader: [f"{reader}/o{v}" for v in range(12)] for reader in READERS}
        checked = 0
        for reader in READERS:
            for with_text in (False, True):
                forbidden = [
                    t for t, vis in visibility.items() if not _may_see(reader, vis, with_text)
                ]
                allowed = [t for t, vis in visibility.items() if _may_see(reader, vis, with_text)]
                assert forbidden and allowed  # the ledger tests both sides
                exports = [
                    export_bundle(store, format=fmt, reader=reader, with_text=with_text).data
                    for fmt in FORMATS
                ]
                exports += [
                    export_bundle(
                        store, format="trig", run=f"run-{r}", reader=reader, with_text=with_text
                    ).data
                    for r in READERS
                ]
                if not with_text:  # pictures of every card of the reader's run
                    exports += [
                        card_dot(store, resolve_scope(store, card=card, reader=reader)).encode()
                        for card in cards[reader]
                    ]
                for data in exports:
                    for token in forbidden:
                        assert token.encode() not in data, (reader, with_text, token)
                        checked += 1
                if not with_text:
                    # The audit report (every format, pictures included) and explain show
                    # span quotes, never version texts: the same filter holds for them.
                    views = _report_views(store, reader)
                    for view in views:
                        for token in forbidden:
                            assert token not in view, (reader, "report", token)
                            checked += 1
                    assert any(token in view for token in allowed for view in views)
                # Not vacuous: what the reader may see is there (in the whole-store TriG).
                for token in allowed:
                    assert token.encode() in exports[0], (reader, with_text, token)
        assert checked > 500  # forbidden strings searched, all readers and formats


HOSTILE = {
    "reader": 'pub lic"<x>#1',
    "other": "pub%20lic",  # percent-encodes to a different IRI than the reader above
    "version": 'doc "1" <a>/../#b',
    "span": "s}}} ; ?x <urn:evil> .",
}


def test_narrowed_text_never_leaks_through_inline_citations_or_hostile_ids(
    tmp_path: Path, write_ledger: Any
) -> None:
    """Issue 15: a public version, a span of it narrowed to one reader, and an output
    citing the same text inline (whole and in part) and repeating it in its own text;
    a visible span whose suffix reaches into it; ids chosen to break naive IRIs."""
    secret = "Cedar maps to record R17 zqsecretzq."
    text = f"Public opening. {secret} Public closing."
    reader, other = HOSTILE["reader"], HOSTILE["other"]
    version = HOSTILE["version"]
    ledger = {
        "ledger": 1,
        "evaluations": [{"id": "e", "reader": other, "observation_cutoff": "2026-10-07T00:00:00Z"}],
        "readers": [{"id": reader}, {"id": other}],
        "sources": [{"id": "src", "address": "https://example.org/src"}],
        "versions": [{"id": version, "source": "src", "text": text, "observed_at": "2026-10-01"}],
        "spans": [
            {"id": HOSTILE["span"], "version": version, "quote": secret, "readers": [reader]},
            {"id": "open", "version": version, "quote": "Public opening."},
            # Its suffix reaches into the narrowed words.
            {"id": "open2", "version": version, "quote": "opening.", "suffix": " Cedar maps"},
        ],
        "questions": [{"id": "q", "text": "Where is Cedar?", "claims": ["c"]}],
        "claims": [{"id": "c", "text": "Cedar is R17."}],
        "evidence_sets": [
            {
                "id": "g",
                "claim": "c",
                "members": [HOSTILE["span"]],
                "inference": "direct",
                "status": "adjudicated",
                "annotation": {"version": 1, "by": "a", "at": "2026-10-02"},
            }
        ],
        "runs": [{"id": "r", "evaluation": "e", "system": "rag"}],
        "cases": [
            {
                "run": "r",
                "question": "q",
                "retrieved": ["open", {"version": version, "quote": secret}],
                "outputs": [
                    {
                        "id": "o",
                        "text": f"As the registry says: {secret}",  # the output repeats it
                        "claim": "c",
                        "correct": True,
                        "cites": [
                            {"version": version, "quote": secret},
                            {"version": version, "quote": "zqsecretzq. Public"},
                        ],
                    }
                ],
            }
        ],
    }
    path = write_ledger(ledger, "yaml", name="hostile")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        evaluate(store)
        for with_text in (False, True):
            for fmt in FORMATS:
                data = export_bundle(store, format=fmt, reader=other, with_text=with_text).data
                assert b"zqsecretzq" not in data, (fmt, with_text)
                assert b"Cedar maps" not in data, (fmt, with_text)
                assert b"withheldFor" in data or b"withheld" in data
                mine = export_bundle(store, format=fmt, reader=reader, with_text=with_text).data
                assert b"zqsecretzq" in mine, (fmt, with_text)
        picture = card_dot(store, resolve_scope(store, card="o", reader=other))
        assert "zqsecretzq" not in picture and "[withheld from this" in picture
        assert "Cedar maps" not in picture
        picture = card_dot(store, resolve_scope(store, card="o", reader=reader))
        assert "zqsecretzq" in picture
        said = b"As the registry says"
        assert said in export_bundle(store, format="trig", reader=reader).data
        assert said not in export_bundle(store, format="trig", reader=other).data
        # The version's text leaves for neither reader's bundle when one of them is excluded.
        public = export_bundle(store, format="trig", reader=other, with_text=True).data
        assert b"Public opening." in public  # the readable span's quote still goes


def _report_views(store: Any, reader: str) -> list[str]:
    """Every run's report for ``reader`` (HTML, Markdown, JSON) and a few explanations."""
    views = []
    for run in (f"run-{r}" for r in READERS):
        report = build_report(
            store, run=run, reader=reader, pictures=0 if DOT_MISSING else 2, peers=False
        )
        views += [render(report, fmt) for fmt in ("html", "md", "json")]
        for card in report.cards[:3]:
            found = explain(store, card.row.output, reader=reader)
            views.append(json.dumps(found.as_dict(), ensure_ascii=False))
    return views


# --- manifest and verify ------------------------------------------------------------


def test_manifest_and_verify(cedar: Any, tmp_path: Path) -> None:
    out = tmp_path / "bundles"
    for fmt in FORMATS:
        write_export(export_bundle(cedar, format=fmt, run="sys-a", with_text=True), out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["files"]) == sorted(
        ["export.trig", "export.jsonld", "export.provn", "export.prov.json", "export.prov.xml"]
    )
    assert manifest["versions"]["registry@3"].startswith("sha256:")
    assert len(manifest["versions"]) == 7
    report = verify(out)
    assert report.ok, report.problems
    assert report.quotes_checked == 13 * len(FORMATS)

    # The same store writes the same manifest bytes.
    again = tmp_path / "again"
    for fmt in FORMATS:
        write_export(export_bundle(cedar, format=fmt, run="sys-a", with_text=True), again)
    assert (again / "manifest.json").read_bytes() == (out / "manifest.json").read_bytes()

    # A changed byte is caught.
    trig = out / "export.trig"
    original = trig.read_bytes()
    trig.write_bytes(original.replace(b"Entity R", b"Entity Q", 1))
    report = verify(out)
    assert not report.ok and "export.trig: sha256" in report.problems[0]

    # A forged quote with a re-computed manifest is caught by the quote check.
    forged = original.replace(
        b'"Project Cedar is mapped to record R17"', b'"Project Cedar is mapped to record R99"'
    )
    assert forged != original
    trig.write_bytes(forged)
    manifest["files"]["export.trig"]["sha256"] = __import__("hashlib").sha256(forged).hexdigest()
    (out / "manifest.json").write_text(json.dumps(manifest))
    report = verify(out)
    assert any("is not the text at" in p for p in report.problems), report.problems

    # An unlisted export file is reported.
    trig.write_bytes(original)
    manifest["files"]["export.trig"]["sha256"] = __import__("hashlib").sha256(original).hexdigest()
    (out / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(trig, out / "extra.trig")
    report = verify(out)
    assert report.problems == ["extra.trig: an export file the manifest does not list"]


# --- the command line and pictures ------------------------------------------------------

DOT_MISSING = shutil.which("dot") is None


def _needs_dot() -> None:
    if DOT_MISSING:
        required("graphviz's dot is not installed (Debian: apt-get install graphviz)")


def test_cli_export_and_verify(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    assert runner.invoke(cli, [*store, "load", str(CEDAR)]).exit_code == 0
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    out = tmp_path / "out"
    for fmt in ("provn", "trig"):
        result = runner.invoke(
            cli, [*store, "export", "--run", "sys-a", "--format", fmt, "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
    result = runner.invoke(cli, [*store, "verify", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 file(s) intact" in result.output
    # Quotes exported without their texts: counted, and said not to be a problem.
    assert re.search(r"\n\d+ quote\(s\) without an exported text: not a problem", result.output)
    with_text = tmp_path / "with-text"
    result = runner.invoke(
        cli, [*store, "export", "--run", "sys-a", "--with-text", "-o", str(with_text)]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, [*store, "verify", str(with_text)])
    assert result.exit_code == 0 and "not a problem" not in result.output, result.output
    result = runner.invoke(cli, [*store, "export", "--run", "sys-a", "--reader", "public"])
    assert result.exit_code == 0
    assert "withheldFor" in result.output
    assert "Record R17: the rights" not in result.output
    (out / "export.provn").write_text("altered")
    result = runner.invoke(cli, [*store, "verify", str(out)])
    assert result.exit_code == 1 and "FAILED: export.provn: sha256" in result.output
    result = runner.invoke(cli, [*store, "verify", str(tmp_path)])
    assert result.exit_code == 2 and "no manifest.json" in result.output
    result = runner.invoke(cli, [*store, "export", "--run", "sys-a", "--reader", "nobody"])
    assert result.exit_code == 2 and "unknown reader 'nobody'" in result.output


def test_card_picture_marks_the_missing_hop(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    runner.invoke(cli, [*store, "load", str(CEDAR)])
    runner.invoke(cli, [*store, "evaluate"])
    result = runner.invoke(cli, [*store, "export", "--card", "sys-a/qA/o1", "--format", "dot"])
    assert result.exit_code == 0, result.output
    dot = result.output
    a1 = f'"{SPAN}a1"'
    assert f'{a1} [shape=ellipse, style="filled,dashed"' in dot
    assert "MISSING HOP\\nspan a1" in dot
    assert f'-> {a1} [label="missing hop", style=dashed' in dot
    assert "verdict: revise-citations" in dot
    # Quotes are wrapped to keep the picture within a page's width.
    assert "span a2\\nRecord R17: the\\nrights are held by\\nEntity R" in dot
    public = runner.invoke(
        cli, [*store, "export", "--card", "sys-a/qA/o1", "--format", "dot", "--reader", "public"]
    ).output
    assert "span a2\\n[withheld from this" in public
    assert "Record R17: the rights" not in public
    # Card C cites a complete set: nothing missing.
    card_c = runner.invoke(
        cli, [*store, "export", "--card", "sys-a/qC/o1", "--format", "dot"]
    ).output
    assert "MISSING HOP" not in card_c and "cited route" in card_c


def test_card_picture_links_each_imported_citation_to_the_member_it_covers(
    tmp_path: Path,
) -> None:
    # A pipeline cites its own passages, not the gold spans: each is drawn below the sets,
    # linked to the member it covers (an accepted card shows its route being covered).
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    rag = [f"--{name}={ROOT / 'examples' / f'rag-{name}.jsonl'}" for name in ("docs", "gold")]
    answers = ROOT / "examples" / "rag-answers.jsonl"
    result = runner.invoke(
        cli,
        [*store, "import", "rag", *rag, "--answers", str(answers)]
        + ["-o", str(tmp_path / "l.jsonl"), "--load"],
    )
    assert result.exit_code == 0, result.output
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    dot = runner.invoke(cli, [*store, "export", "--card", "rag-run/q3", "--format", "dot"]).output
    assert "verdict: accept" in dot
    assert 'label="cited, each linked to the member it covers"' in dot
    assert "cited outside every set" not in dot
    for cited, member in (("vendors%5B0%3A57%5D", "vendors%400-57"),
                          ("charter%5B36%3A106%5D", "charter%4074-105")):  # fmt: skip
        assert f'"{SPAN}{cited}" -> "{SPAN}{member}" [label=covers' in dot
    assert "covers vendors@0-57 of\\nq3/g1" in dot
    # Cedar's outputs cite gold spans themselves: drawn inside their sets, no link needed.
    runner.invoke(cli, [*store, "load", str(CEDAR)])
    runner.invoke(cli, [*store, "evaluate"])
    cedar = runner.invoke(cli, [*store, "export", "--card", "sys-a/qC/o1", "--format", "dot"])
    assert "label=covers" not in cedar.output and "cited route" in cedar.output


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_card_picture_renders_with_graphviz(tmp_path: Path, fmt: str) -> None:
    _needs_dot()
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    runner.invoke(cli, [*store, "load", str(CEDAR)])
    runner.invoke(cli, [*store, "evaluate"])
    target = tmp_path / f"card.{fmt}"
    result = runner.invoke(
        cli, [*store, "export", "--card", "sys-a/qA/o1", "--format", fmt, "-o", str(target)]
    )
    assert result.exit_code == 0, result.output
    # The manifest written beside the picture is named, with why it is there.
    assert f"its sha256 recorded in {tmp_path / 'manifest.json'} (hopgate verify" in result.stderr
    data = target.read_bytes()
    if fmt == "svg":
        assert b"<svg" in data and b"MISSING HOP" in data and b"#d00000" in data.lower()
    else:
        assert data.startswith(b"\x89PNG")
    assert verify(tmp_path).ok


def test_pictures_drawn_together_are_each_cards_own_drawing(tmp_path: Path) -> None:
    """The report draws its pictures side by side (picture.render_svgs): each is byte for
    byte the SVG element `export --card ID --format svg` draws alone."""
    _needs_dot()
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    runner.invoke(cli, [*store, "load", str(CEDAR)])
    runner.invoke(cli, [*store, "evaluate"])
    report = build_report(hopgate.open_store(tmp_path / "store"), run="sys-a", pictures=4)
    assert report.pictures == 4
    for card in report.cards:
        alone = tmp_path / "alone.svg"
        result = runner.invoke(
            cli,
            [*store, "export", "--card", card.row.output, "--format", "svg", "-o", str(alone)],
        )
        assert result.exit_code == 0, result.output
        svg = alone.read_text("utf-8")
        assert card.picture == svg[svg.index("<svg") :], card.row.output


def test_demo_exports_provn_and_trig(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "export"
    assert f"Exported run sys-a as provn: {folder / 'export.provn'}" in result.output
    assert f"Exported run sys-a as trig: {folder / 'export.trig'}" in result.output
    report = verify(folder)
    assert report.ok and report.quotes_checked == 26


# --- a generated ledger of 10k claims ---------------------------------------------------


@pytest.fixture(scope="module")
def synthetic_10k(tmp_path_factory: pytest.TempPathFactory) -> Iterator[hopgate.OxigraphStore]:
    synthetic = bench_module("synthetic")
    ledger = tmp_path_factory.mktemp("synthetic") / "ledger.jsonl"
    synthetic.write_ledger(ledger, 10_000)
    with hopgate.open_store(None) as store:
        hopgate.load(store, ledger)
        yield store  # type: ignore[misc]


@pytest.fixture(scope="module")
def exported_10k(synthetic_10k: Any) -> Any:
    """The load graph of 10k claims exported for the public reader (computed once)."""
    graph = synthetic_10k.graphs()[-1]
    return export_quads(synthetic_10k, resolve_scope(synthetic_10k, graph=graph, reader="public"))


#: The 10k-claim round trips measure scale (minutes each): benchmarks, run with
#: HOPGATE_BENCHMARKS=1 (bench/README.md); every format's round trip is tested above.
@pytest.mark.benchmark
@pytest.mark.parametrize("fmt", ["trig", "jsonld"])
def test_10k_claims_round_trip_rdf(exported_10k: Any, fmt: str) -> None:
    exported = exported_10k
    assert len(exported.lines) > 1_000_000
    assert b"withheldFor" in exported.nquads()
    reloaded = parse_rdf(serialize(exported, fmt), fmt)
    # Compared as sorted N-Quads written by Oxigraph (fast at a million quads).
    canonical = sorted(ox.serialize(reloaded, format=ox.RdfFormat.N_QUADS).splitlines())
    assert canonical == sorted(line.rstrip(b"\n") for line in exported.lines)


@pytest.mark.benchmark
@pytest.mark.parametrize("fmt", ["provn", "provjson", "provxml"])
def test_10k_claims_round_trip_prov(synthetic_10k: Any, fmt: str) -> None:
    graph = synthetic_10k.graphs()[-1]
    scope = resolve_scope(synthetic_10k, graph=graph, reader="public")
    document = build_document(export_quads(synthetic_10k, scope).quads)
    data = export_bundle(synthetic_10k, format=fmt, graph=graph, reader="public").data
    assert parse_document(data, fmt) == document
