"""``dumps_indented`` writes the bytes of ``json.dumps(value, indent=1, allow_nan=False)``."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quercus import DecisionTreeClassifier
from quercus.export.json_text import dumps_indented
from quercus.export.model_writer import model_to_dict


def reference(value) -> str:
    return json.dumps(value, indent=1, allow_nan=False)


scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(alphabet=st.sampled_from('ab ,:"\\\n\té€'), max_size=6))
documents = st.recursive(
    scalars,
    lambda inner: (st.lists(inner, max_size=5) | st.tuples(inner, inner)
                   | st.dictionaries(st.text(alphabet="k, \"é", max_size=4), inner,
                                     max_size=4)),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_any_document_gives_json_dumps_text(document):
    assert dumps_indented(document) == reference(document)


@pytest.mark.parametrize("document", [
    [], {}, [[]], {"a": {}}, [1.5, -0.0, 1e300, 5e-324, True, None, 2**64],
    {"numbers": [0.1, 0.2], "names": ["a, b", "c"], "mixed": [1, "x, y", [2, 3]]},
    {1: "int key"}, {"a": {2.5: [1, 2]}},  # non-str keys: json.dumps converts them
])
def test_edge_cases_match(document):
    assert dumps_indented(document) == reference(document)


@pytest.mark.parametrize("bad", [[1.0, float("nan")], {"x": [float("inf")]}, float("-inf")])
def test_non_finite_numbers_are_refused_as_json_refuses_them(bad):
    with pytest.raises(ValueError):
        reference(bad)
    with pytest.raises(ValueError):
        dumps_indented(bad)


def test_values_json_cannot_hold_raise_type_error():
    for bad in ([np.int64(3)], {"a": {1, 2}}, [object()]):
        with pytest.raises(TypeError):
            dumps_indented(bad)


@pytest.mark.parametrize("algorithm", ["c45", "cart", "rpart"])
def test_a_model_document_is_written_as_json_dumps_writes_it(algorithm):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.where(X[:, 0] + rng.normal(size=400) > 0, "yes", "no")
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    document = model_to_dict(model)
    assert dumps_indented(document) == reference(document)
