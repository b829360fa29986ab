"""The number of threads the compiled kernels' OpenMP loops use.

OpenMP's own count: ``OMP_NUM_THREADS`` when set, else the machine's cores, lowered by
``threadpoolctl.threadpool_limits`` while a limit is in force (it sets OpenMP's count in
the runtime this package's kernels are linked with), and by ``limited(n)`` here for a
block of the library's own. 1 in a build without OpenMP.
"""

from contextlib import contextmanager

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int quercus_max_threads(void) { return omp_get_max_threads(); }
    static void quercus_set_threads(int n) { omp_set_num_threads(n); }
    #else
    static int quercus_max_threads(void) { return 1; }
    static void quercus_set_threads(int n) { (void) n; }
    #endif
    """
    int quercus_max_threads() nogil
    void quercus_set_threads(int n) nogil


def max_threads() -> int:
    """Threads an OpenMP loop of the kernels starts now (at least 1)."""
    return max(1, quercus_max_threads())


@contextmanager
def limited(int n):
    """Run the block's kernels on at most ``n`` threads (in the calling thread)."""
    cdef int before = quercus_max_threads()
    quercus_set_threads(max(1, min(n, before)))
    try:
        yield
    finally:
        quercus_set_threads(before)
