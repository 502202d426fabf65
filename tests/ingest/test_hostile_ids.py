"""Ids are data: any id (a newline, a tab, U+0001, an emoji, '/', '@', '#', '[0:10]')
behaves as a plain one, in every query, command and export format (issue 13, item 8).

The hostile ledger is a plain one with every id of a kind wrapped in the same
hostile prefix and suffix, so sorting ids (the tie-break of ``missing``) is not
changed by the renaming and results map back one to one.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import spec_model
from click.testing import CliRunner
from conftest import examples, write
from evaluated import MODEL_COLUMNS, export_bundle, verdicts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ledger_strategies import ledgers

import hopgate
from hopgate import ids
from hopgate.bundles.export import FORMATS
from hopgate.bundles.formats import parse_rdf
from hopgate.bundles.provdoc import PROV_FORMATS, build_document, parse_document
from hopgate.bundles.quads import export_quads
from hopgate.bundles.scope import resolve_scope
from hopgate.cli import cli
from hopgate.decide.evaluation import evaluate
from hopgate.escaping import csv_cell
from hopgate.ingest.stored import StoredRecords, StoredSpan
from hopgate.library.artefacts import library_query
from hopgate.shacl.validation import validate

Ledger = dict[str, Any]

#: Pieces of hostile ids: what once split a string key, an IRI or a record path. U+0001
#: split a key once; control characters other than tab and line breaks are now refused
#: (tests/test_hostile_input.py), so U+2028 (a line separator to Unicode, not to SPARQL's
#: regular expressions) stands in. (NEL, U+0085, is allowed too, but PyYAML writes it raw in
#: a quoted scalar with allow_unicode, and reads that back as a space.)
PIECES = ("\n", "\t", "\u2028", "😀", "/", "@", "#", "[0:10]", " ", '"', "'", ":", "%", "\\", "é")
#: The id kinds that are renamed (output ids too: they name the rows).
KINDS = ("version", "span", "question", "claim", "set", "run", "output")
_INLINE = re.compile(r"(.*)\[(\d+):(\d+)\]", re.DOTALL)


@dataclass(frozen=True)
class Renaming:
    """Every id of a kind becomes ``prefix + id + suffix``."""

    affixes: dict[str, tuple[str, str]]

    def __call__(self, kind: str, plain: str) -> str:
        prefix, suffix = self.affixes[kind]
        return f"{prefix}{plain}{suffix}"

    def back(self, kind: str, hostile: str | None) -> str | None:
        """The plain id of a hostile one (an inline span id maps its version)."""
        if hostile is None:
            return None
        prefix, suffix = self.affixes[kind]
        if hostile.startswith(prefix) and hostile.endswith(suffix):
            plain = hostile[len(prefix) : len(hostile) - len(suffix)]
            if self(kind, plain) == hostile and (kind != "span" or "[" not in plain):
                return plain
        inline = _INLINE.fullmatch(hostile)
        assert kind == "span" and inline is not None, (kind, hostile)
        version = self.back("version", inline.group(1))
        return f"{version}[{inline.group(2)}:{inline.group(3)}]"


def renamed(ledger: Ledger, name: Callable[[str, str], str]) -> Ledger:
    """``ledger`` with its version, span, question, claim, set, run and output ids renamed.

    Judgments follow their subjects (docs/spec/adjudication.md "Judgments").
    """
    out = copy.deepcopy(ledger)

    def delivered(item: Any) -> Any:
        if isinstance(item, str):
            return name("span", item)
        return {**item, "version": name("version", item["version"])}

    for version in out.get("versions") or []:
        version["id"] = name("version", version["id"])
        if version.get("revision_of"):
            version["revision_of"] = name("version", version["revision_of"])
    for span in out.get("spans") or []:
        span["id"] = name("span", span["id"])
        span["version"] = name("version", span["version"])
    for question in out.get("questions") or []:
        question["id"] = name("question", question["id"])
        question["claims"] = [name("claim", c) for c in question["claims"]]
    for claim in out.get("claims") or []:
        claim["id"] = name("claim", claim["id"])
    for group in out.get("evidence_sets") or []:
        group["id"] = name("set", group["id"])
        group["claim"] = name("claim", group["claim"])
        group["members"] = [name("span", m) for m in group["members"]]
    for contradiction in out.get("contradictions") or []:
        contradiction["claim"] = name("claim", contradiction["claim"])
        contradiction["span"] = name("span", contradiction["span"])
    for run in out.get("runs") or []:
        run["id"] = name("run", run["id"])
    for case in out.get("cases") or []:
        case["run"] = name("run", case["run"])
        case["question"] = name("question", case["question"])
        case["retrieved"] = [delivered(item) for item in case.get("retrieved") or []]
        for output in case.get("outputs") or []:
            output["id"] = name("output", output["id"])
            if output.get("claim") is not None:
                output["claim"] = name("claim", output["claim"])
            if "cites" in output:
                output["cites"] = [delivered(item) for item in output["cites"]]
    subject_kinds = {"entailment": "set", "alternatives": "set", "minimality": "set"}
    subject_kinds["boundary"] = "output"
    span_ids = {span["id"] for span in ledger.get("spans") or []}
    for judged in out.get("judgments") or []:
        kind = subject_kinds.get(judged.get("question", ""))
        if judged.get("question") == "admissibility":  # a span or a version
            kind = "span" if judged["subject"] in span_ids else "version"
        if kind is not None:  # contradiction and judgment ids are not renamed
            judged["subject"] = name(kind, judged["subject"])
    return out


def _rows(ledger: Ledger, directory: Path) -> list[dict[str, Any]]:
    """Every verdict row of the ledger (engine), with ``missing`` and ``inadmissible`` sorted."""
    directory.mkdir(exist_ok=True)
    path = write(directory / "ledger", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        if not ledger.get("runs"):
            return []
        return [row.as_dict() for row in verdicts(store)]


def _mapped_back(row: dict[str, Any], renaming: Renaming) -> dict[str, Any]:
    back = renaming.back
    return {
        **row,
        "run": back("run", row["run"]),
        "question": back("question", row["question"]),
        "output": back("output", row["output"]),
        "claim": back("claim", row["claim"]),
        "missing": sorted(back("span", s) or "" for s in row["missing"]),
        "inadmissible_citations": sorted(
            back("span", s) or "" for s in row["inadmissible_citations"]
        ),
        "unretrieved_citations": sorted(
            back("span", s) or "" for s in row["unretrieved_citations"]
        ),
        "judgments": [
            {**j, "id": back("judgment", j["id"]) if "judgment" in KINDS else j["id"]}
            for j in row["judgments"]
        ],
        "cited_route": back("set", row["cited_route"]),
        "retrieved_route": back("set", row["retrieved_route"]),
        "weighed_route": back("set", row["weighed_route"]),
        # Source, judgment and contradiction ids are not renamed.
        "source_truth": sorted(
            (
                {**m, "span": back("span", m["span"]), "version": back("version", m["version"])}
                for m in row["source_truth"]
            ),
            key=lambda m: str(m["span"]),
        ),
        "card": None,  # output id @ evaluation time: differs between two evaluations
    }


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    return {
        **row,
        "missing": sorted(row["missing"]),
        "inadmissible_citations": sorted(row["inadmissible_citations"]),
        "unretrieved_citations": sorted(row["unretrieved_citations"]),
        "source_truth": sorted(row["source_truth"], key=lambda m: str(m["span"])),
        "card": None,
    }


def _key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["run"], row["question"], row["output"])


affixes = st.lists(st.sampled_from(PIECES), max_size=3).map("".join)
renamings = st.builds(
    Renaming,
    st.fixed_dictionaries({kind: st.tuples(affixes, affixes) for kind in KINDS}),
)


def _check_hostile_against_plain(ledger: Ledger, renaming: Renaming, tmp_path: Path) -> None:
    hostile = renamed(ledger, renaming)
    hostile_rows = _rows(hostile, tmp_path / "hostile")
    plain_rows = _rows(ledger, tmp_path / "plain")
    assert sorted((_mapped_back(r, renaming) for r in hostile_rows), key=_key) == sorted(
        (_plain(r) for r in plain_rows), key=_key
    )
    # And the spec's model agrees on the hostile ledger itself (ids sort by code point).
    model = [{k: r[k] for k in MODEL_COLUMNS} for r in spec_model.verdict_rows(hostile)]
    engine = [{k: r[k] for k in MODEL_COLUMNS} for r in hostile_rows]
    assert sorted(engine, key=_key) == sorted(model, key=_key)


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers(), renaming=renamings)
def test_hostile_ids_give_the_verdicts_routes_and_missing_hops_of_plain_ones(
    ledger: Ledger, renaming: Renaming, tmp_path: Path
) -> None:
    _check_hostile_against_plain(ledger, renaming, tmp_path)


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers(), renaming=renamings)
def test_hostile_ids_on_many_ledgers(ledger: Ledger, renaming: Renaming, tmp_path: Path) -> None:
    _check_hostile_against_plain(ledger, renaming, tmp_path)


# ---- the regressions of the issue ---------------------------------------------------


def _two_outputs(ledger: Ledger) -> Ledger:
    """The minimal ledger with a second output that cites the whole set; its claim is
    consequential, so an accept without a cited route is a Violation (cards.ttl)."""
    outputs = ledger["cases"][0]["outputs"]
    outputs.append({**outputs[0], "id": "sys-a/q1/o2", "cites": ["a1", "a2"]})
    ledger["claims"][0]["consequential"] = True
    return ledger


def test_a_set_id_with_a_newline_keeps_its_route_and_missing_hops(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path
) -> None:
    ledger = _two_outputs(minimal_ledger())
    ledger["evidence_sets"][0]["id"] = "g\n1"
    path = write(tmp_path / "newline", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        rows = {row.output: row for row in verdicts(store)}
        report = validate(store)
    assert rows["sys-a/q1/o1"].verdict == "revise-citations"
    assert rows["sys-a/q1/o1"].missing == ["a1"]
    assert rows["sys-a/q1/o1"].retrieved_route == "g\n1"
    assert rows["sys-a/q1/o2"].verdict == "accept"
    assert rows["sys-a/q1/o2"].cited_route == "g\n1"
    assert report.conforms, [r.message for r in report.results]


def test_ties_are_broken_by_the_set_id_itself_not_by_a_key_holding_it(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path
) -> None:
    # "a" sorts before "a\u2028A"; a key "<count>\u0001<id>\u0001<IRI>" put "a\u0001A" after
    # it ("a\u0001https..." > "a\u0001A\u0001https..."); U+0001 is refused now, and the
    # set id itself breaks the tie for any id.
    ledger = minimal_ledger()
    ledger["spans"].append({"id": "a3", "version": "registry@1", "quote": "Zürich registry."})
    first = ledger["evidence_sets"][0]
    ledger["evidence_sets"] = [
        {**first, "id": "a\u2028A", "members": ["a2", "a3"]},
        {**first, "id": "a", "members": ["a2", "a1"]},
    ]
    path = write(tmp_path / "ties", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        (row,) = verdicts(store)
        nearest = store.select(library_query("missing-hops").text)
    assert row.verdict == "revise-citations"
    assert row.missing == ["a1"]  # from set "a", not "a3" from set "a\u2028A"
    assert [(r["set"], r["spanId"]) for r in nearest] == [(ids.mint("set", "a"), "a1")]


# ---- every command and every export format --------------------------------------------

HOSTILE = Renaming({kind: ("\n\t\u2028😀 /@#", "[0:10] 'x\"") for kind in KINDS})


def _invoke(store: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["--store", str(store), *args], obj={})
    return result


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store directory with the minimal ledger under hostile ids, loaded and evaluated."""
    from conftest import _minimal_ledger

    directory = tmp_path_factory.mktemp("hostile")
    ledger = renamed(_two_outputs(_minimal_ledger()), HOSTILE)
    path = write(directory / "ledger", ledger, "jsonl")
    store = directory / "store"
    assert _invoke(store, "load", str(path)).exit_code == 0
    result = _invoke(store, "evaluate")
    assert result.exit_code == 0, result.output
    return store


def test_every_command_reads_hostile_ids(hostile_store: Path) -> None:
    run, output = HOSTILE("run", "sys-a"), HOSTILE("output", "sys-a/q1/o1")
    second = HOSTILE("output", "sys-a/q1/o2")
    shown: dict[tuple[str, ...], str] = {}
    result = _invoke(hostile_store, "verdicts", "--format", "json")
    assert result.exit_code == 0, result.output
    rows = {row["output"]: row for row in json.loads(result.output)}
    assert rows[output]["run"] == run
    assert rows[output]["missing"] == [HOSTILE("span", "a1")]
    assert rows[output]["retrieved_route"] == HOSTILE("set", "g1")
    assert rows[HOSTILE("output", "sys-a/q1/o2")]["cited_route"] == HOSTILE("set", "g1")
    for args in (
        ("verdicts", "--run", run),
        ("metrics", "--run", run, "--format", "json"),
        ("gate", "--run", run),
        ("stats", "--format", "json"),
        ("query", "missing-hops", "--param", f"run=run:{run}", "--format", "json"),
        ("query", "verdicts", "--format", "csv"),
        ("dump", "--format", "nquads"),
        ("evaluate", "--run", run, "--force"),
        ("baseline", "--k", "2"),
        ("verdicts", "--format", "json"),
    ):
        result = _invoke(hostile_store, *args)
        # The gate fails: output o1 leaves a1 of its route uncited (revise-citations).
        assert result.exit_code == (1 if args[0] == "gate" else 0), (args, result.output)
        assert "Error" not in result.output, (args, result.output)
        shown[args] = result.stdout
    # What the machine-readable outputs say, read back: the hostile ids whole.
    assert list(json.loads(shown[("metrics", "--run", run, "--format", "json")])) == [run]
    assert json.loads(shown[("stats", "--format", "json")])["records"]["output claims"] == 2
    table = list(csv.DictReader(io.StringIO(shown[("query", "verdicts", "--format", "csv")])))
    # CSV cells show line ends and controls as escapes (hopgate.escaping.csv_cell).
    assert sorted(row["output"] for row in table) == sorted(map(csv_cell, [output, second]))
    assert shown[("dump", "--format", "nquads")].count("hg:") == 0  # N-Quads: full IRIs
    again = json.loads(shown[("verdicts", "--format", "json")])
    assert {row["output"] for row in again} == {output, second}
    query = json.loads(
        _invoke(
            hostile_store, "query", "missing-hops", "--param", f"run=run:{run}", "--format", "json"
        ).output
    )
    assert [(r["set"], r["spanId"]) for r in query] == [
        (HOSTILE("set", "g1"), HOSTILE("span", "a1"))
    ]


def test_validate_reports_no_false_violation_for_hostile_ids(hostile_store: Path) -> None:
    result = _invoke(hostile_store, "validate")
    assert result.exit_code == 0, result.output
    result = _invoke(hostile_store, "validate", "--run", HOSTILE("run", "sys-a"))
    assert result.exit_code == 0, result.output


def test_export_to_a_directory_then_verify_with_hostile_ids(
    hostile_store: Path, tmp_path: Path
) -> None:
    for fmt in FORMATS:
        args = ("export", "--run", HOSTILE("run", "sys-a"), "--format", fmt, "-o", str(tmp_path))
        result = _invoke(hostile_store, *args)
        assert result.exit_code == 0, (fmt, result.output)
    result = _invoke(hostile_store, "verify", str(tmp_path))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_export_format_writes_hostile_ids(hostile_store: Path, fmt: str) -> None:
    run = HOSTILE("run", "sys-a")
    with hopgate.open_store(hostile_store) as store:
        export = export_bundle(store, format=fmt, run=run, with_text=True)
        quads = export_quads(store, resolve_scope(store, run=run), with_text=True).quads
        card = export_bundle(store, format=fmt, card=HOSTILE("output", "sys-a/q1/o1"))
    assert card.data
    # What was written reads back as what was exported.
    if fmt in PROV_FORMATS:
        expected = build_document(quads, xml=fmt == "provxml")
        assert parse_document(export.data, fmt) == expected
    else:
        assert sorted(map(str, parse_rdf(export.data, fmt))) == sorted(map(str, quads))


def test_a_card_picture_of_hostile_ids(hostile_store: Path) -> None:
    output = HOSTILE("output", "sys-a/q1/o1")
    result = _invoke(hostile_store, "export", "--card", output, "--format", "dot")
    assert result.exit_code == 0, result.output
    assert "MISSING HOP" in result.output


def test_evaluate_by_run_id_with_hostile_ids(tmp_path: Path) -> None:
    from conftest import _minimal_ledger

    ledger = renamed(_minimal_ledger(), HOSTILE)
    path = write(tmp_path / "ledger", ledger, "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, path)
        (record,) = evaluate(store, run=HOSTILE("run", "sys-a"))
    assert record.cards == 1 and record.claim_cases == 1


# ---- inline-span identity across loads ------------------------------------------------


def _dump(store: hopgate.Store) -> bytes:
    out = io.BytesIO()
    store.dump(out, format="nquads")
    return out.getvalue()


def _with_lookalike(ledger: Ledger, *, version: str) -> Ledger:
    """``ledger`` plus a version ``other@1`` and a ledger span of ``version`` whose id,
    ``registry@1[0:10]``, is the one an inline ``{registry@1, 0, 10}`` gets."""
    ledger["versions"].append(
        {**ledger["versions"][0], "id": "other@1", "text": "Another text entirely, longer."}
    )
    ledger["spans"].append({"id": "registry@1[0:10]", "version": version, "start": 0, "end": 10})
    return ledger


def _citing_inline(minimal: Ledger) -> Ledger:
    """A second ledger: run sys-b cites ``{registry@1, 0, 10}`` on the first ledger's q1."""
    return {
        "ledger": 1,
        "runs": [{**minimal["runs"][0], "id": "sys-b"}],
        "cases": [
            {
                "run": "sys-b",
                "question": "q1",
                "retrieved": ["a1", "a2"],
                "outputs": [
                    {
                        "id": "sys-b/q1/o1",
                        "text": "Entity R holds Cedar.",
                        "claim": "c1",
                        "correct": True,
                        "cites": ["a2", {"version": "registry@1", "start": 0, "end": 10}],
                    }
                ],
            }
        ],
    }


@pytest.mark.parametrize("version", ["other@1", "registry@1"])
def test_an_inline_span_colliding_with_an_earlier_loads_span_is_an_error(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path, version: str
) -> None:
    # In "other@1" the earlier span is another text: the inline citation silently
    # resolved to it. In "registry@1" it has the same offsets, but it is a ledger
    # span, not this inline one: within one file that is rejected, so across loads too.
    first = write(tmp_path / "first", _with_lookalike(minimal_ledger(), version=version), "yaml")
    second = write(tmp_path / "second", _citing_inline(minimal_ledger()), "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, first)
        before = _dump(store)
        with pytest.raises(hopgate.LedgerError) as caught:
            hopgate.load(store, second)
        assert _dump(store) == before
    message = str(caught.value)
    assert str(second) in message and "cases[0]" in message
    assert "field 'outputs[0].cites[1]'" in message
    assert "inline span id 'registry@1[0:10]' collides with a ledger span" in message
    assert f"of version {version!r}" in message
    assert "first.yaml" in message  # the earlier load's ledger file


def test_an_inline_span_of_a_new_version_colliding_with_an_earlier_loads_span_is_an_error(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path
) -> None:
    # The second ledger defines the version its inline span quotes: the store holds
    # nothing of it, so the span is not asked at once (one round trip each on a
    # server), but with the references at the end, where the earlier ledger span
    # under its id is found and named.
    first = minimal_ledger()
    first["spans"].append({"id": "fresh@1[0:10]", "version": "registry@1", "start": 0, "end": 10})
    second = _citing_inline(minimal_ledger())
    second["versions"] = [{**minimal_ledger()["versions"][0], "id": "fresh@1"}]
    second["cases"][0]["outputs"][0]["cites"] = [{"version": "fresh@1", "start": 0, "end": 10}]
    with hopgate.open_store(None) as store:
        hopgate.load(store, write(tmp_path / "first", first, "yaml"))
        before = _dump(store)
        with pytest.raises(hopgate.LedgerError) as caught:
            hopgate.load(store, write(tmp_path / "second", second, "yaml"))
        assert _dump(store) == before
    message = str(caught.value)
    assert "cases[0]" in message and "field 'outputs[0].cites[0]'" in message
    assert "inline span id 'fresh@1[0:10]' collides with a ledger span" in message
    assert "of version 'registry@1'" in message


def test_an_inline_span_colliding_within_one_file_names_both_records(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path
) -> None:
    ledger = _with_lookalike(minimal_ledger(), version="other@1")
    ledger["cases"][0]["outputs"][0]["cites"] = [{"version": "registry@1", "start": 0, "end": 10}]
    path = write(tmp_path / "one", ledger, "yaml")
    with hopgate.open_store(None) as store:
        with pytest.raises(hopgate.LedgerError) as caught:
            hopgate.load(store, path)
        assert _dump(store) == b""
    message = str(caught.value)
    assert "cases[0]" in message and "field 'outputs[0].cites[0]'" in message
    assert "collides with the ledger span defined at spans[2]" in message


def test_the_same_inline_span_in_two_loads_is_one_span(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path
) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["cites"] = [{"version": "registry@1", "start": 0, "end": 10}]
    first = write(tmp_path / "first", ledger, "yaml")
    second = write(tmp_path / "second", _citing_inline(minimal_ledger()), "yaml")
    with hopgate.open_store(None) as store:
        hopgate.load(store, first)
        result = hopgate.load(store, second)
        span = ids.mint("span", "registry@1[0:10]")
        cited = store.select(
            "SELECT ?output WHERE { ?output hg:cites ?span }", params={"span": hopgate.IRI(span)}
        )
    assert result.records.get("inline span", 0) == 0
    assert sorted(str(row["output"]) for row in cited) == [
        ids.mint("output", "sys-a/q1/o1"),
        ids.mint("output", "sys-b/q1/o1"),
    ]


def test_a_batched_answer_that_lost_a_binding_is_confirmed_before_a_collision(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spans quoting a stored version are read in batches before pass two; a
    batched answer that lost a binding (Virtuoso's plans can, docs/remote-virtuoso.md)
    is asked again alone before the ledger is refused for a collision."""
    # Two inline spans each, so that the later load asks them in one batch.
    first = write(tmp_path / "first", _citing(minimal_ledger(), [(0, 10), (0, 5)]), "yaml")
    later = _citing_inline(minimal_ledger())
    later["cases"][0]["outputs"][0]["cites"] = [
        {"version": "registry@1", "start": start, "end": end} for start, end in [(0, 10), (0, 5)]
    ]
    second = write(tmp_path / "second", later, "yaml")
    batched = StoredRecords._span_facts

    def losing(self: StoredRecords, nodes: list[str]) -> dict[str, StoredSpan]:
        found = batched(self, nodes)
        if len(nodes) == 1:  # asked alone: the whole answer
            return found
        return {  # a batch: every span's quote lost
            node: dataclasses.replace(
                span, facts=frozenset((i, v, s, e, None) for i, v, s, e, _ in span.facts)
            )
            for node, span in found.items()
        }

    with hopgate.open_store(None) as store:
        hopgate.load(store, first)
        monkeypatch.setattr(StoredRecords, "_span_facts", losing)
        result = hopgate.load(store, second)
    assert result.records.get("inline span", 0) == 0


def test_a_ledger_span_with_an_earlier_inline_spans_id_is_a_redefinition(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path
) -> None:
    ledger = minimal_ledger()
    ledger["cases"][0]["outputs"][0]["cites"] = [{"version": "registry@1", "start": 0, "end": 10}]
    first = write(tmp_path / "first", ledger, "yaml")
    second = write(
        tmp_path / "second",
        {
            "ledger": 1,
            "spans": [{"id": "registry@1[0:10]", "version": "registry@1", "start": 0, "end": 10}],
        },
        "yaml",
    )
    with hopgate.open_store(None) as store:
        hopgate.load(store, first)
        before = _dump(store)
        with pytest.raises(hopgate.ConflictError) as caught:
            hopgate.load(store, second)
        assert _dump(store) == before
    assert caught.value.conflicts == [("span", "registry@1[0:10]")]


def _citing(ledger: Ledger, places: list[tuple[int, int]]) -> Ledger:
    """``ledger``'s first output citing inline spans of registry@1 at ``places``."""
    cites = [{"version": "registry@1", "start": start, "end": end} for start, end in places]
    ledger["cases"][0]["outputs"][0]["cites"] = cites
    return ledger


def test_a_later_load_reads_only_the_stored_spans_its_inline_spans_name(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inline spans given by offsets are named before they are anchored: a later load
    asks the store for those spans, not for every span quoting their version (which
    grew each run's load with the runs loaded before it)."""
    first = write(tmp_path / "first", _citing(minimal_ledger(), [(0, 10), (0, 5), (1, 6)]), "yaml")
    later = _citing_inline(minimal_ledger())  # {registry@1, 0, 10}, and span a2
    second = write(tmp_path / "second", later, "yaml")
    asked: list[str] = []
    batched = StoredRecords._span_facts

    def counting(self: StoredRecords, nodes: list[str]) -> dict[str, StoredSpan]:
        asked.extend(nodes)
        return batched(self, nodes)

    with hopgate.open_store(None) as store:
        hopgate.load(store, first)
        monkeypatch.setattr(StoredRecords, "_span_facts", counting)
        result = hopgate.load(store, second)
    assert result.records.get("inline span", 0) == 0  # the stored one, not written again
    assert set(asked) == {ids.mint("span", "registry@1[0:10]")}


def test_a_batched_answer_that_lost_a_named_span_is_confirmed_alone(
    minimal_ledger: Callable[[], Ledger], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of named spans whose answer left a stored span out (a server's plan can
    lose rows) asks it alone: the later load's same inline spans are the stored ones,
    never written again nor taken for a collision."""
    places = [(0, 10), (0, 5)]
    first = write(tmp_path / "first", _citing(minimal_ledger(), places), "yaml")
    later = _citing_inline(minimal_ledger())
    later["cases"][0]["outputs"][0]["cites"] = [
        {"version": "registry@1", "start": start, "end": end} for start, end in places
    ]
    second = write(tmp_path / "second", later, "yaml")
    batched = StoredRecords._span_facts

    def losing(self: StoredRecords, nodes: list[str]) -> dict[str, StoredSpan]:
        return batched(self, nodes) if len(nodes) == 1 else {}

    with hopgate.open_store(None) as store:
        hopgate.load(store, first)
        monkeypatch.setattr(StoredRecords, "_span_facts", losing)
        result = hopgate.load(store, second)
        cited = store.select(
            "SELECT DISTINCT ?span WHERE { ?output hg:cites ?span }",
        )
    assert result.records.get("inline span", 0) == 0
    assert {str(row["span"]) for row in cited} >= {
        ids.mint("span", f"registry@1[{start}:{end}]") for start, end in places
    }
