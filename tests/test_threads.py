"""The compiled kernels' threads: OpenMP's count, lowered by OMP_NUM_THREADS and
threadpoolctl, and models that do not depend on it (issue 39)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pandas as pd
import pytest
from quercus._kernels._openmp import max_threads

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

FIT = textwrap.dedent("""
    import json, sys
    import numpy as np, pandas as pd
    import quercus
    rng = np.random.default_rng(4)
    n = 60_000
    X = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"x{j}" for j in range(8)])
    X.loc[rng.random(n) < 0.1, "x3"] = np.nan
    X["c"] = pd.Categorical(rng.choice(list("abcdefg"), n))
    score = X["x0"] - X["x1"] * X["x2"] + (X["c"].cat.codes.to_numpy() % 2)
    y = np.where(score + rng.normal(scale=0.5, size=n) > 0.5, "p", "q")
    out = {}
    for name, model in [
            ("exact", quercus.DecisionTreeClassifier(max_depth=8)),
            ("hist", quercus.DecisionTreeClassifier(splitter="hist", max_depth=10)),
            ("c45", quercus.DecisionTreeClassifier(algorithm="c45")),
            ("regression", quercus.DecisionTreeRegressor(max_depth=8))]:
        target = score.to_numpy() if name == "regression" else y
        model.fit(X, target)
        path = sys.argv[1] + "/" + name + ".json"
        model.save(path)
        out[name] = open(path).read()
        out[name + "_predict"] = np.asarray(model.predict(X)).tolist()
    print(json.dumps(out))
""")


def _fit_on(threads: int, tmp_path) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    directory = tmp_path / f"t{threads}"
    directory.mkdir()
    done = subprocess.run([sys.executable, "-c", FIT, str(directory)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_same_models_on_one_and_two_threads(tmp_path):
    one, two = _fit_on(1, tmp_path), _fit_on(2, tmp_path)
    assert one.keys() == two.keys()
    for key in one:
        assert one[key] == two[key], key


def test_omp_num_threads_is_followed():
    code = "from quercus._kernels._openmp import max_threads; print(max_threads())"
    for threads in (1, 2, 3):
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True)
        assert done.stdout.strip() == str(threads)


def test_threadpoolctl_limits_the_kernels():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = max_threads()
    with threadpoolctl.threadpool_limits(limits=1):
        assert max_threads() == 1
        # threadpoolctl sees the OpenMP runtime the kernels are linked with
        apis = {info["user_api"] for info in threadpoolctl.threadpool_info()}
        assert "openmp" in apis
    assert max_threads() == before


def test_predictions_from_several_python_threads():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(20_000, 5)), columns=list("abcde"))
    y = (X["a"] + X["b"] > 0).map({True: "yes", False: "no"})
    model = DecisionTreeClassifier(max_depth=10).fit(X, y)
    regressor = DecisionTreeRegressor(max_depth=10).fit(X, (X["c"] * 2).to_numpy())
    expected, expected_r = model.predict_proba(X), regressor.predict(X)
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append((model.predict_proba(X), regressor.predict(X)))
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors
    assert len(results) == 20
    for proba, values in results:
        assert np.array_equal(proba, expected)
        assert np.array_equal(values, expected_r)
