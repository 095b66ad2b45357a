"""Emitted IR and lit files, checked by the real llvm-as / llc / FileCheck."""

from __future__ import annotations

import re

import pytest

from harness.checks import expand
from harness.specs import cases, emit, matrix
from harness.specs.cases import Case
from harness.targets import catalog

FP8, BF8, FP6, BF6, FP4 = 0, 1, 2, 3, 4
W, M = "wmma.f32.16x16x128.f8f6f4", "mfma.scale.f32.16x16x128.f8f6f4"


@pytest.fixture(scope="module")
def shipped_groups(facts_cases):
    """Groups of the shipped runtime-format and fixed-FP4 specs."""
    return cases.group(matrix.plan(matrix.spec_files(facts_cases)))


@pytest.fixture(scope="module")
def rendered(facts_cases):
    """File name -> lit file text for those specs (render only reads the specs)."""
    return expand.render(facts_cases)


def _case(name, fa, fb, wa, wb):
    intr = catalog.lookup(name)
    return Case(intr, intr.cpus[0], fa, fb, wa, wb)


def test_exact_and_overwide_modules_are_valid_ir_for_the_real_verifier(llvm, tool, shipped_groups):
    checked = 0
    for g in shipped_groups:
        if g.file_class in ("exact", "overwide"):
            run = tool("llvm-as", ["-o", "/dev/null"], emit.module(g.cases).text)
            assert run.returncode == 0, f"{g.filename}: {run.stderr[:2000]}"
            checked += 1
    assert checked == 16  # 5 runtime x (exact, overwide) + 3 fixed-FP4 x (exact, overwide)


@pytest.mark.parametrize("name", [W, M, "wmma.scale16.f32.16x16x128.f8f6f4", "mfma.scale.f32.32x32x64.f8f6f4"])
def test_underwide_module_gets_one_verifier_diagnostic_per_call(llvm, tool, shipped_groups, name):
    (g,) = [g for g in shipped_groups if g.intrinsic.name == name and g.file_class == "underwide"]
    run = tool("llvm-as", ["-o", "/dev/null"], emit.module(g.cases).text)
    assert run.returncode != 0
    assert run.stderr.count("invalid vector type for format") == len(g.cases) == 144
    for c in g.cases:
        assert run.stderr.count(f"%r.{c.function} = call ") == 1, c.function


@pytest.mark.parametrize(
    "case,args",
    [
        (_case(W, FP6, FP4, 12, 8), "(i32 2, <12 x i32> %a, i32 4, <8 x i32> %b, i16 0, <8 x float> %c)"),
        (_case(W, FP4, BF8, 16, 16), "(i32 4, <16 x i32> %a, i32 1, <16 x i32> %b, i16 0, <8 x float> %c)"),
        (_case(M, FP6, FP4, 6, 4), "(<6 x i32> %a, <4 x i32> %b, <4 x float> %c, i32 2, i32 4, i32 0, i32 0, i32 0, i32 0)"),
        (
            _case("mfma.scale.f32.32x32x64.f8f6f4", BF8, BF6, 8, 6),
            "(<8 x i32> %a, <6 x i32> %b, <16 x float> %c, i32 1, i32 3, i32 0, i32 0, i32 0, i32 0)",
        ),
        (_case("wmma.f32.32x16x128.f4", FP4, FP4, 32, 12), "(<32 x i32> %a, <12 x i32> %b, i16 0, <16 x float> %c)"),
    ],
    ids=lambda v: v.function if isinstance(v, Case) else "",
)
def test_call_passes_formats_and_sources_in_their_documented_positions(case, args):
    text = emit.module([case]).text
    calls = [line for line in text.splitlines() if " = call " in line]
    assert len(calls) == 1
    assert calls[0].strip().startswith(f"%r.{case.function} = call ")
    assert calls[0].endswith(args)


def test_verifier_names_source_a_when_a_is_too_narrow_for_its_format(llvm, tool):
    """Cross-checks argument positions with LLVM itself: fp8 A in 8 registers must be refused as %a."""
    for case, operand in (
        (_case(W, FP8, FP4, 8, 8), "<8 x i32> %a"),
        (_case(W, FP4, FP6, 8, 8), "<8 x i32> %b"),
        (_case(M, FP6, FP8, 4, 8), "<4 x i32> %a"),
        (_case(M, FP4, FP6, 4, 4), "<4 x i32> %b"),
    ):
        run = tool("llvm-as", ["-o", "/dev/null"], emit.module([case]).text)
        lines = run.stderr.splitlines()
        assert "invalid vector type for format" in lines, run.stderr
        assert lines[lines.index("invalid vector type for format") + 2] == operand, case.function


def test_module_has_one_call_per_function_and_line_owner_covers_exactly_the_bodies():
    group = [_case(W, FP8, FP8, 16, 16), _case(W, FP4, FP4, 16, 8), _case(M, FP4, FP4, 4, 4)]
    mod = emit.module(group, header=["; header 1", "; header 2"])
    lines = mod.text.splitlines()
    defines = [i + 1 for i, l in enumerate(lines) if l.startswith("define ")]
    assert len(defines) == 3
    for number, case in zip(defines, group):
        assert lines[number - 1].startswith(f"define amdgpu_ps void @{case.function}(")
        end = lines.index("}", number - 1) + 1
        assert all(mod.line_owner[n] == case.function for n in range(number, end + 1))
        assert sum(f"%r.{case.function} = call" in l for l in lines) == 1
    assert 1 not in mod.line_owner and 2 not in mod.line_owner
    assert set(mod.line_owner) == {n for d in defines for n in range(d, lines.index("}", d - 1) + 2)}
    assert len([l for l in lines if l.startswith("declare ")]) == 3  # one per distinct overload


def _group(shipped_groups, filename):
    (g,) = [g for g in shipped_groups if g.filename == filename]
    return g


def test_codegen_lit_file_runs_llc_per_selector_then_llvm_mc(rendered):
    text = rendered[f"{W}.gfx1250.O0.exact.ll"]
    runs = [l for l in text.splitlines() if l.startswith("; RUN: ")]
    # Per selector: llc writes its text once; FileCheck and llvm-mc both read that file.
    assert runs == [
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx1250 -global-isel=0 -o %t.sdag.s < %s",
        "; RUN: FileCheck --input-file=%t.sdag.s %s",
        "; RUN: llvm-mc -triple=amdgcn -mcpu=gfx1250 -filetype=obj -o /dev/null %t.sdag.s",
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx1250 -global-isel=1 -global-isel-abort=1 -o %t.gisel.s < %s",
        "; RUN: FileCheck --input-file=%t.gisel.s %s",
        "; RUN: llvm-mc -triple=amdgcn -mcpu=gfx1250 -filetype=obj -o /dev/null %t.gisel.s",
        # llc's own object must encode what its text says: every AMDGPU codegen file reads it back.
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx1250 -global-isel=0 -filetype=obj -o %t.sdag.o < %s",
        "; RUN: llvm-objdump -d %t.sdag.o | FileCheck --check-prefix=OBJ %s",
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx1250 -global-isel=1 -global-isel-abort=1 -filetype=obj -o %t.gisel.o < %s",
        "; RUN: llvm-objdump -d %t.gisel.o | FileCheck --check-prefix=OBJ %s",
    ]
    assert all("-mcpu=gfx1250" in r and "-O0" in r for r in runs if "llc" in r)
    fp4 = " matrix_a_fmt:MATRIX_FMT_FP4 matrix_b_fmt:MATRIX_FMT_FP4{{ *(//.*)?$}}"
    assert any(line.startswith("; OBJ: ") and line.endswith(fp4) for line in text.splitlines())
    assert "; REQUIRES: amdgpu-registered-target, cpu-gfx1250, llvm.amdgcn.wmma.f32.16x16x128.f8f6f4" in text


def test_underwide_lit_file_only_runs_the_verifier(rendered):
    text = rendered[f"{M}.gfx950.O0.underwide.ll"]
    runs = [l for l in text.splitlines() if l.startswith("; RUN: ")]
    assert runs == ["; RUN: not llvm-as -disable-output %s 2>&1 | FileCheck %s"]
    assert text.count("; CHECK: invalid vector type for format") == 144


@pytest.mark.parametrize("filename", [f"{W}.gfx1250.O0.exact.ll", f"{M}.gfx950.O0.exact.ll"])
def test_asm_check_lines_accept_real_llc_output_and_reject_a_missing_or_stray_modifier(
    llvm, tool, shipped_groups, rendered, tmp_path, filename
):
    group = _group(shipped_groups, filename)
    lit = tmp_path / "t.ll"
    lit.write_text(rendered[filename])
    llc = tool("llc", ["-O0", "-mtriple=amdgcn", f"-mcpu={group.cpu}", "-global-isel=0"], lit.read_text())
    assert llc.returncode == 0, llc.stderr[-2000:]

    def filecheck(asm: str) -> int:
        return tool("FileCheck", [str(lit)], asm).returncode

    assert filecheck(llc.stdout) == 0
    mnemonic = group.intrinsic.mnemonic
    mod = "matrix_b_fmt:MATRIX_FMT_FP4" if group.intrinsic.name == W else "blgp:4"
    inst = [l for l in llc.stdout.splitlines() if l.strip().startswith(mnemonic) and l.rstrip().endswith(mod)]
    assert inst, f"no {mnemonic} ... {mod} in llc output"
    dropped = llc.stdout.replace(inst[0], inst[0].rstrip()[: -len(mod)].rstrip(), 1)
    assert filecheck(dropped) != 0, "CHECK lines did not notice a missing format modifier"
    plain = [
        l
        for l in llc.stdout.splitlines()
        if l.strip().startswith(mnemonic) and ":MATRIX" not in l and "cbsz" not in l and "blgp" not in l
    ]
    assert plain, "expected an fp8/fp8 instruction with no modifier"
    stray = llc.stdout.replace(
        plain[0], plain[0].rstrip() + (" matrix_a_fmt:MATRIX_FMT_BF8" if mod != "blgp:4" else " cbsz:1"), 1
    )
    assert filecheck(stray) != 0, "CHECK lines did not notice a stray format modifier"


def test_underwide_lit_checks_accept_the_real_verifier_output(llvm, tool, rendered, tmp_path):
    lit = tmp_path / "u.ll"
    lit.write_text(rendered[f"{W}.gfx1250.O0.underwide.ll"])
    verifier = tool("llvm-as", ["-disable-output", str(lit)])
    assert verifier.returncode != 0
    assert tool("FileCheck", [str(lit)], verifier.stderr).returncode == 0
    # Blaming the wrong source must not pass.
    swapped = verifier.stderr.replace("> %a\n", "> %TMP\n").replace("> %b\n", "> %a\n").replace("> %TMP\n", "> %b\n")
    assert tool("FileCheck", [str(lit)], swapped).returncode != 0


def test_a_file_expects_a_verifier_error_exactly_when_llvm_as_rejects_its_ir(llvm, tool, spec_dir):
    """Odd widths: WMMA's verifier refuses <7 x i32>; the fixed-FP4 intrinsics verify no width at all.

    A verifier-only file (`not llvm-as`) for IR the verifier accepts would FAIL under lit (this was
    the case for `wmma.f32.32x16x128.f4` with width_a: 8 before its sources were marked unverified).
    """
    d = spec_dir(
        {
            "odd.yaml": "matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    width_a: [8, 24]\n"
            f"  - intrinsic: {W}\n    fmt_a: fp8\n    fmt_b: fp8\n    width_a: 7\n"
        }
    )
    rendered = expand.render(d)
    assert len(rendered) >= 2
    for filename, text in rendered.items():
        run = tool("llvm-as", ["-disable-output", "-"], text)
        expects_reject = "; RUN: not llvm-as" in text
        assert expects_reject == (run.returncode != 0), f"{filename}: llvm-as rc {run.returncode}"
    assert any("; RUN: not llvm-as" in t for t in rendered.values()), "the <7 x i32> WMMA case must be verifier-only"


def test_module_line_owner_is_exactly_each_define_to_its_closing_brace():
    cases = [_case(W, FP4, FP4, 8, 8), _case(W, FP4, FP4, 16, 16), _case(W, FP8, FP4, 16, 8)]
    header = ["; RUN: something", "; another header line"]
    module = emit.module(cases, header, {cases[1].function: ["; CHECK: x", "; CHECK: y"]})
    expected, current = {}, None
    for number, line in enumerate(module.text.splitlines(), 1):
        m = re.match(r"^define [^@]*@([\w.]+)\(", line)
        if m:
            current = m.group(1)
        if current:
            expected[number] = current
        if line == "}":
            current = None
    assert set(expected.values()) == {c.function for c in cases}
    assert module.line_owner == expected
