"""A process with a warm numba cache compiles nothing for a small C4.5 fit (issue 16).

The first process may compile (and fills the cache the test session uses); the second one
counts numba's compile events during its fit: before the C4.5 store was made in cached
kernels, numba's typed-list helpers compiled in every process (seconds). It also checks that
a small fit neither compiles nor loads the parallel kernels it does not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import json
from numba.core import event
import quercus
from quercus._kernels import c45, c45_grow, c45_store

compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        dispatcher = ev.data.get("dispatcher")
        compiled.append(getattr(getattr(dispatcher, "py_func", None), "__qualname__",
                                str(dispatcher)))

    def on_end(self, ev):
        pass

data = quercus.datasets.load("iris")
weather = quercus.datasets.load("play_tennis")
event.register("numba:compile", Listener())
quercus.DecisionTreeClassifier(algorithm="c45").fit(data.X, data.y)
quercus.DecisionTreeClassifier(algorithm="c45", reduced_error_pruning=True).fit(
    data.X, data.y)
quercus.DecisionTreeClassifier(algorithm="c45").fit(weather.X, weather.y)
unused = {name: len(getattr(module, name).signatures)
          for module, name in [(c45, "scan_parallel"), (c45, "split_parallel"),
                               (c45_grow, "grow_largest_first"), (c45_store, "detach"),
                               (c45_store, "attach")]}
print(json.dumps({"compiled": compiled, "unused": unused}))
"""


def run_fits() -> dict:
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]),
           "QUERCUS_KERNELS": "compiled"}  # these small fits would run the pure copy
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, check=True,
                         capture_output=True, text=True, timeout=1200).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_warm_c45_fit_compiles_nothing_and_skips_parallel_kernels():
    run_fits()  # fills the numba cache if this is its first use
    second = run_fits()
    assert second["compiled"] == []
    assert second["unused"] == {"scan_parallel": 0, "split_parallel": 0,
                                "grow_largest_first": 0, "detach": 0, "attach": 0}
