"""The fitted tree as a Graphviz DOT graph, and rendering it to SVG or PNG with ``dot``."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace

import numpy as np

from ..errors import QuercusError
from ..tree import CATEGORICAL, INTERVAL, LEAF
from .conditions import (
    WEIGHTED,
    Condition,
    format_percent,
    format_significant,
    format_value,
    format_weight,
    is_regressor,
    node_summaries,
    regression_labels,
    walk,
)
from .palette import UNCLASSIFIED_COLOUR, class_colour, purity, tint

__all__ = ["RENDER_FORMATS", "branch_labels", "node_lines", "regression_fills", "render_dot",
           "tree_to_dot"]

RENDER_FORMATS = ("svg", "png")
_HEADER = """digraph quercus_tree {
  graph [ranksep=0.35, nodesep=0.25];
  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];
  edge [fontname="Helvetica", fontsize=9];
"""


def _escape(text: str) -> str:
    """Text for a double-quoted DOT string: backslashes and quotes escaped, line breaks
    as ``\\n``, and ``&`` as ``&amp;`` (Graphviz decodes HTML entities in labels)."""
    text = text.replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")


def _node_conditions(model) -> dict[int, Condition]:
    """The condition of the branch into every non-root node (narrowed as the text tree;
    without its ``or missing``: the edges show where every missing value goes)."""
    return {branch.node: replace(branch.condition, or_missing=False)
            for branch in walk(model.tree_, model.schema_)}


def _test_text(model, node: int, conditions: dict[int, Condition]) -> str:
    """What a split node tests: its first branch's condition, or for a multiway split (one
    category per branch) the feature's name."""
    tree = model.tree_
    children = tree.children(node)
    name = model.schema_.features[int(tree.feature[node])].name
    if tree.kind[node] == CATEGORICAL and (children.size > 2 or np.all(
            np.bincount(tree.category_map(node), minlength=children.size) == 1)):
        return name
    text = str(conditions[int(children[0])])
    if tree.kind[node] == INTERVAL and tree.interval_class[node] >= 0:
        label = format_value(model.classes_[int(tree.interval_class[node])])
        return f"{text} (range of {label})"
    return text


def node_lines(model, node: int, conditions: dict[int, Condition] | None = None,
               summaries=None) -> list[str]:
    """The lines a picture shows for one node: its test (split nodes), the training rows
    (and weight, for C4.5), the class distribution and the predicted class; for a
    regression tree the mean target (3 significant digits), the rows and the standard
    deviation of their targets (2 digits)."""
    tree = model._check_fitted()
    conditions = _node_conditions(model) if conditions is None else conditions
    summary = (node_summaries(model) if summaries is None else summaries)[node]
    lines = [] if tree.kind[node] == LEAF else [_test_text(model, node, conditions)]
    if is_regressor(model):
        value_name = regression_labels(model)[0]
        lines += [f"{value_name} = {format_significant(summary.label)}",
                  f"n = {summary.support}",
                  f"{summary.spread_name} = {format_significant(summary.sd, 2)}"]
        weight = float(tree.weighted_n_node_samples[node])
        if weight != tree.n_node_samples[node]:  # sample weights
            lines.append(f"weight = {format_weight(weight)}")
        return lines
    lines.append(f"samples = {int(tree.n_node_samples[node])}")
    weight = float(tree.weighted_n_node_samples[node])
    if weight != tree.n_node_samples[node]:  # C4.5's fractional rows, or sample weights
        lines.append(f"weight = {format_weight(weight)}")
    lines.append("value = [" + ", ".join(format_weight(v) for v in tree.value[node]) + "]")
    if summary.unclassified:
        lines.append("class = unclassified")
    elif summary.empty:
        lines.append(f"class = {format_value(summary.label)} (empty leaf: parent's class)")
    else:
        lines.append(f"class = {format_value(summary.label)}")
    return lines


def branch_labels(model, node: int, conditions: dict[int, Condition] | None = None
                  ) -> list[str]:
    """The label of each branch of a split node: its condition, plus where a missing value
    goes (``or missing`` on the one branch that takes it; for C4.5, which sends it down
    every branch, each branch's share of the weight)."""
    tree = model._check_fitted()
    conditions = _node_conditions(model) if conditions is None else conditions
    children = [int(c) for c in tree.children(node)]
    labels = [str(conditions[c]) for c in children]
    route = int(tree.missing_branch[node])
    if route == WEIGHTED:
        total = float(tree.weighted_n_node_samples[node])
        for b, child in enumerate(children):
            share = float(tree.weighted_n_node_samples[child]) / total if total > 0 else 0.0
            labels[b] += f"\nmissing: {format_percent(share)}"
    elif conditions[children[route]].op != "missing":
        labels[route] += "\nor missing"
    return labels


def _fill(summary, best: int, n_classes: int) -> str:
    """Fill colour: the predicted class's colour, lighter the less pure the node."""
    if summary.unclassified:
        return UNCLASSIFIED_COLOUR
    return tint(class_colour(best), 0.15 + 0.7 * purity(summary.share, n_classes))


def regression_fills(tree) -> list[str]:
    """Fill colours of a regression tree: one hue, darker the higher the node's mean."""
    means = tree.value[:, 0]
    low, high = float(means.min()), float(means.max())
    span = high - low
    return [tint(class_colour(0), 0.1 + 0.75 * ((float(m) - low) / span if span > 0 else 0.5))
            for m in means]


def tree_to_dot(model) -> str:
    """A fitted model as a Graphviz DOT digraph.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model (any algorithm).

    Returns
    -------
    str
        ``digraph quercus_tree {...}`` with one box ``n<id>`` per node and one edge per
        branch, in branch order. A node shows its test (split nodes), ``samples``, for C4.5
        the training ``weight``, the class distribution ``value = [...]`` (in ``classes_``
        order) and the predicted ``class``. It is filled with its predicted class's colour,
        lighter the less pure it is (white for a uniform mix); empty leaves are dashed,
        unclassified class-interval leaves grey. Edges carry the branch condition and the
        missing-value routing (see ``branch_labels``). A regression tree's node shows its
        test, ``mean``, ``n`` (training rows) and ``sd`` (of their targets), filled darker
        the higher its mean.
    """
    tree = model._check_fitted()
    conditions = _node_conditions(model)
    summaries = node_summaries(model)
    regression = is_regressor(model)
    best = None if regression else tree.node_classes()  # the class node_summaries label
    fills = regression_fills(tree) if regression else None
    out = [_HEADER]
    for node in range(tree.n_nodes):
        label = _escape("\n".join(node_lines(model, node, conditions, summaries)))
        style = ', style="rounded,filled,dashed"' if summaries[node].empty else ""
        fill = (fills[node] if regression
                else _fill(summaries[node], int(best[node]), tree.n_classes))
        out.append(f'  n{node} [label="{label}", fillcolor="{fill}"'
                   f"{style}];\n")
    for node in range(tree.n_nodes):
        if tree.kind[node] == LEAF:
            continue
        for child, text in zip(tree.children(node), branch_labels(model, node, conditions)):
            out.append(f'  n{node} -> n{int(child)} [label="{_escape(text)}"];\n')
    out.append("}\n")
    return "".join(out)


def render_dot(source: str, fmt: str, timeout: float = 120.0) -> bytes:
    """Render DOT text with Graphviz's ``dot`` program.

    Parameters
    ----------
    source : str
        A DOT graph, e.g. from ``tree_to_dot``.
    fmt : {"svg", "png"}
    timeout : float
        Seconds to wait for ``dot``.

    Returns
    -------
    bytes
        The SVG document or PNG image.

    Raises
    ------
    QuercusError
        When ``dot`` is not installed, fails or takes too long.
    """
    if fmt not in RENDER_FORMATS:
        raise ValueError(f"unknown picture format {fmt!r}; use one of {', '.join(RENDER_FORMATS)}")
    program = shutil.which("dot")
    if program is None:
        raise QuercusError(f"drawing {fmt} needs Graphviz's 'dot' program, which is not on "
                           "PATH; install Graphviz (e.g. 'apt-get install graphviz') or use "
                           "--format dot")
    try:
        result = subprocess.run([program, f"-T{fmt}"], input=source.encode("utf-8"),
                                capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise QuercusError(f"Graphviz's dot took more than {timeout:g} s") from None
    if result.returncode != 0 or not result.stdout:
        detail = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise QuercusError("Graphviz's dot failed" + (f": {detail[0]}" if detail else ""))
    return result.stdout
