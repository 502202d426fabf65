"""Rendering a report with Jinja2: one HTML page (everything inline) or Markdown.

Every value a template prints passes through the output's escaping function
(:mod:`hopgate.escaping`, Jinja2's ``finalize``, which it applies to every
``{{ }}``) exactly once. Jinja2's autoescape is off: it would escape each
value a second time, a no-op on the ``Markup`` that ``escaping.html``
returns, but a call and a new ``Markup`` for each of the 600k values of a
10k-claim report (its page rendered in 3.5 s with it, 1.3 s without, the
same bytes). The page's one script and one style sheet run only because
the page's Content-Security-Policy names their sha256 digests, computed here
from the exact text the page carries; no inline script or style from data can.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from hopgate import escaping
from hopgate.errors import ReportError
from hopgate.memory import paused_gc
from hopgate.report import charts
from hopgate.report.build import COUNT_LABELS, COUNTS, DEFINITIONS, FORMATS, METRIC_LABELS, Report
from hopgate.report.sentences import ADMISSIBILITY, interval_text

#: Cards shown per page of the HTML report; later pages are collapsed sections.
PAGE_SIZE = 100
#: The order of the strata dimensions and their strata in charts.
DIMENSIONS = ("hops", "alternatives", "contradiction", "source age", "route authority")
_AGE = ["under 30 days", "30-364 days", "365 days or more", "no eligible set", "no claim-case"]
#: Strongest first (docs/spec/acceptance.md "Source truth").
_AUTHORITY = ["primary", "secondary", "tertiary", "unstated"]


@functools.cache
def _environment(markdown: bool) -> Environment:
    """The Markdown environment, or the HTML one: every value either prints passes through
    its escaping function once (``finalize``)."""
    env = Environment(
        loader=PackageLoader("hopgate.report", "templates"),
        autoescape=False,
        finalize=_markdown_value if markdown else escaping.html,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["pct"] = _pct
    env.filters["interval"] = _interval
    env.filters["show"] = _show
    env.filters["picture"] = _picture
    return env


def _markdown_value(value: Any) -> str:
    """Every value the Markdown template prints: numbers as they are, text escaped."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return escaping.markdown(value)


def _picture(svg: str | None) -> Markup:
    """A card's picture, inline when it is a plain drawing, else a note saying it is not shown."""
    picture = escaping.html_picture(svg) if svg else None
    if picture is None:
        return Markup('<p class="muted">(picture not shown: not a plain drawing)</p>')
    return picture


def _digest(text: str) -> str:
    """The CSP source naming ``text`` by its sha256 digest."""
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


def page_assets(env: Environment) -> dict[str, Any]:
    """The page's style sheet and script (each the exact text the page carries) and the
    Content-Security-Policy allowing those two and nothing else: no request, no other
    script or style, no form, no base URL."""
    style = env.get_template("report.css.j2").render(verdict_colours=charts.VERDICT_COLOURS)
    loader = env.loader
    assert loader is not None
    script = loader.get_source(env, "report.js")[0]
    policy = "; ".join(
        (
            "default-src 'none'",
            f"style-src {_digest(style)}",
            f"script-src {_digest(script)}",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )
    # Every part of the policy is hopgate's own text: no data.
    return {"style": Markup(style), "script": Markup(script), "csp": Markup(policy)}


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


def _stratum_key(dimension: str, stratum: str) -> tuple[int, float, str]:
    if dimension == "source age" and stratum in _AGE:
        return (0, _AGE.index(stratum), stratum)
    if dimension == "route authority" and stratum in _AUTHORITY:
        return (0, _AUTHORITY.index(stratum), stratum)
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
        "interval": interval_text,
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
        env = _environment(False)
        return env.get_template("report.html.j2").render(**context, **page_assets(env))
    return _environment(True).get_template("report.md.j2").render(**context)


def render(report: Report, fmt: str) -> str:
    """The report as ``html``, ``md`` or ``json`` text.

    Raises:
        ReportError: an unknown format.
    """
    if fmt not in FORMATS:
        raise ReportError(f"unknown report format {fmt!r} (one of {', '.join(FORMATS)})")
    # The collector is paused as the report was built (hopgate.report.build).
    with paused_gc():
        if fmt == "json":
            # Written at once: the cards' rows are not copied first (the same text).
            return escaping.json_text(report.as_dict(copies=False)) + "\n"
        return render_page(report, fmt)
