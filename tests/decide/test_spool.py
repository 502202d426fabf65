"""The spool (hopgate.decide.spool): an evaluation's answers kept on disk, read a card at a time.

The evaluation writes each result query's rows as the store answers them and reads
back one card (an output claim's verdict row with its links and route candidates)
at a time; what it writes into the bundle is tested through the evaluation
(tests/decide/test_evaluation.py, tests/audit/test_verdicts.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from hopgate.decide.spool import LINKS, Card, Spool

O1, O2, O3 = (f"https://w3id.org/hopgate/id/output/o{n}" for n in (1, 2, 3))


@pytest.fixture
def spool(tmp_path: Path) -> Iterator[Spool]:
    opened = Spool(tmp_path)
    yield opened
    opened.close()


def test_cards_come_in_output_order_with_their_links_and_candidates(spool: Spool) -> None:
    # Written in another order than read, as the store answers each query.
    spool.verdicts([{"output": O2, "verdict": "accept"}, {"output": O1, "verdict": "reject"}])
    spool.relations(
        [
            {"output": O2, "relation": "cites", "target": "a2"},
            {"output": O1, "relation": "route", "target": "g1"},
        ]
    )
    spool.links("missing", [{"output": O1, "target": "a1"}, {"output": O1, "target": "a3"}])
    spool.candidates([{"output": O1, "set": "g1", "uncited": 1, "unretrieved": None}])
    cards = list(spool.cards())
    assert [card.row["output"] for card in cards] == [O1, O2]
    first, second = cards
    assert first.links["missing"] == ["a1", "a3"] and first.links["route"] == ["g1"]
    assert first.candidates == [("g1", 1, 0)]  # an unbound count is none
    assert second.links == {**{relation: [] for relation in LINKS}, "cites": ["a2"]}
    assert second.candidates == []
    assert spool.count("verdicts") == 2


def test_links_of_an_output_without_a_verdict_row_are_skipped(spool: Spool) -> None:
    spool.verdicts([{"output": O1}, {"output": O3}])
    spool.links("cites", [{"output": O2, "target": "x"}, {"output": O3, "target": "y"}])
    assert [card.links["cites"] for card in spool.cards()] == [[], ["y"]]


def test_a_repeated_row_is_kept_once_and_values_keep_their_type(spool: Spool) -> None:
    spool.verdicts(
        [
            {"output": O1, "verdict": "reject"},
            {"output": O1, "verdict": "accept", "n": 3, "x": Decimal("0.5"), "ok": True},
        ]
    )
    [card] = spool.cards()
    assert card == Card({"output": O1, "verdict": "accept", "n": 3, "x": "0.5", "ok": True})


def test_claim_cases_flags_and_coverage_read_back(spool: Spool) -> None:
    spool.claim_cases([{"case": "k2", "claim": "c1", "n": 1}, {"case": "k1", "claim": "c9"}])
    assert [row["case"] for row in spool.claim_case_rows()] == ["k1", "k2"]
    assert spool.has_claim_case("k2", "c1") and not spool.has_claim_case("k2", "c9")
    assert spool.count("cases") == 2
    spool.flags([{"node": "v1", "rule": "1", "about": "e1"}])
    assert list(spool.flag_rows()) == [("v1", "1", "e1")]
    spool.coverage([{"span": "s", "member": "m", "contains": 1}])
    assert list(spool.coverage_rows()) == [("s", "m", True)]


def test_a_failed_write_leaves_nothing_of_it(spool: Spool) -> None:
    def rows() -> Iterator[dict[str, object]]:
        yield {"output": O1, "verdict": "accept"}
        raise RuntimeError("the store stopped answering")

    with pytest.raises(RuntimeError, match="stopped answering"):
        spool.verdicts(rows())
    assert spool.count("verdicts") == 0
