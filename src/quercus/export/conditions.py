"""The branch conditions of a tree node, shared by the text tree and the rule exporters."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..tree import CATEGORICAL, NUMERIC, Tree

__all__ = [
    "Branch",
    "Condition",
    "branch_conditions",
    "format_number",
    "format_percent",
    "format_value",
    "node_summary",
    "walk",
]

OPS = ("<=", ">", "in", "=", "missing", "not missing", "between")
_PLAIN = re.compile(r"^[^\s,{}()'\"]+$")


def format_number(x: float) -> str:
    """A number with up to 6 significant digits (all integer digits kept), zeros stripped.

    Examples
    --------
    >>> format_number(2.4500000476837), format_number(3.0), format_number(1234567.5)
    ('2.45', '3', '1234567.5')
    """
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    int_digits = len(str(int(abs(x)))) if abs(x) >= 1 else 0
    digits = max(6, int_digits + 1)
    text = np.format_float_positional(x, precision=digits, unique=True, fractional=False,
                                      trim="-")
    return "0" if text in ("-0", "") else text


def format_value(value) -> str:
    """A category or class label as text: numbers via ``format_number``, odd strings quoted."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return format_number(value)
    text = str(value)
    return text if _PLAIN.match(text) else repr(text)


def format_percent(share: float) -> str:
    """A share in [0, 1] as a percentage with one decimal (``90.7%``, ``100%``)."""
    percent = 100.0 * share
    if share < 1.0:
        percent = min(percent, 99.9)
    text = f"{percent:.1f}"
    return (text.removesuffix(".0")) + "%"


@dataclass(frozen=True)
class Condition:
    """One test on a feature: ``feature_name op value``.

    ``op`` is one of ``"<="``, ``">"``, ``"="``, ``"in"`` (value: a tuple of categories),
    ``"missing"``, ``"not missing"`` (value: None) or ``"between"`` (value: ``(low, high)``,
    meaning ``low < feature <= high``; only produced when rules merge bounds).
    """

    feature_name: str
    op: str
    value: object = None

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown condition operator {self.op!r}")

    def __str__(self) -> str:
        name = self.feature_name
        if self.op in ("<=", ">"):
            return f"{name} {self.op} {format_number(self.value)}"
        if self.op == "=":
            return f"{name} = {format_value(self.value)}"
        if self.op == "in":
            return f"{name} in {{{', '.join(format_value(v) for v in self.value)}}}"
        if self.op == "between":
            low, high = self.value
            return f"{format_number(low)} < {name} <= {format_number(high)}"
        return f"{name} is {self.op}"


def branch_conditions(tree: Tree, node: int, schema) -> list[tuple[int, Condition]]:
    """For each child of an internal node, its id and the condition of its branch.

    Missing-value routing (``tree.missing_branch``) is not shown, except for a numeric
    threshold of +inf, which means "known values left, missing values right".
    """
    children = [int(c) for c in tree.children(node)]
    if not children:
        return []
    feature = int(tree.feature[node])
    spec = schema.features[feature]
    name = spec.name
    if tree.kind[node] == NUMERIC:
        threshold = float(tree.threshold[node])
        if math.isinf(threshold) and threshold > 0:
            return [(children[0], Condition(name, "not missing")),
                    (children[1], Condition(name, "missing"))]
        return [(children[0], Condition(name, "<=", threshold)),
                (children[1], Condition(name, ">", threshold))]
    if tree.kind[node] == CATEGORICAL:
        values = spec.codebook.values
        cmap = tree.category_map(node)
        out = []
        for branch, child in enumerate(children):
            chosen = tuple(values[code] for code in range(min(len(values), len(cmap)))
                           if cmap[code] == branch)
            if len(chosen) == 1:
                out.append((child, Condition(name, "=", chosen[0])))
            else:
                out.append((child, Condition(name, "in", chosen)))
        return out
    raise ValueError(f"node {node} has an unknown kind {tree.kind[node]}")


@dataclass(frozen=True)
class Branch:
    """A non-root node reached by ``walk``: its id, depth and the conditions from the root."""

    node: int
    depth: int
    path: tuple[Condition, ...]

    @property
    def condition(self) -> Condition:
        """The condition of the last branch taken (the one leading into ``node``)."""
        return self.path[-1]


def _narrow(condition: Condition, path: tuple[Condition, ...]) -> Condition:
    """Drop from a category condition the values that an earlier branch already excluded.

    (A node's category map also routes categories that never reach it; listing those would
    only confuse a reader.)
    """
    if condition.op not in ("=", "in"):
        return condition
    values = (condition.value,) if condition.op == "=" else condition.value
    for earlier in path:
        if earlier.feature_name == condition.feature_name and earlier.op in ("=", "in"):
            allowed = (earlier.value,) if earlier.op == "=" else earlier.value
            values = tuple(v for v in values if v in allowed)
    if not values:
        return condition
    if len(values) == 1:
        return Condition(condition.feature_name, "=", values[0])
    return Condition(condition.feature_name, "in", values)


def walk(tree: Tree, schema) -> Iterator[Branch]:
    """Every node below the root in pre-order (left branch first), with its path.

    Category conditions list only the categories that can reach the branch.
    """
    stack = [Branch(child, 1, (cond,))
             for child, cond in reversed(branch_conditions(tree, 0, schema))]
    while stack:
        branch = stack.pop()
        yield branch
        for child, cond in reversed(branch_conditions(tree, branch.node, schema)):
            cond = _narrow(cond, branch.path)
            stack.append(Branch(child, branch.depth + 1, branch.path + (cond,)))


def node_summary(model, node: int) -> tuple[object, int, float]:
    """The predicted class label, training rows and majority weight share of a node."""
    tree = model.tree_
    value = tree.value[node]
    total = float(value.sum())
    best = int(np.argmax(value))
    share = float(value[best]) / total if total > 0 else 1.0
    return model.classes_[best], int(tree.n_node_samples[node]), share
