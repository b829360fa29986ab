"""DOT pictures of regression trees: every node shows its mean, rows and sd (hand-checked)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeRegressor, cli
from quercus.export.dot import render_dot, tree_to_dot

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


def small_model():
    # y = 1, 3 | 10, 14: root mean 7, sd sqrt((36 + 16 + 9 + 49) / 4) = 5.24; the cut
    # x <= 2.5 leaves means 2 (sd 1) and 12 (sd 2)
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    return DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 3.0, 10.0, 14.0])


def test_hand_checked_dot_text():
    dot = tree_to_dot(small_model())
    lines = dot.splitlines()
    assert lines[0] == "digraph quercus_tree {" and lines[-1] == "}"
    assert [line.split(", fillcolor")[0] for line in lines if re.match(r"  n\d", line)] == [
        '  n0 [label="x <= 2.5\\nmean = 7\\nn = 4\\nsd = 5.2"',
        '  n1 [label="mean = 2\\nn = 2\\nsd = 1"',
        '  n2 [label="mean = 12\\nn = 2\\nsd = 2"',
        '  n0 -> n1 [label="x <= 2.5"];',
        '  n0 -> n2 [label="x > 2.5\\nor missing"];',
    ]
    fills = [line.split('fillcolor="')[1][:7] for line in lines if "fillcolor" in line]
    assert len(set(fills)) == 3  # the higher the mean, the darker
    assert sum(int(fills[2][i:i + 2], 16) for i in (1, 3, 5)) < sum(
        int(fills[1][i:i + 2], 16) for i in (1, 3, 5))


def test_airquality_leaves_match_the_text_tree():
    X = pd.read_csv(BUNDLED / "airquality.csv")
    y = X.pop("Ozone")
    dot = tree_to_dot(DecisionTreeRegressor(max_depth=2).fit(X, y))
    # the leaves of docs/regression.md's text tree: 142 (n = 2, sd 26), 23.6 (n = 77, sd 13),
    # 63 (n = 20, sd 25), 90.1 (n = 17, sd 15); the root: R's mean 42.12931 of 116 rows
    for mean, n, sd in [("142", 2, "26"), ("23.6", 77, "13"), ("63", 20, "25"),
                        ("90.1", 17, "15")]:
        assert f'label="mean = {mean}\\nn = {n}\\nsd = {sd}"' in dot
    assert 'label="Temp <= 82.5\\nmean = 42.1\\nn = 116\\nsd = 33"' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_and_cli(tmp_path, capsys):
    svg = render_dot(tree_to_dot(small_model()), "svg").decode()
    assert "<svg" in svg and "mean = 12" in svg
    data = str(BUNDLED / "airquality.csv")
    model_file, out = tmp_path / "ozone.json", tmp_path / "ozone.svg"
    assert cli.main(["train", data, "--target", "Ozone", "--max-depth", "2",
                     "--out", str(model_file)]) == 0
    capsys.readouterr()
    assert cli.main(["show", str(model_file), "--format", "svg", "--out", str(out)]) == 0
    assert "mean = 90.1" in out.read_text(encoding="utf-8")
