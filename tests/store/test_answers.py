"""Recorded answers (hopgate.store.answers): the bundle queries' rows, kept when an evaluation
is published and read instead of running the queries on a copy.

A cache (docs/spec/records.md "Caches"): the rows are exactly the queries' answers; a
missing, damaged, edited or unrecorded file, or one written for other query texts, is not
used, and the reads answer the same without it.
"""

from __future__ import annotations

import dataclasses
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from conftest import CEDAR, EXAMPLES

import hopgate
from hopgate.audit import results
from hopgate.library.artefacts import library_query
from hopgate.library.steps import BUNDLE_QUERIES, GATE_POLICIES, recorded_requests
from hopgate.store import IRI, BNode, answers, bind_outer, catalog
from hopgate.store.snapshots import FOLDER

ROOT = Path(__file__).resolve().parents[2]


def _synthetic(tmp_path: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from bench.synthetic import write_ledger

    path = tmp_path / "synthetic.jsonl"
    write_ledger(path, 40, seed=3, runs=2)
    return path


@pytest.fixture(params=["cedar", "withheld", "synthetic"])
def evaluated(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """An on-disk store with one ledger loaded and evaluated (its bundles record answers)."""
    ledger = {
        "cedar": CEDAR,
        "withheld": EXAMPLES / "withheld.yaml",
        "synthetic": _synthetic(tmp_path) if request.param == "synthetic" else None,
    }[request.param]
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, ledger)
    hopgate.api.evaluate(store)
    yield store
    store.close()


def _reads(store: Any) -> Any:
    """Everything a read answers from the bundle queries: verdicts, metrics, the gate."""
    rows = [{**row.as_dict()} for row in results.verdicts(store)]
    figures = {run: m.as_dict() for run, m in results.metrics(store).items()}
    gates = [
        results.gate(store, run=run, consequential=policy).passed
        for run in catalog.runs(store)
        for policy in GATE_POLICIES
    ]
    return rows, figures, gates, _reports(store)


def _reports(store: Any) -> list[str]:
    """The report of every run, which reads the report's own answers too."""
    return [
        hopgate.render_report(hopgate.build_report(store, run=run, pictures=0), format="json")
        for run in catalog.runs(store)
    ]


def _cache_files(store: Any) -> list[Path]:
    return sorted((store.folder / FOLDER).glob("*-answers-*.cache"))


def _comparable(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    # Blank node labels differ between a copy and the store; none is read as an answer.
    return sorted(tuple((k, _value(v)) for k, v in sorted(row.items())) for row in rows)


def _value(value: Any) -> str:
    if isinstance(value, BNode):
        return "_:b"
    if isinstance(value, float):
        # A sum of doubles (a peer figure's) is added in the order the engine meets
        # its terms, which the copy changes: its last digits may differ
        # (docs/spec/records.md "Arithmetic").
        return f"{value:.12g}"
    return repr(value)


def test_recorded_answers_are_the_queries_answers_on_the_store(evaluated: Any) -> None:
    for run in catalog.runs(evaluated):
        bundle = catalog.staleness(evaluated, run).evaluation.bundle  # type: ignore[union-attr]
        recorded = answers.read(evaluated, bundle)
        assert recorded is not None
        for name, params in recorded_requests():
            bound = {"bundle": IRI(bundle), **params}
            kept = recorded.get(name, bound)
            assert kept is not None, name
            asked = evaluated.select(library_query(name).text, params=bound)
            assert _comparable(kept) == _comparable(asked), name
            # The values keep their kinds (an IRI stays an IRI, a count an int).
            assert [{k: type(v) for k, v in r.items()} for r in _sorted(kept)] == [
                {k: type(v) for k, v in r.items()} for r in _sorted(asked)
            ], name


def test_the_rows_of_some_cards_are_those_rows_of_the_whole_table(evaluated: Any) -> None:
    """explain and the gate decode only their cards' rows: the same rows as filtering all."""
    run = catalog.runs(evaluated)[0]
    bundle = catalog.staleness(evaluated, run).evaluation.bundle  # type: ignore[union-attr]
    recorded = answers.read(evaluated, bundle)
    assert recorded is not None
    every = {str(row["card"]) for row in recorded.get("cards", {"bundle": IRI(bundle)}) or []}
    some = set(sorted(every)[::3])
    assert some and some != every
    for name, params in recorded_requests():
        bound = {"bundle": IRI(bundle), **params}
        whole = recorded.get(name, bound)
        assert whole is not None, name
        if whole and "card" in whole[0]:
            whole = [r for r in whole if r["card"] is None or str(r["card"]) in some]
        assert recorded.get(name, bound, cards=some) == whole, name


def test_the_columns_of_a_table_are_its_plain_rows_read_by_column(evaluated: Any) -> None:
    """The cards are built from columns (no dict per row): for every recorded request,
    with and without some cards, each column holds its plain rows' values in order; a
    store without the recorded file gives the same columns from the query."""
    run = catalog.runs(evaluated)[0]
    state = catalog.staleness(evaluated, run)
    bundle = state.evaluation.bundle  # type: ignore[union-attr]
    recorded = answers.read(evaluated, bundle)
    assert recorded is not None
    every = {str(row["card"]) for row in recorded.get("cards", {"bundle": IRI(bundle)}) or []}
    for cards in (None, set(sorted(every)[::3])):
        for name, params in recorded_requests():
            bound = {"bundle": IRI(bundle), **params}
            rows = recorded.get(name, bound, cards=cards, plain=True)
            assert rows is not None, name
            names = list(rows[0]) if rows else ["card"]
            columns = recorded.columns(name, bound, names, cards=cards)
            assert columns == [[row[n] for row in rows] for n in names], name
    with ExitStack() as stack:
        reads = stack.enter_context(results.reading(evaluated, state.evaluation))  # type: ignore[arg-type]
        reads._recorded = None  # the query on a reading copy, as on a store without the file
        for name in results.CARD_QUERIES:
            if name == "interventions":
                continue
            rows = recorded.get(name, {"bundle": IRI(bundle)}, plain=True)
            assert rows is not None
            names = list(rows[0]) if rows else ["card"]
            queried = reads.columns(name, names)
            kept = recorded.columns(name, {"bundle": IRI(bundle)}, names)
            assert kept is not None
            assert sorted(map(repr, zip(*queried, strict=True))) == sorted(
                map(repr, zip(*kept, strict=True))
            ), name
            assert all(type(v) is not IRI for column in queried for v in column), name


def test_a_query_with_its_cards_bound_gives_those_cards_rows(evaluated: Any) -> None:
    """Without recorded answers (a remote store), ``explain`` and the gate ask the card
    queries of results.CARD_BOUND with ``?card`` bound to their cards (``bind_outer``):
    the rows the whole query gives for those cards, for one card and for several."""
    assert set(BUNDLE_QUERIES) >= results.CARD_BOUND
    for run in catalog.runs(evaluated):
        bundle = IRI(catalog.staleness(evaluated, run).evaluation.bundle)  # type: ignore[union-attr]
        for name in sorted(results.CARD_BOUND):
            text = library_query(name).text
            whole = evaluated.select(text, params={"bundle": bundle})
            assert all(row["card"] is not None for row in whole), name
            every = sorted({str(row["card"]) for row in whole})
            for cards in [*([card] for card in every[:6]), every[::2], every]:
                kept = [row for row in whole if str(row["card"]) in cards]
                bound = evaluated.select(
                    bind_outer(text, "card", [IRI(card) for card in cards]),
                    params={"bundle": bundle},
                )
                assert _sorted(bound) == _sorted(kept), (name, cards)


def _sorted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: repr(sorted((k, repr(v)) for k, v in r.items())))


@pytest.mark.parametrize("loss", ["missing", "damaged", "edited", "other queries"])
def test_reads_answer_the_same_without_their_recorded_answers(
    evaluated: Any, loss: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    recorded = _reads(evaluated)
    files = _cache_files(evaluated)
    # Two files per bundle: what every read reads, and what only the report reads.
    assert len(files) == len(answers.GROUPS) * len(catalog.runs(evaluated))
    for path in files:
        if loss == "missing":
            path.unlink()
        elif loss == "damaged":
            path.write_bytes(path.read_bytes()[:-40])
        elif loss == "edited":
            # Every recorded verdict "accept": a read must not believe it.
            text = path.read_text("utf-8")
            for verdict in ("Reject", "ReviseCitations", "Abstain", "Escalate"):
                # (an IRI column keeps its common prefix once: the names stand alone)
                text = text.replace(verdict, "Accept")
            path.write_text(text, "utf-8")
    if loss == "other queries":
        # A newer hopgate whose query texts differ: its key is another.
        monkeypatch.setattr(answers, "cache_key", lambda group: "answers-0000000000000000")
    assert _reads(evaluated) == recorded
    if loss in ("missing", "damaged", "edited"):
        assert "answers cache" in caplog.text


def test_without_recorded_answers_a_stale_evaluation_still_reads_only_its_graphs(
    tmp_path: Path,
) -> None:
    """Without its recorded answers an evaluation's reads ask its bundle and the loads it
    used, never the whole store: an abstaining case of the run loaded after it was counted
    in its metrics then (appropriate_abstentions 0 -> 1: a cache changed an answer)."""
    later = tmp_path / "later.yaml"
    later.write_text(
        'ledger: 1\nquestions:\n  - {id: qN, text: "Which project is Oak?", claims: []}\n'
        "cases:\n  - {run: sys-a, question: qN, retrieved: [b2], abstained: true}\n",
        encoding="utf-8",
    )
    with hopgate.open_store(tmp_path / "store") as store:
        hopgate.load(store, CEDAR)
        hopgate.evaluate(store)
        hopgate.load(store, later)
        assert catalog.staleness(store, "sys-a").stale
        recorded = _reads(store)
        for path in _cache_files(store):
            path.unlink()
        assert _reads(store) == recorded


def test_a_file_is_keyed_by_every_text_its_rows_depend_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hopgate whose prologue (the prefixes every query runs with) or whose walk of a
    run's inputs differs never reads a file another wrote: with another ``dcterms`` IRI
    the recorded report rows would hold titles the live query no longer finds."""
    from hopgate import vocab
    from hopgate.library import artefacts

    def keys() -> dict[str, str]:
        answers.cache_key.cache_clear()
        return {group: answers.cache_key(group) for group in answers.GROUPS}

    before = keys()
    monkeypatch.setitem(vocab.PREFIXES, "dcterms", "http://example.org/other-dcterms/")
    assert all(keys()[group] != before[group] for group in answers.GROUPS)
    monkeypatch.undo()
    assert keys() == before
    walk = artefacts.library_query("run-inputs")
    edited = dataclasses.replace(walk, text=walk.text + "\n# another walk")
    real = artefacts.library_query
    monkeypatch.setattr(
        answers, "library_query", lambda name: edited if name == "run-inputs" else real(name)
    )
    changed = keys()
    assert changed["queue"] != before["queue"]
    assert {g: k for g, k in changed.items() if g != "queue"} == {
        g: k for g, k in before.items() if g != "queue"
    }
    monkeypatch.undo()
    keys()


def test_only_the_report_reads_the_file_of_the_report_answers(
    evaluated: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The report's answers (two thirds of the bytes) are kept apart: the other reads
    neither read nor hash them, and the report answers the same without them."""
    reports = _reports(evaluated)
    report_key = answers.cache_key("report")
    kept = [path for path in _cache_files(evaluated) if report_key in path.name]
    assert kept and len(kept) == len(catalog.runs(evaluated))
    for path in kept:
        path.unlink()
    caplog.clear()
    results.verdicts(evaluated)
    results.metrics(evaluated)
    assert "answers cache" not in caplog.text
    assert _reports(evaluated) == reports
    assert "answers cache" in caplog.text


def test_a_store_in_memory_records_no_answers_and_reads_the_same() -> None:
    memory = hopgate.open_store(None)
    hopgate.load(memory, CEDAR)
    (record,) = hopgate.api.evaluate(memory)
    assert answers.read(memory, record.graph) is None
    assert {r.output: r.verdict for r in results.verdicts(memory)}


def test_a_table_round_trips_by_column_whatever_its_kinds() -> None:
    """The file's columns (plain, IRI with a shared prefix, blank node, decimal, mixed)
    decode to the rows recorded, and a card filter keeps exactly the rows it names."""
    from decimal import Decimal

    rows = [
        {"card": IRI("urn:x:c1"), "n": 1, "d": Decimal("1.50"), "b": BNode("b0"), "m": "t"},
        {"card": BNode("c2"), "n": None, "d": None, "b": BNode("b1"), "m": IRI("urn:y")},
        {"card": None, "n": 2.5, "d": Decimal("2"), "b": None, "m": None},
        {"card": IRI("urn:x:c3"), "n": True, "d": Decimal("0.1"), "b": BNode("b2"), "m": "u"},
    ]
    line = answers._encode_table(rows).encode("utf-8")
    decoded = answers._decode_table(line)
    assert decoded == rows
    assert [{k: type(v) for k, v in r.items()} for r in decoded] == [
        {k: type(v) for k, v in r.items()} for r in rows
    ]
    kept = answers._decode_table(line, {"urn:x:c3", "c2"})
    assert kept == [rows[1], rows[2], rows[3]]
    only_iris = [r for r in rows if not isinstance(r["card"], BNode)]
    line = answers._encode_table(only_iris).encode("utf-8")
    assert answers._decode_table(line, {"urn:x:c1"}) == [only_iris[0], only_iris[1]]


def test_plain_rows_are_the_rows_with_iris_and_blank_nodes_as_text() -> None:
    """``plain`` (the cards' reads, which take every term as its text) decodes IRIs and
    blank nodes to ``str``: equal text, no other value changed."""
    from decimal import Decimal

    rows = [
        {"card": IRI("urn:x:c1"), "d": Decimal("1.50"), "b": BNode("b0"), "m": "t", "o": None},
        {"card": IRI("urn:x:c2"), "d": None, "b": BNode("b1"), "m": IRI("urn:y"), "o": 3},
        {"card": None, "d": Decimal("2"), "b": None, "m": None, "o": IRI("urn:z")},
    ]
    line = answers._encode_table(rows).encode("utf-8")
    for cards in (None, {"urn:x:c2"}):
        typed = answers._decode_table(line, cards)
        plain = answers._decode_table(line, cards, plain=True)
        assert plain == typed and plain
        for p_row, t_row in zip(plain, typed, strict=True):
            for name, value in p_row.items():
                if isinstance(t_row[name], IRI | BNode):
                    assert type(value) is str
                else:
                    assert type(value) is type(t_row[name])


def test_an_evaluation_failing_while_its_answers_copy_is_made_leaves_the_store_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answers' copy is parsed in a thread while the bundle is written
    (answers.Recorder): a failure there waits for it, frees it, and publishes nothing."""
    import threading

    from hopgate.decide import evaluation

    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    before = sorted(store.graphs())

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the bundle could not be written")

    monkeypatch.setattr(evaluation, "_write_bundle", fail)
    with pytest.raises(RuntimeError, match="could not be written"):
        hopgate.api.evaluate(store)
    assert sorted(store.graphs()) == before
    assert not _cache_files(store)
    assert not [t for t in threading.enumerate() if t.name.startswith("hopgate-answers")]
    monkeypatch.undo()
    # The same store evaluates as if nothing had happened.
    (record,) = hopgate.api.evaluate(store)
    assert record.cards == 4 and _cache_files(store)
    store.close()


def test_the_answers_copy_started_early_is_the_recorders_and_never_reused_after_a_bundle(
    tmp_path: Path,
) -> None:
    """answers.ReadingCopies: the copy :meth:`start` began is the one the recording gets;
    once a run added its bundle to it, the next run gets a fresh copy (a removed quad's
    memory stays in Oxigraph's memory store), holding what any copy of the loads holds."""
    import io
    import threading

    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, _synthetic(tmp_path))
    hopgate.api.evaluate(store)
    (load,) = catalog.load_graphs(store)
    bundle = catalog.latest(store, "run0").bundle  # type: ignore[union-attr]
    file = tmp_path / "bundle.nq"
    with file.open("wb") as out:
        store.dump(out, format="nquads", graph=bundle)

    def nquads(copy: Any) -> bytes:
        out = io.BytesIO()
        copy.dump(out, format="nquads")
        return out.getvalue()

    with answers.ReadingCopies(store) as copies:
        copies.start([load])
        started = copies.of([load])
        assert started is not None and copies.of([load]) is started
        copy = started.result()
        held = nquads(copy)
        copies.adding(bundle)
        copy.add_graph(file, bundle, trusted=True)
        copies.start([load])
        fresh = copies.of([load])
        assert fresh is not None and fresh is not started
        assert fresh.result() is not copy and nquads(fresh.result()) == held
    assert not [t for t in threading.enumerate() if t.name.startswith("hopgate-answers")]
    store.close()


@pytest.mark.parametrize("early", [True, False])
def test_the_answers_copy_starts_before_the_rules_when_small_and_records_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, early: bool
) -> None:
    """ReadingCopies.start parses the loads' copy at once when their reading snapshots
    are at most EARLY_COPY_BYTES; else the copy waits for the recording to ask for it.
    The answers recorded either way are the queries' answers on the store."""
    if not early:
        monkeypatch.setattr(answers, "EARLY_COPY_BYTES", 0)
    store = hopgate.open_store(tmp_path / "store")
    hopgate.load(store, CEDAR)
    loads = catalog.load_graphs(store)
    with answers.ReadingCopies(store) as copies:
        copies.start(loads)
        assert (copies._copy is not None) == early
    hopgate.api.evaluate(store)
    bundle = catalog.latest(store, "sys-a").bundle  # type: ignore[union-attr]
    recorded = answers.read(store, bundle)
    assert recorded is not None
    for name, params in recorded_requests():
        bound = {"bundle": IRI(bundle), **params}
        asked = store.select(library_query(name).text, params=bound)
        assert _comparable(recorded.get(name, bound) or []) == _comparable(asked), name
    store.close()
