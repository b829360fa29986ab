"""Raw-row inputs of the ONNX export: one graph input per column, categories coded in the graph.

``to_onnx(model)`` (``inputs="raw"``) puts these nodes in front of the tree ensemble, which
reads the encoded matrix (see :mod:`quercus.export.onnx`):

* a numeric feature is an input of shape [N, 1] and the ensemble's element type (double, or
  float with ``dtype="float"``); a missing value is NaN;
* a categorical feature is a string input of shape [N, 1]; an ``ai.onnx.ml`` LabelEncoder
  maps each category's text to its codebook code and every other string (the empty string,
  ``?``, ``NA``, a category the model never saw) to NaN, which the ensemble routes exactly
  as the model routes a missing value. The model's traversal sends a code outside a node's
  categories the same way, so an unseen category behaves in the graph as in the tree (the
  Python ``predict`` refuses it with a DataError instead);
* a ``Concat`` joins the columns, in the schema's order, into the ensemble's input.
"""

from __future__ import annotations

import math

from ..data.frames import canonical
from ..data.schema import Codebook, Schema
from .conditions import format_value

__all__ = ["OUTPUTS", "category_keys", "raw_doc", "raw_inputs"]

OUTPUTS = ("label", "probabilities")  # the graph's outputs: no feature may take these names


def category_keys(codebook: Codebook) -> tuple[list[str], list[float]]:
    """The strings a categorical input may hold for each code, and the codes.

    Each value is matched by its exact text (``str`` values), then as the model's codebook
    matches loosely: by Python's text of the value (``7``, ``2.5``, ``True``), and for a
    number also as a float (``7.0``). A text two values share keeps the first code, as the
    codebook's own look-up does.
    """
    codes: dict[str, int] = {}
    for code, value in enumerate(codebook.values):
        if isinstance(value, str):
            codes.setdefault(value, code)
    for code, value in enumerate(codebook.values):
        codes.setdefault(canonical(value), code)
    for code, value in enumerate(codebook.values):
        spellings = [str(value)]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            spellings.append(repr(float(value)))
        for text in spellings:
            codes.setdefault(text, code)
    return list(codes), [float(c) for c in codes.values()]


def _fresh(name: str, taken: set[str]) -> str:
    new, k = f"quercus_{name}", 1
    while new in taken:
        k += 1
        new = f"quercus_{name}_{k}"
    taken.add(new)
    return new


def _rename_internal(nodes: list, initializers: list, features: list[str]) -> dict[str, str]:
    """Rename the ensemble's internal tensors that a feature's name would shadow."""
    names = {n for node in nodes for n in (*node.input, *node.output)}
    names |= {init.name for init in initializers}
    taken = names | set(features)
    mapping = {n: _fresh(n, taken) for n in sorted(names & set(features))}
    for node in nodes:
        node.input[:] = [mapping.get(n, n) for n in node.input]
        node.output[:] = [mapping.get(n, n) for n in node.output]
    for init in initializers:
        init.name = mapping.get(init.name, init.name)
    return mapping


def raw_inputs(schema: Schema, dtype: str, nodes: list, initializers: list,
               matrix: str = "X", outputs: tuple[str, ...] = OUTPUTS) -> tuple[list, list]:
    """Graph inputs and the nodes that turn them into the ensemble's input ``matrix``.

    ``nodes`` and ``initializers`` (the ensemble and what follows it) are renamed in place
    where a feature's name equals one of their tensors. Returns (inputs, nodes to put
    first). ``outputs``: the graph's output names (a regression tree's: ``prediction``).

    Raises
    ------
    ValueError
        A feature named like an output of the graph (``label``, ``probabilities``) or with
        an empty name.
    """
    from onnx import TensorProto, helper

    features = schema.feature_names
    for name in features:
        if name in outputs or not name:
            raise ValueError(f"feature {name!r} cannot be an input of the raw-row ONNX graph "
                             f"(its outputs are {' and '.join(outputs)}); rename the column or "
                             "export with inputs='encoded' (--onnx-inputs encoded)")
    matrix = _rename_internal(nodes, initializers, features).get(matrix, matrix)
    taken = {n for node in nodes for n in (*node.input, *node.output)} | set(features)
    number = TensorProto.DOUBLE if dtype == "double" else TensorProto.FLOAT
    inputs, first, columns = [], [], []
    for spec in schema.features:
        if not spec.is_categorical:
            inputs.append(helper.make_tensor_value_info(spec.name, number, ["N", 1]))
            columns.append(spec.name)
            continue
        inputs.append(helper.make_tensor_value_info(spec.name, TensorProto.STRING, ["N", 1]))
        keys, codes = category_keys(spec.codebook)
        code = _fresh(f"{spec.name}_code", taken)
        first.append(helper.make_node(
            "LabelEncoder", [spec.name], [code], domain="ai.onnx.ml", name=code,
            keys_strings=keys, values_floats=codes, default_float=math.nan))
        if dtype == "double":
            as_double = _fresh(f"{spec.name}_code_double", taken)
            first.append(helper.make_node("Cast", [code], [as_double], to=TensorProto.DOUBLE))
            code = as_double
        columns.append(code)
    first.append(helper.make_node("Concat", columns, [matrix], axis=1))
    return inputs, first


def raw_doc(schema: Schema) -> str:
    """The graph's doc string: its inputs, in order, and each one's categories."""
    lines = [("Inputs: one [N, 1] tensor per column; numeric columns as numbers (NaN: "
              "missing), categorical columns as strings (any other string, '' included: "
              "missing, as the model routes a missing value).")]
    for spec in schema.features:
        if spec.is_categorical:
            values = ", ".join(format_value(v) for v in spec.codebook.values)
            lines.append(f"{spec.name} (string: {values})")
        else:
            lines.append(f"{spec.name} (numeric)")
    return "\n".join(lines)
