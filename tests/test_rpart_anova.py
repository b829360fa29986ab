"""rpart's regression trees (``DecisionTreeRegressor(algorithm="rpart")``) against real
R 4.2.2 / rpart 4.1.19 ``method = "anova"`` fits (tests/data/rpart_anova, made by
tools/make_rpart_anova_fixtures.R).

Every stored fit of the five data sets is regrown with its stored controls, fold vector and
case weights (one weighted fit) and compared field by field to 1e-9 relative: frame, split table, importance, each training
row's node, the cp table (rpart's own xerror/xstd with usesurrogate 2; everywhere the values
recomputed from rpart's ``xpred.rpart``), the 1-SE prunings, every row's prediction with
each usesurrogate, and the print(fit) / printcp texts.
"""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest
from rpart_anova_fixtures import (
    all_fits,
    base_fit,
    control_of,
    estimator_params,
    load_data,
    load_fit,
)

from quercus import DecisionTreeRegressor, load_model
from quercus.export.rpart_text import print_cp, print_rpart
from quercus.growing.rpart_anova import fit_rpart_anova, prune_rpart_anova
from quercus.growing.rpart_grow import RpartControl
from quercus.pruning.cp_table import choose_row
from quercus.rpart_routing import rpart_node_numbers

REL = 1e-9
FITS = [pytest.param(name, fit, id=f"{name}-{fit}") for name, fit in all_fits()]
UNPRUNED = [p for p in FITS if not p.values[1].endswith("_1se")]


@functools.cache
def _data(name):
    return load_data(name)


@functools.cache
def _ref(name, fit):
    return load_fit(name, fit, _data(name))


def _weights(name, fit):
    weights = _ref(name, base_fit(fit))["raw"].get("case_weights")
    return None if weights is None else np.asarray(weights, dtype=np.float64)


@functools.cache
def _grown(name, fit):
    data = _data(name)
    return fit_rpart_anova(data.X, data.y, _weights(name, fit), categorical=data.categorical,
                           n_levels=data.n_levels,
                           control=RpartControl(**control_of(_ref(name, fit))),
                           folds=data.folds)


def _ours(name, fit):
    base = _grown(name, base_fit(fit))
    if fit == base_fit(fit):
        return base
    return prune_rpart_anova(base, float(base.cp_table["CP"][choose_row(base.cp_table, "1se")]))


@functools.cache
def _model(name, fit):
    data = _data(name)
    model = DecisionTreeRegressor(**estimator_params(_ref(name, base_fit(fit))),
                                  xval=data.folds, prune="1se" if fit.endswith("_1se") else None)
    return model.fit(data.frame, data.y, sample_weight=_weights(name, fit))


def _close(ours, ref):
    np.testing.assert_allclose(np.asarray(ours, dtype=np.float64),
                               np.asarray(ref, dtype=np.float64), rtol=REL, atol=1e-12)


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_frame(name, fit):
    ours, ref = _ours(name, fit), _ref(name, fit)
    assert ours.frame["node"] == ref["frame"]["node"]
    for column in ("feature", "n", "ncompete", "nsurrogate"):
        assert list(ours.frame[column]) == list(ref["frame"][column]), column
    for column in ("wt", "dev", "yval", "complexity"):
        _close(ours.frame[column], ref["frame"][column])


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_split_table(name, fit):
    ours, ref = _ours(name, fit), _ref(name, fit)
    assert len(ours.splits) == len(ref["splits"])
    for s, r in zip(ours.splits, ref["splits"]):
        where = f"node {r['node']} {r['role']} {r['feature']}"
        assert (s.node, s.role, s.feature, s.count) == (r["node"], r["role"], r["feature"],
                                                         r["count"]), where
        _close(s.improve, r["improve"])
        if r["adj"] is None:
            assert s.adj is None, where
        else:
            _close(s.adj, r["adj"])
        if "cut" in r:
            assert s.sides is None and s.left == r["left"], where
            _close(s.cut, r["cut"])
        else:
            np.testing.assert_array_equal(s.sides, r["sides"], err_msg=where)


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_variable_importance(name, fit):
    _close(_ours(name, fit).importance, _ref(name, fit)["importance"])


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_rows_used_and_their_nodes(name, fit):
    ours, ref = _ours(name, fit), _ref(name, fit)
    np.testing.assert_array_equal(ours.dropped, ref["dropped"])
    assert len(ours.where) - len(ours.dropped) == ref["raw"]["n_used"]
    np.testing.assert_array_equal(ours.where, ref["where_train"])


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_cp_table(name, fit):
    table, ref = _ours(name, fit).cp_table, _ref(name, fit)
    assert list(table["nsplit"]) == list(ref["raw"]["cptable"]["nsplit"])
    _close(table["CP"], ref["raw"]["cptable"]["CP"])
    _close(table["rel_error"], ref["raw"]["cptable"]["rel_error"])


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_cross_validated_error(name, fit):
    table, ref = _ours(name, fit).cp_table, _ref(name, fit)["raw"]
    base = _ref(name, base_fit(fit))["raw"]
    if base["control"]["usesurrogate"] == 2:  # rpart's own table
        _close(table["xerror"], ref["cptable"]["xerror"])
        _close(table["xstd"], ref["cptable"]["xstd"])
    # the squared errors of rpart's held-out predictions (xpred.rpart), on every fit
    m = len(table)
    _close(table["xerror"], base["xpred"]["xerror_recomputed"][:m])
    _close(table["xstd"], base["xpred"]["xstd_recomputed"][:m])


def test_usesurrogate_0_1_xerror_is_rpart_xpred_not_its_table():
    """As for classification, rpart's own xerror with usesurrogate 0/1 charges the held-out
    rows that stop at a node stale errors (docs/rpart.md); Quercus's equals xpred.rpart's."""
    ref = _ref("labor", "sur0")["raw"]
    assert ref["xpred"]["max_abs_diff_xerror"] > 0.1
    _close(_ours("labor", "sur0").cp_table["xerror"], ref["xpred"]["xerror_recomputed"])


@pytest.mark.parametrize(("name", "fit"), UNPRUNED)
def test_one_se_choice(name, fit):
    table, one_se = _ours(name, fit).cp_table, _ref(name, fit)["raw"]["one_se"]
    row = choose_row(table, "1se")
    assert row == one_se["chosen_row"] - 1
    _close(table["CP"][row], one_se["chosen_cp"])


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_every_row_predicted_as_rpart_predicts(name, fit):
    """The estimator on the data frame: predict(data) for every row (also rows with a
    missing target) and each row's node with usesurrogate 0, 1 and 2."""
    model, pred = _model(name, fit), _ref(name, fit)["raw"]["predictions"]
    data = _data(name)
    _close(model.predict(data.frame), pred["predict_newdata"])
    tree = model.tree_
    numbers = rpart_node_numbers(tree)
    for use in (0, 1, 2):
        tree.rpart = tree.rpart.with_use_surrogates(use)
        try:
            nodes = numbers[tree.apply(model._encode(data.frame))]
        finally:
            tree.rpart = tree.rpart.with_use_surrogates(model.use_surrogates)
        np.testing.assert_array_equal(nodes, pred[f"where_newdata_usesurrogate_{use}"],
                                      err_msg=f"usesurrogate {use}")


@pytest.mark.parametrize(("name", "fit"), FITS)
def test_prints_like_r(name, fit):
    """print(fit) exactly; printcp(fit) exactly, given R's call line (with usesurrogate 0/1
    the xerror and xstd columns are xpred's, test_cross_validated_error, not rpart's)."""
    model, ref = _model(name, fit), _ref(name, fit)
    assert print_rpart(model) == ref["print"]
    expected = ref["printcp"].split("\n")
    assert expected[1] == "Regression tree:"
    call = "\n".join(expected[2:expected.index("Variables actually used in tree "
                                               "construction:") - 1])  # R may wrap it
    ours = print_cp(model, call=call).split("\n")
    if _ref(name, base_fit(fit))["raw"]["control"]["usesurrogate"] == 2:
        assert ours == expected
    else:
        table = len(expected) - len(model.cp_table_) - 1  # the header, then one line a row
        assert ours[:table] == expected[:table]
        assert [r.split()[:4] for r in ours[table:]] == [r.split()[:4] for r in expected[table:]]


@pytest.mark.parametrize(("name", "fit"), [("airquality", "default"), ("credit-g", "sur1")])
def test_model_file_round_trip(tmp_path, name, fit):
    model, data = _model(name, fit), _data(name)
    model.save(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert isinstance(loaded, DecisionTreeRegressor) and loaded.algorithm == "rpart"
    np.testing.assert_array_equal(loaded.predict(data.frame), model.predict(data.frame))
    assert print_rpart(loaded) == print_rpart(model)
    assert print_cp(loaded) == print_cp(model)
    assert loaded.variable_importance_.equals(model.variable_importance_)


def test_pruned_copy_is_rs_prune():
    model = _model("airquality", "cp0")
    ref = _ref("airquality", "cp0_1se")
    row = _ref("airquality", "cp0")["raw"]["one_se"]["chosen_row"] - 1  # R's 1-SE row,
    copy = model.pruned(float(model.cp_table_["CP"][row]))  # at our own (equal) CP
    assert copy is not model and model.get_n_leaves() == 9
    assert print_rpart(copy) == ref["print"]
    _close(copy.cp_table_["CP"], ref["raw"]["cptable"]["CP"])
    with pytest.raises(ValueError, match="needs a model fitted with algorithm='rpart'"):
        DecisionTreeRegressor().fit([[0], [1], [2]], [0, 1, 2]).pruned(0.1)


def test_defaults_are_rparts_and_mistakes_are_clear():
    data = _data("kyphosis")
    model = DecisionTreeRegressor(algorithm="rpart", xval=data.folds).fit(data.frame, data.y)
    assert print_rpart(model) == _ref("kyphosis", "default")["print"]
    assert model.predict(data.frame).dtype == np.float64
    for params, message in (({"criterion": "absolute_error"}, "criterion"),
                            ({"prune": "best"}, "prune must be"),
                            ({"prune": "1se", "xval": 0}, "needs cross-validation"),
                            ({"max_depth": 31}, "max_depth"),
                            ({"algorithm": "c45"}, "algorithm")):
        with pytest.raises(ValueError, match=message):
            DecisionTreeRegressor(**{"algorithm": "rpart", **params}).fit(data.frame, data.y)


def _quercus(*args, cwd):
    return subprocess.run([sys.executable, "-m", "quercus", *args], check=False, cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_cli_trains_shows_and_prints_cp(tmp_path):
    """``quercus train --algorithm rpart`` on a numeric target; show and cp print as R."""
    data = _data("kyphosis")
    frame = data.frame.assign(Age=data.y)
    frame.to_csv(tmp_path / "k.csv", index=False)
    trained = _quercus("train", "k.csv", "--target", "Age", "--algorithm", "rpart", "--cp",
                       "0", "--out", "m.json", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert "(rpart, anova)" in trained.stdout
    shown = _quercus("show", "m.json", "--format", "rpart", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == _ref("kyphosis", "cp0")["print"] + "\n"
    cp = _quercus("cp", "m.json", cwd=tmp_path)
    assert cp.returncode == 0 and "Regression tree:" in cp.stdout
    assert "Root node error: 270088.3/81 = 3334.424" in cp.stdout
    pruned = _quercus("train", "k.csv", "--target", "Age", "--algorithm", "rpart", "--cp",
                      "0", "--prune", "1se", "--min-samples-split", "10", "--out", "p.json",
                      cwd=tmp_path)
    assert pruned.returncode == 0, pruned.stderr
    assert "Pruned by 10-fold cross-validation (1-SE rule): cp " in pruned.stdout
    same = DecisionTreeRegressor(algorithm="rpart", cp=0.0, prune="1se",
                                 min_samples_split=10).fit(data.frame, data.y)
    loaded = load_model(tmp_path / "p.json")
    assert loaded.chosen_cp_ == same.chosen_cp_
    assert print_rpart(loaded) == print_rpart(same)
    bad = _quercus("train", "k.csv", "--target", "Age", "--algorithm", "rpart", "--loss",
                   "0,1;1,0", "--out", "x.json", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr == "quercus: error: --loss is for class targets; a regression tree " \
                         "has none\n"


def _sklearn_checks():
    from sklearn.utils.estimator_checks import parametrize_with_checks

    # rpart's minsplit and minbucket count rows, not weight (as R does): a row of weight 2
    # is not two rows, so the weight-equivalence checks cannot hold
    reason = "rpart's minsplit/minbucket count rows, not case weight"
    return parametrize_with_checks(
        [DecisionTreeRegressor(algorithm="rpart")],
        expected_failed_checks=lambda _: {
            "check_sample_weight_equivalence_on_dense_data": reason,
            "check_sample_weight_equivalence_on_sparse_data": reason},
        xfail_strict=True)


@_sklearn_checks()
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize(("name", "fit"), [("airquality", "default"), ("labor", "sur1"),
                                           ("penguins", "sur0")])
def test_pmml_scores_every_row_as_rpart(name, fit):
    """The PMML (surrogate predicates; usesurrogate 0 stops at an internal node), scored by
    test_pmml's spec-following scorer, gives R's prediction of every row."""
    from test_pmml import _xsd, frame_rows, score

    from quercus.export.pmml import to_pmml

    model, data = _model(name, fit), _data(name)
    document = to_pmml(model)
    _xsd().validate(document)
    assert 'booleanOperator="surrogate"' in document
    got = [float(score(document, row)[0]) for row in frame_rows(data.frame)]
    _close(got, _ref(name, fit)["raw"]["predictions"]["predict_newdata"])


@pytest.mark.parametrize(("name", "fit"), [("airquality", "cp0"), ("credit-g", "cp0")])
def test_prune_min_is_the_row_of_least_xerror(name, fit):
    """prune="min" keeps the subtree of R's cp-table row with the least xerror."""
    data, ref = _data(name), _ref(name, fit)
    model = DecisionTreeRegressor(**estimator_params(ref), xval=data.folds,
                                  prune="min").fit(data.frame, data.y)
    row = ref["raw"]["one_se"]["min_row"] - 1
    assert int(model.cp_table_["nsplit"].iloc[-1]) == ref["raw"]["cptable"]["nsplit"][row]
    assert model.get_n_leaves() == ref["raw"]["cptable"]["nsplit"][row] + 1
    _close(model.chosen_cp_, ref["raw"]["cptable"]["CP"][row])
