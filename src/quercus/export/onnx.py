"""ONNX export: a fitted tree as an ``ai.onnx.ml`` TreeEnsembleClassifier (see docs/export.md),
or a regression tree as a TreeEnsembleRegressor (docs/regression.md).

By default (``inputs="raw"``) the graph takes one [N, 1] input per feature, named after it:
numbers for a numeric feature, strings for a categorical one, which LabelEncoder nodes turn
into codebook codes (:mod:`quercus.export.onnx_inputs`). With ``inputs="encoded"`` it takes
one tensor ``X`` of shape [N, n_features] holding the *encoded* rows, as
``model.schema_.encode`` makes them: numeric features as their value, categorical features
as their codebook code (0 .. n_categories-1), a missing value as NaN. Either way the tree
ensemble below reads that matrix. It returns ``label``
(int64 class labels when every class is an integer, strings otherwise) and
``probabilities`` (float32 [N, n_classes], or with ``zipmap=True`` a list of
``{label: probability}`` maps). A regression tree's graph returns ``prediction`` (float32
[N, 1], the leaf's mean; onnx's TreeEnsembleRegressor has a float output only).

How each node kind is written (ai.onnx.ml opset 3, as onnxruntime runs it):

* a numeric threshold is one ``BRANCH_LEQ`` node; an INTERVAL node (class-interval tree) is
  ``BRANCH_LT low`` then ``BRANCH_GT high``, both true branches leading outside;
* a categorical node (a subset split or a multiway split) is a chain of ``BRANCH_EQ`` nodes,
  one per category code, whose true branches lead to the branch of that code (codes of one
  branch share their true child, which onnxruntime runs as one set-membership test); the
  branch holding the most codes is the chain's fall-through, so a value that is no code of
  the codebook takes that branch;
* a missing value takes the learned branch (CART, the class-interval tree) through
  ``nodes_missing_value_tracks_true``, or through a ``BRANCH_LT -inf`` node, which is true
  for NaN only when it tracks missing values as true.

C4.5 (and ID3) send a row with a missing value down *every* branch of the node, weighted by
the branches' shares of the training weight. One tree of a TreeEnsembleClassifier cannot
split a row, but the ensemble sums its trees' leaf weights (``post_transform="NONE"``), and
the weighted descent is a sum of leaf distributions. So the export is exact:

* tree 0 is the model's tree, except that at a weighted node a missing value reaches a leaf
  with weight 0;
* for every weighted node ``m`` and child ``c`` of ``m``, another tree holds the chain of
  tests that leads from the root to ``m`` with the feature of ``m`` missing (each failing test
  ending in a weight-0 leaf), then the subtree of ``c`` built the same way, its leaf
  weights multiplied by the product of the shares taken on the way.

A row reaches, in every tree, either a weight-0 leaf or one leaf of the weighted descent with
exactly its share, so the sum is the model's ``predict_proba``. Trees are only added where a
feature is not known on the way (a feature already tested with a known value cannot be
missing further down), but the number of trees grows with the product of the branch counts
of the weighted nodes on a path whose features may all be missing: ``max_nodes`` bounds the
result, and a tree that would exceed it raises ``ValueError`` rather than export something
that predicts differently.

Labels are computed in the graph as ``ArgMax`` (the first class on a tie, as ``predict``)
over the probabilities, or over an ensemble of probabilities without Laplace's correction
when the model uses it and has weighted nodes (``predict`` takes the uncorrected ones). A
row that fits no branch of a class-interval tree gets all-zero probabilities and the label
``model.unclassified_value_`` (int labels: -1 unless set; string labels: the value if it
is a string, else ``"unclassified"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..data.frames import to_python
from ..errors import NotFittedError
from ..rpart_routing import warn_surrogates_dropped
from ..tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, Tree
from .conditions import format_value, is_regressor
from .onnx_inputs import raw_doc, raw_inputs

__all__ = ["DTYPES", "INPUTS", "MAX_NODES", "ML_OPSET", "OPSET", "to_onnx"]

DTYPES = ("double", "float")
INPUTS = ("raw", "encoded")  # one input per column (strings for categories), or the matrix
MAX_NODES = 2_000_000  # default bound on the nodes of all trees together
OPSET = 17  # default ONNX domain
ML_OPSET = 3  # ai.onnx.ml: TreeEnsembleClassifier with *_as_tensor (double) attributes
WEIGHTED = -1  # missing_branch of a node that sends a missing value down every branch
MISSING = -1  # branch taken in a path step: the feature is missing (weighted descent)
UNCLASSIFIED_TEXT = "unclassified"


# -- one tree of the ensemble --------------------------------------------------------------
@dataclass
class _OnnxTree:
    """Nodes of one ensemble tree, created children first; ``finish`` numbers them."""

    modes: list = field(default_factory=list)
    features: list = field(default_factory=list)
    values: list = field(default_factory=list)
    true: list = field(default_factory=list)
    false: list = field(default_factory=list)
    track: list = field(default_factory=list)
    weights: dict = field(default_factory=dict)  # leaf -> class weights (None: no votes)

    def leaf(self, weights: np.ndarray | None) -> int:
        self.weights[len(self.modes)] = weights
        return self._add("LEAF", 0, 0.0, -1, -1, 0)

    def test(self, mode: str, feature: int, value: float, true: int, false: int,
             track: bool = False) -> int:
        return self._add(mode, feature, value, true, false, int(track))

    def _add(self, mode, feature, value, true, false, track) -> int:
        self.modes.append(mode)
        self.features.append(int(feature))
        self.values.append(float(value))
        self.true.append(int(true))
        self.false.append(int(false))
        self.track.append(track)
        return len(self.modes) - 1

    def __len__(self) -> int:
        return len(self.modes)

    def order(self, root: int) -> list[int]:
        """Nodes reachable from ``root`` in pre-order (false child first), each once."""
        seen, out, stack = set(), [], [root]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            out.append(node)
            if self.modes[node] != "LEAF":
                stack.extend((self.true[node], self.false[node]))
        return out


# -- how one node of the model routes a value ----------------------------------------------
@dataclass(frozen=True)
class _Step:
    """A test on the way to a node: at ``node`` take ``branch`` (or MISSING), with the
    features known to be missing / known to be present just before it."""

    node: int
    branch: int
    missing: frozenset
    known: frozenset


class _Writer:
    """Builds the ensemble trees of one model (see the module docstring)."""

    def __init__(self, tree: Tree, proba: np.ndarray, codes: list[int | None], dtype: str,
                 max_nodes: int):
        self.tree, self.proba, self.codes = tree, proba, codes
        self.single = dtype == "float"
        self.max_nodes = max_nodes
        self.count = 0
        self.trees: list[tuple[_OnnxTree, int]] = []

    # thresholds for float input: exact for every float32 value (see docs/export.md)
    def _value(self, mode: str, t: float) -> float:
        if not self.single or not math.isfinite(t):
            return t
        f = np.float32(t)
        if mode in ("BRANCH_LEQ", "BRANCH_GT") and float(f) > t:
            f = np.nextafter(f, np.float32(-np.inf))
        if mode in ("BRANCH_LT", "BRANCH_GTE") and float(f) < t:
            f = np.nextafter(f, np.float32(np.inf))
        return float(f)

    def _test(self, out: _OnnxTree, mode, feature, value, true, false, track=False) -> int:
        return out.test(mode, feature, self._value(mode, value), true, false, track)

    def route(self, out: _OnnxTree, node: int, targets: list[int], missing: int | None) -> int:
        """Test nodes sending a row from model node ``node`` to ``targets[branch]``; a missing
        value goes to ``missing`` (None: wherever the tests send NaN). Returns the entry."""
        tree = self.tree
        j = int(tree.feature[node])
        kind = int(tree.kind[node])
        if kind == NUMERIC:
            entry = self._test(out, "BRANCH_LEQ", j, tree.threshold[node], targets[0],
                               targets[1], missing == targets[0])
            natural = {targets[0], targets[1]}
        elif kind == INTERVAL:
            low, high = float(tree.threshold[node]), float(tree.interval_high[node])
            above = self._test(out, "BRANCH_GT", j, high, targets[1], targets[0],
                               missing == targets[1])
            entry = self._test(out, "BRANCH_LT", j, low, targets[1], above, missing == targets[1])
            natural = {targets[0], targets[1]}
        elif kind == CATEGORICAL:
            entry, natural = self._chain(out, node, targets, missing)
        else:
            raise ValueError(f"node {node}: unknown node kind {kind}")
        if missing is not None and missing not in natural:
            entry = out.test("BRANCH_LT", j, -math.inf, missing, entry, True)
        return entry

    def _chain(self, out: _OnnxTree, node: int, targets: list[int], missing: int | None):
        """A categorical node as a chain of BRANCH_LEQ tests on the codes; returns (entry,
        targets a missing value can reach)."""
        tree = self.tree
        j = int(tree.feature[node])
        cmap = tree.category_map(node)
        n_codes = self.codes[j] or cmap.shape[0]
        runs: list[tuple[int, int]] = []  # (last code of a run of equal targets, target)
        for code in range(n_codes):
            branch = int(cmap[code]) if code < cmap.shape[0] else int(tree.missing_branch[node])
            if branch == WEIGHTED:
                raise ValueError(f"node {node}: category code {code} has no branch")
            if runs and runs[-1][1] == targets[branch]:
                runs[-1] = (code, runs[-1][1])
            else:
                runs.append((code, targets[branch]))
        if not runs:
            raise ValueError(f"node {node}: a categorical split without categories")
        entry = runs[-1][1]  # the last run: every value above the codes before it, and NaN
        tested = [t for _, t in runs[:-1]]
        first = tested.index(missing) if missing in tested else -1
        for i in range(len(runs) - 2, -1, -1):
            last, target = runs[i]
            entry = self._test(out, "BRANCH_LEQ", j, last + 0.5, target, entry, i == first)
        return entry, set(tested) | {runs[-1][1]}

    # -- the components -----------------------------------------------------------------------
    def build(self) -> list[tuple[_OnnxTree, int]]:
        work = [(0, (), 1.0, frozenset(), frozenset())]
        while work:
            start, prefix, scale, missing, known = work.pop()
            out = _OnnxTree()
            entry = self._subtree(out, start, prefix, scale, missing, known, work)
            root = self._prefix(out, prefix, entry)
            self.count += len(out)
            if self.count > self.max_nodes:
                raise ValueError(
                    f"the exact ONNX form of this tree needs more than max_nodes="
                    f"{self.max_nodes} nodes: C4.5's weighted descent over missing values "
                    "becomes one ONNX tree per combination of weighted branches a row can "
                    "take; raise max_nodes (--max-nodes) or prune the tree")
            self.trees.append((out, root))
        return self.trees

    def _zero(self, out: _OnnxTree) -> int:
        first = not self.trees  # tree 0 votes 0 for every class, so every class has a score
        return out.leaf(np.zeros(self.proba.shape[1]) if first else None)

    def _subtree(self, out, start, prefix, scale, missing, known, work) -> int:
        """The model's subtree at ``start`` (weighted missing values to weight-0 leaves),
        queuing a component for every weighted node it can reach with a missing value."""
        tree = self.tree
        built: dict[int, int] = {}
        stack = [(start, prefix, missing, known, False)]
        while stack:
            node, path, miss, know, expanded = stack.pop()
            if tree.kind[node] == LEAF:
                built[node] = out.leaf(scale * self.proba[node])
                continue
            f = int(tree.feature[node])
            children = [int(c) for c in tree.children(node)]
            mb = int(tree.missing_branch[node])
            if f in miss:  # decided already: no test
                if mb == WEIGHTED:
                    self._expand(node, path, scale, miss, know, work)
                    built[node] = self._zero(out)
                elif not expanded:
                    stack.append((node, path, miss, know, True))
                    stack.append((children[mb], path + (_Step(node, mb, miss, know),),
                                  miss, know, False))
                else:
                    built[node] = built[children[mb]]
                continue
            if not expanded:
                stack.append((node, path, miss, know, True))
                for b, child in enumerate(children):
                    sure = know if b == mb else know | {f}
                    stack.append((child, path + (_Step(node, b, miss, know),), miss, sure,
                                  False))
                continue
            targets = [built[c] for c in children]
            if f in know:
                target = None
            elif mb == WEIGHTED:
                self._expand(node, path, scale, miss, know, work)
                target = self._zero(out)
            else:
                target = targets[mb]
            built[node] = self.route(out, node, targets, target)
        return built[start]

    def _expand(self, node, path, scale, miss, know, work) -> None:
        tree = self.tree
        total = float(tree.weighted_n_node_samples[node])
        if total <= 0.0:
            return
        f = int(tree.feature[node])
        step = _Step(node, MISSING, miss, know)
        for child in tree.children(node):
            share = float(tree.weighted_n_node_samples[child]) / total
            if share > 0.0:
                work.append((int(child), path + (step,), scale * share, miss | {f}, know))

    def _prefix(self, out: _OnnxTree, prefix: tuple, entry: int) -> int:
        """The chain of tests of ``prefix`` above ``entry``; a failing test ends at 0."""
        tree = self.tree
        for step in reversed(prefix):
            f = int(tree.feature[step.node])
            if f in step.missing:
                continue  # already known to be missing: the route is decided
            if step.branch == MISSING:
                entry = out.test("BRANCH_LT", f, -math.inf, entry, self._zero(out), True)
                continue
            zero = self._zero(out)
            n = tree.children(step.node).shape[0]
            targets = [entry if b == step.branch else zero for b in range(n)]
            mb = int(tree.missing_branch[step.node])
            if f in step.known:
                missing = None
            else:
                missing = entry if mb == step.branch else zero
            entry = self.route(out, step.node, targets, missing)
        return entry


# -- the graph -----------------------------------------------------------------------------
def _labels(model) -> tuple[list, bool]:
    """Class labels as int64 (True) or strings (False)."""
    classes = [to_python(c) for c in model.classes_]
    if all(isinstance(c, int) and not isinstance(c, bool) for c in classes):
        return classes, True
    return [c if isinstance(c, str) else format_value(c) for c in classes], False


def _ensemble_attributes(trees, n_classes: int, dtype: str, votes_as: str = "class") -> dict:
    from onnx import numpy_helper

    nodes = {k: [] for k in ("treeids", "nodeids", "featureids", "modes", "values",
                             "truenodeids", "falsenodeids", "missing_value_tracks_true")}
    votes = {k: [] for k in ("treeids", "nodeids", "ids", "weights")}
    for tid, (out, root) in enumerate(trees):
        order = out.order(root)
        new = {old: i for i, old in enumerate(order)}
        for old in order:
            leaf = out.modes[old] == "LEAF"
            for key, value in (("treeids", tid), ("nodeids", new[old]),
                               ("featureids", max(out.features[old], 0)),
                               ("modes", out.modes[old]), ("values", out.values[old]),
                               ("truenodeids", 0 if leaf else new[out.true[old]]),
                               ("falsenodeids", 0 if leaf else new[out.false[old]]),
                               ("missing_value_tracks_true", out.track[old])):
                nodes[key].append(value)
            weights = out.weights.get(old)
            if leaf and weights is not None:
                for c in range(n_classes):
                    votes["treeids"].append(tid)
                    votes["nodeids"].append(new[old])
                    votes["ids"].append(c)
                    votes["weights"].append(float(weights[c]))
    attrs = {f"nodes_{k}": v for k, v in nodes.items() if k != "values"}
    attrs.update({f"{votes_as}_{k}": v for k, v in votes.items() if k != "weights"})
    if dtype == "double":
        attrs["nodes_values_as_tensor"] = numpy_helper.from_array(
            np.asarray(nodes["values"], dtype=np.float64))
        attrs[f"{votes_as}_weights_as_tensor"] = numpy_helper.from_array(
            np.asarray(votes["weights"], dtype=np.float64))
    else:
        attrs["nodes_values"] = nodes["values"]
        attrs[f"{votes_as}_weights"] = votes["weights"]
    return attrs


def _classifier(helper, name, trees, labels, as_int, n_classes, dtype, outputs):
    attrs = _ensemble_attributes(trees, n_classes, dtype)
    attrs["classlabels_int64s" if as_int else "classlabels_strings"] = labels
    return helper.make_node("TreeEnsembleClassifier", ["X"], outputs, name=name,
                            domain="ai.onnx.ml", post_transform="NONE", **attrs)


def to_onnx(model, *, inputs: str = "raw", dtype: str = "double", zipmap: bool = False,
            max_nodes: int = MAX_NODES):
    """An ONNX model that predicts like ``model`` (an ``onnx.ModelProto``).

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model (any algorithm) with at least two classes, or a regression tree
        (a TreeEnsembleRegressor whose output ``prediction`` [N, 1] is the leaf's mean).
    inputs : {"raw", "encoded"}
        ``"raw"``: one [N, 1] input per feature, named after it, numeric features as numbers
        and categorical features as strings, coded inside the graph (see
        :mod:`quercus.export.onnx_inputs`). ``"encoded"``: one input ``X`` [N, n_features]
        holding the rows as ``model.schema_.encode`` makes them.
    dtype : {"double", "float"}
        Element type of the numeric inputs. ``"double"`` compares exactly as the model does;
        ``"float"`` rounds each threshold to the float32 that gives the same answer for
        every float32 input.
    zipmap : bool
        Return the probabilities as a list of ``{label: probability}`` maps (onnx's ZipMap,
        as skl2onnx does by default) instead of a float tensor [N, n_classes].
    max_nodes : int
        Refuse (ValueError) a model whose exact form needs more nodes than this (C4.5 with
        many weighted nodes on one path; see the module docstring).

    Returns
    -------
    onnx.ModelProto
        Save it with ``model.SerializeToString()`` or ``onnx.save``.

    Raises
    ------
    ImportError
        The ``onnx`` package is not installed (``pip install 'quercus[onnx]'``).
    ValueError
        A bad ``inputs`` or dtype, a model with one class, a model too large for
        ``max_nodes``, or (raw inputs) a feature named ``label`` or ``probabilities``.
    NotFittedError
        The model is not fitted.
    """
    warn_surrogates_dropped(model, "ONNX")
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as error:
        raise ImportError("ONNX export needs the onnx package: pip install 'quercus[onnx]'"
                          ) from error
    if not hasattr(model, "tree_"):
        raise NotFittedError(f"this {type(model).__name__} is not fitted yet; call fit first")
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; choose one of: {', '.join(DTYPES)}")
    if inputs not in INPUTS:
        raise ValueError(f"unknown inputs {inputs!r}; choose one of: {', '.join(INPUTS)}")
    tree: Tree = model.tree_
    tree.validate()
    if is_regressor(model):
        return _finish(onnx, helper, model, *_regressor(model, dtype, max_nodes, helper),
                       inputs, dtype, ("prediction",))
    n_classes = tree.n_classes
    if n_classes < 2:
        raise ValueError("ONNX export needs a model with at least two classes")
    labels, as_int = _labels(model)
    codes = [f.n_categories if f.is_categorical else None for f in model.schema_.features]
    laplace = bool(getattr(model, "laplace", False))
    proba = tree.node_probabilities(laplace)
    trees = _Writer(tree, proba, codes, dtype, max_nodes).build()
    nodes = [_classifier(helper, "tree_ensemble", trees, labels, as_int, n_classes, dtype,
                         ["ensemble_label", "probabilities_tensor"])]
    scores = "probabilities_tensor"
    weighted = bool(np.any(tree.missing_branch[tree.kind != LEAF] == WEIGHTED))
    if laplace and weighted:  # predict takes the uncorrected probabilities
        raw = _Writer(tree, tree.node_probabilities(False), codes, dtype, max_nodes).build()
        nodes.append(_classifier(helper, "tree_ensemble_raw", raw, labels, as_int, n_classes,
                                 dtype, ["raw_label", "raw_probabilities"]))
        scores = "raw_probabilities"
    interval = getattr(model, "algorithm", None) == "interval"
    table = list(labels) + ([_unclassified(model, as_int)] if interval else [])
    label_type = TensorProto.INT64 if as_int else TensorProto.STRING
    initializers = [numpy_helper.from_array(
        np.asarray(table, dtype=np.int64 if as_int else object), "class_labels")]
    nodes.append(helper.make_node("ArgMax", [scores], ["class_index"], axis=1, keepdims=0))
    index = "class_index"
    if interval:  # all-zero probabilities: the unclassified label (last in the table)
        initializers += [numpy_helper.from_array(np.array([1], dtype=np.int64), "axis_1"),
                         numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero"),
                         numpy_helper.from_array(np.array(n_classes, dtype=np.int64),
                                                 "unclassified_index")]
        nodes += [helper.make_node("ReduceSum", [scores, "axis_1"], ["total"], keepdims=0),
                  helper.make_node("Equal", ["total", "zero"], ["lost"]),
                  helper.make_node("Where", ["lost", "unclassified_index", "class_index"],
                                   ["label_index"])]
        index = "label_index"
    nodes.append(helper.make_node("Gather", ["class_labels", index], ["label"], axis=0))
    outputs = [helper.make_tensor_value_info("label", label_type, ["N"])]
    if zipmap:
        key = "classlabels_int64s" if as_int else "classlabels_strings"
        nodes.append(helper.make_node("ZipMap", ["probabilities_tensor"], ["probabilities"],
                                      domain="ai.onnx.ml", **{key: labels}))
        outputs.append(helper.make_value_info("probabilities", helper.make_sequence_type_proto(
            helper.make_map_type_proto(label_type, helper.make_tensor_type_proto(
                TensorProto.FLOAT, [])))))
    else:
        nodes.append(helper.make_node("Identity", ["probabilities_tensor"], ["probabilities"]))
        outputs.append(helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                                     ["N", n_classes]))
    return _finish(onnx, helper, model, nodes, initializers, outputs, inputs, dtype,
                   ("label", "probabilities"))


def _regressor(model, dtype: str, max_nodes: int, helper) -> tuple[list, list, list]:
    """The nodes, initializers and outputs of a regression tree: one TreeEnsembleRegressor
    whose leaves hold the mean target."""
    from onnx import TensorProto

    tree = model.tree_
    means = tree.value[:, :1].astype(np.float64)
    trees = _Writer(tree, means, [f.n_categories if f.is_categorical else None
                                  for f in model.schema_.features], dtype, max_nodes).build()
    attrs = _ensemble_attributes(trees, 1, dtype, votes_as="target")
    node = helper.make_node("TreeEnsembleRegressor", ["X"], ["prediction"],
                            name="tree_ensemble", domain="ai.onnx.ml", n_targets=1,
                            aggregate_function="SUM", post_transform="NONE", **attrs)
    outputs = [helper.make_tensor_value_info("prediction", TensorProto.FLOAT, ["N", 1])]
    return [node], [], outputs


def _finish(onnx, helper, model, nodes, initializers, outputs, inputs, dtype, names):
    """The graph around the ensemble: its inputs (raw or encoded), checked."""
    from onnx import TensorProto

    n_features = model.schema_.n_features
    input_type = TensorProto.DOUBLE if dtype == "double" else TensorProto.FLOAT
    if inputs == "raw":
        graph_inputs, first = raw_inputs(model.schema_, dtype, nodes, initializers,
                                         outputs=names)
        nodes = first + nodes
        doc = raw_doc(model.schema_)
    else:
        graph_inputs = [helper.make_tensor_value_info("X", input_type, ["N", n_features])]
        doc = _doc(model)
    graph = helper.make_graph(nodes, "quercus_tree", graph_inputs, outputs,
                              initializer=initializers)
    graph.doc_string = doc
    onnx_model = helper.make_model(graph, producer_name="quercus", opset_imports=[
        helper.make_opsetid("", OPSET), helper.make_opsetid("ai.onnx.ml", ML_OPSET)])
    onnx_model.ir_version = min(onnx_model.ir_version, 8)
    onnx.checker.check_model(onnx_model)
    return onnx_model


def _unclassified(model, as_int: bool):
    value = to_python(model.unclassified_value_)
    if as_int:
        return value if isinstance(value, int) and not isinstance(value, bool) else -1
    return value if isinstance(value, str) else UNCLASSIFIED_TEXT


def _doc(model) -> str:
    """The input's columns, in order, with the codes of categorical features."""
    lines = [("Input X: one row per sample, columns in this order; categorical features as "
              "codebook codes; NaN for a missing value.")]
    for j, spec in enumerate(model.schema_.features):
        if spec.is_categorical:
            codes = ", ".join(f"{k}={format_value(v)}"
                              for k, v in enumerate(spec.codebook.values))
            lines.append(f"{j}: {spec.name} (categorical: {codes})")
        else:
            lines.append(f"{j}: {spec.name} (numeric)")
    return "\n".join(lines)
