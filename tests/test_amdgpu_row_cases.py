"""AMDGPU rows' cases through the CLI: a fixed-type source refuses another width or another type's
name, `%name` operands give distinct functions each judged on its own call, an i1 immarg outside
its range is `true` in run, in the IR and in try, `args` and `immarg` never set one operand twice,
`--intrinsic` globs in run, bisect-run and try, and a build without the intrinsic header that
compiles the intrinsic as a plain call.

Expected values come from LLVM's own files and tools (IntrinsicsAMDGPU.td/.h, llc on a
hand-written call), from the ISA's field widths and from the specs written here; the fake tool
directory is fault injection only (the real build without its include/ directory).

The harness under test is the one this Python imports (its checkout is the working directory of
every subprocess), so these tests can be pointed at another checkout of the repository.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import fake_build, one_line_exit_2, run_json

F16_MFMA = "mfma.f32.32x32x8f16"
HEADER_NAME = re.compile(r"//\s*llvm\.amdgcn\.((?:mfma|smfmac|wmma|swmmac)\.[\w.]+)")


def _header_names(bin_dir: Path) -> set[str]:
    path = bin_dir.parent / "include" / "llvm" / "IR" / "IntrinsicsAMDGPU.h"
    assert path.is_file(), path
    return set(HEADER_NAME.findall(path.read_text(errors="replace")))


# ---- a row's fixed-type source refuses another width and another type's name -----------------


def test_a_fixed_type_source_refuses_another_width_in_a_spec_and_in_try(llvm, cli, spec_dir):
    # IntrinsicsAMDGPU.td: int_amdgcn_mfma_f32_32x32x8f16 is AMDGPUMfmaIntrinsic<v16f32, v4f16>
    # (A is always <4 x half>); int_amdgcn_mfma_f32_32x32x1f32 takes a plain float for A.
    line = "  - {intrinsic: mfma.f32.32x32x8f16, cpu: gfx90a, width_a: [4, 8]}"
    cases = spec_dir({"fixed.yaml": f"matrix:\n{line}\n"})
    col = line.index("8]") + 1
    proc = cli("run", "--cases", cases, "--json")
    one_line_exit_2(proc, f"{cases / 'fixed.yaml'}:2:{col}:", "<4 x half>")
    assert proc.stdout == ""

    proc = cli("try", "--intrinsic", "mfma.f32.32x32x1f32", "--cpu", "gfx942", "--width-a", "2")
    one_line_exit_2(proc, "--width-a")


def test_a_fixed_type_source_takes_only_its_own_type_name(cli):
    """A half source is named half; the F8F6F4 spellings (fp8 is format 0) do not pick it."""
    proc = cli("try", "--intrinsic", "wmma.f32.16x16x16.f16", "--cpu", "gfx1100", "--fmt-a", "fp8")
    one_line_exit_2(proc, "--fmt-a", "half")
    proc = cli("run", "--spec", "amdgpu-families.yaml", "--intrinsic", F16_MFMA, "--fmt-a", "MATRIX_FMT_FP8")
    one_line_exit_2(proc, "--fmt-a")


# ---- %name operands name their functions -----------------------------------------------------


def test_name_operands_give_distinct_functions_each_judged_on_its_own_call(llvm_22_1_8, cli, spec_dir):
    spec = (
        "matrix:\n  - intrinsic: smfmac.f32.16x16x32.f16\n    cpu: gfx942\n    selector: sdag\n"
        '    args: [{3: "%x", 4: "%x"}, {3: "%x", 4: "%y"}]\n'
    )
    records = run_json(cli, "run", "--cases", spec_dir({"names.yaml": spec}))["cases"]
    assert len(records) == 2
    assert len({r["function"] for r in records}) == 2, [r["function"] for r in records]
    assert {(r["args"]["3"], r["args"]["4"]) for r in records} == {("%x", "%x"), ("%x", "%y")}
    for r in records:
        # LLVM's verifier: an immarg operand that is not a constant is rejected, and it prints
        # the offending parameter and the call.
        assert r["verdict"] == "verifier-reject", r
        detail = r["detail"]
        assert "immarg operand has non-immediate parameter" in detail, detail
        params = re.findall(r"^i32 (%\w+)$", detail, re.M)
        assert params and set(params) <= {r["args"]["3"], r["args"]["4"]}, (r["args"], detail)
        [call] = [l for l in detail.splitlines() if " call " in l]
        assert f"%r.{r['function']} = call " in call, call
        assert f"i32 {r['args']['3']}, i32 {r['args']['4']}," in call, call


# ---- i1 immargs are true/false, in specs and in --arg ----------------------------------------


def test_an_outside_i1_immarg_is_true_in_run_in_the_ir_and_in_try(llvm_22_1_8, cli, spec_dir, tmp_path):
    # IntrinsicsAMDGPU.td, AMDGPUWmmaIntrinsicOPSEL: operand 3 is `llvm_i1_ty, // %high (op_sel)
    # for GFX11, 0 for GFX12` -- on gfx1200 its only value is false, so `outside` is true.
    spec = "matrix:\n  - intrinsic: wmma.f16.16x16x16.f16.gfx1200\n    immarg: [high, outside]\n    selector: sdag\n"
    cases = spec_dir({"opsel.yaml": spec})
    [rec] = run_json(cli, "run", "--cases", cases)["cases"]
    assert (rec["cpu"], rec["class"], rec["args"]) == ("gfx1200", "immarg-range", {"3": "true"}), rec

    assert cli("expand", "--cases", cases).returncode == 0
    calls = [l for p in (cases / "generated").glob("*.ll") for l in p.read_text().splitlines() if "@llvm.amdgcn.wmma" in l]
    calls = [l for l in calls if " call " in l]
    assert len(calls) == 1 and re.search(r", i1 true\)$", calls[0]), calls

    tried = run_json(cli, "try", "--intrinsic", "wmma.f16.16x16x16.f16", "--cpu", "gfx1200", "--arg", "3=true")
    assert tried["class"] == "immarg-range", tried["class"]
    assert tried["selector"] == rec["selector"] == "sdag"
    assert tried["function"] == rec["function"]
    assert tried["verdict"] == rec["verdict"], (tried["detail"], rec["detail"])


# ---- `args` and `immarg` never set one operand twice -----------------------------------------


def test_args_and_immarg_high_never_set_one_operand_twice(cli, spec_dir):
    spec = f"matrix:\n  - intrinsic: {F16_MFMA}\n    cpu: gfx908\n    args: {{3: 5}}\n    immarg: high\n"
    cases = spec_dir({"both.yaml": spec})
    assert cli("expand", "--cases", cases).returncode == 0
    text = "\n".join(p.read_text() for p in sorted((cases / "generated").glob("*.ll")))
    calls = re.findall(rf"^\s*%r\.(\w+) = call <16 x float> @llvm\.amdgcn\.{re.escape(F16_MFMA)}\((.*)\)$", text, re.M)
    # AMDGPUMfmaIntrinsic: A, B, C, then the immargs cbsz (3 bits), abid (4 bits), blgp (3 bits).
    # Operand 3 is `args`'s 5; `high` sets each of the others once: abid 15, blgp 7.
    assert {f for f, _ in calls} == {
        f"{F16_MFMA.replace('.', '_')}__a_half_v4__b_half_v4__arg3_5__arg4_15",
        f"{F16_MFMA.replace('.', '_')}__a_half_v4__b_half_v4__arg3_5__arg5_7",
    }
    for function, operands in calls:
        assert function.count("arg3_") == 1, function
        values = [o.strip() for o in operands.split(",")]
        assert len(values) == 6, values
        named = dict(re.findall(r"arg(\d)_(\d+)", function))
        assert values[3] == "i32 5"
        for index, value in named.items():
            assert values[int(index)] == f"i32 {value}", (function, values)


# ---- --intrinsic globs: run, bisect-run, and try ---------------------------------------------


def test_intrinsic_globs_for_run_one_case_per_selector_for_bisect_run_and_none_for_try(llvm_22_1_8, cli):
    # run: the glob means every smfmac the build's header declares, and nothing else.
    records = run_json(cli, "run", "--spec", "amdgpu-families.yaml", "--intrinsic", "smfmac.*")["cases"]
    got = {r["intrinsic"] for r in records}
    assert got == {n for n in _header_names(llvm_22_1_8.bin_dir) if n.startswith("smfmac.")}

    # bisect-run: an LLVM name with four forms (gfx11/gfx12, wave32/64) is one case, both selectors.
    proc = cli("bisect-run", "--llvm-bin", llvm_22_1_8.bin_dir, "--intrinsic", "wmma.f32.16x16x16.f16")
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out[-3000:]
    m = re.search(r"at \S+: ((?:\d+ [a-z-]+(?:, )?)+)", out)
    assert m, out[-3000:]
    assert sum(int(n) for n in re.findall(r"(\d+) [a-z-]+", m.group(1))) == 2, m.group(1)

    # try: one case, so a glob is bad input.
    one_line_exit_2(cli("try", "--intrinsic", "wmma.*"), "wmma.*", "glob")


# ---- a build that compiles the intrinsic as a plain call -------------------------------------


def test_a_headerless_old_build_that_calls_the_intrinsic_is_unsupported(llvm14, cli, tmp_path):
    name = "smfmac.f32.16x16x32.f16"
    # LLVM 14's own llc, asked directly: it takes the unknown llvm.amdgcn.* declaration and
    # compiles a call of it, naming the symbol in its code.
    ir = (
        f"declare <4 x float> @llvm.amdgcn.{name}(<4 x half>, <8 x half>, <4 x float>, i32, i32 immarg, i32 immarg)\n"
        "define <4 x float> @f(<4 x half> %a, <8 x half> %b, <4 x float> %c, i32 %i) {\n"
        f"  %r = call <4 x float> @llvm.amdgcn.{name}(<4 x half> %a, <8 x half> %b, <4 x float> %c, i32 %i, i32 0, i32 0)\n"
        "  ret <4 x float> %r\n}\n"
    )
    direct = subprocess.run(
        [str(llvm14 / "llc"), "-mtriple=amdgcn", "-mcpu=gfx90a"], input=ir, capture_output=True, text=True, timeout=120
    )
    assert direct.returncode == 0 and f"llvm.amdgcn.{name}" in direct.stdout, direct.stderr[-2000:]

    fake = fake_build(tmp_path, llvm14)  # no include/: no intrinsic header beside it
    rec = run_json(cli, "try", "--intrinsic", name, "--cpu", "gfx90a", "--llvm-bin", fake)
    assert rec["verdict"] == "unsupported", rec
    assert rec["llvm"].split(".")[0] == "14"
