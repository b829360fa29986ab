"""The HTML report of an rpart model: the cp plot (plotcp) with the table's numbers, absent
for models without cross-validated errors; the tree, rules and DOT still work."""

from __future__ import annotations

import re

import numpy as np
import pytest
from rpart_records_from_json import frame_and_target, load_json, model_from_fixture

from quercus import DecisionTreeClassifier
from quercus.export.cp_plot import plotcp_labels
from quercus.report import report_html


@pytest.mark.parametrize(("dataset", "fit"), [("kyphosis", "default"), ("credit-g", "cp0"),
                                              ("vote", "sur1")])
def test_cp_plot_holds_the_tables_numbers(dataset, fit):
    d = load_json(dataset, fit)
    X, y = frame_and_target(dataset)
    page = report_html(model_from_fixture(dataset, fit), X, y)
    assert '<section id="cp-plot">' in page and 'href="#cp-plot"' in page
    points = re.findall(r'<circle class="cp-point" data-cp="([^"]+)" data-xerror="([^"]+)" '
                        r'data-xstd="([^"]+)" data-size="(\d+)"', page)
    table = d["cptable"]
    np.testing.assert_array_equal([float(p[0]) for p in points], table["CP"])
    np.testing.assert_array_equal([float(p[1]) for p in points], table["xerror"])
    np.testing.assert_array_equal([float(p[2]) for p in points], table["xstd"])
    assert [int(p[3]) for p in points] == [k + 1 for k in table["nsplit"]]
    line = float(re.search(r'class="one-se" data-value="([^"]+)"', page).group(1))
    assert line == pytest.approx(d["one_se"]["threshold"], rel=1e-15)  # R's 1-SE threshold


def test_plotcp_labels_are_geometric_means():
    # kyphosis: CP 0.17647059, 0.01960784, 0.01
    assert plotcp_labels([0.17647059, 0.01960784, 0.01]) == ["Inf", "0.059", "0.014"]


def test_no_cp_plot_without_a_cp_table():
    X, y = frame_and_target("kyphosis")
    page = report_html(DecisionTreeClassifier(max_depth=2).fit(X, y), X, y)
    assert "cp-plot" not in page and "one-se" not in page


def test_report_text_rules_dot_work_on_rpart_trees():
    from quercus.export.dot import tree_to_dot
    from quercus.export.rules import tree_to_rules
    from quercus.export.text import tree_to_text

    model = model_from_fixture("kyphosis", "default")
    text = tree_to_text(model)
    assert "Start < 8.5" in text and "Start >= 8.5" in text  # the cut as rpart prints it
    rules = [str(rule) for rule in tree_to_rules(model)]
    assert len(rules) == model.tree_.n_leaves
    assert rules[2].startswith("IF 8.5 <= Start < 14.5 AND 55 <= Age < 111 THEN Kyphosis = "
                               "present")
    assert "Start >= 8.5" in tree_to_dot(model)


def test_report_node_details_list_the_surrogates():
    """kyphosis root: R's summary lists 'Number < 6.5 to the left' as its surrogate (left =
    node 2, Start >= 8.5); node 5 has 'Start < 9.5 to the left, Number < 5.5 to the right'
    (left = node 10, Age < 55)."""
    page = report_html(model_from_fixture("kyphosis", "default"))
    surrogates = re.findall(r'data-surrogates="([^"]*)"', page)
    assert "Number&lt; 6.5 goes as Start&gt;=8.5" in surrogates
    assert "Start&lt; 9.5 goes as Age&lt; 55; Number&gt;=5.5 goes as Age&lt; 55" in surrogates
    assert "data-surrogates" not in report_html(
        DecisionTreeClassifier(max_depth=2).fit(*frame_and_target("kyphosis")))
