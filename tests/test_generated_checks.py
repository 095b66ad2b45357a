"""Generated lit files of the newer classes (object, ir, diagnostic), executed line by line with
the real tools, and the known-bug list of 22.1.8 against the shipped generated files.

RUN lines are executed by bash (pipefail) with %s/%t substituted and the build's bin/ first on
PATH, so each check is run by the real FileCheck against the real tool's output. Edited copies
of the checks show that they can fail.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import unavailable

from harness.checks import expand
from harness.specs import known_bugs

W, M = "wmma.f32.16x16x128.f8f6f4", "mfma.scale.f32.16x16x128.f8f6f4"
WF, MF = f"{W}.gfx1250.O0", f"{M}.gfx950.O0"


@pytest.fixture(scope="module")
def runner(llvm_22_1_8):
    if not llvm_22_1_8.tool("FileCheck") or not llvm_22_1_8.tool("not"):
        unavailable("the LLVM build has no FileCheck / not (Debian's llvm-22-tools has both)")
    env = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"}
    bin_dirs = [str(llvm_22_1_8.bin_dir)] if llvm_22_1_8.bin_dir else []
    env["PATH"] = os.pathsep.join(bin_dirs + [os.environ.get("PATH", "")])

    def run(path: Path, tmp: Path, text: str | None = None) -> subprocess.CompletedProcess | None:
        """Run every RUN line of `path` (or of `text` written to tmp); the first failure, or None."""
        if text is not None:
            path = tmp / path.name
            path.write_text(text)
        for line in path.read_text().splitlines():
            if line.startswith("; RUN: "):
                cmd = line[len("; RUN: ") :].replace("%s", str(path)).replace("%t", str(tmp / "t"))
                proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, env=env, timeout=300)
                if proc.returncode != 0:
                    return proc
        return None

    return run


def _expand(spec_dir, spec: str) -> Path:
    cases_dir = spec_dir({"s.yaml": spec})
    expand.write(cases_dir, expand.render(cases_dir))
    return cases_dir / "generated"


def _runs(text: str) -> list[str]:
    return [line[len("; RUN: ") :] for line in text.splitlines() if line.startswith("; RUN: ")]


# ---- check: object ------------------------------------------------------------------------

OBJECT_SPEC = (
    f"matrix:\n  - intrinsic: {W}\n    check: object\n    fmt_a: fp4\n    fmt_b: fp6\n    width_a: max\n    width_b: max\n"
)


def test_object_file_runs_through_an_object_file_and_llvm_objdump(spec_dir):
    text = (_expand(spec_dir, OBJECT_SPEC) / f"{WF}.object.ll").read_text()
    runs = _runs(text)
    assert runs == [
        "llc -O0 -mtriple=amdgcn -mcpu=gfx1250 -global-isel=0 -filetype=obj -o %t.sdag.o < %s",
        "llvm-objdump -d %t.sdag.o | FileCheck --check-prefix=OBJ %s",
        "llc -O0 -mtriple=amdgcn -mcpu=gfx1250 -global-isel=1 -global-isel-abort=1 -filetype=obj -o %t.gisel.o < %s",
        "llvm-objdump -d %t.gisel.o | FileCheck --check-prefix=OBJ %s",
    ]
    requires = next(line for line in text.splitlines() if line.startswith("; REQUIRES:"))
    assert "llvm-filecheck" in requires.split(":", 1)[1].replace(" ", "").split(",")


def test_object_checks_pass_on_the_object_and_fail_when_they_expect_the_texts_tuple(
    llvm_22_1_8, tool, runner, spec_dir, tmp_path
):
    path = _expand(spec_dir, OBJECT_SPEC) / f"{WF}.object.ll"
    assert runner(path, tmp_path) is None
    # How wide llc's text makes each source, read from the real llc output.
    asm = tool("llc", ["-O0", "-mtriple=amdgcn", "-mcpu=gfx1250", "-global-isel=0"], path.read_text()).stdout
    line = next(l for l in asm.splitlines() if "v_wmma_f32_16x16x128_f8f6f4" in l)
    (a0, a1), (b0, b1) = [tuple(map(int, m)) for m in re.findall(r"v\[(\d+):(\d+)\]", line)[1:3]]
    text_a, text_b = a1 - a0 + 1, b1 - b0 + 1
    assert (text_a, text_b) == (16, 16)
    original = path.read_text()
    assert "[[#A+7]]" in original and "[[#B+11]]" in original  # fp4 reads 8, fp6 reads 12
    edits = (("[[#A+7]]", f"[[#A+{text_a - 1}]]"), ("[[#B+11]]", f"[[#B+{text_b - 1}]]"))
    for i, (old, new) in enumerate(edits):
        scratch = tmp_path / f"edit{i}"
        scratch.mkdir()
        failed = runner(path, scratch, original.replace(old, new))
        assert failed is not None, f"OBJ checks edited to {new} still passed"
        assert "FileCheck" in failed.args[-1] and "error:" in failed.stderr


# ---- check: ir ----------------------------------------------------------------------------

IR_SPEC = (
    f"matrix:\n  - intrinsic: [{W}, {M}]\n    check: ir\n    pipeline: instcombine\n    fmt_a: fp4\n"
    "    fmt_b: [fp4, fp8]\n    width_a: max\n    width_b: max\n"
)


@pytest.mark.parametrize("name", [f"{WF}.instcombine.ir.ll", f"{MF}.instcombine.ir.ll"])
def test_ir_checks_pass_after_instcombine_and_fail_after_amdgpu_lower_intrinsics(
    llvm_22_1_8, tool, runner, spec_dir, tmp_path, name
):
    path = _expand(spec_dir, IR_SPEC) / name
    text = path.read_text()
    assert any(r.startswith("opt ") and "-passes=instcombine -S" in r for r in _runs(text))
    assert runner(path, tmp_path) is None
    # 22.1.8's amdgpu-lower-intrinsics runs fine but narrows nothing, so the same checks fail.
    cpu = "gfx1250" if name.startswith("wmma") else "gfx950"
    lowered = tool("opt", ["-mtriple=amdgcn", f"-mcpu={cpu}", "-passes=amdgpu-lower-intrinsics", "-S"], text)
    assert lowered.returncode == 0 and "shufflevector" not in lowered.stdout
    (tmp_path / "other").mkdir()
    failed = runner(path, tmp_path / "other", text.replace("-passes=instcombine", "-passes=amdgpu-lower-intrinsics"))
    assert failed is not None and "FileCheck" in failed.args[-1], "IR checks passed without any narrowing"


# ---- check: diagnostic ----------------------------------------------------------------------

DIAG_SPEC = (
    f"matrix:\n  - intrinsic: {M}\n    check: diagnostic\n    args: {{5: 2}}\n    fmt_a: fp8\n"
    f"    fmt_b: bf8\n    width_b: 4\n  - intrinsic: {M}\n    check: diagnostic\n    args: {{5: 2}}\n"
    "    fmt_a: bf8\n    fmt_b: fp8\n    width_a: 4\n"
)


def test_diagnostic_checks_fail_for_mfma_b_and_pass_for_mfma_a(llvm_22_1_8, tool, runner, spec_dir, tmp_path):
    gen = _expand(spec_dir, DIAG_SPEC)
    b_text = (gen / f"{MF}.diagnostic-b.ll").read_text()
    assert "; CHECK-NEXT: {{^}}<4 x i32> %b{{$}}" in b_text
    assert "; CHECK-NEXT: {{^}}i32 1{{$}}" in b_text  # blgp of bf8: the operand that decides B
    # What 22.1.8 really prints after the source: arg 5, not blgp.
    printed = tool("llvm-as", ["-disable-output"], b_text).stderr.splitlines()
    assert printed[printed.index("<4 x i32> %b") + 1] == "i32 2"
    assert runner(gen / f"{MF}.diagnostic-a.ll", tmp_path) is None
    failed = runner(gen / f"{MF}.diagnostic-b.ll", tmp_path)
    assert failed is not None and "i32 1" in failed.stderr


# ---- known bugs of 22.1.8 -------------------------------------------------------------------

KNOWN_FAILING = [
    f"generated/{WF}.amdgpu-lower-intrinsics.ir.ll",
    f"generated/{MF}.amdgpu-lower-intrinsics.ir.ll",
    f"generated/{MF}.diagnostic-b.ll",
    f"generated/{WF}.narrowed-vector-extract.gisel.ll",
    f"generated/{MF}.narrowed-vector-extract.gisel.ll",
    f"generated/{WF}.instcombine.ir-malformed.ll",
    f"generated/{MF}.instcombine.ir-malformed.ll",
]
KNOWN_PASSING = [
    f"generated/{WF}.instcombine.overwide.ll",
    f"generated/{MF}.instcombine.overwide.ll",
    f"generated/{W}.gfx1250.O2.instcombine.overwide.ll",
    f"generated/{WF}.narrowed-vector-extract.sdag.ll",
    f"generated/{MF}.narrowed-vector-extract.sdag.ll",
    f"generated/{WF}.diagnostic-a.ll",
    f"generated/{MF}.diagnostic-a.ll",
    f"generated/{WF}.diagnostic-b.ll",
    f"generated/{WF}.amdgpu-lower-intrinsics.ir-malformed.ll",
    f"generated/{MF}.amdgpu-lower-intrinsics.ir-malformed.ll",
]


@pytest.mark.parametrize("relpath,listed", [(p, True) for p in KNOWN_FAILING] + [(p, False) for p in KNOWN_PASSING])
def test_known_bug_list_of_22_1_8_names_exactly_the_failing_files(repo_root, relpath, listed):
    assert (repo_root / "cases" / relpath).is_file(), relpath
    known = known_bugs.load(repo_root / "cases")
    assert bool(known_bugs.reason_for(known, "22.1.8", relpath)) is listed


@pytest.mark.parametrize(
    "relpath,fixed_word",
    [
        (f"generated/{MF}.diagnostic-b.ll", "argument 5"),
        (f"generated/{WF}.narrowed-vector-extract.gisel.ll", "unable to legalize"),
        (f"generated/{WF}.amdgpu-lower-intrinsics.ir.ll", "AMDGPULowerIntrinsics"),
    ],
)
def test_known_bug_reason_says_what_is_wrong(repo_root, relpath, fixed_word):
    reason = known_bugs.reason_for(known_bugs.load(repo_root / "cases"), "22.1.8", relpath)
    assert fixed_word in reason and "\n" not in reason


@pytest.mark.parametrize("relpath", KNOWN_FAILING + KNOWN_PASSING)
def test_shipped_file_fails_on_22_1_8_exactly_when_it_is_a_known_bug(llvm_22_1_8, runner, repo_root, tmp_path, relpath):
    failed = runner(repo_root / "cases" / relpath, tmp_path)
    if relpath in KNOWN_FAILING:
        assert failed is not None, f"{relpath} passes on 22.1.8 but is listed as a known bug"
    else:
        assert failed is None, (failed.args[-1], failed.stderr[-2000:])
