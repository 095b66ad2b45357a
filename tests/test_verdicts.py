"""Verdict parsing (harness.core.verdicts) on output captured from the real tools in each test."""

from __future__ import annotations

import subprocess

import pytest

from harness.core import verdicts as V
from harness.specs import emit
from harness.specs.cases import Case
from harness.targets import catalog

FP8, BF8, FP6, BF6, FP4 = 0, 1, 2, 3, 4
W, M = "wmma.f32.16x16x128.f8f6f4", "mfma.scale.f32.16x16x128.f8f6f4"
F4 = "wmma.f32.32x16x128.f4"


def _case(name, fa, fb, wa, wb):
    intr = catalog.lookup(name)
    return Case(intr, intr.cpus[0], fa, fb, wa, wb)


def _llc(tool, cases, selector="sdag"):
    cpu = cases[0].cpu
    isel = ["-global-isel=0"] if selector == "sdag" else ["-global-isel=1", "-global-isel-abort=1"]
    return tool("llc", ["-O0", "-mtriple=amdgcn", f"-mcpu={cpu}", *isel], emit.module(cases).text)


def _mc(tool, cpu, asm):
    return tool("llvm-mc", ["-triple=amdgcn", f"-mcpu={cpu}", "-filetype=obj", "-o", "/dev/null"], asm)


# ---- verifier ---------------------------------------------------------------------------------


def test_verifier_diagnostics_attribute_each_rejected_call_to_its_own_function(llvm, tool):
    ok = _case(W, FP8, FP8, 16, 16)
    a_narrow = _case(W, FP8, FP8, 8, 16)  # fp8 A needs 16
    b_narrow = _case(W, FP4, FP6, 8, 8)  # fp6 B needs 12
    b_shape = _case(W, FP8, FP8, 16, 7)  # not a legal vector at all
    also_ok = _case(W, FP4, FP4, 8, 8)
    run = tool("llvm-as", ["-o", "/dev/null"], emit.module([ok, a_narrow, b_narrow, b_shape, also_ok]).text)
    assert run.returncode != 0 and "does not verify" in run.stderr

    diags = V.verifier_diagnostics(run.stderr)
    assert set(diags) == {a_narrow.function, b_narrow.function, b_shape.function}
    for case, message, operand in (
        (a_narrow, "invalid vector type for format", "<8 x i32> %a"),
        (b_narrow, "invalid vector type for format", "<8 x i32> %b"),
        (b_shape, "operand 3 must be 8, 12 or 16 element i32 vector", "<7 x i32> %b"),
    ):
        lines = diags[case.function].splitlines()
        assert lines[0] == message, case.function
        assert lines[1].strip().startswith(f"%r.{case.function} = call "), case.function
        assert operand in lines[2:], case.function
        others = {a_narrow.function, b_narrow.function, b_shape.function} - {case.function}
        assert not any(o in diags[case.function] for o in others), "diagnostic ran into its neighbour"


def test_verifier_diagnostics_on_mfma_name_cbsz_and_blgp_sources(llvm, tool):
    a_narrow, b_narrow = _case(M, FP6, FP8, 4, 8), _case(M, FP8, FP8, 8, 4)
    b_fine = _case(M, FP4, FP4, 4, 4)
    run = tool("llvm-as", ["-o", "/dev/null"], emit.module([a_narrow, b_fine, b_narrow]).text)
    diags = V.verifier_diagnostics(run.stderr)
    assert set(diags) == {a_narrow.function, b_narrow.function}
    assert "<4 x i32> %a" in diags[a_narrow.function].splitlines()
    assert "<4 x i32> %b" in diags[b_narrow.function].splitlines()


def test_valid_module_produces_no_diagnostics(llvm, tool):
    run = tool("llvm-as", ["-o", "/dev/null"], emit.module([_case(W, FP6, BF6, 12, 12)]).text)
    assert run.returncode == 0
    assert V.verifier_diagnostics(run.stderr) == {}


# ---- llvm-mc --------------------------------------------------------------------------------


def test_mc_rejections_blame_exactly_the_overwide_functions(llvm, tool):
    exact = _case(W, FP4, FP4, 8, 8)
    both_wide = _case(W, FP4, FP4, 16, 16)
    b_wide = _case(W, FP8, FP6, 16, 16)
    exact2 = _case(W, FP6, FP8, 12, 16)
    cases = [exact, both_wide, b_wide, exact2]
    gen = _llc(tool, cases)
    assert gen.returncode == 0, gen.stderr[-2000:]
    mc = _mc(tool, "gfx1250", gen.stdout)
    assert mc.returncode != 0

    found, stray = V.mc_rejections(mc.stderr, gen.stdout, {c.function for c in cases})
    assert set(found) == {both_wide.function, b_wide.function}
    assert stray == []
    assert found[both_wide.function].startswith("wrong register tuple size for MATRIX_FMT_FP4")
    assert found[b_wide.function].startswith("wrong register tuple size for MATRIX_FMT_FP6")
    for detail in found.values():
        assert "v_wmma_f32_16x16x128_f8f6f4 v[" in detail  # the offending instruction is quoted


def test_located_errors_point_at_the_offending_source_operand(llvm, tool):
    case = _case(W, FP4, FP4, 16, 16)
    gen = _llc(tool, [case])
    mc = _mc(tool, "gfx1250", gen.stdout)
    errors = V.located_errors(mc.stderr)
    assert errors and all(msg == "wrong register tuple size for MATRIX_FMT_FP4" for _, _, msg in errors)
    asm = gen.stdout.splitlines()
    for line, col, _ in errors:
        assert asm[line - 1].strip().startswith("v_wmma_f32_16x16x128_f8f6f4 ")
        assert asm[line - 1][col - 1 :].startswith("v[")  # the 16-register source tuple
    owners = V.asm_owners(gen.stdout, {case.function})
    assert owners[errors[0][0]] == case.function
    assert 1 not in owners  # the preamble before the first label belongs to nobody


def test_mfma_gisel_two_errors_on_one_line_keep_the_first(llvm, tool):
    case = _case(M, FP4, FP4, 8, 8)
    gen = _llc(tool, [case], "gisel")
    mc = _mc(tool, "gfx950", gen.stdout)
    assert len(V.located_errors(mc.stderr)) == 2
    found, stray = V.mc_rejections(mc.stderr, gen.stdout, {case.function})
    assert stray == []
    assert found[case.function].startswith("wrong register tuple size for cbsz value 4: v_mfma_f32_16x16x128_f8f6f4")


def test_errors_outside_known_functions_are_stray_not_blamed(llvm, tool):
    case = _case(W, FP4, FP4, 16, 16)
    gen = _llc(tool, [case])
    mc = _mc(tool, "gfx1250", gen.stdout)
    found, stray = V.mc_rejections(mc.stderr, gen.stdout, {"some_other_function"})
    assert found == {}
    assert len(stray) == len(V.located_errors(mc.stderr)) == 1


# ---- llc failures -------------------------------------------------------------------------


@pytest.mark.parametrize("selector", ["sdag", "gisel"])
def test_llc_failure_names_the_function_that_cannot_be_selected(llvm, tool, selector):
    exact, wide = _case(F4, FP4, FP4, 16, 8), _case(F4, FP4, FP4, 32, 8)
    gen = _llc(tool, [exact, wide], selector)
    assert gen.returncode != 0
    kind, fn, reason = V.llc_failure(gen.stderr)
    assert (kind, fn) == (V.CANNOT_SELECT, wide.function)
    assert "annot select" in reason and "\n" not in reason


def test_llc_failure_that_is_not_a_selection_failure_is_a_crash(llvm, tool):
    odd = _case(F4, FP4, FP4, 24, 8)  # legal IR; SelectionDAG cannot widen the 24-element operand
    gen = _llc(tool, [odd])
    assert gen.returncode != 0
    kind, fn, reason = V.llc_failure(gen.stderr)
    assert (kind, fn) == (V.CRASH, odd.function)
    assert reason.startswith("LLVM ERROR: ")


def test_llc_failure_with_no_output_is_an_unattributed_crash():
    kind, fn, reason = V.llc_failure("")
    assert kind == V.CRASH and fn is None and reason


# A module llc rejects with a clean diagnostic: a pixel shader under the HSA ABI (llc 22: "error:
# <unknown>:0:0: in function f void (): unsupported non-compute shaders with HSA", exit 1).
CLEAN_REJECT_IR = "define amdgpu_ps void @f() {\n  ret void\n}\n"


def _absent_filecheck(tool, llvm, tmp_path, stderr: str) -> int:
    """FileCheck with the absent files' checks (litgen) over `stderr`: 0 when lit would pass."""
    from harness.checks import litgen

    check = tmp_path / "absent.ll"
    check.write_text("; ABSENT: error:\n")
    nots = [f"--implicit-check-not={n}" for n in litgen.ABSENT_NOT]
    return tool("FileCheck", ["--check-prefix=ABSENT", *nots, str(check)], stderr).returncode


def test_a_clean_diagnostic_is_llc_reject_in_the_harness_and_in_lit(llvm, tool, tmp_path):
    gen = tool("llc", ["-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-o", "/dev/null"], CLEAN_REJECT_IR)
    assert gen.returncode == 1 and "error:" in gen.stderr, gen.stderr
    kind, fn, reason = V.llc_failure(gen.stderr, gen.returncode)
    assert (kind, fn) == (V.LLC_REJECT, "f") and "unsupported non-compute shaders" in reason
    assert _absent_filecheck(tool, llvm, tmp_path, gen.stderr) == 0
    # The same words from a process a signal ended are a crash.
    assert V.llc_failure(gen.stderr, -6)[0] == V.CRASH


@pytest.mark.parametrize(
    "name, cpu, selector, words",
    [
        ("mfma.f32.32x32x8f16", "gfx1100", "sdag", "Cannot select"),  # aborts (signal 6)
        ("mfma.f32.32x32x8f16", "gfx1100", "gisel", "cannot select"),  # exits 1
        ("wmma.f32.16x16x32.bf16", "gfx1250", "gisel", "unable to translate"),  # aborts
    ],
)
def test_the_selector_giving_up_is_cannot_select_in_the_harness_and_a_failure_in_lit(
    llvm, tool, tmp_path, name, cpu, selector, words
):
    intr = catalog.lookup(name)
    case = Case(intr, cpu, 0, 0, intr.a.widths[0], intr.b.widths[0])
    gen = _llc(tool, [case], selector)
    assert gen.returncode != 0 and words in gen.stderr, gen.stderr[-2000:]
    kind, fn, reason = V.llc_failure(gen.stderr, gen.returncode)
    assert (kind, fn) == (V.CANNOT_SELECT, case.function) and words in reason
    assert _absent_filecheck(tool, llvm, tmp_path, gen.stderr) != 0


def test_a_register_allocation_failure_is_a_crash_in_the_harness_and_a_failure_in_lit(llvm, tool, tmp_path):
    """GlobalISel's SMFMAC on gfx803 (no matrix instructions) at -O0: llc 22 prints "error:
    <unknown>:0:0: no registers from class available to allocate" and exits 1, no signal."""
    intr = catalog.lookup("smfmac.f32.16x16x32.f16")
    case = Case(intr, "gfx803", 0, 0, intr.a.widths[0], intr.b.widths[0])
    gen = _llc(tool, [case], "gisel")
    assert gen.returncode != 0 and "no registers from class" in gen.stderr, gen.stderr[-2000:]
    assert V.llc_failure(gen.stderr, gen.returncode)[0] == V.CRASH
    assert _absent_filecheck(tool, llvm, tmp_path, gen.stderr) != 0


def test_the_fixed_sets_spell_as_their_strings():
    """Enum members are their own JSON and text spellings: f-strings, str(), JSON values and keys."""
    import json

    from harness.core.commands import Selector
    from harness.specs.cases import CLASSES, FileClass
    from harness.targets.catalog import Role, Side

    assert [str(v) for v in V.ALL] == [
        "pass",
        "miscompile",
        "mc-reject",
        "wrong-shape",
        "no-code",
        "cannot-select",
        "llc-reject",
        "verifier-reject",
        "crash",
        "timeout",
        "unsupported",
    ]
    assert V.ALL == tuple(V.VerdictCode) and CLASSES == tuple(FileClass)
    for member in (V.PASS, V.MC_REJECT, Side.A, Role.FMT_B, Selector.GISEL, FileClass.UNDERWIDE_UNVERIFIED):
        assert f"{member}" == str(member) == member.value and member == member.value
        assert json.dumps({member: [member]}, indent=1) == json.dumps({member.value: [member.value]}, indent=1)
    assert (Side.A.src, Side.A.fmt, Side.B.src, Side.B.fmt) == (Role.SRC_A, Role.FMT_A, Role.SRC_B, Role.FMT_B)
    assert [r.side for r in (Role.SRC_A, Role.FMT_A, Role.SRC_B, Role.FMT_B)] == [Side.A, Side.A, Side.B, Side.B]
    with pytest.raises(ValueError):
        _ = Role.ACC.side


# ---- the one line a verdict quotes -----------------------------------------------------------


# PTX whose shfl without .sync ptxas only warns about (PTX ISA 6.3), calling an extern function
# nothing defines: ptxas prints two warnings, then its one `fatal` line.
WARN_THEN_FATAL_PTX = """.version 6.3
.target sm_75
.address_size 64
.extern .func (.param .b32 r) foo (.param .b32 a);
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	shfl.idx.b32 %r2, %r1, 0, 31;
	{
	.param .b32 a0;
	st.param.b32 [a0], %r2;
	.param .b32 r0;
	call.uni (r0), foo, (a0);
	ld.param.b32 %r3, [r0];
	}
	st.global.u32 [%rd1], %r3;
	ret;
}
"""


def test_first_error_quotes_ptxas_fatal_line_not_the_warnings_before_it(ptxas_path, tmp_path):
    (tmp_path / "k.ptx").write_text(WARN_THEN_FATAL_PTX)
    # A relative name: the warnings quote it, and this test's own directory name says "error".
    run = subprocess.run(
        [ptxas_path, "-arch=sm_75", "-o", "/dev/null", "k.ptx"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    lines = [l for l in run.stderr.splitlines() if l.strip()]
    assert run.returncode != 0 and len(lines) == 3, run.stderr
    assert all("; warning : " in l for l in lines[:2])
    assert V.first_error(run.stderr) == "ptxas fatal   : Unresolved extern function 'foo'"
