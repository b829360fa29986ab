# cython: language_level=3
"""Inline helpers shared by the compiled kernel modules: impurities, the split proxy, the
midpoint of a cut, and the stable radix argsort of float64 values.

Every function here is ``nogil`` and works on C pointers to contiguous data, so that a
kernel calls it from its hot loop without touching Python objects. ``cimport`` it:
``from quercus._kernels._common cimport impurity_of, split_proxy``.
"""

from libc.math cimport isinf, isnan, log2
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

# criteria
cdef enum:
    GINI = 0
    ENTROPY = 1

# node kinds of the flat tree
cdef enum:
    LEAF = 0
    NUMERIC = 1
    CATEGORICAL = 2
    INTERVAL = 3
    WEIGHTED = -1  # missing_branch of a node that sends missing values down every branch

cdef extern from *:
    """
    #define QUERCUS_FEATURE_THRESHOLD 1e-7
    #define QUERCUS_SIGN_BIT 0x8000000000000000ULL
    #define QUERCUS_NAN_KEY 0xFFFFFFFFFFFFFFFFULL
    """
    # consecutive sorted values closer than this are not cut between (scikit-learn's)
    const double FEATURE_THRESHOLD "QUERCUS_FEATURE_THRESHOLD"
    # radix keys: the sign bit, and NaN's key (the largest)
    const uint64_t SIGN_BIT "QUERCUS_SIGN_BIT"
    const uint64_t NAN_KEY "QUERCUS_NAN_KEY"


cdef inline double impurity_of(const double* w, Py_ssize_t n, int criterion) noexcept nogil:
    """Gini impurity or Shannon entropy (base 2) of one vector of class weights."""
    cdef double total = 0.0, squares = 0.0, entropy = 0.0, p
    cdef Py_ssize_t k
    for k in range(n):
        total += w[k]
    if total <= 0.0:
        return 0.0
    if criterion == GINI:
        for k in range(n):
            squares += w[k] * w[k]
        if total * total == 0.0:  # subnormal weights: the square underflows
            squares = 0.0
            for k in range(n):
                p = w[k] / total
                squares += p * p
            return 1.0 - squares
        return 1.0 - squares / (total * total)
    for k in range(n):
        if w[k] > 0.0:
            p = w[k] / total
            entropy -= p * log2(p)
    return entropy


cdef inline double split_proxy(const double* left, const double* right, Py_ssize_t n,
                               double weight_left, double weight_right,
                               int criterion) noexcept nogil:
    """A score ordering one node's candidate splits as their impurity decrease does:
    ``sum(left**2)/W_left + sum(right**2)/W_right`` for Gini,
    ``-(W_left * H_left + W_right * H_right)`` for entropy. Larger is better."""
    cdef double squares_left = 0.0, squares_right = 0.0
    cdef Py_ssize_t k
    if criterion == GINI:
        for k in range(n):
            squares_left += left[k] * left[k]
            squares_right += right[k] * right[k]
        return squares_left / weight_left + squares_right / weight_right
    return (-weight_right * impurity_of(right, n, criterion)
            - weight_left * impurity_of(left, n, criterion))


cdef inline bint monotone_ok(const double* left, const double* right, double weight_left,
                             double weight_right, double cst, double lower,
                             double upper) noexcept nogil:
    """Whether a split keeps a monotonic constraint ``cst`` (1 increasing, -1 decreasing)
    on the share of class 1, both children's shares in [lower, upper]."""
    cdef double share_left = left[1] / weight_left
    cdef double share_right = right[1] / weight_right
    if (share_left < lower or share_right < lower or share_left > upper
            or share_right > upper):
        return False
    return (share_left - share_right) * cst <= 0.0


cdef inline double midpoint(double low, double high) noexcept nogil:
    """The threshold between two sorted values (``low`` when the mean rounds up to
    ``high`` or overflows)."""
    cdef double mid = low / 2.0 + high / 2.0
    if mid >= high or isinf(mid):
        mid = low
    return mid


cdef inline double squared_error(double w_sum, double s_sum, double q_sum) noexcept nogil:
    """Weighted variance of a node from its sums (0 for an empty node)."""
    cdef double mean
    if w_sum <= 0.0:
        return 0.0
    mean = s_sum / w_sum
    return q_sum / w_sum - mean * mean


# -- stable argsort by LSD radix -----------------------------------------------------------
cdef enum:
    RADIX_BITS = 11
    RADIX_DIGITS = 6  # 6 x 11 bits cover 64
    RADIX_BUCKETS = 2048



cdef inline void sort_keys(const double* values, Py_ssize_t n, uint64_t* keys) noexcept nogil:
    """Unsigned keys in the order of the values: NaN largest, -0.0 as 0.0."""
    cdef Py_ssize_t i
    cdef double v
    cdef uint64_t bits
    for i in range(n):
        v = values[i]
        if isnan(v):
            keys[i] = NAN_KEY
        elif v == 0.0:
            keys[i] = SIGN_BIT
        else:
            memcpy(&bits, &v, 8)
            keys[i] = bits ^ SIGN_BIT if bits < SIGN_BIT else ~bits


cdef inline int lsd_sort(uint64_t* keys, int64_t* order, Py_ssize_t n,
                         bint carry) noexcept nogil:
    """Sort ``keys[:n]`` in place by LSD radix (a digit every key shares is skipped), and
    ``order[:n]`` alongside when ``carry``. Returns -1 when out of memory, else 0."""
    cdef int64_t* counts = <int64_t*> malloc(RADIX_DIGITS * RADIX_BUCKETS * sizeof(int64_t))
    cdef uint64_t* next_keys = <uint64_t*> malloc((n if n > 0 else 1) * sizeof(uint64_t))
    cdef int64_t* next_order = <int64_t*> malloc((n if carry and n > 0 else 1)
                                                 * sizeof(int64_t))
    cdef int64_t offsets[RADIX_BUCKETS]
    cdef uint64_t mask = RADIX_BUCKETS - 1, k
    cdef uint64_t* swap_keys
    cdef int64_t* swap_order
    cdef uint64_t* start_keys = keys
    cdef int64_t* start_order = order
    cdef Py_ssize_t i, b, d, position, start
    cdef unsigned int shift
    if counts == NULL or next_keys == NULL or next_order == NULL:
        free(counts)
        free(next_keys)
        free(next_order)
        return -1
    memset(counts, 0, RADIX_DIGITS * RADIX_BUCKETS * sizeof(int64_t))
    for i in range(n):
        k = keys[i]
        for d in range(RADIX_DIGITS):
            counts[d * RADIX_BUCKETS + <Py_ssize_t> ((k >> (RADIX_BITS * d)) & mask)] += 1
    for d in range(RADIX_DIGITS):
        shift = RADIX_BITS * d
        if n == 0 or counts[d * RADIX_BUCKETS + <Py_ssize_t> ((keys[0] >> shift) & mask)] == n:
            continue  # every key has the same digit here
        start = 0
        for b in range(RADIX_BUCKETS):
            offsets[b] = start
            start += counts[d * RADIX_BUCKETS + b]
        for i in range(n):
            b = <Py_ssize_t> ((keys[i] >> shift) & mask)
            position = offsets[b]
            offsets[b] = position + 1
            next_keys[position] = keys[i]
            if carry:
                next_order[position] = order[i]
        swap_keys = keys
        keys = next_keys
        next_keys = swap_keys
        if carry:
            swap_order = order
            order = next_order
            next_order = swap_order
    if keys != start_keys:  # the sorted data ended in the scratch buffers
        memcpy(start_keys, keys, n * sizeof(uint64_t))
        next_keys = keys
    if carry and order != start_order:
        memcpy(start_order, order, n * sizeof(int64_t))
        next_order = order
    free(counts)
    free(next_keys)
    free(next_order)
    return 0


cdef inline int stable_argsort(const double* values, Py_ssize_t n,
                               int64_t* out) noexcept nogil:
    """``out[:n]``: the positions of ``values`` in stable sorted order (NaN last, -0.0 equal
    to 0.0), as ``np.argsort(values, kind="stable")``. Returns -1 when out of memory."""
    cdef uint64_t* keys = <uint64_t*> malloc((n if n > 0 else 1) * sizeof(uint64_t))
    cdef Py_ssize_t i
    cdef int status
    if keys == NULL:
        return -1
    sort_keys(values, n, keys)
    for i in range(n):
        out[i] = i
    status = lsd_sort(keys, out, n, True)
    free(keys)
    return status
