"""Weka's text forms of a tree: J48's (``attr <= T: class (n/errors)``) and Id3's.

Numbers follow docs/c45.md: thresholds with at most 6 decimals, weights and errors rounded
to 2 decimals and printed as Java prints doubles (``48.0``, ``1.33``).
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

from ..tree import LEAF, NUMERIC
from .conditions import refuse_regressor

SMALL = 1e-6


def _round_half_up(x: float, digits: int) -> float:
    scale = 10.0**digits
    return math.floor(x * scale + 0.5) / scale


def java_double(x: float) -> str:
    """A double as Java's ``Double.toString`` prints it in the usual range."""
    text = repr(float(x))
    return text if ("." in text or "e" in text or "inf" in text or "nan" in text) else text + ".0"


def java_double_to_string(x: float) -> str:
    """A double as Java's ``Double.toString`` prints it: plain decimals for magnitudes in
    [1e-3, 1e7) (``127.0``, ``0.561``), else computerized scientific notation (``1.2345E-4``,
    ``2.5E10``). The digits are Python's shortest round-trip digits, which are Java's for
    all but rare values (Java before 19 sometimes prints one digit more)."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    number = Decimal(repr(x)).normalize()
    sign = "-" if x < 0 else ""
    if 1e-3 <= abs(x) < 1e7:
        text = format(abs(number), "f")
        return sign + (text if "." in text else text + ".0")
    digits = "".join(map(str, number.as_tuple().digits))
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{number.adjusted()}"


def format_threshold(t: float) -> str:
    """At most 6 decimals, rounded half away from zero, trailing zeros stripped."""
    r = math.floor(abs(t) * 1e6 + 0.5) / 1e6
    text = f"{r:.6f}".rstrip("0").rstrip(".")
    return text if t >= 0 or text == "0" else "-" + text


def majority(table: np.ndarray) -> int:
    """The first class whose weight beats the running maximum by more than 1e-6; -1 if none."""
    best, best_weight = -1, 0.0
    for c, w in enumerate(table):
        if w - best_weight > SMALL:
            best, best_weight = c, w
    return best


def _label(model, table: np.ndarray, fallback: np.ndarray, weight: float) -> str:
    cls = majority(table)
    if cls < 0:
        cls = max(majority(fallback), 0)
    errors = weight - (float(table[cls]) if weight > 0 else 0.0)
    text = f"{model.classes_[cls]} ({java_double(_round_half_up(weight, 2))}"
    if errors > SMALL:
        text += f"/{java_double(_round_half_up(errors, 2))}"
    return text + ")"


def _conditions(model, node: int) -> list[str]:
    tree, schema = model.tree_, model.schema_
    spec = schema.features[tree.feature[node]]
    binary = bool(getattr(model, "binary_categorical_splits", False))
    if tree.kind[node] == NUMERIC:
        # J48 -B prints thresholds as Java doubles (127.0), J48 with at most 6 decimals
        t = (java_double_to_string if binary else format_threshold)(tree.threshold[node])
        return [f"{spec.name} <= {t}", f"{spec.name} > {t}"]
    cmap = tree.category_map(node)
    if binary and len(tree.children(node)) == 2 and np.count_nonzero(cmap == 0) == 1:
        value = spec.codebook.values[int(np.flatnonzero(cmap == 0)[0])]
        return [f"{spec.name} = {value}", f"{spec.name} != {value}"]
    names = []
    for branch in range(len(tree.children(node))):
        values = [v for code, v in enumerate(spec.codebook.values) if cmap[code] == branch]
        names.append(f"{spec.name} = {values[0]}" if len(values) == 1
                     else f"{spec.name} in {{{', '.join(map(str, values))}}}")
    return names


def _branch_lines(model, indent: str, leaf_text) -> list[str]:
    """One line per branch, depth first; ``leaf_text(parent, child)`` ends a leaf's line."""
    tree = model.tree_
    lines: list[str] = []
    stack: list[tuple] = [("expand", 0, 0)]
    while stack:
        item = stack.pop()
        if item[0] == "line":
            lines.append(item[1])
            continue
        _, node, depth = item
        items = []
        for branch, (child, condition) in enumerate(zip(tree.children(node),
                                                        _conditions(model, node))):
            line = indent * depth + condition
            if tree.kind[child] == LEAF:
                items.append(("line", f"{line}: {leaf_text(node, child)}"))
            else:
                items += [("line", line), ("expand", child, depth + 1)]
        stack.extend(reversed(items))
    return lines


_NO_WEKA_REGRESSION = ("Weka's J48 and Id3 are classifiers and print no numeric leaves "
                       "(the text tree, quercus show, does)")


def tree_to_j48(model) -> str:
    """The tree as J48 prints it, with ``Number of Leaves`` and ``Size of the tree``."""
    refuse_regressor(model, "J48 text", _NO_WEKA_REGRESSION)
    tree = model._check_fitted()
    header = "J48 pruned tree" if getattr(model, "pruning", True) else "J48 unpruned tree"
    lines = [header, "-" * 18, ""]

    def leaf_text(parent, child):
        return _label(model, tree.value[child], tree.value[parent],
                      float(tree.weighted_n_node_samples[child]))

    if tree.kind[0] == LEAF:  # no empty line before a root leaf
        lines[-1] = ": " + _label(model, tree.value[0], tree.value[0],
                                  float(tree.weighted_n_node_samples[0]))
    else:
        lines.extend(_branch_lines(model, "|   ", leaf_text))
    lines += ["", f"Number of Leaves  : \t{tree.n_leaves}", "",
              f"Size of the tree : \t{tree.n_nodes}"]
    return "\n".join(lines) + "\n"


def tree_to_id3(model) -> str:
    """The tree as Weka's Id3 prints it (``: null`` would be an empty leaf there; Quercus
    prints the parent's majority class, which it predicts)."""
    refuse_regressor(model, "Weka's Id3 text", _NO_WEKA_REGRESSION)
    tree = model._check_fitted()

    def leaf_text(parent, child):
        table = tree.value[child] if tree.value[child].sum() > 0 else tree.value[parent]
        return str(model.classes_[max(majority(table), 0)])

    lines = ["Id3", "", ""]
    if tree.kind[0] == LEAF:
        lines.append(": " + str(model.classes_[max(majority(tree.value[0]), 0)]))
    else:
        lines.extend(_branch_lines(model, "|  ", leaf_text))
    return "\n".join(lines) + "\n"
