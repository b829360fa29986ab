"""Minimal cost-complexity pruning (Breiman et al., 1984), on the flat tree after fitting.

The cost of a node is its weighted impurity as a share of the root's weight,
``R(t) = w(t) * impurity(t) / w(root)``; the cost of a branch is the sum over its leaves.
Weakest-link pruning repeatedly turns into a leaf the internal node with the smallest
effective alpha ``(R(t) - R(T_t)) / (leaves(T_t) - 1)``; among equal alphas the node with
the lowest pre-order id goes first (scikit-learn does the same).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tree import LEAF, Tree, collapse


@dataclass
class PruningPath:
    """Effective alphas and total leaf impurities of the nested pruned subtrees."""

    ccp_alphas: np.ndarray
    impurities: np.ndarray

    def __getitem__(self, key):  # lets users write path["ccp_alphas"] as with sklearn's Bunch
        return getattr(self, key)


def _weakest_link_sequence(tree: Tree, stop_alpha: float | None):
    """Prune weakest links in turn; returns (pruned node ids, alphas, impurities)."""
    n = tree.n_nodes
    r_node = tree.weighted_n_node_samples * tree.impurity / tree.weighted_n_node_samples[0]
    parent = tree.parents()
    is_leaf = tree.kind == LEAF
    r_branch = np.zeros(n)
    n_leaves = np.zeros(n, dtype=np.int64)
    for leaf in np.flatnonzero(is_leaf):
        r_branch[leaf] = r_node[leaf]
        node = leaf
        while node != 0:
            node = parent[node]
            r_branch[node] += r_node[leaf]
            n_leaves[node] += 1
    candidate = ~is_leaf
    alive = np.ones(n, dtype=bool)
    pruned, alphas, impurities = [], [0.0], [r_branch[0]]
    with np.errstate(divide="ignore", invalid="ignore"):
        while candidate[0]:
            alpha = np.full(n, np.inf)
            idx = np.flatnonzero(candidate)
            alpha[idx] = (r_node[idx] - r_branch[idx]) / (n_leaves[idx] - 1)
            node = int(np.argmin(alpha))  # first minimum: lowest id among ties
            effective = float(alpha[node])
            if stop_alpha is not None and stop_alpha < effective:
                break
            for descendant in tree.subtree_nodes(node):
                candidate[descendant] = False
                alive[descendant] = False
            alive[node] = True
            removed_leaves = n_leaves[node] - 1
            n_leaves[node] = 0
            r_diff = r_node[node] - r_branch[node]
            r_branch[node] = r_node[node]
            ancestor = parent[node]
            while ancestor != -1:
                n_leaves[ancestor] -= removed_leaves
                r_branch[ancestor] += r_diff
                ancestor = parent[ancestor]
            pruned.append(node)
            alphas.append(effective)
            impurities.append(r_branch[0])
    return pruned, np.array(alphas), np.array(impurities)


def pruning_path(tree: Tree) -> PruningPath:
    """The full sequence of effective alphas, from the unpruned tree to the root alone."""
    _, alphas, impurities = _weakest_link_sequence(tree, None)
    return PruningPath(alphas, impurities)


def prune(tree: Tree, ccp_alpha: float) -> Tree:
    """The smallest subtree minimising ``R_alpha(T) = R(T) + ccp_alpha * leaves(T)``."""
    if ccp_alpha <= 0.0 or tree.n_nodes == 1:
        return tree
    pruned, _, _ = _weakest_link_sequence(tree, ccp_alpha)
    return collapse(tree, pruned) if pruned else tree
