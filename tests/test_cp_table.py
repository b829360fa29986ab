"""The cp-table rules against rpart's stored 1-SE choices (tests/data/rpart, real R runs)."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from quercus.pruning.cp_table import choose_row, make_cp_table, one_se_line

FITS = sorted((Path(__file__).parent / "data" / "rpart" / "out").glob("*/*.json.gz"))


def _load(path):
    with gzip.open(path, "rt") as handle:
        return json.load(handle)


@pytest.mark.parametrize("path", [p for p in FITS if not p.name.endswith("_1se.json.gz")],
                         ids=lambda p: f"{p.parent.name}-{p.name.split('.')[0]}")
def test_one_se_row_is_rpart_anchor_choice(path):
    fit = _load(path)
    cp = fit["cptable"]
    table = make_cp_table(cp["CP"], cp["nsplit"], cp["rel_error"], cp["xerror"], cp["xstd"])
    one_se = fit["one_se"]
    assert choose_row(table, "min") + 1 == one_se["min_row"]
    assert choose_row(table, "1se") + 1 == one_se["chosen_row"]
    assert one_se_line(table) == pytest.approx(one_se["threshold"], rel=1e-12)
    assert table["nsplit"][choose_row(table, "1se")] == one_se["chosen_nsplit"]


def test_rules_on_a_hand_table():
    # least xerror 0.5 at row 2 (xstd 0.1): the line is 0.6, row 1 (0.55) is the first under it
    table = make_cp_table([0.3, 0.1, 0.01], [0, 1, 3], [1, 0.7, 0.6], [1.0, 0.55, 0.5],
                          [0.2, 0.1, 0.1])
    assert choose_row(table, "min") == 2
    assert choose_row(table, "1se") == 1
    assert list(table.columns) == ["CP", "nsplit", "rel_error", "xerror", "xstd"]


def test_unknown_rule_and_missing_xerror_are_refused():
    table = make_cp_table([0.3], [0], [1.0])
    assert np.isnan(table["xerror"][0])
    with pytest.raises(ValueError, match="no cross-validated"):
        choose_row(table, "1se")
    with pytest.raises(ValueError, match="prune must be"):
        choose_row(table, "best")
