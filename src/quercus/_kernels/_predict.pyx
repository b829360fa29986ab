# cython: language_level=3
"""Prediction kernels of the flat tree, compiled: one traversal for every node kind, the
packed traversal of trees of numeric thresholds, and rpart's routing with surrogates.

They give exactly what the numba build (commit b87f659) gave, checked by
tests/test_kernel_fixtures.py. The traversals release the GIL; those with one output per row
run in parallel over rows (OpenMP), every row writing only its own output, so the results
do not depend on the thread count.

The ``def`` functions read arrays of the tree's own dtypes (``tree._ARRAY_FIELDS``) in C
order as they are and convert others first; X is float32 or float64 rows in C order
(another dtype becomes float64, as ``tree._as_float_rows`` does). The outputs are written
in place. The hot loops read the arrays through raw pointers gathered in a struct.

Neither of these changes a result: fewer than ``SERIAL_ROWS`` rows are done in the calling
thread (no OpenMP start-up), and the numeric kernel prefetches the rows of a block a few
blocks ahead (its descent waits on X's cache lines, not on arithmetic).
"""

cimport cython
from cython.parallel cimport parallel, prange
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t
from libc.stdlib cimport free, malloc

from quercus._kernels._common cimport CATEGORICAL as K_CATEGORICAL
from quercus._kernels._common cimport INTERVAL as K_INTERVAL
from quercus._kernels._common cimport LEAF as K_LEAF
from quercus._kernels._common cimport NUMERIC as K_NUMERIC
from quercus._kernels._common cimport WEIGHTED as K_WEIGHTED

import numpy as np

cdef enum:
    # fewer rows than this descend in the calling thread: starting OpenMP's threads costs
    # more (a few microseconds) than such a descent; either way each row writes only its
    # own output, so the results are the same
    SERIAL_ROWS = 128

# -- node kinds of the flat tree -----------------------------------------------------------
LEAF = K_LEAF
NUMERIC = K_NUMERIC
CATEGORICAL = K_CATEGORICAL
INTERVAL = K_INTERVAL  # threshold <= value <= interval_high -> branch 0 (inside), else 1
WEIGHTED = K_WEIGHTED  # missing_branch of a node that sends missing values down every branch

# -- trees of numeric thresholds: flags, lanes, prefetch -----------------------------------
cdef enum:
    P_MISSING_LEFT = 1  # a missing value takes branch 0
    P_SPLIT = 2  # the node is a split (a leaf is not)
    P_FEATURE_SHIFT = 2
    P_NAN_RIGHT = 1  # in a top field: a missing value goes right
    P_LANES = 8  # rows that descend side by side
    # a block of eight rows asks the cache for the rows of the block this far ahead (the
    # descent waits on X's cache lines: ~2x faster on float64 rows than without)
    P_PREFETCH_BLOCKS = 4

MISSING_LEFT = P_MISSING_LEFT
SPLIT = P_SPLIT
FEATURE_SHIFT = P_FEATURE_SHIFT
NAN_RIGHT = P_NAN_RIGHT
LANES = P_LANES

# -- rpart's routing: the stop code --------------------------------------------------------
cdef enum:
    K_STOP = -1

STOP = K_STOP

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define QUERCUS_PREFETCH(p) __builtin_prefetch((const void*)(p), 0, 0)
    #else
    #define QUERCUS_PREFETCH(p) ((void)0)
    #endif
    """
    # a hint to load the cache line at p (it never faults, and changes no result)
    void prefetch "QUERCUS_PREFETCH"(const void* p) noexcept nogil

ctypedef fused lookup_t:
    int64_t
    double


ctypedef struct Flat:
    const int8_t* kind
    const int32_t* feature
    const double* threshold
    const double* interval_high
    const int64_t* child_ptr
    const int32_t* child_ids
    const int32_t* missing_branch
    const int64_t* category_ptr
    const int32_t* category_branch
    const double* node_weight


ctypedef struct Routing:
    const int8_t* kind
    const int32_t* feature
    const double* threshold
    const int64_t* child_ptr
    const int32_t* child_ids
    const int64_t* category_ptr
    const int32_t* category_branch
    const int64_t* n_rows
    const uint8_t* category_absent
    const int64_t* sur_ptr
    const int32_t* sur_feature
    const double* sur_cut
    const int8_t* sur_below
    const int64_t* sur_cat_ptr
    const int8_t* sur_cat_branch
    int64_t use_surrogates


cdef inline object _c(a, dtype):
    """``a`` as a C-ordered array of ``dtype`` (itself when it already is one)."""
    return np.ascontiguousarray(a, dtype=dtype)


cdef class _Rows:
    """X as C-ordered rows of float32 (``single``) or float64, viewed once per call."""
    cdef const float[:, ::1] f32
    cdef const double[:, ::1] f64
    cdef bint single
    cdef Py_ssize_t n


cdef _Rows _rows(X):
    """A view of X: itself when it is C-ordered float32 or float64 (no conversion), else
    its float64 copy in C order (``tree._as_float_rows``)."""
    cdef _Rows rows = _Rows.__new__(_Rows)
    try:
        code = X.dtype.char
        if code == "d":
            rows.f64 = X
            rows.n = rows.f64.shape[0]
            return rows
        if code == "f":
            rows.f32 = X
            rows.n = rows.f32.shape[0]
            rows.single = True
            return rows
    except (AttributeError, TypeError, ValueError, BufferError):
        pass  # not an array, or not C-ordered
    if isinstance(X, np.ndarray) and X.dtype == np.float32:
        rows.f32 = np.ascontiguousarray(X)
        rows.n = rows.f32.shape[0]
        rows.single = True
    else:
        rows.f64 = np.ascontiguousarray(X, dtype=np.float64)
        rows.n = rows.f64.shape[0]
    return rows


# -- the flat tree -------------------------------------------------------------------------
cdef class _FlatArrays:
    """The node arrays of one call, kept alive while the kernel reads their pointers."""
    cdef const int8_t[::1] kind
    cdef const int32_t[::1] feature
    cdef const double[::1] threshold
    cdef const double[::1] interval_high
    cdef const int64_t[::1] child_ptr
    cdef const int32_t[::1] child_ids
    cdef const int32_t[::1] missing_branch
    cdef const int64_t[::1] category_ptr
    cdef const int32_t[::1] category_branch
    cdef const double[::1] node_weight

    cdef void fill(self, Flat* t) noexcept:
        t.kind = &self.kind[0]
        t.feature = &self.feature[0]
        t.threshold = &self.threshold[0]
        t.interval_high = &self.interval_high[0]
        t.child_ptr = &self.child_ptr[0]
        t.child_ids = &self.child_ids[0]
        t.missing_branch = &self.missing_branch[0]
        t.category_ptr = &self.category_ptr[0]
        t.category_branch = &self.category_branch[0]
        t.node_weight = &self.node_weight[0]


cdef _FlatArrays _flat(Flat* t, kind, feature, threshold, interval_high, child_ptr,
                       child_ids, missing_branch, category_ptr, category_branch,
                       node_weight):
    """The node arrays' pointers in ``t``; the arrays they point into (kept alive by the
    caller)."""
    cdef _FlatArrays arrays = _FlatArrays.__new__(_FlatArrays)
    try:  # the tree's own arrays: viewed as they are
        arrays.kind = kind
        arrays.feature = feature
        arrays.threshold = threshold
        arrays.interval_high = interval_high
        arrays.child_ptr = child_ptr
        arrays.child_ids = child_ids
        arrays.missing_branch = missing_branch
        arrays.category_ptr = category_ptr
        arrays.category_branch = category_branch
        arrays.node_weight = node_weight
    except (TypeError, ValueError, BufferError):  # another dtype or order: converted
        arrays.kind = _c(kind, np.int8)
        arrays.feature = _c(feature, np.int32)
        arrays.threshold = _c(threshold, np.float64)
        arrays.interval_high = _c(interval_high, np.float64)
        arrays.child_ptr = _c(child_ptr, np.int64)
        arrays.child_ids = _c(child_ids, np.int32)
        arrays.missing_branch = _c(missing_branch, np.int32)
        arrays.category_ptr = _c(category_ptr, np.int64)
        arrays.category_branch = _c(category_branch, np.int32)
        arrays.node_weight = _c(node_weight, np.float64)
    arrays.fill(t)
    return arrays


cdef inline int64_t _branch_of(const Flat* t, int64_t node,
                               const cython.floating* x) noexcept nogil:
    """Branch index a row takes at a split node; WEIGHTED for a missing value at a C4.5
    node."""
    cdef cython.floating v = x[t.feature[node]]
    cdef int64_t code, lo
    cdef int8_t kind
    if v != v:
        return t.missing_branch[node]
    kind = t.kind[node]
    if kind == K_NUMERIC:
        return 0 if v <= t.threshold[node] else 1
    if kind == K_INTERVAL:
        return 0 if t.threshold[node] <= v <= t.interval_high[node] else 1
    code = <int64_t> v
    lo = t.category_ptr[node]
    if code < 0 or code >= t.category_ptr[node + 1] - lo:
        return t.missing_branch[node]
    return t.category_branch[lo + code]


cdef inline int64_t _heaviest_branch(const Flat* t, int64_t node) noexcept nogil:
    cdef int64_t best = 0, b
    cdef int64_t first = t.child_ptr[node]
    for b in range(t.child_ptr[node + 1] - first):
        if t.node_weight[t.child_ids[first + b]] > t.node_weight[t.child_ids[first + best]]:
            best = b
    return best


cdef inline int64_t _next_node(const Flat* t, int64_t node,
                               const cython.floating* x) noexcept nogil:
    cdef int64_t b = _branch_of(t, node, x)
    if b == K_WEIGHTED:
        b = _heaviest_branch(t, node)
    return t.child_ids[t.child_ptr[node] + b]


cdef inline int64_t _leaf_of(const Flat* t, const cython.floating* x) noexcept nogil:
    """The leaf row ``x`` reaches."""
    cdef int64_t node = 0
    while t.kind[node] != K_LEAF:
        node = _next_node(t, node, x)
    return node


cdef void _apply_rows(const cython.floating[:, ::1] X, const Flat* t,
                      int64_t[:] out_leaf) noexcept nogil:
    cdef Py_ssize_t i, n = X.shape[0], width = X.shape[1]
    cdef const cython.floating* base = &X[0, 0]
    if n < SERIAL_ROWS:
        for i in range(n):
            out_leaf[i] = _leaf_of(t, base + i * width)
    else:
        for i in prange(n, schedule="static"):
            out_leaf[i] = _leaf_of(t, base + i * width)


def apply_rows(X, kind, feature, threshold, interval_high, child_ptr, child_ids,
               missing_branch, category_ptr, category_branch, node_weight, out_leaf):
    """Write the id of the leaf that each row of X reaches into ``out_leaf``."""
    cdef Flat t
    cdef int64_t[:] out = out_leaf
    cdef _Rows rows = _rows(X)
    keep = _flat(&t, kind, feature, threshold, interval_high, child_ptr, child_ids,
                 missing_branch, category_ptr, category_branch, node_weight)
    if rows.n > out.shape[0]:
        raise ValueError("out_leaf has fewer entries than X has rows")
    if rows.n == 0:
        return
    if rows.single:
        with nogil:
            _apply_rows(rows.f32, &t, out)
    else:
        with nogil:
            _apply_rows(rows.f64, &t, out)


cdef int64_t _path_lengths(const cython.floating[:, ::1] X, const Flat* t,
                           int64_t[:] out_nodes, int64_t[:] out_ptr) noexcept nogil:
    cdef Py_ssize_t i, n = X.shape[0], width = X.shape[1]
    cdef Py_ssize_t capacity = out_nodes.shape[0]
    cdef int64_t node, pos = 0
    cdef const cython.floating* base = &X[0, 0]
    for i in range(n):
        out_ptr[i] = pos
        node = 0
        if pos >= capacity:
            return -1
        out_nodes[pos] = node
        pos += 1
        while t.kind[node] != K_LEAF:
            node = _next_node(t, node, base + i * width)
            if pos >= capacity:
                return -1
            out_nodes[pos] = node
            pos += 1
    out_ptr[n] = pos
    return pos


def path_lengths(X, kind, feature, threshold, interval_high, child_ptr, child_ids,
                 missing_branch, category_ptr, category_branch, node_weight, out_nodes,
                 out_ptr):
    """Nodes visited by each row, in CSR form: ``out_nodes[out_ptr[i]:out_ptr[i+1]]``.

    ``out_nodes`` must hold ``n_rows * (max_depth + 1)`` entries; returns the count used.
    """
    cdef Flat t
    cdef int64_t[:] nodes = out_nodes
    cdef int64_t[:] ptr = out_ptr
    cdef _Rows rows = _rows(X)
    cdef int64_t used
    keep = _flat(&t, kind, feature, threshold, interval_high, child_ptr, child_ids,
                 missing_branch, category_ptr, category_branch, node_weight)
    if ptr.shape[0] < rows.n + 1:
        raise ValueError("out_ptr needs one entry more than X has rows")
    if rows.n == 0:
        ptr[0] = 0
        return 0
    if rows.single:
        with nogil:
            used = _path_lengths(rows.f32, &t, nodes, ptr)
    else:
        with nogil:
            used = _path_lengths(rows.f64, &t, nodes, ptr)
    if used < 0:
        raise ValueError("out_nodes is too small for the paths of X")
    return used


cdef void _weighted_descent(const cython.floating* x, const Flat* t,
                            const double* node_proba, Py_ssize_t n_classes, int64_t start,
                            double* out, Py_ssize_t step, int64_t* stack_node,
                            double* stack_share) noexcept nogil:
    """Slow path of proba_rows: an explicit stack of (node, share) from ``start``."""
    cdef Py_ssize_t top = 1, c
    cdef int64_t node, b, k, child
    cdef double share, total
    stack_node[0] = start
    stack_share[0] = 1.0
    while top > 0:
        top -= 1
        node = stack_node[top]
        share = stack_share[top]
        if t.kind[node] == K_LEAF:
            for c in range(n_classes):
                out[c * step] += share * node_proba[node * n_classes + c]
            continue
        b = _branch_of(t, node, x)
        if b != K_WEIGHTED:
            stack_node[top] = t.child_ids[t.child_ptr[node] + b]
            stack_share[top] = share
            top += 1
            continue
        total = t.node_weight[node]
        for k in range(t.child_ptr[node], t.child_ptr[node + 1]):
            child = t.child_ids[k]
            if t.node_weight[child] > 0.0 and total > 0.0:
                stack_node[top] = child
                stack_share[top] = share * t.node_weight[child] / total
                top += 1


cdef inline void _proba_row(const cython.floating* x, const Flat* t,
                            const double* proba, Py_ssize_t n_classes, double* out,
                            Py_ssize_t step, int64_t* stack_node,
                            double* stack_share) noexcept nogil:
    """One row of ``proba_rows`` into ``out`` (its columns ``step`` doubles apart)."""
    cdef Py_ssize_t c
    cdef int64_t node = 0, b
    while t.kind[node] != K_LEAF:
        b = _branch_of(t, node, x)
        if b == K_WEIGHTED:
            break
        node = t.child_ids[t.child_ptr[node] + b]
    if t.kind[node] == K_LEAF:
        for c in range(n_classes):
            out[c * step] = proba[node * n_classes + c]
    else:
        _weighted_descent(x, t, proba, n_classes, node, out, step, stack_node, stack_share)


cdef int _proba_rows(const cython.floating[:, ::1] X, const Flat* t, Py_ssize_t n_nodes,
                     const double[:, ::1] node_proba, double[:, :] out) noexcept nogil:
    """0, or -1 when a thread's stack could not be allocated (its rows are left)."""
    cdef Py_ssize_t i, n = X.shape[0], width = X.shape[1]
    cdef Py_ssize_t n_classes = node_proba.shape[1]
    cdef Py_ssize_t step = out.strides[1] // sizeof(double)
    cdef const cython.floating* base = &X[0, 0]
    cdef const double* proba = &node_proba[0, 0]
    cdef int64_t* stack_node = NULL
    cdef double* stack_share = NULL
    cdef int failed = 0
    cdef int* failed_at = &failed
    if n < SERIAL_ROWS:
        stack_node = <int64_t*> malloc(n_nodes * sizeof(int64_t))
        stack_share = <double*> malloc(n_nodes * sizeof(double))
        if stack_node != NULL and stack_share != NULL:
            for i in range(n):
                _proba_row(base + i * width, t, proba, n_classes, &out[i, 0], step,
                           stack_node, stack_share)
        else:
            failed = 1
        free(stack_node)
        free(stack_share)
        return -1 if failed else 0
    with parallel():  # a stack per thread
        stack_node = <int64_t*> malloc(n_nodes * sizeof(int64_t))
        stack_share = <double*> malloc(n_nodes * sizeof(double))
        if stack_node == NULL or stack_share == NULL:
            failed_at[0] = 1
        for i in prange(n, schedule="static"):
            if stack_node != NULL and stack_share != NULL:
                _proba_row(base + i * width, t, proba, n_classes, &out[i, 0], step,
                           stack_node, stack_share)
        free(stack_node)
        free(stack_share)
    return -1 if failed else 0


def proba_rows(X, kind, feature, threshold, interval_high, child_ptr, child_ids,
               missing_branch, category_ptr, category_branch, node_weight, node_proba, out):
    """Class probabilities per row. A missing value at a WEIGHTED node descends every branch
    with the branch's share of the node's training weight, and the results are summed."""
    cdef Flat t
    cdef double[:, :] out_v = out
    cdef const double[:, ::1] proba = _c(node_proba, np.float64)
    cdef _Rows rows = _rows(X)
    cdef _FlatArrays keep
    cdef Py_ssize_t n_nodes
    cdef int status
    keep = _flat(&t, kind, feature, threshold, interval_high, child_ptr, child_ids,
                 missing_branch, category_ptr, category_branch, node_weight)
    n_nodes = keep.kind.shape[0]
    if rows.n > out_v.shape[0] or (rows.n and out_v.shape[1] < proba.shape[1]):
        raise ValueError("out is smaller than X's rows by node_proba's columns")
    if rows.n == 0:
        return
    if rows.single:
        with nogil:
            status = _proba_rows(rows.f32, &t, n_nodes, proba, out_v)
    else:
        with nogil:
            status = _proba_rows(rows.f64, &t, n_nodes, proba, out_v)
    if status < 0:
        raise MemoryError()


# -- trees of numeric thresholds -----------------------------------------------------------
cdef inline void _lookup_block(const cython.floating* x, Py_ssize_t width,
                               const cython.floating* top_thresholds,
                               const uint32_t* top_fields, Py_ssize_t top_depth,
                               const int64_t* top_nodes, size_t base,
                               const double* thresholds, const uint32_t* fields,
                               bint missing, const lookup_t* lookup, lookup_t* out,
                               const char* ahead, Py_ssize_t ahead_bytes) noexcept nogil:
    """``lookup[leaf]`` of the eight rows from ``x`` (rows of ``width`` values) into
    ``out[0:8]``: the top for ``top_depth`` steps, then the records until all eight sit in
    leaves. ``ahead``: rows of a later block to prefetch (NULL: none). Indices are
    unsigned (never negative; a leaf's record step wraps around to the leaf itself)."""
    cdef size_t a[P_LANES]
    cdef size_t slot, node, right
    cdef uint32_t field, flags
    cdef cython.floating v
    cdef Py_ssize_t lane, d, offset
    if ahead != NULL:
        for offset in range(0, ahead_bytes, 64):
            prefetch(ahead + offset)
    for lane in range(P_LANES):
        a[lane] = 0
    if missing:
        for d in range(top_depth):
            for lane in range(P_LANES):
                slot = a[lane]
                field = top_fields[slot]
                v = x[lane * width + (field >> 1)]
                a[lane] = 2 * slot + 1 + (<size_t> (v > top_thresholds[slot])
                                          | (<size_t> (v != v) & (field & P_NAN_RIGHT)))
    else:  # no NaN in X: the comparison alone
        for d in range(top_depth):
            for lane in range(P_LANES):
                slot = a[lane]
                v = x[lane * width + (top_fields[slot] >> 1)]
                a[lane] = 2 * slot + 1 + <size_t> (v > top_thresholds[slot])
    for lane in range(P_LANES):
        a[lane] = <size_t> top_nodes[a[lane] - base]
    while ((fields[4 * a[0] + 3] | fields[4 * a[1] + 3] | fields[4 * a[2] + 3]
            | fields[4 * a[3] + 3] | fields[4 * a[4] + 3] | fields[4 * a[5] + 3]
            | fields[4 * a[6] + 3] | fields[4 * a[7] + 3]) & P_SPLIT):
        for lane in range(P_LANES):
            node = a[lane]
            flags = fields[4 * node + 3]
            v = x[lane * width + (flags >> P_FEATURE_SHIFT)]
            right = 1 - (<size_t> (v <= thresholds[2 * node])
                         | (<size_t> (v != v) & (flags & P_MISSING_LEFT)))
            a[lane] = node + 1 + right * (<size_t> fields[4 * node + 2] - node - 1)
    for lane in range(P_LANES):
        out[lane] = lookup[a[lane]]


cdef inline lookup_t _lookup_row(const cython.floating* x,
                                 const cython.floating* top_thresholds,
                                 const uint32_t* top_fields, Py_ssize_t top_depth,
                                 const int64_t* top_nodes, size_t base,
                                 const double* thresholds, const uint32_t* fields,
                                 const lookup_t* lookup) noexcept nogil:
    """``_lookup_block`` for one row."""
    cdef size_t slot = 0, node, right
    cdef uint32_t field, flags
    cdef cython.floating v
    cdef Py_ssize_t d
    for d in range(top_depth):
        field = top_fields[slot]
        v = x[field >> 1]
        slot = 2 * slot + 1 + (<size_t> (v > top_thresholds[slot])
                               | (<size_t> (v != v) & (field & P_NAN_RIGHT)))
    node = <size_t> top_nodes[slot - base]
    while fields[4 * node + 3] & P_SPLIT:
        flags = fields[4 * node + 3]
        v = x[flags >> P_FEATURE_SHIFT]
        right = 1 - (<size_t> (v <= thresholds[2 * node])
                     | (<size_t> (v != v) & (flags & P_MISSING_LEFT)))
        node = node + 1 + right * (<size_t> fields[4 * node + 2] - node - 1)
    return lookup[node]


cdef void _numeric_leaf_lookup(const cython.floating[:, ::1] X,
                               const cython.floating[::1] top_thresholds,
                               const int32_t[::1] top_fields, Py_ssize_t top_depth,
                               const int64_t[::1] top_nodes, const double[::1] thresholds,
                               const int32_t[::1] fields, bint missing,
                               const lookup_t[::1] lookup, lookup_t[::1] out) noexcept nogil:
    cdef Py_ssize_t n = X.shape[0], width = X.shape[1]
    cdef Py_ssize_t n_blocks = n // P_LANES, block, row
    cdef Py_ssize_t block_size = P_LANES * width  # values
    cdef Py_ssize_t block_bytes = block_size * sizeof(cython.floating)
    cdef size_t base = (<size_t> 1 << top_depth) - 1  # the first slot of the top's bottom
    cdef const cython.floating* x = &X[0, 0]
    cdef const cython.floating* top_t = &top_thresholds[0]
    cdef const uint32_t* top_f = <const uint32_t*> &top_fields[0]
    cdef const int64_t* top_n = &top_nodes[0]
    cdef const double* thr = &thresholds[0]
    cdef const uint32_t* fld = <const uint32_t*> &fields[0]
    cdef const lookup_t* look = &lookup[0]
    cdef lookup_t* o = &out[0]
    cdef const char* ahead
    if n < SERIAL_ROWS:
        for block in range(n_blocks):
            _lookup_block(x + block * block_size, width, top_t, top_f, top_depth, top_n,
                          base, thr, fld, missing, look, o + block * P_LANES, NULL, 0)
    else:
        for block in prange(n_blocks, schedule="static"):
            ahead = NULL
            if block + P_PREFETCH_BLOCKS < n_blocks:
                ahead = <const char*> (x + (block + P_PREFETCH_BLOCKS) * block_size)
            _lookup_block(x + block * block_size, width, top_t, top_f, top_depth, top_n,
                          base, thr, fld, missing, look, o + block * P_LANES, ahead,
                          block_bytes)
    for row in range(n_blocks * P_LANES, n):
        o[row] = _lookup_row(x + row * width, top_t, top_f, top_depth, top_n, base, thr,
                             fld, look)


def numeric_leaf_lookup(X, top_thresholds, top_fields, top_depth, top_nodes, thresholds,
                        fields, missing, lookup, out):
    """Write ``lookup[leaf]`` for the leaf each row of X reaches into ``out``.

    ``lookup`` maps node ids to what the caller wants per row: the id itself (apply) or the
    leaf's class code (predict), or its mean target (float64: a regressor's predict).
    ``missing``: whether X may hold NaN; False (none does) lets the top's steps compare
    without looking for it.
    """
    cdef _Rows rows = _rows(X)
    cdef Py_ssize_t depth = top_depth
    cdef bint may_miss = missing
    cdef const int32_t[::1] top_f
    cdef const int64_t[::1] top_n
    cdef const double[::1] thr
    cdef const int32_t[::1] fld
    cdef const float[::1] top32
    cdef const double[::1] top64
    cdef const int64_t[::1] look_i
    cdef const double[::1] look_f
    cdef int64_t[::1] out_i
    cdef double[::1] out_f
    cdef bint ints
    try:  # the layout's own arrays: viewed as they are
        top_f = top_fields
        top_n = top_nodes
        thr = thresholds
        fld = fields
    except (TypeError, ValueError, BufferError):
        top_f = _c(top_fields, np.int32)
        top_n = _c(top_nodes, np.int64)
        thr = _c(thresholds, np.float64)
        fld = _c(fields, np.int32)
    if rows.n > out.shape[0]:
        raise ValueError("out has fewer entries than X has rows")
    if rows.n == 0:
        return
    # lookup and out: int64 or float64 (another dtype of out: written through a copy)
    target = out
    code = out.dtype.char
    if code == "l" or code == "q":
        ints = True
    elif code == "d":
        ints = False
    else:
        ints = np.asarray(lookup).dtype.kind != "f"
    try:
        if ints:
            out_i = target
        else:
            out_f = target
    except (TypeError, ValueError, BufferError):
        target = np.empty(rows.n, dtype=np.int64 if ints else np.float64)
        if ints:
            out_i = target
        else:
            out_f = target
    try:
        if ints:
            look_i = lookup
        else:
            look_f = lookup
    except (TypeError, ValueError, BufferError):
        if ints:
            look_i = _c(lookup, np.int64)
        else:
            look_f = _c(lookup, np.float64)
    tops = np.asarray(top_thresholds)
    if rows.single and tops.dtype != np.float32:
        # float64 thresholds for float32 rows: the rows are compared in float64
        rows = _rows(np.asarray(X, dtype=np.float64))
    if rows.single:
        top32 = _c(tops, np.float32)
        if ints:
            with nogil:
                _numeric_leaf_lookup(rows.f32, top32, top_f, depth, top_n, thr, fld,
                                     may_miss, look_i, out_i)
        else:
            with nogil:
                _numeric_leaf_lookup(rows.f32, top32, top_f, depth, top_n, thr, fld,
                                     may_miss, look_f, out_f)
    else:
        top64 = _c(tops, np.float64)  # float32 ones are exact in float64
        if ints:
            with nogil:
                _numeric_leaf_lookup(rows.f64, top64, top_f, depth, top_n, thr, fld,
                                     may_miss, look_i, out_i)
        else:
            with nogil:
                _numeric_leaf_lookup(rows.f64, top64, top_f, depth, top_n, thr, fld,
                                     may_miss, look_f, out_f)
    if target is not out:
        out[:rows.n] = target


# -- rpart's routing -----------------------------------------------------------------------
cdef class _RoutingArrays:
    """The arrays of one call, kept alive while the kernel reads their pointers."""
    cdef const int8_t[::1] kind
    cdef const int32_t[::1] feature
    cdef const double[::1] threshold
    cdef const int64_t[::1] child_ptr
    cdef const int32_t[::1] child_ids
    cdef const int64_t[::1] category_ptr
    cdef const int32_t[::1] category_branch
    cdef const int64_t[::1] n_rows
    cdef const uint8_t[::1] category_absent
    cdef const int64_t[::1] sur_ptr
    cdef const int32_t[::1] sur_feature
    cdef const double[::1] sur_cut
    cdef const int8_t[::1] sur_below
    cdef const int64_t[::1] sur_cat_ptr
    cdef const int8_t[::1] sur_cat_branch


cdef _RoutingArrays _routing(Routing* t, kind, feature, threshold, child_ptr, child_ids,
                             category_ptr, category_branch, n_rows, category_absent,
                             sur_ptr, sur_feature, sur_cut, sur_below, sur_cat_ptr,
                             sur_cat_branch, use_surrogates):
    """The arrays' pointers in ``t``; the arrays they point into (kept alive by the
    caller)."""
    cdef _RoutingArrays a = _RoutingArrays.__new__(_RoutingArrays)
    absent = np.ascontiguousarray(category_absent, dtype=np.bool_).view(np.uint8)
    a.category_absent = absent
    try:  # the tree's own arrays: viewed as they are
        a.kind = kind
        a.feature = feature
        a.threshold = threshold
        a.child_ptr = child_ptr
        a.child_ids = child_ids
        a.category_ptr = category_ptr
        a.category_branch = category_branch
        a.n_rows = n_rows
        a.sur_ptr = sur_ptr
        a.sur_feature = sur_feature
        a.sur_cut = sur_cut
        a.sur_below = sur_below
        a.sur_cat_ptr = sur_cat_ptr
        a.sur_cat_branch = sur_cat_branch
    except (TypeError, ValueError, BufferError):  # another dtype or order: converted
        a.kind = _c(kind, np.int8)
        a.feature = _c(feature, np.int32)
        a.threshold = _c(threshold, np.float64)
        a.child_ptr = _c(child_ptr, np.int64)
        a.child_ids = _c(child_ids, np.int32)
        a.category_ptr = _c(category_ptr, np.int64)
        a.category_branch = _c(category_branch, np.int32)
        a.n_rows = _c(n_rows, np.int64)
        a.sur_ptr = _c(sur_ptr, np.int64)
        a.sur_feature = _c(sur_feature, np.int32)
        a.sur_cut = _c(sur_cut, np.float64)
        a.sur_below = _c(sur_below, np.int8)
        a.sur_cat_ptr = _c(sur_cat_ptr, np.int64)
        a.sur_cat_branch = _c(sur_cat_branch, np.int8)
    t.kind = &a.kind[0]
    t.feature = &a.feature[0]
    t.threshold = &a.threshold[0]
    t.child_ptr = &a.child_ptr[0]
    t.child_ids = &a.child_ids[0]
    t.category_ptr = &a.category_ptr[0]
    t.category_branch = &a.category_branch[0]
    t.n_rows = &a.n_rows[0]
    t.category_absent = &a.category_absent[0]
    t.sur_ptr = &a.sur_ptr[0]
    t.sur_feature = &a.sur_feature[0]
    t.sur_cut = &a.sur_cut[0]
    t.sur_below = &a.sur_below[0]
    t.sur_cat_ptr = &a.sur_cat_ptr[0]
    t.sur_cat_branch = &a.sur_cat_branch[0]
    t.use_surrogates = use_surrogates
    return a


cdef inline int64_t _primary_branch(const Routing* t, int64_t node,
                                    const cython.floating* x) noexcept nogil:
    """Branch of the primary split, or STOP when its value is missing or absent."""
    cdef cython.floating v = x[t.feature[node]]
    cdef int64_t code, lo
    if v != v:
        return K_STOP
    if t.kind[node] == K_NUMERIC:
        return 0 if v <= t.threshold[node] else 1
    code = <int64_t> v
    lo = t.category_ptr[node]
    if code < 0 or code >= t.category_ptr[node + 1] - lo or t.category_absent[lo + code]:
        return K_STOP
    return t.category_branch[lo + code]


cdef inline int64_t _surrogate_branch(const Routing* t, int64_t node,
                                      const cython.floating* x) noexcept nogil:
    """Branch given by the first surrogate that applies, or STOP."""
    cdef int64_t s, code, lo, below, side
    cdef cython.floating u
    for s in range(t.sur_ptr[node], t.sur_ptr[node + 1]):
        u = x[t.sur_feature[s]]
        if u != u:
            continue
        below = t.sur_below[s]
        if below >= 0:
            return below if u < t.sur_cut[s] else 1 - below
        code = <int64_t> u
        lo = t.sur_cat_ptr[s]
        if code < 0 or code >= t.sur_cat_ptr[s + 1] - lo:
            continue
        side = t.sur_cat_branch[lo + code]
        if side >= 0:
            return side
    return K_STOP


cdef inline int64_t _route(const Routing* t, int64_t node,
                           const cython.floating* x) noexcept nogil:
    """The child a row moves to from a split node, or STOP (it stays at the node)."""
    cdef int64_t b = _primary_branch(t, node, x)
    cdef int64_t n0, n1
    if b == K_STOP and t.use_surrogates >= 1:
        b = _surrogate_branch(t, node, x)
    if b == K_STOP and t.use_surrogates == 2:
        n0 = t.n_rows[t.child_ids[t.child_ptr[node]]]
        n1 = t.n_rows[t.child_ids[t.child_ptr[node] + 1]]
        if n0 > n1:
            b = 0
        elif n1 > n0:
            b = 1
    if b == K_STOP:
        return K_STOP
    return t.child_ids[t.child_ptr[node] + b]


def next_node(kind, feature, threshold, child_ptr, child_ids, category_ptr, category_branch,
              n_rows, category_absent, sur_ptr, sur_feature, sur_cut, sur_below,
              sur_cat_ptr, sur_cat_branch, use_surrogates, node, x):
    """The child a row moves to from a split node, or STOP (it stays at the node)."""
    cdef Routing t
    cdef const double[::1] row = _c(x, np.float64)  # float32 values compare the same
    keep = _routing(&t, kind, feature, threshold, child_ptr, child_ids, category_ptr,
                    category_branch, n_rows, category_absent, sur_ptr, sur_feature, sur_cut,
                    sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates)
    cdef int64_t at = node
    return _route[double](&t, at, &row[0])


cdef inline int64_t _routed_node(const Routing* t, const cython.floating* x) noexcept nogil:
    """The node where row ``x`` ends: a leaf, or the split where it stopped."""
    cdef int64_t node = 0, child
    while t.kind[node] != K_LEAF:
        child = _route(t, node, x)
        if child == K_STOP:
            break
        node = child
    return node


cdef void _apply_surrogate_rows(const cython.floating[:, ::1] X, const Routing* t,
                                int64_t[:] out_node) noexcept nogil:
    cdef Py_ssize_t i, n = X.shape[0], width = X.shape[1]
    cdef const cython.floating* base = &X[0, 0]
    if n < SERIAL_ROWS:
        for i in range(n):
            out_node[i] = _routed_node(t, base + i * width)
    else:
        for i in prange(n, schedule="static"):
            out_node[i] = _routed_node(t, base + i * width)


def apply_surrogate_rows(X, kind, feature, threshold, child_ptr, child_ids, category_ptr,
                         category_branch, n_rows, category_absent, sur_ptr, sur_feature,
                         sur_cut, sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates,
                         out_node):
    """Write the node (a leaf, or the internal node where it stopped) each row reaches."""
    cdef Routing t
    cdef int64_t[:] out = out_node
    cdef _Rows rows = _rows(X)
    keep = _routing(&t, kind, feature, threshold, child_ptr, child_ids, category_ptr,
                    category_branch, n_rows, category_absent, sur_ptr, sur_feature, sur_cut,
                    sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates)
    if rows.n > out.shape[0]:
        raise ValueError("out_node has fewer entries than X has rows")
    if rows.n == 0:
        return
    if rows.single:
        with nogil:
            _apply_surrogate_rows(rows.f32, &t, out)
    else:
        with nogil:
            _apply_surrogate_rows(rows.f64, &t, out)


cdef int64_t _surrogate_paths(const cython.floating[:, ::1] X, const Routing* t,
                              int64_t[:] out_nodes, int64_t[:] out_ptr) noexcept nogil:
    cdef Py_ssize_t i, n = X.shape[0], width = X.shape[1]
    cdef Py_ssize_t capacity = out_nodes.shape[0]
    cdef int64_t node, child, pos = 0
    cdef const cython.floating* base = &X[0, 0]
    for i in range(n):
        out_ptr[i] = pos
        node = 0
        if pos >= capacity:
            return -1
        out_nodes[pos] = node
        pos += 1
        while t.kind[node] != K_LEAF:
            child = _route(t, node, base + i * width)
            if child == K_STOP:
                break
            node = child
            if pos >= capacity:
                return -1
            out_nodes[pos] = node
            pos += 1
    out_ptr[n] = pos
    return pos


def surrogate_paths(X, kind, feature, threshold, child_ptr, child_ids, category_ptr,
                    category_branch, n_rows, category_absent, sur_ptr, sur_feature, sur_cut,
                    sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates, out_nodes,
                    out_ptr):
    """Nodes visited by each row in CSR form (``out_nodes`` holds n_rows * (depth + 1));
    returns the count used."""
    cdef Routing t
    cdef int64_t[:] nodes = out_nodes
    cdef int64_t[:] ptr = out_ptr
    cdef _Rows rows = _rows(X)
    cdef int64_t used
    keep = _routing(&t, kind, feature, threshold, child_ptr, child_ids, category_ptr,
                    category_branch, n_rows, category_absent, sur_ptr, sur_feature, sur_cut,
                    sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates)
    if ptr.shape[0] < rows.n + 1:
        raise ValueError("out_ptr needs one entry more than X has rows")
    if rows.n == 0:
        ptr[0] = 0
        return 0
    if rows.single:
        with nogil:
            used = _surrogate_paths(rows.f32, &t, nodes, ptr)
    else:
        with nogil:
            used = _surrogate_paths(rows.f64, &t, nodes, ptr)
    if used < 0:
        raise ValueError("out_nodes is too small for the paths of X")
    return used
