"""Shared pytest configuration: the hypothesis profiles of the fuzz tests (tests/test_fuzz.py),
the Dask cluster of the distributed tests (``client``) and the bytecode written before the
workers start (``_write_bytecode``).

``fuzz-ci`` (the default) runs a few examples per test so the suite stays fast;
``QUERCUS_FUZZ=long`` selects ``fuzz-long`` for a longer search (see docs/robustness.md).
Neither sets a deadline: two busy cores would make timing checks flaky.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings


def _write_bytecode() -> None:
    """Write Python's bytecode of the quercus package, as ``pip install`` of a wheel does at
    install time.

    The suite starts hundreds of ``python -m quercus`` processes. From an editable install
    with ``PYTHONDONTWRITEBYTECODE`` set (as in many containers), each of them would
    compile quercus's sources again: 1.2 s to import ``quercus.cli`` instead of 0.6 s.
    """
    import compileall

    import quercus

    compileall.compile_dir(os.path.dirname(quercus.__file__), quiet=2)


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # once, before pytest-xdist starts its workers
        _write_bytecode()


_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("fuzz-ci", max_examples=25, deadline=None,
                          suppress_health_check=_QUIET)
settings.register_profile("fuzz-long", max_examples=2000, deadline=None,
                          suppress_health_check=_QUIET)


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
