"""C4.5's choice of a node's split (docs/c45.md, spec steps 7-16): gain, gain ratio, winner."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._kernels.c45 import SMALL, nominal_table, scan_numeric

NO_TABLE = np.zeros(0)


def xlog2x(x):
    """F(x) = x log2 x elementwise, 0 below 1e-6."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    big = x >= SMALL
    out[big] = x[big] * np.log2(x[big])
    return out


@dataclass
class Candidate:
    """One attribute's best split at a node."""

    feature: int
    numeric: bool
    gain: float
    gain_ratio: float
    threshold: float = np.nan
    enters_average: bool = True
    category: int = -1  # binary categorical split (J48 -B): the code sent to branch 0


@dataclass
class AttributeInfo:
    """What the split choice needs to know of the features (fixed for a whole fit)."""

    categorical: np.ndarray  # bool per feature
    n_values: np.ndarray  # declared values per categorical feature
    n_classes: int
    min_leaf: float
    n_all_rows: int  # rows of the full input, class-missing rows included
    xlogx_of_int: np.ndarray = field(default_factory=lambda: NO_TABLE)  # F(0..max weight)
    all_weights_whole: bool = False  # whole weights and no missing value: no node checks

    @property
    def multi_valued(self) -> bool:
        """True only when every attribute is nominal and none has < 0.3 N_all values."""
        return bool(self.categorical.all()
                    and np.all(self.n_values >= 0.3 * self.n_all_rows))


def gain_and_ratio(bag_classes: np.ndarray, node_weight: float) -> tuple[float, float, float]:
    """Information gain, gain ratio and split information from a (bags x classes) table of
    known rows; missing weight is ``node_weight`` minus the table's total (spec 13-15)."""
    bags = bag_classes.sum(axis=1)
    known = float(bags.sum())
    if known <= SMALL:
        return 0.0, 0.0, 0.0
    old = xlog2x(known) - xlog2x(bag_classes.sum(axis=0)).sum()
    new = (xlog2x(bags) - xlog2x(bag_classes).sum(axis=1)).sum()
    numerator = (1.0 - (node_weight - known) / node_weight) * (old - new)
    gain = 0.0 if abs(numerator) < SMALL else numerator / known
    split_info = float(xlog2x(node_weight) - xlog2x(bags).sum()
                       - xlog2x(node_weight - known))
    ratio = 0.0 if abs(split_info) < SMALL else gain / (split_info / node_weight)
    return gain, ratio, split_info


def nominal_candidate(X, y, rows, weights, feature, info: AttributeInfo, node_weight):
    table = np.empty((int(info.n_values[feature]), info.n_classes))
    nominal_table(X, y, rows, weights, feature, table)
    bags = table.sum(axis=1)
    if np.count_nonzero(info.min_leaf - bags < SMALL) < 2:
        return None
    gain, ratio, _ = gain_and_ratio(table, node_weight)
    enters = info.multi_valued or info.n_values[feature] < 0.3 * info.n_all_rows
    return Candidate(feature, False, gain, ratio, enters_average=bool(enters))


def numeric_candidates(columns, features, weights, info: AttributeInfo, node_weight):
    """Best threshold candidate of every numeric feature (``columns``: SortedColumns)."""
    m = len(features)
    valid = np.zeros(m, dtype=np.bool_)
    gain = np.zeros(m)
    split_info = np.zeros(m)
    threshold = np.zeros(m)
    left = np.zeros((m, info.n_classes))
    right = np.zeros((m, info.n_classes))
    known = np.zeros(m)
    if info.all_weights_whole or (info.xlogx_of_int.size
                                  and np.all(weights == np.round(weights))):
        whole = info.xlogx_of_int
    else:
        whole = NO_TABLE
    scan_numeric(columns, info.n_classes, info.min_leaf, node_weight, valid, gain, split_info,
                 threshold, left, right, known, whole)
    out = {}
    for i in np.flatnonzero(valid):
        s = split_info[i]
        ratio = 0.0 if abs(s) < SMALL else gain[i] / (s / node_weight)
        out[int(features[i])] = Candidate(int(features[i]), True, float(gain[i]), float(ratio),
                                          threshold=float(threshold[i]))
    return out


def choose(candidates: list[Candidate]) -> Candidate | None:
    """Spec steps 10-11: the best gain ratio among candidates with at least average gain."""
    entering = [c.gain for c in candidates if c.enters_average]
    if not entering:
        return None
    average = sum(entering) / len(entering)
    best, best_ratio = None, 0.0
    for c in candidates:
        if c.gain >= average - 1e-3 and c.gain_ratio - best_ratio > SMALL:
            best, best_ratio = c, c.gain_ratio
    return best
