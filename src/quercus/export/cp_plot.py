"""The cp plot of the HTML report, as R's ``plotcp`` draws it: cross-validated relative error
(xerror) with bars of ± xstd for each row of the cp table, the size of each tree
(nsplit + 1) along the top, and the dotted 1-SE line (least xerror plus its xstd).

Inline SVG (no script, nothing loaded), so the report stays self-contained. Rows are evenly
spaced from the largest cp (left) to the smallest (right), as in plotcp, and the bottom axis
labels each row with plotcp's cp value: the geometric mean of its CP and the previous row's
(``Inf`` for the first row), to two significant digits.
"""

from __future__ import annotations

from html import escape

import numpy as np

from ..pruning.cp_table import one_se_line
from .r_format import format_signif

__all__ = ["cp_plot_svg", "has_cv_errors", "plotcp_labels"]

WIDTH, HEIGHT = 560, 340
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 46, 52


def has_cv_errors(table) -> bool:
    """Whether a cp table (or None) holds cross-validated errors to plot."""
    return table is not None and len(table) > 0 and \
        not np.isnan(np.asarray(table["xerror"], dtype=float)).any()


def plotcp_labels(cp) -> list[str]:
    """plotcp's bottom-axis labels: sqrt(CP_k * CP_{k-1}) to 2 digits, ``Inf`` first."""
    cp = np.asarray(cp, dtype=float)
    means = np.sqrt(cp * np.concatenate([[np.inf], cp[:-1]]))
    return ["Inf" if np.isinf(m) else format_signif(m, 2) for m in means]


def cp_plot_svg(table) -> str:
    """The plot as an inline ``<svg>`` element; each point carries its row's numbers in
    ``data-`` attributes, the 1-SE line its value."""
    xerror = np.asarray(table["xerror"], dtype=float)
    xstd = np.asarray(table["xstd"], dtype=float)
    size = np.asarray(table["nsplit"], dtype=int) + 1
    line = one_se_line(table)
    low = min((xerror - xstd).min(), line)
    high = max((xerror + xstd).max(), line)
    pad = 0.05 * (high - low or 1.0)
    low, high = low - pad, high + pad
    n = len(xerror)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + plot_w * ((i + 0.5) / n)

    def y(v: float) -> float:
        return TOP + plot_h * (high - v) / (high - low)

    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" class="cp-plot" width="{WIDTH}" '
           f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
           'aria-label="cross-validated relative error against cp">')
    frame = (f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
             'stroke="#444"/>')
    one_se = (f'<line class="one-se" data-value="{float(line)!r}" x1="{LEFT}" '
              f'x2="{LEFT + plot_w}" y1="{y(line):.2f}" y2="{y(line):.2f}" stroke="#444" '
              'stroke-dasharray="2 3"/>')
    parts = [svg, frame, one_se]
    for tick in np.linspace(low + pad, high - pad, 5):
        parts.append(f'<text x="{LEFT - 6}" y="{y(tick) + 4:.2f}" text-anchor="end" '
                     f'font-size="11">{format_signif(tick, 3)}</text>')
    labels = plotcp_labels(table["CP"])
    points = []
    for i in range(n):
        xi, top, bottom = x(i), y(xerror[i] + xstd[i]), y(xerror[i] - xstd[i])
        parts.append(f'<line x1="{xi:.2f}" x2="{xi:.2f}" y1="{top:.2f}" y2="{bottom:.2f}" '
                     'stroke="#1f4e79"/>')
        for end in (top, bottom):
            parts.append(f'<line x1="{xi - 4:.2f}" x2="{xi + 4:.2f}" y1="{end:.2f}" '
                         f'y2="{end:.2f}" stroke="#1f4e79"/>')
        points.append(f"{xi:.2f},{y(xerror[i]):.2f}")
        parts.append(f'<circle class="cp-point" data-cp="{float(table["CP"].iloc[i])!r}" '
                     f'data-xerror="{float(xerror[i])!r}" data-xstd="{float(xstd[i])!r}" '
                     f'data-size="{size[i]}" cx="{xi:.2f}" cy="{y(xerror[i]):.2f}" r="3" '
                     'fill="#1f4e79"><title>'
                     f"size {size[i]}: xerror {format_signif(xerror[i], 4)} ± "
                     f"{format_signif(xstd[i], 3)}</title></circle>")
        parts.append(f'<text x="{xi:.2f}" y="{TOP + plot_h + 16}" text-anchor="middle" '
                     f'font-size="11">{escape(labels[i])}</text>')
        parts.append(f'<text x="{xi:.2f}" y="{TOP - 8}" text-anchor="middle" '
                     f'font-size="11">{size[i]}</text>')
    parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="#1f4e79"/>')
    parts.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 10}" text-anchor="middle" '
                 'font-size="12">cp</text>')
    parts.append(f'<text x="{LEFT + plot_w / 2}" y="14" text-anchor="middle" '
                 'font-size="12">size of tree</text>')
    parts.append(f'<text transform="translate(14 {TOP + plot_h / 2}) rotate(-90)" '
                 'text-anchor="middle" font-size="12">X-val Relative Error</text>')
    parts.append("</svg>")
    return "\n".join(parts)
