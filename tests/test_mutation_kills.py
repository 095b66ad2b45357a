"""Tests that kill bugs a mutation run planted and the rest of the suite let through (dev/mutate.py
plants them again). Each feeds the harness what the real tools print; a fake tool directory appears
only as fault injection (a tool that hangs), never as an imitation of a tool's output.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from harness.specs import emit, known_bugs
from harness.specs.cases import Case
from harness.targets import catalog
from harness.tools import verdicts as V
from harness.tools.runner import Runner
from harness.tools.toolchain import Toolchain

W = "wmma.f32.16x16x128.f8f6f4"
FP8, FP4 = 0, 4
ISA = "v_wmma_f32_16x16x128_f8f6f4"
TUPLE_FP4 = "wrong register tuple size for MATRIX_FMT_FP4"


def _case(name: str, fa: int, fb: int, wa: int, wb: int) -> Case:
    intr = catalog.lookup(name)
    return Case(intr, intr.cpus[0], fa, fb, wa, wb)


def _llc(tool, ir: str, *flags: str, cpu: str = "gfx1250") -> str:
    gen = tool("llc", ["-mtriple=amdgcn", f"-mcpu={cpu}", *flags], ir)
    assert gen.returncode == 0, gen.stderr[-2000:]
    return gen.stdout


def _mc(tool, asm: str, cpu: str = "gfx1250") -> str:
    mc = tool("llvm-mc", ["-triple=amdgcn", f"-mcpu={cpu}", "-filetype=obj", "-o", "/dev/null"], asm)
    assert mc.returncode != 0, "expected llvm-mc to reject this text"
    return mc.stderr


def _owned_ranges(asm: str, names: set[str]) -> dict[int, str]:
    """Line -> function, computed here: from a function's label up to (not including) the
    `.Lfunc_endN:` label that closes it; nothing else belongs to a function."""
    lines = asm.splitlines()
    out: dict[int, str] = {}
    for i, line in enumerate(lines):
        m = re.match(r"^([\w.$]+):", line)
        if m and m.group(1) in names:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(".Lfunc_end"))
            out.update({n: m.group(1) for n in range(i + 1, end + 1)})
    return out


# ---- 1. llvm-mc errors belong to the function whose body holds their line --------------------


def test_asm_owners_is_exactly_each_functions_label_up_to_its_func_end(llvm, tool):
    cases = [_case(W, FP4, FP4, 8, 8), _case(W, FP4, FP4, 16, 16), _case(W, FP8, FP4, 16, 8)]
    names = {c.function for c in cases}
    asm = _llc(tool, emit.module(cases).text, "-O0", "-global-isel=0")
    expected = _owned_ranges(asm, names)
    assert set(expected.values()) == names
    assert V.asm_owners(asm, names).as_dict() == expected


# A shader that returns the product ends with the matrix instruction itself (no store, no
# s_endpgm; the epilog is the driver's): with -asm-verbose=0 the rejected line is the last
# line of the function, right before `.Lfunc_endN:`.
RETURNING = """define amdgpu_ps <8 x float> @{name}(<8 x float> %c, <{w} x i32> %a, <{w} x i32> %b) {{
  %r = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v{w}i32.v{w}i32(i32 4, <{w} x i32> %a, i32 4, <{w} x i32> %b, i16 0, <8 x float> %c)
  ret <8 x float> %r
}}
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v{w}i32.v{w}i32(i32, <{w} x i32>, i32, <{w} x i32>, i16, <8 x float>)
"""


def test_mc_error_on_the_last_line_of_a_function_is_that_functions_not_stray(llvm_22_1_8, tool):
    ir = RETURNING.format(name="wide", w=16) + RETURNING.format(name="exact", w=8)
    asm = _llc(tool, ir, "-O2", "-asm-verbose=0")
    stderr = _mc(tool, asm)
    errors = V.located_errors(stderr)
    lines = asm.splitlines()
    assert len(errors) == 1, stderr
    line = errors[0][0]
    assert lines[line - 1].strip().startswith(f"{ISA} v[0:7], v[8:23], v[24:39]")
    assert lines[line] == ".Lfunc_end0:"  # the boundary this test is about
    assert lines[line - 3] == "wide:" and lines[line - 2].lstrip().startswith("s_setreg")
    found, stray = V.mc_rejections(stderr, asm, {"wide", "exact"})
    assert found == {"wide": f"{TUPLE_FP4}: {lines[line - 1].strip()}"}
    assert stray == []


# ---- 2. what follows `.Lfunc_endN:` belongs to no function ----------------------------------


def test_mc_error_in_the_trailing_sections_is_stray_not_the_last_functions(llvm_22_1_8, tool):
    """llc's text for gfx1250 assembled for its sibling gfx1251: besides the over-wide tuple,
    llvm-mc rejects the `.amd_amdgpu_isa` line at the very end of the file, after every
    function's end. That error is no function's."""
    wide, exact = _case(W, FP4, FP4, 16, 16), _case(W, FP4, FP4, 8, 8)
    asm = _llc(tool, emit.module([wide, exact]).text, "-O0", "-global-isel=0")
    stderr = _mc(tool, asm, cpu="gfx1251")
    lines = asm.splitlines()
    located = V.located_errors(stderr)
    assert [m for _, _, m in located] == [TUPLE_FP4, "target id must match options"]
    last = located[-1][0]
    assert last == len(lines) and lines[-1] == '\t.amd_amdgpu_isa "amdgcn----gfx1250"'
    assert last > max(i for i, l in enumerate(lines, 1) if l.startswith(".Lfunc_end"))
    found, stray = V.mc_rejections(stderr, asm, {wide.function, exact.function})
    assert set(found) == {wide.function} and found[wide.function].startswith(f"{TUPLE_FP4}: {ISA} v[")
    assert stray == ['target id must match options: .amd_amdgpu_isa "amdgcn----gfx1250"']


def test_mc_error_in_a_function_outside_the_set_is_not_charged_to_the_one_before_it(llvm_22_1_8, tool):
    """Two real functions; only the first is one of ours. The second one's rejected tuple lies
    after the first one's `.Lfunc_end0:`, so it is stray, not the first function's."""
    ours, other = _case(W, FP4, FP4, 8, 8), _case(W, FP4, FP4, 16, 16)
    asm = _llc(tool, emit.module([ours, other]).text, "-O0", "-global-isel=0")
    stderr = _mc(tool, asm)
    located = V.located_errors(stderr)
    assert [m for _, _, m in located] == [TUPLE_FP4]
    found, stray = V.mc_rejections(stderr, asm, {ours.function})
    assert found == {}
    assert len(stray) == 1 and stray[0].startswith(f"{TUPLE_FP4}: {ISA} v[")
    assert V.asm_owners(asm, {ours.function}).as_dict() == _owned_ranges(asm, {ours.function})


# ---- 3. a tool that runs out of time gives `timeout`, whichever tool it is --------------------


def _hanging(tmp_path: Path, real_dir: Path, name: str, hang: str, spare: str = "") -> tuple[Path, Path]:
    """The real build with `name` replaced by a script (fault injection) that hangs on calls
    whose arguments match the shell pattern `hang` and runs the real tool on the rest (and
    on `spare` first). Returns the bin directory and the log of hung calls."""
    out, log, real = tmp_path / "bin", tmp_path / f"{name}.hung", real_dir / name
    out.mkdir()
    for tool in ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        if tool != name:
            (out / tool).symlink_to(real_dir / tool)
    arms = (f'  {spare}) exec {real} "$@";;\n' if spare else "") + f'  {hang}) echo "$*" >> {log}; exec sleep 600;;\n'
    (out / name).write_text(f'#!/bin/sh\ncase "$*" in\n{arms}esac\nexec {real} "$@"\n')
    (out / name).chmod(0o755)
    return out, log


def test_an_opt_pipeline_that_times_out_gives_timeout_not_pass(llvm_22_1_8, cli, spec_dir, tmp_path):
    spec = (
        "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    pipeline: instcombine\n    fmt_a: fp4\n"
        "    fmt_b: [fp4, fp8]\n    width_a: [exact, max]\n    selector: sdag\n"
    )
    cases = spec_dir({"p.yaml": spec})
    # The pipeline check (-disable-output) and the intrinsic probe (no -passes) get the real opt.
    fake, log = _hanging(tmp_path, llvm_22_1_8.bin_dir, "opt", hang="*-passes=*", spare="*-disable-output*")
    proc = cli("run", "--cases", cases, "--llvm-bin", fake, "-j", "1", "--timeout", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["cases"]
    assert len(got) == 4
    assert {c["verdict"] for c in got} == {"timeout"}, [(c["function"], c["verdict"], c["detail"]) for c in got]
    assert {c["detail"] for c in got} == {"opt ran past 1 s on the module of 4 case(s)"}
    assert len(log.read_text().splitlines()) == 1  # one opt run for the one module of all four, no retries


@pytest.mark.parametrize("tool_name", ["llc", "llvm-mc"])
def test_a_single_case_whose_tool_times_out_gives_timeout_not_pass(llvm_22_1_8, cli, tmp_path, tool_name):
    spare = "*--version*|*help*" if tool_name == "llc" else ""  # the build's probes
    fake, log = _hanging(tmp_path, llvm_22_1_8.bin_dir, tool_name, hang="*", spare=spare)
    proc = cli(
        "try", "--llvm-bin", fake, "--intrinsic", W, "--fmt-a", "fp4", "--fmt-b", "fp4", "--no-object", "--timeout", "1", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["verdict"] == "timeout", record["detail"]
    assert record["detail"] == f"{tool_name} ran past 1 s on the module of 1 case(s)"
    assert len(log.read_text().splitlines()) == 1


# ---- 4. a known-bugs entry is for one exact version -------------------------------------------


def test_shipped_known_bugs_xfail_nothing_on_versions_that_only_share_a_prefix(repo_root):
    known = known_bugs.load(repo_root / "cases")
    rel = sorted(str(p.relative_to(repo_root / "cases")) for p in (repo_root / "cases" / "generated").rglob("*.ll"))
    listed = [r for r in rel if known_bugs.reason_for(known, "22.1.8", r)]
    assert listed, "22.1.8 lists known bugs"
    for version in ("22.1.8git", "22.1.80", "22.1.8.1", "22.1.8-rc1", "22.1", "22"):
        assert [r for r in rel if known_bugs.reason_for(known, version, r)] == [], version


# ---- 5. every lit feature a file REQUIRES is one lit.cfg.py sets on 22.1.8 ---------------------


def test_one_file_per_required_feature_runs_on_22_1_8_none_unsupported(llvm_22_1_8, lit_exe, repo_root):
    files = sorted((repo_root / "cases" / "generated").rglob("*.ll"), key=lambda p: (p.stat().st_size, p.name))
    chosen: dict[str, Path] = {}
    for path in files:
        lines = [l for l in path.read_text().splitlines() if l.startswith("; REQUIRES:")]
        for feature in (f.strip() for line in lines for f in line.split(":", 1)[1].split(",")):
            chosen.setdefault(feature, path)
    assert "llvm-filecheck" in chosen and "llvm-22.1.8" in chosen and "nvptx-ptx-kernel" in chosen
    names = sorted({str(p.relative_to(repo_root)) for p in chosen.values()})
    proc = subprocess.run([lit_exe, *names], cwd=repo_root, capture_output=True, text=True, timeout=590)
    results = {name: code for code, name in re.findall(r"^([A-Z]+): matrix-lowering :: (\S+) \(", proc.stdout, re.M)}
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert set(results) == set(names)
    assert {n: c for n, c in results.items() if c not in ("PASS", "XFAIL")} == {}


# ---- 6. each selector gets its own verdicts --------------------------------------------------


def test_gisel_cannot_select_what_sdag_passes_in_one_group(llvm_22_1_8, cli, spec_dir):
    """On 22.1.8 GlobalISel cannot legalize a low-prefix llvm.vector.extract that SelectionDAG
    selects: the same cases, one module per selector, differ. (The shipped spec splits the
    selectors into their own files; here both run from one group.)"""
    cases = spec_dir(
        {
            "ve.yaml": "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    narrowing: vector.extract\n"
            "    fmt_a: [fp4, fp8]\n    fmt_b: fp4\n    width_a: max\n    width_b: max\n"
        }
    )
    proc = cli("run", "--cases", cases, "--json")
    assert proc.returncode == 0, proc.stderr
    got = {(c["function"], c["selector"]): c for c in json.loads(proc.stdout)["cases"]}
    functions = {f for f, _ in got}
    assert len(functions) == 2 and len(got) == 4
    for fn in functions:
        assert got[(fn, "sdag")]["verdict"] == "pass", got[(fn, "sdag")]["detail"]
        gisel = got[(fn, "gisel")]
        assert gisel["verdict"] == "cannot-select", gisel["detail"]
        assert (
            gisel["detail"].startswith("LLVM ERROR: unable to legalize instruction: ")
            and "G_EXTRACT_SUBVECTOR" in gisel["detail"]
        )
        assert f"(in function: {fn})" in gisel["detail"]


# ---- 7. an IR line belongs to the function around it ---------------------------------------


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


def test_an_ir_parse_error_names_the_function_on_its_line(llvm14):
    """Debian's llvm-14 cannot parse `ptr addrspace(1)`: its llc stops at line 1, the `define`
    of the module's first function. That function cannot be read by this build (unsupported);
    nothing about the line before it (the header) makes it a crash."""
    cases = [_case(W, FP4, FP4, 8, 8), _case(W, FP4, FP4, 16, 16)]
    tc = Toolchain(llvm14, "test")
    gen = tc.run("llc", ["-O0", "-mtriple=amdgcn", "-mcpu=gfx1250", "-global-isel=0"], emit.module(cases).text)
    assert "<stdin>:1:" in gen.stderr and "error: expected type" in gen.stderr
    assert [(line, message) for line, _, message in V.located_errors(gen.stderr)] == [(1, "expected type")]
    out = Runner(tc, 1).compile(cases, "sdag")
    assert {fn: (v.verdict, v.detail) for fn, v in out.items()} == {
        c.function: (V.UNSUPPORTED, "llc cannot read this IR: expected type") for c in cases
    }


# ---- beyond the seven: the one line a verdict quotes ------------------------------------------

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


# ---- beyond the seven: exclude rules match the dimension they name ------------------------------


def test_exclude_rules_on_one_format_leave_the_other_sources_format_alone(cli, spec_dir):
    spec = (
        "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    fmt_a: [fp8, fp4]\n    fmt_b: [fp8, fp4]\n"
        "    selector: sdag\n    exclude:\n      - {fmt_b: fp4}\n"
        "  - intrinsic: wmma.scale.f32.16x16x128.f8f6f4\n    fmt_a: [fp8, fp4]\n    fmt_b: [fp8, fp4]\n"
        "    selector: sdag\n    exclude:\n      - {fmt_a: fp8, fmt_b: fp4}\n"
    )
    cases = spec_dir({"x.yaml": spec})
    proc = cli("expand", "--cases", cases)
    assert proc.returncode == 0, proc.stderr
    defined = {
        m.group(1)
        for path in (cases / "generated").glob("*.ll")
        for m in re.finditer(r"^define [^@]*@([\w.]+)\(", path.read_text(), re.M)
    }
    assert defined == {
        "wmma_f32_16x16x128_f8f6f4__a_fp8_v16__b_fp8_v16",
        "wmma_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp8_v16",
        "wmma_scale_f32_16x16x128_f8f6f4__a_fp8_v16__b_fp8_v16",
        "wmma_scale_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp8_v16",
        "wmma_scale_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp4_v8",
    }
