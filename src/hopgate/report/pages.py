"""Rendering a report with Jinja2: one HTML page (everything inline) or Markdown."""

from __future__ import annotations

import functools
import json
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from hopgate.errors import ReportError
from hopgate.report import charts
from hopgate.report.build import COUNT_LABELS, COUNTS, DEFINITIONS, FORMATS, METRIC_LABELS, Report
from hopgate.report.sentences import ADMISSIBILITY

#: Cards shown per page of the HTML report; later pages are collapsed sections.
PAGE_SIZE = 100
#: The order of the strata dimensions and their strata in charts.
DIMENSIONS = ("hops", "alternatives", "contradiction", "source age")
_AGE = ["under 30 days", "30-364 days", "365 days or more", "no eligible set", "no claim-case"]


@functools.cache
def _environment(markdown: bool) -> Environment:
    env = Environment(
        loader=PackageLoader("hopgate.report", "templates"),
        autoescape=select_autoescape(["html"]) if not markdown else False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["pct"] = _pct
    env.filters["interval"] = _interval
    env.filters["md"] = _md_cell
    env.filters["show"] = _show
    return env


def _pct(value: float | None) -> str:
    return "undefined" if value is None else f"{100 * value:.1f}%"


def _interval(p: Any) -> str:
    if p.ci_low is None:
        return "-"
    return f"{100 * p.ci_low:.1f}-{100 * p.ci_high:.1f}% ({p.interval})"


def _show(value: Any) -> str:
    """A compared card field: a list joined, nothing as a dash."""
    if value is None or value == []:
        return "-"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _md_cell(value: Any) -> str:
    """A value safe inside a Markdown table cell."""
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _stratum_key(dimension: str, stratum: str) -> tuple[int, float, str]:
    if dimension == "source age" and stratum in _AGE:
        return (0, _AGE.index(stratum), stratum)
    if stratum.isdigit():
        return (0, int(stratum), stratum)
    return (1, 0, stratum)


def strata_rows(report: Report) -> list[tuple[str, list[tuple[str, dict[str, int]]]]]:
    """The verdict strata as (dimension, [(stratum, verdict counts)]) in reading order."""
    found = []
    for dimension in DIMENSIONS:
        strata = report.verdict_strata.get(dimension, {})
        ordered = sorted(strata, key=lambda s: _stratum_key(dimension, s))
        found.append((dimension, [(s, strata[s]) for s in ordered]))
    return found


def metric_rows(report: Report) -> list[tuple[str, str, Any]]:
    """(name, label, Proportion) of the four figures, in the report's order."""

    return [(name, label, getattr(report.metrics, name)) for name, label in METRIC_LABELS.items()]


def render_page(report: Report, fmt: str) -> str:
    """``report`` as ``html`` or ``md`` text."""

    strata = strata_rows(report)
    figures = [
        (label, p.value, p.ci_low, p.ci_high, "hopgate") for _, label, p in metric_rows(report)
    ]
    figures += [
        (f"{peer['name']} ({peer['source']})", peer["value"], None, None, "peer")
        for peer in report.peers
    ]
    context = {
        "r": report,
        "h": report.header,
        "definitions": DEFINITIONS,
        "counts": COUNTS,
        "count_labels": COUNT_LABELS,
        "metric_labels": METRIC_LABELS,
        "metric_rows": metric_rows(report),
        "strata": strata,
        "page_size": PAGE_SIZE,
        "pages": [
            report.cards[start : start + PAGE_SIZE]
            for start in range(0, len(report.cards), PAGE_SIZE)
        ],
        "verdict_colours": charts.VERDICT_COLOURS,
        "admissibility": ADMISSIBILITY,
    }
    if fmt == "html":
        context["strata_charts"] = [
            charts.stacked_bars(f"Verdicts by {dimension}", rows)
            for dimension, rows in strata
            if rows
        ]
        context["metrics_chart"] = charts.proportion_bars(
            "Figures of this run (peer figures in grey) with 95% intervals", figures
        )
        return _environment(False).get_template("report.html.j2").render(**context)
    return _environment(True).get_template("report.md.j2").render(**context)


def render(report: Report, fmt: str) -> str:
    """The report as ``html``, ``md`` or ``json`` text.

    Raises:
        ReportError: an unknown format.
    """
    if fmt == "json":
        return json.dumps(report.as_dict(), indent=2, ensure_ascii=False, default=str) + "\n"
    if fmt not in FORMATS:
        raise ReportError(f"unknown report format {fmt!r} (one of {', '.join(FORMATS)})")
    return render_page(report, fmt)
