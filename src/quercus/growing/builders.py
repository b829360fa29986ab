"""Depth-first and best-first growth of binary trees over a splitter.

Stopping rules follow scikit-learn's: a node is a leaf at ``max_depth``, with fewer than
``min_samples_split`` rows or ``2 * min_samples_leaf`` rows, with less than twice the
minimum leaf weight, when it is pure (impurity <= machine epsilon), when no valid split
exists, or when the best split decreases the weighted impurity by less than
``min_impurity_decrease``.

With monotonic constraints (``splitter.monotonic_cst``, two classes) every node carries
bounds on its share of class 1, as in scikit-learn: a split on a constrained feature
gives its children the halves of the parent's bounds on either side of the mean of their
shares, other splits pass the bounds down, and each node's stored class weights are
rescaled so that its share lies within its bounds.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ..tree import Tree, TreeRecorder

EPSILON = float(np.finfo(np.float64).eps)


@dataclass
class StoppingRules:
    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    min_weight_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int | None = None


@dataclass
class _Candidate:
    """A recorded node with the split it would take (None: it stays a leaf)."""

    node: int
    start: int
    end: int
    depth: int
    split: object
    improvement: float
    bounds: tuple = (0.0, 1.0)


def _clipped(weights: np.ndarray, weight: float, bounds: tuple) -> np.ndarray:
    """Two-class weights rescaled so that the share of class 1 lies within ``bounds``."""
    share = weights[1] / weight if weight > 0 else 0.0
    clipped = min(max(share, bounds[0]), bounds[1])
    if clipped == share:
        return weights
    return np.array([weight * (1.0 - clipped), weight * clipped])


def _child_bounds(splitter, split, left, right, bounds) -> tuple[tuple, tuple]:
    """Bounds on the class-1 share of the left and right children of a split."""
    if splitter.monotonic_cst is None or splitter.monotonic[split.feature] == 0:
        return bounds, bounds
    middle = 0.5 * (left[1] / left.sum() + right[1] / right.sum())
    low, high = bounds
    if splitter.monotonic[split.feature] > 0:
        return (low, middle), (middle, high)
    return (middle, high), (low, middle)


def _node_weight(splitter, weights: np.ndarray) -> float:
    """Total weight of a node from what the splitter summarises it by (class weights, one
    block per output; a regression splitter's sums answer ``node_weight`` itself)."""
    if hasattr(splitter, "node_weight"):
        return splitter.node_weight(weights)
    return float(weights.sum()) / getattr(splitter, "n_outputs", 1)


def _stops(rules: StoppingRules, n: int, depth: int, weight: float, impurity: float) -> bool:
    """Whether a node of ``n`` rows at ``depth`` with this weight and impurity is a leaf
    whatever its rows (``_kernels/_hist.pyx`` applies the same rules)."""
    return (depth >= rules.max_depth or n < rules.min_samples_split
            or n < 2 * rules.min_samples_leaf or weight < 2 * rules.min_weight_leaf
            or impurity <= EPSILON)


def _record_node(splitter, recorder, rules, start, end, depth, total_weight, parent, branch,
                 weights=None, bounds=(0.0, 1.0)):
    """Add the node ``start:end`` to the recorder and find its split if it may have one.

    ``weights``: the segment's class weights when the parent already summed them;
    ``bounds``: the node's bounds on the share of class 1 (monotonic constraints).
    """
    if weights is None:
        weights = splitter.class_weights(start, end)
    weight = _node_weight(splitter, weights)
    impurity = splitter.impurity(weights)
    constrained = getattr(splitter, "monotonic_cst", None) is not None
    value = _clipped(weights, weight, bounds) if constrained else weights
    if hasattr(splitter, "node_value"):  # regression: the mean target, not the sums
        value = splitter.node_value(weights)
    node = recorder.add(value=value, impurity=impurity, n_samples=end - start, weight=weight)
    if parent >= 0:
        recorder.nodes[parent]["children"][branch] = node
    if _stops(rules, end - start, depth, weight, impurity):
        if hasattr(splitter, "release"):
            splitter.release(start, end)
        return _Candidate(node, start, end, depth, None, 0.0)
    splitter.bounds = bounds
    split = splitter.find(start, end)
    if split is None:
        return _Candidate(node, start, end, depth, None, 0.0)
    # Weighted impurity decrease of the split, relative to the whole training weight.
    mid = splitter.apply(start, end, split)
    left = splitter.class_weights(start, mid)
    right = splitter.class_weights(mid, end)
    w_left, w_right = _node_weight(splitter, left), _node_weight(splitter, right)
    improvement = (weight / total_weight) * (
        impurity - w_right / weight * splitter.impurity(right)
        - w_left / weight * splitter.impurity(left))
    if improvement + EPSILON < rules.min_impurity_decrease:
        if hasattr(splitter, "release"):
            splitter.release(start, mid)
            splitter.release(mid, end)
        return _Candidate(node, start, end, depth, None, 0.0)
    return _Candidate(node, start, end, depth, (split, mid, left, right), improvement, bounds)


def _expand(splitter, recorder, candidate):
    """Make the candidate a split node; returns its children's (start, end, branch, class
    weights, bounds)."""
    split, mid, left, right = candidate.split
    recorder.make_split(candidate.node, kind=split.kind, feature=split.feature,
                        children=[-1, -1], missing_branch=split.missing_branch,
                        threshold=split.threshold, category_map=split.category_map)
    left_bounds, right_bounds = _child_bounds(splitter, split, left, right, candidate.bounds)
    return [(candidate.start, mid, 0, left, left_bounds),
            (mid, candidate.end, 1, right, right_bounds)]


def _grows_whole(splitter, rules, start, end, depth, weights) -> bool:
    """Whether the segment grows whole in compiled code (``HistSplitter.grow_segment``): the
    splitter can, and the segment is no leaf at once (its histograms are then needed)."""
    if weights is None or not getattr(splitter, "grows_whole", None):
        return False
    if not splitter.grows_whole(start, end):
        return False
    return not _stops(rules, end - start, depth, _node_weight(splitter, weights),
                      splitter.impurity(weights))


def grow(splitter, rules: StoppingRules, n_classes: int, progress=None,
         total_weight: float | None = None) -> Tree:
    """Grow depth first, or best first when ``rules.max_leaf_nodes`` is set.

    ``total_weight``: the training weight the impurity decreases are relative to (default:
    the splitter's rows'; a subtree grown apart, as in ``quercus.dask``, passes the whole's).

    ``progress``, if given, is called with the share of the rows that have reached their
    leaf (0 to 1, never decreasing), after each leaf and once with 1.0 at the end.
    """
    recorder = TreeRecorder(n_classes)
    n = splitter.n_rows
    # a histogram splitter sums per-class weights as counts x factors (order-free)
    if total_weight is None:
        total_weight = float(getattr(splitter, "total_weight", splitter.sample_weight.sum()))
    settled = 0

    def settle(rows: int) -> None:
        nonlocal settled
        settled += rows
        if progress is not None:
            progress(settled / n if n else 1.0)

    if rules.max_leaf_nodes is None:
        stack = [(0, n, 0, -1, 0, None, (0.0, 1.0))]
        while stack:
            start, end, depth, parent, branch, weights, bounds = stack.pop()
            if weights is None and hasattr(splitter, "grows_whole"):  # the root's
                weights = splitter.class_weights(start, end)
            if _grows_whole(splitter, rules, start, end, depth, weights):
                recorder.add_subtree(splitter.grow_segment(start, end, depth, weights, rules,
                                                           total_weight), parent, branch)
                settle(end - start)
                continue
            candidate = _record_node(splitter, recorder, rules, start, end, depth, total_weight,
                                     parent, branch, weights, bounds)
            if candidate.split is None:
                settle(end - start)
                continue
            for child_start, child_end, child_branch, child_weights, child_bounds in reversed(
                    _expand(splitter, recorder, candidate)):
                stack.append((child_start, child_end, depth + 1, candidate.node, child_branch,
                              child_weights, child_bounds))
    else:
        # Best first: always expand the frontier node whose split decreases impurity most;
        # among equal decreases, the node created first.
        splits_left = rules.max_leaf_nodes - 1
        root = _record_node(splitter, recorder, rules, 0, n, 0, total_weight, -1, 0)
        frontier = [(-root.improvement, root.node, root)]
        while frontier:
            _, _, candidate = heapq.heappop(frontier)
            if candidate.split is None or splits_left <= 0:
                settle(candidate.end - candidate.start)
                continue
            splits_left -= 1
            for child_start, child_end, child_branch, child_weights, child_bounds in _expand(
                    splitter, recorder, candidate):
                child = _record_node(splitter, recorder, rules, child_start, child_end,
                                     candidate.depth + 1, total_weight, candidate.node,
                                     child_branch, child_weights, child_bounds)
                heapq.heappush(frontier, (-child.improvement, child.node, child))
    if progress is not None:
        progress(1.0)
    return recorder.to_tree()
