"""The kernels' disk cache follows changes to any kernel file, not only a kernel's own."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import quercus

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
