"""Shared pytest configuration: the hypothesis profiles of the fuzz tests (tests/test_fuzz.py),
the Dask cluster of the distributed tests (``client``) and the bytecode written before the
workers start (``_write_bytecode``).

``fuzz-ci`` (the default) runs a few examples per test so the suite stays fast;
``QUERCUS_FUZZ=long`` selects ``fuzz-long`` for a longer search (see docs/robustness.md).
Neither sets a deadline: fitting on a cold numba cache would make timing checks flaky.

The suite turns off the background warm-up of the kernels (``QUERCUS_WARMUP=0``, inherited
by the processes it starts): it compiles what it runs itself, and a warm-up started by a
test would compete with the tests and outlive the run. tests/test_warmup.py tests it. For
the same reason its own fits keep the short pure budget on a cold cache.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

os.environ["QUERCUS_WARMUP"] = "0"


def _short_cold_budgets():
    """The suite's own fits switch to compiled after 2 s of pure Python whatever the cache
    holds, as before the longer budgets of uncached kernels (up to 50 s of pure fits a
    worker on a cold cache); tests of the budgets set theirs (test_pure_kernels.py,
    test_warmup.py)."""
    from quercus import _kernel_path

    _kernel_path.COLD_BUDGETS = dict.fromkeys(_kernel_path.COLD_BUDGETS,
                                              _kernel_path.PURE_BUDGET)


_short_cold_budgets()


def _write_bytecode() -> None:
    """Write Python's bytecode of the quercus package and the pure copies of its kernels
    (``_kernel_path._pure_code``), as ``pip install`` of a wheel does at install time.

    The suite starts hundreds of ``python -m quercus`` processes. From an editable install
    with ``PYTHONDONTWRITEBYTECODE`` set (as in many containers), each of them would
    compile quercus's sources again: 1.2 s to import ``quercus.cli`` instead of 0.6 s.
    """
    import compileall
    import glob
    import sys

    import quercus
    from quercus import _kernel_path

    compileall.compile_dir(os.path.dirname(quercus.__file__), quiet=2)
    dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        for path in sorted(glob.glob(os.path.join(_kernel_path._kernel_dir(), "*.py"))):
            _kernel_path._pure_code(path)
    finally:
        sys.dont_write_bytecode = dont_write


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # once, before pytest-xdist starts its workers
        _write_bytecode()


_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("fuzz-ci", max_examples=25, deadline=None,
                          suppress_health_check=_QUIET)
settings.register_profile("fuzz-long", max_examples=2000, deadline=None,
                          suppress_health_check=_QUIET)


def _warm_worker():
    """Compile (or load from numba's cache) the worker kernels once per worker process."""
    from quercus._kernels.class_counts import add_class_counts, advance_slots
    from quercus._kernels.exact_sums import add_limb_counts, to_limbs

    binned = np.zeros((1, 2), dtype=np.uint8)
    add_class_counts(binned, np.zeros(2, np.int32), np.zeros(2, np.int32),
                     np.zeros((1, 1, 1, 1), np.int32))
    advance_slots(np.zeros(2, np.int32), binned, np.zeros(1, np.int32),
                  np.zeros((1, 1), np.bool_), np.zeros(1, np.int32), np.zeros(1, np.int32))
    add_limb_counts(binned, np.zeros((2, 3), np.int64), np.zeros(2, np.int32),
                    np.zeros((1, 1, 1, 3), np.int64))
    to_limbs(np.ones(2), 0, 0, 4, 32, np.zeros((2, 4), np.int64))


_cluster: dict = {}  # "cluster" and "client" while the Dask tests run
_dask_files: set = set()  # the test files with tests that use ``client``


@pytest.fixture()
def client():
    """A Dask client of one LocalCluster of 2 worker processes, shared by the Dask tests
    (tests/test_dask.py, tests/test_dask_regression.py). It closes when a pytest process
    goes on to a test of another file (``pytest_runtest_teardown``) and starts again if
    Dask tests come later: an idle cluster's processes would take a few per cent of a core
    each for the rest of the suite."""
    distributed = pytest.importorskip("distributed")
    if "client" not in _cluster:
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, memory_limit="2GiB")
        _cluster["cluster"], _cluster["client"] = cluster, distributed.Client(cluster)
        _cluster["client"].run(_warm_worker)
    return _cluster["client"]


def _close_cluster() -> None:
    client, cluster = _cluster.pop("client", None), _cluster.pop("cluster", None)
    if client is not None:
        client.close()
    if cluster is not None:
        cluster.close()


def pytest_collection_modifyitems(config, items):
    _dask_files.update(item.path for item in items
                       if "client" in getattr(item, "fixturenames", ()))


def pytest_runtest_teardown(item, nextitem):
    if _cluster and (nextitem is None or nextitem.path not in _dask_files):
        _close_cluster()


def pytest_sessionfinish(session, exitstatus):
    _close_cluster()
