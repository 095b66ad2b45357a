"""`harness audit` against hostile test files and broken tools (issue 15): a verdict only for a
function whose output was judged, RUN lines that cannot write or run anything, lit's
substitutions from the file's own directory, and CHECK-line regexes that cannot hang it.

Measured on LLVM 22.1.8 (`llvm_22_1_8`); fake tools are scripts beside links to the real build.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

LLC = "llc -mtriple=amdgcn -mcpu=gfx950"
DECL = (
    "declare <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32"
    "(<8 x i32>, <8 x i32>, <4 x float>, i32, i32, i32, i32, i32, i32)\n"
)
HANG_GUARD = 300  # seconds: only a hang reaches it


def overwide(name: str = "over") -> str:
    """The FP4 x FP4 MFMA with 8 i32 per source (FP4 reads 4): llvm-mc rejects llc's text."""
    return (
        f"define amdgpu_ps void @{name}(<8 x i32> %a, <8 x i32> %b, <4 x float> %c, ptr addrspace(1) %out) {{\n"
        "  %r = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32> %a, <8 x i32> %b,"
        " <4 x float> %c, i32 4, i32 4, i32 0, i32 0, i32 0, i32 0)\n"
        "  store <4 x float> %r, ptr addrspace(1) %out\n  ret void\n}\n"
    )


FADD = "define float @fadd(float %a, float %b) {\n  %r = fadd float %a, %b\n  ret float %r\n}\n"


@pytest.fixture
def build(llvm_22_1_8, tmp_path):
    """build({tool: script body}) -> a bin/ of links to the real tools with those replaced (their
    --version and -mcpu=help still answered by the real tool)."""
    real = llvm_22_1_8.bin_dir

    def make(scripts: dict[str, str]) -> Path:
        out = tmp_path / "bin"
        out.mkdir()
        for entry in real.iterdir():
            (out / entry.name).symlink_to(entry)
        for tool, body in scripts.items():
            (out / tool).unlink()
            head = f'#!/bin/bash\ncase "$*" in *--version*|*-mcpu=help*) exec "{real}/{tool}" "$@";; esac\n'
            (out / tool).write_text(head + body)
            (out / tool).chmod(0o755)
        return out

    return make


@pytest.fixture
def audit(llvm_22_1_8, tmp_path):
    """audit(text, bin=None, bare=False) -> (exit status, stdout, stderr) of `harness audit` on a
    file t.ll holding `text` (named without a directory, from its own, when `bare`)."""

    def run(text: str, bin_dir: Path | None = None, bare: bool = False, json_out: bool = False):
        path = tmp_path / "t.ll"
        path.write_text(text)
        argv = [sys.executable, "-m", "harness", "audit", "t.ll" if bare else str(path)]
        argv += ["--llvm-bin", str(bin_dir or llvm_22_1_8.bin_dir), "--timeout", "60"] + (["--json"] if json_out else [])
        env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "LLVM_DISABLE_SYMBOLIZATION": "1"}
        proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=HANG_GUARD)
        assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
        return proc.returncode, proc.stdout, proc.stderr

    return run


def one_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("#")]
    assert len(lines) == 1, stderr
    return lines[0]


# ---- a verdict only for what was judged ----------------------------------------------------------


def test_a_quoted_function_name_gets_its_own_verdict(audit):
    code, out, _ = audit(f"; RUN: {LLC} < %s\n{DECL}{overwide(chr(34) + 'my-func' + chr(34))}", json_out=True)
    run = json.loads(out)["files"][0]["runs"][0]
    assert code == 1 and [(f["name"], f["verdict"]) for f in run["functions"]] == [("my-func", "mc-reject")]
    assert "note" not in run  # the errors are the function's, not "outside any function"


@pytest.mark.parametrize("name", [r"q\22uote", r"\01weird", r"x\0Ay", r"back\\slash", "fé x"])
def test_an_escaped_function_name_is_found_as_llc_spells_it(audit, name):
    """llc prints `@"q\22uote"` as `"q\"uote":`, `@"\01weird"` as `weird:`: each is judged under
    its IR name, beside a plain function that passes (it used to be "no code for any function")."""
    code, out, err = audit(f"; RUN: {LLC} < %s\n{DECL}{overwide(chr(34) + name + chr(34))}{FADD}", json_out=True)
    run = json.loads(out)["files"][0]["runs"][0]
    assert code == 1, err
    assert [(f["name"], f["verdict"]) for f in run["functions"]] == [(name, "mc-reject"), ("fadd", "pass")]


@pytest.mark.parametrize("said", ["echo 'this is not assembly'", "true"], ids=["junk", "nothing"])
def test_llc_output_without_the_functions_is_no_verdict(audit, build, said):
    code, out, err = audit(f"; RUN: {LLC} < %s\n{FADD}", build({"llc": f"cat >/dev/null\n{said}\n"}))
    assert code == 2 and out == "" and "llc printed code for none of the 1 function(s)" in one_error(err)


def test_an_empty_module_is_nothing_audited(audit):
    code, out, err = audit(f"; RUN: sed -n 1p %s | {LLC}\n{FADD}")
    assert code == 2 and "defines no function: nothing to audit" in one_error(err)


def test_filetype_obj_in_two_words_is_audited_as_text(audit):
    code, out, _ = audit(f"; RUN: {LLC} -filetype obj < %s\n{DECL}{overwide()}")
    assert code == 1 and "over: mc-reject" in out


def test_an_assembler_dying_without_a_line_is_no_pass(audit, build):
    mc = "cat >/dev/null\necho 'LLVM ERROR: out of memory' >&2\nexit 1\n"
    code, out, _ = audit(f"; RUN: {LLC} < %s\n{FADD}", build({"llvm-mc": mc}), json_out=True)
    functions = json.loads(out)["files"][0]["runs"][0]["functions"]
    assert code == 1 and [(f["name"], f["verdict"]) for f in functions] == [("fadd", "crash")]
    assert "LLVM ERROR: out of memory" in functions[0]["message"]


def test_an_assembler_printing_an_error_with_exit_0_is_no_verdict(audit, build):
    mc = "cat >/dev/null\necho '<stdin>:3:1: error: bogus' >&2\nexit 0\n"
    code, out, err = audit(f"; RUN: {LLC} < %s\n{FADD}", build({"llvm-mc": mc}))
    assert code == 2 and out == "" and "llvm-mc exited 0 but printed errors" in one_error(err)


def test_an_error_outside_every_function_keeps_the_file_from_passing(audit, build):
    mc = "cat >/dev/null\necho '<stdin>:1:1: error: in a section' >&2\nexit 1\n"
    code, out, _ = audit(f"; RUN: {LLC} < %s\n{FADD}", build({"llvm-mc": mc}))
    assert code == 1 and "llvm-mc errors outside any function: line 1: in a section" in out


# ---- RUN lines that would write or run something ------------------------------------------------


@pytest.mark.parametrize(
    "before",
    [
        "sed -i s/fadd/fsub/ %s",
        "sed --in-place=.bak s/fadd/fsub/ %s",
        "sed -ni p %s",
        "sed -e s/x/x/w{canary}/w %s",
        "sed -e '1e touch {canary}/e' %s",
        "sed -n 's|.*|touch {canary}/s|ep' %s",
        "llvm-as %s -o {canary}/as.bc",
        "touch {canary}/t",
        "/bin/cat %s",
        "opt -S -passes=dot-cfg %s",
    ],
)
def test_run_lines_that_write_or_run_anything_are_not_run(audit, tmp_path, before):
    canary = tmp_path / "canary"
    canary.mkdir()
    text = f"; RUN: {before.format(canary=canary)} | {LLC}\n{FADD}"
    code, _, err = audit(text)
    assert code == 2 and "nothing audited" in one_error(err)
    assert (tmp_path / "t.ll").read_text() == text and sorted(p.name for p in tmp_path.iterdir()) == ["canary", "t.ll"]
    assert list(canary.iterdir()) == []


@pytest.mark.parametrize("flags", ["-time-passes -info-output-file={canary}/info", "-load={canary}/plugin.so"])
def test_an_llc_that_would_write_a_file_or_load_code_itself_is_not_run(audit, tmp_path, flags):
    canary = tmp_path / "canary"
    canary.mkdir()
    code, _, err = audit(f"; RUN: {LLC} {flags.format(canary=canary)} < %s\n{FADD}")
    line = one_error(err)
    assert code == 2 and "nothing audited" in line and "writes a file or runs or loads code: not run" in line, line
    assert list(canary.iterdir()) == []


def test_lit_substitutions_come_from_the_files_own_directory(audit):
    code, out, _ = audit(f"; RUN: cat %S/t.ll | {LLC} -mattr=%{{fs-sep}}%{{pathsep}}\n{DECL}{overwide()}", bare=True)
    assert code == 1 and "over: mc-reject" in out


def test_a_test_suites_own_substitution_is_not_guessed(audit):
    code, _, err = audit(f"; RUN: {LLC} %{{gfx950_opts}} < %s\n{FADD}")
    assert code == 2 and "%{gfx950_opts} is a substitution of the test suite's own lit configuration" in one_error(err)


# ---- bounded time and memory --------------------------------------------------------------------


def test_a_catastrophic_check_regex_cannot_hang_the_audit(audit):
    checks = "; CHECK-LABEL: over:\n; CHECK: v_mfma_f32_16x16x128_f8f6f4 {{(.+)+Z}} v[0:7]\n"
    code, out, _ = audit(f"; RUN: {LLC} < %s | FileCheck %s\n{checks}{DECL}{overwide()}", json_out=True)
    functions = json.loads(out)["files"][0]["runs"][0]["functions"]
    assert code == 1 and [(f["verdict"], f["checks_enshrine_reject"]) for f in functions] == [("mc-reject", False)]


@pytest.mark.parametrize("source", ["< /dev/zero", "< {fifo}"], ids=["dev-zero", "fifo"])
def test_llc_reading_a_device_or_a_fifo_is_refused_unread(audit, tmp_path, source):
    import os

    os.mkfifo(tmp_path / "fifo")
    code, _, err = audit(f"; RUN: {LLC} {source.format(fifo=tmp_path / 'fifo')}\n{FADD}")
    assert code == 2 and "not a regular file" in one_error(err)
