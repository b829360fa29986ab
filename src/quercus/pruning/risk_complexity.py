"""Cost-complexity pruning on the misclassification risk, and its cp table (rpart's).

The risk R(t) of a node is its least expected loss (``ClassCosts.node_risks``: with the
default priors and loss, its misclassified weight). Weakest-link pruning on R (Breiman et
al. 1984, ch. 3) gives each internal node t the complexity ``alpha(t)`` at which it becomes
a leaf: with ``T_t`` the branch below t once every node of smaller complexity has been
collapsed, ``alpha(t) = (R(t) - R(T_t)) / (leaves(T_t) - 1)``, and a node never outlives
its parent (``alpha(t) <= alpha(parent)``). It is computed bottom-up in one pass (docs/
rpart.md's node complexity with cp = 0): a node first takes the value of its whole branch;
a child of smaller complexity than that is collapsed (the smaller child first) and the
value recomputed. Leaves and splits that lower no risk get 0.

The cp table has one row per distinct complexity, largest first, down to 0: the subtree of
row k keeps the internal nodes with ``alpha > alpha_k``. ``CP`` = alpha_k / R(root),
``nsplit`` its internal nodes, ``rel_error`` its leaves' risk / R(root). scikit-learn's
``ccp_alpha`` is the same construction on the weighted impurity instead of the risk
(``pruning.cost_complexity``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tree import LEAF, Tree, collapse

__all__ = ["RiskPath", "exact_node_complexities", "node_complexities", "prune_at",
           "risk_path"]


#: complexities within this share of the root's risk of 0, or of each other, are rounding
#: noise of sums of fractional weights: they count as 0, and as one value
RELATIVE_TOLERANCE = 1e-12


def node_complexities(tree: Tree, risks: np.ndarray) -> np.ndarray:
    """``alpha(t)`` of every node (0 at leaves) as rpart computes it (docs/rpart.md, node
    complexity with cp = 0), bottom-up in one pass: a node takes the value of its whole
    kept branch; a child of smaller complexity than that is collapsed (the smaller child
    first) and the value recomputed; then no node outlives its parent. This reproduces
    rpart's cp table, but it is not always the exact weakest-link sequence
    (``exact_node_complexities``): a branch whose best pruning collapses a grandchild but
    not the child is only seen whole."""
    n = tree.n_nodes
    tolerance = RELATIVE_TOLERANCE * float(risks[0])
    alpha = np.zeros(n)
    splits = np.zeros(n, dtype=np.int64)  # internal nodes kept below (and at) each node
    branch_risk = risks.astype(np.float64).copy()  # risk of the leaves kept below
    is_leaf = tree.kind == LEAF
    for node in range(n - 1, -1, -1):  # pre-order ids: children come after their parent
        if is_leaf[node]:
            continue
        children = tree.children(node)
        kept = np.ones(children.size, dtype=bool)
        value = _branch_value(risks[node], branch_risk[children], splits[children])
        for child in np.argsort(alpha[children], kind="stable"):  # smaller complexity first
            if value > alpha[children[child]]:
                kept[child] = False
                value = _branch_value(risks[node], _kept(branch_risk, risks, children, kept),
                                      splits[children] * kept)
        if value <= tolerance:  # the branch lowers no risk: a leaf at every complexity
            continue
        alpha[node] = value
        splits[node] = int((splits[children] * kept).sum()) + 1
        branch_risk[node] = _kept(branch_risk, risks, children, kept).sum()
    for node in range(n):  # a node goes when its parent does
        children = tree.children(node)
        alpha[children] = np.minimum(alpha[children], alpha[node])
    return _merge_close(alpha)


def _kept(branch_risk, risks, children, kept) -> np.ndarray:
    """The children's risks: their branch's if kept, their own if collapsed."""
    return np.where(kept, branch_risk[children], risks[children])


def _branch_value(risk: float, child_risks: np.ndarray, child_splits: np.ndarray) -> float:
    return (risk - child_risks.sum()) / (int(child_splits.sum()) + 1)


def exact_node_complexities(tree: Tree, risks: np.ndarray) -> np.ndarray:
    """``alpha(t)`` of every node (0 at leaves), from each node's risk ``R(t)``: weakest-link
    pruning, the internal nodes of least ``(R(t) - R(T_t)) / (leaves(T_t) - 1)`` (within
    the tolerance) collapsing together, each taking that value (never less than the
    previous one); a node inside a collapsed branch goes with it."""
    n = tree.n_nodes
    tolerance = RELATIVE_TOLERANCE * float(risks[0])
    parent = tree.parents()
    is_leaf = tree.kind == LEAF
    branch_risk = np.where(is_leaf, risks, 0.0).astype(np.float64)
    n_leaves = is_leaf.astype(np.int64)
    for node in range(n - 1, 0, -1):  # pre-order ids: children come after their parent
        branch_risk[parent[node]] += branch_risk[node]
        n_leaves[parent[node]] += n_leaves[node]
    alpha = np.zeros(n)
    candidate = ~is_leaf
    level = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        while candidate.any():
            ids = np.flatnonzero(candidate)
            gain = (risks[ids] - branch_risk[ids]) / (n_leaves[ids] - 1)
            weakest = gain.min()
            level = max(level, weakest if weakest > tolerance else 0.0)
            limit = weakest + max(tolerance, RELATIVE_TOLERANCE * abs(weakest))
            for node in ids[gain <= limit]:  # lowest id first: ancestors before descendants
                if not candidate[node]:
                    continue
                below = np.asarray(tree.subtree_nodes(int(node)))
                below = below[candidate[below]]  # the nodes still standing go with it
                candidate[below] = False
                alpha[below] = level
                removed, change = n_leaves[node] - 1, risks[node] - branch_risk[node]
                ancestor = parent[node]
                while ancestor != -1:
                    n_leaves[ancestor] -= removed
                    branch_risk[ancestor] += change
                    ancestor = parent[ancestor]
                n_leaves[node], branch_risk[node] = 1, risks[node]
    alpha[is_leaf] = 0.0
    return _merge_close(alpha)


def _merge_close(alpha: np.ndarray) -> np.ndarray:
    """Complexities within ``RELATIVE_TOLERANCE`` of the next larger one take its value."""
    values = np.unique(alpha)
    if values.size < 2:
        return alpha
    close = np.diff(values) <= RELATIVE_TOLERANCE * values[1:]
    if not close.any():
        return alpha
    # each value maps to the largest value of its run of close neighbours
    run_end = np.flatnonzero(np.append(~close, True))
    target = values[run_end[np.searchsorted(run_end, np.arange(values.size))]]
    return target[np.searchsorted(values, alpha)]


def _kept(branch_risk, risks, children, kept) -> np.ndarray:
    """The children's risks: their branch's if kept, their own if collapsed."""
    return np.where(kept, branch_risk[children], risks[children])


def _branch_value(risk: float, child_risks: np.ndarray, child_splits: np.ndarray) -> float:
    return (risk - child_risks.sum()) / (int(child_splits.sum()) + 1)


@dataclass
class RiskPath:
    """The nested subtrees of risk-based weakest-link pruning (see the module docstring).

    ``complexity`` is alpha per node; ``levels`` the distinct complexities, largest first,
    ending with 0; ``nsplit`` and ``risk`` (total leaf risk) of each level's subtree;
    ``root_risk`` R(root).
    """

    complexity: np.ndarray
    levels: np.ndarray
    nsplit: np.ndarray
    risk: np.ndarray
    root_risk: float

    @property
    def cp(self) -> np.ndarray:
        return self.levels / self._scale

    @property
    def rel_error(self) -> np.ndarray:
        return self.risk / self._scale

    @property
    def _scale(self) -> float:
        return self.root_risk if self.root_risk > 0 else 1.0


def risk_path(tree: Tree, risks: np.ndarray) -> RiskPath:
    """The cp-table rows of a tree whose nodes have risks ``risks``."""
    alpha = node_complexities(tree, risks)
    internal = tree.kind != LEAF
    levels = np.unique(np.concatenate([alpha[internal], [0.0]]))[::-1]
    m = levels.size
    ascending = levels[::-1]

    def at_or_above(x):  # how many levels are >= x
        return m - np.searchsorted(ascending, x, side="left")

    nsplit = np.zeros(m + 1, dtype=np.int64)  # difference arrays over the levels
    np.add.at(nsplit, at_or_above(alpha[internal]), 1)  # kept from the first level below
    # node t is a leaf of the level-k subtree when alpha(t) <= level_k < alpha(parent)
    parent = tree.parents()
    upper = np.where(parent >= 0, alpha[np.maximum(parent, 0)], np.inf)
    first, stop = at_or_above(upper), at_or_above(alpha)
    live = first < stop
    total = np.zeros(m + 1)
    np.add.at(total, first[live], risks[live])
    np.add.at(total, stop[live], -risks[live])
    return RiskPath(alpha, levels, np.cumsum(nsplit)[:m], np.cumsum(total)[:m],
                    float(risks[0]))


def prune_at(tree: Tree, complexity: np.ndarray, level: float) -> Tree:
    """The subtree keeping the internal nodes of complexity above ``level``."""
    cut = np.flatnonzero((tree.kind != LEAF) & (complexity <= level))
    return collapse(tree, cut) if cut.size else tree
