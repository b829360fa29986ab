"""The kernels' disk cache: it follows changes to any kernel file, not only a kernel's own,
and processes that compile at once keep their own machine code (quercus._kernel_cache)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from numba.core.caching import IndexDataCacheFile

import quercus
from quercus._kernel_cache import LOCK_NAME, guard, locked_cache_file_class

CALLEE = "from ._jit import njit\n\n\n@njit(cache=True)\ndef value():\n    return {}\n"
CALLER = (
    "from ._jit import njit\nfrom .zz_callee import value\n\n\n"
    "@njit(cache=True)\ndef call():\n    return value()\n"
)
RUN = "from quercus._kernels.zz_caller import call; print(call())"


def _run(root: Path, cache: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(root), "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    return done.stdout.strip()


def test_a_changed_callee_file_recompiles_its_callers_in_other_files(tmp_path):
    root = tmp_path / "src"
    shutil.copytree(Path(quercus.__file__).parent, root / "quercus",
                    ignore=shutil.ignore_patterns("__pycache__"))
    kernels, cache = root / "quercus" / "_kernels", tmp_path / "cache"
    (kernels / "zz_caller.py").write_text(CALLER)
    (kernels / "zz_callee.py").write_text(CALLEE.format(1))
    assert _run(root, cache) == "1"
    assert any(cache.rglob("zz_caller.call-*.nbi"))  # cached where NUMBA_CACHE_DIR says
    (kernels / "zz_callee.py").write_text(CALLEE.format(2))
    assert _run(root, cache) == "2"  # numba's own stamp (the caller's file) would give 1


def test_the_pure_copy_of_the_kernels_needs_no_numba():
    done = subprocess.run(
        [sys.executable, "-c",
         ("import sys; from quercus._kernel_path import pure_module; "
          "pure_module('impurity'); print('numba' in sys.modules)")],
        capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "False"


def test_every_kernel_takes_the_package_stamped_njit():
    kernels = Path(quercus.__file__).parent / "_kernels"
    plain = [p.name for p in kernels.glob("*.py") if p.name != "_jit.py"
             and re.search(r"^from numba import .*\bnjit\b", p.read_text(),
                                re.MULTILINE)]
    assert plain == []


def cache_file(directory, stamp="stamp-1", cls=None):
    cls = cls or locked_cache_file_class()
    return cls(cache_path=str(directory), filename_base="kernels.fit-12.py311",
               source_stamp=stamp)


def race(directory, cls):
    """Two saves of different keys where the first has read the index before the second
    starts (as two processes compiling two signatures at once)."""
    first, second = cache_file(directory, cls=cls), cache_file(directory, cls=cls)
    loaded, go_on = threading.Event(), threading.Event()
    read_index = first._load_index

    def slow_read():
        overloads = read_index()
        loaded.set()
        go_on.wait(1.0)  # the second save runs now, unless a lock holds it back
        return overloads

    first._load_index = slow_read
    one = threading.Thread(target=first.save, args=(("float64",), "code for float64"))
    one.start()
    assert loaded.wait(5.0)
    two = threading.Thread(target=second.save, args=(("int64",), "code for int64"))
    two.start()
    two.join(0.3)
    go_on.set()
    one.join()
    two.join()
    return cache_file(directory, cls=cls)


def test_saves_at_once_keep_both_entries_with_their_own_code(tmp_path):
    reader = race(tmp_path, locked_cache_file_class())
    assert reader.load(("float64",)) == "code for float64"
    assert reader.load(("int64",)) == "code for int64"


def test_numbas_own_cache_file_loses_an_entry_in_the_same_race(tmp_path):
    """The race the guard exists for: numba's class, the same schedule."""
    reader = race(tmp_path, IndexDataCacheFile)
    assert reader.load(("int64",)) is None  # the first save's index overwrote it


def test_new_data_files_never_take_a_number_and_stale_ones_go(tmp_path):
    old = cache_file(tmp_path, stamp="old", cls=IndexDataCacheFile)
    old.save(("float64",), "old code")
    assert sorted(os.listdir(tmp_path)) == ["kernels.fit-12.py311.1.nbc",
                                             "kernels.fit-12.py311.nbi"]
    other = tmp_path / "kernels.fit-123.py311.1.nbc"  # another kernel's file stays
    other.write_bytes(b"x")
    new = cache_file(tmp_path, stamp="new")
    new.save(("float64",), "new code")
    new.save(("int64",), "new int code")
    names = sorted(os.listdir(tmp_path))
    data = [n for n in names if n.startswith("kernels.fit-12.py311.") and n.endswith(".nbc")]
    assert len(data) == 2 and "kernels.fit-12.py311.1.nbc" not in data
    assert all(not n.split(".")[-2].isdigit() for n in data)
    assert other.exists() and LOCK_NAME in names
    assert new.load(("float64",)) == "new code"
    assert old.load(("float64",)) is None  # the old version sees a stale index


def test_saving_an_existing_key_keeps_its_file(tmp_path):
    first = cache_file(tmp_path)
    first.save(("float64",), "code")
    before = sorted(os.listdir(tmp_path))
    first.save(("float64",), "code again")
    assert sorted(os.listdir(tmp_path)) == before
    assert cache_file(tmp_path).load(("float64",)) == "code again"


def test_every_cached_kernel_has_the_guarded_cache_file():
    from quercus._kernels import c45_grow, finite, optimal

    for kernel in (finite.count_nonfinite_rows, c45_grow.grow_nodes, optimal.depth2_tests):
        assert type(kernel._cache._cache_file) is locked_cache_file_class()
    assert guard(len) is len  # not a kernel: left alone
