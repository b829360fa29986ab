"""Class priors and a loss matrix for CART, as rpart defines them (docs/cart.md).

From the training rows' class totals ``n_i`` (case weights summed) and ``W = sum n_i``:

- the observed shares ``f_i = n_i / W``; the priors ``pi`` (default ``f``);
- the loss ``L`` (K x K, row = true class, column = predicted; default 0/1);
- the risk weights ``q_i = pi_i / f_i``: a node's class weights times ``q`` are its
  prior-weighted counts, whose shares are the class probabilities
  ``p_i ~ n_i(node) pi_i / n_i``; predicting class c costs ``sum_j n_j q_j L(j, c)``;
- the split weights ``a_i = pi~_i / f_i`` with the altered priors
  ``pi~_i = pi_i L_i / sum_k pi_k L_k`` (``L_i``: row sums of L; Breiman et al. 1984,
  eq. 4.15): splits are searched on case weights times ``a`` (``a = q`` without a loss).

Everything is computed once from the whole training data, and cross-validation folds reuse
it, as rpart does.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np

from .tree import Tree

__all__ = ["ClassCosts", "resolve_class_costs"]


@dataclass(frozen=True)
class ClassCosts:
    """Resolved priors and loss of one fit (see the module docstring)."""

    priors: np.ndarray
    loss: np.ndarray
    risk_weight: np.ndarray  # q
    split_weight: np.ndarray  # a
    has_loss: bool  # a loss matrix was given: a node's class may differ from the likeliest
    neutral: bool  # neither priors nor loss: growth is CART's unchanged

    def class_risks(self, value: np.ndarray) -> np.ndarray:
        """Expected loss of predicting each class, per node, from prior-weighted counts
        (``value``, shape (n_nodes, K), counts times ``q``)."""
        return value @ self.loss

    def node_risks(self, value: np.ndarray) -> np.ndarray:
        """R(t): each node's least expected loss (its misclassified weight by default)."""
        if not self.has_loss:  # 0/1 loss: all the weight but the largest class's
            return value.sum(axis=1) - value.max(axis=1)
        return self.class_risks(value).min(axis=1)

    def node_classes(self, value: np.ndarray) -> np.ndarray:
        """The class of least expected loss per node (ties: the first class)."""
        if not self.has_loss:
            return np.argmax(value, axis=1)
        return np.argmin(self.class_risks(value), axis=1)

    def adjust_tree(self, tree: Tree) -> Tree:
        """Turn a tree grown on split weights into one whose ``value`` holds
        prior-weighted counts, with ``node_class`` set where the loss makes a node's class
        differ from its likeliest one. Without a loss both are already so."""
        if not self.has_loss:
            return tree
        tree.value = tree.value * (self.risk_weight / self.split_weight)
        best = self.node_classes(tree.value)
        if np.any(best != np.argmax(tree.value, axis=1)):
            tree.node_class = best.astype(np.int32)
        return tree


def _class_names(classes) -> str:
    return ", ".join(str(c) for c in classes)


def _check_priors(priors, n_classes: int, classes) -> np.ndarray:
    values = np.asarray(priors, dtype=object)
    if values.ndim != 1 or values.shape[0] != n_classes or not all(
            isinstance(v, Real) and not isinstance(v, bool) for v in values):
        raise ValueError(f"priors must be {n_classes} numbers, one per class in classes_ "
                         f"order ({_class_names(classes)}); got {priors!r}")
    values = values.astype(np.float64)
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"priors must all be positive; got {values.tolist()}")
    if abs(values.sum() - 1.0) > 1e-6:
        raise ValueError(f"priors must sum to 1; got {values.tolist()} (sum {values.sum():g})")
    return values / values.sum()


def _check_loss(loss, n_classes: int, classes) -> np.ndarray:
    try:
        values = np.asarray(loss, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None or values.shape != (n_classes, n_classes):
        raise ValueError(f"loss must be a {n_classes}x{n_classes} matrix (rows: true class, "
                         f"columns: predicted, in classes_ order: {_class_names(classes)}); "
                         f"got {loss!r}")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError(f"loss must hold finite non-negative numbers; got {values.tolist()}")
    if np.any(np.diag(values) != 0):
        raise ValueError(f"loss must have zeros on its diagonal (a right prediction costs "
                         f"nothing); got {values.tolist()}")
    free = np.flatnonzero(values.sum(axis=1) == 0)
    if free.size:
        raise ValueError(f"loss row {int(free[0])} (true class {classes[free[0]]!r}) is all "
                         f"zero: its rows would weigh nothing in the split search")
    return values


def resolve_class_costs(priors, loss, y_codes: np.ndarray, weights: np.ndarray,
                        classes) -> ClassCosts:
    """Check ``priors`` and ``loss`` and derive the weights from the training rows
    (``y_codes`` of the rows used, ``weights`` their case weights)."""
    n_classes = len(classes)
    totals = np.bincount(y_codes, weights=weights, minlength=n_classes).astype(np.float64)
    shares = totals / totals.sum()
    absent = shares <= 0
    neutral = priors is None and loss is None
    pi = shares if priors is None else _check_priors(priors, n_classes, classes)
    if priors is not None and absent.any():
        raise ValueError(f"priors: class {classes[np.argmax(absent)]!r} has no training "
                         f"weight, so no prior can be given to it")
    L = (1.0 - np.eye(n_classes)) if loss is None else _check_loss(loss, n_classes, classes)
    q = np.divide(pi, shares, out=np.ones(n_classes), where=~absent)
    if priors is None:  # exactly 1, not pi / f rounded
        q = np.ones(n_classes)
    if loss is None:
        a = q
    else:
        altered = pi * L.sum(axis=1)
        altered = altered / altered.sum()
        a = np.divide(altered, shares, out=np.ones(n_classes), where=~absent)
    return ClassCosts(priors=pi, loss=L, risk_weight=q, split_weight=a,
                      has_loss=loss is not None, neutral=neutral)
