"""numba kernels: loops over rows, features and categories. No Python objects, no raising.

Kernels take arrays and scalars, write into buffers their caller allocates, and are cached
on disk (``cache=True``) so that only the first run after installation compiles them.
"""
