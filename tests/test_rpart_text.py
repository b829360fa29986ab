"""print(fit) and printcp(fit) of every stored R fit, reproduced character for character
from the model built out of R's records (tests/data/rpart/out/*/*.txt)."""

from __future__ import annotations

import pytest
from rpart_records_from_json import all_fits, fit_text, model_from_fixture

from quercus.export.r_format import format_column, print_strings
from quercus.export.rpart_text import print_cp, print_rpart

FITS = all_fits()
IDS = [f"{d}-{f}" for d, f in FITS]


def block(text: str, name: str) -> str:
    """The lines of one ``== name`` block of a FIT.txt, without the blank lines at its end."""
    lines = text.split("\n")
    start = lines.index(f"== {name}") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("== "))
    return "\n".join(lines[start:end]).rstrip("\n")


@pytest.mark.parametrize(("dataset", "fit"), FITS, ids=IDS)
def test_print_rpart_matches_r(dataset, fit):
    model = model_from_fixture(dataset, fit)
    assert print_rpart(model) == block(fit_text(dataset, fit), "print(fit)")


@pytest.mark.parametrize(("dataset", "fit"), FITS, ids=IDS)
def test_printcp_matches_r_but_the_call(dataset, fit):
    model = model_from_fixture(dataset, fit)
    expected = block(fit_text(dataset, fit), "printcp(fit)").split("\n")
    ours = print_cp(model, call="CALL").split("\n")
    # R's call line may wrap over two lines; ours is one
    call_end = expected.index("Variables actually used in tree construction:") - 1
    assert ours[:2] == expected[:2] and ours[2] == "CALL"
    assert ours[3:] == expected[call_end:]


def test_r_number_formats():
    # values and texts from the stored printouts
    assert format_column([0.17647059, 0.01960784, 0.01]) == \
        ["0.17647059", "0.01960784", "0.01000000"]
    assert format_column([40.5, 4.764706, 12.65625]) == ["40.500000", " 4.764706", "12.656250"]
    assert format_column([0.5, 0.44, 0.01]) == ["0.50", "0.44", "0.01"]
    assert format_column([17, 6, 0]) == ["17", " 6", " 0"]
    assert format_column([1e-20, 1.0]) == ["1e-20", "1e+00"]
    assert print_strings(["Age", "Start"]) == ["[1] Age   Start"]


def test_printcp_of_another_learners_cp_table():
    """A CART model given kyphosis's cp table prints R's table and root node error
    (17 of 81 rows misclassified at the root)."""
    from rpart_records_from_json import frame_and_target

    from quercus import DecisionTreeClassifier

    X, y = frame_and_target("kyphosis")
    cart = DecisionTreeClassifier(max_depth=2).fit(X, y)
    cart.cp_table_ = model_from_fixture("kyphosis", "default").cp_table_
    lines = print_cp(cart, call="C").split("\n")
    expected = block(fit_text("kyphosis", "default"), "printcp(fit)").split("\n")
    assert "Root node error: 17/81 = 0.2098765" in lines
    assert lines[-4:] == expected[-4:]
