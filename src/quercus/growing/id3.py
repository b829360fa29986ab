"""ID3 (Quinlan 1986; seed 002's pseudocode; as Weka's Id3): multiway splits on nominal
features chosen by information gain (or gain ratio), no pruning."""

from __future__ import annotations

import numpy as np

from ..errors import DataError
from ..progress import SettledRows
from ..tree import CATEGORICAL
from .c45 import C45Node, class_table

SMALL = 1e-6


def _entropy(counts: np.ndarray) -> float:
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts[counts > 0] / total
    return float(-(p * np.log2(p)).sum())


def _scores(X, y, rows, feature, n_values, n_classes):
    """Information gain and gain ratio of splitting ``rows`` on ``feature``."""
    codes = X[rows, feature].astype(np.int64)
    table = np.zeros((n_values, n_classes))
    np.add.at(table, (codes, y[rows]), 1.0)
    sizes = table.sum(axis=1)
    n = float(rows.size)
    remainder = sum(sizes[v] / n * _entropy(table[v]) for v in range(n_values) if sizes[v] > 0)
    gain = _entropy(table.sum(axis=0)) - remainder
    split_info = _entropy(sizes)
    return gain, (gain / split_info if split_info > SMALL else 0.0)


def check_id3_data(X, schema) -> None:
    """ID3 takes nominal features without missing values; say so clearly otherwise."""
    numeric = [s.name for s in schema.features if not s.is_categorical]
    if numeric:
        raise DataError(f"ID3 needs categorical features; '{numeric[0]}' is numeric "
                        "(use algorithm 'c45', which splits numeric features by thresholds)")
    missing = np.isnan(X).any(axis=0)
    if missing.any():
        name = schema.features[int(np.argmax(missing))].name
        raise DataError(f"ID3 cannot handle missing values; column '{name}' has some "
                        "(use algorithm 'c45')")


def _best_feature(X, y, rows, used, n_values, n_classes, use_gain_ratio) -> int | None:
    """The unused feature with the highest score, or None if none gains anything."""
    best, best_score = None, 0.0
    for f in range(X.shape[1]):
        if f in used:
            continue
        gain, ratio = _scores(X, y, rows, f, int(n_values[f]), n_classes)
        score = ratio if use_gain_ratio else gain
        if best is None or score > best_score:
            best, best_score = f, score
    return None if best is None or best_score < SMALL else best


def grow_id3(X, y, n_values, n_classes, *, use_gain_ratio=False, max_depth=None,
             progress=None) -> C45Node:
    """Grow the tree depth first; an attribute is not used again below itself.

    ``progress``, if given, is called with the share of the rows that have reached their
    leaf (never decreasing), after each leaf and once with 1.0 at the end.
    """
    rows = np.arange(X.shape[0])
    report = SettledRows(rows.size, progress)
    root = C45Node(rows, np.ones(rows.size), class_table(y, rows, np.ones(rows.size), n_classes))
    stack = [(root, frozenset(), 0)]
    while stack:
        node, used, depth = stack.pop()
        counts = node.table
        best = None
        if np.count_nonzero(counts) > 1 and (max_depth is None or depth < max_depth):
            best = _best_feature(X, y, node.rows, used, n_values, n_classes, use_gain_ratio)
        if best is None:
            report.settle(node.rows.size)
            continue
        node.kind, node.feature = CATEGORICAL, best
        codes = X[node.rows, best].astype(np.int64)
        order = np.argsort(codes, kind="stable")  # rows grouped by value, O(n log n + V)
        bounds = np.searchsorted(codes[order], np.arange(int(n_values[best]) + 1))
        node.children = []
        for v in range(int(n_values[best])):
            child_rows = node.rows[order[bounds[v]:bounds[v + 1]]]
            w = np.ones(child_rows.size)
            child = C45Node(child_rows, w, class_table(y, child_rows, w, n_classes))
            child.empty = child_rows.size == 0
            node.children.append(child)
        stack.extend((c, used | {best}, depth + 1) for c in reversed(node.children)
                     if not c.empty)
    report.done()
    return root
