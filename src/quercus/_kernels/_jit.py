"""numba's ``njit``, with every kernel's disk cache stamped by the whole kernel package.

numba stamps a cached function with its own source file only, but a compiled kernel holds
the compiled code of the kernels it calls from other files. After one of those files
changes (an upgrade, a ``git pull`` into an editable install), its callers would load
their old machine code with the old callee inside. Here the stamp of each kernel is a hash
of all ``_kernels/*.py`` files, so any change recompiles every kernel once. The cache stays
where numba puts it (``NUMBA_CACHE_DIR``, else ``__pycache__``, else the user's cache).

Each cached kernel's disk cache is also saved under a lock with data files of random names
(``quercus._kernel_cache``), so that processes compiling at once cannot mix up their
machine code.

``pure_twin(twin)`` marks a kernel whose pure Python copy (``quercus._kernel_path``) is
``twin``: numpy code that returns the same result, where the kernel's own loops would be
slow as plain Python.
"""

from __future__ import annotations

import hashlib
import os

from numba import njit as _numba_njit

__all__ = ["njit", "pure_twin"]

HERE = os.path.dirname(os.path.abspath(__file__))
_stamp: list[str] = []
PURE = __package__ != "quercus._kernels"  # this is the pure copy of the kernels


def njit(*args, **kwargs):
    """numba's ``njit`` (used alike: ``@njit``, ``@njit(cache=True, ...)``), each kernel's
    disk cache guarded against processes compiling at once; the pure copy's stand-in
    returns the plain function, which ``_guard`` leaves alone."""
    made = _numba_njit(*args, **kwargs)
    if args and callable(args[0]):  # @njit without arguments: made is the kernel
        return _guard(made)
    return lambda function: _guard(made(function))


def _guard(kernel):
    if PURE:
        return kernel
    from quercus._kernel_cache import guard

    return guard(kernel)


def pure_twin(twin):
    """Decorator: the jitted kernel below it in the compiled kernels, ``twin`` in their pure
    copy (tests/test_pure_kernels.py checks that the two agree)."""

    def decorate(kernel):
        return twin if PURE else kernel

    return decorate


def package_stamp() -> str:
    """SHA-256 of the names and contents of the kernel package's source files."""
    if not _stamp:
        digest = hashlib.sha256()
        for name in sorted(os.listdir(HERE)):
            if name.endswith(".py"):
                with open(os.path.join(HERE, name), "rb") as file:
                    digest.update(name.encode() + b"\0" + file.read() + b"\0")
        _stamp.append(digest.hexdigest())
    return _stamp[0]


def _package_locator(base: type) -> type:
    """numba's locator ``base``, for this package's files only, with the package stamp."""

    class PackageLocator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != HERE:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return package_stamp()

    PackageLocator.__name__ = PackageLocator.__qualname__ = f"Package{base.__name__}"
    return PackageLocator


def _install() -> None:
    """Put the package locators first in numba's list (names differ across versions)."""
    from numba.core import caching

    locators = caching.CacheImpl._locator_classes
    if any(getattr(cls, "__module__", None) == __name__ for cls in locators):
        return
    bases = []
    for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"):
        base = getattr(caching, name, None) or getattr(caching, "_" + name)
        bases.append(_package_locator(base))
    locators[:0] = bases


if not PURE:  # the pure copy of the kernels has no cache
    _install()
