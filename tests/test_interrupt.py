"""Ctrl-C during ``quercus train``: exit status 130, one line on stderr, no traceback, and
no model file or temporary file left behind (reading, fitting and saving)."""

from __future__ import annotations

import importlib.util
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quercus import cli, cli_commands
from quercus.export import atomic

ROOT = Path(__file__).parent.parent
TIMEOUT = 60.0

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="watches the process through /proc and a pty")


@pytest.fixture(scope="module")
def rows_csv(tmp_path_factory) -> Path:
    """100,000 rows x 20 numeric features (19 MB): a second to read, far more to fit
    exactly."""
    spec = importlib.util.spec_from_file_location("make_big_csv",
                                                  ROOT / "tools" / "make_big_csv.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path_factory.mktemp("interrupt") / "rows.csv"
    module.make_big_csv(str(path), 100_000, 20)
    return path


def _start(argv: list[str], **streams) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "quercus", *argv], text=True, **streams)


def _has_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open (Linux /proc)."""
    directory = f"/proc/{pid}/fd"
    try:
        descriptors = os.listdir(directory)
    except OSError:
        return False
    for fd in descriptors:
        try:
            if os.readlink(f"{directory}/{fd}") == str(path):
                return True
        except OSError:
            continue
    return False


def _assert_nothing_written(out_dir: Path) -> None:
    assert list(out_dir.iterdir()) == []  # no model file, no .model.json.*.tmp


@linux_only
@pytest.mark.parametrize("options", [["--splitter", "hist", "--stream"], []],
                         ids=["streaming", "in-memory"])
def test_interrupt_while_reading(rows_csv: Path, tmp_path: Path, options) -> None:
    out = tmp_path / "model.json"
    process = _start(["train", str(rows_csv), "--target", "y", "--out", str(out), *options],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + TIMEOUT
    while not _has_open(process.pid, rows_csv):  # imports done, reading started
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the data file was never opened"
        time.sleep(0.002)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 130, stderr
    assert stderr == "quercus: interrupted\n"
    assert stdout == ""
    _assert_nothing_written(tmp_path)


def _read_until(fd: int, wanted: str, deadline: float) -> str:
    """What the pty gives until ``wanted`` appears in it (or it closes)."""
    text = ""
    while wanted not in text and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        text += data.decode("utf-8", "replace")
    return text


@linux_only
def test_interrupt_while_fitting(rows_csv: Path, tmp_path: Path) -> None:
    """On a terminal the fit draws a progress bar: interrupt once it shows."""
    import pty

    out = tmp_path / "model.json"
    parent, child = pty.openpty()
    try:
        process = _start(["train", str(rows_csv), "--target", "y", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=child)
        os.close(child)
        deadline = time.monotonic() + TIMEOUT
        shown = _read_until(parent, "fitting [", deadline)
        assert "fitting [" in shown, shown
        process.send_signal(signal.SIGINT)
        process.wait(timeout=TIMEOUT)
        shown += _read_until(parent, "\0", time.monotonic() + 5)  # the rest, until closed
    finally:
        os.close(parent)
    assert process.returncode == 130, shown
    assert "Traceback" not in shown
    lines = [line for line in shown.replace("\r", "\n").splitlines() if line.strip()]
    assert lines[-1] == "quercus: interrupted"
    assert all(line.startswith("fitting [") for line in lines[:-1]), lines
    assert process.stdout.read() == ""
    process.stdout.close()
    _assert_nothing_written(tmp_path)


def test_interrupt_while_saving_leaves_no_file(tmp_path: Path, monkeypatch, capsys) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = data / "tiny.csv"
    path.write_text("x,y\n1,a\n2,a\n3,b\n4,b\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()

    def interrupted(fd):  # Ctrl-C after the text went to the temporary file
        assert list(out_dir.iterdir()), "the temporary file should exist here"
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", interrupted)
    for stream in (["--splitter", "hist", "--stream"], []):
        status = cli.main(["train", str(path), "--target", "y", "--out",
                           str(out_dir / "model.json"), *stream])
        out, err = capsys.readouterr()
        assert status == 130
        assert err == "quercus: interrupted\n" and out == ""
        _assert_nothing_written(out_dir)


def test_an_interrupt_a_library_reported_as_an_error_is_an_interrupt(monkeypatch, capsys):
    def reads(args):  # as pandas does: a KeyboardInterrupt in a read becomes a ParserError
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            raise ValueError("Error tokenizing data. C error: Calling read(nbytes) on source "
                             "failed") from None
        return 0

    monkeypatch.setattr(cli_commands, "cmd_demo", reads)
    before = signal.getsignal(signal.SIGINT)
    assert cli.main(["demo"]) == 130
    assert capsys.readouterr().err == "quercus: interrupted\n"
    assert signal.getsignal(signal.SIGINT) is before  # the handler is put back
