"""Exact per-bin sums of regression targets: the fixed-point layout and its rounding.

A histogram regression tree sums, per node, feature and bin, each row's weight ``w``,
``w * y`` and ``w * y * y``. In float64 such sums depend on the order of the additions, so
a cluster's partitions would change their last bits (and perhaps the tree). Here each of
the three quantities is held as an integer at a scale 2**L below its lowest set bit
(``_kernels/_hist.pyx``), in int64 limbs of base 2**D, D = 62 - bits(rows) (42 bits
for a million rows: the sum of every row's digit stays below 2**62): sums add up exactly
in any order and are rounded to float64 once, where the split search reads them. A
quantity gets as many limbs as its rows' integers need digits (2 each for the targets and
squared targets of benchmarks/bench_regression.py); the carries a sum outgrows them by are
taken at the rounding. Every copy of the data
(one machine, a cluster's workers) uses the ``SumLayout`` of the whole data's value range,
which the scan finds; the rounded sums, and so the tree, do not depend on the partitions.
A last column counts the rows. With unit weights the weight is that count (no limbs).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._kernels._hist import MAX_DIGIT, round_sums, to_limbs, value_range
from ..errors import DataError

#: Limbs per quantity at most: a range of at least 2**(32 * 16) between the lowest set bit
#: and the largest |w * y * y|; wider targets are refused (``DataError``).
MAX_LIMBS = 16
#: Rows at most (so that a limb has at least 32 bits: digit = 62 - bits(rows)).
MAX_ROWS = 1 << 30


def digit_bits(n_rows: int) -> int:
    """Bits per limb for sums of up to n_rows rows: each row adds below 2**digit to a limb
    in magnitude, so n_rows of them stay below 2**62 (a carry added at the rounding keeps
    it below 2**63)."""
    return min(MAX_DIGIT, 62 - int(n_rows).bit_length())


@dataclass(frozen=True)
class SumLayout:
    """Where each quantity's limbs lie in a row of limbs, and at which scale.

    ``quantities`` holds (offset, n_limbs, scale) for W, S and Q; W's n_limbs is 0 when
    every weight is 1 (W is then the row count). ``width`` is the row's length, the
    count of rows its last column; ``digit`` the bits of a limb."""

    quantities: tuple
    width: int
    unit_weights: bool
    digit: int = 32

    @property
    def count(self) -> int:
        return self.width - 1

    def row_limbs(self, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        """(n_rows, width) int64: each row's (w, w * y, w * y * y) as limbs, then 1."""
        out = np.zeros((y.shape[0], self.width), dtype=np.int64)
        for (offset, n_limbs, scale), values in zip(self.quantities, _quantities(y, w)):
            if n_limbs:
                to_limbs(values, scale, offset, n_limbs, self.digit, out)
        out[:, self.count] = 1
        return out

    def round(self, limbs: np.ndarray, quantities: int = 3) -> np.ndarray:
        """Sums (..., width) int64 -> (..., 3) float64 (W, S, Q), each rounded once (the
        first ``quantities`` of them; the others NaN)."""
        return self._round(limbs, quantities, _NO_COUNTS)

    def _round(self, limbs: np.ndarray, quantities: int, counts: np.ndarray) -> np.ndarray:
        flat = np.ascontiguousarray(limbs.reshape(-1, self.width))
        out = np.empty((flat.shape[0], 3))
        offsets, sizes, scales = self._arrays
        round_sums(flat, offsets, sizes, scales, self.digit, self.count, self.unit_weights,
                   quantities, out, counts)
        return out.reshape(limbs.shape[:-1] + (3,))

    def without_squares(self) -> SumLayout:
        """The layout of rows of W's and S's limbs and the count (no Q): a histogram's."""
        (w, s, (offset, _, _)) = self.quantities
        return SumLayout((w, s, (offset, 0, 0)), offset + 1, self.unit_weights, self.digit)

    @cached_property
    def _arrays(self) -> tuple:
        return tuple(np.array(column, dtype=np.int64) for column in zip(*self.quantities))

    def round_hist(self, limbs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A node's limb histograms (n_features, bins, width) -> float sums (n_features,
        bins, 3) and row counts (n_features, bins). Only W and S are rounded per bin (the
        split search reads no per-bin Q; a node's Q comes from ``round`` of its totals)."""
        counts = np.empty(limbs.shape[:-1], dtype=np.int64)
        return self._round(limbs, 2, counts.reshape(-1)), counts


_NO_COUNTS = np.zeros(0, dtype=np.int64)


def _quantities(y: np.ndarray, w: np.ndarray) -> tuple:
    wy = w * y
    return w, wy, wy * y


def ranges(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """(3, 3) int64: ``value_range`` of w, w * y and w * y * y (a scan task's summary)."""
    out = np.zeros((3, 3), dtype=np.int64)
    for q, values in enumerate(_quantities(np.asarray(y, float), np.asarray(w, float))):
        if not np.isfinite(values).all():
            raise DataError("a target or weight is so large that its square is infinite; "
                            "splitter='hist' cannot sum it (use splitter='best')")
        value_range(np.ascontiguousarray(values), out[q])
    return out


def merge_ranges(parts: list) -> np.ndarray:
    """The range of the union of rows from the ranges of their parts (order-free)."""
    out = np.zeros((3, 3), dtype=np.int64)
    for q in range(3):
        present = [p[q] for p in parts if p[q, 2] > 0]
        if present:
            out[q] = (min(p[0] for p in present), max(p[1] for p in present),
                      sum(p[2] for p in present))
    return out


def layout_for(value_ranges: np.ndarray, n_rows: int, unit_weights: bool) -> SumLayout:
    """The layout that sums n_rows rows of these ranges exactly, or a one-line DataError
    when it would need more than MAX_LIMBS limbs per quantity (or too many rows)."""
    if n_rows >= MAX_ROWS:
        raise DataError(f"splitter='hist' sums regression targets exactly for fewer than "
                        f"{MAX_ROWS} rows; got {n_rows}")
    # a row's value is an integer below 2**(high - low) in units of 2**low: n_limbs digits
    # of digit bits hold it (a sum's carries past them are taken when it is rounded)
    digit = digit_bits(n_rows)
    quantities, offset = [], 0
    for q, (low, high, nonzero) in enumerate(np.asarray(value_ranges, dtype=np.int64)):
        if (q == 0 and unit_weights) or nonzero == 0:
            quantities.append((offset, 0, 0))
            continue
        n_limbs = max(1, -(-(int(high) - int(low)) // digit))
        if n_limbs > MAX_LIMBS:
            what = ("the weights", "weight x target", "weight x target squared")[q]
            raise DataError(f"the values of {what} span 2**{int(high) - int(low)}, too wide "
                            f"to sum exactly with splitter='hist'; rescale y or use "
                            f"splitter='best'")
        quantities.append((offset, n_limbs, int(low)))
        offset += n_limbs
    return SumLayout(tuple(quantities), offset + 1, bool(unit_weights), digit)


def layout_of(y: np.ndarray, w: np.ndarray) -> SumLayout:
    """The layout for these rows (one machine's fit)."""
    unit = bool(np.all(w == 1.0))
    return layout_for(ranges(y, w), y.shape[0], unit)
