"""C4.5's pruning (docs/c45.md, spec steps 24-28): collapse, then pessimistic-error pruning
with subtree raising, on the grower's node store (the loops are in ``_kernels/_c45.pyx``)."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from .._kernels import _c45 as c45_prune


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(1.0 - confidence)


def added_errors(n: float, e: float, confidence: float) -> float:
    """Extra errors expected at ``confidence`` beyond ``e`` observed in ``n`` (the upper limit
    of the binomial error rate, C4.5's ``addErrs``)."""
    return float(c45_prune.added_errors(float(n), float(e), confidence, _z(confidence)))


def estimated_errors(table, confidence: float) -> float:
    """Observed plus added errors of a class table; 0 for an empty table."""
    table = np.asarray(table, dtype=np.float64)
    return float(c45_prune.estimated_errors(table, confidence, _z(confidence)))


def collapse(nodes) -> None:
    """Top down: a subtree whose leaves err as much as the node itself becomes a leaf."""
    c45_prune.collapse(nodes, 0)


def prune(nodes, X, y, n_values, n_classes: int, confidence: float,
          subtree_raising: bool) -> float:
    """Pessimistic-error pruning of the store's tree, bottom up, with optional subtree
    raising; returns the tree's estimated errors. ``X``/``y`` are the grower's rows."""
    return float(c45_prune.prune(
        X, np.ascontiguousarray(y, dtype=np.int32), nodes, 0,
        np.asarray(n_values, dtype=np.int64), n_classes, float(confidence),
        _z(confidence), bool(subtree_raising)))
