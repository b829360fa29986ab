"""Optimal trees of bounded depth: depth-first branch and bound over (row set, depth,
split budget), the subproblems of depth <= 2 solved exactly by a kernel
(``_kernels/_optimal.pyx``), on binary data those of depth 3 by a
compiled loop over their tests (``_kernels/_optimal.pyx``), on other data the ordered
tests of depth >= 3 nodes by ConTree's interval pruning (``interval_splits``;
docs/optimal.md).

The objective of a tree T is E(T) + split_penalty * splits(T), E the misclassified training
weight, subject to depth <= max_depth, splits <= max_splits and >= min_samples_leaf rows in
every leaf. ``solve(rows, depth, budget, bound)`` returns the optimum of a subproblem when it
is below ``bound``, and otherwise proves that none is, caching either fact by row set.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np

from .._kernels._openmp import max_threads
from .._kernels._optimal import (
    KNOWN,
    NO_FEATURE,
    ORDERED,
    TEST_WIDTH,
    binary_features,
    depth2_node,
    depth2_tests,
    node_tests,
    rehash,
    solve_depth2_binary,
    solve_depth3_binary,
    split_rows,
    weight_outside,
)
from ..splitting.optimal_codes import FeatureCodes

SIMILAR_KEPT = 2  # solved row sets kept per (depth, budget) for the similarity bound
PROBE_CUTS = 4  # cuts probed for a tree at a depth >= 4 node's lower bound (probe)
PROBE_SOLVES = (2, 4)  # depth-2 solves one probe may make: per feature, and more
CHUNK_SECONDS = 0.04  # aim of one depth-2 or depth-3 kernel call under a time limit


class TimeUp(Exception):
    """The time limit passed: the search unwinds to the root and keeps its incumbent."""


class ProbeSpent(Exception):
    """A probe (``Search.probe``) used up its depth-2 solves: it unwinds to the probe,
    whose solves so far stay cached (each an optimum or a lower bound)."""


@dataclass
class OptimalOptions:
    """The optimal learner's hyper-parameters, checked."""

    max_depth: int
    max_splits: int | None = None
    split_penalty: float = 0.0
    min_samples_leaf: int = 1
    numeric: str = "exact"
    max_bins: int = 255
    categorical: str = "subset"
    max_subset_categories: int = 8
    missing: str = "learn"
    time_limit: float | None = None
    max_gap: float = 0.0


@dataclass
class SearchNode:
    """A node of a found tree: a test (None: leaf) and its children."""

    test: np.ndarray | None = None
    left: SearchNode | None = None
    right: SearchNode | None = None

    @property
    def n_splits(self) -> int:
        if self.test is None:
            return 0
        return 1 + self.left.n_splits + self.right.n_splits


@dataclass
class SearchStats:
    n_subproblems: int = 0
    cache_hits: int = 0
    depth2_calls: int = 0
    similarity_prunes: int = 0
    probe_solves: int = 0


@dataclass
class Search:
    """One optimal-tree search over encoded rows (weights int64 or float64, none zero)."""

    INTERVALS = True  # interval pruning of ordered tests at depth >= 3 (interval_splits)

    fc: FeatureCodes
    y: np.ndarray
    w: np.ndarray
    n_classes: int
    options: OptimalOptions
    deadline: float = np.inf
    stats: SearchStats = field(default_factory=SearchStats)

    def __post_init__(self):
        o = self.options
        self.codes = np.ascontiguousarray(self.fc.codes)
        self.learn = o.missing == "learn"
        self.max_subset = o.max_subset_categories if o.categorical == "subset" else 0
        self.alpha = self.w.dtype.type(o.split_penalty)
        self.cache: dict = {}
        self.unit = self.w.dtype == np.int64 and bool(np.all(self.w == 1))
        self._error = np.zeros(4, dtype=self.w.dtype)
        self._tests = np.zeros((4, 3, TEST_WIDTH), dtype=np.int64)
        # the similarity bound needs every test at a node to stay a test on more rows
        self.similar = o.min_samples_leaf == 1 and not (
            o.categorical == "subset"
            and np.any(self.fc.categorical & (self.fc.n_codes > o.max_subset_categories)))
        self.recent: dict = {}
        # every feature 0/1 without missing values: each node is binary (pair-count solver)
        self.binary = bool(np.all(self.fc.n_codes <= 2) and np.all(self.codes >= 0))
        n_features = self.codes.shape[1]
        self._low = np.zeros(n_features, dtype=np.int64)
        self._high = np.ones(n_features, dtype=np.int64)
        self.chunk = 1 << 20  # root tests per kernel call (shrinks when one call is slow)
        self.chunk3 = 1 << 20  # the same for the depth-3 kernel
        if np.isfinite(self.deadline):
            self.chunk, self.chunk3 = 64, 4
        self._trees = np.zeros((2, 3, TEST_WIDTH), dtype=np.int64)
        self.threads = _threads()
        self.memo = None  # the depth-3 kernel's memo of depth-2 children (memo_room)
        self.probe_limit = np.inf  # depth-2 solves a running probe may reach

    # -- pieces ------------------------------------------------------------------------------
    def class_weights(self, rows: np.ndarray) -> np.ndarray:
        """Class weights of the rows, in the weights' dtype (summed in row order)."""
        if self.unit:
            return np.bincount(self.y[rows], minlength=self.n_classes)
        sums = np.bincount(self.y[rows], weights=self.w[rows], minlength=self.n_classes)
        return sums.astype(self.w.dtype)  # whole weights: exact below 2**52

    def leaf_cost(self, rows: np.ndarray):
        weights = self.class_weights(rows)
        return weights.sum() - weights.max()

    def check_time(self) -> None:
        if time.perf_counter() >= self.deadline:
            raise TimeUp

    def small(self, rows: np.ndarray, depth: int, budget: int, bound=np.inf):
        """Optimum at depth <= 2 (or budget <= 2) by the kernel, penalised: ``(cost, tree)``
        when it is below ``bound``, else ``(a lower bound >= bound, None)``. The numeric
        cuts that cannot beat ``bound`` are skipped (``depth2_node``'s caps)."""
        if self.stats.depth2_calls >= self.probe_limit:
            raise ProbeSpent
        self.stats.depth2_calls += 1
        depth = min(depth, 2)
        first, chunk = 0, self.chunk
        if self.binary:
            binary, low, high = True, self._low, self._high
        else:
            binary, low, high = binary_features(self.codes, rows, self.codes.shape[1])
        if binary:  # every feature binary at the node: the pair-count solver
            solve_depth2_binary(self.codes, self.y, self.w, rows, low, high,
                                self.fc.categorical, self.n_classes, depth,
                                self.options.min_samples_leaf, self._error, self._tests)
        if not binary:  # the node's tables once, for every piece of its root tests
            cap2, cap3 = self._caps(bound)
            node = depth2_node(self.codes, self.y, self.w, rows, self.fc.n_codes,
                               self.fc.categorical, self.n_classes, depth, self.learn,
                               self.max_subset, self.options.min_samples_leaf, True, cap2,
                               cap3, self._error, self._tests)
        while not binary:  # root tests in pieces: the time limit is checked in between
            began = time.perf_counter()
            n_tests, first = depth2_tests(node, self.codes, self.y, self.w, rows,
                                          self.fc.categorical, self.n_classes, self.learn,
                                          self.max_subset, self.options.min_samples_leaf,
                                          first, first + chunk, self.threads, self._error,
                                          self._tests)
            if first >= n_tests:
                break
            self.check_time()
            spent = time.perf_counter() - began
            chunk = max(1, min(4 * chunk, int(chunk * CHUNK_SECONDS / max(spent, 1e-6))))
        if np.isfinite(self.deadline):
            self.chunk = chunk
        best_cost, best_b = None, 0
        for b in range(min(budget, 3) + 1):
            tests = self._tests[b]
            splits = 0 if tests[0, 0] == NO_FEATURE else int(np.count_nonzero(
                tests[:, 0] != NO_FEATURE))
            cost = self._error[b] + self.alpha * splits
            if best_cost is None or cost < best_cost:
                best_cost, best_b = cost, b
        if best_cost < bound or binary:
            return best_cost, self._small_tree(self._tests[best_b])
        # nothing below the bound: every tree errs at least as much as the trees found, or
        # as the bounds of the cuts skipped
        skipped = node[9]
        alpha, e = self.alpha, self._error
        lower = min(e[0], e[1] + alpha)
        if budget >= 2:
            lower = min(lower, min(e[2], skipped[2]) + 2 * alpha)
        if budget >= 3:
            lower = min(lower, min(e[3], skipped[3]) + 3 * alpha)
        return max(lower, self.w.dtype.type(bound)), None

    def _caps(self, bound):
        """The largest errors of a tree of 2 and of 3 splits whose cost, with the split
        penalty, is still below ``bound`` (no cap when it is infinite)."""
        dtype = self.w.dtype.type
        if not np.isfinite(bound):
            top = np.iinfo(np.int64).max if self.w.dtype == np.int64 else np.inf
            return dtype(top), dtype(top)
        if self.w.dtype == np.int64:  # whole weights and penalty: one below is the cap
            return (dtype(bound - 2 * self.alpha - 1), dtype(bound - 3 * self.alpha - 1))
        return (np.nextafter(dtype(bound - 2 * self.alpha), -np.inf),
                np.nextafter(dtype(bound - 3 * self.alpha), -np.inf))

    @staticmethod
    def _small_tree(tests: np.ndarray) -> SearchNode:
        if tests[0, 0] == NO_FEATURE:
            return SearchNode()
        children = [SearchNode(tests[j].copy()) if tests[j, 0] != NO_FEATURE else SearchNode()
                    for j in (1, 2)]
        for child in children:
            if child.test is not None:
                child.left, child.right = SearchNode(), SearchNode()
        return SearchNode(tests[0].copy(), children[0], children[1])

    def budget_options(self, depth: int, budget: int):
        """(left budget, right budget) pairs worth trying below a split."""
        cap = (1 << (depth - 1)) - 1
        if budget - 1 >= 2 * cap:
            return [(cap, cap)]
        low = max(0, budget - 1 - cap)
        return [(b, budget - 1 - b) for b in range(low, min(cap, budget - 1) + 1)]

    def lower_bound(self, rows: np.ndarray, depth: int, budget: int):
        entry = self.cache.get((rows.tobytes(), depth, budget))
        if entry is None:
            return self.w.dtype.type(0)
        return entry[0]

    # -- the search --------------------------------------------------------------------------
    def solve(self, rows: np.ndarray, depth: int, budget: int, bound, root: RootState = None):
        """(cost, tree) of the optimum when it is below ``bound``; else (lower bound, None)
        with the lower bound >= ``bound``."""
        self.stats.n_subproblems += 1
        key = (rows.tobytes(), depth, budget)
        entry = self.cache.get(key)
        if entry is not None:
            self.stats.cache_hits += 1
            value, tree = entry
            if tree is not None:
                return (value, tree) if value < bound else (value, None)
            if value >= bound:
                return value, None
        self.check_time()
        if self.similar and np.isfinite(bound):
            lower = self.similarity_bound(rows, depth, budget)
            if lower >= bound:
                self.stats.similarity_prunes += 1
                self.cache[key] = (lower, None)
                return lower, None
        if depth <= 2 or budget <= 2:
            cost, tree = self.small(rows, depth, budget, bound)
            self.cache[key] = (cost, tree)
            if tree is None:
                return cost, None
            self.remember(rows, depth, budget, cost)
            return (cost, tree) if cost < bound else (cost, None)
        leaf = self.leaf_cost(rows)
        best_cost, best_tree = bound, None
        if leaf < bound:
            best_cost, best_tree = leaf, SearchNode()
        if root is not None:
            root.found(best_cost, best_tree)
        tests, errors = node_tests(self.codes, self.y, self.w, rows, self.fc.n_codes,
                                   self.fc.categorical, self.n_classes, self.learn,
                                   self.max_subset, self.options.min_samples_leaf)
        order = np.argsort(errors, kind="stable")
        # compiled when the root, if it is this node, has no max_gap to stop it per test
        if depth == 3 and budget >= 7 and self.binary and (root is None
                                                           or self.options.max_gap == 0):
            best_cost, best_tree = self.depth3(rows, tests, order, best_cost, best_tree,
                                               root)
        elif self.INTERVALS and self.similar and len(self.budget_options(depth, budget)) == 1:
            best_cost, best_tree = self.interval_splits(rows, depth, budget, tests, errors,
                                                        order, best_cost, best_tree, root)
        else:
            best_cost, best_tree = self.splits(rows, depth, budget, tests, order, best_cost,
                                               best_tree, root)
        if best_tree is None:
            self.cache[key] = (bound, None)
            return bound, None
        self.cache[key] = (best_cost, best_tree)
        self.remember(rows, depth, budget, best_cost)
        return best_cost, best_tree

    def splits(self, rows, depth, budget, tests, order, best_cost, best_tree, root):
        """The node's tests in ``order`` against the best tree so far: the best
        ``(cost, tree)`` (tree None while nothing beat the bound)."""
        pairs = self.budget_options(depth, budget)
        for t in order:
            self.check_time()
            if root is not None and root.should_stop():
                break
            if best_cost <= self.alpha:  # no split can beat a perfect tree
                break
            test = tests[t]
            left, right = split_rows(self.codes, rows, test)
            for b_left, b_right in pairs:
                cost, tree = self._solve_split(left, right, depth - 1, b_left, b_right,
                                               best_cost)
                if tree is not None:
                    best_cost, best_tree = cost, SearchNode(test, tree[0], tree[1])
                    if root is not None:
                        root.found(best_cost, best_tree)
        return best_cost, best_tree

    def interval_splits(self, rows, depth, budget, tests, errors, order, best_cost,
                        best_tree, root):
        """``splits`` with ConTree's pruning of ordered tests (needs ``similar`` and one
        budget pair). The tests of one feature with missing values on one side (and, for
        the left-missing-right-known side, the test "known left" after them) form a chain
        whose left child grows by the rows between two cuts, of weight W: the left child's
        optimum never falls along the chain and the right one's never rises, and each
        moves by at most W. So the optima at two evaluated cuts i < k bound both children
        at every cut between them; the cuts whose bound (plus the split penalty) reaches
        the best cost so far are skipped, and the middle one of the rest is evaluated.
        Order: the cut of least two-leaf error of every chain (chains by that error),
        the other tests (categorical) by their two-leaf error, then the open intervals of
        every chain in one queue, the lowest bound first (ties: the chain's rank, the
        interval's position); only strictly better trees are kept."""
        (b_left, b_right), = self.budget_options(depth, budget)
        plans, others = self._chains(tests, errors, order)
        state = [best_cost, best_tree]
        zero = self.w.dtype.type(0)
        floor = self.floor(rows, depth, best_cost)
        least = self.alpha if floor is None else max(self.alpha, floor)

        def stop():  # the best so far is optimal once it reaches a lower bound
            self.check_time()
            return (root is not None and root.should_stop()) or state[0] <= least

        def evaluate(t, low_left, low_right, slack, target=np.inf):
            """Both children of test t against the best so far: their lower bounds
            (exact optima where solved below their bounds) and whether it became the best
            tree. The larger child first, solved only below what the best so far leaves
            it; then the smaller one below what is left plus ``slack``, so that a child
            that cannot get there still bounds the cuts within ``slack`` of this one out
            (ConTree's neighbourhood pruning, of the interval the cut halves)."""
            test = tests[t]
            left, right = split_rows(self.codes, rows, test)
            low_left = max(low_left, self.lower_bound(left, depth - 1, b_left))
            low_right = max(low_right, self.lower_bound(right, depth - 1, b_right))
            bound = min(state[0], target) - self.alpha
            if low_left + low_right >= bound:
                return low_left, low_right
            swapped = right.shape[0] > left.shape[0]
            sides = [(left, b_left, low_left), (right, b_right, low_right)]
            if swapped:
                sides.reverse()
            (rows_a, b_a, low_a), (rows_b, b_b, low_b) = sides
            cost_a, tree_a = self.solve(rows_a, depth - 1, b_a, bound - low_b)
            cost_a = max(cost_a, low_a)
            cost_b = low_b
            if tree_a is not None:
                cost_b, tree_b = self.solve(rows_b, depth - 1, b_b, bound - cost_a + slack)
                cost_b = max(cost_b, low_b)
                if tree_b is not None and cost_a + cost_b < bound:
                    trees = (tree_b, tree_a) if swapped else (tree_a, tree_b)
                    state[0] = cost_a + cost_b + self.alpha
                    state[1] = SearchNode(test, trees[0], trees[1])
                    if root is not None:
                        root.found(state[0], state[1])
            return (cost_b, cost_a) if swapped else (cost_a, cost_b)

        if floor is not None:  # a tree at the node's lower bound is optimal: look for one
            for chain, p in plans[:PROBE_CUTS]:
                if stop():
                    return state[0], state[1]
                self.probe(evaluate, chain[p], floor + 1)
        first = {}  # the bounds of each chain's best cut
        for chain, p in plans:
            if stop():
                return state[0], state[1]
            first[chain[p]] = evaluate(chain[p], zero, zero, np.inf)
        for t in others:
            if stop():
                return state[0], state[1]
            evaluate(t, zero, zero, zero)
        # every cut's children are parts of the node's rows: a child holding all but
        # weight W of them is bounded by OPT(node's rows) - W (at depth 3 that optimum is
        # one depth-2 solve; deeper, a cached bound or 0), as if the chain had cuts before
        # its first (left child empty) and after its last (right child empty)
        if depth - 1 <= 2 and b_left == b_right:
            whole, _tree = self.solve(rows, depth - 1, b_left, np.inf)
        else:
            whole = self.lower_bound(rows, depth - 1, b_left) if b_left == b_right else zero
        lines = []  # per chain: its tests, left weights and children's bounds by cut
        queue = []  # open intervals of every chain, the lowest bound first
        for rank, (chain, p) in enumerate(plans):
            line = self._chain_line(rows, tests, chain, whole)
            _chain, _moved, low_l, low_r = line
            m = len(chain)
            low_l[p + 1], low_r[p + 1] = first[chain[p]]
            lines.append(line)
            for i, k in ((0, p + 1), (p + 1, m + 1)):
                self._push_interval(queue, lines, rank, i, k, state[0])
        while queue:
            _key, rank, i, k = heapq.heappop(queue)
            chain, moved, low_l, low_r = lines[rank]
            bounds = self._interval_bounds(lines[rank], i, k, state[0])
            if bounds is None:
                continue
            q, left_bound, right_bound, _least = bounds
            if stop():
                return state[0], state[1]
            j = i + 1 + q
            slack = max(moved[j] - moved[i], moved[k] - moved[j])
            low_l[j], low_r[j] = evaluate(chain[j - 1], left_bound, right_bound, slack)
            self._push_interval(queue, lines, rank, i, j, state[0])
            self._push_interval(queue, lines, rank, j, k, state[0])
        return state[0], state[1]

    def floor(self, rows, depth, best):
        """A lower bound on the node's optimum below ``best``, or None: a tree that beats
        the leaf splits, so it errs at least on the equivalent points and pays one split
        penalty. A tree that reaches it is optimal and ends the node (``stop``), and the
        node probes for one (``probe``). Only at depth >= 4 (a depth-3 node's children
        are single depth-2 solves: no proof to cut short) on data that is not all binary,
        with whole weights (the bound + 1 is then the target), outside another probe."""
        if depth < 4 or self.binary or self.w.dtype != np.int64 or np.isfinite(
                self.probe_limit):
            return None
        floor = equivalent_points_bound(self.codes[rows], self.y[rows], self.w[rows],
                                        self.n_classes) + self.alpha
        return floor if floor < best else None

    def probe(self, evaluate, t, target):
        """Test t's children solved only for a tree below ``target`` (``evaluate``), with
        at most PROBE_SOLVES depth-2 solves. Such a tree is cheap to find when there is
        one (its children's solves prune every cut that cannot reach it), and a costly
        proof when there is none (wdbc at depth 4: a perfect depth-3 tree on 345 rows in
        36 solves, no perfect one on 379 rows in 283), so the proof is cut short: its
        solves so far stay cached, optima or lower bounds for the search to reuse."""
        per_feature, more = PROBE_SOLVES
        self.probe_limit = self.stats.depth2_calls + per_feature * self.codes.shape[1] + more
        began = self.stats.depth2_calls
        zero = self.w.dtype.type(0)
        try:
            evaluate(t, zero, zero, zero, target)
        except ProbeSpent:
            pass
        finally:
            self.probe_limit = np.inf
            self.stats.probe_solves += self.stats.depth2_calls - began

    def _chains(self, tests, errors, order):
        """The node's ordered tests as chains ``(tests in scan order, the index of the
        one of least two-leaf error)``, chains by that error; and the other tests (by
        their error). A chain is one feature's cuts with missing values on one side, the
        test "known left, missing right" after the cuts that send them right."""
        chains: dict = {}
        others = []
        for t in order:  # by two-leaf error: each chain's first entry is its best cut
            test = tests[t]
            if test[1] == ORDERED:
                chains.setdefault((int(test[0]), int(test[3])), []).append(int(t))
            elif test[1] == KNOWN:
                chains.setdefault((int(test[0]), 0), []).append(int(t))
            else:
                others.append(int(t))
        plans = []
        for members in sorted(chains.values(), key=lambda members: errors[members[0]]):
            chain = sorted(members)  # scan order: increasing cuts, "known left" last
            plans.append((chain, chain.index(members[0])))
        return plans, others

    def _chain_line(self, rows, tests, chain, whole):
        """``(chain, left weights, left bounds, right bounds)`` over the chain's cuts and
        two virtual ones, before its first (left child empty) and after its last (right
        child empty): every child is the node's rows minus the other child's, so a child
        holding all but weight W is bounded by ``whole`` (a lower bound on the node's
        rows at the children's depth) minus W, as the virtual cuts bound it."""
        zero = self.w.dtype.type(0)
        m = len(chain)
        g = int(tests[chain[0], 0])
        col = self.codes[rows, g]
        known = col >= 0
        wk = self.w[rows][known]
        ck = col[known]
        cuts = np.array([tests[t, 2] if tests[t, 1] == ORDERED else np.iinfo(np.int64).max
                         for t in chain], dtype=np.int64)
        by_code = np.argsort(ck, kind="stable")
        cw = np.concatenate(([zero], np.cumsum(wk[by_code])))
        # each cut's left weight (with the missing rows when they go left)
        total = self.w[rows].sum()
        missing = total - cw[-1] if tests[chain[0], 3] == 1 else zero
        moved = np.concatenate(([zero], cw[np.searchsorted(ck[by_code], cuts, side="right")]
                                + missing, [total]))
        low_l = np.zeros(m + 2, dtype=self.w.dtype)
        low_r = np.zeros(m + 2, dtype=self.w.dtype)
        low_r[0] = low_l[m + 1] = whole
        return chain, moved, low_l, low_r

    def _between(self, line, i, k):
        """Lower bounds on the left and right children at the cuts i+1..k-1 of a chain
        from the evaluated (or virtual) cuts i < k: moving the cut right from i to j (rows
        of weight W move left) keeps the left optimum at least its value at i and lowers
        the right one by at most W; from k to j the other way round."""
        _chain, moved, low_l, low_r = line
        inner = moved[i + 1:k]
        zero = self.w.dtype.type(0)
        left_bound = np.maximum(np.maximum(low_l[i], low_l[k] - (moved[k] - inner)), zero)
        right_bound = np.maximum(np.maximum(low_r[k], low_r[i] - (inner - moved[i])), zero)
        return left_bound, right_bound

    def _interval_bounds(self, line, i, k, best):
        """The cut to evaluate between the evaluated cuts i < k of a chain, ``(its
        offset, its children's bounds, the least bound of the interval)``, or None when no
        cut between them can cost less than ``best`` (``_between``)."""
        if k - i <= 1:
            return None
        left_bound, right_bound = self._between(line, i, k)
        cost = left_bound + right_bound + self.alpha
        open_ = np.flatnonzero(cost < best)
        if open_.size == 0:
            return None
        q = int(open_[open_.size // 2])  # the middle one of the cuts still open
        return q, left_bound[q], right_bound[q], cost[open_].min()

    def _push_interval(self, queue, lines, rank, i, k, best):
        """Queue the open interval (i, k) of chain ``rank`` by its least bound (ties: the
        chain's rank, then the interval's position)."""
        bounds = self._interval_bounds(lines[rank], i, k, best)
        if bounds is not None:
            heapq.heappush(queue, (bounds[3], rank, i, k))

    def depth3(self, rows, tests, order, best_cost, best_tree, root):
        """``splits`` at a depth-3 node with a full budget on binary data, compiled
        (``_kernels/_optimal.pyx``): in pieces of tests under a time limit, the root's
        incumbent updated after each piece."""
        best_cost = self.w.dtype.type(best_cost)
        first, n_tests, chunk = 0, order.shape[0], self.chunk3
        stats = np.zeros(4, dtype=np.int64)
        while first < n_tests:
            self.check_time()
            began = time.perf_counter()
            last = min(n_tests, first + chunk)
            self.memo_room(last - first, rows.shape[0])
            cost, t, stop = solve_depth3_binary(
                self.codes, self.y, self.w, rows, tests, order, first, last, self._low,
                self._high, self.fc.categorical, self.n_classes,
                self.options.min_samples_leaf, self.alpha, self.similar, best_cost,
                self.memo, self._trees, stats)
            if t >= 0:
                best_cost = cost
                best_tree = SearchNode(tests[t], self._small_tree(self._trees[0]),
                                       self._small_tree(self._trees[1]))
                if root is not None:
                    root.found(best_cost, best_tree)
            if stop < last:
                break
            first = last
            if np.isfinite(self.deadline):
                spent = time.perf_counter() - began
                chunk = max(1, min(4 * chunk, int(chunk * CHUNK_SECONDS / max(spent, 1e-6))))
        self.chunk3 = chunk
        self.stats.n_subproblems += int(stats[0])
        self.stats.depth2_calls += int(stats[1])
        self.stats.similarity_prunes += int(stats[2])
        self.stats.cache_hits += int(stats[3])
        return best_cost, best_tree

    def memo_room(self, n_splits: int, n_rows: int) -> None:
        """Make room in the memo for the children of ``n_splits`` splits of ``n_rows`` rows:
        ``(slot hashes, slot entries, entry starts, lengths, values, exact flags, row
        pool, [entries, pool used, sets solved], the similarity bound's two solved sets,
        their lengths and optima)``, at most half the slots used."""
        if self.memo is None:
            self.memo = (np.zeros(1, np.uint64), np.full(1, -1, np.int64),
                         np.zeros(0, np.int64), np.zeros(0, np.int64),
                         np.zeros(0, self.w.dtype), np.zeros(0, np.bool_),
                         np.zeros(0, np.int64), np.zeros(3, np.int64),
                         np.zeros((SIMILAR_KEPT, self.y.shape[0]), np.int64),
                         np.full(SIMILAR_KEPT, -1, np.int64),
                         np.zeros(SIMILAR_KEPT, self.w.dtype))
        slot_hash, entry_of, start, length, values, exact, pool, used, *kept = self.memo
        entries = int(used[0]) + 2 * n_splits
        if entries > start.shape[0]:
            size = max(entries, 2 * start.shape[0])
            start, length, values, exact = (_grown(a, size, int(used[0]))
                                            for a in (start, length, values, exact))
        pooled = int(used[1]) + n_splits * n_rows  # a split's two children hold its rows
        if pooled > pool.shape[0]:
            pool = _grown(pool, max(pooled, 2 * pool.shape[0]), int(used[1]))
        if 2 * entries > slot_hash.shape[0]:
            slot_hash, entry_of = rehash(slot_hash, entry_of, start, length, pool,
                                         int(used[0]), 1 << (4 * entries - 1).bit_length())
        self.memo = (slot_hash, entry_of, start, length, values, exact, pool, used, *kept)

    def remember(self, rows: np.ndarray, depth: int, budget: int, cost) -> None:
        """Keep the last few solved row sets per (depth, budget) for the similarity bound."""
        if self.similar:
            recent = self.recent.setdefault((depth, budget), [])
            recent.insert(0, (rows, cost))
            del recent[SIMILAR_KEPT:]

    def similarity_bound(self, rows: np.ndarray, depth: int, budget: int):
        """Lower bound from a solved row set S': removing rows of weight W from S' lowers
        its optimum by at most W, and adding rows never lowers it, so
        OPT(rows) >= OPT(S') - weight(S' minus rows). Row sets are sorted (the root's is
        and splits keep the order)."""
        best = self.w.dtype.type(0)
        for other, cost in self.recent.get((depth, budget), ()):
            best = max(best, cost - weight_outside(other, rows, self.w))
        return best

    def _solve_split(self, left, right, depth, b_left, b_right, bound):
        """Both children of a split below ``bound``: (cost, (left tree, right tree)) or
        (lower bound, None)."""
        alpha = self.alpha
        lb_left = self.lower_bound(left, depth, b_left)
        lb_right = self.lower_bound(right, depth, b_right)
        if lb_left + lb_right + alpha >= bound:
            return lb_left + lb_right + alpha, None
        first, second = (left, b_left, lb_right), (right, b_right, lb_left)
        swapped = right.shape[0] > left.shape[0]
        if swapped:  # the larger child first: it leaves the tighter bound to the other
            first, second = (right, b_right, lb_left), (left, b_left, lb_right)
        cost_a, tree_a = self.solve(first[0], depth, first[1], bound - alpha - first[2])
        if tree_a is None:
            return cost_a + first[2] + alpha, None
        cost_b, tree_b = self.solve(second[0], depth, second[1], bound - alpha - cost_a)
        if tree_b is None:
            return cost_a + cost_b + alpha, None
        trees = (tree_b, tree_a) if swapped else (tree_a, tree_b)
        return cost_a + cost_b + alpha, trees


def _threads() -> np.int64:
    """The threads (OpenMP's) the depth-2 solver may share a node's interval blocks among;
    the trees are the same on any number."""
    return np.int64(max_threads())


def _grown(array: np.ndarray, size: int, used: int) -> np.ndarray:
    """A longer copy of ``array`` that keeps its first ``used`` items."""
    grown = np.empty(size, dtype=array.dtype)
    grown[:used] = array[:used]
    return grown


@dataclass
class RootState:
    """The incumbent of an anytime search, updated whenever the root finds a better tree."""

    cost: object
    tree: SearchNode
    lower_bound: object
    max_gap: float = 0.0
    stopped_by_gap: bool = False

    def found(self, cost, tree) -> None:
        if tree is not None and cost < self.cost:
            self.cost, self.tree = cost, tree

    def should_stop(self) -> bool:
        """True once the incumbent is within ``max_gap`` of the proven lower bound."""
        if self.max_gap > 0 and self.cost - self.lower_bound <= self.max_gap:
            self.stopped_by_gap = True
        return self.stopped_by_gap


def equivalent_points_bound(codes: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int):
    """Misclassified weight no tree can avoid: rows with the same code on every feature
    follow the same path, so each such group loses its weight outside its majority class."""
    _, group = np.unique(codes, axis=0, return_inverse=True)
    group = group.ravel()
    table = np.zeros((int(group.max(initial=-1)) + 1, n_classes), dtype=w.dtype)
    np.add.at(table, (group, y), w)
    return (table.sum(axis=1) - table.max(axis=1, initial=0)).sum()


@dataclass
class SearchResult:
    tree: SearchNode
    objective: object
    lower_bound: object
    optimal: bool
    timed_out: bool


def run_search(search: Search, rows: np.ndarray, incumbent_cost, incumbent: SearchNode,
               budget: int) -> SearchResult:
    """Improve on the incumbent until proven optimal, the time limit or ``max_gap``."""
    o = search.options

    def points_bound():
        # the optimum is the incumbent (no worse than a leaf) or a tree with a split: that
        # one errs at least on the equivalent points and pays the split penalty
        bound = equivalent_points_bound(search.codes[rows], search.y[rows], search.w[rows],
                                        search.n_classes)
        return min(incumbent_cost, bound + search.alpha)

    # only max_gap and a search stopped by the time limit need the bound (a sort of the
    # rows: a large part of a small fit), so it is computed when one of them does
    state = RootState(incumbent_cost, incumbent,
                      points_bound() if o.max_gap > 0 else incumbent_cost,
                      max_gap=float(o.max_gap))
    if state.should_stop():
        return SearchResult(state.tree, state.cost, state.lower_bound, False, False)
    try:
        cost, tree = search.solve(rows, o.max_depth, budget, incumbent_cost, root=state)
    except TimeUp:
        lower = state.lower_bound if o.max_gap > 0 else points_bound()
        return SearchResult(state.tree, state.cost, min(state.cost, lower), False, True)
    state.found(cost, tree)
    if state.stopped_by_gap:
        return SearchResult(state.tree, state.cost, state.lower_bound, False, False)
    return SearchResult(state.tree, state.cost, state.cost, True, False)
