"""A fresh process fits with the kernels compiled when the package was built (issue 39).

Every learner's first fit in a new process runs the extension modules of
``quercus._kernels``: nothing is compiled at run time (no numba, no llvmlite, no JIT of any
kind is imported) and no other process is started, so none outlives the command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import glob, json, os, sys
import quercus

data = quercus.datasets.load("iris")
weather = quercus.datasets.load("play_tennis")
for params in [{}, {"algorithm": "cart", "splitter": "hist"}, {"algorithm": "c45"},
               {"algorithm": "id3"}, {"algorithm": "interval"}, {"algorithm": "rpart"},
               {"algorithm": "optimal", "max_depth": 2}, {"algorithm": "auto"}]:
    X, y = (weather.X, weather.y) if params.get("algorithm") == "id3" else (data.X, data.y)
    model = quercus.DecisionTreeClassifier(**params).fit(X, y)
    model.predict(X)
quercus.DecisionTreeRegressor().fit(data.X.iloc[:, 1:], data.X.iloc[:, 0])
kernels = {name: getattr(module, "__file__", "") for name, module in sys.modules.items()
           if name.startswith("quercus._kernels.")}
children = []
for task in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
    with open(task) as f:
        children += f.read().split()
print(json.dumps({"kernels": kernels, "children": children,
                  "jit": sorted(m for m in ("numba", "llvmlite") if m in sys.modules)}))
"""


def test_first_fits_run_built_extensions_and_start_no_process():
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, check=True,
                         capture_output=True, text=True, timeout=600).stdout
    found = json.loads(out.strip().splitlines()[-1])
    assert found["jit"] == []
    assert found["children"] == []
    loaded = found["kernels"]
    for family in ("_splits", "_hist", "_predict", "_c45", "_rpart", "_optimal",
                   "_regression", "_openmp"):
        assert f"quercus._kernels.{family}" in loaded, family
    extension = (".so", ".pyd")
    assert all(path.endswith(extension) for path in loaded.values()), loaded
