"""Seed 001's XML tree files: a ``<Treesetting>`` of nested ``<Branch>`` elements.

Each branch carries the attributes ``Class`` (the class whose range it tests), ``Gini`` (its
score; 0 for a pure branch), ``Min``, ``Max`` and ``Property`` (the feature index), and its
index under its parent (0 or 1) as text, as the seed's ``writeBranch``/``loadBranch`` do.
A row is classified as the seed's ``CheckBranch`` does: at a pure branch, inside the range
gives the class and outside goes to sub-branch 0 (if any); otherwise inside goes to
sub-branch 0 and outside (or a missing sub-branch 0) to sub-branch 1; a row that runs out of
branches is unclassifiable.

The format has no names: ``Property`` is a feature index and ``Class`` the class label when
labels are integers, else the class code. When the highest ``Property`` does not tell the
number of features, Quercus adds a ``Features`` attribute to ``<Treesetting>``, which the
seed's loader ignores.
Parsing refuses DOCTYPE and entity declarations, so no entity is ever expanded.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.parsers import expat

import numpy as np

from ..data.schema import Codebook, FeatureSpec, Schema
from ..errors import ModelFileError
from ..tree import INTERVAL, LEAF, Tree, TreeRecorder
from .atomic import write_atomically

ALWAYS = 1e50  # the seed's initial class range: a plain leaf is a branch nothing escapes


def csharp_double(x: float) -> str:
    """A double as C#'s ``double.ToString()`` writes it (``1``, ``0.8125``, ``1E+50``)."""
    text = repr(float(x))
    text = text.removesuffix(".0")
    if "e" in text:
        mantissa, exponent = text.split("e")
        mantissa = mantissa.removesuffix(".0")
        sign = "-" if exponent.startswith("-") else "+"
        text = f"{mantissa}E{sign}{exponent.lstrip('+-').zfill(2)}"
    return text


def _class_attribute(model, code: int) -> str:
    label = model.classes_[code]
    if isinstance(label, (int, np.integer)) and not isinstance(label, bool):
        return str(int(label))
    return str(int(code))


def _is_unclassified(tree, node) -> bool:
    return tree.kind[node] == LEAF and tree.value[node].sum() == 0.0


def tree_to_xml(model) -> str:
    """The fitted class-interval tree as the seed's XML document (one line, UTF-8)."""
    tree = model._check_fitted()
    if getattr(model, "algorithm", None) != "interval":
        raise ValueError("the seed's XML format holds class-interval trees only "
                         f"(this model's algorithm is {model.algorithm!r})")
    used = tree.feature[tree.kind != LEAF]
    derivable = used.size and int(used.max()) + 1 == model.n_features_in_
    root = ET.Element("Treesetting", {} if derivable else
                      {"Features": str(model.n_features_in_)})
    stack = [(0, root, 0)]
    while stack:
        node, parent_element, index = stack.pop()
        element = ET.SubElement(parent_element, "Branch")
        element.text = str(index)
        if tree.kind[node] == LEAF:  # a plain leaf (depth limit): a range nothing escapes
            code = int(np.argmax(tree.value[node]))
            attrs = (_class_attribute(model, code), "0", csharp_double(-ALWAYS),
                     csharp_double(ALWAYS), "0")
        else:
            attrs = (_class_attribute(model, int(tree.interval_class[node])),
                     csharp_double(tree.impurity[node]), csharp_double(tree.threshold[node]),
                     csharp_double(tree.interval_high[node]), str(int(tree.feature[node])))
        for key, value in zip(("Class", "Gini", "Min", "Max", "Property"), attrs):
            element.set(key, value)
        if tree.kind[node] == LEAF:
            continue
        inside, outside = (int(c) for c in tree.children(node))
        if tree.impurity[node] == 0.0:  # pure: inside is its class; outside is sub-branch 0
            subs = [] if _is_unclassified(tree, outside) else [(outside, 0)]
        else:
            subs = [(c, i) for i, c in enumerate((inside, outside))
                    if not _is_unclassified(tree, c)]
        for child, i in reversed(subs):
            stack.append((child, element, i))
    return '<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="unicode")


def save_xml(model, path) -> None:
    """Write ``tree_to_xml(model)`` to ``path`` atomically."""
    text = tree_to_xml(model)
    try:
        write_atomically(path, lambda handle: handle.write(text))
    except OSError as error:
        raise ModelFileError(f"cannot write {path}: {error.strerror or error}") from error


# -- reading ------------------------------------------------------------------------------
_FORBIDDEN = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
MAX_FEATURES = 100_000  # a Property or Features beyond this is refused (memory bound)


def _refuse_declarations(path):
    def refuse(*_args):
        raise ModelFileError(f"{path}: DOCTYPE and entity declarations are not allowed")
    return refuse


def _parse_xml(data: bytes, path) -> ET.Element:
    """Parse with expat, refusing any DOCTYPE or entity declaration as soon as it starts
    (in any encoding, so nothing is ever expanded or fetched)."""
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    refuse = _refuse_declarations(path)
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(data, True)
    except (expat.ExpatError, ValueError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise ModelFileError(f"{path}: malformed XML ({error})") from None
    return builder.close()


def _whole(value: float, path, what: str) -> int:
    """A whole number >= 0 (and at most MAX_FEATURES for feature indices)."""
    if not math.isfinite(value) or value != int(value) or value < 0:
        raise ModelFileError(f"{path}: {what} must be a whole number >= 0, got {value!r}")
    if what in ("Property", "Features") and value > MAX_FEATURES:
        raise ModelFileError(f"{path}: {what} {int(value)} is beyond the {MAX_FEATURES} "
                             "features this reader accepts")
    return int(value)


def _number(text, path, what):
    try:
        value = str(text).strip()
        if "," in value and "." not in value:  # a decimal comma (some C# locales)
            value = value.replace(",", ".")
        return float(value)
    except (TypeError, ValueError):
        raise ModelFileError(f"{path}: {what} is not a number: {text!r}") from None


def _branch(element, path):
    """(class, gini, min, max, property, {index: sub-element}) of one <Branch>."""
    missing = [k for k in ("Class", "Gini", "Min", "Max", "Property") if k not in element.attrib]
    if missing:
        raise ModelFileError(f"{path}: a <Branch> lacks the attribute {missing[0]}")
    cls = _whole(_number(element.get("Class"), path, "Class"), path, "Class")
    prop = _whole(_number(element.get("Property"), path, "Property"), path, "Property")
    subs = {}
    for sub in element.findall("Branch"):
        index = _number((sub.text or "").strip() or "nan", path, "a branch index")
        if index in (0.0, 1.0):  # the seed ignores other indices
            subs[int(index)] = sub
    return (int(cls), _number(element.get("Gini"), path, "Gini"),
            _number(element.get("Min"), path, "Min"), _number(element.get("Max"), path, "Max"),
            int(prop), subs)


def read_xml(path) -> tuple[Schema, Tree]:
    """Read a seed-format XML tree: the schema (features ``x0``, ``x1``, ... and the
    classes) and the flat class-interval tree. ``quercus.load_model`` makes the fitted
    ``DecisionTreeClassifier(algorithm="interval")`` of them."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ModelFileError(f"model file {path} does not exist") from None
    except OSError as error:
        raise ModelFileError(f"cannot read model file {path}: {error.strerror}") from None
    if _FORBIDDEN.search(data):
        raise ModelFileError(f"{path}: DOCTYPE and entity declarations are not allowed")
    root = _parse_xml(data, path)
    if root.tag != "Treesetting" or root.find("Branch") is None:
        raise ModelFileError(f"{path}: not a seed tree file (expected <Treesetting> "
                             "holding a <Branch>)")
    branches, stack = [], [root.find("Branch")]
    while stack:  # parse every branch once, checking attributes
        parsed = _branch(stack.pop(), path)
        branches.append(parsed)
        stack.extend(parsed[5].values())
    labels = sorted({b[0] for b in branches})
    n_features = max(b[4] for b in branches) + 1
    if "Features" in root.attrib:
        n_features = max(n_features, _whole(_number(root.get("Features"), path, "Features"),
                                            path, "Features"))
    code = {label: i for i, label in enumerate(labels)}
    tree = _flat_tree(root.find("Branch"), path, code, len(labels))
    schema = Schema(features=tuple(FeatureSpec(f"x{i}", "numeric", None)
                                   for i in range(n_features)),
                    target="class", classes=Codebook(tuple(labels)))
    return schema, tree


def _flat_tree(root_element, path, code, n_classes):
    recorder = TreeRecorder(n_classes)

    def leaf(cls=None):
        value = np.zeros(n_classes)
        if cls is not None:
            value[code[cls]] = 1.0
        return recorder.add(value=value, impurity=0.0, n_samples=0, weight=value.sum())

    # work items: (element or None, parent, branch); None means an unclassifiable leaf
    stack = [(root_element, -1, 0)]
    while stack:
        element, parent, branch = stack.pop()
        if element is None:
            node = leaf()
        else:
            cls, gini, low, high, prop, subs = _branch(element, path)
            node = recorder.add(value=np.zeros(n_classes), impurity=gini, n_samples=0,
                                weight=0.0)
            recorder.make_split(node, kind=INTERVAL, feature=prop, children=[-1, -1],
                                missing_branch=1, threshold=low, interval_high=high,
                                interval_class=code[cls])
            if gini == 0.0:
                inside_node = leaf(cls)
                recorder.nodes[node]["children"][0] = inside_node
                stack.append((subs.get(0), node, 1))
            else:
                stack.append((subs.get(1), node, 1))
                stack.append((subs.get(0, subs.get(1)), node, 0))
        if parent >= 0:
            recorder.nodes[parent]["children"][branch] = node
    return recorder.to_tree()
