"""Tree.node_class: a node's predicted class when it is not the most probable one (loss
matrices), kept through pruning and model files."""

import json

import numpy as np
import pytest

from quercus import DecisionTreeClassifier, load_model
from quercus.errors import ModelFileError
from quercus.tree import LEAF, collapse


def _fitted():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([0, 0, 0, 1, 1, 0])
    return DecisionTreeClassifier(max_depth=2).fit(X, y), X


def test_predict_follows_node_class_not_the_most_probable_class():
    model, X = _fitted()
    tree = model.tree_
    leaves = model.apply(X)
    before = model.predict(X)
    tree.node_class = np.where(tree.kind == LEAF, 1, 0).astype(np.int32)  # every leaf says 1
    assert np.array_equal(model.predict(X), np.ones(len(X), dtype=int))
    assert not np.array_equal(before, model.predict(X))
    # probabilities are untouched: they still describe the training rows at the leaf
    assert np.allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert np.array_equal(model.apply(X), leaves)


def test_collapse_keeps_node_class_of_the_kept_nodes():
    model, _ = _fitted()
    tree = model.tree_
    tree.node_class = np.arange(tree.n_nodes, dtype=np.int32) % 2
    first_split_child = int(tree.children(0)[0])
    pruned = collapse(tree, [first_split_child])
    kept = [n for n in tree.subtree_nodes(0)
            if n not in tree.subtree_nodes(first_split_child)[1:]]
    assert np.array_equal(pruned.node_class, tree.node_class[kept])


def test_model_file_round_trip_and_bad_entries(tmp_path):
    model, X = _fitted()
    plain = tmp_path / "plain.json"
    model.save(plain)
    assert "node_class" not in json.loads(plain.read_text())["tree"]  # unchanged files
    model.tree_.node_class = np.where(model.tree_.kind == LEAF, 1, 0).astype(np.int32)
    path = tmp_path / "m.json"
    model.save(path)
    loaded = load_model(path)
    assert np.array_equal(loaded.predict(X), model.predict(X))
    document = json.loads(path.read_text())
    document["tree"]["node_class"][0] = 7
    path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="node_class"):
        load_model(path)


def test_every_reader_of_the_tree_names_the_node_class(tmp_path):
    """Text, rules, DOT, PMML, code and explanations agree with predict."""
    from quercus.export.codegen import to_source

    model, X = _fitted()
    model.tree_.node_class = np.where(model.tree_.kind == LEAF, 1, 0).astype(np.int32)
    assert {e.prediction for e in model.explain(X)} == {1}
    source = to_source(model, "python")
    namespace = {}
    exec(source, namespace)  # noqa: S102 - the generated module under test
    assert [namespace["predict"](list(map(float, row))) for row in X] == [1] * len(X)
    from quercus.export.pmml import to_pmml
    from quercus.export.text import tree_to_text

    text = tree_to_text(model)
    assert text.splitlines()[0] == "x0 <= 2.5: 1 (3, 0%)"  # 0% of the leaf's rows are class 1
    import re

    scores = re.findall(r'<Node id="(\d+)" score="(\d)"', to_pmml(model))
    leaves = set(np.flatnonzero(model.tree_.kind == LEAF).tolist())
    assert {(int(n), int(c) == 1) for n, c in scores} == {(n, n in leaves)
                                                           for n in range(model.tree_.n_nodes)}
