"""The fitted tree as indented text, one line per branch."""

from __future__ import annotations

from .conditions import (
    NodeSummary,
    format_percent,
    format_value,
    format_weight,
    node_summaries,
    regression_text,
    walk,
)

__all__ = ["tree_to_text"]

INDENT = "|   "


def _leaf_text(summary: NodeSummary) -> str:
    if summary.sd is not None:
        return regression_text(summary)
    if summary.unclassified:
        return "unclassified"
    support = format_weight(summary.support)
    if summary.share < 1.0:
        return f"{format_value(summary.label)} ({support}, {format_percent(summary.share)})"
    return f"{format_value(summary.label)} ({support})"


def tree_to_text(model) -> str:
    """Render a fitted model as an indented tree.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model.

    Returns
    -------
    str
        One line per branch (``condition: label (support[, share])`` at leaves), then
        ``Depth: d, leaves: k`` (and, for CART pruned by cross-validation, the chosen cp).

    Notes
    -----
    A multiway categorical node (ID3, C4.5) has one line per category (``outlook = sunny``).
    The support is the number of training rows at the leaf, or for C4.5 its training weight,
    which is fractional where rows with missing values were split (printed with up to two
    decimals, e.g. ``3.23``). The share, shown when below 100%, is the predicted class's part
    of that weight. An empty leaf (no training rows reached it) shows the class it predicts,
    its parent's majority class, with support 0. A regression leaf reads
    ``mean (n = rows, sd standard deviation)`` of its training targets. Missing values are not shown: C4.5 sends a
    missing value down every branch of a node, weighted by the branches' training weights.
    """
    tree = model._check_fitted()
    summaries = node_summaries(model)
    lines: list[str] = []
    if tree.is_leaf(0):
        lines.append(f": {_leaf_text(summaries[0])}")
    for branch in walk(tree, model.schema_):
        line = INDENT * (branch.depth - 1) + str(branch.condition)
        if tree.is_leaf(branch.node):
            line += f": {_leaf_text(summaries[branch.node])}"
        lines.append(line)
    lines.append(f"Depth: {tree.max_depth}, leaves: {tree.n_leaves}")
    if hasattr(model, "chosen_cp_"):  # CART pruned by cross-validation
        from ..pruning.cv_prune import pruning_note

        lines.append(pruning_note(model))
    return "\n".join(lines)
