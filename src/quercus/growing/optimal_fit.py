"""The optimal learner end to end: encode the rows, start from a greedy incumbent, search,
remove useless splits and lay the answer out as an ordinary flat tree (docs/optimal.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._kernels._optimal import KNOWN, MAX_SUBSET, ORDERED, SUBSET, TEST_WIDTH, split_rows
from ..splitting.optimal_codes import FeatureCodes, encode_rows, to_flat_split
from ..tree import CATEGORICAL, LEAF, Tree, TreeRecorder
from .optimal import OptimalOptions, Search, SearchNode, TimeUp, run_search

# the search stops this long before the time limit to unwind and build the tree
TIME_MARGIN = 0.03


@dataclass
class OptimalResult:
    """What ``fit`` reports besides the tree (the estimator's ``objective_`` and co.)."""

    objective: float
    lower_bound: float
    optimal: bool
    timed_out: bool
    n_subproblems: int
    cache_hits: int
    greedy_objective: float

    @property
    def gap(self) -> float:
        return self.objective - self.lower_bound


def _weights_dtype(w: np.ndarray, split_penalty: float):
    whole = np.all(w == np.round(w)) and w.sum() < 2.0**52
    return np.int64 if whole and float(split_penalty).is_integer() else np.float64


def _number(value):
    return int(value) if isinstance(value, (np.integer, int)) else float(value)


class _Evaluator:
    """Objective of a SearchNode tree on the training rows (None when it breaks a limit)."""

    def __init__(self, search: Search):
        self.search = search

    def cost(self, node: SearchNode, rows: np.ndarray, depth: int):
        s = self.search
        if rows.shape[0] < s.options.min_samples_leaf:
            return None
        if node.test is None:
            return s.leaf_cost(rows)
        if depth == 0:
            return None
        left, right = split_rows(s.codes, rows, node.test)
        a = self.cost(node.left, left, depth - 1)
        b = self.cost(node.right, right, depth - 1)
        if a is None or b is None:
            return None
        return a + b + s.alpha

    def errors(self, node: SearchNode, rows: np.ndarray):
        if node.test is None:
            return self.search.leaf_cost(rows)
        left, right = split_rows(self.search.codes, rows, node.test)
        return self.errors(node.left, left) + self.errors(node.right, right)

    def prune(self, node: SearchNode, rows: np.ndarray):
        """Remove every split whose subtree misclassifies as much as a leaf there."""
        if node.test is None:
            return node
        left, right = split_rows(self.search.codes, rows, node.test)
        node.left = self.prune(node.left, left)
        node.right = self.prune(node.right, right)
        if self.errors(node, rows) >= self.search.leaf_cost(rows):
            return SearchNode()
        return node


def _greedy(search: Search, rows: np.ndarray, depth: int, budget: int) -> SearchNode:
    """Greedy incumbent within the split family: at each node the root test of the best
    depth-2 subtree, then the same below."""
    search.check_time()
    if depth <= 2 or budget <= 2:  # exact: cached for the search that follows
        return search.solve(rows, depth, budget, np.inf)[1]
    _, tree = search.small(rows, 2, min(budget, 3))
    if tree.test is None:
        return tree
    left, right = split_rows(search.codes, rows, tree.test)
    pairs = search.budget_options(depth, budget)
    b_left, b_right = pairs[len(pairs) // 2]
    return SearchNode(tree.test, _greedy(search, left, depth - 1, b_left),
                      _greedy(search, right, depth - 1, b_right))


def _cart_in_family(cart: Tree, fc: FeatureCodes, options: OptimalOptions) -> bool:
    """Whether every split of the CART tree is a test of the chosen family."""
    if options.missing != "learn" and np.any(fc.codes < 0):
        return False
    for node in np.flatnonzero(cart.kind != LEAF):
        f = cart.feature[node]
        if cart.kind[node] != CATEGORICAL:
            if options.numeric != "exact":
                return False
        elif options.categorical != "subset" or fc.n_codes[f] > options.max_subset_categories:
            return False
    return True


def _cart_tree(cart: Tree, fc: FeatureCodes, node: int = 0) -> SearchNode:
    """CART's tree as tests on codes (the same partitions of the training rows)."""
    if cart.kind[node] == LEAF:
        return SearchNode()
    f = int(cart.feature[node])
    test = np.zeros(TEST_WIDTH, dtype=np.int64)
    test[0] = f
    test[3] = 1 if cart.missing_branch[node] == 0 else 0
    if cart.kind[node] == CATEGORICAL:
        left = np.flatnonzero(cart.category_map(node) == 0)
        test[1], test[4] = SUBSET, left.size
        test[5:5 + left.size] = left
    elif np.isinf(cart.threshold[node]):
        test[1], test[3] = KNOWN, 0
    else:
        test[1] = ORDERED
        test[2] = np.searchsorted(fc.values[f], cart.threshold[node], side="right") - 1
    left_child, right_child = cart.children(node)
    return SearchNode(test, _cart_tree(cart, fc, int(left_child)),
                      _cart_tree(cart, fc, int(right_child)))


def _to_flat(tree: SearchNode, search: Search, rows: np.ndarray, missing: str) -> Tree:
    recorder = TreeRecorder(search.n_classes)
    stack = [(tree, rows, -1, 0)]
    while stack:
        node, node_rows, parent, branch = stack.pop()
        weights = search.class_weights(node_rows).astype(np.float64)
        total = weights.sum()
        gini = 1.0 - float(((weights / total) ** 2).sum()) if total > 0 else 0.0
        new = recorder.add(value=weights, impurity=gini, n_samples=node_rows.size,
                           weight=total)
        if parent >= 0:
            recorder.nodes[parent]["children"][branch] = new
        if node.test is None:
            continue
        left, right = split_rows(search.codes, node_rows, node.test)
        split = to_flat_split(node.test, search.fc, node_rows, left.size, right.size, missing)
        recorder.make_split(new, kind=split.kind, feature=split.feature, children=[-1, -1],
                            missing_branch=split.missing_branch, threshold=split.threshold,
                            category_map=split.category_map)
        stack.append((node.right, right, new, 1))
        stack.append((node.left, left, new, 0))
    return recorder.to_tree()


def fit_optimal_tree(X, y, sample_weight, categorical_mask, n_categories, n_classes: int,
                     options: OptimalOptions, cart: Callable[[], Tree] | None = None,
                     started: float | None = None):
    """The optimal tree of the rows with a known class and positive weight.

    ``cart``: None, or a function returning a greedy CART tree of the same depth, called
    when the search stops before its proof: its tree is returned when its splits are in
    the family and it is better; ``started``: the ``time.perf_counter()`` the time limit
    counts from.
    Returns ``(Tree, OptimalResult)``.
    """
    start = time.perf_counter() if started is None else started
    if options.categorical == "subset" and options.max_subset_categories > MAX_SUBSET:
        raise ValueError(f"max_subset_categories must be at most {MAX_SUBSET}")
    keep = (y >= 0) & (sample_weight > 0)
    X, y, sample_weight = X[keep], y[keep].astype(np.int32), sample_weight[keep]
    w = sample_weight.astype(_weights_dtype(sample_weight, options.split_penalty))
    fc = encode_rows(np.asarray(X, dtype=np.float64), categorical_mask, n_categories,
                     options.numeric, options.max_bins)
    deadline = np.inf
    if options.time_limit is not None:
        deadline = start + options.time_limit - TIME_MARGIN
    search = Search(fc, y, w, n_classes, options, deadline=deadline)
    rows = np.arange(y.shape[0], dtype=np.int64)
    full = (1 << options.max_depth) - 1
    budget = full if options.max_splits is None else min(options.max_splits, full)
    evaluator = _Evaluator(search)
    incumbent, best = SearchNode(), search.leaf_cost(rows)
    try:
        greedy_tree = _greedy(search, rows, options.max_depth, budget)
        greedy_cost = evaluator.cost(greedy_tree, rows, options.max_depth)
        if greedy_cost is not None and greedy_cost < best:
            incumbent, best = greedy_tree, greedy_cost
    except TimeUp:  # out of time already: a leaf is the incumbent (CART's, below)
        pass
    greedy = best
    result = run_search(search, rows, best, incumbent, budget)
    found = result.tree
    if not result.optimal and cart is not None:  # stopped early: CART's tree if better
        cart_tree = cart()
        if _cart_in_family(cart_tree, fc, options):
            cart_tree = evaluator.prune(_cart_tree(cart_tree, fc), rows)
            cart_cost = evaluator.cost(cart_tree, rows, options.max_depth)
            if cart_cost is not None and cart_cost < result.objective:
                found = cart_tree
    tree = evaluator.prune(found, rows)
    objective = evaluator.cost(tree, rows, options.max_depth)
    flat = _to_flat(tree, search, rows, options.missing)
    report = OptimalResult(_number(objective), _number(min(result.lower_bound, objective)),
                           result.optimal, result.timed_out, search.stats.n_subproblems,
                           search.stats.cache_hits, _number(greedy))
    return flat, report
