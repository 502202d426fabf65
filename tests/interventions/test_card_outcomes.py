"""queries/interventions.rq: a card lists the outcomes it links, and no other."""

from __future__ import annotations

from pathlib import Path

from hopgate import ids
from hopgate import ntriples as nt
from hopgate.decide.outcomes import read_bundle
from hopgate.library.artefacts import library_query
from hopgate.store.base import IRI
from hopgate.store.oxigraph import OxigraphStore
from hopgate.vocab import HG, RDF_TYPE

BUNDLE = "https://example.org/bundle"


def _quad(s: str, p: str, o: str) -> str:
    return f"<https://example.org/{s}> <{p}> {o} <{BUNDLE}> .\n"


def _outcome(name: str) -> str:
    details = {
        "outcomeOf": f"<{ids.mint_case('run0', 'q-' + name)}>",
        "interventionQuestion": f"<{ids.mint('question', 'q1')}>",
        "selectedSet": f"<{ids.mint('set', 's1')}>",
        "variant": f"<{HG}RemoveMember>",
        "expectedOutcome": f"<{HG}ShouldLoseSupport>",
        "observedClass": f"<{HG}LostSupport>",
        "citedOutsideContext": nt.boolean(False),
    }
    text = _quad(name, RDF_TYPE, f"<{HG}InterventionOutcome>")
    return text + "".join(_quad(name, f"{HG}{p}", o) for p, o in details.items())


def test_a_card_without_an_outcome_lists_none_of_the_bundle_s(tmp_path: Path) -> None:
    # Before: the card without an outcome was joined to the outcomes' details with
    # ?outcome unbound and took both outcomes as its own.
    text = _quad("answered", RDF_TYPE, f"<{HG}AcceptanceCard>")
    text += _quad("answered", f"{HG}interventionsItem", '"answered"')
    text += _quad("answered", f"{HG}interventionOutcome", "<https://example.org/o1>")
    text += _quad("plain", RDF_TYPE, f"<{HG}AcceptanceCard>")
    text += _quad("plain", f"{HG}interventionsItem", '"none"')
    text += _outcome("o1") + _outcome("o2")
    file = tmp_path / "bundle.nq"
    file.write_text(text, encoding="utf-8")
    store = OxigraphStore()
    store.add_graph(file, BUNDLE)

    rows = store.select(library_query("interventions").text, params={"bundle": IRI(BUNDLE)})
    cards, outcomes = read_bundle(rows)

    assert cards["https://example.org/plain"] == {"item": "none", "variants": []}
    assert len(cards["https://example.org/answered"]["variants"]) == 1
    assert len(outcomes) == 2
    assert len(rows) == 4  # a row per card and outcome link, one per outcome
