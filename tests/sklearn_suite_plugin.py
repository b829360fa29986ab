"""A pytest plugin that runs scikit-learn's own ``sklearn/tree/tests/test_tree.py`` (the copy
installed with scikit-learn, never vendored) against Quercus's ``DecisionTreeClassifier``.

Loaded with ``-p sklearn_suite_plugin`` by ``tests/test_sklearn_suite.py`` (in a subprocess).
Before the test module is imported, ``sklearn.tree.DecisionTreeClassifier`` and
``sklearn.tree.ExtraTreeClassifier`` are replaced by thin subclasses of Quercus's estimator
(the extra tree is scikit-learn's: ``splitter="random"``, ``max_features="sqrt"``), so the
module's ``CLF_TREES``, ``ALL_TREES`` and parametrizations pick them up. Only the
classifier tests are kept (a test parametrized with a regressor, or whose source never
names a classifier, is deselected). The outcome of every kept test is written as JSON to
the file named by ``QUERCUS_SKLEARN_SUITE_REPORT``.
"""

from __future__ import annotations

import inspect
import json
import os

import pytest

import quercus

_CLASSIFIER_WORDS = ("DecisionTreeClassifier", "ExtraTreeClassifier", "CLF_TREES",
                     "ALL_TREES", "SPARSE_TREES")


class DecisionTreeClassifier(quercus.DecisionTreeClassifier):
    """Quercus's CART under scikit-learn's name (nothing overridden)."""


class ExtraTreeClassifier(quercus.DecisionTreeClassifier):
    """Quercus's CART with scikit-learn's extra-tree defaults."""

    def __init__(self, criterion="gini", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 monotonic_cst=None):
        super().__init__(criterion=criterion, splitter=splitter, max_depth=max_depth,
                         min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_weight_fraction_leaf=min_weight_fraction_leaf,
                         max_features=max_features, random_state=random_state,
                         max_leaf_nodes=max_leaf_nodes,
                         min_impurity_decrease=min_impurity_decrease,
                         class_weight=class_weight, ccp_alpha=ccp_alpha,
                         monotonic_cst=monotonic_cst)


def pytest_configure(config):
    import sklearn.tree

    sklearn.tree.DecisionTreeClassifier = DecisionTreeClassifier
    sklearn.tree.ExtraTreeClassifier = ExtraTreeClassifier
    config._quercus_outcomes = {}


def _is_classifier_test(item) -> bool:
    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        name = value if isinstance(value, str) else getattr(value, "__name__", "")
        if "Regressor" in name:
            return False
    if "Regressor" in item.nodeid:
        return False
    try:
        source = inspect.getsource(item.function)
    except (OSError, TypeError):
        return False
    return any(word in source for word in _CLASSIFIER_WORDS)


def _marks(variable: str) -> dict[str, str]:
    return json.loads(os.environ.get(variable, "{}"))


def _base_name(nodeid: str) -> str:
    return nodeid.split("::", 1)[-1]


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    skips, failures = _marks("QUERCUS_SKLEARN_SUITE_SKIP"), _marks("QUERCUS_SKLEARN_SUITE_XFAIL")
    for item in items:
        (kept if _is_classifier_test(item) else dropped).append(item)
        name = _base_name(item.nodeid)
        for key in (name, name.split("[", 1)[0]):  # a whole test or one parametrization
            if key in skips:
                item.add_marker(pytest.mark.skip(reason=skips[key]))
            if key in failures:
                item.add_marker(pytest.mark.xfail(reason=failures[key], strict=True))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    outcomes = item.config._quercus_outcomes
    name = _base_name(item.nodeid)
    if report.when == "setup" and report.skipped:
        outcomes[name] = "skipped"
    elif report.when == "call":
        if hasattr(report, "wasxfail"):
            outcomes[name] = "xfailed" if report.skipped else "failed"  # strict: XPASS fails
        else:
            outcomes[name] = "passed" if report.passed else (
                "skipped" if report.skipped else "failed")
    elif report.failed:
        outcomes[name] = "failed"


def pytest_unconfigure(config):
    path = os.environ.get("QUERCUS_SKLEARN_SUITE_REPORT")
    if path and hasattr(config, "_quercus_outcomes"):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(config._quercus_outcomes, handle, indent=1, sort_keys=True)
