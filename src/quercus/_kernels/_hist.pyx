# cython: language_level=3
"""The histogram splitters' kernels, compiled: class histograms filled in parallel over
features, the best cut in them, the partition by bin, the exact sums of the regression
histograms in integer limbs, and the subtrees grown whole.

They compute exactly what the numba build (commit b87f659) did, checked by
tests/test_kernel_fixtures.py. Integer sums (class tallies, limbs) are exact in any order;
float sums (weighted histograms, totals, scans) run in the numba build's loop order, so
that they are the same bits.

The callers (``splitting/hist.py``, ``hist_regression.py``, ``exact_sums.py``,
``dask/_worker.py``) pass bins as uint8 or uint16 (the row-major copy ``binned_rows`` may
be a transposed view: any strides), rows and counts as int64, classes as int32, float64
weights and histograms, numpy bools for flags. The split scans take their histograms
through ``np.ascontiguousarray`` (a no-op for the splitters' own arrays).

The threads (``fill_histograms``, ``fill_ordered_histograms``): each block of features is
one OpenMP iteration writing only its own features' histograms, so the results do not
depend on the thread count.
"""

cimport cython
from cython.parallel cimport prange
from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, NAN, fabs, frexp, ldexp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from cpython.buffer cimport (PyBUF_FORMAT, PyBUF_STRIDES, PyBUF_WRITABLE, PyBuffer_Release,
                             PyObject_GetBuffer)

from quercus._kernels._common cimport GINI, impurity_of, monotone_ok, split_proxy
from quercus._kernels._common cimport squared_error as _squared_error

import sys

import numpy as np

#: Bits per limb at most (``_bit_length`` is exact below 2**53).
MAX_DIGIT = 52
TWO_53 = 1 << 53
EPSILON = float(np.finfo(np.float64).eps)
#: Below this many rows a node's histograms hold only the bins its rows are in.
SMALL_NODE = 64
#: Entries the depth-first stack starts with.
STACK_START = 4

cdef enum:
    C_SMALL_NODE = 64
    C_STACK_START = 4
    DIGITS_EXTRA = 66  # digits a sum's carries may add past its limbs (63 at most), + 3

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline int quercus_hist_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    #else
    static inline int quercus_hist_ctz64(unsigned long long x) {
        int n = 0;
        while (!(x & 1ULL)) { x >>= 1; n++; }
        return n;
    }
    #endif
    #define QUERCUS_TWO_53 9007199254740992LL
    """
    int ctz64 "quercus_hist_ctz64"(unsigned long long x) nogil
    const int64_t C_TWO_53 "QUERCUS_TWO_53"

ctypedef unsigned char uchar

ctypedef fused bin_t:
    uint8_t
    uint16_t

ctypedef fused tally_t:
    int32_t
    int64_t


cdef struct Cut:
    double proxy
    int64_t bin
    int64_t next_bin
    bint missing_left


# -- light buffers, for the kernels Python calls at every node ----------------------------
# A typed memoryview argument costs ~0.3 us to take (a memoryview object, its format
# parsed); the per-node kernels (fills, scans, partitions, rounding) take their arrays as
# plain buffers instead (~0.1 us each), checked for dimensions, item type, writability and
# C-contiguity. Read-only inputs of another layout or type are converted
# (``np.ascontiguousarray``), so any array is accepted; outputs must be right.
cdef char NATIVE_ORDER = b'<' if sys.byteorder == "little" else b'>'

cdef enum:
    K_F64 = 0
    K_I64 = 1
    K_I32 = 2
    K_I8 = 3
    K_U8 = 4  # bool or uint8
    K_U16 = 5
    K_U64 = 6
    MAX_BUFFERS = 12

KIND_NAMES = ("float64", "int64", "int32", "int8", "bool", "uint16", "uint64")


cdef struct Buffers:
    Py_buffer views[MAX_BUFFERS]
    int n


cdef bint _format_ok(const char* fmt, Py_ssize_t itemsize, int kind) noexcept:
    cdef char c
    if fmt == NULL:
        return kind == K_U8 and itemsize == 1
    if fmt[0] == b'@' or fmt[0] == b'=' or fmt[0] == NATIVE_ORDER:
        fmt += 1
    c = fmt[0]
    if c == 0 or fmt[1] != 0:
        return False
    if kind == K_F64:
        return c == b'd' and itemsize == 8
    if kind == K_I64:
        return (c == b'l' or c == b'q') and itemsize == 8
    if kind == K_U64:
        return (c == b'L' or c == b'Q') and itemsize == 8
    if kind == K_I32:
        return (c == b'i' or c == b'l') and itemsize == 4
    if kind == K_I8:
        return c == b'b' and itemsize == 1
    if kind == K_U16:
        return c == b'H' and itemsize == 2
    return (c == b'?' or c == b'B') and itemsize == 1


cdef bint _contiguous(const Py_buffer* view) noexcept:
    cdef Py_ssize_t expected = view.itemsize
    cdef int d
    for d in range(view.ndim - 1, -1, -1):
        if view.shape[d] > 1 and view.strides[d] != expected:
            return False
        expected *= view.shape[d]
    return True


cdef int _acquire(Buffers* buffers, object obj, int ndim, int kind, bint writable,
                  bint contiguous) except -1:
    """Take ``obj``'s buffer into ``buffers``: 1 when it has ``ndim`` dimensions of items
    ``kind`` (C-contiguous when asked), else 0 (released again)."""
    cdef Py_buffer* view
    if buffers.n >= MAX_BUFFERS:
        raise RuntimeError("too many buffers")
    view = &buffers.views[buffers.n]
    PyObject_GetBuffer(obj, view, PyBUF_STRIDES | PyBUF_FORMAT
                       | (PyBUF_WRITABLE if writable else 0))
    if (view.ndim != ndim or not _format_ok(view.format, view.itemsize, kind)
            or (contiguous and not _contiguous(view))):
        PyBuffer_Release(view)
        return 0
    buffers.n += 1
    return 1


cdef Py_buffer* _take(Buffers* buffers, object obj, int ndim, int kind, bint writable,
                      str what) except NULL:
    """A C-contiguous buffer of ``ndim`` dimensions of items ``kind``, or ValueError."""
    if not _acquire(buffers, obj, ndim, kind, writable, True):
        raise ValueError(f"{what}: expected a C-contiguous {ndim}-d array of "
                         f"{KIND_NAMES[kind]}")
    return &buffers.views[buffers.n - 1]


cdef Py_buffer* _take_input(Buffers* buffers, object obj, int ndim, int kind, object dtype,
                            str what) except NULL:
    """A read-only input's buffer, converted when it has another layout or item type."""
    try:
        if _acquire(buffers, obj, ndim, kind, False, True):
            return &buffers.views[buffers.n - 1]
    except (TypeError, BufferError):
        pass
    return _take(buffers, np.ascontiguousarray(obj, dtype=dtype), ndim, kind, False, what)


cdef Py_buffer* _take_bins(Buffers* buffers, object obj, int ndim, bint contiguous,
                           str what) except NULL:
    """Bins as uint8 or uint16 (``itemsize`` tells which); any strides unless
    ``contiguous``."""
    if (_acquire(buffers, obj, ndim, K_U8, False, contiguous)
            or _acquire(buffers, obj, ndim, K_U16, False, contiguous)):
        return &buffers.views[buffers.n - 1]
    raise ValueError(f"{what}: expected a {ndim}-d array of uint8 or uint16 bins"
                     + (" (C-contiguous)" if contiguous else ""))


cdef void _release(Buffers* buffers) noexcept:
    while buffers.n > 0:
        buffers.n -= 1
        PyBuffer_Release(&buffers.views[buffers.n])


# -- class histograms ---------------------------------------------------------------------
cdef void _weigh_features(const bin_t* binned, Py_ssize_t s0, Py_ssize_t s1,
                          const int64_t* rows, Py_ssize_t n, const int32_t* y,
                          const double* weights, double* hist, int64_t* counts,
                          Py_ssize_t n_bins, Py_ssize_t n_classes, Py_ssize_t low,
                          Py_ssize_t high) noexcept nogil:
    """Class-weight histograms of features ``low:high``, zeroed first."""
    cdef Py_ssize_t p, i, r, k, b
    cdef double w
    cdef const bin_t* row
    memset(hist + low * n_bins * n_classes, 0, (high - low) * n_bins * n_classes * sizeof(double))
    memset(counts + low * n_bins, 0, (high - low) * n_bins * sizeof(int64_t))
    for p in range(n):
        r = rows[p]
        k = y[r]
        w = weights[r]
        row = binned + r * s0
        for i in range(low, high):
            b = row[i * s1]
            hist[(i * n_bins + b) * n_classes + k] += w
            counts[i * n_bins + b] += 1


cdef void _count_features(const bin_t* binned, Py_ssize_t s0, Py_ssize_t s1,
                          const int64_t* rows, Py_ssize_t n, const int32_t* y,
                          tally_t* tally, double* hist, int64_t* counts, Py_ssize_t n_bins,
                          Py_ssize_t n_classes, Py_ssize_t low, Py_ssize_t high) noexcept nogil:
    """Class-count histograms of features ``low:high``: integer tallies, then written out
    as the weight histograms of unit weights."""
    cdef Py_ssize_t p, i, r, k, b, c, at
    cdef int64_t total
    cdef tally_t m
    cdef const bin_t* row
    memset(tally + low * n_bins * n_classes, 0,
           (high - low) * n_bins * n_classes * sizeof(tally_t))
    if n_classes == 2:  # the common case: a row's two classes spelt out
        for p in range(n):
            r = rows[p]
            k = y[r]
            row = binned + r * s0
            for i in range(low, high):
                tally[(i * n_bins + row[i * s1]) * 2 + k] += 1
    else:
        for p in range(n):
            r = rows[p]
            k = y[r]
            row = binned + r * s0
            for i in range(low, high):
                tally[(i * n_bins + row[i * s1]) * n_classes + k] += 1
    for i in range(low, high):
        for b in range(n_bins):
            total = 0
            at = (i * n_bins + b) * n_classes
            for c in range(n_classes):
                m = tally[at + c]
                hist[at + c] = m
                total += m
            counts[i * n_bins + b] = total


cdef void _fill_features(const bin_t* binned, Py_ssize_t s0, Py_ssize_t s1,
                         const int64_t* rows, Py_ssize_t n, const int32_t* y,
                         const double* weights, bint unit, tally_t* tally, double* hist,
                         int64_t* counts, Py_ssize_t n_bins, Py_ssize_t n_classes,
                         Py_ssize_t low, Py_ssize_t high) noexcept nogil:
    if unit:
        _count_features(binned, s0, s1, rows, n, y, tally, hist, counts, n_bins, n_classes,
                        low, high)
    else:
        _weigh_features(binned, s0, s1, rows, n, y, weights, hist, counts, n_bins, n_classes,
                        low, high)


cdef void _fill_run(const bin_t* data, Py_ssize_t s0, Py_ssize_t s1, const int64_t* rows,
                    Py_ssize_t n, const int32_t* y, const double* weights, bint unit,
                    tally_t* tally, double* hist, int64_t* counts, Py_ssize_t n_features,
                    Py_ssize_t n_bins, Py_ssize_t n_classes, Py_ssize_t n_blocks) noexcept:
    cdef Py_ssize_t block
    with nogil:
        if n_blocks > 1:
            for block in prange(n_blocks, schedule="static"):
                _fill_features(data, s0, s1, rows, n, y, weights, unit, tally, hist, counts,
                               n_bins, n_classes, block * n_features // n_blocks,
                               (block + 1) * n_features // n_blocks)
        else:
            _fill_features(data, s0, s1, rows, n, y, weights, unit, tally, hist, counts,
                           n_bins, n_classes, 0, n_features)


def fill_histograms(binned_rows, rows, y, weights, tally, hist, counts, Py_ssize_t n_blocks):
    """hist[i, b, k]: weight of class k among ``rows`` in bin b of feature i; counts[i, b]:
    their number. ``binned_rows`` (n_rows, n_features), uint8 or uint16, any strides.
    ``weights`` empty: unit weights, tallied as integers in ``tally`` (int32 or int64,
    hist's shape). With ``n_blocks`` > 1 the features are cut into that many blocks, one
    OpenMP iteration each; the histograms do not depend on the block count."""
    cdef Buffers b
    cdef Py_buffer* vb
    cdef Py_buffer* vr
    cdef Py_buffer* vy
    cdef Py_buffer* vw
    cdef Py_buffer* vt
    cdef Py_buffer* vh
    cdef Py_buffer* vc
    cdef Py_ssize_t n_features, n_bins, n_classes, n, s0, s1
    cdef bint unit, wide
    b.n = 0
    try:
        vb = _take_bins(&b, binned_rows, 2, False, "fill_histograms: binned_rows")
        vr = _take_input(&b, rows, 1, K_I64, np.int64, "fill_histograms: rows")
        vy = _take_input(&b, y, 1, K_I32, np.int32, "fill_histograms: y")
        vw = _take_input(&b, weights, 1, K_F64, np.float64, "fill_histograms: weights")
        vh = _take(&b, hist, 3, K_F64, True, "fill_histograms: hist")
        vc = _take(&b, counts, 2, K_I64, True, "fill_histograms: counts")
        wide = not _acquire(&b, tally, 3, K_I32, True, True)
        if wide:
            vt = _take(&b, tally, 3, K_I64, True, "fill_histograms: tally")
        else:
            vt = &b.views[b.n - 1]
        n_features = vb.shape[1]
        n_bins = vh.shape[1]
        n_classes = vh.shape[2]
        n = vr.shape[0]
        s0 = vb.strides[0] // vb.itemsize
        s1 = vb.strides[1] // vb.itemsize
        unit = vw.shape[0] == 0
        if (vh.shape[0] < n_features or vc.shape[0] < n_features
                or vc.shape[1] != n_bins):
            raise ValueError("fill_histograms: hist and counts must be (features, bins[, "
                             "classes])")
        if unit and (vt.shape[0] < n_features or vt.shape[1] != n_bins
                     or vt.shape[2] != n_classes):
            if n == 0 and vt.shape[1] == 0:
                return  # no rows, a tally of no bins: nothing to count, nothing written
            raise ValueError("fill_histograms: tally must have the histograms' shape")
        if vb.itemsize == 1:
            if wide:
                _fill_run(<const uint8_t*> vb.buf, s0, s1, <const int64_t*> vr.buf, n,
                          <const int32_t*> vy.buf, <const double*> vw.buf, unit,
                          <int64_t*> vt.buf, <double*> vh.buf, <int64_t*> vc.buf,
                          n_features, n_bins, n_classes, n_blocks)
            else:
                _fill_run(<const uint8_t*> vb.buf, s0, s1, <const int64_t*> vr.buf, n,
                          <const int32_t*> vy.buf, <const double*> vw.buf, unit,
                          <int32_t*> vt.buf, <double*> vh.buf, <int64_t*> vc.buf,
                          n_features, n_bins, n_classes, n_blocks)
        elif wide:
            _fill_run(<const uint16_t*> vb.buf, s0, s1, <const int64_t*> vr.buf, n,
                      <const int32_t*> vy.buf, <const double*> vw.buf, unit,
                      <int64_t*> vt.buf, <double*> vh.buf, <int64_t*> vc.buf,
                      n_features, n_bins, n_classes, n_blocks)
        else:
            _fill_run(<const uint16_t*> vb.buf, s0, s1, <const int64_t*> vr.buf, n,
                      <const int32_t*> vy.buf, <const double*> vw.buf, unit,
                      <int32_t*> vt.buf, <double*> vh.buf, <int64_t*> vc.buf,
                      n_features, n_bins, n_classes, n_blocks)
    finally:
        _release(&b)


cdef Cut _scan_one(const double* hist, const int64_t* counts, int64_t n_bins,
                   int64_t missing_bin, Py_ssize_t n_classes, int criterion,
                   int64_t min_samples_leaf, double min_weight_leaf, const double* total,
                   int64_t n_total, double* left, double* right, double cst, double lower,
                   double upper) noexcept nogil:
    """Best cut of one numeric feature's histogram; ``hist``: (bins, classes) contiguous."""
    cdef int64_t n_missing = counts[missing_bin]
    cdef double best = -INFINITY, weight_left, weight_right, proxy
    cdef int64_t best_bin = -1, last_known = -1, b, n_left, n_right, next_bin
    cdef bint best_missing_left = False, missing_left
    cdef int passes, pass_index
    cdef Py_ssize_t k
    cdef Cut out
    for b in range(n_bins):
        if counts[b] > 0:
            last_known = b
    if last_known < 0:
        out.proxy = best
        out.bin = best_bin
        out.missing_left = best_missing_left
        out.next_bin = n_bins
        return out
    passes = 2 if n_missing > 0 else 1
    for pass_index in range(passes):
        missing_left = pass_index == 1
        for k in range(n_classes):
            left[k] = hist[missing_bin * n_classes + k] if missing_left else 0.0
        n_left = n_missing if missing_left else 0
        for b in range(last_known + 1):
            if counts[b] == 0:
                continue
            for k in range(n_classes):
                left[k] += hist[b * n_classes + k]
            n_left += counts[b]
            if b == last_known and (missing_left or n_missing == 0):
                continue  # nothing would go right
            n_right = n_total - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            weight_left = 0.0
            weight_right = 0.0
            for k in range(n_classes):
                right[k] = total[k] - left[k]
                weight_left += left[k]
                weight_right += right[k]
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if weight_left <= 0.0 or weight_right <= 0.0:
                continue
            if cst != 0 and not monotone_ok(left, right, weight_left, weight_right, cst,
                                            lower, upper):
                continue
            proxy = split_proxy(left, right, n_classes, weight_left, weight_right, criterion)
            if proxy > best:
                best = proxy
                best_bin = b
                best_missing_left = missing_left if n_missing > 0 else n_left > n_right
    next_bin = best_bin + 1
    while next_bin < n_bins and counts[next_bin] == 0:
        next_bin += 1
    out.proxy = best
    out.bin = best_bin
    out.missing_left = best_missing_left
    out.next_bin = next_bin
    return out


cdef Cut _scan_gini(const double* hist, const int64_t* counts, int64_t n_bins,
                    int64_t missing_bin, Py_ssize_t n_classes, int64_t min_samples_leaf,
                    double min_weight_leaf, const double* total, int64_t n_total,
                    double* left) noexcept nogil:
    """``_scan_one`` for Gini without a monotonic constraint, in one pass over the classes
    per bin."""
    cdef int64_t n_missing = counts[missing_bin]
    cdef double best = -INFINITY, weight_left, weight_right, squares_left, squares_right
    cdef double class_left, class_right, proxy
    cdef int64_t best_bin = -1, last_known = -1, b, n_left, n_right, next_bin
    cdef bint best_missing_left = False, missing_left
    cdef int passes, pass_index
    cdef Py_ssize_t k
    cdef const double* h
    cdef Cut out
    for b in range(n_bins):
        if counts[b] > 0:
            last_known = b
    if last_known < 0:
        out.proxy = best
        out.bin = best_bin
        out.missing_left = best_missing_left
        out.next_bin = n_bins
        return out
    passes = 2 if n_missing > 0 else 1
    for pass_index in range(passes):
        missing_left = pass_index == 1
        for k in range(n_classes):
            left[k] = hist[missing_bin * n_classes + k] if missing_left else 0.0
        n_left = n_missing if missing_left else 0
        for b in range(last_known + 1):
            if counts[b] == 0:
                continue
            weight_left = 0.0
            weight_right = 0.0
            squares_left = 0.0
            squares_right = 0.0
            h = hist + b * n_classes
            for k in range(n_classes):
                class_left = left[k] + h[k]
                left[k] = class_left
                class_right = total[k] - class_left
                weight_left += class_left
                weight_right += class_right
                squares_left += class_left * class_left
                squares_right += class_right * class_right
            n_left += counts[b]
            if b == last_known and (missing_left or n_missing == 0):
                continue  # nothing would go right
            n_right = n_total - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if weight_left <= 0.0 or weight_right <= 0.0:
                continue
            proxy = squares_left / weight_left + squares_right / weight_right
            if proxy > best:
                best = proxy
                best_bin = b
                best_missing_left = missing_left if n_missing > 0 else n_left > n_right
    next_bin = best_bin + 1
    while next_bin < n_bins and counts[next_bin] == 0:
        next_bin += 1
    out.proxy = best
    out.bin = best_bin
    out.missing_left = best_missing_left
    out.next_bin = next_bin
    return out


cdef inline Cut _scan_feature(const double* hist, const int64_t* counts, int64_t n_bins,
                              int64_t missing_bin, Py_ssize_t n_classes, int criterion,
                              int64_t min_samples_leaf, double min_weight_leaf,
                              const double* total, int64_t n_total, double* left,
                              double* right, double cst, double lower,
                              double upper) noexcept nogil:
    if criterion == GINI and cst == 0:
        return _scan_gini(hist, counts, n_bins, missing_bin, n_classes, min_samples_leaf,
                          min_weight_leaf, total, n_total, left)
    return _scan_one(hist, counts, n_bins, missing_bin, n_classes, criterion,
                     min_samples_leaf, min_weight_leaf, total, n_total, left, right, cst,
                     lower, upper)


def scan_histograms(hist, counts, features, n_bins, int64_t missing_bin, int criterion,
                    int64_t min_samples_leaf, double min_weight_leaf, total, int64_t n_total,
                    monotonic, double lower, double upper, out_proxy, out_bin,
                    out_missing_left, out_next_bin):
    """Best cut per numeric feature (``features`` index rows of hist). One thread."""
    cdef Buffers b
    cdef Py_buffer* vh
    cdef Py_buffer* vc
    cdef Py_buffer* vf
    cdef Py_buffer* vn
    cdef Py_buffer* vt
    cdef Py_buffer* vm
    cdef Py_buffer* vp
    cdef Py_buffer* vbin
    cdef Py_buffer* vml
    cdef Py_buffer* vnb
    cdef Py_ssize_t n_features, n_slots, n_classes, m, j, i
    cdef double scratch[66]
    cdef double* left = scratch
    cdef const double* h
    cdef const int64_t* c
    cdef const int64_t* f
    cdef const int64_t* nb
    cdef const int8_t* mono
    cdef const double* t
    cdef double* o_proxy
    cdef int64_t* o_bin
    cdef uchar* o_ml
    cdef int64_t* o_next
    cdef bint bad = False
    cdef Cut cut
    b.n = 0
    try:
        vh = _take_input(&b, hist, 3, K_F64, np.float64, "scan_histograms: hist")
        vc = _take_input(&b, counts, 2, K_I64, np.int64, "scan_histograms: counts")
        vf = _take_input(&b, features, 1, K_I64, np.int64, "scan_histograms: features")
        vn = _take_input(&b, n_bins, 1, K_I64, np.int64, "scan_histograms: n_bins")
        vt = _take_input(&b, total, 1, K_F64, np.float64, "scan_histograms: total")
        vm = _take_input(&b, monotonic, 1, K_I8, np.int8, "scan_histograms: monotonic")
        vp = _take(&b, out_proxy, 1, K_F64, True, "scan_histograms: out_proxy")
        vbin = _take(&b, out_bin, 1, K_I64, True, "scan_histograms: out_bin")
        vml = _take(&b, out_missing_left, 1, K_U8, True, "scan_histograms: out_missing_left")
        vnb = _take(&b, out_next_bin, 1, K_I64, True, "scan_histograms: out_next_bin")
        n_features = vh.shape[0]
        n_slots = vh.shape[1]
        n_classes = vh.shape[2]
        m = vf.shape[0]
        if (vc.shape[0] != n_features or vc.shape[1] != n_slots or vn.shape[0] < n_features
                or vm.shape[0] < n_features or vt.shape[0] < n_classes or vp.shape[0] < m
                or vbin.shape[0] < m or vml.shape[0] < m or vnb.shape[0] < m
                or missing_bin < 0 or missing_bin >= n_slots):
            raise ValueError("scan_histograms: arrays of inconsistent shapes")
        if 2 * (n_classes + 1) > 66:
            left = <double*> malloc(2 * (n_classes + 1) * sizeof(double))
            if left == NULL:
                raise MemoryError()
        h = <const double*> vh.buf
        c = <const int64_t*> vc.buf
        f = <const int64_t*> vf.buf
        nb = <const int64_t*> vn.buf
        mono = <const int8_t*> vm.buf
        t = <const double*> vt.buf
        o_proxy = <double*> vp.buf
        o_bin = <int64_t*> vbin.buf
        o_ml = <uchar*> vml.buf
        o_next = <int64_t*> vnb.buf
        with nogil:
            for j in range(m):
                i = f[j]
                if i < 0 or i >= n_features or nb[i] < 0 or nb[i] > n_slots:
                    bad = True
                    break
                cut = _scan_feature(h + i * n_slots * n_classes, c + i * n_slots, nb[i],
                                    missing_bin, n_classes, criterion, min_samples_leaf,
                                    min_weight_leaf, t, n_total, left, left + n_classes + 1,
                                    mono[i], lower, upper)
                o_proxy[j] = cut.proxy
                o_bin[j] = cut.bin
                o_ml[j] = cut.missing_left
                o_next[j] = cut.next_bin
        if bad:
            raise IndexError("scan_histograms: a feature or its bin count is out of range")
    finally:
        if left != scratch:
            free(left)
        _release(&b)


cdef inline int64_t _partition_by_bin(const bin_t* binned_row, Py_ssize_t stride,
                                      int64_t* rows, Py_ssize_t start, Py_ssize_t end,
                                      const uchar* goes_left_bin,
                                      int64_t* buffer) noexcept nogil:
    cdef int64_t n_left = 0, n_right = 0, r
    cdef Py_ssize_t p, k
    for p in range(start, end):
        r = rows[p]
        if goes_left_bin[binned_row[r * stride]]:
            rows[start + n_left] = r
            n_left += 1
        else:
            buffer[n_right] = r
            n_right += 1
    for k in range(n_right):
        rows[start + n_left + k] = buffer[k]
    return n_left


def partition_by_bin(binned_row, rows, Py_ssize_t start, Py_ssize_t end, goes_left_bin,
                     buffer):
    """Stable in-place partition of rows[start:end]: rows whose bin is flagged in
    ``goes_left_bin`` first. Returns the number that go left."""
    cdef Buffers b
    cdef Py_buffer* vb
    cdef Py_buffer* vr
    cdef Py_buffer* vg
    cdef Py_buffer* vbuf
    cdef int64_t n_left
    cdef Py_ssize_t stride
    b.n = 0
    try:
        vb = _take_bins(&b, binned_row, 1, False, "partition_by_bin: binned_row")
        vr = _take(&b, rows, 1, K_I64, True, "partition_by_bin: rows")
        vg = _take_input(&b, goes_left_bin, 1, K_U8, np.bool_, "partition_by_bin: goes_left_bin")
        vbuf = _take(&b, buffer, 1, K_I64, True, "partition_by_bin: buffer")
        if start < 0 or end > vr.shape[0] or (end > start and vbuf.shape[0] < end - start):
            raise ValueError("partition_by_bin: start:end out of the rows or the buffer")
        stride = vb.strides[0] // vb.itemsize
        with nogil:
            if vb.itemsize == 1:
                n_left = _partition_by_bin(<const uint8_t*> vb.buf, stride, <int64_t*> vr.buf,
                                           start, end, <const uchar*> vg.buf,
                                           <int64_t*> vbuf.buf)
            else:
                n_left = _partition_by_bin(<const uint16_t*> vb.buf, stride,
                                           <int64_t*> vr.buf, start, end,
                                           <const uchar*> vg.buf, <int64_t*> vbuf.buf)
    finally:
        _release(&b)
    return n_left


# -- the regression scan ------------------------------------------------------------------
cdef Cut _scan_sum(const double* hist, Py_ssize_t width, const int64_t* counts,
                   int64_t n_bins, int64_t missing_bin, int64_t min_samples_leaf,
                   double min_weight_leaf, double w_total, double s_total,
                   int64_t n_total) noexcept nogil:
    """Best cut of one numeric feature's sum histogram (bins, ``width``: W, S, ...)."""
    cdef int64_t n_missing = counts[missing_bin]
    cdef double best = -INFINITY, w_left, s_left, w_right, s_right, proxy
    cdef int64_t best_bin = -1, last_known = -1, b, n_left, n_right, next_bin
    cdef bint best_missing_left = False, missing_left
    cdef int passes, pass_index
    cdef Cut out
    for b in range(n_bins):
        if counts[b] > 0:
            last_known = b
    if last_known < 0:
        out.proxy = best
        out.bin = best_bin
        out.missing_left = best_missing_left
        out.next_bin = n_bins
        return out
    passes = 2 if n_missing > 0 else 1
    for pass_index in range(passes):
        missing_left = pass_index == 1
        w_left = hist[missing_bin * width] if missing_left else 0.0
        s_left = hist[missing_bin * width + 1] if missing_left else 0.0
        n_left = n_missing if missing_left else 0
        for b in range(last_known + 1):
            if counts[b] == 0:
                continue
            w_left += hist[b * width]
            s_left += hist[b * width + 1]
            n_left += counts[b]
            if b == last_known and (missing_left or n_missing == 0):
                continue  # nothing would go right
            n_right = n_total - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            w_right = w_total - w_left
            if w_left < min_weight_leaf or w_right < min_weight_leaf:
                continue
            if w_left <= 0.0 or w_right <= 0.0:
                continue
            s_right = s_total - s_left
            proxy = s_left * s_left / w_left + s_right * s_right / w_right
            if proxy > best:
                best = proxy
                best_bin = b
                best_missing_left = missing_left if n_missing > 0 else n_left > n_right
    next_bin = best_bin + 1
    while next_bin < n_bins and counts[next_bin] == 0:
        next_bin += 1
    out.proxy = best
    out.bin = best_bin
    out.missing_left = best_missing_left
    out.next_bin = next_bin
    return out


def scan_sum_histograms(hist, counts, features, n_bins, int64_t missing_bin,
                        int64_t min_samples_leaf, double min_weight_leaf, double w_total,
                        double s_total, int64_t n_total, out_proxy, out_bin,
                        out_missing_left, out_next_bin):
    """Best squared-error cut per numeric feature (``features`` index rows of hist), the
    outputs as ``scan_histograms``'."""
    cdef Buffers b
    cdef Py_buffer* vh
    cdef Py_buffer* vc
    cdef Py_buffer* vf
    cdef Py_buffer* vn
    cdef Py_buffer* vp
    cdef Py_buffer* vbin
    cdef Py_buffer* vml
    cdef Py_buffer* vnb
    cdef Py_ssize_t n_features, n_slots, width, m, j, i
    cdef const double* h
    cdef const int64_t* c
    cdef const int64_t* f
    cdef const int64_t* nb
    cdef bint bad = False
    cdef Cut cut
    b.n = 0
    try:
        vh = _take_input(&b, hist, 3, K_F64, np.float64, "scan_sum_histograms: hist")
        vc = _take_input(&b, counts, 2, K_I64, np.int64, "scan_sum_histograms: counts")
        vf = _take_input(&b, features, 1, K_I64, np.int64, "scan_sum_histograms: features")
        vn = _take_input(&b, n_bins, 1, K_I64, np.int64, "scan_sum_histograms: n_bins")
        vp = _take(&b, out_proxy, 1, K_F64, True, "scan_sum_histograms: out_proxy")
        vbin = _take(&b, out_bin, 1, K_I64, True, "scan_sum_histograms: out_bin")
        vml = _take(&b, out_missing_left, 1, K_U8, True,
                    "scan_sum_histograms: out_missing_left")
        vnb = _take(&b, out_next_bin, 1, K_I64, True, "scan_sum_histograms: out_next_bin")
        n_features = vh.shape[0]
        n_slots = vh.shape[1]
        width = vh.shape[2]
        m = vf.shape[0]
        if (vc.shape[0] != n_features or vc.shape[1] != n_slots or vn.shape[0] < n_features
                or width < 2 or vp.shape[0] < m or vbin.shape[0] < m or vml.shape[0] < m
                or vnb.shape[0] < m or missing_bin < 0 or missing_bin >= n_slots):
            raise ValueError("scan_sum_histograms: arrays of inconsistent shapes")
        h = <const double*> vh.buf
        c = <const int64_t*> vc.buf
        f = <const int64_t*> vf.buf
        nb = <const int64_t*> vn.buf
        with nogil:
            for j in range(m):
                i = f[j]
                if i < 0 or i >= n_features or nb[i] < 0 or nb[i] > n_slots:
                    bad = True
                    break
                cut = _scan_sum(h + i * n_slots * width, width, c + i * n_slots, nb[i],
                                missing_bin, min_samples_leaf, min_weight_leaf, w_total,
                                s_total, n_total)
                (<double*> vp.buf)[j] = cut.proxy
                (<int64_t*> vbin.buf)[j] = cut.bin
                (<uchar*> vml.buf)[j] = cut.missing_left
                (<int64_t*> vnb.buf)[j] = cut.next_bin
        if bad:
            raise IndexError("scan_sum_histograms: a feature or its bin count is out of range")
    finally:
        _release(&b)


# -- exact sums in limbs ------------------------------------------------------------------
cdef inline int64_t _bit_length(int64_t d) noexcept nogil:
    """Bits of 0 <= d < 2**53 (0 for 0): frexp of the float d, which is exact."""
    cdef int e
    if d == 0:
        return 0
    frexp(<double> d, &e)
    return e


def value_range(const double[:] values, int64_t[::1] out):
    """out[:] = (lowest set bit exponent, highest exponent e with |v| < 2**e, number of
    nonzero values) over the nonzero values; the first two are 0 when there are none."""
    cdef int64_t low = 1 << 30, high = -(1 << 30), nonzero = 0, mantissa, shift, lowest
    cdef Py_ssize_t i
    cdef double v, m
    cdef int e
    with nogil:
        for i in range(values.shape[0]):
            v = values[i]
            if v == 0.0:
                continue
            m = frexp(fabs(v), &e)
            mantissa = <int64_t> (m * 9007199254740992.0)  # m * 2**53, below 2**53
            shift = ctz64(<unsigned long long> mantissa)
            lowest = e - 53 + shift
            if lowest < low:
                low = lowest
            if e > high:
                high = e
            nonzero += 1
        if nonzero == 0:
            low = 0
            high = 0
        out[0] = low
        out[1] = high
        out[2] = nonzero


def to_limbs(const double[:] values, int64_t scale, Py_ssize_t offset, Py_ssize_t n_limbs,
             int64_t digit, int64_t[:, :] out):
    """out[r, offset + k] += digit k (base 2**digit, signed) of values[r] / 2**scale, for
    every row r."""
    cdef int64_t mask = (<int64_t> 1 << digit) - 1, mantissa, shift, s, sign, rest
    cdef Py_ssize_t r, k
    cdef double v, m
    cdef int e
    with nogil:
        for r in range(values.shape[0]):
            v = values[r]
            if v == 0.0:
                continue
            m = frexp(fabs(v), &e)
            mantissa = <int64_t> (m * 9007199254740992.0)
            shift = ctz64(<unsigned long long> mantissa)
            mantissa = mantissa >> shift
            s = e - 53 + shift - scale  # >= 0: the integer is mantissa << s
            k = s // digit
            shift = s % digit
            sign = 1 if v > 0.0 else -1
            out[r, offset + k] += sign * ((mantissa & ((<int64_t> 1 << (digit - shift)) - 1))
                                          << shift)
            rest = mantissa >> (digit - shift)
            while rest > 0 and k + 1 < n_limbs:
                k += 1
                out[r, offset + k] += sign * (rest & mask)
                rest >>= digit


cdef void _fill_ordered(const bin_t* bins, Py_ssize_t bins_stride, const int64_t* limbs,
                        Py_ssize_t limbs_stride, Py_ssize_t start, Py_ssize_t end,
                        Py_ssize_t n_sums, int64_t* hist, Py_ssize_t n_bins,
                        Py_ssize_t width, Py_ssize_t low, Py_ssize_t high) noexcept nogil:
    """hist[low:high] zeroed, then rows start:end added (the first n_sums limbs and a
    count; the common widths spelt out, so each row's limbs stay in registers)."""
    cdef Py_ssize_t count = width - 1, p, i, c
    cdef int64_t a0, a1, a2, a3
    cdef int64_t* cell
    cdef const bin_t* row
    cdef const int64_t* limb
    memset(hist + low * n_bins * width, 0, (high - low) * n_bins * width * sizeof(int64_t))
    if n_sums == 1:
        for p in range(start, end):
            row = bins + p * bins_stride
            a0 = limbs[p * limbs_stride]
            for i in range(low, high):
                cell = hist + (i * n_bins + row[i]) * width
                cell[0] += a0
                cell[count] += 1
    elif n_sums == 2:
        for p in range(start, end):
            row = bins + p * bins_stride
            limb = limbs + p * limbs_stride
            a0 = limb[0]
            a1 = limb[1]
            for i in range(low, high):
                cell = hist + (i * n_bins + row[i]) * width
                cell[0] += a0
                cell[1] += a1
                cell[count] += 1
    elif n_sums == 3:
        for p in range(start, end):
            row = bins + p * bins_stride
            limb = limbs + p * limbs_stride
            a0 = limb[0]
            a1 = limb[1]
            a2 = limb[2]
            for i in range(low, high):
                cell = hist + (i * n_bins + row[i]) * width
                cell[0] += a0
                cell[1] += a1
                cell[2] += a2
                cell[count] += 1
    elif n_sums == 4:
        for p in range(start, end):
            row = bins + p * bins_stride
            limb = limbs + p * limbs_stride
            a0 = limb[0]
            a1 = limb[1]
            a2 = limb[2]
            a3 = limb[3]
            for i in range(low, high):
                cell = hist + (i * n_bins + row[i]) * width
                cell[0] += a0
                cell[1] += a1
                cell[2] += a2
                cell[3] += a3
                cell[count] += 1
    else:
        for p in range(start, end):
            row = bins + p * bins_stride
            limb = limbs + p * limbs_stride
            for i in range(low, high):
                cell = hist + (i * n_bins + row[i]) * width
                for c in range(n_sums):
                    cell[c] += limb[c]
                cell[count] += 1


def fill_ordered_histograms(bins, limbs, Py_ssize_t start, Py_ssize_t end, Py_ssize_t n_sums,
                            hist, Py_ssize_t n_blocks):
    """hist[i, b, :n_sums] = the sum of ``limbs[p, :n_sums]`` over the rows p in
    start:end whose bin of feature i is b, hist[i, b, n_sums] their number; ``n_blocks`` > 1:
    blocks of features in parallel (integer sums: the same histograms)."""
    cdef Buffers b
    cdef Py_buffer* vb
    cdef Py_buffer* vl
    cdef Py_buffer* vh
    cdef Py_ssize_t n_features, n_bins, width, bs, ls, block
    cdef const uint8_t* b8
    cdef const uint16_t* b16
    cdef const int64_t* l
    cdef int64_t* h
    b.n = 0
    try:
        vb = _take_bins(&b, bins, 2, True, "fill_ordered_histograms: bins")
        vl = _take(&b, limbs, 2, K_I64, False, "fill_ordered_histograms: limbs")
        vh = _take(&b, hist, 3, K_I64, True, "fill_ordered_histograms: hist")
        n_features = vh.shape[0]
        n_bins = vh.shape[1]
        width = vh.shape[2]
        bs = vb.shape[1]
        ls = vl.shape[1]
        if (n_features > bs or n_sums < 0 or n_sums + 1 > width or n_sums > ls
                or vl.shape[0] != vb.shape[0] or start < 0 or end > vb.shape[0]):
            raise ValueError("fill_ordered_histograms: arrays of inconsistent shapes")
        b8 = <const uint8_t*> vb.buf
        b16 = <const uint16_t*> vb.buf
        l = <const int64_t*> vl.buf
        h = <int64_t*> vh.buf
        with nogil:
            if n_blocks > 1:
                for block in prange(n_blocks, schedule="static"):
                    if vb.itemsize == 1:
                        _fill_ordered(b8, bs, l, ls, start, end, n_sums, h, n_bins, width,
                                      block * n_features // n_blocks,
                                      (block + 1) * n_features // n_blocks)
                    else:
                        _fill_ordered(b16, bs, l, ls, start, end, n_sums, h, n_bins, width,
                                      block * n_features // n_blocks,
                                      (block + 1) * n_features // n_blocks)
            elif vb.itemsize == 1:
                _fill_ordered(b8, bs, l, ls, start, end, n_sums, h, n_bins, width, 0,
                              n_features)
            else:
                _fill_ordered(b16, bs, l, ls, start, end, n_sums, h, n_bins, width, 0,
                              n_features)
    finally:
        _release(&b)


cdef int64_t _partition_ordered(const bin_t* bins, Py_ssize_t bins_stride,
                                const uint64_t* words, uint64_t* out_words,
                                Py_ssize_t n_words, const int64_t* limbs, int64_t* out_limbs,
                                Py_ssize_t m, Py_ssize_t start, Py_ssize_t end,
                                Py_ssize_t feature, const uchar* goes_left_bin,
                                int64_t n_left, int64_t* left_sums) noexcept nogil:
    """``partition_ordered`` on C-contiguous copies (``left_sums``: m + 1)."""
    cdef Py_ssize_t p, k, c, q, q_left, q_right
    cdef const int64_t* limb
    if n_left < 0:
        n_left = 0
        for p in range(start, end):
            if goes_left_bin[bins[p * bins_stride + feature]]:
                n_left += 1
    for c in range(m + 1):
        left_sums[c] = 0
    q_left = start
    q_right = start + n_left
    for p in range(start, end):
        limb = limbs + p * m
        if goes_left_bin[bins[p * bins_stride + feature]]:
            q = q_left
            q_left += 1
            for c in range(m):
                left_sums[c] += limb[c]
        else:
            q = q_right
            q_right += 1
        for k in range(n_words):
            out_words[q * n_words + k] = words[p * n_words + k]
        for c in range(m):
            out_limbs[q * m + c] = limb[c]
    left_sums[m] = q_left - start
    return q_left - start


def partition_ordered(bins, words, limbs, out_words, out_limbs, Py_ssize_t start,
                      Py_ssize_t end, Py_ssize_t feature, goes_left_bin, int64_t n_left,
                      left_sums):
    """Stable partition of the rows start:end of a node-order copy into another;
    left_sums[:m] the left rows' limbs summed, left_sums[m] their number. ``n_left`` < 0:
    counted first. Returns n_left."""
    cdef Buffers b
    cdef Py_buffer* vb
    cdef Py_buffer* vw
    cdef Py_buffer* vl
    cdef Py_buffer* vow
    cdef Py_buffer* vol
    cdef Py_buffer* vg
    cdef Py_buffer* vs
    b.n = 0
    try:
        vb = _take_bins(&b, bins, 2, True, "partition_ordered: bins")
        vw = _take(&b, words, 2, K_U64, False, "partition_ordered: words")
        vl = _take(&b, limbs, 2, K_I64, False, "partition_ordered: limbs")
        vow = _take(&b, out_words, 2, K_U64, True, "partition_ordered: out_words")
        vol = _take(&b, out_limbs, 2, K_I64, True, "partition_ordered: out_limbs")
        vg = _take_input(&b, goes_left_bin, 1, K_U8, np.bool_,
                         "partition_ordered: goes_left_bin")
        vs = _take(&b, left_sums, 1, K_I64, True, "partition_ordered: left_sums")
        if (vw.shape[0] < end or vl.shape[0] < end or vb.shape[0] < end
                or vow.shape[0] < end or vol.shape[0] < end or start < 0
                or vow.shape[1] != vw.shape[1] or vol.shape[1] != vl.shape[1]
                or vs.shape[0] < vl.shape[1] + 1 or feature < 0 or feature >= vb.shape[1]
                or n_left > end - start):
            raise ValueError("partition_ordered: arrays of inconsistent shapes")
        with nogil:
            if vb.itemsize == 1:
                n_left = _partition_ordered(<const uint8_t*> vb.buf, vb.shape[1],
                                            <const uint64_t*> vw.buf, <uint64_t*> vow.buf,
                                            vw.shape[1], <const int64_t*> vl.buf,
                                            <int64_t*> vol.buf, vl.shape[1], start, end,
                                            feature, <const uchar*> vg.buf, n_left,
                                            <int64_t*> vs.buf)
            else:
                n_left = _partition_ordered(<const uint16_t*> vb.buf, vb.shape[1],
                                            <const uint64_t*> vw.buf, <uint64_t*> vow.buf,
                                            vw.shape[1], <const int64_t*> vl.buf,
                                            <int64_t*> vol.buf, vl.shape[1], start, end,
                                            feature, <const uchar*> vg.buf, n_left,
                                            <int64_t*> vs.buf)
    finally:
        _release(&b)
    return n_left


def add_limb_counts(const bin_t[:, :] binned, const int64_t[:, :] row_limbs,
                    const int32_t[:] hist_index, int64_t[:, :, :, :] out):
    """out[h, f, b, :] += row_limbs[r] for every row r with h = hist_index[r] >= 0 and
    b = binned[f, r]; ``binned`` is (n_features, n_rows) (the cluster's layout)."""
    cdef Py_ssize_t n_features = binned.shape[0], n_rows = binned.shape[1]
    cdef Py_ssize_t width = row_limbs.shape[1], f, r, c
    cdef int32_t h
    with nogil:
        for f in range(n_features):
            for r in range(n_rows):
                h = hist_index[r]
                if h >= 0:
                    for c in range(width):
                        out[h, f, binned[f, r], c] += row_limbs[r, c]


cdef double _round_one(const int64_t* limbs, Py_ssize_t n_limbs, int64_t scale,
                       int64_t digit, int64_t* digits) noexcept nogil:
    """The float64 nearest to sum_k limbs[k] * 2**(digit k + scale)."""
    cdef int64_t mask = (<int64_t> 1 << digit) - 1, carry = 0, t, add, acc, have, need
    cdef int64_t bits, low_exponent, mantissa, rest
    cdef Py_ssize_t k, n, top
    cdef bint negative, sticky
    cdef double value
    for k in range(n_limbs):
        t = limbs[k] + carry
        digits[k] = t & mask
        carry = t >> digit
    n = n_limbs
    while carry != 0 and carry != -1:  # a sum can outgrow its rows' digits
        digits[n] = carry & mask
        carry >>= digit
        n += 1
    negative = carry < 0
    if negative:  # two's complement: the magnitude's digits
        add = 1
        for k in range(n):
            t = (~digits[k] & mask) + add
            digits[k] = t & mask
            add = t >> digit
    top = n - 1
    while top >= 0 and digits[top] == 0:
        top -= 1
    if top < 0:
        return 0.0
    bits = _bit_length(digits[top])
    # the 62 highest bits of the magnitude in acc, whether any lower bit is set in sticky
    acc = digits[top]
    have = bits
    sticky = False
    k = top - 1
    while k >= 0:
        if have + digit <= 62:
            acc = (acc << digit) | digits[k]
            have += digit
        elif have < 62:
            need = 62 - have
            acc = (acc << need) | (digits[k] >> (digit - need))
            sticky = sticky or (digits[k] & ((<int64_t> 1 << (digit - need)) - 1)) != 0
            have = 62
        else:
            sticky = sticky or digits[k] != 0
        k -= 1
    low_exponent = digit * top + bits - 62  # exponent of acc's lowest bit (bit units)
    if have < 62:
        acc <<= 62 - have
    mantissa = acc >> 9
    rest = acc & 511
    if rest > 256 or (rest == 256 and (sticky or (mantissa & 1) == 1)):
        mantissa += 1
    value = ldexp(<double> mantissa, <int> (low_exponent + 9 + scale))
    return -value if negative else value


cdef void _round_sums(const int64_t* limbs, Py_ssize_t n, Py_ssize_t width,
                      const int64_t* offsets, const int64_t* sizes, const int64_t* scales,
                      int64_t digit, Py_ssize_t count, bint unit_weights,
                      Py_ssize_t n_quantities, double* out, int64_t* counts,
                      int64_t* digits) noexcept nogil:
    """``round_sums`` on C-contiguous (n, width) limbs and (n, 3) ``out``;
    ``counts`` NULL: none wanted; ``digits``: scratch of max(sizes) + DIGITS_EXTRA."""
    cdef int64_t mask = (<int64_t> 1 << digit) - 1, low, high, size, offset, scale
    cdef double base = <double> (<int64_t> 1 << digit), factor
    cdef Py_ssize_t i, q
    cdef bint quick
    cdef const int64_t* row
    if counts != NULL:
        for i in range(n):
            counts[i] = limbs[i * width + count]
    for q in range(n_quantities, 3):
        for i in range(n):
            out[i * 3 + q] = NAN
    for q in range(n_quantities):
        size = sizes[q]
        offset = offsets[q]
        scale = scales[q]
        if size == 0:
            for i in range(n):
                out[i * 3 + q] = (<double> limbs[i * width + count] if q == 0 and unit_weights
                                  else 0.0)
            continue
        quick = size <= 2 and -1074 <= scale <= 1023
        factor = ldexp(1.0, <int> scale) if quick else 0.0
        for i in range(n):
            row = limbs + i * width
            if row[count] == 0:
                out[i * 3 + q] = 0.0
                continue
            if quick:
                low = row[offset]
                high = low >> digit
                low &= mask
                if size == 2:
                    high += row[offset + 1]
                if -C_TWO_53 < high < C_TWO_53:
                    out[i * 3 + q] = (<double> high * base + <double> low) * factor
                    continue
            out[i * 3 + q] = _round_one(row + offset, size, scale, digit, digits)


def round_one(const int64_t[:, ::1] limbs, Py_ssize_t i, Py_ssize_t offset,
              Py_ssize_t n_limbs, int64_t scale, int64_t digit, int64_t[::1] digits):
    """``round_sums``' general rounding of one sum (for tests): the float64 nearest to
    sum_k limbs[i, offset + k] * 2**(digit k + scale); ``digits`` is scratch of at least
    ``n_limbs`` + 3 entries."""
    if offset + n_limbs > limbs.shape[1] or digits.shape[0] < n_limbs + 3:
        raise ValueError("limbs or digits too small")
    return _round_one(&limbs[i, offset], n_limbs, scale, digit, &digits[0])


cdef inline int64_t _largest(const int64_t* values, Py_ssize_t n) noexcept nogil:
    cdef int64_t best = 0
    cdef Py_ssize_t i
    for i in range(n):
        if i == 0 or values[i] > best:
            best = values[i]
    return best


def round_sums(limbs, offsets, sizes, scales, int64_t digit, Py_ssize_t count,
               bint unit_weights, Py_ssize_t n_quantities, out, counts):
    """out[i, q] for the first ``n_quantities`` quantities q of (W, S, Q): the float64
    nearest to the sum in ``limbs[i, offsets[q]:offsets[q] + sizes[q]]`` at scale
    ``scales[q]``; ``counts``, unless empty, gets each row count ``limbs[i, count]``."""
    cdef Buffers b
    cdef Py_buffer* vl
    cdef Py_buffer* vo
    cdef Py_buffer* vsz
    cdef Py_buffer* vsc
    cdef Py_buffer* vout
    cdef Py_buffer* vc
    cdef int64_t scratch[DIGITS_EXTRA + 16]
    cdef int64_t* digits = scratch
    cdef int64_t largest
    cdef const int64_t* o
    cdef const int64_t* sz
    cdef Py_ssize_t q, width, n
    b.n = 0
    try:
        vl = _take_input(&b, limbs, 2, K_I64, np.int64, "round_sums: limbs")
        vo = _take_input(&b, offsets, 1, K_I64, np.int64, "round_sums: offsets")
        vsz = _take_input(&b, sizes, 1, K_I64, np.int64, "round_sums: sizes")
        vsc = _take_input(&b, scales, 1, K_I64, np.int64, "round_sums: scales")
        vout = _take(&b, out, 2, K_F64, True, "round_sums: out")
        vc = _take(&b, counts, 1, K_I64, True, "round_sums: counts")
        n = vl.shape[0]
        width = vl.shape[1]
        o = <const int64_t*> vo.buf
        sz = <const int64_t*> vsz.buf
        if (vout.shape[0] < n or vout.shape[1] != 3 or n_quantities > 3
                or vo.shape[0] < n_quantities or vsz.shape[0] < n_quantities
                or vsc.shape[0] < n_quantities or (vc.shape[0] > 0 and vc.shape[0] < n)
                or (n > 0 and (count < 0 or count >= width))):
            raise ValueError("round_sums: arrays of inconsistent shapes")
        for q in range(n_quantities):
            if n > 0 and sz[q] > 0 and (o[q] < 0 or o[q] + sz[q] > width):
                raise ValueError("round_sums: a quantity's limbs lie outside the rows")
        largest = _largest(sz, vsz.shape[0])
        if largest > 16:
            digits = <int64_t*> malloc((largest + DIGITS_EXTRA) * sizeof(int64_t))
            if digits == NULL:
                raise MemoryError()
        with nogil:
            _round_sums(<const int64_t*> vl.buf, n, width, o, sz, <const int64_t*> vsc.buf,
                        digit, count, unit_weights, n_quantities, <double*> vout.buf,
                        <int64_t*> vc.buf if vc.shape[0] > 0 else NULL, digits)
    finally:
        if digits != scratch:
            free(digits)
        _release(&b)


# -- subtrees grown whole -----------------------------------------------------------------
cdef inline bint _is_leaf(int64_t n, int64_t depth, double weight, double impurity,
                          const int64_t* limits, double min_weight_leaf) noexcept nogil:
    """The builder's stopping rules; ``limits``: max_depth, min_samples_split and
    min_samples_leaf."""
    return (depth >= limits[0] or n < limits[1] or n < 2 * limits[2]
            or weight < 2 * min_weight_leaf or impurity <= DBL_EPSILON)


cdef inline bint _is_small(int64_t n, Py_ssize_t n_slots_bins) noexcept nogil:
    """Whether a node of n rows is searched in compact histograms (``SMALL_NODE``)."""
    return n < C_SMALL_NODE and n + 1 < n_slots_bins


cdef int64_t _compact(const bin_t* node_bins, Py_ssize_t n, int64_t missing_bin,
                      int64_t* slot, int64_t* present) noexcept nogil:
    """Number the known bins among ``node_bins[:n]`` (n < SMALL_NODE) in ascending order:
    ``slot[p]`` gets the compact index of row p's bin (n for the missing bin),
    ``present[c]`` the bin of compact index c. Returns how many bins are present."""
    cdef Py_ssize_t order[C_SMALL_NODE]
    cdef Py_ssize_t i, j, p
    cdef int64_t m = 0, previous = -1, b
    for i in range(n):  # insertion sort by bin
        b = node_bins[i]
        j = i
        while j > 0 and node_bins[order[j - 1]] > b:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    for i in range(n):
        p = order[i]
        b = node_bins[p]
        if b == missing_bin:
            slot[p] = n
            continue
        if b != previous:
            present[m] = b
            m += 1
            previous = b
        slot[p] = m - 1
    return m


cdef inline Py_ssize_t _first_best(const double* proxy, Py_ssize_t n) noexcept nogil:
    """The index of the largest proxy, the first among equals (``np.argmax``)."""
    cdef Py_ssize_t best = 0, j
    for j in range(1, n):
        if proxy[j] > proxy[best]:
            best = j
    return best


cdef inline bint _reserve(void** buffer, Py_ssize_t* capacity, Py_ssize_t size,
                          Py_ssize_t itemsize) noexcept nogil:
    """Grow ``*buffer`` (``*capacity`` items) to at least ``size`` items, twice its size
    when that is more, keeping its contents; False when out of memory (the buffer is left as
    it was)."""
    cdef Py_ssize_t new_capacity
    cdef void* grown
    if size <= capacity[0]:
        return True
    new_capacity = size if size > 2 * capacity[0] else 2 * capacity[0]
    grown = realloc(buffer[0], new_capacity * itemsize)
    if grown == NULL:
        return False
    buffer[0] = grown
    capacity[0] = new_capacity
    return True


cdef struct Outputs:
    int64_t* parent
    int64_t* branch
    int64_t* feature
    int64_t* last_bin
    int64_t* next_bin
    uchar* missing_left
    double* value
    Py_ssize_t value_width
    double* impurity
    int64_t* n
    double* weight


cdef inline void _record(Outputs* out, int64_t node, int64_t parent, int64_t branch,
                         double impurity, int64_t n, double weight) noexcept nogil:
    """Write a node's fields as a leaf (a split sets its feature later)."""
    out.parent[node] = parent
    out.branch[node] = branch
    out.feature[node] = -1
    out.impurity[node] = impurity
    out.n[node] = n
    out.weight[node] = weight


cdef Outputs _outputs(int64_t[::1] out_parent, int64_t[::1] out_branch,
                      int64_t[::1] out_feature, int64_t[::1] out_last_bin,
                      int64_t[::1] out_next_bin, uchar[::1] out_missing_left,
                      double[:, ::1] out_value, double[::1] out_impurity, int64_t[::1] out_n,
                      double[::1] out_weight):
    cdef Outputs out
    out.parent = &out_parent[0]
    out.branch = &out_branch[0]
    out.feature = &out_feature[0]
    out.last_bin = &out_last_bin[0]
    out.next_bin = &out_next_bin[0]
    out.missing_left = &out_missing_left[0]
    out.value = &out_value[0, 0]
    out.value_width = out_value.shape[1]
    out.impurity = &out_impurity[0]
    out.n = &out_n[0]
    out.weight = &out_weight[0]
    return out


cdef inline void _push_children(int64_t* stack, Py_ssize_t top, int64_t lo, int64_t mid,
                                int64_t hi, int64_t level, int64_t node) noexcept nogil:
    """Put a split's children on the stack at ``top`` (right) and ``top + 1`` (left), so
    that the left is visited first."""
    cdef int64_t* entry = stack + 5 * top
    entry[0] = mid
    entry[1] = hi
    entry[2] = level + 1
    entry[3] = node
    entry[4] = 1
    entry = stack + 5 * (top + 1)
    entry[0] = lo
    entry[1] = mid
    entry[2] = level + 1
    entry[3] = node
    entry[4] = 0


cdef int64_t _grow_subtree(
        const bin_t* binned_rows, Py_ssize_t br0, Py_ssize_t br1,
        const bin_t* binned, Py_ssize_t bf0, Py_ssize_t bf1, int64_t* rows, int64_t* buffer,
        const int32_t* y, const double* factor, bint unit, const double* root_hist,
        const int64_t* root_counts, const double* root_weights, Py_ssize_t n_features,
        Py_ssize_t n_slots_bins, Py_ssize_t n_classes, int64_t start, int64_t end,
        int64_t depth, const int64_t* n_bins, int64_t missing_bin, const int64_t* limits,
        const double* rules, double total_weight, int criterion,
        Outputs* out) noexcept nogil:
    """``grow_subtree``'s loop; -1 when out of memory."""
    cdef Py_ssize_t F = n_features, B = n_slots_bins, K = n_classes
    cdef Py_ssize_t hist_size = F * B * K, count_size = F * B
    cdef Py_ssize_t compact_size = F * (C_SMALL_NODE + 1) * K
    cdef int64_t min_samples_leaf = limits[2]
    cdef double min_weight_leaf = rules[0], min_decrease = rules[1]
    cdef int64_t result = -1
    # scratch (all freed at the end)
    cdef double* proxy = <double*> malloc(F * sizeof(double))
    cdef int64_t* last_bin = <int64_t*> malloc(F * sizeof(int64_t))
    cdef uchar* missing_left = <uchar*> malloc(F)
    cdef int64_t* next_bin = <int64_t*> malloc(F * sizeof(int64_t))
    cdef int32_t* tally = <int32_t*> malloc((hist_size + 1) * sizeof(int32_t))
    cdef int64_t* present = <int64_t*> malloc(F * (C_SMALL_NODE + 1) * sizeof(int64_t))
    cdef int64_t* present_bins = <int64_t*> malloc(F * sizeof(int64_t))
    cdef double* compact_hist = <double*> malloc((compact_size + 1) * sizeof(double))
    cdef int64_t* compact_count = <int64_t*> malloc(
        (F * (C_SMALL_NODE + 1) + 1) * sizeof(int64_t))
    cdef double* weighted = <double*> malloc(
        ((hist_size if hist_size > compact_size else compact_size) + 1) * sizeof(double))
    cdef double* small_buffers = <double*> malloc((8 * K + 8) * sizeof(double))
    cdef uchar* goes_left = <uchar*> malloc(B + 1)
    cdef Py_ssize_t hists_capacity = 32 * hist_size, counts_capacity = 32 * count_size
    cdef Py_ssize_t stack_capacity = 5 * C_STACK_START, weights_capacity = K * C_STACK_START
    cdef void* hists_memory = malloc((hists_capacity + 1) * sizeof(double))
    cdef void* counts_memory = malloc((counts_capacity + 1) * sizeof(int64_t))
    cdef void* stack_memory = malloc(stack_capacity * sizeof(int64_t))
    cdef void* weights_memory = malloc((weights_capacity + 1) * sizeof(double))
    cdef double* hists
    cdef int64_t* counts
    cdef int64_t* stack
    cdef double* stack_weights
    cdef double* total
    cdef double* child_counts
    cdef double* child_weights
    cdef double* scan_left
    cdef double* scan_right
    cdef double child_weight[2]
    cdef double child_impurity[2]
    cdef bin_t node_bins[C_SMALL_NODE]
    cdef int64_t slot[C_SMALL_NODE]
    cdef bint needed[2]
    cdef int64_t sizes[2]
    cdef Py_ssize_t top, k, b, i, f, c, slots, n_nodes = 0
    cdef int64_t lo, hi, level, parent, branch, n, node, searched_missing, mid, cut, cut_next
    cdef int64_t small, small_lo, small_hi, r
    cdef double weight, impurity, left, whole, improvement
    cdef double* value
    cdef double* hist
    cdef int64_t* count
    cdef double* searched
    cdef double* small_hist
    cdef double* part
    cdef double* larger
    cdef int64_t* small_count
    cdef int64_t* count_part
    cdef int64_t* count_larger
    cdef const int64_t* searched_bins
    cdef const bin_t* feature_row
    cdef bint compact, to_left
    cdef Cut found
    cdef Py_ssize_t best
    cdef bint failed
    failed = (proxy == NULL or last_bin == NULL or missing_left == NULL or next_bin == NULL
            or tally == NULL or present == NULL or present_bins == NULL
            or compact_hist == NULL or compact_count == NULL or weighted == NULL
            or small_buffers == NULL or goes_left == NULL or hists_memory == NULL
            or counts_memory == NULL or stack_memory == NULL or weights_memory == NULL)
    if not failed:
        total = small_buffers
        child_counts = small_buffers + K + 1
        child_weights = child_counts + 2 * K + 1
        scan_left = child_weights + 2 * K + 1
        scan_right = scan_left + K + 1
        hists = <double*> hists_memory
        counts = <int64_t*> counts_memory
        memcpy(hists, root_hist, hist_size * sizeof(double))
        memcpy(counts, root_counts, count_size * sizeof(int64_t))
        stack = <int64_t*> stack_memory
        stack_weights = <double*> weights_memory
        stack[0] = start
        stack[1] = end
        stack[2] = 0
        stack[3] = -1
        stack[4] = 0
        memcpy(stack_weights, root_weights, K * sizeof(double))
        top = 1
        while top > 0:
            top -= 1
            lo = stack[5 * top]
            hi = stack[5 * top + 1]
            level = stack[5 * top + 2]
            parent = stack[5 * top + 3]
            branch = stack[5 * top + 4]
            value = stack_weights + K * top
            weight = 0.0
            for k in range(K):
                weight += value[k]
            impurity = impurity_of(value, K, criterion)
            node = n_nodes
            n_nodes += 1
            n = hi - lo
            _record(out, node, parent, branch, impurity, n, weight)
            memcpy(out.value + node * out.value_width, value, K * sizeof(double))
            if _is_leaf(n, depth + level, weight, impurity, limits, min_weight_leaf):
                continue
            compact = _is_small(n, B)
            if compact:
                slots = n + 1
                searched_bins = present_bins
                searched_missing = n
                hist = compact_hist
                count = compact_count
                memset(hist, 0, F * slots * K * sizeof(double))
                memset(count, 0, F * slots * sizeof(int64_t))
                for f in range(F):
                    feature_row = binned + f * bf0
                    for i in range(n):
                        node_bins[i] = feature_row[rows[lo + i] * bf1]
                    present_bins[f] = _compact(node_bins, n, missing_bin, slot,
                                               present + f * (C_SMALL_NODE + 1))
                    for i in range(n):
                        hist[(f * slots + slot[i]) * K + y[rows[lo + i]]] += 1.0
                        count[f * slots + slot[i]] += 1
            else:
                slots = B
                searched_bins = n_bins
                searched_missing = missing_bin
                hist = hists + (2 * level + branch) * hist_size
                count = counts + (2 * level + branch) * count_size
            searched = hist
            if not unit:
                searched = weighted
                for i in range(F * slots):
                    for k in range(K):
                        searched[i * K + k] = hist[i * K + k] * factor[k]
            for k in range(K):
                total[k] = 0.0
            for b in range(slots):
                for k in range(K):
                    total[k] += searched[b * K + k]
            for f in range(F):
                found = _scan_feature(searched + f * slots * K, count + f * slots,
                                      searched_bins[f], searched_missing, K, criterion,
                                      min_samples_leaf, min_weight_leaf, total, n, scan_left,
                                      scan_right, 0.0, 0.0, 1.0)
                proxy[f] = found.proxy
                last_bin[f] = found.bin
                missing_left[f] = found.missing_left
                next_bin[f] = found.next_bin
            best = _first_best(proxy, F)
            if proxy[best] == -INFINITY:
                continue
            f = best
            to_left = missing_left[best]
            # the children's class counts, weights and impurities, from the split's histogram
            for k in range(K):
                left = 0.0
                whole = 0.0
                for b in range(slots):
                    whole += hist[(f * slots + b) * K + k]
                    if b <= last_bin[f] or (b == searched_missing and to_left):
                        left += hist[(f * slots + b) * K + k]
                child_counts[k] = left
                child_counts[K + k] = whole - left
            if compact:
                cut = present[f * (C_SMALL_NODE + 1) + last_bin[f]]
                cut_next = (present[f * (C_SMALL_NODE + 1) + next_bin[f]]
                            if next_bin[f] < present_bins[f] else n_bins[f])
            else:
                cut = last_bin[f]
                cut_next = next_bin[f]
            for c in range(2):
                child_weight[c] = 0.0
                for k in range(K):
                    child_weights[c * K + k] = child_counts[c * K + k] * factor[k]
                    child_weight[c] += child_weights[c * K + k]
                child_impurity[c] = impurity_of(child_weights + c * K, K, criterion)
            improvement = (weight / total_weight) * (
                impurity - child_weight[1] / weight * child_impurity[1]
                - child_weight[0] / weight * child_impurity[0])
            if improvement + DBL_EPSILON < min_decrease:
                continue
            for b in range(B):
                goes_left[b] = b <= cut or (b == missing_bin and to_left)
            mid = lo + _partition_by_bin(binned + f * bf0, bf1, rows, lo, hi, goes_left,
                                         buffer)
            out.feature[node] = f
            out.last_bin[node] = cut
            out.next_bin[node] = cut_next
            out.missing_left[node] = to_left
            # the full histograms of the children that may split and are not small
            sizes[0] = mid - lo
            sizes[1] = hi - mid
            for c in range(2):
                needed[c] = (not _is_leaf(sizes[c], depth + level + 1, child_weight[c],
                                          child_impurity[c], limits, min_weight_leaf)
                             and not _is_small(sizes[c], B))
            if needed[0] or needed[1]:
                if 2 * (level + 2) * hist_size > hists_capacity:
                    if not (_reserve(&hists_memory, &hists_capacity,
                                     2 * (level + 2) * hist_size, sizeof(double))
                            and _reserve(&counts_memory, &counts_capacity,
                                         2 * (level + 2) * count_size, sizeof(int64_t))):
                        break
                    hists = <double*> hists_memory
                    counts = <int64_t*> counts_memory
                small = 0 if sizes[0] <= sizes[1] else 1
                if small == 0:
                    small_lo = lo
                    small_hi = mid
                else:
                    small_lo = mid
                    small_hi = hi
                small_hist = hists + (2 * (level + 1) + small) * hist_size
                small_count = counts + (2 * (level + 1) + small) * count_size
                _count_features(binned_rows, br0, br1, rows + small_lo, small_hi - small_lo,
                                y, tally, small_hist, small_count, B, K, 0, F)
                if needed[1 - small]:
                    part = hists + (2 * level + branch) * hist_size
                    larger = hists + (2 * (level + 1) + 1 - small) * hist_size
                    for i in range(hist_size):
                        larger[i] = part[i] - small_hist[i]
                    count_part = counts + (2 * level + branch) * count_size
                    count_larger = counts + (2 * (level + 1) + 1 - small) * count_size
                    for i in range(count_size):
                        count_larger[i] = count_part[i] - small_count[i]
            if 5 * (top + 2) > stack_capacity:
                if not (_reserve(&stack_memory, &stack_capacity, 5 * (top + 2),
                                 sizeof(int64_t))
                        and _reserve(&weights_memory, &weights_capacity, K * (top + 2),
                                     sizeof(double))):
                    break
                stack = <int64_t*> stack_memory
                stack_weights = <double*> weights_memory
            memcpy(stack_weights + K * top, child_weights + K, K * sizeof(double))
            memcpy(stack_weights + K * (top + 1), child_weights, K * sizeof(double))
            _push_children(stack, top, lo, mid, hi, level, node)
            top += 2
        else:
            result = n_nodes
    free(proxy)
    free(last_bin)
    free(missing_left)
    free(next_bin)
    free(tally)
    free(present)
    free(present_bins)
    free(compact_hist)
    free(compact_count)
    free(weighted)
    free(small_buffers)
    free(goes_left)
    free(hists_memory)
    free(counts_memory)
    free(stack_memory)
    free(weights_memory)
    return result


def grow_subtree(const bin_t[:, :] binned_rows, const bin_t[:, :] binned, int64_t[::1] rows,
                 int64_t[::1] buffer, const int32_t[::1] y, const double[::1] factor,
                 bint unit, const double[:, :, ::1] root_hist,
                 const int64_t[:, ::1] root_counts, const double[::1] root_weights,
                 int64_t start, int64_t end, int64_t depth, const int64_t[::1] n_bins,
                 int64_t missing_bin, const int64_t[::1] limits, const double[::1] rules,
                 double total_weight, int criterion, int64_t[::1] out_parent,
                 int64_t[::1] out_branch, int64_t[::1] out_feature, int64_t[::1] out_last_bin,
                 int64_t[::1] out_next_bin, uchar[::1] out_missing_left,
                 double[:, ::1] out_value, double[::1] out_impurity, int64_t[::1] out_n,
                 double[::1] out_weight):
    """Grow the segment ``rows[start:end]`` (at ``depth``) into a subtree, depth first:
    the nodes in the Python builder's order (pre-order) in the outputs, ``rows[start:end]``
    partitioned as the splits go. Returns the number of nodes."""
    cdef Outputs out = _outputs(out_parent, out_branch, out_feature, out_last_bin,
                                out_next_bin, out_missing_left, out_value, out_impurity,
                                out_n, out_weight)
    cdef int64_t size
    with nogil:
        size = _grow_subtree(
            &binned_rows[0, 0], binned_rows.strides[0] // sizeof(bin_t),
            binned_rows.strides[1] // sizeof(bin_t), &binned[0, 0],
            binned.strides[0] // sizeof(bin_t), binned.strides[1] // sizeof(bin_t),
            &rows[0], &buffer[0], &y[0], &factor[0], unit, &root_hist[0, 0, 0],
            &root_counts[0, 0], &root_weights[0], root_hist.shape[0], root_hist.shape[1],
            root_hist.shape[2], start, end, depth, &n_bins[0], missing_bin, &limits[0],
            &rules[0], total_weight, criterion, &out)
    if size < 0:
        raise MemoryError()
    return size


cdef struct SumLayout:
    const int64_t* offsets
    const int64_t* sizes
    const int64_t* scales


cdef int64_t _grow_sum_subtree(
        const bin_t* bins0, const bin_t* bins1, Py_ssize_t bins_stride,
        const uint64_t* words0, const uint64_t* words1, Py_ssize_t n_words,
        const int64_t* limbs0, const int64_t* limbs1, Py_ssize_t m, int64_t copy,
        const int64_t* root_hist, const int64_t* root_totals, Py_ssize_t width,
        const double* root_sums, Py_ssize_t n_features, Py_ssize_t n_slots_bins,
        Py_ssize_t hist_width, int64_t start, int64_t end, int64_t depth,
        SumLayout layout, SumLayout hist_layout, const int64_t* n_bins, int64_t missing_bin,
        const int64_t* limits, const double* rules, double total_weight,
        Outputs* out) noexcept nogil:
    """``grow_sum_subtree``'s loop; -1 when out of memory."""
    cdef Py_ssize_t F = n_features, B = n_slots_bins, W = hist_width
    cdef Py_ssize_t n_sums = W - 1, hist_size = F * B * W
    cdef int64_t digit = limits[3], count_column = limits[4], hist_count = limits[5]
    cdef bint unit = limits[6] != 0
    cdef int64_t min_samples_leaf = limits[2]
    cdef double min_weight_leaf = rules[0], min_decrease = rules[1]
    cdef Py_ssize_t cells = F * (B if B > C_SMALL_NODE + 1 else C_SMALL_NODE + 1)
    cdef int64_t largest = _largest(layout.sizes, 3)
    cdef int64_t result = -1
    cdef double* proxy
    cdef int64_t* last_bin
    cdef uchar* missing_left
    cdef int64_t* next_bin
    cdef int64_t* present
    cdef int64_t* present_bins
    cdef int64_t* compact_hist
    cdef double* sums
    cdef int64_t* counts
    cdef uchar* goes_left
    cdef int64_t* children
    cdef int64_t* digits
    cdef Py_ssize_t hists_capacity = 32 * hist_size, stack_capacity = 5 * C_STACK_START
    cdef Py_ssize_t totals_capacity = width * C_STACK_START, sums_capacity = 3 * C_STACK_START
    cdef void* hists_memory
    cdef void* stack_memory
    cdef void* totals_memory
    cdef void* sums_memory
    cdef int64_t* hists
    cdef int64_t* stack
    cdef int64_t* stack_totals
    cdef double* stack_sums
    cdef double child_sums[6]
    cdef double child_impurity[2]
    cdef bin_t node_bins[C_SMALL_NODE]
    cdef int64_t slot[C_SMALL_NODE]
    cdef bint needed[2]
    cdef int64_t sizes[2]
    cdef Py_ssize_t top, b, i, j, f, c, slots, used, n_nodes = 0, best
    cdef int64_t lo, hi, level, parent, branch, n, node, searched_missing, mid, cut, cut_next
    cdef int64_t small, small_lo, small_hi, n_left, k
    cdef double w, s, q, impurity, improvement, w_total, s_total
    cdef double* sums_of_node
    cdef int64_t* totals
    cdef int64_t* hist
    cdef int64_t* small_hist
    cdef int64_t* part
    cdef int64_t* larger
    cdef int64_t* cell
    cdef const bin_t* node_order
    cdef const int64_t* node_limbs
    cdef const int64_t* searched_bins
    cdef bint compact, to_left, failed
    cdef Cut found
    if _largest(hist_layout.sizes, 3) > largest:
        largest = _largest(hist_layout.sizes, 3)
    proxy = <double*> malloc(F * sizeof(double))
    last_bin = <int64_t*> malloc(F * sizeof(int64_t))
    missing_left = <uchar*> malloc(F)
    next_bin = <int64_t*> malloc(F * sizeof(int64_t))
    present = <int64_t*> malloc(F * (C_SMALL_NODE + 1) * sizeof(int64_t))
    present_bins = <int64_t*> malloc(F * sizeof(int64_t))
    compact_hist = <int64_t*> malloc((F * (C_SMALL_NODE + 1) * W + 1) * sizeof(int64_t))
    sums = <double*> malloc((cells * 3 + 1) * sizeof(double))
    counts = <int64_t*> malloc((cells + 1) * sizeof(int64_t))
    goes_left = <uchar*> malloc(B + 1)
    children = <int64_t*> malloc(2 * width * sizeof(int64_t))
    digits = <int64_t*> malloc((largest + DIGITS_EXTRA) * sizeof(int64_t))
    hists_memory = malloc((hists_capacity + 1) * sizeof(int64_t))
    stack_memory = malloc(stack_capacity * sizeof(int64_t))
    totals_memory = malloc((totals_capacity + 1) * sizeof(int64_t))
    sums_memory = malloc(sums_capacity * sizeof(double))
    failed = (proxy == NULL or last_bin == NULL or missing_left == NULL or next_bin == NULL
              or present == NULL or present_bins == NULL or compact_hist == NULL
              or sums == NULL or counts == NULL or goes_left == NULL or children == NULL
              or digits == NULL or hists_memory == NULL or stack_memory == NULL
              or totals_memory == NULL or sums_memory == NULL)
    if not failed:
        hists = <int64_t*> hists_memory
        memcpy(hists, root_hist, hist_size * sizeof(int64_t))
        stack = <int64_t*> stack_memory
        stack_totals = <int64_t*> totals_memory
        stack_sums = <double*> sums_memory
        stack[0] = start
        stack[1] = end
        stack[2] = 0
        stack[3] = -1
        stack[4] = 0
        memcpy(stack_totals, root_totals, width * sizeof(int64_t))
        memcpy(stack_sums, root_sums, 3 * sizeof(double))
        top = 1
        while top > 0:
            top -= 1
            lo = stack[5 * top]
            hi = stack[5 * top + 1]
            level = stack[5 * top + 2]
            parent = stack[5 * top + 3]
            branch = stack[5 * top + 4]
            sums_of_node = stack_sums + 3 * top
            w = sums_of_node[0]
            s = sums_of_node[1]
            q = sums_of_node[2]
            totals = stack_totals + width * top
            impurity = _squared_error(w, s, q)
            node = n_nodes
            n_nodes += 1
            n = hi - lo
            _record(out, node, parent, branch, impurity, n, w)
            out.value[node * out.value_width] = s / w if w > 0 else 0.0
            if _is_leaf(n, depth + level, w, impurity, limits, min_weight_leaf):
                continue
            k = (copy + level) % 2
            compact = _is_small(n, B)
            if compact:
                slots = n + 1
                searched_bins = present_bins
                searched_missing = n
                hist = compact_hist
                memset(hist, 0, F * slots * W * sizeof(int64_t))
                node_order = bins0 if k == 0 else bins1
                node_limbs = limbs0 if k == 0 else limbs1
                for f in range(F):
                    for i in range(n):
                        node_bins[i] = node_order[(lo + i) * bins_stride + f]
                    present_bins[f] = _compact(node_bins, n, missing_bin, slot,
                                               present + f * (C_SMALL_NODE + 1))
                    for i in range(n):
                        cell = hist + (f * slots + slot[i]) * W
                        for j in range(n_sums):
                            cell[j] += node_limbs[(lo + i) * m + j]
                        cell[n_sums] += 1
            else:
                slots = B
                searched_bins = n_bins
                searched_missing = missing_bin
                hist = hists + (2 * level + branch) * hist_size
            used = F * slots
            _round_sums(hist, used, W, hist_layout.offsets, hist_layout.sizes,
                        hist_layout.scales, digit, hist_count, unit, 2, sums, counts, digits)
            w_total = 0.0
            s_total = 0.0
            for b in range(slots):
                w_total += sums[b * 3]
                s_total += sums[b * 3 + 1]
            for f in range(F):
                found = _scan_sum(sums + f * slots * 3, 3, counts + f * slots,
                                  searched_bins[f], searched_missing, min_samples_leaf,
                                  min_weight_leaf, w_total, s_total, n)
                proxy[f] = found.proxy
                last_bin[f] = found.bin
                missing_left[f] = found.missing_left
                next_bin[f] = found.next_bin
            best = _first_best(proxy, F)
            if proxy[best] == -INFINITY:
                continue
            f = best
            to_left = missing_left[best]
            n_left = 0
            for b in range(slots):
                if b <= last_bin[f] or (b == searched_missing and to_left):
                    n_left += counts[f * slots + b]
            if compact:
                cut = present[f * (C_SMALL_NODE + 1) + last_bin[f]]
                cut_next = (present[f * (C_SMALL_NODE + 1) + next_bin[f]]
                            if next_bin[f] < present_bins[f] else n_bins[f])
            else:
                cut = last_bin[f]
                cut_next = next_bin[f]
            for b in range(B):
                goes_left[b] = b <= cut or (b == missing_bin and to_left)
            if k == 0:
                n_left = _partition_ordered(bins0, bins_stride, words0, <uint64_t*> words1,
                                            n_words, limbs0, <int64_t*> limbs1, m, lo, hi, f,
                                            goes_left, n_left, children)
            else:
                n_left = _partition_ordered(bins1, bins_stride, words1, <uint64_t*> words0,
                                            n_words, limbs1, <int64_t*> limbs0, m, lo, hi, f,
                                            goes_left, n_left, children)
            mid = lo + n_left
            for i in range(width):
                children[width + i] = totals[i] - children[i]
            _round_sums(children, 2, width, layout.offsets, layout.sizes, layout.scales,
                        digit, count_column, unit, 3, child_sums, NULL, digits)
            for c in range(2):
                child_impurity[c] = _squared_error(child_sums[3 * c], child_sums[3 * c + 1],
                                                   child_sums[3 * c + 2])
            improvement = (w / total_weight) * (
                impurity - child_sums[3] / w * child_impurity[1]
                - child_sums[0] / w * child_impurity[0])
            if improvement + DBL_EPSILON < min_decrease:
                continue
            out.feature[node] = f
            out.last_bin[node] = cut
            out.next_bin[node] = cut_next
            out.missing_left[node] = to_left
            sizes[0] = mid - lo
            sizes[1] = hi - mid
            for c in range(2):
                needed[c] = (not _is_leaf(sizes[c], depth + level + 1, child_sums[3 * c],
                                          child_impurity[c], limits, min_weight_leaf)
                             and not _is_small(sizes[c], B))
            if needed[0] or needed[1]:
                if 2 * (level + 2) * hist_size > hists_capacity:
                    if not _reserve(&hists_memory, &hists_capacity,
                                    2 * (level + 2) * hist_size, sizeof(int64_t)):
                        break
                    hists = <int64_t*> hists_memory
                small = 0 if sizes[0] <= sizes[1] else 1
                if small == 0:
                    small_lo = lo
                    small_hi = mid
                else:
                    small_lo = mid
                    small_hi = hi
                small_hist = hists + (2 * (level + 1) + small) * hist_size
                if k == 0:  # the children's rows are in the other copy
                    _fill_ordered(bins1, bins_stride, limbs1, m, small_lo, small_hi, n_sums,
                                  small_hist, B, W, 0, F)
                else:
                    _fill_ordered(bins0, bins_stride, limbs0, m, small_lo, small_hi, n_sums,
                                  small_hist, B, W, 0, F)
                if needed[1 - small]:
                    part = hists + (2 * level + branch) * hist_size
                    larger = hists + (2 * (level + 1) + 1 - small) * hist_size
                    for i in range(hist_size):
                        larger[i] = part[i] - small_hist[i]
            if 5 * (top + 2) > stack_capacity:
                if not (_reserve(&stack_memory, &stack_capacity, 5 * (top + 2),
                                 sizeof(int64_t))
                        and _reserve(&totals_memory, &totals_capacity, width * (top + 2),
                                     sizeof(int64_t))
                        and _reserve(&sums_memory, &sums_capacity, 3 * (top + 2),
                                     sizeof(double))):
                    break
                stack = <int64_t*> stack_memory
                stack_totals = <int64_t*> totals_memory
                stack_sums = <double*> sums_memory
            memcpy(stack_totals + width * top, children + width, width * sizeof(int64_t))
            memcpy(stack_totals + width * (top + 1), children, width * sizeof(int64_t))
            memcpy(stack_sums + 3 * top, child_sums + 3, 3 * sizeof(double))
            memcpy(stack_sums + 3 * (top + 1), child_sums, 3 * sizeof(double))
            _push_children(stack, top, lo, mid, hi, level, node)
            top += 2
        else:
            result = n_nodes
    free(proxy)
    free(last_bin)
    free(missing_left)
    free(next_bin)
    free(present)
    free(present_bins)
    free(compact_hist)
    free(sums)
    free(counts)
    free(goes_left)
    free(children)
    free(digits)
    free(hists_memory)
    free(stack_memory)
    free(totals_memory)
    free(sums_memory)
    return result


cdef object _grow_sum(const bin_t[:, ::1] bins0, const bin_t[:, ::1] bins1, words, limbs,
                      int64_t copy, const int64_t[:, :, ::1] root_hist,
                      const int64_t[::1] root_totals, const double[::1] root_sums,
                      int64_t start, int64_t end, int64_t depth, layout, hist_layout,
                      const int64_t[::1] n_bins, int64_t missing_bin,
                      const int64_t[::1] limits, const double[::1] rules, double total_weight,
                      Outputs* out):
    cdef const uint64_t[:, ::1] words0 = words[0]
    cdef const uint64_t[:, ::1] words1 = words[1]
    cdef const int64_t[:, ::1] limbs0 = limbs[0]
    cdef const int64_t[:, ::1] limbs1 = limbs[1]
    cdef const int64_t[::1] offsets = layout[0]
    cdef const int64_t[::1] sizes = layout[1]
    cdef const int64_t[::1] scales = layout[2]
    cdef const int64_t[::1] hist_offsets = hist_layout[0]
    cdef const int64_t[::1] hist_sizes = hist_layout[1]
    cdef const int64_t[::1] hist_scales = hist_layout[2]
    cdef SumLayout rows_layout, sums_layout
    cdef int64_t size
    # the partition writes into the other copy: both must be writable, and alike
    if (bins0.shape[0] != bins1.shape[0] or bins0.shape[1] != bins1.shape[1]
            or words0.shape[1] != words1.shape[1] or limbs0.shape[1] != limbs1.shape[1]
            or words[0].flags.writeable is False or words[1].flags.writeable is False
            or limbs[0].flags.writeable is False or limbs[1].flags.writeable is False):
        raise ValueError("grow_sum_subtree: the two node-order copies differ or are read-only")
    if sizes.shape[0] < 3 or hist_sizes.shape[0] < 3:
        raise ValueError("grow_sum_subtree: a layout has fewer than 3 quantities")
    rows_layout.offsets = &offsets[0]
    rows_layout.sizes = &sizes[0]
    rows_layout.scales = &scales[0]
    sums_layout.offsets = &hist_offsets[0]
    sums_layout.sizes = &hist_sizes[0]
    sums_layout.scales = &hist_scales[0]
    with nogil:
        size = _grow_sum_subtree(
            &bins0[0, 0], &bins1[0, 0], bins0.shape[1], &words0[0, 0], &words1[0, 0],
            words0.shape[1], &limbs0[0, 0], &limbs1[0, 0], limbs0.shape[1], copy,
            &root_hist[0, 0, 0], &root_totals[0], root_totals.shape[0], &root_sums[0],
            root_hist.shape[0], root_hist.shape[1], root_hist.shape[2], start, end, depth,
            rows_layout, sums_layout, &n_bins[0], missing_bin, &limits[0], &rules[0],
            total_weight, out)
    if size < 0:
        raise MemoryError()
    return size


def grow_sum_subtree(bins, words, limbs, int64_t copy, root_hist, root_totals, root_sums,
                     int64_t start, int64_t end, int64_t depth, layout, hist_layout, n_bins,
                     int64_t missing_bin, limits, rules, double total_weight,
                     int64_t[::1] out_parent, int64_t[::1] out_branch,
                     int64_t[::1] out_feature, int64_t[::1] out_last_bin,
                     int64_t[::1] out_next_bin, uchar[::1] out_missing_left,
                     double[:, ::1] out_value, double[::1] out_impurity, int64_t[::1] out_n,
                     double[::1] out_weight):
    """``grow_subtree`` for the regression splitter's exact sums: the segment's rows in node
    order in copy ``copy`` of ``bins``/``words``/``limbs`` (pairs), ``root_hist`` its limb
    histograms, ``root_totals`` its limbs, ``root_sums`` its (W, S, Q);
    ``layout``/``hist_layout``: (offsets, sizes, scales). Writes the same node fields
    (value: the mean target); returns the number of nodes."""
    cdef Outputs out = _outputs(out_parent, out_branch, out_feature, out_last_bin,
                                out_next_bin, out_missing_left, out_value, out_impurity,
                                out_n, out_weight)
    if bins[0].dtype == np.uint8:
        return _grow_sum[uint8_t](bins[0], bins[1], words, limbs, copy, root_hist,
                                  root_totals, root_sums, start, end, depth, layout,
                                  hist_layout, n_bins, missing_bin, limits, rules,
                                  total_weight, &out)
    return _grow_sum[uint16_t](bins[0], bins[1], words, limbs, copy, root_hist, root_totals,
                               root_sums, start, end, depth, layout, hist_layout, n_bins,
                               missing_bin, limits, rules, total_weight, &out)
