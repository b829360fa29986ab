"""What the emitters need to know about a fitted tree: per node, how it routes a row
(``ModelInfo.split``) and what it predicts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...data.frames import MISSING_STRINGS, to_python
from ...tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, Tree

__all__ = ["C_INVALID", "C_UNCLASSIFIED", "MAX_NESTING", "MESSAGE", "WEIGHTED", "Branch",
           "ModelInfo", "Split", "stack_bound", "used_thresholds"]

MESSAGE = "Input contains a value outside of expected ranges"
MAX_NESTING = 32  # nested ifs per generated function before a subtree becomes a helper
C_UNCLASSIFIED = -1  # C predict: a class-interval row that fits no branch
C_INVALID = -2  # C predict: invalid input
WEIGHTED = -1  # missing_branch of a node that sends missing values down every branch


@dataclass
class Branch:
    index: int  # branch index at the node
    child: int  # node id
    codes: tuple[int, ...] | None  # categorical feature: the category codes taking it
    missing: bool  # a missing value takes it


@dataclass
class Split:
    node: int
    feature: int
    kind: int
    threshold: float
    high: float
    categorical: bool  # the feature is categorical (conditions on category codes)
    weighted_missing: bool  # a missing value descends every branch
    weighted_codes: tuple[int, ...]  # categories that descend every branch (not in the map)
    branches: list[Branch]  # reachable branches, in branch order


@dataclass
class ModelInfo:
    tree: Tree
    names: list[str]
    categories: list[tuple | None]  # codebook values per feature, None for numeric
    classes: list
    ranges: list[tuple[float, float] | None]
    interval: bool  # class-interval tree: an all-zero row is unclassified
    unclassified: object
    proba: np.ndarray  # what predict_proba gives at each node
    raw: np.ndarray  # probabilities without Laplace's correction (predict's)
    label: np.ndarray  # predict's class index at each node (-1 unclassified)
    weighted: bool  # some node sends missing values down every branch
    algorithm: str
    missing: tuple[str, ...] = MISSING_STRINGS  # strings the code reads as missing
    means: np.ndarray | None = None  # regression tree: the mean target at each node
    target: str | None = None  # regression tree: the target's name, if it has one

    @property
    def regression(self) -> bool:
        return self.means is not None

    @classmethod
    def of(cls, model, tree: Tree, ranges) -> ModelInfo:
        schema = model.schema_
        if getattr(model, "_estimator_type", None) == "regressor":
            return cls.of_regressor(model, tree, ranges)
        raw = tree.node_probabilities(False)
        laplace = bool(getattr(model, "laplace", False))
        proba = tree.node_probabilities(True) if laplace else raw
        algorithm = str(getattr(model, "algorithm", ""))
        interval = algorithm == "interval"
        label = tree.node_classes().astype(np.int64)
        if interval:
            label[raw.sum(axis=1) == 0.0] = -1
        unclassified = model.unclassified_value_ if interval else None
        split = tree.kind != LEAF
        return cls(
            tree=tree,
            names=list(schema.feature_names),
            categories=[None if f.codebook is None else tuple(f.codebook.values)
                        for f in schema.features],
            classes=[to_python(c) for c in model.classes_],
            ranges=list(ranges),
            interval=interval,
            unclassified=to_python(unclassified),
            proba=proba,
            raw=raw,
            label=label,
            weighted=bool(np.any(tree.missing_branch[split] == WEIGHTED)),
            algorithm=algorithm,
            missing=MISSING_STRINGS if schema.na_tokens is None else tuple(sorted(
                schema.na_tokens)),
        )

    @classmethod
    def of_regressor(cls, model, tree: Tree, ranges) -> ModelInfo:
        """A regression tree: no classes; a missing value at a node that sends it down every
        branch takes the heaviest branch, as ``Tree.apply`` (and so ``predict``) does."""
        schema = model.schema_
        none = np.zeros((tree.n_nodes, 0))
        return cls(
            tree=tree,
            names=list(schema.feature_names),
            categories=[None if f.codebook is None else tuple(f.codebook.values)
                        for f in schema.features],
            classes=[],
            ranges=list(ranges),
            interval=False,
            unclassified=None,
            proba=none,
            raw=none,
            label=np.zeros(tree.n_nodes, dtype=np.int64),
            weighted=False,
            algorithm=str(getattr(model, "algorithm", "cart")),
            missing=MISSING_STRINGS if schema.na_tokens is None else tuple(sorted(
                schema.na_tokens)),
            means=tree.value[:, 0].astype(np.float64),
            target=None if schema.target is None else str(schema.target),
        )

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_features(self) -> int:
        return len(self.names)

    def split(self, node: int) -> Split:
        """How the node routes a row (see the kernel ``_branch_of``)."""
        tree = self.tree
        j = int(tree.feature[node])
        kind = int(tree.kind[node])
        m = int(tree.missing_branch[node])
        t = float(tree.threshold[node])
        h = float(tree.interval_high[node])
        children = [int(c) for c in tree.children(node)]
        if self.regression and m == WEIGHTED:
            m = _heaviest(tree, children)
        if kind not in (NUMERIC, CATEGORICAL, INTERVAL):
            raise ValueError(f"node {node}: unknown node kind {kind}")
        book = self.categories[j]
        if book is None:
            if kind not in (NUMERIC, INTERVAL) or len(children) != 2:
                raise ValueError(f"node {node}: a split of kind {kind} with {len(children)} "
                                 f"branches on the numeric feature {self.names[j]!r} cannot "
                                 "be generated")
            branches = [Branch(b, c, None, m == b) for b, c in enumerate(children)]
            return Split(node, j, kind, t, h, False, m == WEIGHTED, (), branches)
        per_code = [_code_branch(tree, node, kind, k, t, h, m) for k in range(len(book))]
        if self.regression:
            per_code = [_heaviest(tree, children) if b == WEIGHTED else b for b in per_code]
        branches = []
        for b, c in enumerate(children):
            codes = tuple(k for k, bk in enumerate(per_code) if bk == b)
            if codes or m == b:
                branches.append(Branch(b, c, codes, m == b))
        weighted_codes = tuple(k for k, bk in enumerate(per_code) if bk == WEIGHTED)
        return Split(node, j, kind, t, h, True, m == WEIGHTED, weighted_codes, branches)

    def leaf_rows(self) -> dict[int, int]:
        """Row of each leaf in the leaf tables, in node order."""
        leaves = np.flatnonzero(self.tree.kind == LEAF)
        return {int(node): i for i, node in enumerate(leaves)}


def _code_branch(tree: Tree, node: int, kind: int, code: int, t: float, h: float,
                 missing: int) -> int:
    if kind == NUMERIC:
        return 0 if code <= t else 1
    if kind == INTERVAL:
        return 0 if t <= code <= h else 1
    cmap = tree.category_map(node)
    return int(cmap[code]) if code < cmap.shape[0] else missing


def _heaviest(tree: Tree, children: list[int]) -> int:
    """Branch of the child with the most training weight (the first on a tie)."""
    weight = tree.weighted_n_node_samples
    return max(range(len(children)), key=lambda b: (weight[children[b]], -b))


def used_thresholds(tree: Tree) -> np.ndarray:
    """Thresholds with 0.0 where a node has none (leaves, categorical nodes)."""
    return np.where(np.isnan(tree.threshold) | (tree.kind == LEAF), 0.0, tree.threshold)


def stack_bound(tree: Tree) -> int:
    """Most (node, share) pairs the weighted descent can hold at once, from any node."""
    need = np.ones(tree.n_nodes, dtype=np.int64)
    for node in range(tree.n_nodes - 1, -1, -1):  # children have larger ids (pre-order)
        children = tree.children(node)
        if children.size:
            need[node] = max(children.size,
                             max(i + int(need[c]) for i, c in enumerate(children)))
    return int(need.max())
