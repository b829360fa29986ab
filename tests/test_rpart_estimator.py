"""DecisionTreeClassifier(algorithm="rpart") end to end, as a user calls it: pandas frames
with categorical columns in their declared level order, the fit's settings as estimator
parameters, and R's own printout and cp table (tests/data/rpart) as the expected output."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from rpart_fixtures import all_fits, base_fit, fit_settings, load_data, raw_fit
from test_rpart_text import block

from quercus import DecisionTreeClassifier, load_model
from quercus.export.rpart_text import print_cp, print_rpart


@functools.cache
def frame(name):
    data = load_data(name)
    columns = {}
    for j, column in enumerate(data.features):
        values = data.X[:, j]
        if data.categorical[j]:
            codes = np.where(np.isnan(values), -1, values).astype(int)
            columns[column] = pd.Categorical.from_codes(codes, categories=data.levels[column])
        else:
            columns[column] = values
    X = pd.DataFrame(columns)
    y = pd.Series(pd.Categorical.from_codes(data.y, categories=data.classes), name=data.target)
    return data, X, y


def params_of(name, fit):
    data = load_data(name)
    ref = raw_fit(name, base_fit(fit))
    ref["raw"] = {"fit": base_fit(fit)}
    s = fit_settings(ref, len(data.classes))
    c = s["control"]
    return {"algorithm": "rpart", "min_samples_split": c["min_split"],
            "min_samples_leaf": c["min_bucket"], "cp": c["cp"],
            "max_competitors": c["max_competitors"], "max_surrogates": c["max_surrogates"],
            "use_surrogates": c["use_surrogates"], "surrogate_style": c["surrogate_style"],
            "max_depth": c["max_depth"], "criterion": c["criterion"],
            "priors": None if s["priors"] is None else list(s["priors"]),
            "loss": None if s["loss"] is None else s["loss"].tolist(),
            "xval": data.folds, "prune": "1se" if fit.endswith("_1se") else None}


def _cases():
    # every stored fit, soybean's 19-class categorical ties included since rpart's
    # Gray-code running sums were found (docs/rpart.md, "Categorical splits")
    return [pytest.param(name, fit, id=f"{name}-{fit}") for name, fit in all_fits()]


@pytest.mark.parametrize(("name", "fit"), _cases())
def test_estimator_prints_rs_tree_and_cp_table(name, fit):
    data, X, y = frame(name)
    model = DecisionTreeClassifier(**params_of(name, fit)).fit(X, y)
    text = (pd.io.common.Path(__file__).parent / "data" / "rpart" / "out" / name
            / f"{fit}.txt").read_text()
    assert print_rpart(model) == block(text, "print(fit)")
    ref = raw_fit(name, fit)["cptable"]
    assert list(model.cp_table_["nsplit"]) == ref["nsplit"]
    np.testing.assert_allclose(model.cp_table_["CP"], ref["CP"], rtol=1e-9)
    np.testing.assert_allclose(model.cp_table_["rel_error"], ref["rel_error"], rtol=1e-9)
    expected_classes = raw_fit(name, fit)["predictions"]["class_newdata"]
    assert list(model.predict(X)) == [data.classes[k - 1] if isinstance(k, int) else k
                                      for k in expected_classes]


def test_printcp_through_the_estimator_and_a_saved_model(tmp_path):
    data, X, y = frame("credit-g")
    model = DecisionTreeClassifier(algorithm="rpart", xval=data.folds).fit(X, y)
    expected = block((pd.io.common.Path(__file__).parent / "data" / "rpart" / "out"
                      / "credit-g" / "default.txt").read_text(), "printcp(fit)").split("\n")
    ours = print_cp(model).split("\n")
    assert ours[2] == "DecisionTreeClassifier(algorithm='rpart', xval=<1000 values>)"
    assert ours[3:] == expected[expected.index(
        "Variables actually used in tree construction:") - 1:]
    model.save(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert print_cp(loaded) == print_cp(model)
    assert print_rpart(loaded) == print_rpart(model)
    assert np.array_equal(loaded.predict(X), model.predict(X))


def test_prune_parameter_and_pruned_method_agree():
    _, X, y = frame("credit-g")
    full = DecisionTreeClassifier(**params_of("credit-g", "default")).fit(X, y)
    one_se = DecisionTreeClassifier(**{**params_of("credit-g", "default"),
                                       "prune": "1se"}).fit(X, y)
    assert list(one_se.cp_table_["nsplit"]) == [0, 3, 4]  # R: 1-SE picks 4 splits
    copy = full.pruned(float(one_se.cp_table_["CP"].iloc[-1]))
    assert print_rpart(copy) == print_rpart(one_se)
    assert full.tree_.n_nodes > copy.tree_.n_nodes  # the original is untouched


def test_rpart_parameter_errors():
    _, X, y = frame("kyphosis")
    with pytest.raises(ValueError, match="use_surrogates must be one of 0, 1, 2"):
        DecisionTreeClassifier(algorithm="rpart", use_surrogates=3).fit(X, y)
    with pytest.raises(ValueError, match="max_depth must be None or an int in"):
        DecisionTreeClassifier(algorithm="rpart", max_depth=31).fit(X, y)
    with pytest.raises(ValueError, match="prune='1se' needs cross-validation"):
        DecisionTreeClassifier(algorithm="rpart", xval=0, prune="1se").fit(X, y)
    with pytest.raises(ValueError, match="priors must be positive and sum to 1"):
        DecisionTreeClassifier(algorithm="rpart", priors=[0.5, 0.6]).fit(X, y)
    with pytest.raises(ValueError, match="loss must be zero on the diagonal"):
        DecisionTreeClassifier(algorithm="rpart", loss=[[1, 1], [1, 0]]).fit(X, y)
    with pytest.raises(ValueError, match="xval fold ids must use every integer"):
        DecisionTreeClassifier(algorithm="rpart", xval=np.r_[np.ones(80, int), 3]).fit(X, y)


def test_rpart_defaults_follow_rpart_control():
    """minsplit 20 and minbucket round(20 / 3) = 7 by default; only min_samples_leaf given:
    minsplit = 3 x it; xval=0 leaves xerror empty."""
    _, X, y = frame("kyphosis")
    model = DecisionTreeClassifier(algorithm="rpart", xval=0).fit(X, y)
    assert model.rpart_fit_.control.min_split == 20
    assert model.rpart_fit_.control.min_bucket == 7
    assert model.cp_table_["xerror"].isna().all()
    leaf_only = DecisionTreeClassifier(algorithm="rpart", xval=0, min_samples_leaf=4).fit(X, y)
    assert leaf_only.rpart_fit_.control.min_split == 12


def test_one_class_gives_a_single_leaf_and_a_zero_cp_table():
    """R's rpart stops with an error here; Quercus returns the one-leaf tree (auto's inner
    folds can hold a single class)."""
    X = pd.DataFrame({"x": np.arange(30.0)})
    y = pd.Series(pd.Categorical(["a"] * 30, categories=["a", "b"]))
    model = DecisionTreeClassifier(algorithm="rpart").fit(X, y)
    assert model.get_n_leaves() == 1
    assert model.cp_table_.to_numpy().tolist() == [[0.0, 0, 0.0, 0.0, 0.0]]
    assert set(model.predict(X)) == {"a"}
