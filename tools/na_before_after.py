"""Types read and 10-fold cross-validated accuracy of the data sets with R's ``NA`` tokens.

Run it once with the reader before issue 11 and once with the current one, e.g.::

    PYTHONPATH=/path/to/old/src python tools/na_before_after.py
    PYTHONPATH=src python tools/na_before_after.py

The data files are the bundled ``penguins.csv`` and ``airquality.csv`` (written by R's
``write.csv``), read from this checkout whichever Quercus is imported. Each run prints, per
data set, the columns read as numeric and as categorical, the classes, and per algorithm
the mean accuracy of stratified 10-fold cross-validation (seed 0) and the leaves of a tree
fitted on all rows. Rows whose class is missing are left out, as ``quercus eval`` does.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

import quercus
from quercus import DecisionTreeClassifier
from quercus.data import read_csv
from quercus.evaluation import cross_validate

BUNDLED = Path(__file__).resolve().parents[1] / "src" / "quercus" / "data" / "bundled"
CASES = [  # (file, target)
    ("penguins.csv", "species"),
    ("penguins.csv", "sex"),
    ("airquality.csv", "Month"),
]
ALGORITHMS = ("cart", "c45", "interval", "id3")


def _known(y) -> np.ndarray:
    values = y.astype(object).to_numpy()
    return np.array([not (v is None or (isinstance(v, float) and np.isnan(v))) for v in values])


def main() -> int:
    print(f"quercus from {Path(quercus.__file__).parent}")
    for file, target in CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X, y, schema = read_csv(BUNDLED / file, target)
        known = _known(y)
        X, y = X[known].reset_index(drop=True), y[known].reset_index(drop=True)
        numeric = [f.name for f in schema.features if not f.is_categorical]
        categorical = [f"{f.name} ({f.n_categories})" for f in schema.features
                       if f.is_categorical]
        print(f"\n## {file}, target {target}: {len(X)} rows used "
              f"({int((~known).sum())} without a class)")
        print(f"numeric: {', '.join(numeric) or '-'}")
        print(f"categorical (categories): {', '.join(categorical) or '-'}")
        print(f"classes: {', '.join(str(c) for c in schema.classes.values)}")
        print("| algorithm | 10-fold CV accuracy | leaves (all rows) |")
        print("| --- | --- | --- |")
        for algorithm in ALGORITHMS:
            if algorithm == "id3" and numeric:
                print("| id3 | n/a (numeric features) | |")
                continue
            model = DecisionTreeClassifier(algorithm=algorithm)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = cross_validate(model, X, y, n_folds=10, seed=0)
                leaves = model.fit(X, y).get_n_leaves()
            print(f"| {algorithm} | {result.mean:.4f} | {leaves} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
