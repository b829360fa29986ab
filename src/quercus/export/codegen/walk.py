"""The language-independent part of code generation: the explicit-stack walk that
writes a subtree as nested if/else (``Emitter.body``) and small text helpers."""

from __future__ import annotations

from collections.abc import Sequence

from ...tree import LEAF
from .model_info import MAX_NESTING, Branch, ModelInfo, Split

__all__ = ["Emitter", "code_runs", "shorten", "wrapped_table"]


class Emitter:
    """Walks the tree with an explicit stack and asks the language for each piece."""

    indent = "    "

    def __init__(self, info: ModelInfo, name: str):
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

    def conditions(self, split: Split) -> tuple[str | None, list[str], list[str]]:
        """(condition of the weighted descent or None, condition per branch, comments)."""
        raise NotImplementedError

    def fallthrough_comment(self, split: Split, branch: Branch) -> str:
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


def shorten(items: list[str], limit: int = 12) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... ({len(items)} in all)"


def code_runs(codes: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive runs ``(first, last)`` of sorted integer codes."""
    runs: list[tuple[int, int]] = []
    for k in codes:
        if runs and runs[-1][1] == k - 1:
            runs[-1] = (runs[-1][0], k)
        else:
            runs.append((k, k))
    return runs


def wrapped_table(values: list[str], open_: str, close: str, width: int = 96,
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
