"""Exporters: the text tree, IF-THEN rules, JSON model files, and Python/C source code."""

from .codegen import to_source
from .conditions import Condition, branch_conditions
from .model_file import load_model, save_model
from .rules import Rule, rules_to_text, tree_to_rules
from .text import tree_to_text

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
