"""Compiled kernels (Cython, built with the package): loops over rows, features and
categories, without the GIL, threaded with OpenMP where the work is large.

``_splits`` (impurities, class counts, CART's split search, partitions, binning, radix
sort), ``_regression`` (regression split search), ``_hist`` (histograms and whole-segment
growth, exact sums), ``_predict`` (traversals), ``_c45``, ``_rpart``, ``_optimal`` (each
learner's own loops) and ``_openmp`` (the thread count and its limit). Kernels take arrays
and scalars and write into buffers their caller allocates.
"""
