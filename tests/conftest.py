"""Shared pytest configuration: the hypothesis profiles of the fuzz tests (tests/test_fuzz.py).

``fuzz-ci`` (the default) runs a few examples per test so the suite stays fast;
``QUERCUS_FUZZ=long`` selects ``fuzz-long`` for a longer search (see docs/robustness.md).
Neither sets a deadline: fitting on a cold numba cache would make timing checks flaky.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("fuzz-ci", max_examples=25, deadline=None,
                          suppress_health_check=_QUIET)
settings.register_profile("fuzz-long", max_examples=2000, deadline=None,
                          suppress_health_check=_QUIET)
