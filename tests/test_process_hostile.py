"""The harness as a process under hostile conditions: pipelines nested past any real one, standard
streams the shell closed, Ctrl-C while the CLI still loads, and RUN lines long enough to make
lit's shell lexer crawl. Each is exit 2 with one line (or, for Ctrl-C, 130 and at most one line),
never a traceback or a hang.

Every test runs the harness of the checkout this Python imports (PYTHONPATH points the tests at
another one), as a subprocess where the process is what is under test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from conftest import one_line_exit_2

from harness.core import commands

CHECKOUT = Path(commands.__file__).resolve().parents[2]
CASE = ("--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx942")


def _env(*front: Path) -> dict[str, str]:
    path = os.pathsep.join([*map(str, front), str(CHECKOUT)])
    return {**os.environ, "PYTHONPATH": path, "LLVM_DISABLE_SYMBOLIZATION": "1"}


def _nested(depth: int) -> str:
    return "function(" * depth + "instcombine" + ")" * depth


# ---- 1. pipelines nested past any real one ---------------------------------------------------


def test_a_pipeline_at_the_nesting_limit_is_read_and_one_past_it_is_refused_by_name():
    limit = commands.MAX_PIPELINE_NESTING
    assert commands.pass_pipeline_error(_nested(limit)) == ""
    assert "nested more than 32 levels deep" in commands.pass_pipeline_error(_nested(limit + 1))


@pytest.mark.parametrize("depth", [1_000, 200_000])
def test_a_pipeline_nested_deeper_than_pythons_stack_is_one_reason_not_a_recursion_error(depth):
    why = commands.pass_pipeline_error(_nested(depth))
    assert why.startswith("a pipeline nested more than 32 levels deep (the `(` at character 297)")


def test_a_deep_pipeline_flag_is_one_line_and_exit_2(cli):
    proc = cli("run", "--pipeline", _nested(1_000), *CASE)
    one_line_exit_2(proc, "--pipeline", "nested more than 32 levels deep")


def test_a_deep_pipeline_in_a_spec_is_one_line_at_its_place_in_the_file(cli, spec_dir):
    cases = spec_dir({"deep.yaml": f"matrix:\n  - intrinsic: mfma.f32.32x32x8f16\n    pipeline: '{_nested(1_000)}'\n"})
    for args in (("expand", "--cases", cases, "--check"), ("run", "--cases", cases)):
        line = one_line_exit_2(cli(*args), "nested more than 32 levels deep")
        assert line.startswith(f"harness: {cases / 'deep.yaml'}:3:15: error: pipeline: "), line


def test_a_deep_pipeline_in_metrics_is_one_line_and_exit_2(cli):
    proc = cli("run", "--metrics", f"none,{_nested(1_000)}", *CASE)
    one_line_exit_2(proc, "--metrics", "nested more than 32 levels deep")


# ---- 2. standard streams the shell closed ----------------------------------------------------


def _harness_with(redirections: str, *args: str) -> subprocess.CompletedProcess:
    """`python -m harness ARGS` with the shell's `redirections` (`>&-`, `2>&-`, ...)."""
    script = f'exec "$@" {redirections}'
    return subprocess.run(
        ["/bin/sh", "-c", script, "sh", sys.executable, "-m", "harness", *args],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )


@pytest.mark.parametrize("closed", [">&-", "2>&-", ">&- 2>&-", "<&- >&- 2>&-"])
def test_bad_input_with_a_closed_stream_exits_2_and_moves_nothing_to_the_other(closed):
    proc = _harness_with(closed, "run", "--json", "--intrinsic", "no.such.intrinsic")
    assert proc.returncode == 2, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert proc.stdout == ""  # the error belongs to stderr: closed, it is said nowhere
    if "2>&-" not in closed:
        assert proc.stderr.startswith("harness: error: unknown intrinsic") and proc.stderr.count("\n") == 1


def test_a_run_with_stdout_closed_exits_with_the_verdicts_status(llvm):
    opened = _harness_with("", "run", *CASE)
    proc = _harness_with(">&-", "run", *CASE)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == opened.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout == "" and opened.stdout
    assert all(line.startswith("# ") for line in proc.stderr.splitlines()), proc.stderr[-2000:]


@pytest.mark.parametrize("closed", ["2>&-", "<&- 2>&-"])
def test_json_with_stderr_closed_is_only_the_json_and_the_verdicts_status(llvm, closed):
    opened = _harness_with("", "run", "--json", *CASE)
    proc = _harness_with(closed, "run", "--json", *CASE)
    assert proc.returncode == opened.returncode == 0, (proc.returncode, proc.stdout[:2000])
    assert proc.stderr == ""
    assert json.loads(proc.stdout)["judgments"] == json.loads(opened.stdout)["judgments"]


def test_an_answer_larger_than_a_pipe_whose_reader_leaves_raises_broken_pipe(repo_root):
    # `harness report --json ... | head -c 5`: the reader takes a few bytes and leaves while the
    # answer is written. As one print() of 80 MB into the pipe, CPython's buffered writer drops
    # the broken pipe (and the flush finds nothing left); through `cli.Answer` it reaches main().
    code = (
        "import sys\nfrom harness.cli import Answer\nsys.stdout = Answer(sys.stdout)\n"
        "try:\n    print('x' * (80 << 20), end='')\n    sys.stdout.flush()\n    print('written', file=sys.stderr)\n"
        "except BrokenPipeError:\n    print('broken pipe', file=sys.stderr)\n"
    )
    for _ in range(3):
        proc = subprocess.run(
            ["sh", "-c", 'exec 3>&1; "$0" -c "$1" 2>&3 | head -c 5 >/dev/null', sys.executable, code],
            cwd=repo_root,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.stdout.strip() == "broken pipe", proc.stdout + proc.stderr


def test_progress_on_a_closed_stderr_writes_nothing(monkeypatch):
    """The progress counter of a long run, with both streams closed by the shell (Python makes
    them None), once main() has taken them over."""
    from harness.cli import _closed_streams_to_devnull
    from harness.tools.runner import StderrProgress

    monkeypatch.setattr(sys, "stderr", None)
    monkeypatch.setattr(sys, "stdout", None)
    _closed_streams_to_devnull()
    try:
        progress = StderrProgress.for_output(json_output=False)
        progress.start -= 10  # a run past PATIENCE: the quarter lines are due
        for done in range(1, 5):
            progress(done, 4)
        assert (sys.stdout.name, sys.stderr.name) == (os.devnull, os.devnull)
    finally:
        sys.stdout.close()
        sys.stderr.close()


# ---- 3. Ctrl-C while the CLI still loads -----------------------------------------------------

# Fault injection: a sitecustomize whose import hook, asked for the module $SLOW_IMPORT, marks
# the file $SLOW_IMPORT_MARK and sleeps, so that a SIGINT lands inside that import every time.
_SLOW_IMPORT = """\
import os, sys, time

class _Slow:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ.get("SLOW_IMPORT"):
            open(os.environ["SLOW_IMPORT_MARK"], "w").close()
            time.sleep(60)
        return None

sys.meta_path.insert(0, _Slow())
"""


def _console_script() -> list[str]:
    """The `harness` command as pip's console-script wrapper runs it: pyproject's entry point."""
    entry = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]["scripts"]["harness"]
    module, function = entry.split(":")
    return [sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}())"]


def _interrupted_while_importing(tmp_path: Path, entry: list[str], module: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(_SLOW_IMPORT)
    mark = tmp_path / "importing"
    env = {**_env(tmp_path), "SLOW_IMPORT": module, "SLOW_IMPORT_MARK": str(mark)}
    # (SIGINT as a terminal gives it: a suite started in the background of a shell without job
    # control inherits SIGINT ignored, and Python then installs no handler for it)
    restore = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
    proc = subprocess.Popen(
        [*entry, *args], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=restore
    )
    try:
        deadline = time.monotonic() + 60
        while not mark.exists():
            assert proc.poll() is None and time.monotonic() < deadline, f"{module} was never imported"
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("entry", ["console script", "python -m harness"])
@pytest.mark.parametrize(
    "module, args",
    [
        ("harness.core.commands", ("run", "--help")),  # imported by harness.cli itself
        ("harness.reports.bisect", ("bisect-run", "--help")),  # imported once main() runs
        ("harness.checks.expand", ("expand", "--check", "--cases", ".")),  # imported as the command starts
    ],
)
def test_ctrl_c_while_the_cli_imports_exits_130_without_a_traceback(tmp_path, entry, module, args):
    command = _console_script() if entry == "console script" else [sys.executable, "-m", "harness"]
    proc = _interrupted_while_importing(tmp_path, command, module, *args)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 130, (proc.returncode, proc.stderr[-2000:])
    assert len(proc.stderr.splitlines()) <= 1 and proc.stdout == "", (proc.stdout[-1000:], proc.stderr)


# ---- 4. RUN lines long enough to make lit's lexer crawl --------------------------------------


def _audit(path: Path) -> subprocess.CompletedProcess:
    """`harness audit PATH`; a run past 20 s is the hang under test, failed as such."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "harness", "audit", str(path)],
            cwd=path.parent,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=20,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"harness audit {path.name} ran past 20 s")


def test_an_800_kb_run_line_is_refused_at_its_place_without_running_anything(tmp_path):
    path = tmp_path / "long.ll"
    path.write_text("; a test\n;   RUN: llc -mtriple=amdgcn " + "-O2 " * 200_000 + "< %s | FileCheck %s\n")
    line = one_line_exit_2(_audit(path), "8,192")
    assert line.startswith(f"harness: {path}:2:10: error: a RUN line of 800,"), line


def test_a_run_line_of_many_short_continuations_is_joined_in_linear_time_and_refused(tmp_path):
    path = tmp_path / "continued.ll"
    path.write_text("; RUN: llc -mtriple=amdgcn \\\n" + "; RUN:   -O2 \\\n" * 100_000 + "; RUN:   < %s | FileCheck %s\n")
    line = one_line_exit_2(_audit(path), "(continuations joined)")
    assert line.startswith(f"harness: {path}:1:8: error: a RUN line of 400,"), line


def test_a_run_line_at_the_limit_is_split_and_one_past_it_is_refused():
    words = "llc " + "-O2 " * ((commands.MAX_RUN_LINE - 4) // 4)
    at_limit = words + "x" * (commands.MAX_RUN_LINE - len(words))
    assert len(commands.parse(at_limit).commands[0].argv) == len(at_limit.split())
    with pytest.raises(commands.CommandSyntaxError, match=r"a RUN line of 8,193 characters"):
        commands.parse(at_limit + "y")


def test_run_lines_know_the_column_their_command_starts_at():
    text = "x\n  ;  RUN: llc \\\n; RUN:   -O2\n# RUN: foo\n"
    assert commands.run_lines(text) == [commands.RunLine(2, "llc -O2", 11), commands.RunLine(4, "foo", 8)]
    joined = commands.updater_run_lines(["; RUN: llc \\", "; RUN:  -O2 \\\\", ";RUN: x"])
    assert joined == [commands.RunLine(1, "llc  -O2  x", 8)]
