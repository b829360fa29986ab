# cython: language_level=3
"""C4.5 (release 8, as Weka's J48 builds it): the grower's kernels, compiled.

The numeric cut scan, nominal tables, row routing and sorted columns; the growth loop;
collapse and pessimistic pruning with subtree raising; the node store. They compute exactly
what the numba build (commit b87f659) did, checked by tests/test_kernel_fixtures.py.
Conventions of docs/c45.md: F(x) = x log2 x (0 below 1e-6), comparisons with tolerance
1e-6; every sum is taken in loop order, as J48 adds.

The node store (``C45Store``) and the frontier (``C45Frontier``) are extension types
holding C arrays, so that the growth loop runs without the GIL from start to end (the
parallel grower runs several loops at once, each on a store and frontier of its own):

- a store holds one record per node (kind, feature, threshold, category, first child,
  number of branches, empty, depth) in one growable array, the children's node ids in
  another, and per node a ``NodeData`` block: its rows (into the grower's X), their
  (possibly fractional) weights and its class table. Blocks are reference counted
  (atomically): ``copy_store`` and the parallel grower's ``detach``/``attach`` share them,
  and pruning replaces a node's block, never writes into one;
- a frontier holds the nodes waiting to be expanded, last out first, each with its sorted
  numeric columns: a range of a reference-counted ``Columns`` block (the split of its
  parent's columns, all children side by side), or of arrays ``push``ed from Python,
  which the frontier keeps alive.
"""

cimport cython
from libc.math cimport INFINITY, NAN, fabs, floor, isnan, log2, pow, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from quercus._kernels._common cimport CATEGORICAL as K_CATEGORICAL
from quercus._kernels._common cimport LEAF as K_LEAF
from quercus._kernels._common cimport NUMERIC as K_NUMERIC
from quercus._kernels._common cimport WEIGHTED as K_WEIGHTED
from quercus._kernels._common cimport stable_argsort

import numpy as np

SMALL = 1e-6
# Below this many (rows x features) a node is scanned on one thread: starting threads costs
# more than it saves.
PARALLEL_MIN_WORK = 50_000
LEAF = K_LEAF
NUMERIC = K_NUMERIC
CATEGORICAL = K_CATEGORICAL
WEIGHTED = K_WEIGHTED  # missing_branch of a node whose missing values go down every branch

cdef double C_SMALL = 1e-6
cdef Py_ssize_t C_PARALLEL_MIN_WORK = 50_000

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static long long quercus_c45_incref(long long *p) { return _InterlockedIncrement64(p); }
    static long long quercus_c45_decref(long long *p) { return _InterlockedDecrement64(p); }
    #else
    static long long quercus_c45_incref(long long *p) {
        return __atomic_add_fetch(p, 1, __ATOMIC_RELAXED); }
    static long long quercus_c45_decref(long long *p) {
        return __atomic_sub_fetch(p, 1, __ATOMIC_ACQ_REL); }
    #endif
    """
    long long atomic_incref "quercus_c45_incref"(long long* p) noexcept nogil
    long long atomic_decref "quercus_c45_decref"(long long* p) noexcept nogil

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    #endif
    typedef void (*quercus_c45_body)(void *job, Py_ssize_t i, int thread);
    static int quercus_c45_max_threads(void) {
    #ifdef _OPENMP
        int n = omp_get_max_threads();
        return n > 0 ? n : 1;
    #else
        return 1;
    #endif
    }
    /* body(job, i, thread) for i in [0, n), the iterations shared one at a time among
       ``threads`` of OpenMP's threads (thread < threads): one parallel region, with a
       single barrier (its end) */
    static void quercus_c45_parallel_for(Py_ssize_t n, quercus_c45_body body, void *job,
                                         int threads) {
        Py_ssize_t i;
    #ifdef _OPENMP
        #pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (i = 0; i < n; i++) body(job, i, omp_get_thread_num());
    #else
        for (i = 0; i < n; i++) body(job, i, 0);
    #endif
    }
    """
    ctypedef void (*body_t "quercus_c45_body")(void* job, Py_ssize_t i,
                                              int thread) noexcept nogil
    int max_threads_c "quercus_c45_max_threads"() noexcept nogil
    void parallel_for "quercus_c45_parallel_for"(Py_ssize_t n, body_t body, void* job,
                                                 int threads) noexcept nogil


cdef enum:
    PAD = 32  # 8-byte items between two threads' scratch (written at every row)


ctypedef fused branch_t:
    int8_t
    int64_t


# -- small numeric helpers ------------------------------------------------------------------
cdef inline double xlog2x_c(double x) noexcept nogil:
    """F(x) = x log2 x, taken as 0 below 1e-6."""
    if x < C_SMALL:
        return 0.0
    return x * log2(x)


cdef inline double total_c(const double* values, Py_ssize_t n) noexcept nogil:
    """Sum in order (as J48 adds)."""
    cdef double out = 0.0
    cdef Py_ssize_t i
    for i in range(n):
        out += values[i]
    return out


cdef inline double amax_c(const double* values, Py_ssize_t n) noexcept nogil:
    """``array.max()`` of n >= 1 values: the first NaN met, else the largest."""
    cdef double best = values[0], v
    cdef Py_ssize_t i
    if isnan(best):
        return best
    for i in range(1, n):
        v = values[i]
        if isnan(v):
            return v
        if v > best:
            best = v
    return best


cdef inline Py_ssize_t known_count_c(const double* values, Py_ssize_t n) noexcept nogil:
    """Entries before the trailing missing values."""
    while n > 0 and isnan(values[n - 1]):
        n -= 1
    return n


cdef inline double min_split_c(double known, Py_ssize_t n_classes,
                               double min_leaf) noexcept nogil:
    """The least weight on each side of a cut: 10% of the known weight per class, between
    ``min_leaf`` and 25."""
    cdef double min_split = 0.1 * known / <double> n_classes
    if min_split <= min_leaf:
        return min_leaf
    if min_split > 25.0:
        return 25.0
    return min_split


ctypedef struct Mat:
    # a 2-D float64 array with any strides (bytes)
    const char* data
    Py_ssize_t s0
    Py_ssize_t s1
    Py_ssize_t rows
    Py_ssize_t cols


cdef inline double mat_at(const Mat* a, Py_ssize_t r, Py_ssize_t c) noexcept nogil:
    return (<const double*> (a.data + r * a.s0 + c * a.s1))[0]


cdef Mat make_mat(const double[:, :] a):
    cdef Mat out
    out.rows = a.shape[0]
    out.cols = a.shape[1]
    out.s0 = a.strides[0]
    out.s1 = a.strides[1]
    out.data = <const char*> &a[0, 0] if a.shape[0] > 0 and a.shape[1] > 0 else NULL
    return out


# -- the numeric cut scan (spec steps 17-19) -------------------------------------------------
ctypedef struct ScanResult:
    bint valid
    double gain
    double split_info
    double threshold


cdef inline void finish_c(const double* values, Py_ssize_t split_index, double best,
                          int64_t n_candidates, double node_weight, double known,
                          double weight_left, ScanResult* out) noexcept nogil:
    """(valid, corrected gain, split information, provisional threshold) of the best cut."""
    cdef double gain, low, high, threshold, weight_right, split_info
    out.valid = False
    out.gain = 0.0
    out.split_info = 0.0
    out.threshold = 0.0
    if n_candidates == 0:
        return
    gain = best - log2(<double> n_candidates) / node_weight
    if gain < C_SMALL:
        return
    low = values[split_index]
    high = values[split_index + 1]
    threshold = (low + high) / 2.0
    if threshold == high:
        threshold = low
    weight_right = known - weight_left
    split_info = (xlog2x_c(node_weight) - xlog2x_c(weight_left) - xlog2x_c(weight_right)
                  - xlog2x_c(node_weight - known))
    out.valid = True
    out.gain = gain
    out.split_info = split_info if known > C_SMALL else 0.0
    out.threshold = threshold


cdef void scan_whole_c(const double* values, const int32_t* classes, const double* weights,
                       Py_ssize_t n, Py_ssize_t n_classes, double min_leaf,
                       double node_weight, const double* xlogx_of_int, int64_t* scratch,
                       ScanResult* out) noexcept nogil:
    """``scan_one`` when every weight is a whole number: integer class counts, F looked up
    in ``xlogx_of_int`` (the same numbers the fractional scan computes, only faster)."""
    cdef Py_ssize_t n_known = known_count_c(values, n)
    cdef int64_t* right = scratch
    cdef int64_t* left = scratch + n_classes
    cdef Py_ssize_t p, c, split_index = -1
    cdef int64_t known_count = 0, w, n_left, n_right, best_left = 0, n_candidates = 0
    cdef double known, min_split, old, unknown_factor, best = 0.0
    cdef double bag_left, bag_right, numerator, gain
    for c in range(n_classes):
        right[c] = 0
        left[c] = 0
    for p in range(n_known):
        right[classes[p]] += <int64_t> weights[p]
    for c in range(n_classes):
        known_count += right[c]
    known = <double> known_count
    min_split = min_split_c(known, n_classes, min_leaf)
    if <double> n_known < 2.0 * min_split:
        out.valid = False
        out.gain = 0.0
        out.split_info = 0.0
        out.threshold = 0.0
        return
    old = xlogx_of_int[known_count]
    for c in range(n_classes):
        old -= xlogx_of_int[right[c]]
    unknown_factor = 1.0 - (node_weight - known) / node_weight
    n_left = 0
    n_right = known_count
    for p in range(n_known - 1):  # a cut between p and p + 1
        c = classes[p]
        w = <int64_t> weights[p]
        left[c] += w
        right[c] -= w
        n_left += w
        n_right -= w
        if not values[p] + 1e-5 < values[p + 1]:
            continue
        if min_split - <double> n_left < C_SMALL and min_split - <double> n_right < C_SMALL:
            bag_left = xlogx_of_int[n_left]
            for c in range(n_classes):
                bag_left -= xlogx_of_int[left[c]]
            bag_right = xlogx_of_int[n_right]
            for c in range(n_classes):
                bag_right -= xlogx_of_int[right[c]]
            numerator = unknown_factor * (old - (bag_left + bag_right))
            gain = 0.0 if fabs(numerator) < C_SMALL else numerator / known
            if gain - best > C_SMALL:
                best = gain
                best_left = n_left
                split_index = p
            n_candidates += 1
    finish_c(values, split_index, best, n_candidates, node_weight, known,
             <double> best_left, out)


cdef inline double bag_entropy_sum_c(double total, const double* class_weights,
                                     Py_ssize_t n_classes) noexcept nogil:
    """F(total) - sum_c F(class weight c)."""
    cdef double out = xlog2x_c(total)
    cdef Py_ssize_t c
    for c in range(n_classes):
        out -= xlog2x_c(class_weights[c])
    return out


cdef void scan_fractional_c(const double* values, const int32_t* classes,
                            const double* weights, Py_ssize_t n, Py_ssize_t n_classes,
                            double min_leaf, double node_weight, double* scratch,
                            ScanResult* out) noexcept nogil:
    """``scan_one`` for any weights, added in sorted order as J48 adds them."""
    cdef Py_ssize_t n_known = known_count_c(values, n)
    cdef double* known_classes = scratch
    cdef double* left = scratch + n_classes
    cdef double* right = scratch + 2 * n_classes
    cdef double* best_left = scratch + 3 * n_classes
    cdef Py_ssize_t p, c, split_index = -1
    cdef int64_t n_candidates = 0
    cdef double known = 0.0, min_split, old, unknown_factor, weight_left, weight_right
    cdef double best = 0.0, new, numerator, gain, w_left
    for c in range(n_classes):
        known_classes[c] = 0.0
    for p in range(n_known):
        known_classes[classes[p]] += weights[p]
    for c in range(n_classes):
        known += known_classes[c]
    min_split = min_split_c(known, n_classes, min_leaf)
    if <double> n_known < 2.0 * min_split:
        out.valid = False
        out.gain = 0.0
        out.split_info = 0.0
        out.threshold = 0.0
        return
    old = bag_entropy_sum_c(known, known_classes, n_classes)
    unknown_factor = 1.0 - (node_weight - known) / node_weight
    for c in range(n_classes):
        left[c] = 0.0
        right[c] = known_classes[c]
        best_left[c] = 0.0
    weight_left = 0.0
    weight_right = known
    for p in range(n_known - 1):  # a cut between p and p + 1
        c = classes[p]
        left[c] += weights[p]
        right[c] -= weights[p]
        weight_left += weights[p]
        weight_right -= weights[p]
        if not values[p] + 1e-5 < values[p + 1]:
            continue
        if min_split - weight_left < C_SMALL and min_split - weight_right < C_SMALL:
            new = (bag_entropy_sum_c(weight_left, left, n_classes)
                   + bag_entropy_sum_c(weight_right, right, n_classes))
            numerator = unknown_factor * (old - new)
            gain = 0.0 if fabs(numerator) < C_SMALL else numerator / known
            if gain - best > C_SMALL:
                best = gain
                split_index = p
                for c in range(n_classes):
                    best_left[c] = left[c]
            n_candidates += 1
    w_left = 0.0
    for c in range(n_classes):
        w_left += best_left[c]
    finish_c(values, split_index, best, n_candidates, node_weight, known, w_left, out)


cdef inline void scan_one_c(const double* values, const int32_t* classes,
                            const double* weights, Py_ssize_t n, Py_ssize_t n_classes,
                            double min_leaf, double node_weight, const double* xlogx_of_int,
                            Py_ssize_t n_xlogx, double* scratch_d, int64_t* scratch_i,
                            ScanResult* out) noexcept nogil:
    """C4.5's best threshold of one numeric feature (see ``scan_one``)."""
    if n_xlogx > 0:
        scan_whole_c(values, classes, weights, n, n_classes, min_leaf, node_weight,
                     xlogx_of_int, scratch_i, out)
    else:
        scan_fractional_c(values, classes, weights, n, n_classes, min_leaf, node_weight,
                          scratch_d, out)


ctypedef struct ScanJob:
    const double* values
    const int32_t* classes
    const double* weights
    Py_ssize_t stride
    Py_ssize_t n
    Py_ssize_t n_classes
    double min_leaf
    double node_weight
    const double* xlogx_of_int
    Py_ssize_t n_xlogx
    unsigned char* out_valid
    double* out_gain
    double* out_split_info
    double* out_threshold
    double* scratch_d  # per thread
    int64_t* scratch_i
    Py_ssize_t per_d
    Py_ssize_t per_i


cdef void scan_body(void* job_, Py_ssize_t i, int thread) noexcept nogil:
    cdef ScanJob* job = <ScanJob*> job_
    cdef ScanResult r
    scan_one_c(job.values + i * job.stride, job.classes + i * job.stride,
               job.weights + i * job.stride, job.n, job.n_classes, job.min_leaf,
               job.node_weight, job.xlogx_of_int, job.n_xlogx,
               job.scratch_d + thread * job.per_d, job.scratch_i + thread * job.per_i, &r)
    job.out_valid[i] = r.valid
    job.out_gain[i] = r.gain
    job.out_split_info[i] = r.split_info
    job.out_threshold[i] = r.threshold


cdef int scan_features_c(const double* values, const int32_t* classes, const double* weights,
                         Py_ssize_t stride, Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                         double min_leaf, double node_weight, const double* xlogx_of_int,
                         Py_ssize_t n_xlogx, bint threads, unsigned char* out_valid,
                         double* out_gain, double* out_split_info, double* out_threshold,
                         double* scratch_d, int64_t* scratch_i) noexcept nogil:
    """``scan_one_c`` for each of the ``m`` features (row i at ``i * stride``), features
    spread over threads when ``threads`` (each writes its own outputs; ``scratch_*``, one
    thread's, serve the serial loop). -1: no memory."""
    cdef ScanJob job
    cdef Py_ssize_t i, n_threads = max_threads_c() if threads else 1
    job.values = values
    job.classes = classes
    job.weights = weights
    job.stride = stride
    job.n = n
    job.n_classes = n_classes
    job.min_leaf = min_leaf
    job.node_weight = node_weight
    job.xlogx_of_int = xlogx_of_int
    job.n_xlogx = n_xlogx
    job.out_valid = out_valid
    job.out_gain = out_gain
    job.out_split_info = out_split_info
    job.out_threshold = out_threshold
    # each thread's scratch is written at every row: 256 bytes apart, no cache line shared
    job.per_d = 4 * n_classes + 1 + PAD
    job.per_i = 2 * n_classes + 1 + PAD
    if n_threads <= 1 and scratch_d != NULL:
        job.scratch_d = scratch_d
        job.scratch_i = scratch_i
        for i in range(m):
            scan_body(&job, i, 0)
        return 0
    job.scratch_d = <double*> malloc(n_threads * job.per_d * sizeof(double))
    job.scratch_i = <int64_t*> malloc(n_threads * job.per_i * sizeof(int64_t))
    if job.scratch_d == NULL or job.scratch_i == NULL:
        free(job.scratch_d)
        free(job.scratch_i)
        return -1
    if n_threads > 1:
        parallel_for(m, scan_body, &job, <int> n_threads)
    else:
        for i in range(m):
            scan_body(&job, i, 0)
    free(job.scratch_d)
    free(job.scratch_i)
    return 0


# -- sending rows down the branches (spec step 22) -------------------------------------------
ctypedef struct Routed:
    Py_ssize_t n
    Py_ssize_t k
    Py_ssize_t total
    int64_t* pos  # [total] positions into the node's rows, branch by branch
    double* w  # [total] their weights
    int64_t* ptr  # [k + 1]
    int64_t* branch  # [n] each row's branch (-1: missing)
    int64_t* rank  # [n] its place in its branch, or among the missing rows
    int64_t* counts  # [k] known rows per branch; -1 - count if it takes no missing row
    double* share  # [k]
    void* head
    void* tail


cdef inline void routed_free(Routed* r) noexcept nogil:
    free(r.head)
    free(r.tail)
    r.head = NULL
    r.tail = NULL


cdef int route_rows_c(const Mat* X, const int64_t* rows, const double* weights, Py_ssize_t n,
                      Py_ssize_t feature, bint numeric, double threshold, Py_ssize_t k,
                      const int64_t* category_map, Py_ssize_t n_map,
                      Routed* out) noexcept nogil:
    """Send a node's rows to its branches (see ``split_rows``). -1: no memory."""
    cdef Py_ssize_t p, j, b, n_missing = 0, seen = 0, total
    cdef double v, known = 0.0
    cdef double* bag
    cdef int64_t* fill
    cdef unsigned char* takes
    cdef const char* column
    out.n = n
    out.k = k
    out.tail = NULL
    out.head = malloc((2 * n + 2 * k + 1) * sizeof(int64_t) + 2 * k * sizeof(double) + k + 8)
    if out.head == NULL:
        return -1
    out.branch = <int64_t*> out.head
    out.rank = out.branch + n
    out.counts = out.rank + n
    out.ptr = out.counts + k
    out.share = <double*> (out.ptr + k + 1)
    bag = out.share + k
    takes = <unsigned char*> (bag + k)
    for j in range(k):
        bag[j] = 0.0
        out.counts[j] = 0
        out.share[j] = 0.0
        takes[j] = 0
    column = X.data + feature * X.s1 if X.data != NULL else NULL
    for p in range(n):
        v = (<const double*> (column + rows[p] * X.s0))[0]
        if isnan(v):
            out.branch[p] = -1
            n_missing += 1
        else:
            if numeric:
                b = 0 if v - threshold < C_SMALL else 1
            elif n_map > 0:
                b = category_map[<Py_ssize_t> v]
            else:
                b = <Py_ssize_t> v
            out.branch[p] = b
            bag[b] += weights[p]
    for j in range(k):
        known += bag[j]
    for p in range(n):
        if out.branch[p] >= 0:
            out.counts[out.branch[p]] += 1
    if n_missing > 0 and known > 0.0:
        for j in range(k):
            out.share[j] = bag[j] / known
            takes[j] = out.share[j] > C_SMALL
    out.ptr[0] = 0
    for j in range(k):
        out.ptr[j + 1] = out.ptr[j] + out.counts[j] + (n_missing if takes[j] else 0)
    total = out.ptr[k]
    out.total = total
    out.tail = malloc((total if total > 0 else 1) * (sizeof(int64_t) + sizeof(double)))
    if out.tail == NULL:
        routed_free(out)
        return -1
    out.pos = <int64_t*> out.tail
    out.w = <double*> (out.pos + total)
    fill = <int64_t*> bag  # the bags are no longer needed
    for j in range(k):
        fill[j] = out.ptr[j]
    for p in range(n):
        b = out.branch[p]
        if b >= 0:
            out.rank[p] = fill[b] - out.ptr[b]
            out.pos[fill[b]] = p
            out.w[fill[b]] = weights[p]
            fill[b] += 1
    for p in range(n):
        if out.branch[p] < 0:
            out.rank[p] = seen
            seen += 1
            for j in range(k):
                if takes[j]:
                    out.pos[fill[j]] = p
                    out.w[fill[j]] = weights[p] * out.share[j]
                    fill[j] += 1
    for j in range(k):
        if not takes[j]:
            out.counts[j] = -1 - out.counts[j]  # marks "takes no missing rows"
    return 0


cdef inline void split_one_c(const double* values, const int32_t* classes,
                             const double* weights, const int32_t* row_ids, Py_ssize_t n,
                             const branch_t* branch_of_row, const int64_t* known,
                             const double* share, const int64_t* ptr, Py_ssize_t k,
                             int64_t* fill, double* out_values, int32_t* out_classes,
                             double* out_weights, int32_t* out_row_ids) noexcept nogil:
    """Filter one sorted column of a node into its children's columns (see ``split_one``)."""
    cdef Py_ssize_t p, j, q
    cdef int64_t b
    cdef int32_t r
    for j in range(k):
        fill[j] = ptr[j]
    for p in range(n):
        r = row_ids[p]
        b = branch_of_row[r]
        if b >= 0:
            q = fill[b]
            out_values[q] = values[p]
            out_classes[q] = classes[p]
            out_weights[q] = weights[p]
            out_row_ids[q] = r
            fill[b] = q + 1
            continue
        for j in range(k):
            if known[j] >= 0:
                q = fill[j]
                out_values[q] = values[p]
                out_classes[q] = classes[p]
                out_weights[q] = weights[p] * share[j]
                out_row_ids[q] = r
                fill[j] = q + 1


ctypedef struct SplitJob:
    const double* values
    const int32_t* classes
    const double* weights
    const int32_t* row_ids
    Py_ssize_t stride
    Py_ssize_t n
    const void* branch_of_row
    const int64_t* known
    const double* share
    const int64_t* ptr
    Py_ssize_t k
    double* out_values
    int32_t* out_classes
    double* out_weights
    int32_t* out_row_ids
    Py_ssize_t out_stride
    int64_t* fill  # k + 1 (+ PAD) per thread


cdef void split_body(void* job_, Py_ssize_t i, int thread) noexcept nogil:
    cdef SplitJob* job = <SplitJob*> job_
    split_one_c(job.values + i * job.stride, job.classes + i * job.stride,
                job.weights + i * job.stride, job.row_ids + i * job.stride, job.n,
                <const int8_t*> job.branch_of_row, job.known, job.share, job.ptr, job.k,
                job.fill + thread * (job.k + 1 + PAD), job.out_values + i * job.out_stride,
                job.out_classes + i * job.out_stride, job.out_weights + i * job.out_stride,
                job.out_row_ids + i * job.out_stride)


cdef void split_body64(void* job_, Py_ssize_t i, int thread) noexcept nogil:
    cdef SplitJob* job = <SplitJob*> job_
    split_one_c(job.values + i * job.stride, job.classes + i * job.stride,
                job.weights + i * job.stride, job.row_ids + i * job.stride, job.n,
                <const int64_t*> job.branch_of_row, job.known, job.share, job.ptr, job.k,
                job.fill + thread * (job.k + 1 + PAD), job.out_values + i * job.out_stride,
                job.out_classes + i * job.out_stride, job.out_weights + i * job.out_stride,
                job.out_row_ids + i * job.out_stride)


cdef int split_features_c(const double* values, const int32_t* classes, const double* weights,
                          const int32_t* row_ids, Py_ssize_t stride, Py_ssize_t m,
                          Py_ssize_t n, const void* branch_of_row, bint wide,
                          const int64_t* known, const double* share, const int64_t* ptr,
                          Py_ssize_t k, double* out_values, int32_t* out_classes,
                          double* out_weights, int32_t* out_row_ids, Py_ssize_t out_stride,
                          bint threads) noexcept nogil:
    """``split_one_c`` for each of the ``m`` features, spread over threads when
    ``threads``; ``branch_of_row`` holds int64 (``wide``) or int8. -1: no memory."""
    cdef SplitJob job
    cdef Py_ssize_t i, n_threads = max_threads_c() if threads else 1
    cdef body_t body = split_body64 if wide else split_body
    job.values = values
    job.classes = classes
    job.weights = weights
    job.row_ids = row_ids
    job.stride = stride
    job.n = n
    job.branch_of_row = branch_of_row
    job.known = known
    job.share = share
    job.ptr = ptr
    job.k = k
    job.out_values = out_values
    job.out_classes = out_classes
    job.out_weights = out_weights
    job.out_row_ids = out_row_ids
    job.out_stride = out_stride
    job.fill = <int64_t*> malloc(n_threads * (k + 1 + PAD) * sizeof(int64_t))
    if job.fill == NULL:
        return -1
    if n_threads > 1:
        parallel_for(m, body, &job, <int> n_threads)
    else:
        for i in range(m):
            body(&job, i, 0)
    free(job.fill)
    return 0


# -- the node store --------------------------------------------------------------------------
ctypedef struct NodeData:
    long long refs
    Py_ssize_t n  # rows
    Py_ssize_t n_classes
    int64_t* rows
    double* weights
    double* table


ctypedef struct NodeRec:
    int64_t kind
    int64_t feature
    double threshold
    int64_t category
    int64_t first_child
    int64_t n_branches
    int64_t depth
    unsigned char empty
    NodeData* data


ctypedef struct StoreC:
    Py_ssize_t n
    Py_ssize_t cap
    NodeRec* recs
    Py_ssize_t n_children
    Py_ssize_t cap_children
    int64_t* children


cdef inline NodeData* data_new(Py_ssize_t n, Py_ssize_t n_classes) noexcept nogil:
    """A block for ``n`` rows and a table of ``n_classes`` (one reference)."""
    cdef NodeData* d = <NodeData*> malloc(sizeof(NodeData) + (2 * n + n_classes + 1) * 8)
    if d == NULL:
        return NULL
    d.refs = 1
    d.n = n
    d.n_classes = n_classes
    d.rows = <int64_t*> (<char*> d + sizeof(NodeData))
    d.weights = <double*> (d.rows + n)
    d.table = d.weights + n
    return d


cdef inline void data_decref(NodeData* d) noexcept nogil:
    if d != NULL and atomic_decref(&d.refs) == 0:
        free(d)


cdef inline void data_incref(NodeData* d) noexcept nogil:
    if d != NULL:
        atomic_incref(&d.refs)


cdef inline void class_table_c(const int32_t* y, const int64_t* rows, const double* weights,
                               Py_ssize_t n, Py_ssize_t n_classes,
                               double* table) noexcept nogil:
    """Class weights of the rows, added in row order."""
    cdef Py_ssize_t q
    for q in range(n_classes):
        table[q] = 0.0
    for q in range(n):
        table[y[rows[q]]] += weights[q]


cdef Py_ssize_t add_node_c(StoreC* s, NodeData* data, int64_t depth) noexcept nogil:
    """Append a leaf holding ``data`` (its reference passes to the store); its id, or -1
    when out of memory."""
    cdef Py_ssize_t cap
    cdef NodeRec* grown
    cdef NodeRec* rec
    if s.n == s.cap:
        cap = 2 * s.cap if s.cap > 0 else 16
        grown = <NodeRec*> realloc(s.recs, cap * sizeof(NodeRec))
        if grown == NULL:
            return -1
        s.recs = grown
        s.cap = cap
    rec = &s.recs[s.n]
    rec.kind = K_LEAF
    rec.feature = -1
    rec.threshold = NAN
    rec.category = -1
    rec.first_child = -1
    rec.n_branches = 0
    rec.depth = depth
    rec.empty = total_c(data.table, data.n_classes) < C_SMALL
    rec.data = data
    s.n += 1
    return s.n - 1


cdef int add_child_c(StoreC* s, int64_t child) noexcept nogil:
    cdef Py_ssize_t cap
    cdef int64_t* grown
    if s.n_children == s.cap_children:
        cap = 2 * s.cap_children if s.cap_children > 0 else 16
        grown = <int64_t*> realloc(s.children, cap * sizeof(int64_t))
        if grown == NULL:
            return -1
        s.children = grown
        s.cap_children = cap
    s.children[s.n_children] = child
    s.n_children += 1
    return 0


cdef inline void make_leaf_c(StoreC* s, Py_ssize_t node) noexcept nogil:
    cdef NodeRec* rec = &s.recs[node]
    rec.kind = K_LEAF
    rec.feature = -1
    rec.threshold = NAN
    rec.category = -1
    rec.first_child = -1
    rec.n_branches = 0


cdef class C45Store:
    """The C4.5 grower's node store (see the module docstring); ``len()``: its nodes."""

    cdef StoreC s

    def __cinit__(self):
        self.s.n = 0
        self.s.cap = 0
        self.s.recs = NULL
        self.s.n_children = 0
        self.s.cap_children = 0
        self.s.children = NULL

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self.s.n):
            data_decref(self.s.recs[i].data)
        free(self.s.recs)
        free(self.s.children)

    def __len__(self):
        return self.s.n

    def __reduce__(self):
        raise TypeError("a C4.5 node store cannot be pickled")


# -- the frontier ----------------------------------------------------------------------------
ctypedef struct Columns:
    long long refs
    Py_ssize_t m  # features
    Py_ssize_t stride  # entries per feature row
    double* values
    int32_t* classes
    double* weights
    int32_t* row_ids


ctypedef struct Entry:
    int64_t node
    Columns* columns
    Py_ssize_t start
    Py_ssize_t stop


ctypedef struct FrontierC:
    Py_ssize_t n
    Py_ssize_t cap
    Entry* entries


cdef inline Columns* columns_new(Py_ssize_t m, Py_ssize_t size) noexcept nogil:
    """A block of ``m`` sorted columns of ``size`` entries each (one reference)."""
    cdef Py_ssize_t cells = m * size
    cdef Columns* c = <Columns*> malloc(sizeof(Columns) + cells * 24 + 8)
    if c == NULL:
        return NULL
    c.refs = 1
    c.m = m
    c.stride = size
    c.values = <double*> (<char*> c + sizeof(Columns))
    c.weights = c.values + cells
    c.classes = <int32_t*> (c.weights + cells)
    c.row_ids = c.classes + cells
    return c


cdef inline void columns_decref(Columns* c) noexcept nogil:
    if c != NULL and atomic_decref(&c.refs) == 0:
        free(c)


cdef int push_c(FrontierC* f, int64_t node, Columns* columns, Py_ssize_t start,
                Py_ssize_t stop) noexcept nogil:
    """Put an entry on the frontier (taking a new reference to ``columns``)."""
    cdef Py_ssize_t cap
    cdef Entry* grown
    if f.n == f.cap:
        cap = 2 * f.cap if f.cap > 0 else 16
        grown = <Entry*> realloc(f.entries, cap * sizeof(Entry))
        if grown == NULL:
            return -1
        f.entries = grown
        f.cap = cap
    atomic_incref(&columns.refs)
    f.entries[f.n].node = node
    f.entries[f.n].columns = columns
    f.entries[f.n].start = start
    f.entries[f.n].stop = stop
    f.n += 1
    return 0


cdef class C45Frontier:
    """The grower's depth-first frontier (see the module docstring)."""

    cdef FrontierC f
    cdef list owners  # arrays pushed from Python, which some entries' columns point into

    def __cinit__(self):
        self.f.n = 0
        self.f.cap = 0
        self.f.entries = NULL
        self.owners = []

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self.f.n):
            columns_decref(self.f.entries[i].columns)
        free(self.f.entries)

    def __len__(self):
        return self.f.n

    def __reduce__(self):
        raise TypeError("a C4.5 frontier cannot be pickled")


# -- the nominal candidates (spec steps 13-16) -----------------------------------------------
cdef void gain_and_ratio_c(const double* table, Py_ssize_t n_bags, Py_ssize_t n_classes,
                           double node_weight, double* bags, double* gain_out,
                           double* ratio_out) noexcept nogil:
    """Information gain and gain ratio of a (bags x classes) table of known rows."""
    cdef Py_ssize_t b, c
    cdef double known, old, column, new, bag, numerator, gain, split_info
    for b in range(n_bags):
        bags[b] = total_c(table + b * n_classes, n_classes)
    known = total_c(bags, n_bags)
    if known <= C_SMALL:
        gain_out[0] = 0.0
        ratio_out[0] = 0.0
        return
    old = xlog2x_c(known)
    for c in range(n_classes):
        column = 0.0
        for b in range(n_bags):
            column += table[b * n_classes + c]
        old -= xlog2x_c(column)
    new = 0.0
    for b in range(n_bags):
        bag = xlog2x_c(bags[b])
        for c in range(n_classes):
            bag -= xlog2x_c(table[b * n_classes + c])
        new += bag
    numerator = (1.0 - (node_weight - known) / node_weight) * (old - new)
    gain = 0.0 if fabs(numerator) < C_SMALL else numerator / known
    split_info = xlog2x_c(node_weight)
    for b in range(n_bags):
        split_info -= xlog2x_c(bags[b])
    split_info -= xlog2x_c(node_weight - known)
    gain_out[0] = gain
    ratio_out[0] = 0.0 if fabs(split_info) < C_SMALL else gain / (split_info / node_weight)


cdef bint multiway_candidate_c(const double* table, Py_ssize_t n_values, Py_ssize_t n_classes,
                               double min_leaf, double node_weight, double* bags,
                               double* gain, double* ratio) noexcept nogil:
    """Whether one branch per category is a candidate; its gain and ratio."""
    cdef Py_ssize_t b, n_big = 0
    gain[0] = 0.0
    ratio[0] = 0.0
    for b in range(n_values):
        if min_leaf - total_c(table + b * n_classes, n_classes) < C_SMALL:
            n_big += 1
    if n_big < 2:
        return False
    gain_and_ratio_c(table, n_values, n_classes, node_weight, bags, gain, ratio)
    return True


cdef bint binary_candidate_c(const double* table, Py_ssize_t n_values, Py_ssize_t n_classes,
                             double min_leaf, double node_weight, double* bags,
                             double* pair, double* gain_out, double* ratio_out,
                             int64_t* value_out) noexcept nogil:
    """The best ``feature = value`` split (J48 -B); see ``binary_candidate``. ``bags``
    holds at least max(n_values, 2) entries, ``pair`` 2 x n_classes."""
    cdef Py_ssize_t v, other, c
    cdef double known, gain, ratio, best_gain = 0.0, best_ratio = 0.0
    cdef bint found = False
    cdef int64_t best_value = -1
    for v in range(n_values):
        bags[v] = total_c(table + v * n_classes, n_classes)
    known = total_c(bags, n_values)
    for v in range(n_values):
        if min_leaf - bags[v] >= C_SMALL or min_leaf - (known - bags[v]) >= C_SMALL:
            continue
        for c in range(2 * n_classes):
            pair[c] = 0.0
        for c in range(n_classes):
            pair[c] = table[v * n_classes + c]
        for other in range(n_values):
            if other != v:
                for c in range(n_classes):
                    pair[n_classes + c] += table[other * n_classes + c]
        gain_and_ratio_c(pair, 2, n_classes, node_weight, bags + n_values, &gain, &ratio)
        if not found or ratio - best_ratio > C_SMALL:
            found = True
            best_gain = gain
            best_ratio = ratio
            best_value = v
    gain_out[0] = best_gain
    ratio_out[0] = best_ratio
    value_out[0] = best_value
    return found


cdef inline void nominal_table_c(const Mat* X, const int32_t* y, const int64_t* rows,
                                 const double* weights, Py_ssize_t n, Py_ssize_t feature,
                                 Py_ssize_t n_values, Py_ssize_t n_classes,
                                 double* table) noexcept nogil:
    """Class weights per category code of the rows whose value is known."""
    cdef Py_ssize_t q
    cdef double v
    cdef const char* column = X.data + feature * X.s1 if X.data != NULL else NULL
    for q in range(n_values * n_classes):
        table[q] = 0.0
    for q in range(n):
        v = (<const double*> (column + rows[q] * X.s0))[0]
        if not isnan(v):
            table[(<Py_ssize_t> v) * n_classes + y[rows[q]]] += weights[q]


cdef double largest_value_at_most_c(const char* column, Py_ssize_t stride, Py_ssize_t n,
                                    double threshold) noexcept nogil:
    """Largest value of the column (file order, NaN skipped) <= threshold + 1e-6; a later
    value replaces the current one only if it is larger by more than 1e-6."""
    cdef double best = -INFINITY, v
    cdef bint found = False
    cdef Py_ssize_t p
    for p in range(n):
        v = (<const double*> (column + p * stride))[0]
        if isnan(v):
            continue
        if v - threshold < C_SMALL and (not found or v - best > C_SMALL):
            best = v
            found = True
    return best if found else threshold


cdef double moved_threshold_c(const double* distinct, Py_ssize_t n_distinct,
                              const char* column, Py_ssize_t stride, Py_ssize_t n,
                              double threshold) noexcept nogil:
    """Spec step 20: the largest training value <= threshold (within 1e-6); see
    ``moved_threshold``."""
    cdef Py_ssize_t low = 0, high = n_distinct, mid, end
    while low < high:  # np.searchsorted(side="right"): a NaN key goes last
        mid = low + ((high - low) >> 1)
        if isnan(threshold) or distinct[mid] <= threshold:
            low = mid + 1
        else:
            high = mid
    end = low
    while end < n_distinct and distinct[end] - threshold < C_SMALL:
        end += 1
    if end == 0:
        return threshold
    if (end >= 2 and distinct[end - 1] - distinct[end - 2] <= C_SMALL) or distinct[end - 1] == 0:
        return largest_value_at_most_c(column, stride, n, threshold)
    return distinct[end - 1]


cdef inline bint all_whole_c(const double* weights, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if weights[i] != floor(weights[i]):
            return False
    return True


# -- the growth loop -------------------------------------------------------------------------
ctypedef struct GrowCtx:
    Mat X
    Mat X_full
    const int32_t* y
    const double* distinct
    const int64_t* distinct_ptr
    const int64_t* numeric_features
    Py_ssize_t n_numeric
    const int64_t* numeric_index
    const int64_t* nominal_features
    Py_ssize_t n_nominal
    const int64_t* n_values
    Py_ssize_t n_classes
    double min_leaf
    double n_all_rows
    bint multi_valued
    const double* xlogx_of_int
    Py_ssize_t n_xlogx
    bint all_weights_whole
    int64_t max_depth
    bint binary_nominal
    int8_t* branch8  # the scratch branch_of_row: int8 when every split has < 127 branches
    int64_t* branch64
    Py_ssize_t widest  # the most values of a nominal feature (at least 2)


cdef int grow_c(GrowCtx* c, StoreC* s, FrontierC* fr, int64_t budget, bint use_threads,
                double* settled_out) noexcept nogil:
    """Expand up to ``budget`` nodes of the frontier (see ``grow_nodes``). -1: no memory."""
    cdef Py_ssize_t m = c.X.cols, nn = c.n_numeric, ncls = c.n_classes
    cdef Py_ssize_t widest = c.widest
    cdef double settled = 0.0, weight, gain_sum, average, best_ratio, t, g, r, s_
    cdef int64_t done = 0, v
    cdef Py_ssize_t i, j, f, q, k, n_entering, winner, size, node, n_real, cnt, n_map
    cdef Py_ssize_t child_id
    cdef bint numeric, ok, use_whole, threads
    cdef Entry e
    cdef NodeData* d
    cdef NodeData* nd
    cdef NodeRec* rec
    cdef Columns* cols
    cdef Columns* split
    cdef Routed R
    cdef const double* xl
    cdef Py_ssize_t nxl
    cdef int status = 0
    cdef int64_t node_depth
    cdef const char* col_full
    # scratch for the whole call
    cdef char* block = <char*> malloc(
        m * (4 * sizeof(double) + sizeof(int64_t) + 2) + nn * (3 * sizeof(double) + 1)
        + (4 * ncls + 1) * sizeof(double) + (2 * ncls + 1) * sizeof(int64_t)
        + (widest * ncls + widest + 2 + 2 * ncls) * sizeof(double)
        + 2 * (widest + 1) * sizeof(int64_t) + 64)
    if block == NULL:
        return -1
    cdef double* gain = <double*> block
    cdef double* ratio = gain + m
    cdef double* cut = ratio + m
    cdef double* num_gain = cut + m
    cdef double* num_split_info = num_gain + nn
    cdef double* num_threshold = num_split_info + nn
    cdef double* scan_d = num_threshold + nn
    cdef double* table = scan_d + 4 * ncls + 1
    cdef double* bags = table + widest * ncls
    cdef double* pair = bags + widest + 2
    cdef int64_t* chosen = <int64_t*> (pair + 2 * ncls)
    cdef int64_t* scan_i = chosen + m
    cdef int64_t* cmap = scan_i + 2 * ncls + 1
    cdef int64_t* ids = cmap + widest + 1
    cdef unsigned char* valid = <unsigned char*> (ids + widest + 1)
    cdef unsigned char* enters = valid + m
    cdef unsigned char* num_valid = enters + m
    R.head = NULL
    R.tail = NULL
    while fr.n > 0 and done < budget:
        done += 1
        fr.n -= 1
        e = fr.entries[fr.n]  # its reference to the columns is now ours
        cols = e.columns
        node = e.node
        d = s.recs[node].data
        node_depth = s.recs[node].depth
        weight = total_c(d.table, ncls)
        if (2.0 * c.min_leaf - weight > C_SMALL or fabs(weight - amax_c(d.table, ncls)) < C_SMALL
                or (c.max_depth >= 0 and node_depth >= c.max_depth)):
            settled += weight
            columns_decref(cols)
            continue
        # every attribute's candidate, in feature order
        for f in range(m):
            valid[f] = False
            gain[f] = 0.0
            ratio[f] = 0.0
            enters[f] = True
            cut[f] = 0.0
            chosen[f] = -1
        size = e.stop - e.start
        if nn > 0:
            use_whole = c.all_weights_whole or (c.n_xlogx > 0 and all_whole_c(d.weights, d.n))
            xl = c.xlogx_of_int if use_whole else NULL
            nxl = c.n_xlogx if use_whole else 0
            threads = use_threads and nn * size >= C_PARALLEL_MIN_WORK
            if scan_features_c(cols.values + e.start, cols.classes + e.start,
                               cols.weights + e.start, cols.stride, nn, size, ncls, c.min_leaf,
                               weight, xl, nxl, threads, num_valid, num_gain, num_split_info,
                               num_threshold, scan_d, scan_i) < 0:
                columns_decref(cols)
                status = -1
                break
            for i in range(nn):
                if num_valid[i]:
                    f = c.numeric_features[i]
                    s_ = num_split_info[i]
                    valid[f] = True
                    gain[f] = num_gain[i]
                    cut[f] = num_threshold[i]
                    ratio[f] = 0.0 if fabs(s_) < C_SMALL else num_gain[i] / (s_ / weight)
        for i in range(c.n_nominal):
            f = c.nominal_features[i]
            nominal_table_c(&c.X, c.y, d.rows, d.weights, d.n, f, c.n_values[f], ncls, table)
            if c.binary_nominal:
                ok = binary_candidate_c(table, c.n_values[f], ncls, c.min_leaf, weight, bags,
                                        pair, &g, &r, &v)
                chosen[f] = v
            else:
                ok = multiway_candidate_c(table, c.n_values[f], ncls, c.min_leaf, weight,
                                          bags, &g, &r)
            if ok:
                valid[f] = True
                gain[f] = g
                ratio[f] = r
                enters[f] = c.multi_valued or <double> c.n_values[f] < 0.3 * c.n_all_rows
        # spec steps 10-11: best gain ratio among candidates with at least average gain
        n_entering = 0
        gain_sum = 0.0
        for f in range(m):
            if valid[f] and enters[f]:
                gain_sum += gain[f]
                n_entering += 1
        winner = -1
        if n_entering > 0:
            average = gain_sum / <double> n_entering
            best_ratio = 0.0
            for f in range(m):
                if valid[f] and gain[f] >= average - 1e-3 and ratio[f] - best_ratio > C_SMALL:
                    winner = f
                    best_ratio = ratio[f]
        if winner < 0:
            settled += weight
            columns_decref(cols)
            continue
        i = c.numeric_index[winner]
        numeric = i >= 0
        n_map = 0
        if numeric:
            col_full = (c.X_full.data + winner * c.X_full.s1 if c.X_full.data != NULL
                        else NULL)
            t = moved_threshold_c(c.distinct + c.distinct_ptr[i],
                                  c.distinct_ptr[i + 1] - c.distinct_ptr[i], col_full,
                                  c.X_full.s0, c.X_full.rows, cut[winner])
            k = 2
        else:
            t = NAN
            if chosen[winner] >= 0:  # J48 -B: the chosen code to branch 0, the rest to 1
                n_map = c.n_values[winner]
                for q in range(n_map):
                    cmap[q] = 1
                cmap[chosen[winner]] = 0
            k = 2 if c.binary_nominal else c.n_values[winner]
        if route_rows_c(&c.X, d.rows, d.weights, d.n, winner, numeric, t, k, cmap, n_map,
                        &R) < 0:
            columns_decref(cols)
            status = -1
            break
        n_real = 0
        for j in range(k):
            if total_c(R.w + R.ptr[j], R.ptr[j + 1] - R.ptr[j]) >= C_SMALL:
                n_real += 1
        if n_real < 2:
            # a moved threshold can send every row one way (values closer than the
            # tolerances); such a split separates nothing, so the node stays a leaf
            settled += weight
            routed_free(&R)
            columns_decref(cols)
            continue
        split = columns_new(nn, R.total)
        if split == NULL:
            routed_free(&R)
            columns_decref(cols)
            status = -1
            break
        threads = use_threads and nn * size >= C_PARALLEL_MIN_WORK
        if c.branch8 != NULL:
            for q in range(d.n):
                c.branch8[d.rows[q]] = <int8_t> R.branch[q]
            status = split_features_c(
                cols.values + e.start, cols.classes + e.start, cols.weights + e.start,
                cols.row_ids + e.start, cols.stride, nn, size, c.branch8, False,
                R.counts, R.share, R.ptr, k, split.values, split.classes, split.weights,
                split.row_ids, split.stride, threads)
        else:
            for q in range(d.n):
                c.branch64[d.rows[q]] = R.branch[q]
            status = split_features_c(
                cols.values + e.start, cols.classes + e.start, cols.weights + e.start,
                cols.row_ids + e.start, cols.stride, nn, size, c.branch64, True,
                R.counts, R.share, R.ptr, k, split.values, split.classes, split.weights,
                split.row_ids, split.stride, threads)
        columns_decref(cols)  # the node's own columns are done with
        if status < 0:
            routed_free(&R)
            columns_decref(split)
            break
        rec = &s.recs[node]
        rec.kind = K_NUMERIC if numeric else K_CATEGORICAL
        rec.feature = winner
        rec.threshold = t
        rec.category = chosen[winner] if c.binary_nominal and not numeric else -1
        rec.first_child = s.n_children
        rec.n_branches = k
        for j in range(k):
            cnt = R.ptr[j + 1] - R.ptr[j]
            nd = data_new(cnt, ncls)
            if nd == NULL:
                status = -1
                break
            for q in range(cnt):
                nd.rows[q] = d.rows[R.pos[R.ptr[j] + q]]
                nd.weights[q] = R.w[R.ptr[j] + q]
            class_table_c(c.y, nd.rows, nd.weights, cnt, ncls, nd.table)
            child_id = add_node_c(s, nd, node_depth + 1)
            if child_id < 0:
                data_decref(nd)
                status = -1
                break
            ids[j] = child_id
            if add_child_c(s, child_id) < 0:
                status = -1
                break
        if status == 0:
            for j in range(k - 1, -1, -1):
                if not s.recs[ids[j]].empty:
                    if push_c(fr, ids[j], split, R.ptr[j], R.ptr[j + 1]) < 0:
                        status = -1
                        break
        columns_decref(split)  # the children's entries hold their own references
        routed_free(&R)
        if status < 0:
            break
    free(block)
    settled_out[0] = settled
    return status


cdef class _Grow:
    """The inputs of ``grow_nodes`` as C pointers, and the arrays that own them."""

    cdef GrowCtx c
    cdef object keep

    def __init__(self, X, y, X_full, distinct, distinct_ptr, numeric_features, numeric_index,
                 nominal_features, n_values, n_classes, min_leaf, n_all_rows, multi_valued,
                 xlogx_of_int, all_weights_whole, max_depth, binary_nominal, branch_of_row):
        cdef const double[:, :] Xv = X
        cdef const double[:, :] Fv = X_full
        cdef const int32_t[::1] yv = np.ascontiguousarray(y, dtype=np.int32)
        cdef const double[::1] dv = np.ascontiguousarray(distinct, dtype=np.float64)
        cdef const int64_t[::1] dpv = np.ascontiguousarray(distinct_ptr, dtype=np.int64)
        cdef const int64_t[::1] nfv = np.ascontiguousarray(numeric_features, dtype=np.int64)
        cdef const int64_t[::1] niv = np.ascontiguousarray(numeric_index, dtype=np.int64)
        cdef const int64_t[::1] mfv = np.ascontiguousarray(nominal_features, dtype=np.int64)
        cdef const int64_t[::1] nvv = np.ascontiguousarray(n_values, dtype=np.int64)
        cdef const double[::1] xv = np.ascontiguousarray(xlogx_of_int, dtype=np.float64)
        cdef int8_t[::1] b8
        cdef int64_t[::1] b64
        cdef Py_ssize_t i, widest = 2
        scratch = np.asarray(branch_of_row)
        if scratch.dtype != np.int8 and scratch.dtype != np.int64:
            scratch = np.empty(Xv.shape[0], dtype=np.int64)
        self.keep = (X, X_full, yv, dv, dpv, nfv, niv, mfv, nvv, xv, scratch)
        self.c.X = make_mat(Xv)
        self.c.X_full = make_mat(Fv)
        self.c.y = &yv[0] if yv.shape[0] > 0 else NULL
        self.c.distinct = &dv[0] if dv.shape[0] > 0 else NULL
        self.c.distinct_ptr = &dpv[0] if dpv.shape[0] > 0 else NULL
        self.c.numeric_features = &nfv[0] if nfv.shape[0] > 0 else NULL
        self.c.n_numeric = nfv.shape[0]
        self.c.numeric_index = &niv[0] if niv.shape[0] > 0 else NULL
        self.c.nominal_features = &mfv[0] if mfv.shape[0] > 0 else NULL
        self.c.n_nominal = mfv.shape[0]
        self.c.n_values = &nvv[0] if nvv.shape[0] > 0 else NULL
        self.c.n_classes = n_classes
        self.c.min_leaf = min_leaf
        self.c.n_all_rows = <double> <int64_t> n_all_rows
        self.c.multi_valued = bool(multi_valued)
        self.c.xlogx_of_int = &xv[0] if xv.shape[0] > 0 else NULL
        self.c.n_xlogx = xv.shape[0]
        self.c.all_weights_whole = bool(all_weights_whole)
        self.c.max_depth = max_depth
        self.c.binary_nominal = bool(binary_nominal)
        for i in range(nvv.shape[0]):
            if nvv[i] > widest:
                widest = nvv[i]
        self.c.widest = widest
        self.c.branch8 = NULL
        self.c.branch64 = NULL
        if scratch.dtype == np.int8 and widest < 127:
            b8 = scratch
            self.c.branch8 = &b8[0] if b8.shape[0] > 0 else NULL  # NULL: no row to route
        else:
            if scratch.dtype != np.int64:
                scratch = np.empty(Xv.shape[0], dtype=np.int64)
                self.keep = self.keep + (scratch,)
            b64 = scratch
            self.c.branch64 = &b64[0] if b64.shape[0] > 0 else NULL


cdef inline StoreC* store_of(nodes) except NULL:
    return &(<C45Store?> nodes).s


cdef inline FrontierC* frontier_of(frontier) except NULL:
    return &(<C45Frontier?> frontier).f


def grow_nodes(X, y, X_full, distinct, distinct_ptr, numeric_features, numeric_index,
               nominal_features, n_values, n_classes, min_leaf, n_all_rows, multi_valued,
               xlogx_of_int, all_weights_whole, max_depth, binary_nominal, nodes, frontier,
               branch_of_row, budget, parallel):
    """Expand up to ``budget`` nodes of the frontier (depth first, children in branch order).

    Returns the weight that settled in leaves meanwhile. ``distinct[distinct_ptr[i]:
    distinct_ptr[i+1]]`` are numeric feature ``numeric_features[i]``'s sorted distinct values
    in ``X_full`` (the input with the rows of unknown class); ``numeric_index[f]`` is i
    for such a feature and -1 for a nominal one; ``max_depth < 0``: no limit.
    ``parallel``: scan and split big nodes on every thread (None or False: one thread).
    The loop runs without the GIL.
    """
    cdef _Grow g = _Grow(X, y, X_full, distinct, distinct_ptr, numeric_features,
                         numeric_index, nominal_features, n_values, n_classes, min_leaf,
                         n_all_rows, multi_valued, xlogx_of_int, all_weights_whole,
                         max_depth, binary_nominal, branch_of_row)
    cdef StoreC* s = store_of(nodes)
    cdef FrontierC* fr = frontier_of(frontier)
    cdef int64_t n_budget = budget
    cdef bint threads = parallel is not None and bool(parallel)
    cdef double settled = 0.0
    cdef int status
    with nogil:
        status = grow_c(&g.c, s, fr, n_budget, threads, &settled)
    if status < 0:
        raise MemoryError("C4.5 growth: out of memory")
    return settled


cdef Py_ssize_t largest_entry_c(FrontierC* fr, Py_ssize_t* best_size) noexcept nogil:
    cdef Py_ssize_t i, best = -1, size
    best_size[0] = -1
    for i in range(fr.n):
        size = fr.entries[i].stop - fr.entries[i].start
        if size > best_size[0]:
            best = i
            best_size[0] = size
    return best


cdef inline void move_to_top_c(FrontierC* fr, Py_ssize_t i) noexcept nogil:
    cdef Entry swap = fr.entries[i]
    fr.entries[i] = fr.entries[fr.n - 1]
    fr.entries[fr.n - 1] = swap


def grow_largest_first(X, y, X_full, distinct, distinct_ptr, numeric_features, numeric_index,
                       nominal_features, n_values, n_classes, min_leaf, n_all_rows,
                       multi_valued, xlogx_of_int, all_weights_whole, max_depth,
                       binary_nominal, nodes, frontier, branch_of_row, min_work):
    """Expand the frontier's largest node, scanned and split on every thread, while one
    holds at least ``min_work`` column entries; returns the weight settled in leaves."""
    cdef _Grow g = _Grow(X, y, X_full, distinct, distinct_ptr, numeric_features,
                         numeric_index, nominal_features, n_values, n_classes, min_leaf,
                         n_all_rows, multi_valued, xlogx_of_int, all_weights_whole,
                         max_depth, binary_nominal, branch_of_row)
    cdef StoreC* s = store_of(nodes)
    cdef FrontierC* fr = frontier_of(frontier)
    cdef int64_t work = min_work
    cdef Py_ssize_t width = g.c.n_numeric if g.c.n_numeric > 1 else 1, i, size
    cdef double settled = 0.0, one
    cdef int status = 0
    with nogil:
        while fr.n > 0:
            i = largest_entry_c(fr, &size)
            if size * width < work:
                break
            move_to_top_c(fr, i)
            status = grow_c(&g.c, s, fr, 1, True, &one)
            if status < 0:
                break
            settled += one
    if status < 0:
        raise MemoryError("C4.5 growth: out of memory")
    return settled


def push(frontier, node, values, classes, weights, row_ids):
    """Put a node and its sorted numeric columns (values, classes, weights, row ids: arrays
    of one shape, one row per numeric feature) on the frontier."""
    cdef C45Frontier fr = frontier
    values = np.ascontiguousarray(values, dtype=np.float64)
    classes = np.ascontiguousarray(classes, dtype=np.int32)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    row_ids = np.ascontiguousarray(row_ids, dtype=np.int32)
    if not (values.shape == classes.shape == weights.shape == row_ids.shape) or values.ndim != 2:
        raise ValueError("push: the four column arrays must be 2-D, of one shape")
    cdef double[:, ::1] vv = values
    cdef int32_t[:, ::1] cv = classes
    cdef double[:, ::1] wv = weights
    cdef int32_t[:, ::1] rv = row_ids
    cdef Columns* c = <Columns*> malloc(sizeof(Columns))
    if c == NULL:
        raise MemoryError()
    c.refs = 1
    c.m = vv.shape[0]
    c.stride = vv.shape[1]
    empty = vv.shape[0] == 0 or vv.shape[1] == 0
    c.values = NULL if empty else &vv[0, 0]
    c.classes = NULL if empty else &cv[0, 0]
    c.weights = NULL if empty else &wv[0, 0]
    c.row_ids = NULL if empty else &rv[0, 0]
    fr.owners.append((values, classes, weights, row_ids))
    status = push_c(&fr.f, node, c, 0, vv.shape[1])
    columns_decref(c)
    if status < 0:
        raise MemoryError()


def largest_entry(frontier):
    """(index, rows) of the frontier entry with the most column entries."""
    cdef Py_ssize_t size
    cdef Py_ssize_t best = largest_entry_c(frontier_of(frontier), &size)
    return best, size


def move_to_top(frontier, i):
    """Swap entry ``i`` of the frontier with the last one (expanded next)."""
    move_to_top_c(frontier_of(frontier), i)


def entry_sizes(frontier):
    """Column entries of each frontier entry."""
    cdef FrontierC* fr = frontier_of(frontier)
    out = np.empty(fr.n, dtype=np.int64)
    cdef int64_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(fr.n):
        o[i] = fr.entries[i].stop - fr.entries[i].start
    return out


def new_store():
    """An empty node store."""
    return C45Store()


def new_frontier():
    """An empty frontier: node ids and their sorted numeric columns."""
    return C45Frontier()


def frontier_size(frontier):
    """Number of nodes waiting on the frontier."""
    return frontier_of(frontier).n


cdef inline Py_ssize_t checked(StoreC* s, node) except -1:
    cdef Py_ssize_t i = node
    if i < 0 or i >= s.n:
        raise IndexError(f"node {node} is not in the store ({s.n} nodes)")
    return i


def set_empty(nodes, node, value):
    """Mark node ``node`` an empty leaf (or not)."""
    cdef StoreC* s = store_of(nodes)
    s.recs[checked(s, node)].empty = bool(value)


def store_scalars(nodes):
    """The store's per-node numbers as arrays: kind, feature, threshold, category,
    first_child, n_branches, empty; and the children list."""
    cdef StoreC* s = store_of(nodes)
    cdef Py_ssize_t n = s.n, i
    kind = np.empty(n, dtype=np.int64)
    feature = np.empty(n, dtype=np.int64)
    threshold = np.empty(n)
    category = np.empty(n, dtype=np.int64)
    first_child = np.empty(n, dtype=np.int64)
    n_branches = np.empty(n, dtype=np.int64)
    empty = np.empty(n, dtype=np.bool_)
    children = np.empty(s.n_children, dtype=np.int64)
    cdef int64_t[::1] k = kind, f = feature, c = category, fc = first_child, nb = n_branches
    cdef int64_t[::1] ch = children
    cdef double[::1] t = threshold
    cdef unsigned char[::1] e = empty.view(np.uint8)
    for i in range(n):
        k[i] = s.recs[i].kind
        f[i] = s.recs[i].feature
        t[i] = s.recs[i].threshold
        c[i] = s.recs[i].category
        fc[i] = s.recs[i].first_child
        nb[i] = s.recs[i].n_branches
        e[i] = s.recs[i].empty
    for i in range(s.n_children):
        ch[i] = s.children[i]
    return kind, feature, threshold, category, first_child, n_branches, empty, children


def node_arrays(nodes, node):
    """(rows, weights, class table) of node ``node`` (copies)."""
    cdef StoreC* s = store_of(nodes)
    cdef NodeData* d = s.recs[checked(s, node)].data
    rows = np.empty(d.n, dtype=np.int64)
    weights = np.empty(d.n)
    table = np.empty(d.n_classes)
    cdef int64_t[::1] r = rows
    cdef double[::1] w = weights, t = table
    if d.n > 0:
        memcpy(&r[0], d.rows, d.n * sizeof(int64_t))
        memcpy(&w[0], d.weights, d.n * sizeof(double))
    if d.n_classes > 0:
        memcpy(&t[0], d.table, d.n_classes * sizeof(double))
    return rows, weights, table


def class_table(y, rows, weights, n_classes):
    """Class weights of the rows, added in row order."""
    cdef const int32_t[::1] yv = np.ascontiguousarray(y, dtype=np.int32)
    cdef const int64_t[::1] rv = np.ascontiguousarray(rows, dtype=np.int64)
    cdef const double[::1] wv = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t q, ncls = n_classes
    table = np.zeros(ncls)
    cdef double[::1] t = table
    for q in range(rv.shape[0]):
        t[yv[rv[q]]] += wv[q]
    return table


def total(values):
    """Sum in order (as J48 adds)."""
    cdef const double[:] v = np.asarray(values, dtype=np.float64).ravel()
    cdef double out = 0.0
    cdef Py_ssize_t i
    for i in range(v.shape[0]):
        out += v[i]
    return out


def add_node(nodes, rows, weights, table, depth):
    """Append a leaf holding these rows to the node store; returns its id."""
    cdef StoreC* s = store_of(nodes)
    cdef const int64_t[::1] rv = np.ascontiguousarray(rows, dtype=np.int64)
    cdef const double[::1] wv = np.ascontiguousarray(weights, dtype=np.float64)
    cdef const double[::1] tv = np.ascontiguousarray(table, dtype=np.float64)
    if rv.shape[0] != wv.shape[0]:
        raise ValueError("add_node: rows and weights differ in length")
    cdef NodeData* d = data_new(rv.shape[0], tv.shape[0])
    if d == NULL:
        raise MemoryError()
    if rv.shape[0] > 0:
        memcpy(d.rows, &rv[0], rv.shape[0] * sizeof(int64_t))
        memcpy(d.weights, &wv[0], rv.shape[0] * sizeof(double))
    if tv.shape[0] > 0:
        memcpy(d.table, &tv[0], tv.shape[0] * sizeof(double))
    cdef Py_ssize_t node = add_node_c(s, d, depth)
    if node < 0:
        data_decref(d)
        raise MemoryError()
    return node


def category_map(n_values, category):
    """Branch per category code: J48 -B sends ``category`` to branch 0, the rest to 1; a
    multiway split (category -1) uses the code itself (empty map)."""
    if category < 0:
        return np.zeros(0, dtype=np.int64)
    cmap = np.ones(n_values, dtype=np.int64)
    cmap[category] = 0
    return cmap


def make_leaf(nodes, node):
    cdef StoreC* s = store_of(nodes)
    make_leaf_c(s, checked(s, node))


cdef object routed_arrays(Routed* R):
    """``split_rows``' result as arrays."""
    cdef Py_ssize_t n = R.n, k = R.k, p
    out_pos = np.empty(R.total, dtype=np.int64)
    out_w = np.empty(R.total)
    ptr = np.empty(k + 1, dtype=np.int64)
    route = np.empty((n, 2), dtype=np.int64)
    counts = np.empty(k, dtype=np.int64)
    share = np.empty(k)
    cdef int64_t[::1] op = out_pos, pv = ptr, cv = counts
    cdef double[::1] ow = out_w, sv = share
    cdef int64_t[:, ::1] rt = route
    if R.total > 0:
        memcpy(&op[0], R.pos, R.total * sizeof(int64_t))
        memcpy(&ow[0], R.w, R.total * sizeof(double))
    memcpy(&pv[0], R.ptr, (k + 1) * sizeof(int64_t))
    if k > 0:
        memcpy(&cv[0], R.counts, k * sizeof(int64_t))
        memcpy(&sv[0], R.share, k * sizeof(double))
    for p in range(n):
        rt[p, 0] = R.branch[p]
        rt[p, 1] = R.rank[p]
    return out_pos, out_w, ptr, route, counts, share


def split_rows(X, rows, weights, feature, numeric, threshold, n_branches, category_map):
    """Send a node's rows to its branches (spec step 22).

    A known value goes to its branch (numeric: value <= threshold within 1e-6 goes to 0;
    categorical: ``category_map[code]``, or the code itself when ``category_map`` is empty);
    a missing one to every branch whose share of the known weight exceeds 1e-6, with its
    weight times that share. Returns (positions, weights, ptr, route, known, share): branch j
    holds ``positions[ptr[j]:ptr[j+1]]`` (indices into ``rows``), known rows first, in
    order; ``route[p]`` is row p's branch (-1: missing) and its place there (or among the
    missing rows); ``known[j]`` counts branch j's known rows, encoded as ``-1 - count``
    when the branch takes no missing rows.
    """
    cdef const double[:, :] Xv = X
    cdef Mat mat = make_mat(Xv)
    cdef const int64_t[::1] rv = np.ascontiguousarray(rows, dtype=np.int64)
    cdef const double[::1] wv = np.ascontiguousarray(weights, dtype=np.float64)
    cdef const int64_t[::1] mv = np.ascontiguousarray(category_map, dtype=np.int64)
    cdef Routed R
    cdef int status
    cdef Py_ssize_t f = feature, k = n_branches, n = rv.shape[0]
    cdef bint num = bool(numeric)
    cdef double t = threshold
    with nogil:
        status = route_rows_c(&mat, &rv[0] if n > 0 else NULL, &wv[0] if n > 0 else NULL, n,
                              f, num, t, k, &mv[0] if mv.shape[0] > 0 else NULL, mv.shape[0],
                              &R)
    if status < 0:
        raise MemoryError()
    try:
        return routed_arrays(&R)
    finally:
        routed_free(&R)


cdef inline void node_map(StoreC* s, Py_ssize_t node, const int64_t* n_values,
                          int64_t* cmap, Py_ssize_t* n_map) noexcept nogil:
    """The category map of split node ``node`` (J48 -B), in ``cmap``; none: n_map 0."""
    cdef NodeRec* rec = &s.recs[node]
    cdef Py_ssize_t q
    n_map[0] = 0
    if rec.kind == K_CATEGORICAL and rec.category >= 0:
        n_map[0] = n_values[rec.feature]
        for q in range(n_map[0]):
            cmap[q] = 1
        cmap[rec.category] = 0


cdef int route_node_c(const Mat* X, StoreC* s, Py_ssize_t node, const int64_t* rows,
                      const double* weights, Py_ssize_t n, const int64_t* n_values,
                      Routed* R) noexcept nogil:
    """``route_rows_c`` for split node ``node`` of the store."""
    cdef NodeRec* rec = &s.recs[node]
    cdef Py_ssize_t n_map = 0, width = 0
    cdef int64_t* cmap = NULL
    cdef int status
    if rec.kind == K_CATEGORICAL and rec.category >= 0:
        width = n_values[rec.feature]
        cmap = <int64_t*> malloc((width + 1) * sizeof(int64_t))
        if cmap == NULL:
            return -1
        node_map(s, node, n_values, cmap, &n_map)
    status = route_rows_c(X, rows, weights, n, rec.feature, rec.kind == K_NUMERIC,
                          rec.threshold, rec.n_branches, cmap, n_map, R)
    free(cmap)
    return status


def route(X, nodes, node, rows, weights, n_values):
    """``split_rows`` for split node ``node`` of the store."""
    cdef StoreC* s = store_of(nodes)
    cdef Py_ssize_t i = checked(s, node)
    cdef NodeRec* rec = &s.recs[i]
    cmap = np.zeros(0, dtype=np.int64)
    if rec.kind == K_CATEGORICAL:
        cmap = category_map(int(n_values[rec.feature]), rec.category)
    return split_rows(X, rows, weights, rec.feature, rec.kind == K_NUMERIC, rec.threshold,
                      rec.n_branches, cmap)


cdef inline double entropy_c(const double* table, Py_ssize_t n) noexcept nogil:
    cdef double total = total_c(table, n), out = 0.0, p
    cdef Py_ssize_t c
    if total > 0:
        for c in range(n):
            if table[c] > 0:
                p = table[c] / total
                out -= p * log2(p)
    return out


def flatten(nodes, root, n_classes, n_values):
    """The subtree of ``root`` as flat-tree arrays in pre-order (see ``tree.Tree``)."""
    cdef StoreC* s = store_of(nodes)
    cdef const int64_t[::1] nv = np.ascontiguousarray(n_values, dtype=np.int64)
    cdef Py_ssize_t N = s.n, ncls = n_classes, n = 0, i, j, k, node, top, code, start
    cdef Py_ssize_t n_children = 0, n_categories = 0
    cdef NodeRec* rec
    cdef NodeData* d
    cdef double w
    order_array = np.empty(N, dtype=np.int64)
    new_array = np.full(N, -1, dtype=np.int64)
    stack_array = np.empty(N + 1, dtype=np.int64)
    cdef int64_t[::1] order = order_array, new_id = new_array, stack = stack_array
    stack[0] = checked(s, root)
    top = 1
    while top > 0:  # at most N entries: each node is pushed once, by its parent
        top -= 1
        node = stack[top]
        order[n] = node
        n += 1
        rec = &s.recs[node]
        for j in range(rec.n_branches - 1, -1, -1):
            stack[top] = s.children[rec.first_child + j]
            top += 1
    for i in range(n):
        new_id[order[i]] = i
        rec = &s.recs[order[i]]
        n_children += rec.n_branches
        if rec.kind == K_CATEGORICAL:
            n_categories += nv[rec.feature]
    out_kind = np.empty(n, dtype=np.int8)
    out_feature = np.empty(n, dtype=np.int32)
    out_threshold = np.empty(n)
    child_ptr = np.zeros(n + 1, dtype=np.int64)
    child_ids = np.empty(n_children, dtype=np.int32)
    missing_branch = np.zeros(n, dtype=np.int32)
    category_ptr = np.zeros(n + 1, dtype=np.int64)
    category_branch = np.empty(n_categories, dtype=np.int32)
    value = np.empty((n, ncls))
    impurity = np.empty(n)
    n_samples = np.empty(n, dtype=np.int64)
    node_weight = np.empty(n)
    out_empty = np.empty(n, dtype=np.bool_)
    cdef int8_t[::1] ok = out_kind
    cdef int32_t[::1] of = out_feature, ci = child_ids, mb = missing_branch
    cdef int32_t[::1] cb = category_branch
    cdef double[::1] ot = out_threshold, im = impurity, nw = node_weight
    cdef int64_t[::1] cp = child_ptr, cap = category_ptr, ns = n_samples
    cdef double[:, ::1] val = value
    cdef unsigned char[::1] oe = out_empty.view(np.uint8)
    for i in range(n):
        node = order[i]
        rec = &s.recs[node]
        d = rec.data
        ok[i] = <int8_t> rec.kind
        of[i] = <int32_t> rec.feature
        ot[i] = rec.threshold
        for j in range(ncls):
            val[i, j] = d.table[j]
        im[i] = entropy_c(d.table, ncls)
        ns[i] = d.n
        oe[i] = rec.empty
        # the weight as J48 totals it: the rows' weights one by one in row order (summing
        # the class weights can differ in the last bit and print rounded the other way)
        w = total_c(d.table, ncls)
        if w != floor(w) and d.n > 0:
            w = total_c(d.weights, d.n)
        nw[i] = w
        k = rec.n_branches
        cp[i + 1] = cp[i] + k
        for j in range(k):
            ci[cp[i] + j] = <int32_t> new_id[s.children[rec.first_child + j]]
        cap[i + 1] = cap[i]
        if rec.kind != K_LEAF:
            mb[i] = K_WEIGHTED
        if rec.kind == K_CATEGORICAL:
            start = cap[i]
            for code in range(nv[rec.feature]):
                if rec.category >= 0:
                    cb[start + code] = 0 if code == rec.category else 1
                else:
                    cb[start + code] = <int32_t> code
            cap[i + 1] = start + nv[rec.feature]
    return (out_kind, out_feature, out_threshold, child_ptr, child_ids, missing_branch,
            category_ptr, category_branch, value, impurity, n_samples, node_weight, out_empty)


def detach(nodes, frontier, take, task_nodes, task_frontier):
    """Copy the frontier entries ``take`` (and their nodes) into an empty store and frontier
    of their own, so that another thread can grow them; returns each copied node's id in
    ``nodes`` (the task's node i is ``nodes``' node ``origin[i]``)."""
    cdef StoreC* s = store_of(nodes)
    cdef FrontierC* fr = frontier_of(frontier)
    cdef StoreC* ts = store_of(task_nodes)
    cdef C45Frontier tf = task_frontier
    cdef const int64_t[::1] tk = np.ascontiguousarray(take, dtype=np.int64)
    cdef Py_ssize_t t, i, node, local
    origin = np.empty(tk.shape[0], dtype=np.int64)
    cdef int64_t[::1] o = origin
    cdef NodeRec* rec
    tf.owners.extend((<C45Frontier> frontier).owners)
    for t in range(tk.shape[0]):
        i = tk[t]
        if i < 0 or i >= fr.n:
            raise IndexError(f"frontier entry {i} does not exist")
        node = fr.entries[i].node
        o[t] = node
        rec = &s.recs[node]
        data_incref(rec.data)
        local = add_node_c(ts, rec.data, rec.depth)
        if local < 0:
            data_decref(rec.data)
            raise MemoryError()
        ts.recs[local].empty = rec.empty
        if push_c(&tf.f, local, fr.entries[i].columns, fr.entries[i].start,
                  fr.entries[i].stop) < 0:
            raise MemoryError()
    return origin


def attach(nodes, task_nodes, origin):
    """Bring a grown task store back: its first ``len(origin)`` nodes are ``nodes``' nodes
    ``origin``, the rest are appended (children renumbered)."""
    cdef StoreC* s = store_of(nodes)
    cdef StoreC* ts = store_of(task_nodes)
    cdef const int64_t[::1] og = np.ascontiguousarray(origin, dtype=np.int64)
    cdef Py_ssize_t k = og.shape[0], n_task = ts.n, base = s.n, local, target, j
    new_array = np.empty(n_task, dtype=np.int64)
    cdef int64_t[::1] new_id = new_array
    cdef NodeRec* t
    cdef NodeRec* rec
    for local in range(n_task):
        new_id[local] = og[local] if local < k else base + local - k
    for local in range(n_task):
        t = &ts.recs[local]
        if local >= k:
            data_incref(t.data)
            if add_node_c(s, t.data, t.depth) < 0:
                data_decref(t.data)
                raise MemoryError()
        target = new_id[local]
        rec = &s.recs[target]
        rec.kind = t.kind
        rec.feature = t.feature
        rec.threshold = t.threshold
        rec.category = t.category
        rec.empty = t.empty
        rec.n_branches = t.n_branches
        if t.n_branches > 0:
            rec.first_child = s.n_children
            for j in range(t.n_branches):
                if add_child_c(s, new_id[ts.children[t.first_child + j]]) < 0:
                    raise MemoryError()


def copy_store(nodes):
    """A copy of the store that pruning can change without touching ``nodes``: the same
    row, weight and table blocks (pruning replaces those, never writes into them), so trees
    pruned at several confidence factors share one grown tree."""
    cdef StoreC* s = store_of(nodes)
    cdef C45Store out = C45Store()
    cdef Py_ssize_t i
    out.s.recs = <NodeRec*> malloc((s.n if s.n > 0 else 1) * sizeof(NodeRec))
    out.s.children = <int64_t*> malloc((s.n_children if s.n_children > 0 else 1)
                                       * sizeof(int64_t))
    if out.s.recs == NULL or out.s.children == NULL:
        raise MemoryError()
    out.s.cap = s.n if s.n > 0 else 1
    out.s.cap_children = s.n_children if s.n_children > 0 else 1
    if s.n > 0:
        memcpy(out.s.recs, s.recs, s.n * sizeof(NodeRec))
    if s.n_children > 0:
        memcpy(out.s.children, s.children, s.n_children * sizeof(int64_t))
    for i in range(s.n):
        data_incref(s.recs[i].data)
    out.s.n = s.n
    out.s.n_children = s.n_children
    return out


# -- pruning (spec steps 24-28) --------------------------------------------------------------
cdef inline double upper_added_errors_c(double n, double e, double z) noexcept nogil:
    """``added_errors`` for e >= 1: the normal approximation of the binomial's upper limit."""
    cdef double f, r, v
    if e + 0.5 >= n:
        v = n - e
        return 0.0 if 0.0 > v else v  # Python's max(n - e, 0.0)
    f = (e + 0.5) / n
    r = (f + z * z / (2.0 * n) + z * sqrt(f / n - f * f / n + z * z / (4.0 * n * n))) / (
        1.0 + z * z / n)
    return r * n - e


cdef inline double added_errors_c(double n, double e, double confidence,
                                  double z) noexcept nogil:
    cdef double base
    if e < 1.0:
        base = n * (1.0 - pow(confidence, 1.0 / n))
        if fabs(e) < C_SMALL:
            return base
        return base + e * (upper_added_errors_c(n, 1.0, z) - base)
    return upper_added_errors_c(n, e, z)


cdef inline double estimated_errors_c(const double* table, Py_ssize_t n_classes,
                                      double confidence, double z) noexcept nogil:
    cdef double n = total_c(table, n_classes), e
    if n < C_SMALL:
        return 0.0
    e = n - amax_c(table, n_classes)
    return e + added_errors_c(n, e, confidence, z)


cdef inline double training_errors_c(const double* table, Py_ssize_t n_classes) noexcept nogil:
    if n_classes == 0:
        return 0.0
    return total_c(table, n_classes) - amax_c(table, n_classes)


def added_errors(n, e, confidence, z):
    """Extra errors expected at ``confidence`` beyond ``e`` observed in ``n`` (the upper
    limit of the binomial error rate, C4.5's ``addErrs``); ``z`` is the standard normal
    quantile of ``1 - confidence``."""
    return added_errors_c(n, e, confidence, z)


def estimated_errors(table, confidence, z):
    """Observed plus added errors of a class table; 0 for an empty table."""
    cdef const double[::1] t = np.ascontiguousarray(table, dtype=np.float64)
    if t.shape[0] == 0:
        return 0.0
    return estimated_errors_c(&t[0], t.shape[0], confidence, z)


def training_errors(table):
    """Weight not in the majority class."""
    cdef const double[::1] t = np.ascontiguousarray(table, dtype=np.float64)
    if t.shape[0] == 0:
        return 0.0
    return training_errors_c(&t[0], t.shape[0])


ctypedef struct Stack:
    int64_t* data
    Py_ssize_t n
    Py_ssize_t cap


cdef inline int stack_push(Stack* st, int64_t v) noexcept nogil:
    cdef Py_ssize_t cap
    cdef int64_t* grown
    if st.n == st.cap:
        cap = 2 * st.cap if st.cap > 0 else 64
        grown = <int64_t*> realloc(st.data, cap * sizeof(int64_t))
        if grown == NULL:
            return -1
        st.data = grown
        st.cap = cap
    st.data[st.n] = v
    st.n += 1
    return 0


cdef int collapse_c(StoreC* s, Py_ssize_t root) noexcept nogil:
    """Top down: a subtree whose leaves err as much as the node itself becomes a leaf."""
    cdef Stack outer, inner
    cdef Py_ssize_t node, current, j
    cdef double leaf_errors
    cdef NodeRec* rec
    cdef int status = 0
    outer.data = NULL
    outer.n = outer.cap = 0
    inner.data = NULL
    inner.n = inner.cap = 0
    if stack_push(&outer, root) < 0:
        return -1
    while outer.n > 0 and status == 0:
        outer.n -= 1
        node = outer.data[outer.n]
        if s.recs[node].kind == K_LEAF:
            continue
        leaf_errors = 0.0
        inner.n = 0
        if stack_push(&inner, node) < 0:
            status = -1
            break
        while inner.n > 0:  # the leaves, last branch first (the order J48's sum takes)
            inner.n -= 1
            current = inner.data[inner.n]
            rec = &s.recs[current]
            if rec.kind == K_LEAF:
                leaf_errors += training_errors_c(rec.data.table, rec.data.n_classes)
            else:
                for j in range(rec.n_branches):
                    if stack_push(&inner, s.children[rec.first_child + j]) < 0:
                        status = -1
                        break
                if status < 0:
                    break
        if status < 0:
            break
        rec = &s.recs[node]
        if leaf_errors >= training_errors_c(rec.data.table, rec.data.n_classes) - 1e-3:
            make_leaf_c(s, node)
        else:
            for j in range(rec.n_branches):
                if stack_push(&outer, s.children[rec.first_child + j]) < 0:
                    status = -1
                    break
    free(outer.data)
    free(inner.data)
    return status


def collapse(nodes, root):
    """Top down: a subtree whose leaves err as much as the node itself becomes a leaf."""
    cdef StoreC* s = store_of(nodes)
    cdef Py_ssize_t r = checked(s, root)
    cdef int status
    with nogil:
        status = collapse_c(s, r)
    if status < 0:
        raise MemoryError()


ctypedef struct PruneCtx:
    Mat X
    const int32_t* y
    const int64_t* n_values
    Py_ssize_t n_classes
    double confidence
    double z
    bint subtree_raising


cdef int branch_errors_c(PruneCtx* p, StoreC* s, Py_ssize_t node, const int64_t* rows,
                         const double* weights, Py_ssize_t n, double* out) noexcept nogil:
    """Estimated errors if these rows were classified by the subtree ``node``."""
    cdef NodeRec* rec = &s.recs[node]
    cdef double* table
    cdef int64_t* child_rows
    cdef Routed R
    cdef Py_ssize_t j, q, cnt, width = 0
    cdef double acc = 0.0, part
    cdef int status = 0
    if rec.kind == K_LEAF:
        table = <double*> calloc(p.n_classes + 1, sizeof(double))
        if table == NULL:
            return -1
        class_table_c(p.y, rows, weights, n, p.n_classes, table)
        out[0] = estimated_errors_c(table, p.n_classes, p.confidence, p.z)
        free(table)
        return 0
    if route_node_c(&p.X, s, node, rows, weights, n, p.n_values, &R) < 0:
        return -1
    for j in range(R.k):
        cnt = R.ptr[j + 1] - R.ptr[j]
        if cnt > width:
            width = cnt
    child_rows = <int64_t*> malloc((width + 1) * sizeof(int64_t))
    if child_rows == NULL:
        routed_free(&R)
        return -1
    for j in range(R.k):
        cnt = R.ptr[j + 1] - R.ptr[j]
        for q in range(cnt):
            child_rows[q] = rows[R.pos[R.ptr[j] + q]]
        status = branch_errors_c(p, s, s.children[rec.first_child + j], child_rows,
                                 R.w + R.ptr[j], cnt, &part)
        if status < 0:
            break
        acc += part
    free(child_rows)
    routed_free(&R)
    out[0] = acc
    return status


cdef int redistribute_c(PruneCtx* p, StoreC* s, Py_ssize_t node, const int64_t* rows,
                        const double* weights, Py_ssize_t n) noexcept nogil:
    """Rebuild every table of the subtree from these rows (after subtree raising): each
    node gets a new block (the old one may be shared with a copy of the store)."""
    cdef NodeRec* rec = &s.recs[node]
    cdef NodeData* nd = data_new(n, p.n_classes)
    cdef NodeData* old
    cdef Routed R
    cdef int64_t* child_rows
    cdef Py_ssize_t j, q, cnt, width = 0
    cdef int status = 0
    if nd == NULL:
        return -1
    if n > 0:
        memcpy(nd.rows, rows, n * sizeof(int64_t))
        memcpy(nd.weights, weights, n * sizeof(double))
    class_table_c(p.y, nd.rows, nd.weights, n, p.n_classes, nd.table)
    old = rec.data
    rec.data = nd
    data_decref(old)  # rows and weights may have pointed into it: read nd's from here on
    if rec.kind == K_LEAF:
        if total_c(nd.table, p.n_classes) >= C_SMALL:
            rec.empty = False
        return 0
    if route_node_c(&p.X, s, node, nd.rows, nd.weights, n, p.n_values, &R) < 0:
        return -1
    for j in range(R.k):
        cnt = R.ptr[j + 1] - R.ptr[j]
        if cnt > width:
            width = cnt
    child_rows = <int64_t*> malloc((width + 1) * sizeof(int64_t))
    if child_rows == NULL:
        routed_free(&R)
        return -1
    for j in range(R.k):
        cnt = R.ptr[j + 1] - R.ptr[j]
        for q in range(cnt):
            child_rows[q] = nd.rows[R.pos[R.ptr[j] + q]]
        status = redistribute_c(p, s, s.children[rec.first_child + j], child_rows,
                                R.w + R.ptr[j], cnt)
        if status < 0:
            break
    free(child_rows)
    routed_free(&R)
    return status


cdef int prune_c(PruneCtx* p, StoreC* s, Py_ssize_t node, double* out) noexcept nogil:
    """Prune the subtree in place; its estimated errors (sum over its leaves) in ``out``."""
    cdef NodeRec* rec = &s.recs[node]
    cdef NodeRec* raised_rec
    cdef NodeData* d
    cdef double tree = 0.0, part, heaviest = -INFINITY, w, leaf, branch
    cdef Py_ssize_t j, largest = 0, child, raised
    if rec.kind == K_LEAF:
        out[0] = estimated_errors_c(rec.data.table, p.n_classes, p.confidence, p.z)
        return 0
    for j in range(rec.n_branches):
        if prune_c(p, s, s.children[rec.first_child + j], &part) < 0:
            return -1
        tree += part
    for j in range(rec.n_branches):
        child = s.children[rec.first_child + j]
        w = total_c(s.recs[child].data.table, p.n_classes)
        if w >= heaviest:  # ties go to the last branch
            largest = j
            heaviest = w
    leaf = estimated_errors_c(rec.data.table, p.n_classes, p.confidence, p.z)
    raised = s.children[rec.first_child + largest]
    branch = INFINITY
    if p.subtree_raising:
        d = rec.data
        if branch_errors_c(p, s, raised, d.rows, d.weights, d.n, &branch) < 0:
            return -1
    if leaf - (tree + 0.1) < C_SMALL and leaf - (branch + 0.1) < C_SMALL:
        make_leaf_c(s, node)
        out[0] = leaf
        return 0
    if branch - (tree + 0.1) < C_SMALL:
        raised_rec = &s.recs[raised]
        rec.kind = raised_rec.kind
        rec.feature = raised_rec.feature
        rec.threshold = raised_rec.threshold
        rec.category = raised_rec.category
        rec.first_child = raised_rec.first_child
        rec.n_branches = raised_rec.n_branches
        d = rec.data
        data_incref(d)  # redistribute replaces the node's block while it reads these rows
        if redistribute_c(p, s, node, d.rows, d.weights, d.n) < 0:
            data_decref(d)
            return -1
        data_decref(d)
        return prune_c(p, s, node, out)
    out[0] = tree
    return 0


cdef PruneCtx prune_ctx(X, y, n_values, n_classes, confidence, z, subtree_raising,
                        list keep):
    cdef PruneCtx p
    cdef const double[:, :] Xv = X
    cdef const int32_t[::1] yv = np.ascontiguousarray(y, dtype=np.int32)
    cdef const int64_t[::1] nv = np.ascontiguousarray(n_values, dtype=np.int64)
    keep.extend((X, yv, nv))
    p.X = make_mat(Xv)
    p.y = &yv[0] if yv.shape[0] > 0 else NULL
    p.n_values = &nv[0] if nv.shape[0] > 0 else NULL
    p.n_classes = n_classes
    p.confidence = confidence
    p.z = z
    p.subtree_raising = bool(subtree_raising)
    return p


def prune(X, y, nodes, node, n_values, n_classes, confidence, z, subtree_raising):
    """Prune the subtree in place; returns its estimated errors (sum over its leaves)."""
    cdef list keep = []
    cdef PruneCtx p = prune_ctx(X, y, n_values, n_classes, confidence, z, subtree_raising,
                                keep)
    cdef StoreC* s = store_of(nodes)
    cdef Py_ssize_t i = checked(s, node)
    cdef double out = 0.0
    cdef int status
    with nogil:
        status = prune_c(&p, s, i, &out)
    if status < 0:
        raise MemoryError()
    return out


def branch_errors(X, y, nodes, node, rows, weights, n_values, n_classes, confidence, z):
    """Estimated errors if these rows were classified by the subtree ``node``."""
    cdef list keep = []
    cdef PruneCtx p = prune_ctx(X, y, n_values, n_classes, confidence, z, False, keep)
    cdef StoreC* s = store_of(nodes)
    cdef Py_ssize_t i = checked(s, node)
    cdef const int64_t[::1] rv = np.ascontiguousarray(rows, dtype=np.int64)
    cdef const double[::1] wv = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t n = rv.shape[0]
    cdef double out = 0.0
    cdef int status
    with nogil:
        status = branch_errors_c(&p, s, i, &rv[0] if n > 0 else NULL,
                                 &wv[0] if n > 0 else NULL, n, &out)
    if status < 0:
        raise MemoryError()
    return out


def redistribute(X, y, nodes, node, rows, weights, n_values, n_classes):
    """Rebuild every table of the subtree from these rows (after subtree raising)."""
    cdef list keep = []
    cdef PruneCtx p = prune_ctx(X, y, n_values, n_classes, 0.25, 0.0, False, keep)
    cdef StoreC* s = store_of(nodes)
    cdef Py_ssize_t i = checked(s, node)
    cdef const int64_t[::1] rv = np.ascontiguousarray(rows, dtype=np.int64)
    cdef const double[::1] wv = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t n = rv.shape[0]
    cdef int status
    with nogil:
        status = redistribute_c(&p, s, i, &rv[0] if n > 0 else NULL,
                                &wv[0] if n > 0 else NULL, n)
    if status < 0:
        raise MemoryError()


# -- the Python-level kernels: cut scans, routing, sorted columns, nominal candidates --------
def xlog2x(x):
    """F(x) = x log2 x, taken as 0 below 1e-6."""
    return xlog2x_c(x)


def xlogx_table(n: int) -> np.ndarray:
    """F(k) for k = 0..n, computed exactly as ``xlog2x`` computes it."""
    k = np.arange(n + 1, dtype=np.float64)
    out = np.zeros(n + 1)
    out[1:] = k[1:] * np.log2(k[1:])
    return out


def scan_one(values, classes, weights, n_classes, min_leaf, node_weight, xlogx_of_int):
    """C4.5's best threshold of one numeric feature, with the MDL correction (spec steps
    17-19), from its sorted (values, classes, weights), missing values last.

    Returns (valid, corrected gain, split information with the missing rows as one more
    branch, provisional threshold). ``xlogx_of_int`` is ``xlogx_table(n)`` when every
    weight at the node is a whole number, else empty.
    """
    cdef const double[::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const int32_t[::1] c = np.ascontiguousarray(classes, dtype=np.int32)
    cdef const double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef const double[::1] x = np.ascontiguousarray(xlogx_of_int, dtype=np.float64)
    cdef Py_ssize_t ncls = n_classes, n = v.shape[0]
    cdef ScanResult r
    scratch_d = np.empty(4 * ncls + 1)
    scratch_i = np.empty(2 * ncls + 1, dtype=np.int64)
    cdef double[::1] sd = scratch_d
    cdef int64_t[::1] si = scratch_i
    scan_one_c(&v[0] if n > 0 else NULL, &c[0] if n > 0 else NULL, &w[0] if n > 0 else NULL,
               n, ncls, min_leaf, node_weight, &x[0] if x.shape[0] > 0 else NULL, x.shape[0],
               &sd[0], &si[0], &r)
    return bool(r.valid), r.gain, r.split_info, r.threshold


def scan_parallel(values, classes, weights, n_classes, min_leaf, node_weight, xlogx_of_int,
                  out_valid, out_gain, out_split_info, out_threshold):
    """``scan_one`` for every feature (row of ``values``), features spread over threads."""
    cdef const double[:, ::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const int32_t[:, ::1] c = np.ascontiguousarray(classes, dtype=np.int32)
    cdef const double[:, ::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef const double[::1] x = np.ascontiguousarray(xlogx_of_int, dtype=np.float64)
    cdef Py_ssize_t ncls = n_classes, m = v.shape[0], n = v.shape[1]
    valid = np.zeros(m, dtype=np.uint8)
    gain = np.empty(m)
    split_info = np.empty(m)
    threshold = np.empty(m)
    cdef unsigned char[::1] ov = valid
    cdef double[::1] og = gain, osi = split_info, ot = threshold
    cdef int status = 0
    cdef bint cells = m > 0 and n > 0
    cdef double leaf = min_leaf, nw = node_weight
    if m > 0:
        with nogil:
            status = scan_features_c(&v[0, 0] if cells else NULL, &c[0, 0] if cells else NULL,
                                     &w[0, 0] if cells else NULL, n, m, n, ncls, leaf, nw,
                                     &x[0] if x.shape[0] > 0 else NULL,
                                     x.shape[0], True, &ov[0], &og[0], &osi[0], &ot[0],
                                     NULL, NULL)
    if status < 0:
        raise MemoryError()
    out_valid[:] = valid.astype(bool)
    out_gain[:] = gain
    out_split_info[:] = split_info
    out_threshold[:] = threshold


def largest_value_at_most(column, threshold):
    """Largest value of ``column`` (file order, NaN skipped) that is <= threshold + 1e-6.

    A later value replaces the current one only if it is larger by more than 1e-6.
    """
    cdef const double[:] c = np.asarray(column, dtype=np.float64)
    cdef Py_ssize_t n = c.shape[0]
    return largest_value_at_most_c(<const char*> &c[0] if n > 0 else NULL, c.strides[0], n,
                                   threshold)


def moved_threshold(distinct, column, threshold):
    """Spec step 20: the largest training value <= threshold (within 1e-6); ``distinct``
    holds the column's sorted distinct values, the file-order scan of ``column`` is needed
    only when values closer than 1e-6 crowd the answer or to tell 0.0 from -0.0."""
    cdef const double[::1] d = np.ascontiguousarray(distinct, dtype=np.float64)
    cdef const double[:] c = np.asarray(column, dtype=np.float64)
    cdef Py_ssize_t n = c.shape[0]
    return moved_threshold_c(&d[0] if d.shape[0] > 0 else NULL, d.shape[0],
                             <const char*> &c[0] if n > 0 else NULL, c.strides[0], n,
                             threshold)


def all_whole(weights):
    cdef const double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    return bool(all_whole_c(&w[0] if w.shape[0] > 0 else NULL, w.shape[0]))


def split_one(values, classes, weights, row_ids, branch_of_row, known, share, ptr,
              out_values, out_classes, out_weights, out_row_ids):
    """Filter one sorted column of a node into its children's columns, keeping the order.

    ``branch_of_row[r]`` is row r's branch (-1: missing); ``known``, ``share`` and ``ptr``
    are what ``split_rows`` returned; a child's entries go to ``out_*[ptr[j]:ptr[j + 1]]``.
    """
    split_parallel(np.asarray(values)[None], np.asarray(classes)[None],
                   np.asarray(weights)[None], np.asarray(row_ids)[None], branch_of_row, known,
                   share, ptr, np.asarray(out_values)[None], np.asarray(out_classes)[None],
                   np.asarray(out_weights)[None], np.asarray(out_row_ids)[None])


def split_parallel(values, classes, weights, row_ids, branch_of_row, known, share, ptr,
                   out_values, out_classes, out_weights, out_row_ids):
    """``split_one`` for every feature (row), features spread over threads."""
    cdef const double[:, ::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const int32_t[:, ::1] c = np.ascontiguousarray(classes, dtype=np.int32)
    cdef const double[:, ::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef const int32_t[:, ::1] r = np.ascontiguousarray(row_ids, dtype=np.int32)
    cdef const int64_t[::1] b = np.ascontiguousarray(branch_of_row, dtype=np.int64)
    cdef const int64_t[::1] kn = np.ascontiguousarray(known, dtype=np.int64)
    cdef const double[::1] sh = np.ascontiguousarray(share, dtype=np.float64)
    cdef const int64_t[::1] p = np.ascontiguousarray(ptr, dtype=np.int64)
    cdef Py_ssize_t m = v.shape[0], n = v.shape[1], k = kn.shape[0], size = p[k]
    # into the given arrays when they are C-contiguous of the kernel's types, else copies
    ov = _writable(out_values, np.float64, (m, size))
    oc = _writable(out_classes, np.int32, (m, size))
    ow = _writable(out_weights, np.float64, (m, size))
    orow = _writable(out_row_ids, np.int32, (m, size))
    cdef double[:, ::1] ovv = ov, oww = ow
    cdef int32_t[:, ::1] ocv = oc, orv = orow
    cdef int status = 0
    if m > 0 and n > 0 and size > 0:
        with nogil:
            status = split_features_c(&v[0, 0], &c[0, 0], &w[0, 0], &r[0, 0], n, m, n,
                                      &b[0], True, &kn[0], &sh[0], &p[0], k,
                                      &ovv[0, 0], &ocv[0, 0], &oww[0, 0], &orv[0, 0], size,
                                      True)
    if status < 0:
        raise MemoryError()
    for given, made in ((out_values, ov), (out_classes, oc), (out_weights, ow),
                        (out_row_ids, orow)):
        if made is not given:
            given[...] = made


def _writable(array, dtype, shape):
    """``array`` itself if it is a writable C-contiguous array of ``dtype`` and ``shape``,
    else a new one of those (copied back by the caller)."""
    if (isinstance(array, np.ndarray) and array.dtype == dtype and array.shape == shape
            and array.flags.c_contiguous and array.flags.writeable):
        return array
    return np.empty(shape, dtype=dtype)


ctypedef struct SortJob:
    Mat X
    const int32_t* y
    const double* weights
    const int64_t* features
    Py_ssize_t n
    double* out_values
    int32_t* out_classes
    double* out_weights
    int32_t* out_positions
    double* column  # n per thread
    int64_t* order  # n per thread
    int failed


cdef void sort_body(void* job_, Py_ssize_t i, int thread) noexcept nogil:
    cdef SortJob* job = <SortJob*> job_
    cdef Py_ssize_t n = job.n, p
    cdef int64_t r
    cdef double* column = job.column + thread * n
    cdef int64_t* order = job.order + thread * n
    cdef const char* source = job.X.data + job.features[i] * job.X.s1
    for p in range(n):
        column[p] = (<const double*> (source + p * job.X.s0))[0]
    if stable_argsort(column, n, order) < 0:
        job.failed = 1
        return
    for p in range(n):
        r = order[p]
        job.out_values[i * n + p] = column[r]
        job.out_classes[i * n + p] = job.y[r]
        job.out_weights[i * n + p] = job.weights[r]
        job.out_positions[i * n + p] = <int32_t> r


def _sort_columns(X, y, weights, features, out_values, out_classes, out_weights,
                  out_positions):
    """Sort every feature's rows by value (stable, missing values last), in parallel."""
    cdef const double[:, :] Xv = X
    cdef const int32_t[::1] yv = np.ascontiguousarray(y, dtype=np.int32)
    cdef const double[::1] wv = np.ascontiguousarray(weights, dtype=np.float64)
    cdef const int64_t[::1] fv = np.ascontiguousarray(features, dtype=np.int64)
    cdef double[:, ::1] ov = out_values, ow = out_weights
    cdef int32_t[:, ::1] oc = out_classes, op = out_positions
    cdef Py_ssize_t m = fv.shape[0], n = Xv.shape[0], i, n_threads
    cdef SortJob job
    if m == 0 or n == 0:
        return
    n_threads = max_threads_c()
    if n_threads > m:
        n_threads = m
    job.X = make_mat(Xv)
    job.y = &yv[0]
    job.weights = &wv[0]
    job.features = &fv[0]
    job.n = n
    job.out_values = &ov[0, 0]
    job.out_classes = &oc[0, 0]
    job.out_weights = &ow[0, 0]
    job.out_positions = &op[0, 0]
    job.failed = 0
    job.column = <double*> malloc(n_threads * n * sizeof(double))
    job.order = <int64_t*> malloc(n_threads * n * sizeof(int64_t))
    if job.column != NULL and job.order != NULL:
        with nogil:
            if n_threads > 1:
                parallel_for(m, sort_body, &job, <int> n_threads)
            else:
                for i in range(m):
                    sort_body(&job, i, 0)
    else:
        job.failed = 1
    free(job.column)
    free(job.order)
    if job.failed:
        raise MemoryError()


class SortedColumns:
    """A node's numeric features, each sorted (missing values last), stored contiguously:
    values, class codes and weights side by side, and the row (of X) of each entry.
    A child's columns are filtered from its parent's (``grow_nodes``), so nothing is sorted
    twice."""

    def __init__(self, values, classes, weights, positions):
        self.values, self.classes = values, classes
        self.weights, self.positions = weights, positions

    @classmethod
    def sort(cls, X, y, weights, features):
        features = np.asarray(features, dtype=np.int64)
        shape = (len(features), X.shape[0])
        classes = np.empty(shape, dtype=np.int32)
        out = cls(np.empty(shape), classes, np.empty(shape), np.empty(shape, dtype=np.int32))
        _sort_columns(X, y, weights, features, out.values, classes, out.weights,
                      out.positions)
        if np.asarray(y).dtype != np.int32:
            out.classes = classes.astype(np.asarray(y).dtype)
        return out


def gain_and_ratio(table, node_weight):
    """Information gain and gain ratio of a (bags x classes) table of known rows; the
    missing weight is ``node_weight`` minus the table's total (spec steps 13-15)."""
    cdef const double[:, ::1] t = np.ascontiguousarray(table, dtype=np.float64)
    bags = np.empty(t.shape[0] + 1)
    cdef double[::1] b = bags
    cdef double gain, ratio
    gain_and_ratio_c(&t[0, 0] if t.shape[0] * t.shape[1] > 0 else NULL, t.shape[0],
                     t.shape[1], node_weight, &b[0], &gain, &ratio)
    return gain, ratio


def nominal_class_table(X, y, rows, weights, feature, n_values, n_classes):
    """Class weights per category code of the rows whose value is known."""
    cdef const double[:, :] Xv = X
    cdef Mat mat = make_mat(Xv)
    cdef const int32_t[::1] yv = np.ascontiguousarray(y, dtype=np.int32)
    cdef const int64_t[::1] rv = np.ascontiguousarray(rows, dtype=np.int64)
    cdef const double[::1] wv = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t nv = n_values, ncls = n_classes, n = rv.shape[0]
    table = np.zeros((nv, ncls))
    cdef double[:, ::1] t = table
    if nv * ncls > 0:
        nominal_table_c(&mat, &yv[0] if yv.shape[0] > 0 else NULL,
                        &rv[0] if n > 0 else NULL, &wv[0] if n > 0 else NULL, n, feature, nv,
                        ncls, &t[0, 0])
    return table


def multiway_candidate(table, min_leaf, node_weight):
    """(valid, gain, ratio) of one branch per category."""
    cdef const double[:, ::1] t = np.ascontiguousarray(table, dtype=np.float64)
    bags = np.empty(t.shape[0] + 1)
    cdef double[::1] b = bags
    cdef double gain, ratio
    ok = multiway_candidate_c(&t[0, 0] if t.shape[0] * t.shape[1] > 0 else NULL, t.shape[0],
                              t.shape[1], min_leaf, node_weight, &b[0], &gain, &ratio)
    return bool(ok), gain, ratio


def binary_candidate(table, min_leaf, node_weight):
    """(valid, gain, ratio, category) of the best ``feature = value`` split (J48 -B): a
    later value replaces the current one only if its ratio is larger by more than 1e-6."""
    cdef const double[:, ::1] t = np.ascontiguousarray(table, dtype=np.float64)
    bags = np.empty(t.shape[0] + 3)
    pair = np.empty(2 * t.shape[1] + 1)
    cdef double[::1] b = bags, pr = pair
    cdef double gain, ratio
    cdef int64_t value
    ok = binary_candidate_c(&t[0, 0] if t.shape[0] * t.shape[1] > 0 else NULL, t.shape[0],
                            t.shape[1], min_leaf, node_weight, &b[0], &pr[0], &gain, &ratio,
                            &value)
    return bool(ok), gain, ratio, value
