"""Impurity of class-weight vectors, and the proxy used to rank candidate splits."""

from __future__ import annotations

import numpy as np

from ._jit import njit

GINI = 0
ENTROPY = 1


@njit(cache=True)
def impurity_of(class_weights, criterion):
    """Gini impurity or Shannon entropy (base 2) of one vector of class weights."""
    total = 0.0
    for k in range(class_weights.shape[0]):
        total += class_weights[k]
    if total <= 0.0:
        return 0.0
    if criterion == GINI:
        squares = 0.0
        for k in range(class_weights.shape[0]):
            squares += class_weights[k] * class_weights[k]
        if total * total == 0.0:  # subnormal weights: the square underflows
            squares = 0.0
            for k in range(class_weights.shape[0]):
                squares += (class_weights[k] / total) ** 2
            return 1.0 - squares
        return 1.0 - squares / (total * total)
    entropy = 0.0
    for k in range(class_weights.shape[0]):
        if class_weights[k] > 0.0:
            p = class_weights[k] / total
            entropy -= p * np.log2(p)
    return entropy


@njit(cache=True)
def split_proxy(left, right, weight_left, weight_right, criterion):
    """A score that orders candidate splits of one node as their impurity decrease does.

    For Gini it is ``sum(left**2)/W_left + sum(right**2)/W_right``; for entropy it is
    ``-(W_left * H_left + W_right * H_right)``. Larger is better.
    """
    if criterion == GINI:
        squares_left = 0.0
        squares_right = 0.0
        for k in range(left.shape[0]):
            squares_left += left[k] * left[k]
            squares_right += right[k] * right[k]
        return squares_left / weight_left + squares_right / weight_right
    return -weight_right * impurity_of(right, criterion) - weight_left * impurity_of(left, criterion)


@njit(cache=True)
def node_class_weights(y, sample_weight, rows, out):
    """Sum the weights of ``rows`` per class into ``out`` (zeroed first)."""
    out[:] = 0.0
    for i in range(rows.shape[0]):
        r = rows[i]
        out[y[r]] += sample_weight[r]


@njit(cache=True)
def monotone_ok(left, right, weight_left, weight_right, cst, lower, upper):
    """Whether a split respects a monotonic constraint ``cst`` (1: increasing, -1:
    decreasing) on the share of class 1, with both children's shares in [lower, upper].

    The left child holds the smaller feature values, so an increasing constraint needs
    ``share_left <= share_right``. Only two-class trees are constrained.
    """
    share_left = left[1] / weight_left
    share_right = right[1] / weight_right
    if share_left < lower or share_right < lower or share_left > upper or share_right > upper:
        return False
    return (share_left - share_right) * cst <= 0.0
