"""A kernel compiles once per set of argument types, not once more per literal constant.

numba types a constant argument of a call between kernels as a literal (``Literal[int](2)``,
a type of its own) and compiles the callee again for it, next to the ``int64`` version the
other callers use: the depth-2 optimal solver, the heaviest kernel, was compiled four times
instead of two. The kernels pass typed values instead (``np.int64(2)``, ``np.bool_(True)``).

A kernel loaded from numba's cache lists only the signatures this process used, and its
callees' none, so the test also reads the signatures numba's cache index (``.nbi``) holds
for these modules: every process's compiles since the source last changed.
"""

from __future__ import annotations

import glob
import os
import pickle

import numpy as np
import pandas as pd
import pytest
from numba.core import types
from numba.core.registry import CPUDispatcher

from quercus import DecisionTreeClassifier, _kernel_path
from quercus._kernels import (
    c45,
    c45_grow,
    optimal,
    optimal_deep,
    optimal_pairs,
    rpart_fold,
    rpart_split,
)

MODULES = (optimal, optimal_deep, optimal_pairs, c45, c45_grow, rpart_split, rpart_fold)


def _literal_twins(signatures) -> list[str]:
    """Those of ``signatures`` (tuples of numba types) that differ from another one only by
    literal types."""
    by_plain: dict[tuple, list] = {}
    # one signature may be listed more than once: numba's index keeps it once per CPU
    for signature in dict.fromkeys(signatures):
        plain = tuple(types.unliteral(t) for t in signature)
        by_plain.setdefault(plain, []).append(signature)
    return [str(group) for group in by_plain.values() if len(group) > 1]


def _cached_signatures(module) -> dict[str, list]:
    """Kernel name -> the signatures numba's cache index holds for it (numba's own format:
    a pickled version, then the pickled ``(stamp, overloads)``, keyed by signature first)."""
    name = module.__name__.rsplit(".", 1)[1]
    found = {}
    for directory in _kernel_path.numba_cache_dirs():
        for path in glob.glob(os.path.join(directory, f"{name}.*.nbi")):
            with open(path, "rb") as file:
                pickle.load(file)
                _stamp, overloads = pickle.loads(file.read())
            kernel, line = os.path.basename(path)[len(name) + 1:].rsplit(".", 2)[0].rsplit(
                "-", 1)
            function = getattr(getattr(module, kernel, None), "py_func", None)
            if function is None or function.__code__.co_firstlineno != int(line):
                continue  # an index left by an older version of the source
            found.setdefault(kernel, []).extend(key[0] for key in overloads)
    return found


@pytest.fixture()
def compiled(monkeypatch):
    monkeypatch.setenv("QUERCUS_KERNELS", "compiled")


def test_no_kernel_is_compiled_again_for_a_literal_argument(compiled):
    rng = np.random.default_rng(0)
    binary = rng.integers(0, 2, size=(200, 6)).astype(float)
    y = (binary[:, 0] + binary[:, 1] + rng.random(200) > 1.5).astype(int)
    # depth 3 on binary features: the depth-3 kernel calls the depth-2 solver, which
    # Python calls too
    DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(binary, y)
    numeric = rng.normal(size=(2600, 20))  # 52,000 entries: C4.5's threaded path
    DecisionTreeClassifier(algorithm="c45").fit(numeric, (numeric[:, 0] > 0).astype(int))
    # C4.5 with whole and fractional weights; rpart on numeric and categorical features with
    # missing values (surrogates), two and three classes
    frame = pd.DataFrame({"x": rng.normal(size=300), "z": rng.normal(size=300),
                          "colour": rng.choice(["red", "green", "blue", "grey"], 300)})
    frame.loc[rng.random(300) < 0.1, "x"] = np.nan
    three = np.where(frame["z"] > 0.5, "a", np.where(frame["colour"] == "red", "b", "c"))
    for weights in (None, rng.uniform(0.5, 2.0, 300)):
        DecisionTreeClassifier(algorithm="c45").fit(frame, three, sample_weight=weights)
    for y in (three, np.where(three == "a", "a", "other")):
        DecisionTreeClassifier(algorithm="rpart", prune="1se").fit(frame, y)
    kernels = [value for module in MODULES for value in vars(module).values()
               if isinstance(value, CPUDispatcher)
               and value.py_func.__module__ == module.__name__]
    assert any(k.signatures for k in kernels)  # the fits ran these kernels compiled
    twins = {k.py_func.__qualname__: _literal_twins(k.signatures) for k in kernels}
    assert {name: found for name, found in twins.items() if found} == {}
    cached = {f"{module.__name__}.{kernel}": _literal_twins(signatures) for module in MODULES
              for kernel, signatures in _cached_signatures(module).items()}
    assert any(cached)  # the index was found and read
    assert {name: found for name, found in cached.items() if found} == {}
