"""Model files whose tree arrays hold an out-of-range index are refused when loaded
(issue 17): one edit per array and per learner, each refused with a ``ModelFileError`` that
names the file, the array and the node; the traversal refuses rows without a tested column
with a ``DataError``, never reading out of bounds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import quercus
from quercus import DataError, DecisionTreeClassifier, ModelFileError
from quercus.cli import main
from quercus.data import read_arff
from quercus.export.model_checks import check_tree
from quercus.export.model_file import model_to_dict
from quercus.tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC

ARFF = Path(__file__).parent / "data" / "arff"

# learner -> (data file, parameters); labor has numeric and categorical features
LEARNERS = {
    "cart": ("labor.arff", {}),
    "cart-hist": ("labor.arff", {"splitter": "hist"}),
    "id3": ("contact-lenses.arff", {"algorithm": "id3"}),
    "c45": ("labor.arff", {"algorithm": "c45", "binary_categorical_splits": True}),
    "interval": ("labor.arff", {"algorithm": "interval"}),
}
_FITTED: dict = {}


def fitted(learner: str):
    if learner not in _FITTED:
        name, params = LEARNERS[learner]
        data = read_arff(ARFF / name)
        _FITTED[learner] = DecisionTreeClassifier(**params).fit(data.X, data.y), data.X
    return _FITTED[learner]


def _nodes(tree: dict, kinds) -> list[int]:
    return [i for i, k in enumerate(tree["kind"]) if k in kinds]


def _children(tree: dict, node: int) -> list[int]:
    return tree["child_ids"][tree["child_ptr"][node]:tree["child_ptr"][node + 1]]


SPLITS = (NUMERIC, CATEGORICAL, INTERVAL)


# Each edit changes one array of the tree entry in place and returns (array, node) that the
# error message must name; the learners listed are those whose trees have such a node.
def feature_beyond(tree, doc):
    node = _nodes(tree, SPLITS)[0]
    tree["feature"][node] = len(doc["schema"]["features"])
    return "feature", node


def feature_negative(tree, doc):
    node = _nodes(tree, SPLITS)[-1]
    tree["feature"][node] = -1
    return "feature", node


def leaf_feature(tree, doc):  # the falsifying example of issue 17, on a leaf
    node = _nodes(tree, (LEAF,))[-1]
    tree["feature"][node] = len(doc["schema"]["features"])
    return "feature", node


def categorical_split_of_numeric(tree, doc):
    node = _nodes(tree, (CATEGORICAL,))[0]
    kinds = [f["kind"] for f in doc["schema"]["features"]]
    tree["feature"][node] = kinds.index("numeric")
    return "feature", node


def kind_unknown(tree, doc):
    node = _nodes(tree, SPLITS)[0]
    tree["kind"][node] = 7
    return "kind", node


def child_is_root(tree, doc):
    node = _nodes(tree, SPLITS)[-1]
    tree["child_ids"][tree["child_ptr"][node]] = 0
    return "child_ids", node


def child_beyond(tree, doc):
    node = _nodes(tree, SPLITS)[-1]
    tree["child_ids"][tree["child_ptr"][node + 1] - 1] = len(tree["kind"])
    return "child_ids", node


def child_twice(tree, doc):
    inner = _nodes(tree, SPLITS)
    node = inner[-1]
    first, last = tree["child_ptr"][node], tree["child_ptr"][node + 1] - 1
    tree["child_ids"][last] = tree["child_ids"][first]
    return "child_ids", node


def missing_branch_beyond(tree, doc):
    node = _nodes(tree, SPLITS)[0]
    tree["missing_branch"][node] = len(_children(tree, node))
    return "missing_branch", node


def missing_branch_below(tree, doc):
    node = _nodes(tree, SPLITS)[0]
    tree["missing_branch"][node] = -2
    return "missing_branch", node


def leaf_missing_branch(tree, doc):
    node = _nodes(tree, (LEAF,))[0]
    tree["missing_branch"][node] = 1
    return "missing_branch", node


def category_branch_beyond(tree, doc):
    node = _nodes(tree, (CATEGORICAL,))[0]
    tree["category_branch"][tree["category_ptr"][node]] = len(_children(tree, node))
    return "category_branch", node


def category_map_short(tree, doc):
    node = _nodes(tree, (CATEGORICAL,))[0]
    del tree["category_branch"][tree["category_ptr"][node]]
    for i in range(node + 1, len(tree["category_ptr"])):
        tree["category_ptr"][i] -= 1
    return "category_ptr", node


def category_map_on_numeric(tree, doc):
    node = _nodes(tree, (NUMERIC, INTERVAL))[0]
    tree["category_branch"].insert(tree["category_ptr"][node], 0)
    for i in range(node + 1, len(tree["category_ptr"])):
        tree["category_ptr"][i] += 1
    return "category_ptr", node


def interval_class_beyond(tree, doc):
    node = _nodes(tree, (INTERVAL,))[0]
    tree["interval_class"][node] = tree["n_classes"]
    return "interval_class", node


def interval_class_off_interval(tree, doc):
    node = _nodes(tree, (LEAF,))[0]
    tree["interval_class"][node] = 0
    return "interval_class", node


def interval_high_null(tree, doc):
    node = _nodes(tree, (INTERVAL,))[0]
    tree["interval_high"][node] = None
    return "interval_high", node


def threshold_null(tree, doc):
    node = _nodes(tree, (NUMERIC, INTERVAL))[0]
    tree["threshold"][node] = None
    return "threshold", node


def empty_split(tree, doc):
    node = _nodes(tree, SPLITS)[0]
    tree["empty"][node] = True
    return "empty", node


def negative_class_weight(tree, doc):
    node = _nodes(tree, (LEAF,))[0]
    tree["value"][node * tree["n_classes"]] = -1.0
    return "value", node


EDITS = {
    edit.__name__: (edit, learners) for edit, learners in [
        (feature_beyond, LEARNERS), (feature_negative, LEARNERS), (leaf_feature, LEARNERS),
        (categorical_split_of_numeric, ["cart", "cart-hist", "c45"]),
        (kind_unknown, LEARNERS), (child_is_root, LEARNERS), (child_beyond, LEARNERS),
        (child_twice, LEARNERS), (missing_branch_beyond, LEARNERS),
        (missing_branch_below, LEARNERS), (leaf_missing_branch, LEARNERS),
        (category_branch_beyond, ["cart", "cart-hist", "id3", "c45"]),
        (category_map_short, ["cart", "cart-hist", "id3", "c45"]),
        (category_map_on_numeric, ["cart", "cart-hist", "c45", "interval"]),
        (interval_class_beyond, ["interval"]), (interval_class_off_interval, LEARNERS),
        (interval_high_null, ["interval"]),
        (threshold_null, ["cart", "cart-hist", "c45", "interval"]),
        (empty_split, LEARNERS), (negative_class_weight, LEARNERS),
    ]
}
CASES = [(learner, edit) for edit, (_, learners) in EDITS.items() for learner in learners]


def _document(learner: str) -> dict:
    return json.loads(json.dumps(model_to_dict(fitted(learner)[0])))


@pytest.mark.parametrize("learner", LEARNERS)
def test_the_unedited_documents_load(tmp_path, learner):
    """The edits below are what makes the files fail; every learner's trees have the node
    kinds the edits need."""
    model, X = fitted(learner)
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(_document(learner)))
    np.testing.assert_array_equal(quercus.load_model(path).predict_proba(X),
                                  model.predict_proba(X))
    kinds = set(model.tree_.kind.tolist())
    assert (CATEGORICAL in kinds) == (learner != "interval")
    assert (NUMERIC in kinds) == (learner in ("cart", "cart-hist", "c45"))
    assert (INTERVAL in kinds) == (learner == "interval")


@pytest.mark.parametrize("learner, edit", CASES)
def test_an_index_out_of_range_is_refused_naming_file_array_and_node(tmp_path, learner, edit):
    document = _document(learner)
    array, node = EDITS[edit][0](document["tree"], document)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError) as info:
        quercus.load_model(path)
    message = str(info.value)
    assert message.startswith(f"{path} has inconsistent tree arrays: ")
    assert f"'{array}' of node {node}" in message and "\n" not in message


def test_a_leaf_naming_feature_16_of_16_is_refused_on_the_command_line(capsys, tmp_path):
    """Issue 17's falsifying file: CART on labor (16 features), a leaf's feature set to 16;
    it used to load and then fail in predict with a bare ValueError."""
    document = _document("cart")
    assert len(document["schema"]["features"]) == 16
    leaf = _nodes(document["tree"], (LEAF,))[-1]
    document["tree"]["feature"][leaf] = 16
    path, out = tmp_path / "m.json", tmp_path / "p.csv"
    path.write_text(json.dumps(document))
    data = tmp_path / "d.csv"
    fitted("cart")[1].to_csv(data, index=False)
    assert main(["predict", str(path), str(data), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("quercus: error: ") and str(path) in error
    assert f"'feature' of node {leaf} is 16" in error and "16 features" not in error
    assert not out.exists()


@pytest.mark.parametrize("path, value, expected", [
    (("tree", "n_classes"), 2.0, "'n_classes' must be an integer"),
    (("tree", "n_classes"), 3, "'value' has 6 rows of 3 class weights, 'kind' 9 nodes"),
    (("schema", "classes"), ["bad", "good", "ugly"], "'n_classes' is 2, the schema has 3"),
])
def test_the_class_count_is_checked(tmp_path, path, value, expected):
    document = _document("cart")
    document[path[0]][path[1]] = value
    file = tmp_path / "n.json"
    file.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match=expected):
        quercus.load_model(file)


def test_a_list_as_unclassified_marker_is_refused(tmp_path):
    document = _document("interval")
    document["params"]["unclassified"] = [1, "x"]
    path = tmp_path / "u.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="unclassified must be a single value"):
        quercus.load_model(path)


def test_traversal_ignores_leaf_features_and_refuses_narrow_rows():
    """Only the features that splits test need columns; a matrix without one is refused
    with a DataError (a QuercusError) by every traversal, not read out of bounds."""
    model, X = fitted("c45")  # C4.5: weighted missing-value routes (a second kernel)
    tree = model.tree_
    rows = model._encode(X)
    expected = tree.apply(rows)
    tested = int(tree.feature[tree.kind != LEAF].max())
    tree = type(tree)(**{name: None if getattr(tree, name) is None else getattr(tree, name).copy()
                         for name in tree.__dataclass_fields__})
    tree.feature[tree.kind == LEAF] = 99
    np.testing.assert_array_equal(tree.apply(rows), expected)
    narrow = rows[:, :tested]
    for traverse in (tree.apply, tree.predict_proba, tree.predict_codes, tree.decision_paths):
        with pytest.raises(DataError, match=f"X has {tested} columns; the tree tests feature "
                                            f"{tested}"):
            traverse(narrow)


@pytest.mark.parametrize("name", ["flowers_seed.xml", "compact_seed.xml"])
def test_seed_xml_trees_pass_the_checks_by_construction(name):
    """The XML reader builds its tree from checked attributes (features from ``Property``,
    classes from ``Class``), so its trees pass every index check; it does not run them
    itself, since the seed's format allows a NaN range end that the JSON checks refuse."""
    model = quercus.load_model(Path(__file__).parent / "data" / "interval" / name)
    check_tree(model.tree_, model.schema_)
    assert model.tree_.n_nodes > 1
