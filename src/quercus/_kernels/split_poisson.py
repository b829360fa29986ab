"""Poisson regression trees: node deviance and the exact best categorical subset split.

A node predicts its weighted mean target ``S / W``; its impurity is scikit-learn's half
Poisson deviance per unit weight, ``sum(w * y * log(y / mean)) / W`` (``0 * log 0 = 0``).
A split is ranked by ``S_left * log(S_left / W_left) + S_right * log(S_right / W_right)``
and is valid only if both sides have a target sum above machine epsilon.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .split_regression import EPSILON, group_branches, node_groups


@njit(cache=True)
def node_poisson_stats(y, sample_weight, rows, out):
    """``out[:] = (W, S, sum of w * y * log(y / mean))`` of ``rows`` (the last is inf when
    ``S <= EPSILON``: no positive mean)."""
    w_sum = 0.0
    s_sum = 0.0
    for p in range(rows.shape[0]):
        r = rows[p]
        w_sum += sample_weight[r]
        s_sum += sample_weight[r] * y[r]
    out[0] = w_sum
    out[1] = s_sum
    if s_sum <= EPSILON:
        out[2] = np.inf
        return
    mean = s_sum / w_sum
    loss = 0.0
    for p in range(rows.shape[0]):
        r = rows[p]
        if y[r] != 0.0:
            loss += sample_weight[r] * y[r] * np.log(y[r] / mean)
    out[2] = loss


@njit(cache=True)
def _side_proxy(w, s):
    return s * np.log(s / w)


@njit(cache=True)
def best_poisson_subset_split(weight, target_sum, counts, min_samples_leaf, min_weight_leaf,
                              out_branch):
    """Best binary subset split of one categorical feature under Poisson deviance.

    The groups are the categories present at the node and the missing rows (last entry of
    the arrays). Without the rule that each side needs a positive target sum, the best
    subset would be a prefix of the groups ordered by mean (the proxy is ``W phi(S / W)``
    per side with ``phi`` convex; Breiman et al. 1984, 9.4). With it, the best valid split
    is such a prefix, or one group of positive sum alone, or that group with every
    zero-sum group (for the tangent lines of ``phi`` at the best split's two means, each
    group's side is a linear choice in its mean, and a forced repair moves one positive
    group only; the zero-sum groups, of equal mean, share a side). Those 3m candidates are
    tried. Writes 0 (left) or 1 (right) per code into ``out_branch``, absent categories
    following the larger side; returns ``(proxy, missing_left)``, proxy -inf when no valid
    split exists.
    """
    n_codes = counts.shape[0] - 1
    groups = node_groups(counts, n_codes)
    m = groups.shape[0]
    means = np.empty(m)
    for j in range(m):
        c = groups[j]
        means[j] = target_sum[c] / weight[c] if weight[c] > 0 else 0.0
    order = np.argsort(means, kind="mergesort")
    sw = np.zeros(m + 1)  # prefix sums in mean order
    ss = np.zeros(m + 1)
    sn = np.zeros(m + 1, dtype=np.int64)
    for jj in range(m):
        c = groups[order[jj]]
        sw[jj + 1] = sw[jj] + weight[c]
        ss[jj + 1] = ss[jj] + target_sum[c]
        sn[jj + 1] = sn[jj] + counts[c]
    tw = np.zeros(m + 1)  # suffix sums in mean order (no subtraction)
    ts = np.zeros(m + 1)
    for jj in range(m - 1, -1, -1):
        c = groups[order[jj]]
        tw[jj] = tw[jj + 1] + weight[c]
        ts[jj] = ts[jj + 1] + target_sum[c]
    n_zero = 0
    while n_zero < m and target_sum[groups[order[n_zero]]] <= 0.0:
        n_zero += 1
    n_total = sn[m]
    best = -np.inf
    best_kind = 0  # 1: prefix, 2: one group alone, 3: one group with the zero-sum groups
    best_at = 0
    for kind in range(1, 4):
        last = m - 1 if kind == 1 else m
        first = 1 if kind == 1 else n_zero
        if kind == 3 and n_zero == 0:
            continue
        for at in range(first, last + (1 if kind == 1 else 0)):
            if kind == 1:  # order[:at] left
                wl, sl, nl = sw[at], ss[at], sn[at]
                wr, sr = tw[at], ts[at]
            else:
                c = groups[order[at]]
                wl, sl, nl = weight[c], target_sum[c], counts[c]
                wr = sw[at] + tw[at + 1]
                sr = ss[at] + ts[at + 1]
                if kind == 3:
                    wl += sw[n_zero]
                    nl += sn[n_zero]
                    wr -= sw[n_zero]
                    sr -= ss[n_zero]  # exactly 0
            nr = n_total - nl
            if nl == 0 or nr == 0 or nl < min_samples_leaf or nr < min_samples_leaf:
                continue
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            if sl <= EPSILON or sr <= EPSILON:
                continue
            proxy = _side_proxy(wl, sl) + _side_proxy(wr, sr)
            if proxy > best:
                best = proxy
                best_kind = kind
                best_at = at
    out_branch[:] = 1
    if best == -np.inf:
        return best, False
    left = np.zeros(m, dtype=np.bool_)
    if best_kind == 1:
        for jj in range(best_at):
            left[order[jj]] = True
    else:
        left[order[best_at]] = True
        if best_kind == 3:
            for jj in range(n_zero):
                left[order[jj]] = True
    return best, group_branches(left, groups, counts, n_codes, out_branch)
