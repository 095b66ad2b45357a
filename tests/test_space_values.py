"""The whole space holds values, not only intrinsics: on a processor with the instruction, each
immarg at its middle and highest allowed value, the first value the ISA forbids there, the first
past its field, pairs at their highest, the F8F6F4 formats, and scales in registers.

Expected values are written here from the documents, not read from harness/targets: the Matrix
Instruction Calculator gives v_mfma_f32_16x16x1_4b_f32 (CDNA3) 4 blocks with CBSZ/ABID broadcast
and BLGP (CBSZ <= log2(4) = 2, ABID <= 2^CBSZ-1); the fields are CBSZ 3 bits, ABID 4, BLGP 3;
the scaled MFMA's op_sel picks one of 4 bytes; gfx1250's c_mod is 2 bits (0..3), its neg and
reuse operands i1."""

from __future__ import annotations

from conftest import run_json

from harness.specs import selection


def _planned(name: str, cpu: str) -> list:
    args = selection.space_args("full", [name])
    args.cpu, args.opt = cpu, 0
    return selection.space(args, lambda target: {cpu})


def _cells(name: str, cpu: str) -> set[tuple[int, int, tuple]]:
    """(format of A, format of B, sorted overrides) of the -O0 cells of `name` on `cpu`."""
    return {(p.case.fmt_a, p.case.fmt_b, tuple(sorted(p.case.args))) for p in _planned(name, cpu)}


def test_runtime_formats_take_every_width_the_specs_give_on_each_side():
    # gfx950's scaled MFMA reads 8/8/6/6/4 VGPRs for FP8/BF8/FP6/BF6/FP4 from v4i32, v6i32 or
    # v8i32 sources (IntrinsicsAMDGPU.td: llvm_anyint_ty, the seed's table): exact, over-wide and
    # under-wide on each side, with the scales in registers.
    cells = {
        (p.case.fmt_a, p.case.fmt_b, p.case.width_a, p.case.width_b)
        for p in _planned("mfma.scale.f32.16x16x128.f8f6f4", "gfx950")
    }
    regs = {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}
    assert (4, 4, 8, 8) in cells and (4, 0, 4, 6) in cells  # FP4 over-wide on both; FP8 under-wide
    assert {(a, wa) for a, _b, wa, _wb in cells} == {(a, w) for a in regs for w in (4, 6, 8)}
    assert (0, 0, regs[0], regs[0]) in cells


def test_a_fixed_format_row_takes_its_wider_widths():
    # gfx1250's v_wmma_f32_32x16x128_f4 takes A as v16i32 or v32i32, B as v8i32, v12i32 or v16i32.
    widths = {(p.case.width_a, p.case.width_b) for p in _planned("wmma.f32.32x16x128.f4", "gfx1250")}
    assert widths == {(a, b) for a in (16, 32) for b in (8, 12, 16)}


def test_a_four_block_mfma_tries_allowed_forbidden_and_outside_values_and_the_broadcast_pair():
    got = {args for _fa, _fb, args in _cells("mfma.f32.16x16x1f32", "gfx942")}
    cbsz, abid, blgp = 3, 4, 5
    want = {
        (),  # the base cell
        ((cbsz, "1"),), ((cbsz, "2"),), ((cbsz, "3"),), ((cbsz, "8"),),  # middle, highest, forbidden, past
        ((abid, "1"),), ((abid, "16"),),  # with CBSZ 0 only ABID 0 is allowed
        ((blgp, "3"),), ((blgp, "7"),), ((blgp, "8"),),
        ((cbsz, "2"), (abid, "3")), ((cbsz, "2"), (blgp, "7")),  # pairs at their highest
    }  # fmt: skip
    assert got == want


def test_a_single_block_cdna3_mfma_has_no_allowed_broadcast():
    # v_mfma_f32_32x32x8_f16: one block, no CBSZ/ABID, no BLGP on CDNA3 (the Calculator).
    got = {args for _fa, _fb, args in _cells("mfma.f32.32x32x8f16", "gfx942")}
    assert got == {(), ((3, "1"),), ((3, "8"),), ((4, "1"),), ((4, "16"),), ((5, "1"),), ((5, "8"),)}


def test_the_scaled_mfma_passes_scales_in_registers_and_tries_every_format():
    cells = _cells("mfma.scale.f32.16x16x128.f8f6f4", "gfx950")
    registers = ((6, "%scale_a"), (8, "%scale_b"))
    assert (0, 0, ()) in cells and (0, 0, registers) in cells
    for op_sel in (5, 7):  # op_sel_a, op_sel_b: middle 1, highest 3, past the field 4
        assert {v for _a, _b, args in cells for i, v in args if i == op_sel} == {"1", "3", "4"}
    formats = {(a, b) for a, b, args in cells if args == registers}
    assert formats == {(a, b) for a in range(5) for b in range(5)}  # FP8, BF8, FP6, BF6, FP4 (the ISA's codes)
    assert {args for _a, _b, args in cells if any(v == "5" for _i, v in args)} == {
        tuple(sorted(((3, "5"), *registers))),
        tuple(sorted(((4, "5"), *registers))),
    }
    assert all(dict(args).get(6) == "%scale_a" for _a, _b, args in cells if args)


def test_i1_immargs_take_true_and_pairs_and_c_mod_its_values():
    got = {args for _fa, _fb, args in _cells("wmma.f32.16x16x32.f16", "gfx1250")}
    singles = {a for a in got if len(a) == 1}
    neg_a, neg_b, c_mod, reuse_a, reuse_b = 0, 2, 4, 6, 7
    assert singles == {
        ((neg_a, "true"),), ((neg_b, "true"),), ((reuse_a, "true"),), ((reuse_b, "true"),),
        ((c_mod, "1"),), ((c_mod, "3"),), ((c_mod, "4"),),
    }  # fmt: skip
    pairs = {a for a in got if len(a) == 2}
    assert len(pairs) == 10 and ((c_mod, "3"), (reuse_b, "true")) in pairs  # C(5, 2), each at its highest


def test_the_space_of_the_scaled_mfma_reaches_the_scaled_instruction(llvm_22_1_8, cli, tool):
    doc = run_json(cli, "run", "--space", "full", "--intrinsic", "mfma.scale.f32.16x16x128.f8f6f4", "--cpu", "gfx950", "-O", "0")
    in_registers = [r for r in doc["cases"] if "%scale_a" in (r.get("args") or {}).values()]
    exact = [r for r in in_registers if r["class"] == "exact"]
    # The register base cell, op_sel_a and op_sel_b at 1 and 3, both at 3, the 24 other format
    # pairs at their exact widths; two selectors.
    assert len(exact) == 2 * 30 and {r["verdict"] for r in exact} == {"pass"}, {r["verdict"] for r in exact}
    # op_sel past its field with the scales in registers: both selectors abort (a known bug).
    past = [r for r in in_registers if r["class"] == "immarg-range"]
    assert {(r["verdict"], r["judgment"]) for r in past} == {("cannot-select", "known-bug")}, past
    # What llc itself prints for op_sel_a 3 with a register scale: the scaled instruction.
    ir = (
        "define <4 x float> @f(<8 x i32> %a, <8 x i32> %b, <4 x float> %c, i32 %sa, i32 %sb) {\n"
        "  %r = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32> %a, <8 x i32> %b,"
        " <4 x float> %c, i32 0, i32 0, i32 3, i32 %sa, i32 0, i32 %sb)\n  ret <4 x float> %r\n}\n"
        "declare <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32>, <8 x i32>, <4 x float>,"
        " i32, i32, i32, i32, i32, i32)\n"
    )
    llc = tool("llc", ["-mtriple=amdgcn", "-mcpu=gfx950", "-O0"], ir)
    assert llc.returncode == 0 and "v_mfma_scale_f32_16x16x128_f8f6f4 " in llc.stdout, llc.stderr


def test_an_nvptx_sparse_row_tries_its_selector_values():
    # mma.sp m16n8k16 bf16: the PTX ISA's selector values for it are 0..3 (the row's range);
    # the middle (1), the highest (3) and one past it (4), as an immarg of AMDGPU.
    got = {args for _fa, _fb, args in _cells("mma.sp.m16n8k16.row.col.bf16", "sm_80")}
    assert got == {(), ((4, "1"),), ((4, "3"),), ((4, "4"),)}


def test_a_forms_own_name_narrows_the_space_to_that_form():
    # An LLVM name with gfx11/gfx12 and wave64 forms: the LLVM name means each, a form's own
    # name that form only (as --help says), a glob every form it matches.
    def forms(*words: str) -> set[str]:
        planned = selection.space(selection.space_args("full", list(words)), selection.target_cpus)
        return {p.case.intrinsic.name for p in planned}

    base = "wmma.f32.16x16x16.f16"
    every = {f"{base}.gfx1100", f"{base}.gfx1100w64", f"{base}.gfx1200", f"{base}.gfx1200w64"}
    assert forms(base) == every
    assert forms(f"{base}.gfx1100w64") == {f"{base}.gfx1100w64"}
    assert forms(f"llvm.amdgcn.{base}.gfx1100w64") == {f"{base}.gfx1100w64"}  # (the prefix is also taken)
    assert forms(f"{base}.gfx1100w64", f"{base}.gfx1200") == {f"{base}.gfx1100w64", f"{base}.gfx1200"}
    assert forms(f"{base}.gfx1100w64", base) == every
    assert forms("wmma.f32.16x16x16.f16.*") == every
