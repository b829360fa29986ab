"""Code generation: a fitted tree as a standalone Python or C function of nested if/else.

``to_source(model, language="python")`` writes a Python module (it imports only ``math``)
with ``predict(row)``, which returns the class label of one row of raw feature values, and
``predict_proba(row)``, which returns its class probabilities in ``CLASSES`` order.
``to_source(model, language="c")`` writes C99 (it includes only ``<math.h>``) with
``int predict(const double *row)``, which returns the class index, and
``void predict_proba(const double *row, double *out)``, both taking the *encoded* row
(``model.schema_.encode``: categorical features as codebook codes, a missing value NAN).

Both follow the tree exactly as ``model.predict`` / ``model.predict_proba`` do:

* every split is an ``if``/``else`` on one feature; a missing value takes the branch the
  tree learned for it (CART, the class-interval tree);
* at a node that sends a missing value down every branch (C4.5 and ID3,
  ``missing_branch == -1``), a row whose value is missing leaves the nested code: the
  generated source then also holds the tree as static tables, and a small explicit-stack
  loop descends every branch from that node, weighting each by its share of the node's
  training weight, as ``quercus._kernels.predict.proba_rows`` does (same order of
  operations, so the same numbers). Rows without such a missing value never touch the
  tables;
* ``predict`` takes the class with the highest probability (the first on a tie) from the
  probabilities without Laplace's correction, as the estimator does; ``predict_proba``
  applies the correction when the model was fitted with ``laplace=True``;
* a class-interval tree (``algorithm="interval"``) gives a row that fits no branch the
  model's ``unclassified_value_`` (Python) or -1 (C), and all-zero probabilities.

Input validation follows the generated code of Accord.NET's ``DecisionTree.ToExpression``
(seed 002), which throws "Input contains a value outside of expected ranges." but checks
only the categories: Python raises ``ValueError("Input contains a value outside of
expected ranges: ...")`` and C's ``predict`` returns -2 (``predict_proba`` writes NAN to
every probability) when

* a categorical value is not in the feature's codebook (Python: not ``==`` to one of the
  category values; C: not one of the codes 0 .. n-1);
* a numeric value is not a number, or is infinite;
* with ``X=`` (or ``ranges=``), a numeric value lies outside the range of that feature in
  ``X``, the training data: the flat tree does not keep the training ranges, so they are
  only checked when you pass them;
* (Python) the row does not hold one value per feature.

A missing value is always valid (every node knows where it goes): ``None``, a float NaN,
``""`` or ``"?"`` in Python (the values ``Schema.encode`` treats as missing), NAN in C.

Deep trees: the nesting of one generated function is limited (Python refuses more than 100
levels of indentation), so a subtree deeper than ``MAX_NESTING`` levels becomes a helper
function that the parent calls; the code is generated with explicit stacks, never by
recursion.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..data.frames import MISSING_STRINGS, to_python
from ..errors import NotFittedError
from ..rpart_routing import warn_surrogates_dropped
from ..tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, Tree
from .conditions import refuse_regressor

__all__ = ["C_INVALID", "C_UNCLASSIFIED", "LANGUAGES", "MAX_NESTING", "MESSAGE",
           "feature_ranges", "to_source"]

LANGUAGES = ("python", "c")
MESSAGE = "Input contains a value outside of expected ranges"
MAX_NESTING = 32  # nested ifs per generated function before a subtree becomes a helper
C_UNCLASSIFIED = -1  # C predict: a class-interval row that fits no branch
C_INVALID = -2  # C predict: invalid input
WEIGHTED = -1  # missing_branch of a node that sends missing values down every branch

_C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_C_RESERVED = frozenset((
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Imaginary",
    "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
    "_Thread_local", "bool", "true", "false", "isnan", "isinf", "isfinite", "NAN", "INFINITY",
    "main",
))
_PY_RESERVED = frozenset({"math", "FEATURES", "CLASSES"})


# -- public API ----------------------------------------------------------------------------
def to_source(model, language: str = "python", function_name: str = "predict", *,
              X=None, ranges=None) -> str:
    """Source code of a standalone function that predicts like ``model``.

    Parameters
    ----------
    model : DecisionTreeClassifier
        A fitted model (any algorithm).
    language : {"python", "c"}
        ``"python"``: ``def predict(row)`` returning the class label and
        ``def predict_proba(row)`` returning the probabilities, over raw feature values.
        ``"c"``: ``int predict(const double *row)`` returning the class index (-1: a
        class-interval row that fits no branch, -2: invalid input) and
        ``void predict_proba(const double *row, double *out)``, over the encoded row.
    function_name : str
        Name of the predict function; the probability function is ``<name>_proba`` and
        every helper starts with ``_<name>_`` (Python) or ``<name>_`` (C, all static).
    X : table, optional
        Training data (anything ``model.schema_.encode`` takes): the generated code then
        also refuses a numeric value outside the range ``[min, max]`` of its column in X.
    ranges : mapping or sequence, optional
        The ranges themselves instead of X: ``{feature name or index: (low, high)}`` or one
        ``(low, high)`` or None per feature; ``None`` for an end means unbounded.

    Returns
    -------
    str
        The source, ending with a newline.

    Raises
    ------
    ValueError
        An unknown language, a function name that is not a plain identifier of the
        language, X and ranges both given, a bad range or a range on a categorical
        feature, or an unclassified value that is not a literal (Python).
    TypeError
        ``ranges`` is neither a mapping nor a sequence.
    NotFittedError
        The model is not fitted.
    """
    refuse_regressor(model, "code generation")
    warn_surrogates_dropped(model, "generated code")
    if not hasattr(model, "tree_"):
        raise NotFittedError(f"this {type(model).__name__} is not fitted yet; call fit first")
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of: {', '.join(LANGUAGES)}")
    _check_name(function_name, language)
    if X is not None and ranges is not None:
        raise ValueError("give X or ranges, not both")
    bounds = feature_ranges(model, X) if X is not None else _resolve_ranges(model, ranges)
    tree: Tree = model.tree_
    tree.validate()
    info = _ModelInfo.of(model, tree, bounds)
    emitter = (_PythonEmitter if language == "python" else _CEmitter)(info, function_name)
    return emitter.source()


def feature_ranges(model, X) -> list[tuple[float, float] | None]:
    """Per feature, the ``(min, max)`` of a numeric feature over the rows of X (missing
    values ignored), None for a categorical feature or a column with no value."""
    encoded = model.schema_.encode(X)
    out: list[tuple[float, float] | None] = []
    for j, spec in enumerate(model.schema_.features):
        column = encoded[:, j]
        column = column[~np.isnan(column)]
        if spec.is_categorical or column.size == 0:
            out.append(None)
        else:
            out.append((float(column.min()), float(column.max())))
    return out


def _resolve_ranges(model, ranges) -> list[tuple[float, float] | None]:
    schema = model.schema_
    n = schema.n_features
    if ranges is None:
        return [None] * n
    out: list = [None] * n
    if isinstance(ranges, Mapping):
        items = []
        for key, value in ranges.items():
            index = (schema.feature_names.index(schema.feature(key).name)
                     if isinstance(key, str) else int(key))
            if not 0 <= index < n:
                raise ValueError(f"ranges: feature index {key!r} out of range for {n} features")
            items.append((index, value))
    elif isinstance(ranges, Sequence) and not isinstance(ranges, (str, bytes)):
        if len(ranges) != n:
            raise ValueError(f"ranges: expected one entry per feature ({n}), got {len(ranges)}")
        items = list(enumerate(ranges))
    else:
        raise TypeError("ranges must be a mapping {feature: (low, high)} or a sequence with "
                        "one (low, high) or None per feature")
    for index, value in items:
        if value is None:
            continue
        spec = schema.features[index]
        if spec.is_categorical:
            raise ValueError(f"ranges: feature {spec.name!r} is categorical; its codebook is "
                             "its range")
        try:
            low, high = value
            low = -math.inf if low is None else float(low)
            high = math.inf if high is None else float(high)
        except (TypeError, ValueError):
            raise ValueError(f"ranges: feature {spec.name!r}: expected (low, high), got "
                             f"{value!r}") from None
        if math.isnan(low) or math.isnan(high) or low > high:
            raise ValueError(f"ranges: feature {spec.name!r}: bad range ({low!r}, {high!r})")
        out[index] = (low, high)
    return out


def _check_name(name, language: str) -> None:
    if not isinstance(name, str) or not name.isascii():
        raise ValueError(f"function_name must be an ASCII identifier; got {name!r}")
    if language == "python":
        if not name.isidentifier() or keyword.iskeyword(name) or name in _PY_RESERVED:
            raise ValueError(f"function_name {name!r} is not a usable Python function name")
    elif not _C_IDENTIFIER.match(name) or name in _C_RESERVED:
        raise ValueError(f"function_name {name!r} is not a usable C function name")


# -- what the emitters need to know --------------------------------------------------------
@dataclass
class _Branch:
    index: int  # branch index at the node
    child: int  # node id
    codes: tuple[int, ...] | None  # categorical feature: the category codes taking it
    missing: bool  # a missing value takes it


@dataclass
class _Split:
    node: int
    feature: int
    kind: int
    threshold: float
    high: float
    categorical: bool  # the feature is categorical (conditions on category codes)
    weighted_missing: bool  # a missing value descends every branch
    weighted_codes: tuple[int, ...]  # categories that descend every branch (not in the map)
    branches: list[_Branch]  # reachable branches, in branch order


@dataclass
class _ModelInfo:
    tree: Tree
    names: list[str]
    categories: list[tuple | None]  # codebook values per feature, None for numeric
    classes: list
    ranges: list[tuple[float, float] | None]
    interval: bool  # class-interval tree: an all-zero row is unclassified
    unclassified: object
    proba: np.ndarray  # what predict_proba gives at each node
    raw: np.ndarray  # probabilities without Laplace's correction (predict's)
    label: np.ndarray  # predict's class index at each node (-1 unclassified)
    weighted: bool  # some node sends missing values down every branch
    algorithm: str
    missing: tuple[str, ...] = MISSING_STRINGS  # strings the code reads as missing

    @classmethod
    def of(cls, model, tree: Tree, ranges) -> _ModelInfo:
        schema = model.schema_
        raw = tree.node_probabilities(False)
        laplace = bool(getattr(model, "laplace", False))
        proba = tree.node_probabilities(True) if laplace else raw
        algorithm = str(getattr(model, "algorithm", ""))
        interval = algorithm == "interval"
        label = tree.node_classes().astype(np.int64)
        if interval:
            label[raw.sum(axis=1) == 0.0] = -1
        unclassified = model.unclassified_value_ if interval else None
        split = tree.kind != LEAF
        return cls(
            tree=tree,
            names=list(schema.feature_names),
            categories=[None if f.codebook is None else tuple(f.codebook.values)
                        for f in schema.features],
            classes=[to_python(c) for c in model.classes_],
            ranges=list(ranges),
            interval=interval,
            unclassified=to_python(unclassified),
            proba=proba,
            raw=raw,
            label=label,
            weighted=bool(np.any(tree.missing_branch[split] == WEIGHTED)),
            algorithm=algorithm,
            missing=MISSING_STRINGS if schema.na_tokens is None else tuple(sorted(
                schema.na_tokens)),
        )

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_features(self) -> int:
        return len(self.names)

    def split(self, node: int) -> _Split:
        """How the node routes a row (see the kernel ``_branch_of``)."""
        tree = self.tree
        j = int(tree.feature[node])
        kind = int(tree.kind[node])
        m = int(tree.missing_branch[node])
        t = float(tree.threshold[node])
        h = float(tree.interval_high[node])
        children = [int(c) for c in tree.children(node)]
        if kind not in (NUMERIC, CATEGORICAL, INTERVAL):
            raise ValueError(f"node {node}: unknown node kind {kind}")
        book = self.categories[j]
        if book is None:
            if kind not in (NUMERIC, INTERVAL) or len(children) != 2:
                raise ValueError(f"node {node}: a split of kind {kind} with {len(children)} "
                                 f"branches on the numeric feature {self.names[j]!r} cannot "
                                 "be generated")
            branches = [_Branch(b, c, None, m == b) for b, c in enumerate(children)]
            return _Split(node, j, kind, t, h, False, m == WEIGHTED, (), branches)
        per_code = [_code_branch(tree, node, kind, k, t, h, m) for k in range(len(book))]
        branches = []
        for b, c in enumerate(children):
            codes = tuple(k for k, bk in enumerate(per_code) if bk == b)
            if codes or m == b:
                branches.append(_Branch(b, c, codes, m == b))
        weighted_codes = tuple(k for k, bk in enumerate(per_code) if bk == WEIGHTED)
        return _Split(node, j, kind, t, h, True, m == WEIGHTED, weighted_codes, branches)

    def leaf_rows(self) -> dict[int, int]:
        """Row of each leaf in the leaf tables, in node order."""
        leaves = np.flatnonzero(self.tree.kind == LEAF)
        return {int(node): i for i, node in enumerate(leaves)}


def _code_branch(tree: Tree, node: int, kind: int, code: int, t: float, h: float,
                 missing: int) -> int:
    if kind == NUMERIC:
        return 0 if code <= t else 1
    if kind == INTERVAL:
        return 0 if t <= code <= h else 1
    cmap = tree.category_map(node)
    return int(cmap[code]) if code < cmap.shape[0] else missing


def _used_thresholds(tree: Tree) -> np.ndarray:
    """Thresholds with 0.0 where a node has none (leaves, categorical nodes)."""
    return np.where(np.isnan(tree.threshold) | (tree.kind == LEAF), 0.0, tree.threshold)


def _stack_bound(tree: Tree) -> int:
    """Most (node, share) pairs the weighted descent can hold at once, from any node."""
    need = np.ones(tree.n_nodes, dtype=np.int64)
    for node in range(tree.n_nodes - 1, -1, -1):  # children have larger ids (pre-order)
        children = tree.children(node)
        if children.size:
            need[node] = max(children.size,
                             max(i + int(need[c]) for i, c in enumerate(children)))
    return int(need.max())


# -- shared walk ---------------------------------------------------------------------------
class _Emitter:
    """Walks the tree with an explicit stack and asks the language for each piece."""

    indent = "    "

    def __init__(self, info: _ModelInfo, name: str):
        self.info = info
        self.name = name
        self.tree = info.tree
        self.leaf_row = info.leaf_rows()
        self.pending: list[tuple[int, str]] = []  # (node, role) of helper functions to write

    # language hooks: lists of statements (without indentation) or single lines
    def leaf(self, node: int, role: str) -> list[str]:
        raise NotImplementedError

    def slow(self, node: int, role: str) -> list[str]:
        raise NotImplementedError

    def call(self, node: int, role: str) -> list[str]:
        raise NotImplementedError

    def open_if(self, condition: str, comment: str) -> str:
        raise NotImplementedError

    def else_line(self) -> str:
        raise NotImplementedError

    def close_line(self) -> str | None:
        raise NotImplementedError

    def comment_line(self, text: str) -> str:
        raise NotImplementedError

    def conditions(self, split: _Split) -> tuple[str | None, list[str], list[str]]:
        """(condition of the weighted descent or None, condition per branch, comments)."""
        raise NotImplementedError

    def fallthrough_comment(self, split: _Split, branch: _Branch) -> str:
        raise NotImplementedError

    def body(self, root: int, role: str) -> list[str]:
        """The statements of a function computing the subtree at ``root``, nested if/else."""
        lines: list[str] = []
        stack: list[tuple] = [("node", root, 1)]
        while stack:
            item = stack.pop()
            if item[0] == "line":
                _, depth, text = item
                if text is not None:
                    lines.append(self.indent * depth + text)
                continue
            _, node, depth = item
            pad = self.indent * depth
            if self.tree.kind[node] == LEAF:
                lines.extend(pad + s for s in self.leaf(node, role))
                continue
            if node != root and depth > MAX_NESTING:
                self.pending.append((node, role))
                lines.extend(pad + s for s in self.call(node, role))
                continue
            split = self.info.split(node)
            weighted, conditions, comments = self.conditions(split)
            todo: list[tuple] = []
            if weighted is not None:
                todo.append(("line", depth, self.open_if(weighted, "missing: every branch")))
                todo.extend(("line", depth + 1, s) for s in self.slow(node, role))
                todo.append(("line", depth, self.close_line()))
            branches = split.branches
            if len(branches) == 1:
                todo.append(("node", branches[0].child, depth))
            elif len(branches) == 2:
                todo += [("line", depth, self.open_if(conditions[0], comments[0])),
                         ("node", branches[0].child, depth + 1),
                         ("line", depth, self.else_line()),
                         ("node", branches[1].child, depth + 1),
                         ("line", depth, self.close_line())]
            else:  # one if per branch, each returning; the last branch falls through
                for branch, condition, comment in zip(branches[:-1], conditions, comments):
                    todo += [("line", depth, self.open_if(condition, comment)),
                             ("node", branch.child, depth + 1),
                             ("line", depth, self.close_line())]
                todo += [("line", depth, self.comment_line(
                             self.fallthrough_comment(split, branches[-1]))),
                         ("node", branches[-1].child, depth)]
            stack.extend(reversed(todo))
        return lines

    def helper_bodies(self) -> list[tuple[int, str, list[str]]]:
        """Bodies of the helper functions spilled while writing the others (any order)."""
        done = []
        while self.pending:
            node, role = self.pending.pop()
            done.append((node, role, self.body(node, role)))
        return sorted(done, key=lambda entry: (entry[1], entry[0]))


def _shorten(items: list[str], limit: int = 12) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... ({len(items)} in all)"


def _runs(codes: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive runs ``(first, last)`` of sorted integer codes."""
    runs: list[tuple[int, int]] = []
    for k in codes:
        if runs and runs[-1][1] == k - 1:
            runs[-1] = (runs[-1][0], k)
        else:
            runs.append((k, k))
    return runs


# -- Python --------------------------------------------------------------------------------
def _py_float(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return "math.nan"
    if math.isinf(x):
        return "math.inf" if x > 0 else "-math.inf"
    return repr(x)


def _py_literal(value, what: str) -> str:
    value = to_python(value)
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return _py_float(value)
    raise ValueError(f"{what} {value!r} cannot be written as a Python literal")


def _py_comment(text: str) -> str:
    return text if text.isprintable() else repr(text)


def _table(values: list[str], open_: str, close: str, width: int = 96,
           pad: str = "    ") -> list[str]:
    """A bracketed list of literals, wrapped to lines of about ``width`` characters."""
    lines, line = [open_], pad
    for v in values:
        piece = v + ","
        if len(line) + len(piece) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = pad
        line += piece + " "
    if line.strip():
        lines.append(line.rstrip())
    lines.append(close)
    return lines


class _PythonEmitter(_Emitter):
    def __init__(self, info: _ModelInfo, name: str):
        super().__init__(info, name)
        self.p = f"_{name}_"  # prefix of every module-level helper

    def value(self, j: int, code: int) -> str:
        return _py_literal(self.info.categories[j][code], "category value")

    def leaf(self, node, role):
        info = self.info
        if role == "proba":
            return ["return [" + ", ".join(_py_float(p) for p in info.proba[node]) + "]"]
        label = int(info.label[node])
        if label < 0:
            return [f"return {self.p}UNCLASSIFIED"]
        return [f"return {_py_literal(info.classes[label], 'class label')}"]

    def slow(self, node, role):
        if role == "proba":
            return [f"return {self.p}descend(x, {node}, {self.p}PROBA)"]
        return [f"return {self.p}label({self.p}descend(x, {node}, {self.p}PROBA_RAW))"]

    def call(self, node, role):
        return [f"return {self.helper_name(node, role)}(x)"]

    def helper_name(self, node, role):
        return f"{self.p}{'proba_' if role == 'proba' else ''}n{node}"

    def open_if(self, condition, comment):
        return f"if {condition}:" + (f"  # {comment}" if comment else "")

    def else_line(self):
        return "else:"

    def close_line(self):
        return None

    def comment_line(self, text):
        return f"# {text}"

    def conditions(self, split):
        j = split.feature
        v = f"x[{j}]"
        name = _py_comment(self.info.names[j])
        if not split.categorical:
            missing = f"math.isnan({v})"
            if split.kind == NUMERIC:
                test = f"{v} <= {_py_float(split.threshold)}"
            else:
                test = f"{_py_float(split.threshold)} <= {v} <= {_py_float(split.high)}"
            if split.branches[0].missing:
                test = f"{missing} or {test}"
            note = name + ("" if split.branches[0].missing or split.weighted_missing
                           else "; missing: else")
            return (missing if split.weighted_missing else None), [test], [note]
        weighted = None
        if split.weighted_missing or split.weighted_codes:
            parts = [f"{v} is None"] if split.weighted_missing else []
            if split.weighted_codes:
                parts.append(self.membership(v, j, split.weighted_codes))
            weighted = " or ".join(parts)
        conditions = []
        for branch in split.branches:
            parts = [f"{v} is None"] if branch.missing else []
            if branch.codes:
                parts.append(self.membership(v, j, branch.codes))
            conditions.append(" or ".join(parts))
        return weighted, conditions, [name] * len(conditions)

    def membership(self, v: str, j: int, codes) -> str:
        values = [self.value(j, k) for k in codes]
        if len(values) == 1:
            return f"{v} == {values[0]}"
        return f"{v} in {{{', '.join(values)}}}"

    def fallthrough_comment(self, split, branch):
        name = _py_comment(self.info.names[split.feature])
        values = [self.value(split.feature, k) for k in branch.codes or ()]
        if branch.missing:
            values.append("missing")
        return f"otherwise ({name}: {_shorten(values)})"

    # -- the module ------------------------------------------------------------------------
    def source(self) -> str:
        from .. import __version__

        info, p, name = self.info, self.p, self.name
        tree = info.tree
        n, k = info.n_features, info.n_classes
        out = [
            (f'"""Decision tree generated by Quercus {__version__}: {tree.n_nodes} nodes, '
             f"{tree.n_leaves} leaves, {n} features, {k} classes."),
            "",
            f"{name}(row) returns the class label of one row; {name}_proba(row) returns the",
            "class probabilities, in CLASSES order. A row holds one value per feature, in",
            "FEATURES order: a number for a numeric feature, a category value (equal to one of",
            "the feature's categories) for a categorical one; None, NaN and the strings in",
            "MISSING (e.g. '', '?', 'NA') are missing.",
            "A value the tree cannot take raises",
            f'ValueError("{MESSAGE}: ...").',
            '"""',
            "",
            "import math",
            "",
            f"# algorithm: {_py_comment(info.algorithm)}",
            f"FEATURES = {p}FEATURES = ("
            + "".join(f"{_py_literal(v, 'feature name')}, " for v in info.names).rstrip()
            + ")",
            f"CLASSES = {p}CLASSES = ("
            + "".join(f"{_py_literal(c, 'class label')}, " for c in info.classes).rstrip()
            + ")",
        ]
        if info.interval:
            out.append(f"{p}UNCLASSIFIED = "
                       f"{_py_literal(info.unclassified, 'unclassified value')}"
                       "  # a row that fits no branch")
        out.append("# per feature: None (numeric) or {category value: code}")
        out.extend(_table([self.codebook(j) for j in range(n)], f"{p}CATEGORIES = (", ")"))
        out.append("# per feature: None (numeric) or (lowest, highest) value accepted")
        out.extend(_table([self.bounds(j) for j in range(n)], f"{p}RANGES = (", ")"))
        out.append(f"{p}MISSING = ({', '.join(repr(s) for s in info.missing)},)")
        out += ["", "", *self.check_function()]
        if info.weighted:
            out += ["", "", *self.tables(), "", "", *self.descend_function()]
        out += ["", "",
                f"def {name}(row):",
                '    """Class label of one row (values in FEATURES order)."""',
                f"    x = {p}check(row)",
                *self.body(0, "label"),
                "", "",
                f"def {name}_proba(row):",
                '    """Class probabilities of one row, in CLASSES order."""',
                f"    x = {p}check(row)",
                *self.body(0, "proba")]
        for node, role, lines in self.helper_bodies():
            out += ["", "", f"def {self.helper_name(node, role)}(x):", *lines]
        return "\n".join(out) + "\n"

    def codebook(self, j: int) -> str:
        book = self.info.categories[j]
        if book is None:
            return "None"
        return "{" + ", ".join(f"{self.value(j, i)}: {i}" for i in range(len(book))) + "}"

    def bounds(self, j: int) -> str:
        if self.info.categories[j] is not None:
            return "None"
        low, high = self.info.ranges[j] or (-math.inf, math.inf)
        return f"({_py_float(low)}, {_py_float(high)})"

    def check_function(self) -> list[str]:
        p, n = self.p, self.info.n_features
        return [
            f"def {p}invalid(j, value, why):",
            f'    raise ValueError("{MESSAGE}: "',
            '                     "feature %d (%r) = %r %s"',
            f"                     % (j, {p}FEATURES[j], value, why))",
            "",
            "",
            f"def {p}check(row):",
            '    """The row as a list: numbers as floats (NaN if missing), category values as',
            '    given (None if missing); ValueError for anything else."""',
            "    try:",
            "        x = list(row)",
            "    except TypeError:",
            f'        raise ValueError("{MESSAGE}: "',
            '                         "the row is not a sequence of values") from None',
            f"    if len(x) != {n}:",
            f'        raise ValueError("{MESSAGE}: "',
            f'                         "expected {n} values, got %d" % len(x))',
            "    for j, v in enumerate(x):",
            f"        categories = {p}CATEGORIES[j]",
            f"        if (v is None or (isinstance(v, str) and v in {p}MISSING)",
            "                or (isinstance(v, float) and math.isnan(v))):",
            "            x[j] = math.nan if categories is None else None",
            "        elif categories is None:",
            "            try:",
            "                number = float(v)",
            "            except (TypeError, ValueError, OverflowError):",
            f'                {p}invalid(j, v, "is not a number")',
            "            if math.isnan(number):",
            "                x[j] = math.nan",
            "                continue",
            f"            low, high = {p}RANGES[j]",
            "            if not (math.isfinite(number) and low <= number <= high):",
            "                if not math.isfinite(number):",
            f'                    {p}invalid(j, v, "is not finite")',
            f'                {p}invalid(j, v, "is outside the range [%r, %r]" % (low, high))',
            "            x[j] = number",
            "        else:",
            "            try:",
            "                known = v in categories",
            "            except TypeError:  # unhashable",
            "                known = False",
            "            if not known:",
            (f'                {p}invalid(j, v, "is not one of its %d categories" '
             "% len(categories))"),
            "    return x",
        ]

    def tables(self) -> list[str]:
        info, p = self.info, self.p
        tree = info.tree

        def ints(values) -> list[str]:
            return [str(int(v)) for v in values]

        def floats(values) -> list[str]:
            return [_py_float(v) for v in values]

        out = ["# The tree as tables, for rows with a missing value at a node that sends it",
               "# down every branch (see quercus.tree.Tree and docs/architecture.md)."]
        out += _table(ints(tree.kind), f"{p}KIND = (", ")")
        out += _table(ints(tree.feature), f"{p}FEATURE = (", ")")
        out += _table(floats(_used_thresholds(tree)),
                      f"{p}THRESHOLD = (", ")")
        out += _table(floats(np.where(tree.kind == INTERVAL, tree.interval_high, 0.0)),
                      f"{p}HIGH = (", ")")
        out += _table(ints(tree.child_ptr), f"{p}CHILD_PTR = (", ")")
        out += _table(ints(tree.child_ids), f"{p}CHILD_IDS = (", ")")
        out += _table(ints(tree.missing_branch), f"{p}MISSING_BRANCH = (", ")")
        out += _table(ints(tree.category_ptr), f"{p}CATEGORY_PTR = (", ")")
        out += _table(ints(tree.category_branch), f"{p}CATEGORY_BRANCH = (", ")")
        out += _table(floats(tree.weighted_n_node_samples), f"{p}WEIGHT = (", ")")
        for table, values in (("PROBA", info.proba), ("PROBA_RAW", info.raw)):
            if table == "PROBA_RAW" and values is info.proba:
                out.append(f"{p}PROBA_RAW = {p}PROBA")
                continue
            rows = ["None" if tree.kind[i] != LEAF else
                    "(" + ", ".join(_py_float(v) for v in values[i]) + ",)"
                    for i in range(tree.n_nodes)]
            out.append("# class probabilities at each leaf (None: a split node)"
                       if table == "PROBA" else
                       "# the same without Laplace's correction (what predict uses)")
            out += _table(rows, f"{p}{table} = (", ")")
        return out

    def descend_function(self) -> list[str]:
        p, k = self.p, self.info.n_classes
        label = [
            "",
            "",
            f"def {p}label(proba):",
            '    """The class with the highest probability (the first on a tie)."""',
        ]
        if self.info.interval:
            label += ["    if not any(proba):", f"        return {p}UNCLASSIFIED"]
        label.append(f"    return {p}CLASSES[max(range({k}), key=proba.__getitem__)]")
        return [
            f"def {p}branch(z, node):",
            '    """Branch of the encoded row z at a split node; -1: every branch."""',
            f"    v = z[{p}FEATURE[node]]",
            "    if math.isnan(v):",
            f"        return {p}MISSING_BRANCH[node]",
            f"    kind = {p}KIND[node]",
            "    if kind == 1:",
            f"        return 0 if v <= {p}THRESHOLD[node] else 1",
            "    if kind == 3:",
            f"        return 0 if {p}THRESHOLD[node] <= v <= {p}HIGH[node] else 1",
            "    code = int(v)",
            f"    lo = {p}CATEGORY_PTR[node]",
            f"    if code < 0 or lo + code >= {p}CATEGORY_PTR[node + 1]:",
            f"        return {p}MISSING_BRANCH[node]",
            f"    return {p}CATEGORY_BRANCH[lo + code]",
            "",
            "",
            f"def {p}descend(x, start, proba):",
            '    """Class probabilities from node start, a missing value at a node sending it',
            "    down every branch weighting each branch by its share of the node's training",
            '    weight (as quercus._kernels.predict.proba_rows does)."""',
            "    z = [math.nan if v is None else (v if c is None else float(c[v]))",
            f"         for v, c in zip(x, {p}CATEGORIES)]",
            f"    out = [0.0] * {k}",
            "    stack = [(start, 1.0)]",
            "    while stack:",
            "        node, share = stack.pop()",
            f"        if {p}KIND[node] == 0:",
            "            p = proba[node]",
            f"            for c in range({k}):",
            "                out[c] += share * p[c]",
            "            continue",
            f"        b = {p}branch(z, node)",
            "        if b != -1:",
            f"            stack.append(({p}CHILD_IDS[{p}CHILD_PTR[node] + b], share))",
            "            continue",
            f"        total = {p}WEIGHT[node]",
            f"        for i in range({p}CHILD_PTR[node], {p}CHILD_PTR[node + 1]):",
            f"            child = {p}CHILD_IDS[i]",
            f"            if {p}WEIGHT[child] > 0.0 and total > 0.0:",
            f"                stack.append((child, share * {p}WEIGHT[child] / total))",
            "    return out",
            *label,
        ]


# -- C -------------------------------------------------------------------------------------
def _c_float(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    text = repr(x)
    return text if any(ch in text for ch in ".eE") else text + ".0"


def _c_comment(text: str) -> str:
    """Text safe inside a /* ... */ comment (ASCII, no comment delimiters)."""
    if not (text.isascii() and text.isprintable()):
        text = ascii(text)
    return text.replace("*/", "*\\/").replace("/*", "/\\*")


def _c_value(value) -> str:
    value = to_python(value)
    return _c_comment(repr(value) if isinstance(value, str) else str(value))


class _CEmitter(_Emitter):
    def __init__(self, info: _ModelInfo, name: str):
        super().__init__(info, name)
        self.p = f"{name}_"

    def leaf(self, node, role):
        info = self.info
        if role == "proba":
            row = self.leaf_row[node]
            return [f"{self.p}copy(out, {self.p}leaf_proba + {row}L * {info.n_classes});",
                    "return;"]
        label = int(info.label[node])
        if label < 0:
            return [f"return {C_UNCLASSIFIED};  /* unclassified */"]
        return [f"return {label};  /* {_c_value(info.classes[label])} */"]

    def slow(self, node, role):
        if role == "proba":
            return [f"{self.p}descend(row, {node}, {self.p}leaf_proba, out);", "return;"]
        return [f"return {self.p}slow_label(row, {node});"]

    def call(self, node, role):
        if role == "proba":
            return [f"{self.helper_name(node, role)}(row, out);", "return;"]
        return [f"return {self.helper_name(node, role)}(row);"]

    def helper_name(self, node, role):
        return f"{self.p}{'proba_' if role == 'proba' else ''}n{node}"

    def open_if(self, condition, comment):
        return f"if ({condition}) {{" + (f"  /* {comment} */" if comment else "")

    def else_line(self):
        return "} else {"

    def close_line(self):
        return "}"

    def comment_line(self, text):
        return f"/* {text} */"

    def conditions(self, split):
        j = split.feature
        v = f"row[{j}]"
        name = _c_comment(self.info.names[j])
        if not split.categorical:
            missing = f"isnan({v})"
            if split.kind == NUMERIC:
                test = f"{v} <= {_c_float(split.threshold)}"
            else:
                test = f"{v} >= {_c_float(split.threshold)} && {v} <= {_c_float(split.high)}"
            if split.branches[0].missing:
                test = f"{missing} || ({test})"
            note = name + ("" if split.branches[0].missing or split.weighted_missing
                           else "; missing: else")
            return (missing if split.weighted_missing else None), [test], [note]
        weighted = None
        if split.weighted_missing or split.weighted_codes:
            parts = [f"isnan({v})"] if split.weighted_missing else []
            parts += self.code_tests(v, split.weighted_codes)
            weighted = " || ".join(parts)
        conditions, comments = [], []
        for branch in split.branches:
            parts = [f"isnan({v})"] if branch.missing else []
            parts += self.code_tests(v, branch.codes)
            conditions.append(" || ".join(parts))
            comments.append(self.describe(split.feature, branch))
        return weighted, conditions, comments

    @staticmethod
    def code_tests(v: str, codes) -> list[str]:
        tests = []
        for first, last in _runs(codes or ()):
            if first == last:
                tests.append(f"{v} == {first}.0")
            else:
                tests.append(f"({v} >= {first}.0 && {v} <= {last}.0)")
        return tests

    def describe(self, j: int, branch: _Branch) -> str:
        values = [_c_value(self.info.categories[j][k]) for k in branch.codes or ()]
        if branch.missing:
            values.append("missing")
        return f"{_c_comment(self.info.names[j])}: {_shorten(values)}"

    def fallthrough_comment(self, split, branch):
        return "otherwise, " + self.describe(split.feature, branch)

    # -- the file --------------------------------------------------------------------------
    def source(self) -> str:
        from .. import __version__

        info, p, name = self.info, self.p, self.name
        tree = info.tree
        n, k = info.n_features, info.n_classes
        head = [
            "/*",
            (f" * Decision tree generated by Quercus {__version__}: {tree.n_nodes} nodes, "
             f"{tree.n_leaves} leaves, {n} features, {k} classes"),
            f" * (algorithm {_c_comment(info.algorithm)}). C99; needs only <math.h>.",
            " *",
            f" * int {name}(const double *row)",
            f" *     The class index (0 .. {k - 1}, see CLASSES below) of one row; -2 if the row",
            " *     is invalid (a numeric value that is infinite or outside its range below, or a",
            " *     categorical value that is not one of its codes);",
            " *     -1 for a row of a class-interval tree that fits no branch (unclassified)."
            if info.interval else
            " *     -1 is never returned (this is not a class-interval tree).",
            f" * void {name}_proba(const double *row, double *out)",
            f" *     Writes the {k} class probabilities of the row to out[0 .. {k - 1}]"
            + (" (all 0.0 for" if info.interval else ";"),
            (" *     an unclassified row); " if info.interval else " *     ")
            + "NAN to every out[c] if the row is invalid.",
            " *",
            f" * row: {n} doubles, encoded as quercus's Schema.encode does: a numeric feature its",
            " * value, a categorical feature its category code (as listed below), NAN if missing.",
            " *",
            " * FEATURES",
        ]
        for j in range(n):
            fname = _c_comment(info.names[j])
            book = info.categories[j]
            if book is None:
                bounds = info.ranges[j]
                limit = ("any finite value" if bounds is None else
                         f"from {_c_float(bounds[0])} to {_c_float(bounds[1])}")
                head.append(f" *   row[{j}] {fname}: numeric, {limit}")
            else:
                head.append(f" *   row[{j}] {fname}: categorical, codes:")
                head.extend(f" *       {i} = {_c_value(v)}" for i, v in enumerate(book))
        head.append(" * CLASSES")
        head.extend(f" *   {c} = {_c_value(label)}" for c, label in enumerate(info.classes))
        head += [" */", "", "#include <math.h>", ""]

        body_label = self.body(0, "label")
        body_proba = self.body(0, "proba")
        helpers = self.helper_bodies()
        out = head + self.tables()
        protos = [f"static int {self.helper_name(node, role)}(const double *row);"
                  if role == "label" else
                  f"static void {self.helper_name(node, role)}(const double *row, double *out);"
                  for node, role, _ in helpers]
        if protos:
            out += ["", *protos]
        out += ["", *self.support_functions(), "",
                f"int {name}(const double *row)", "{",
                f"    if ({p}check(row) != 0)", f"        return {C_INVALID};",
                *body_label, "}", "",
                f"void {name}_proba(const double *row, double *out)", "{",
                "    int c;", f"    if ({p}check(row) != 0) {{",
                f"        for (c = 0; c < {k}; c++)", "            out[c] = NAN;",
                "        return;", "    }",
                *body_proba, "}"]
        for node, role, lines in helpers:
            signature = (f"static int {self.helper_name(node, role)}(const double *row)"
                         if role == "label" else
                         f"static void {self.helper_name(node, role)}(const double *row, "
                         "double *out)")
            out += ["", signature, "{", *lines, "}"]
        return "\n".join(out) + "\n"

    def tables(self) -> list[str]:
        info, p = self.info, self.p
        tree = info.tree
        k = info.n_classes
        leaves = sorted(self.leaf_row, key=self.leaf_row.get)

        def array(ctype: str, name: str, values: list[str], comment: str) -> list[str]:
            values = values or ["0"]  # ISO C has no empty arrays
            return [f"/* {comment} */",
                    *_table(values, f"static const {ctype} {p}{name}[{len(values)}] = {{",
                            "};")]

        def floats(values) -> list[str]:
            return [_c_float(v) for v in values]

        def ints(values) -> list[str]:
            return [str(int(v)) for v in values]

        out = array("double", "leaf_proba", floats(info.proba[leaves].ravel()),
                    f"class probabilities of each leaf, {k} per leaf")
        if not info.weighted:
            return out
        if info.proba is not info.raw:
            out += array("double", "leaf_proba_raw", floats(info.raw[leaves].ravel()),
                         "the same without Laplace's correction (what predict uses)")
        leaf_of = [self.leaf_row.get(i, -1) for i in range(tree.n_nodes)]
        out += ["/* The tree as tables, for rows with a missing value at a node that sends it",
                "   down every branch (see quercus.tree.Tree and docs/architecture.md). */"]
        out += array("signed char", "kind", ints(tree.kind), "0 leaf, 1 numeric, "
                     "2 categorical, 3 interval")
        out += array("int", "feature", ints(tree.feature), "feature tested")
        out += array("double", "threshold",
                     floats(_used_thresholds(tree)),
                     "numeric threshold, interval low end")
        out += array("double", "high",
                     floats(np.where(tree.kind == INTERVAL, tree.interval_high, 0.0)),
                     "interval high end")
        out += array("int", "child_ptr", ints(tree.child_ptr), "children: child_ids[ptr[i] .. "
                     "ptr[i + 1] - 1]")
        out += array("int", "child_ids", ints(tree.child_ids), "children in branch order")
        out += array("int", "missing_branch", ints(tree.missing_branch),
                     "branch of a missing value, -1: every branch")
        out += array("int", "category_ptr", ints(tree.category_ptr), "category maps: "
                     "category_branch[ptr[i] .. ptr[i + 1] - 1]")
        out += array("int", "category_branch", ints(tree.category_branch),
                     "branch of each category code")
        out += array("double", "weight", floats(tree.weighted_n_node_samples),
                     "training weight of each node")
        out += array("int", "leaf_of", ints(leaf_of), "row of each leaf in leaf_proba, -1 "
                     "for a split node")
        return out

    def support_functions(self) -> list[str]:
        info, p = self.info, self.p
        k = info.n_classes
        out = [f"static int {p}check(const double *row)", "{",
               "    /* 0 if the row is valid, -1 if not; NAN (missing) is always valid */"]
        for j in range(info.n_features):
            v = f"row[{j}]"
            fname = _c_comment(info.names[j])
            book = info.categories[j]
            if book is not None:
                last = len(book) - 1
                out.append(f"    if (!isnan({v}) && !({v} >= 0.0 && {v} <= {last}.0 && "
                           f"{v} == (double)(int){v}))  /* {fname} */")
            elif info.ranges[j] is None:
                out.append(f"    if (isinf({v}))  /* {fname} */")
            else:
                low, high = info.ranges[j]
                out.append(f"    if (!isnan({v}) && !(isfinite({v}) && {v} >= {_c_float(low)} "
                           f"&& {v} <= {_c_float(high)}))  /* {fname} */")
            out.append("        return -1;")
        out += ["    return 0;", "}", "",
                f"static void {p}copy(double *out, const double *proba)", "{",
                "    int c;", f"    for (c = 0; c < {k}; c++)", "        out[c] = proba[c];",
                "}"]
        if not info.weighted:
            return out
        bound = _stack_bound(info.tree)
        raw = f"{p}leaf_proba_raw" if info.proba is not info.raw else f"{p}leaf_proba"
        out += [
            "",
            "/* Branch of the row at a split node; -1: every branch. */",
            f"static int {p}branch(const double *row, int node)",
            "{",
            f"    const double v = row[{p}feature[node]];",
            "    int code, lo;",
            "    if (isnan(v))",
            f"        return {p}missing_branch[node];",
            f"    if ({p}kind[node] == 1)",
            f"        return v <= {p}threshold[node] ? 0 : 1;",
            f"    if ({p}kind[node] == 3)",
            f"        return ({p}threshold[node] <= v && v <= {p}high[node]) ? 0 : 1;",
            "    code = (int)v;",
            f"    lo = {p}category_ptr[node];",
            f"    if (code < 0 || lo + code >= {p}category_ptr[node + 1])",
            f"        return {p}missing_branch[node];",
            f"    return {p}category_branch[lo + code];",
            "}",
            "",
            "/* Class probabilities from node start: a missing value at a node that sends it",
            "   down every branch descends each branch with its share of the node's training",
            "   weight (as quercus._kernels.predict.proba_rows does). */",
            (f"static void {p}descend(const double *row, int start, const double *proba, "
             "double *out)"),
            "{",
            f"    int stack_node[{bound}];",
            f"    double stack_share[{bound}];",
            "    int top = 1, c, i;",
            f"    for (c = 0; c < {k}; c++)",
            "        out[c] = 0.0;",
            "    stack_node[0] = start;",
            "    stack_share[0] = 1.0;",
            "    while (top > 0) {",
            "        int node, b;",
            "        double share, total;",
            "        top--;",
            "        node = stack_node[top];",
            "        share = stack_share[top];",
            f"        if ({p}kind[node] == 0) {{",
            f"            const double *q = proba + (long){p}leaf_of[node] * {k};",
            f"            for (c = 0; c < {k}; c++)",
            "                out[c] += share * q[c];",
            "            continue;",
            "        }",
            f"        b = {p}branch(row, node);",
            "        if (b != -1) {",
            f"            stack_node[top] = {p}child_ids[{p}child_ptr[node] + b];",
            "            stack_share[top] = share;",
            "            top++;",
            "            continue;",
            "        }",
            f"        total = {p}weight[node];",
            f"        for (i = {p}child_ptr[node]; i < {p}child_ptr[node + 1]; i++) {{",
            f"            const int child = {p}child_ids[i];",
            f"            if ({p}weight[child] > 0.0 && total > 0.0) {{",
            "                stack_node[top] = child;",
            f"                stack_share[top] = share * {p}weight[child] / total;",
            "                top++;",
            "            }",
            "        }",
            "    }",
            "}",
            "",
            "/* predict's class for a row that took every branch somewhere below node. */",
            f"static int {p}slow_label(const double *row, int node)",
            "{",
            f"    double q[{k}];",
            "    int c, best = 0;",
            f"    {p}descend(row, node, {raw}, q);",
        ]
        if info.interval:
            out += ["    {", "        int seen = 0;", f"        for (c = 0; c < {k}; c++)",
                    "            if (q[c] != 0.0)", "                seen = 1;",
                    "        if (!seen)", f"            return {C_UNCLASSIFIED};", "    }"]
        out += [f"    for (c = 1; c < {k}; c++)", "        if (q[c] > q[best])",
                "            best = c;", "    return best;", "}"]
        return out
