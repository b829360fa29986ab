"""Every code example in README.md and docs/*.md runs (issue 11: a README that raises must
fail the tests).

What runs, per Markdown file, in order, in one temporary working directory per file:

* ```` ```python ```` blocks are executed statement by statement in one namespace shared by
  the file's blocks. A statement whose same-line comment is a Python literal states its
  output, and it is checked: ``print(x)  # ['No']`` compares the printed text, a bare
  expression ``f(x)  # 'No'`` compares the value. Comment lines right after a statement
  that start ``# SomeError: message`` say that it raises; it must raise that error, with
  that message (whitespace ignored).
* plain ```` ``` ```` blocks whose lines (comments and blank lines aside) all start with
  ``quercus `` are commands: each runs as ``sys.executable -m quercus ...`` and must exit 0
  (a trailing ``# comment`` is dropped; ``> FILE`` sends the output to FILE).
* plain blocks of a transcript, lines ``$ quercus ...`` each followed by its output, run
  the same way, and each output line shown must appear in the command's output, in order
  (``...`` stands for lines left out).
* every other block (output samples, formats, shell set-up lines) is ignored.

A block that cannot run here is marked by an HTML comment on the line just before it:
``<!-- no-test: REASON -->`` always skips it; ``<!-- test-needs: NAME ... -->`` skips it
unless every NAME is an importable Python module or a program on PATH (e.g. ``dot`` for
Graphviz). Skipped blocks are reported with their reason.

The working directory holds copies of the bundled data files (src/quercus/data/bundled:
iris.csv, play_tennis.csv, yinyang.csv, ...) and the files the examples name as if the
reader had them (made by ``_example_files``): ``new.csv`` (two rows holding both iris's
four measurements and play-tennis's four features; the second row has no Outlook),
``weather.arff`` (Weka's weather.nominal.arff, target ``play``), ``big.csv`` (a 2,000-row
stand-in for the 4.5 GB file: columns x1, x2 and the class y), and the models
``iris.json`` (CART, max_depth 4), ``tennis.json`` (CART on play_tennis) and ``vote.json``
(CART on Weka's vote.arff). Files an earlier block writes stay for the later ones.

A failure names the file, the line of the block and the statement or command.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import re
import shlex
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

import quercus
from quercus.data import read_arff

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BUNDLED = ROOT / "src" / "quercus" / "data" / "bundled"
ARFF = ROOT / "tests" / "data" / "arff"
COMMAND_TIMEOUT = 120

_FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*(no-test|test-needs):\s*(.*?)\s*-->$")
_RAISES = re.compile(r"^#\s*(\w+(?:Error|Exception|Warning)):\s*(.*)$")


# -- extraction --------------------------------------------------------------------------
@dataclass
class Block:
    """One fenced block: where it starts (the fence's line, 1-based), its kind and text."""

    path: Path
    line: int
    info: str
    lines: list[str]
    marker: tuple[str, str] | None = None  # ("no-test" | "test-needs", text)
    kind: str = field(init=False)

    def __post_init__(self):
        self.kind = _kind(self.info, self.lines)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def skip_reason(self) -> str | None:
        if self.marker is None:
            return None
        what, text = self.marker
        if what == "no-test":
            return text or "marked no-test"
        missing = [name for name in text.split() if not _available(name)]
        return f"needs {', '.join(missing)}" if missing else None


def _available(name: str) -> bool:
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = False
    return found or shutil.which(name) is not None


def _code_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _kind(info: str, lines: list[str]) -> str:
    if info == "python":
        return "python"
    if info:
        return "ignored"
    code = _code_lines(lines)
    if code and all(line.startswith("quercus ") for line in code):
        return "commands"
    if code and code[0].startswith("$ quercus "):
        return "transcript"
    return "ignored"


def extract_blocks(path: Path, text: str | None = None) -> list[Block]:
    """The fenced blocks of a Markdown file, with the marker (if any) just before each.
    A marker that is not followed by a block raises ValueError (a stale marker)."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    blocks, i, marker, marker_line = [], 0, None, 0
    while i < len(lines):
        line = lines[i]
        if (found := _MARKER.match(line.strip())) is not None:
            marker, marker_line = (found.group(1), found.group(2)), i + 1
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence is None:
            if marker is not None and line.strip():
                raise ValueError(f"{path.name}:{marker_line}: a test marker must be the "
                                 "line just before a fenced block")
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() != fence.group(1):
            end += 1
        blocks.append(Block(path, i + 1, fence.group(2), lines[i + 1:end], marker))
        marker, i = None, end + 1
    if marker is not None:
        raise ValueError(f"{path.name}:{marker_line}: a test marker at the end of the file")
    return blocks


# -- running python blocks ---------------------------------------------------------------
def _comments(source: str) -> dict[int, str]:
    """Line number (1-based) -> the text of the comment on that line."""
    out = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            out[token.start[0]] = token.string
    return out


def _literal(comment: str):
    """The Python literal a comment states, or raise ValueError/SyntaxError."""
    text = comment.lstrip("#").strip()
    if not text:
        raise ValueError("empty")
    return text, ast.literal_eval(text)


def _expected_error(comments: dict[int, str], after: int, before: int):
    """(error name, message) from ``# SomeError: ...`` comment lines after a statement."""
    lines = [comments[n] for n in range(after + 1, before) if n in comments]
    if not lines or (found := _RAISES.match(lines[0])) is None:
        return None
    message = " ".join([found.group(2)] + [c.lstrip("#").strip() for c in lines[1:]])
    return found.group(1), message


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _equal(value, expected) -> bool:
    if hasattr(value, "tolist"):
        value = value.tolist()
    try:
        return bool(value == expected)
    except (TypeError, ValueError):
        return False


def run_python(block: Block, namespace: dict) -> list[str]:
    """Execute a python block statement by statement; the failures, each naming its line."""
    source = "\n".join(block.lines) + "\n"
    try:
        module = ast.parse(source)
    except SyntaxError as error:
        return [f"{block.where}: syntax error on block line {error.lineno}: {error.msg}"]
    comments = _comments(source)
    statements = module.body
    for index, statement in enumerate(statements):
        first, last = statement.lineno, statement.end_lineno
        following = statements[index + 1].lineno if index + 1 < len(statements) \
            else len(block.lines) + 1
        where = f"{block.where} (line {block.line + first}: " \
                f"{block.lines[first - 1].strip()})"
        raises = _expected_error(comments, last, following)
        try:
            output = _literal(comments[last]) if last in comments else None
        except (ValueError, SyntaxError):
            output = None
        stdout = io.StringIO()
        try:
            with contextlib.redirect_stdout(stdout):
                if isinstance(statement, ast.Expr):
                    code = compile(ast.Expression(statement.value), block.where, "eval")
                    value = eval(code, namespace)
                else:
                    code = compile(ast.Module([statement], []), block.where, "exec")
                    exec(code, namespace)  # noqa: S102 - the docs' own example
                    value = None
        except Exception as error:  # noqa: BLE001 - an example that raises
            if raises and type(error).__name__ == raises[0] \
                    and _same_text(str(error), raises[1]):
                continue
            return [f"{where}: raised {type(error).__name__}: {error}"]
        if raises:
            return [f"{where}: should raise {raises[0]}: {raises[1]}"]
        printed = stdout.getvalue()
        sys.stdout.write(printed)
        if output is None:
            continue
        text, expected = output
        is_print = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
            and getattr(statement.value.func, "id", None) == "print"
        if is_print and not _same_text(printed, text):
            return [f"{where}: printed {printed.strip()!r}, the comment says {text!r}"]
        if not is_print and isinstance(statement, ast.Expr) and not _equal(value, expected):
            return [f"{where}: gave {value!r}, the comment says {text!r}"]
    return []


# -- running commands --------------------------------------------------------------------
def _command(line: str) -> tuple[list[str], str | None]:
    """The argument list of a ``quercus ...`` line and the file after ``>``, if any."""
    words = shlex.split(line, comments=True)
    out = None
    if len(words) >= 2 and words[-2] == ">":
        words, out = words[:-2], words[-1]
    return words, out


def run_command(line: str, where: str, cwd: Path) -> tuple[str | None, str]:
    """Run one ``quercus ...`` line in ``cwd``: (failure or None, its output)."""
    words, out = _command(line)
    result = subprocess.run([sys.executable, "-m", "quercus", *words[1:]], cwd=cwd,
                            capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                            check=False)
    if out is not None:
        (cwd / out).write_text(result.stdout, encoding="utf-8")
    if result.returncode != 0:
        error = result.stderr.strip().splitlines()[-1:] or ["(no message)"]
        return (f"{where}: `{line.strip()}` exited with {result.returncode}: {error[0]}",
                result.stdout)
    return None, result.stdout


def run_commands(block: Block, cwd: Path) -> list[str]:
    failures = []
    for offset, line in enumerate(block.lines, start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            failure, _ = run_command(line, f"{block.where} (line {block.line + offset})", cwd)
            if failure:
                failures.append(failure)
    return failures


def _shown_output_missing(shown: list[str], actual: str) -> str | None:
    """The first shown output line not found (in order) in the actual output, or None."""
    actual_lines = [line.rstrip() for line in actual.splitlines()]
    position = 0
    for line in shown:
        if line.strip() in ("", "..."):
            continue
        try:
            position = actual_lines.index(line.rstrip(), position) + 1
        except ValueError:
            return line
    return None


def run_transcript(block: Block, cwd: Path) -> list[str]:
    failures, steps = [], []  # steps: (line number, command, shown output lines)
    for offset, line in enumerate(block.lines, start=1):
        if line.startswith("$ "):
            steps.append((block.line + offset, line[2:], []))
        elif steps:
            steps[-1][2].append(line)
    for number, command, shown in steps:
        where = f"{block.where} (line {number})"
        failure, output = run_command(command, where, cwd)
        if failure is None and (missing := _shown_output_missing(shown, output)) is not None:
            failure = f"{where}: `{command}` did not print the line shown: {missing!r}"
        if failure:
            failures.append(failure)
    return failures


# -- the working directory ---------------------------------------------------------------
def _example_files(folder: Path) -> None:
    """The data and models the examples name (see the module docstring)."""
    for path in BUNDLED.iterdir():
        if path.is_file() and not path.name.startswith(("_", ".")):
            shutil.copy(path, folder / path.name)
    iris = pd.read_csv(BUNDLED / "iris.csv")
    tennis = pd.DataFrame({"Outlook": ["Sunny", None], "Temperature": ["Cool", "Mild"],
                           "Humidity": ["High", "Normal"], "Wind": ["Strong", "Weak"]})
    new = pd.concat([iris.drop(columns="species").iloc[[0, -1]].reset_index(drop=True),
                     tennis], axis=1)
    new.to_csv(folder / "new.csv", index=False)
    shutil.copy(ARFF / "weather.nominal.arff", folder / "weather.arff")
    yinyang = pd.read_csv(BUNDLED / "yinyang.csv")
    big = pd.DataFrame({"x1": yinyang["x"], "x2": yinyang["y"], "y": yinyang["class"]})
    pd.concat([big] * (2000 // len(big) + 1)).head(2000).to_csv(folder / "big.csv",
                                                                  index=False)
    X, y, _ = quercus.datasets.load("iris")
    quercus.DecisionTreeClassifier(max_depth=4).fit(X, y).save(folder / "iris.json")
    X, y, _ = quercus.datasets.load("play_tennis")
    quercus.DecisionTreeClassifier().fit(X, y).save(folder / "tennis.json")
    vote = read_arff(ARFF / "vote.arff")
    quercus.DecisionTreeClassifier().fit(vote.X, vote.y).save(folder / "vote.json")


@pytest.fixture(scope="module")
def example_files(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("example-files")
    _example_files(folder)
    return folder


def run_file(path: Path, cwd: Path) -> tuple[list[str], list[str]]:
    """Run every block of a Markdown file in ``cwd``: (failures, skipped blocks)."""
    failures, skipped, namespace = [], [], {"__name__": "__docs__"}
    for block in extract_blocks(path):
        if block.kind == "ignored":
            continue
        if (reason := block.skip_reason) is not None:
            skipped.append(f"{block.where} ({block.kind}): {reason}")
            continue
        if block.kind == "python":
            failures += run_python(block, namespace)
        elif block.kind == "commands":
            failures += run_commands(block, cwd)
        else:
            failures += run_transcript(block, cwd)
    return failures, skipped


# -- the tests ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_examples_run(path, example_files, tmp_path, monkeypatch):
    shutil.copytree(example_files, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    failures, skipped = run_file(path, tmp_path)
    for line in skipped:
        print("skipped:", line)
    assert not failures, "\n".join(failures)


def test_the_readme_has_runnable_examples_of_each_kind():
    """A guard: the extractor finds the README's examples (a parser that finds nothing
    would pass every file)."""
    blocks = extract_blocks(ROOT / "README.md")
    kinds = [b.kind for b in blocks]
    assert kinds.count("python") >= 3 and kinds.count("commands") >= 5
    first = next(b for b in blocks if b.kind == "python")
    assert first.lines[0] == "import quercus" and first.marker is None
    transcripts = [b for path in DOCS for b in extract_blocks(path) if b.kind == "transcript"]
    assert transcripts


SAMPLE = """\
Text.

```python
x = [1, 2]
print(x)  # [1, 2]
len(x)  # 2
int("z")
# ValueError: invalid literal for int() with base
# 10: 'z'
```

<!-- no-test: cannot run here -->
```
quercus train huge.csv --target y
```

<!-- test-needs: no_such_program_xyz -->
```python
raise RuntimeError
```

```
quercus --version   # a comment
```

```
$ quercus --version
quercus 0.1.0
...
```

```json
{"not": "run"}
```
"""


def test_the_extractor_and_the_checks_on_a_sample(tmp_path):
    """Markers, kinds, stated outputs and stated errors, and that each check can fail."""
    path = ROOT / "sample.md"  # not read: the text is given
    blocks = extract_blocks(path, SAMPLE)
    assert [b.kind for b in blocks] == ["python", "commands", "python", "commands",
                                        "transcript", "ignored"]
    assert [b.line for b in blocks] == [3, 13, 18, 22, 26, 32]
    assert blocks[1].skip_reason == "cannot run here"
    assert blocks[2].skip_reason == "needs no_such_program_xyz"
    assert blocks[0].skip_reason is None and blocks[3].skip_reason is None

    def python(*lines):
        return Block(ROOT / "sample.md", 3, "python", list(lines))

    assert run_python(python(*blocks[0].lines), {}) == []
    for lines, line, expected in [
        (["x = [1, 2]", "print(x)  # [1, 3]"], 5, "printed '[1, 2]', the comment says '[1, 3]'"),
        (["len([1, 2])  # 3"], 4, "gave 2, the comment says '3'"),
        (["int('z')", "# ValueError: invalid literal for float()"], 4, "raised ValueError"),
        (["int('1')", "# ValueError: no"], 4, "should raise ValueError: no"),
        (["x = 1", "y = undefined_name", "z = 2"], 5, "NameError"),
    ]:
        failures = run_python(python(*lines), {})
        assert len(failures) == 1 and expected in failures[0], (lines, failures)
        assert failures[0].startswith(f"sample.md:3 (line {line}: {lines[line - 4]})")

    assert run_commands(blocks[3], tmp_path) == []
    version = f"quercus {quercus.__version__}"
    shown = Block(ROOT / "sample.md", 26, "", ["$ quercus --version", version, "..."])
    assert run_transcript(shown, tmp_path) == []
    output = "a\nb\nc\n"
    assert _shown_output_missing(["a", "...", "c"], output) is None
    assert _shown_output_missing(["c", "a"], output) == "a"  # out of order
    assert _shown_output_missing(["a", "quercus 9.9.9"], output) == "quercus 9.9.9"
    bad = Block(ROOT / "sample.md", 40, "", ["quercus show no-such-file.json"])
    failure = run_commands(bad, tmp_path)[0]
    assert failure.startswith("sample.md:40 (line 41): `quercus show no-such-file.json` "
                              "exited with 2: quercus: error: ")

    with pytest.raises(ValueError, match="just before a fenced block"):
        extract_blocks(path, "<!-- no-test: x -->\ntext\n```\nquercus a\n```\n")
