"""Best-first growth (``max_leaf_nodes``) from class counts summed over a cluster.

``grow`` pops the frontier node whose split decreases impurity most; its children must be
searched before they can compete. Batched form: each round counts the children of the top
``q`` frontier candidates at once (speculation), then the driver replays the heap exactly as
``grow`` does, popping while the popped node's children are counted and stopping at the
first one whose children are not. Node ids come out in ``grow``'s order, so the tree and
its tie-breaks are ``grow``'s.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from ..growing.builders import StoppingRules, _expand, _record_node
from ..tree import Tree, TreeRecorder
from ._levels import ClusterSplitter


def grow_best_first(splitter: ClusterSplitter, rules: StoppingRules, n_classes: int,
                    root_counts: np.ndarray, total_weight: float, count_round: Callable,
                    q: int = 64, progress: Callable | None = None) -> Tree:
    """``count_round(table, requests, n_hists)`` returns summed int64 counts: with no
    requests, one histogram of every row; else, for request i (node, feature, left_bins),
    histograms 2i (its left child's rows) and 2i + 1. ``table`` holds the committed splits
    by node id: (feature, left_bins, left_id, right_id), feature -1 for the rest."""
    recorder = TreeRecorder(n_classes)
    n = splitter.rows_in(root_counts)
    splitter.class_counts[(0, n)] = np.asarray(root_counts, dtype=np.int64)
    width = splitter.missing_bin + 1
    no_requests = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, width), bool))
    committed: dict[int, tuple] = {}  # node id -> (feature, left_bins, left id, right id)

    def table() -> tuple:
        size = len(recorder.nodes)
        feature = np.full(size, -1, dtype=np.int32)
        left_bins = np.zeros((size, width), dtype=np.bool_)
        left_id = np.full(size, -1, dtype=np.int32)
        right_id = np.full(size, -1, dtype=np.int32)
        for node, (f, bins, left, right) in committed.items():
            feature[node], left_bins[node], left_id[node], right_id[node] = f, bins, left, right
        return feature, left_bins, left_id, right_id

    splitter.counts[(0, n)] = count_round(table(), no_requests, 1)[0]
    root = _record_node(splitter, recorder, rules, 0, n, 0, total_weight, -1, 0)
    frontier = [(-root.improvement, root.node, root)]
    counted: set[int] = set()  # candidates whose children's counts are known
    splits_left = rules.max_leaf_nodes - 1
    settled = 0
    while frontier:
        # replay grow's loop while the next popped node's children are counted
        while frontier:
            _, _, candidate = frontier[0]
            if candidate.split is not None and splits_left > 0 \
                    and candidate.node not in counted:
                break
            heapq.heappop(frontier)
            if candidate.split is None or splits_left <= 0:
                settled += candidate.end - candidate.start
                if progress is not None:
                    progress(settled / n)
                continue
            splits_left -= 1
            split = candidate.split[0]
            children = []
            for child_start, child_end, child_branch, child_weights, _ in _expand(
                    splitter, recorder, candidate):
                child = _record_node(splitter, recorder, rules, child_start, child_end,
                                     candidate.depth + 1, total_weight, candidate.node,
                                     child_branch, child_weights)
                splitter.counts.pop((child_start, child_end), None)
                children.append(child.node)
                heapq.heappush(frontier, (-child.improvement, child.node, child))
            committed[candidate.node] = (split.feature, split.left_bins, *children)
        if not frontier:
            break
        # count the children of the top q candidates that may still split
        wanted = [c for _, _, c in heapq.nsmallest(q, frontier)
                  if c.split is not None and c.node not in counted]
        requests = (np.array([c.node for c in wanted], dtype=np.int64),
                    np.array([c.split[0].feature for c in wanted], dtype=np.int64),
                    np.array([c.split[0].left_bins for c in wanted], dtype=np.bool_))
        sums = count_round(table(), requests, 2 * len(wanted))
        for i, c in enumerate(wanted):
            mid = c.split[1]
            splitter.counts[(c.start, mid)] = sums[2 * i]
            splitter.counts[(mid, c.end)] = sums[2 * i + 1]
            counted.add(c.node)
    if progress is not None:
        progress(1.0)
    return recorder.to_tree()
