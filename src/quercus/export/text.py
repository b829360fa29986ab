"""The fitted tree as indented text, one line per branch."""

from __future__ import annotations

from .conditions import format_percent, format_value, node_summary, walk

__all__ = ["tree_to_text"]

INDENT = "|   "


def _leaf_text(model, node: int) -> str:
    label, support, share = node_summary(model, node)
    if share < 1.0:
        return f"{format_value(label)} ({support}, {format_percent(share)})"
    return f"{format_value(label)} ({support})"


def tree_to_text(model) -> str:
    """Render a fitted model as an indented tree.

    Parameters
    ----------
    model : DecisionTreeClassifier
        A fitted model.

    Returns
    -------
    str
        One line per branch (``condition: label (support[, share])`` at leaves), then
        ``Depth: d, leaves: k``.
    """
    tree = model._check_fitted()
    lines: list[str] = []
    if tree.is_leaf(0):
        lines.append(f": {_leaf_text(model, 0)}")
    for branch in walk(tree, model.schema_):
        line = INDENT * (branch.depth - 1) + str(branch.condition)
        if tree.is_leaf(branch.node):
            line += f": {_leaf_text(model, branch.node)}"
        lines.append(line)
    lines.append(f"Depth: {tree.max_depth}, leaves: {tree.n_leaves}")
    return "\n".join(lines)
