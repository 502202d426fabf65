"""Importers on small hand-written fixtures: records the loader accepts, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from evaluated import metrics, peer_metrics, verdicts

import hopgate
from hopgate.cli import cli
from hopgate.errors import LedgerError
from hopgate.ingest.adapters import import_files
from hopgate.ingest.ledger import read_records

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "adapters"


def _load(tmp_path: Path, format: str, inputs: list[str], **options: object) -> hopgate.Store:
    ledger = tmp_path / f"{format}.jsonl"
    import_files(format, [FIXTURES / name for name in inputs], output=ledger, **options)
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    return store


def _peers(store: hopgate.Store, run: str) -> dict[str, tuple[float, int]]:
    return {p.name: (p.numerator, p.denominator) for p in peer_metrics(store, run=run)[run]}


@pytest.mark.conformance
def test_fever_fixture_scores_as_the_scorer(tmp_path: Path) -> None:
    store = _load(
        tmp_path, "fever", ["fever-gold.jsonl"], predictions=FIXTURES / "fever-pred.jsonl"
    )
    m = metrics(store)["fever-run"]
    # Line 1: the second gold group is among the predictions; line 2: half a group.
    assert (m.complete_set_recall.numerator, m.complete_set_recall.denominator) == (1, 2)
    assert m.counts["not_found"] == 1  # the NOT ENOUGH INFO claim
    assert m.counts["appropriate_abstentions"] == 1  # predicted NOT ENOUGH INFO
    peers = _peers(store, "fever-run")
    assert peers["evidence recall"] == (1, 2)
    assert peers["strict score"] == (2, 3)
    assert peers["label accuracy"] == (3, 3)
    assert peers["evidence precision"][0] == pytest.approx(2 / 3 + 1 / 2)


def test_fever_max_evidence_truncates_the_retrieval(tmp_path: Path) -> None:
    store = _load(
        tmp_path,
        "fever",
        ["fever-gold.jsonl"],
        predictions=FIXTURES / "fever-pred.jsonl",
        max_evidence=1,
    )
    # Only Cedar#1 is retrieved for line 1: no whole group any more.
    assert metrics(store)["fever-run"].complete_set_recall.numerator == 0


def test_fever_empty_gold_group_is_rejected(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    with pytest.raises(LedgerError) as caught:
        import_files("fever", [FIXTURES / "fever-empty-group.jsonl"], output=output)
    error = caught.value
    assert error.file.endswith("fever-empty-group.jsonl")
    assert (error.record, error.field) == ("line 2", "evidence[1]")
    assert "empty gold evidence group" in str(error)
    assert not output.exists()


def test_fever_misaligned_predictions_are_rejected(tmp_path: Path) -> None:
    short = tmp_path / "pred.jsonl"
    short.write_text("".join((FIXTURES / "fever-pred.jsonl").read_text().splitlines(True)[:2]))
    with pytest.raises(LedgerError, match="2 prediction line.*3 gold line.*must align"):
        import_files(
            "fever",
            [FIXTURES / "fever-gold.jsonl"],
            output=tmp_path / "out.jsonl",
            predictions=short,
        )


def test_hotpotqa_fixture_anchors_supporting_facts(tmp_path: Path) -> None:
    ledger = tmp_path / "h.jsonl"
    result = import_files(
        "hotpotqa",
        [FIXTURES / "hotpotqa.json"],
        output=ledger,
        predictions=FIXTURES / "hotpotqa-pred.json",
    )
    # Shared paragraphs are one version; the blank third sentence has no span.
    assert result.records["version"] == 3
    assert result.records["span"] == 5
    records = {(r.kind, r.id): r.data for r in read_records(ledger)}
    assert records[("evidence_set", "h1")]["members"] == ["Entity R#1", "Project Cedar#0"]
    assert records[("span", "Entity R#1")]["quote"] == " It owns Project Cedar."
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    rows = {row.question: row for row in verdicts(store, run="hotpotqa-run")}
    assert rows["h1"].verdict == "accept"  # "zurich" normalises to the gold answer
    assert rows["h2"].verdict == "reject"
    peers = _peers(store, "hotpotqa-run")
    # h1: 2 of 3 cited facts are gold, both gold found (F1 0.8, EM 0); h2: exact (F1 1, EM 1).
    assert peers["supporting-fact em"] == (1, 2)
    assert peers["supporting-fact f1"][0] == pytest.approx(0.8 + 1.0)


def test_hotpotqa_unanchored_fact_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(LedgerError) as caught:
        import_files("hotpotqa", [FIXTURES / "hotpotqa-bad.json"], output=tmp_path / "o.jsonl")
    assert (caught.value.record, caught.value.field) == ("[0]", "supporting_facts[0]")


def _hotpot_item(
    qid: object, paragraphs: list[list[object]], fact: list[object]
) -> dict[str, object]:
    return {"_id": qid, "question": "Who?", "answer": "R", "context": paragraphs,
            "supporting_facts": [fact]}  # fmt: skip


def test_hotpotqa_ids_equal_as_text_are_refused_naming_the_input(tmp_path: Path) -> None:
    """1 and "1" are one question id in a ledger: refused by the import (naming the
    input's record and field), not by the load of the ledger it wrote."""
    paragraph = ["A", ["Sentence one.", " Sentence two."]]
    items = [_hotpot_item(1, [paragraph], ["A", 0]), _hotpot_item("1", [paragraph], ["A", 1])]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(LedgerError) as caught:
        import_files("hotpotqa", [path], output=tmp_path / "o.jsonl")
    assert (caught.value.file, caught.value.record, caught.value.field) == (str(path), "[1]", "_id")
    assert not (tmp_path / "o.jsonl").exists()


def test_hotpotqa_titles_told_apart_only_by_a_control_character_are_refused(
    tmp_path: Path,
) -> None:
    """Refused characters of a benchmark file become U+FFFD: "A\x01" and "A\x02" would
    be one source, their supporting facts indistinct. The import names the title."""
    items = [
        _hotpot_item("q1", [["A\x01", ["First text."]]], ["A\x01", 0]),
        _hotpot_item("q2", [["A\x02", ["Second text."]]], ["A\x02", 0]),
    ]
    path = tmp_path / "titles.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(LedgerError, match="could not be told apart") as caught:
        import_files("hotpotqa", [path], output=tmp_path / "o.jsonl")
    assert (caught.value.record, caught.value.field) == ("[0]", "context[0][0]")


def test_hotpotqa_a_title_spelled_like_a_generated_version_id_is_its_own_version(
    tmp_path: Path,
) -> None:
    """Title "A" with two texts gets versions A and A@2; a real title "A@2" must not share
    that id (the ledger would hold two versions of one id and not load)."""
    items = [
        _hotpot_item("q1", [["A", ["First text."]]], ["A", 0]),
        _hotpot_item("q2", [["A", ["Second text."]]], ["A", 0]),
        _hotpot_item("q3", [["A@2", ["Third text."]]], ["A@2", 0]),
    ]
    path = tmp_path / "titles.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    ledger = tmp_path / "o.jsonl"
    import_files("hotpotqa", [path], output=ledger)
    versions = {r.id: r.data["source"] for r in read_records(ledger) if r.kind == "version"}
    assert len(versions) == 3 and sorted(versions.values()) == ["A", "A", "A@2"]
    with hopgate.open_store(None) as store:
        hopgate.load(store, ledger)


def test_multihop_rag_urls_told_apart_only_by_a_control_character_are_refused(
    tmp_path: Path,
) -> None:
    """The url is the source's, version's and spans' id: "a\x01" and "a\x02" would be
    one article (holding both facts, one title lost)."""
    items = [
        {"id": f"q{n}", "query": "Q?", "answer": "A",
         "evidence_list": [{"url": f"https://ex.org/a{chr(n)}", "fact": "A fact.", "title": "T"}]}
        for n in (1, 2)
    ]  # fmt: skip
    path = tmp_path / "m.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(LedgerError, match="could not be told apart") as caught:
        import_files("multihop-rag", [path], output=tmp_path / "o.jsonl")
    assert (caught.value.record, caught.value.field) == ("[0]", "evidence_list[0].url")


def test_multihop_rag_fixture(tmp_path: Path) -> None:
    ledger = tmp_path / "m.jsonl"
    import_files("multihop-rag", [FIXTURES / "multihop-rag.json"], output=ledger)
    records = {(r.kind, r.id): r.data for r in read_records(ledger)}
    version = records[("version", "https://example.org/a@facts")]
    # Only the quoted facts are retained, and the version says so.
    assert version["text"] == "Cedar launched on Monday.\nIts servers are in Zurich."
    assert version["x-retained"].startswith("quoted facts only")
    # The fact shared by two queries is one span.
    assert (
        records[("evidence_set", "0")]["members"][0] == records[("evidence_set", "1")]["members"][0]
    )
    assert ("evidence_set", "2") not in records  # the null query has no set
    store = hopgate.open_store(None)
    hopgate.load(store, ledger)
    from hopgate.ingest.baseline import baseline

    run = baseline(store, k=2, citer="topk").run
    m = metrics(store)[run]
    assert m.counts["not_found"] == 1
    assert m.complete_set_recall.denominator == 2


def test_wice_empty_set_stops_the_import(tmp_path: Path) -> None:
    with pytest.raises(LedgerError) as caught:
        import_files("wice", [FIXTURES / "wice.jsonl"], output=tmp_path / "w.jsonl")
    assert (caught.value.record, caught.value.field) == ("line 2", "supporting_sentences[0]")


def test_wice_drop_empty_counts_what_it_drops(tmp_path: Path) -> None:
    result = import_files(
        "wice", [FIXTURES / "wice.jsonl"], output=tmp_path / "w.jsonl", drop_empty=True
    )
    assert result.dropped["empty supporting set"] == 1
    assert result.records["evidence_set"] == 5  # duplicates and supersets are kept as listed
    store = hopgate.open_store(None)
    hopgate.load(store, tmp_path / "w.jsonl")


def test_ragas_fixture_context_recall(tmp_path: Path) -> None:
    store = _load(tmp_path, "ragas", ["ragas.jsonl"])
    peers = _peers(store, "ragas-run")
    # 1/2 + 1/1 + 0/1 reference contexts retrieved.
    assert peers["id-based context recall"] == (1.5, 3)
    assert peers["hits@4"] == (2, 3)
    records = list(read_records(tmp_path / "ragas.jsonl"))
    withheld = [r for r in records if r.kind == "span" and "locator" in r.data]
    assert [r.id for r in withheld] == ["context:doc-2#all", "context:doc-4#all"]


def test_import_cli_writes_loads_and_reports(tmp_path: Path) -> None:
    runner = CliRunner()
    store = tmp_path / "store"
    ledger = tmp_path / "w.jsonl"
    args = ["--store", str(store), "import", "wice", str(FIXTURES / "wice.jsonl")]
    failed = runner.invoke(cli, [*args, "-o", str(ledger)])
    assert failed.exit_code == 2
    assert "line 2: field 'supporting_sentences[0]'" in failed.output
    assert not ledger.exists()
    done = runner.invoke(cli, [*args, "-o", str(ledger), "--drop-empty", "--load"])
    assert done.exit_code == 0, done.output
    assert "dropped 1 empty supporting set(s)" in done.output
    assert "triples in" in done.output
    wrong = runner.invoke(cli, [*args, "--predictions", str(FIXTURES / "wice.jsonl")])
    assert wrong.exit_code == 2


def test_baseline_and_peers_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    imported = runner.invoke(
        cli,
        [*store, "import", "hotpotqa", str(FIXTURES / "hotpotqa.json"), "--load"]
        + ["-o", str(tmp_path / "h.jsonl")],
    )
    assert imported.exit_code == 0, imported.output
    made = runner.invoke(cli, [*store, "baseline", "--k", "2", "--citer", "topk"])
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    assert made.exit_code == 0, made.output
    assert "BASELINE run baseline-bm25-k2-topk" in made.output
    # Reads never evaluate (docs/spec/records.md): evaluate first, as a user does.
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    shown = runner.invoke(cli, [*store, "metrics", "--peers"])
    assert shown.exit_code == 0, shown.output
    assert "BASELINE (bm25 k=2 citer=topk" in shown.output
    assert "complete set recall" in shown.output and "hits@4" in shown.output
    payload = json.loads(
        runner.invoke(cli, [*store, "metrics", "--peers", "--format", "json"]).output
    )
    entry = payload["baseline-bm25-k2-topk"]
    assert entry["baseline"]["k"] == 2
    assert {p["name"] for p in entry["peers"]} >= {"hits@10", "map@10", "strict score"}
    rows = runner.invoke(cli, [*store, "verdicts", "--format", "json"]).output
    assert all(row["run"].startswith("baseline-") for row in json.loads(rows))


def test_wice_fixture_family_checks_through_validate(tmp_path: Path) -> None:
    """The shapes flag the superset and the repeated set of the hand-written claim."""
    from hopgate.shacl.validation import validate

    store = _load(tmp_path, "wice", ["wice.jsonl"], drop_empty=True)
    result = validate(store)
    flagged = {(r.shape, r.focus_id) for r in result.results if r.shape.startswith("claim family")}
    assert flagged == {
        ("claim family inclusion-minimal", "wice-w1"),
        ("claim family distinct sets", "wice-w1"),
    }


# ---- inputs a reviewer showed accepted wrongly (each test fails before its fix) ----------


def _jsonl(path: Path, items: list[object]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def test_fever_predicted_labels_compare_as_the_scorer_does_upper_cased(tmp_path: Path) -> None:
    """The FEVER scorer upper-cases both labels: "supports" is SUPPORTS, and a predicted
    "not enough info" is an abstention, not an asserted wrong answer."""
    lines = (FIXTURES / "fever-pred.jsonl").read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines]
    for item in items:
        item["predicted_label"] = item["predicted_label"].lower()
    predictions = _jsonl(tmp_path / "pred.jsonl", items)
    store = _load(tmp_path, "fever", ["fever-gold.jsonl"], predictions=predictions)
    peers = _peers(store, "fever-run")
    assert (peers["strict score"], peers["label accuracy"]) == ((2, 3), (3, 3))
    assert metrics(store)["fever-run"].counts["appropriate_abstentions"] == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda item: item["predicted_evidence"].__setitem__(0, ["Cedar", True]), "predicted_evidence[0]"),
        (lambda item: item["predicted_evidence"].__setitem__(0, ["", 0]), "predicted_evidence[0]"),
        # A control character becomes U+FFFD, which would make "Cedar\x01" and
        # "Cedar\x02" one page: refused, not merged.
        (lambda item: item["predicted_evidence"].__setitem__(0, ["Cedar\x01", 0]), "predicted_evidence[0][0]"),
    ],
)  # fmt: skip
def test_fever_a_line_true_or_an_empty_page_is_refused_by_the_import(
    tmp_path: Path, change: Any, field: str
) -> None:
    items = [json.loads(line) for line in (FIXTURES / "fever-pred.jsonl").read_text().splitlines()]
    change(items[0])
    output = tmp_path / "out.jsonl"
    with pytest.raises(LedgerError) as caught:
        import_files(
            "fever", [FIXTURES / "fever-gold.jsonl"], output=output,
            predictions=_jsonl(tmp_path / "pred.jsonl", items),
        )  # fmt: skip
    assert (caught.value.record, caught.value.field) == ("line 1", field)
    assert not output.exists()


def test_wice_sets_of_a_claim_not_wholly_supported_are_rejected_not_adjudicated(
    tmp_path: Path,
) -> None:
    """WiCE's partially_supported and not_supported claims list sets that support only
    part of the claim (dev02692's [20] says nothing of the beach): no complete set, so a
    system citing one is not accepted."""
    ledger = tmp_path / "w.jsonl"
    import_files("wice", [FIXTURES / "wice.jsonl"], output=ledger, drop_empty=True)
    status = {r.id: r.data["status"] for r in read_records(ledger) if r.kind == "evidence_set"}
    assert status["wice-w2/s1"] == "rejected"  # not_supported
    assert {status[f"wice-w1/s{k}"] for k in range(4)} == {"adjudicated"}  # supported


@pytest.mark.parametrize(
    ("second", "field", "phrase"),
    [
        ({"meta": {"id": 7}}, "meta.id", "duplicate claim id 'wice-7'"),
        ({"meta": {"id": "8"}, "supporting_sentences": [[True]]}, "supporting_sentences[0]", "sentence index True"),
        ({"meta": {"id": "8"}, "evidence": ["One.", None]}, "evidence[1]", "expected a sentence"),
        ({"meta": {"id": ""}}, "meta.id", "not empty"),
        ({"meta": {"id": "8\x01"}}, "meta.id", "could not be told apart"),
    ],
)  # fmt: skip
def test_wice_inputs_that_would_write_an_unloadable_ledger_are_refused(
    tmp_path: Path, second: dict[str, Any], field: str, phrase: str
) -> None:
    base = {"label": "supported", "supporting_sentences": [[0]], "claim": "C.",
            "evidence": ["One.", "Two."], "meta": {"id": "7"}}  # fmt: skip
    path = _jsonl(tmp_path / "in.jsonl", [base, {**base, **second}])
    with pytest.raises(LedgerError) as caught:
        import_files("wice", [path], output=tmp_path / "o.jsonl")
    assert (caught.value.record, caught.value.field) == ("line 2", field)
    assert phrase in str(caught.value)


def test_multihop_rag_ids_are_text_once_each_and_two_files_do_not_share_defaults(
    tmp_path: Path,
) -> None:
    queries = json.loads((FIXTURES / "multihop-rag.json").read_text(encoding="utf-8"))
    bare = [{k: v for k, v in q.items() if k != "id"} for q in queries]
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(bare), encoding="utf-8")
    second.write_text(json.dumps(bare), encoding="utf-8")
    ledger = tmp_path / "two.jsonl"
    import_files("multihop-rag", [first, second], output=ledger)
    with hopgate.open_store(None) as store:
        hopgate.load(store, ledger)  # two files without ids: distinct default ids
    for ids, phrase in (([1, "1"], "duplicate query id '1'"), ([None, 2], "expected an id")):
        items = [dict(q, id=i) for q, i in zip(queries[:2], ids, strict=True)]
        first.write_text(json.dumps(items), encoding="utf-8")
        with pytest.raises(LedgerError, match=phrase) as caught:
            import_files("multihop-rag", [first], output=tmp_path / "o.jsonl")
        assert caught.value.field == "id"


@pytest.mark.parametrize(
    ("predictions", "record", "field"),
    [
        ({"answer": "Zurich", "sp": {}}, "top level", "answer"),
        ({"answer": {"h1": "Zurich"}, "sp": {"h1": 7}}, "sp", "h1"),
        ({"answer": {}, "sp": {"h1": [[["Entity R"], 1]]}}, "sp", "h1[0]"),
        ({"answer": {}, "sp": {"h1": [[{"t": 1}, 1]]}}, "sp", "h1[0]"),
    ],
    ids=["answer-text", "sp-number", "sp-title-list", "sp-title-object"],
)
def test_hotpotqa_predictions_of_another_shape_are_refused_naming_the_field(
    tmp_path: Path, predictions: dict[str, Any], record: str, field: str
) -> None:
    """They ended in a traceback (AttributeError, TypeError; security review)."""
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions), encoding="utf-8")
    with pytest.raises(LedgerError) as caught:
        import_files(
            "hotpotqa", [FIXTURES / "hotpotqa.json"], output=tmp_path / "o.jsonl", predictions=path
        )
    assert (caught.value.file, caught.value.record, caught.value.field) == (
        str(path),
        record,
        field,
    )


@pytest.mark.parametrize("label", [["supported"], {"a": 1}, 3])
def test_wice_a_label_not_text_is_refused_naming_the_field(tmp_path: Path, label: Any) -> None:
    item = {"label": label, "supporting_sentences": [[0]], "claim": "C.",
            "evidence": ["One."], "meta": {"id": "w1"}}  # fmt: skip
    path = _jsonl(tmp_path / "in.jsonl", [item])
    with pytest.raises(LedgerError) as caught:
        import_files("wice", [path], output=tmp_path / "o.jsonl")
    assert (caught.value.record, caught.value.field) == ("line 1", "label")


def test_ragas_a_csv_cell_longer_than_the_csv_modules_default_limit_is_read(
    tmp_path: Path,
) -> None:
    """A retrieved context of 140k characters ended the import in a traceback (the csv
    module's 131,072-character field limit), well under the 1 GiB input bound."""
    context = "Project Cedar runs in a Zurich data centre. " * 3200
    path = tmp_path / "long.csv"
    path.write_text(
        "user_input,response,reference,retrieved_contexts\n"
        f'Where?,In Zurich.,Project Cedar is hosted in Zurich.,"[""{context}""]"\n',
        encoding="utf-8",
    )
    result = import_files("ragas", [path], output=tmp_path / "o.jsonl")
    assert result.records["case"] == 1
    spans = [r for r in read_records(tmp_path / "o.jsonl") if r.kind == "version"]
    assert len(spans[0].data["text"]) == len(context)
