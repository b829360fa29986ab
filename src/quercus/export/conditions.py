"""The branch conditions of a tree node, shared by the text tree and the rule exporters."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from ..tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, Tree

__all__ = [
    "Branch",
    "Condition",
    "NodeSummary",
    "branch_conditions",
    "format_number",
    "format_percent",
    "format_value",
    "format_weight",
    "node_summaries",
    "node_summary",
    "premise_text",
    "walk",
]

WEIGHTED = -1  # missing_branch of a node that sends a missing value down every branch

OPS = ("<=", ">", "in", "=", "missing", "not missing", "between", "within", "outside")
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


def format_weight(w: float) -> str:
    """A support: an integral value as an integer, otherwise rounded to at most 2 decimals.

    C4.5 splits a row with a missing value into fractions, so its leaves can hold
    fractional training weight.

    Examples
    --------
    >>> format_weight(21), format_weight(3.2345), format_weight(7.25), format_weight(4.999)
    ('21', '3.23', '7.25', '5')
    """
    w = float(w)
    if not math.isfinite(w):
        return str(w)
    rounded = math.floor(abs(w) * 100.0 + 0.5) / 100.0  # half away from zero, as J48
    text = f"{rounded:.2f}".rstrip("0").rstrip(".")
    return text if w >= 0 or text == "0" else "-" + text


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
    ``"missing"``, ``"not missing"`` (value: None), ``"between"`` (value: ``(low, high)``,
    meaning ``low < feature <= high``; only produced when rules merge bounds), or the
    class-interval tree's ``"within"`` and ``"outside"`` (value: ``(low, high)``, meaning
    ``low <= feature <= high`` and its negation; a missing value counts as outside).
    """

    feature_name: str
    op: str
    value: object = None
    # how a text shows it, when not as op and value (rpart's strict cuts: "x < 8.5" for
    # x <= the float below 8.5); rules built from it show op and value
    shown: str | None = field(default=None, compare=False)
    # a missing value satisfies it too: the branch that took the node's training rows
    # with a missing value (``Tree.n_missing``), shown as "... or missing"
    or_missing: bool = False

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown condition operator {self.op!r}")
        if self.or_missing and self.op in ("missing", "not missing", "outside"):
            raise ValueError(f"a {self.op!r} condition already says where missing values go")

    def __str__(self) -> str:
        text = self._test_text()
        return f"{text} or missing" if self.or_missing else text

    def _test_text(self) -> str:
        if self.shown is not None:
            return self.shown
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
        if self.op == "within":
            low, high = self.value
            return f"{format_number(low)} <= {name} <= {format_number(high)}"
        if self.op == "outside":
            low, high = self.value
            return f"{name} outside [{format_number(low)}, {format_number(high)}]"
        return f"{name} is {self.op}"


def branch_conditions(tree: Tree, node: int, schema) -> list[tuple[int, Condition]]:
    """For each child of an internal node, its id and the condition of its branch.

    A multiway categorical node (ID3, C4.5) gives one ``feature = category`` condition per
    branch; a binary subset split gives ``feature in {...}`` where a branch holds several
    categories. Where training rows with a missing value reached a node that sends missing
    values down one learned branch (``Tree.n_missing``, ``Tree.missing_branch``), that
    branch says ``or missing``, so a leaf's support is the number of training rows its path
    matches; where none did, prediction still sends a missing value down that branch, but
    the text does not say so. A C4.5 node (``missing_branch == -1``) sends missing values
    down every branch with fractional weight, and an rpart node by its surrogate splits, so
    no single branch holds them. CART splits of known against missing values show as such:
    a numeric threshold of +inf ("known values left, missing values right") and a
    categorical split that sends every known category one way (``not missing`` /
    ``missing``).
    """
    out = _branch_conditions(tree, node, schema)
    counts = tree.n_missing
    route = int(tree.missing_branch[node])
    if (counts is not None and counts[node] > 0 and tree.rpart is None
            and 0 <= route < len(out) and tree.kind[node] in (NUMERIC, CATEGORICAL)):
        child, condition = out[route]
        if condition.op not in ("missing", "not missing"):
            out[route] = (child, replace(condition, or_missing=True))
    return out


def _branch_conditions(tree: Tree, node: int, schema) -> list[tuple[int, Condition]]:
    """``branch_conditions`` before the ``or missing`` of rows routed by a missing value."""
    children = [int(c) for c in tree.children(node)]
    if not children:
        return []
    feature = int(tree.feature[node])
    spec = schema.features[feature]
    name = spec.name
    if tree.kind[node] == NUMERIC:
        threshold = float(tree.threshold[node])
        if math.isinf(threshold) and threshold > 0 and tree.missing_branch[node] == 1:
            return [(children[0], Condition(name, "not missing")),
                    (children[1], Condition(name, "missing"))]
        if tree.rpart is not None:  # rpart: x < cut (threshold: the float below the cut)
            cut = format_number(np.nextafter(threshold, np.inf))
            return [(children[0], Condition(name, "<=", threshold, shown=f"{name} < {cut}")),
                    (children[1], Condition(name, ">", threshold, shown=f"{name} >= {cut}"))]
        return [(children[0], Condition(name, "<=", threshold)),
                (children[1], Condition(name, ">", threshold))]
    if tree.kind[node] == CATEGORICAL:
        values = spec.codebook.values
        cmap = tree.category_map(node)
        chosen_per_branch = [tuple(values[code] for code in range(min(len(values), len(cmap)))
                                   if cmap[code] == branch) for branch in range(len(children))]
        missing = int(tree.missing_branch[node])
        if len(children) == 2 and 0 <= missing < 2 and not chosen_per_branch[missing]:
            # every known category one way, only missing values the other (CART)
            known = 1 - missing
            return sorted([(children[known], Condition(name, "not missing")),
                           (children[missing], Condition(name, "missing"))],
                          key=lambda pair: children.index(pair[0]))
        out = []
        for child, chosen in zip(children, chosen_per_branch):
            if len(chosen) == 1:
                out.append((child, Condition(name, "=", chosen[0])))
            else:
                out.append((child, Condition(name, "in", chosen)))
        return out
    if tree.kind[node] == INTERVAL:
        low, high = float(tree.threshold[node]), float(tree.interval_high[node])
        if spec.is_categorical:  # the range of codes, as sets of categories
            values = spec.codebook.values
            inside = tuple(v for code, v in enumerate(values) if low <= code <= high)
            outside = tuple(v for code, v in enumerate(values) if not low <= code <= high)
            return [(children[0], Condition(name, "=", inside[0]) if len(inside) == 1
                     else Condition(name, "in", inside)),
                    (children[1], Condition(name, "=", outside[0]) if len(outside) == 1
                     else Condition(name, "in", outside))]
        return [(children[0], Condition(name, "within", (low, high))),
                (children[1], Condition(name, "outside", (low, high)))]
    raise ValueError(f"node {node} has an unknown kind {tree.kind[node]}")


def premise_text(conditions) -> str:
    """Conditions joined by AND (``TRUE`` for none), an ``or missing`` one in parentheses:
    ``(x <= 3 or missing) AND y = a``."""
    several = len(conditions) > 1
    return " AND ".join(f"({c})" if c.or_missing and several else str(c)
                        for c in conditions) or "TRUE"


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
        return Condition(condition.feature_name, "=", values[0],
                         or_missing=condition.or_missing)
    return Condition(condition.feature_name, "in", values, or_missing=condition.or_missing)


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


class NodeSummary(NamedTuple):
    """What the text tree and the rules print about a node.

    Attributes
    ----------
    label : object
        The class that ``predict`` gives a row stopping at the node: the class with the most
        training weight, or for an empty leaf its parent's (ties: the first class).
    support : int or float
        Training rows at the node (CART), or the training weight at the node for trees that
        split rows with missing values into fractions (C4.5), which may be fractional.
    share : float
        Weight of the label's class / the node's weight (1.0 when the node holds no weight).
    empty : bool
        The node is a leaf that received no training rows (C4.5, ID3).
    unclassified : bool
        The node is a class-interval leaf that no class claims: a row ending there is
        unclassifiable.
    """

    label: object
    support: int | float
    share: float
    empty: bool
    unclassified: bool = False
    sd: float | None = None  # regression: the spread of the targets (label: mean or median)
    spread_name: str = "sd"  # regression: what ``sd`` is (``regression_labels``)


def regression_labels(model) -> tuple[str, str]:
    """What a regression tree's node value and spread are called, by criterion: the mean
    and standard deviation (squared error), the median and the mean absolute deviation from
    it ("mad", absolute error), the mean and the mean Poisson deviance (poisson)."""
    criterion = getattr(model, "criterion", None)
    if criterion == "absolute_error":
        return "median", "mad"
    if criterion == "poisson":
        return "mean", "deviance"
    return "mean", "sd"


def node_spread(model, impurity: float) -> float:
    """A regression node's spread (``regression_labels``) from its impurity: the square
    root of the variance, the mean absolute deviation itself, or twice the half Poisson
    deviance."""
    spread = regression_labels(model)[1]
    if spread == "mad":
        return float(impurity)
    if spread == "deviance":
        return 2.0 * float(impurity)
    return float(np.sqrt(max(impurity, 0.0)))


def is_regressor(model) -> bool:
    """Whether the model is a regression tree (its nodes hold a mean target)."""
    return getattr(model, "_estimator_type", None) == "regressor"


def refuse_regressor(model, what: str, reason: str | None = None) -> None:
    """One-line ValueError for an exporter that does not handle regression trees: ``what``
    is not available for them, because of ``reason`` (without one: not yet)."""
    if is_regressor(model):
        raise ValueError(f"{what} is not available for regression trees"
                         + (f": {reason}" if reason else
                            " yet (text trees, rules and model files are)"))


def format_significant(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, without an exponent (7.41, 1230, 0.0521)."""
    return np.format_float_positional(float(x), precision=digits, unique=False,
                                      fractional=False, trim="-")


def regression_text(summary: NodeSummary) -> str:
    """``7.41 (n = 23, sd 1.9)``: a regression node's value, rows and spread."""
    return (f"{format_significant(summary.label)} (n = {summary.support}, "
            f"{summary.spread_name} {format_significant(summary.sd, 2)})")


def weighted_support(model) -> bool:
    """Whether supports are training weights rather than row counts: true for C4.5 (and any
    tree whose nodes send missing values down every branch), whose rows with missing values
    are split into fractions."""
    tree = model.tree_
    inner = tree.kind != LEAF
    learner = getattr(model, "best_estimator_", model)  # algorithm="auto": its choice
    return (getattr(learner, "algorithm", None) == "c45"
            or bool(np.any(tree.missing_branch[inner] == WEIGHTED)))


def node_summaries(model) -> list[NodeSummary]:
    """The ``NodeSummary`` of every node of a fitted model, by node id."""
    tree = model._check_fitted()
    if is_regressor(model):  # mean (or median) target, rows, spread (from the impurity)
        spread_name = regression_labels(model)[1]
        return [NodeSummary(float(tree.value[node, 0]), int(tree.n_node_samples[node]), 1.0,
                            False, False, node_spread(model, tree.impurity[node]), spread_name)
                for node in range(tree.n_nodes)]
    node_best = tree.node_classes()  # an empty leaf gets its parent's class
    weighted = weighted_support(model)
    out = []
    for node in range(tree.n_nodes):
        value = tree.value[node]
        total = float(value.sum())
        best = int(node_best[node])
        share = float(value[best]) / total if total > 0 else 1.0
        support = total if weighted else int(tree.n_node_samples[node])
        empty = bool(tree.empty[node]) and tree.kind[node] == LEAF
        lost = (getattr(model, "algorithm", None) == "interval" and tree.kind[node] == LEAF
                and total == 0.0)
        out.append(NodeSummary(model.classes_[best], support, min(share, 1.0), empty, lost))
    return out


def node_summary(model, node: int) -> NodeSummary:
    """The ``NodeSummary`` of one node (see ``node_summaries`` for all of them at once)."""
    return node_summaries(model)[node]
