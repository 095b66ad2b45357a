"""The GPU judges without a GPU: the float bounds of both kernel kinds (harness.gpu.kinds) on
hand-computed cases where C dominates A·B, as harness.gpu.check.judge applies them, and the
NVIDIA second opinion (harness.gpu.second) counting a ptxas that times out or is killed on nvcc's
PTX as "not judged", never a disagreement.

Every expected number below is worked out by hand in the comments (small arrays of binary
fractions, so each sum and product is exact); none is read back from the code under test.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from harness.gpu import check, kinds, second
from harness.kernels import tiles
from harness.tools import toolchain

np = pytest.importorskip("numpy")

ULP_1024_F32 = 2.0**-13  # float32 spacing in [2^10, 2^11): 2^(10 - 23)


# ---- gemm: |D - R| <= 6(K+1)·2^-24·(|A|@|B| + beta·|C|) ----------------------------------------

# M = 2, N = 1, K = 2. A@B = [0.25 + 0.0625, 0.25 - 0.0625] = [0.3125, 0.1875]; |A|@|B| = 0.3125
# both; C = [1024, -2048], so beta = 1 gives R = [1024.3125, -2047.8125] (exact in float32) and
# S = |A|@|B| + |C| = [1024.3125, 2048.3125]; 6(K+1) = 18.
A = np.array([[0.5, 0.25], [0.5, -0.25]], dtype=np.float32)
B = np.array([[0.5], [0.25]], dtype=np.float32)
C = np.array([[1024.0], [-2048.0]], dtype=np.float32)
GEMM_DATA = {"a": A, "b": B, "c": C}
BOUND_BETA1 = np.array([[18 * 1024.3125], [18 * 2048.3125]]) * 2.0**-24  # [18437.625, 36869.625]·2^-24
BOUND_NO_C = np.array([[18 * 0.3125], [18 * 0.3125]]) * 2.0**-24  # 5.625·2^-24: a bound missing |C|


def _gemm(beta: int) -> dict:
    return {"m": 2, "n": 1, "k": 2, "dtype": "f16", "beta": beta, "transpose_a": False, "transpose_b": False}


def test_gemm_reference_and_bound_with_beta_1_hold_c():
    entry = _gemm(1)
    r = kinds.GEMM.reference(entry, GEMM_DATA)
    assert r.dtype == np.float32 and r.tolist() == [[1024.3125], [-2047.8125]]
    assert kinds.GEMM.bound(entry, GEMM_DATA).tolist() == BOUND_BETA1.tolist()


def test_gemm_a_correct_d_one_ulp_off_passes_where_a_bound_without_c_fails_it():
    """A tensor core that truncates its last addition gives R ∓ 1 ulp at 1024: within 18·1024.3125
    ·2^-24 ≈ 9.003 ulps, but ~2000 times what |A|@|B| alone allows."""
    entry = _gemm(1)
    r = kinds.GEMM.reference(entry, GEMM_DATA)
    d = r - np.float32(ULP_1024_F32)  # one ulp off each (|R| in [2^10, 2^11) both)
    assert check.judge(kinds.GEMM, entry, d, r, kinds.GEMM.bound(entry, GEMM_DATA))["ok"]
    wrong = check.judge(kinds.GEMM, entry, d, r, BOUND_NO_C)
    assert not wrong["ok"] and wrong["outside"] == 2


def test_gemm_an_error_just_above_the_bound_is_caught():
    """At 1024 the bound is 18437.625·2^-24 = 9.0027 ulps of 2^-13: 9 ulps off is within, 10 not
    (10·2^-13 / (18437.625·2^-24) = 20480/18437.625 = 1.1108)."""
    entry = _gemm(1)
    r = kinds.GEMM.reference(entry, GEMM_DATA)
    allowed = kinds.GEMM.bound(entry, GEMM_DATA)
    within = r + np.array([[9 * ULP_1024_F32], [0]], dtype=np.float32)
    assert check.judge(kinds.GEMM, entry, within, r, allowed)["ok"]
    above = r + np.array([[10 * ULP_1024_F32], [0]], dtype=np.float32)
    got = check.judge(kinds.GEMM, entry, above, r, allowed)
    assert not got["ok"] and got["outside"] == 1
    assert got["worst"] == pytest.approx(20480 / 18437.625, rel=1e-12)
    assert got["max_abs"] == 10 * ULP_1024_F32


def test_gemm_beta_0_keeps_c_out_of_the_reference_and_the_bound():
    """beta = 0: R = A@B = [0.3125, 0.1875], the bound 18·0.3125·2^-24 each, whatever C holds;
    a D that added C anyway is off by 1024 and 2048."""
    entry = _gemm(0)
    r = kinds.GEMM.reference(entry, GEMM_DATA)
    assert r.tolist() == [[0.3125], [0.1875]]
    allowed = kinds.GEMM.bound(entry, GEMM_DATA)
    assert allowed.tolist() == BOUND_NO_C.tolist()
    assert check.judge(kinds.GEMM, entry, r.copy(), r, allowed)["ok"]
    added_c = check.judge(kinds.GEMM, entry, r + C, r, allowed)
    assert not added_c["ok"] and added_c["outside"] == 2


# ---- tile: |D - R| <= g·(|A|@|B| + |C|), g = 2nu/(1 - 2nu), n = K + 3 ----------------------------

# One product, M = N = 1, K = 4: A = [0.5, -0.5, 0.25, 0.25], B = [0.5, 0.5, 1, -1]ᵀ, so A@B =
# 0.25 - 0.25 + 0.25 - 0.25 = 0 and |A|@|B| = 1; C = 2^e. n = K + 3 = 7, 2n = 14, so
# g = 14u / (1 - 14u) and the bound g·(1 + 2^e) is just over 14u·2^e = 7 ulps at 2^e (ulp 2u·2^e).
TILE_A = np.array([[[0.5, -0.5, 0.25, 0.25]]])
TILE_B = np.array([[[0.5], [0.5], [1.0], [-1.0]]])
# D's type, unit roundoff u, C = 2^e, one ulp of D's type at 2^e
TILE_CASES = [("f16", 2**-11, 2.0**10, 1.0), ("f32", 2**-24, 2.0**20, 2.0**-3), ("f64", 2**-53, 2.0**40, 2.0**-12)]


def _tile(d: str) -> dict:
    return {"m": 1, "n": 1, "k": 4, "products": 1, "a": d, "b": d, "c": d, "d": d, "satfinite": False, "b1op": ""}


@pytest.mark.parametrize("d, u, c, ulp", TILE_CASES, ids=[c[0] for c in TILE_CASES])
def test_tile_bound_is_g_times_the_magnitudes_c_included(d, u, c, ulp):
    data = {"a": TILE_A, "b": TILE_B, "c": np.array([[[c]]])}
    entry = _tile(d)
    assert kinds.TILE.reference(entry, data).tolist() == [[[c]]]  # A@B = 0 exactly
    g = Fraction(14) * Fraction(u) / (1 - Fraction(14) * Fraction(u))
    want = float(g * (1 + Fraction(c)))
    assert kinds.TILE.bound(entry, data).tolist() == [[[pytest.approx(want, rel=1e-14)]]]
    assert 7 * ulp < want < 8 * ulp  # 7 ulps of 2^e within, 8 not (the next two tests)


@pytest.mark.parametrize("d, u, c, ulp", TILE_CASES, ids=[c[0] for c in TILE_CASES])
def test_tile_a_correct_d_one_ulp_off_passes_where_a_bound_without_c_fails_it(d, u, c, ulp):
    data = {"a": TILE_A, "b": TILE_B, "c": np.array([[[c]]])}
    entry = _tile(d)
    r = kinds.TILE.reference(entry, data)
    d_one_ulp = r + ulp
    assert check.judge(kinds.TILE, entry, d_one_ulp, r, kinds.TILE.bound(entry, data))["ok"]
    no_c = float(Fraction(14) * Fraction(u) / (1 - Fraction(14) * Fraction(u)))  # g·|A|@|B| = g·1
    assert not check.judge(kinds.TILE, entry, d_one_ulp, r, np.array([[[no_c]]]))["ok"]


@pytest.mark.parametrize("d, u, c, ulp", TILE_CASES, ids=[c[0] for c in TILE_CASES])
def test_tile_an_error_just_above_the_bound_is_caught(d, u, c, ulp):
    data = {"a": TILE_A, "b": TILE_B, "c": np.array([[[c]]])}
    entry = _tile(d)
    r = kinds.TILE.reference(entry, data)
    allowed = kinds.TILE.bound(entry, data)
    assert check.judge(kinds.TILE, entry, r - 7 * ulp, r, allowed)["ok"]
    caught = check.judge(kinds.TILE, entry, r - 8 * ulp, r, allowed)
    assert not caught["ok"] and caught["outside"] == 1 and caught["worst"] > 1


def test_tile_bound_takes_c_by_magnitude():
    """C = -2^20 (f32): R = -2^20, the bound g·(1 + 2^20) as for +2^20, 7 ulps (7/8) within."""
    data = {"a": TILE_A, "b": TILE_B, "c": np.array([[[-(2.0**20)]]])}
    entry = _tile("f32")
    r = kinds.TILE.reference(entry, data)
    allowed = kinds.TILE.bound(entry, data)
    assert r.tolist() == [[[-(2.0**20)]]] and float(allowed.item()) > 7 / 8
    assert check.judge(kinds.TILE, entry, r + 7 / 8, r, allowed)["ok"]


# ---- the second opinion: a failing ptxas on nvcc's PTX is "not judged" -------------------------

ROW = next(r for r in tiles.dense_rows() if r.name == "mma.m16n8k16.row.col.bf16")
OTHER = next(r for r in tiles.dense_rows() if r.name == "mma.m16n8k8.row.col.bf16")


def _run(tool: str, returncode: int | None, stderr: str = "") -> toolchain.ToolRun:
    return toolchain.ToolRun((tool, "-arch=sm_90"), returncode, "", stderr, 0.5)


def _second(row, ptxas: toolchain.ToolRun | None, nvcc: toolchain.ToolRun | None = None) -> second.Second:
    """One kernel whose llc and nvcc PTX agree (one mma, the ISA's 4/4/2/4 and 4/2/1/4 registers)."""
    mma = second.Mma({row.mnemonic: 1}, (4, 4, 2, 4) if row.shape == "m16n8k16" else (4, 2, 1, 4))
    return second.Second(tiles.Tile(row), nvcc or _run("nvcc", 0), ptxas, mma, mma)


TIMED_OUT = _run("ptxas", None)
KILLED = _run("ptxas", -9)  # SIGKILL
SEGFAULT = _run("ptxas", -11)  # SIGSEGV
REJECTS = _run("ptxas", 255, "ptxas fatal   : Unresolved extern function 'f'")


@pytest.mark.parametrize("ptxas", [TIMED_OUT, KILLED, SEGFAULT], ids=["timeout", "sigkill", "sigsegv"])
def test_ptxas_timing_out_or_killed_on_nvccs_ptx_is_not_judged(ptxas):
    made = [_second(ROW, ptxas)]
    s = made[0]
    assert not s.judged and not s.disagrees and s.problems  # a problem, said, but no verdict
    assert s.record()["judged"] is False and s.record()["agree"] is False
    lines = second.table(made).splitlines()
    assert ROW.name in lines[1] and "not judged: ptxas" in lines[1]
    assert "0 agree with llc, 0 disagree; 1 not judged" in lines[-1] and lines[-1].endswith(ROW.name)
    assert second.exit_status(made) == 125  # nothing judged: cannot judge


@pytest.mark.parametrize("ptxas", [TIMED_OUT, KILLED], ids=["timeout", "sigkill"])
def test_an_unjudged_kernel_beside_an_agreeing_one_is_exit_0(ptxas):
    made = [_second(ROW, ptxas), _second(OTHER, _run("ptxas", 0))]
    assert second.exit_status(made) == 0
    assert "1 agree with llc, 0 disagree; 1 not judged" in second.table(made).splitlines()[-1]


def test_nvcc_timing_out_or_killed_is_not_judged_either():
    for nvcc in (_run("nvcc", None), _run("nvcc", -6)):
        made = [_second(ROW, None, nvcc)]
        assert not made[0].judged and not made[0].disagrees and second.exit_status(made) == 125


def test_a_ptxas_that_rejects_nvccs_ptx_is_a_disagreement():
    """The control: ptxas that answered (exit 255, an error) judged the kernel, and disagrees,
    also beside a kernel that timed out."""
    made = [_second(ROW, REJECTS), _second(OTHER, TIMED_OUT)]
    assert made[0].judged and made[0].disagrees and not made[1].disagrees
    assert second.exit_status(made) == 1
    last = second.table(made).splitlines()[-1]
    assert f"0 agree with llc, 1 disagree: {ROW.name}; 1 not judged" in last and last.endswith(OTHER.name)
