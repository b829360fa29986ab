"""Exporters: the text tree, IF-THEN rules, JSON model files, and Python/C source code."""

from .._lazy import submodule_attributes
from .codegen import to_source
from .conditions import Condition, branch_conditions
from .model_file import load_model, save_model
from .rules import Rule, rules_to_text, tree_to_rules
from .text import tree_to_text

# every public submodule is an attribute, imported on first use (quercus/_lazy.py)
__getattr__, __dir__ = submodule_attributes(__name__, __path__, globals())
del submodule_attributes

__all__ = [
    "Condition",
    "Rule",
    "branch_conditions",
    "load_model",
    "rules_to_text",
    "save_model",
    "to_source",
    "tree_to_rules",
    "tree_to_text",
]
