"""One cross-validation fold's rpart tree, grown entirely in numba.

The same growth as ``growing/rpart_grow.Grower`` (spec sections 3, 4 and 6), keeping only
what the held-out walk needs: each node's primary split and surrogates, majority side,
complexity and class. Recursion is an explicit stack of frames in three phases (enter,
left child done, right child done), so a fold costs one call instead of several Python
steps per node. Nodes are stored in creation order (a parent before its children).
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .rpart_split import (
    _categorical_best,
    _direction,
    _numeric_best,
    _surrogate_categorical,
    _surrogate_numeric,
    categorical_tallies,
    partition_segments,
    surrogate_tallies,
)


@njit(cache=True)
def _store_spec(s, f, is_cat, o, srow, sp_feat, sp_cat, sp_cut, sp_lt, sp_sides):
    sp_feat[s] = f
    sp_cat[s] = is_cat
    if is_cat:
        sp_sides[s, :] = srow
    else:
        sp_cut[s] = o[1]
        sp_lt[s] = o[2] > 0.5


@njit(cache=True)
def grow_fold(X, vals, order, buffer, vbuffer, XC, cat_cols, cat_pos, keep, C, T, ROWS, COUNT,
              WL, WR, NL, NR, y, w, a, q, L, is_cat, n_levels, K, crit,
              min_split, min_bucket, max_number, max_sur, use_sur, style, alpha, tie, state,
              col_nan, level_seen, dirs, cap, node_number, node_left, node_right, node_cp,
              node_yval, node_spec0, node_nspec,
              node_major, sp_feat, sp_cat, sp_cut, sp_lt, sp_sides):
    """Grow one tree on the rows of ``order``; returns the number of nodes (node 0 = root).

    With ``cap``, complexities are capped top-down (c <- min(c, c(parent))) before
    returning, as the cross-validation walk expects. ``node_number`` receives rpart's
    number of each node. Surrogates are searched only at nodes where some row can
    miss the primary: its column has missing values (``col_nan``), or it is categorical and
    a level seen in the data (``level_seen``) is absent at the node. Elsewhere no row, grown
    or held out, ever consults them, so skipping them changes nothing.
    """
    p = vals.shape[0]
    lmax = sp_sides.shape[1]
    node_dev = np.zeros(node_cp.shape[0])
    node_parent = np.full(node_cp.shape[0], -1, dtype=np.int64)
    depth_cap = 70
    f_node = np.zeros(depth_cap, dtype=np.int64)
    f_start = np.zeros(depth_cap, dtype=np.int64)
    f_nn = np.zeros(depth_cap, dtype=np.int64)
    f_bound = np.zeros(depth_cap)
    f_phase = np.zeros(depth_cap, dtype=np.int64)
    f_u = np.zeros(depth_cap)
    f_nl = np.zeros(depth_cap, dtype=np.int64)
    f_nr = np.zeros(depth_cap, dtype=np.int64)
    f_sl = np.zeros(depth_cap)
    f_rl = np.zeros(depth_cap)
    out = np.zeros((p, 5))
    sides = np.zeros((p, lmax), dtype=np.int8)
    counts = np.zeros(K)
    n_rows = order.shape[1]
    xs = np.empty(n_rows)
    cs = np.empty(n_rows)
    ys = np.empty(n_rows, dtype=np.int64)
    ws = np.empty(n_rows)
    kv = np.empty((3, K))
    ib = np.empty((2, lmax), dtype=np.int64)
    fb = np.empty(lmax)
    bb = np.empty((2, lmax), dtype=np.bool_)
    sur_agree = np.zeros(p)
    sur_adj = np.zeros(p)
    taken = np.zeros(p, dtype=np.bool_)
    n_nodes = 1
    n_specs = 0
    node_number[0] = 1
    top = 0
    f_node[0] = 0
    f_start[0] = 0
    f_nn[0] = order.shape[1]
    f_phase[0] = 0
    ret_s = 0.0
    ret_r = 0.0
    while top >= 0:
        idx = f_node[top]
        start = f_start[top]
        nn = f_nn[top]
        R = node_dev[idx]
        if f_phase[top] == 0:
            counts[:] = 0.0
            for i in range(nn):
                r = order[0, start + i]
                counts[y[r]] += w[r]
            best_c = 0
            best_risk = np.inf
            for c in range(K):
                risk = 0.0
                for j in range(K):
                    risk += counts[j] * q[j] * L[j, c]
                if risk < best_risk:
                    best_risk = risk
                    best_c = c
            node_yval[idx] = best_c
            node_dev[idx] = best_risk
            R = best_risk
            if idx == 0:
                f_bound[top] = R
                u = R
            else:
                u = min(R, f_bound[top])
            node_left[idx] = -1
            node_right[idx] = -1
            split = not (nn < min_split or u <= alpha or node_number[idx] > max_number)
            primary = -1
            if split:
                if cat_cols.shape[0] > 0:
                    categorical_tallies(XC, cat_cols, y, w, a, order, start, nn, C, T, ROWS,
                                        COUNT)
                for j in range(p):
                    if is_cat[j]:
                        cp_ = cat_pos[j]
                        _categorical_best(C[cp_], T[cp_], a, ROWS[cp_], COUNT[cp_], n_levels[j],
                                          min_bucket, crit, K, out[j, :4], sides[j], ib, fb,
                                          bb, kv)
                    else:
                        _numeric_best(vals, y, w, a, order, j, start, nn, min_bucket, crit,
                                      K, out[j, :4], xs, cs, ys, ws, kv)
                best_v = 0.0
                for j in range(p):
                    imp = out[j, 0]
                    if imp < 0.0:
                        continue
                    state[0] = max(state[0], imp)
                    if imp > 1e-10 * state[0] and (primary < 0
                                                   or best_v < imp * (1.0 - tie)):
                        primary = j
                        best_v = imp
            if primary < 0:
                node_cp[idx] = alpha
                ret_s = 0.0
                ret_r = R
                top -= 1
                continue
            s0 = n_specs
            _store_spec(np.int64(s0), np.int64(primary), is_cat[primary], out[primary],
                        sides[primary], sp_feat, sp_cat, sp_cut, sp_lt, sp_sides)
            n_specs += 1
            w_l = 0.0
            w_r = 0.0
            for i in range(nn):
                r = order[0, start + i]
                d = _direction(X[r, primary], sp_cat[s0], sp_cut[s0], sp_lt[s0],
                               sp_sides[s0])
                dirs[r] = d
                if d < 0:
                    w_l += w[r]
                elif d > 0:
                    w_r += w[r]
            majority = 0
            if w_l > w_r:
                majority = -1
            elif w_r > w_l:
                majority = 1
            n_sur = 0
            need = col_nan[primary]
            if is_cat[primary] and not need:
                for lv in range(n_levels[primary]):
                    if level_seen[primary, lv] and sp_sides[s0, lv] == 0:
                        need = True
                        break
            if max_sur > 0 and need:
                if cat_cols.shape[0] > 0:
                    surrogate_tallies(XC, cat_cols, w, dirs, order, start, nn, WL, WR, NL, NR)
                for j in range(p):
                    sur_agree[j] = -1.0
                    if j == primary:
                        continue
                    if is_cat[j]:
                        cp_ = cat_pos[j]
                        _surrogate_categorical(WL[cp_], WR[cp_], NL[cp_], NR[cp_], n_levels[j],
                                               out[j], sides[j])
                    else:
                        _surrogate_numeric(vals, w, dirs, order, j, start, nn, out[j])
                    agree = out[j, 0]
                    if agree < 0.0:
                        continue
                    if style == 0:
                        D = w_l + w_r
                        M = max(w_l, w_r)
                    else:
                        D = out[j, 3] + out[j, 4]
                        M = max(out[j, 3], out[j, 4])
                    if D <= 0.0 or M >= D:
                        continue
                    agreement = agree / D
                    adj = (agreement - M / D) / (1.0 - M / D)
                    if adj > 1e-10:
                        sur_agree[j] = agreement
                        sur_adj[j] = adj
                taken[:] = False
                for k in range(max_sur):
                    pick = -1
                    for j in range(p):
                        if sur_agree[j] >= 0.0 and not taken[j] and (
                                pick < 0 or sur_agree[j] > sur_agree[pick]):
                            pick = j
                    if pick < 0:
                        break
                    taken[pick] = True
                    _store_spec(np.int64(n_specs), np.int64(pick), is_cat[pick], out[pick],
                                sides[pick], sp_feat, sp_cat, sp_cut, sp_lt, sp_sides)
                    n_specs += 1
                    n_sur += 1
            if use_sur >= 1:
                fallback = majority if (use_sur == 2 and max_sur > 0) else 0
                for i in range(nn):
                    r = order[0, start + i]
                    if dirs[r] != 0:
                        continue
                    d = 0
                    for s in range(s0 + 1, s0 + 1 + n_sur):
                        d = _direction(X[r, sp_feat[s]], sp_cat[s], sp_cut[s], sp_lt[s],
                                       sp_sides[s])
                        if d != 0:
                            break
                    if d == 0:
                        d = fallback
                    dirs[r] = d
            node_spec0[idx] = s0
            node_nspec[idx] = 1 + (n_sur if use_sur >= 1 else 0)
            node_major[idx] = (-1 if w_l > w_r else 1) if use_sur == 2 else 0
            n_l, n_r = partition_segments(order, vals, start, nn, dirs, buffer, vbuffer, keep)
            left = n_nodes
            right = n_nodes + 1
            n_nodes += 2
            node_parent[left] = idx
            node_parent[right] = idx
            node_number[left] = 2 * node_number[idx]
            node_number[right] = 2 * node_number[idx] + 1
            node_left[idx] = left
            node_right[idx] = right
            f_u[top] = u
            f_nl[top] = n_l
            f_nr[top] = n_r
            f_phase[top] = 1
            top += 1
            f_node[top] = left
            f_start[top] = start
            f_nn[top] = n_l
            f_bound[top] = u - alpha
            f_phase[top] = 0
        elif f_phase[top] == 1:
            f_sl[top] = ret_s
            f_rl[top] = ret_r
            left = node_left[idx]
            t = max((R - ret_r) / (ret_s + 1.0), R - node_dev[left])
            t = min(t, f_bound[top])
            f_phase[top] = 2
            nl = f_nl[top]
            top += 1
            f_node[top] = node_right[idx]
            f_start[top] = start + nl
            f_nn[top] = f_nr[top - 1]
            f_bound[top] = t - alpha
            f_phase[top] = 0
        else:
            s_l = f_sl[top]
            r_l = f_rl[top]
            s_r = ret_s
            r_r = ret_r
            left = node_left[idx]
            right = node_right[idx]
            c_l = node_cp[left]
            c_r = node_cp[right]
            t = (R - (r_l + r_r)) / (s_l + s_r + 1.0)
            if c_r > c_l:
                if t > c_l:
                    r_l = node_dev[left]
                    s_l = 0.0
                    t = (R - (r_l + r_r)) / (s_l + s_r + 1.0)
                if t > c_r:
                    r_r = node_dev[right]
                    s_r = 0.0
            else:
                if t > c_r:
                    r_r = node_dev[right]
                    s_r = 0.0
                    t = (R - (r_l + r_r)) / (s_l + s_r + 1.0)
                if t > c_l:
                    r_l = node_dev[left]
                    s_l = 0.0
            c = (R - (r_l + r_r)) / (s_l + s_r + 1.0)
            node_cp[idx] = c
            if c <= alpha:
                node_left[idx] = -1
                node_right[idx] = -1
                ret_s = 0.0
                ret_r = R
            else:
                ret_s = s_l + s_r + 1.0
                ret_r = r_l + r_r
            top -= 1
    if not cap:
        return n_nodes
    for idx in range(1, n_nodes):
        par = node_parent[idx]
        node_cp[idx] = min(node_cp[idx], node_cp[par])
    return n_nodes


@njit(cache=True)
def fold_segments(full_order, X, train, keep, order, vals):
    """A fold's root segments: the training rows of each sorted order, with their values
    (only for the features with ``keep``; the others are never read)."""
    for f in range(full_order.shape[0]):
        if not keep[f]:
            continue
        k = 0
        for i in range(full_order.shape[1]):
            r = full_order[f, i]
            if train[r]:
                order[f, k] = r
                vals[f, k] = X[r, f]
                k += 1
