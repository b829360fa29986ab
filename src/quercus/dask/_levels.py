"""Level-wise growth at the driver from class counts summed over the cluster.

Each node is a virtual segment ``start:end`` of a row order nobody materialises: a split
with ``n_left`` rows on the left gives ``start:start + n_left`` and the rest. That lets the
single-machine builder's ``_record_node`` (leaf rules, improvement test, recording) and
``HistSplitter.find_in`` (the split search) run unchanged on the summed counts, so the tree
is the one ``grow`` gives on one machine (``TreeRecorder.to_tree`` lays the nodes out in
pre-order whatever order they were recorded in).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..binning import BinMapper
from ..growing.builders import EPSILON, StoppingRules, _expand, _node_weight, _record_node
from ..splitting.cart import Split, SplitterBase
from ..splitting.hist import HistSplitter
from ..tree import Tree, TreeRecorder


class ClusterSplitter(HistSplitter):
    """``HistSplitter``'s search over histograms that a cluster summed, one level at a time.

    ``counts[(start, end)]`` holds a node's integer class counts (n_features, bins,
    classes) once its level's round is done; ``class_counts`` its class totals.
    """

    def __init__(self, binner: BinMapper, class_factor: np.ndarray, **options):
        SplitterBase.__init__(self, np.zeros(0, dtype=np.int32), np.zeros(0), **options)
        self.binner = binner
        self.n_bins = binner.n_bins_
        self.missing_bin = binner.missing_bin_
        self.numeric = np.flatnonzero(~self.categorical_mask).astype(np.int64)
        self.class_factor = np.asarray(class_factor, dtype=np.float64)
        self.counts: dict[tuple, np.ndarray] = {}
        self.class_counts: dict[tuple, np.ndarray] = {}
        self.applied: dict[tuple, Split] = {}

    #: bytes of one histogram cell on the workers
    cell_bytes = 4

    @staticmethod
    def rows_in(totals: np.ndarray) -> int:
        """The number of rows of a node from its totals (here its class counts)."""
        return int(totals.sum())

    def class_weights(self, start: int, end: int) -> np.ndarray:
        return self.class_counts[(start, end)] * self.class_factor

    def release(self, start: int, end: int) -> None:
        pass

    def find(self, start: int, end: int) -> Split | None:
        counts = self.counts[(start, end)]
        hist = counts.astype(np.float64)
        return self.find_in(self.weighted(hist), counts.sum(axis=2), end - start)

    def apply(self, start: int, end: int, split: Split) -> int:
        self.count_category_map(split)
        left = self.counts[(start, end)][split.feature][split.left_bins].sum(axis=0)
        mid = start + int(left.sum())
        self.class_counts[(start, mid)] = left
        self.class_counts[(mid, end)] = self.class_counts[(start, end)] - left
        self.applied[(start, end)] = split
        return mid


@dataclass
class _Node:
    start: int
    end: int
    depth: int
    parent: int  # recorder id of the parent (-1: root)
    branch: int
    weights: np.ndarray | None
    sibling: int  # frontier index of the sibling (-1: none)


def _may_split(splitter: ClusterSplitter, rules: StoppingRules, node: _Node) -> bool:
    """False when ``_record_node`` will make the node a leaf without a split search."""
    n = node.end - node.start
    weights = splitter.class_weights(node.start, node.end)
    weight = _node_weight(splitter, weights)
    return not (node.depth >= rules.max_depth or n < rules.min_samples_split
                or n < 2 * rules.min_samples_leaf or weight < 2 * rules.min_weight_leaf
                or splitter.impurity(weights) <= EPSILON)


@dataclass
class LevelStats:
    """What one level cost: reported to ``on_level``."""

    level: int
    nodes: int  # frontier nodes
    histograms: int  # histograms counted on the workers
    bytes_per_worker: int  # size of one worker's counts
    seconds: float
    apart: int = 0  # nodes handed to a worker to grow their subtree there


def grow_levels(splitter: ClusterSplitter, rules: StoppingRules, n_classes: int,
                root_counts: np.ndarray, total_weight: float,
                count_round: Callable, on_level: Callable | None = None,
                progress: Callable | None = None, local_rows: int = 0,
                finish_local: Callable | None = None, save: Callable | None = None,
                state: dict | None = None) -> Tree:
    """Grow level by level.

    ``count_round(level, tables, hist_of_slot, n_hists, local_of_slot, local_rules,
    local_sizes)``
    returns the summed int64 counts (n_hists, n_features, bins, classes) of the level's
    frontier slots whose ``hist_of_slot`` is >= 0; ``tables`` are the split tables of the
    levels before (``(feature, left_bins, left_slot, right_slot)`` per slot). A node that
    may split and holds at most ``local_rows`` rows is grown apart instead: slot s with
    ``local_of_slot[s] = b >= 0`` is bucket b, with the StoppingRules ``local_rules[b]`` and
    ``local_sizes[b]`` rows (0 when resumed: not saved); ``finish_local()`` returns {b: Tree} once the levels are done.

    ``save(state)``, if given, is called after each level with what growing on needs
    (a dict to pickle); ``state`` resumes from such a dict: buckets handed out before it
    are handed out again (their rows are re-extracted by replaying the split tables).
    """
    recorder = TreeRecorder(n_classes)
    apart: dict[int, tuple[int, int]] = {}  # bucket -> (parent id, branch)
    sources: dict[int, tuple] = {}  # bucket -> (level, frontier size, slot, rules)
    n = splitter.rows_in(root_counts)
    splitter.class_counts[(0, n)] = np.asarray(root_counts, dtype=np.int64)
    frontier = [_Node(0, n, 0, -1, 0, None, -1)]
    tables: list = []
    settled = 0
    level = 0
    if state is not None:
        level, frontier, tables, settled = (state["level"], state["frontier"],
                                            state["tables"], state["settled"])
        recorder.nodes, apart, sources = state["nodes"], state["apart"], state["sources"]
        splitter.counts, splitter.class_counts = state["counts"], state["class_counts"]
        splitter.category_map_entries = state["category_map_entries"]
        for b, (at, size, slot, bucket_rules) in sorted(sources.items()):
            local_of_slot = np.full(size, -1, dtype=np.int64)
            local_of_slot[slot] = b
            count_round(at, tables[:at], np.full(size, -1, dtype=np.int64), 0, local_of_slot,
                        {b: bucket_rules}, {b: 0})
    while frontier:
        began = time.perf_counter()
        need = [_may_split(splitter, rules, node) for node in frontier]
        local_of_slot = np.full(len(frontier), -1, dtype=np.int64)
        local_rules, local_sizes = {}, {}
        for i, node in enumerate(frontier):
            if need[i] and node.end - node.start <= local_rows and node.parent >= 0:
                b = len(apart)
                local_of_slot[i] = b
                local_rules[b] = replace(rules, max_depth=rules.max_depth - node.depth)
                local_sizes[b] = node.end - node.start
                apart[b] = (node.parent, node.branch)
                sources[b] = (level, len(frontier), i, local_rules[b])
                need[i] = False
        hist_of_slot = np.full(len(frontier), -1, dtype=np.int64)
        derived = []  # (slot, sibling slot, parent key): counts = parent - sibling
        n_hists = 0
        for i, node in enumerate(frontier):
            if not need[i]:
                continue
            j = node.sibling
            if j >= 0 and need[j]:
                other = frontier[j]
                small = i if (node.end - node.start, i) <= (other.end - other.start, j) else j
                if small != i:
                    parent_key = (min(node.start, other.start), max(node.end, other.end))
                    derived.append((i, j, parent_key))
                    continue
            hist_of_slot[i] = n_hists
            n_hists += 1
        sums = None
        if n_hists or local_rules:
            sums = count_round(level, tables, hist_of_slot, n_hists, local_of_slot,
                               local_rules, local_sizes)
        for i, node in enumerate(frontier):
            if hist_of_slot[i] >= 0:
                splitter.counts[(node.start, node.end)] = sums[hist_of_slot[i]]
        for i, j, parent_key in derived:
            sibling = frontier[j]
            splitter.counts[(frontier[i].start, frontier[i].end)] = (
                splitter.counts[parent_key] - splitter.counts[(sibling.start, sibling.end)])
        # record the level's nodes; build the next frontier and this level's split table
        nxt: list[_Node] = []
        m = len(frontier)
        feature = np.full(m, -1, dtype=np.int32)
        left_bins = np.zeros((m, splitter.missing_bin + 1), dtype=np.bool_)
        left_slot = np.full(m, -1, dtype=np.int32)
        right_slot = np.full(m, -1, dtype=np.int32)
        for i, node in enumerate(frontier):
            if local_of_slot[i] >= 0:
                settled += node.end - node.start
                continue
            candidate = _record_node(splitter, recorder, rules, node.start, node.end,
                                     node.depth, total_weight, node.parent, node.branch,
                                     node.weights)
            if candidate.split is None:
                settled += node.end - node.start
                continue
            split = candidate.split[0]
            feature[i] = split.feature
            left_bins[i] = split.left_bins
            left_slot[i], right_slot[i] = len(nxt), len(nxt) + 1
            (ls, le, lb, lw, _), (rs, re, rb, rw, _) = _expand(splitter, recorder, candidate)
            nxt.append(_Node(ls, le, node.depth + 1, candidate.node, lb, lw, len(nxt) + 1))
            nxt.append(_Node(rs, re, node.depth + 1, candidate.node, rb, rw, len(nxt) - 1))
        tables.append((feature, left_bins, left_slot, right_slot))
        # keep only the counts the next level subtracts from (nodes that split here)
        keep = {(node.start, node.end) for i, node in enumerate(frontier) if feature[i] >= 0}
        splitter.counts = {k: v for k, v in splitter.counts.items() if k in keep}
        if save is not None:
            save({"level": level + 1, "frontier": nxt, "tables": tables, "settled": settled,
                  "nodes": recorder.nodes, "apart": apart, "sources": sources,
                  "counts": splitter.counts, "class_counts": splitter.class_counts,
                  "category_map_entries": splitter.category_map_entries})
        if on_level is not None:
            size = 0 if sums is None else sums.size * splitter.cell_bytes
            stats_apart = int(np.count_nonzero(local_of_slot >= 0))
            on_level(LevelStats(level, m, n_hists, size, time.perf_counter() - began,
                                stats_apart))
        if progress is not None:
            progress(settled / n if n else 1.0)
        frontier = nxt
        level += 1
    if apart:
        for b, tree in sorted(finish_local().items()):
            recorder.add_subtree(tree, *apart[b])
    if progress is not None:
        progress(1.0)
    return recorder.to_tree()
