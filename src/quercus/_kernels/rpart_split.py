"""rpart's split searches, surrogate scan, routing and cross-validation walk (numba).

Rows of a node live in a segment ``order[f, start:start + n]`` of a (features x rows) index
array: for every feature the node's rows sorted by that feature's value, missing (NaN)
values last; ``vals[f, pos]`` holds that row's value, so the scans read memory in order. Splitting a node partitions every feature's segment stably (left rows, right
rows, then the rows that stay at the node), so no node ever sorts again.

Direction codes: -1 left, +1 right, 0 missing / stays. Criterion codes: 0 Gini, 1 information.
Weights ``a`` are rpart's split weights (altered priors over observed shares).
"""

from __future__ import annotations

import numpy as np

from ._jit import njit

#: How far below the best improve (relative to the node's size) a category set's estimate
#: must fall to be skipped: rounding moves the two formulas apart by ~1e-15 relative.
SCREEN_MARGIN = 1e-9


@njit(cache=True)
def _scaled_impurity(c, total, crit):
    """T * I(S) for altered-weighted class sums ``c`` with total ``total``."""
    if total <= 0.0:
        return 0.0
    s = 0.0
    if crit == 0:
        for i in range(c.shape[0]):
            p = c[i] / total
            s += p * (1.0 - p)
    else:
        for i in range(c.shape[0]):
            if c[i] > 0.0:
                p = c[i] / total
                s -= p * np.log(p)
    return total * s


@njit(cache=True)
def _parent_term(tot, ttot, crit):
    """T(S) I(S) as rpart computes it (Gini: T * (p * (1 - p)) summed in class order;
    information: T * (p * log p) summed in class order, the classes with no weight left out,
    which is -T(S) I(S): _literal_improve subtracts it the other way round)."""
    if crit != 0:
        s = 0.0
        for i in range(tot.shape[0]):
            if tot[i] > 0.0:
                p = tot[i] / ttot
                s += ttot * (p * np.log(p))
        return s
    s = 0.0
    for i in range(tot.shape[0]):
        p = tot[i] / ttot
        s += ttot * (p * (1.0 - p))
    return s


@njit(cache=True)
def _literal_improve(first, t_first, second, t_second, parent, crit):
    """improve = T(S) I(S) - [T(S_1) I(S_1) + T(S_2) I(S_2)], in rpart's own arithmetic.

    ``parent`` comes from ``_parent_term``. Gini: the children's terms T * (p * (1 - p)) go
    into ONE running sum that takes, class by class, the term of ``first`` (the side the
    search accumulates: the rows with x < cut, or the enumerated category set) and then that
    of ``second``. This order reproduces rpart's stored improve values bit for bit on
    two-class fits (docs/rpart.md, "Ties between variables"); rpart ranks variables by exact
    comparison of these numbers. Information: the same one running sum of the terms
    T * (p * log p) (classes with no weight left out), minus ``parent`` (black-box probing,
    docs/rpart.md, "Categorical splits").
    """
    if crit != 0:
        children = 0.0
        for i in range(first.shape[0]):
            if t_first > 0.0 and first[i] > 0.0:
                p = first[i] / t_first
                children += t_first * (p * np.log(p))
            if t_second > 0.0 and second[i] > 0.0:
                p = second[i] / t_second
                children += t_second * (p * np.log(p))
        return children - parent
    children = 0.0
    for i in range(first.shape[0]):
        if t_first > 0.0:
            p = first[i] / t_first
            children += t_first * (p * (1.0 - p))
        if t_second > 0.0:
            p = second[i] / t_second
            children += t_second * (p * (1.0 - p))
    return parent - children


@njit(cache=True)
def _subset_improve(first, t_first, second, t_second, parent, crit):
    """``_literal_improve`` for a category set: with information, a class sum that the running
    sums leave a hair below zero (case weights such as 0.3 and 0.7 added and taken away) is
    not left out but makes the improve NaN, so that no comparison picks the set, as in rpart
    (black-box probing, docs/rpart.md, "Categorical splits"); only exact zeros are left out."""
    if crit == 0:
        return _literal_improve(first, t_first, second, t_second, parent, crit)
    children = 0.0
    for i in range(first.shape[0]):
        if first[i] != 0.0:
            p = first[i] / t_first
            children += t_first * (p * np.log(p))
        if second[i] != 0.0:
            p = second[i] / t_second
            children += t_second * (p * np.log(p))
    return children - parent


@njit(cache=True)
def _mean_class(c, total):
    m = 0.0
    for i in range(c.shape[0]):
        m += i * c[i] / total
    return m


@njit(cache=True)
def _numeric_best(vals, y, w, a, order, j, start, nn, minbucket, crit, K, out, xs, cs, ys,
                  ws, kv):
    """Best cut of numeric feature j; out = (improve, cut, left_lt, count); improve -1 if none.

    xs, cs, ys, ws (at least nn long) and kv (3 x K) are scratch buffers."""
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
            ys[m] = y[r]
            ws[m] = w[r]
            cs[m] = a[y[r]] * w[r]
            m += 1
    out[0] = -1.0
    out[3] = count
    if m < 2 or xs[0] == xs[m - 1]:
        return
    tot = kv[0]
    tot[:] = 0.0
    for i in range(m):
        tot[ys[i]] += cs[i]
    ttot = 0.0
    for i in range(K):
        ttot += tot[i]
    left = kv[1]
    left[:] = 0.0
    right = kv[2]
    tl = 0.0
    best = np.inf
    best_i = -1
    if crit == 0:
        # Gini: minimise T_L I_L + T_R I_R = T - (sq_L/T_L + sq_R/T_R), i.e. maximise
        # (sq_L T_R + sq_R T_L) / (T_L T_R), compared by cross-multiplication (no division);
        # the sums of squares are updated per row
        right[:] = tot
        sq_l = 0.0
        sq_r = 0.0
        for k in range(K):
            sq_r += tot[k] * tot[k]
        tr = ttot
        best_num = -1.0
        best_den = 1.0
        for i in range(m - 1):
            k = ys[i]
            c = cs[i]
            sq_l += c * (2.0 * left[k] + c)
            sq_r += c * (c - 2.0 * right[k])
            left[k] += c
            right[k] -= c
            tl += c
            tr -= c
            if xs[i] == xs[i + 1]:
                continue
            nl = i + 1
            if nl < minbucket or m - nl < minbucket:
                continue
            num = sq_l * tr + sq_r * tl
            den = tl * tr
            if num * best_den > best_num * den:
                best_num = num
                best_den = den
                best_i = i
    else:
        for i in range(m - 1):
            left[ys[i]] += cs[i]
            tl += cs[i]
            if xs[i] == xs[i + 1]:
                continue
            nl = i + 1
            if nl < minbucket or m - nl < minbucket:
                continue
            tr = 0.0
            for k in range(K):
                right[k] = tot[k] - left[k]
                tr += right[k]
            val = _scaled_impurity(left, tl, crit) + _scaled_impurity(right, tr, crit)
            if val < best:
                best = val
                best_i = i
    if best_i < 0:
        return
    ttot, tl, tr = _scan_sums(ys, cs, ws, a, np.int64(m), np.int64(best_i), K, tot, left,
                              right)
    out[0] = _literal_improve(left, tl, right, tr, _parent_term(tot, ttot, crit), crit)
    out[1] = (xs[best_i] + xs[best_i + 1]) / 2.0
    out[2] = 1.0 if _mean_class(left, tl) < _mean_class(right, tr) else 0.0


@njit(cache=True)
def _scan_sums(ys, cs, ws, a, m, best_i, K, tot, left, right):
    """The sums rpart's improve is made of at the cut after sorted row ``best_i``.

    Found by black-box probing of R's rpart (docs/rpart.md, "Ties between variables"): the
    class sums are the split weight times the class's case-weight count on each side
    (``a[k] * n_k``), the counts and the total weights running sums in sorted order: the
    node's over all its rows, the left side's by adding the rows moved left, the right
    side's by subtracting each of them from the node's (not the node's minus the left's: with
    case weights such as 0.3 and 0.7 the two differ in the last bit).
    Returns (node total, left total, right total); the class sums go into tot, left, right.
    """
    tot[:] = 0.0
    left[:] = 0.0
    ttot = 0.0
    for i in range(m):
        tot[ys[i]] += ws[i]
        ttot += cs[i]
    tl = 0.0
    tr = ttot
    right[:] = tot
    for i in range(best_i + 1):
        left[ys[i]] += ws[i]
        right[ys[i]] -= ws[i]
        tl += cs[i]
        tr -= cs[i]
    for k in range(K):
        right[k] = a[k] * right[k]
        left[k] = a[k] * left[k]
        tot[k] = a[k] * tot[k]
    return ttot, tl, tr


@njit(cache=True)
def categorical_tallies(XC, cat_cols, y, w, a, order, start, nn, C, T, ROWS, COUNT):
    """Per-level class counts of every categorical feature at a node, in one pass over its
    rows in data order (the segment of the first categorical feature, whose order is the
    rows' own).

    ``XC`` holds the categorical columns row-major (rows x len(cat_cols)); ``C[c, level,
    class]`` the case-weight counts and ``C[c, -1, class]`` their sums over all the levels
    (the node's class counts for that feature, in data order), ``T[c, level]`` the sums of the split-weighted rows
    ``a[y] * w`` in data order and ``T[c, -1]`` their sum over all the levels (the node's
    total for that feature, also in data order); ``ROWS`` the rows with weight > 0 and
    ``COUNT[c]`` the rows with the feature present.
    """
    C[:] = 0.0
    T[:] = 0.0
    ROWS[:] = 0
    COUNT[:] = 0
    m = cat_cols.shape[0]
    last = T.shape[1] - 1
    clast = C.shape[1] - 1
    lead = cat_cols[0]
    for i in range(nn):
        r = order[lead, start + i]
        yr = y[r]
        cw = a[yr] * w[r]
        positive = w[r] > 0.0
        for c in range(m):
            v = XC[r, c]
            if np.isnan(v):
                continue
            COUNT[c] += 1
            if positive:
                lv = int(v)
                C[c, lv, yr] += w[r]
                C[c, clast, yr] += w[r]
                T[c, lv] += cw
                T[c, last] += cw
                ROWS[c, lv] += 1


@njit(cache=True)
def _categorical_best(c, t, a, rows, count, nlev, minbucket, crit, K, out, sides, ib, fb, bb,
                      kv):
    """Best subset split of one categorical feature from its per-level counts (2 classes:
    ordering by class share; more: Gray-code enumeration).

    ib (2 x levels, int), fb (levels), bb (2 x levels, bool), kv (3 x K) are scratch."""
    out[0] = -1.0
    out[3] = count
    sides[:] = 0
    present = ib[0]
    npres = 0
    for lv in range(nlev):
        if rows[lv] > 0:
            present[npres] = lv
            npres += 1
    if npres < 2:
        return
    ntot = 0
    for lv in range(nlev):
        ntot += rows[lv]
    # rpart's sums (black-box probing, docs/rpart.md, "Categorical splits"): the node's
    # class counts and total weight summed over its rows in data order; the set's class
    # counts and total weight running sums as levels move in (and, in the Gray code, out),
    # the rest's starting at the node's and doing the opposite. Those running sums, never
    # summed afresh, are what the improve is made of.
    nodec = c[c.shape[0] - 1]
    tot = kv[0]
    for k in range(K):
        tot[k] = a[k] * nodec[k]
    ttot = t[t.shape[0] - 1]
    parent = _parent_term(tot, ttot, crit)
    counts = np.zeros(K)  # the set's class counts
    rest = nodec.copy()  # the rest's
    best_counts = np.zeros(K)
    best_rest = np.zeros(K)
    tl = 0.0
    tr = ttot
    best_tl = 0.0
    best_tr = 0.0
    left = kv[1]
    right = kv[2]
    best = -np.inf
    best_left = bb[0]
    best_left[:] = False
    inleft = bb[1]
    inleft[:] = False
    seq = ib[1]
    if K == 2:
        share = fb
        for i in range(npres):
            share[i] = a[0] * c[present[i], 0] / t[present[i]]
            # stable insertion sort of the present levels by share
            k = i
            while k > 0 and share[seq[k - 1]] > share[i]:
                seq[k] = seq[k - 1]
                k -= 1
            seq[k] = i
        for i in range(npres):
            seq[i] = present[seq[i]]
        nl = 0
        for s in range(npres - 1):
            lv = seq[s]
            inleft[lv] = True
            nl += rows[lv]
            tl += t[lv]
            tr -= t[lv]
            for k in range(K):
                counts[k] += c[lv, k]
                rest[k] -= c[lv, k]
            if nl < minbucket or ntot - nl < minbucket:
                continue
            for k in range(K):
                left[k] = a[k] * counts[k]
                right[k] = a[k] * rest[k]
            val = _subset_improve(left, tl, right, tr, parent, crit)
            if val > best:
                best = val
                best_left[:] = inleft
                best_counts[:] = counts
                best_rest[:] = rest
                best_tl = tl
                best_tr = tr
    else:
        for i in range(npres):
            seq[i] = present[i]
        cand = np.empty(nlev, dtype=np.int64)
        ncand = 0
        for i in range(npres):
            if present[i] < nlev - 1:
                cand[ncand] = present[i]
                ncand += 1
        # the cheaper estimate below only screens out the sets far below the best
        margin = SCREEN_MARGIN * (abs(parent) + ttot)
        nl = 0
        for step in range(1, 1 << ncand):
            b = 0
            while ((step >> b) & 1) == 0:
                b += 1
            lv = cand[b]
            # the level moves in (sign 1) or out (-1); x + (-1 * v) is exactly x - v
            sign = -1.0 if inleft[lv] else 1.0
            inleft[lv] = not inleft[lv]
            nl += rows[lv] if sign > 0 else -rows[lv]
            tl += sign * t[lv]
            tr -= sign * t[lv]
            for k in range(K):
                counts[k] += sign * c[lv, k]
                rest[k] -= sign * c[lv, k]
            if nl < minbucket or ntot - nl < minbucket:
                continue
            if crit == 0 and best > -np.inf:
                # _literal_improve's Gini value in fewer divisions (T I = sum c - sum c^2 / T
                # per side), equal to it up to rounding; in scalars (no stores, no calls)
                sl = 0.0
                ql = 0.0
                sr = 0.0
                qr = 0.0
                for k in range(K):
                    vl = a[k] * counts[k]
                    vr = a[k] * rest[k]
                    sl += vl
                    ql += vl * vl
                    sr += vr
                    qr += vr * vr
                estimate = parent
                if tl > 0.0:
                    estimate -= sl - ql / tl
                if tr > 0.0:
                    estimate -= sr - qr / tr
                if estimate + margin < best:
                    continue  # below the best by more than rounding can account for
            for k in range(K):
                left[k] = a[k] * counts[k]
                right[k] = a[k] * rest[k]
            val = _subset_improve(left, tl, right, tr, parent, crit)
            if val > best:
                best = val
                best_left[:] = inleft
                best_counts[:] = counts
                best_rest[:] = rest
                best_tl = tl
                best_tr = tr
    if best == -np.inf:
        return
    for k in range(K):
        left[k] = a[k] * best_counts[k]
        right[k] = a[k] * best_rest[k]
    _finish(left, best_tl, right, best_tr, best_left, present, np.int64(npres), best, out,
            sides)


@njit(cache=True)
def _finish(left, tl, right, tr, best_left, present, npres, improve, out, sides):
    """The chosen set's sides (the side of lower mean class goes left) and improve."""
    flip = not (_mean_class(left, tl) < _mean_class(right, tr))
    for i in range(npres):
        lv = present[i]
        s = -1 if best_left[lv] else 1
        sides[lv] = -s if flip else s
    out[0] = improve
    out[1] = 0.0
    out[2] = 0.0


@njit(cache=True)
def node_best_splits(vals, XC, cat_cols, cat_pos, y, w, a, order, start, nn, is_cat, n_levels,
                     minbucket, crit, K, out, sides, C, T, ROWS, COUNT):
    """Every feature's best split at one node.

    ``out[j] = (improve, cut, left_lt, count)``: improve -1 when the feature has no split,
    left_lt 1 when rows with x < cut go left; ``sides[j, level]`` for categorical features.
    ``cat_pos[j]`` is feature j's column in ``XC`` (-1 for numeric features); C, T, ROWS,
    COUNT are scratch buffers for ``categorical_tallies``.
    """
    if cat_cols.shape[0] > 0:
        categorical_tallies(XC, cat_cols, y, w, a, order, start, nn, C, T, ROWS, COUNT)
    lmax = sides.shape[1]
    xs = np.empty(nn)
    cs = np.empty(nn)
    ys = np.empty(nn, dtype=np.int64)
    ws = np.empty(nn)
    kv = np.empty((3, K))
    ib = np.empty((2, lmax), dtype=np.int64)
    fb = np.empty(lmax)
    bb = np.empty((2, lmax), dtype=np.bool_)
    for j in range(vals.shape[0]):
        if is_cat[j]:
            c = cat_pos[j]
            _categorical_best(C[c], T[c], a, ROWS[c], COUNT[c], n_levels[j], minbucket, crit, K,
                              out[j], sides[j], ib, fb, bb, kv)
        else:
            _numeric_best(vals, y, w, a, order, j, start, nn, minbucket, crit, K, out[j], xs,
                          cs, ys, ws, kv)


@njit(cache=True)
def _surrogate_numeric(vals, w, dirs, order, j, start, nn, out):
    # gather the present rows: value, direction (0 for rows with weight 0), weight
    xs = np.empty(nn)
    ds = np.empty(nn, dtype=np.int8)
    ws = np.empty(nn)
    m = 0
    wl = 0.0
    wr = 0.0
    n_dir = 0
    for i in range(nn):
        r = order[j, start + i]
        v = vals[j, start + i]
        if np.isnan(v):
            break
        d = dirs[r]
        wt = w[r]
        if wt <= 0.0:
            d = 0
        xs[m] = v
        ds[m] = d
        ws[m] = wt
        m += 1
        if d < 0:
            wl += wt
            n_dir += 1
        elif d > 0:
            wr += wt
            n_dir += 1
    out[3] = wl
    out[4] = wr
    out[0] = -1.0
    best = max(wl, wr)
    nl_rows = 0
    lwl = 0.0
    lwr = 0.0
    found = False
    for i in range(m - 1):
        d = ds[i]
        if d != 0:
            nl_rows += 1
            if d < 0:
                lwl += ws[i]
            else:
                lwr += ws[i]
        v = xs[i]
        v2 = xs[i + 1]
        if v2 == v or nl_rows < 2 or n_dir - nl_rows < 2:
            continue
        a1 = lwr + (wl - lwl)
        if a1 > best:
            best = a1
            out[1] = (v + v2) / 2.0
            out[2] = 0.0
            found = True
        a2 = lwl + (wr - lwr)
        if a2 > best:
            best = a2
            out[1] = (v + v2) / 2.0
            out[2] = 1.0
            found = True
    if found:
        out[0] = best


@njit(cache=True)
def surrogate_tallies(XC, cat_cols, w, dirs, order, start, nn, WL, WR, NL, NR):
    """Per-level weights and rows sent left / right by the primary, for every categorical
    feature, in one pass over the node's rows (rows with weight 0 or no direction skipped)."""
    WL[:] = 0.0
    WR[:] = 0.0
    NL[:] = 0
    NR[:] = 0
    m = cat_cols.shape[0]
    for i in range(nn):
        r = order[0, start + i]
        d = dirs[r]
        if d == 0 or w[r] <= 0.0:
            continue
        for c in range(m):
            v = XC[r, c]
            if np.isnan(v):
                continue
            lv = int(v)
            if d < 0:
                WL[c, lv] += w[r]
                NL[c, lv] += 1
            else:
                WR[c, lv] += w[r]
                NR[c, lv] += 1


@njit(cache=True)
def _surrogate_categorical(wl_l, wr_l, nl_l, nr_l, nlev, out, sides):
    wl = 0.0
    wr = 0.0
    for lv in range(nlev):
        wl += wl_l[lv]
        wr += wr_l[lv]
    out[3] = wl
    out[4] = wr
    out[0] = -1.0
    sides[:] = 0
    agree = 0.0
    n_agree = 0
    n_dis = 0
    for lv in range(nlev):
        if nl_l[lv] + nr_l[lv] == 0:
            continue
        if wl_l[lv] > wr_l[lv] or (wl_l[lv] == wr_l[lv] and wl > wr):
            sides[lv] = -1
            agree += wl_l[lv]
            n_agree += nl_l[lv]
            n_dis += nr_l[lv]
        else:
            sides[lv] = 1
            agree += wr_l[lv]
            n_agree += nr_l[lv]
            n_dis += nl_l[lv]
    if n_agree >= 2 and n_dis >= 2:
        out[0] = agree


@njit(cache=True)
def node_surrogates(vals, XC, cat_cols, cat_pos, w, dirs, order, start, nn, is_cat, n_levels,
                    primary, out, sides, WL, WR, NL, NR):
    """Every other feature's best surrogate for the primary directions ``dirs``.

    ``out[j] = (agreement weight, cut, left_lt, W_L', W_R')`` (W' over rows with j present),
    agreement -1 when the feature gives no surrogate; ``sides[j]`` for categorical features.
    WL, WR, NL, NR are scratch buffers for ``surrogate_tallies``.
    """
    if cat_cols.shape[0] > 0:
        surrogate_tallies(XC, cat_cols, w, dirs, order, start, nn, WL, WR, NL, NR)
    for j in range(vals.shape[0]):
        if j == primary:
            out[j, 0] = -1.0
            continue
        if is_cat[j]:
            c = cat_pos[j]
            _surrogate_categorical(WL[c], WR[c], NL[c], NR[c], n_levels[j], out[j], sides[j])
        else:
            _surrogate_numeric(vals, w, dirs, order, j, start, nn, out[j])


@njit(cache=True)
def _direction(v, is_cat, cut, left_lt, sides):
    if np.isnan(v):
        return 0
    if is_cat:
        return sides[int(v)]
    if v < cut:
        return -1 if left_lt else 1
    return 1 if left_lt else -1


@njit(cache=True)
def route_rows(X, order, start, nn, sp_feat, sp_cat, sp_cut, sp_lt, sp_sides, n_use,
               majority, dirs, used):
    """Direction of each row of a node: primary (spec 0), then specs 1..n_use-1, then
    ``majority`` (0: stay). ``used[s]`` counts the rows spec s routed."""
    for i in range(nn):
        r = order[0, start + i]
        d = 0
        for s in range(n_use):
            f = sp_feat[s]
            d = _direction(X[r, f], sp_cat[s], sp_cut[s], sp_lt[s], sp_sides[s])
            if d != 0:
                used[s] += 1
                break
        if d == 0:
            d = majority
        dirs[r] = d


@njit(cache=True)
def partition_segments(order, vals, start, nn, dirs, buffer, vbuffer, keep):
    """Stable partition of the segments of the features with ``keep`` (indices and values):
    left rows, right rows, staying rows. Returns (n_left, n_right)."""
    for f in range(order.shape[0]):
        if not keep[f]:
            continue
        pos = start
        nr = 0
        ns = 0
        for p in range(start, start + nn):
            r = order[f, p]
            v = vals[f, p]
            d = dirs[r]
            if d < 0:
                order[f, pos] = r
                vals[f, pos] = v
                pos += 1
            elif d > 0:
                buffer[f, nr] = r
                vbuffer[f, nr] = v
                nr += 1
            else:
                buffer[f, nn - 1 - ns] = r
                vbuffer[f, nn - 1 - ns] = v
                ns += 1
        for k in range(nr):
            order[f, pos + k] = buffer[f, k]
            vals[f, pos + k] = vbuffer[f, k]
        pos += nr
        for k in range(ns):
            order[f, pos + k] = buffer[f, nn - 1 - k]
            vals[f, pos + k] = vbuffer[f, nn - 1 - k]
    n_left = 0
    n_right = 0
    for p in range(start, start + nn):
        d = dirs[order[0, p]]
        if d < 0:
            n_left += 1
        elif d > 0:
            n_right += 1
    return n_left, n_right


@njit(cache=True)
def cv_walk(X, rows, betas, node_spec0, node_nspec, node_major, node_left, node_right,
            node_cp, node_yval, sp_feat, sp_cat, sp_cut, sp_lt, sp_sides, out):
    """Class of each held-out row at each threshold ``betas[k]`` (descending).

    A row continues from where it stood at the previous threshold and moves down while the
    threshold is below the node's complexity: primary, surrogates, then the node's majority
    side (``node_major``; 0 = stay). A row that cannot move stays (class of that node).
    """
    for i in range(rows.shape[0]):
        r = rows[i]
        node = 0
        for k in range(betas.shape[0]):
            while node_left[node] >= 0 and betas[k] < node_cp[node]:
                d = 0
                s0 = node_spec0[node]
                for s in range(s0, s0 + node_nspec[node]):
                    d = _direction(X[r, sp_feat[s]], sp_cat[s], sp_cut[s], sp_lt[s],
                                   sp_sides[s])
                    if d != 0:
                        break
                if d == 0:
                    d = node_major[node]
                if d == 0:
                    break
                node = node_left[node] if d < 0 else node_right[node]
            out[i, k] = node_yval[node]
