"""harness.core.verdicts parsers on output the real tools print for modules from harness.specs.emit.

Expected values come from reading the tools' output with independent, local logic (comment
lines llc prints, Folded Spill/Reload annotations, raw `v[x:y]` ranges), or from the facts the
module was built with.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from harness.core import verdicts as V
from harness.specs import emit
from harness.specs.cases import Case
from harness.targets import catalog

FP8, BF8, FP6, BF6, FP4 = range(5)
W, M = catalog.lookup("wmma.f32.16x16x128.f8f6f4"), catalog.lookup("mfma.scale.f32.16x16x128.f8f6f4")
WIDE = Case(W, "gfx1250", FP4, FP4, 16, 16)
EXACT = Case(W, "gfx1250", FP4, FP6, 8, 12)
MIXED = Case(W, "gfx1250", FP8, FP4, 16, 16)  # A exact, B over-wide


def _ranges(line: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in re.findall(r"[av]\[(\d+):(\d+)\]", line)]


@pytest.fixture(scope="module")
def wmma_outputs(tmp_path_factory, llvm_22_1_8):
    """llc text, llvm-objdump -d of the object, opt -S (instcombine) for one three-case module."""
    text = emit.module([WIDE, EXACT, MIXED]).text

    def run(name, *args, input=None):
        return subprocess.run(
            [llvm_22_1_8.tool(name), *args],
            input=input,
            capture_output=True,
            text=True,
            env={**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"},
            timeout=300,
        )

    base = ["-O0", "-mtriple=amdgcn", "-mcpu=gfx1250", "-global-isel=0"]
    asm = run("llc", *base, input=text)
    obj = tmp_path_factory.mktemp("obj") / "m.o"
    made = run("llc", *base, "-filetype=obj", "-o", str(obj), input=text)
    dis = run("llvm-objdump", "-d", str(obj))
    ir = run("opt", "-mtriple=amdgcn", "-mcpu=gfx1250", "-passes=instcombine", "-S", input=text)
    for proc in (asm, made, dis, ir):
        assert proc.returncode == 0, proc.stderr[-2000:]
    return {"asm": asm.stdout, "obj": dis.stdout, "ir": ir.stdout}


NAMES = {WIDE.function, EXACT.function, MIXED.function}


@pytest.mark.parametrize("kind", ["asm", "obj", "ir"])
def test_split_functions_gives_each_function_exactly_its_own_call(wmma_outputs, kind):
    bodies = V.split_functions(wmma_outputs[kind], NAMES)
    assert set(bodies) == NAMES
    for fn, body in bodies.items():
        if kind == "ir":
            assert body[0].startswith("define ") and f"@{fn}(" in body[0] and body[-1] == "}"
            assert sum(f"%r.{fn} = call" in line for line in body) == 1
            assert not any(f"%r.{other} " in line for other in NAMES - {fn} for line in body)
        else:
            matrix = [line for line in body if "v_wmma_" in line]
            assert len(matrix) == 1, (fn, matrix)


def test_split_functions_of_a_subset_skips_the_others(wmma_outputs):
    bodies = V.split_functions(wmma_outputs["asm"], {EXACT.function})
    assert list(bodies) == [EXACT.function]
    # The body stops at the function's end: no other function's label or instruction slips in.
    assert not any(WIDE.function in line or MIXED.function in line for line in bodies[EXACT.function])


@pytest.mark.parametrize(
    "case,text_widths,object_widths",
    [
        (WIDE, (16, 16), (8, 8)),
        (EXACT, (8, 12), (8, 12)),
        (MIXED, (16, 16), (16, 8)),
    ],
    ids=["fp4-fp4-wide", "fp4-fp6-exact", "fp8-fp4-b-wide"],
)
def test_source_tuples_in_text_and_object(wmma_outputs, case, text_widths, object_widths):
    for kind, want in (("asm", text_widths), ("obj", object_widths)):
        body = V.split_functions(wmma_outputs[kind], NAMES)[case.function]
        got = V.source_tuples(body, W.mnemonics(W.cpus[0]))
        # Independently: the 2nd and 3rd register ranges on the matrix instruction's line.
        (line,) = [l for l in body if "v_wmma_" in l]
        raw = _ranges(line.split("//")[0])
        assert [got["a"], got["b"]] == [f"v[{a}:{b}]" for a, b in raw[1:3]]
        assert tuple(b - a + 1 for a, b in raw[1:3]) == want, (kind, line)


def test_symbols_and_metrics_agree_with_what_llc_prints_beside_each_function(wmma_outputs):
    asm = wmma_outputs["asm"]
    syms = V.symbols(asm)
    for case in (WIDE, EXACT, MIXED):
        fn = case.function
        body = V.split_functions(asm, {fn})[fn]
        got = V.metrics(body, fn, syms)
        assert set(got) == {"vgpr", "agpr", "sgpr", "scratch_loads", "scratch_stores", "instructions"}
        # llc's own kernel-info comment after the function: "; NumVgprs: N".
        after = asm.split(f"{fn}:", 1)[1]
        assert got["vgpr"] == int(re.search(r"^; NumVgprs: (\d+)$", after, re.M).group(1))
        section = after.split(".Lfunc_end", 1)[0]
        assert got["scratch_stores"] == section.count("Folded Spill")
        assert got["scratch_loads"] == section.count("Folded Reload")
        matrix_line = next(l for l in section.splitlines() if "v_wmma_" in l)
        assert got["vgpr"] > max(b for _, b in _ranges(matrix_line))
        assert 0 < got["instructions"] < len(section.splitlines())


def test_mfma_agpr_count_matches_llc_kernel_info(llvm_22_1_8, tool):
    case = Case(M, "gfx950", FP4, BF8, 8, 8)
    asm = tool("llc", ["-O0", "-mtriple=amdgcn", "-mcpu=gfx950", "-global-isel=0"], emit.module([case]).text)
    assert asm.returncode == 0, asm.stderr[-2000:]
    fn = case.function
    got = V.metrics(V.split_functions(asm.stdout, {fn})[fn], fn, V.symbols(asm.stdout))
    assert got["agpr"] == int(re.search(r"^; NumAgprs: (\d+)$", asm.stdout, re.M).group(1))
    assert got["agpr"] > 0  # the MFMA accumulator lives in AGPRs (a[0:3])


def test_ir_sources_read_the_instcombine_shufflevector_and_leave_exact_sides(wmma_outputs):
    bodies = V.split_functions(wmma_outputs["ir"], NAMES)
    idx = {"a": 1, "b": 3}  # WMMA: A is operand 1, B operand 3
    wide = V.ir_sources(bodies[WIDE.function], WIDE.function, idx)
    assert wide == {s: {"width": 8, "narrowed_by": "shufflevector", "mask": list(range(8))} for s in "ab"}
    mixed = V.ir_sources(bodies[MIXED.function], MIXED.function, idx)
    assert mixed["a"] == {"width": 16, "narrowed_by": "", "mask": []}
    assert mixed["b"] == {"width": 8, "narrowed_by": "shufflevector", "mask": list(range(8))}
    exact = V.ir_sources(bodies[EXACT.function], EXACT.function, idx)
    assert (exact["a"]["width"], exact["b"]["width"]) == (8, 12)
    assert exact["a"]["narrowed_by"] == exact["b"]["narrowed_by"] == ""


def test_ir_sources_recognise_llvm_vector_extract(llvm_22_1_8, tool):
    case = Case(W, "gfx1250", FP4, FP6, 16, 16, narrowing="vector.extract")
    out = tool("opt", ["-mtriple=amdgcn", "-mcpu=gfx1250", "-passes=verify", "-S"], emit.module([case]).text)
    assert out.returncode == 0, out.stderr
    body = V.split_functions(out.stdout, {case.function})[case.function]
    got = V.ir_sources(body, case.function, {"a": 1, "b": 3})
    assert got == {
        "a": {"width": 8, "narrowed_by": "vector.extract", "mask": []},
        "b": {"width": 12, "narrowed_by": "vector.extract", "mask": []},
    }


# ---- verifier diagnostics: one module, four kinds, one printing its value first -------------


def test_verifier_diagnostics_and_parts_when_immarg_prints_the_value_before_the_call(llvm_22_1_8, tool):
    nonconst_a = Case(W, "gfx1250", FP8, FP8, 16, 16, args=((0, "%f"),))
    bad_b = Case(W, "gfx1250", FP8, FP8, 16, 16, args=((2, "5"),))
    under_b = Case(W, "gfx1250", FP8, FP6, 16, 8)
    nonconst_b = Case(W, "gfx1250", FP8, FP8, 16, 16, args=((2, "%g"),))
    fine = Case(W, "gfx1250", FP4, FP4, 8, 8)
    run = tool("llvm-as", ["-o", "/dev/null"], emit.module([nonconst_a, bad_b, under_b, nonconst_b, fine]).text)
    assert run.returncode != 0
    lines = run.stderr.splitlines()
    # The real output really puts the immarg value before its call line.
    at = next(i for i, l in enumerate(lines) if f"%r.{nonconst_b.function} = call" in l)
    assert lines[at - 1] == "i32 %g" and lines[at - 2] == "immarg operand has non-immediate parameter"

    diags = V.verifier_diagnostics(run.stderr)
    assert set(diags) == {nonconst_a.function, bad_b.function, under_b.function, nonconst_b.function}
    want = {
        nonconst_a.function: ("immarg operand has non-immediate parameter", ["i32 %f"]),
        bad_b.function: ("invalid value for matrix format", ["i32 5"]),
        under_b.function: ("invalid vector type for format", ["<8 x i32> %b", "i32 2"]),
        nonconst_b.function: ("immarg operand has non-immediate parameter", ["i32 %g"]),
    }
    for fn, (message, values) in want.items():
        parts = V.diagnostic_parts(diags[fn])
        assert parts["message"] == message, fn
        assert parts["values"] == values, fn
        assert parts["call"].startswith(f"%r.{fn} = call <8 x float> @llvm.amdgcn.wmma."), fn
        assert len(diags[fn].splitlines()) == 2 + len(values), diags[fn]  # nothing of its neighbours
