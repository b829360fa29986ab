"""Why a tree predicts what it does: the path a row takes, test by test, to its leaf.

``explain(model, X)`` (also ``model.explain(X)``) returns one :class:`Explanation` per row:
every test on the way with the row's value and the branch taken, the leaf's training class
counts and the class probabilities. Where a C4.5 (or ID3) node meets a missing value, the
row goes down every branch with the branch's share of the node's training weight, as
``predict_proba`` does; the explanation then lists those branches with their shares and
the path below each, and the probabilities are the share-weighted sum of the leaves'.

For a regression tree the explanation gives, at every step, the node's training rows and
mean target, and at the leaf the predicted value (the leaf's mean), its rows and the
standard deviation of their targets; there are no classes or probabilities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .export.conditions import (
    WEIGHTED,
    Condition,
    _narrow,
    branch_conditions,
    format_number,
    format_percent,
    format_significant,
    format_value,
    format_weight,
    is_regressor,
    node_spread,
    regression_labels,
)
from .export.rule_match import condition_to_json
from .rpart_routing import rpart_branch
from .tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, most_probable

STOPPED = -2  # Step.branch of an rpart node where the row stops (nothing routes it)

__all__ = ["Explanation", "Path", "Step", "WeightedBranch", "explain"]

INDENT = "  "


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _show(value) -> str:
    if value is None:
        return "missing"
    return format_number(value) if isinstance(value, float) else format_value(value)


@dataclass(frozen=True)
class WeightedBranch:
    """One branch of a C4.5 node that a row with a missing value goes down in part."""

    condition: Condition
    share: float  # the branch's share of the node's training weight
    path: Path

    def to_dict(self, classes) -> dict:
        return {"condition": condition_to_json(self.condition), "share": self.share,
                "path": self.path.to_dict(classes)}


@dataclass(frozen=True)
class Step:
    """One test on the way down.

    Attributes
    ----------
    node : int
        The split node.
    feature : str
        The feature it tests.
    test : str
        The test in words: ``petal_length <= 2.45``, ``colour in {red, blue}``,
        ``1 <= petal_length <= 1.9`` (class-interval), or ``Outlook: Sunny | Overcast |
        Rain`` for a multiway split.
    value : object
        The row's value of the feature (None if missing).
    outcome : str
        ``"yes"`` or ``"no"`` for a two-way test, the branch's condition for a multiway
        one, ``"missing: <condition>"`` where a missing value follows one branch, and
        ``"missing: every branch, weighted"`` at a C4.5 node.
    branch : int
        Index of the branch taken; -1 when the row goes down every branch.
    condition : Condition or None
        The condition of the branch taken (None when every branch is taken).
    missing : bool
        The value is missing.
    weighted : tuple of WeightedBranch
        The branches taken, with their shares, when ``branch`` is -1.
    """

    node: int
    feature: str
    test: str
    value: object
    outcome: str
    branch: int
    condition: Condition | None
    missing: bool
    weighted: tuple[WeightedBranch, ...] = ()
    node_rows: float | None = None  # regression: the node's training rows
    node_value: float | None = None  # regression: the node's mean target

    def reason(self) -> str:
        """The step as a sentence: the value, then the branch it leads to."""
        name = self.feature
        if self.branch == STOPPED:
            shown = "missing" if self.value is None else f"{_show(self.value)} (unseen here)"
            return (f"{name} is {shown} and no surrogate split applies, so the row stops at "
                    "this node")
        if self.branch == WEIGHTED:
            return (f"{name} is missing, so the row goes down every branch, weighted by the "
                    "branch's share of the training rows:")
        if not self.missing:
            if self.condition.op == "=":
                return str(self.condition)
            return f"{name} = {_show(self.value)}, so {self.condition}"
        if self.condition.op == "missing":
            return f"{name} is missing"
        if self.condition.op == "outside":
            return f"{name} is missing, which counts as {self.condition}"
        return f"{name} is missing, so it follows the branch for missing values: {self.condition}"

    def to_dict(self, classes) -> dict:
        return {"node": self.node, "feature": self.feature, "test": self.test,
                "value": _plain(self.value), "outcome": self.outcome, "branch": self.branch,
                "condition": None if self.condition is None
                else condition_to_json(self.condition),
                "missing": self.missing,
                "branches": [b.to_dict(classes) for b in self.weighted],
                **({} if self.node_value is None else
                   {"node_rows": self.node_rows, "node_value": self.node_value})}


@dataclass(frozen=True)
class Path:
    """A descent from a node: its steps, then a leaf or (last step) a weighted split.

    ``leaf`` is None when the last step sends the row down every branch; ``counts`` are
    the leaf's training class weights (None then); ``probabilities`` the class
    probabilities this path gives (the leaf's, or the shares' weighted sum). A regression
    path has no counts nor probabilities but ``value``, the leaf's mean target (the
    prediction), and ``sd``, the standard deviation of its training targets.
    """

    steps: tuple[Step, ...]
    leaf: int | None
    counts: tuple[float, ...] | None
    n_rows: float
    empty: bool
    probabilities: tuple[float, ...]
    value: float | None = None
    sd: float | None = None
    value_name: str = "mean"  # regression: "mean" or "median", and what sd is
    spread_name: str = "sd"  # ("sd", "mad" or "deviance": regression_labels)

    def lines(self, classes, depth: int = 1) -> list[str]:
        pad = INDENT * depth
        out = []
        for step in self.steps:
            if step.node_value is None:
                out.append(pad + step.reason())
            else:
                out.append(f"{pad}node {step.node} ({format_significant(step.node_value)}, "
                           f"n = {format_weight(step.node_rows)}): {step.reason()}")
            for branch in step.weighted:
                out.append(f"{pad}{INDENT}{format_percent(branch.share)}: {branch.condition}")
                out.extend(branch.path.lines(classes, depth + 2))
        if self.leaf is not None:
            out.append(pad + self._leaf_text(classes))
        return out

    def _leaf_text(self, classes) -> str:
        if self.value is not None:
            return (f"leaf {self.leaf}: {format_significant(self.value)} "
                    f"(n = {format_weight(self.n_rows)}, {self.spread_name} "
                    f"{format_significant(self.sd, 2)})")
        if self.empty:
            return (f"leaf {self.leaf}: no training rows reached it; it predicts its "
                    "parent's class shares")
        shown = [f"{format_value(c)} {format_weight(w)}" for c, w in zip(classes, self.counts)
                 if w > 0]
        if not shown:
            return f"leaf {self.leaf}: no class (unclassified)"
        rows = "training row" if self.n_rows == 1 else "training rows"
        return f"leaf {self.leaf}: {', '.join(shown)} ({format_weight(self.n_rows)} {rows})"

    def to_dict(self, classes) -> dict:
        if self.value is not None:
            return {"steps": [s.to_dict(classes) for s in self.steps], "leaf": self.leaf,
                    "value": self.value, self.spread_name: self.sd,
                    "training_rows": self.n_rows}
        return {"steps": [s.to_dict(classes) for s in self.steps], "leaf": self.leaf,
                "class_counts": None if self.counts is None
                else {str(_plain(c)): w for c, w in zip(classes, self.counts)},
                "training_rows": self.n_rows, "empty": self.empty}


@dataclass(frozen=True)
class Explanation:
    """Why one row gets its prediction.

    Attributes
    ----------
    row : int
        Index of the row in the input (0-based; printed counting from 1).
    target : str
    classes : tuple
        The class labels, in the model's order.
    prediction : object
        ``model.predict``'s answer for the row.
    probabilities : tuple of float
        ``model.predict_proba``'s row.
    unclassified : bool
        A class-interval tree found no class for the row.
    leaf : int
        The leaf ``model.apply`` gives (at a C4.5 split on a missing value, the heaviest
        branch is followed).
    path : Path
    """

    row: int
    target: str
    classes: tuple
    prediction: object
    probabilities: tuple[float, ...]
    unclassified: bool
    leaf: int
    path: Path

    def __str__(self) -> str:
        if self.path.value is not None:  # regression: the leaf's mean
            head = (f"Row {self.row + 1}: {self.target} = {format_number(self.prediction)}  "
                    f"({self.path.value_name} of leaf {self.leaf})")
        elif self.unclassified:
            head = f"Row {self.row + 1}: unclassified (no branch of the tree fits the row)"
        else:
            shares = sorted(((p, i) for i, p in enumerate(self.probabilities) if p > 0),
                            key=lambda t: (-t[0], t[1]))
            listed = ", ".join(f"{format_value(self.classes[i])} {format_percent(p)}"
                               for p, i in shares)
            head = (f"Row {self.row + 1}: {self.target} = {format_value(self.prediction)}  "
                    f"({listed})")
        return "\n".join([head, *self.path.lines(self.classes)])

    def to_dict(self) -> dict:
        """A JSON-ready dict (class-keyed maps use the labels as strings)."""
        if self.path.value is not None:
            return {"row": self.row, "prediction": self.prediction, "leaf": self.leaf,
                    "path": self.path.to_dict(self.classes)}
        return {"row": self.row, "prediction": _plain(self.prediction),
                "unclassified": self.unclassified,
                "probabilities": {str(_plain(c)): p
                                  for c, p in zip(self.classes, self.probabilities)},
                "leaf": self.leaf, "path": self.path.to_dict(self.classes)}


class _Walker:
    """Follows rows down a fitted model's tree, recording every step."""

    def __init__(self, model):
        from .export.conditions import weighted_support

        self.model, self.tree, self.schema = model, model.tree_, model.schema_
        self.regression = is_regressor(model)
        self.proba = (None if self.regression
                      else self.tree.node_probabilities(laplace=bool(model.laplace)))
        weighted = weighted_support(model)
        self.n_rows = (self.tree.weighted_n_node_samples if weighted
                       else self.tree.n_node_samples)
        self._branches: dict[int, list[tuple[int, Condition]]] = {}

    def branches(self, node: int) -> list[tuple[int, Condition]]:
        if node not in self._branches:
            self._branches[node] = branch_conditions(self.tree, node, self.schema)
        return self._branches[node]

    def value_of(self, x: np.ndarray, feature: int):
        """The row's raw value: a number, a category, or None if missing."""
        v = float(x[feature])
        if math.isnan(v):
            return None
        spec = self.schema.features[feature]
        return spec.codebook.values[int(v)] if spec.is_categorical else v

    def branch_of(self, x: np.ndarray, node: int) -> int:
        """The branch index the row takes at a split node (WEIGHTED: all of them)."""
        tree = self.tree
        if tree.rpart is not None:  # surrogates, then the majority; or the row stops here
            b = rpart_branch(tree, x, node)
            return STOPPED if b is None else b
        v = float(x[tree.feature[node]])
        if math.isnan(v):
            return int(tree.missing_branch[node])
        if tree.kind[node] == NUMERIC:
            return 0 if v <= tree.threshold[node] else 1
        if tree.kind[node] == INTERVAL:
            return 0 if tree.threshold[node] <= v <= tree.interval_high[node] else 1
        cmap = tree.category_map(node)
        code = int(v)
        return int(cmap[code]) if 0 <= code < cmap.shape[0] else int(tree.missing_branch[node])

    def test_text(self, node: int, branches: list[tuple[int, Condition]]) -> str:
        if self.tree.kind[node] == CATEGORICAL and len(branches) > 2:
            name = branches[0][1].feature_name
            return f"{name}: " + " | ".join(
                format_value(c.value) if c.op == "=" else str(c).removeprefix(f"{name} ")
                for _, c in branches)
        return str(branches[0][1])

    def step(self, x: np.ndarray, node: int, taken: tuple[Condition, ...]) -> Step:
        """The test at ``node``; ``taken``: the conditions above it, which narrow category
        sets to the categories that can reach the node."""
        feature = int(self.tree.feature[node])
        value = self.value_of(x, feature)
        branches = [(child, _narrow(cond, taken)) for child, cond in self.branches(node)]
        b = self.branch_of(x, node)
        name = self.schema.features[feature].name
        if b == STOPPED:
            return Step(node, name, self.test_text(node, branches), value,
                        "unknown: no surrogate applies, the row stops here", STOPPED, None,
                        True)
        if b == WEIGHTED:
            total = float(self.tree.weighted_n_node_samples[node])
            weighted = tuple(
                WeightedBranch(cond, float(self.tree.weighted_n_node_samples[child]) / total,
                               self.descend(x, child, taken + (cond,)))
                for child, cond in branches
                if total > 0 and self.tree.weighted_n_node_samples[child] > 0)
            return Step(node, name, self.test_text(node, branches), None,
                        "missing: every branch, weighted", WEIGHTED, None, True, weighted)
        condition = branches[b][1]
        if value is None:
            outcome = f"missing: {condition}"
        elif len(branches) == 2:
            outcome = "yes" if b == 0 else "no"
        else:
            outcome = str(condition)
        mean, rows = ((float(self.tree.value[node, 0]), _plain(self.n_rows[node]))
                      if self.regression else (None, None))
        return Step(node, name, self.test_text(node, branches), value, outcome, b, condition,
                    value is None, node_rows=rows, node_value=mean)

    def descend(self, x: np.ndarray, node: int, taken: tuple[Condition, ...] = ()) -> Path:
        steps = []
        while self.tree.kind[node] != LEAF:
            step = self.step(x, node, taken)
            steps.append(step)
            if step.branch == STOPPED:  # rpart: the internal node predicts
                break
            if step.branch == WEIGHTED:
                probabilities = np.zeros(self.tree.n_classes)
                for branch in step.weighted:
                    probabilities += branch.share * np.asarray(branch.path.probabilities)
                return Path(tuple(steps), None, None,
                            _plain(self.n_rows[node]), False, tuple(probabilities.tolist()))
            taken = (*taken, step.condition)
            node = int(self.branches(node)[step.branch][0])
        if self.regression:
            return Path(tuple(steps), node, None, _plain(self.n_rows[node]), False, (),
                        float(self.tree.value[node, 0]),
                        node_spread(self.model, self.tree.impurity[node]),
                        *regression_labels(self.model))
        return Path(tuple(steps), node, tuple(self.tree.value[node].tolist()),
                    _plain(self.n_rows[node]), bool(self.tree.empty[node]),
                    tuple(self.proba[node].tolist()))


def _applied_leaf(path: Path) -> int:
    """The leaf ``apply`` reaches: at a weighted split, the heaviest branch (first of ties)."""
    while path.leaf is None:
        weighted = path.steps[-1].weighted
        path = max(weighted, key=lambda b: b.share).path  # max keeps the first of ties
    return path.leaf


def explain(model, X) -> list[Explanation]:
    """The path to its leaf of every row of X, with the leaf's class counts (a regression
    tree: the node's rows and mean at every step, the leaf's mean, rows and sd).

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model (any algorithm).
    X : data frame, array or list of rows
        Rows as ``predict`` takes them.

    Returns
    -------
    list of Explanation
        One per row; ``str()`` gives a readable justification, ``to_dict()`` a JSON-ready
        form. The probabilities equal ``predict_proba``, the prediction ``predict`` and the
        leaf ``apply``; for a regression tree, the prediction is ``predict``'s number.
    """
    model._check_fitted()
    encoded = model._encode(X)
    walker = _Walker(model)
    if walker.regression:
        target = model.schema_.target or "target"
        out = []
        for i, x in enumerate(encoded):
            path = walker.descend(x, 0)
            out.append(Explanation(i, target, (), path.value, (), False, path.leaf, path))
        return out
    classes = tuple(_plain(c) for c in model.classes_)
    target = model.schema_.target or "class"
    out = []
    for i, x in enumerate(encoded):
        path = walker.descend(x, 0)
        probabilities = np.asarray(path.probabilities)
        unclassified = model.algorithm == "interval" and bool(probabilities.sum() == 0.0)
        leaf = _applied_leaf(path)
        if unclassified:
            prediction = model.unclassified_value_
        elif model.tree_.node_class is not None:  # a loss matrix: the leaf's least-loss class
            prediction = classes[int(model.tree_.node_class[leaf])]
        else:
            code = int(most_probable(probabilities[None, :], model._tie_rtol)[0])
            prediction = classes[max(code, 0)]
        out.append(Explanation(i, target, classes, prediction, path.probabilities,
                               unclassified, leaf, path))
    return out
