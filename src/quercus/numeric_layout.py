"""The packed form of a tree of numeric thresholds that ``_kernels/_predict.pyx``
descends: a complete binary top of the first levels, then 16-byte node records."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._kernels._predict import FEATURE_SHIFT, MISSING_LEFT, NAN_RIGHT, SPLIT

#: Levels in the complete top at most: 2^13 - 1 slots of 12 bytes (float64 input) stay in
#: a core's L2 cache; deeper trees go on through the records.
TOP_MAX_DEPTH = 12


class NumericLayout(NamedTuple):
    """What ``numeric_leaf_lookup`` reads besides X (see its module)."""

    top_thresholds: np.ndarray  # float64, per top slot
    top_thresholds32: np.ndarray  # the same rounded down to float32, for float32 input
    top_fields: np.ndarray  # int32: feature << 1 | NAN_RIGHT
    top_depth: int
    top_nodes: np.ndarray  # int64: the tree node of each slot of the top's bottom level
    thresholds: np.ndarray  # float64 view of the node records
    fields: np.ndarray  # int32 view of the node records

    def kernel_args(self, X: np.ndarray) -> tuple:
        """The arguments after X, with the top's thresholds of X's dtype."""
        top = self.top_thresholds32 if X.dtype == np.float32 else self.top_thresholds
        return (top, self.top_fields, self.top_depth, self.top_nodes, self.thresholds,
                self.fields)


def pack(kind, feature, threshold, child_ptr, child_ids, missing_branch,
         leaf: int) -> NumericLayout | None:
    """The layout of a tree in Quercus's flat arrays, or None unless every split is a numeric
    threshold with one missing-value branch whose left child is the next node."""
    n_nodes = kind.size
    split = kind != leaf
    ids = np.flatnonzero(split)
    first = child_ptr[ids]
    if (np.any(child_ptr[ids + 1] - first != 2) or np.any(child_ids[first] != ids + 1)
            or np.any((missing_branch[ids] != 0) & (missing_branch[ids] != 1))
            or np.any(feature[ids] < 0)
            or feature.max(initial=0) >= 1 << (31 - FEATURE_SHIFT)):
        return None
    records = np.zeros(n_nodes, dtype=[("threshold", np.float64), ("right", np.int32),
                                       ("flags", np.int32)])
    records["threshold"] = np.where(split, threshold, np.nan)
    right = np.arange(n_nodes)
    right[ids] = child_ids[first + 1]
    records["right"] = right
    flags = (feature[ids] << FEATURE_SHIFT) | SPLIT
    records["flags"][ids] = flags | np.where(missing_branch[ids] == 0, MISSING_LEFT, 0)
    top = _complete_top(split, feature, threshold, missing_branch, right)
    return NumericLayout(*top, records.view(np.float64), records.view(np.int32))


def _complete_top(split, feature, threshold, missing_branch, right):
    """The complete top, level by level: a split's slot holds its test and has its children
    below; a leaf's holds +inf (every value goes left) and has itself twice below."""
    level = np.zeros(1, dtype=np.int64)  # the node of each slot of the current level
    thresholds, fields = [], []
    depth = 0
    while depth < TOP_MAX_DEPTH and split[level].any():
        is_split = split[level]
        thresholds.append(np.where(is_split, threshold[level], np.inf))
        nan_right = (missing_branch[level] == 1) & is_split
        fields.append(np.where(is_split, feature[level].astype(np.int64) << 1, 0)
                      | np.where(nan_right, NAN_RIGHT, 0))
        below = np.empty(2 * level.size, dtype=np.int64)
        below[0::2] = np.where(is_split, level + 1, level)
        below[1::2] = np.where(is_split, right[level], level)
        level, depth = below, depth + 1
    top64 = np.concatenate(thresholds) if thresholds else np.zeros(0)
    top_fields = (np.concatenate(fields) if fields else np.zeros(0)).astype(np.int32)
    return top64, float32_at_most(top64), top_fields, depth, level


def float32_at_most(values: np.ndarray) -> np.ndarray:
    """The largest float32 at most each float64 value (a float32 ``v`` is ``<= t`` exactly
    when it is ``<=`` this), +inf kept."""
    out = values.astype(np.float32)
    over = out.astype(np.float64) > values
    out[over] = np.nextafter(out[over], np.float32(-np.inf))
    return out
