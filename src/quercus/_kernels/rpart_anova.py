"""rpart's "anova" split search (regression trees), beside the classification one.

The same segments as ``_kernels/rpart_split`` (a node's rows sorted per feature, NaN last;
categorical features tallied per level in one pass). A split of a node with weighted sum of
squares SS (around its mean) is scored by the between-groups sum of squares of the rows
with the feature present, sum_L w (ybar_L - ybar)^2 + sum_R w (ybar_R - ybar)^2 with ybar
their mean; ``improve`` is that divided by SS (R's ``fit$splits``). A categorical feature's
levels are ordered by mean response and the best prefix is taken (the optimal subset for
squared error). The side with the smaller mean goes left.

Targets are centred on the node's mean first, so the sums stay small.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit


@njit(cache=True)
def anova_tallies(XC, cat_cols, y, w, order, start, nn, center, S, T, ROWS, COUNT):
    """Per-level sums of every categorical feature at a node, in one pass over its rows:
    ``S[c, level, 0]`` = sum of w (y - center), ``T`` = sum of w, ``ROWS`` the rows with
    weight > 0 and ``COUNT[c]`` the rows with the feature present."""
    S[:] = 0.0
    T[:] = 0.0
    ROWS[:] = 0
    COUNT[:] = 0
    m = cat_cols.shape[0]
    for i in range(nn):
        r = order[0, start + i]
        wr = w[r]
        dy = wr * (y[r] - center)
        for c in range(m):
            v = XC[r, c]
            if np.isnan(v):
                continue
            COUNT[c] += 1
            if wr > 0.0:
                lv = int(v)
                S[c, lv, 0] += dy
                T[c, lv] += wr
                ROWS[c, lv] += 1


@njit(cache=True)
def _anova_numeric(vals, y, w, order, j, start, nn, minbucket, center, node_ss, out, xs, ys,
                   ws):
    """Best cut of numeric feature j; out = (improve, cut, left_lt, count), improve -1 if
    none. xs, ys, ws (at least nn long) are scratch."""
    m = 0
    count = 0
    for i in range(nn):
        r = order[j, start + i]
        v = vals[j, start + i]
        if np.isnan(v):
            break
        count += 1
        if w[r] > 0.0:
            xs[m] = v
            ys[m] = y[r] - center
            ws[m] = w[r]
            m += 1
    out[0] = -1.0
    out[3] = count
    if m < 2 or xs[0] == xs[m - 1] or node_ss <= 0.0:
        return
    s_tot = 0.0
    w_tot = 0.0
    for i in range(m):
        s_tot += ws[i] * ys[i]
        w_tot += ws[i]
    s_l = 0.0
    w_l = 0.0
    best = -1.0
    best_i = -1
    best_sl = 0.0
    best_wl = 0.0
    for i in range(m - 1):
        s_l += ws[i] * ys[i]
        w_l += ws[i]
        if xs[i] == xs[i + 1]:
            continue
        nl = i + 1
        if nl < minbucket or m - nl < minbucket:
            continue
        s_r = s_tot - s_l
        w_r = w_tot - w_l
        score = s_l * s_l / w_l + s_r * s_r / w_r
        if score > best:
            best = score
            best_i = i
            best_sl = s_l
            best_wl = w_l
    if best_i < 0:
        return
    out[0] = (best - s_tot * s_tot / w_tot) / node_ss
    out[1] = (xs[best_i] + xs[best_i + 1]) / 2.0
    out[2] = 1.0 if best_sl / best_wl < (s_tot - best_sl) / (w_tot - best_wl) else 0.0


@njit(cache=True)
def _anova_categorical(s, t, rows, count, nlev, minbucket, node_ss, out, sides, perm, means):
    """Best prefix of the present levels ordered by mean (ties: level order); the prefix
    (smaller means) goes left. perm (int) and means (float) hold nlev entries."""
    out[0] = -1.0
    out[1] = 0.0
    out[2] = 0.0
    out[3] = count
    sides[:] = 0
    npres = 0
    ntot = 0
    s_tot = 0.0
    w_tot = 0.0
    for lv in range(nlev):
        if rows[lv] > 0:
            means[lv] = s[lv, 0] / t[lv]
            k = npres  # stable insertion by mean
            while k > 0 and means[perm[k - 1]] > means[lv]:
                perm[k] = perm[k - 1]
                k -= 1
            perm[k] = lv
            npres += 1
            ntot += rows[lv]
            s_tot += s[lv, 0]
            w_tot += t[lv]
    if npres < 2 or node_ss <= 0.0:
        return
    s_l = 0.0
    w_l = 0.0
    nl = 0
    best = -1.0
    best_k = -1
    for k in range(npres - 1):
        lv = perm[k]
        s_l += s[lv, 0]
        w_l += t[lv]
        nl += rows[lv]
        if nl < minbucket or ntot - nl < minbucket:
            continue
        s_r = s_tot - s_l
        w_r = w_tot - w_l
        score = s_l * s_l / w_l + s_r * s_r / w_r
        if score > best:
            best = score
            best_k = k
    if best_k < 0:
        return
    for k in range(npres):
        sides[perm[k]] = -1 if k <= best_k else 1
    out[0] = (best - s_tot * s_tot / w_tot) / node_ss


@njit(cache=True)
def anova_best_splits(vals, XC, cat_cols, cat_pos, y, w, order, start, nn, is_cat, n_levels,
                      minbucket, center, node_ss, out, sides, S, T, ROWS, COUNT):
    """Every feature's best anova split at one node (``center`` its mean, ``node_ss`` its
    weighted sum of squares): ``out[j] = (improve, cut, left_lt, count)`` as
    ``rpart_split.node_best_splits``; ``sides[j, level]`` for categorical features."""
    if cat_cols.shape[0] > 0:
        anova_tallies(XC, cat_cols, y, w, order, start, nn, center, S, T, ROWS, COUNT)
    lmax = sides.shape[1]
    xs = np.empty(nn)
    ys = np.empty(nn)
    ws = np.empty(nn)
    perm = np.empty(lmax, dtype=np.int64)
    means = np.empty(lmax)
    for j in range(vals.shape[0]):
        if is_cat[j]:
            c = cat_pos[j]
            _anova_categorical(S[c], T[c], ROWS[c], COUNT[c], n_levels[j], minbucket, node_ss,
                               out[j], sides[j], perm, means)
        else:
            _anova_numeric(vals, y, w, order, j, start, nn, minbucket, center, node_ss,
                           out[j], xs, ys, ws)
