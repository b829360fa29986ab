"""Checks on the arrays handed to ``fit`` and ``predict``, with scikit-learn's messages.

The estimator reads data frames, arrays and lists of rows itself (``quercus.data``); this
module only refuses, up front and with the words scikit-learn's estimator checks look for,
what those readers cannot use: complex input, empty tables, 1-D arrays, no y, sparse y,
continuous or infinite targets, all-zero sample weights and a wrong number of columns at
prediction. A sparse X (scipy CSR, CSC, COO ...) is densified here, within
``MAX_DENSE_BYTES`` (see ``densify``). scikit-learn is never imported here: where its
exception or warning class is wanted, it is taken from ``sys.modules`` if the caller has
imported scikit-learn already.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .errors import DataError, NotFittedError

__all__ = ["check_features", "check_n_features", "check_sample_weight", "check_target",
           "not_fitted_error"]

#: Largest dense copy (in bytes) a sparse X may become: 4 GiB, 500 million float64 cells.
MAX_DENSE_BYTES = 1 << 32

_RESHAPE = ("Reshape your data either using X.reshape(-1, 1) if it has a single feature "
            "or X.reshape(1, -1) if it is a single row")
_dual_classes: dict[type, type] = {}


def _sklearn_class(module: str, name: str) -> type | None:
    """scikit-learn's class ``module.name`` if scikit-learn is already imported, else None."""
    return getattr(sys.modules.get(module), name, None)


def not_fitted_error(message: str) -> NotFittedError:
    """A ``quercus.NotFittedError`` that is also scikit-learn's ``NotFittedError`` when
    scikit-learn is in use, so that code catching either one catches it."""
    theirs = _sklearn_class("sklearn.exceptions", "NotFittedError")
    if theirs is None:
        return NotFittedError(message)
    if theirs not in _dual_classes:
        _dual_classes[theirs] = type("NotFittedError", (NotFittedError, theirs),
                                     {"__module__": NotFittedError.__module__})
    return _dual_classes[theirs](message)


def _as_array_like(values: Any) -> Any:
    """Objects that only offer ``__array__`` (not tables, arrays or lists) as arrays."""
    if isinstance(values, (pd.DataFrame, pd.Series, np.ndarray, list, tuple, str, bytes)):
        return values
    return np.asarray(values) if hasattr(values, "__array__") else values


def _is_sparse(values: Any) -> bool:
    return type(values).__module__.startswith("scipy.sparse")


def densify(X: Any) -> np.ndarray:
    """A sparse matrix as a dense float64 array, refused if that copy would exceed
    ``MAX_DENSE_BYTES``.

    Every Quercus splitter works on a dense matrix (the exact one presorts each feature,
    the histogram one bins it), so a sparse X is densified rather than searched natively;
    the guard turns an impossible allocation into a one-line error naming the sizes.
    """
    n_rows, n_features = X.shape
    needed = n_rows * n_features * 8
    if needed > MAX_DENSE_BYTES:
        raise DataError(f"X is a sparse {n_rows} x {n_features} matrix; Quercus densifies "
                        f"sparse input and this one would take {needed / 2**30:.1f} GiB, more "
                        f"than the {MAX_DENSE_BYTES / 2**30:.0f} GiB allowed (select features "
                        f"or pass fewer rows)")
    return np.asarray(X.toarray(), dtype=np.float64)


def check_features(X: Any, *, fitting: bool) -> Any:
    """X as the readers take it, refusing what no reader can use.

    Raises
    ------
    DataError
        X is complex, a 1-D array, too large to densify (sparse), or (when ``fitting``)
        has no rows or no columns.
    """
    if _is_sparse(X):
        X = densify(X)
    X = _as_array_like(X)
    shape = X.shape if isinstance(X, (pd.DataFrame, np.ndarray)) else None
    if isinstance(X, np.ndarray):
        if X.dtype.kind == "c":
            raise DataError("Complex data not supported: X holds complex numbers")
        if X.ndim == 1:
            raise DataError(f"Expected a 2-D array (rows x columns), got a 1-D array of "
                            f"{X.shape[0]} values. {_RESHAPE}.")
    if fitting and shape is not None and len(shape) == 2:
        if shape[0] == 0:
            raise DataError(f"Found array with 0 sample(s) (shape={shape}) while a minimum "
                            f"of 1 is required: X has no rows")
        if shape[1] == 0:
            raise DataError(f"Found array with 0 feature(s) (shape={shape}) while a minimum "
                            f"of 1 is required: X has no columns")
    return X


def check_n_features(X: Any, n_features: int, estimator: str) -> None:
    """Refuse an array (not a data frame: its columns go by name) with the wrong width."""
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.shape[1] != n_features:
        raise DataError(f"X has {X.shape[1]} features, but {estimator} is expecting "
                        f"{n_features} features as input")


def check_target(y: Any, estimator: str) -> Any:
    """y as the readers take it: a column vector becomes 1-D (with scikit-learn's
    DataConversionWarning); None, complex, infinite and continuous targets are refused.

    Missing labels (None, NaN) are allowed: the learners leave those rows out.
    """
    if y is None:
        raise DataError(f"{estimator} requires y to be passed, but the target y is None")
    if _is_sparse(y):
        raise TypeError("y is a sparse matrix; class labels must be dense (a sparse y, a "
                        "multilabel indicator matrix, is not supported)")
    y = _as_array_like(y)
    if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] == 1:
        category = _sklearn_class("sklearn.exceptions", "DataConversionWarning") or UserWarning
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please "
                      "change the shape of y to (n_samples,), for example using ravel().",
                      category, stacklevel=3)
        y = y[:, 0]
    values = _label_values(y)
    if values is None or values.ndim != 1:
        return y
    if values.dtype.kind == "c":
        raise DataError("Complex data not supported: y holds complex numbers")
    if values.dtype.kind == "f":
        finite = np.isfinite(values)
        if np.isinf(values).any():
            raise DataError("Input y contains infinity; class labels must be finite")
        fractional = finite & (values != np.round(values))
        if fractional.any():
            example = values[np.flatnonzero(fractional)[0]]
            raise DataError(f"Unknown label type: continuous. y holds non-integer numbers "
                            f"(e.g. {example:g}), a regression target; a classifier needs "
                            f"class labels (convert them to strings to use them as classes)")
    return y


def _label_values(y: Any) -> np.ndarray | None:
    """The labels as a numpy array when they are one (an array, a Series, a flat list)."""
    if isinstance(y, (np.ndarray, pd.Series)):
        return np.asarray(y)
    if isinstance(y, (list, tuple)):
        try:
            return np.asarray(y)
        except ValueError:  # ragged nesting: left to the readers to refuse
            return None
    return None


def check_sample_weight(weights: np.ndarray) -> None:
    """Refuse weights that leave no row to learn from."""
    if weights.shape[0] and not np.any(weights > 0):
        raise DataError("Sample weights must contain at least one non-zero number: every "
                        "row has weight zero")
