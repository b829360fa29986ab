"""Binary splits on categorical features for C4.5 (J48's -B): ``feature = value`` against
``feature != value`` (docs/c45.md, "Binary splits on categorical features"); the search is
``_kernels._c45.binary_candidate``."""

from __future__ import annotations

import numpy as np


def binary_category_map(n_values: int, category: int) -> np.ndarray:
    """Branch per category code: ``category`` -> 0, every other code -> 1."""
    cmap = np.ones(int(n_values), dtype=np.int64)
    cmap[int(category)] = 0
    return cmap
