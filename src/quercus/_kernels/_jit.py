"""numba's ``njit``, with every kernel's disk cache stamped by the whole kernel package.

numba stamps a cached function with its own source file only, but a compiled kernel holds
the compiled code of the kernels it calls from other files. After one of those files
changes (an upgrade, a ``git pull`` into an editable install), its callers would load
their old machine code with the old callee inside. Here the stamp of each kernel is a hash
of all ``_kernels/*.py`` files, so any change recompiles every kernel once. The cache stays
where numba puts it (``NUMBA_CACHE_DIR``, else ``__pycache__``, else the user's cache).
"""

from __future__ import annotations

import hashlib
import os

from numba import njit

__all__ = ["njit"]

HERE = os.path.dirname(os.path.abspath(__file__))
_stamp: list[str] = []


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


if __package__ == "quercus._kernels":  # the pure copy of the kernels has no cache
    _install()
