"""numba's disk cache of the kernels, safe for processes that compile them at the same time.

numba names a new entry's data file by the first number its index does not use, and
reads the index, writes it back and writes the data as separate steps. Two processes
that compile different signatures of one kernel at once (pytest workers, a fit next to
Quercus's background warm-up, two installed versions sharing a cache) can both read the
index before either writes it and pick the same number: one index entry then names the
other process's machine code, and a later call runs code compiled for other argument
types (a segfault), or an entry is lost. ``guard(dispatcher)`` gives a cached kernel a
cache file (:class:`LockedCacheFile`) that

- saves under an exclusive lock on ``quercus-cache.lock`` in the cache directory (where
  the platform has ``fcntl``), so that reading the index, adding the entry and writing
  it back is one step;
- names a new data file with a random token, never a number that another process (or
  another version, whose index the lock does not cover) may also pick;
- writes the data before the index entry that names it;
- after a save that started from an empty or stale index (a new version's first), removes
  the entry's older data files that the index no longer names, which numba's numbering
  would have overwritten in time.

Loading is numba's own: the index is replaced atomically and a data file it names is
never rewritten with other code, so a reader needs no lock. A kernel whose numba lacks
these private names keeps numba's cache file.
"""

from __future__ import annotations

import contextlib
import glob
import os
import uuid

LOCK_NAME = "quercus-cache.lock"

try:
    import fcntl
except ImportError:  # Windows: random names alone keep the data right
    fcntl = None

_locked_class: list[type] = []


@contextlib.contextmanager
def directory_lock(directory: str):
    """An exclusive lock on the cache directory's lock file while the block runs (none if
    the file cannot be opened or the platform has no ``fcntl``)."""
    handle = None
    if fcntl is not None:
        with contextlib.suppress(OSError):
            handle = open(os.path.join(directory, LOCK_NAME), "a")  # noqa: SIM115
            fcntl.flock(handle, fcntl.LOCK_EX)
    try:
        yield
    finally:
        if handle is not None:
            handle.close()  # closing the file releases the lock


def locked_cache_file_class() -> type:
    """:class:`LockedCacheFile`, made on first use (it subclasses numba's class)."""
    if not _locked_class:
        from numba.core.caching import IndexDataCacheFile

        class LockedCacheFile(IndexDataCacheFile):
            """numba's index and data files, saved under a lock with random data names."""

            def save(self, key, data):
                with directory_lock(self._cache_path):
                    overloads = self._load_index()
                    fresh_start = not overloads
                    name = overloads.get(key) or f"{self._base()}{uuid.uuid4().hex[:12]}.nbc"
                    self._save_data(name, data)
                    overloads[key] = name
                    self._save_index(overloads)
                    if fresh_start:
                        self._remove_unnamed(set(overloads.values()))

            def _base(self) -> str:
                """The data files' common start: ``<module>.<function>-<line>.py<ver>.``"""
                return self._data_name_pattern.format(number=0)[:-len("0.nbc")]

            def _remove_unnamed(self, named: set[str]) -> None:
                pattern = glob.escape(self._base()) + "*.nbc"
                for path in glob.glob(os.path.join(glob.escape(self._cache_path), pattern)):
                    if os.path.basename(path) not in named:
                        with contextlib.suppress(OSError):
                            os.remove(path)

        _locked_class.append(LockedCacheFile)
    return _locked_class[0]


def guard(dispatcher):
    """``dispatcher`` with its disk cache file made a :class:`LockedCacheFile` (anything
    without numba's cache file is returned as it is)."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is None or not hasattr(cache_file, "_data_name_pattern"):
        return dispatcher
    try:
        cache_file.__class__ = locked_cache_file_class()
    except (ImportError, TypeError):
        pass
    return dispatcher
