"""Issue 26: what a verdict depends on, and what a run may write.

A cache key covers every file a tool run depends on (a wrapper's target, a file rewritten in
place keeping its size and modification time); a kept answer is keyed by the stat identity of
every file it came from; an output is never written onto a file the run read or ran; a junk
build probe, a file named as ptxas that is not, and a selector the target lacks give no verdict;
a long value the user typed is quoted cut; a known-bugs entry that marks nothing is warned of."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import elf_pair, fake_build, one_line_exit_2

from harness.core import files
from harness.tools import builds, cache, toolchain

NVPTX_CASE = ("--intrinsic", "mma.m16n8k16.row.col.bf16", "--cpu", "sm_90")


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


# ---- one cache key over every file a run depends on ----------------------------------------


def test_a_wrapper_pointed_at_another_binary_is_another_cache_key(tmp_path):
    inner = _script(tmp_path / "inner", "echo accepts\n")
    wrapper = _script(tmp_path / "ptxas", f'exec {inner} "$@"\n')
    before = cache.Cache(tmp_path / "c").key(str(wrapper), ["-arch=sm_90"], "text", False)
    os.rename(_script(tmp_path / "rejects", "echo 'fatal : no' >&2; exit 1\n"), inner)  # the wrapper itself unchanged
    assert cache.Cache(tmp_path / "c").key(str(wrapper), ["-arch=sm_90"], "text", False) != before


def test_a_tool_rewritten_in_place_keeping_size_and_mtime_is_another_cache_key(tmp_path):
    tool = _script(tmp_path / "ptxas", "echo accepts\n")
    before = cache.Cache(tmp_path / "c").key(str(tool), [], "", False)
    st = tool.stat()
    time.sleep(0.01)
    with open(tool, "r+b") as fh:  # same inode, same size
        fh.write(b"#!/bin/sh\necho rejected")
    os.utime(tool, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the modification time put back
    assert (tool.stat().st_size, tool.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert cache.Cache(tmp_path / "c").key(str(tool), [], "", False) != before  # (a later process)


def test_a_kept_answer_is_not_given_after_its_library_is_relinked(tmp_path):
    """In one process too: the answer was derived from the library as well as the tool."""
    tool, lib = elf_pair(tmp_path)
    answers = builds.Answers(tmp_path / "answers")
    answers.put(str(tool), ["version"], "LLVM version 1.0")
    assert answers.get(str(tool), ["version"], str) == "LLVM version 1.0"
    lib.write_bytes(lib.read_bytes())  # relinked: same bytes, a new write
    assert answers.get(str(tool), ["version"], str) is None


def test_matrix_with_the_cache_does_not_bring_back_a_pass_of_a_swapped_ptxas(cli, nvptx_tc, ptxas_path, tmp_path):
    real = tmp_path / "real-ptxas"
    real.symlink_to(os.path.realpath(ptxas_path))
    wrapper = _script(tmp_path / "ptxas", f'exec {real} "$@"\n')
    args = ("matrix", *NVPTX_CASE, "--selector", "sdag", "--llvm-bin", nvptx_tc.bin_dir, "--cache-dir", tmp_path / "c")
    first = cli(*args, "--json", env={"PTXAS": str(wrapper)})
    assert first.returncode == 0 and '"pass"' in first.stdout, first.stderr[-2000:]
    real.unlink()
    _script(real, "echo 'ptxas: NVIDIA (R) Ptx optimizing assembler'; case \"$*\" in *--version*) exit 0;; esac\n"
            "echo 'ptxas fatal   : rejected' >&2; exit 1\n")  # fmt: skip
    again = cli(*args, "--json", env={"PTXAS": str(wrapper)})
    cells = json.loads(again.stdout)["cells"]
    assert cells and all("pass" not in c["verdicts"] for c in cells), again.stdout[-3000:]


# ---- outputs never onto a file the run read or ran -----------------------------------------


def test_the_page_is_never_written_onto_the_ptxas_the_run_ran(cli, nvptx_tc, ptxas_path, tmp_path):
    wrapper = _script(tmp_path / "ptxas", f'exec {os.path.realpath(ptxas_path)} "$@"\n')
    before = wrapper.read_bytes()
    proc = cli("matrix", *NVPTX_CASE, "--llvm-bin", nvptx_tc.bin_dir, "--no-cache", "--html", wrapper,
               env={"PTXAS": str(wrapper)})  # fmt: skip
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("#")]
    assert proc.returncode == 2 and len(errors) == 1 and "a file this run read or ran" in errors[0], proc.stderr
    assert wrapper.read_bytes() == before


def test_a_file_read_or_run_is_noted_and_refused_as_an_output(tmp_path):
    header, tool, new = tmp_path / "IntrinsicsNVPTX.h", _script(tmp_path / "t", "exit 0\n"), tmp_path / "new.html"
    header.write_text("// llvm.nvvm.mma.x\n")
    files.read_input(header, 1000, "header")
    toolchain.run_tool([str(tool)])
    for used in (header, tool):
        with pytest.raises(files.InputError, match="a file this run read or ran"):
            files.not_an_input(used, "--html")
    files.not_an_input(new, "--html")  # (a new file is no input)


# ---- probes that cannot be believed --------------------------------------------------------


def test_coverage_with_no_header_and_an_opt_printing_junk_exits_2_naming_opt(cli, llvm_22_1_8, tmp_path):
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "opt", "echo junk\n")  # (no include/ beside it)
    one_line_exit_2(cli("coverage", "--llvm-bin", fake, "--target", "nvptx"), f"{fake}/opt exited 0 without printing")


@pytest.mark.parametrize("body", ["exec /bin/true\n", "echo 'hello, world'\n", "exit 1\n"])
def test_a_ptxas_that_is_not_ptxas_gives_no_verdict(cli, llvm_22_1_8, tmp_path, body):
    ptxas = _script(tmp_path / "ptxas", body)
    proc = cli("try", "--llvm-bin", llvm_22_1_8.bin_dir, *NVPTX_CASE, env={"PTXAS": str(ptxas)})
    one_line_exit_2(proc, f"'{ptxas}' is not ptxas: `--version` exited", "without ptxas's banner")


def test_bisect_run_with_a_selector_the_target_lacks_is_skip_with_its_reason(cli, llvm_22_1_8):
    proc = cli("bisect-run", "--llvm-bin", llvm_22_1_8.bin_dir, *NVPTX_CASE, "--selector", "gisel")
    assert proc.returncode == 125, proc.stdout + proc.stderr
    assert "nvptx has no gisel selector" in proc.stdout and "--shard" not in proc.stdout + proc.stderr


def test_run_judges_a_cpu_no_spec_pairs_with_the_intrinsic_as_bisect_run_does(cli, llvm_22_1_8):
    case = ("--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx1200", "--llvm-bin", llvm_22_1_8.bin_dir)
    run = cli("run", *case, "--json")
    assert run.returncode in (0, 1) and '"cpu": "gfx1200"' in run.stdout, run.stderr[-2000:]
    assert cli("bisect-run", *case).returncode in (0, 1)


def test_audit_attributes_an_nvptx_function_with_a_dot_in_its_name(cli, llvm_22_1_8, ptxas_path, tmp_path):
    test = tmp_path / "dot.ll"
    test.write_text(
        "; RUN: llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_80 < %s | FileCheck %s\n"
        "define i32 @my.func(i32 %a) {\n  %r = add i32 %a, 1\n  ret i32 %r\n}\n"
        "define i32 @plain(i32 %a) {\n  %r = add i32 %a, 2\n  ret i32 %r\n}\n"
    )
    proc = cli("audit", "--llvm-bin", llvm_22_1_8.bin_dir, test, env={"PTXAS": ptxas_path})
    assert "my.func: no-code" not in proc.stdout and "outside any function" not in proc.stdout, proc.stdout
    assert "my.func: mc-reject" in proc.stdout  # (llc writes the '.' into PTX, which ptxas refuses)


# ---- one cut for quoted user input ---------------------------------------------------------

LONG = "x" * 10_000


@pytest.mark.parametrize(
    "args",
    [
        ("try", "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", LONG),
        ("run", "--llvm-bin", LONG),
        ("coverage", "--llvm-bin", "/" + LONG),
        ("run", "--spec", LONG),
        ("try", "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx942", "--width-a", LONG),
        ("run", "--timeout", LONG),
        ("matrix", "--llvm-bin", LONG + "::"),
    ],
    ids=["cpu", "llvm-bin", "llvm-bin-abs", "spec", "width", "timeout", "matrix-llvm-bin"],
)
def test_a_long_value_is_quoted_cut(cli, args):
    proc = cli(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr) < 600 and ",00" in proc.stderr and "characters)" in proc.stderr, proc.stderr[:300]


# ---- known-bugs entries that mark nothing --------------------------------------------------


def test_a_known_bugs_entry_naming_no_generated_file_or_only_shadowed_ones_is_warned_located(spec_dir):
    from harness.specs import known_bugs

    text = (
        '"22.1.8":\n'
        "  - files: generated/a.*.ll\n    reason: first\n"
        "  - files: [generated/gone.ll, generated/a.1.ll]\n    reason: second\n"
        "  - files: space/x.ll\n    reason: a cell of the space\n"
    )
    where = spec_dir({"known-bugs.yaml": text})
    warnings = known_bugs.idle(where, ["generated/a.1.ll", "generated/b.ll"])
    path = where / "known-bugs.yaml"
    assert warnings == [
        f"{path}:4:13: warning: version '22.1.8': 'generated/gone.ll' names no generated file: it marks nothing XFAIL",
        f"{path}:4:32: warning: version '22.1.8': 'generated/a.1.ll' names 1 generated file(s), each of which gets "
        "an earlier entry's XFAIL: this one marks nothing",
    ]
