"""The C emitter: C99 (including only ``<math.h>``) with ``int predict(const double *row)``
and ``void predict_proba(const double *row, double *out)`` over the encoded row."""

from __future__ import annotations

import math

import numpy as np

from ...data.frames import to_python
from ...tree import INTERVAL, NUMERIC
from .model_info import C_INVALID, C_UNCLASSIFIED, Branch, ModelInfo, stack_bound, used_thresholds
from .walk import Emitter, code_runs, shorten, wrapped_table

__all__ = ["CEmitter", "c_float"]


def c_float(x: float) -> str:
    x = float(x)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    text = repr(x)
    return text if any(ch in text for ch in ".eE") else text + ".0"


def c_comment(text: str) -> str:
    """Text safe inside a /* ... */ comment (ASCII, no comment delimiters)."""
    if not (text.isascii() and text.isprintable()):
        text = ascii(text)
    return text.replace("*/", "*\\/").replace("/*", "/\\*")


def c_value(value) -> str:
    value = to_python(value)
    return c_comment(repr(value) if isinstance(value, str) else str(value))


class CEmitter(Emitter):
    def __init__(self, info: ModelInfo, name: str):
        super().__init__(info, name)
        self.p = f"{name}_"

    def leaf(self, node, role):
        info = self.info
        if info.regression:
            return [f"return {c_float(info.means[node])};"]
        if role == "proba":
            row = self.leaf_row[node]
            return [f"{self.p}copy(out, {self.p}leaf_proba + {row}L * {info.n_classes});",
                    "return;"]
        label = int(info.label[node])
        if label < 0:
            return [f"return {C_UNCLASSIFIED};  /* unclassified */"]
        return [f"return {label};  /* {c_value(info.classes[label])} */"]

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
        name = c_comment(self.info.names[j])
        if not split.categorical:
            missing = f"isnan({v})"
            if split.kind == NUMERIC:
                test = f"{v} <= {c_float(split.threshold)}"
            else:
                test = f"{v} >= {c_float(split.threshold)} && {v} <= {c_float(split.high)}"
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
        for first, last in code_runs(codes or ()):
            if first == last:
                tests.append(f"{v} == {first}.0")
            else:
                tests.append(f"({v} >= {first}.0 && {v} <= {last}.0)")
        return tests

    def describe(self, j: int, branch: Branch) -> str:
        values = [c_value(self.info.categories[j][k]) for k in branch.codes or ()]
        if branch.missing:
            values.append("missing")
        return f"{c_comment(self.info.names[j])}: {shorten(values)}"

    def fallthrough_comment(self, split, branch):
        return "otherwise, " + self.describe(split.feature, branch)

    # -- the file --------------------------------------------------------------------------
    def source(self) -> str:
        from ... import __version__

        info, p, name = self.info, self.p, self.name
        tree = info.tree
        n, k = info.n_features, info.n_classes
        head = self.regression_head() if info.regression else [
            "/*",
            (f" * Decision tree generated by Quercus {__version__}: {tree.n_nodes} nodes, "
             f"{tree.n_leaves} leaves, {n} features, {k} classes"),
            f" * (algorithm {c_comment(info.algorithm)}). C99; needs only <math.h>.",
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
        ]
        head += [
            " *",
            f" * row: {n} doubles, encoded as quercus's Schema.encode does: a numeric feature its",
            " * value, a categorical feature its category code (as listed below), NAN if missing.",
            " *",
            " * FEATURES",
        ]
        for j in range(n):
            fname = c_comment(info.names[j])
            book = info.categories[j]
            if book is None:
                bounds = info.ranges[j]
                limit = ("any finite value" if bounds is None else
                         f"from {c_float(bounds[0])} to {c_float(bounds[1])}")
                head.append(f" *   row[{j}] {fname}: numeric, {limit}")
            else:
                head.append(f" *   row[{j}] {fname}: categorical, codes:")
                head.extend(f" *       {i} = {c_value(v)}" for i, v in enumerate(book))
        if info.regression:
            head.append(f" * TARGET {c_comment(info.target or '(unnamed)')}")
        else:
            head.append(" * CLASSES")
            head.extend(f" *   {c} = {c_value(label)}" for c, label in enumerate(info.classes))
        head += [" */", "", "#include <math.h>", ""]
        if info.regression:
            return self.regression_file(head)

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

    def regression_head(self) -> list[str]:
        from ... import __version__

        info, tree = self.info, self.info.tree
        return [
            "/*",
            (f" * Regression tree generated by Quercus {__version__}: {tree.n_nodes} nodes, "
             f"{tree.n_leaves} leaves, {info.n_features} features"),
            f" * (algorithm {c_comment(info.algorithm)}). C99; needs only <math.h>.",
            " *",
            f" * double {self.name}(const double *row)",
            " *     The predicted TARGET of one row: the mean target of its leaf's training rows;",
            " *     NAN if the row is invalid (a numeric value that is infinite or outside its",
            " *     range below, or a categorical value that is not one of its codes).",
        ]

    def regression_file(self, head: list[str]) -> str:
        """A regression tree's file: ``double predict(const double *row)`` and its helpers."""
        p, name = self.p, self.name
        body = self.body(0, "label")
        helpers = self.helper_bodies()
        out = list(head)
        if helpers:
            out += ["", *(f"static double {self.helper_name(node, role)}(const double *row);"
                          for node, role, _ in helpers)]
        out += ["", *self.check_function(), "",
                f"double {name}(const double *row)", "{",
                f"    if ({p}check(row) != 0)", "        return NAN;",
                *body, "}"]
        for node, role, lines in helpers:
            out += ["", f"static double {self.helper_name(node, role)}(const double *row)",
                    "{", *lines, "}"]
        return "\n".join(out) + "\n"

    def tables(self) -> list[str]:
        info, p = self.info, self.p
        tree = info.tree
        k = info.n_classes
        leaves = sorted(self.leaf_row, key=self.leaf_row.get)

        def array(ctype: str, name: str, values: list[str], comment: str) -> list[str]:
            values = values or ["0"]  # ISO C has no empty arrays
            return [f"/* {comment} */",
                    *wrapped_table(values,
                                   f"static const {ctype} {p}{name}[{len(values)}] = {{", "};")]

        def floats(values) -> list[str]:
            return [c_float(v) for v in values]

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
                     floats(used_thresholds(tree)),
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

    def check_function(self) -> list[str]:
        info, p = self.info, self.p
        out = [f"static int {p}check(const double *row)", "{",
               "    /* 0 if the row is valid, -1 if not; NAN (missing) is always valid */"]
        for j in range(info.n_features):
            v = f"row[{j}]"
            fname = c_comment(info.names[j])
            book = info.categories[j]
            if book is not None:
                last = len(book) - 1
                out.append(f"    if (!isnan({v}) && !({v} >= 0.0 && {v} <= {last}.0 && "
                           f"{v} == (double)(int){v}))  /* {fname} */")
            elif info.ranges[j] is None:
                out.append(f"    if (isinf({v}))  /* {fname} */")
            else:
                low, high = info.ranges[j]
                out.append(f"    if (!isnan({v}) && !(isfinite({v}) && {v} >= {c_float(low)} "
                           f"&& {v} <= {c_float(high)}))  /* {fname} */")
            out.append("        return -1;")
        return [*out, "    return 0;", "}"]

    def support_functions(self) -> list[str]:
        info, p = self.info, self.p
        k = info.n_classes
        out = [*self.check_function(), "",
               f"static void {p}copy(double *out, const double *proba)", "{",
               "    int c;", f"    for (c = 0; c < {k}; c++)", "        out[c] = proba[c];",
               "}"]
        if not info.weighted:
            return out
        bound = stack_bound(info.tree)
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
            "   weight (as quercus._kernels._predict.proba_rows does). */",
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
