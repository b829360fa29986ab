"""``quercus show``, ``plot``, ``report``, ``export`` and ``rules``: commands that print,
draw or export a saved model (argument parsing stays in ``cli``)."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from .cli_reading import read_file
from .errors import DataError, QuercusError
from .export.atomic import write_atomically
from .export.codegen import LANGUAGES, to_source
from .export.interval_xml import tree_to_xml
from .export.j48 import tree_to_id3, tree_to_j48
from .export.model_file import load_model
from .export.rpart_text import print_cp, print_rpart
from .export.rules import rules_to_text
from .export.text import tree_to_text
from .names import EXPORT_FORMATS, PICTURE_FORMATS
from .rpart_routing import SurrogatesDropped

__all__ = [
    "EXPORT_FORMATS",
    "PICTURE_FORMATS",
    "SHOW_FORMATS",
    "cmd_cp",
    "cmd_export",
    "cmd_plot",
    "cmd_report",
    "cmd_rules",
    "cmd_show",
    "emit",
]


# show --format (names.SHOW_FORMATS, then PICTURE_FORMATS: drawn by Graphviz's dot, png
# needs --out): (printer, the algorithm it needs or None, what that algorithm is called)
SHOW_FORMATS = {
    "text": (tree_to_text, None, None),
    "j48": (tree_to_j48, "c45", "C4.5"),
    "id3": (tree_to_id3, "id3", "ID3"),
    "xml": (tree_to_xml, "interval", "class-interval"),
    "dot": (lambda model: _dot().tree_to_dot(model), None, None),
    "rpart": (print_rpart, "rpart", "rpart"),
}


def _dot():
    from .export import dot

    return dot


def cmd_show(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    if args.format in PICTURE_FORMATS:
        if args.format == "png" and args.out is None:
            raise QuercusError("--format png writes a binary image; give --out FILE")
        picture = _dot().render_dot(_dot().tree_to_dot(model), args.format)
        if args.out is None:
            sys.stdout.write(picture.decode("utf-8"))
        else:
            write_atomically(args.out, lambda handle: handle.buffer.write(picture))
            print(f"{args.format.upper()} picture written to {args.out}")
        return 0
    printer, needed, name = SHOW_FORMATS[args.format]
    algorithm = getattr(model, "algorithm", "cart")  # a regression tree is a CART tree
    if needed is not None and algorithm != needed:
        raise QuercusError(f"--format {args.format} prints {name} trees only; {args.model} "
                           f"was trained with algorithm {algorithm!r} "
                           "(use --format text)")
    text = printer(model)
    emit(text if text.endswith("\n") else text + "\n", args.out, f"Tree ({args.format})")
    return 0


def cmd_cp(args: argparse.Namespace) -> int:
    """``quercus cp MODEL``: the cp table as R's printcp prints it."""
    model = load_model(args.model)
    if getattr(model, "cp_table_", None) is None:
        raise QuercusError(f"{args.model} has no cp table (a {model.algorithm} model); "
                           "rpart models have one")
    emit(print_cp(model) + "\n", args.out, "cp table")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from .plotting import save_decision_surface

    model = load_model(args.model)
    data = read_file(args.data, schema=model.schema_, args=args)
    save_decision_surface(model, data.X, data.y, args.features, args.out,
                          resolution=args.resolution)
    print(f"Decision surface written to {args.out}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import write_report

    model = load_model(args.model)
    X = y = None
    if args.data is not None:
        data = read_file(args.data, schema=model.schema_, args=args)
        if data.y is None:
            raise DataError(f"{args.data}: no class column {model.schema_.target!r}; the "
                            "report's accuracy needs labelled rows")
        X, y = data.X, data.y
    write_report(args.out, model, X, y, title=f"Quercus: {Path(args.model).name}",
                 data_name=Path(args.data).name if args.data else "")
    print(f"Report written to {args.out}")
    return 0


def _export_model(args: argparse.Namespace, model) -> int:
    """``export --format onnx|pmml``: a model file for other runtimes."""
    if args.ranges is not None:
        raise QuercusError(f"--ranges applies to --format python|c, not {args.format}")
    if args.format == "pmml":
        from .export.pmml import to_pmml

        text = to_pmml(model)
        if args.out is None:
            sys.stdout.write(text)
            return 0
        write_atomically(args.out, lambda handle: handle.write(text))
        print(f"PMML written to {args.out}")
        return 0
    if args.out is None:
        raise QuercusError("--format onnx writes a binary file: give --out FILE")
    from .export.onnx import to_onnx

    try:
        data = to_onnx(model, inputs=args.onnx_inputs,
                       max_nodes=args.max_nodes).SerializeToString()
    except ImportError as error:
        raise QuercusError(str(error)) from None
    write_atomically(args.out, lambda handle: handle.buffer.write(data))
    print(f"ONNX model written to {args.out}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SurrogatesDropped)
        status = _cmd_export(args)
    for warning in caught:  # one line each, as the CLI's other warnings
        print(f"quercus: warning: {warning.message}", file=sys.stderr)
    return status


def _cmd_export(args: argparse.Namespace) -> int:
    if args.onnx_inputs is not None and args.format != "onnx":
        raise QuercusError(f"--onnx-inputs applies to --format onnx, not {args.format}")
    args.onnx_inputs = args.onnx_inputs or "raw"
    model = load_model(args.model)
    if args.format not in LANGUAGES:
        return _export_model(args, model)
    training = None
    if args.ranges is not None:
        training = read_file(args.ranges, schema=model.schema_, args=args).X
    source = to_source(model, language=args.format, function_name=args.function_name,
                       X=training)
    if args.out is None:
        sys.stdout.write(source)
    else:
        write_atomically(args.out, lambda handle: handle.write(source))
        language = "Python" if args.format == "python" else "C"
        print(f"{language} source written to {args.out}")
    return 0


def emit(text: str, out: str | None, what: str) -> None:
    """Print ``text`` or write it atomically to ``out``."""
    if out is None:
        sys.stdout.write(text)
    else:
        write_atomically(out, lambda handle: handle.write(text))
        print(f"{what} written to {out}")


def _simplified_rules(args: argparse.Namespace, model) -> str:
    from .export.rule_sets import simplify_rules

    if args.data is None:
        raise QuercusError("--simplify needs the training data (the model file does not "
                           "store it): add --data TRAIN.csv or --data TRAIN.arff")
    data = read_file(args.data, schema=model.schema_, args=args)
    if data.y is None:
        raise DataError(f"{args.data}: no class column '{model.schema_.target}'; --simplify "
                        "needs the training rows with their classes")
    try:
        rule_set = simplify_rules(model, data.X, data.y, confidence=args.confidence)
        if args.format == "json":
            return rule_set.to_json()
        score = rule_set.score(data.X, data.y)
    except DataError as error:
        raise DataError(f"{args.data}: {error}") from error
    return (f"{rule_set}\n\n{len(rule_set.rules)} rules, {rule_set.n_conditions} conditions; "
            f"training accuracy {score:.4f} on {rule_set.n_rows} rows\n")


def cmd_rules(args: argparse.Namespace) -> int:
    from .export.rules import rules_to_json

    model = load_model(args.model)
    if args.simplify:
        text = _simplified_rules(args, model)
    else:
        for option, value in (("--data", args.data), ("--confidence", args.confidence)):
            if value is not None:
                raise QuercusError(f"{option} is used only with --simplify")
        text = rules_to_json(model) if args.format == "json" else rules_to_text(model) + "\n"
    emit(text, args.out, "Rules")
    return 0
