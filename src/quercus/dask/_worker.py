"""What runs on the Dask workers: binning a partition, and one level's class counts (a
regression tree's: its exact target sums in fixed-point limbs, ``splitting.exact_sums``).

Nothing here holds state that a lost worker would take with it. A binned partition is a
task result with lineage (the scheduler recomputes it from the source partition). The
row -> node-slot arrays live in ``_SLOTS``, a cache of this worker process: on a miss (a
restarted worker, a partition moved to another worker) a task rebuilds them by replaying
the split tables it receives, so the answer never depends on which worker runs it.
"""

from __future__ import annotations

import threading

import numpy as np

from .._kernels._hist import add_limb_counts
from .._kernels._splits import add_class_counts, advance_slots, descend
from ..missing_counts import binned_missing_counts
from ._scan import encode

# (fit id, partition index) -> (level, int32 row -> slot array); slot -1: row settled
_SLOTS: dict = {}
_LOCK = threading.Lock()


def bin_partition(X_part, y_part, schema, binner) -> dict:
    """Encode one partition with the fitted schema and bin it: ``binned`` (n_features,
    n_known) and ``y`` (int32 class codes) of the rows whose class is known, and whether a
    value is ``missing``."""
    X = encode(schema, X_part)
    y = schema.encode_labels(y_part)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"a partition of X has {X.shape[0]} rows but y's has {y.shape[0]}")
    known = y >= 0
    if not known.all():
        X, y = X[known], y[known]
    binned = np.ascontiguousarray(binner.transform(X))
    return {"binned": binned, "y": np.ascontiguousarray(y, dtype=np.int32),
            "missing": bool((binned == binner.missing_bin_).any())}


def missing_counts_of(part: dict, tree, binner, categorical_mask):
    """The partition's share of ``Tree.n_missing`` (None: no missing value reached a split)."""
    return binned_missing_counts(tree, binner, part["binned"], categorical_mask)


def bin_regression_partition(X_part, y_part, schema, binner, layout) -> dict:
    """Encode and bin one partition of a regression fit: ``binned`` and ``y`` (float
    targets) of the rows whose target is known, and their ``limbs`` (``layout.row_limbs``
    with unit weights)."""
    from ._scan import float_targets

    X = encode(schema, X_part)
    y = float_targets(y_part)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"a partition of X has {X.shape[0]} rows but y's has {y.shape[0]}")
    known = ~np.isnan(y)
    if not known.all():
        X, y = X[known], y[known]
    binned = np.ascontiguousarray(binner.transform(X))
    return {"binned": binned, "y": y, "limbs": layout.row_limbs(y, np.ones(y.shape[0])),
            "missing": bool((binned == binner.missing_bin_).any())}


def _zeros(parts: tuple, shape: tuple) -> np.ndarray:
    """The counts a worker returns: int32 class counts, or int64 limbs (regression)."""
    regression = bool(parts) and "limbs" in parts[0]
    return np.zeros(shape, dtype=np.int64 if regression else np.int32)


def _add(part: dict, hist_index: np.ndarray, out: np.ndarray) -> None:
    if "limbs" in part:
        add_limb_counts(part["binned"], part["limbs"], hist_index, out)
    else:
        add_class_counts(part["binned"], part["y"], hist_index, out)


def _slots(fit_id: str, index: int, level: int, tables: list, part: dict) -> np.ndarray:
    """Partition ``index``'s row -> slot array at ``level``, from the cache or replayed."""
    with _LOCK:
        cached = _SLOTS.get((fit_id, index))
    if cached is None or cached[0] > level or cached[1].shape[0] != part["y"].shape[0]:
        start, slots = 0, np.zeros(part["y"].shape[0], dtype=np.int32)
    else:
        start, slots = cached[0], cached[1].copy()
    for d in range(start, level):
        advance_slots(slots, part["binned"], *tables[d])
    with _LOCK:
        _SLOTS[(fit_id, index)] = (level, slots)
    return slots


def level_counts(fit_id: str, level: int, tables: list, hist_of_slot: np.ndarray,
                 n_hists: int, shape: tuple, indices: list, *parts: dict) -> np.ndarray:
    """This worker's share of a level: class counts (n_hists, n_features, bins, classes) of
    its partitions; a row in slot s adds to histogram ``hist_of_slot[s]`` when that is >= 0."""
    out = _zeros(parts, (n_hists,) + tuple(shape))
    for index, part in zip(indices, parts):
        slots = _slots(fit_id, index, level, tables, part)
        if slots.shape[0] == 0:
            continue
        hist_index = np.where(slots >= 0, hist_of_slot[np.maximum(slots, 0)], -1)
        _add(part, hist_index.astype(np.int32), out)
    return out


def rows_apart(fit_id: str, level: int, tables: list, local_of_slot: np.ndarray,
               indices: list, *parts: dict) -> dict:
    """The rows this worker's partitions hold of each node grown apart at ``level``: for a
    slot s with ``local_of_slot[s] = b >= 0``, {b: [(binned, y) per partition]}. One stable
    sort of the rows by bucket, then a slice per bucket."""
    rows: dict = {}
    width = int(local_of_slot.max()) + 2 if local_of_slot.shape[0] else 1
    for index, part in zip(indices, parts):
        slots = _slots(fit_id, index, level, tables, part)
        if slots.shape[0] == 0:
            continue
        bucket = np.where(slots >= 0, local_of_slot[np.maximum(slots, 0)], -1) + 1
        order = np.argsort(bucket, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(bucket, minlength=width))])
        for b in np.flatnonzero(np.diff(bounds)[1:]):
            mine = order[bounds[b + 1]:bounds[b + 2]]
            rows.setdefault(int(b), []).append((part["binned"][:, mine], part["y"][mine]))
    return rows


def rows_for(result: dict, buckets: list) -> dict:
    """The rows of the given local buckets in one worker's ``rows_apart`` result."""
    return {b: result[b] for b in buckets if b in result}


def grow_apart(buckets: list, specs: dict, binner, options: dict, total_weight: float,
               class_factor: np.ndarray, n_classes: int, *picks: dict) -> dict:
    """Grow the subtrees of the given buckets with the single-machine code: {b: Tree}.

    ``specs[b]`` is the StoppingRules of bucket b's node (its depth limit shortened by the
    node's depth); every row's weight is its class factor, as on the whole data. With a
    ``layout`` in ``options`` (regression; ``class_factor`` None) the rows' weights are 1
    and their sums use the whole data's layout."""
    from ..growing.builders import grow
    from ..splitting.hist import HistSplitter
    from ..splitting.hist_regression import RegressionHistSplitter

    trees = {}
    for b in buckets:
        pieces = [piece for pick in picks for piece in pick.get(b, [])]
        binned = np.ascontiguousarray(np.concatenate([p[0] for p in pieces], axis=1))
        y = np.concatenate([p[1] for p in pieces])
        if "layout" in options:
            splitter = RegressionHistSplitter(None, y, np.ones(y.shape[0]), binner=binner,
                                              binned=binned, **options)
        else:
            y = y.astype(np.int32)
            splitter = HistSplitter(None, y, class_factor[y], binner=binner, binned=binned,
                                    **options)
        trees[b] = grow(splitter, specs[b], n_classes, total_weight=total_weight)
    return trees


def forget(fit_id: str) -> int:
    """Drop a finished fit's cached slot arrays (run on every worker)."""
    with _LOCK:
        keys = [k for k in _SLOTS if k[0] == fit_id]
        for k in keys:
            del _SLOTS[k]
    return len(keys)


def best_first_counts(fit_id: str, table: tuple, requests: tuple, n_hists: int, shape: tuple,
                      indices: list, *parts: dict) -> np.ndarray:
    """Class counts for best-first growth: rows first descend the committed splits
    ``table`` (indexed by node id); then a row in requested node ``req_node[i]`` adds to
    histogram 2i (it goes left under ``req_feature[i]`` / ``req_left_bins[i]``) or 2i + 1.
    An empty request list with n_hists = 1 counts every row (the root)."""
    req_node, req_feature, req_left_bins = requests
    out = _zeros(parts, (n_hists,) + tuple(shape))
    n_nodes = table[0].shape[0]
    request_of = np.full(max(n_nodes, 1), -1, dtype=np.int64)
    request_of[req_node] = np.arange(req_node.shape[0])
    for index, part in zip(indices, parts):
        with _LOCK:
            cached = _SLOTS.get((fit_id, index))
        n = part["y"].shape[0]
        fresh = cached is None or cached[1].shape[0] != n or cached[0] > n_nodes
        nodes = np.zeros(n, dtype=np.int32) if fresh else cached[1].copy()
        if n_nodes:
            descend(nodes, part["binned"], *table)
        with _LOCK:  # (size of the table applied, nodes): a later table only goes deeper
            _SLOTS[(fit_id, index)] = (n_nodes, nodes)
        if n == 0:
            continue
        if req_node.shape[0] == 0:
            hist_index = np.zeros(n, dtype=np.int32)
        else:
            req = request_of[nodes]
            live = np.flatnonzero(req >= 0)
            hist_index = np.full(n, -1, dtype=np.int32)
            r = req[live]
            goes_left = req_left_bins[r, part["binned"][req_feature[r], live]]
            hist_index[live] = 2 * r + np.where(goes_left, 0, 1)
        _add(part, hist_index, out)
    return out
