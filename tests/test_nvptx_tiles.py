"""NVPTX tile kernels (harness.kernels.fragments and tiles, judged by harness.gpu): one single-warp kernel per dense
`llvm.nvvm.mma.*` row, its fragments placed by the PTX ISA's tables.

Without a GPU: every kernel through the real llc 22 and ptxas; the tables against element counts
derived here (each element of A, B, C and D held by exactly one lane, register and position) and
against hand-read entries of the ISA's figures; the planted faults (each changes the placement
where the layout has the term, and none is missed by the numerics of a warp emulated in numpy);
the checker's inputs, references and bounds on hand-computed examples, its refusals (exit 2) and
its "cannot judge" without CuPy (125). The numerics on a GPU: `python -m harness.gpu.check DIR`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.errors import InputError
from harness.gpu import build, check, kinds, manifest
from harness.kernels import fragments, tiles
from harness.targets.nvptx_rows import FRAGMENT_REGS

np = pytest.importorskip("numpy")

REPO = Path(__file__).resolve().parent.parent
DENSE = tiles.dense_rows()
ON_SM90 = [r for r in DENSE if r.runs_on("sm_90")]
# Bits of one element in a fragment register, as the ISA's fragment tables count them ("two .f16
# elements", "four .s8", "eight .s4", "thirty two .b1" per .b32; .tf32/.f32/.s32 one per .b32;
# .f64 one per .f64; the FP6/FP4 of .kind::f8f6f4 one per byte).
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1}
BITS |= {t: 8 for t in ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")}


def _entry(row, plant=None) -> dict:
    return tiles.Tile(row, plant).entry(7)


# ---- the rows ---------------------------------------------------------------------------------------


def test_the_sm90_rows_are_the_dense_variants_an_h200_runs():
    assert len(DENSE) == 144 and len(ON_SM90) == 94
    assert {r.kind for r in DENSE if not r.runs_on("sm_90")} == {"f8f6f4"}
    assert {(r.a, r.d) for r in ON_SM90} >= {("f16", "f16"), ("f16", "f32"), ("bf16", "f32"), ("tf32", "f32"), ("f64", "f64")}
    assert {r.b1op for r in ON_SM90} == {"", "xor", "and"} and any(r.satfinite for r in ON_SM90)
    assert len({r.layouts for r in ON_SM90 if r.shape == "m8n8k4" and r.a == "f16"}) == 4


# ---- the fragment tables --------------------------------------------------------------------------


@pytest.mark.parametrize("op", fragments.OPERANDS)
def test_every_element_is_held_once_by_one_lane_register_and_position(op):
    for row in DENSE:
        p, rows, cols = fragments.matrix_shape(row, op)
        m, n, k = (int(x) for x in row.shape[1:].replace("n", " ").replace("k", " ").split())
        assert (rows, cols) == {"a": (m, k), "b": (k, n)}.get(op, (m, n))
        ptx = fragments.ptx_type(row, op)
        regs = FRAGMENT_REGS[(row.shape, "cd" if op in "cd" else op, ptx)]
        per_lane = p * rows * cols // 32  # what a lane must hold, from the element count alone
        assert regs * max(1, 32 // BITS[ptx]) == per_lane, (row.name, op)
        places = fragments.placement(row, op)
        assert len(places) == 32 and all(len(lane) == per_lane for lane in places)
        held = [x for lane in places for x in lane]
        every = {(q, r, c) for q in range(p) for r in range(rows) for c in range(cols)}
        assert len(held) == len(set(held)) and set(held) == every, (row.name, op)


def _row(name: str):
    return next(r for r in DENSE if r.name == name)


def test_hand_read_entries_of_the_isa_figures():
    # Figure 79 (m16n8k16 A .f16): lane 5 (groupID 1, threadID_in_group 1).
    a = fragments.placement(_row("mma.m16n8k16.row.col.f16.f16"), "a")[5]
    assert [x[1:] for x in a] == [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]
    # Figure 83 (m16n8k16 C/D): lane 31 holds (7, 6), (7, 7), (15, 6), (15, 7).
    assert [x[1:] for x in fragments.placement(_row("mma.m16n8k16.row.col.f32.f32"), "d")[31]] == [
        (7, 6),
        (7, 7),
        (15, 6),
        (15, 7),
    ]
    # Figures 51/52 (m8n8k4 C/D .f32): lane 19 is quad pair 0's high group: rows X + 4.
    c = fragments.placement(_row("mma.m8n8k4.row.col.f32.f32"), "c")[19]
    assert c[0] == (0, 5, 2) and c[7] == (0, 7, 7)
    # Figure 47 (m8n8k4 A col-major): lane 6 (quad pair 1) holds column 2 of rows 0..3.
    assert fragments.placement(_row("mma.m8n8k4.col.col.f16.f16"), "a")[6] == ((1, 0, 2), (1, 1, 2), (1, 2, 2), (1, 3, 2))
    # Figure 80 (m16n8k16 A .f64): a1 of lane 1 sits at (8, 1), a7 at (8, 13).
    a = fragments.placement(_row("mma.m16n8k16.row.col.f64"), "a")[1]
    assert a[1] == (0, 8, 1) and a[7] == (0, 8, 13)
    # Figure 100 (m16n8k256 A .b1): lane 4's a63 at (9, 31), a64 at (1, 128).
    a = fragments.placement(_row("mma.xor.popc.m16n8k256.row.col.b1"), "a")[4]
    assert a[63] == (0, 9, 31) and a[64] == (0, 1, 128)


# ---- planted faults -------------------------------------------------------------------------------


def test_planted_faults_change_the_placement_exactly_where_the_layout_has_the_term():
    for row in DENSE:
        caught = set()
        for plant in fragments.PLANTS.values():
            moved = [op for op in fragments.OPERANDS if fragments.placement(row, op, plant) != fragments.placement(row, op)]
            why = fragments.noop_reason(row, plant)
            assert bool(moved) != bool(why), (row.name, plant.name)
            assert set(moved) <= set(plant.operands)
            caught |= set(moved)
            for op in moved:  # still every element once: only the numbers can tell
                held = [x for lane in fragments.placement(row, op, plant) for x in lane]
                assert len(set(held)) == len(held)
        assert caught == set(fragments.OPERANDS), row.name  # a fault for every operand of every shape
    assert "no + 8 row half" in fragments.noop_reason(_row("mma.m8n8k16.row.col.s8"), fragments.PLANTS["a-rows-swapped"])
    assert "no K-high half" in fragments.noop_reason(_row("mma.m16n8k8.row.col.f16.f16"), fragments.PLANTS["b-khi-swapped"])


def _emulate(row, plant):
    """What the kernel with `plant` stores for D, on a warp that reads the registers by the ISA's
    tables: each register element goes where the kernel's table put it and comes back by the ISA's."""
    entry = _entry(row, plant)
    data = kinds.tile_inputs(entry)
    seen = {}
    for op in "abc":
        seen[op] = np.zeros_like(data[op])
        for mine, isa in zip(fragments.placement(row, op, plant), fragments.placement(row, op)):
            for kernel_place, isa_place in zip(mine, isa):
                seen[op][isa_place] = data[op][kernel_place]
    hardware = kinds.tile_reference(entry, seen["a"], seen["b"], seen["c"])
    d = np.zeros_like(hardware)
    for mine, isa in zip(fragments.placement(row, "d", plant), fragments.placement(row, "d")):
        for kernel_place, isa_place in zip(mine, isa):
            d[kernel_place] = hardware[isa_place]
    r = kinds.tile_reference(entry, data["a"], data["b"], data["c"])
    return check.judge(kinds.TILE, entry, d, r, kinds.tile_bound(entry, data["a"], data["b"], data["c"]))


def _one_per_table():
    """A row per shape, A/B table and C/D type (the others differ only in signedness or layout)."""
    seen, out = set(), []
    for row in ON_SM90:
        key = (row.shape, fragments.formula(row, "a"), fragments.formula(row, "b"), row.c, row.d, row.b1op, row.satfinite)
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


@pytest.mark.parametrize("row", _one_per_table(), ids=lambda r: r.name)
def test_an_emulated_warp_passes_the_isa_layout_and_catches_every_planted_fault(row):
    assert _emulate(row, None)["ok"]
    for plant in fragments.PLANTS.values():
        if not fragments.noop_reason(row, plant):
            result = _emulate(row, plant)
            assert not result["ok"] and result["worst"] > 4, (plant.name, result)


# ---- llc 22 and ptxas -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(nvptx_tc, ptxas_path, tmp_path_factory):
    if not nvptx_tc.version.startswith("22."):
        pytest.skip(f"the rows are LLVM 22's intrinsics; this build is {nvptx_tc.version}")
    out = tmp_path_factory.mktemp("tiles") / "out"
    chosen, skipped = tiles.select([], [])
    return out, build.build_all(nvptx_tc, build.Build("tile", list(chosen), {}, skipped, tiles.MEMORY_TEXT, ptxas_path), out)


def test_every_variant_compiles_with_llc_22_to_its_one_mma_and_ptxas_accepts_it(built):
    out, kernels = built
    assert [b.problems for b in kernels if b.problems] == []
    on90 = [b for b in kernels if not b.kernel.ptx_only]
    assert (
        len(on90) == 94
        and {b.kernel.sm for b in on90} == {"sm_90"}
        and all(build.run_verdict(b.ptxas) == "pass" for b in kernels)
    )
    assert {b.kernel.sm for b in kernels if b.kernel.ptx_only} == {"sm_120a"}
    assert all(b.found == {b.kernel.row.mnemonic: 1} for b in kernels)
    text = (out / "tile_mma_m16n8k32_row_col_f16_e4m3_e5m2_f16.ptx").read_text()
    assert ".version 8.7" in text and ".target sm_90" in text  # the row's -mattr=+ptx87
    doc, kind = manifest.load(out)  # what the build writes is what the checker reads
    assert len(doc["kernels"]) == 144 and doc["format"] == manifest.FORMAT and kind is kinds.TILE
    assert sorted(p.name for p in out.iterdir()) == sorted([manifest.MANIFEST, *(b.ptx_file for b in kernels)])


def test_the_kernel_reads_its_lane_entries_of_the_isa_table():
    ir = tiles.kernel_ir(tiles.Tile(_row("mma.m16n8k8.row.col.f16.f16")))
    # lane 0 holds A (0,0), (0,1), (8,0), (8,1) of the 16x8 A: slots 0, 1, 64, 65
    assert "@a_idx = internal addrspace(4) constant [128 x i32] [i32 0, i32 1, i32 64, i32 65, i32 2," in ir
    assert "call {<2 x half>, <2 x half>} @llvm.nvvm.mma.m16n8k8.row.col.f16.f16(<2 x half>" in ir
    planted = tiles.kernel_ir(tiles.Tile(_row("mma.m16n8k8.row.col.f16.f16"), fragments.PLANTS["a-rows-swapped"]))
    assert "[128 x i32] [i32 64, i32 65, i32 0, i32 1," in planted and "planted fault: a-rows-swapped" in planted


# ---- the checker's inputs, references and bounds --------------------------------------------------


def test_reference_of_b1_integers_and_satfinite_on_hand_computed_examples():
    a = np.array([[[1, 0, 1, 1], [0, 0, 0, 0]]])  # 1 product, M = 2, K = 4
    b = np.array([[[1, 0], [1, 1], [0, 1], [1, 1]]])  # K = 4, N = 2
    c = np.array([[[10, 20], [30, 40]]])
    base = {"d": "s32", "satfinite": False, "a": "b1"}
    # XOR: row 0 vs column 0: 1^1 + 0^1 + 1^0 + 1^1 = 2; row 0 vs column 1: 1 + 1 + 0 + 0 = 2; row 1: popcounts 3 and 3
    assert kinds.tile_reference({**base, "b1op": "xor"}, a, b, c).tolist() == [[[12, 22], [33, 43]]]
    assert kinds.tile_reference({**base, "b1op": "and"}, a, b, c).tolist() == [[[12, 22], [30, 40]]]
    s8 = {"d": "s32", "b1op": "", "satfinite": False, "a": "s8"}
    a, b = np.array([[[127, -128]]]), np.array([[[127], [-128]]])  # 127² + 128² = 32513
    assert kinds.tile_reference(s8, a, b, np.array([[[-13]]])).tolist() == [[[32500]]]
    big = np.array([[[2**31 - 20]]])
    assert kinds.tile_reference(s8, a, b, big).tolist() == [[[2**31 - 20 + 32513]]]  # no clamp without .satfinite
    assert kinds.tile_reference({**s8, "satfinite": True}, a, b, big).tolist() == [[[2**31 - 1]]]
    assert kinds.tile_reference({**s8, "satfinite": True}, -a, b, -big).tolist() == [[[-(2**31)]]]


def test_float_reference_is_exact_and_the_bound_follows_k_and_u():
    f64 = {"d": "f64", "k": 1, "satfinite": False, "b1op": "", "a": "f64"}
    a, b, c = np.array([[[1.0 + 2**-52]]]), np.array([[[1.0 + 2**-52]]]), np.array([[[-1.0]]])
    assert kinds.tile_reference(f64, a, b, c)[0, 0, 0] == 2**-51 + 2**-104  # float64 arithmetic would lose 2^-104
    n, u = 4, 2.0**-53
    assert kinds.tile_bound(f64, a, b, c)[0, 0, 0] == pytest.approx(2 * n * u / (1 - 2 * n * u) * ((1 + 2**-52) ** 2 + 1))
    f16 = {**f64, "d": "f16", "k": 16}
    assert kinds.tile_bound(f16, np.ones((1, 1, 16)), np.ones((1, 16, 1)), np.zeros((1, 1, 1)))[0, 0, 0] == pytest.approx(
        2 * 19 * 2**-11 / (1 - 2 * 19 * 2**-11) * 16
    )
    judged = check.judge(kinds.TILE, f16, np.array([[[1.5]]]), np.array([[[1.0]]]), np.array([[[0.25]]]))
    assert judged["worst"] == 2.0 and not judged["ok"] and judged["outside"] == 1


def test_inputs_are_exact_in_their_types_and_satfinite_inputs_saturate():
    for row in ON_SM90:
        entry = _entry(row)
        data = kinds.tile_inputs(entry)
        for op in "abc":
            values, kept = data[op], data[f"stored_{op}"]
            ptx = entry[op]
            if ptx in ("f16", "bf16", "tf32"):
                bits = kept.astype(np.uint32) << 16 if ptx == "bf16" else kept
                back = (bits.view(np.float32) if ptx == "bf16" else kept.view(np.float16) if ptx == "f16" else kept).astype(
                    np.float64
                )
                assert np.array_equal(back, values) and (ptx != "tf32" or not np.any(kept.view(np.uint32) & 0x1FFF))
            elif ptx in kinds.FP8:
                assert np.array_equal(kinds.fp8_decode(kept, ptx), values)
            elif ptx in kinds.INTEGERS or ptx == "s32":
                lo, hi = kinds.INTEGERS.get(ptx, kinds.INT32)
                assert values.min() >= lo and values.max() <= hi and np.array_equal(kept, kinds.stored(values, ptx))
                assert ptx != "s32" or np.array_equal(kept.astype(np.int64), values), row.name  # no wrap-around
        if row.satfinite:  # D saturates upwards, and downwards where A is signed
            r = kinds.tile_reference(entry, data["a"], data["b"], data["c"])
            assert check.judge(kinds.TILE, entry, r, r, 0)["saturated"] > 0, row.name
            signed = kinds.INTEGERS[entry["a"]][0] < 0
            assert ((r == kinds.INT32[1]).any(), (r == kinds.INT32[0]).any()) == (True, signed), row.name


def test_fp8_decoding_of_hand_picked_bytes():
    assert kinds.fp8_decode(np.array([0x38, 0x7E, 0x01, 0xB8]), "e4m3").tolist() == [1.0, 448.0, 2.0**-9, -1.0]
    assert kinds.fp8_decode(np.array([0x3C, 0x7B, 0x01]), "e5m2").tolist() == [1.0, 57344.0, 2.0**-16]
    assert np.isnan(kinds.fp8_decode(np.array([0x7F, 0xFF]), "e4m3")).all()
    assert np.isnan(kinds.fp8_decode(np.array([0x7C, 0x7F]), "e5m2")).all()


# ---- the checker's refusals and "cannot judge" ----------------------------------------------------


def _check(directory: Path, tmp_path: Path, hide_cupy: bool = True) -> subprocess.CompletedProcess:
    """python -m harness.gpu.check DIR, with CuPy hidden (this machine has no GPU anyway)."""
    (tmp_path / "nocupy").mkdir(exist_ok=True)
    (tmp_path / "nocupy" / "cupy.py").write_text("raise ImportError('hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "nocupy"), str(REPO)])}
    cmd = [sys.executable, "-m", "harness.gpu.check", str(directory)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


def _manifest_dir(tmp_path: Path, tile_list) -> Path:
    d = tmp_path / "m"
    d.mkdir(exist_ok=True)
    for entry in tile_list:
        if isinstance(entry, dict) and isinstance(entry.get("ptx"), str) and entry["ptx"].endswith(".ptx"):
            (d / entry["ptx"]).write_text("// not run\n")
    doc = {"format": manifest.FORMAT, "kind": "tile", "kernels": tile_list}
    (d / "manifest.json").write_text(json.dumps(doc))
    return d


GOOD = {**_entry(_row("mma.m16n8k8.row.col.f16.f16")), "ptx": "k.ptx"}


@pytest.mark.parametrize(
    "tile_list, message",
    [
        ([{**GOOD, "a": "f17"}], "A type 'f17' is not one the checker makes"),
        ([{**GOOD, "d": "s32"}], "do not make an mma"),
        ([{**GOOD, "b1op": "xor"}], "do not make an mma"),
        ([{**GOOD, "k": "16"}], "k is '16', not an integer"),
        ([{k: v for k, v in GOOD.items() if k != "seed"}], "lacks seed"),
        ([{**GOOD, "ptx": "../k.ptx"}], "no PTX file"),
        ([{**GOOD, "ptx": "gone.txt"}], "no PTX file 'gone.txt'"),
        ([{**GOOD, "kernel": "a b"}], "not a PTX identifier"),
        ([], "lists no kernels"),
        (["x"], "not an object"),
    ],
)
def test_the_checker_refuses_a_bad_manifest_in_one_line_with_exit_2(tmp_path, tile_list, message):
    proc = _check(_manifest_dir(tmp_path, tile_list), tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("seed", 10**4000, "seed 1000000000000000000000000000000000000000... (4,001 characters) is not a 32-bit seed"),
        ("seed", -1, "seed -1 is not a 32-bit seed"),
        ("seed", 2**32, "seed 4294967296 is not a 32-bit seed"),
        ("m", 10**4000, "shape m1000000000000000000000000000000000000000... (4,001 characters)n8k8 is not a dense"),
        ("kernel", ["x" * 10_000], "kernel is ['xxxxxxx"),
    ],
    ids=["seed-huge", "seed-negative", "seed-2**32", "m-huge", "kernel-long"],
)
def test_a_number_out_of_range_is_bad_input_before_the_gpu_question(tmp_path, field, value, message):
    """Every field's range is checked before CuPy is asked for (exit 2, never 125), values cut short."""
    entry = {**GOOD, field: value}
    proc = _check(_manifest_dir(tmp_path, [entry]), tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr[:2000]
    assert message in proc.stderr and len(proc.stderr) < 300, proc.stderr[:2000]


def test_the_checker_refuses_a_missing_or_foreign_manifest(tmp_path):
    proc = _check(tmp_path / "nowhere", tmp_path)
    assert proc.returncode == 2 and "cannot read the manifest" in proc.stderr
    (tmp_path / "gemm").mkdir()
    (tmp_path / "gemm" / "manifest.json").write_text(json.dumps({"format": 1, "cases": []}))
    proc = _check(tmp_path / "gemm", tmp_path)
    assert proc.returncode == 2 and "made by an earlier release (gemm-ptx, format 1): build again with" in proc.stderr
    (tmp_path / "gemm" / "manifest.json").write_text(json.dumps({"format": "harness-gpu/0", "kernels": []}))
    proc = _check(tmp_path / "gemm", tmp_path)
    assert proc.returncode == 2 and "not a GPU build's manifest (format 'harness-gpu/0', expected 'harness-gpu/1')" in proc.stderr
    (tmp_path / "gemm" / "manifest.json").write_text(json.dumps({"format": manifest.FORMAT, "kind": "wmma", "kernels": []}))
    proc = _check(tmp_path / "gemm", tmp_path)
    assert proc.returncode == 2 and 'kind "wmma" is not one of gemm, tile' in proc.stderr
    (tmp_path / "gemm" / "manifest.json").write_text("{")
    assert _check(tmp_path / "gemm", tmp_path).returncode == 2


def test_the_checker_cannot_judge_without_cupy(tmp_path):
    proc = _check(_manifest_dir(tmp_path, [GOOD]), tmp_path)
    assert proc.returncode == 125 and "cannot judge" in proc.stderr and "CuPy is not installed" in proc.stderr


def test_exit_status_and_table_of_a_report():
    gpu = {"name": "G", "cc": [9, 0], "cupy": "x", "driver": 1}
    ptx_only = {"variant": "v", "plant": None, "bound": "exact", "verdict": "ptx-only", "why": "PTX only (needs sm_120a)"}
    report = {"gpu": gpu, "bounds": kinds.TILE_BOUNDS, "not_planted": [], "kernels": [ptx_only]}
    report["summary"] = {"pass": 0, "fail": 0, "not-run": 0, "ptx-only": 1, "planted": {"run": 0, "caught": 0}, "worst": None}
    assert check.exit_status(report) == 125  # nothing judged is never a pass
    caught = {"variant": "w", "plant": "a-rows-swapped", "bound": "exact", "verdict": "fail", "ok": False, "worst": float("inf")}
    report["kernels"].append({**caught, "outside": 9, "max_abs": 3.0})
    report["summary"].update(
        fail=1, planted={"run": 1, "caught": 1}, worst={"variant": "w", "plant": "a-rows-swapped", "worst": float("inf")}
    )
    text = check.table(report)
    assert check.exit_status(report) == 1
    assert "PTX only (needs sm_120a)" in text and "w [a-rows-swapped]" in text and "planted faults caught: 1 of 1" in text


# ---- the command ----------------------------------------------------------------------------------


def test_gpu_build_refuses_bad_flags_and_outputs_in_one_line(cli, tmp_path):
    for args, message in (
        (["--plant", "nope"], "--plant 'nope': tile kernels' planted faults are a-rows-swapped,"),
        (["--filter", "mma.nothing*"], "matches no dense mma row"),
        (["--spec", "nvptx-gemm.yaml"], "--spec and --cases choose gemm kernels"),
    ):
        proc = cli("gpu", "build", "--kind", "tile", "--out", tmp_path / "o", *args)
        assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "keep.txt").write_text("mine")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for out, message in ((tmp_path / "link", "symbolic link"), (tmp_path / "real", "is not a GPU build")):
        with pytest.raises(InputError, match=message):
            build.check_out(out)
    proc = cli("tile-ptx", "--out", tmp_path / "link", "--variant", "mma.m16n8k8.row.col.f16.f16")  # (the old name)
    assert proc.returncode == 2 and "symbolic link" in proc.stderr and (tmp_path / "real" / "keep.txt").read_text() == "mine"


def test_an_earlier_output_holding_a_file_the_build_did_not_write_is_refused(tmp_path):
    """The output directory is replaced whole: a file someone put in an earlier output (notes,
    a PTX edited by hand under a new name) would be lost, so the run is refused first."""
    out = tmp_path / "o"
    out.mkdir()
    doc = {"format": manifest.FORMAT, "kind": "tile", "kernels": [{"ptx": "tile_a.ptx"}, {"ptx": 5}, "junk"]}
    (out / "manifest.json").write_text(json.dumps(doc))
    (out / "tile_a.ptx").write_text("//\n")
    build.check_out(out)  # (its own files only: replaced)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds 'notes.txt', which a GPU build did not write there"):
        build.check_out(out)
    assert (out / "notes.txt").read_text() == "mine"


def test_gpu_build_plants_and_replaces_its_own_output(cli, tmp_path, nvptx_tc, ptxas_path):
    out = tmp_path / "plant"
    args = ("gpu", "build", "--kind", "tile", "--out", out, "--filter", "mma.m8n8k16.row.col.s8", "--plant", "all")
    proc = cli(*args, "--llvm-bin", nvptx_tc.bin_dir, env={"PTXAS": ptxas_path})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "manifest.json").read_text())
    assert sorted(t["plant"] for t in doc["kernels"]) == ["a-lanes-reversed", "b-lanes-reversed", "d-lanes-reversed"]
    assert {n["plant"] for n in doc["not_planted"]} == {"a-rows-swapped", "b-khi-swapped", "d-rows-swapped"}
    assert set(doc["plants"]) == set(fragments.PLANTS)
    assert "not planted: mma.m8n8k16.row.col.s8 [a-rows-swapped]: no-op" in proc.stdout
    again = cli(*args[:7], "mma.m8n8k16.row.col.u8", "--llvm-bin", nvptx_tc.bin_dir, env={"PTXAS": ptxas_path})
    assert again.returncode == 0 and [t["variant"] for t in json.loads((out / "manifest.json").read_text())["kernels"]] == [
        "mma.m8n8k16.row.col.u8"
    ]
    assert len(list(out.iterdir())) == 2 and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("variant, u", [("mma.m16n8k16.row.col.f16.f16", "2^-11"), ("mma.m16n8k8.row.col.f32.f32", "2^-24")])
def test_a_tile_no_gpu_here_can_run_is_reported_with_its_bound_and_why(variant, u):
    """The kernels the check reports without launching anything: PTX-only kernels, and kernels
    for a newer SM than the GPU's; their bound names K and the unit roundoff of D's type."""
    entry = {**_entry(_row(variant)), "ptx": "k.ptx"}
    never = lambda: pytest.fail("launched")
    ptx_only = check.attempt({"cc": [8, 0]}, {**entry, "ptx_only": True, "sm": "sm_100a"}, never)
    newer = check.attempt({"cc": [8, 0]}, {**entry, "sm": "sm_90"}, never)
    assert ptx_only == {"verdict": "ptx-only", "why": "PTX only (needs sm_100a)"}
    assert newer == {"verdict": "not-run", "why": "sm_90 PTX does not run on compute capability 8.0"}
    assert kinds.TILE.bound_label(entry) == f"g·S, K = {entry['k']}, u = {u}"
    no_ptx = check.attempt({"cc": [9, 0]}, {**entry, "ptx": ""}, never)  # (llc failed on it at build time)
    assert no_ptx == {"verdict": "not-run", "why": "no PTX: llc failed on it at build time (see the build's table)"}


def test_each_32_bit_run_seed_gives_a_tile_its_own_inputs():
    tile = tiles.Tile(ON_SM90[0])
    seeds = [0, 1, 2**31, 2**31 + 1, 2**32 - 1, 12345]
    assert len({tile.entry(s)["seed"] for s in seeds}) == len(seeds)
    assert tiles.Tile(ON_SM90[1]).entry(0)["seed"] != tile.entry(0)["seed"]  # the row mixes in
    planted = tiles.Tile(ON_SM90[0], fragments.PLANTS["a-lanes-reversed"])
    assert planted.entry(0)["seed"] == tile.entry(0)["seed"]  # a planted kernel gets its twin's inputs
