"""PMML export: a fitted tree as a PMML 4.4 TreeModel (see docs/export.md).

Written with the standard library's ``xml.etree.ElementTree`` only:

* ``DataDictionary``: one ``DataField`` per feature (numeric: continuous double;
  categorical: categorical with one ``Value`` per category, in code order) and one for the
  class column (categorical, its classes as ``Value``);
* ``MiningSchema``: the features as active fields, the class as the target; ``Output``:
  ``predicted(<target>)`` and one ``probability(<class>)`` per class;
* one ``Node`` per node of the tree, with its ``id`` (the node id), ``score`` (the class
  ``predict`` gives a row stopping there), ``recordCount`` (its training weight) and one
  ``ScoreDistribution`` per class with the class's weighted ``recordCount`` and the
  ``probability`` (and ``confidence``) ``predict_proba`` gives there: Laplace-corrected
  when the model is, and the parent's shares at an empty C4.5 leaf. A class-interval leaf
  that no class claims has no ``score`` (an evaluator returns no prediction);
* predicates: ``SimplePredicate`` (``lessOrEqual`` / ``greaterThan`` for a threshold,
  ``equal`` for one category), ``SimpleSetPredicate`` (``isIn`` a set of categories, a CART
  subset split or a multiway branch with several categories), an INTERVAL node as
  ``CompoundPredicate`` ``and`` (inside) / ``or`` (outside) of two ``SimplePredicate`` s (on
  a categorical feature: the sets of categories whose codes lie inside / outside), and
  ``isNotMissing`` / ``isMissing`` for a CART threshold of +inf ("known values left");
* missing values, with the TreeModel's ``missingValueStrategy``:

  - ``defaultChild`` when every split sends a missing value down one learned branch (CART,
    the class-interval tree): each split ``Node`` names that child in ``defaultChild``;
  - ``weightedConfidence`` when some split sends it down every branch (C4.5, ID3): PMML
    4.4 then scores every child whose predicate is UNKNOWN (all of them, as they test the
    same field) and sums their confidences weighted by the children's ``recordCount``
    shares, recursively: J48's weighted descent, since a node's ``recordCount`` is its
    training weight. ``aggregateNodes`` would instead add up the record counts of the
    leaves reached, which weights a leaf by its own size rather than by the share of the
    branch that led to it, and differs from J48 as soon as a known test follows a
    missing one. A model that mixes both kinds of split is refused.

A regression tree is a TreeModel with ``functionName="regression"``: the target is a
continuous double field, each ``Node``'s ``score`` is its mean target (what ``predict``
gives a row ending there) and ``recordCount`` its training rows, with no
``ScoreDistribution``; missing values follow ``defaultChild``.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from importlib import metadata

from ..data.frames import to_python
from ..errors import NotFittedError
from ..tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, Tree
from .conditions import is_regressor
from .pmml_surrogates import rpart_predicates

__all__ = ["NAMESPACE", "PMML_VERSION", "to_pmml"]

NAMESPACE = "http://www.dmg.org/PMML-4_4"
PMML_VERSION = "4.4"
WEIGHTED = -1


def _number(x: float) -> str:
    """A float as an xs:double literal that round-trips (INF, -INF, shortest repr)."""
    x = float(x)
    if math.isinf(x):
        return "INF" if x > 0 else "-INF"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _text(value) -> str:
    """A category or class value as PMML text."""
    value = to_python(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _number(value)
    return str(value)


def _data_type(values) -> str:
    values = [to_python(v) for v in values]
    if values and all(isinstance(v, bool) for v in values):
        return "boolean"
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "double"
    return "string"


def _array(values) -> ET.Element:
    """A PMML Array of strings: each value quoted, with ``"`` and ``\\`` escaped."""
    array = ET.Element("Array", n=str(len(values)), type="string")
    array.text = " ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
                          for v in values)
    return array


def _in_set(name: str, chosen: list[str]) -> ET.Element:
    """``name = value`` for one category, ``name isIn {...}`` for several, False for none."""
    if len(chosen) == 1:
        return ET.Element("SimplePredicate", field=name, operator="equal", value=chosen[0])
    if not chosen:
        return ET.Element("False")
    element = ET.Element("SimpleSetPredicate", field=name, booleanOperator="isIn")
    element.append(_array(chosen))
    return element


class _Writer:
    def __init__(self, model, tree: Tree):
        self.model, self.tree = model, tree
        self.schema = model.schema_
        self.regression = is_regressor(model)
        if self.regression:  # the mean target is the score; no class distribution
            return
        self.raw = tree.node_probabilities(False)
        self.best = tree.node_classes()
        self.proba = tree.node_probabilities(bool(getattr(model, "laplace", False)))
        self.classes = [_text(c) for c in model.classes_]
        self.interval = getattr(model, "algorithm", None) == "interval"

    def predicates(self, node: int) -> list[ET.Element]:
        """The predicate of each child of a split node, in branch order."""
        tree = self.tree
        spec = self.schema.features[int(tree.feature[node])]
        name = spec.name
        n = tree.children(node).shape[0]
        kind = int(tree.kind[node])
        if tree.rpart is not None:  # surrogates, usesurrogate (pmml_surrogates)
            return rpart_predicates(tree, self.schema, node, _text, _in_set)
        if kind == NUMERIC:
            t = float(tree.threshold[node])
            if math.isinf(t) and t > 0 and tree.missing_branch[node] == 1:
                return [ET.Element("SimplePredicate", field=name, operator="isNotMissing"),
                        ET.Element("SimplePredicate", field=name, operator="isMissing")]
            return [ET.Element("SimplePredicate", field=name, operator=op, value=_number(t))
                    for op in ("lessOrEqual", "greaterThan")]
        if kind == INTERVAL and spec.is_categorical:  # a range of codes: two sets
            low, high = float(tree.threshold[node]), float(tree.interval_high[node])
            values = [_text(v) for v in spec.codebook.values]
            inside = [v for k, v in enumerate(values) if low <= k <= high]
            return [_in_set(name, inside),
                    _in_set(name, [v for v in values if v not in inside])]
        if kind == INTERVAL:
            low, high = _number(tree.threshold[node]), _number(tree.interval_high[node])
            inside = ET.Element("CompoundPredicate", booleanOperator="and")
            inside.append(ET.Element("SimplePredicate", field=name,
                                     operator="greaterOrEqual", value=low))
            inside.append(ET.Element("SimplePredicate", field=name, operator="lessOrEqual",
                                     value=high))
            outside = ET.Element("CompoundPredicate", booleanOperator="or")
            outside.append(ET.Element("SimplePredicate", field=name, operator="lessThan",
                                      value=low))
            outside.append(ET.Element("SimplePredicate", field=name, operator="greaterThan",
                                      value=high))
            return [inside, outside]
        if kind != CATEGORICAL:
            raise ValueError(f"node {node}: unknown node kind {kind}")
        values = [_text(v) for v in spec.codebook.values]
        cmap = tree.category_map(node)
        return [_in_set(name, [values[k] for k in range(min(len(values), cmap.shape[0]))
                               if cmap[k] == branch]) for branch in range(n)]

    def node(self, node: int, predicate: ET.Element) -> ET.Element:
        tree = self.tree
        element = ET.Element("Node", id=str(node))
        if self.regression:
            element.set("score", _number(tree.value[node, 0]))
            element.set("recordCount", _number(tree.weighted_n_node_samples[node]))
            if tree.kind[node] != LEAF:
                element.set("defaultChild",
                            str(int(tree.children(node)[tree.missing_branch[node]])))
            element.append(predicate)
            return element
        lost = self.interval and tree.kind[node] == LEAF and self.raw[node].sum() == 0.0
        if not lost:
            element.set("score", self.classes[int(self.best[node])])
        element.set("recordCount", _number(tree.weighted_n_node_samples[node]))
        if tree.kind[node] != LEAF and tree.missing_branch[node] >= 0 and not (
                tree.rpart is not None and _tied(tree, node)):
            child = int(tree.children(node)[tree.missing_branch[node]])
            element.set("defaultChild", str(child))
        element.append(predicate)
        for c, label in enumerate(self.classes):
            p = _number(self.proba[node, c])
            element.append(ET.Element("ScoreDistribution", value=label,
                                      recordCount=_number(tree.value[node, c]),
                                      confidence=p, probability=p))
        return element

    def tree_element(self) -> ET.Element:
        """The root Node, built with an explicit stack (no recursion)."""
        tree = self.tree
        root = self.node(0, ET.Element("True"))
        stack = [(0, root)]
        while stack:
            node, element = stack.pop()
            if tree.kind[node] == LEAF:
                continue
            for child, predicate in zip(tree.children(node), self.predicates(node)):
                child_element = self.node(int(child), predicate)
                element.append(child_element)
                stack.append((int(child), child_element))
        return root


def _tied(tree: Tree, node: int) -> bool:
    """Whether an rpart node's children hold as many rows (no majority child)."""
    n = tree.n_node_samples[tree.children(node)]
    return bool(n[0] == n[1])


def _strategy(tree: Tree) -> str:
    inner = tree.kind != LEAF
    weighted = tree.missing_branch[inner] == WEIGHTED
    if weighted.all() and inner.any():
        return "weightedConfidence"
    if weighted.any():
        raise ValueError("the tree mixes splits that send a missing value down every branch "
                         "with splits that send it down one; PMML has one strategy per tree")
    return "defaultChild"


def to_pmml(model) -> str:
    """A PMML 4.4 document (an XML string) with a TreeModel that predicts like ``model``.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted model (any algorithm); a regression tree gives a regression TreeModel
        whose nodes score their mean target.

    Returns
    -------
    str
        The document, starting with the XML declaration, ending with a newline.

    Raises
    ------
    NotFittedError
        The model is not fitted.
    ValueError
        The tree mixes C4.5's weighted missing-value splits with single-branch ones.
    """
    if not hasattr(model, "tree_"):
        raise NotFittedError(f"this {type(model).__name__} is not fitted yet; call fit first")
    tree: Tree = model.tree_
    tree.validate()
    schema = model.schema_
    regression = is_regressor(model)
    target = schema.target or ("target" if regression else "class")
    if target in schema.feature_names:
        raise ValueError(f"the {'target' if regression else 'class'} column name {target!r} "
                         "is also a feature name")
    pmml = ET.Element("PMML", xmlns=NAMESPACE, version=PMML_VERSION)
    header = ET.SubElement(pmml, "Header", description="Quercus decision tree")
    ET.SubElement(header, "Application", name="quercus", version=_version())
    dictionary = ET.SubElement(pmml, "DataDictionary",
                               numberOfFields=str(schema.n_features + 1))
    for spec in schema.features:
        if spec.is_categorical:
            field = ET.SubElement(dictionary, "DataField", name=spec.name, optype="categorical",
                                  dataType=_data_type(spec.codebook.values))
            for value in spec.codebook.values:
                ET.SubElement(field, "Value", value=_text(value))
        else:
            ET.SubElement(dictionary, "DataField", name=spec.name, optype="continuous",
                          dataType="double")
    if regression:
        ET.SubElement(dictionary, "DataField", name=target, optype="continuous",
                      dataType="double")
    else:
        field = ET.SubElement(dictionary, "DataField", name=target, optype="categorical",
                              dataType=_data_type(model.classes_))
        for label in model.classes_:
            ET.SubElement(field, "Value", value=_text(label))
    split = "binarySplit" if all(tree.children(n).shape[0] == 2 for n in range(tree.n_nodes)
                                 if tree.kind[n] != LEAF) else "multiSplit"
    tree_model = ET.SubElement(pmml, "TreeModel", modelName="quercus",
                               functionName="regression" if regression else "classification",
                               algorithmName=str(getattr(model, "algorithm", "cart")),
                               missingValueStrategy=_strategy(tree),
                               noTrueChildStrategy="returnLastPrediction",
                               splitCharacteristic=split)
    mining = ET.SubElement(tree_model, "MiningSchema")
    for spec in schema.features:
        ET.SubElement(mining, "MiningField", name=spec.name)
    ET.SubElement(mining, "MiningField", name=target, usageType="target")
    output = ET.SubElement(tree_model, "Output")
    if regression:
        ET.SubElement(output, "OutputField", name=f"predicted({target})", optype="continuous",
                      dataType="double", feature="predictedValue")
    else:
        ET.SubElement(output, "OutputField", name=f"predicted({target})",
                      optype="categorical", dataType=_data_type(model.classes_),
                      feature="predictedValue")
    for label in ([] if regression else model.classes_):
        ET.SubElement(output, "OutputField", name=f"probability({_text(label)})",
                      optype="continuous", dataType="double", feature="probability",
                      value=_text(label))
    tree_model.append(_Writer(model, tree).tree_element())
    ET.indent(pmml)
    text = ET.tostring(pmml, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n"


def _version() -> str:
    try:
        return metadata.version("quercus")
    except metadata.PackageNotFoundError:
        return "unknown"
