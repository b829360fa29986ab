"""``python -m quercus._warmup FAMILY...``: compile kernel families into numba's cache.

Started in the background by ``_kernel_path.start_warmup`` when a process runs a family's
kernels as plain Python because numba's cache does not hold them yet (docs/architecture.md,
"Start-up"). It fits small trees of each family with the compiled kernels
(``QUERCUS_KERNELS=compiled``), on mixed data (numeric with missing values, categorical,
two and three classes), on its numeric columns alone and, for the optimal tree, on yes/no
features only, so that it compiles what small
fits and their predictions call, at low priority, prints
nothing, marks the family's cache indexes fresh (``_kernel_path.refresh_index``), adds a
line ``done FAMILY`` to its lock (``QUERCUS_WARMUP_LOCK``) as each family
is cached (a process waiting for one reads it: ``_kernel_path.await_warmup``) and removes
the lock at the end.
"""

from __future__ import annotations

import contextlib
import os
import sys

import numpy as np
import pandas as pd

from . import _kernel_path

ROWS = 300


def warmup_data(seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Rows of mixed features and a three-class and a two-class target."""
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(ROWS, 3))
    frame = pd.DataFrame(numeric, columns=["a", "b", "c"])
    frame.loc[rng.random(ROWS) < 0.1, "b"] = np.nan
    frame["colour"] = rng.choice(["red", "green", "blue", "grey"], ROWS)
    frame.loc[rng.random(ROWS) < 0.05, "colour"] = None
    frame["size"] = rng.choice(["small", "large"], ROWS)
    score = numeric[:, 0] + (frame["colour"] == "red") - 0.5 * (frame["size"] == "small")
    three = np.where(score > 0.6, "high", np.where(score < -0.4, "low", "middle"))
    two = np.where(score > 0.1, "yes", "no")
    return frame, three, two


def binary_data(seed: int = 1) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Rows of yes/no features only (0/1 numbers, two categories) and the two targets: the
    optimal tree solves such data with its pair-count kernels, which mixed data does not
    reach (a first ``auto`` run on a small yes/no table compiled them for 7 s)."""
    rng = np.random.default_rng(seed)
    flags = rng.integers(0, 2, size=(ROWS, 3))
    frame = pd.DataFrame(flags.astype(float), columns=["x", "y", "z"])
    frame["member"] = np.where(rng.random(ROWS) < 0.5, "yes", "no")
    score = flags[:, 0] + flags[:, 1] * (frame["member"] == "yes") + 0.5 * flags[:, 2]
    three = np.where(score > 1.2, "high", np.where(score < 0.6, "low", "middle"))
    two = np.where(score > 0.8, "yes", "no")
    return frame, three, two


def _optimal_params() -> list[dict]:
    """``algorithm="auto"``'s optimal candidates, then the optimal tree's defaults."""
    from .selection import CANDIDATES

    auto = [c.params for c in CANDIDATES if c.params["algorithm"] == "optimal"]
    return [*auto, {"algorithm": "optimal", "max_depth": 3}]


FAMILIES = {
    "cart": [{"algorithm": "cart"}, {"algorithm": "cart", "prune": "1se"}],
    "hist": [{"algorithm": "cart", "splitter": "hist"}],
    "c45": [{"algorithm": "c45"}, {"algorithm": "c45", "prune": "cv"}],
    "rpart": [{"algorithm": "rpart", "prune": "1se"}],
    "optimal": _optimal_params(),
}


def warm(families, done=None) -> None:
    """Fit, predict and score the trees of ``families`` (unknown names are skipped);
    ``done(family)`` is called as each is finished."""
    from . import DecisionTreeClassifier

    frame, three, two = warmup_data()
    # a tree of numeric splits only predicts with its own kernel (predict_numeric)
    numeric = frame[["a", "b", "c"]]
    binary, binary_three, binary_two = binary_data()
    for family in families:
        failed = False
        for i, params in enumerate(FAMILIES.get(family, [])):
            cases = [(frame, three), (frame, two)] + ([(numeric, two)] if i == 0 else [])
            if family == "optimal":
                cases += [(binary, binary_three), (binary, binary_two)]
            for X, y in cases:
                try:
                    model = DecisionTreeClassifier(**params, random_state=0).fit(X, y)
                    model.predict(X)
                    model.predict_proba(X)
                except Exception:  # noqa: BLE001 - the warm-up never stops a user's run
                    failed = True
        if family == "hist":  # the regressor's subtrees grown whole (_kernels/hist_grow.py)
            try:
                from . import DecisionTreeRegressor

                target = numeric["a"].fillna(0.0).to_numpy() * 2.0 + numeric["c"].to_numpy()
                DecisionTreeRegressor(splitter="hist").fit(numeric, target).predict(numeric)
                _warm_binning(numeric.to_numpy(dtype="float64"))
            except Exception:  # noqa: BLE001 - as above
                failed = True
        if not failed:  # every kernel it ran is cached for the current source
            _kernel_path.refresh_index(family)
        if done is not None:
            done(family)


def _warm_binning(values) -> None:
    """The binning kernels of the layouts the fits above do not meet: a column-major block
    (a pandas frame's, as Dask's workers bin it) and float32 rows, read as they are."""
    from .binning import BinMapper

    flags = [False] * values.shape[1]
    for X in (values, values.astype("float32")):
        mapper = BinMapper().fit(X, flags, [0] * len(flags))
        mapper.transform(X)
        mapper.transform(X.T.copy().T)  # column-major


def _note_done(lock: str | None):
    def done(family: str) -> None:
        if lock:
            with contextlib.suppress(OSError), open(lock, "a", encoding="utf-8") as file:
                file.write(f"done {family}\n")

    return done


def main(argv: list[str]) -> int:
    os.environ["QUERCUS_KERNELS"] = "compiled"
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)
    lock = os.environ.get("QUERCUS_WARMUP_LOCK")
    try:
        warm(argv, _note_done(lock))
    finally:
        if lock:
            with contextlib.suppress(OSError):
                os.remove(lock)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
