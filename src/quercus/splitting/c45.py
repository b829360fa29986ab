"""What C4.5's split choice knows of the features (docs/c45.md, spec steps 7-16); the
choice itself is compiled, in ``_kernels/_c45.pyx``."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

NO_TABLE = np.zeros(0)


@dataclass
class AttributeInfo:
    """What the split choice needs to know of the features (fixed for a whole fit)."""

    categorical: np.ndarray  # bool per feature
    n_values: np.ndarray  # declared values per categorical feature
    n_classes: int
    min_leaf: float
    n_all_rows: int  # rows of the full input, class-missing rows included
    xlogx_of_int: np.ndarray = field(default_factory=lambda: NO_TABLE)  # F(0..max weight)
    all_weights_whole: bool = False  # whole weights and no missing value: no node checks

    @property
    def multi_valued(self) -> bool:
        """True only when every attribute is nominal and none has < 0.3 N_all values."""
        return bool(self.categorical.all()
                    and np.all(self.n_values >= 0.3 * self.n_all_rows))
