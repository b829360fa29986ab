"""The model-file entries of an rpart model beyond its tree: the cp table (``quercus cp``,
the report's cp plot), rpart's variable importance and the count of rows na.rpart dropped.

Written only when the model has them, so every other model file stays byte-identical; the
tree's own rpart arrays (surrogates, node risks) travel in ``tree.rpart``
(``quercus.rpart_routing``).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelFileError
from ..pruning.cp_table import CP_COLUMNS, make_cp_table

__all__ = ["read_rpart_entries", "rpart_entries"]


def _number(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def rpart_entries(model) -> dict:
    """The optional top-level entries of ``model``'s file (empty for other models)."""
    out = {}
    table = getattr(model, "cp_table_", None)
    if table is not None:
        out["cp_table"] = {name: [_number(float(v)) if name != "nsplit" else int(v)
                                  for v in table[name]] for name in CP_COLUMNS}
    importance = getattr(model, "variable_importance_", None)
    if importance is not None:
        out["rpart"] = {"variable_importance": [[str(k), float(v)]
                                                for k, v in importance.items()],
                        "n_dropped": int(getattr(model, "rpart_n_dropped_", 0))}
    return out


def read_rpart_entries(model, document: dict, path) -> None:
    """Set ``cp_table_``, ``variable_importance_`` and ``rpart_n_dropped_`` on a loaded
    model from its file's entries; ModelFileError (one line, naming the entry) if bad."""
    if document.get("cp_table") is not None:
        model.cp_table_ = _cp_table(document["cp_table"], path)
    if document.get("rpart") is not None:
        entry = document["rpart"]
        try:
            pairs = entry["variable_importance"]
            names = model.schema_.feature_names
            if not all(isinstance(p, list) and len(p) == 2 and p[0] in names
                       and type(p[1]) in (int, float) and p[1] >= 0 for p in pairs):
                raise ValueError("each item must be [feature name, importance >= 0]")
            dropped = entry["n_dropped"]
            if type(dropped) is not int or dropped < 0:
                raise ValueError(f"'n_dropped' must be a count, not {dropped!r}")
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{path} has a bad 'rpart' entry: "
                                 f"{' '.join(str(error).split())}") from None
        import pandas as pd

        model.variable_importance_ = pd.Series([float(v) for _, v in pairs],
                                               index=[k for k, _ in pairs],
                                               name="importance", dtype=np.float64)
        model.rpart_n_dropped_ = dropped


def _cp_table(entry, path):
    try:
        columns = {name: entry[name] for name in CP_COLUMNS}
        lengths = {len(v) for v in columns.values()}
        if len(lengths) != 1 or not lengths.pop():
            raise ValueError("its columns must be lists of one common, non-zero length")
        if not all(type(v) is int for v in columns["nsplit"]):
            raise ValueError("'nsplit' must hold integers")
        for name in ("CP", "rel_error", "xerror", "xstd"):
            if not all(v is None or type(v) in (int, float) for v in columns[name]):
                raise ValueError(f"{name!r} must hold numbers")
        floats = {k: [np.nan if v is None else float(v) for v in columns[k]]
                  for k in ("CP", "rel_error", "xerror", "xstd")}
        if any(np.isnan(floats[k]).any() for k in ("CP", "rel_error")):
            raise ValueError("'CP' and 'rel_error' must be numbers")
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path} has a bad 'cp_table' entry: "
                             f"{' '.join(str(error).split())}") from None
    return make_cp_table(floats["CP"], columns["nsplit"], floats["rel_error"],
                         floats["xerror"], floats["xstd"])
