# cython: language_level=3
"""Kernels of the optimal-tree search, compiled: candidate tests and the exact solver of
subproblems of depth <= 2, the pair-count depth-2 solver of binary nodes and the depth-3
level on binary data (docs/optimal.md).

They do the numba build's arithmetic (commit b87f659) in the same order, so they find
exactly its trees, checked by tests/test_kernel_fixtures.py.

Rows carry one integer code per feature (``codes``: int32, C order, -1 for a missing
value); ``y`` int32 classes; ``rows`` int64 row numbers; weights int64 (whole weights:
exact integer arithmetic) or float64, every weight-typed array of a call (class tables,
errors, bounds) of the weights' dtype (the fused type ``wt``). A test is one row of
``TEST_WIDTH`` int64: ``feature, type, param, missing_left, n_codes, code...``.

Internally every array is a raw C pointer to contiguous data: a class table is
(slots, K + 1) row-major, ``local`` (rows, features), the sorted rows of a node of sweeps
(features, rows). The node's data travel in a ``Node`` struct (weight-typed pointers as
``void*``, cast to ``wt*`` by each fused kernel) and each thread's scratch in a
``Scratch``. Heavy loops run without the GIL; the interval blocks of a large node are shared
among OpenMP's threads (an ``omp parallel for``, dynamic schedule), each on scratch of its
own, merged afterwards in scan order, so the trees do not depend on the thread count.

The pair-count solver's three inner loops (the rows' bitsets, the pairs' popcounts and the
four cells of every root feature) are plain C with ``restrict`` pointers, so that the
compiler vectorises them, and on x86-64 (GCC, clang) are also compiled for AVX2 and for
AVX-512 with its vector popcount, the best one the CPU has picked at run time: each
lane does the scalar loop's operations in the same order (no reassociation, no FMA), so
every variant gives the same numbers (``_simd_level``).
"""

cimport cython
from libc.math cimport floor
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort
from libc.string cimport memcpy, memset

import numpy as np

ctypedef unsigned char uchar

ctypedef fused wt:
    int64_t
    double

cdef enum:
    C_ORDERED = 0
    C_SUBSET = 1
    C_KNOWN = 2
    C_MAX_SUBSET = 16
    TW = 5 + C_MAX_SUBSET  # TEST_WIDTH
    C_NO_FEATURE = -1
    C_BOUND_FEATURES = 4
    C_STEPPED_CUTS = 8
    C_SIMILAR_KEPT = 2

cdef int64_t C_PARALLEL_WORK = 1 << 20
cdef int64_t stepped_cuts = C_STEPPED_CUTS  # _set_stepped_cuts (tests) changes it

# -- constants of the tests and the depth-2 solver ----------------------------------------
ORDERED, SUBSET, KNOWN = C_ORDERED, C_SUBSET, C_KNOWN
MAX_SUBSET = C_MAX_SUBSET  # most categories a SUBSET test lists
TEST_WIDTH = TW
NO_FEATURE = C_NO_FEATURE
BOUND_FEATURES = C_BOUND_FEATURES  # features whose best single cut gives the first bounds
PARALLEL_WORK = C_PARALLEL_WORK  # rows x cuts of a node's interval blocks run threaded
STEPPED_CUTS = C_STEPPED_CUTS  # intervals of more cuts are bounded by feature steps
# -- constants of the depth-3 level --------------------------------------------------------
SIMILAR_KEPT = C_SIMILAR_KEPT  # solved children kept for the similarity bound


def _set_stepped_cuts(int64_t cuts):
    """Intervals of more than ``cuts`` cuts are bounded by feature steps from now on (for
    tests: 0 bounds every interval by steps, a huge number none); returns the old value."""
    global stepped_cuts
    old = stepped_cuts
    stepped_cuts = cuts
    return old


# -- small helpers -------------------------------------------------------------------------
cdef inline wt wmin(wt a, wt b) noexcept nogil:
    """Python's ``min(a, b)``: b only when b < a."""
    return b if b < a else a


cdef inline wt wmax(wt a, wt b) noexcept nogil:
    """Python's ``max(a, b)``: b only when b > a."""
    return b if b > a else a


cdef inline int64_t imin(int64_t a, int64_t b) noexcept nogil:
    return b if b < a else a


cdef inline int64_t imax(int64_t a, int64_t b) noexcept nogil:
    return b if b > a else a


cdef inline object _dtype_of(wt x):
    if wt is double:
        return np.float64
    else:
        return np.int64


cdef inline void* _alloc(size_t size) noexcept nogil:
    """malloc of at least one byte (so that NULL means out of memory)."""
    return malloc(size if size > 0 else 1)


cdef inline void* _zalloc(size_t size) noexcept nogil:
    return calloc(size if size > 0 else 1, 1)


cdef int _compare_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*> a)[0]
    cdef int64_t y = (<const int64_t*> b)[0]
    return (x > y) - (x < y)


cdef inline const int64_t[::1] _rows_view(object rows):
    """The rows as a contiguous int64 view (a contiguous copy when they are strided)."""
    try:
        return rows
    except ValueError:
        return np.ascontiguousarray(rows, dtype=np.int64)


# -- the node and the scratch of one thread ------------------------------------------------
ctypedef struct Node:
    const int32_t* codes  # (rows of the data, F) C order
    const int32_t* y
    const void* w
    const int64_t* rows
    Py_ssize_t n  # rows at the node
    Py_ssize_t F  # features (codes' columns)
    Py_ssize_t K  # classes
    Py_ssize_t W  # K + 1: a class table's row
    const uchar* categorical
    bint learn
    int64_t max_subset
    int64_t min_leaf
    const void* table  # (n_slots, W)
    Py_ssize_t n_slots
    const int64_t* offsets  # F + 1
    const int64_t* glob  # n_slots
    const int64_t* local  # (n, F)
    const void* total  # W
    const int64_t* by_feature  # (F, n) of a node of sweeps
    const int64_t* codes_sorted
    const int64_t* classes_sorted
    const void* weights_sorted
    const void* node_feat  # F
    bint sweep


ctypedef struct Scratch:
    void* scan  # 4 W: scan_tests's total, left, right, known
    int64_t* present  # n_slots
    void* lvec  # W (work's lvec, rvec)
    void* rvec
    int64_t* test_l  # TW (work's test_l, test_r)
    int64_t* test_r
    void* tot  # 2 W (the sweeps' child totals)
    void* cum  # 2 W
    int64_t* by_bound  # F
    uchar* done  # F
    int64_t* packed  # 2 n
    void* pweights  # 2 n
    int64_t* fill  # n_slots + 1 (rows_by_slot's)
    void* memory


cdef int scratch_init(Scratch* s, const Node* nd) noexcept nogil:
    """One thread's scratch for the node (one block of memory); -1 when out of memory."""
    cdef Py_ssize_t W = nd.W, F = nd.F, n = nd.n
    cdef Py_ssize_t words = (4 * W + 2 * W + 2 * W + 2 * W + 2 * n
                             + nd.n_slots + 2 * TW + F + 2 * n + nd.n_slots + 1 + F)
    cdef char* p = <char*> _alloc(words * 8)
    s.memory = p
    if p == NULL:
        return -1
    s.scan = p
    p += 4 * W * 8
    s.lvec = p
    p += W * 8
    s.rvec = p
    p += W * 8
    s.tot = p
    p += 2 * W * 8
    s.cum = p
    p += 2 * W * 8
    s.pweights = p
    p += 2 * n * 8
    s.present = <int64_t*> p
    p += nd.n_slots * 8
    s.test_l = <int64_t*> p
    p += TW * 8
    s.test_r = <int64_t*> p
    p += TW * 8
    s.by_bound = <int64_t*> p
    p += F * 8
    s.packed = <int64_t*> p
    p += 2 * n * 8
    s.fill = <int64_t*> p
    p += (nd.n_slots + 1) * 8
    s.done = <uchar*> p
    memset(s.test_l, 0, TW * 8)
    memset(s.test_r, 0, TW * 8)
    return 0


cdef inline void scratch_free(Scratch* s) noexcept nogil:
    free(s.memory)
    s.memory = NULL


# -- tests and class tables -----------------------------------------------------------------
cdef inline wt leaf_err(const wt* vec, Py_ssize_t K) noexcept nogil:
    """Weight of a leaf's rows outside its majority class."""
    cdef wt total = vec[0]
    cdef wt top = vec[0]
    cdef Py_ssize_t k
    for k in range(1, K):
        total += vec[k]
        top = wmax(top, vec[k])
    return total - top


cdef inline bint goes_left_c(const int64_t* test, int64_t code) noexcept nogil:
    cdef int64_t i
    if code < 0:
        return test[3] == 1
    if test[1] == C_ORDERED:
        return code <= test[2]
    if test[1] == C_KNOWN:
        return True
    for i in range(test[4]):
        if test[5 + i] == code:
            return True
    return False


cdef Py_ssize_t layout_c(const int32_t* codes, Py_ssize_t F, const int64_t* rows,
                         Py_ssize_t n, const int64_t* n_codes, int64_t* offsets,
                         int64_t* glob_parts, int64_t* local, int64_t* seen,
                         int64_t* found) noexcept nogil:
    """``node_table``'s slots: offsets, the slots' global codes and every row's slot per
    feature; returns the number of slots. ``seen``: max(1, n_codes) scratch, -1 on entry
    and on return; ``found``: n."""
    cdef Py_ssize_t g, i, j, m, base
    cdef int64_t c, low, high, largest = 1
    cdef int64_t* present
    for g in range(F):
        largest = imax(largest, n_codes[g])
    offsets[0] = 0
    for g in range(F):
        m = 0
        low = largest
        high = -1
        for i in range(n):
            c = codes[rows[i] * F + g]
            if c >= 0 and seen[c] < 0:
                seen[c] = 0
                found[m] = c
                m += 1
                low = imin(low, c)
                high = imax(high, c)
        present = found
        if high - low < 4 * m:  # the present codes in increasing order: by their range
            j = 0
            for c in range(low, high + 1):
                if seen[c] == 0:
                    present[j] = c
                    j += 1
        else:  # or sorted, when they are few in a wide range (distinct: any sort)
            qsort(present, m, sizeof(int64_t), _compare_int64)
        for j in range(m):
            seen[present[j]] = j
        base = offsets[g]
        for j in range(m):
            glob_parts[base + j] = present[j]
        glob_parts[base + m] = -1
        for i in range(n):
            c = codes[rows[i] * F + g]
            local[i * F + g] = base + (seen[c] if c >= 0 else m)
        for j in range(m):
            seen[present[j]] = -1
        offsets[g + 1] = base + m + 1
    return offsets[F]


cdef void fill_table(wt* table, const int64_t* local, Py_ssize_t F, const int32_t* y,
                     const wt* w, const int64_t* rows, Py_ssize_t n,
                     Py_ssize_t K) noexcept nogil:
    """The class table (zeroed) from every row's slots."""
    cdef Py_ssize_t i, g, W = K + 1
    cdef int64_t r, s
    for i in range(n):
        r = rows[i]
        for g in range(F):
            s = local[i * F + g]
            table[s * W + y[r]] += w[r]
            table[s * W + K] += 1


cdef inline void write_test(int64_t* out, int64_t g, int64_t kind, int64_t param,
                            bint missing_left, const int64_t* glob, const int64_t* present,
                            int64_t mask, int64_t n_present, int64_t single) noexcept nogil:
    cdef int64_t i, m
    memset(out, 0, TW * sizeof(int64_t))
    out[0] = g
    out[1] = kind
    out[2] = param
    out[3] = 1 if missing_left else 0
    if kind == C_SUBSET and single >= 0:
        out[4] = 1
        out[5] = glob[present[single]]
    elif kind == C_SUBSET:
        m = 0
        for i in range(n_present):
            if (mask >> i) & 1:
                out[5 + m] = glob[present[i]]
                m += 1
        out[4] = m


cdef inline void add_slot(wt* dst, const wt* tab, Py_ssize_t slot, Py_ssize_t W) noexcept nogil:
    cdef Py_ssize_t k
    cdef const wt* src = tab + slot * W
    for k in range(W):
        dst[k] += src[k]


cdef inline void difference(wt* dst, const wt* a, const wt* b, Py_ssize_t W) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(W):
        dst[k] = a[k] - b[k]


cdef inline void add_vec(wt* dst, const wt* a, int64_t sign, Py_ssize_t W) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(W):
        dst[k] += sign * a[k]


cdef Py_ssize_t scan_c(const wt* tab, const int64_t* offsets, Py_ssize_t F,
                       const int64_t* glob, const uchar* categorical, Py_ssize_t K,
                       bint learn, int64_t max_subset, int64_t min_leaf, wt* best_io,
                       int64_t* best_test, int64_t* emit, wt* emit_error,
                       Py_ssize_t capacity, wt* vec, int64_t* present) noexcept nogil:
    """``scan_tests``: every candidate test of a node from its class table. ``vec``: 4 W
    scratch, ``present``: a slot per table row. Returns the number of valid tests (emit
    mode, ``capacity`` > 0) and leaves the best below ``best_io`` there (else)."""
    cdef Py_ssize_t W = K + 1
    cdef wt* total = vec
    cdef wt* left = vec + W
    cdef wt* right = vec + 2 * W
    cdef wt* known = vec + 3 * W
    cdef wt best = best_io[0]
    cdef wt e
    cdef const wt* miss
    cdef Py_ssize_t g, s, i, j, k, ms, n_emit = 0, variant
    cdef int64_t n_present, n_masks, n_candidates, mask, single, step, kind, param
    cdef bint has_missing, both, subsets, missing_left
    for k in range(4 * W):
        vec[k] = 0
    for s in range(offsets[0], offsets[1]):
        add_slot(total, tab, s, W)
    for g in range(F):
        ms = offsets[g + 1] - 1
        miss = tab + ms * W
        has_missing = miss[K] > 0
        n_present = 0
        for s in range(offsets[g], ms):
            if tab[s * W + K] > 0:
                present[n_present] = s
                n_present += 1
        if n_present == 0:
            continue
        difference(known, total, miss, W)
        both = learn and has_missing
        subsets = categorical[g] and n_present <= max_subset
        step = 2 if learn else 1
        if subsets:
            n_masks = (<int64_t> 1 << n_present) - 1
            n_candidates = (n_masks - 1) // step if learn else n_masks - 1
        else:
            n_candidates = n_present - 1 if not categorical[g] else n_present
        for j in range(n_candidates):
            mask = 0
            single = -1
            if subsets:
                mask = 1 + step * j if learn else 1 + j
                for k in range(W):
                    left[k] = 0
                for i in range(n_present):
                    if (mask >> i) & 1:
                        add_slot(left, tab, present[i], W)
            elif categorical[g]:
                for k in range(W):
                    left[k] = 0
                add_slot(left, tab, present[j], W)
                single = j
            else:
                if j == 0:
                    for k in range(W):
                        left[k] = 0
                add_slot(left, tab, present[j], W)
            for variant in range(2 if both else 1):
                missing_left = variant == 1
                if missing_left:
                    add_vec(left, miss, 1, W)
                difference(right, total, left, W)
                if left[K] >= min_leaf and right[K] >= min_leaf:
                    e = leaf_err(left, K) + leaf_err(right, K)
                    if capacity > 0:
                        if n_emit < capacity:
                            kind = C_SUBSET if categorical[g] else C_ORDERED
                            param = glob[present[j]] if not categorical[g] else 0
                            write_test(emit + n_emit * TW, g, kind, param, missing_left, glob,
                                       present, mask, n_present, single)
                            emit_error[n_emit] = e
                        n_emit += 1
                    elif e < best:
                        best = e
                        kind = C_SUBSET if categorical[g] else C_ORDERED
                        param = glob[present[j]] if not categorical[g] else 0
                        write_test(best_test, g, kind, param, missing_left, glob, present,
                                   mask, n_present, single)
                if missing_left:
                    add_vec(left, miss, -1, W)
        # known values left, missing right
        if both and known[K] >= min_leaf and miss[K] >= min_leaf:
            e = leaf_err(known, K) + leaf_err(miss, K)
            if capacity > 0:
                if n_emit < capacity:
                    write_test(emit + n_emit * TW, g, C_KNOWN, 0, False, glob, present, 0,
                               n_present, -1)
                    emit_error[n_emit] = e
                n_emit += 1
            elif e < best:
                best = e
                write_test(best_test, g, C_KNOWN, 0, False, glob, present, 0, n_present, -1)
    best_io[0] = best
    return n_emit


cdef Py_ssize_t max_tests_c(const wt* tab, const int64_t* offsets, Py_ssize_t F,
                            const uchar* categorical, Py_ssize_t K, bint learn,
                            int64_t max_subset) noexcept nogil:
    """``_max_tests``: the candidate tests ``scan_c`` looks at (valid or not)."""
    cdef Py_ssize_t W = K + 1, g, s, ms, room = 0
    cdef int64_t n_present, n_masks, n_candidates
    cdef bint both
    for g in range(F):
        ms = offsets[g + 1] - 1
        n_present = 0
        for s in range(offsets[g], ms):
            if tab[s * W + K] > 0:
                n_present += 1
        if n_present == 0:
            continue
        both = learn and tab[ms * W + K] > 0
        if categorical[g] and n_present <= max_subset:
            n_masks = (<int64_t> 1 << n_present) - 1
            n_candidates = (n_masks - 1) // 2 if learn else n_masks - 1
        else:
            n_candidates = n_present - 1 if not categorical[g] else n_present
        room += n_candidates * (2 if both else 1) + (1 if both else 0)
    return room


cdef inline void add_row(wt* dst, const Node* nd, Py_ssize_t i) noexcept nogil:
    """Add row ``rows[i]`` to a class table (every feature's slot)."""
    cdef int64_t r = nd.rows[i]
    cdef const wt* w = <const wt*> nd.w
    cdef wt wr = w[r]
    cdef Py_ssize_t g, F = nd.F, W = nd.W, K = nd.K
    cdef int64_t yr = nd.y[r]
    cdef const int64_t* loc = nd.local + i * F
    for g in range(F):
        dst[loc[g] * W + yr] += wr
        dst[loc[g] * W + K] += 1


cdef void rows_by_slot(const Node* nd, Py_ssize_t g, int64_t* out, int64_t* start,
                       int64_t* fill) noexcept nogil:
    """Positions 0..n-1 of the node's rows ordered by their slot of feature g (counting
    sort): the rows of slot s are ``out[start[s]:start[s + 1]]``, missing ones last."""
    cdef int64_t first_slot = nd.offsets[g], end_slot = nd.offsets[g + 1], s
    cdef Py_ssize_t i, n = nd.n, F = nd.F
    for s in range(first_slot, end_slot + 1):
        start[s] = 0
    for i in range(n):
        start[nd.local[i * F + g] + 1] += 1
    for s in range(first_slot + 1, end_slot + 1):
        start[s] += start[s - 1]
    for s in range(end_slot - first_slot + 1):
        fill[s] = start[first_slot + s]
    for i in range(n):
        s = nd.local[i * F + g] - first_slot
        out[fill[s]] = i
        fill[s] += 1


cdef void side_tables(const Node* nd, const uchar* rows_left, wt* left,
                      wt* right) noexcept nogil:
    """Left and right class tables of a node split (rows_left flags rows of ``rows``)."""
    cdef const wt* table = <const wt*> nd.table
    cdef Py_ssize_t i, s, size = nd.n_slots * nd.W
    memset(left, 0, size * sizeof(wt))
    for i in range(nd.n):
        if rows_left[i]:
            add_row(left, nd, i)
    for s in range(size):
        right[s] = table[s] - left[s]


cdef void child_bests(const Node* nd, const wt* left, const wt* right, Scratch* sc,
                      wt* out4) noexcept nogil:
    """(leaf, best single split) errors of both children of a root test, from their class
    tables; the children's best tests go to the scratch's test_l / test_r (feature -1:
    none)."""
    cdef Py_ssize_t W = nd.W, K = nd.K, s, k
    cdef wt* lvec = <wt*> sc.lvec
    cdef wt* rvec = <wt*> sc.rvec
    cdef const wt* total = <const wt*> nd.total
    cdef wt leaf_l, leaf_r, d1_l, d1_r
    for k in range(W):
        lvec[k] = 0
    for s in range(nd.offsets[0], nd.offsets[1]):
        add_slot(lvec, left, s, W)
    leaf_l = leaf_err(lvec, K)
    difference(rvec, total, lvec, W)
    leaf_r = leaf_err(rvec, K)
    sc.test_l[0] = C_NO_FEATURE
    sc.test_r[0] = C_NO_FEATURE
    d1_l = leaf_l
    scan_c(left, nd.offsets, nd.F, nd.glob, nd.categorical, K, nd.learn, nd.max_subset,
           nd.min_leaf, &d1_l, sc.test_l, NULL, <wt*> NULL, 0, <wt*> sc.scan, sc.present)
    d1_r = leaf_r
    scan_c(right, nd.offsets, nd.F, nd.glob, nd.categorical, K, nd.learn, nd.max_subset,
           nd.min_leaf, &d1_r, sc.test_r, NULL, <wt*> NULL, 0, <wt*> sc.scan, sc.present)
    out4[0] = leaf_l
    out4[1] = d1_l
    out4[2] = leaf_r
    out4[3] = d1_r


cdef void record_root(const int64_t* test, int64_t t, wt leaf_l, wt d1_l, wt leaf_r,
                      wt d1_r, const int64_t* test_l, const int64_t* test_r, wt* out_error,
                      int64_t* out_tests, int64_t* first_index) noexcept nogil:
    """Keep root test number ``t``'s trees where they beat the per-budget bests, or tie
    with a best found at a later test (``first_index[b]``; -1: found before)."""
    cdef bint has_l = test_l[0] != C_NO_FEATURE
    cdef bint has_r = test_r[0] != C_NO_FEATURE
    cdef size_t row = TW * sizeof(int64_t)
    # budget 2: the right child's split first, the left one's only when strictly better
    cdef wt own = leaf_l + d1_r
    cdef int side = 1 if has_r else 0
    if has_l and (side == 0 or d1_l + leaf_r < own):
        own = d1_l + leaf_r
        side = 2
    if side > 0 and (own < out_error[2] or (own == out_error[2] and t < first_index[2])):
        out_error[2] = own
        first_index[2] = t
        memcpy(out_tests + 6 * TW, test, row)
        out_tests[7 * TW] = C_NO_FEATURE
        out_tests[8 * TW] = C_NO_FEATURE
        if side == 1:
            memcpy(out_tests + 8 * TW, test_r, row)
        else:
            memcpy(out_tests + 7 * TW, test_l, row)
    own = d1_l + d1_r
    if has_l and has_r and (own < out_error[3] or (own == out_error[3]
                                                    and t < first_index[3])):
        out_error[3] = own
        first_index[3] = t
        memcpy(out_tests + 9 * TW, test, row)
        memcpy(out_tests + 10 * TW, test_l, row)
        memcpy(out_tests + 11 * TW, test_r, row)


cdef void evaluate_root(const Node* nd, const int64_t* test, const wt* left, const wt* right,
                        wt* out_error, int64_t* out_tests, Scratch* sc,
                        wt* c23) noexcept nogil:
    """Best depth-2 trees under one root test, given its children's class tables: updates
    the per-budget bests; ``c23``: (cost with <= 2 splits, cost with <= 3 splits)."""
    cdef wt four[4]
    cdef int64_t before[4]
    before[0] = before[1] = before[2] = before[3] = -1
    child_bests(nd, left, right, sc, four)
    record_root(test, 0, four[0], four[1], four[2], four[3], sc.test_l, sc.test_r, out_error,
                out_tests, before)
    c23[0] = wmin(four[0] + four[3], four[1] + four[2])
    c23[1] = four[1] + four[3]


# -- interval pruning: bounds --------------------------------------------------------------
cdef inline void cut_bound(Py_ssize_t j, Py_ssize_t i, Py_ssize_t k, const wt* cw,
                           const int64_t* ends, const wt* leaf_l, const wt* best_l,
                           const wt* leaf_r, const wt* best_r, wt* c2, wt* c3) noexcept nogil:
    """Lower bounds (with <= 2 splits, with 3) on the trees under cut j between the
    evaluated cuts i < k (``_cut_bound``)."""
    cdef wt gain = cw[ends[j]] - cw[ends[i]]
    cdef wt loss = cw[ends[k]] - cw[ends[j]]
    cdef wt ll = leaf_l[j]
    cdef wt bl = wmax(best_l[i], best_l[k] - loss)
    cdef wt lr = leaf_r[j]
    cdef wt br = wmax(best_r[k], best_r[i] - gain)
    c2[0] = wmin(ll + br, bl + lr)
    c3[0] = bl + br


cdef inline void cut_bound_by_features(Py_ssize_t j, Py_ssize_t i, Py_ssize_t k,
                                       const wt* cw, const int64_t* ends, const wt* leaf_l,
                                       const wt* feat_l, const wt* leaf_r, const wt* feat_r,
                                       Py_ssize_t F, wt* c2, wt* c3) noexcept nogil:
    """``_cut_bound`` feature by feature (``_cut_bound_by_features``); ``feat_*``: rows
    of F lower bounds per evaluated cut."""
    cdef wt gain = cw[ends[j]] - cw[ends[i]]
    cdef wt loss = cw[ends[k]] - cw[ends[j]]
    cdef wt bl = leaf_l[j]
    cdef wt br = leaf_r[j]
    cdef Py_ssize_t g
    for g in range(F):
        bl = wmin(bl, wmax(feat_l[i * F + g], feat_l[k * F + g] - loss))
        br = wmin(br, wmax(feat_r[k * F + g], feat_r[i * F + g] - gain))
    c2[0] = wmin(leaf_l[j] + br, bl + leaf_r[j])
    c3[0] = bl + br


cdef void feature_steps(const wt* a, const wt* b, wt* out, Py_ssize_t F,
                        wt big) noexcept nogil:
    """``_feature_steps``: ``out`` (3, F + 1): the steps b - a of the features in
    increasing order, the prefix minima of a and the suffix minima of b in that order."""
    cdef wt* steps = out
    cdef wt* o1 = out + (F + 1)
    cdef wt* o2 = out + 2 * (F + 1)
    cdef Py_ssize_t g, at, p
    cdef wt key, low, value
    for g in range(F):  # insertion sort of the steps (a node's few features)
        key = b[g] - a[g]
        at = g
        while at > 0 and steps[at - 1] > key:
            steps[at] = steps[at - 1]
            o1[at] = o1[at - 1]
            o2[at] = o2[at - 1]
            at -= 1
        steps[at] = key
        o1[at] = a[g]
        o2[at] = b[g]
    low = big
    for p in range(F):
        value = o1[p]
        o1[p] = low
        low = wmin(low, value)
    o1[F] = low
    low = big
    for p in range(F - 1, -1, -1):
        low = wmin(low, o2[p])
        o2[p] = low
    o2[F] = big


# -- the sweeps of a node of numeric features ----------------------------------------------
cdef void feature_orders(Node* nd, int64_t* start, int64_t* fill, int64_t* by_feature,
                         int64_t* codes_sorted, int64_t* classes_sorted,
                         wt* weights_sorted) noexcept nogil:
    """For each feature g, the positions 0..n-1 of the node's rows ordered by its code,
    and in that order their codes, classes and weights (``_feature_orders``)."""
    cdef Py_ssize_t g, q, n = nd.n, F = nd.F
    cdef int64_t i
    cdef const wt* w = <const wt*> nd.w
    for g in range(F):
        rows_by_slot(nd, g, by_feature + g * n, start, fill)
        for q in range(n):
            i = by_feature[g * n + q]
            codes_sorted[g * n + q] = nd.glob[nd.local[i * F + g]]
            classes_sorted[g * n + q] = nd.y[nd.rows[i]]
            weights_sorted[g * n + q] = w[nd.rows[i]]


cdef inline bint capped(wt before, wt best, wt limit, bint ties) noexcept nogil:
    """Whether no cut further right can give a better best (``_capped``)."""
    return before >= best or before > limit or (before == limit and not ties)


cdef void sweep_feature(const Node* nd, Py_ssize_t g, const uchar* goes, const wt* tot,
                        wt* e_out, int64_t* c_out, const wt* limit, const uchar* ties,
                        Scratch* sc) noexcept nogil:
    """Both children's best cut of feature g by one sweep of its sorted rows
    (``_sweep_feature``): ``e_out[s]``, ``c_out[s]`` for child s (0 left, 1 right)."""
    if nd.K == 2:
        sweep_feature_two(nd, g, goes, tot, e_out, c_out, limit, ties, sc)
        return
    cdef Py_ssize_t K = nd.K, W = nd.W, n = nd.n, q, k, side
    cdef wt* cum = <wt*> sc.cum
    cdef const int64_t* order = nd.by_feature + g * n
    cdef const int64_t* codes_g = nd.codes_sorted + g * n
    cdef const int64_t* classes_g = nd.classes_sorted + g * n
    cdef const wt* weights_g = (<const wt*> nd.weights_sorted) + g * n
    cdef int64_t last[2]
    cdef bint swept[2]
    cdef int64_t n_open = 0, c
    cdef wt a_top, a_sum, b_top, b_sum, a, b, before, e
    for k in range(2 * W):
        cum[k] = 0
    last[0] = last[1] = 0
    for side in range(2):
        swept[side] = tot[side * W + K] > 0 and limit[side] >= 0
        n_open += swept[side]
    for q in range(n):
        if n_open == 0:
            break
        side = 0 if goes[order[q]] else 1
        if not swept[side]:
            continue
        c = codes_g[q]
        # the cut "code <= last" of that child, when both its sides are large enough
        if cum[side * W + K] > 0 and c != last[side] and cum[side * W + K] >= nd.min_leaf \
                and tot[side * W + K] - cum[side * W + K] >= nd.min_leaf:
            a_top = cum[side * W]
            a_sum = a_top
            b_top = tot[side * W] - a_top
            b_sum = b_top
            for k in range(1, K):
                a = cum[side * W + k]
                b = tot[side * W + k] - a
                a_sum += a
                b_sum += b
                a_top = wmax(a_top, a)
                b_top = wmax(b_top, b)
            before = a_sum - a_top
            e = before + (b_sum - b_top)
            if e < e_out[side]:
                e_out[side] = e
                c_out[side] = last[side]
            if capped(before, e_out[side], limit[side], ties[side]):
                swept[side] = False
                n_open -= 1
                if before < e_out[side]:
                    e_out[side] = before
                    c_out[side] = -1
                continue
        cum[side * W + classes_g[q]] += weights_g[q]
        cum[side * W + K] += 1
        last[side] = c


cdef inline bint cut_step(wt a0, wt a1, wt t0, wt t1, wt* best, int64_t* cut, int64_t last,
                          wt limit, bint ties) noexcept nogil:
    """One cut of a two-class sweep (``_cut_step``): updates the best and its cut; whether
    no cut further right can do better."""
    cdef wt before = wmin(a0, a1)
    cdef wt e = before + wmin(t0 - a0, t1 - a1)
    if e < best[0]:
        best[0] = e
        cut[0] = last
    if capped(before, best[0], limit, ties):
        if before < best[0]:
            best[0] = before
            cut[0] = -1
        return True
    return False


cdef void sweep_side_two(const int64_t* packed, const wt* weights, int64_t m, wt t0, wt t1,
                         int64_t min_leaf, wt* e_out, int64_t* c_out, const wt* limit,
                         const uchar* ties, Py_ssize_t side, bint unit) noexcept nogil:
    """One child's sweep of ``_sweep_feature_two`` (``_sweep_side_two``)."""
    cdef wt zero = t0 - t0
    cdef wt best = e_out[side]
    cdef int64_t cut = c_out[side]
    cdef wt lim = limit[side]
    cdef bint tie = ties[side]
    cdef int64_t last = -1, ones, j, v, c
    cdef wt a0, a1
    if unit:  # the class-1 rows counted without a branch, the class-0 ones from j
        ones = 0
        for j in range(m):
            v = packed[j]
            c = v >> 1
            if j > 0 and c != last and j >= min_leaf and m - j >= min_leaf:
                if cut_step(zero + (j - ones), zero + ones, t0, t1, &best, &cut, last, lim,
                            tie):
                    break
            ones += v & 1
            last = c
    else:
        a0 = zero
        a1 = zero
        for j in range(m):
            v = packed[j]
            c = v >> 1
            if j > 0 and c != last and j >= min_leaf and m - j >= min_leaf:
                if cut_step(a0, a1, t0, t1, &best, &cut, last, lim, tie):
                    break
            if v & 1:
                a1 += weights[j]
            else:
                a0 += weights[j]
            last = c
    e_out[side] = best
    c_out[side] = cut


cdef void sweep_feature_two(const Node* nd, Py_ssize_t g, const uchar* goes, const wt* tot,
                            wt* e_out, int64_t* c_out, const wt* limit, const uchar* ties,
                            Scratch* sc) noexcept nogil:
    """``_sweep_feature`` for two classes (``_sweep_feature_two``)."""
    cdef Py_ssize_t n = nd.n, q
    cdef const int64_t* order = nd.by_feature + g * n
    cdef const int64_t* codes_g = nd.codes_sorted + g * n
    cdef const int64_t* classes_g = nd.classes_sorted + g * n
    cdef const wt* weights_g
    cdef int64_t* left = sc.packed
    cdef int64_t* right = sc.packed + n
    cdef wt* weights0
    cdef wt* weights1
    cdef int64_t m0 = 0, m1 = 0, v, s
    # weights of at least 1 (whole, positive) that sum to the number of rows are all 1
    cdef bint unit = tot[0] + tot[1] == tot[2] and tot[3] + tot[4] == tot[5]
    cdef bint open_l = tot[2] > 0 and limit[0] >= 0
    cdef bint open_r = tot[5] > 0 and limit[1] >= 0
    if not open_l and not open_r:
        return
    if not unit:
        weights0 = <wt*> sc.pweights
        weights1 = weights0 + n
        weights_g = (<const wt*> nd.weights_sorted) + g * n
        for q in range(n):
            v = 2 * codes_g[q] + classes_g[q]
            if goes[order[q]]:
                left[m0] = v
                weights0[m0] = weights_g[q]
                m0 += 1
            else:
                right[m1] = v
                weights1[m1] = weights_g[q]
                m1 += 1
        if open_l:
            sweep_side_two(left, weights0, m0, tot[0], tot[1], nd.min_leaf, e_out, c_out,
                           limit, ties, 0, False)
        if open_r:
            sweep_side_two(right, weights1, m1, tot[3], tot[4], nd.min_leaf, e_out, c_out,
                           limit, ties, 1, False)
        return
    # unit weights: every row written to both sides' next slots, the counts moved on by
    # its side (no branch); a side not swept is not dealt
    if open_l and open_r:
        for q in range(n):
            v = 2 * codes_g[q] + classes_g[q]
            s = goes[order[q]]
            left[m0] = v
            right[m1] = v
            m0 += s
            m1 += 1 - s
    elif open_l:
        for q in range(n):
            left[m0] = 2 * codes_g[q] + classes_g[q]
            m0 += goes[order[q]]
    else:
        for q in range(n):
            right[m1] = 2 * codes_g[q] + classes_g[q]
            m1 += 1 - <int64_t> goes[order[q]]
    if open_l:
        sweep_side_two(left, <wt*> NULL, m0, tot[0], tot[1], nd.min_leaf, e_out, c_out, limit,
                       ties, 0, True)
    if open_r:
        sweep_side_two(right, <wt*> NULL, m1, tot[3], tot[4], nd.min_leaf, e_out, c_out,
                       limit, ties, 1, True)


cdef inline bint closed(wt bound, wt best, int64_t best_g, int64_t g) noexcept nogil:
    """Whether feature g cannot give a child's best (``_closed``)."""
    return bound > best or (best <= 0 and best_g < g)


cdef void stable_order(const wt* a, const wt* b, int64_t* out, Py_ssize_t n) noexcept nogil:
    """The positions of ``a + b`` from the lowest up, ties in position order."""
    cdef Py_ssize_t i, j
    cdef wt key
    for i in range(n):
        key = a[i] + b[i]
        j = i
        while j > 0 and a[out[j - 1]] + b[out[j - 1]] > key:
            out[j] = out[j - 1]
            j -= 1
        out[j] = i


cdef void sweep_child_bests(const Node* nd, const uchar* goes, Scratch* sc, const wt* lb,
                            const int64_t* first, wt* feat_best, wt* out4) noexcept nogil:
    """``_child_bests`` of a root test on a node of sweeps (``_sweep_child_bests``): ``lb``
    and ``feat_best`` (2, F); the children's best tests to the scratch's test_l, test_r."""
    cdef Py_ssize_t F = nd.F, n = nd.n, K = nd.K, W = nd.W, i, k, step, side
    cdef wt* lvec = <wt*> sc.lvec
    cdef wt* rvec = <wt*> sc.rvec
    cdef wt* tot = <wt*> sc.tot
    cdef const wt* w = <const wt*> nd.w
    cdef wt leaf[2]
    cdef wt best[2]
    cdef wt e[2]
    cdef wt limit[2]
    cdef int64_t best_g[2]
    cdef int64_t best_c[2]
    cdef int64_t c[2]
    cdef uchar ties[2]
    cdef int64_t r, g
    cdef int64_t* out
    cdef int64_t* by_bound = sc.by_bound
    cdef uchar* done = sc.done
    for k in range(2 * W):
        tot[k] = 0
    for i in range(n):
        r = nd.rows[i]
        side = 0 if goes[i] else 1
        tot[side * W + nd.y[r]] += w[r]
        tot[side * W + K] += 1
    for k in range(W):
        lvec[k] = tot[k]
        rvec[k] = tot[W + k]
    leaf[0] = leaf_err(lvec, K)
    leaf[1] = leaf_err(rvec, K)
    best[0] = leaf[0]
    best[1] = leaf[1]
    best_g[0] = best_g[1] = -1
    best_c[0] = best_c[1] = 0
    # the other features from the lowest bounds up (likely the best first)
    stable_order(lb, lb + F, by_bound, F)
    memset(done, 0, F)
    for step in range(2 + F):
        if step < 2:
            g = first[step]
            if g < 0 or done[g]:
                continue
        else:
            g = by_bound[step - 2]
            if done[g] or (closed(lb[g], best[0], best_g[0], g)
                           and closed(lb[F + g], best[1], best_g[1], g)):
                continue
        done[g] = True
        for side in range(2):
            e[side] = leaf[side]
            c[side] = -1
            ties[side] = True
            limit[side] = leaf[side]
            if step >= 2 and closed(lb[side * F + g], best[side], best_g[side], g):
                limit[side] = -1
        sweep_feature(nd, g, goes, tot, e, c, limit, ties, sc)
        for side in range(2):
            feat_best[side * F + g] = wmax(e[side], lb[side * F + g]) if limit[side] >= 0 \
                else lb[side * F + g]
            if c[side] >= 0 and (e[side] < best[side] or (e[side] == best[side]
                                                         and g < best_g[side])):
                best[side] = e[side]
                best_g[side] = g
                best_c[side] = c[side]
    for g in range(F):
        if not done[g]:
            feat_best[g] = lb[g]
            feat_best[F + g] = lb[F + g]
    sc.test_l[0] = C_NO_FEATURE
    sc.test_r[0] = C_NO_FEATURE
    for side in range(2):
        out = sc.test_l if side == 0 else sc.test_r
        if best_g[side] >= 0:
            memset(out, 0, TW * sizeof(int64_t))
            out[0] = best_g[side]
            out[1] = C_ORDERED
            out[2] = best_c[side]
    out4[0] = leaf[0]
    out4[1] = best[0]
    out4[2] = leaf[1]
    out4[3] = best[1]


cdef bint sweep_wanted(const int32_t* codes, Py_ssize_t F, const wt* w, const int64_t* rows,
                       Py_ssize_t n, const uchar* categorical, Py_ssize_t n_slots,
                       Py_ssize_t K) noexcept nogil:
    """Whether the sweeps apply to the node and cost less than the class tables."""
    cdef Py_ssize_t i, g
    cdef int64_t r
    cdef double v, total = 0.0
    for g in range(F):
        if categorical[g]:
            return False
    for i in range(n):
        r = rows[i]
        v = <double> w[r]
        if v != floor(v):
            return False
        total += v
        for g in range(F):
            if codes[r * F + g] < 0:
                return False
    if total >= 4503599627370496.0:  # 2 ** 52
        return False
    return n * F < 2 * n_slots * (K + 1)


cdef inline void node_bounds(const wt* node_feat, wt w_left, wt w_right, wt* lb,
                             Py_ssize_t F) noexcept nogil:
    """Bounds on the children's best per feature from the node's (``_node_bounds``)."""
    cdef wt zero = w_left - w_left
    cdef Py_ssize_t g
    for g in range(F):
        lb[g] = wmax(zero, node_feat[g] - w_right)
        lb[F + g] = wmax(zero, node_feat[g] - w_left)


# -- interval blocks -----------------------------------------------------------------------
ctypedef struct Block:
    # the per-cut arrays of one interval block (``_interval_block``'s)
    int64_t* ends
    void* leaf_l
    void* best_l
    void* leaf_r
    void* best_r
    void* cw
    void* feat_l  # (m + 2, F)
    void* feat_r
    int64_t* winner  # (m + 2, 2)
    void* lb  # (2, F)
    int64_t* first  # 2
    void* feat_scratch  # (2, F)
    int64_t* near  # 2
    int64_t first_index[4]


cdef void evaluate_cut(const Node* nd, const int64_t* tests, int64_t t, Py_ssize_t j,
                       int64_t end, const int64_t* by_slot, wt* out_error, int64_t* out_tests,
                       Scratch* sc, wt* left, wt* right, uchar* goes,
                       Block* bk) noexcept nogil:
    """Children's bests of the root test ``t`` at position ``j`` of an interval block
    (``_evaluate_cut``), recorded in the block's arrays and the per-budget bests."""
    cdef Py_ssize_t n = nd.n, F = nd.F, q, g, s
    cdef wt four[4]
    cdef const wt* cw = <const wt*> bk.cw
    cdef wt* feat_l = <wt*> bk.feat_l
    cdef wt* feat_r = <wt*> bk.feat_r
    cdef wt* lb = <wt*> bk.lb
    cdef wt* fs = <wt*> bk.feat_scratch
    cdef const wt* table = <const wt*> nd.table
    cdef const int64_t* ends = bk.ends
    cdef int64_t i, k, lo, hi
    cdef wt gain, loss
    cdef wt* small
    cdef wt* big
    if nd.sweep:
        for q in range(n):
            goes[by_slot[q]] = q < end
        i = bk.near[0]
        k = bk.near[1]
        bk.first[0] = -1
        bk.first[1] = -1
        node_bounds(<const wt*> nd.node_feat, cw[ends[j]], cw[n] - cw[ends[j]], lb, F)
        if i >= 0:
            gain = cw[ends[j]] - cw[ends[i]]
            loss = cw[ends[k]] - cw[ends[j]]
            for g in range(F):
                lb[g] = wmax(wmax(lb[g], feat_l[i * F + g]), feat_l[k * F + g] - loss)
                lb[F + g] = wmax(wmax(lb[F + g], feat_r[k * F + g]), feat_r[i * F + g] - gain)
            bk.first[0] = bk.winner[2 * i]
            bk.first[1] = bk.winner[2 * k + 1]
        sweep_child_bests(nd, goes, sc, lb, bk.first, fs, four)
        for g in range(F):
            feat_l[j * F + g] = fs[g]
            feat_r[j * F + g] = fs[F + g]
        bk.winner[2 * j] = sc.test_l[0]
        bk.winner[2 * j + 1] = sc.test_r[0]
    else:
        if end <= n - end:
            small, big = left, right
            lo, hi = 0, end
        else:
            small, big = right, left
            lo, hi = end, n
        memset(small, 0, nd.n_slots * nd.W * sizeof(wt))
        for q in range(lo, hi):
            add_row(small, nd, by_slot[q])
        for s in range(nd.n_slots * nd.W):
            big[s] = table[s] - small[s]
        child_bests(nd, left, right, sc, four)
    (<wt*> bk.leaf_l)[j] = four[0]
    (<wt*> bk.best_l)[j] = four[1]
    (<wt*> bk.leaf_r)[j] = four[2]
    (<wt*> bk.best_r)[j] = four[3]
    record_root(tests + t * TW, t, four[0], four[1], four[2], four[3], sc.test_l, sc.test_r,
                out_error, out_tests, bk.first_index)


cdef int interval_block(const Node* nd, const int64_t* tests, int64_t t0, int64_t t1,
                        Py_ssize_t g, int64_t* by_slot, int64_t* slot_start, wt* out_error,
                        int64_t* out_tests, Scratch* sc, wt* left, wt* right, wt* bounds,
                        uchar* goes) noexcept nogil:
    """The ORDERED root tests ``t0`` to ``t1 - 1`` of feature g by ConTree's interval
    pruning (``_interval_block``). Returns -1 when out of memory, else 0."""
    cdef Py_ssize_t n = nd.n, K = nd.K, W = nd.W
    cdef Py_ssize_t m = t1 - t0
    cdef Py_ssize_t virtual = m + 1, m2 = m + 2
    cdef Py_ssize_t F = nd.F if nd.sweep else 0
    cdef Py_ssize_t j, q, f, s, i, k, lo, hi, mid, top, p_l = 0, p_r = 0
    cdef const wt* w = <const wt*> nd.w
    cdef const wt* total = <const wt*> nd.total
    cdef const wt* node_feat = <const wt*> nd.node_feat
    cdef Block bk
    cdef size_t n_weights = (4 * m2 + (n + 1) + 2 * m2 * F + 2 * F + 2 * F
                             + 6 * (F + 1) + 4 * m2 + 2 * W)
    cdef size_t n_ints = m2 + 2 * m2 + 2 + 2 + 2 * (2 * m + 4)
    cdef wt* wmem = <wt*> _alloc(n_weights * sizeof(wt))
    cdef int64_t* imem = <int64_t*> _alloc(n_ints * sizeof(int64_t))
    cdef wt* leaf_l
    cdef wt* best_l
    cdef wt* leaf_r
    cdef wt* best_r
    cdef wt* cw
    cdef wt* feat_l
    cdef wt* feat_r
    cdef wt* steps_l
    cdef wt* steps_r
    cdef wt* low2
    cdef wt* low3
    cdef wt* exact_l
    cdef wt* exact_r
    cdef wt* running
    cdef wt* rest
    cdef int64_t* ends
    cdef int64_t* stack
    cdef int64_t r
    cdef wt big, best2, best3, c2, c3, f2, f3, loss, gain, bl, br
    cdef bint stepped
    if wmem == NULL or imem == NULL:
        free(wmem)
        free(imem)
        return -1
    leaf_l = wmem
    best_l = leaf_l + m2
    leaf_r = best_l + m2
    best_r = leaf_r + m2
    cw = best_r + m2
    feat_l = cw + (n + 1)
    feat_r = feat_l + m2 * F
    bk.lb = feat_r + m2 * F
    bk.feat_scratch = (<wt*> bk.lb) + 2 * F
    steps_l = (<wt*> bk.feat_scratch) + 2 * F
    steps_r = steps_l + 3 * (F + 1)
    low2 = steps_r + 3 * (F + 1)
    low3 = low2 + m2
    exact_l = low3 + m2
    exact_r = exact_l + m2
    running = exact_r + m2
    rest = running + W
    ends = imem
    bk.winner = ends + m2
    bk.first = bk.winner + 2 * m2
    bk.near = bk.first + 2
    stack = bk.near + 2
    for j in range(4 * m2):
        leaf_l[j] = 0
    for j in range(2 * F):
        (<wt*> bk.lb)[j] = 0
        (<wt*> bk.feat_scratch)[j] = 0
    for j in range(2 * W):
        running[j] = 0
    for j in range(2 * m2):
        bk.winner[j] = -1
    bk.first[0] = bk.first[1] = -1
    bk.near[0] = bk.near[1] = -1
    bk.first_index[0] = bk.first_index[1] = bk.first_index[2] = bk.first_index[3] = -1
    bk.ends = ends
    bk.leaf_l = leaf_l
    bk.best_l = best_l
    bk.leaf_r = leaf_r
    bk.best_r = best_r
    bk.cw = cw
    bk.feat_l = feat_l
    bk.feat_r = feat_r

    rows_by_slot(nd, g, by_slot, slot_start, sc.fill)
    # positions 1..m are the cuts, 0 and m + 1 virtual ones before the first (the left
    # child empty) and after the last (the right child the whole node)
    ends[0] = 0
    ends[virtual] = n
    s = nd.offsets[g]
    for j in range(1, virtual):
        while nd.glob[s] != tests[(t0 + j - 1) * TW + 2]:
            s += 1
        ends[j] = slot_start[s + 1]
    cw[0] = 0
    for q in range(n):
        cw[q + 1] = cw[q] + w[nd.rows[by_slot[q]]]
    big = 2 * cw[n] + 1  # above every bound: a child errs at most the node's weight
    # every cut's two leaves, exactly: the class weights of the rows left of each cut
    q = 0
    for j in range(virtual + 1):
        while q < ends[j]:
            r = nd.rows[by_slot[q]]
            running[nd.y[r]] += w[r]
            q += 1
        exact_l[j] = leaf_err(running, K)
        difference(rest, total, running, W)
        exact_r[j] = leaf_err(rest, K)
    # the virtual cuts: an empty child errs 0, the whole node as the node does at depth 1
    best_r[0] = out_error[1]
    best_l[virtual] = out_error[1]
    for f in range(F):
        feat_l[f] = 0
        feat_r[virtual * F + f] = 0
        feat_r[f] = node_feat[f]
        feat_l[virtual * F + f] = node_feat[f]
    stack[0] = 0
    stack[1] = virtual
    top = 1
    while top > 0:
        top -= 1
        i = stack[2 * top]
        k = stack[2 * top + 1]
        if k - i <= 1:
            continue
        # strict: bounds[0] / [1] are trees at later tests (or caps), ties must be visited
        best2 = wmin(wmin(out_error[1], out_error[2]), bounds[0])
        best3 = wmin(wmin(best2, out_error[3]), bounds[1])
        lo = k
        hi = i
        stepped = F > 0 and k - i > stepped_cuts
        if stepped:  # the per-feature bounds of the cuts by steps (feature_steps)
            feature_steps(feat_l + i * F, feat_l + k * F, steps_l, F, big)
            feature_steps(feat_r + k * F, feat_r + i * F, steps_r, F, big)
            p_l = F
            p_r = 0
        for j in range(i + 1, k):
            cut_bound(j, i, k, cw, ends, exact_l, best_l, exact_r, best_r, &c2, &c3)
            if stepped:
                loss = cw[ends[k]] - cw[ends[j]]  # falls as j rises
                gain = cw[ends[j]] - cw[ends[i]]  # rises
                while p_l > 0 and steps_l[p_l - 1] > loss:
                    p_l -= 1
                while p_r < F and steps_r[p_r] <= gain:
                    p_r += 1
                bl = wmin(wmin(exact_l[j], steps_l[(F + 1) + p_l]),
                          steps_l[2 * (F + 1) + p_l] - loss)
                br = wmin(wmin(exact_r[j], steps_r[(F + 1) + p_r]),
                          steps_r[2 * (F + 1) + p_r] - gain)
                c2 = wmax(c2, wmin(exact_l[j] + br, bl + exact_r[j]))
                c3 = wmax(c3, bl + br)
            elif F > 0:
                cut_bound_by_features(j, i, k, cw, ends, exact_l, feat_l, exact_r, feat_r, F,
                                      &f2, &f3)
                c2 = wmax(c2, f2)
                c3 = wmax(c3, f3)
            low2[j] = c2
            low3[j] = c3
            if c2 <= best2 or c3 <= best3:
                lo = imin(lo, j)
                hi = j
        if lo > hi:  # every cut between i and k is skipped for good: keep their bounds
            for j in range(i + 1, k):
                bounds[2] = wmin(bounds[2], low2[j])
                bounds[3] = wmin(bounds[3], low3[j])
            continue
        mid = (lo + hi) // 2  # the middle of the cuts still open
        bk.near[0] = i
        bk.near[1] = k
        evaluate_cut(nd, tests, t0 + mid - 1, mid, ends[mid], by_slot, out_error, out_tests,
                     sc, left, right, goes, &bk)
        stack[2 * top] = mid
        stack[2 * top + 1] = k
        stack[2 * top + 2] = i
        stack[2 * top + 3] = mid
        top += 2
    free(wmem)
    free(imem)
    return 0


cdef int cut_bounds(const Node* nd, const int64_t* tests, const wt* errors, int64_t n_tests,
                    bint can_skip, const wt* out_error, Scratch* sc, wt* ub) noexcept nogil:
    """(cost with <= 2 splits, with <= 3) of the best tree found under the best single cut
    of each of the ``BOUND_FEATURES`` numeric features of least error (``_cut_bounds``);
    -1 when out of memory."""
    cdef wt ub2 = wmin(out_error[0], out_error[1])
    cdef wt ub3 = ub2
    cdef Py_ssize_t n = nd.n, F = nd.F, g, i, t, tables, b
    cdef int64_t best_g, gg, r
    cdef const wt* total = <const wt*> nd.total
    cdef const wt* w = <const wt*> nd.w
    cdef wt four[4]
    cdef wt c23[2]
    cdef wt w_left, w_right
    cdef wt scratch_error[4]
    cdef bint numeric
    cdef int64_t* pick
    cdef uchar* chosen
    cdef uchar* flags
    cdef wt* left
    cdef wt* right
    cdef wt* no_bound
    cdef wt* scratch_feat
    cdef int64_t* scratch_tests
    cdef int64_t no_first[2]
    ub[0] = ub2
    ub[1] = ub3
    if not can_skip:
        return 0
    tables = 0 if nd.sweep else nd.n_slots * nd.W
    pick = <int64_t*> _alloc(F * sizeof(int64_t))
    chosen = <uchar*> _zalloc(F + n)
    left = <wt*> _zalloc((2 * tables + 4 * F) * sizeof(wt))
    scratch_tests = <int64_t*> _zalloc(12 * TW * sizeof(int64_t))
    if pick == NULL or chosen == NULL or left == NULL or scratch_tests == NULL:
        free(pick)
        free(chosen)
        free(left)
        free(scratch_tests)
        return -1
    flags = chosen + F
    right = left + tables
    no_bound = right + tables
    scratch_feat = no_bound + 2 * F
    no_first[0] = no_first[1] = -1
    for b in range(4):
        scratch_error[b] = out_error[b]
    for g in range(F):
        pick[g] = -1
    for t in range(n_tests):
        gg = tests[t * TW]
        numeric = tests[t * TW + 1] == C_ORDERED \
            and (<const wt*> nd.table)[(nd.offsets[gg + 1] - 1) * nd.W + nd.K] == 0 \
            and nd.offsets[gg + 1] - nd.offsets[gg] > 3
        if numeric and (pick[gg] < 0 or errors[t] < errors[pick[gg]]):
            pick[gg] = t
    # only the BOUND_FEATURES features whose best cut errs least
    for b in range(C_BOUND_FEATURES):
        best_g = -1
        for g in range(F):
            if pick[g] >= 0 and not chosen[g] and (
                    best_g < 0 or errors[pick[g]] < errors[pick[best_g]]):
                best_g = g
        if best_g >= 0:
            chosen[best_g] = True
    for g in range(F):
        if not chosen[g]:
            pick[g] = -1
    for g in range(F):
        t = pick[g]
        if t < 0:
            continue
        for i in range(n):
            flags[i] = goes_left_c(tests + t * TW, nd.codes[nd.rows[i] * F + g])
        if nd.sweep:
            w_left = total[0] - total[0]
            w_right = w_left
            for i in range(n):
                r = nd.rows[i]
                if flags[i]:
                    w_left += w[r]
                else:
                    w_right += w[r]
            node_bounds(<const wt*> nd.node_feat, w_left, w_right, no_bound, F)
            sweep_child_bests(nd, flags, sc, no_bound, no_first, scratch_feat, four)
            c23[0] = wmin(four[0] + four[3], four[1] + four[2])
            c23[1] = four[1] + four[3]
        else:
            side_tables(nd, flags, left, right)
            evaluate_root(nd, tests + t * TW, left, right, scratch_error, scratch_tests, sc,
                          c23)
        ub2 = wmin(ub2, c23[0])
        ub3 = wmin(wmin(ub3, c23[1]), ub2)
    free(pick)
    free(chosen)
    free(left)
    free(scratch_tests)
    ub[0] = ub2
    ub[1] = ub3
    return 0


cdef void fill_node(Node* nd, const int32_t[:, ::1] codes, const int32_t* y, const wt* w,
                    const int64_t* rows, Py_ssize_t n, const uchar* categorical, Py_ssize_t K,
                    bint learn, int64_t max_subset, int64_t min_leaf) noexcept:
    nd.codes = &codes[0, 0] if codes.shape[0] > 0 and codes.shape[1] > 0 else NULL
    nd.F = codes.shape[1]
    nd.y = y
    nd.w = w
    nd.rows = rows
    nd.n = n
    nd.K = K
    nd.W = K + 1
    nd.categorical = categorical
    nd.learn = learn
    nd.max_subset = max_subset
    nd.min_leaf = min_leaf
    nd.by_feature = NULL
    nd.codes_sorted = NULL
    nd.classes_sorted = NULL
    nd.weights_sorted = NULL
    nd.node_feat = NULL
    nd.sweep = False


# -- the public kernels: leaf errors, class tables, tests, row splits ----------------------
def leaf_error(const wt[:] vec, Py_ssize_t n_classes):
    """Weight of a leaf's rows outside its majority class."""
    cdef wt total = vec[0]
    cdef wt top = vec[0]
    cdef Py_ssize_t k
    for k in range(1, n_classes):
        total += vec[k]
        top = wmax(top, vec[k])
    return total - top


def goes_left(const int64_t[:] test, int64_t code):
    """Whether a row with this code (-1: missing) takes the test's left branch."""
    cdef int64_t row[TW]
    cdef Py_ssize_t i
    for i in range(TW):
        row[i] = test[i]
    return goes_left_c(row, code)


cdef tuple _node_table(const int32_t[:, ::1] codes, const int32_t[::1] y, const wt[::1] w,
                       const int64_t[::1] rows, const int64_t[::1] n_codes, Py_ssize_t K):
    """``node_table``: ``(table, offsets, glob, local)``."""
    cdef Py_ssize_t n = rows.shape[0], F = codes.shape[1], size, g
    cdef int64_t largest = 1
    for g in range(F):
        largest = imax(largest, n_codes[g])
    offsets = np.zeros(F + 1, dtype=np.int64)
    local = np.empty((n, F), dtype=np.int64)
    parts = np.empty(F * (n + 1), dtype=np.int64)
    seen = np.full(largest, -1, dtype=np.int64)
    found = np.empty(max(n, 1), dtype=np.int64)
    cdef int64_t[::1] o = offsets, pa = parts, se = seen, fo = found
    cdef int64_t[:, ::1] lo = local
    with nogil:
        size = layout_c(&codes[0, 0], F, &rows[0], n, &n_codes[0], &o[0], &pa[0],
                        &lo[0, 0], &se[0], &fo[0])
    table = np.zeros((size, K + 1), dtype=_dtype_of(<wt> 0))
    cdef wt[:, ::1] tv = table
    with nogil:
        fill_table(&tv[0, 0], &lo[0, 0], F, &y[0], &w[0], &rows[0], n, K)
    return table, offsets, parts[:size].copy(), local


def node_table(const int32_t[:, ::1] codes, const int32_t[::1] y, const wt[::1] w, rows,
               const int64_t[::1] n_codes, Py_ssize_t n_classes):
    """The class table of a node over the codes present at it: ``(table, offsets, glob,
    local)``; feature g owns slots ``offsets[g]`` to ``offsets[g + 1] - 1``, its present
    codes in increasing order, then its missing slot; ``glob[slot]`` is the global code of
    a slot (-1 for the missing slot), ``local[i, g]`` row i's slot of feature g."""
    return _node_table(codes, y, w, _rows_view(rows), n_codes, n_classes)


def scan_tests(const wt[:, ::1] tab, const int64_t[::1] offsets, const int64_t[::1] glob,
               const uchar[::1] categorical, Py_ssize_t n_classes, bint learn,
               int64_t max_subset, int64_t min_leaf, wt best, int64_t[:, ::1] best_test,
               int64_t[:, ::1] emit, wt[::1] emit_error):
    """Every candidate test of a node, from its class table: ``(best, n_tests)``
    (docs/optimal.md)."""
    cdef Py_ssize_t capacity = emit.shape[0], n_emit
    cdef int64_t* present = <int64_t*> _alloc(tab.shape[0] * sizeof(int64_t))
    cdef wt* vec = <wt*> _alloc(4 * (n_classes + 1) * sizeof(wt))
    if present == NULL or vec == NULL:
        free(present)
        free(vec)
        raise MemoryError()
    with nogil:
        n_emit = scan_c(&tab[0, 0], &offsets[0], offsets.shape[0] - 1, &glob[0],
                        &categorical[0], n_classes, learn, max_subset, min_leaf, &best,
                        &best_test[0, 0], &emit[0, 0], &emit_error[0], capacity, vec,
                        present)
    free(present)
    free(vec)
    return best, n_emit


cdef Py_ssize_t _count(const wt[:, ::1] tab, const int64_t[::1] offsets,
                       const int64_t[::1] glob, const uchar[::1] categorical,
                       Py_ssize_t K, bint learn, int64_t max_subset,
                       int64_t min_leaf) except -1:
    """``count_tests``: scan_tests emitting into a one-slot buffer."""
    cdef int64_t sink[TW]
    cdef int64_t dummy[TW]
    cdef wt err[1]
    cdef wt best = 0
    cdef Py_ssize_t n
    cdef int64_t* present = <int64_t*> _alloc(tab.shape[0] * sizeof(int64_t))
    cdef wt* vec = <wt*> _alloc(4 * (K + 1) * sizeof(wt))
    if present == NULL or vec == NULL:
        free(present)
        free(vec)
        raise MemoryError()
    with nogil:
        n = scan_c(&tab[0, 0], &offsets[0], offsets.shape[0] - 1, &glob[0], &categorical[0],
                   K, learn, max_subset, min_leaf, &best, dummy, sink, err, 1, vec, present)
    free(present)
    free(vec)
    return n


def count_tests(const wt[:, ::1] tab, const int64_t[::1] offsets, const int64_t[::1] glob,
                const uchar[::1] categorical, Py_ssize_t n_classes, bint learn,
                int64_t max_subset, int64_t min_leaf):
    """How many valid tests ``scan_tests`` emits for this table."""
    return _count(tab, offsets, glob, categorical, n_classes, learn, max_subset, min_leaf)


def node_tests(const int32_t[:, ::1] codes, const int32_t[::1] y, const wt[::1] w, rows,
               const int64_t[::1] n_codes, const uchar[::1] categorical, Py_ssize_t n_classes,
               bint learn, int64_t max_subset, int64_t min_leaf):
    """Every valid test of a node with its two-leaf error (for the upper levels)."""
    table, offsets, glob, _local = _node_table(codes, y, w, _rows_view(rows), n_codes,
                                               n_classes)
    cdef const wt[:, ::1] tv = table
    cdef const int64_t[::1] ov = offsets, gv = glob
    cdef Py_ssize_t n_tests = _count(tv, ov, gv, categorical, n_classes, learn, max_subset,
                                     min_leaf)
    tests = np.zeros((n_tests, TW), dtype=np.int64)
    errors = np.zeros(n_tests, dtype=_dtype_of(<wt> 0))
    cdef int64_t[:, ::1] te = tests
    cdef wt[::1] er = errors
    cdef int64_t one[TW]
    cdef wt best = tv[0, 0]
    cdef int64_t* present = <int64_t*> _alloc(tv.shape[0] * sizeof(int64_t))
    cdef wt* vec = <wt*> _alloc(4 * (n_classes + 1) * sizeof(wt))
    if present == NULL or vec == NULL:
        free(present)
        free(vec)
        raise MemoryError()
    memset(one, 0, TW * sizeof(int64_t))
    with nogil:
        scan_c(&tv[0, 0], &ov[0], ov.shape[0] - 1, &gv[0], &categorical[0], n_classes, learn,
               max_subset, min_leaf, &best, one, &te[0, 0], &er[0], n_tests, vec, present)
    free(present)
    free(vec)
    return tests, errors


_FLOAT64 = np.dtype(np.float64)


def weight_outside(const int64_t[:] other, const int64_t[:] rows, w):
    """Weight of the rows of ``other`` that are not in ``rows`` (both sorted)."""
    # the weights' dtype looked up by hand: a fused signature's dispatch costs more than
    # this small kernel
    cdef const double[:] wd
    cdef const int64_t[:] wi
    if w.dtype is _FLOAT64:
        wd = w
        return _weight_outside_view(other, rows, wd)
    wi = w
    return _weight_outside_view(other, rows, wi)


cdef wt _weight_outside_view(const int64_t[:] other, const int64_t[:] rows, const wt[:] w):
    cdef wt total = w[0] - w[0]
    cdef Py_ssize_t i, j = 0, m = rows.shape[0]
    cdef int64_t r
    with nogil:
        for i in range(other.shape[0]):
            r = other[i]
            while j < m and rows[j] < r:
                j += 1
            if j >= m or rows[j] != r:
                total += w[r]
    return total


cdef inline wt _weight_outside_c(const int64_t* other, Py_ssize_t n_other,
                                 const int64_t* rows, Py_ssize_t m,
                                 const wt* w) noexcept nogil:
    cdef wt total = w[0] - w[0]
    cdef Py_ssize_t i, j = 0
    cdef int64_t r
    for i in range(n_other):
        r = other[i]
        while j < m and rows[j] < r:
            j += 1
        if j >= m or rows[j] != r:
            total += w[r]
    return total


cdef inline Py_ssize_t _split_c(const int32_t* codes, Py_ssize_t F, const int64_t* rows,
                                Py_ssize_t n, const int64_t* test, int64_t* left,
                                int64_t* right) noexcept nogil:
    """The rows that go left and right (order kept); returns the number left."""
    cdef Py_ssize_t i, a = 0, b = 0
    cdef int64_t g = test[0]
    for i in range(n):
        if goes_left_c(test, codes[rows[i] * F + g]):
            left[a] = rows[i]
            a += 1
        else:
            right[b] = rows[i]
            b += 1
    return a


def split_rows(const int32_t[:, ::1] codes, rows_in, const int64_t[:] test_in):
    """The node's rows that go left and those that go right (order kept)."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef Py_ssize_t n = rows.shape[0], n_left = 0, i, a = 0, b = 0, F = codes.shape[1]
    cdef int64_t test[TW]
    for i in range(TW):
        test[i] = test_in[i]
    cdef uchar* flags = <uchar*> _alloc(n)
    if flags == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            flags[i] = goes_left_c(test, codes[rows[i], test[0]])
            n_left += flags[i]
    left = np.empty(n_left, dtype=np.int64)
    right = np.empty(n - n_left, dtype=np.int64)
    cdef int64_t[::1] lv = left, rv = right
    with nogil:
        for i in range(n):
            if flags[i]:
                lv[a] = rows[i]
                a += 1
            else:
                rv[b] = rows[i]
                b += 1
    free(flags)
    return left, right


# -- the depth-2 solver --------------------------------------------------------------------
def depth2_node(const int32_t[:, ::1] codes, const int32_t[::1] y, const wt[::1] w, rows_in,
                const int64_t[::1] n_codes, const uchar[::1] categorical, Py_ssize_t n_classes,
                int64_t depth, bint learn, int64_t max_subset, int64_t min_leaf, bint reset,
                wt cap2, wt cap3, wt[::1] out_error, int64_t[:, :, ::1] out_tests):
    """The per-node part of ``solve_depth2``: the node's class table, its root tests, the
    sorted rows of its sweeps, the bounds of its interval pruning and the scratch tables
    (docs/optimal.md), as the tuple ``(table, offsets, glob, local, total, tests, errors,
    orders, node_feat, bounds, flags, work, scratch)``. With ``reset`` the outputs are set
    to the leaf and the best single split."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef Py_ssize_t K = n_classes, W = n_classes + 1, n = rows.shape[0], F = codes.shape[1]
    cdef Py_ssize_t s, b, t, g, room = 0, n_tests = 0, n_slots
    cdef bint can_skip = False, sorted_rows = False
    dt = _dtype_of(<wt> 0)
    table, offsets, glob, local = _node_table(codes, y, w, rows, n_codes, K)
    cdef const wt[:, ::1] tv = table
    cdef const int64_t[::1] ov = offsets, gv = glob
    cdef const int64_t[:, ::1] lv = local
    n_slots = tv.shape[0]
    total = np.zeros(W, dtype=dt)
    cdef wt[::1] tot = total
    for s in range(ov[0], ov[1]):
        add_slot(&tot[0], &tv[0, 0], s, W)
    cdef wt leaf = leaf_err(&tot[0], K), best1 = 0, scan_best
    cdef int64_t one[TW]
    memset(one, 0, TW * sizeof(int64_t))
    one[0] = C_NO_FEATURE
    if depth >= 2 and n > 0:
        with nogil:
            room = max_tests_c(&tv[0, 0], &ov[0], F, &categorical[0], K, learn, max_subset)
    tests = np.empty((room, TW), dtype=np.int64)
    errors = np.empty(room, dtype=dt)
    cdef int64_t[:, ::1] te = tests
    cdef wt[::1] er = errors
    cdef Node nd
    cdef Scratch sc
    fill_node(&nd, codes, &y[0], &w[0], &rows[0], n, &categorical[0], K, learn, max_subset,
              min_leaf)
    nd.table = &tv[0, 0]
    nd.n_slots = n_slots
    nd.offsets = &ov[0]
    nd.glob = &gv[0]
    nd.local = &lv[0, 0]
    nd.total = &tot[0]
    if scratch_init(&sc, &nd) < 0:
        raise MemoryError()
    try:
        if room > 0:
            scan_best = leaf
            with nogil:
                n_tests = scan_c(&tv[0, 0], &ov[0], F, &gv[0], &categorical[0], K, learn,
                                 max_subset, min_leaf, &scan_best, one, &te[0, 0], &er[0], room,
                                 <wt*> sc.scan, sc.present)
        tests = tests[:n_tests]
        errors = errors[:n_tests]
        if reset:
            out_tests[:, :, :] = 0
            out_tests[:, :, 0] = C_NO_FEATURE
            for b in range(4):
                out_error[b] = leaf
            if n > 0 and room > 0:
                # the best single split: the first test (in scan order) of least error,
                # when below the leaf's, as scan_tests finds it
                best1 = leaf
                with nogil:
                    for t in range(n_tests):
                        if er[t] < best1:
                            best1 = er[t]
                            memcpy(one, &te[t, 0], TW * sizeof(int64_t))
            elif n > 0:
                best1 = leaf
                with nogil:
                    scan_c(&tv[0, 0], &ov[0], F, &gv[0], &categorical[0], K, learn, max_subset,
                           min_leaf, &best1, one, NULL, <wt*> NULL, 0, <wt*> sc.scan,
                           sc.present)
            if n > 0 and one[0] != C_NO_FEATURE:
                for b in range(1, 4):
                    out_error[b] = best1
                    memcpy(&out_tests[b, 0, 0], one, TW * sizeof(int64_t))
        # ConTree's interval pruning of a numeric feature's cuts needs min_leaf == 1 and
        # every test at a node to stay a test on more rows
        can_skip = min_leaf == 1
        for g in range(n_codes.shape[0]):
            if categorical[g] and max_subset > 0 and n_codes[g] > max_subset:
                can_skip = False
        # numeric nodes without missing values: children's bests by sweeps of sorted rows
        if n_tests > 0 and can_skip:
            with nogil:
                sorted_rows = sweep_wanted(&codes[0, 0], F, &w[0], &rows[0], n,
                                           &categorical[0], n_slots, K)
        shape = (F, n if sorted_rows else 0)
        orders = (np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64),
                  np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=dt))
        node_feat = np.zeros(F if sorted_rows else 0, dtype=dt)
        if sorted_rows:
            _node_sweeps(&nd, &sc, orders, node_feat, leaf)
        work = (np.zeros(W, dtype=dt), np.zeros(W, dtype=dt),
                np.zeros((1, TW), dtype=np.int64), np.zeros((1, TW), dtype=np.int64),
                np.zeros((0, TW), dtype=np.int64), np.zeros(0, dtype=dt))
        # upper bounds before the scan (ConTree evaluates promising cuts first)
        # [0], [1]: the least error of a tree of 2 / 3 splits found or wanted (cap2, cap3);
        # [2], [3]: the least bound of the cuts skipped
        bounds = np.zeros(4, dtype=dt)
        _node_bounds(&nd, &sc, tests, errors, can_skip and n_tests > 0, out_error, bounds,
                     cap2, cap3, leaf)
    finally:
        scratch_free(&sc)
    flags = np.zeros(3, dtype=np.int64)
    flags[0] = n_tests
    flags[1] = can_skip
    flags[2] = sorted_rows
    # scratch: the children's tables, the sweep's (none on a node of sweeps: depth2_tests
    # makes them if a test needs them), the rows by slot, their starts
    tables = (0 if sorted_rows else n_slots, W)
    scratch = (np.zeros(tables, dtype=dt), np.zeros(tables, dtype=dt),
               np.zeros(tables, dtype=dt), np.zeros(tables, dtype=dt),
               np.empty(n, dtype=np.int64), np.zeros(n_slots + 1, dtype=np.int64),
               np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_))
    return (table, offsets, glob, local, total, tests, errors, orders, node_feat, bounds,
            flags, work, scratch)


cdef int _node_sweeps(Node* nd, Scratch* sc, tuple orders, object node_feat,
                      wt leaf) except -1:
    """The sorted rows of a node of sweeps, and each feature's best single cut of the node
    (``node_feat``: bounds for its children's)."""
    cdef int64_t[:, ::1] by_feature = orders[0]
    cdef int64_t[:, ::1] codes_sorted = orders[1]
    cdef int64_t[:, ::1] classes_sorted = orders[2]
    cdef wt[:, ::1] weights_sorted = orders[3]
    cdef wt[::1] nf = node_feat
    cdef Py_ssize_t n = nd.n, W = nd.W, g, k
    cdef int64_t* start = <int64_t*> _alloc((nd.n_slots + 1) * sizeof(int64_t))
    cdef uchar* everything = <uchar*> _alloc(n)
    cdef wt* node_tot = <wt*> _zalloc(2 * W * sizeof(wt))
    cdef wt e[2]
    cdef int64_t c[2]
    cdef wt no_cap[2]
    cdef uchar every_tie[2]
    if start == NULL or everything == NULL or node_tot == NULL:
        free(start)
        free(everything)
        free(node_tot)
        raise MemoryError()
    with nogil:
        feature_orders(nd, start, sc.fill, &by_feature[0, 0], &codes_sorted[0, 0],
                       &classes_sorted[0, 0], &weights_sorted[0, 0])
        nd.by_feature = &by_feature[0, 0]
        nd.codes_sorted = &codes_sorted[0, 0]
        nd.classes_sorted = &classes_sorted[0, 0]
        nd.weights_sorted = &weights_sorted[0, 0]
        nd.node_feat = &nf[0]
        nd.sweep = True
        memset(everything, 1, n)
        for k in range(W):
            node_tot[k] = (<const wt*> nd.total)[k]
        no_cap[0] = no_cap[1] = leaf  # no error is above the leaf's
        every_tie[0] = every_tie[1] = 1
        for g in range(nd.F):
            e[0] = leaf
            e[1] = 0
            sweep_feature(nd, g, everything, node_tot, e, c, no_cap, every_tie, sc)
            nf[g] = e[0]
    free(start)
    free(everything)
    free(node_tot)
    return 0


cdef int _node_bounds(Node* nd, Scratch* sc, object tests, object errors, bint can_skip,
                      wt[::1] out_error, object bounds, wt cap2, wt cap3,
                      wt leaf) except -1:
    """``depth2_node``'s bounds: the trees under the best cuts, the caps, the leaf."""
    cdef const int64_t[:, ::1] te = tests
    cdef const wt[::1] er = errors
    cdef wt[::1] bv = bounds
    cdef wt ub[2]
    cdef int status
    with nogil:
        status = cut_bounds(nd, &te[0, 0], &er[0], te.shape[0], can_skip, &out_error[0], sc,
                            ub)
    if status < 0:
        raise MemoryError()
    bv[0] = wmin(ub[0], cap2)
    bv[1] = wmin(ub[1], cap3)
    bv[2] = leaf  # no tree is worse than the leaf: no bound above it is needed
    bv[3] = leaf
    return 0


cdef inline int64_t interval_feature(const int64_t* tests, int64_t t, int64_t end,
                                     const Node* nd, const wt* table,
                                     bint can_skip) noexcept nogil:
    """The end of the interval block of ORDERED root tests starting at ``t`` (one numeric
    feature's cuts, no missing value of it at the node), else -1."""
    cdef int64_t g = tests[t * TW]
    cdef bint known_only = table[(nd.offsets[g + 1] - 1) * nd.W + nd.K] == 0
    cdef bint two_codes = nd.offsets[g + 1] - nd.offsets[g] == 3 and known_only
    cdef int64_t t1
    if tests[t * TW + 1] != C_ORDERED or two_codes or not can_skip or not known_only:
        return -1
    t1 = t + 1
    while t1 < end and tests[t1 * TW] == g and tests[t1 * TW + 1] == C_ORDERED:
        t1 += 1
    return t1


cdef int block_alone(const Node* nd, Py_ssize_t b, const int64_t* starts,
                     const int64_t* stops, const int64_t* tests, const wt* out_error,
                     const int64_t* out_tests, const wt* bounds, wt* block_error,
                     int64_t* block_tests, wt* block_bounds) noexcept nogil:
    """Interval block ``b`` on scratch of its own, from the bests and bounds before the
    blocks (``_block_alone``); -1 when out of memory."""
    cdef Scratch sc
    cdef Py_ssize_t n = nd.n, k
    cdef Py_ssize_t table_size = 0 if nd.sweep else nd.n_slots * nd.W
    cdef wt* error = block_error + 4 * b
    cdef int64_t* trees = block_tests + 12 * TW * b
    cdef wt* own_bounds = block_bounds + 4 * b
    cdef int64_t* by_slot
    cdef int64_t* slot_start
    cdef wt* tables
    cdef uchar* goes
    cdef int status = -1
    for k in range(4):
        error[k] = out_error[k]
        own_bounds[k] = bounds[k]
    memcpy(trees, out_tests, 12 * TW * sizeof(int64_t))
    if scratch_init(&sc, nd) < 0:
        return -1
    by_slot = <int64_t*> _alloc(n * sizeof(int64_t))
    slot_start = <int64_t*> _zalloc((nd.n_slots + 1) * sizeof(int64_t))
    tables = <wt*> _zalloc(2 * table_size * sizeof(wt))
    goes = <uchar*> _zalloc(n)
    if by_slot != NULL and slot_start != NULL and tables != NULL and goes != NULL:
        status = interval_block(nd, tests, starts[b], stops[b], tests[starts[b] * TW],
                                by_slot, slot_start, error, trees, &sc, tables,
                                tables + table_size, own_bounds, goes)
    free(by_slot)
    free(slot_start)
    free(tables)
    free(goes)
    scratch_free(&sc)
    return status


ctypedef struct BlockJob:
    const Node* nd
    const int64_t* starts
    const int64_t* stops
    const int64_t* tests
    const void* out_error
    const int64_t* out_tests
    const void* bounds
    void* block_error
    int64_t* block_tests
    void* block_bounds
    int64_t* status
    bint double


cdef extern from *:
    """
    typedef void (*quercus_block_fn)(void* job, Py_ssize_t b);
    static void quercus_parallel_blocks(quercus_block_fn fn, void* job, Py_ssize_t n) {
        Py_ssize_t b;
    #ifdef _OPENMP
        #pragma omp parallel for schedule(dynamic, 1)
    #endif
        for (b = 0; b < n; b++)
            fn(job, b);
    }
    """
    ctypedef void (*block_fn)(void* job, Py_ssize_t b) noexcept nogil
    void parallel_blocks "quercus_parallel_blocks"(block_fn fn, void* job, Py_ssize_t n) nogil


cdef void _block_job(void* job_, Py_ssize_t b) noexcept nogil:
    cdef BlockJob* job = <BlockJob*> job_
    if job.double:
        job.status[b] = block_alone(job.nd, b, job.starts, job.stops, job.tests,
                                    <const double*> job.out_error, job.out_tests,
                                    <const double*> job.bounds, <double*> job.block_error,
                                    job.block_tests, <double*> job.block_bounds)
    else:
        job.status[b] = block_alone(job.nd, b, job.starts, job.stops, job.tests,
                                    <const int64_t*> job.out_error, job.out_tests,
                                    <const int64_t*> job.bounds, <int64_t*> job.block_error,
                                    job.block_tests, <int64_t*> job.block_bounds)


def depth2_tests(tuple node, const int32_t[:, ::1] codes, const int32_t[::1] y,
                 const wt[::1] w, rows_in, const uchar[::1] categorical,
                 Py_ssize_t n_classes, bint learn, int64_t max_subset, int64_t min_leaf,
                 int64_t first, int64_t last, int64_t threads, wt[::1] out_error,
                 int64_t[:, :, ::1] out_tests):
    """The per-test part of ``solve_depth2``: the root tests ``first`` to ``last - 1`` of
    the node ``depth2_node`` prepared, the interval blocks of a node with at least
    ``PARALLEL_WORK`` rows x cuts in them shared among the threads when ``threads`` > 1
    (the same trees). Returns ``(number of root tests, end)`` as ``solve_depth2``."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    (table, offsets, glob, local, total, tests, _errors, orders, node_feat, bounds, flags,
     _work, scratch) = node
    cdef const wt[:, ::1] tv = table
    cdef const int64_t[::1] ov = offsets, gv = glob
    cdef const int64_t[:, ::1] lv = local
    cdef const wt[::1] tot = total
    cdef const int64_t[:, ::1] te = tests
    cdef wt[::1] bv = bounds
    cdef const int64_t[::1] fv = flags
    cdef int64_t n_tests = fv[0]
    cdef bint can_skip = fv[1] == 1
    cdef bint sorted_rows = fv[2] == 1
    cdef Py_ssize_t K = n_classes, W = n_classes + 1, n = rows.shape[0], F = codes.shape[1]
    cdef int64_t end, t, t1, n_blocks = 0, n_cuts = 0, b
    if n_tests == 0:
        return 0, 0
    end = imin(last, n_tests)
    while 0 < end < n_tests and te[end, 1] == C_ORDERED and te[end - 1, 1] == C_ORDERED \
            and te[end, 0] == te[end - 1, 0]:
        end += 1  # the rest of this feature's cuts
    cdef Node nd
    fill_node(&nd, codes, &y[0], &w[0], &rows[0], n, &categorical[0], K, learn, max_subset,
              min_leaf)
    nd.table = &tv[0, 0]
    nd.n_slots = tv.shape[0]
    nd.offsets = &ov[0]
    nd.glob = &gv[0]
    nd.local = &lv[0, 0]
    nd.total = &tot[0]
    cdef const int64_t[:, ::1] o0, o1, o2
    cdef const wt[:, ::1] o3
    cdef const wt[::1] nf
    if sorted_rows:
        o0 = orders[0]
        o1 = orders[1]
        o2 = orders[2]
        o3 = orders[3]
        nf = node_feat
        nd.by_feature = &o0[0, 0]
        nd.codes_sorted = &o1[0, 0]
        nd.classes_sorted = &o2[0, 0]
        nd.weights_sorted = &o3[0, 0]
        nd.node_feat = &nf[0]
        nd.sweep = True
    # on a large node with threads, the interval blocks first, all at once, each alone
    # (from the bests so far: less pruning than in turn, the same trees after the merge)
    cdef int64_t span = imax(end - first, 0)
    starts = np.empty(span, dtype=np.int64)
    stops = np.empty(span, dtype=np.int64)
    cdef int64_t[::1] sv = starts, pv = stops
    if threads > 1 and n * (end - first) >= C_PARALLEL_WORK:
        t = first
        with nogil:
            while t < end:  # the blocks, stepping as the scan below does
                t1 = interval_feature(&te[0, 0], t, end, &nd, &tv[0, 0], can_skip)
                if t1 < 0:
                    t += 1
                    continue
                sv[n_blocks] = t
                pv[n_blocks] = t1
                n_blocks += 1
                n_cuts += t1 - t
                t = t1
    if n * n_cuts < C_PARALLEL_WORK:
        n_blocks = 0
    if n_blocks < 2:
        n_blocks = 0
    dt = _dtype_of(<wt> 0)
    block_error = np.empty((n_blocks, 4), dtype=dt)
    block_tests = np.empty((n_blocks, 4, 3, TW), dtype=np.int64)
    block_bounds = np.empty((n_blocks, 4), dtype=dt)
    status = np.zeros(max(n_blocks, 1), dtype=np.int64)
    cdef wt[:, ::1] be = block_error
    cdef int64_t[:, :, :, ::1] bt = block_tests
    cdef wt[:, ::1] bb_ = block_bounds
    cdef int64_t[::1] st = status
    cdef BlockJob job
    if n_blocks > 0:
        job.nd = &nd
        job.starts = &sv[0]
        job.stops = &pv[0]
        job.tests = &te[0, 0]
        job.out_error = &out_error[0]
        job.out_tests = &out_tests[0, 0, 0]
        job.bounds = &bv[0]
        job.block_error = &be[0, 0]
        job.block_tests = &bt[0, 0, 0, 0]
        job.block_bounds = &bb_[0, 0]
        job.status = &st[0]
        job.double = wt is double
        with nogil:
            parallel_blocks(_block_job, &job, n_blocks)
        for b in range(n_blocks):
            if st[b] < 0:
                raise MemoryError()
    cdef wt[:, ::1] left_v = scratch[0]
    cdef wt[:, ::1] right_v = scratch[1]
    cdef wt[:, ::1] sweep_v = scratch[2]
    cdef wt[:, ::1] missing_v = scratch[3]
    cdef int64_t[::1] by_slot = scratch[4]
    cdef int64_t[::1] slot_start = scratch[5]
    cdef uchar[::1] goes = scratch[6].view(np.uint8)
    cdef uchar[::1] row_flags = scratch[7].view(np.uint8)
    cdef int code
    with nogil:
        code = _scan_roots(&nd, &te[0, 0], first, end, n_blocks, can_skip, &out_error[0],
                           &out_tests[0, 0, 0], &bv[0], &be[0, 0], &bt[0, 0, 0, 0],
                           &bb_[0, 0], &left_v[0, 0], &right_v[0, 0], &sweep_v[0, 0],
                           &missing_v[0, 0], left_v.shape[0] == nd.n_slots, &by_slot[0],
                           &slot_start[0], &goes[0], &row_flags[0])
    if code < 0:
        raise MemoryError()
    return n_tests, end


cdef int _scan_roots(const Node* nd, const int64_t* tests, int64_t first, int64_t end,
                     int64_t n_blocks, bint can_skip, wt* out_error, int64_t* out_tests,
                     wt* bounds, const wt* block_error, const int64_t* block_tests,
                     const wt* block_bounds, wt* left, wt* right, wt* sweep,
                     wt* sweep_missing, bint have_tables, int64_t* by_slot,
                     int64_t* slot_start, uchar* goes, uchar* row_flags) noexcept nogil:
    """``depth2_tests``'s scan of the root tests in order (the interval blocks done alone
    merged in scan order, ties to the first); -1 when out of memory."""
    cdef Py_ssize_t K = nd.K, W = nd.W, n = nd.n, F = nd.F, i, s, k, q
    cdef Py_ssize_t size = nd.n_slots * nd.W
    cdef const wt* table = <const wt*> nd.table
    cdef const int64_t* offsets = nd.offsets
    cdef const int64_t* test
    cdef int64_t g, t, t1, block = 0, bb, sweep_g = -1, sweep_pos = 0, sweep_end = 0
    cdef int64_t low, high, small_slot
    cdef bint two_codes
    cdef wt* built
    cdef wt* other
    cdef wt* own = NULL
    cdef wt v
    cdef wt c23[2]
    cdef Scratch sc
    cdef int status = 0
    if scratch_init(&sc, nd) < 0:
        return -1
    t = first
    while t < end:
        test = tests + t * TW
        g = test[0]
        t += 1
        two_codes = offsets[g + 1] - offsets[g] == 3 and table[(offsets[g + 1] - 1) * W + K] == 0
        t1 = interval_feature(tests, t - 1, end, nd, table, can_skip)
        if t1 >= 0 and n_blocks > 0:  # done alone: merged in scan order, ties to the first
            for bb in range(2, 4):
                if block_error[4 * block + bb] < out_error[bb]:
                    out_error[bb] = block_error[4 * block + bb]
                    memcpy(out_tests + bb * 3 * TW, block_tests + (block * 4 + bb) * 3 * TW,
                           3 * TW * sizeof(int64_t))
            bounds[2] = wmin(bounds[2], block_bounds[4 * block + 2])
            bounds[3] = wmin(bounds[3], block_bounds[4 * block + 3])
            block += 1
            sweep_g = -1
            t = t1
            continue
        if t1 >= 0:
            if interval_block(nd, tests, t - 1, t1, g, by_slot, slot_start, out_error,
                              out_tests, &sc, left, right, bounds, goes) < 0:
                status = -1
                break
            sweep_g = -1
            t = t1
            continue
        if not have_tables:  # a node of sweeps made no class tables
            own = <wt*> _zalloc(4 * size * sizeof(wt))
            if own == NULL:
                status = -1
                break
            left = own
            right = own + size
            sweep = own + 2 * size
            sweep_missing = own + 3 * size
            have_tables = True
        if test[1] == C_ORDERED and two_codes:
            # a binary feature without missing values here: one test; build the side with
            # fewer rows and take the other from the node's table
            low = offsets[g]
            high = offsets[g] + 1
            small_slot = high if table[high * W + K] < table[low * W + K] else low
            built = right if small_slot == high else left
            other = left if small_slot == high else right
            memset(built, 0, size * sizeof(wt))
            for i in range(n):
                if nd.local[i * F + g] == small_slot:
                    add_row(built, nd, i)
            for s in range(size):
                other[s] = table[s] - built[s]
        elif test[1] == C_ORDERED:
            if g != sweep_g or (sweep_pos > 0 and nd.glob[nd.local[by_slot[sweep_pos - 1] * F
                                                                  + g]] > test[2]):
                sweep_g = g
                rows_by_slot(nd, g, by_slot, slot_start, sc.fill)
                memset(sweep, 0, size * sizeof(wt))
                memset(sweep_missing, 0, size * sizeof(wt))
                sweep_pos = slot_start[offsets[g]]
                sweep_end = slot_start[offsets[g + 1] - 1]  # the missing rows follow
                for q in range(sweep_end, slot_start[offsets[g + 1]]):
                    add_row(sweep_missing, nd, by_slot[q])
            while sweep_pos < sweep_end and nd.glob[nd.local[by_slot[sweep_pos] * F + g]] \
                    <= test[2]:
                add_row(sweep, nd, by_slot[sweep_pos])
                sweep_pos += 1
            for s in range(size):
                v = sweep[s]
                if test[3] == 1:
                    v += sweep_missing[s]
                left[s] = v
                right[s] = table[s] - v
        else:
            for i in range(n):
                row_flags[i] = goes_left_c(test, nd.codes[nd.rows[i] * F + g])
            side_tables(nd, row_flags, left, right)
        evaluate_root(nd, test, left, right, out_error, out_tests, &sc, c23)
    if status == 0:
        for bb in range(1, 4):
            if out_error[bb - 1] <= out_error[bb]:
                out_error[bb] = out_error[bb - 1]
                memcpy(out_tests + bb * 3 * TW, out_tests + (bb - 1) * 3 * TW,
                       3 * TW * sizeof(int64_t))
    free(own)
    scratch_free(&sc)
    return status


def solve_depth2(const int32_t[:, ::1] codes, const int32_t[::1] y, const wt[::1] w, rows_in,
                 const int64_t[::1] n_codes, const uchar[::1] categorical,
                 Py_ssize_t n_classes, int64_t depth, bint learn, int64_t max_subset,
                 int64_t min_leaf, int64_t first, int64_t last, wt[::1] out_error,
                 int64_t[:, :, ::1] out_tests):
    """Exact optimum of the node ``rows`` at depth <= ``depth`` (1 or 2), for every split
    budget 0..3, over the root tests ``first`` to ``last - 1`` (in scan order):
    ``depth2_node`` then ``depth2_tests`` (docs/optimal.md). Returns ``(number of root
    tests, end)``."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef wt no_cap = 0  # no tree errs more than the node's weight (summed in order)
    cdef Py_ssize_t i
    for i in range(rows.shape[0]):
        no_cap += w[rows[i]]
    node = depth2_node(codes, y, w, rows, n_codes, categorical, n_classes, depth, learn,
                       max_subset, min_leaf, first == 0, no_cap, no_cap, out_error,
                       out_tests)
    return depth2_tests(node, codes, y, w, rows, categorical, n_classes, learn, max_subset,
                        min_leaf, first, last, 1, out_error, out_tests)


# -- the pair-count depth-2 solver of nodes where every feature is binary -------------------
cdef extern from *:
    """
    /* The pair-count solver's inner loops, in C: the pointers are
       ``restrict`` (the arrays never overlap), so the compiler vectorises the loops over
       the features b. On x86-64 with GCC or clang each loop is also compiled for AVX2 and
       for AVX-512 (with its vector popcount), picked once at run time by the CPU; they
       compute the same numbers (each lane the scalar loop's operations in the same
       order: no reassociation, no FMA). */
    #include <stdint.h>
    #include <string.h>

    #if defined(__GNUC__) && defined(__x86_64__) && !defined(_MSC_VER) \
        && (!defined(__clang__) || __clang_major__ >= 9)
    #define QUERCUS_DISPATCH 1
    #define QUERCUS_AVX2 __attribute__((target("avx2,popcnt")))
    #define QUERCUS_AVX512 __attribute__((target( \
        "avx512f,avx512vl,avx512bw,avx512dq,avx512vpopcntdq,avx2,popcnt")))
    #else
    #define QUERCUS_DISPATCH 0
    #endif
    #define QUERCUS_NOINLINE __attribute__((noinline))

    static inline uint64_t quercus_popcount64(uint64_t x) {
    #if defined(__GNUC__) && (defined(__POPCNT__) || defined(__aarch64__))
        return (uint64_t) __builtin_popcountll(x);  /* one instruction */
    #endif
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (x * 0x0101010101010101ULL) >> 56;
    }

    /* every[word, g] |= (code[g] == high[g]) << shift for one row (high as int32: the
       codes' type, -1 where a feature has one code) */
    #define QUERCUS_BITS_BODY \
        for (Py_ssize_t g = 0; g < FC; g++) \
            word[g] |= ((uint64_t) (code[g] == high32[g])) << shift;

    static void quercus_bits_row_plain(const int32_t* restrict code,
                                       const int32_t* restrict high32, Py_ssize_t FC,
                                       uint64_t* restrict word, uint64_t shift) {
        QUERCUS_BITS_BODY
    }

    /* row[b] += popcount(wa & word[b]) for b = a .. p - 1, every class, word and a */
    #define QUERCUS_PAIRS_BODY(T, POPCOUNT) \
        for (Py_ssize_t c = 0; c < K; c++) { \
            for (int64_t q = start[c]; q < start[c + 1]; q++) { \
                const uint64_t* restrict word = bits + q * p; \
                for (Py_ssize_t a = 0; a < p; a++) { \
                    uint64_t wa = word[a]; \
                    if (wa == 0) continue; \
                    T* restrict row = pair + (c * p + a) * p; \
                    for (Py_ssize_t b = a; b < p; b++) \
                        row[b] += (int64_t) POPCOUNT(wa & word[b]); \
                } \
            } \
        }

    /* the four cells of root feature a and every b: sums s and largest classes m */
    #define QUERCUS_CELLS_BODY(T) \
        for (Py_ssize_t b = 0; b < p; b++) { \
            s00[b] = 0; s01[b] = 0; s10[b] = 0; s11[b] = 0; \
            m00[b] = 0; m01[b] = 0; m10[b] = 0; m11[b] = 0; \
        } \
        for (Py_ssize_t k = 0; k < K; k++) { \
            const T* restrict both_k = pair + (k * p + a) * p; \
            const T* restrict up_k = up + k * p; \
            T ua = up_k[a]; \
            T tk = total[k]; \
            for (Py_ssize_t b = 0; b < p; b++) { \
                T both = both_k[b]; \
                T v10 = ua - both; \
                T v01 = up_k[b] - both; \
                T v00 = tk - ua - up_k[b] + both; \
                s00[b] += v00; \
                s01[b] += v01; \
                s10[b] += v10; \
                s11[b] += both; \
                m00[b] = v00 > m00[b] ? v00 : m00[b]; \
                m01[b] = v01 > m01[b] ? v01 : m01[b]; \
                m10[b] = v10 > m10[b] ? v10 : m10[b]; \
                m11[b] = both > m11[b] ? both : m11[b]; \
            } \
        } \
        { \
            const T* restrict rows_a = pair + (K * p + a) * p; \
            T n_a = up_rows[a]; \
            T t_rows = total[K]; \
            for (Py_ssize_t b = 0; b < p; b++) { \
                T both = rows_a[b]; \
                T e = (s00[b] - m00[b]) + (s01[b] - m01[b]); \
                int ok = t_rows - n_a - up_rows[b] + both >= least \
                    && up_rows[b] - both >= least; \
                e_low[b] = ok ? e : leaf_low_a; \
                e = (s10[b] - m10[b]) + (s11[b] - m11[b]); \
                e_up[b] = (n_a - both >= least && both >= least) ? e : leaf_up_a; \
            } \
        }

    #define QUERCUS_CELLS_ARGS(T) \
        const T* restrict pair, const T* restrict up, const T* restrict up_rows, \
        const T* restrict total, Py_ssize_t K, Py_ssize_t p, Py_ssize_t a, int64_t least, \
        T leaf_low_a, T leaf_up_a, T* restrict s00, T* restrict s01, T* restrict s10, \
        T* restrict s11, T* restrict m00, T* restrict m01, T* restrict m10, \
        T* restrict m11, T* restrict e_low, T* restrict e_up
    #define QUERCUS_PAIRS_ARGS(T) \
        const uint64_t* restrict bits, const int64_t* restrict start, Py_ssize_t K, \
        Py_ssize_t p, T* restrict pair

    #define QUERCUS_VARIANTS(T, SUFFIX) \
        static QUERCUS_NOINLINE void quercus_pairs_##SUFFIX##_plain(QUERCUS_PAIRS_ARGS(T)) { \
            QUERCUS_PAIRS_BODY(T, quercus_popcount64) } \
        static QUERCUS_NOINLINE void quercus_cells_##SUFFIX##_plain(QUERCUS_CELLS_ARGS(T)) { \
            QUERCUS_CELLS_BODY(T) }
    QUERCUS_VARIANTS(int64_t, i64)
    QUERCUS_VARIANTS(double, f64)

    #if QUERCUS_DISPATCH
    #define QUERCUS_SIMD_VARIANTS(T, SUFFIX) \
        static QUERCUS_AVX2 QUERCUS_NOINLINE void \
        quercus_pairs_##SUFFIX##_avx2(QUERCUS_PAIRS_ARGS(T)) { \
            QUERCUS_PAIRS_BODY(T, quercus_popcount64) } \
        static QUERCUS_AVX512 QUERCUS_NOINLINE void \
        quercus_pairs_##SUFFIX##_avx512(QUERCUS_PAIRS_ARGS(T)) { \
            QUERCUS_PAIRS_BODY(T, __builtin_popcountll) } \
        static QUERCUS_AVX2 QUERCUS_NOINLINE void \
        quercus_cells_##SUFFIX##_avx2(QUERCUS_CELLS_ARGS(T)) { QUERCUS_CELLS_BODY(T) } \
        static QUERCUS_AVX512 QUERCUS_NOINLINE void \
        quercus_cells_##SUFFIX##_avx512(QUERCUS_CELLS_ARGS(T)) { QUERCUS_CELLS_BODY(T) }
    QUERCUS_SIMD_VARIANTS(int64_t, i64)
    QUERCUS_SIMD_VARIANTS(double, f64)

    static QUERCUS_AVX2 void quercus_bits_row_avx2(
            const int32_t* restrict code, const int32_t* restrict high32, Py_ssize_t FC,
            uint64_t* restrict word, uint64_t shift) {
        QUERCUS_BITS_BODY
    }
    static QUERCUS_AVX512 void quercus_bits_row_avx512(
            const int32_t* restrict code, const int32_t* restrict high32, Py_ssize_t FC,
            uint64_t* restrict word, uint64_t shift) {
        QUERCUS_BITS_BODY
    }
    #endif

    /* 0: plain, 1: AVX2, 2: AVX-512 (with its popcount), as the CPU allows */
    static int quercus_level = -1;
    static int quercus_best_level(void) {
        int found = 0;
    #if QUERCUS_DISPATCH
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
            found = 1;
        if (found && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
                && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
                && __builtin_cpu_supports("avx512vpopcntdq"))
            found = 2;
    #endif
        return found;
    }
    static int quercus_simd_level(void) {
        if (quercus_level < 0)
            quercus_level = quercus_best_level();
        return quercus_level;
    }
    /* for the tests: run a lower level (at most the CPU's); returns the level set */
    static int quercus_set_simd_level(int level) {
        int best = quercus_best_level();
        quercus_level = level < 0 || level > best ? best : level;
        return quercus_level;
    }

    #if QUERCUS_DISPATCH
    #define QUERCUS_PICK(NAME, LEVEL, ...) \
        do { if ((LEVEL) == 2) NAME##_avx512(__VA_ARGS__); \
             else if ((LEVEL) == 1) NAME##_avx2(__VA_ARGS__); \
             else NAME##_plain(__VA_ARGS__); } while (0)
    #else
    #define QUERCUS_PICK(NAME, LEVEL, ...) NAME##_plain(__VA_ARGS__)
    #endif

    static void quercus_bits_row(int level, const int32_t* code, const int32_t* high32,
                                 Py_ssize_t FC, uint64_t* word, uint64_t shift) {
        QUERCUS_PICK(quercus_bits_row, level, code, high32, FC, word, shift);
    }
    static void quercus_pairs_i64(int level, QUERCUS_PAIRS_ARGS(int64_t)) {
        QUERCUS_PICK(quercus_pairs_i64, level, bits, start, K, p, pair);
    }
    static void quercus_pairs_f64(int level, QUERCUS_PAIRS_ARGS(double)) {
        QUERCUS_PICK(quercus_pairs_f64, level, bits, start, K, p, pair);
    }
    static void quercus_cells_i64(int level, QUERCUS_CELLS_ARGS(int64_t)) {
        QUERCUS_PICK(quercus_cells_i64, level, pair, up, up_rows, total, K, p, a, least,
                     leaf_low_a, leaf_up_a, s00, s01, s10, s11, m00, m01, m10, m11, e_low,
                     e_up);
    }
    static void quercus_cells_f64(int level, QUERCUS_CELLS_ARGS(double)) {
        QUERCUS_PICK(quercus_cells_f64, level, pair, up, up_rows, total, K, p, a, least,
                     leaf_low_a, leaf_up_a, s00, s01, s10, s11, m00, m01, m10, m11, e_low,
                     e_up);
    }
    """
    int simd_level "quercus_simd_level"() nogil
    int set_simd_level "quercus_set_simd_level"(int level) nogil
    void bits_row "quercus_bits_row"(int level, const int32_t* code, const int32_t* high32,
                                     Py_ssize_t FC, uint64_t* word, uint64_t shift) nogil
    void pairs_i64 "quercus_pairs_i64"(int level, const uint64_t* bits, const int64_t* start,
                                       Py_ssize_t K, Py_ssize_t p, int64_t* pair) nogil
    void pairs_f64 "quercus_pairs_f64"(int level, const uint64_t* bits, const int64_t* start,
                                       Py_ssize_t K, Py_ssize_t p, double* pair) nogil
    void cells_i64 "quercus_cells_i64"(
        int level, const int64_t* pair, const int64_t* up, const int64_t* up_rows,
        const int64_t* total, Py_ssize_t K, Py_ssize_t p, Py_ssize_t a, int64_t least,
        int64_t leaf_low_a, int64_t leaf_up_a, int64_t* s00, int64_t* s01, int64_t* s10,
        int64_t* s11, int64_t* m00, int64_t* m01, int64_t* m10, int64_t* m11,
        int64_t* e_low, int64_t* e_up) nogil
    void cells_f64 "quercus_cells_f64"(
        int level, const double* pair, const double* up, const double* up_rows,
        const double* total, Py_ssize_t K, Py_ssize_t p, Py_ssize_t a, int64_t least,
        double leaf_low_a, double leaf_up_a, double* s00, double* s01, double* s10,
        double* s11, double* m00, double* m01, double* m10, double* m11, double* e_low,
        double* e_up) nogil


ctypedef struct BinScratch:
    int64_t* active  # n_features
    int64_t* ups  # n_features
    int64_t* start  # K + 1
    int64_t* fill  # K
    int32_t* high32  # code columns: ``high`` as the codes' type
    uint64_t* every  # (words, code columns)
    uint64_t* bits  # (words, n_features)
    void* total  # W
    void* pair  # (W, p, p)
    void* up  # (W, p)
    void* side  # W
    void* mine  # W
    uchar* valid  # n_features
    void* leaf_low  # n_features
    void* leaf_up
    void* cells  # 10 n_features
    void* memory


cdef int bin_scratch_init(BinScratch* s, Py_ssize_t n_features, Py_ssize_t code_columns,
                          Py_ssize_t K, Py_ssize_t n) noexcept nogil:
    """Scratch of the pair-count solver for nodes of at most ``n`` rows; -1 when out of
    memory."""
    cdef Py_ssize_t W = K + 1, F = n_features
    # a class's rows fill ceil(rows / 64) words: at most n / 64 + K in all
    cdef Py_ssize_t words = n // 64 + K + 1
    cdef Py_ssize_t size = (2 * F + (K + 1) + K + code_columns + words * code_columns
                            + words * F
                            + W + W * F * F + W * F + 2 * W + F + 2 * F + 10 * F)
    cdef char* p = <char*> _alloc(size * 8)
    s.memory = p
    if p == NULL:
        return -1
    s.active = <int64_t*> p
    p += F * 8
    s.ups = <int64_t*> p
    p += F * 8
    s.start = <int64_t*> p
    p += (K + 1) * 8
    s.fill = <int64_t*> p
    p += K * 8
    s.high32 = <int32_t*> p
    p += code_columns * 8
    s.every = <uint64_t*> p
    p += words * code_columns * 8
    s.bits = <uint64_t*> p
    p += words * F * 8
    s.total = p
    p += W * 8
    s.pair = p
    p += W * F * F * 8
    s.up = p
    p += W * F * 8
    s.side = p
    p += W * 8
    s.mine = p
    p += W * 8
    s.leaf_low = p
    p += F * 8
    s.leaf_up = p
    p += F * 8
    s.cells = p
    p += 10 * F * 8
    s.valid = <uchar*> p
    return 0


cdef inline void bin_scratch_free(BinScratch* s) noexcept nogil:
    free(s.memory)
    s.memory = NULL


cdef void symmetric(wt* pair, Py_ssize_t p, Py_ssize_t K) noexcept nogil:
    """Copy the upper triangle of every layer of ``pair`` to the lower one."""
    cdef Py_ssize_t k, a, b
    for k in range(K + 1):
        for a in range(p):
            for b in range(a):
                pair[(k * p + a) * p + b] = pair[(k * p + b) * p + a]


cdef void pair_counts_rows(const int32_t* codes, Py_ssize_t FC, const int32_t* y,
                           const wt* w, const int64_t* rows, Py_ssize_t n,
                           const int64_t* active, Py_ssize_t p, const int64_t* high,
                           Py_ssize_t K, int64_t depth, wt* total, wt* pair,
                           int64_t* ups) noexcept nogil:
    """Node totals and ``pair[k, a, b]``: the class-k weight (k = K: the number) of the
    rows with features a and b at their upper code, by one pass over the rows."""
    cdef Py_ssize_t W = K + 1, i, a, b, s, t, m
    cdef int64_t r, c
    cdef wt wr
    memset(total, 0, W * sizeof(wt))
    memset(pair, 0, W * p * p * sizeof(wt))
    for i in range(n):
        r = rows[i]
        c = y[r]
        wr = w[r]
        total[c] += wr
        total[K] += 1
        m = 0
        for a in range(p):
            if codes[r * FC + active[a]] == high[active[a]]:
                ups[m] = a
                m += 1
        for s in range(m):
            a = ups[s]
            pair[(c * p + a) * p + a] += wr
            pair[(K * p + a) * p + a] += 1
            if depth >= 2:
                for t in range(s + 1, m):
                    b = ups[t]
                    pair[(c * p + a) * p + b] += wr
                    pair[(K * p + a) * p + b] += 1
    symmetric(pair, p, K)


cdef void pair_counts_bits(const int32_t* codes, Py_ssize_t FC, const int32_t* y,
                           const int64_t* rows, Py_ssize_t n, const int64_t* active,
                           Py_ssize_t p, const int64_t* high, Py_ssize_t K, wt* total,
                           wt* pair, BinScratch* bs) noexcept nogil:
    """The same counts for unit weights, by bitsets of the rows at the upper code, each
    class in its own words; a pair's count is the popcount of the AND."""
    cdef Py_ssize_t W = K + 1, i, c, q, a, b, g, words
    cdef int64_t r, pos
    cdef int64_t* start = bs.start
    cdef int64_t* fill = bs.fill
    cdef uint64_t* every = bs.every
    cdef uint64_t* bits = bs.bits
    cdef int32_t* high32 = bs.high32
    cdef int level = simd_level()
    memset(total, 0, W * sizeof(wt))
    for i in range(n):
        total[y[rows[i]]] += 1
    total[K] = n
    start[0] = 0
    for c in range(K):  # first word of each class
        start[c + 1] = start[c] + (<int64_t> total[c] + 63) // 64
    words = start[K]
    memset(every, 0, words * FC * sizeof(uint64_t))
    memset(fill, 0, K * sizeof(int64_t))
    for g in range(FC):
        high32[g] = <int32_t> high[g]  # -1 or a code: exact
    for i in range(n):
        r = rows[i]
        c = y[r]
        pos = fill[c]
        fill[c] += 1
        bits_row(level, codes + r * FC, high32, FC, every + (start[c] + pos // 64) * FC,
                 <uint64_t> (pos % 64))
    for q in range(words):
        for a in range(p):
            bits[q * p + a] = every[q * FC + active[a]]
    memset(pair, 0, W * p * p * sizeof(wt))
    if wt is double:
        pairs_f64(level, bits, start, K, p, pair)
    else:
        pairs_i64(level, bits, start, K, p, pair)
    symmetric(pair, p, K)
    for c in range(K):
        for a in range(p):
            for b in range(p):
                pair[(K * p + a) * p + b] += pair[(c * p + a) * p + b]


cdef inline void set_test(int64_t* out, int64_t g, int64_t low,
                          const uchar* categorical) noexcept nogil:
    memset(out, 0, TW * sizeof(int64_t))
    out[0] = g
    if categorical[g]:
        out[1] = C_SUBSET
        out[4] = 1
        out[5] = low
    else:
        out[1] = C_ORDERED
        out[2] = low


cdef inline int64_t first_below(const wt* e, Py_ssize_t m, wt bound, wt* value) noexcept nogil:
    """The first smallest entry of ``e`` when it is below ``bound`` (its value to
    ``value``), else -1 (``bound``)."""
    cdef wt least = bound
    cdef Py_ssize_t b
    for b in range(m):
        least = wmin(least, e[b])
    if least < bound:
        for b in range(m):
            if e[b] == least:
                value[0] = least
                return b
    value[0] = bound
    return -1


cdef int64_t solve_binary_c(const int32_t* codes, Py_ssize_t FC, const int32_t* y,
                            const wt* w, const int64_t* rows, Py_ssize_t n,
                            const int64_t* low, const int64_t* high, const uchar* categorical,
                            Py_ssize_t n_features, Py_ssize_t K, int64_t depth,
                            int64_t min_leaf, wt* out_error, int64_t* out_tests,
                            BinScratch* bs) noexcept nogil:
    """``solve_depth2_binary``: the number of root tests."""
    cdef Py_ssize_t W = K + 1, g, i, k, a, b, p = 0, j
    cdef int64_t* active = bs.active
    cdef wt* total = <wt*> bs.total
    cdef wt* pair = <wt*> bs.pair
    cdef wt* up = <wt*> bs.up
    cdef wt* side = <wt*> bs.side
    cdef wt* mine = <wt*> bs.mine
    cdef uchar* valid = bs.valid
    cdef wt* leaf_low = <wt*> bs.leaf_low
    cdef wt* leaf_up = <wt*> bs.leaf_up
    cdef wt* cells = <wt*> bs.cells
    cdef wt* s00
    cdef wt* s01
    cdef wt* s10
    cdef wt* s11
    cdef wt* m00
    cdef wt* m01
    cdef wt* m10
    cdef wt* m11
    cdef wt* e_low
    cdef wt* e_up
    cdef wt* up_rows
    cdef wt leaf, best1
    cdef wt d1[2]
    cdef int64_t pick[2]
    cdef int64_t best1_g = -1, least
    cdef bint unit = True
    cdef int level = simd_level()
    for g in range(n_features):
        if high[g] >= 0:
            active[p] = g
            p += 1
    for i in range(n):
        if w[rows[i]] != 1:
            unit = False
            break
    if unit and depth >= 2:
        pair_counts_bits(codes, FC, y, rows, n, active, p, high, K, total, pair, bs)
    else:
        pair_counts_rows(codes, FC, y, w, rows, n, active, p, high, K, depth, total, pair,
                         bs.ups)
    least = imax(min_leaf, 1)
    leaf = leaf_err(total, K)
    memset(out_tests, 0, 12 * TW * sizeof(int64_t))
    for j in range(12):
        out_tests[j * TW] = C_NO_FEATURE
    for b in range(4):
        out_error[b] = leaf
    for k in range(W):  # rows at the upper code, per feature
        for a in range(p):
            up[k * p + a] = pair[(k * p + a) * p + a]
    # single splits: feature a, lower code left
    best1 = leaf
    for a in range(p):
        for k in range(W):
            mine[k] = up[k * p + a]
            side[k] = total[k] - up[k * p + a]
        valid[a] = side[K] >= least and mine[K] >= least
        leaf_low[a] = leaf_err(side, K)
        leaf_up[a] = leaf_err(mine, K)
        if valid[a] and leaf_low[a] + leaf_up[a] < best1:
            best1 = leaf_low[a] + leaf_up[a]
            best1_g = a
    if best1_g >= 0:
        for b in range(1, 4):
            out_error[b] = best1
            set_test(out_tests + 3 * b * TW, active[best1_g], low[active[best1_g]],
                     categorical)
    if depth < 2:
        return p
    # per root feature a, the four cells (a low/up, b low/up) for every b at once
    s00 = cells
    s01 = cells + p
    s10 = cells + 2 * p
    s11 = cells + 3 * p
    m00 = cells + 4 * p
    m01 = cells + 5 * p
    m10 = cells + 6 * p
    m11 = cells + 7 * p
    e_low = cells + 8 * p
    e_up = cells + 9 * p
    up_rows = up + K * p
    for a in range(p):
        if not valid[a]:
            continue
        if wt is double:
            cells_f64(level, pair, up, up_rows, total, K, p, a, least, leaf_low[a], leaf_up[a],
                      s00, s01, s10, s11, m00, m01, m10, m11, e_low, e_up)
        else:
            cells_i64(level, pair, up, up_rows, total, K, p, a, least, leaf_low[a], leaf_up[a],
                      s00, s01, s10, s11, m00, m01, m10, m11, e_low, e_up)
        e_low[a] = leaf_low[a]
        e_up[a] = leaf_up[a]
        # each child's best split: the first feature b (in order) strictly below its leaf
        pick[0] = first_below(e_low, p, leaf_low[a], &d1[0])
        pick[1] = first_below(e_up, p, leaf_up[a], &d1[1])
        g = active[a]
        if pick[1] >= 0 and leaf_low[a] + d1[1] < out_error[2]:
            out_error[2] = leaf_low[a] + d1[1]
            set_test(out_tests + 6 * TW, g, low[g], categorical)
            memset(out_tests + 7 * TW, 0, TW * sizeof(int64_t))
            out_tests[7 * TW] = C_NO_FEATURE
            set_test(out_tests + 8 * TW, active[pick[1]], low[active[pick[1]]], categorical)
        if pick[0] >= 0 and d1[0] + leaf_up[a] < out_error[2]:
            out_error[2] = d1[0] + leaf_up[a]
            set_test(out_tests + 6 * TW, g, low[g], categorical)
            set_test(out_tests + 7 * TW, active[pick[0]], low[active[pick[0]]], categorical)
            memset(out_tests + 8 * TW, 0, TW * sizeof(int64_t))
            out_tests[8 * TW] = C_NO_FEATURE
        if pick[0] >= 0 and pick[1] >= 0 and d1[0] + d1[1] < out_error[3]:
            out_error[3] = d1[0] + d1[1]
            set_test(out_tests + 9 * TW, g, low[g], categorical)
            set_test(out_tests + 10 * TW, active[pick[0]], low[active[pick[0]]], categorical)
            set_test(out_tests + 11 * TW, active[pick[1]], low[active[pick[1]]], categorical)
    for b in range(1, 4):
        if out_error[b - 1] <= out_error[b]:
            out_error[b] = out_error[b - 1]
            memcpy(out_tests + 3 * b * TW, out_tests + 3 * (b - 1) * TW,
                   3 * TW * sizeof(int64_t))
    return p


def _simd_level(int level=-2):
    """The vector code the pair-count solver runs (0 plain, 1 AVX2, 2 AVX-512); with
    ``level`` >= 0 (at most the CPU's; -1: the CPU's best) set it first (for the tests:
    every level gives the same numbers)."""
    if level >= -1:
        return set_simd_level(level)
    return simd_level()


def binary_features(const int32_t[:, ::1] codes, rows_in, Py_ssize_t n_features):
    """``(ok, low, high)``: ok when no feature has a missing value or a third code among
    ``rows``; ``low[g] < high[g]`` are the two codes of feature g (high -1: one code)."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    low = np.empty(n_features, dtype=np.int64)
    high = np.empty(n_features, dtype=np.int64)
    cdef int64_t[::1] lo = low, hi = high
    cdef Py_ssize_t i, g, FC = codes.shape[1]
    cdef int64_t r, c
    cdef bint ok = True
    with nogil:
        for g in range(n_features):
            lo[g] = -1
            hi[g] = -1
        for i in range(rows.shape[0]):
            r = rows[i]
            for g in range(n_features):
                c = codes[r, g]
                if c < 0:
                    ok = False
                    break
                if lo[g] < 0:
                    lo[g] = c
                elif c != lo[g]:
                    if hi[g] < 0:
                        hi[g] = c
                    elif c != hi[g]:
                        ok = False
                        break
            if not ok:
                break
        if ok:
            for g in range(n_features):
                if hi[g] >= 0 and hi[g] < lo[g]:
                    c = lo[g]
                    lo[g] = hi[g]
                    hi[g] = c
    return ok, low, high


def solve_depth2_binary(const int32_t[:, ::1] codes, const int32_t[::1] y, const wt[::1] w,
                        rows_in, const int64_t[::1] low, const int64_t[::1] high,
                        const uchar[::1] categorical, Py_ssize_t n_classes, int64_t depth,
                        int64_t min_leaf, wt[::1] out_error, int64_t[:, :, ::1] out_tests):
    """``solve_depth2`` on a node that ``binary_features`` accepted (same outputs).
    Returns the number of root tests."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef BinScratch bs
    cdef int64_t p
    if bin_scratch_init(&bs, low.shape[0], codes.shape[1], n_classes, rows.shape[0]) < 0:
        raise MemoryError()
    with nogil:
        p = solve_binary_c(&codes[0, 0], codes.shape[1], &y[0], &w[0], &rows[0],
                           rows.shape[0], &low[0], &high[0], &categorical[0], low.shape[0],
                           n_classes, depth, min_leaf, &out_error[0], &out_tests[0, 0, 0],
                           &bs)
    bin_scratch_free(&bs)
    return p


# -- the depth-3 level on binary data -------------------------------------------------------
cdef extern from *:
    """
    #define QUERCUS_FNV_BASIS 14695981039346656037ULL
    #define QUERCUS_FNV_PRIME 1099511628211ULL
    """
    const uint64_t FNV_BASIS "QUERCUS_FNV_BASIS"
    const uint64_t FNV_PRIME "QUERCUS_FNV_PRIME"


ctypedef struct Memo:
    # ``Search.memo``: the depth-2 children's optima and lower bounds by row set
    uint64_t* slot_hash
    int64_t* entry_of
    uint64_t mask  # slots - 1
    int64_t* start
    int64_t* length
    void* values
    uchar* exacts
    int64_t* pool
    int64_t* used  # entries, pool used, sets solved
    int64_t* kept  # (SIMILAR_KEPT, kept_columns)
    Py_ssize_t kept_columns
    int64_t* kept_n
    void* kept_cost


cdef inline uint64_t hash_rows(const int64_t* rows, Py_ssize_t n) noexcept nogil:
    """FNV-1a hash of a row set."""
    cdef uint64_t h = FNV_BASIS
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ <uint64_t> rows[i]) * FNV_PRIME
    return h


cdef int64_t memo_slot(const Memo* memo, const int64_t* rows, Py_ssize_t n,
                       uint64_t h) noexcept nogil:
    """The slot of ``rows`` in the memo's table: its entry or the empty slot where it goes
    (linear probing, entries checked row by row)."""
    cdef int64_t i = <int64_t> (h & memo.mask), e, s
    cdef Py_ssize_t j
    cdef bint same
    while memo.entry_of[i] >= 0:
        e = memo.entry_of[i]
        if memo.slot_hash[i] == h and memo.length[e] == n:
            s = memo.start[e]
            same = True
            for j in range(n):
                if memo.pool[s + j] != rows[j]:
                    same = False
                    break
            if same:
                return i
        i = <int64_t> ((<uint64_t> i + 1) & memo.mask)
    return i


cdef void memo_store(Memo* memo, const int64_t* rows, Py_ssize_t n, uint64_t h, int64_t i,
                     wt value, bint exact) noexcept nogil:
    """Record ``value`` (the optimum when ``exact``, else a lower bound) for ``rows`` at
    slot ``i``."""
    cdef int64_t e = memo.entry_of[i]
    if e < 0:
        e = memo.used[0]
        memo.used[0] += 1
        memo.entry_of[i] = e
        memo.slot_hash[i] = h
        memo.start[e] = memo.used[1]
        memo.length[e] = n
        memcpy(memo.pool + memo.used[1], rows, n * sizeof(int64_t))
        memo.used[1] += n
    (<wt*> memo.values)[e] = value
    memo.exacts[e] = exact


def rehash(const uint64_t[::1] slot_hash, const int64_t[::1] entry_of,
           const int64_t[::1] start, const int64_t[::1] length, const int64_t[::1] pool,
           int64_t n_entries, int64_t size):
    """The table of ``size`` slots (a power of two) for the first ``n_entries`` entries."""
    new_hash = np.zeros(size, dtype=np.uint64)
    new_entry = np.full(size, -1, dtype=np.int64)
    cdef uint64_t[::1] nh = new_hash
    cdef int64_t[::1] ne = new_entry
    cdef uint64_t mask = <uint64_t> (size - 1), h
    cdef int64_t e, i
    with nogil:
        for e in range(n_entries):
            h = hash_rows(&pool[0] + start[e], length[e])
            i = <int64_t> (h & mask)
            while ne[i] >= 0:
                i = <int64_t> ((<uint64_t> i + 1) & mask)
            ne[i] = e
            nh[i] = h
    return new_hash, new_entry


cdef inline wt penalised(const wt* error, const int64_t* tests, wt alpha, int64_t budget,
                         int64_t* best_b) noexcept nogil:
    """The best of the depth-2 solver's trees within ``budget`` splits when each split
    costs ``alpha``: its cost (its budget to ``best_b``, the smaller on a tie)."""
    cdef wt best = error[0], cost
    cdef int64_t b, j, splits
    best_b[0] = 0
    for b in range(1, imin(budget, 3) + 1):
        splits = 0
        if tests[3 * b * TW] != C_NO_FEATURE:
            for j in range(3):
                splits += tests[(3 * b + j) * TW] != C_NO_FEATURE
        cost = error[b] + alpha * splits
        if cost < best:
            best = cost
            best_b[0] = b
    return best


ctypedef struct Deep:
    # a depth-3 node's fixed arguments
    const int32_t* codes
    Py_ssize_t FC
    const int32_t* y
    const void* w
    const int64_t* low
    const int64_t* high
    const uchar* categorical
    Py_ssize_t n_features
    Py_ssize_t K
    int64_t min_leaf
    bint similar
    int64_t* stats


cdef inline wt solve_child(const Deep* dp, const int64_t* rows, Py_ssize_t n, wt alpha,
                           wt* error, int64_t* tests, BinScratch* bs,
                           int64_t* b) noexcept nogil:
    """The optimum of a depth-2 child with a full budget; its tree in ``tests[b]``."""
    solve_binary_c(dp.codes, dp.FC, dp.y, <const wt*> dp.w, rows, n, dp.low, dp.high,
                   dp.categorical, dp.n_features, dp.K, 2, dp.min_leaf, error, tests, bs)
    return penalised(error, tests, alpha, 3, b)


cdef wt child(const Deep* dp, const int64_t* rows, Py_ssize_t n, uint64_t h, int64_t i,
              wt alpha, wt bound, Memo* memo, wt* error, int64_t* tests, int64_t* out,
              BinScratch* bs, bint* solved, bint* known) noexcept nogil:
    """``Search.solve`` for a depth-2 child with a full budget (at slot ``i`` of the memo):
    its cost, whether solved below ``bound`` (its tree in ``out`` unless ``known``, when it
    came from the memo), else a lower bound >= ``bound``."""
    cdef int64_t e = memo.entry_of[i], j, b
    cdef wt* values = <wt*> memo.values
    cdef wt* kept_cost = <wt*> memo.kept_cost
    cdef const wt* w = <const wt*> dp.w
    cdef wt lower, cost
    dp.stats[0] += 1
    if e >= 0:
        dp.stats[3] += 1
        if memo.exacts[e]:
            solved[0] = values[e] < bound
            known[0] = True
            return values[e]
        if values[e] >= bound:
            solved[0] = False
            known[0] = True
            return values[e]
    if dp.similar:
        lower = bound - bound
        for j in range(C_SIMILAR_KEPT):
            if memo.kept_n[j] >= 0:
                lower = wmax(lower, kept_cost[j] - _weight_outside_c(
                    memo.kept + j * memo.kept_columns, memo.kept_n[j], rows, n, w))
        if lower >= bound:
            dp.stats[2] += 1
            memo_store(memo, rows, n, h, i, lower, False)
            solved[0] = False
            known[0] = True
            return lower
    cost = solve_child(dp, rows, n, alpha, error, tests, bs, &b)
    dp.stats[1] += 1
    memo_store(memo, rows, n, h, i, cost, True)
    if dp.similar:  # the newest solved set takes the older one's slot
        j = memo.used[2] % C_SIMILAR_KEPT
        memo.used[2] += 1
        memcpy(memo.kept + j * memo.kept_columns, rows, n * sizeof(int64_t))
        memo.kept_n[j] = n
        kept_cost[j] = cost
    memcpy(out, tests + 3 * b * TW, 3 * TW * sizeof(int64_t))
    solved[0] = cost < bound
    known[0] = False
    return cost


def solve_depth3_binary(const int32_t[:, ::1] codes, const int32_t[::1] y, const wt[::1] w,
                        rows_in, const int64_t[:, ::1] tests, const int64_t[:] order,
                        int64_t first, int64_t last, const int64_t[::1] low,
                        const int64_t[::1] high, const uchar[::1] categorical,
                        Py_ssize_t n_classes, int64_t min_leaf, wt alpha, bint similar,
                        wt best, tuple memo, int64_t[:, :, ::1] out, int64_t[::1] stats):
    """Try the splits ``tests[order[first:last]]`` of a depth-3 node against ``best`` (the
    cost to beat), with the memo of depth-2 children (docs/optimal.md). Returns
    ``(best, best_t, stop)``."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef uint64_t[::1] m_hash = memo[0]
    cdef int64_t[::1] m_entry = memo[1]
    cdef int64_t[::1] m_start = memo[2]
    cdef int64_t[::1] m_length = memo[3]
    cdef wt[::1] m_values = memo[4]
    cdef uchar[::1] m_exacts = memo[5].view(np.uint8)
    cdef int64_t[::1] m_pool = memo[6]
    cdef int64_t[::1] m_used = memo[7]
    cdef int64_t[:, ::1] m_kept = memo[8]
    cdef int64_t[::1] m_kept_n = memo[9]
    cdef wt[::1] m_kept_cost = memo[10]
    cdef Memo mm
    mm.slot_hash = &m_hash[0]
    mm.entry_of = &m_entry[0]
    mm.mask = <uint64_t> (m_hash.shape[0] - 1)
    mm.start = &m_start[0]
    mm.length = &m_length[0]
    mm.values = &m_values[0]
    mm.exacts = &m_exacts[0]
    mm.pool = &m_pool[0]
    mm.used = &m_used[0]
    mm.kept = &m_kept[0, 0]
    mm.kept_columns = m_kept.shape[1]
    mm.kept_n = &m_kept_n[0]
    mm.kept_cost = &m_kept_cost[0]
    cdef Deep dp
    dp.codes = &codes[0, 0]
    dp.FC = codes.shape[1]
    dp.y = &y[0]
    dp.w = &w[0]
    dp.low = &low[0]
    dp.high = &high[0]
    dp.categorical = &categorical[0]
    dp.n_features = low.shape[0]
    dp.K = n_classes
    dp.min_leaf = min_leaf
    dp.similar = similar
    dp.stats = &stats[0]
    cdef Py_ssize_t n = rows.shape[0]
    cdef BinScratch bs
    cdef int64_t* sides = <int64_t*> _alloc(2 * n * sizeof(int64_t))
    if sides == NULL:
        raise MemoryError()
    if bin_scratch_init(&bs, low.shape[0], codes.shape[1], n_classes, n) < 0:
        free(sides)
        raise MemoryError()
    cdef wt error[4]
    cdef int64_t work[12 * TW]
    cdef int64_t trees[6 * TW]
    cdef wt lower[2]
    cdef int64_t size[2]
    cdef uint64_t h[2]
    cdef int64_t slot[2]
    cdef int64_t* side_rows[2]
    cdef int64_t best_t = -1, stop = last, i, t, e, a, b, s, k
    cdef wt cost_a, cost_b
    cdef bint ok, known_a, known_b, known
    memset(work, 0, sizeof(work))
    memset(trees, 0, sizeof(trees))
    error[0] = error[1] = error[2] = error[3] = 0
    side_rows[0] = sides
    side_rows[1] = sides + n
    with nogil:
        for i in range(first, last):
            if best <= alpha:  # no split can beat a perfect tree
                stop = i
                break
            t = order[i]
            size[0] = _split_c(dp.codes, dp.FC, &rows[0], n, &tests[t, 0], side_rows[0],
                               side_rows[1])
            size[1] = n - size[0]
            for s in range(2):
                h[s] = hash_rows(side_rows[s], size[s])
            for s in range(2):
                slot[s] = memo_slot(&mm, side_rows[s], size[s], h[s])
            for s in range(2):
                e = mm.entry_of[slot[s]]
                lower[s] = (<wt*> mm.values)[e] if e >= 0 else 0
            if lower[0] + lower[1] + alpha >= best:
                continue
            a = 1 if size[1] > size[0] else 0  # the larger child first
            cost_a = child(&dp, side_rows[a], size[a], h[a], slot[a], alpha,
                           best - alpha - lower[1 - a], &mm, error, work, trees + 3 * a * TW,
                           &bs, &ok, &known_a)
            if not ok:
                continue
            b = 1 - a  # its slot again: the first child may have taken it
            cost_b = child(&dp, side_rows[b], size[b], h[b],
                           memo_slot(&mm, side_rows[b], size[b], h[b]), alpha,
                           best - alpha - cost_a, &mm, error, work, trees + 3 * b * TW, &bs,
                           &ok, &known_b)
            if not ok:
                continue
            best = cost_a + cost_b + alpha
            best_t = t
            for s in range(2):
                known = known_a if s == a else known_b
                if known:  # from the memo: solve again for its tree
                    solve_child(&dp, side_rows[s], size[s], alpha, error, work, &bs, &k)
                    memcpy(trees + 3 * s * TW, work + 3 * k * TW, 3 * TW * sizeof(int64_t))
            memcpy(&out[0, 0, 0], trees, 6 * TW * sizeof(int64_t))
    bin_scratch_free(&bs)
    free(sides)
    return best, best_t, stop


# -- parts of the depth-2 solver, for tests (the old private kernels' arguments) -----------
# Thin wrappers of the cdef functions above: each checks its arrays' sizes (a ValueError,
# not a crash, on wrong input), builds the Node / Scratch its function reads the way
# depth2_node and depth2_tests do, calls it and leaves the results in the caller's arrays.
# No solver path goes through them.
cdef int _check_offsets(const int64_t[::1] offsets, Py_ssize_t n_slots,
                        str name) except -1:
    """Feature g's slots ``offsets[g]`` to ``offsets[g + 1] - 1`` (at least its missing
    slot), all inside the table's ``n_slots``."""
    cdef Py_ssize_t g, F = offsets.shape[0] - 1
    if F < 0 or offsets[0] < 0 or offsets[F] > n_slots:
        raise ValueError(f"{name}: offsets do not fit the table's {n_slots} slots")
    for g in range(F):
        if offsets[g + 1] <= offsets[g]:
            raise ValueError(f"{name}: offsets not increasing")
    return 0


cdef int _check_table(Py_ssize_t n_slots, Py_ssize_t width, const int64_t[::1] offsets,
                      Py_ssize_t K, str name) except -1:
    if K < 1 or width != K + 1:
        raise ValueError(f"{name}: a class table has n_classes + 1 columns")
    return _check_offsets(offsets, n_slots, name)


cdef int _check_rows(const int64_t[::1] rows, Py_ssize_t n, const int32_t[::1] y,
                     Py_ssize_t n_weights, Py_ssize_t K, str name) except -1:
    """``rows[:n]`` inside ``y`` and the weights, their classes below K (K 0: unchecked)."""
    cdef Py_ssize_t i
    cdef int64_t r
    if n < 0 or rows.shape[0] < n:
        raise ValueError(f"{name}: fewer rows than {n}")
    for i in range(n):
        r = rows[i]
        if r < 0 or r >= y.shape[0] or r >= n_weights or (K > 0 and not 0 <= y[r] < K):
            raise ValueError(f"{name}: row {r} or its class out of range")
    return 0


cdef int _check_local(const int64_t[:, ::1] local, Py_ssize_t n, Py_ssize_t F,
                      const int64_t[::1] offsets, Py_ssize_t n_slots, str name) except -1:
    """Rows ``0..n-1`` of ``local`` (n, F): each slot inside its feature's slots
    (``offsets``; None: inside the table's ``n_slots``)."""
    cdef Py_ssize_t i, g
    cdef int64_t s
    if local.shape[0] < n or local.shape[1] != F:
        raise ValueError(f"{name}: local is not ({n}, {F})")
    for i in range(n):
        for g in range(F):
            s = local[i, g]
            if (offsets is None and not 0 <= s < n_slots) or (
                    offsets is not None and not offsets[g] <= s < offsets[g + 1]):
                raise ValueError(f"{name}: slot {s} of feature {g} out of range")
    return 0


cdef int _check_orders(tuple orders, Py_ssize_t F, Py_ssize_t n, Py_ssize_t K,
                       str name) except -1:
    """The four (F, n) arrays of ``_feature_orders``; with K > 0 also their values (row
    positions below n, classes below K), which the sweeps index by."""
    if len(orders) != 4:
        raise ValueError(f"{name}: orders is (by_feature, codes, classes, weights)")
    for part in orders:
        if np.shape(part) != (F, n):
            raise ValueError(f"{name}: orders are not ({F}, {n})")
    if K > 0 and F > 0 and n > 0:
        if np.min(orders[0]) < 0 or np.max(orders[0]) >= n:
            raise ValueError(f"{name}: a row position out of range")
        if np.min(orders[2]) < 0 or np.max(orders[2]) >= K:
            raise ValueError(f"{name}: a class out of range")
    return 0


cdef int _check_work(tuple work, Py_ssize_t W, str name) except -1:
    """``work``'s lvec, rvec (>= W) and test_l, test_r (1, TEST_WIDTH)."""
    if len(work) < 4 or np.shape(work[0])[0] < W or np.shape(work[1])[0] < W \
            or np.shape(work[2]) != (1, TW) or np.shape(work[3]) != (1, TW):
        raise ValueError(f"{name}: work is (lvec, rvec, test_l, test_r, ...)")
    return 0


def _feature_steps(const wt[::1] a, const wt[::1] b, wt[:, ::1] out, wt big):
    """``feature_steps``: ``out`` (3, F + 1), the steps b - a in increasing order, the
    prefix minima of a and the suffix minima of b in that order (``big`` where there is
    none)."""
    cdef Py_ssize_t F = a.shape[0]
    if b.shape[0] != F or out.shape[0] != 3 or out.shape[1] != F + 1:
        raise ValueError("_feature_steps: a, b of F values, out of shape (3, F + 1)")
    with nogil:
        feature_steps(&a[0] if F else NULL, &b[0] if F else NULL, &out[0, 0], F, big)


def _max_tests(const wt[:, ::1] tab, const int64_t[::1] offsets,
               const uchar[::1] categorical, Py_ssize_t n_classes, bint learn,
               int64_t max_subset):
    """``max_tests_c``: the candidate tests ``scan_tests`` looks at (valid or not), the room
    ``depth2_node`` makes for them."""
    cdef Py_ssize_t F = offsets.shape[0] - 1, room
    _check_table(tab.shape[0], tab.shape[1], offsets, n_classes, "_max_tests")
    if categorical.shape[0] < F or max_subset > C_MAX_SUBSET:
        raise ValueError("_max_tests: a flag per feature, max_subset <= MAX_SUBSET")
    with nogil:
        room = max_tests_c(&tab[0, 0] if tab.shape[0] else NULL, &offsets[0], F,
                           &categorical[0] if F else NULL, n_classes, learn, max_subset)
    return room


def _stable_order(const wt[::1] a, const wt[::1] b, int64_t[::1] out):
    """``stable_order``: the positions of ``a + b`` from the lowest up, ties in position
    order, to ``out``."""
    cdef Py_ssize_t n = out.shape[0]
    if a.shape[0] != n or b.shape[0] != n:
        raise ValueError("_stable_order: a, b and out of one length")
    with nogil:
        stable_order(&a[0] if n else NULL, &b[0] if n else NULL, &out[0] if n else NULL, n)


def _feature_orders(const int64_t[:, ::1] local, const int64_t[::1] offsets,
                    const int64_t[::1] glob, const int32_t[::1] y, const wt[::1] w, rows_in,
                    tuple orders):
    """``feature_orders``: for each feature g the positions of the node's rows by its code
    (``orders[0][g]``), and in that order their codes, classes and weights (``orders[1:]``,
    each (F, n))."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef Py_ssize_t n = rows.shape[0], F = offsets.shape[0] - 1, n_slots
    _check_offsets(offsets, glob.shape[0], "_feature_orders")
    n_slots = offsets[F]
    _check_local(local, n, F, offsets, n_slots, "_feature_orders")
    _check_rows(rows, n, y, w.shape[0], 0, "_feature_orders")
    _check_orders(orders, F, n, 0, "_feature_orders")
    if n == 0 or F == 0:
        return
    cdef int64_t[:, ::1] by_feature = orders[0]
    cdef int64_t[:, ::1] codes_sorted = orders[1]
    cdef int64_t[:, ::1] classes_sorted = orders[2]
    cdef wt[:, ::1] weights_sorted = orders[3]
    cdef Node nd
    memset(&nd, 0, sizeof(Node))
    nd.y = &y[0]
    nd.w = &w[0]
    nd.rows = &rows[0]
    nd.n = n
    nd.F = F
    nd.n_slots = n_slots
    nd.offsets = &offsets[0]
    nd.glob = &glob[0]
    nd.local = &local[0, 0]
    cdef int64_t* start = <int64_t*> _zalloc((n_slots + 1) * sizeof(int64_t))
    cdef int64_t* fill = <int64_t*> _zalloc((n_slots + 1) * sizeof(int64_t))
    if start == NULL or fill == NULL:
        free(start)
        free(fill)
        raise MemoryError()
    with nogil:
        feature_orders(&nd, start, fill, &by_feature[0, 0], &codes_sorted[0, 0],
                       &classes_sorted[0, 0], &weights_sorted[0, 0])
    free(start)
    free(fill)


cdef int _sweep_node(Node* nd, Py_ssize_t F, Py_ssize_t n, Py_ssize_t K, int64_t min_leaf,
                     const int64_t* by_feature, const int64_t* codes_sorted,
                     const int64_t* classes_sorted, const void* weights_sorted) except -1:
    """The fields of a node of sweeps that the sweeps read (``_node_sweeps``'s)."""
    memset(nd, 0, sizeof(Node))
    nd.n = n
    nd.F = F
    nd.K = K
    nd.W = K + 1
    nd.min_leaf = min_leaf
    nd.by_feature = by_feature
    nd.codes_sorted = codes_sorted
    nd.classes_sorted = classes_sorted
    nd.weights_sorted = weights_sorted
    nd.sweep = True
    return 0


def _sweep_feature(Py_ssize_t g, const uchar[::1] goes, tuple orders, const wt[:, ::1] tot,
                   Py_ssize_t n_classes, int64_t min_leaf, wt[::1] e_out, int64_t[::1] c_out,
                   const wt[::1] limit, const uchar[::1] ties, int64_t[:, ::1] packed):
    """``sweep_feature``: both children's best cut of feature g by one sweep of its sorted
    rows (``orders`` from ``_feature_orders``; ``goes[i]``: position i goes left; ``tot``
    (2, K + 1) the children's totals), capped at ``limit``; ``e_out[s]``, ``c_out[s]`` for
    child s. ``packed`` (2, n): the sweep's scratch."""
    cdef Py_ssize_t K = n_classes, F, n
    if len(orders) != 4:
        raise ValueError("_sweep_feature: orders is (by_feature, codes, classes, weights)")
    F, n = np.shape(orders[0])
    _check_orders(orders, F, n, K if K > 0 else 1, "_sweep_feature")
    if K < 1 or not 0 <= g < F or goes.shape[0] < n or tot.shape[0] != 2 \
            or tot.shape[1] != K + 1 or e_out.shape[0] < 2 or c_out.shape[0] < 2 \
            or limit.shape[0] < 2 or ties.shape[0] < 2 or packed.shape[0] != 2 \
            or packed.shape[1] != n:
        raise ValueError("_sweep_feature: inconsistent shapes")
    cdef const int64_t[:, ::1] o0 = orders[0]
    cdef const int64_t[:, ::1] o1 = orders[1]
    cdef const int64_t[:, ::1] o2 = orders[2]
    cdef const wt[:, ::1] o3 = orders[3]
    cdef Node nd
    cdef Scratch sc
    _sweep_node(&nd, F, n, K, min_leaf, &o0[0, 0] if n else NULL, &o1[0, 0] if n else NULL,
                &o2[0, 0] if n else NULL, &o3[0, 0] if n else NULL)
    if scratch_init(&sc, &nd) < 0:
        raise MemoryError()
    if n:
        sc.packed = &packed[0, 0]
    with nogil:
        sweep_feature(&nd, g, &goes[0] if n else NULL, &tot[0, 0], &e_out[0], &c_out[0],
                      &limit[0], &ties[0], &sc)
    scratch_free(&sc)


def _sweep_child_bests(const uchar[::1] goes, tuple orders, const int32_t[::1] y,
                       const wt[::1] w, rows_in, Py_ssize_t n_classes, int64_t min_leaf,
                       tuple work, const wt[:, ::1] lb, const int64_t[::1] first,
                       wt[:, ::1] feat_best):
    """``sweep_child_bests``: ``(leaf_l, best_l, leaf_r, best_r)`` of the root test that
    sends position i left when ``goes[i]``, by sweeps; ``work``'s lvec, rvec get the
    children's totals, test_l, test_r their best tests; ``lb``, ``feat_best`` (2, F) the
    per-feature bounds given and found; ``first`` the features swept first (-1: none)."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef Py_ssize_t n = rows.shape[0], F = lb.shape[1], K = n_classes, s
    if K < 1:
        raise ValueError("_sweep_child_bests: n_classes >= 1")
    _check_orders(orders, F, n, K, "_sweep_child_bests")
    _check_rows(rows, n, y, w.shape[0], K, "_sweep_child_bests")
    _check_work(work, K + 1, "_sweep_child_bests")
    if goes.shape[0] < n or lb.shape[0] != 2 or feat_best.shape[0] != 2 \
            or feat_best.shape[1] != F or first.shape[0] < 2:
        raise ValueError("_sweep_child_bests: inconsistent shapes")
    for s in range(2):
        if not -1 <= first[s] < F:
            raise ValueError("_sweep_child_bests: first is a feature or -1")
    cdef const int64_t[:, ::1] o0 = orders[0]
    cdef const int64_t[:, ::1] o1 = orders[1]
    cdef const int64_t[:, ::1] o2 = orders[2]
    cdef const wt[:, ::1] o3 = orders[3]
    cdef wt[::1] lvec = work[0]
    cdef wt[::1] rvec = work[1]
    cdef int64_t[:, ::1] test_l = work[2]
    cdef int64_t[:, ::1] test_r = work[3]
    cdef bint some = n > 0 and F > 0
    cdef Node nd
    cdef Scratch sc
    cdef wt four[4]
    _sweep_node(&nd, F, n, K, min_leaf, &o0[0, 0] if some else NULL,
                &o1[0, 0] if some else NULL, &o2[0, 0] if some else NULL,
                &o3[0, 0] if some else NULL)
    nd.y = &y[0] if y.shape[0] else NULL
    nd.w = &w[0] if w.shape[0] else NULL
    nd.rows = &rows[0] if n else NULL
    if scratch_init(&sc, &nd) < 0:
        raise MemoryError()
    sc.lvec = &lvec[0]
    sc.rvec = &rvec[0]
    sc.test_l = &test_l[0, 0]
    sc.test_r = &test_r[0, 0]
    with nogil:
        sweep_child_bests(&nd, &goes[0] if n else NULL, &sc, &lb[0, 0] if F else NULL,
                          &first[0], &feat_best[0, 0] if F else NULL, four)
    scratch_free(&sc)
    return four[0], four[1], four[2], four[3]


def _side_tables(const wt[:, ::1] table, const int64_t[:, ::1] local,
                 const uchar[::1] rows_left, Py_ssize_t n_rows, Py_ssize_t n_classes,
                 const int32_t[::1] y, const wt[::1] w, rows_in, wt[:, ::1] left,
                 wt[:, ::1] right):
    """``side_tables``: the left and right class tables of a node split, ``rows_left[i]``
    flagging row ``rows[i]`` (i < n_rows) left."""
    cdef const int64_t[::1] rows = _rows_view(rows_in)
    cdef Py_ssize_t n_slots = table.shape[0], F = local.shape[1], K = n_classes
    if K < 1 or table.shape[1] != K + 1 or left.shape[0] != n_slots \
            or left.shape[1] != K + 1 or right.shape[0] != n_slots \
            or right.shape[1] != K + 1 or rows_left.shape[0] < n_rows:
        raise ValueError("_side_tables: inconsistent shapes")
    _check_rows(rows, n_rows, y, w.shape[0], K, "_side_tables")
    _check_local(local, n_rows, F, None, n_slots, "_side_tables")
    if n_slots == 0:
        return
    cdef Node nd
    memset(&nd, 0, sizeof(Node))
    nd.table = &table[0, 0]
    nd.n_slots = n_slots
    nd.K = K
    nd.W = K + 1
    nd.F = F
    nd.n = n_rows
    nd.y = &y[0] if y.shape[0] else NULL
    nd.w = &w[0] if w.shape[0] else NULL
    nd.rows = &rows[0] if rows.shape[0] else NULL
    nd.local = &local[0, 0] if local.shape[0] and F else NULL
    with nogil:
        side_tables(&nd, &rows_left[0] if n_rows else NULL, &left[0, 0], &right[0, 0])


def _child_bests(const wt[:, ::1] left, const wt[:, ::1] right, const wt[::1] total,
                 const int64_t[::1] offsets, const int64_t[::1] glob,
                 const uchar[::1] categorical, Py_ssize_t n_classes, bint learn,
                 int64_t max_subset, int64_t min_leaf, tuple work):
    """``child_bests``: ``(leaf_l, d1_l, leaf_r, d1_r)`` of the children of a root test from
    their class tables (``total`` the node's totals); ``work``'s lvec, rvec get the
    children's totals, test_l, test_r their best tests."""
    cdef Py_ssize_t n_slots = left.shape[0], F = offsets.shape[0] - 1, K = n_classes
    _check_table(n_slots, left.shape[1], offsets, K, "_child_bests")
    _check_work(work, K + 1, "_child_bests")
    if F < 1 or right.shape[0] != n_slots or right.shape[1] != K + 1 \
            or total.shape[0] < K + 1 or glob.shape[0] < offsets[F] \
            or categorical.shape[0] < F or max_subset > C_MAX_SUBSET:
        raise ValueError("_child_bests: inconsistent shapes (or max_subset > MAX_SUBSET)")
    cdef wt[::1] lvec = work[0]
    cdef wt[::1] rvec = work[1]
    cdef int64_t[:, ::1] test_l = work[2]
    cdef int64_t[:, ::1] test_r = work[3]
    cdef Node nd
    cdef Scratch sc
    cdef wt four[4]
    memset(&nd, 0, sizeof(Node))
    nd.K = K
    nd.W = K + 1
    nd.F = F
    nd.categorical = &categorical[0]
    nd.learn = learn
    nd.max_subset = max_subset
    nd.min_leaf = min_leaf
    nd.n_slots = n_slots
    nd.offsets = &offsets[0]
    nd.glob = &glob[0]
    nd.total = &total[0]
    if scratch_init(&sc, &nd) < 0:
        raise MemoryError()
    sc.lvec = &lvec[0]
    sc.rvec = &rvec[0]
    sc.test_l = &test_l[0, 0]
    sc.test_r = &test_r[0, 0]
    with nogil:
        child_bests(&nd, &left[0, 0], &right[0, 0], &sc, four)
    scratch_free(&sc)
    return four[0], four[1], four[2], four[3]
