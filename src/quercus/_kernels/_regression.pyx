# cython: language_level=3
"""The regression trees' exact split search, compiled: node statistics, the squared-error /
Poisson sweep, the absolute-error sweep over target ranks, and the categorical splits
(mean-ordered prefixes, absolute-error subsets, Poisson subsets).

They compute exactly what the numba build (commit b87f659) did, with the same floating-point
operations in the same order, checked by tests/test_kernel_fixtures.py.

The callers (``splitting/regression.py``, ``regression_losses.py``, ``hist_regression.py``)
pass C-contiguous arrays: float64 ``X`` (rows x features), targets and weights; the sorted
orders ``order`` (features x rows) and their row segments as int32 or int64; ``features``
and ranks as int64; category counts as int64; boolean outputs as numpy bools; category maps
as int32.

numpy's stable argsort (``kind="mergesort"``) orders floats by ``<`` with NaN last, ties
kept in position: a strict weak order, so any stable sort gives its permutation; small
arrays are merge-sorted here, large ones radix-sorted (``_common.stable_argsort``).

The one float division here that nothing guards (``node_poisson_stats``' mean) raises
``ZeroDivisionError`` on a zero divisor, as Python's division does.
"""

from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)
from cython.parallel cimport prange
from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, NAN, fabs, isnan, log
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from quercus._kernels._common cimport FEATURE_THRESHOLD, midpoint, stable_argsort
from quercus._kernels._common cimport squared_error as _squared_error

import numpy as np

# The weighted-median descents of ``_prefix_abs_errors`` branch on float comparisons; GCC
# turns those branches into selects, a chain of dependent loads 1.3x slower here than
# the branches. An empty volatile asm in the taken branch keeps it a branch.
cdef extern from *:
    """
    #if defined(__GNUC__) && !defined(__clang__)
    #define QUERCUS_KEEP_BRANCH() __asm__ __volatile__("")
    #else
    #define QUERCUS_KEEP_BRANCH() ((void) 0)
    #endif
    """
    void keep_branch "QUERCUS_KEEP_BRANCH" () noexcept nogil

SQUARED_ERROR = 0
POISSON = 1
EPSILON = float(np.finfo(np.float64).eps)
#: A categorical feature whose node holds at most this many groups (categories present,
#: plus the missing rows) is split by the best of all its subsets; beyond, by the best
#: prefix of the groups ordered by weighted median.
MAX_EXHAUSTIVE_GROUPS = 10

cdef enum:
    C_POISSON = 1
    C_MAX_EXHAUSTIVE_GROUPS = 10
    SMALL_MERGESORT = 20  # numpy's mergesort's insertion-sort size
    RADIX_MIN = 1024  # from this many values the radix argsort is the faster

ctypedef fused index_t:
    int32_t
    int64_t

ctypedef unsigned char uchar


# -- the arrays of a call: buffers taken straight from numpy -------------------------------
# A typed memoryview costs ~0.2 us per argument (an object made and freed); the kernels
# called once per node take their arrays' buffers directly instead, checked as Cython's
# memoryviews check them: C-contiguous, the dimensions and the item type.
cdef enum:
    F64 = 0  # float64
    INDEX = 1  # int32 or int64 (the caller looks at the item size)
    I64 = 2
    I32 = 3
    BOOL = 4  # numpy bool (or uint8)
    MAX_HELD = 12

cdef struct Held:
    Py_buffer views[MAX_HELD]
    int count

cdef int _one = 1
cdef bint LITTLE_ENDIAN = (<char*> &_one)[0] == 1


cdef bint _item_ok(const char* fmt, Py_ssize_t itemsize, int kind) noexcept:
    cdef char c
    if fmt == NULL:
        c = b'B'
    else:
        if fmt[0] == b'@' or fmt[0] == b'=' or (fmt[0] == b'<' and LITTLE_ENDIAN):
            fmt += 1
        c = fmt[0]
        if c == 0 or fmt[1] != 0:
            return False
    if kind == F64:
        return c == b'd' and itemsize == 8
    if kind == BOOL:
        return (c == b'?' or c == b'B') and itemsize == 1
    if not (c == b'i' or c == b'l' or c == b'q' or c == b'n'):
        return False
    if kind == I64:
        return itemsize == 8
    if kind == I32:
        return itemsize == 4
    return itemsize == 4 or itemsize == 8


cdef Py_buffer* _take(Held* held, object obj, int kind, int ndim,
                      bint writable) except NULL:
    """The buffer of ``obj`` (released by ``_release``), checked."""
    cdef Py_buffer* view = &held.views[held.count]
    cdef int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT
    if writable:
        flags |= PyBUF_WRITABLE
    PyObject_GetBuffer(obj, view, flags)
    held.count += 1
    if view.ndim != ndim:
        raise ValueError(f"Buffer has wrong number of dimensions (expected {ndim}, "
                         f"got {view.ndim})")
    if not _item_ok(view.format, view.itemsize, kind):
        raise ValueError(f"Buffer dtype mismatch (kind {kind}, got "
                         f"{'B' if view.format == NULL else view.format.decode()!r} of "
                         f"{view.itemsize} bytes)")
    return view


cdef double* _out3(Held* held, object out) except NULL:
    """A node statistics' output: three float64 entries at least."""
    cdef Py_buffer* view = _take(held, out, F64, 1, True)
    if view.shape[0] < 3:
        raise IndexError("the output needs 3 entries")
    return <double*> view.buf


cdef inline void _release(Held* held) noexcept:
    cdef int k
    for k in range(held.count):
        PyBuffer_Release(&held.views[k])
    held.count = 0


# -- stable argsort of float64 values (kind="mergesort") ---------------------------------
cdef inline bint _lt(double a, double b) noexcept nogil:
    """numpy's sort order of floats: ``<``, NaN after every number."""
    return a < b or (isnan(b) and not isnan(a))


cdef void _merge_argsort(int64_t* arr, Py_ssize_t size, const double* vals,
                         int64_t* ws) noexcept nogil:
    """Stable sort of the positions ``arr[:size]`` by ``vals`` (``ws``: size // 2)."""
    cdef Py_ssize_t mid, i, j, k
    cdef int64_t t
    cdef double v
    if size > SMALL_MERGESORT:
        mid = size // 2
        _merge_argsort(arr, mid, vals, ws)
        _merge_argsort(arr + mid, size - mid, vals, ws)
        for i in range(mid):
            ws[i] = arr[i]
        i = 0
        j = mid
        k = 0
        while i < mid and j < size:
            if not _lt(vals[arr[j]], vals[ws[i]]):
                arr[k] = ws[i]
                i += 1
            else:
                arr[k] = arr[j]
                j += 1
            k += 1
        while i < mid:
            arr[k] = ws[i]
            i += 1
            k += 1
    else:  # insertion sort, shifting the larger entries up
        for i in range(1, size):
            t = arr[i]
            v = vals[t]
            j = i
            while j > 0 and _lt(v, vals[arr[j - 1]]):
                arr[j] = arr[j - 1]
                j -= 1
            arr[j] = t


cdef int _argsort(const double* vals, Py_ssize_t n, int64_t* out) noexcept nogil:
    """``out[:n]``: ``np.argsort(vals[:n], kind="mergesort")``; -1 when out of memory."""
    cdef Py_ssize_t i
    cdef int64_t* ws
    if n >= RADIX_MIN:
        return stable_argsort(vals, n, out)
    for i in range(n):
        out[i] = i
    if n <= SMALL_MERGESORT:
        _merge_argsort(out, n, vals, NULL)
        return 0
    ws = <int64_t*> malloc((n // 2) * sizeof(int64_t))
    if ws == NULL:
        return -1
    _merge_argsort(out, n, vals, ws)
    free(ws)
    return 0


cdef inline void _fill_int32(int32_t* out, Py_ssize_t n, int32_t value) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(n):
        out[k] = value


# -- squared error: node sums, the sweep, mean-ordered categories --------------------------
cdef inline Py_ssize_t _trailing_missing(const double* X, Py_ssize_t width,
                                         const index_t* seg, Py_ssize_t f,
                                         Py_ssize_t n) noexcept nogil:
    """How many rows at the end of the sorted segment ``seg[:n]`` miss feature ``f``."""
    cdef Py_ssize_t n_missing = 0
    while n_missing < n and isnan(X[<Py_ssize_t> seg[n - 1 - n_missing] * width + f]):
        n_missing += 1
    return n_missing


cdef inline Py_ssize_t _missing_if_splittable(const double* X, Py_ssize_t width,
                                              const index_t* seg, Py_ssize_t f,
                                              Py_ssize_t n) noexcept nogil:
    """How many rows of the segment ``seg[:n]`` miss feature ``f``, or -1 when ``f`` cannot
    split the node (every value missing, or the known values all within FEATURE_THRESHOLD
    of each other and none missing)."""
    cdef Py_ssize_t n_missing = _trailing_missing(X, width, seg, f, n)
    cdef Py_ssize_t n_known = n - n_missing
    cdef double first_value, last_value
    if n_known == 0:
        return -1
    first_value = X[<Py_ssize_t> seg[0] * width + f]
    last_value = X[<Py_ssize_t> seg[n_known - 1] * width + f]
    if n_missing == 0 and last_value <= first_value + FEATURE_THRESHOLD:
        return -1
    return n_missing


cdef inline bint _cut_is_valid(double x_r, double x_next, Py_ssize_t q, Py_ssize_t n_known,
                               Py_ssize_t n_missing, bint missing_left, Py_ssize_t n_left,
                               Py_ssize_t n, double w_left, double w_total,
                               int64_t min_samples_leaf, double min_weight_leaf) noexcept nogil:
    """Whether the cut after sorted position ``q - 1`` is a valid split of a sweep: between
    distinct values (or exactly the missing rows right), both sides within the limits and
    of positive weight (``x_r``, ``x_next``: the values of the rows at sorted positions
    ``q - 1`` and ``q``; ``x_next`` ignored when ``q == n_known``)."""
    cdef Py_ssize_t n_right
    cdef double w_right
    if q < n_known:
        if x_next <= x_r + FEATURE_THRESHOLD:
            return False
    elif missing_left or n_missing == 0:
        return False
    n_right = n - n_left
    if n_left < min_samples_leaf or n_right < min_samples_leaf:
        return False
    w_right = w_total - w_left
    if w_left < min_weight_leaf or w_right < min_weight_leaf:
        return False
    return w_left > 0.0 and w_right > 0.0


cdef inline double _cut_threshold(double x_r, double x_next, Py_ssize_t q,
                                  Py_ssize_t n_known) noexcept nogil:
    return INFINITY if q == n_known else midpoint(x_r, x_next)


def squared_error(double w_sum, double s_sum, double q_sum):
    """Weighted variance of a node from its sums (0 for an empty node)."""
    return _squared_error(w_sum, s_sum, q_sum)


cdef void _node_sums(const double* y, const double* sample_weight, const index_t* rows,
                     Py_ssize_t n, double* out) noexcept nogil:
    cdef double w_sum = 0.0, s_sum = 0.0, q_sum = 0.0, w
    cdef Py_ssize_t p, r
    for p in range(n):
        r = rows[p]
        w = sample_weight[r]
        w_sum += w
        s_sum += w * y[r]
        q_sum += w * y[r] * y[r]
    out[0] = w_sum
    out[1] = s_sum
    out[2] = q_sum


def node_sums(y, sample_weight, rows, out):
    """``out[:] = (W, S, Q)`` of ``rows``."""
    cdef Held held
    cdef const double* yp
    cdef const double* wp
    cdef double* op
    cdef Py_buffer* r
    held.count = 0
    try:
        yp = <const double*> _take(&held, y, F64, 1, False).buf
        wp = <const double*> _take(&held, sample_weight, F64, 1, False).buf
        r = _take(&held, rows, INDEX, 1, False)
        op = _out3(&held, out)
        with nogil:
            if r.itemsize == 4:
                _node_sums(yp, wp, <const int32_t*> r.buf, r.shape[0], op)
            else:
                _node_sums(yp, wp, <const int64_t*> r.buf, r.shape[0], op)
    finally:
        _release(&held)


cdef void _regression_split(Py_ssize_t i, const double* X, Py_ssize_t width, const double* y,
                            const double* sample_weight, const index_t* order,
                            Py_ssize_t n_cols, Py_ssize_t start, Py_ssize_t end,
                            const int64_t* features, int64_t min_samples_leaf,
                            double min_weight_leaf, double* out_proxy, double* out_threshold,
                            uchar* out_missing_left, int criterion) noexcept nogil:
    """Item ``i`` of ``best_regression_splits``."""
    cdef Py_ssize_t f = features[i]
    cdef Py_ssize_t n = end - start
    cdef const index_t* seg = order + f * n_cols + start
    cdef Py_ssize_t n_missing, n_known, p, q, r, next_row, n_left, pass_index, n_passes
    cdef double w_total = 0.0, s_total = 0.0, w_missing = 0.0, s_missing = 0.0
    cdef double w_left, s_left, w_right, s_right, proxy, best, x_r, x_next
    cdef bint missing_left
    out_proxy[i] = -INFINITY
    out_threshold[i] = NAN
    out_missing_left[i] = False
    n_missing = _missing_if_splittable(X, width, seg, f, n)
    if n_missing < 0:
        return
    n_known = n - n_missing
    for p in range(n):
        r = seg[p]
        w_total += sample_weight[r]
        s_total += sample_weight[r] * y[r]
        if p >= n_known:
            w_missing += sample_weight[r]
            s_missing += sample_weight[r] * y[r]
    best = -INFINITY
    n_passes = 2 if n_missing > 0 else 1
    for pass_index in range(n_passes):
        missing_left = pass_index == 1
        if missing_left:
            w_left = w_missing
            s_left = s_missing
            n_left = n_missing
        else:
            w_left = 0.0
            s_left = 0.0
            n_left = 0
        for p in range(n_known):
            r = seg[p]
            w_left += sample_weight[r]
            s_left += sample_weight[r] * y[r]
            n_left += 1
            q = p + 1
            next_row = seg[q] if q < n_known else r
            x_r = X[r * width + f]
            x_next = X[next_row * width + f]
            if not _cut_is_valid(x_r, x_next, q, n_known, n_missing, missing_left, n_left, n,
                                 w_left, w_total, min_samples_leaf, min_weight_leaf):
                continue
            w_right = w_total - w_left
            s_right = s_total - s_left
            if criterion == C_POISSON:
                if s_left <= DBL_EPSILON or s_right <= DBL_EPSILON:
                    continue
                proxy = (s_left * log(s_left / w_left)
                         + s_right * log(s_right / w_right))
            else:
                proxy = s_left * s_left / w_left + s_right * s_right / w_right
            if proxy > best:
                best = proxy
                out_threshold[i] = _cut_threshold(x_r, x_next, q, n_known)
                out_missing_left[i] = (n_left > n - n_left) if n_missing == 0 else missing_left
    out_proxy[i] = best


cdef void _regression_splits(bint parallel, const double* Xp, Py_ssize_t width,
                             const double* y, const double* sample_weight, const index_t* op,
                             Py_ssize_t n_cols, Py_ssize_t start, Py_ssize_t end,
                             const int64_t* fp, Py_ssize_t m, int64_t min_samples_leaf,
                             double min_weight_leaf, double* out_proxy, double* out_threshold,
                             uchar* out_missing_left, int criterion) noexcept nogil:
    cdef Py_ssize_t i
    if parallel:
        for i in prange(m, schedule="dynamic"):
            _regression_split(i, Xp, width, y, sample_weight, op, n_cols, start, end, fp,
                              min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                              out_missing_left, criterion)
    else:
        for i in range(m):
            _regression_split(i, Xp, width, y, sample_weight, op, n_cols, start, end, fp,
                              min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                              out_missing_left, criterion)


cdef struct Sweep:
    # the arrays of a numeric sweep (best_regression_splits, best_absolute_splits)
    const double* X
    Py_ssize_t width
    const double* y
    const double* sample_weight
    const void* order
    Py_ssize_t n_cols
    bint order64
    const int64_t* features
    Py_ssize_t m
    double* out_proxy
    double* out_threshold
    uchar* out_missing_left


cdef int _sweep_arrays(Held* held, Sweep* a, X, y, sample_weight, order, features, out_proxy,
                       out_threshold, out_missing_left) except -1:
    cdef Py_buffer* v = _take(held, X, F64, 2, False)
    a.X = <const double*> v.buf
    a.width = v.shape[1]
    a.y = NULL
    if y is not None:
        a.y = <const double*> _take(held, y, F64, 1, False).buf
    a.sample_weight = <const double*> _take(held, sample_weight, F64, 1, False).buf
    v = _take(held, order, INDEX, 2, False)
    a.order = v.buf
    a.n_cols = v.shape[1]
    a.order64 = v.itemsize == 8
    v = _take(held, features, I64, 1, False)
    a.features = <const int64_t*> v.buf
    a.m = v.shape[0]
    v = _take(held, out_proxy, F64, 1, True)
    a.out_proxy = <double*> v.buf
    if v.shape[0] < a.m:
        raise IndexError("out_proxy has fewer entries than features")
    v = _take(held, out_threshold, F64, 1, True)
    a.out_threshold = <double*> v.buf
    if v.shape[0] < a.m:
        raise IndexError("out_threshold has fewer entries than features")
    v = _take(held, out_missing_left, BOOL, 1, True)
    a.out_missing_left = <uchar*> v.buf
    if v.shape[0] < a.m:
        raise IndexError("out_missing_left has fewer entries than features")
    return 0


cdef _regression_entry(bint parallel, X, y, sample_weight, order, Py_ssize_t start,
                       Py_ssize_t end, features, int64_t min_samples_leaf,
                       double min_weight_leaf, out_proxy, out_threshold, out_missing_left,
                       int criterion):
    cdef Held held
    cdef Sweep a
    held.count = 0
    try:
        _sweep_arrays(&held, &a, X, y, sample_weight, order, features, out_proxy,
                      out_threshold, out_missing_left)
        with nogil:
            if a.order64:
                _regression_splits(parallel, a.X, a.width, a.y, a.sample_weight,
                                   <const int64_t*> a.order, a.n_cols, start, end,
                                   a.features, a.m, min_samples_leaf, min_weight_leaf,
                                   a.out_proxy, a.out_threshold, a.out_missing_left,
                                   criterion)
            else:
                _regression_splits(parallel, a.X, a.width, a.y, a.sample_weight,
                                   <const int32_t*> a.order, a.n_cols, start, end,
                                   a.features, a.m, min_samples_leaf, min_weight_leaf,
                                   a.out_proxy, a.out_threshold, a.out_missing_left,
                                   criterion)
    finally:
        _release(&held)


def best_regression_splits(X, y, sample_weight, order, Py_ssize_t start, Py_ssize_t end,
                           features, int64_t min_samples_leaf, double min_weight_leaf,
                           out_proxy, out_threshold, out_missing_left, int criterion=0):
    """Best squared-error (or Poisson, ``criterion=POISSON``) cut of ``order[f, start:end]``
    for each feature in ``features``, on the threads."""
    _regression_entry(True, X, y, sample_weight, order, start, end, features,
                      min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                      out_missing_left, criterion)


def best_regression_splits_serial(X, y, sample_weight, order, Py_ssize_t start,
                                  Py_ssize_t end, features, int64_t min_samples_leaf,
                                  double min_weight_leaf, out_proxy, out_threshold,
                                  out_missing_left, int criterion=0):
    """``best_regression_splits`` on one thread (nodes below ``PARALLEL_MIN_WORK``)."""
    _regression_entry(False, X, y, sample_weight, order, start, end, features,
                      min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                      out_missing_left, criterion)


cdef void _category_sums(const double* X, Py_ssize_t width, const double* y,
                         const double* sample_weight, const index_t* rows, Py_ssize_t n,
                         Py_ssize_t feature, double* out_weight, Py_ssize_t n_weight,
                         double* out_sum, Py_ssize_t n_sum, int64_t* out_counts,
                         Py_ssize_t n_counts) noexcept nogil:
    cdef Py_ssize_t k, r, code, missing = n_counts - 1
    cdef double v
    for k in range(n_weight):
        out_weight[k] = 0.0
    for k in range(n_sum):
        out_sum[k] = 0.0
    for k in range(n_counts):
        out_counts[k] = 0
    for k in range(n):
        r = rows[k]
        v = X[r * width + feature]
        code = missing if isnan(v) else <Py_ssize_t> v
        out_weight[code] += sample_weight[r]
        out_sum[code] += sample_weight[r] * y[r]
        out_counts[code] += 1


def category_sums(X, y, sample_weight, rows, Py_ssize_t feature, out_weight, out_sum,
                  out_counts):
    """Weight, weighted target sum and row count per category code of ``feature`` over
    ``rows``; the last entry holds the rows whose value is missing."""
    cdef Held held
    cdef Py_buffer* x
    cdef Py_buffer* r
    cdef Py_buffer* ow
    cdef Py_buffer* os
    cdef Py_buffer* oc
    cdef const double* yp
    cdef const double* wp
    held.count = 0
    try:
        x = _take(&held, X, F64, 2, False)
        yp = <const double*> _take(&held, y, F64, 1, False).buf
        wp = <const double*> _take(&held, sample_weight, F64, 1, False).buf
        r = _take(&held, rows, INDEX, 1, False)
        ow = _take(&held, out_weight, F64, 1, True)
        os = _take(&held, out_sum, F64, 1, True)
        oc = _take(&held, out_counts, I64, 1, True)
        with nogil:
            if r.itemsize == 4:
                _category_sums(<const double*> x.buf, x.shape[1], yp, wp,
                               <const int32_t*> r.buf, r.shape[0], feature,
                               <double*> ow.buf, ow.shape[0], <double*> os.buf, os.shape[0],
                               <int64_t*> oc.buf, oc.shape[0])
            else:
                _category_sums(<const double*> x.buf, x.shape[1], yp, wp,
                               <const int64_t*> r.buf, r.shape[0], feature,
                               <double*> ow.buf, ow.shape[0], <double*> os.buf, os.shape[0],
                               <int64_t*> oc.buf, oc.shape[0])
    finally:
        _release(&held)


cdef Py_ssize_t _present_codes(const int64_t* counts, Py_ssize_t n_codes,
                               int64_t* present) noexcept nogil:
    """``present[:m]``: the codes among the first ``n_codes`` with rows, ascending; m."""
    cdef Py_ssize_t c, m = 0
    for c in range(n_codes):
        if counts[c] > 0:
            present[m] = c
            m += 1
    return m


cdef Py_ssize_t _node_groups(const int64_t* counts, Py_ssize_t n_codes,
                             int64_t* groups) noexcept nogil:
    """The groups of a categorical split into ``groups`` (n_codes + 1 entries): the codes
    present (``counts[c] > 0``), then ``n_codes`` (the missing rows) if any; their number."""
    cdef Py_ssize_t m = _present_codes(counts, n_codes, groups)
    if counts[n_codes] > 0:
        groups[m] = n_codes
        m += 1
    return m


cdef bint _group_branches(const uchar* left, const int64_t* groups, Py_ssize_t m,
                          const int64_t* counts, Py_ssize_t n_codes, int32_t* out_branch,
                          Py_ssize_t n_branch) noexcept nogil:
    """Write a split of the groups (``left[j]``: group j goes left) as the category map
    ``out_branch`` (0 left, 1 right; absent categories go to the side with more rows, right
    on a tie); returns whether missing values go left (with no missing rows: that side)."""
    cdef int64_t n_left = 0, n_total = 0
    cdef Py_ssize_t j
    cdef int32_t larger
    cdef bint missing_left
    for j in range(m):
        n_total += counts[groups[j]]
        if left[j]:
            n_left += counts[groups[j]]
    larger = 0 if n_left > n_total - n_left else 1
    _fill_int32(out_branch, n_branch, larger)
    missing_left = larger == 0
    for j in range(m):
        if groups[j] == n_codes:
            missing_left = left[j]
        else:
            out_branch[groups[j]] = 0 if left[j] else 1
    return missing_left


cdef int _mean_ordered(const double* weight, const double* target_sum,
                       const int64_t* counts, Py_ssize_t n_codes, int64_t min_samples_leaf,
                       double min_weight_leaf, int32_t* out_branch, Py_ssize_t n_branch,
                       double* out_best, bint* out_missing_left) noexcept nogil:
    """``best_mean_ordered_split``; -1 when out of memory."""
    cdef int64_t n_missing = counts[n_codes]
    cdef Py_ssize_t m, j, c, prefix, last_prefix, pass_index, passes, best_prefix = 0
    cdef int64_t n_left, nl, nr, best_n_left = 0, best_n_right = 0
    cdef double w_left, s_left, wl, sl, wr, sr, proxy, best = -INFINITY
    cdef bint missing_left, best_missing_left = False
    cdef int64_t* present = <int64_t*> malloc((n_codes + 1) * sizeof(int64_t))
    cdef int64_t* order = <int64_t*> malloc((n_codes + 1) * sizeof(int64_t))
    cdef int64_t* suffix_n = <int64_t*> malloc((n_codes + 1) * sizeof(int64_t))
    cdef double* means = <double*> malloc((3 * n_codes + 3) * sizeof(double))
    cdef double* suffix_w
    cdef double* suffix_s
    if present == NULL or order == NULL or suffix_n == NULL or means == NULL:
        free(present)
        free(order)
        free(suffix_n)
        free(means)
        return -1
    suffix_w = means + (n_codes + 1)
    suffix_s = suffix_w + (n_codes + 1)
    m = _present_codes(counts, n_codes, present)
    for j in range(m):
        c = present[j]
        means[j] = target_sum[c] / weight[c] if weight[c] > 0 else 0.0
    if _argsort(means, m, order) < 0:
        free(present)
        free(order)
        free(suffix_n)
        free(means)
        return -1
    suffix_w[m] = 0.0
    suffix_s[m] = 0.0
    suffix_n[m] = 0
    for j in range(m - 1, -1, -1):
        c = present[order[j]]
        suffix_w[j] = suffix_w[j + 1] + weight[c]
        suffix_s[j] = suffix_s[j + 1] + target_sum[c]
        suffix_n[j] = suffix_n[j + 1] + counts[c]
    passes = 2 if n_missing > 0 else 1
    for pass_index in range(passes):
        missing_left = pass_index == 1
        last_prefix = m if (n_missing > 0 and not missing_left) else m - 1
        w_left = 0.0
        s_left = 0.0
        n_left = 0
        for prefix in range(1, last_prefix + 1):
            c = present[order[prefix - 1]]
            w_left += weight[c]
            s_left += target_sum[c]
            n_left += counts[c]
            wl = w_left
            sl = s_left
            nl = n_left
            wr = suffix_w[prefix]
            sr = suffix_s[prefix]
            nr = suffix_n[prefix]
            if missing_left:
                wl += weight[n_codes]
                sl += target_sum[n_codes]
                nl += n_missing
            else:
                wr += weight[n_codes]
                sr += target_sum[n_codes]
                nr += n_missing
            if nl < min_samples_leaf or nr < min_samples_leaf:
                continue
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            proxy = sl * sl / wl + sr * sr / wr
            if proxy > best:
                best = proxy
                best_prefix = prefix
                best_missing_left = missing_left
                best_n_left = nl
                best_n_right = nr
    _fill_int32(out_branch, n_branch, 0 if best_n_left > best_n_right else 1)
    for j in range(m):
        out_branch[present[order[j]]] = 0 if j < best_prefix else 1
    if n_missing == 0:
        best_missing_left = best_n_left > best_n_right
    free(present)
    free(order)
    free(suffix_n)
    free(means)
    out_best[0] = best
    out_missing_left[0] = best_missing_left
    return 0


cdef int _subset_entry(Held* held, bint poisson, weight, target_sum, counts,
                       int64_t min_samples_leaf, double min_weight_leaf, out_branch,
                       double* best, bint* missing_left) except -2:
    """The categorical splits from per-code sums (mean-ordered or Poisson); -1 when out of
    memory."""
    cdef const double* wp = <const double*> _take(held, weight, F64, 1, False).buf
    cdef const double* sp = <const double*> _take(held, target_sum, F64, 1, False).buf
    cdef Py_buffer* c = _take(held, counts, I64, 1, False)
    cdef Py_buffer* b = _take(held, out_branch, I32, 1, True)
    cdef int status
    with nogil:
        if poisson:
            status = _poisson_subset(wp, sp, <const int64_t*> c.buf, c.shape[0] - 1,
                                     min_samples_leaf, min_weight_leaf, <int32_t*> b.buf,
                                     b.shape[0], best, missing_left)
        else:
            status = _mean_ordered(wp, sp, <const int64_t*> c.buf, c.shape[0] - 1,
                                   min_samples_leaf, min_weight_leaf, <int32_t*> b.buf,
                                   b.shape[0], best, missing_left)
    return status


def best_mean_ordered_split(weight, target_sum, counts, int64_t min_samples_leaf,
                            double min_weight_leaf, out_branch):
    """Best binary subset split of one categorical feature under squared error: the best
    prefix of the categories ordered by mean target; returns
    ``(proxy, missing_left)``, proxy -inf when no valid split exists."""
    cdef Held held
    cdef double best
    cdef bint missing_left
    cdef int status
    held.count = 0
    try:
        status = _subset_entry(&held, False, weight, target_sum, counts, min_samples_leaf,
                               min_weight_leaf, out_branch, &best, &missing_left)
    finally:
        _release(&held)
    if status < 0:
        raise MemoryError()
    return best, missing_left


# -- absolute error: medians, target ranks, the sweep, subsets -----------------------------
cdef double _weighted_median(const double* sorted_y, const double* sorted_w,
                             Py_ssize_t n) noexcept nogil:
    """Weighted median of ascending targets with positive weights (scikit-learn's rule)."""
    cdef double total = 0.0, half, cum = 0.0
    cdef Py_ssize_t k
    for k in range(n):
        total += sorted_w[k]
    half = 0.5 * total
    for k in range(n):
        cum += sorted_w[k]
        if cum >= half:
            if cum == half and k + 1 < n:
                return 0.5 * (sorted_y[k] + sorted_y[k + 1])
            return sorted_y[k]
    return sorted_y[n - 1] if n > 0 else NAN


def weighted_median(sorted_y, sorted_w):
    """Weighted median of ascending targets with positive weights (scikit-learn's rule)."""
    cdef const double[::1] yv = sorted_y
    cdef const double[::1] wv = sorted_w
    if wv.shape[0] < yv.shape[0]:
        raise IndexError("fewer weights than targets")
    if yv.shape[0] == 0:
        return NAN
    return _weighted_median(&yv[0], &wv[0], yv.shape[0])


cdef int _node_absolute_stats(const double* y, const double* sample_weight,
                              const index_t* rows, Py_ssize_t n, double* out) noexcept nogil:
    cdef double* values = <double*> malloc((3 * n + 1) * sizeof(double))
    cdef int64_t* idx = <int64_t*> malloc((n + 1) * sizeof(int64_t))
    cdef double* weights
    cdef double* scratch
    cdef double median, deviation = 0.0, total = 0.0
    cdef Py_ssize_t k
    if values == NULL or idx == NULL or _argsort_rows(y, rows, n, values, idx) < 0:
        free(values)
        free(idx)
        return -1
    weights = values + n
    scratch = weights + n  # sorted targets, then sorted weights
    for k in range(n):
        weights[k] = sample_weight[rows[k]]
    # weighted_median(values[idx], weights[idx]): its total is summed in sorted order
    median = _median_of_sorted(values, weights, idx, n, scratch)
    for k in range(n):
        deviation += weights[k] * fabs(values[k] - median)
    for k in range(n):
        total += weights[k]
    out[0] = total
    out[1] = median
    out[2] = deviation
    free(values)
    free(idx)
    return 0


cdef inline int _argsort_rows(const double* y, const index_t* rows, Py_ssize_t n,
                              double* values, int64_t* idx) noexcept nogil:
    """``values[:n] = y[rows]``, ``idx[:n]``: its stable argsort."""
    cdef Py_ssize_t k
    for k in range(n):
        values[k] = y[rows[k]]
    return _argsort(values, n, idx)


cdef double _median_of_sorted(const double* values, const double* weights,
                              const int64_t* idx, Py_ssize_t n, double* scratch) noexcept nogil:
    """``weighted_median(values[idx], weights[idx])`` with ``scratch``: n doubles."""
    cdef double total = 0.0, half, cum = 0.0
    cdef Py_ssize_t k
    for k in range(n):
        scratch[k] = weights[idx[k]]
        total += scratch[k]
    half = 0.5 * total
    for k in range(n):
        cum += scratch[k]
        if cum >= half:
            if cum == half and k + 1 < n:
                return 0.5 * (values[idx[k]] + values[idx[k + 1]])
            return values[idx[k]]
    return values[idx[n - 1]] if n > 0 else NAN


def node_absolute_stats(y, sample_weight, rows, out):
    """``out[:] = (W, median, sum of w * |y - median|)`` of ``rows``."""
    cdef Held held
    cdef const double* yp
    cdef const double* wp
    cdef double* op
    cdef Py_buffer* r
    cdef int status
    held.count = 0
    try:
        yp = <const double*> _take(&held, y, F64, 1, False).buf
        wp = <const double*> _take(&held, sample_weight, F64, 1, False).buf
        r = _take(&held, rows, INDEX, 1, False)
        op = _out3(&held, out)
        with nogil:
            if r.itemsize == 4:
                status = _node_absolute_stats(yp, wp, <const int32_t*> r.buf, r.shape[0], op)
            else:
                status = _node_absolute_stats(yp, wp, <const int64_t*> r.buf, r.shape[0], op)
    finally:
        _release(&held)
    if status < 0:
        raise MemoryError()


cdef int _node_ranks(const double* y, const index_t* rows, Py_ssize_t n, int64_t* out_rank,
                     double* out_sorted) noexcept nogil:
    cdef double* values = <double*> malloc((n + 1) * sizeof(double))
    cdef int64_t* idx = <int64_t*> malloc((n + 1) * sizeof(int64_t))
    cdef Py_ssize_t k
    if values == NULL or idx == NULL or _argsort_rows(y, rows, n, values, idx) < 0:
        free(values)
        free(idx)
        return -1
    for k in range(n):
        out_rank[rows[idx[k]]] = k
        out_sorted[k] = values[idx[k]]
    free(values)
    free(idx)
    return 0


def node_ranks(y, rows, out_rank):
    """Rank of each row's target within ``rows`` (``out_rank[row]``, ties by position);
    returns the targets sorted ascending."""
    cdef Held held
    cdef const double* yp
    cdef int64_t* rank
    cdef double* sp
    cdef Py_buffer* r
    cdef int status
    held.count = 0
    try:
        yp = <const double*> _take(&held, y, F64, 1, False).buf
        r = _take(&held, rows, INDEX, 1, False)
        rank = <int64_t*> _take(&held, out_rank, I64, 1, True).buf
        sorted_y = np.empty(r.shape[0])
        sp = <double*> _take(&held, sorted_y, F64, 1, True).buf
        with nogil:
            if r.itemsize == 4:
                status = _node_ranks(yp, <const int32_t*> r.buf, r.shape[0], rank, sp)
            else:
                status = _node_ranks(yp, <const int64_t*> r.buf, r.shape[0], rank, sp)
    finally:
        _release(&held)
    if status < 0:
        raise MemoryError()
    return sorted_y


cdef inline Py_ssize_t _top_bit(Py_ssize_t size) noexcept nogil:
    cdef Py_ssize_t bit = 1
    while bit * 2 <= size:
        bit *= 2
    return bit


cdef void _prefix_abs_errors(const int64_t* ranks, const double* weights, Py_ssize_t count,
                             Py_ssize_t step, const double* sorted_y, Py_ssize_t size,
                             double* tree_w, double* tree_wy, double* out) noexcept nogil:
    """``out[k]``: the weighted absolute deviation from their median of the first k + 1
    entries ``ranks[i * step]`` (the rank of the entry's target in ``sorted_y``),
    ``weights[i * step]``, for k < count (step -1: a reversed array); ``tree_w``,
    ``tree_wy``: size + 1 entries."""
    cdef Py_ssize_t top = _top_bit(size), k, i, a, b, nxt, bit, rk
    cdef double total_w = 0.0, total_wy = 0.0, w, wy, half, cum, below_w, below_wy, median
    for i in range(size + 1):
        tree_w[i] = 0.0
        tree_wy[i] = 0.0
    for k in range(count):
        w = weights[k * step]
        rk = ranks[k * step]
        wy = w * sorted_y[rk]
        i = rk + 1
        while i <= size:
            tree_w[i] += w
            tree_wy[i] += wy
            i += i & -i
        total_w += w
        total_wy += wy
        half = 0.5 * total_w
        a = 0
        cum = 0.0
        bit = top
        while bit > 0:
            nxt = a + bit
            if nxt <= size and cum + tree_w[nxt] < half:
                keep_branch()
                a = nxt
                cum += tree_w[nxt]
            bit //= 2
        b = 0
        below_w = 0.0
        below_wy = 0.0
        bit = top
        while bit > 0:
            nxt = b + bit
            if nxt <= size and below_w + tree_w[nxt] <= half:
                keep_branch()
                b = nxt
                below_w += tree_w[nxt]
                below_wy += tree_wy[nxt]
            bit //= 2
        if b >= size:
            b = a
        median = sorted_y[a] if a == b else 0.5 * (sorted_y[a] + sorted_y[b])
        out[k] = (median * below_w - below_wy) + ((total_wy - below_wy)
                                                  - median * (total_w - below_w))


cdef int _absolute_split(Py_ssize_t i, const double* X, Py_ssize_t width,
                         const double* sample_weight, const index_t* order, Py_ssize_t n_cols,
                         Py_ssize_t start, Py_ssize_t end, const int64_t* features,
                         const int64_t* rank, const double* sorted_y, Py_ssize_t size,
                         int64_t min_samples_leaf, double min_weight_leaf, double* out_proxy,
                         double* out_threshold, uchar* out_missing_left) noexcept nogil:
    """Item ``i`` of ``best_absolute_splits``; 1 when out of memory, else 0."""
    cdef Py_ssize_t f = features[i]
    cdef Py_ssize_t n = end - start
    cdef const index_t* seq = order + f * n_cols + start
    cdef Py_ssize_t n_missing, n_known, p, q, r, next_row, n_left, pass_index, n_passes
    cdef Py_ssize_t offset, n_tail
    cdef double w_total = 0.0, w_missing = 0.0, w_left, proxy, best, x_r, x_next
    cdef bint missing_left
    cdef int64_t* seq_rank
    cdef int64_t* cat_rank
    cdef double* seq_w
    cdef double* cat_w
    cdef double* tree_w
    cdef double* tree_wy
    cdef double* left
    cdef double* right
    out_proxy[i] = -INFINITY
    out_threshold[i] = NAN
    out_missing_left[i] = False
    n_missing = _missing_if_splittable(X, width, seq, f, n)
    if n_missing < 0:
        return 0
    n_known = n - n_missing
    seq_rank = <int64_t*> malloc(2 * n * sizeof(int64_t))
    seq_w = <double*> malloc((4 * n + 2 * size + 2) * sizeof(double))
    if seq_rank == NULL or seq_w == NULL:
        free(seq_rank)
        free(seq_w)
        return 1
    cat_rank = seq_rank + n
    cat_w = seq_w + n
    left = cat_w + n
    right = left + n
    tree_w = right + n
    tree_wy = tree_w + (size + 1)
    for p in range(n):
        seq_rank[p] = rank[seq[p]]
        seq_w[p] = sample_weight[seq[p]]
    for p in range(n):
        w_total += seq_w[p]
    for p in range(n_known, n):
        w_missing += seq_w[p]
    best = -INFINITY
    n_passes = 2 if n_missing > 0 else 1
    for pass_index in range(n_passes):
        missing_left = pass_index == 1
        if missing_left:  # left: the missing rows then known[:p + 1]; right: known[p + 1:]
            memcpy(cat_rank, seq_rank + n_known, n_missing * sizeof(int64_t))
            memcpy(cat_rank + n_missing, seq_rank, n_known * sizeof(int64_t))
            memcpy(cat_w, seq_w + n_known, n_missing * sizeof(double))
            memcpy(cat_w + n_missing, seq_w, n_known * sizeof(double))
            _prefix_abs_errors(cat_rank, cat_w, n, 1, sorted_y, size, tree_w, tree_wy, left)
            _prefix_abs_errors(seq_rank + n_known - 1, seq_w + n_known - 1, n_known, -1,
                               sorted_y, size, tree_w, tree_wy, right)
            w_left = w_missing
            n_left = n_missing
            offset = n_missing
            n_tail = n_known
        else:  # left: known[:p + 1]; right: the rest, missing rows included
            _prefix_abs_errors(seq_rank, seq_w, n, 1, sorted_y, size, tree_w, tree_wy, left)
            _prefix_abs_errors(seq_rank + n - 1, seq_w + n - 1, n, -1, sorted_y, size,
                               tree_w, tree_wy, right)
            w_left = 0.0
            n_left = 0
            offset = 0
            n_tail = n
        for p in range(n_known):
            r = seq[p]
            w_left += seq_w[p]
            n_left += 1
            q = p + 1
            next_row = seq[q] if q < n_known else r
            x_r = X[r * width + f]
            x_next = X[next_row * width + f]
            if not _cut_is_valid(x_r, x_next, q, n_known, n_missing, missing_left, n_left, n,
                                 w_left, w_total, min_samples_leaf, min_weight_leaf):
                continue
            proxy = -(left[offset + p] + right[n_tail - p - 2])
            if proxy > best:
                best = proxy
                out_threshold[i] = _cut_threshold(x_r, x_next, q, n_known)
                out_missing_left[i] = (n_left > n - n_left) if n_missing == 0 else missing_left
    out_proxy[i] = best
    free(seq_rank)
    free(seq_w)
    return 0


cdef int _absolute_splits(bint parallel, const double* Xp, Py_ssize_t width,
                          const double* sample_weight, const index_t* op, Py_ssize_t n_cols,
                          Py_ssize_t start, Py_ssize_t end, const int64_t* fp, Py_ssize_t m,
                          const int64_t* rank, const double* sorted_y, Py_ssize_t size,
                          int64_t min_samples_leaf, double min_weight_leaf, double* out_proxy,
                          double* out_threshold, uchar* out_missing_left) noexcept nogil:
    """Returns how many features ran out of memory."""
    cdef Py_ssize_t i
    cdef int failed = 0
    if parallel:
        for i in prange(m, schedule="dynamic"):
            failed += _absolute_split(i, Xp, width, sample_weight, op, n_cols, start, end, fp,
                                      rank, sorted_y, size, min_samples_leaf, min_weight_leaf,
                                      out_proxy, out_threshold, out_missing_left)
    else:
        for i in range(m):
            failed += _absolute_split(i, Xp, width, sample_weight, op, n_cols, start, end, fp,
                                      rank, sorted_y, size, min_samples_leaf, min_weight_leaf,
                                      out_proxy, out_threshold, out_missing_left)
    return failed


cdef _absolute_entry(bint parallel, X, sample_weight, order, Py_ssize_t start,
                     Py_ssize_t end, features, rank, sorted_y, int64_t min_samples_leaf,
                     double min_weight_leaf, out_proxy, out_threshold, out_missing_left):
    cdef Held held
    cdef Sweep a
    cdef const int64_t* rp
    cdef Py_buffer* sv
    cdef int failed
    held.count = 0
    try:
        _sweep_arrays(&held, &a, X, None, sample_weight, order, features, out_proxy,
                      out_threshold, out_missing_left)
        rp = <const int64_t*> _take(&held, rank, I64, 1, False).buf
        sv = _take(&held, sorted_y, F64, 1, False)
        with nogil:
            if a.order64:
                failed = _absolute_splits(parallel, a.X, a.width, a.sample_weight,
                                          <const int64_t*> a.order, a.n_cols, start, end,
                                          a.features, a.m, rp, <const double*> sv.buf,
                                          sv.shape[0], min_samples_leaf, min_weight_leaf,
                                          a.out_proxy, a.out_threshold, a.out_missing_left)
            else:
                failed = _absolute_splits(parallel, a.X, a.width, a.sample_weight,
                                          <const int32_t*> a.order, a.n_cols, start, end,
                                          a.features, a.m, rp, <const double*> sv.buf,
                                          sv.shape[0], min_samples_leaf, min_weight_leaf,
                                          a.out_proxy, a.out_threshold, a.out_missing_left)
    finally:
        _release(&held)
    if failed:
        raise MemoryError()


def best_absolute_splits(X, y, sample_weight, order, Py_ssize_t start, Py_ssize_t end,
                         features, rank, sorted_y, int64_t min_samples_leaf,
                         double min_weight_leaf, out_proxy, out_threshold, out_missing_left):
    """Best absolute-error cut of ``order[f, start:end]`` for each feature in ``features``,
    on the threads; ``rank``/``sorted_y``: ``node_ranks``'."""
    _absolute_entry(True, X, sample_weight, order, start, end, features, rank, sorted_y,
                    min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                    out_missing_left)


def best_absolute_splits_serial(X, y, sample_weight, order, Py_ssize_t start,
                                Py_ssize_t end, features, rank, sorted_y,
                                int64_t min_samples_leaf, double min_weight_leaf, out_proxy,
                                out_threshold, out_missing_left):
    """``best_absolute_splits`` on one thread (nodes below ``PARALLEL_MIN_WORK``)."""
    _absolute_entry(False, X, sample_weight, order, start, end, features, rank, sorted_y,
                    min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                    out_missing_left)


cdef double _sides_abs_error(const double* sorted_y, const double* sorted_w,
                             const int64_t* sorted_g, Py_ssize_t mask, Py_ssize_t n,
                             double w_left, double w_right) noexcept nogil:
    """Summed absolute deviation of the two sides from their own medians (rows sorted by
    target; row k goes left when bit ``sorted_g[k]`` of ``mask`` is set). The median search
    stops once both sides have found theirs (running on would change nothing)."""
    cdef double medians[2]
    cdef double half[2]
    cdef double cum[2]
    cdef int state[2]  # 0: looking, 1: needs the next target, 2: found
    cdef double total = 0.0
    cdef Py_ssize_t k
    cdef int s, found = 0
    medians[0] = 0.0
    medians[1] = 0.0
    half[0] = 0.5 * w_left
    half[1] = 0.5 * w_right
    cum[0] = 0.0
    cum[1] = 0.0
    state[0] = 0
    state[1] = 0
    for k in range(n):
        s = 1 - <int> ((mask >> sorted_g[k]) & 1)
        if state[s] == 2:
            continue
        if state[s] == 1:
            medians[s] = 0.5 * (medians[s] + sorted_y[k])
            state[s] = 2
            found += 1
            if found == 2:
                break
            continue
        cum[s] += sorted_w[k]
        if cum[s] >= half[s]:
            medians[s] = sorted_y[k]
            if cum[s] == half[s]:
                state[s] = 1
            else:
                state[s] = 2
                found += 1
                if found == 2:
                    break
    for k in range(n):
        total += sorted_w[k] * fabs(sorted_y[k] - medians[1 - ((mask >> sorted_g[k]) & 1)])
    return total


cdef int _absolute_subset(const double* X, Py_ssize_t width, const double* y,
                          const double* sample_weight, const index_t* rows, Py_ssize_t n,
                          Py_ssize_t feature, Py_ssize_t n_codes, int64_t min_samples_leaf,
                          double min_weight_leaf, int32_t* out_branch, Py_ssize_t n_branch,
                          double* out_best, bint* out_missing_left) noexcept nogil:
    """``best_absolute_subset_split``; -1 when out of memory."""
    cdef Py_ssize_t k, j, jj, kk, p, m, mask, c
    cdef int64_t n_left
    cdef double v, w_left, w_right, w_all, proxy, best = -INFINITY
    cdef int status = 0
    # integers: slot, idx, sorted_g, seq_rank, by_group (n each); counts, groups, group_of
    # (n_codes + 1 each); starts (n_codes + 2), group_order, ends (n_codes + 1 each)
    cdef int64_t* ints = <int64_t*> malloc((5 * n + 6 * (n_codes + 1) + 1) * sizeof(int64_t))
    # floats: values, sorted_y, sorted_w, seq_w, left, right (n each), tree_w, tree_wy
    # (n + 1 each); weight, medians (n_codes + 1 each)
    cdef double* floats = <double*> malloc((8 * n + 2 * (n_codes + 1) + 2) * sizeof(double))
    cdef uchar* flags = <uchar*> malloc(n_codes + 2)  # best_left
    cdef int64_t* slot
    cdef int64_t* idx
    cdef int64_t* sorted_g
    cdef int64_t* seq_rank
    cdef int64_t* by_group
    cdef int64_t* counts
    cdef int64_t* groups
    cdef int64_t* group_of
    cdef int64_t* starts
    cdef int64_t* group_order
    cdef int64_t* ends
    cdef double* values
    cdef double* sorted_y
    cdef double* sorted_w
    cdef double* seq_w
    cdef double* left
    cdef double* right
    cdef double* tree_w
    cdef double* tree_wy
    cdef double* weight
    cdef double* medians
    cdef uchar* best_left
    out_missing_left[0] = False
    if ints == NULL or floats == NULL or flags == NULL:
        free(ints)
        free(floats)
        free(flags)
        return -1
    slot = ints
    idx = slot + n
    sorted_g = idx + n
    seq_rank = sorted_g + n
    by_group = seq_rank + n
    counts = by_group + n
    groups = counts + (n_codes + 1)
    group_of = groups + (n_codes + 1)
    starts = group_of + (n_codes + 1)
    group_order = starts + (n_codes + 2)
    ends = group_order + (n_codes + 1)
    values = floats
    sorted_y = values + n
    sorted_w = sorted_y + n
    seq_w = sorted_w + n
    left = seq_w + n
    right = left + n
    tree_w = right + n
    tree_wy = tree_w + (n + 1)
    weight = tree_wy + (n + 1)
    medians = weight + (n_codes + 1)
    best_left = flags
    for c in range(n_codes + 1):
        counts[c] = 0
        weight[c] = 0.0
        group_of[c] = -1
    for k in range(n):
        v = X[<Py_ssize_t> rows[k] * width + feature]
        slot[k] = n_codes if isnan(v) else <int64_t> v
        counts[slot[k]] += 1
        weight[slot[k]] += sample_weight[rows[k]]
    m = _node_groups(counts, n_codes, groups)  # group j -> code (n_codes: missing)
    for j in range(m):
        group_of[groups[j]] = j
    _fill_int32(out_branch, n_branch, 1)
    if m < 2:
        out_best[0] = -INFINITY
        free(ints)
        free(floats)
        free(flags)
        return 0
    if _argsort_rows(y, rows, n, values, idx) < 0:
        free(ints)
        free(floats)
        free(flags)
        return -1
    for k in range(n):
        sorted_y[k] = values[idx[k]]
        sorted_w[k] = sample_weight[rows[idx[k]]]
        sorted_g[k] = group_of[slot[idx[k]]]
    for j in range(m):
        best_left[j] = False
    if m <= C_MAX_EXHAUSTIVE_GROUPS:
        for mask in range(1, 1 << (m - 1)):
            n_left = 0
            w_left = 0.0
            w_right = 0.0
            for j in range(m):
                if (mask >> j) & 1:
                    n_left += counts[groups[j]]
                    w_left += weight[groups[j]]
                else:
                    w_right += weight[groups[j]]
            if n_left < min_samples_leaf or n - n_left < min_samples_leaf:
                continue
            if w_left < min_weight_leaf or w_right < min_weight_leaf:
                continue
            proxy = -_sides_abs_error(sorted_y, sorted_w, sorted_g, mask, n, w_left, w_right)
            if proxy > best:
                best = proxy
                for j in range(m):
                    best_left[j] = (mask >> j) & 1
    else:
        # rows grouped (stable: each group's rows stay sorted by target)
        for j in range(m + 1):
            starts[j] = 0
        for k in range(n):
            starts[sorted_g[k] + 1] += 1
        for j in range(m):
            starts[j + 1] += starts[j]
        for j in range(m):
            ends[j] = starts[j]  # the next free position of group j
        for k in range(n):
            by_group[ends[sorted_g[k]]] = k
            ends[sorted_g[k]] += 1
        for j in range(m):
            for kk in range(starts[j], starts[j + 1]):
                values[kk - starts[j]] = sorted_y[by_group[kk]]
                left[kk - starts[j]] = sorted_w[by_group[kk]]
            medians[j] = _weighted_median(values, left, starts[j + 1] - starts[j])
        if counts[n_codes] > 0:
            medians[m - 1] = INFINITY  # the missing rows come last
        if _argsort(medians, m, group_order) < 0:
            free(ints)
            free(floats)
            free(flags)
            return -1
        p = 0
        for jj in range(m):
            j = group_order[jj]
            for k in range(starts[j], starts[j + 1]):
                seq_rank[p] = by_group[k]  # the position in sorted_y is the target's rank
                seq_w[p] = sorted_w[by_group[k]]
                p += 1
            ends[jj] = p
        _prefix_abs_errors(seq_rank, seq_w, n, 1, sorted_y, n, tree_w, tree_wy, left)
        _prefix_abs_errors(seq_rank + n - 1, seq_w + n - 1, n, -1, sorted_y, n, tree_w,
                           tree_wy, right)
        w_left = 0.0
        w_all = 0.0
        for k in range(n):
            w_all += seq_w[k]
        for jj in range(m - 1):
            w_left += weight[groups[group_order[jj]]]
            n_left = ends[jj]
            if n_left < min_samples_leaf or n - n_left < min_samples_leaf:
                continue
            if w_left < min_weight_leaf or w_all - w_left < min_weight_leaf:
                continue
            proxy = -(left[n_left - 1] + right[n - n_left - 1])
            if proxy > best:
                best = proxy
                for j in range(m):
                    best_left[j] = False
                for kk in range(jj + 1):
                    best_left[group_order[kk]] = True
    out_best[0] = best
    if best != -INFINITY:
        out_missing_left[0] = _group_branches(best_left, groups, m, counts, n_codes,
                                              out_branch, n_branch)
    free(ints)
    free(floats)
    free(flags)
    return 0


def best_absolute_subset_split(X, y, sample_weight, rows, Py_ssize_t feature,
                               Py_ssize_t n_codes, int64_t min_samples_leaf,
                               double min_weight_leaf, out_branch):
    """Best binary split of one categorical feature under absolute error; returns
    ``(proxy, missing_left)``, proxy -inf when no valid split exists."""
    cdef Held held
    cdef Py_buffer* x
    cdef Py_buffer* r
    cdef Py_buffer* b
    cdef const double* yp
    cdef const double* wp
    cdef double best
    cdef bint missing_left
    cdef int status
    held.count = 0
    try:
        x = _take(&held, X, F64, 2, False)
        yp = <const double*> _take(&held, y, F64, 1, False).buf
        wp = <const double*> _take(&held, sample_weight, F64, 1, False).buf
        r = _take(&held, rows, INDEX, 1, False)
        b = _take(&held, out_branch, I32, 1, True)
        with nogil:
            if r.itemsize == 4:
                status = _absolute_subset(<const double*> x.buf, x.shape[1], yp, wp,
                                          <const int32_t*> r.buf, r.shape[0], feature,
                                          n_codes, min_samples_leaf, min_weight_leaf,
                                          <int32_t*> b.buf, b.shape[0], &best, &missing_left)
            else:
                status = _absolute_subset(<const double*> x.buf, x.shape[1], yp, wp,
                                          <const int64_t*> r.buf, r.shape[0], feature,
                                          n_codes, min_samples_leaf, min_weight_leaf,
                                          <int32_t*> b.buf, b.shape[0], &best, &missing_left)
    finally:
        _release(&held)
    if status < 0:
        raise MemoryError()
    return best, missing_left


# -- Poisson: node statistics, subsets -----------------------------------------------------
cdef int _node_poisson_stats(const double* y, const double* sample_weight,
                             const index_t* rows, Py_ssize_t n, double* out) noexcept nogil:
    """Returns -1 on a division by zero (raised as ZeroDivisionError), else 0."""
    cdef double w_sum = 0.0, s_sum = 0.0, mean, loss = 0.0
    cdef Py_ssize_t p, r
    for p in range(n):
        r = rows[p]
        w_sum += sample_weight[r]
        s_sum += sample_weight[r] * y[r]
    out[0] = w_sum
    out[1] = s_sum
    if s_sum <= DBL_EPSILON:
        out[2] = INFINITY
        return 0
    if w_sum == 0.0:
        return -1
    mean = s_sum / w_sum
    for p in range(n):
        r = rows[p]
        if y[r] != 0.0:
            if mean == 0.0:
                return -1
            loss += sample_weight[r] * y[r] * log(y[r] / mean)
    out[2] = loss
    return 0


def node_poisson_stats(y, sample_weight, rows, out):
    """``out[:] = (W, S, sum of w * y * log(y / mean))`` of ``rows`` (the last is inf when
    ``S <= EPSILON``: no positive mean)."""
    cdef Held held
    cdef const double* yp
    cdef const double* wp
    cdef double* op
    cdef Py_buffer* r
    cdef int status
    held.count = 0
    try:
        yp = <const double*> _take(&held, y, F64, 1, False).buf
        wp = <const double*> _take(&held, sample_weight, F64, 1, False).buf
        r = _take(&held, rows, INDEX, 1, False)
        op = _out3(&held, out)
        with nogil:
            if r.itemsize == 4:
                status = _node_poisson_stats(yp, wp, <const int32_t*> r.buf, r.shape[0], op)
            else:
                status = _node_poisson_stats(yp, wp, <const int64_t*> r.buf, r.shape[0], op)
    finally:
        _release(&held)
    if status < 0:
        raise ZeroDivisionError("division by zero")


cdef inline double _side_proxy(double w, double s) noexcept nogil:
    return s * log(s / w)


cdef int _poisson_subset(const double* weight, const double* target_sum,
                         const int64_t* counts, Py_ssize_t n_codes, int64_t min_samples_leaf,
                         double min_weight_leaf, int32_t* out_branch, Py_ssize_t n_branch,
                         double* out_best, bint* out_missing_left) noexcept nogil:
    """``best_poisson_subset_split``; -1 when out of memory."""
    cdef Py_ssize_t m, j, jj, c, kind, last, first, at, n_zero, best_kind = 0, best_at = 0
    cdef int64_t nl, nr, n_total
    cdef double wl, sl, wr, sr, proxy, best = -INFINITY
    cdef Py_ssize_t cap = n_codes + 2
    cdef int64_t* groups = <int64_t*> malloc(3 * cap * sizeof(int64_t))
    cdef double* means = <double*> malloc(5 * cap * sizeof(double))
    cdef uchar* left = <uchar*> malloc(cap)
    cdef int64_t* order
    cdef int64_t* sn
    cdef double* sw
    cdef double* ss
    cdef double* tw
    cdef double* ts
    out_missing_left[0] = False
    if groups == NULL or means == NULL or left == NULL:
        free(groups)
        free(means)
        free(left)
        return -1
    order = groups + cap
    sn = order + cap
    sw = means + cap
    ss = sw + cap
    tw = ss + cap
    ts = tw + cap
    m = _node_groups(counts, n_codes, groups)
    for j in range(m):
        c = groups[j]
        means[j] = target_sum[c] / weight[c] if weight[c] > 0 else 0.0
    if _argsort(means, m, order) < 0:
        free(groups)
        free(means)
        free(left)
        return -1
    sw[0] = 0.0
    ss[0] = 0.0
    sn[0] = 0
    for jj in range(m):
        c = groups[order[jj]]
        sw[jj + 1] = sw[jj] + weight[c]
        ss[jj + 1] = ss[jj] + target_sum[c]
        sn[jj + 1] = sn[jj] + counts[c]
    tw[m] = 0.0
    ts[m] = 0.0
    for jj in range(m - 1, -1, -1):
        c = groups[order[jj]]
        tw[jj] = tw[jj + 1] + weight[c]
        ts[jj] = ts[jj + 1] + target_sum[c]
    n_zero = 0
    while n_zero < m and target_sum[groups[order[n_zero]]] <= 0.0:
        n_zero += 1
    n_total = sn[m]
    for kind in range(1, 4):
        last = m - 1 if kind == 1 else m
        first = 1 if kind == 1 else n_zero
        if kind == 3 and n_zero == 0:
            continue
        for at in range(first, last + (1 if kind == 1 else 0)):
            if kind == 1:  # order[:at] left
                wl = sw[at]
                sl = ss[at]
                nl = sn[at]
                wr = tw[at]
                sr = ts[at]
            else:
                c = groups[order[at]]
                wl = weight[c]
                sl = target_sum[c]
                nl = counts[c]
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
            if sl <= DBL_EPSILON or sr <= DBL_EPSILON:
                continue
            proxy = _side_proxy(wl, sl) + _side_proxy(wr, sr)
            if proxy > best:
                best = proxy
                best_kind = kind
                best_at = at
    _fill_int32(out_branch, n_branch, 1)
    out_best[0] = best
    if best != -INFINITY:
        for j in range(m):
            left[j] = False
        if best_kind == 1:
            for jj in range(best_at):
                left[order[jj]] = True
        else:
            left[order[best_at]] = True
            if best_kind == 3:
                for jj in range(n_zero):
                    left[order[jj]] = True
        out_missing_left[0] = _group_branches(left, groups, m, counts, n_codes, out_branch,
                                              n_branch)
    free(groups)
    free(means)
    free(left)
    return 0


def best_poisson_subset_split(weight, target_sum, counts, int64_t min_samples_leaf,
                              double min_weight_leaf, out_branch):
    """Best binary subset split of one categorical feature under Poisson deviance; returns
    ``(proxy, missing_left)``, proxy -inf when no valid split exists."""
    cdef Held held
    cdef double best
    cdef bint missing_left
    cdef int status
    held.count = 0
    try:
        status = _subset_entry(&held, True, weight, target_sum, counts, min_samples_leaf,
                               min_weight_leaf, out_branch, &best, &missing_left)
    finally:
        _release(&held)
    if status < 0:
        raise MemoryError()
    return best, missing_left
