"""The regression parts of the HTML report: the summary, the node labels and, given rows
with known targets, RMSE, MAE, R² and a predicted-vs-actual plot (inline SVG)."""

from __future__ import annotations

from html import escape

import numpy as np

from .export.conditions import format_number, format_significant

__all__ = ["NO_DATA_NOTE", "evaluation", "plot_svg", "summary_items"]

NO_DATA_NOTE = ("No data was given, so the report shows the tree and the node details only; "
                "give rows with known targets (<code>quercus report MODEL DATA</code>, or "
                "<code>report_html(model, X, y)</code>) for RMSE, MAE, R&sup2; and a "
                "predicted-vs-actual plot.")

SIZE, PAD = 360, 44  # the plot's square side and its margin for the axes, in pixels


def _e(value) -> str:
    return escape(str(value), quote=True)


def summary_items(model) -> list[tuple[str, object]]:
    """The header's facts about a regression tree."""
    tree = model.tree_
    return [("algorithm", "cart"), ("task", "regression"), ("criterion", model.criterion),
            ("target", model.schema_.target or "target"), ("depth", tree.max_depth),
            ("leaves", tree.n_leaves), ("nodes", tree.n_nodes),
            ("features", model.n_features_in_),
            ("training rows", int(tree.n_node_samples[0]))]


def plot_svg(actual: np.ndarray, predicted: np.ndarray) -> str:
    """Predicted (y axis) against actual (x axis) values, with the diagonal y = x."""
    low = float(min(actual.min(), predicted.min()))
    high = float(max(actual.max(), predicted.max()))
    span = high - low if high > low else 1.0
    inner = SIZE - 2 * PAD

    def x(v: float) -> float:
        return PAD + inner * (v - low) / span

    def y(v: float) -> float:
        return SIZE - PAD - inner * (v - low) / span

    dots = "".join(f'<circle cx="{x(a):.1f}" cy="{y(p):.1f}" r="2.5"/>'
                   for a, p in zip(actual.tolist(), predicted.tolist()))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" id="predicted-vs-actual" width="{SIZE}" '
            f'height="{SIZE}" viewBox="0 0 {SIZE} {SIZE}" role="img" '
            'aria-label="predicted against actual values">'
            f'<rect x="{PAD}" y="{PAD}" width="{inner}" height="{inner}" fill="none" '
            'stroke="#999"/>'
            f'<line x1="{x(low):.1f}" y1="{y(low):.1f}" x2="{x(high):.1f}" y2="{y(high):.1f}" '
            'stroke="#999" stroke-dasharray="4 3"/>'
            f'<g fill="#4c72b0" fill-opacity="0.6">{dots}</g>'
            f'<text x="{SIZE / 2}" y="{SIZE - 8}" text-anchor="middle" font-size="12">actual'
            "</text>"
            f'<text x="12" y="{SIZE / 2}" text-anchor="middle" font-size="12" '
            f'transform="rotate(-90 12 {SIZE / 2})">predicted</text>'
            f'<text x="{PAD}" y="{SIZE - PAD + 14}" font-size="10">{_e(format_number(low))}'
            f'</text><text x="{SIZE - PAD}" y="{SIZE - PAD + 14}" font-size="10" '
            f'text-anchor="end">{_e(format_number(high))}</text></svg>')


def evaluation(model, X, y, data_name: str) -> str:
    """RMSE, MAE and R² on the rows of X with a known target, and the plot."""
    target = np.asarray(y, dtype=float)
    known = ~np.isnan(target)
    if not known.any():
        return ('<section id="evaluation"><h2>Evaluation</h2><p>The data has no known '
                "target values.</p></section>")
    rows = X.iloc[np.flatnonzero(known)] if hasattr(X, "iloc") else \
        [X[i] for i in np.flatnonzero(known)]
    actual = target[known]
    predicted = model.predict(rows)
    error = actual - predicted
    rmse = float(np.sqrt(np.mean(error ** 2)))
    mae = float(np.mean(np.abs(error)))
    spread = float(np.sum((actual - actual.mean()) ** 2))
    r2 = 1.0 - float(np.sum(error ** 2)) / spread if spread > 0 else float("nan")
    return ('<section id="evaluation"><h2>Evaluation</h2>'
            f"<p>On <code>{_e(data_name)}</code>, {int(known.sum())} rows with a known "
            f'target: RMSE <strong id="rmse">{format_significant(rmse, 4)}</strong>, MAE '
            f'<strong id="mae">{format_significant(mae, 4)}</strong>, R&sup2; '
            f'<strong id="r2">{r2:.4f}</strong>.</p>'
            '<p class="note">Each dot is a row: its actual target across, the tree&rsquo;s '
            "prediction (its leaf&rsquo;s mean) up; the dashed line is predicted = actual."
            f"</p>\n{plot_svg(actual, predicted)}</section>")
