"""``hopgate demo``: the worked example end to end, on a fresh embedded store.

A printed walk through :mod:`hopgate.api`: ``load``, ``stats``, ``evaluate``,
``verdicts``, ``metrics`` and ``export``, each called as its command calls it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from hopgate import api
from hopgate.cli.formatting import render

#: The verdict columns less the run (the demo has one run), and the card's source
#: truth: the weakest authority of the route it weighs (docs/spec/acceptance.md "Source truth").
_CARD_COLUMNS = [*api.VERDICT_COLUMNS[1:], "route_authority"]


def run_demo(directory: Path, *, echo: Callable[[str], object] = print) -> None:
    """Copy the bundled examples into ``directory``, load the Cedar ledger, print a summary."""
    directory.mkdir(parents=True, exist_ok=True)
    ledger = directory / "cedar.yaml"
    with api.example("cedar.yaml").open("rb") as source, ledger.open("wb") as out:
        shutil.copyfileobj(source, out)
    echo(f"hopgate demo: the worked example of the evidence-set report in {directory}")
    with api.open_store(directory / "store") as store:
        result = api.load(store, ledger)
        echo(f"Loaded {ledger.name}: {result.triples} triples into {result.graph}")
        summary = api.stats(store)
        echo(
            render(
                [{"kind": k, "records": n} for k, n in summary.records.items() if n],
                columns=["kind", "records"],
                format="table",
            )
        )
        echo(f"Store: {directory / 'store'} ({summary.quads} quads)")
        echo("")
        for record in api.evaluate(store):
            echo(f"Evaluated run {record.run}: {record.cards} acceptance cards")
        echo("Acceptance cards (one per output claim):")
        rows = [row.as_dict() for row in api.verdicts(store)]
        echo(render(rows, columns=_CARD_COLUMNS, format="table"))
        for run_id, figures in api.metrics(store).items():
            echo(f"Metrics of run {run_id}:")
            for name in ("complete_set_recall", "citation_set_completeness", "answer_correctness"):
                p = getattr(figures, name)
                value = "undefined" if p.value is None else f"{100 * p.value:.1f}%"
                echo(f"  {name.replace('_', ' ')}: {p.numerator}/{p.denominator} = {value}")
        _export(store, directory / "export", echo)


def _export(store: api.Store, folder: Path, echo: Callable[[str], object]) -> None:
    """Export each run as PROV-N and TriG, texts included (pure Python: no graphviz needed)."""

    echo("")
    for run_id in api.runs(store):
        for fmt in ("provn", "trig"):
            written = api.export(store, format=fmt, run=run_id, with_text=True, output=folder)
            echo(f"Exported run {run_id} as {fmt}: {written.path}")
    echo(f"Manifest: {folder / 'manifest.json'} (check it with: hopgate verify {folder})")
