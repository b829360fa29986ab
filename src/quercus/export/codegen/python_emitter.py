"""The Python emitter: a module (importing only ``math``) with ``predict(row)`` and
``predict_proba(row)`` over raw feature values."""

from __future__ import annotations

import math

import numpy as np

from ...data.frames import to_python
from ...tree import INTERVAL, LEAF, NUMERIC
from .model_info import MESSAGE, ModelInfo, used_thresholds
from .walk import Emitter, shorten, wrapped_table

__all__ = ["PythonEmitter", "py_float", "py_literal"]


def py_float(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return "math.nan"
    if math.isinf(x):
        return "math.inf" if x > 0 else "-math.inf"
    return repr(x)


def py_literal(value, what: str) -> str:
    value = to_python(value)
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return py_float(value)
    raise ValueError(f"{what} {value!r} cannot be written as a Python literal")


def py_comment(text: str) -> str:
    return text if text.isprintable() else repr(text)


_DOC_TAIL = (
    "FEATURES order: a number for a numeric feature, a category value (equal to one of",
    "the feature's categories) for a categorical one; None, NaN and the strings in",
    "MISSING (e.g. '', '?', 'NA') are missing.",
    "A value the tree cannot take raises",
)


class PythonEmitter(Emitter):
    def __init__(self, info: ModelInfo, name: str):
        super().__init__(info, name)
        self.p = f"_{name}_"  # prefix of every module-level helper

    def value(self, j: int, code: int) -> str:
        return py_literal(self.info.categories[j][code], "category value")

    def leaf(self, node, role):
        info = self.info
        if info.regression:
            return [f"return {py_float(info.means[node])}"]
        if role == "proba":
            return ["return [" + ", ".join(py_float(p) for p in info.proba[node]) + "]"]
        label = int(info.label[node])
        if label < 0:
            return [f"return {self.p}UNCLASSIFIED"]
        return [f"return {py_literal(info.classes[label], 'class label')}"]

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
        name = py_comment(self.info.names[j])
        if not split.categorical:
            missing = f"math.isnan({v})"
            if split.kind == NUMERIC:
                test = f"{v} <= {py_float(split.threshold)}"
            else:
                test = f"{py_float(split.threshold)} <= {v} <= {py_float(split.high)}"
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
        name = py_comment(self.info.names[split.feature])
        values = [self.value(split.feature, k) for k in branch.codes or ()]
        if branch.missing:
            values.append("missing")
        return f"otherwise ({name}: {shorten(values)})"

    # -- the module ------------------------------------------------------------------------
    def source(self) -> str:
        info, p, name = self.info, self.p, self.name
        n = info.n_features
        out = [
            *self.docstring(),
            "",
            "import math",
            "",
            f"# algorithm: {py_comment(info.algorithm)}",
            f"FEATURES = {p}FEATURES = ("
            + "".join(f"{py_literal(v, 'feature name')}, " for v in info.names).rstrip()
            + ")",
            f"TARGET = {p}TARGET = {py_literal(info.target, 'target name')}"
            if info.regression else
            f"CLASSES = {p}CLASSES = ("
            + "".join(f"{py_literal(c, 'class label')}, " for c in info.classes).rstrip()
            + ")",
        ]
        if info.interval:
            out.append(f"{p}UNCLASSIFIED = "
                       f"{py_literal(info.unclassified, 'unclassified value')}"
                       "  # a row that fits no branch")
        out.append("# per feature: None (numeric) or {category value: code}")
        out.extend(wrapped_table([self.codebook(j) for j in range(n)], f"{p}CATEGORIES = (", ")"))
        out.append("# per feature: None (numeric) or (lowest, highest) value accepted")
        out.extend(wrapped_table([self.bounds(j) for j in range(n)], f"{p}RANGES = (", ")"))
        out.append(f"{p}MISSING = ({', '.join(repr(s) for s in info.missing)},)")
        out += ["", "", *self.check_function()]
        if info.weighted:
            out += ["", "", *self.tables(), "", "", *self.descend_function()]
        if info.regression:
            out += ["", "",
                    f"def {name}(row):",
                    '    """Predicted TARGET of one row (values in FEATURES order), a float."""',
                    f"    x = {p}check(row)",
                    *self.body(0, "label")]
        else:
            out += self.classifier_functions()
        for node, role, lines in self.helper_bodies():
            out += ["", "", f"def {self.helper_name(node, role)}(x):", *lines]
        return "\n".join(out) + "\n"

    def docstring(self) -> list[str]:
        from ... import __version__

        info, name, tree = self.info, self.name, self.info.tree
        size = f"{tree.n_nodes} nodes, {tree.n_leaves} leaves, {info.n_features} features"
        if info.regression:
            head = [f'"""Regression tree generated by Quercus {__version__}: {size}.', "",
                    f"{name}(row) returns the predicted TARGET of one row, a float: the mean",
                    "target of its leaf's training rows. A row holds one value per feature, in"]
        else:
            head = [(f'"""Decision tree generated by Quercus {__version__}: {size}, '
                     f"{info.n_classes} classes."), "",
                    (f"{name}(row) returns the class label of one row; {name}_proba(row) "
                     "returns the"),
                    "class probabilities, in CLASSES order. A row holds one value per feature, in"]
        return [*head, *_DOC_TAIL, f'ValueError("{MESSAGE}: ...").', '"""']

    def classifier_functions(self) -> list[str]:
        p, name = self.p, self.name
        return ["", "",
                f"def {name}(row):",
                '    """Class label of one row (values in FEATURES order)."""',
                f"    x = {p}check(row)",
                *self.body(0, "label"),
                "", "",
                f"def {name}_proba(row):",
                '    """Class probabilities of one row, in CLASSES order."""',
                f"    x = {p}check(row)",
                *self.body(0, "proba")]

    def codebook(self, j: int) -> str:
        book = self.info.categories[j]
        if book is None:
            return "None"
        return "{" + ", ".join(f"{self.value(j, i)}: {i}" for i in range(len(book))) + "}"

    def bounds(self, j: int) -> str:
        if self.info.categories[j] is not None:
            return "None"
        low, high = self.info.ranges[j] or (-math.inf, math.inf)
        return f"({py_float(low)}, {py_float(high)})"

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
            return [py_float(v) for v in values]

        out = ["# The tree as tables, for rows with a missing value at a node that sends it",
               "# down every branch (see quercus.tree.Tree and docs/architecture.md)."]
        out += wrapped_table(ints(tree.kind), f"{p}KIND = (", ")")
        out += wrapped_table(ints(tree.feature), f"{p}FEATURE = (", ")")
        out += wrapped_table(floats(used_thresholds(tree)), f"{p}THRESHOLD = (", ")")
        out += wrapped_table(floats(np.where(tree.kind == INTERVAL, tree.interval_high, 0.0)),
                             f"{p}HIGH = (", ")")
        out += wrapped_table(ints(tree.child_ptr), f"{p}CHILD_PTR = (", ")")
        out += wrapped_table(ints(tree.child_ids), f"{p}CHILD_IDS = (", ")")
        out += wrapped_table(ints(tree.missing_branch), f"{p}MISSING_BRANCH = (", ")")
        out += wrapped_table(ints(tree.category_ptr), f"{p}CATEGORY_PTR = (", ")")
        out += wrapped_table(ints(tree.category_branch), f"{p}CATEGORY_BRANCH = (", ")")
        out += wrapped_table(floats(tree.weighted_n_node_samples), f"{p}WEIGHT = (", ")")
        for table, values in (("PROBA", info.proba), ("PROBA_RAW", info.raw)):
            if table == "PROBA_RAW" and values is info.proba:
                out.append(f"{p}PROBA_RAW = {p}PROBA")
                continue
            rows = ["None" if tree.kind[i] != LEAF else
                    "(" + ", ".join(py_float(v) for v in values[i]) + ",)"
                    for i in range(tree.n_nodes)]
            out.append("# class probabilities at each leaf (None: a split node)"
                       if table == "PROBA" else
                       "# the same without Laplace's correction (what predict uses)")
            out += wrapped_table(rows, f"{p}{table} = (", ")")
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
            '    weight (as quercus._kernels._predict.proba_rows does)."""',
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
