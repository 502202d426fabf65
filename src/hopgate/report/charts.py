"""Charts as inline SVG: no script, no request, printable.

Each function returns one ``<svg>`` element as text (labels escaped by
:func:`hopgate.escaping.html`), so a report page can carry it inline and a
PDF print keeps it sharp.
"""

from __future__ import annotations

from hopgate.escaping import html as escape

#: Verdict colours (colour-blind safe, Okabe-Ito), in the order the semantics decides.
VERDICT_COLOURS = {
    "escalate": "#E69F00",
    "abstain": "#56B4E9",
    "reject": "#D55E00",
    "accept": "#009E73",
    "revise-citations": "#CC79A7",
}


def stacked_bars(title: str, rows: list[tuple[str, dict[str, int]]], *, width: int = 640) -> str:
    """Horizontal bars, one per stratum, split by verdict; counts written on the bars."""
    label_w, bar_h, gap, top = 150, 18, 6, 40
    plot_w = width - label_w - 60
    height = top + len(rows) * (bar_h + gap) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" class="chart"><title>{escape(title)}</title>',
        f'<text x="0" y="14" class="chart-title">{escape(title)}</text>',
    ]
    x = label_w
    for verdict, colour in VERDICT_COLOURS.items():
        parts.append(f'<rect x="{x}" y="22" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{x + 14}" y="31" class="chart-small">{escape(verdict)}</text>')
        x += 14 + 7 * len(verdict) + 12
    for number, (stratum, counts) in enumerate(rows):
        y = top + number * (bar_h + gap)
        total = sum(counts.values())
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end" class="chart-label">'
            f"{escape(stratum)}</text>"
        )
        offset = 0.0
        for verdict, colour in VERDICT_COLOURS.items():
            count = counts.get(verdict, 0)
            if not count or not total:
                continue
            w = plot_w * count / total
            parts.append(
                f'<rect x="{label_w + offset:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                f'fill="{colour}"><title>{escape(stratum)}: {count} {escape(verdict)}</title></rect>'
            )
            if w > 18:
                parts.append(
                    f'<text x="{label_w + offset + w / 2:.1f}" y="{y + 13}" text-anchor="middle" '
                    f'class="chart-on-bar">{count}</text>'
                )
            offset += w
        parts.append(
            f'<text x="{label_w + plot_w + 6}" y="{y + 13}" class="chart-small">n={total}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def proportion_bars(
    title: str,
    rows: list[tuple[str, float | None, float | None, float | None, str]],
    *,
    width: int = 640,
) -> str:
    """One bar per figure (value 0-100%), a whisker for its interval, and its fraction.

    ``rows`` are (name, value, low, high, group) with values in [0, 1] or None
    (undefined: an empty denominator, drawn as a note, never as a bar).
    """
    label_w, bar_h, gap, top = 210, 16, 6, 26
    plot_w = width - label_w - 70
    height = top + len(rows) * (bar_h + gap) + 24
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" class="chart"><title>{escape(title)}</title>',
        f'<text x="0" y="14" class="chart-title">{escape(title)}</text>',
    ]
    colours = {"hopgate": "#0072B2", "peer": "#999999"}
    for number, (name, value, low, high, group) in enumerate(rows):
        y = top + number * (bar_h + gap)
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end" class="chart-label">'
            f"{escape(name)}</text>"
        )
        if value is None:
            parts.append(
                f'<text x="{label_w}" y="{y + 12}" class="chart-small">undefined '
                "(empty denominator)</text>"
            )
            continue
        w = plot_w * max(0.0, min(1.0, value))
        parts.append(
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" '
            f'fill="{colours.get(group, "#0072B2")}"><title>{escape(name)}: '
            f"{100 * value:.1f}%</title></rect>"
        )
        if low is not None and high is not None:
            x1, x2 = label_w + plot_w * low, label_w + plot_w * high
            mid = y + bar_h / 2
            parts.append(
                f'<path d="M{x1:.1f} {mid}H{x2:.1f}M{x1:.1f} {y + 3}V{y + bar_h - 3}'
                f'M{x2:.1f} {y + 3}V{y + bar_h - 3}" stroke="#000" fill="none"/>'
            )
        parts.append(
            f'<text x="{label_w + plot_w + 6}" y="{y + 12}" class="chart-small">'
            f"{100 * value:.1f}%</text>"
        )
    axis_y = top + len(rows) * (bar_h + gap) + 4
    for tick in (0, 25, 50, 75, 100):
        x = label_w + plot_w * tick / 100
        parts.append(
            f'<text x="{x:.1f}" y="{axis_y + 12}" text-anchor="middle" class="chart-small">'
            f"{tick}%</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
