# cython: language_level=3
"""rpart's kernels, compiled: split searches, surrogates, routing, the cross-validation
fold growth and walk, and the "anova" split search.

They compute exactly what the numba build (commit b87f659) did, with the same floating-point
operations in the same order, checked by tests/test_kernel_fixtures.py.

Rows of a node live in a segment ``order[f, start:start + n]`` of a (features x rows) index
array: for every feature the node's rows sorted by that feature's value, missing (NaN)
values last; ``vals[f, pos]`` holds that row's value. Direction codes: -1 left, +1 right,
0 missing / stays. Criterion codes: 0 Gini, 1 information.

The float divisions here that nothing guards raise ``ZeroDivisionError`` on a zero
divisor, as Python's division does: checked where they happen and raised when the kernel
returns (its results are then never used).

``_categorical_best``, ``_parent_term`` and ``_subset_improve``, private parts of the split
search that tests call, are here too with the old private kernels' arguments (Python
wrappers of the C functions).
"""

from libc.math cimport INFINITY, fabs, isnan, log
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from cpython.buffer cimport (PyBUF_FORMAT, PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release,
                             PyObject_GetBuffer)

import sys

import numpy as np

#: How far below the best improve (relative to the node's size) a category set's estimate
#: must fall to be skipped: rounding moves the two formulas apart by ~1e-15 relative.
SCREEN_MARGIN = 1e-9

ctypedef signed char int8
ctypedef unsigned char uchar

cdef extern from *:
    """
    #define RPART_SCREEN_MARGIN 1e-9
    """
    const double C_SCREEN_MARGIN "RPART_SCREEN_MARGIN"

cdef enum:
    DEPTH_CAP = 70  # frames of grow_fold's explicit stack (rpart's depth is at most 30)


# -- light buffers, for the kernels Python calls at every node --------------------------
# A typed memoryview argument costs ~0.1 us to take (a memoryview object, a lock, the
# format parsed): more than the work of route_rows and partition_segments at a small node,
# which the Python growers call at every node. Those two take their arrays as plain
# buffers instead: checked (dimensions, item type, writability), read through strides.
cdef char NATIVE_ORDER = b'<' if sys.byteorder == "little" else b'>'

cdef enum:
    F64 = 0  # float64
    I64 = 1  # int64
    I8 = 2  # int8
    U8 = 3  # bool or uint8


cdef bint _format_ok(const char* fmt, Py_ssize_t itemsize, int kind) noexcept:
    cdef char c
    if fmt == NULL:
        return kind == U8 and itemsize == 1
    if fmt[0] == b'@' or fmt[0] == b'=' or fmt[0] == NATIVE_ORDER:
        fmt += 1
    c = fmt[0]
    if c == 0 or fmt[1] != 0:
        return False
    if kind == F64:
        return c == b'd' and itemsize == 8
    if kind == I64:
        return (c == b'l' or c == b'q') and itemsize == 8
    if kind == I8:
        return c == b'b' and itemsize == 1
    return (c == b'?' or c == b'B') and itemsize == 1


cdef int _take(object obj, Py_buffer* buf, int ndim, int kind, bint writable,
               const char* name) except -1:
    """``buf``: ``obj``'s buffer, checked to have ``ndim`` dimensions of items ``kind``."""
    PyObject_GetBuffer(obj, buf, PyBUF_STRIDES | PyBUF_FORMAT
                       | (PyBUF_WRITABLE if writable else 0))
    if buf.ndim != ndim or not _format_ok(buf.format, buf.itemsize, kind):
        PyBuffer_Release(buf)
        raise ValueError(f"{name.decode()}: expected a {ndim}-d array of "
                         f"{('float64', 'int64', 'int8', 'bool')[kind]}")
    return 0


# -- small helpers ----------------------------------------------------------------------
cdef inline double nb_max(double a, double b) noexcept nogil:
    """Python's ``max(a, b)``: b only when b > a."""
    return b if b > a else a


cdef inline double nb_min(double a, double b) noexcept nogil:
    """Python's ``min(a, b)``: b only when b < a."""
    return b if b < a else a


cdef inline void _raise_if(int zero_division, int no_memory) except *:
    if no_memory:
        raise MemoryError()
    if zero_division:
        raise ZeroDivisionError("division by zero")


cdef inline double _scaled_impurity(const double* c, Py_ssize_t K, double total,
                                    int crit) noexcept nogil:
    """T * I(S) for altered-weighted class sums ``c`` with total ``total``."""
    cdef double s = 0.0, p
    cdef Py_ssize_t i
    if total <= 0.0:
        return 0.0
    if crit == 0:
        for i in range(K):
            p = c[i] / total
            s += p * (1.0 - p)
    else:
        for i in range(K):
            if c[i] > 0.0:
                p = c[i] / total
                s -= p * log(p)
    return total * s


cdef inline double _parent_term(const double* tot, Py_ssize_t K, double ttot, int crit,
                                int* zd) noexcept nogil:
    """T(S) I(S) as rpart computes it."""
    cdef double s = 0.0, p
    cdef Py_ssize_t i
    if crit != 0:
        for i in range(K):
            if tot[i] > 0.0:
                if ttot == 0.0:
                    zd[0] = 1
                p = tot[i] / ttot
                s += ttot * (p * log(p))
        return s
    if ttot == 0.0 and K > 0:
        zd[0] = 1
    for i in range(K):
        p = tot[i] / ttot
        s += ttot * (p * (1.0 - p))
    return s


cdef inline double _literal_improve(const double* first, double t_first,
                                    const double* second, double t_second, double parent,
                                    Py_ssize_t K, int crit) noexcept nogil:
    """improve = T(S) I(S) - [T(S_1) I(S_1) + T(S_2) I(S_2)], in rpart's own arithmetic."""
    cdef double children = 0.0, p
    cdef Py_ssize_t i
    if crit != 0:
        for i in range(K):
            if t_first > 0.0 and first[i] > 0.0:
                p = first[i] / t_first
                children += t_first * (p * log(p))
            if t_second > 0.0 and second[i] > 0.0:
                p = second[i] / t_second
                children += t_second * (p * log(p))
        return children - parent
    for i in range(K):
        if t_first > 0.0:
            p = first[i] / t_first
            children += t_first * (p * (1.0 - p))
        if t_second > 0.0:
            p = second[i] / t_second
            children += t_second * (p * (1.0 - p))
    return parent - children


cdef inline double _subset_improve(const double* first, double t_first,
                                   const double* second, double t_second, double parent,
                                   Py_ssize_t K, int crit, int* zd) noexcept nogil:
    """``_literal_improve`` for a category set."""
    cdef double children = 0.0, p
    cdef Py_ssize_t i
    if crit == 0:
        return _literal_improve(first, t_first, second, t_second, parent, K, crit)
    for i in range(K):
        if first[i] != 0.0:
            if t_first == 0.0:
                zd[0] = 1
            p = first[i] / t_first
            children += t_first * (p * log(p))
        if second[i] != 0.0:
            if t_second == 0.0:
                zd[0] = 1
            p = second[i] / t_second
            children += t_second * (p * log(p))
    return children - parent


cdef inline double _mean_class(const double* c, Py_ssize_t K, double total,
                               int* zd) noexcept nogil:
    cdef double m = 0.0
    cdef Py_ssize_t i
    if total == 0.0 and K > 0:
        zd[0] = 1
    for i in range(K):
        m += <double> i * c[i] / total
    return m


# -- scratch buffers of a node's split search -------------------------------------------
cdef struct Scratch:
    double* xs  # n
    double* cs  # n
    int64_t* ys  # n
    double* ws  # n
    int8* ds  # n (surrogates)
    double* kv  # 3 K: tot, left, right
    double* kb  # 4 K: counts, rest, best_counts, best_rest
    int64_t* ib  # 2 lmax: present, seq
    double* fb  # lmax
    uchar* bb  # 2 lmax: best_left, inleft
    int64_t* cand  # lmax


cdef inline size_t _n1(Py_ssize_t n) noexcept nogil:
    return <size_t> (n if n > 0 else 1)


cdef int _scratch_alloc(Scratch* s, Py_ssize_t n, Py_ssize_t K, Py_ssize_t lmax,
                        bint split, bint surrogate) noexcept nogil:
    """Allocate what a split search (``split``) and / or a surrogate scan needs; -1 when
    out of memory (then everything is freed)."""
    memset(s, 0, sizeof(Scratch))
    s.xs = <double*> malloc(_n1(n) * sizeof(double))
    s.ws = <double*> malloc(_n1(n) * sizeof(double))
    if split:
        s.cs = <double*> malloc(_n1(n) * sizeof(double))
        s.ys = <int64_t*> malloc(_n1(n) * sizeof(int64_t))
        s.kv = <double*> calloc(_n1(3 * K), sizeof(double))
        s.kb = <double*> calloc(_n1(4 * K), sizeof(double))
        s.ib = <int64_t*> calloc(_n1(2 * lmax), sizeof(int64_t))
        s.fb = <double*> calloc(_n1(lmax), sizeof(double))
        s.bb = <uchar*> calloc(_n1(2 * lmax), sizeof(uchar))
        s.cand = <int64_t*> calloc(_n1(lmax), sizeof(int64_t))
    if surrogate:
        s.ds = <int8*> malloc(_n1(n) * sizeof(int8))
    if (s.xs == NULL or s.ws == NULL
            or (split and (s.cs == NULL or s.ys == NULL or s.kv == NULL or s.kb == NULL
                           or s.ib == NULL or s.fb == NULL or s.bb == NULL
                           or s.cand == NULL))
            or (surrogate and s.ds == NULL)):
        _scratch_free(s)
        return -1
    return 0


cdef void _scratch_free(Scratch* s) noexcept nogil:
    free(s.xs)
    free(s.cs)
    free(s.ys)
    free(s.ws)
    free(s.ds)
    free(s.kv)
    free(s.kb)
    free(s.ib)
    free(s.fb)
    free(s.bb)
    free(s.cand)
    memset(s, 0, sizeof(Scratch))


# -- the classification split search ----------------------------------------------------
cdef void _scan_sums(const int64_t* ys, const double* cs, const double* ws, const double[:] a,
                     Py_ssize_t m, Py_ssize_t best_i, Py_ssize_t K, double* tot, double* left,
                     double* right, double* ttot_out, double* tl_out,
                     double* tr_out) noexcept nogil:
    """The sums rpart's improve is made of at the cut after sorted row ``best_i``."""
    cdef Py_ssize_t i, k
    cdef double ttot = 0.0, tl, tr
    for k in range(K):
        tot[k] = 0.0
        left[k] = 0.0
    for i in range(m):
        tot[ys[i]] += ws[i]
        ttot += cs[i]
    tl = 0.0
    tr = ttot
    for k in range(K):
        right[k] = tot[k]
    for i in range(best_i + 1):
        left[ys[i]] += ws[i]
        right[ys[i]] -= ws[i]
        tl += cs[i]
        tr -= cs[i]
    for k in range(K):
        right[k] = a[k] * right[k]
        left[k] = a[k] * left[k]
        tot[k] = a[k] * tot[k]
    ttot_out[0] = ttot
    tl_out[0] = tl
    tr_out[0] = tr


cdef void _numeric_best(const double[:, ::1] vals, const int64_t[:] y, const double[:] w,
                        const double[:] a, const int64_t[:, ::1] order, Py_ssize_t j,
                        Py_ssize_t start, Py_ssize_t nn, long long minbucket, int crit,
                        Py_ssize_t K, double* out, Scratch* sc, int* zd) noexcept nogil:
    """Best cut of numeric feature j; out = (improve, cut, left_lt, count); improve -1 if
    none."""
    cdef const int64_t* orow = &order[j, start]
    cdef const double* vrow = &vals[j, start]
    cdef double* xs = sc.xs
    cdef double* cs = sc.cs
    cdef int64_t* ys = sc.ys
    cdef double* ws = sc.ws
    cdef double* tot = sc.kv
    cdef double* left = sc.kv + K
    cdef double* right = sc.kv + 2 * K
    cdef Py_ssize_t m = 0, count = 0, i, k, best_i, nl
    cdef int64_t r, yr
    cdef double v, wr, ttot, tl, tr, best, sq_l, sq_r, best_num, best_den, num, den, c, val
    for i in range(nn):
        r = orow[i]
        v = vrow[i]
        if isnan(v):
            break
        count += 1
        wr = w[r]
        if wr > 0.0:
            yr = y[r]
            xs[m] = v
            ys[m] = yr
            ws[m] = wr
            cs[m] = a[yr] * wr
            m += 1
    out[0] = -1.0
    out[3] = <double> count
    if m < 2 or xs[0] == xs[m - 1]:
        return
    for k in range(K):
        tot[k] = 0.0
    for i in range(m):
        tot[ys[i]] += cs[i]
    ttot = 0.0
    for k in range(K):
        ttot += tot[k]
    for k in range(K):
        left[k] = 0.0
    tl = 0.0
    best = INFINITY
    best_i = -1
    if crit == 0:
        for k in range(K):
            right[k] = tot[k]
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
            val = _scaled_impurity(left, K, tl, crit) + _scaled_impurity(right, K, tr, crit)
            if val < best:
                best = val
                best_i = i
    if best_i < 0:
        return
    _scan_sums(ys, cs, ws, a, m, best_i, K, tot, left, right, &ttot, &tl, &tr)
    out[0] = _literal_improve(left, tl, right, tr, _parent_term(tot, K, ttot, crit, zd), K,
                              crit)
    out[1] = (xs[best_i] + xs[best_i + 1]) / 2.0
    out[2] = 1.0 if _mean_class(left, K, tl, zd) < _mean_class(right, K, tr, zd) else 0.0


cdef void _categorical_tallies(const double[:, ::1] XC, const int64_t[:] cat_cols,
                               const int64_t[:] y, const double[:] w, const double[:] a,
                               const int64_t[:, ::1] order, Py_ssize_t start, Py_ssize_t nn,
                               double[:, :, ::1] C, double[:, ::1] T, int64_t[:, ::1] ROWS,
                               int64_t[:] COUNT) noexcept nogil:
    """Per-level class counts of every categorical feature at a node (``categorical_tallies``)."""
    cdef Py_ssize_t m = cat_cols.shape[0], c, i, lv, k
    cdef Py_ssize_t last = T.shape[1] - 1, clast = C.shape[1] - 1
    cdef const int64_t* orow
    cdef const double* xrow
    cdef int64_t r, yr
    cdef double cw, wr, v
    cdef bint positive
    for c in range(C.shape[0]):
        for lv in range(C.shape[1]):
            for k in range(C.shape[2]):
                C[c, lv, k] = 0.0
        for lv in range(T.shape[1]):
            T[c, lv] = 0.0
    for c in range(ROWS.shape[0]):
        for lv in range(ROWS.shape[1]):
            ROWS[c, lv] = 0
    for c in range(COUNT.shape[0]):
        COUNT[c] = 0
    orow = &order[cat_cols[0], start]
    for i in range(nn):
        r = orow[i]
        yr = y[r]
        wr = w[r]
        cw = a[yr] * wr
        positive = wr > 0.0
        xrow = &XC[r, 0]
        for c in range(m):
            v = xrow[c]
            if isnan(v):
                continue
            COUNT[c] += 1
            if positive:
                lv = <Py_ssize_t> v
                C[c, lv, yr] += wr
                C[c, clast, yr] += wr
                T[c, lv] += cw
                T[c, last] += cw
                ROWS[c, lv] += 1


cdef void _finish(const double* left, double tl, const double* right, double tr,
                  const uchar* best_left, const int64_t* present, Py_ssize_t npres,
                  Py_ssize_t K, double improve, double* out, int8* sides,
                  int* zd) noexcept nogil:
    """The chosen set's sides (the side of lower mean class goes left) and improve."""
    cdef bint flip = not (_mean_class(left, K, tl, zd) < _mean_class(right, K, tr, zd))
    cdef Py_ssize_t i, lv
    cdef int s
    for i in range(npres):
        lv = present[i]
        s = -1 if best_left[lv] else 1
        sides[lv] = -s if flip else s
    out[0] = improve
    out[1] = 0.0
    out[2] = 0.0


cdef void _categorical_best(const double* c, const double* t, Py_ssize_t clast,
                            const double[:] a, const int64_t* rows, int64_t count,
                            Py_ssize_t nlev, long long minbucket, int crit, Py_ssize_t K,
                            double* out, int8* sides, Py_ssize_t lmax, Scratch* sc,
                            int* zd) noexcept nogil:
    """Best subset split of one categorical feature from its per-level counts: ``c`` its
    (levels + 1) x K class counts (row ``clast`` the node's), ``t`` its levels + 1 totals,
    ``rows`` its rows per level."""
    cdef int64_t* present = sc.ib
    cdef int64_t* seq = sc.ib + lmax
    cdef double* share = sc.fb
    cdef uchar* best_left = sc.bb
    cdef uchar* inleft = sc.bb + lmax
    cdef int64_t* cand = sc.cand
    cdef double* tot = sc.kv
    cdef double* left = sc.kv + K
    cdef double* right = sc.kv + 2 * K
    cdef double* counts = sc.kb
    cdef double* rest = sc.kb + K
    cdef double* best_counts = sc.kb + 2 * K
    cdef double* best_rest = sc.kb + 3 * K
    cdef const double* nodec = c + clast * K
    cdef Py_ssize_t npres = 0, ncand, lv, i, k, s, b
    cdef long long ntot = 0, nl
    cdef long long step, nsteps
    cdef double ttot, parent, tl, tr, best_tl, best_tr, best, val, sign, margin
    cdef double sl, ql, sr, qr, vl, vr, estimate, tv
    out[0] = -1.0
    out[3] = <double> count
    for i in range(lmax):
        sides[i] = 0
    for lv in range(nlev):
        if rows[lv] > 0:
            present[npres] = lv
            npres += 1
    if npres < 2:
        return
    for lv in range(nlev):
        ntot += rows[lv]
    for k in range(K):
        tot[k] = a[k] * nodec[k]
    ttot = t[clast]
    parent = _parent_term(tot, K, ttot, crit, zd)
    for k in range(K):
        counts[k] = 0.0
        rest[k] = nodec[k]
        best_counts[k] = 0.0
        best_rest[k] = 0.0
    tl = 0.0
    tr = ttot
    best_tl = 0.0
    best_tr = 0.0
    best = -INFINITY
    for i in range(lmax):
        best_left[i] = 0
        inleft[i] = 0
    if K == 2:
        for i in range(npres):
            tv = t[present[i]]
            if tv == 0.0:
                zd[0] = 1
            share[i] = a[0] * c[present[i] * K] / tv
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
            inleft[lv] = 1
            nl += rows[lv]
            tl += t[lv]
            tr -= t[lv]
            for k in range(K):
                counts[k] += c[lv * K + k]
                rest[k] -= c[lv * K + k]
            if nl < minbucket or ntot - nl < minbucket:
                continue
            for k in range(K):
                left[k] = a[k] * counts[k]
                right[k] = a[k] * rest[k]
            val = _subset_improve(left, tl, right, tr, parent, K, crit, zd)
            if val > best:
                best = val
                memcpy(best_left, inleft, lmax * sizeof(uchar))
                memcpy(best_counts, counts, K * sizeof(double))
                memcpy(best_rest, rest, K * sizeof(double))
                best_tl = tl
                best_tr = tr
    else:
        for i in range(npres):
            seq[i] = present[i]
        ncand = 0
        for i in range(npres):
            if present[i] < nlev - 1:
                cand[ncand] = present[i]
                ncand += 1
        # the cheaper estimate below only screens out the sets far below the best
        margin = C_SCREEN_MARGIN * (fabs(parent) + ttot)
        nl = 0
        nsteps = (<long long> 1) << ncand
        for step in range(1, nsteps):
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
                counts[k] += sign * c[lv * K + k]
                rest[k] -= sign * c[lv * K + k]
            if nl < minbucket or ntot - nl < minbucket:
                continue
            if crit == 0 and best > -INFINITY:
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
            val = _subset_improve(left, tl, right, tr, parent, K, crit, zd)
            if val > best:
                best = val
                memcpy(best_left, inleft, lmax * sizeof(uchar))
                memcpy(best_counts, counts, K * sizeof(double))
                memcpy(best_rest, rest, K * sizeof(double))
                best_tl = tl
                best_tr = tr
    if best == -INFINITY:
        return
    for k in range(K):
        left[k] = a[k] * best_counts[k]
        right[k] = a[k] * best_rest[k]
    _finish(left, best_tl, right, best_tr, best_left, present, npres, K, best, out, sides,
            zd)


cdef void _best_splits(const double[:, ::1] vals, const double[:, ::1] XC,
                       const int64_t[:] cat_cols, const int64_t[:] cat_pos,
                       const int64_t[:] y, const double[:] w, const double[:] a,
                       const int64_t[:, ::1] order, Py_ssize_t start, Py_ssize_t nn,
                       const uchar[:] is_cat, const int64_t[:] n_levels, long long minbucket,
                       int crit, Py_ssize_t K, double* out, Py_ssize_t out_stride,
                       int8* sides, Py_ssize_t lmax, double[:, :, ::1] C, double[:, ::1] T,
                       int64_t[:, ::1] ROWS, int64_t[:] COUNT, Scratch* sc,
                       int* zd) noexcept nogil:
    """Every feature's best split at one node into ``out`` (rows of ``out_stride``) and
    ``sides`` (rows of ``lmax``)."""
    cdef Py_ssize_t j, c
    if cat_cols.shape[0] > 0:
        _categorical_tallies(XC, cat_cols, y, w, a, order, start, nn, C, T, ROWS, COUNT)
    for j in range(vals.shape[0]):
        if is_cat[j]:
            c = cat_pos[j]
            _categorical_best(&C[c, 0, 0], &T[c, 0], C.shape[1] - 1, a, &ROWS[c, 0],
                              COUNT[c], n_levels[j], minbucket, crit, K,
                              out + j * out_stride, sides + j * lmax, lmax, sc, zd)
        else:
            _numeric_best(vals, y, w, a, order, j, start, nn, minbucket, crit, K,
                          out + j * out_stride, sc, zd)


def categorical_tallies(const double[:, ::1] XC, const int64_t[:] cat_cols,
                        const int64_t[:] y, const double[:] w, const double[:] a,
                        const int64_t[:, ::1] order, Py_ssize_t start, Py_ssize_t nn,
                        double[:, :, ::1] C, double[:, ::1] T, int64_t[:, ::1] ROWS,
                        int64_t[:] COUNT):
    """Per-level class counts of every categorical feature at a node, in one pass over its
    rows in data order."""
    with nogil:
        _categorical_tallies(XC, cat_cols, y, w, a, order, start, nn, C, T, ROWS, COUNT)


def node_best_splits(const double[:, ::1] vals, const double[:, ::1] XC,
                     const int64_t[:] cat_cols, const int64_t[:] cat_pos, const int64_t[:] y,
                     const double[:] w, const double[:] a, const int64_t[:, ::1] order,
                     Py_ssize_t start, Py_ssize_t nn, const uchar[:] is_cat,
                     const int64_t[:] n_levels, long long minbucket, int crit, Py_ssize_t K,
                     double[:, ::1] out, int8[:, ::1] sides, double[:, :, ::1] C,
                     double[:, ::1] T, int64_t[:, ::1] ROWS, int64_t[:] COUNT):
    """Every feature's best split at one node.

    ``out[j] = (improve, cut, left_lt, count)``: improve -1 when the feature has no split,
    left_lt 1 when rows with x < cut go left; ``sides[j, level]`` for categorical features.
    ``cat_pos[j]`` is feature j's column in ``XC`` (-1 for numeric features); C, T, ROWS,
    COUNT are scratch buffers for ``categorical_tallies``.
    """
    cdef Scratch sc
    cdef int zd = 0, failed = 0
    cdef Py_ssize_t lmax = sides.shape[1]
    with nogil:
        if _scratch_alloc(&sc, nn, K, lmax, True, False) < 0:
            failed = 1
        else:
            _best_splits(vals, XC, cat_cols, cat_pos, y, w, a, order, start, nn, is_cat,
                         n_levels, minbucket, crit, K, &out[0, 0] if out.shape[0] else NULL,
                         out.shape[1], &sides[0, 0] if sides.shape[0] else NULL, lmax, C,
                         T, ROWS, COUNT, &sc, &zd)
            _scratch_free(&sc)
    _raise_if(zd, failed)



# -- the split search's parts, for tests (the old private kernels' arguments) -----------
def _parent_term_py(const double[::1] tot, double ttot, int crit):
    """``_parent_term``, for tests."""
    cdef int zd = 0
    cdef double value = _parent_term(&tot[0] if tot.shape[0] else NULL, tot.shape[0], ttot,
                                     crit, &zd)
    _raise_if(zd, 0)
    return value


def _subset_improve_py(const double[::1] first, double t_first, const double[::1] second,
                       double t_second, double parent, int crit):
    """``_subset_improve``, for tests."""
    cdef int zd = 0
    cdef double value
    if second.shape[0] < first.shape[0]:
        raise ValueError("second has fewer classes than first")
    value = _subset_improve(&first[0] if first.shape[0] else NULL, t_first,
                            &second[0] if second.shape[0] else NULL, t_second, parent,
                            first.shape[0], crit, &zd)
    _raise_if(zd, 0)
    return value


def _categorical_best_py(const double[:, ::1] c, const double[::1] t, const double[:] a,
                         const int64_t[::1] rows, int64_t count, Py_ssize_t nlev,
                         long long minbucket, int crit, Py_ssize_t K, double[::1] out,
                         int8[::1] sides, int64_t[:, ::1] ib, double[::1] fb,
                         uchar[:, ::1] bb, double[:, ::1] kv):
    """``_categorical_best``, for tests: ``c`` the (levels + 1) x K class counts (the last
    row the node's), ``t`` the levels + 1 totals; ib (2 x levels), fb, bb (2 x levels,
    bool) and kv (3 x K) are its scratch."""
    cdef Scratch sc
    cdef int zd = 0, failed = 0
    cdef Py_ssize_t lmax = ib.shape[1]
    if (sides.shape[0] != lmax or bb.shape[1] != lmax or fb.shape[0] < lmax
            or c.shape[1] != K or kv.shape[1] != K or ib.shape[0] < 2 or bb.shape[0] < 2
            or kv.shape[0] < 3 or out.shape[0] < 4 or c.shape[0] < 1
            or t.shape[0] != c.shape[0] or nlev > lmax or rows.shape[0] < nlev):
        raise ValueError("_categorical_best: inconsistent shapes")
    memset(&sc, 0, sizeof(Scratch))
    sc.kv = &kv[0, 0]
    sc.ib = &ib[0, 0]
    sc.fb = &fb[0] if fb.shape[0] else NULL
    sc.bb = &bb[0, 0]
    sc.kb = <double*> calloc(_n1(4 * K), sizeof(double))
    sc.cand = <int64_t*> calloc(_n1(lmax), sizeof(int64_t))
    if sc.kb == NULL or sc.cand == NULL:
        failed = 1
    else:
        _categorical_best(&c[0, 0], &t[0], c.shape[0] - 1, a, &rows[0] if rows.shape[0] else NULL,
                          count, nlev, minbucket, crit, K, &out[0], &sides[0] if lmax else NULL,
                          lmax, &sc, &zd)
    free(sc.kb)
    free(sc.cand)
    _raise_if(zd, failed)

# -- surrogates -------------------------------------------------------------------------
cdef void _surrogate_numeric(const double[:, ::1] vals, const double[:] w,
                             const int8[:] dirs, const int64_t[:, ::1] order, Py_ssize_t j,
                             Py_ssize_t start, Py_ssize_t nn, double* out,
                             Scratch* sc) noexcept nogil:
    """Best surrogate cut of numeric feature j for the primary directions ``dirs``: ``out``
    as ``node_surrogates``' ``out[j]``, agreement -1 when the feature gives none."""
    cdef const int64_t* orow = &order[j, start]
    cdef const double* vrow = &vals[j, start]
    cdef double* xs = sc.xs
    cdef int8* ds = sc.ds
    cdef double* ws = sc.ws
    cdef Py_ssize_t m = 0, n_dir = 0, nl_rows = 0, i
    cdef double wl = 0.0, wr = 0.0, lwl = 0.0, lwr = 0.0, best, v, v2, wt, a1, a2
    cdef int64_t r
    cdef int d
    cdef bint found = False
    for i in range(nn):
        r = orow[i]
        v = vrow[i]
        if isnan(v):
            break
        d = dirs[r]
        wt = w[r]
        if wt <= 0.0:
            d = 0
        xs[m] = v
        ds[m] = <int8> d
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
    best = nb_max(wl, wr)
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


cdef void _surrogate_tallies(const double[:, ::1] XC, const int64_t[:] cat_cols,
                             const double[:] w, const int8[:] dirs,
                             const int64_t[:, ::1] order, Py_ssize_t start, Py_ssize_t nn,
                             double[:, ::1] WL, double[:, ::1] WR, int64_t[:, ::1] NL,
                             int64_t[:, ::1] NR) noexcept nogil:
    """``surrogate_tallies`` (rows of weight 0 or no direction skipped)."""
    cdef Py_ssize_t m = cat_cols.shape[0], c, i, lv
    cdef const int64_t* orow
    cdef const double* xrow
    cdef int64_t r
    cdef int d
    cdef double v, wr
    for c in range(WL.shape[0]):
        for lv in range(WL.shape[1]):
            WL[c, lv] = 0.0
    for c in range(WR.shape[0]):
        for lv in range(WR.shape[1]):
            WR[c, lv] = 0.0
    for c in range(NL.shape[0]):
        for lv in range(NL.shape[1]):
            NL[c, lv] = 0
    for c in range(NR.shape[0]):
        for lv in range(NR.shape[1]):
            NR[c, lv] = 0
    orow = &order[0, start]
    for i in range(nn):
        r = orow[i]
        d = dirs[r]
        wr = w[r]
        if d == 0 or wr <= 0.0:
            continue
        xrow = &XC[r, 0]
        for c in range(m):
            v = xrow[c]
            if isnan(v):
                continue
            lv = <Py_ssize_t> v
            if d < 0:
                WL[c, lv] += wr
                NL[c, lv] += 1
            else:
                WR[c, lv] += wr
                NR[c, lv] += 1


cdef void _surrogate_categorical(const double* wl_l, const double* wr_l,
                                 const int64_t* nl_l, const int64_t* nr_l, Py_ssize_t nlev,
                                 double* out, int8* sides, Py_ssize_t lmax) noexcept nogil:
    """Best surrogate of a categorical feature from its per-level tallies: each level with
    rows goes to the side that got more of its weight (a tie: left only when the node's left
    weight is larger), ``sides`` its levels' sides (0 absent); ``out`` as
    ``_surrogate_numeric``'s, agreement -1 unless >= 2 rows agree and >= 2 disagree."""
    cdef double wl = 0.0, wr = 0.0, agree = 0.0
    cdef long long n_agree = 0, n_dis = 0
    cdef Py_ssize_t lv
    for lv in range(nlev):
        wl += wl_l[lv]
        wr += wr_l[lv]
    out[3] = wl
    out[4] = wr
    out[0] = -1.0
    for lv in range(lmax):
        sides[lv] = 0
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


def surrogate_tallies(const double[:, ::1] XC, const int64_t[:] cat_cols, const double[:] w,
                      const int8[:] dirs, const int64_t[:, ::1] order, Py_ssize_t start,
                      Py_ssize_t nn, double[:, ::1] WL, double[:, ::1] WR, int64_t[:, ::1] NL,
                      int64_t[:, ::1] NR):
    """Per-level weights and rows sent left / right by the primary, for every categorical
    feature, in one pass over the node's rows."""
    with nogil:
        _surrogate_tallies(XC, cat_cols, w, dirs, order, start, nn, WL, WR, NL, NR)


def node_surrogates(const double[:, ::1] vals, const double[:, ::1] XC,
                    const int64_t[:] cat_cols, const int64_t[:] cat_pos, const double[:] w,
                    const int8[:] dirs, const int64_t[:, ::1] order, Py_ssize_t start,
                    Py_ssize_t nn, const uchar[:] is_cat, const int64_t[:] n_levels,
                    Py_ssize_t primary, double[:, ::1] out, int8[:, ::1] sides,
                    double[:, ::1] WL, double[:, ::1] WR, int64_t[:, ::1] NL,
                    int64_t[:, ::1] NR):
    """Every other feature's best surrogate for the primary directions ``dirs``.

    ``out[j] = (agreement weight, cut, left_lt, W_L', W_R')`` (W' over rows with j present),
    agreement -1 when the feature gives no surrogate; ``sides[j]`` for categorical features.
    WL, WR, NL, NR are scratch buffers for ``surrogate_tallies``.
    """
    cdef Scratch sc
    cdef int failed = 0
    cdef Py_ssize_t j, c, lmax = sides.shape[1]
    with nogil:
        if _scratch_alloc(&sc, nn, 1, lmax, False, True) < 0:
            failed = 1
        else:
            if cat_cols.shape[0] > 0:
                _surrogate_tallies(XC, cat_cols, w, dirs, order, start, nn, WL, WR, NL, NR)
            for j in range(vals.shape[0]):
                if j == primary:
                    out[j, 0] = -1.0
                    continue
                if is_cat[j]:
                    c = cat_pos[j]
                    _surrogate_categorical(&WL[c, 0], &WR[c, 0], &NL[c, 0], &NR[c, 0],
                                           n_levels[j], &out[j, 0], &sides[j, 0], lmax)
                else:
                    _surrogate_numeric(vals, w, dirs, order, j, start, nn, &out[j, 0], &sc)
            _scratch_free(&sc)
    _raise_if(0, failed)


# -- routing ----------------------------------------------------------------------------
cdef inline int _direction(double v, bint is_cat, double cut, bint left_lt,
                           const int8* sides) noexcept nogil:
    if isnan(v):
        return 0
    if is_cat:
        return sides[<Py_ssize_t> v]
    if v < cut:
        return -1 if left_lt else 1
    return 1 if left_lt else -1


def route_rows(X, order, Py_ssize_t start, Py_ssize_t nn, sp_feat, sp_cat, sp_cut, sp_lt,
               sp_sides, Py_ssize_t n_use, int majority, dirs, used):
    """Direction of each row of a node: primary (spec 0), then specs 1..n_use-1, then
    ``majority`` (0: stay). ``used[s]`` counts the rows spec s routed.

    X (rows x features) float64, order (features x rows) int64, the specs' sp_feat int64,
    sp_cat bool, sp_cut float64, sp_lt bool, sp_sides (specs x levels) int8; dirs int8 and
    used int64 are written."""
    cdef Py_buffer b[9]
    cdef int taken = 0, failed = 0
    cdef Py_ssize_t k
    try:
        _take(X, &b[0], 2, F64, False, b"X")
        taken = 1
        _take(order, &b[1], 2, I64, False, b"order")
        taken = 2
        _take(sp_feat, &b[2], 1, I64, False, b"sp_feat")
        taken = 3
        _take(sp_cat, &b[3], 1, U8, False, b"sp_cat")
        taken = 4
        _take(sp_cut, &b[4], 1, F64, False, b"sp_cut")
        taken = 5
        _take(sp_lt, &b[5], 1, U8, False, b"sp_lt")
        taken = 6
        _take(sp_sides, &b[6], 2, I8, False, b"sp_sides")
        taken = 7
        _take(dirs, &b[7], 1, I8, True, b"dirs")
        taken = 8
        _take(used, &b[8], 1, I64, True, b"used")
        taken = 9
        with nogil:
            failed = _route(<const char*> b[0].buf, b[0].strides[0], b[0].strides[1],
                            <const char*> b[1].buf, b[1].strides[1], start, nn,
                            <const char*> b[2].buf, b[2].strides[0],
                            <const char*> b[3].buf, b[3].strides[0],
                            <const char*> b[4].buf, b[4].strides[0],
                            <const char*> b[5].buf, b[5].strides[0],
                            <const char*> b[6].buf, b[6].strides[0], b[6].strides[1],
                            n_use, majority, <char*> b[7].buf, b[7].strides[0],
                            <char*> b[8].buf, b[8].strides[0])
    finally:
        for k in range(taken):
            PyBuffer_Release(&b[k])
    _raise_if(0, failed)


cdef int _route(const char* X, Py_ssize_t xs0, Py_ssize_t xs1, const char* order,
                Py_ssize_t os1, Py_ssize_t start, Py_ssize_t nn, const char* sp_feat,
                Py_ssize_t fs, const char* sp_cat, Py_ssize_t cs, const char* sp_cut,
                Py_ssize_t us, const char* sp_lt, Py_ssize_t ls, const char* sp_sides,
                Py_ssize_t ss0, Py_ssize_t ss1, Py_ssize_t n_use, int majority, char* dirs,
                Py_ssize_t ds, char* used, Py_ssize_t uds) noexcept nogil:
    """route_rows' loop on its arrays' data and byte strides (order: its first row); the
    specs are read once into local arrays. Returns -1 when out of memory."""
    cdef const char** column = NULL
    cdef const char** sides = NULL
    cdef double* cut = NULL
    cdef uchar* flags = NULL  # bit 0: categorical, bit 1: x < cut goes left
    cdef int64_t* counts = NULL
    cdef Py_ssize_t i, s, m = n_use if n_use > 0 else 0
    cdef int64_t r
    cdef int d
    cdef double v
    column = <const char**> malloc(_n1(m) * sizeof(char*))
    sides = <const char**> malloc(_n1(m) * sizeof(char*))
    cut = <double*> malloc(_n1(m) * sizeof(double))
    flags = <uchar*> malloc(_n1(m) * sizeof(uchar))
    counts = <int64_t*> calloc(_n1(m), sizeof(int64_t))
    if column == NULL or sides == NULL or cut == NULL or flags == NULL or counts == NULL:
        free(column)
        free(sides)
        free(cut)
        free(flags)
        free(counts)
        return -1
    for s in range(m):
        column[s] = X + (<const int64_t*> (sp_feat + s * fs))[0] * xs1
        sides[s] = sp_sides + s * ss0
        cut[s] = (<const double*> (sp_cut + s * us))[0]
        flags[s] = ((1 if (<const uchar*> (sp_cat + s * cs))[0] else 0)
                    | (2 if (<const uchar*> (sp_lt + s * ls))[0] else 0))
    for i in range(nn):
        r = (<const int64_t*> (order + (start + i) * os1))[0]
        d = 0
        for s in range(m):
            v = (<const double*> (column[s] + r * xs0))[0]
            if isnan(v):
                continue
            if flags[s] & 1:
                d = (<const int8*> (sides[s] + (<Py_ssize_t> v) * ss1))[0]
            elif v < cut[s]:
                d = -1 if flags[s] & 2 else 1
            else:
                d = 1 if flags[s] & 2 else -1
            if d != 0:
                counts[s] += 1
                break
        if d == 0:
            d = majority
        (<int8*> (dirs + r * ds))[0] = <int8> d
    for s in range(m):
        (<int64_t*> (used + s * uds))[0] += counts[s]
    free(column)
    free(sides)
    free(cut)
    free(flags)
    free(counts)
    return 0


cdef void _partition(char* order, Py_ssize_t os0, Py_ssize_t os1, char* vals,
                     Py_ssize_t vs0, Py_ssize_t vs1, Py_ssize_t n_features, Py_ssize_t start,
                     Py_ssize_t nn, const char* dirs, Py_ssize_t ds, char* buffer,
                     Py_ssize_t bs0, Py_ssize_t bs1, char* vbuffer, Py_ssize_t vbs0,
                     Py_ssize_t vbs1, const char* keep, Py_ssize_t ks,
                     Py_ssize_t* n_left_out, Py_ssize_t* n_right_out) noexcept nogil:
    """``partition_segments`` on arrays given by their data and byte
    strides: order, buffer int64 and vals, vbuffer float64 (features x rows), dirs int8
    (rows), keep bool (features)."""
    cdef Py_ssize_t f, pos, nr, ns, p, k, n_left = 0, n_right = 0
    cdef char* orow
    cdef char* vrow
    cdef char* brow
    cdef char* bvrow
    cdef int64_t r
    cdef double v
    cdef int d
    for f in range(n_features):
        if not (<const uchar*> (keep + f * ks))[0]:
            continue
        orow = order + f * os0
        vrow = vals + f * vs0
        brow = buffer + f * bs0
        bvrow = vbuffer + f * vbs0
        pos = start
        nr = 0
        ns = 0
        for p in range(start, start + nn):
            r = (<int64_t*> (orow + p * os1))[0]
            v = (<double*> (vrow + p * vs1))[0]
            d = (<const int8*> (dirs + r * ds))[0]
            if d < 0:
                (<int64_t*> (orow + pos * os1))[0] = r
                (<double*> (vrow + pos * vs1))[0] = v
                pos += 1
            elif d > 0:
                (<int64_t*> (brow + nr * bs1))[0] = r
                (<double*> (bvrow + nr * vbs1))[0] = v
                nr += 1
            else:
                (<int64_t*> (brow + (nn - 1 - ns) * bs1))[0] = r
                (<double*> (bvrow + (nn - 1 - ns) * vbs1))[0] = v
                ns += 1
        for k in range(nr):
            (<int64_t*> (orow + (pos + k) * os1))[0] = (<int64_t*> (brow + k * bs1))[0]
            (<double*> (vrow + (pos + k) * vs1))[0] = (<double*> (bvrow + k * vbs1))[0]
        pos += nr
        for k in range(ns):
            (<int64_t*> (orow + (pos + k) * os1))[0] = (
                (<int64_t*> (brow + (nn - 1 - k) * bs1))[0])
            (<double*> (vrow + (pos + k) * vs1))[0] = (
                (<double*> (bvrow + (nn - 1 - k) * vbs1))[0])
    for p in range(start, start + nn):
        r = (<int64_t*> (order + p * os1))[0]
        d = (<const int8*> (dirs + r * ds))[0]
        if d < 0:
            n_left += 1
        elif d > 0:
            n_right += 1
    n_left_out[0] = n_left
    n_right_out[0] = n_right


def partition_segments(order, vals, Py_ssize_t start, Py_ssize_t nn, dirs, buffer, vbuffer,
                       keep):
    """Stable partition of the segments of the features with ``keep`` (indices and values):
    left rows, right rows, staying rows. Returns (n_left, n_right).

    order, buffer (features x rows) int64 and vals, vbuffer float64 are rewritten; dirs
    int8 per row, keep bool per feature."""
    cdef Py_buffer b[6]
    cdef int taken = 0
    cdef Py_ssize_t n_left = 0, n_right = 0, k
    try:
        _take(order, &b[0], 2, I64, True, b"order")
        taken = 1
        _take(vals, &b[1], 2, F64, True, b"vals")
        taken = 2
        _take(dirs, &b[2], 1, I8, False, b"dirs")
        taken = 3
        _take(buffer, &b[3], 2, I64, True, b"buffer")
        taken = 4
        _take(vbuffer, &b[4], 2, F64, True, b"vbuffer")
        taken = 5
        _take(keep, &b[5], 1, U8, False, b"keep")
        taken = 6
        with nogil:
            _partition(<char*> b[0].buf, b[0].strides[0], b[0].strides[1], <char*> b[1].buf,
                       b[1].strides[0], b[1].strides[1], b[0].shape[0], start, nn,
                       <char*> b[2].buf, b[2].strides[0], <char*> b[3].buf, b[3].strides[0],
                       b[3].strides[1], <char*> b[4].buf, b[4].strides[0], b[4].strides[1],
                       <char*> b[5].buf, b[5].strides[0], &n_left, &n_right)
    finally:
        for k in range(taken):
            PyBuffer_Release(&b[k])
    return n_left, n_right


def cv_walk(const double[:, :] X, const int64_t[:] rows, const double[:] betas,
            const int64_t[:] node_spec0, const int64_t[:] node_nspec,
            const int8[:] node_major, const int64_t[:] node_left,
            const int64_t[:] node_right, const double[:] node_cp,
            const int64_t[:] node_yval, const int64_t[:] sp_feat, const uchar[:] sp_cat,
            const double[:] sp_cut, const uchar[:] sp_lt, const int8[:, ::1] sp_sides,
            int64_t[:, :] out):
    """Class of each held-out row at each threshold ``betas[k]`` (descending).

    A row continues from where it stood at the previous threshold and moves down while the
    threshold is below the node's complexity: primary, surrogates, then the node's majority
    side (``node_major``; 0 = stay). A row that cannot move stays (class of that node).
    """
    cdef Py_ssize_t i, k, s, s0
    cdef int64_t r, node
    cdef int d
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            node = 0
            for k in range(betas.shape[0]):
                while node_left[node] >= 0 and betas[k] < node_cp[node]:
                    d = 0
                    s0 = node_spec0[node]
                    for s in range(s0, s0 + node_nspec[node]):
                        d = _direction(X[r, sp_feat[s]], sp_cat[s], sp_cut[s], sp_lt[s],
                                       &sp_sides[s, 0])
                        if d != 0:
                            break
                    if d == 0:
                        d = node_major[node]
                    if d == 0:
                        break
                    node = node_left[node] if d < 0 else node_right[node]
                out[i, k] = node_yval[node]


# -- one cross-validation fold's tree ---------------------------------------------------
cdef inline void _store_spec(Py_ssize_t s, Py_ssize_t f, bint is_cat, const double* o,
                             const int8* srow, Py_ssize_t lmax, int64_t[:] sp_feat,
                             uchar[:] sp_cat, double[:] sp_cut, uchar[:] sp_lt,
                             int8[:, ::1] sp_sides) noexcept nogil:
    cdef Py_ssize_t lv
    sp_feat[s] = f
    sp_cat[s] = is_cat
    if is_cat:
        for lv in range(lmax):
            sp_sides[s, lv] = srow[lv]
    else:
        sp_cut[s] = o[1]
        sp_lt[s] = o[2] > 0.5


cdef struct FoldScratch:
    double* node_dev
    int64_t* node_parent
    double* out  # p x 5
    int8* sides  # p x lmax
    double* counts  # K
    double* sur_agree  # p
    double* sur_adj  # p
    uchar* taken  # p


def grow_fold(const double[:, :] X, double[:, ::1] vals, int64_t[:, ::1] order,
              int64_t[:, ::1] buffer, double[:, ::1] vbuffer, const double[:, ::1] XC,
              const int64_t[:] cat_cols, const int64_t[:] cat_pos, const uchar[:] keep,
              double[:, :, ::1] C, double[:, ::1] T, int64_t[:, ::1] ROWS, int64_t[:] COUNT,
              double[:, ::1] WL, double[:, ::1] WR, int64_t[:, ::1] NL, int64_t[:, ::1] NR,
              const int64_t[:] y, const double[:] w, const double[:] a, const double[:] q,
              const double[:, :] L, const uchar[:] is_cat, const int64_t[:] n_levels,
              Py_ssize_t K, int crit, long long min_split, long long min_bucket,
              long long max_number, long long max_sur, long long use_sur, long long style,
              double alpha, double tie, double[:] state, const uchar[:] col_nan,
              const uchar[:, :] level_seen, int8[:] dirs, bint cap, int64_t[:] node_number,
              int64_t[:] node_left, int64_t[:] node_right, double[:] node_cp,
              int64_t[:] node_yval, int64_t[:] node_spec0, int64_t[:] node_nspec,
              int8[:] node_major, int64_t[:] sp_feat, uchar[:] sp_cat, double[:] sp_cut,
              uchar[:] sp_lt, int8[:, ::1] sp_sides):
    """Grow one tree on the rows of ``order``; returns the number of nodes (node 0 = root).

    With ``cap``, complexities are capped top-down (c <- min(c, c(parent))) before
    returning, as the cross-validation walk expects. ``node_number`` receives rpart's
    number of each node. Surrogates are searched only at nodes where some row can
    miss the primary: its column has missing values (``col_nan``), or it is categorical and
    a level seen in the data (``level_seen``) is absent at the node. Elsewhere no row, grown
    or held out, ever consults them, so skipping them changes nothing.
    """
    cdef Py_ssize_t p = vals.shape[0], lmax = sp_sides.shape[1], n_rows = order.shape[1]
    cdef Py_ssize_t n_cap = node_cp.shape[0]
    cdef Scratch sc
    cdef FoldScratch fs
    cdef int zd = 0, failed = 0
    cdef Py_ssize_t n_nodes = 0
    with nogil:
        memset(&fs, 0, sizeof(FoldScratch))
        fs.node_dev = <double*> calloc(_n1(n_cap), sizeof(double))
        fs.node_parent = <int64_t*> malloc(_n1(n_cap) * sizeof(int64_t))
        fs.out = <double*> calloc(_n1(p * 5), sizeof(double))
        fs.sides = <int8*> calloc(_n1(p * lmax), sizeof(int8))
        fs.counts = <double*> calloc(_n1(K), sizeof(double))
        fs.sur_agree = <double*> calloc(_n1(p), sizeof(double))
        fs.sur_adj = <double*> calloc(_n1(p), sizeof(double))
        fs.taken = <uchar*> calloc(_n1(p), sizeof(uchar))
        if (fs.node_dev == NULL or fs.node_parent == NULL or fs.out == NULL
                or fs.sides == NULL or fs.counts == NULL or fs.sur_agree == NULL
                or fs.sur_adj == NULL or fs.taken == NULL
                or _scratch_alloc(&sc, n_rows, K, lmax, True, True) < 0):
            failed = 1
        else:
            n_nodes = _grow_fold(X, vals, order, buffer, vbuffer, XC, cat_cols, cat_pos,
                                 keep, C, T, ROWS, COUNT, WL, WR, NL, NR, y, w, a, q, L,
                                 is_cat, n_levels, K, crit, min_split, min_bucket,
                                 max_number, max_sur, use_sur, style, alpha, tie, state,
                                 col_nan, level_seen, dirs, cap, node_number, node_left,
                                 node_right, node_cp, node_yval, node_spec0, node_nspec,
                                 node_major, sp_feat, sp_cat, sp_cut, sp_lt, sp_sides, &sc,
                                 &fs, &zd)
            _scratch_free(&sc)
        free(fs.node_dev)
        free(fs.node_parent)
        free(fs.out)
        free(fs.sides)
        free(fs.counts)
        free(fs.sur_agree)
        free(fs.sur_adj)
        free(fs.taken)
    _raise_if(zd, failed)
    return n_nodes


cdef Py_ssize_t _grow_fold(
        const double[:, :] X, double[:, ::1] vals, int64_t[:, ::1] order,
        int64_t[:, ::1] buffer, double[:, ::1] vbuffer, const double[:, ::1] XC,
        const int64_t[:] cat_cols, const int64_t[:] cat_pos, const uchar[:] keep,
        double[:, :, ::1] C, double[:, ::1] T, int64_t[:, ::1] ROWS, int64_t[:] COUNT,
        double[:, ::1] WL, double[:, ::1] WR, int64_t[:, ::1] NL, int64_t[:, ::1] NR,
        const int64_t[:] y, const double[:] w, const double[:] a, const double[:] q,
        const double[:, :] L, const uchar[:] is_cat, const int64_t[:] n_levels,
        Py_ssize_t K, int crit, long long min_split, long long min_bucket,
        long long max_number, long long max_sur, long long use_sur, long long style,
        double alpha, double tie, double[:] state, const uchar[:] col_nan,
        const uchar[:, :] level_seen, int8[:] dirs, bint cap, int64_t[:] node_number,
        int64_t[:] node_left, int64_t[:] node_right, double[:] node_cp,
        int64_t[:] node_yval, int64_t[:] node_spec0, int64_t[:] node_nspec,
        int8[:] node_major, int64_t[:] sp_feat, uchar[:] sp_cat, double[:] sp_cut,
        uchar[:] sp_lt, int8[:, ::1] sp_sides, Scratch* sc, FoldScratch* fs,
        int* zd) noexcept nogil:
    cdef Py_ssize_t p = vals.shape[0], lmax = sp_sides.shape[1]
    cdef double* node_dev = fs.node_dev
    cdef int64_t* node_parent = fs.node_parent
    cdef double* out = fs.out
    cdef int8* sides = fs.sides
    cdef double* counts = fs.counts
    cdef double* sur_agree = fs.sur_agree
    cdef double* sur_adj = fs.sur_adj
    cdef uchar* taken = fs.taken
    cdef Py_ssize_t f_node[DEPTH_CAP]
    cdef Py_ssize_t f_start[DEPTH_CAP]
    cdef Py_ssize_t f_nn[DEPTH_CAP]
    cdef double f_bound[DEPTH_CAP]
    cdef int f_phase[DEPTH_CAP]
    cdef Py_ssize_t f_nl[DEPTH_CAP]
    cdef Py_ssize_t f_nr[DEPTH_CAP]
    cdef double f_sl[DEPTH_CAP]
    cdef double f_rl[DEPTH_CAP]
    cdef Py_ssize_t n_nodes = 1, n_specs = 0, top = 0, idx, start, nn, i, j, c, k, lv, s
    cdef Py_ssize_t best_c, primary, s0, n_sur, pick, cp_, left, right, nl, n_l, n_r, par
    cdef int64_t r
    cdef int d, majority, fallback
    cdef double ret_s = 0.0, ret_r = 0.0, R, u, risk, best_risk, best_v, imp, w_l, w_r
    cdef double D, M, agree, agreement, adj, t, s_l, r_l, s_r, r_r, c_l, c_r, cv, MD
    cdef bint split, need
    for i in range(node_cp.shape[0]):
        node_parent[i] = -1
    memset(f_bound, 0, sizeof(f_bound))
    memset(f_phase, 0, sizeof(f_phase))
    node_number[0] = 1
    f_node[0] = 0
    f_start[0] = 0
    f_nn[0] = order.shape[1]
    f_phase[0] = 0
    while top >= 0:
        idx = f_node[top]
        start = f_start[top]
        nn = f_nn[top]
        R = node_dev[idx]
        if f_phase[top] == 0:
            for k in range(K):
                counts[k] = 0.0
            for i in range(nn):
                r = order[0, start + i]
                counts[y[r]] += w[r]
            best_c = 0
            best_risk = INFINITY
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
                u = nb_min(R, f_bound[top])
            node_left[idx] = -1
            node_right[idx] = -1
            split = not (nn < min_split or u <= alpha or node_number[idx] > max_number)
            primary = -1
            if split:
                _best_splits(vals, XC, cat_cols, cat_pos, y, w, a, order, start, nn, is_cat,
                             n_levels, min_bucket, crit, K, out, 5, sides, lmax, C, T, ROWS,
                             COUNT, sc, zd)
                best_v = 0.0
                for j in range(p):
                    imp = out[j * 5]
                    if imp < 0.0:
                        continue
                    state[0] = nb_max(state[0], imp)
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
            _store_spec(s0, primary, is_cat[primary], out + primary * 5,
                        sides + primary * lmax, lmax, sp_feat, sp_cat, sp_cut, sp_lt,
                        sp_sides)
            n_specs += 1
            w_l = 0.0
            w_r = 0.0
            for i in range(nn):
                r = order[0, start + i]
                d = _direction(X[r, primary], sp_cat[s0], sp_cut[s0], sp_lt[s0],
                               &sp_sides[s0, 0])
                dirs[r] = <int8> d
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
                    _surrogate_tallies(XC, cat_cols, w, dirs, order, start, nn, WL, WR, NL,
                                       NR)
                for j in range(p):
                    sur_agree[j] = -1.0
                    if j == primary:
                        continue
                    if is_cat[j]:
                        cp_ = cat_pos[j]
                        _surrogate_categorical(&WL[cp_, 0], &WR[cp_, 0], &NL[cp_, 0],
                                               &NR[cp_, 0], n_levels[j], out + j * 5,
                                               sides + j * lmax, lmax)
                    else:
                        _surrogate_numeric(vals, w, dirs, order, j, start, nn, out + j * 5,
                                           sc)
                    agree = out[j * 5]
                    if agree < 0.0:
                        continue
                    if style == 0:
                        D = w_l + w_r
                        M = nb_max(w_l, w_r)
                    else:
                        D = out[j * 5 + 3] + out[j * 5 + 4]
                        M = nb_max(out[j * 5 + 3], out[j * 5 + 4])
                    if D <= 0.0 or M >= D:
                        continue
                    agreement = agree / D
                    MD = 1.0 - M / D
                    if MD == 0.0:
                        zd[0] = 1
                    adj = (agreement - M / D) / MD
                    if adj > 1e-10:
                        sur_agree[j] = agreement
                        sur_adj[j] = adj
                for j in range(p):
                    taken[j] = 0
                for k in range(max_sur):
                    pick = -1
                    for j in range(p):
                        if sur_agree[j] >= 0.0 and not taken[j] and (
                                pick < 0 or sur_agree[j] > sur_agree[pick]):
                            pick = j
                    if pick < 0:
                        break
                    taken[pick] = 1
                    _store_spec(n_specs, pick, is_cat[pick], out + pick * 5,
                                sides + pick * lmax, lmax, sp_feat, sp_cat, sp_cut, sp_lt,
                                sp_sides)
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
                                       &sp_sides[s, 0])
                        if d != 0:
                            break
                    if d == 0:
                        d = fallback
                    dirs[r] = <int8> d
            node_spec0[idx] = s0
            node_nspec[idx] = 1 + (n_sur if use_sur >= 1 else 0)
            node_major[idx] = ((-1 if w_l > w_r else 1) if use_sur == 2 else 0)
            _partition(<char*> &order[0, 0], order.strides[0], order.strides[1],
                       <char*> &vals[0, 0], vals.strides[0], vals.strides[1], p, start, nn,
                       <char*> &dirs[0], dirs.strides[0], <char*> &buffer[0, 0],
                       buffer.strides[0], buffer.strides[1], <char*> &vbuffer[0, 0],
                       vbuffer.strides[0], vbuffer.strides[1], <const char*> &keep[0],
                       keep.strides[0], &n_l, &n_r)
            left = n_nodes
            right = n_nodes + 1
            n_nodes += 2
            node_parent[left] = idx
            node_parent[right] = idx
            node_number[left] = 2 * node_number[idx]
            node_number[right] = 2 * node_number[idx] + 1
            node_left[idx] = left
            node_right[idx] = right
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
            t = nb_max((R - ret_r) / (ret_s + 1.0), R - node_dev[left])
            t = nb_min(t, f_bound[top])
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
            cv = (R - (r_l + r_r)) / (s_l + s_r + 1.0)
            node_cp[idx] = cv
            if cv <= alpha:
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
        node_cp[idx] = nb_min(node_cp[idx], node_cp[par])
    return n_nodes


def fold_segments(const int64_t[:, ::1] full_order, const double[:, :] X,
                  const uchar[:] train, const uchar[:] keep, int64_t[:, ::1] order,
                  double[:, ::1] vals):
    """A fold's root segments: the training rows of each sorted order, with their values
    (only for the features with ``keep``; the others are never read)."""
    cdef Py_ssize_t f, i, k
    cdef int64_t r
    with nogil:
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


# -- the anova split search -------------------------------------------------------------
cdef void _anova_tallies(const double[:, ::1] XC, const int64_t[:] cat_cols,
                         const double[:] y, const double[:] w, const int64_t[:, ::1] order,
                         Py_ssize_t start, Py_ssize_t nn, double center,
                         double[:, :, ::1] S, double[:, ::1] T, int64_t[:, ::1] ROWS,
                         int64_t[:] COUNT) noexcept nogil:
    """``anova_tallies``."""
    cdef Py_ssize_t m = cat_cols.shape[0], c, i, lv, k
    cdef const int64_t* orow
    cdef const double* xrow
    cdef int64_t r
    cdef double wr, dy, v
    for c in range(S.shape[0]):
        for lv in range(S.shape[1]):
            for k in range(S.shape[2]):
                S[c, lv, k] = 0.0
        for lv in range(T.shape[1]):
            T[c, lv] = 0.0
    for c in range(ROWS.shape[0]):
        for lv in range(ROWS.shape[1]):
            ROWS[c, lv] = 0
    for c in range(COUNT.shape[0]):
        COUNT[c] = 0
    orow = &order[0, start]
    for i in range(nn):
        r = orow[i]
        wr = w[r]
        dy = wr * (y[r] - center)
        xrow = &XC[r, 0]
        for c in range(m):
            v = xrow[c]
            if isnan(v):
                continue
            COUNT[c] += 1
            if wr > 0.0:
                lv = <Py_ssize_t> v
                S[c, lv, 0] += dy
                T[c, lv] += wr
                ROWS[c, lv] += 1


cdef void _anova_numeric(const double[:, ::1] vals, const double[:] y, const double[:] w,
                         const int64_t[:, ::1] order, Py_ssize_t j, Py_ssize_t start,
                         Py_ssize_t nn, long long minbucket, double center, double node_ss,
                         double* out, Scratch* sc, int* zd) noexcept nogil:
    """Best anova cut of numeric feature j; out = (improve, cut, left_lt, count), improve -1
    if none."""
    cdef const int64_t* orow = &order[j, start]
    cdef const double* vrow = &vals[j, start]
    cdef double* xs = sc.xs
    cdef double* ys = sc.cs
    cdef double* ws = sc.ws
    cdef Py_ssize_t m = 0, count = 0, i, best_i, nl
    cdef int64_t r
    cdef double v, wr, s_tot, w_tot, s_l, w_l, s_r, w_r, best, best_sl, best_wl, score
    for i in range(nn):
        r = orow[i]
        v = vrow[i]
        if isnan(v):
            break
        count += 1
        wr = w[r]
        if wr > 0.0:
            xs[m] = v
            ys[m] = y[r] - center
            ws[m] = wr
            m += 1
    out[0] = -1.0
    out[3] = <double> count
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
        if w_l == 0.0 or w_r == 0.0:
            zd[0] = 1
        score = s_l * s_l / w_l + s_r * s_r / w_r
        if score > best:
            best = score
            best_i = i
            best_sl = s_l
            best_wl = w_l
    if best_i < 0:
        return
    if w_tot == 0.0 or node_ss == 0.0 or best_wl == 0.0 or w_tot - best_wl == 0.0:
        zd[0] = 1
    out[0] = (best - s_tot * s_tot / w_tot) / node_ss
    out[1] = (xs[best_i] + xs[best_i + 1]) / 2.0
    out[2] = 1.0 if best_sl / best_wl < (s_tot - best_sl) / (w_tot - best_wl) else 0.0


cdef void _anova_categorical(const double* s, Py_ssize_t ss, const double* t,
                             const int64_t* rows, int64_t count, Py_ssize_t nlev,
                             long long minbucket, double node_ss, double* out, int8* sides,
                             Py_ssize_t lmax, int64_t* perm, double* means,
                             int* zd) noexcept nogil:
    """Best prefix of the present levels ordered by mean (ties: level order), the prefix
    (smaller means) left: ``s[level * ss]`` the per-level sums (``S[c, level, 0]``), ``t``
    the per-level weights."""
    cdef Py_ssize_t npres = 0, lv, k, best_k
    cdef long long ntot = 0, nl
    cdef double s_tot = 0.0, w_tot = 0.0, s_l, w_l, s_r, w_r, best, score
    out[0] = -1.0
    out[1] = 0.0
    out[2] = 0.0
    out[3] = <double> count
    for lv in range(lmax):
        sides[lv] = 0
    for lv in range(nlev):
        if rows[lv] > 0:
            if t[lv] == 0.0:
                zd[0] = 1
            means[lv] = s[lv * ss] / t[lv]
            k = npres  # stable insertion by mean
            while k > 0 and means[perm[k - 1]] > means[lv]:
                perm[k] = perm[k - 1]
                k -= 1
            perm[k] = lv
            npres += 1
            ntot += rows[lv]
            s_tot += s[lv * ss]
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
        s_l += s[lv * ss]
        w_l += t[lv]
        nl += rows[lv]
        if nl < minbucket or ntot - nl < minbucket:
            continue
        s_r = s_tot - s_l
        w_r = w_tot - w_l
        if w_l == 0.0 or w_r == 0.0:
            zd[0] = 1
        score = s_l * s_l / w_l + s_r * s_r / w_r
        if score > best:
            best = score
            best_k = k
    if best_k < 0:
        return
    for k in range(npres):
        sides[perm[k]] = -1 if k <= best_k else 1
    if w_tot == 0.0:
        zd[0] = 1
    out[0] = (best - s_tot * s_tot / w_tot) / node_ss


def anova_tallies(const double[:, ::1] XC, const int64_t[:] cat_cols, const double[:] y,
                  const double[:] w, const int64_t[:, ::1] order, Py_ssize_t start,
                  Py_ssize_t nn, double center, double[:, :, ::1] S, double[:, ::1] T,
                  int64_t[:, ::1] ROWS, int64_t[:] COUNT):
    """Per-level sums of every categorical feature at a node, in one pass over its rows:
    ``S[c, level, 0]`` the sum of w (y - center), ``T`` the sum of w, ``ROWS`` the rows of
    weight > 0 and ``COUNT[c]`` the rows with the feature present."""
    with nogil:
        _anova_tallies(XC, cat_cols, y, w, order, start, nn, center, S, T, ROWS, COUNT)


def anova_best_splits(const double[:, ::1] vals, const double[:, ::1] XC,
                      const int64_t[:] cat_cols, const int64_t[:] cat_pos, const double[:] y,
                      const double[:] w, const int64_t[:, ::1] order, Py_ssize_t start,
                      Py_ssize_t nn, const uchar[:] is_cat, const int64_t[:] n_levels,
                      long long minbucket, double center, double node_ss, double[:, ::1] out,
                      int8[:, ::1] sides, double[:, :, ::1] S, double[:, ::1] T,
                      int64_t[:, ::1] ROWS, int64_t[:] COUNT):
    """Every feature's best anova split at one node (``center`` its mean, ``node_ss`` its
    weighted sum of squares): ``out[j] = (improve, cut, left_lt, count)`` as
    ``node_best_splits``; ``sides[j, level]`` for categorical features."""
    cdef Scratch sc
    cdef int zd = 0, failed = 0
    cdef Py_ssize_t j, c, lmax = sides.shape[1], sstride = S.shape[2]
    cdef int64_t* perm = NULL
    cdef double* means = NULL
    with nogil:
        perm = <int64_t*> malloc(_n1(lmax) * sizeof(int64_t))
        means = <double*> malloc(_n1(lmax) * sizeof(double))
        if perm == NULL or means == NULL or _scratch_alloc(&sc, nn, 1, lmax, True,
                                                          False) < 0:
            failed = 1
        else:
            if cat_cols.shape[0] > 0:
                _anova_tallies(XC, cat_cols, y, w, order, start, nn, center, S, T, ROWS,
                               COUNT)
            for j in range(vals.shape[0]):
                if is_cat[j]:
                    c = cat_pos[j]
                    _anova_categorical(&S[c, 0, 0], sstride, &T[c, 0], &ROWS[c, 0],
                                       COUNT[c], n_levels[j], minbucket, node_ss,
                                       &out[j, 0], &sides[j, 0], lmax, perm, means, &zd)
                else:
                    _anova_numeric(vals, y, w, order, j, start, nn, minbucket, center,
                                   node_ss, &out[j, 0], &sc, &zd)
            _scratch_free(&sc)
        free(perm)
        free(means)
    _raise_if(zd, failed)


# the test hooks above under the private kernels' names (tests/test_rpart_learner.py
# imports them); the C functions of the same names stay module-internal
globals().update(_parent_term=_parent_term_py, _subset_improve=_subset_improve_py,
                 _categorical_best=_categorical_best_py)
