"""A kernel compiles once per set of argument types, not once more per literal constant.

numba types a constant argument of a call between kernels as a literal (``Literal[int](2)``,
a type of its own) and compiles the callee again for it, next to the ``int64`` version the
other callers use: the depth-2 optimal solver, the heaviest kernel, was compiled four times
instead of two. The kernels pass typed values instead (``np.int64(2)``, ``np.bool_(True)``).
"""

from __future__ import annotations

import numpy as np
import pytest
from numba.core import types
from numba.core.registry import CPUDispatcher

from quercus import DecisionTreeClassifier
from quercus._kernels import c45_grow, optimal, optimal_deep, optimal_pairs

MODULES = (optimal, optimal_deep, optimal_pairs, c45_grow)


def _literal_twins(dispatcher) -> list[str]:
    """Signatures of ``dispatcher`` that differ from another one only by literal types."""
    by_plain: dict[tuple, list] = {}
    for signature in dispatcher.signatures:
        plain = tuple(types.unliteral(t) for t in signature)
        by_plain.setdefault(plain, []).append(signature)
    return [str(group) for group in by_plain.values() if len(group) > 1]


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
    kernels = [value for module in MODULES for value in vars(module).values()
               if isinstance(value, CPUDispatcher)
               and value.py_func.__module__ == module.__name__]
    assert any(k.signatures for k in kernels)  # the fits ran these kernels compiled
    twins = {k.py_func.__qualname__: _literal_twins(k) for k in kernels}
    assert {name: found for name, found in twins.items() if found} == {}
