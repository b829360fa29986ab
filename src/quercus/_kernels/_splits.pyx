# cython: language_level=3
"""The exact CART classifier's kernels, compiled: impurities and the split proxy, class
weights and counts, the sorted sweep over numeric features (in parallel over features),
categorical subset and ordered splits, random cuts, the stable partition of the presorted
orders, the schema's finite check, the stable radix argsort and the binning of numeric
columns for the histogram splitter.

They compute exactly what the numba build (commit b87f659) did, with the same floating-point
operations in the same order, checked by tests/test_kernel_fixtures.py.

What the callers pass (``splitting/cart.py``, ``hist.py``, ``multi_output.py``,
``regression.py``, ``binning.py``, ``data/schema.py``, ``dask/_worker.py``): C-contiguous
arrays; float64 ``X`` (rows x features) for the split search, float32 or float64 for the
binning and the finite check; int32 class codes; float64 weights; the sorted orders
``order`` (features x rows) and their row segments as int32 or int64; ``features`` as
int64; category counts as int64; category maps as int32; boolean outputs as numpy bools
(read and written as bytes); bins as uint8 or uint16.

numpy's stable argsort (``kind="mergesort"``) orders floats by ``<`` with NaN last, ties
kept in position: a strict weak order, so any stable sort gives its permutation (a merge
sort here).
"""

cimport cython
from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, NAN, isinf, isnan
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from quercus._kernels._common cimport ENTROPY as C_ENTROPY
from quercus._kernels._common cimport GINI as C_GINI
from quercus._kernels._common cimport FEATURE_THRESHOLD as C_FEATURE_THRESHOLD
from quercus._kernels._common cimport NAN_KEY, SIGN_BIT
from quercus._kernels._common cimport impurity_of as _impurity_of
from quercus._kernels._common cimport lsd_sort as _lsd_sort
from quercus._kernels._common cimport midpoint as _c_midpoint
from quercus._kernels._common cimport monotone_ok as _monotone_ok
from quercus._kernels._common cimport sort_keys as _sort_keys
from quercus._kernels._common cimport split_proxy as _split_proxy
from quercus._kernels._common cimport stable_argsort as _stable_argsort

import numpy as np

GINI = 0
ENTROPY = 1
#: Consecutive sorted values closer than this are treated as equal (no cut between them),
#: as scikit-learn's FEATURE_THRESHOLD does.
FEATURE_THRESHOLD = 1e-7
#: Rows x features of a node below which its per-feature kernels run on one thread.
PARALLEL_MIN_WORK = 30_000
#: Up to this many categories present at a node, every subset is evaluated.
MAX_EXHAUSTIVE_CATEGORIES = 10
ROWS_PER_BLOCK = 4096

cdef enum:
    C_MAX_EXHAUSTIVE_CATEGORIES = 10
    C_ROWS_PER_BLOCK = 4096
    STACK_CLASSES = 32  # scratch of the serial sweeps on the stack up to this many classes
    SMALL_SORT = 16  # insertion sort below this size in the merge argsort

ctypedef fused index_t:
    int32_t
    int64_t

ctypedef fused count_t:
    int32_t
    int64_t

ctypedef fused float_t:
    float
    double

ctypedef fused bin_t:
    uint8_t
    uint16_t

ctypedef unsigned char uchar


# -- impurities, the split proxy, monotonic constraints, class weights -----------------------
def impurity_of(class_weights, int criterion):
    """Gini impurity or Shannon entropy (base 2) of one vector of class weights."""
    cdef const double[::1] c
    try:
        c = class_weights
    except Exception:  # another dtype or layout: its float64 copy
        c = np.ascontiguousarray(class_weights, dtype=np.float64)
    return _impurity_of(&c[0], c.shape[0], criterion)


def split_proxy(const double[::1] left, const double[::1] right, double weight_left,
                double weight_right, int criterion):
    """A score that orders candidate splits of one node as their impurity decrease does."""
    if criterion == C_GINI and (weight_left == 0.0 or weight_right == 0.0):
        raise ZeroDivisionError("division by zero")
    return _split_proxy(&left[0], &right[0], left.shape[0], weight_left, weight_right,
                        criterion)


def monotone_ok(const double[::1] left, const double[::1] right, double weight_left,
                double weight_right, double cst, double lower, double upper):
    """Whether a split respects a monotonic constraint ``cst`` on the share of class 1."""
    if weight_left == 0.0 or weight_right == 0.0:
        raise ZeroDivisionError("division by zero")
    return bool(_monotone_ok(&left[0], &right[0], weight_left, weight_right, cst, lower,
                             upper))


cdef inline void _node_class_weights(const int32_t* y, const double* sample_weight,
                                     const index_t* rows, Py_ssize_t n, double* out,
                                     Py_ssize_t n_out) noexcept nogil:
    cdef Py_ssize_t i
    cdef index_t r
    for i in range(n_out):
        out[i] = 0.0
    for i in range(n):
        r = rows[i]
        out[y[r]] += sample_weight[r]


def node_class_weights(const int32_t[::1] y, const double[::1] sample_weight, rows,
                       double[::1] out):
    """Sum the weights of ``rows`` (int32 or int64) per class into ``out`` (zeroed
    first)."""
    cdef const int32_t[::1] r32
    cdef const int64_t[::1] r64
    if rows.itemsize == 4:
        r32 = rows
        with nogil:
            _node_class_weights(&y[0], &sample_weight[0], &r32[0], r32.shape[0], &out[0],
                                out.shape[0])
    else:
        r64 = rows
        with nogil:
            _node_class_weights(&y[0], &sample_weight[0], &r64[0], r64.shape[0], &out[0],
                                out.shape[0])


# -- class counts per node slot, and rows moved down a level (Dask) --------------------------
def add_class_counts(const bin_t[:, ::1] binned, const int32_t[::1] y,
                     const int32_t[::1] hist_index, count_t[:, :, :, ::1] out):
    """out[h, f, b, k] += 1 for every row r with h = hist_index[r] >= 0, b = binned[f, r]
    and k = y[r]."""
    cdef Py_ssize_t n_features = binned.shape[0], n_rows = binned.shape[1], f, r
    cdef int32_t h
    with nogil:
        for f in range(n_features):
            for r in range(n_rows):
                h = hist_index[r]
                if h >= 0:
                    out[h, f, binned[f, r], y[r]] += 1


def advance_slots(int32_t[::1] slots, const bin_t[:, ::1] binned,
                  const int32_t[::1] feature, const uchar[:, ::1] left_bins,
                  const int32_t[::1] left_slot, const int32_t[::1] right_slot):
    """Move each row from its slot to its child's slot at the next level, in place."""
    cdef Py_ssize_t r
    cdef int32_t s, f
    with nogil:
        for r in range(slots.shape[0]):
            s = slots[r]
            if s < 0:
                continue
            f = feature[s]
            if f < 0:
                slots[r] = -1
            elif left_bins[s, binned[f, r]]:
                slots[r] = left_slot[s]
            else:
                slots[r] = right_slot[s]


def descend(int32_t[::1] nodes, const bin_t[:, ::1] binned, const int32_t[::1] feature,
            const uchar[:, ::1] left_bins, const int32_t[::1] left_id,
            const int32_t[::1] right_id):
    """Move each row down from its node through every split of the table, in place."""
    cdef Py_ssize_t r
    cdef int32_t s
    with nogil:
        for r in range(nodes.shape[0]):
            s = nodes[r]
            while feature[s] >= 0:
                s = left_id[s] if left_bins[s, binned[feature[s], r]] else right_id[s]
            nodes[r] = s


# -- the schema's finite check ---------------------------------------------------------------
def count_nonfinite_rows(const float_t[:, ::1] X):
    """The numbers of rows of the matrix X holding an infinite value, and holding NaN."""
    cdef Py_ssize_t n_rows = X.shape[0], n_cols = X.shape[1], i, j
    cdef Py_ssize_t n_inf = 0, n_nan = 0
    cdef bint inf, nan
    cdef const float_t* row
    with nogil:
        for i in prange(n_rows, schedule="static"):
            inf = False
            nan = False
            row = &X[i, 0] if n_cols > 0 else NULL
            for j in range(n_cols):
                inf = inf | (isinf(row[j]) != 0)
                nan = nan | (isnan(row[j]) != 0)
            n_inf += inf
            n_nan += nan
    return n_inf, n_nan


# -- routing, and the stable partition of the presorted orders -------------------------------
cdef inline void _route_numeric(const double* X, Py_ssize_t stride, const index_t* rows,
                                Py_ssize_t n, Py_ssize_t feature, double threshold,
                                bint missing_left, uchar* out_left) noexcept nogil:
    cdef Py_ssize_t i, r
    cdef double v
    for i in range(n):
        r = rows[i]
        v = X[r * stride + feature]
        out_left[r] = missing_left if isnan(v) else v <= threshold


def route_numeric(const double[:, ::1] X, rows, Py_ssize_t feature, double threshold,
                  bint missing_left, uchar[::1] out_left):
    """Flag the rows (int32 or int64) that go left at a numeric split (value <=
    threshold)."""
    cdef const int32_t[::1] r32
    cdef const int64_t[::1] r64
    if rows.itemsize == 4:
        r32 = rows
        with nogil:
            _route_numeric(&X[0, 0], X.shape[1], &r32[0], r32.shape[0], feature, threshold,
                           missing_left, &out_left[0])
    else:
        r64 = rows
        with nogil:
            _route_numeric(&X[0, 0], X.shape[1], &r64[0], r64.shape[0], feature, threshold,
                           missing_left, &out_left[0])


cdef inline void _route_categorical(const double* X, Py_ssize_t stride, const index_t* rows,
                                    Py_ssize_t n, Py_ssize_t feature,
                                    const int32_t* category_branch, bint missing_goes_left,
                                    uchar* out_left) noexcept nogil:
    cdef Py_ssize_t i, r
    cdef double v
    for i in range(n):
        r = rows[i]
        v = X[r * stride + feature]
        if isnan(v):
            out_left[r] = missing_goes_left
        else:
            out_left[r] = category_branch[<Py_ssize_t> v] == 0


def route_categorical(const double[:, ::1] X, rows, Py_ssize_t feature,
                      const int32_t[::1] category_branch, Py_ssize_t missing_branch,
                      uchar[::1] out_left):
    """Flag the rows (int32 or int64) that go left (branch 0) at a categorical subset
    split."""
    cdef const int32_t[::1] r32
    cdef const int64_t[::1] r64
    cdef bint missing_goes_left = missing_branch == 0
    if rows.itemsize == 4:
        r32 = rows
        with nogil:
            _route_categorical(&X[0, 0], X.shape[1], &r32[0], r32.shape[0], feature,
                               &category_branch[0], missing_goes_left, &out_left[0])
    else:
        r64 = rows
        with nogil:
            _route_categorical(&X[0, 0], X.shape[1], &r64[0], r64.shape[0], feature,
                               &category_branch[0], missing_goes_left, &out_left[0])


cdef inline void _partition_feature(index_t* order, index_t* buffer, Py_ssize_t start,
                                    Py_ssize_t end, const uchar* goes_left) noexcept nogil:
    """Stable partition of one feature's ``order[start:end]``: left rows first."""
    cdef Py_ssize_t n_left = start, n_right = 0, p, k
    cdef index_t r
    for p in range(start, end):
        r = order[p]
        if goes_left[r]:
            order[n_left] = r
            n_left += 1
        else:
            buffer[n_right] = r
            n_right += 1
    for k in range(n_right):
        order[n_left + k] = buffer[k]


cdef inline Py_ssize_t _count_left(const index_t* order, Py_ssize_t start, Py_ssize_t end,
                                   const uchar* goes_left) noexcept nogil:
    cdef Py_ssize_t count = 0, p
    for p in range(start, end):
        if goes_left[order[p]]:
            count += 1
    return count


cdef Py_ssize_t _partition_orders(index_t* order, index_t* buffer, Py_ssize_t n_features,
                                  Py_ssize_t width, Py_ssize_t start, Py_ssize_t end,
                                  const uchar* goes_left, bint threads) noexcept nogil:
    cdef Py_ssize_t f
    if threads:
        for f in prange(n_features, schedule="dynamic"):
            _partition_feature(order + f * width, buffer + f * width, start, end, goes_left)
    else:
        for f in range(n_features):
            _partition_feature(order + f * width, buffer + f * width, start, end, goes_left)
    return _count_left(order, start, end, goes_left)


cdef _partition(order, Py_ssize_t start, Py_ssize_t end, const uchar[::1] goes_left, buffer,
                bint threads):
    """``partition_orders`` of int32 or int64 orders (``buffer``: the same shape and
    dtype)."""
    cdef int32_t[:, ::1] o32, b32
    cdef int64_t[:, ::1] o64, b64
    cdef Py_ssize_t count = 0
    if order.itemsize == 4:
        o32 = order
        b32 = buffer
        if o32.shape[0] == 0 or end <= start:
            return 0
        with nogil:
            count = _partition_orders(&o32[0, 0], &b32[0, 0], o32.shape[0], o32.shape[1],
                                      start, end, &goes_left[0], threads)
    else:
        o64 = order
        b64 = buffer
        if o64.shape[0] == 0 or end <= start:
            return 0
        with nogil:
            count = _partition_orders(&o64[0, 0], &b64[0, 0], o64.shape[0], o64.shape[1],
                                      start, end, &goes_left[0], threads)
    return count


def partition_orders(order, Py_ssize_t start, Py_ssize_t end, const uchar[::1] goes_left,
                     buffer):
    """Stable partition of ``order[f, start:end]`` for every f: left rows first (features
    over threads). Returns the number of rows that go left."""
    return _partition(order, start, end, goes_left, buffer, True)


def partition_orders_serial(order, Py_ssize_t start, Py_ssize_t end,
                            const uchar[::1] goes_left, buffer):
    """``partition_orders`` on one thread."""
    return _partition(order, start, end, goes_left, buffer, False)


# -- the sorted sweep over numeric features --------------------------------------------------
def _midpoint(double low, double high):
    """The threshold between two sorted values (``low`` when the mean rounds up to
    ``high`` or overflows)."""
    return _c_midpoint(low, high)


cdef inline Py_ssize_t _trailing_missing(const double* X, Py_ssize_t stride,
                                         const index_t* order_f, Py_ssize_t f,
                                         Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    """How many rows at the end of one feature's ``order_f[start:end]`` are missing."""
    cdef Py_ssize_t n_missing = 0
    while (n_missing < end - start
           and isnan(X[<Py_ssize_t> order_f[end - 1 - n_missing] * stride + f])):
        n_missing += 1
    return n_missing


def trailing_missing(const double[:, ::1] X, order, Py_ssize_t f, Py_ssize_t start,
                     Py_ssize_t end):
    """How many rows at the end of the node's sorted segment ``order[f, start:end]`` have a
    missing value of feature ``f`` (the presort puts NaN last)."""
    cdef const int32_t[:, ::1] o32
    cdef const int64_t[:, ::1] o64
    if end <= start:
        return 0
    if order.itemsize == 4:
        o32 = order
        return _trailing_missing(&X[0, 0], X.shape[1], &o32[f, 0], f, start, end)
    o64 = order
    return _trailing_missing(&X[0, 0], X.shape[1], &o64[f, 0], f, start, end)


cdef void _numeric_split(Py_ssize_t i, const double* X, Py_ssize_t stride, const int32_t* y,
                         const double* sample_weight, const index_t* order,
                         Py_ssize_t order_stride, Py_ssize_t start, Py_ssize_t end,
                         const int64_t* features, Py_ssize_t n_classes, int criterion,
                         Py_ssize_t min_samples_leaf, double min_weight_leaf,
                         const int8_t* monotonic, double lower, double upper,
                         double* out_proxy, double* out_threshold, uchar* out_missing_left,
                         double* scratch) noexcept nogil:
    """Item ``i`` of ``best_numeric_splits`` (``scratch``: 4 x n_classes doubles)."""
    cdef Py_ssize_t f = features[i]
    cdef const index_t* order_f = order + f * order_stride
    cdef double* total = scratch
    cdef double* missing = scratch + n_classes
    cdef double* left = scratch + 2 * n_classes
    cdef double* right = scratch + 3 * n_classes
    cdef Py_ssize_t n = end - start, n_missing, n_known, p, q, k, n_left, n_right
    cdef Py_ssize_t n_passes, pass_index
    cdef double first_value, last_value, best, value, next_value, weight_left, weight_right
    cdef double proxy
    cdef bint missing_left
    cdef Py_ssize_t r
    out_proxy[i] = -INFINITY
    out_threshold[i] = NAN
    out_missing_left[i] = False
    n_missing = _trailing_missing(X, stride, order_f, f, start, end)
    n_known = n - n_missing
    if n_known == 0:
        return
    first_value = X[<Py_ssize_t> order_f[start] * stride + f]
    last_value = X[<Py_ssize_t> order_f[start + n_known - 1] * stride + f]
    if n_missing == 0 and last_value <= first_value + C_FEATURE_THRESHOLD:
        return
    for k in range(n_classes):
        total[k] = 0.0
        missing[k] = 0.0
    for p in range(start, end):
        r = order_f[p]
        total[y[r]] += sample_weight[r]
        if p >= start + n_known:
            missing[y[r]] += sample_weight[r]
    best = -INFINITY
    n_passes = 2 if n_missing > 0 else 1
    for pass_index in range(n_passes):
        missing_left = pass_index == 1
        if missing_left:
            for k in range(n_classes):
                left[k] = missing[k]
            n_left = n_missing
        else:
            for k in range(n_classes):
                left[k] = 0.0
            n_left = 0
        for p in range(n_known):
            r = order_f[start + p]
            left[y[r]] += sample_weight[r]
            n_left += 1
            q = p + 1
            if q < n_known:
                value = X[r * stride + f]
                next_value = X[<Py_ssize_t> order_f[start + q] * stride + f]
                if next_value <= value + C_FEATURE_THRESHOLD:
                    continue
            elif missing_left or n_missing == 0:
                continue  # nothing would go right
            n_right = n - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            weight_left = 0.0
            for k in range(n_classes):
                right[k] = total[k] - left[k]
                weight_left += left[k]
            weight_right = 0.0
            for k in range(n_classes):
                weight_right += right[k]
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if weight_left <= 0.0 or weight_right <= 0.0:
                continue
            if monotonic[f] != 0 and not _monotone_ok(left, right, weight_left, weight_right,
                                                      monotonic[f], lower, upper):
                continue
            proxy = _split_proxy(left, right, n_classes, weight_left, weight_right, criterion)
            if proxy > best:
                best = proxy
                if q == n_known:
                    out_threshold[i] = INFINITY
                else:
                    out_threshold[i] = _c_midpoint(
                        X[r * stride + f], X[<Py_ssize_t> order_f[start + q] * stride + f])
                if n_missing == 0:
                    out_missing_left[i] = n_left > n_right
                else:
                    out_missing_left[i] = missing_left
    out_proxy[i] = best


cdef void _sweep(const double* X, Py_ssize_t stride, const int32_t* y,
                 const double* sample_weight, const index_t* order, Py_ssize_t order_stride,
                 Py_ssize_t start, Py_ssize_t end, const int64_t* features, Py_ssize_t m,
                 Py_ssize_t n_classes, int criterion, Py_ssize_t min_samples_leaf,
                 double min_weight_leaf, const int8_t* monotonic, double lower, double upper,
                 double* out_proxy, double* out_threshold, uchar* out_missing_left,
                 double* scratch, Py_ssize_t scratch_stride, bint threads) noexcept nogil:
    """Every feature's ``_numeric_split``: over threads (``scratch``: a row per feature)
    or on this one (one row)."""
    cdef Py_ssize_t i
    if threads:
        for i in prange(m, schedule="dynamic"):
            _numeric_split(i, X, stride, y, sample_weight, order, order_stride, start, end,
                           features, n_classes, criterion, min_samples_leaf,
                           min_weight_leaf, monotonic, lower, upper, out_proxy,
                           out_threshold, out_missing_left, scratch + i * scratch_stride)
    else:
        for i in range(m):
            _numeric_split(i, X, stride, y, sample_weight, order, order_stride, start, end,
                           features, n_classes, criterion, min_samples_leaf,
                           min_weight_leaf, monotonic, lower, upper, out_proxy,
                           out_threshold, out_missing_left, scratch)


cdef _numeric_splits(const double[:, ::1] X, const int32_t[::1] y,
                     const double[::1] sample_weight, order, Py_ssize_t start,
                     Py_ssize_t end, const int64_t[::1] features, Py_ssize_t n_classes,
                     int criterion, Py_ssize_t min_samples_leaf, double min_weight_leaf,
                     const int8_t[::1] monotonic, double lower, double upper,
                     double[::1] out_proxy, double[::1] out_threshold,
                     uchar[::1] out_missing_left, bint threads):
    cdef Py_ssize_t m = features.shape[0], scratch_stride
    cdef const int32_t[:, ::1] o32
    cdef const int64_t[:, ::1] o64
    cdef double stack[4 * STACK_CLASSES]
    cdef double[::1] heap
    cdef double* scratch = stack
    if m == 0:
        return
    if threads:  # a row per feature, 64 bytes apart: no two threads write to one cache line
        scratch_stride = 4 * n_classes + 8
        heap = np.empty(m * scratch_stride)
        scratch = &heap[0]
    else:
        scratch_stride = 0
        if n_classes > STACK_CLASSES:
            heap = np.empty(4 * n_classes)
            scratch = &heap[0]
    if order.itemsize == 4:
        o32 = order
        with nogil:
            _sweep(&X[0, 0], X.shape[1], &y[0], &sample_weight[0], &o32[0, 0], o32.shape[1],
                   start, end, &features[0], m, n_classes, criterion, min_samples_leaf,
                   min_weight_leaf, &monotonic[0], lower, upper, &out_proxy[0],
                   &out_threshold[0], &out_missing_left[0], scratch, scratch_stride, threads)
    else:
        o64 = order
        with nogil:
            _sweep(&X[0, 0], X.shape[1], &y[0], &sample_weight[0], &o64[0, 0], o64.shape[1],
                   start, end, &features[0], m, n_classes, criterion, min_samples_leaf,
                   min_weight_leaf, &monotonic[0], lower, upper, &out_proxy[0],
                   &out_threshold[0], &out_missing_left[0], scratch, scratch_stride, threads)


def best_numeric_splits(X, y, sample_weight, order, Py_ssize_t start, Py_ssize_t end,
                        features, Py_ssize_t n_classes, int criterion,
                        Py_ssize_t min_samples_leaf, double min_weight_leaf, monotonic,
                        double lower, double upper, out_proxy, out_threshold,
                        out_missing_left):
    """Best cut of ``order[f, start:end]`` (int32 or int64) for each feature ``f`` in
    ``features``, features over threads: every cut between distinct consecutive values,
    the missing rows sent right and then left, plus the cut that sends exactly the missing
    rows right; the first cut (in that order) with the largest proxy wins."""
    _numeric_splits(X, y, sample_weight, order, start, end, features, n_classes, criterion,
                    min_samples_leaf, min_weight_leaf, monotonic, lower, upper, out_proxy,
                    out_threshold, out_missing_left, True)


def best_numeric_splits_serial(X, y, sample_weight, order, Py_ssize_t start, Py_ssize_t end,
                               features, Py_ssize_t n_classes, int criterion,
                               Py_ssize_t min_samples_leaf, double min_weight_leaf,
                               monotonic, double lower, double upper, out_proxy,
                               out_threshold, out_missing_left):
    """``best_numeric_splits`` on one thread (nodes below ``PARALLEL_MIN_WORK``)."""
    _numeric_splits(X, y, sample_weight, order, start, end, features, n_classes, criterion,
                    min_samples_leaf, min_weight_leaf, monotonic, lower, upper, out_proxy,
                    out_threshold, out_missing_left, False)


# -- random cuts -----------------------------------------------------------------------------
cdef void _random_splits(const double* X, Py_ssize_t stride, const int32_t* y,
                         const double* sample_weight, const index_t* order,
                         Py_ssize_t order_stride, Py_ssize_t start, Py_ssize_t end,
                         const int64_t* features, Py_ssize_t m, const double* uniforms,
                         Py_ssize_t n_classes, int criterion, Py_ssize_t min_samples_leaf,
                         double min_weight_leaf, const int8_t* monotonic, double lower,
                         double upper, double* out_proxy, double* out_threshold,
                         uchar* out_missing_left, double* scratch) noexcept nogil:
    cdef double* left = scratch
    cdef double* right = scratch + n_classes
    cdef double* total = scratch + 2 * n_classes
    cdef double* missing = scratch + 3 * n_classes
    cdef double* known_left = scratch + 4 * n_classes
    cdef Py_ssize_t n = end - start, i, f, n_missing, n_known, k, p, n_known_left
    cdef Py_ssize_t n_passes, pass_index, n_left, n_right, r
    cdef const index_t* order_f
    cdef double low, high, threshold, best, weight_left, weight_right, proxy
    cdef bint missing_left
    for i in range(m):
        f = features[i]
        order_f = order + f * order_stride
        out_proxy[i] = -INFINITY
        out_threshold[i] = NAN
        out_missing_left[i] = False
        n_missing = _trailing_missing(X, stride, order_f, f, start, end)
        n_known = n - n_missing
        if n_known == 0:
            continue
        low = X[<Py_ssize_t> order_f[start] * stride + f]
        high = X[<Py_ssize_t> order_f[start + n_known - 1] * stride + f]
        if high <= low + C_FEATURE_THRESHOLD:
            continue
        threshold = low + uniforms[i] * (high - low)
        if threshold >= high:
            threshold = low
        for k in range(n_classes):
            total[k] = 0.0
            missing[k] = 0.0
            known_left[k] = 0.0
        n_known_left = 0
        for p in range(start, end):
            r = order_f[p]
            total[y[r]] += sample_weight[r]
            if p >= start + n_known:
                missing[y[r]] += sample_weight[r]
            elif X[r * stride + f] <= threshold:
                known_left[y[r]] += sample_weight[r]
                n_known_left += 1
        best = -INFINITY
        n_passes = 2 if n_missing > 0 else 1
        for pass_index in range(n_passes):
            missing_left = pass_index == 1
            n_left = n_known_left + (n_missing if missing_left else 0)
            n_right = n - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            weight_left = 0.0
            weight_right = 0.0
            for k in range(n_classes):
                left[k] = known_left[k] + (missing[k] if missing_left else 0.0)
                right[k] = total[k] - left[k]
                weight_left += left[k]
                weight_right += right[k]
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if weight_left <= 0.0 or weight_right <= 0.0:
                continue
            if monotonic[f] != 0 and not _monotone_ok(left, right, weight_left, weight_right,
                                                      monotonic[f], lower, upper):
                continue
            proxy = _split_proxy(left, right, n_classes, weight_left, weight_right, criterion)
            if proxy > best:
                best = proxy
                out_threshold[i] = threshold
                out_missing_left[i] = missing_left if n_missing > 0 else n_left > n_right
        out_proxy[i] = best


def random_numeric_splits(
    const double[:, ::1] X, const int32_t[::1] y, const double[::1] sample_weight,
    order, Py_ssize_t start, Py_ssize_t end, const int64_t[::1] features,
    const double[::1] uniforms, Py_ssize_t n_classes, int criterion,
    Py_ssize_t min_samples_leaf, double min_weight_leaf, const int8_t[::1] monotonic,
    double lower, double upper, double[::1] out_proxy, double[::1] out_threshold,
    uchar[::1] out_missing_left,
):
    """Score one random cut per feature of ``order[f, start:end]`` (int32 or int64): that of
    ``features[i]`` is ``low + uniforms[i] * (high - low)`` between the node's smallest and
    largest known value (``low`` if that lands on ``high``), as scikit-learn draws it, none
    when they are within FEATURE_THRESHOLD; missing values are tried right, then left."""
    cdef Py_ssize_t m = features.shape[0]
    cdef const int32_t[:, ::1] o32
    cdef const int64_t[:, ::1] o64
    cdef double stack[5 * STACK_CLASSES]
    cdef double[::1] heap
    cdef double* scratch = stack
    if m == 0:
        return
    if n_classes > STACK_CLASSES:
        heap = np.empty(5 * n_classes)
        scratch = &heap[0]
    if order.itemsize == 4:
        o32 = order
        with nogil:
            _random_splits(&X[0, 0], X.shape[1], &y[0], &sample_weight[0], &o32[0, 0],
                           o32.shape[1], start, end, &features[0], m, &uniforms[0],
                           n_classes, criterion, min_samples_leaf, min_weight_leaf,
                           &monotonic[0], lower, upper, &out_proxy[0], &out_threshold[0],
                           &out_missing_left[0], scratch)
    else:
        o64 = order
        with nogil:
            _random_splits(&X[0, 0], X.shape[1], &y[0], &sample_weight[0], &o64[0, 0],
                           o64.shape[1], start, end, &features[0], m, &uniforms[0],
                           n_classes, criterion, min_samples_leaf, min_weight_leaf,
                           &monotonic[0], lower, upper, &out_proxy[0], &out_threshold[0],
                           &out_missing_left[0], scratch)


# -- categorical splits: subsets and ordered prefixes ----------------------------------------
def present_codes(const count_t[::1] counts, Py_ssize_t n_codes):
    """The category codes among the first ``n_codes`` with rows at the node, ascending."""
    present = np.empty(n_codes, dtype=np.int64)
    cdef int64_t[::1] out = present
    cdef Py_ssize_t c, m = 0
    for c in range(n_codes):
        if counts[c] > 0:
            out[m] = c
            m += 1
    return present[:m]


cdef inline void _category_class_weights(const double* X, Py_ssize_t stride,
                                         const int32_t* y, const double* sample_weight,
                                         const index_t* rows, Py_ssize_t n,
                                         Py_ssize_t feature, double* out_weights,
                                         Py_ssize_t n_classes, int64_t* out_counts,
                                         Py_ssize_t n_groups,
                                         Py_ssize_t n_weights) noexcept nogil:
    cdef Py_ssize_t missing = n_groups - 1, i, code, r
    cdef double v
    for i in range(n_weights):
        out_weights[i] = 0.0
    for i in range(n_groups):
        out_counts[i] = 0
    for i in range(n):
        r = rows[i]
        v = X[r * stride + feature]
        code = missing if isnan(v) else <Py_ssize_t> v
        out_weights[code * n_classes + y[r]] += sample_weight[r]
        out_counts[code] += 1


def category_class_weights(const double[:, ::1] X, const int32_t[::1] y,
                           const double[::1] sample_weight, rows, Py_ssize_t feature,
                           double[:, ::1] out_weights, int64_t[::1] out_counts):
    """Class weights and row counts per category code of ``rows`` (int32 or int64); the
    last row holds missing values."""
    cdef const int32_t[::1] r32
    cdef const int64_t[::1] r64
    if out_counts.shape[0] == 0:
        return
    if rows.itemsize == 4:
        r32 = rows
        with nogil:
            _category_class_weights(&X[0, 0], X.shape[1], &y[0], &sample_weight[0], &r32[0],
                                    r32.shape[0], feature, &out_weights[0, 0],
                                    out_weights.shape[1], &out_counts[0], out_counts.shape[0],
                                    out_weights.shape[0] * out_weights.shape[1])
    else:
        r64 = rows
        with nogil:
            _category_class_weights(&X[0, 0], X.shape[1], &y[0], &sample_weight[0], &r64[0],
                                    r64.shape[0], feature, &out_weights[0, 0],
                                    out_weights.shape[1], &out_counts[0], out_counts.shape[0],
                                    out_weights.shape[0] * out_weights.shape[1])


cdef inline bint _lt(double a, double b) noexcept nogil:
    """numpy's sort order of floats: ``<``, NaN after every number."""
    return a < b or (isnan(b) and not isnan(a))


cdef void _merge_argsort(int64_t* arr, Py_ssize_t size, const double* vals,
                         int64_t* ws) noexcept nogil:
    """Stable sort of the positions ``arr[:size]`` by ``vals`` (``ws``: size // 2 + 1)."""
    cdef Py_ssize_t mid, i, j, k
    cdef int64_t t
    if size <= SMALL_SORT:
        for i in range(1, size):
            t = arr[i]
            j = i
            while j > 0 and _lt(vals[t], vals[arr[j - 1]]):
                arr[j] = arr[j - 1]
                j -= 1
            arr[j] = t
        return
    mid = size // 2
    _merge_argsort(arr, mid, vals, ws)
    _merge_argsort(arr + mid, size - mid, vals, ws)
    for i in range(mid):
        ws[i] = arr[i]
    i = 0
    j = mid
    k = 0
    while i < mid and j < size:
        if _lt(vals[arr[j]], vals[ws[i]]):
            arr[k] = arr[j]
            j += 1
        else:
            arr[k] = ws[i]
            i += 1
        k += 1
    while i < mid:
        arr[k] = ws[i]
        i += 1
        k += 1


cdef double _evaluate(const uchar* goes_left, const int64_t* present, Py_ssize_t m,
                      const double* weights, Py_ssize_t n_classes, const int64_t* counts,
                      Py_ssize_t n_missing_code, bint missing_left, int criterion,
                      Py_ssize_t min_samples_leaf, double min_weight_leaf, double* left,
                      double* right, int64_t* out_n) noexcept nogil:
    """Proxy of the split that sends the present categories flagged in goes_left left
    (``out_n``: n_left, n_right)."""
    cdef Py_ssize_t j, k, c
    cdef int64_t n_left = 0, n_right = 0
    cdef double weight_left, weight_right
    cdef const double* row
    for k in range(n_classes):
        left[k] = 0.0
        right[k] = 0.0
    for j in range(m):
        c = present[j]
        row = weights + c * n_classes
        if goes_left[j]:
            for k in range(n_classes):
                left[k] += row[k]
            n_left += counts[c]
        else:
            for k in range(n_classes):
                right[k] += row[k]
            n_right += counts[c]
    row = weights + n_missing_code * n_classes
    if missing_left:
        for k in range(n_classes):
            left[k] += row[k]
        n_left += counts[n_missing_code]
    else:
        for k in range(n_classes):
            right[k] += row[k]
        n_right += counts[n_missing_code]
    out_n[0] = n_left
    out_n[1] = n_right
    if n_left < min_samples_leaf or n_right < min_samples_leaf:
        return -INFINITY
    weight_left = 0.0
    for k in range(n_classes):
        weight_left += left[k]
    weight_right = 0.0
    for k in range(n_classes):
        weight_right += right[k]
    if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
        return -INFINITY
    if weight_left <= 0.0 or weight_right <= 0.0:
        return -INFINITY
    return _split_proxy(left, right, n_classes, weight_left, weight_right, criterion)


cdef double _proxy_with_missing(const double* left, const double* right, int64_t n_left,
                                int64_t n_right, const double* missing_weights,
                                int64_t n_missing, bint missing_left, Py_ssize_t n_classes,
                                int criterion, Py_ssize_t min_samples_leaf,
                                double min_weight_leaf, double* side_l,
                                double* side_r) noexcept nogil:
    """Proxy of a split given its present-category sides, adding the missing rows to one."""
    cdef Py_ssize_t c
    cdef double weight_left, weight_right
    for c in range(n_classes):
        side_l[c] = left[c] + missing_weights[c] if missing_left else left[c]
        side_r[c] = right[c] if missing_left else right[c] + missing_weights[c]
    if missing_left:
        n_left += n_missing
    else:
        n_right += n_missing
    if n_left < min_samples_leaf or n_right < min_samples_leaf:
        return -INFINITY
    weight_left = 0.0
    for c in range(n_classes):
        weight_left += side_l[c]
    weight_right = 0.0
    for c in range(n_classes):
        weight_right += side_r[c]
    if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
        return -INFINITY
    if weight_left <= 0.0 or weight_right <= 0.0:
        return -INFINITY
    return _split_proxy(side_l, side_r, n_classes, weight_left, weight_right, criterion)


cdef double _best_ordered_prefix(const int64_t* present, Py_ssize_t m, const double* weights,
                                 Py_ssize_t n_classes, const int64_t* counts,
                                 Py_ssize_t n_missing_code, int64_t n_missing,
                                 Py_ssize_t passes, int criterion,
                                 Py_ssize_t min_samples_leaf, double min_weight_leaf,
                                 uchar* out_best_left, int64_t* out_n, bint* out_missing_left,
                                 double* floats, int64_t* ints) noexcept nogil:
    """Breiman's ordered search: for each class, every prefix of the present categories
    sorted by its share tried as the left side (weights from prefix and suffix sums, so an
    empty side weighs exactly 0). Returns the proxy; ``out_n``: (n_left, n_right); flags
    the best prefix's categories. ``floats``: m + (m + 1) * n_classes + 3 * n_classes;
    ``ints``: (m + 1) + 3 * m + 1."""
    cdef double* share = floats
    cdef double* suffix = share + m
    cdef double* left = suffix + (m + 1) * n_classes
    cdef double* side_l = left + n_classes
    cdef double* side_r = side_l + n_classes
    cdef int64_t* suffix_count = ints
    cdef int64_t* order = suffix_count + (m + 1)
    cdef int64_t* best_order = order + m
    cdef int64_t* ws = best_order + m
    cdef const double* missing_weights = weights + n_missing_code * n_classes
    cdef int64_t missing_count = counts[n_missing_code]
    cdef double best = -INFINITY, total, proxy
    cdef bint best_missing_left = False, found, missing_left
    cdef int64_t best_n_left = 0, best_n_right = 0, n_left, n_right
    cdef Py_ssize_t best_prefix = 0, k, target, j, c, kk, pass_index, last_prefix, prefix
    cdef const double* row
    for j in range((m + 1) * n_classes):
        suffix[j] = 0.0
    for j in range(m + 1):
        suffix_count[j] = 0
    for j in range(m):
        best_order[j] = j
    for k in range(1 if n_classes == 2 else n_classes):
        target = 1 if n_classes == 2 else k
        for j in range(m):
            c = present[j]
            row = weights + c * n_classes
            total = 0.0
            for kk in range(n_classes):
                total += row[kk]
            share[j] = row[target] / total if total > 0 else 0.0
        for j in range(m):
            order[j] = j
        _merge_argsort(order, m, share, ws)
        for j in range(m - 1, -1, -1):
            c = present[order[j]]
            row = weights + c * n_classes
            for kk in range(n_classes):
                suffix[j * n_classes + kk] = suffix[(j + 1) * n_classes + kk] + row[kk]
            suffix_count[j] = suffix_count[j + 1] + counts[c]
        found = False
        for pass_index in range(passes):
            missing_left = pass_index == 1
            last_prefix = m if (n_missing > 0 and not missing_left) else m - 1
            for kk in range(n_classes):
                left[kk] = 0.0
            n_left = 0
            for prefix in range(1, last_prefix + 1):
                c = present[order[prefix - 1]]
                row = weights + c * n_classes
                for kk in range(n_classes):
                    left[kk] += row[kk]
                n_left += counts[c]
                n_right = suffix_count[prefix]
                proxy = _proxy_with_missing(left, suffix + prefix * n_classes, n_left,
                                            n_right, missing_weights, missing_count,
                                            missing_left, n_classes, criterion,
                                            min_samples_leaf, min_weight_leaf, side_l, side_r)
                if proxy > best:
                    best = proxy
                    best_missing_left = missing_left
                    best_n_left = n_left + (missing_count if missing_left else 0)
                    best_n_right = n_right + (0 if missing_left else missing_count)
                    best_prefix = prefix
                    found = True
        if found:
            memcpy(best_order, order, m * sizeof(int64_t))
    for j in range(m):
        out_best_left[j] = False
    for j in range(best_prefix):
        out_best_left[best_order[j]] = True
    out_n[0] = best_n_left
    out_n[1] = best_n_right
    out_missing_left[0] = best_missing_left
    return best


def best_subset_split(const double[:, ::1] weights, const int64_t[::1] counts, int criterion,
                      Py_ssize_t min_samples_leaf, double min_weight_leaf,
                      int32_t[::1] out_branch):
    """Best subset split from per-category class weights (``category_class_weights``):
    ``out_branch`` gets 0 (left) or 1 (right) per category code, absent categories following
    the larger side. Returns ``(proxy, missing_left)``, proxy -inf when no valid split."""
    cdef Py_ssize_t n_codes = counts.shape[0] - 1
    cdef Py_ssize_t n_classes = weights.shape[1]
    cdef int64_t n_missing = counts[n_codes]
    cdef Py_ssize_t m = 0, c, j, passes, pass_index, last_mask, mask, n_masks
    cdef double best = -INFINITY, proxy
    cdef bint best_missing_left = False, missing_left
    cdef int64_t best_n_left = 0, best_n_right = 0
    cdef int64_t n_pair[2]
    cdef int32_t absent_branch
    cdef Py_ssize_t n_floats, n_ints
    cdef const double* w = &weights[0, 0]
    cdef int64_t* present = NULL
    cdef int64_t* ints = NULL
    cdef double* floats = NULL
    cdef uchar* flags = NULL
    cdef uchar* goes_left
    cdef uchar* best_left
    n_floats = n_codes + (n_codes + 1) * n_classes + 3 * n_classes + 2 * n_classes + 1
    n_ints = n_codes + (n_codes + 1) + 3 * n_codes + 1
    present = <int64_t*> malloc((n_codes + 1) * sizeof(int64_t))
    ints = <int64_t*> malloc(n_ints * sizeof(int64_t))
    floats = <double*> malloc(n_floats * sizeof(double))
    flags = <uchar*> malloc(2 * n_codes + 2)
    if present == NULL or ints == NULL or floats == NULL or flags == NULL:
        free(present)
        free(ints)
        free(floats)
        free(flags)
        raise MemoryError()
    try:
        with nogil:
            for c in range(n_codes):
                if counts[c] > 0:
                    present[m] = c
                    m += 1
            goes_left = flags
            best_left = flags + m + 1
            for j in range(m):
                goes_left[j] = False
                best_left[j] = False
            passes = 2 if n_missing > 0 else 1
            if m <= C_MAX_EXHAUSTIVE_CATEGORIES:
                n_masks = (<Py_ssize_t> 1) << (m - 1 if m > 1 else 0)
                for pass_index in range(passes):
                    missing_left = pass_index == 1
                    last_mask = n_masks if (n_missing > 0 and not missing_left) else n_masks - 1
                    for mask in range(1, last_mask + 1):
                        if mask == n_masks:
                            for j in range(m):
                                goes_left[j] = True
                        else:
                            for j in range(m):
                                goes_left[j] = ((mask >> j) & 1) == 1
                        proxy = _evaluate(goes_left, present, m, w, n_classes, &counts[0],
                                          n_codes, missing_left, criterion, min_samples_leaf,
                                          min_weight_leaf, floats, floats + n_classes, n_pair)
                        if proxy > best:
                            best = proxy
                            memcpy(best_left, goes_left, m)
                            best_missing_left = missing_left
                            best_n_left = n_pair[0]
                            best_n_right = n_pair[1]
            else:
                best = _best_ordered_prefix(present, m, w, n_classes, &counts[0], n_codes,
                                            n_missing, passes, criterion, min_samples_leaf,
                                            min_weight_leaf, best_left, n_pair,
                                            &best_missing_left, floats, ints)
                best_n_left = n_pair[0]
                best_n_right = n_pair[1]
            absent_branch = 0 if best_n_left > best_n_right else 1
            for c in range(out_branch.shape[0]):
                out_branch[c] = absent_branch
            for j in range(m):
                out_branch[present[j]] = 0 if best_left[j] else 1
            if n_missing == 0:
                best_missing_left = best_n_left > best_n_right
    finally:
        free(present)
        free(ints)
        free(floats)
        free(flags)
    return best, bool(best_missing_left)


# -- radix sorts and the stable argsort ------------------------------------------------------
def sort_keys(values):
    """Unsigned keys in the order of the values: NaN largest, -0.0 as 0.0."""
    cdef const double[::1] v = np.ascontiguousarray(values, dtype=np.float64)
    keys = np.empty(v.shape[0], dtype=np.uint64)
    cdef uint64_t[::1] k = keys
    if v.shape[0]:
        with nogil:
            _sort_keys(&v[0], v.shape[0], &k[0])
    return keys


def lsd_sort(keys, order):
    """Sort ``keys`` by LSD radix, and ``order`` alongside when it has their length (empty:
    the keys alone). Returns the sorted ``(keys, order)`` (copies: the inputs are left as
    they are)."""
    sorted_keys = np.array(keys, dtype=np.uint64, copy=True)
    sorted_order = np.array(order, dtype=np.int64, copy=True)
    cdef uint64_t[::1] k = sorted_keys
    cdef int64_t[::1] o = sorted_order
    cdef Py_ssize_t n = k.shape[0]
    cdef bint carry = o.shape[0] == n
    cdef int status = 0
    if n:
        with nogil:
            status = _lsd_sort(&k[0], &o[0] if carry else NULL, n, carry)
        if status != 0:
            raise MemoryError()
    return sorted_keys, sorted_order


def stable_argsort(values):
    """Positions of ``values`` in stable sorted order (missing values last)."""
    cdef const double[::1] v = np.ascontiguousarray(values, dtype=np.float64)
    out = np.empty(v.shape[0], dtype=np.int64)
    cdef int64_t[::1] o = out
    cdef int status = 0
    if v.shape[0]:
        with nogil:
            status = _stable_argsort(&v[0], v.shape[0], &o[0])
        if status != 0:
            raise MemoryError()
    return out


cdef int _column_order(const double* X, Py_ssize_t n, Py_ssize_t width, Py_ssize_t f,
                       index_t* out) noexcept nogil:
    """``out[:n]``: the stable sorted order of column f of the row-major X (n rows of
    ``width``). Returns -1 when out of memory."""
    cdef double* column = <double*> malloc(n * sizeof(double))
    cdef int64_t* order = <int64_t*> malloc(n * sizeof(int64_t))
    cdef Py_ssize_t i
    cdef int status = -1
    if column != NULL and order != NULL:
        for i in range(n):
            column[i] = X[i * width + f]
        status = _stable_argsort(column, n, order)
        if status == 0:
            for i in range(n):
                out[i] = <index_t> order[i]
    free(column)
    free(order)
    return status


def argsort_columns(const double[:, ::1] X, index_t[:, ::1] out):
    """``out[f] = np.argsort(X[:, f], kind="stable")`` for every column f of X (NaN last,
    -0.0 equal to 0.0): the exact splitter's presorted orders, by radix sort, a column per
    OpenMP thread (one thread below ``PARALLEL_MIN_WORK`` values)."""
    cdef Py_ssize_t n = X.shape[0], m = X.shape[1], f
    if out.shape[0] != m or out.shape[1] != n:
        raise ValueError("out must have shape (columns, rows) of X")
    if n == 0 or m == 0:
        return
    status = np.zeros(m, dtype=np.int32)
    cdef int32_t[::1] st = status
    cdef int threads = 1 if n * m < PARALLEL_MIN_WORK or m == 1 else 0
    with nogil:
        if threads == 1:
            for f in range(m):
                st[f] = _column_order(&X[0, 0], n, m, f, &out[f, 0])
        else:
            for f in prange(m, schedule="dynamic"):
                st[f] = _column_order(&X[0, 0], n, m, f, &out[f, 0])
    if (status != 0).any():
        raise MemoryError()


# -- binning: rows to bins, sample columns, sorted distinct values ---------------------------
cdef inline Py_ssize_t _bin_of(double v, const double* edges, Py_ssize_t lo,
                               Py_ssize_t n_edges, double low, double scale, double top,
                               const int32_t* grid, Py_ssize_t steps) noexcept nogil:
    """The number of edges ``edges[lo:lo + n_edges]`` below v (v not NaN)."""
    cdef double x
    cdef Py_ssize_t b, s, first, count, half, cell
    if steps > 0:
        x = (v - low) * scale  # NaN for an infinite v on a grid of no width: cell 0
        if x > 0.0:
            x = x if x < top else top  # Python's min(x, top): the first unless top is less
        else:
            x = 0.0
        cell = <Py_ssize_t> x - 1
        b = lo + grid[cell if cell > 0 else 0]
        for s in range(steps):
            b += edges[b] < v
        return b - lo
    first = lo
    count = n_edges
    while count > 0:
        half = count >> 1
        if edges[first + half] < v:
            first += half + 1
            count -= half + 1
        else:
            count = half
    return first - lo


cdef inline void _bin_run(const float_t* column, Py_ssize_t step, Py_ssize_t start,
                          Py_ssize_t end, const double* edges, Py_ssize_t lo,
                          Py_ssize_t n_edges, double low, double scale, const int32_t* grid,
                          Py_ssize_t cells, Py_ssize_t steps, bint categorical,
                          Py_ssize_t missing_bin, bin_t* out) noexcept nogil:
    """Bins of ``column[start:end]`` (every ``step``-th value) into ``out[start:end]``."""
    cdef double top = cells - 1.0
    cdef Py_ssize_t r
    cdef float_t v
    if categorical:
        for r in range(start, end):
            v = column[r * step]
            out[r] = <bin_t> (missing_bin if isnan(v) else <int64_t> v)
        return
    for r in range(start, end):
        v = column[r * step]
        if isnan(v):
            out[r] = <bin_t> missing_bin
        else:
            out[r] = <bin_t> _bin_of(v, edges, lo, n_edges, low, scale, top, grid, steps)


def bin_columns(const float_t[:, ::1] X, const double[::1] edges,
                const int64_t[::1] edge_start, const int64_t[::1] n_edges,
                const double[::1] grid_low, const double[::1] grid_scale,
                const int32_t[:, ::1] grid_start, const int64_t[::1] steps,
                const uchar[::1] categorical, Py_ssize_t missing_bin, bin_t[:, ::1] out):
    """out[f, r] = bin of X[r, f]: the number of edges below the value (value <= edges[j]
    falls in bin j), ``missing_bin`` for NaN; feature f's edges are ``edges[edge_start[f]:
    edge_start[f] + n_edges[f]]``, its grid (``binning.bin_layout``) finds a value's
    neighbourhood; a categorical feature's code is its bin. X is row-major, rows in blocks
    over threads."""
    cdef Py_ssize_t n_rows = X.shape[0], n_features = X.shape[1]
    cdef Py_ssize_t n_blocks = (n_rows + C_ROWS_PER_BLOCK - 1) // C_ROWS_PER_BLOCK
    cdef Py_ssize_t cells = grid_start.shape[1], block, start, end, f
    cdef const double* e = &edges[0] if edges.shape[0] else NULL
    cdef const int32_t* grid = &grid_start[0, 0] if grid_start.shape[0] * cells else NULL
    if n_rows == 0 or n_features == 0:
        return
    with nogil:
        for block in prange(n_blocks, schedule="static"):
            start = block * C_ROWS_PER_BLOCK
            end = start + C_ROWS_PER_BLOCK
            if end > n_rows:
                end = n_rows
            for f in range(n_features):
                _bin_run(&X[0, f], n_features, start, end, e, edge_start[f], n_edges[f],
                         grid_low[f], grid_scale[f], grid + f * cells, cells, steps[f],
                         categorical[f], missing_bin, &out[f, 0])


def bin_columns_t(const float_t[:, ::1] Xt, const double[::1] edges,
                  const int64_t[::1] edge_start, const int64_t[::1] n_edges,
                  const double[::1] grid_low, const double[::1] grid_scale,
                  const int32_t[:, ::1] grid_start, const int64_t[::1] steps,
                  const uchar[::1] categorical, Py_ssize_t missing_bin, bin_t[:, ::1] out):
    """``bin_columns`` of a column-major matrix: ``Xt[f]`` holds feature f's values."""
    cdef Py_ssize_t n_features = Xt.shape[0], n_rows = Xt.shape[1]
    cdef Py_ssize_t n_blocks = (n_rows + C_ROWS_PER_BLOCK - 1) // C_ROWS_PER_BLOCK
    cdef Py_ssize_t cells = grid_start.shape[1], task, start, end, f
    cdef const double* e = &edges[0] if edges.shape[0] else NULL
    cdef const int32_t* grid = &grid_start[0, 0] if grid_start.shape[0] * cells else NULL
    if n_rows == 0 or n_features == 0:
        return
    with nogil:
        for task in prange(n_features * n_blocks, schedule="static"):
            f = task // n_blocks
            start = (task % n_blocks) * C_ROWS_PER_BLOCK
            end = start + C_ROWS_PER_BLOCK
            if end > n_rows:
                end = n_rows
            _bin_run(&Xt[f, 0], 1, start, end, e, edge_start[f], n_edges[f], grid_low[f],
                     grid_scale[f], grid + f * cells, cells, steps[f], categorical[f],
                     missing_bin, &out[f, 0])


def sample_columns(const float_t[:, ::1] X, const int64_t[::1] rows,
                   const int64_t[::1] features, double[:, ::1] out):
    """out[j, i] = X[rows[i], features[j]]: the sampled rows' columns, each contiguous."""
    cdef Py_ssize_t n = rows.shape[0], m = features.shape[0]
    cdef Py_ssize_t n_blocks = (n + C_ROWS_PER_BLOCK - 1) // C_ROWS_PER_BLOCK
    cdef Py_ssize_t block, i, j, stop
    cdef int64_t r
    if n == 0 or m == 0:
        return
    with nogil:
        for block in prange(n_blocks, schedule="static"):
            stop = (block + 1) * C_ROWS_PER_BLOCK
            if stop > n:
                stop = n
            for i in range(block * C_ROWS_PER_BLOCK, stop):
                r = rows[i]
                for j in range(m):
                    out[j, i] = X[r, features[j]]


cdef int64_t _sorted_distinct_column(const double* column, Py_ssize_t n,
                                     double* out) noexcept nogil:
    """``sorted_distinct`` of one column: the count, -1 when it holds -0.0, -2 when out of
    memory."""
    cdef const uint64_t* bits = <const uint64_t*> column
    cdef uint64_t* keys
    cdef uint64_t key, value
    cdef Py_ssize_t i
    cdef int64_t m = 0
    for i in range(n):
        if bits[i] == SIGN_BIT:
            return -1
    keys = <uint64_t*> malloc((n if n > 0 else 1) * sizeof(uint64_t))
    if keys == NULL:
        return -2
    _sort_keys(column, n, keys)
    if _lsd_sort(keys, NULL, n, False) != 0:
        free(keys)
        return -2
    for i in range(n):
        key = keys[i]
        if key == NAN_KEY:
            break
        if m == 0 or key != keys[i - 1]:  # back from the order-keeping key to the float
            value = key ^ SIGN_BIT if key >= SIGN_BIT else ~key
            memcpy(&out[m], &value, 8)
            m += 1
    free(keys)
    return m


def sorted_distinct(const double[:, ::1] columns, double[:, ::1] out, int64_t[::1] counts):
    """For each row f of ``columns``: its distinct values other than NaN, increasing, in
    ``out[f, :counts[f]]``; a column holding -0.0 gets ``counts[f] = -1`` (which
    of two equal zeros ``np.unique`` keeps depends on numpy's sort: the caller asks numpy)."""
    cdef Py_ssize_t n_columns = columns.shape[0], n = columns.shape[1], f
    if n_columns == 0:
        return
    if n == 0:
        for f in range(n_columns):
            counts[f] = 0
        return
    with nogil:
        for f in prange(n_columns, schedule="dynamic"):
            counts[f] = _sorted_distinct_column(&columns[f, 0], n, &out[f, 0])
    for f in range(n_columns):
        if counts[f] == -2:
            raise MemoryError()
