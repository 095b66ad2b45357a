"""Hostile input against the harness's limits and exits: a reader of stdout that goes away, test
files whose RUN lines would take minutes to split, YAML aliases that multiply a file into
millions of nodes, a lone CR among LF line endings, and JSON's missing NaN and Infinity.

Each test fails on the code before its fix: a run whose reader left exited 0, an audit of
40 long RUN lines took a minute (a subprocess past its time limit is the failure), aliases made
85 s and 1.8 GB of known bugs, update-checks wrote a CR-only file, `report` took and wrote NaN.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import HAND_CELL, REPO, one_line_exit_2

import harness

CHECKOUT = Path(harness.__file__).resolve().parent.parent  # (the harness under test)
SELECTION = ("--spec", "f8f6f4-runtime-formats.yaml", "--intrinsic", "wmma.f32.16x16x128.f8f6f4")
SIX_CELLS = (*SELECTION, "--fmt-a", "fp4", "--fmt-b", "fp4", "--width-a", "16")  # 6 cells, all known bugs
# How the console script `harness` runs: main()'s status to sys.exit, the interpreter's own exit.
CONSOLE_SCRIPT = "import sys; from harness.cli import main; sys.exit(main())"


def harness_run(*args: str, timeout: float = 600, closed_stdout: bool = False, script: bool = False, cwd=None):
    """`python -m harness ARGS` (or as the console script runs it), optionally with a stdout
    whose reader has already gone: every write to it fails with EPIPE."""
    argv = [sys.executable, *(("-c", CONSOLE_SCRIPT) if script else ("-m", "harness")), *map(str, args)]
    env = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"}
    if not closed_stdout:
        return subprocess.run(argv, cwd=cwd or CHECKOUT, capture_output=True, text=True, env=env, timeout=timeout)
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            argv, cwd=cwd or CHECKOUT, stdout=write, stderr=subprocess.PIPE, text=True, env=env, timeout=timeout
        )
    finally:
        os.close(write)


def no_traceback(proc) -> None:
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr[-3000:]


# ---- 5. a reader of stdout that goes away ---------------------------------------------------------


@pytest.fixture
def cases_without_known_bugs(tmp_path) -> Path:
    """The shipped specs without known-bugs.yaml: the six cells of SIX_CELLS are unexpected."""
    out = tmp_path / "cases"
    out.mkdir()
    for spec in (REPO / "cases").glob("*.yaml"):
        if spec.name != "known-bugs.yaml":
            shutil.copy(spec, out / spec.name)
    return out


@pytest.mark.parametrize("script", [False, True], ids=["python-m", "console-script"])
@pytest.mark.parametrize("form", ["--json", "text"])
def test_a_run_whose_reader_left_still_exits_1_for_unexpected_cells(llvm_22_1_8, cases_without_known_bugs, form, script):
    """`harness run --json | head -c 10` exited 0 with 6 unexpected cells: a CI job under
    `set -o pipefail` passed. The verdict's status stands, whatever the reader did."""
    flags = ("--json",) if form == "--json" else ()
    proc = harness_run("run", "--cases", cases_without_known_bugs, *SIX_CELLS, *flags, closed_stdout=True, script=script)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stderr[-2000:]
    written = harness_run("run", "--cases", cases_without_known_bugs, *SIX_CELLS, *flags)
    assert written.returncode == 1 and written.stdout, written.stderr[-2000:]  # (the same run, read whole)


@pytest.mark.parametrize("script", [False, True], ids=["python-m", "console-script"])
def test_a_passing_run_whose_reader_left_exits_141_not_0(llvm_22_1_8, script):
    """All six cells are known bugs (exit 0 when read whole). The reader took nothing of the
    document that 0 would vouch for: 141, 128 + SIGPIPE, as a shell reports `yes | head`."""
    assert harness_run("run", *SIX_CELLS, "--json").returncode == 0
    proc = harness_run("run", *SIX_CELLS, "--json", closed_stdout=True, script=script)
    no_traceback(proc)
    assert proc.returncode == 141, proc.stderr[-2000:]


@pytest.mark.parametrize("script", [False, True], ids=["python-m", "console-script"])
def test_expand_check_whose_reader_left_exits_with_its_status(shipped_cases, script):
    """Hundreds of stale files (no generated/ yet) fill the pipe before the status is returned;
    one stale file fits Python's buffer and fails only when it is flushed at exit (the console
    script exited 120 there, with an 'Exception ignored' note)."""
    proc = harness_run("expand", "--check", "--cases", shipped_cases, closed_stdout=True, script=script)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stderr[-2000:]
    for spec in shipped_cases.glob("*.yaml"):
        if spec.name != "f4-fixed-format.yaml":
            spec.unlink()
    proc = harness_run("expand", "--check", "--cases", shipped_cases, closed_stdout=True, script=script)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stderr[-2000:]


# ---- 6. RUN lines that take minutes to split ----------------------------------------------------

PIPES = "; RUN: " + "a|" * 4090 + "a"  # 8,181 characters: within MAX_RUN_LINE, lit's worst to split
FUNCTION = "define void @f() {\n  ret void\n}\n"
LLC_RUN = "; RUN: llc -mtriple=amdgcn -mcpu=gfx942 < %s | FileCheck %s\n"
QUICK = 8  # seconds: the fixed code needs one or two; before, these files took 13 s to a minute


def timed_audit(path: Path) -> subprocess.CompletedProcess:
    start = time.monotonic()
    try:
        proc = harness_run("audit", path, timeout=QUICK)
    except subprocess.TimeoutExpired:
        pytest.fail(f"audit of {path.name} still running after {QUICK} s (a hang on RUN lines)")
    assert time.monotonic() - start < QUICK
    return proc


def test_forty_long_run_lines_are_refused_at_once_at_the_line_past_the_total(tmp_path):
    """40 RUN lines of 8 KB each (each within MAX_RUN_LINE) took 62 s: each split in ~0.4 s,
    twice. The file's RUN lines together are past MAX_RUN_TEXT at the 17th: one located line."""
    from harness.core import commands

    path = tmp_path / "slow.ll"
    path.write_text("\n".join([PIPES] * 40) + "\n" + FUNCTION)
    proc = timed_audit(path)
    at = commands.MAX_RUN_TEXT // (len(PIPES) - len("; RUN: ")) + 1
    one_line_exit_2(proc, f"{path}:{at}:8: error: RUN lines of", f"more than the {commands.MAX_RUN_TEXT:,} the harness splits")


def test_long_run_lines_within_the_total_are_split_at_once(llvm, tmp_path):
    """16 RUN lines of 8 KB of `a|a|...` (within MAX_RUN_TEXT) and one llc line: lit's parser
    splits each in time quadratic in its tokens; the harness's in linear time, each line once."""
    path = tmp_path / "within.ll"
    path.write_text("\n".join([PIPES] * 16) + "\n" + LLC_RUN + FUNCTION)
    proc = timed_audit(path)
    assert proc.returncode == 0 and "1 pass" in proc.stdout, (proc.stdout, proc.stderr[-2000:])


def test_the_total_bound_counts_every_run_line_and_names_the_one_past_it():
    from harness.core import commands

    line = "llc " + "x" * 1020  # 1,024 characters
    runs = commands.run_lines("".join(f"; RUN: {line}\n" for _ in range(commands.MAX_RUN_TEXT // 1024 + 1)))
    assert commands.run_text_too_long(runs[:-1]) is None  # exactly MAX_RUN_TEXT
    past = commands.run_text_too_long(runs)
    assert past is not None and past[0] is runs[-1] and past[0].line == len(runs)


@pytest.mark.parametrize(
    "text",
    [
        "a|" * 300 + "a",
        "llc -O2 < %s 2>&1 | FileCheck %s --check-prefix=A",
        "not llc -mtriple=amdgcn 'a b' \"c|d\" < %s > %t 2> %t.err | FileCheck %s",
        'sed -e "s/|/x/" %s | llc ""',
    ],
)
def test_the_linear_split_is_lits_own(text):
    """The harness's parser is lit's, with only its look-ahead kept aside: the same commands."""
    import lit.ShUtil

    from harness.core import commands

    theirs = lit.ShUtil.ShParser(text, False, True).parse()
    ours = commands.parse(text)
    assert [c.argv for c in ours.commands] == [tuple(c.args) for c in theirs.commands]


# ---- 7. YAML aliases ------------------------------------------------------------------------------


def aliased_known_bugs(n: int, m: int) -> str:
    """The finding's known-bugs.yaml: `n` aliases of one glob in a list, `m` aliases of an entry
    holding that list (n * m globs expanded, from a file of ~11 * (n + m) bytes)."""
    files = ", ".join(["&s generated/zz.ll"] + ["*s"] * (n - 1))
    head = f'"0.0.1":\n  - files: &g [{files}]\n    reason: r\n"0.0.0-anchors":\n  - &e {{files: *g, reason: r}}\n'
    return head + '"22.1.8":\n' + "  - *e\n" * m


def test_known_bugs_aliases_past_the_node_bound_are_one_located_line(shipped_cases):
    """3,000 aliases of an entry of 3,000 aliases: 9 million entries (85 s, 1.8 GB) before."""
    from harness.specs import spec

    (shipped_cases / "known-bugs.yaml").write_text(aliased_known_bugs(3000, 3000))
    try:
        proc = harness_run("expand", "--check", "--cases", shipped_cases, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("expand --check still reading the aliased known-bugs.yaml after 60 s")
    # The 34th `*e` (line 38: 5 lines before the list) takes the count past the bound.
    where = f"{shipped_cases / 'known-bugs.yaml'}:38:5: error:"
    one_line_exit_2(proc, where, f"YAML of more than {spec.MAX_NODES:,} nodes with its aliases expanded")


def test_spec_aliases_past_the_node_bound_are_one_located_line(spec_dir, cli):
    """The same bound, by the same reader, for spec files: 300 aliases of a block holding 1,000
    aliases of a value."""
    values = ", ".join(["&v fp4"] + ["*v"] * 999)
    text = f"matrix:\n  - &b {{intrinsic: wmma.f32.16x16x128.f8f6f4, fmt_a: [{values}], fmt_b: fp4}}\n"
    where = spec_dir({"a.yaml": text + "  - *b\n" * 300})
    line = one_line_exit_2(cli("expand", "--check", "--cases", where), f"{where / 'a.yaml'}:", "nodes with its aliases expanded")
    assert line.startswith(f"harness: {where / 'a.yaml'}:101:5: error:"), line  # the 99th `*b`


def test_every_shipped_yaml_file_is_far_below_the_node_bound():
    """The bound is generous: the largest shipped file (known-bugs.yaml) has 252 nodes."""
    from harness.specs import spec

    sizes = {}
    for path in (REPO / "cases").glob("*.yaml"):
        loader = spec._CountingComposer(path.read_text(encoding="utf-8"), str(path))
        loader.get_single_node()
        sizes[path.name] = loader.expanded
    assert sizes and max(sizes.values()) * 100 < spec.MAX_NODES, sizes


def test_a_cycle_counts_once_and_reads_as_yaml_reads_it(tmp_path):
    from harness.specs import known_bugs

    (tmp_path / "known-bugs.yaml").write_text('"22.1.8":\n  - &e {<<: *e, files: generated/a.ll, reason: r}\n')
    assert known_bugs.load(tmp_path) == {"22.1.8": [("generated/a.ll", "r")]}


# ---- 8. line endings update-checks writes -------------------------------------------------------

SNAPSHOT = REPO / "cases" / "generated" / "snapshots" / "wmma.f32.32x16x128.f4.gfx1250.O0.exact.ll"


def bare_snapshot() -> str:
    """The shipped snapshot without its CHECK lines (update-checks fills them again)."""
    keep = [line for line in SNAPSHOT.read_text().split("\n") if not line.startswith(("; CHECK", "; SDAG", "; GISEL"))]
    return "\n".join(keep)


def test_a_lone_cr_before_the_first_lf_is_refused_and_the_file_kept(llvm, tmp_path):
    """The file was rewritten with CR endings throughout (lit read one line: UNRESOLVED), and
    --check called it up to date. A lone CR is a line end to the update scripts and none to lit:
    no rewrite keeps both readings."""
    lines = bare_snapshot().split("\n")
    path = tmp_path / "crfirst.ll"
    data = (lines[0] + "\r" + "\n".join(lines[1:])).encode()
    path.write_bytes(data)
    where = f"{path}:1:{len(lines[0]) + 1}: error: a lone CR"
    for flags in ((), ("--check",)):
        one_line_exit_2(harness_run("update-checks", *flags, path, "--llvm-bin", llvm.bin_dir), where)
        assert path.read_bytes() == data


@pytest.mark.parametrize("first, rest", [("\n", "\r\n"), ("\r\n", "\n")], ids=["lf-then-crlf", "crlf-then-lf"])
def test_mixed_lf_and_crlf_are_written_with_the_ending_most_lines_have(llvm, tmp_path, first, rest):
    """An LF first line made every CRLF line LF. lit splits LF and CRLF at the same "\\n", so
    either keeps its lines; the one most lines have is written, changing the fewest."""
    reference = tmp_path / "lf.ll"
    reference.write_text(bare_snapshot())
    assert harness_run("update-checks", reference, "--llvm-bin", llvm.bin_dir).returncode == 0
    lines = bare_snapshot().split("\n")
    path = tmp_path / "mixed.ll"
    path.write_bytes((lines[0] + first + rest.join(lines[1:])).encode())
    proc = harness_run("update-checks", path, "--llvm-bin", llvm.bin_dir)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert path.read_bytes() == reference.read_bytes().replace(b"\n", rest.encode())


# ---- 9. JSON: no NaN, no Infinity -----------------------------------------------------------------

RECORD = {**HAND_CELL, "verdict": "pass"}


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_report_refuses_nan_in_a_selection_at_its_line_and_column(cli, tmp_path, word):
    """`"opt": NaN` in a record's selection was taken, and `report --json` wrote it back: not JSON."""
    doc = {"llvm": "22.1.8", "llvm_bin": None, "shard": None, "selection": {"opt": "@"}, "cases": [RECORD]}
    text = json.dumps(doc, indent=1).replace('"@"', word)
    path = tmp_path / "run.json"
    path.write_text(text)
    at = text.index(word)
    line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    one_line_exit_2(cli("report", path, "--json"), f"{path}:{line}:{col}: error: not JSON: {word}")


def test_a_nan_inside_a_string_is_text():
    from harness.core import files

    assert files.parse_json(b'{"NaN": "Infinity NaN", "x": [1.5]}', "d.json") == {"NaN": "Infinity NaN", "x": [1.5]}


def test_json_the_harness_writes_is_never_nan():
    from harness.core import files

    assert json.loads(files.json_text({"a": [1.5, None]})) == {"a": [1.5, None]}
    with pytest.raises(ValueError):
        files.json_text({"a": float("nan")})


def test_gpu_check_json_writes_an_unbounded_error_as_null(monkeypatch, capsys, tmp_path):
    """An exact kernel that differs has an infinite worst error/bound ratio: `--json` wrote the
    word Infinity, which no JSON reader takes."""
    from harness.gpu import check

    kernel = {"variant": "w", "plant": None, "bound": "exact", "verdict": "fail", "ok": False, "worst": float("inf")}
    summary = {"pass": 0, "fail": 1, "not-run": 0, "ptx-only": 0, "planted": {"run": 0, "caught": 0}}
    report = {"kernels": [{**kernel, "max_abs": float("inf"), "outside": 9}], "summary": summary}
    report["summary"]["worst"] = {"variant": "w", "plant": None, "worst": float("inf")}
    monkeypatch.setattr(check, "check_all", lambda directory: report)
    assert check.run(tmp_path, as_json=True) == check.exit_status(report)

    def refuse(word):
        raise AssertionError(f"not JSON: {word}")

    doc = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert doc["kernels"][0]["worst"] is None and doc["kernels"][0]["max_abs"] is None and not doc["kernels"][0]["ok"]
