"""The reader rule asked of a memory copy (hopgate.audit.withholding._rule_copy).

On an on-disk store the reader filter asks ``queries/withheld.rq`` of a memory
copy of the quads it can read (each load's reader snapshot, the rest read from
the store), then looks the withheld nodes' texts up on the store. These tests
hold it to the one query on the store itself, the answer it replaces: for every
reader, on a ledger with narrowed spans, a narrowed version, an overlapping
quote and a suffix reaching into narrowed words, loaded in two files; and with
the snapshot missing or damaged; and on random ledgers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import CEDAR, counted_calls, examples, write
from hypothesis import HealthCheck, given, settings
from ledger_strategies import READERS as STRATEGY_READERS
from ledger_strategies import ledgers

import hopgate
from hopgate import ids
from hopgate.audit import withholding
from hopgate.audit.withholding import (
    TEXTS_QUERY,
    Readers,
    Withholding,
    _rule_copy,
    for_reader,
    reader_view,
    withheld_nodes,
)
from hopgate.errors import ReportError
from hopgate.library.artefacts import library_query
from hopgate.library.steps import reader_projection
from hopgate.store import IRI, Store, catalog, reader_answers, snapshots
from hopgate.vocab import CATALOG_GRAPH

SECRET = "Cedar maps to record R17 zqsecretzq."
TEXT = f"Public opening. {SECRET} Public closing."
READERS = ["analyst", "public", "auditor", "inner"]


def _ledger() -> dict[str, Any]:
    return {
        "ledger": 1,
        "evaluations": [
            {"id": "e2", "reader": "public", "observation_cutoff": "2026-10-07T00:00:00Z"}
        ],
        "readers": [{"id": "auditor"}, {"id": "inner"}],
        "sources": [{"id": "src2", "address": "https://example.org/src2"}],
        "versions": [
            {"id": "open@1", "source": "src2", "text": TEXT, "observed_at": "2026-10-01"},
            {
                "id": "closed@1",
                "source": "src2",
                "text": "A version only the auditor reads.",
                "observed_at": "2026-10-01",
                "readers": ["auditor"],
            },
        ],
        "spans": [
            {"id": "narrow", "version": "open@1", "quote": SECRET, "readers": ["inner"]},
            # Overlaps the narrowed words: withheld from the same readers, its quote too.
            {"id": "overlap", "version": "open@1", "quote": "zqsecretzq. Public"},
            # Only its suffix reaches in: withheld, its own quote is not a withheld text.
            {"id": "edge", "version": "open@1", "quote": "opening.", "suffix": " Cedar maps"},
            {"id": "far", "version": "open@1", "quote": "Public closing."},
            {"id": "inside", "version": "closed@1", "quote": "only the auditor"},
        ],
        "questions": [{"id": "q2", "text": "Where is Cedar?", "claims": ["c2"]}],
        "claims": [{"id": "c2", "text": "Cedar is R17."}],
        "evidence_sets": [
            {
                "id": "g2",
                "claim": "c2",
                "members": ["narrow"],
                "inference": "direct",
                "status": "adjudicated",
                "annotation": {"version": 1, "by": "a", "at": "2026-10-02"},
            }
        ],
        "runs": [{"id": "r2", "evaluation": "e2", "system": "rag"}],
        "cases": [
            {
                "run": "r2",
                "question": "q2",
                "retrieved": ["far", "narrow"],
                "outputs": [
                    {
                        "id": "o2",
                        "text": "Cedar is R17.",
                        "claim": "c2",
                        "correct": True,
                        "cites": ["narrow"],
                    }
                ],
            }
        ],
    }


def _one_query(store: Store, reader: str) -> tuple[tuple[str, ...], set[str]]:
    """The answer before the copy: the rule and its texts asked of the store itself."""
    iri = IRI(ids.mint("reader", reader))
    rows = store.select(TEXTS_QUERY, params={"reader": iri})
    texts = Withholding(reader, (str(row["text"]) for row in rows if row["text"])).texts
    nodes = store.select(library_query("withheld").text, params={"reader": iri})
    return texts, {str(row["node"]) for row in nodes}


def _shipped(store: Store, reader: str) -> tuple[tuple[str, ...], set[str]]:
    shipped = (
        for_reader(store, reader).texts,
        withheld_nodes(store, str(ids.mint("reader", reader))),
    )
    # explain and the report ask the rule once for both answers: the same answers.
    view = reader_view(store, reader)
    assert (view.withholding.texts, set(view.nodes)) == shipped, reader
    return shipped


@pytest.fixture
def disk_store(tmp_path: Path, write_ledger: Any) -> Any:
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
        hopgate.load(store, write_ledger(_ledger(), "yaml", name="narrowed"))
        hopgate.evaluate(store)
        yield store


def _reader_snapshots(store: Any) -> list[Path]:
    digests = snapshots.recorded(store, catalog.load_graphs(store))
    found = [
        snapshots.verified(store, graph, reader_projection(), digests)
        for graph in catalog.load_graphs(store)
    ]
    return [path for path in found if path is not None]


def test_the_copy_answers_as_the_store_for_every_reader(disk_store: Any) -> None:
    assert len(_reader_snapshots(disk_store)) == 2, "each load keeps a reader snapshot"
    with _rule_copy(disk_store) as copy:
        assert copy is not disk_store, "the rule is asked of a memory copy"
    answers = {reader: _shipped(disk_store, reader) for reader in READERS}
    for reader in READERS:
        assert answers[reader] == _one_query(disk_store, reader), reader
    # Not vacuous: the narrowed words and the narrowed version are withheld texts for
    # some readers and not for others; a suffix reaching in withholds no quote of its own.
    public_texts = set(answers["public"][0])
    assert any("zqsecretzq" in text for text in public_texts)
    assert any("only the auditor" in text for text in public_texts)
    assert not any("zqsecretzq" in text for text in answers["inner"][0])
    assert not any("only the auditor" in text for text in answers["auditor"][0])
    assert "opening." not in public_texts
    assert str(ids.mint("span", "edge")) in answers["public"][1]


def _records(store: Any) -> list[Path]:
    """The files of the rule's answers the loads recorded (hopgate.store.reader_answers)."""
    return sorted((store.folder / snapshots.FOLDER).glob("*-withheld-*.cache"))


@pytest.mark.parametrize("damage", ["missing", "damaged"])
def test_a_missing_or_damaged_snapshot_gives_the_same_texts(
    disk_store: Any, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    expected = {reader: _shipped(disk_store, reader) for reader in READERS}
    for path in _records(disk_store):
        path.unlink()  # so that the rule is asked of the copy
    for path in _reader_snapshots(disk_store):
        if damage == "missing":
            path.unlink()
        else:
            # A forged snapshot that would free the narrowed span.
            data = path.read_bytes().replace(b"readableBy", b"readableByX")
            path.write_bytes(data)
    for reader in READERS:
        assert _shipped(disk_store, reader) == expected[reader], reader
    assert damage in caplog.text


@settings(
    max_examples=10,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers())
def test_the_copy_answers_as_the_store_on_random_ledgers(
    ledger: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Random ledgers (tests/ledger_strategies.py: narrowed spans and versions, inline
    chunks, locators), loaded into a fresh on-disk store: every reader of the strategy."""
    folder = tmp_path_factory.mktemp("random")
    path = write(folder / "ledger", ledger, "yaml")
    with hopgate.open_store(folder / "store") as store:
        hopgate.load(store, path)
        for reader in STRATEGY_READERS:
            assert _shipped(store, reader) == _one_query(store, reader), reader


def test_a_filter_started_beside_the_rows_is_the_filter_of_the_run(
    disk_store: Any, tmp_path: Path
) -> None:
    """Readers.start runs each evaluated run's filter in a thread; of_run gives what
    for_reader gives. A run the read will not show (unknown, never evaluated) starts
    nothing: a read that stops at its error leaves no thread reading the store."""
    readers = Readers(disk_store, None, ReportError)
    runs = catalog.runs(disk_store)
    readers.start([*runs, "no-such-run"])
    assert readers._pending, "a filter runs beside the caller on an on-disk store"
    for run in runs:
        reader = readers.reader_of(run)
        assert readers.of_run(run).texts == for_reader(disk_store, reader).texts, run
    assert not readers._pending
    with hopgate.open_store(tmp_path / "fresh") as fresh:
        hopgate.load(fresh, CEDAR)
        idle = Readers(fresh, None, ReportError)
        idle.start(catalog.runs(fresh))  # loaded, never evaluated
        assert not idle._pending


def test_reads_take_the_rule_s_answers_the_last_load_recorded(
    disk_store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each load records the rule's answers for the store it leaves (one answer per
    reader a list names, one for every other reader); the evaluation after it adds no
    quad the rule reads, so reads take them and parse no copy: the same answers."""
    assert len(_records(disk_store)) == 2, "each load records the rule's answers"
    expected = {reader: _one_query(disk_store, reader) for reader in READERS}

    def no_copy(store: Any) -> Any:
        raise AssertionError("the rule was asked of a copy: the record was not used")

    monkeypatch.setattr(withholding, "_rule_copy", no_copy)
    for reader in READERS:  # "analyst" and "public" are in no reader list
        assert _shipped(disk_store, reader) == expected[reader], reader


def test_a_record_made_for_other_texts_queries_or_prefixes_is_not_used(
    disk_store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record keeps each reader's withheld texts too, so its key covers the queries
    that find them and the prologue every query runs with: a hopgate whose lookup of a
    node's texts differs asks the rule again (here, on a copy)."""
    from hopgate import vocab

    asked: list[object] = []
    real = withholding._rule_copy

    def counted(store: Any) -> Any:
        asked.append(store)
        return real(store)

    monkeypatch.setattr(withholding, "_rule_copy", counted)
    expected = {reader: _one_query(disk_store, reader) for reader in READERS}
    monkeypatch.setattr(reader_answers, "TEXTS_OF_NODES", reader_answers.TEXTS_OF_NODES + " ")
    assert {reader: _shipped(disk_store, reader) for reader in READERS} == expected
    assert asked, "a record made for other text queries was used"
    monkeypatch.undo()
    monkeypatch.setattr(withholding, "_rule_copy", counted)
    asked.clear()
    monkeypatch.setitem(vocab.PREFIXES, "dcterms", "http://example.org/other-dcterms/")
    _shipped(disk_store, READERS[0])
    assert asked, "a record made under other prefixes was used"


def test_texts_looked_up_a_few_nodes_at_a_time_are_the_rule_s(
    tmp_path: Path, write_ledger: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The withheld texts are looked up by node, a chunk of nodes per query, once for
    every reader: with one node a query, the record and the copy give the rule's texts."""
    monkeypatch.setattr(reader_answers, "_LOOKUP_CHUNK", 1)
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
        hopgate.load(store, write_ledger(_ledger(), "yaml", name="narrowed"))
        expected = {reader: _one_query(store, reader) for reader in READERS}
        assert any("zqsecretzq" in text for text in expected["public"][0])
        assert {reader: _shipped(store, reader) for reader in READERS} == expected
        for path in _records(store):
            path.unlink()  # the copy, then a lookup on the store
        assert {reader: _shipped(store, reader) for reader in READERS} == expected


@pytest.mark.parametrize("damage", ["missing", "forged", "forged text"])
def test_a_missing_forged_or_earlier_record_is_not_used(
    disk_store: Any, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The first load's record answers for a store without the narrowed ledger (every
    narrowed word free); the second load's is the store's. Without it (missing), or
    with its rows forged to free the narrowed span, or its withheld texts forged to
    drop the narrowed words, the rule is asked: the same answers."""
    expected = {reader: _one_query(disk_store, reader) for reader in READERS}
    second = max(_records(disk_store), key=lambda path: path.stat().st_mtime_ns)
    if damage == "missing":
        second.unlink()
    elif damage == "forged text":
        data = second.read_bytes()
        assert b"zqsecretzq" in data
        second.write_bytes(data.replace(b"zqsecretzq", b"zqpublic00"))
    else:
        narrowed = str(ids.mint("span", "narrow")).encode("utf-8")
        data = second.read_bytes()
        assert narrowed in data
        second.write_bytes(data.replace(narrowed, b"https://example.org/not-a-span"))
    for reader in READERS:
        assert _shipped(disk_store, reader) == expected[reader], reader
    assert ("missing" if damage == "missing" else "damaged") in caplog.text


def test_rule_quads_in_a_graph_without_a_reader_snapshot_make_the_rule_asked(
    disk_store: Any,
) -> None:
    """The record's key covers the graphs with a reader snapshot; any other graph must
    hold none of the quads the rule reads. Here the catalog graph (which has no snapshot)
    is made to narrow the span "far": the record is not used, and the answers change."""
    before = _shipped(disk_store, "public")
    far = ids.mint("span", "far")
    inner = ids.mint("reader", "inner")
    disk_store.update(
        f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> {{ <{far}> hg:readableBy <{inner}> }} }}"
    )
    after = _shipped(disk_store, "public")
    assert after == _one_query(disk_store, "public")
    assert str(far) in after[1] and str(far) not in before[1]


def test_a_text_in_a_graph_without_a_reader_snapshot_makes_the_rule_asked(
    disk_store: Any,
) -> None:
    """The record holds the withheld texts; the key covers them through the reader
    snapshots, which hold the texts. A text written into another graph (the catalog,
    which has no snapshot) for a withheld version is a withheld text too: the record
    is not used, and the filter withholds it."""
    withheld = _one_query(disk_store, "public")[1]
    version = next(node for node in sorted(withheld) if "/version/" in node)
    disk_store.update(
        f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH}> "
        f'{{ <{version}> prov:value "zq a text written later zq" }} }}'
    )
    shipped = _shipped(disk_store, "public")
    assert "zq a text written later zq" in shipped[0]
    assert shipped == _one_query(disk_store, "public")


def test_an_intervention_plan_records_the_rule_s_answers_too(
    disk_store: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan's graph holds spans the rule reads (its variants), so it changes the key;
    publishing it records the answers for the store it leaves, which reads then use."""
    hopgate.plan_interventions(disk_store, run="r2", output=tmp_path / "plan.jsonl")
    assert len(_records(disk_store)) == 3
    expected = {reader: _one_query(disk_store, reader) for reader in READERS}

    def no_copy(store: Any) -> Any:
        raise AssertionError("the rule was asked of a copy: the record was not used")

    monkeypatch.setattr(withholding, "_rule_copy", no_copy)
    for reader in READERS:
        assert _shipped(disk_store, reader) == expected[reader], reader


def _record_of(store: Any) -> bytes | None:
    """The record the last load kept for the store as it is."""
    graphs = store.graphs()
    digests = snapshots.recorded(store, graphs)
    key = reader_answers._key(store, graphs, digests)
    return None if key is None else snapshots.kept_by_any(store, graphs, key, digests)


def _asked_over_everything(store: Any) -> bytes | None:
    """The record the rule gives asked over every load: what an added record must equal."""
    with snapshots.working_copy(store, reader_projection(), catalog.load_graphs(store)) as copy:
        return reader_answers._asked(copy)


def test_a_load_of_new_spans_adds_their_answers_to_the_earlier_record(
    disk_store: Any, tmp_path: Path
) -> None:
    """A later load that names no reader list (a run's cases, with inline chunks of the
    narrowed version) is recorded from the earlier record and a copy of the graphs
    holding versions and reader lists: the same record as the rule over everything,
    and the chunk that repeats the narrowed words withheld."""
    cases = {
        "ledger": 1,
        "runs": [{"id": "r3", "evaluation": "e2", "system": "rag"}],
        "cases": [
            {
                "run": "r3",
                "question": "q2",
                "retrieved": [{"version": "open@1", "start": 16, "end": 40}],
                "outputs": [{"id": "o3", "claim": "c2", "correct": True, "cites": []}],
            }
        ],
    }
    with counted_calls(reader_answers, "_asked") as asked_over:
        hopgate.load(disk_store, write(tmp_path / "cases", cases, "json"))
    assert not asked_over, "the rule was asked over everything: the record was not added to"
    assert _record_of(disk_store) == _asked_over_everything(disk_store)
    chunk = ids.mint("span", "open@1[16:40]")
    assert chunk in _one_query(disk_store, "public")[1]
    for reader in READERS:
        assert _shipped(disk_store, reader) == _one_query(disk_store, reader), reader


def test_a_load_naming_a_reader_list_asks_the_rule_over_everything(
    disk_store: Any, tmp_path: Path
) -> None:
    """A new narrowed span changes earlier nodes' answers (an earlier span overlapping
    it): the rule is asked over everything, and the record is its answer."""
    narrowed = {
        "ledger": 1,
        "spans": [
            {"id": "late", "version": "open@1", "quote": "Public closing.", "readers": ["inner"]}
        ],
    }
    with counted_calls(reader_answers, "_asked") as asked_over:
        hopgate.load(disk_store, write(tmp_path / "late", narrowed, "json"))
    assert asked_over
    assert _record_of(disk_store) == _asked_over_everything(disk_store)
    far = ids.mint("span", "far")  # an earlier span, now overlapping a narrowed one
    assert far in _one_query(disk_store, "public")[1]
    for reader in READERS:
        assert _shipped(disk_store, reader) == _one_query(disk_store, reader), reader


@settings(
    max_examples=examples(45),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(ledger=ledgers())
def test_each_load_s_record_is_the_rule_s_answer_over_everything(
    ledger: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Random ledgers loaded in four parts (the records without cases and judgments; the
    cases of all runs but the last, and the last run's, their inline chunks new spans;
    the judgments): after each load the record it kept is, byte for byte, the rule's
    answer over every load."""
    last = max((case["run"] for case in ledger["cases"]), default=None)
    first = {**ledger, "cases": [], "judgments": []}
    later = [
        {"ledger": 1, "cases": [c for c in ledger["cases"] if c["run"] != last]},
        {"ledger": 1, "cases": [c for c in ledger["cases"] if c["run"] == last]},
        {"ledger": 1, "judgments": ledger["judgments"]},
    ]
    folder = tmp_path_factory.mktemp("parts")
    with hopgate.open_store(folder / "store") as store:
        for number, part in enumerate([first, *later]):
            if not any(value for key, value in part.items() if key != "ledger"):
                continue
            hopgate.load(store, write(folder / f"part{number}", part, "json"))
            assert _record_of(store) == _asked_over_everything(store), number
