"""Growing one rpart tree: split search, surrogates, routing, node complexity.

The steps of docs/rpart.md (spec sections 2-4, 6, 7): altered priors for the split search,
risk (priors and loss) for classes and complexities, rpart's bounds and child re-evaluation
for node complexity, surrogates with usesurrogate 0/1/2, and the records of the result.

Two growers follow the same rules: this Python one, which keeps every record (competitors,
surrogate counts, each row's node), and the compiled kernel ``grow_fold`` (``_kernels/_rpart.pyx``)
(driven by ``growing/rpart_cv.FastGrower``), which keeps only what routing needs. A fit
grows the full data with the kernel first, then re-walks here only the nodes it kept
(``guide``); the cross-validation folds use the kernel alone. Without a guide this grower
runs rpart's whole procedure itself (the tests check that both agree).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from quercus.rpart_records import FRAME_COLUMNS, SplitRecord

from .._kernels._rpart import node_best_splits, node_surrogates, partition_segments, route_rows

#: Improvements within this relative distance rank as equal (formula order) where Quercus's
#: arithmetic is not known to be rpart's own (see ``tie_tolerance``).
TIE_TOLERANCE = 1e-12
CRITERIA = {"gini": 0, "entropy": 1, "information": 1}


@dataclass
class RpartControl:
    """rpart.control's settings (classification), with rpart's defaults."""

    min_split: int = 20
    min_bucket: int = 7
    cp: float = 0.01
    max_competitors: int = 4
    max_surrogates: int = 5
    use_surrogates: int = 2
    surrogate_style: int = 0
    max_depth: int = 30
    criterion: str = "gini"


@dataclass
class _Costs:
    """The data-wide weights: risk weights q, split weights a, loss L, priors, totals."""

    q: np.ndarray
    a: np.ndarray
    loss: np.ndarray
    priors: np.ndarray
    class_totals: np.ndarray
    total_weight: float
    tie: float = TIE_TOLERANCE


def make_costs(y, w, n_classes, priors=None, loss=None) -> _Costs:
    """Risk weights q = pi/f and split weights a = altered prior / f from the full data."""
    totals = np.bincount(y, weights=w, minlength=n_classes).astype(np.float64)
    # rpart's class shares f: each class's weight and the total, summed row by row in data
    # order in double precision; its default priors: R's class sums in long double, rounded,
    # over their long-double sum (black-box probing, docs/rpart.md): with case weights that
    # are not whole the two differ in the last bits, and so do the split weights
    weights = np.asarray(w, dtype=np.float64)
    total = float(np.cumsum(weights)[-1]) if len(weights) else 0.0
    f = totals / total
    if priors is None:
        pi = _r_class_shares(y, weights, n_classes)
    else:
        pi = np.asarray(priors, dtype=np.float64)
    L = (1.0 - np.eye(n_classes)) if loss is None else np.asarray(loss, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(totals > 0, pi / np.where(f > 0, f, 1.0), 0.0)
        rows, norm = altered_priors(pi, L)
        a = np.where(totals > 0, rows / (norm * np.where(f > 0, f, 1.0)), 0.0)
    return _Costs(q=q, a=a, loss=L, priors=pi, class_totals=totals, total_weight=total,
                  tie=tie_tolerance(loss))


def _r_class_shares(y, w, n_classes) -> np.ndarray:
    """The class shares of the case weight as R computes rpart's default priors: each class's
    weights summed in data order in long double and rounded, divided by those sums' long-double
    sum, rounded (R's ``sum``; where long double is double this is plain double)."""
    sums = np.zeros(n_classes)
    for k in range(n_classes):
        wk = w[y == k]
        if len(wk):
            sums[k] = float(np.cumsum(wk, dtype=np.longdouble)[-1])
    grand = float(np.cumsum(sums, dtype=np.longdouble)[-1]) if n_classes else 0.0
    return sums / grand


def altered_priors(pi, L):
    """The two parts of rpart's altered priors pi_i L_i / sum_i pi_i L_i (L_i the row sums of
    the loss), in the arithmetic black-box probing of rpart found (docs/rpart.md, "Ties
    between variables"): L_i as the running sum of the products pi_i L(i, j) over j, the
    divisor as the running sum of all the products pi_i L(i, j), row by row. Returns (the
    products' row sums, the divisor): rpart's split weight is ``rows[i] / (norm * f[i])``
    (f the class's share of the case weight), one division by the product, not the altered
    prior divided by f (with four classes, where 3 pi_i is inexact, the two differ in the
    last bit and so do the improvements; docs/rpart.md). With default priors the split
    weights come out as 1 + 2^-52 on, e.g., iris, not exactly 1.
    """
    K = len(pi)
    rows = np.zeros(K)
    total = 0.0
    for i in range(K):
        s = 0.0
        for j in range(K):
            term = float(pi[i]) * float(L[i, j])
            s += term
            total += term
        rows[i] = s
    return rows, total


def tie_tolerance(loss) -> float:
    """The relative tolerance for ranking improvements: 0 (exact, as rpart) or TIE_TOLERANCE.

    rpart ranks variables by exact comparison of its floating-point improvements, so a
    mathematical tie goes to whichever value its rounding makes larger. Quercus computes
    improve in rpart's arithmetic as black-box probing found it (``altered_priors`` and
    ``_kernels/rpart_split``: split weights, per-row running totals, class sums as weight
    times count), which reproduces rpart's stored values bit for bit with 0/1 loss (any
    priors, any number of classes); there ties are decided exactly, as rpart does. With
    another loss matrix rpart's split weights still differ from Quercus's in the last bits,
    so mathematically equal improvements rank in formula order (rpart's documented rule)
    within TIE_TOLERANCE.
    """
    return 0.0 if loss is None else TIE_TOLERANCE


class CategoricalScratch:
    """The categorical columns row-major (one pass per node tallies them all) and the
    kernels' scratch buffers; ``keep`` marks the features whose sorted segments are read
    (numeric ones, feature 0, whose segment lists the node's rows, and the first categorical
    one, whose segment lists them in data order for the categorical tallies)."""

    def __init__(self, X, is_cat, lmax, K):
        self.cols = np.flatnonzero(is_cat).astype(np.int64)
        self.XC = np.ascontiguousarray(X[:, self.cols], dtype=np.float64)
        self.pos = np.full(len(is_cat), -1, dtype=np.int64)
        self.pos[self.cols] = np.arange(len(self.cols))
        m = len(self.cols)
        self.C = np.zeros((m, lmax + 1, K))  # the last level: the node's class counts
        self.T = np.zeros((m, lmax + 1))  # the last column: the node's total
        self.ROWS = np.zeros((m, lmax), dtype=np.int64)
        self.COUNT = np.zeros(m, dtype=np.int64)
        self.WL = np.zeros((m, lmax))
        self.WR = np.zeros((m, lmax))
        self.NL = np.zeros((m, lmax), dtype=np.int64)
        self.NR = np.zeros((m, lmax), dtype=np.int64)
        self.keep = ~np.asarray(is_cat, dtype=np.bool_)
        if len(self.keep):
            self.keep[0] = True
        if m:
            self.keep[self.cols[0]] = True  # its segments list a node's rows in data order


class _Node:
    """One node during growth (rpart's numbering; children None at a leaf)."""

    __slots__ = (
        "c",
        "competitors",
        "counts",
        "cv_majority",
        "dev",
        "improve",
        "left",
        "majority",
        "n",
        "number",
        "primary",
        "right",
        "surrogates",
        "wt",
        "yval",
    )

    def __init__(self, number, n, counts, dev, yval):
        self.number = number
        self.n = n
        self.counts = counts
        self.wt = float(counts.sum())
        self.dev = dev
        self.yval = yval
        self.c = 0.0
        self.left = None
        self.right = None
        self.primary = None
        self.competitors = []
        self.surrogates = []
        self.majority = 0
        self.cv_majority = 1
        self.improve = 0.0


class Grower:
    """Grows one rpart tree on the rows of ``order`` with full records.

    ``state`` holds rpart's running maximum improve (index 0); ``where`` receives each row's
    node; ``guide`` ({node number: (split kept, complexity)}) restricts growth to the nodes
    a first pass kept.
    """

    def __init__(self, X, y, w, costs, control, is_cat, n_levels, order, alpha, state,
                 where=None, guide=None):
        self.X, self.y, self.w = X, y, w
        self.costs = costs
        self.ctl = control
        self.is_cat = is_cat
        self.n_levels = n_levels
        self.order = order
        self.alpha = alpha
        self.state = state  # [running maximum improve], shared by the fit and its folds
        self.K = len(costs.q)
        self.crit = CRITERIA[control.criterion]
        self.p = X.shape[1]
        self.lmax = max(1, int(n_levels.max()) if len(n_levels) else 1)
        self.dirs = np.zeros(X.shape[0], dtype=np.int8)
        self.buffer = np.empty_like(order)
        self.vals = np.empty(order.shape)
        for j in range(order.shape[0]):
            self.vals[j] = X[order[j], j]
        self.vbuffer = np.empty_like(self.vals)
        self.cat = CategoricalScratch(X, is_cat, self.lmax, self.K)
        self.where = np.full(X.shape[0], -1, dtype=np.int64) if where is None else where
        self.max_number = 2 ** control.max_depth - 1
        # guide: {node number: (split kept, raw complexity)} from a growth of the same rows
        # by the compiled kernel; the nodes it discarded are then not grown again here
        self.guide = guide

    # -- node summaries ---------------------------------------------------------------
    def _summary(self, number, start, nn):
        rows = self.order[0, start:start + nn]
        counts = np.bincount(self.y[rows], weights=self.w[rows], minlength=self.K)
        risks = (counts * self.costs.q) @ self.costs.loss
        yval = int(np.argmin(risks))
        return _Node(number, nn, counts.astype(np.float64), float(risks[yval]), yval)

    # -- growth (spec section 4) ------------------------------------------------------
    def grow(self):
        return self._grow(1, 0, self.order.shape[1], None)[0]

    def _leaf(self, node, start, nn, c):
        node.c = c
        self.where[self.order[0, start:start + nn]] = node.number
        return node, 0, node.dev

    def _grow(self, number, start, nn, bound):
        if self.guide is not None:
            return self._grow_guided(number, start, nn)
        node = self._summary(number, start, nn)
        R = node.dev
        alpha = self.alpha
        u = R if bound is None else min(R, bound)
        if bound is None:
            bound = R
        ctl = self.ctl
        if nn < ctl.min_split or u <= alpha or number > self.max_number:
            return self._leaf(node, start, nn, alpha)
        if not self._split(node, start, nn):
            return self._leaf(node, start, nn, alpha)
        n_left, n_right = self._route(node, start, nn)
        stay = self.order[0, start + n_left + n_right:start + nn]
        self.where[stay] = number
        left, s_l, r_l = self._grow(2 * number, start, n_left, u - alpha)
        t = max((R - r_l) / (s_l + 1), R - left.dev)
        t = min(t, bound)
        right, s_r, r_r = self._grow(2 * number + 1, start + n_left, n_right, t - alpha)
        node.left, node.right = left, right
        c_l, c_r = left.c, right.c
        t = (R - (r_l + r_r)) / (s_l + s_r + 1)
        if c_r > c_l:
            if t > c_l:
                r_l, s_l = left.dev, 0
                t = (R - (r_l + r_r)) / (s_l + s_r + 1)
            if t > c_r:
                r_r, s_r = right.dev, 0
        else:
            if t > c_r:
                r_r, s_r = right.dev, 0
                t = (R - (r_l + r_r)) / (s_l + s_r + 1)
            if t > c_l:
                r_l, s_l = left.dev, 0
        c = (R - (r_l + r_r)) / (s_l + s_r + 1)
        if c <= alpha:
            node.left = node.right = None
            node.primary = None
            node.competitors = []
            node.surrogates = []
            return self._leaf(node, start, nn, c)
        node.c = c
        return node, s_l + s_r + 1, r_l + r_r

    def _grow_guided(self, number, start, nn):
        node = self._summary(number, start, nn)
        kept, c = self.guide[number]
        if not kept:
            return self._leaf(node, start, nn, c)
        if not self._split(node, start, nn):
            raise RuntimeError(f"rpart: node {number} has no split on the second pass")
        n_left, n_right = self._route(node, start, nn)
        self.where[self.order[0, start + n_left + n_right:start + nn]] = number
        node.left = self._grow_guided(2 * number, start, n_left)[0]
        node.right = self._grow_guided(2 * number + 1, start + n_left, n_right)[0]
        node.c = c
        return node, 0, 0.0

    # -- the split search (section 3) ---------------------------------------------------
    def _split(self, node, start, nn):
        p = self.p
        out = np.zeros((p, 4))
        sides = np.zeros((p, self.lmax), dtype=np.int8)
        self._best_splits(node, start, nn, out, sides)
        improves = out[:, 0].tolist()
        state = self.state
        cands = []
        for j in range(p):
            imp = improves[j]
            if imp < 0:
                continue
            state[0] = max(state[0], imp)
            if imp > 1e-10 * state[0]:
                cands.append(j)
        if not cands:
            return False
        cands = rank_tolerant(cands, improves, self.costs.tie)[:self.ctl.max_competitors + 1]
        recs = [self._record(node.number, "primary" if i == 0 else "competitor", j,
                             out[j].tolist(), sides[j]) for i, j in enumerate(cands)]
        node.primary, node.competitors = recs[0], recs[1:]
        node.improve = recs[0].improve
        return True

    def _best_splits(self, node, start, nn, out, sides):
        """Every feature's best split into ``out`` and ``sides`` (the split rule: Gini or
        information here; ``growing/rpart_anova.AnovaGrower`` the sum of squares)."""
        cat = self.cat
        node_best_splits(self.vals, cat.XC, cat.cols, cat.pos, self.y, self.w, self.costs.a,
                         self.order, start, nn, self.is_cat, self.n_levels,
                         self.ctl.min_bucket, self.crit, self.K, out, sides, cat.C, cat.T,
                         cat.ROWS, cat.COUNT)

    def _record(self, number, role, j, o, sides):
        rec = SplitRecord(node=number, role=role, feature=j, count=int(o[3]), improve=o[0])
        if self.is_cat[j]:
            rec.sides = sides[:self.n_levels[j]].copy()
        else:
            rec.cut = float(o[1])
            rec.left = "<" if o[2] > 0.5 else ">="
        return rec

    # -- surrogates and routing (section 6) --------------------------------------------
    def _specs(self, recs):
        m = len(recs)
        feat = np.zeros(m, dtype=np.int64)
        cat = np.zeros(m, dtype=np.bool_)
        cut = np.zeros(m)
        lt = np.zeros(m, dtype=np.bool_)
        sides = np.zeros((m, self.lmax), dtype=np.int8)
        for i, r in enumerate(recs):
            feat[i] = r.feature
            if r.sides is not None:
                cat[i] = True
                sides[i, :len(r.sides)] = r.sides
            else:
                cut[i] = r.cut
                lt[i] = r.left == "<"
        return feat, cat, cut, lt, sides

    def _route(self, node, start, nn):
        ctl = self.ctl
        rows = self.order[0, start:start + nn]
        spec = self._specs([node.primary])
        used = np.zeros(1, dtype=np.int64)
        route_rows(self.X, self.order, start, nn, *spec, 1, 0, self.dirs, used)
        d = self.dirs[rows]
        wr = self.w[rows]
        w_l = float(wr[d < 0].sum())
        w_r = float(wr[d > 0].sum())
        node.majority = -1 if w_l > w_r else (1 if w_r > w_l else 0)
        node.cv_majority = -1 if w_l > w_r else 1
        if ctl.max_surrogates > 0:
            node.surrogates = self._surrogates(node, start, nn, w_l, w_r)
        if ctl.use_surrogates >= 1:
            recs = [node.primary] + node.surrogates
            majority = node.majority if (ctl.use_surrogates == 2
                                         and ctl.max_surrogates > 0) else 0
            spec = self._specs(recs)
            used = np.zeros(len(recs), dtype=np.int64)
            route_rows(self.X, self.order, start, nn, *spec, len(recs), majority, self.dirs,
                       used)
            for s, rec in enumerate(recs[1:], start=1):
                rec.count = int(used[s])
        return partition_segments(self.order, self.vals, start, nn, self.dirs, self.buffer,
                                  self.vbuffer, self.cat.keep)

    def _surrogates(self, node, start, nn, w_l, w_r):
        p = self.p
        out = np.zeros((p, 5))
        sides = np.zeros((p, self.lmax), dtype=np.int8)
        cat = self.cat
        node_surrogates(self.vals, cat.XC, cat.cols, cat.pos, self.w, self.dirs, self.order,
                        start, nn, self.is_cat, self.n_levels, node.primary.feature, out,
                        sides, cat.WL, cat.WR, cat.NL, cat.NR)
        rows = out.tolist()
        style0 = self.ctl.surrogate_style == 0
        found = []
        for j in range(p):
            agree, _, _, wl_v, wr_v = rows[j]
            if agree < 0:
                continue
            if style0:
                D, M = w_l + w_r, max(w_l, w_r)
            else:
                D, M = wl_v + wr_v, max(wl_v, wr_v)
            if D <= 0 or M >= D:
                continue
            agreement = agree / D
            adj = (agreement - M / D) / (1.0 - M / D)
            if adj > 1e-10:
                found.append((-agreement, j, adj))
        found.sort()
        recs = []
        for neg_agreement, j, adj in found[:self.ctl.max_surrogates]:
            rec = self._record(node.number, "surrogate", j, rows[j], sides[j])
            rec.improve = -neg_agreement
            rec.adj = adj
            rec.count = 0
            recs.append(rec)
        return recs


def rank_tolerant(items, values, rel=TIE_TOLERANCE):
    """``items`` by value, descending; values within ``rel`` (relative) of each other tie,
    and a tie keeps the earlier item (rpart's rule for equal improvements; ``rel`` = 0 is
    rpart's exact comparison)."""
    ranked = []
    for j in items:
        floor = values[j] * (1.0 - rel)
        pos = len(ranked)
        while pos > 0 and values[ranked[pos - 1]] < floor:
            pos -= 1
        ranked.insert(pos, j)
    return ranked


def preorder(root):
    """The nodes of a grown tree in pre-order."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        out.append(node)
        if node.left is not None:
            stack.append(node.right)
            stack.append(node.left)
    return out


def cap_complexities(root, floor):
    """Top-down c(A) <- min(c(A), max(c(parent), floor)) (floor -inf: plain min)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.left is not None:
            cap = max(node.c, floor)
            for child in (node.left, node.right):
                child.c = min(child.c, cap)
                stack.append(child)


def cp_values(root, alpha):
    """The cp list (unscaled, descending): c(root), then each value max(c, alpha) below
    its parent's."""
    values = {root.c}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.left is not None:
            pv = max(node.c, alpha)
            for child in (node.left, node.right):
                cv = max(child.c, alpha)
                if cv < pv:
                    values.add(cv)
                stack.append(child)
    return sorted(values, reverse=True)


def subtree_sizes(root, cps):
    """nsplit and summed leaf risk of each subtree T_k (internal nodes with c > c_k)."""
    nsplit, risk = [], []
    for ck in cps:
        s, r, stack = 0, 0.0, [root]
        while stack:
            node = stack.pop()
            if node.left is not None and node.c > ck:
                s += 1
                stack.append(node.left)
                stack.append(node.right)
            else:
                r += node.dev
        nsplit.append(s)
        risk.append(r)
    return nsplit, risk


def build_records(root, costs, n_features, R0):
    """frame, splits and importance of a grown tree."""
    totals = costs.class_totals

    def class_columns(node):
        raw = node.counts * costs.priors / np.maximum(1.0, totals)
        s = raw.sum()
        return ([float(v) for v in node.counts],
                [float(v) for v in (raw / s if s > 0 else raw)],
                float((node.counts * costs.q).sum() / costs.total_weight))

    frame, splits = tree_records(root, R0, class_columns)
    return frame, splits, importance_of(splits, n_features)


def tree_records(root, scale, node_columns):
    """The frame (``FRAME_COLUMNS``, nodes in pre-order, complexity / ``scale``) and split
    table of a grown tree; ``node_columns(node)`` gives a node's class_counts, class_probs
    and node_prob."""
    frame = {name: [] for name in FRAME_COLUMNS}
    splits = []
    for node in preorder(root):
        internal = node.left is not None
        frame["node"].append(node.number)
        frame["feature"].append(node.primary.feature if internal else -1)
        frame["n"].append(node.n)
        frame["wt"].append(node.wt)
        frame["dev"].append(node.dev)
        frame["yval"].append(node.yval)
        frame["complexity"].append(node.c / scale)
        frame["ncompete"].append(len(node.competitors) if internal else 0)
        frame["nsurrogate"].append(len(node.surrogates) if internal else 0)
        counts, probs, prob = node_columns(node)
        frame["class_counts"].append(counts)
        frame["class_probs"].append(probs)
        frame["node_prob"].append(prob)
        if internal:
            splits.append(node.primary)
            splits.extend(node.competitors)
            splits.extend(node.surrogates)
    return frame, splits


def importance_of(splits, n_features):
    """rpart's variable importance: primary improve + adj x primary improve (surrogates)."""
    importance = np.zeros(n_features)
    primary_improve = {}
    for s in splits:
        if s.role == "primary":
            importance[s.feature] += s.improve
            primary_improve[s.node] = s.improve
    for s in splits:
        if s.role == "surrogate":
            importance[s.feature] += s.adj * primary_improve[s.node]
    return importance
