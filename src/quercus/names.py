"""Names and settings that both the library and the command line's parser need.

This module imports nothing, so that ``quercus --help`` (``cli_parser``) can build its
choices and help texts without importing numpy, pandas or the learners (issue 39,
"Start-up"). The library modules that own these names import them from here.
"""

from __future__ import annotations

#: Every ``algorithm`` the estimator takes, in the order the help lists them: the learners
#: of ``learners.LEARNERS``, then rpart (whose fit the estimator calls itself).
ALGORITHMS = ("cart", "id3", "c45", "interval", "optimal", "rpart")

#: criterion and min_samples_leaf when the estimator leaves them as None
DEFAULT_CRITERION = {"cart": "gini", "id3": "entropy", "c45": "gain_ratio", "interval": "gini",
                     "optimal": "gini", "rpart": "gini"}
CRITERIA = {"cart": ["gini", "entropy", "log_loss"], "id3": ["entropy", "gain_ratio"],
            "c45": ["gain_ratio"], "interval": ["gini", "entropy", "log_loss"],
            "optimal": ["gini"], "rpart": ["gini", "entropy", "information"]}
DEFAULT_MIN_SAMPLES_LEAF = {"cart": 1, "id3": 1, "c45": 2, "interval": 1, "optimal": 1}

#: A numeric target with more distinct values than this (or any fractional value) is a
#: regression target when ``--task`` is not given (``quercus train``; the streaming CSV
#: reader's ``task="auto"``).
MAX_CLASS_VALUES = 20

#: ``train`` streams a CSV file this large (CART with histograms).
STREAM_MIN_BYTES = 256 * 2**20

#: The languages of ``export.codegen.to_source``.
LANGUAGES = ("python", "c")
#: ``quercus export --format``: source code, or a model file for other runtimes.
EXPORT_FORMATS = (*LANGUAGES, "onnx", "pmml")
#: ``quercus show --format``: the printers of ``cli_output.SHOW_FORMATS``, then the
#: pictures Graphviz's dot draws of the dot format (png needs --out).
SHOW_FORMATS = ("text", "j48", "id3", "xml", "dot", "rpart")
PICTURE_FORMATS = ("svg", "png")
