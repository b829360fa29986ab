"""The complexity-parameter (cp) table of a pruning sequence, and the row a rule chooses.

One row per nested subtree, largest first, with rpart's columns: ``CP`` (the complexity at
which that subtree is reached, scaled by the root's risk), ``nsplit`` (its internal nodes),
``rel_error`` (its training risk / the root's), ``xerror`` and ``xstd`` (its cross-validated
risk and that sum's standard error, both / the root's risk). rpart, Quercus's rpart learner
and CART with ``prune=`` all produce this table; printing it is ``export.rpart_text``'s job.
"""

from __future__ import annotations

import numpy as np

CP_COLUMNS = ("CP", "nsplit", "rel_error", "xerror", "xstd")
PRUNE_RULES = ("min", "1se")


def make_cp_table(cp, nsplit, rel_error, xerror=None, xstd=None):
    """A pandas DataFrame with the five cp-table columns (xerror/xstd NaN when not run)."""
    import pandas as pd

    n = len(cp)
    missing = np.full(n, np.nan)
    columns = {"CP": np.asarray(cp, dtype=np.float64),
               "nsplit": np.asarray(nsplit, dtype=np.int64),
               "rel_error": np.asarray(rel_error, dtype=np.float64),
               "xerror": missing if xerror is None else np.asarray(xerror, dtype=np.float64),
               "xstd": missing.copy() if xstd is None else np.asarray(xstd, dtype=np.float64)}
    return pd.DataFrame(columns, columns=list(CP_COLUMNS))


def choose_row(table, rule: str) -> int:
    """Index (0-based) of the cp-table row a pruning rule picks.

    ``"min"``: the first row of least ``xerror``. ``"1se"``: with ``m`` that row, the first
    row (fewest splits) whose ``xerror`` is at most ``xerror[m] + xstd[m]`` (the convention
    of rpart's vignette and ``plotcp``'s dotted line).
    """
    if rule not in PRUNE_RULES:
        raise ValueError(f"prune must be None, 'min' or '1se'; got {rule!r}")
    xerror = np.asarray(table["xerror"], dtype=np.float64)
    if np.isnan(xerror).any():
        raise ValueError("the cp table has no cross-validated errors (xval=0)")
    best = int(np.argmin(xerror))
    if rule == "min":
        return best
    line = xerror[best] + float(np.asarray(table["xstd"], dtype=np.float64)[best])
    return int(np.flatnonzero(xerror <= line)[0])


def one_se_line(table) -> float:
    """The 1-SE line: least xerror plus its xstd (drawn by the report's cp plot)."""
    xerror = np.asarray(table["xerror"], dtype=np.float64)
    best = int(np.argmin(xerror))
    return float(xerror[best] + np.asarray(table["xstd"], dtype=np.float64)[best])
