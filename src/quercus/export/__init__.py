"""Exporters: the text tree, IF-THEN rules, and JSON model files."""

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
    "tree_to_rules",
    "tree_to_text",
]
