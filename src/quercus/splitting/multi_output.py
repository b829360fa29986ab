"""CART's exact split search for a multi-output y (one class label per output and row).

A node's class weights are the outputs' class-weight vectors laid end to end (output k
at ``offsets[k]:offsets[k + 1]``); its impurity is the mean of the outputs' impurities, as
in scikit-learn. Every cut between distinct values of every numeric feature (or, with
``random_thresholds``, one cut drawn as in ``_kernels._splits``) is scored at once
with numpy (cumulative class weights down the node's sorted rows): O(rows x classes)
memory per feature, meant for the modest data multi-output trees are grown on.
"""

from __future__ import annotations

import numpy as np

from .._kernels._splits import ENTROPY, FEATURE_THRESHOLD, impurity_of
from ..tree import NUMERIC
from .cart import CartSplitter, Split


def _midpoint(low: float, high: float) -> float:
    mid = low / 2.0 + high / 2.0
    return low if mid >= high or np.isinf(mid) else mid


class MultiOutputSplitter(CartSplitter):
    """Finds and applies the best binary split of a node segment for several outputs.

    Parameters
    ----------
    X : ndarray of float64, shape (n_rows, n_features)
        Numeric features without missing values.
    codes : ndarray of int, shape (n_rows, n_outputs)
        Class code of every row for every output.
    sample_weight : ndarray of float64
    n_classes_per_output : sequence of int
    options : as ``CartSplitter`` (all features numeric).
    """

    def __init__(self, X, codes, sample_weight, *, n_classes_per_output, **options):
        self.offsets = np.concatenate([[0], np.cumsum(n_classes_per_output)]).astype(np.int64)
        self.n_outputs = len(n_classes_per_output)
        codes = np.asarray(codes, dtype=np.int64)
        self.columns = codes + self.offsets[:-1]  # each row's entry in every output's block
        super().__init__(X, codes[:, 0], sample_weight, n_classes=int(self.offsets[-1]),
                         **options)

    def class_weights(self, start: int, end: int) -> np.ndarray:
        rows = self.rows(start, end)
        out = np.zeros(self.n_classes)
        np.add.at(out, self.columns[rows].ravel(),
                  np.repeat(self.sample_weight[rows], self.n_outputs))
        return out

    def impurity(self, class_weights: np.ndarray) -> float:
        blocks = zip(self.offsets[:-1], self.offsets[1:], strict=True)
        return float(np.mean([impurity_of(np.ascontiguousarray(class_weights[a:b]),
                                          self.criterion) for a, b in blocks]))

    def _entropy_sums(self, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Sum over outputs of the entropy (base 2) of each row of ``counts``."""
        shares = counts / weights[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(shares > 0, shares * np.log2(shares), 0.0)
        return -terms.sum(axis=1)

    def find(self, start: int, end: int) -> Split | None:
        """Best numeric cut of the segment over the searched features (lowest feature
        index, then first cut, winning exact ties)."""
        features = self.numeric_features
        if self.max_features is not None:
            features = self.sample_features(self._nonconstant(start, end))
        n = end - start
        candidates = {}
        uniforms = self.rng.uniform(size=len(features)) if self.random_thresholds else None
        for j, f in enumerate(features):
            f = int(f)
            rows = self.order[f, start:end]
            x = self.X[rows, f]
            if x[-1] <= x[0] + FEATURE_THRESHOLD:
                continue
            w = self.sample_weight[rows]
            onehot = np.zeros((n, self.n_classes))
            onehot[np.arange(n)[:, None], self.columns[rows]] = w[:, None]
            left = np.cumsum(onehot, axis=0)[:-1]
            right = onehot.sum(axis=0) - left
            w_left = np.cumsum(w)[:-1]
            w_right = w.sum() - w_left
            n_left = np.arange(1, n)
            valid = ((n_left >= self.min_samples_leaf) & (n - n_left >= self.min_samples_leaf)
                     & (w_left >= self.min_weight_leaf) & (w_right >= self.min_weight_leaf)
                     & (w_left > 0) & (w_right > 0))
            if uniforms is None:
                valid &= x[1:] > x[:-1] + FEATURE_THRESHOLD
            else:  # one cut, drawn as in split_random: rows with value <= threshold go left
                threshold = x[0] + uniforms[j] * (x[-1] - x[0])
                threshold = x[0] if threshold >= x[-1] else threshold
                cut = np.zeros(n - 1, dtype=bool)
                cut[int(np.searchsorted(x, threshold, side="right")) - 1] = True
                valid &= cut
            if not valid.any():
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                if self.criterion == ENTROPY:
                    proxy = -(w_left * self._entropy_sums(left, w_left)
                              + w_right * self._entropy_sums(right, w_right))
                else:
                    proxy = ((left**2).sum(axis=1) / w_left
                             + (right**2).sum(axis=1) / w_right)
            proxy = np.where(valid, proxy, -np.inf)
            i = int(np.argmax(proxy))
            if proxy[i] == -np.inf:
                continue
            candidates[f] = Split(f, NUMERIC, threshold if uniforms is not None
                                  else _midpoint(x[i], x[i + 1]), None,
                                  0 if i + 1 > n - i - 1 else 1, float(proxy[i]))
        return self.best_candidate(candidates)
