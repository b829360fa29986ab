"""Binary splits on categorical features for C4.5 (J48's -B): ``feature = value`` against
``feature != value`` (docs/c45.md, "Binary splits on categorical features").

Each declared value is tried as the one sent to branch 0; the rest of the known rows go to
branch 1, and rows with a missing value are one more bag of the split information, as for
a multiway split. The gain and gain ratio are those of a two-branch nominal split.
"""

from __future__ import annotations

import numpy as np

from .._kernels.c45 import SMALL, nominal_table
from .c45 import AttributeInfo, Candidate, gain_and_ratio


def binary_category_map(n_values: int, category: int) -> np.ndarray:
    """Branch per category code: ``category`` -> 0, every other code -> 1."""
    cmap = np.ones(int(n_values), dtype=np.int64)
    cmap[int(category)] = 0
    return cmap


def binary_nominal_candidate(X, y, rows, weights, feature, info: AttributeInfo, node_weight):
    """The best ``feature = value`` split of a node, or None if no value gives one.

    A value is a candidate when both branches weigh at least ``min_leaf`` (within 1e-6).
    The candidate with the highest gain ratio wins; a later value replaces the current one
    only if its gain ratio is larger by more than 1e-6 (ties: the first declared value).
    """
    n_values = int(info.n_values[feature])
    table = np.empty((n_values, info.n_classes))
    nominal_table(X, y, rows, weights, feature, table)
    bags = table.sum(axis=1)
    known = bags.sum()
    best = None
    for v in range(n_values):
        if info.min_leaf - bags[v] >= SMALL or info.min_leaf - (known - bags[v]) >= SMALL:
            continue
        rest = np.delete(table, v, axis=0).sum(axis=0)
        gain, ratio, _ = gain_and_ratio(np.vstack([table[v], rest]), node_weight)
        if best is None or ratio - best.gain_ratio > SMALL:
            enters = info.multi_valued or n_values < 0.3 * info.n_all_rows
            best = Candidate(feature, False, gain, ratio, enters_average=bool(enters),
                             category=v)
    return best
