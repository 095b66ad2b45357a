"""NVPTX tiled gemm (harness.kernels.gemm, built and judged by harness.gpu): the `gemm` spec, its rejections with file:line:col, the IR
through the real llc and ptxas with the mma counts the tiling implies, the lit files, the IR's
numerics through an interpreter whose mma follows the PTX ISA tables (so a wrong fragment
layout is caught without a GPU), and, on a machine with CuPy and a CUDA GPU, the real numerics.

Real tools only: tests that need llc with NVPTX or ptxas skip without them, unless $CI is set,
where their absence fails. GPU tests skip without CuPy and a device; on a GPU machine with no LLVM
they read PTX made elsewhere from $NVPTX_GEMM_PTX (and the wrong-layout PTX from
$NVPTX_GEMM_PTX_WRONG).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import unavailable

from harness.checks import gemm_lit
from harness.core.errors import InputError
from harness.gpu import build, check, kinds, manifest
from harness.kernels import gemm, gemm_spec
from harness.kernels.gemm import GemmCase, GemmError, GemmKernel
from harness.specs import matrix
from harness.tools.toolchain import ToolRun

REPO = Path(__file__).resolve().parent.parent
SEED_TILINGS = {
    (16, 8, 16),
    (32, 8, 16),
    (16, 16, 16),
    (16, 8, 32),
    (32, 16, 32),
    (64, 8, 16),
    (16, 8, 8),
    (16, 8, 24),
    (64, 32, 40),
}


def _shipped() -> list[GemmCase]:
    return gemm_spec.load_cases_dir(REPO / "cases")


def _build(tc, out: Path, ptxas: str, plants: tuple[str, ...] = ()) -> list[build.Built]:
    """The shipped gemm kernels built into `out`, with the planted layouts named."""
    kernels, skipped = gemm.planted(_shipped(), [gemm.layout(n) for n in plants])
    what = build.Build("gemm", list(kernels), {n: gemm.layout(n).what for n in plants}, skipped, gemm.MEMORY_TEXT, ptxas)
    return build.build_all(tc, what, out)


@pytest.fixture(scope="module")
def built(nvptx_tc, ptxas_path, tmp_path_factory):
    out = tmp_path_factory.mktemp("gemm-ptx") / "out"
    return out, _build(nvptx_tc, out, ptxas_path)


# ---- the spec --------------------------------------------------------------------------------------


def test_shipped_spec_expands_to_the_seed_matrix():
    cases = _shipped()
    assert len(cases) >= 44 and len({c.name for c in cases}) == len(cases)
    plain = [c for c in cases if not (c.transpose_a or c.transpose_b) and (c.m, c.n, c.k) in SEED_TILINGS]
    modes = {(c.m, c.n, c.k): set() for c in plain}
    for c in plain:
        modes[(c.m, c.n, c.k)].add((c.dtype, c.beta))
    assert set(modes) == SEED_TILINGS
    assert all(m == {("f16", 0), ("f16", 1), ("bf16", 0), ("bf16", 1)} for m in modes.values())
    transposes = {(c.transpose_a, c.transpose_b, c.dtype) for c in cases if (c.m, c.n, c.k) == (32, 16, 24)}
    assert transposes == {(ta, tb, d) for ta in (False, True) for tb in (False, True) for d in ("f16", "bf16")}
    assert {c.cpu for c in cases} == {"sm_90"} and all(c.alpha == 1.0 for c in cases)


def test_a_gemm_only_spec_is_skipped_by_the_matrix_planning(spec_dir):
    d = spec_dir({"g.yaml": "gemm:\n  - shape: 16x8x16\n    dtype: f16\n"})
    assert matrix.plan(matrix.spec_files(d)) == []
    assert [c.name for c in gemm_spec.load_cases_dir(d)] == ["gemm_16x8x16_f16_beta0_nn_sm_90"]
    with pytest.raises(InputError, match="no 'matrix' list"):
        matrix.plan(matrix.spec_files(spec_dir({"n.yaml": "description: nothing\n"})))


def test_lists_expand_as_a_cartesian_product_and_repeats_build_once(tmp_path):
    text = (
        "gemm:\n  - shape: [16x8x16, 32x8x24]\n    dtype: [f16, bf16]\n    transpose_b: [false, true]\n"
        "  - shape: 16x8x16\n    dtype: f16\n"
    )
    p = tmp_path / "g.yaml"
    p.write_text(text)
    cases = gemm_spec.load_gemm([p])
    assert len(cases) == 8
    assert cases[0] == GemmCase(16, 8, 16, "f16")


REJECTIONS = [  # (a line of the second block, the text its error points at, the reason)
    ("alpha: 2.0", "2.0", "rejects alpha = 2.0: mma.sync computes D = A·B + C with no scaling, so alpha must be 1"),
    ("beta: 0.5", "0.5", "rejects beta = 0.5: beta must be 0 (D starts at zero) or 1 (D starts from C)"),
    ("beta: [0, 2]", "2]", "rejects beta = 2"),
    ("dtype: tf32", "tf32", "rejects dtype 'tf32': only f16 and bf16 inputs with f32 accumulate"),
    ("dtype: [f16, int8]", "int8", "rejects dtype 'int8'"),
    ("shape: 24x8x16", "24x8x16", "rejects M = 24: not a multiple of 16"),
    ("shape: [16x8x16, 16x12x16]", "16x12x16", "rejects N = 12: not a multiple of 8"),
    ("shape: 16x8x12", "16x8x12", "rejects K = 12: not a multiple of 8"),
    ("shape: 16x8", "16x8", "shape must be MxNxK"),
    ("cpu: sm_75", "sm_75", "needs an NVPTX CPU sm_80 or later"),
    ("transpose_a: maybe", "maybe", "transpose_a must be true or false"),
    ("layout: col", "layout", "unknown key 'layout' in a gemm block"),
]


@pytest.mark.parametrize("line, at, message", REJECTIONS, ids=[r[0] for r in REJECTIONS])
def test_rejections_name_the_reason_at_file_line_col(tmp_path, line, at, message):
    fields = {"shape": "shape: 32x8x16", "dtype": "dtype: bf16", line.split(":")[0]: line}
    first, *rest = fields.values()
    lines = ["description: x", "gemm:", "  - shape: 16x8x16", "    dtype: f16", f"  - {first}", *(f"    {f}" for f in rest)]
    p = tmp_path / "bad.yaml"
    p.write_text("\n".join(lines) + "\n")
    row = next(i for i, text in enumerate(lines, 1) if i > 4 and text.endswith(line))
    col = lines[row - 1].index(at, lines[row - 1].index(":") if at != "layout" else 0) + 1
    with pytest.raises(InputError) as info:
        gemm_spec.load_gemm([p])
    text = str(info.value)
    assert text.startswith(f"{p}:{row}:{col}: error: ") and "\n" not in text, text
    assert message in text


def test_a_block_without_dtype_and_an_empty_section_are_located(tmp_path):
    p = tmp_path / "g.yaml"
    p.write_text("gemm:\n  - shape: 16x8x16\n")
    with pytest.raises(InputError, match=re.escape(f"{p}:2:5: error: gemm block has no 'dtype'")):
        gemm_spec.load_gemm([p])
    p.write_text("gemm: []\n")
    with pytest.raises(InputError, match=re.escape(f"{p}:1:7: error: gemm must be a non-empty list")):
        gemm_spec.load_gemm([p])


def test_the_case_model_rejects_what_the_lowering_rejects():
    for kwargs, field in (
        ({"alpha": 2}, "alpha"),
        ({"beta": 0.5}, "beta"),
        ({"beta": True}, "beta"),
        ({"dtype": "f32"}, "dtype"),
        ({"m": 8}, "m"),
        ({"n": 4}, "n"),
        ({"k": 4}, "k"),
    ):
        args = {"m": 16, "n": 8, "k": 16, "dtype": "f16", **kwargs}
        with pytest.raises(GemmError) as info:
            GemmCase(**args)
        assert info.value.field == field
    assert GemmCase(16, 8, 16, "f16", beta=1.0, alpha=1).beta == 1


# ---- the K split and the counts --------------------------------------------------------------------


@pytest.mark.parametrize(
    "k, shapes",
    [
        (8, ["m16n8k8"]),
        (16, ["m16n8k16"]),
        (24, ["m16n8k16", "m16n8k8"]),
        (32, ["m16n8k16"] * 2),
        (40, ["m16n8k16", "m16n8k16", "m16n8k8"]),
    ],
)
def test_k_is_split_into_k16_steps_then_one_k8(k, shapes):
    case = GemmCase(32, 16, k, "bf16")
    assert [inst.shape for _, inst in case.k_steps] == shapes
    assert [k0 for k0, _ in case.k_steps] == [16 * i for i in range(len(shapes))]
    counts = case.mma_counts()
    assert counts["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"] == 2 * 2 * shapes.count("m16n8k16")
    assert counts["mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"] == 2 * 2 * shapes.count("m16n8k8")


def test_every_shipped_kernel_compiles_and_ptxas_accepts_it(built):
    out, kernels = built
    assert len(kernels) >= 44
    for b in kernels:
        c = b.kernel.case
        assert b.problems == [], (c.name, b.problems)
        assert build.run_verdict(b.ptxas) == "pass"
        text = (out / b.ptx_file).read_text()
        assert f".visible .entry {c.name}(" in text
        steps16, steps8 = c.k // 16, (c.k % 16) // 8
        tiles = (c.m // 16) * (c.n // 8)
        found = build.count_mma(text)
        want = {
            f"mma.sync.aligned.m16n8k{k}.row.col.f32.{c.dtype}.{c.dtype}.f32": tiles * s
            for k, s in ((16, steps16), (8, steps8))
            if s
        }
        assert found == want, c.name
    doc = json.loads((out / manifest.MANIFEST).read_text())
    assert doc["format"] == manifest.FORMAT and doc["kind"] == "gemm"
    assert [e["kernel"] for e in doc["kernels"]] == [b.kernel.case.name for b in kernels]
    assert all((out / e["ptx"]).is_file() and e["ptxas"] == "pass" for e in doc["kernels"])


def test_k24_gives_one_k16_and_one_k8_per_tile(built):
    _, kernels = built
    for b in kernels:
        if b.kernel.case.k == 24:
            tiles = b.kernel.case.tiles
            d = b.kernel.case.dtype
            assert b.found == {
                f"mma.sync.aligned.m16n8k16.row.col.f32.{d}.{d}.f32": tiles,
                f"mma.sync.aligned.m16n8k8.row.col.f32.{d}.{d}.f32": tiles,
            }


def test_ptxas_rejects_a_kernel_for_the_wrong_architecture(built, ptxas_path):
    """The closing step can fail: PTX for sm_90 does not assemble for sm_80."""
    out, kernels = built
    run = subprocess.run(
        [ptxas_path, "-arch=sm_80", "-o", "/dev/null", str(out / kernels[0].ptx_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0 and "SM version" in run.stderr + run.stdout


# ---- lit files -----------------------------------------------------------------------------------

LIT_CFG = """\
import os, lit.formats
config.name = "gemm"
config.suffixes = [".ll"]
config.test_format = lit.formats.ShTest(execute_external=False)
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(__file__), "out")
for name, path in {subs!r}.items():
    config.substitutions.append((r"(?<![\\w.%/-])" + name + r"(?![\\w.-])", path))
config.available_features.update({features!r})
"""


def test_lit_files_pass_on_the_real_tools_and_fail_when_a_count_is_wrong(nvptx_tc, ptxas_path, tmp_path):
    files = gemm_lit.gemm_lit_files(REPO / "cases")
    assert len(files) >= 44 and all(n.startswith(gemm_lit.PREFIX) and n.endswith(".ll") for n in files)
    text = files["nvptx.gemm_16x8x24_bf16_beta1_nn_sm_90.ll"]
    assert "; REQUIRES: nvptx-registered-target, cpu-sm_90, nvptx-ptx-kernel\n" in text
    assert "; RUN: llc -O2 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 -o %t.ptx < %s\n" in text
    assert "; RUN: %if ptxas %{ ptxas -arch=sm_90 -o /dev/null %t.ptx %}\n" in text
    assert "; K16-COUNT-1: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32{{$}}" in text
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    wrong = tmp_path / "nvptx.gemm_16x8x24_bf16_beta1_nn_sm_90.ll"
    wrong.write_text(text.replace("K8-COUNT-1:", "K8-COUNT-2:"))
    # The closing RUN line runs and can fail: the same PTX assembled for an older architecture.
    closing = tmp_path / "nvptx.gemm_16x8x16_f16_beta0_nn_sm_90.ll"
    closing.write_text(closing.read_text().replace("ptxas -arch=sm_90", "ptxas -arch=sm_80"))
    filecheck = nvptx_tc.tool("FileCheck") or str(Path(sys.executable).parent / "filecheck")
    subs = {"llc": nvptx_tc.tool("llc"), "FileCheck": filecheck, "ptxas": ptxas_path}
    (tmp_path / "lit.cfg.py").write_text(
        LIT_CFG.format(subs=subs, features=["nvptx-registered-target", "cpu-sm_90", "nvptx-ptx-kernel", "ptxas"])
    )
    lit = shutil.which("lit", path=str(Path(sys.executable).parent)) or shutil.which("lit")
    if not lit:
        unavailable("no lit")
    proc = subprocess.run([lit, "-v", str(tmp_path)], capture_output=True, text=True, timeout=600, check=False)
    failed = re.findall(r"^FAIL: gemm :: (\S+)", proc.stdout, re.MULTILINE)
    assert sorted(failed) == sorted([wrong.name, closing.name]), proc.stdout[-3000:]
    assert len(re.findall(r"^PASS: ", proc.stdout, re.MULTILINE)) == len(files) - 2
    assert "SM version specified by .target is higher" in proc.stdout


# ---- numerics through an IR interpreter ---------------------------------------------------------


def _ptx_isa_tile(inst_k: int) -> tuple[dict, dict]:
    """Per the PTX ISA's m16n8k16/m16n8k8 tables (not harness.kernels.gemm's Layout): where each lane's
    A and B register halves sit in the tile. Returns {(row, col): (lane, reg, half)} for A and B."""
    a, b = {}, {}
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(inst_k // 2):  # a0..a7 (k16) or a0..a3 (k8)
            row = g + 8 * ((i // 2) % 2)
            col = 2 * t + (i % 2) + 8 * (i // 4)
            a[row, col] = (lane, i // 2, i % 2)
        for i in range(inst_k // 4):  # b0..b3 (k16) or b0, b1 (k8)
            b[2 * t + (i % 2) + 8 * (i // 2), g] = (lane, i // 2, i % 2)
    return a, b


def _accumulator_slot(i: int, g: int, t: int) -> tuple[int, int]:
    return g + 8 * (i // 2), 2 * t + (i % 2)


_OPERAND = re.compile(r"(?:<2 x \w+>|i32|float) (%[\w.]+|[-\d.e+]+)")


def interpret(ir: str, memory: dict[str, list]) -> None:
    """Run a kernel of kernel_ir's shape for all 32 lanes in lock-step; the mma is the PTX ISA's."""
    env: dict[str, list] = {}

    def val(tok: str) -> list:
        return env[tok] if tok.startswith("%") else [float(tok) if "." in tok else int(tok)] * 32

    for line in ir.split("entry:\n", 1)[1].split("\n  ret void", 1)[0].splitlines():
        line = line.strip()
        dst, _, rhs = line.partition(" = ")
        op = rhs.split(" ", 1)[0]
        if line.startswith("store "):
            m = re.fullmatch(r"store float (%[\w.]+), ptr addrspace\(1\) (%[\w.]+)", line)
            for lane in range(32):
                buf, idx = env[m.group(2)][lane]
                memory[buf][idx] = env[m.group(1)][lane]
        elif "sreg.laneid" in rhs:
            env[dst] = list(range(32))
        elif op in ("lshr", "and", "shl", "mul", "add"):
            x, y = re.fullmatch(r"\w+ i32 ([%\w.]+), ([%\w.-]+)", rhs).groups()
            f = {
                "lshr": lambda p, q: p >> q,
                "and": lambda p, q: p & q,
                "shl": lambda p, q: p << q,
                "mul": lambda p, q: p * q,
                "add": lambda p, q: p + q,
            }[op]
            env[dst] = [f(p, q) for p, q in zip(val(x), val(y))]
        elif op == "getelementptr":
            buf, idx = re.search(r"%(\w) *, i32 (%[\w.]+)$", rhs.replace("ptr addrspace(1) ", "")).groups()
            env[dst] = [(buf, i) for i in env[idx]]
        elif op == "load":
            ptr = rhs.rsplit(" ", 1)[1]
            env[dst] = [memory[buf][i] for buf, i in env[ptr]]
        elif op == "insertelement":
            m = re.fullmatch(r"insertelement <2 x \w+> (\S+), \w+ (%[\w.]+), i32 (\d)", rhs)
            old = [(None, None)] * 32 if m.group(1) == "poison" else env[m.group(1)]
            pos = int(m.group(3))
            env[dst] = [tuple(v if j == pos else o[j] for j in range(2)) for o, v in zip(old, env[m.group(2)])]
        elif op == "bitcast":
            env[dst] = env[re.search(r"(%[\w.]+) to i32", rhs).group(1)]
        elif op == "extractvalue":
            src, i = re.search(r"(%[\w.]+), (\d)$", rhs).groups()
            env[dst] = [v[int(i)] for v in env[src]]
        elif op == "call":
            k = int(re.search(r"m16n8k(\d+)", rhs).group(1))
            ops = [val(tok) for tok in _OPERAND.findall(rhs.split("(", 1)[1])]
            na, nb = (4, 2) if k == 16 else (2, 1)
            a_regs, b_regs, acc = ops[:na], ops[na : na + nb], ops[na + nb :]
            a_at, b_at = _ptx_isa_tile(k)
            A = [[a_regs[r][lane][h] for c in range(k) for lane, r, h in [a_at[row, c]]] for row in range(16)]
            B = [[b_regs[r][lane][h] for c in range(8) for lane, r, h in [b_at[kk, c]]] for kk in range(k)]
            out = [[None] * 32 for _ in range(4)]
            for lane in range(32):
                for i in range(4):
                    row, col = _accumulator_slot(i, lane >> 2, lane & 3)
                    out[i][lane] = acc[i][lane] + sum(A[row][kk] * B[kk][col] for kk in range(k))
            env[dst] = [tuple(out[i][lane] for i in range(4)) for lane in range(32)]
        else:
            raise AssertionError(f"the interpreter does not know: {line}")


def _emulate(case: GemmCase, layout=gemm.PTX, seed: int = 1) -> tuple[list, list]:
    """(D the kernel computes, exact A@B + beta·C) on small integers (exact in float)."""
    rng = random.Random(seed)
    a = [[rng.randint(-3, 3) for _ in range(case.k)] for _ in range(case.m)]
    b = [[rng.randint(-3, 3) for _ in range(case.n)] for _ in range(case.k)]
    c = [[rng.randint(-3, 3) for _ in range(case.n)] for _ in range(case.m)]
    flat = lambda rows: [x for row in rows for x in row]
    stored_a = flat(zip(*a)) if case.transpose_a else flat(a)  # [K, M] or [M, K], row-major
    stored_b = flat(zip(*b)) if case.transpose_b else flat(b)
    memory = {"A": stored_a, "B": stored_b, "C": flat(c), "D": [None] * (case.m * case.n)}
    interpret(gemm.kernel_ir(case, layout), memory)
    want = [sum(a[i][kk] * b[kk][j] for kk in range(case.k)) + case.beta * c[i][j] for i in range(case.m) for j in range(case.n)]
    return memory["D"], want


@pytest.mark.parametrize("case", _shipped(), ids=lambda c: c.name)
def test_every_shipped_kernel_computes_the_product_in_the_ptx_isa_fragments(case):
    d, want = _emulate(case)
    assert d == want


@pytest.mark.parametrize("layout", [n for n in gemm.LAYOUTS if n != "ptx"])
def test_a_wrong_fragment_layout_computes_something_else(layout):
    case = GemmCase(32, 16, 24, "f16", beta=1, transpose_a=True)
    d, want = _emulate(case, gemm.layout(layout))
    wrong = sum(1 for x, y in zip(d, want) if x != y)
    assert wrong > len(want) // 4, f"{layout}: only {wrong} of {len(want)} elements differ"


# ---- the GPU check without a GPU -------------------------------------------------------------------


def _gpu_check(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness.gpu.check", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
        check=False,
    )


def test_gpu_check_bad_input_is_one_line_and_exit_2(tmp_path):
    proc = _gpu_check(str(tmp_path / "nowhere"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "cannot read the manifest" in proc.stderr
    (tmp_path / "manifest.json").write_text("{not json")
    proc = _gpu_check(str(tmp_path))
    assert proc.returncode == 2 and "manifest.json:1:2: not JSON" in proc.stderr


def test_gpu_check_without_a_gpu_says_so_and_exits_125(tmp_path):
    entry = GemmKernel(GemmCase(16, 8, 16, "f16")).entry(1) | {"kernel": "k", "ptx": "k.ptx"}
    (tmp_path / "k.ptx").write_text("// empty\n")
    (tmp_path / "manifest.json").write_text(json.dumps({"format": manifest.FORMAT, "kind": "gemm", "kernels": [entry]}))
    # A Python that cannot import CuPy: the harness's own venv has none; elsewhere hide it.
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "nocupy")}
    (tmp_path / "nocupy").mkdir()
    (tmp_path / "nocupy" / "cupy.py").write_text("raise ImportError('hidden by the test')\n")
    proc = _gpu_check(str(tmp_path), "--json", env=env)
    assert proc.returncode == 125, proc.stderr
    assert "cannot judge on this machine" in proc.stderr
    assert "numpy is not installed" in proc.stderr or "CuPy is not installed" in proc.stderr
    doc = json.loads(proc.stdout)  # --json readers get a document on 125 too
    assert doc["kernels"] == [] and "is not installed" in doc["cannot_judge"]


def test_gpu_check_imports_neither_yaml_nor_llvm_parts_of_the_harness():
    code = "import sys; import harness.gpu.check; print(sorted(m for m in sys.modules if m == 'yaml' or m.startswith('harness')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "['harness', 'harness.gpu', 'harness.gpu.check', 'harness.gpu.kinds', 'harness.gpu.manifest']"


def test_bf16_rounding_and_the_tolerance_catch_a_row_swap():
    np = pytest.importorskip("numpy")
    x = np.array([1.0, 1.00390625, 1.005859375, 1.01171875, -2.5], dtype=np.float32)  # ties go to even
    assert kinds.bf16_value(kinds.bf16_bits(x)).tolist() == [1.0, 1.0, 1.0078125, 1.015625, -2.5]
    entry = {"m": 16, "n": 8, "k": 24, "dtype": "bf16", "beta": 1, "seed": 5, "transpose_a": False, "transpose_b": False}
    data = kinds.GEMM.inputs(entry)
    r, allowed = kinds.GEMM.reference(entry, data), kinds.GEMM.bound(entry, data)
    exact = data["a"].astype(np.float64) @ data["b"].astype(np.float64) + data["c"]
    assert check.judge(kinds.GEMM, entry, exact.astype(np.float32), r, allowed)["ok"]
    swapped = np.concatenate([data["a"][8:], data["a"][:8]])
    wrong = (swapped @ data["b"] + data["c"]).astype(np.float32)
    verdict = check.judge(kinds.GEMM, entry, wrong, r, allowed)
    assert not verdict["ok"] and verdict["worst"] > 1e3 and verdict["outside"] > 0


# ---- on a GPU ------------------------------------------------------------------------------------


def _gpu_reason() -> str:
    try:
        check.device()
    except check.CannotJudge as exc:
        return f"needs a CUDA GPU with numpy and CuPy: {exc}"
    return ""


_NO_GPU = _gpu_reason()
requires_gpu = pytest.mark.skipif(bool(_NO_GPU), reason=_NO_GPU or "a GPU is present")


def _ptx_dir(env: str, layout: str, tmp_path_factory) -> Path:
    """PTX made elsewhere ($env), or made here now with llc and ptxas."""
    if os.environ.get(env):
        return Path(os.environ[env])
    from harness.tools import toolchain

    try:
        tc = toolchain.discover()
    except InputError as exc:
        pytest.skip(f"no ${env} and no LLVM to make the PTX: {exc}")
    why = build.check_build(tc, [GemmKernel(c) for c in _shipped()])
    if why:
        pytest.skip(f"no ${env} and {why}")
    out = tmp_path_factory.mktemp(layout) / "out"
    _build(tc, out, toolchain.find_ptxas(), () if layout == "ptx" else (layout,))
    return out


@requires_gpu
def test_gpu_every_shipped_kernel_is_within_tolerance(tmp_path_factory):
    report = check.check_all(_ptx_dir("NVPTX_GEMM_PTX", "ptx", tmp_path_factory))
    assert report["kind"] == "gemm" and len(report["kernels"]) >= 44
    bad = [(r["kernel"], r.get("worst"), r.get("why")) for r in report["kernels"] if r["verdict"] != "pass"]
    assert bad == []
    assert check.exit_status(report) == 0


@requires_gpu
def test_gpu_a_wrong_fragment_layout_fails(tmp_path_factory):
    report = check.check_all(_ptx_dir("NVPTX_GEMM_PTX_WRONG", "a-rows-swapped", tmp_path_factory))
    assert {r["plant"] for r in report["kernels"]} == {"a-rows-swapped"}
    assert all(r["verdict"] == "fail" for r in report["kernels"]), [
        r["kernel"] for r in report["kernels"] if r["verdict"] != "fail"
    ]
    assert report["summary"]["planted"] == {"run": len(report["kernels"]), "caught": len(report["kernels"])}
    assert check.exit_status(report) == 1


def test_a_kernel_too_large_to_unroll_is_a_located_error(tmp_path, cli):
    (tmp_path / "g.yaml").write_text("gemm:\n  - shape: 2048x2048x2048\n    dtype: f16\n")
    proc = cli("gpu", "build", "--kind", "gemm", "--out", tmp_path / "out", "--cases", tmp_path, "--no-ptxas")
    assert proc.returncode == 2 and f"{tmp_path / 'g.yaml'}:2:12: error: gemm 2048x2048x2048 unrolls to 4194304" in proc.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_run_checks_the_gemm_sections_of_the_specs_it_reads(tmp_path, cli):
    (tmp_path / "g.yaml").write_text(
        'matrix:\n  - intrinsic: "mma.*"\n    cpu: sm_90\ngemm:\n  - shape: 16x8x16\n    dtype: f16\n    beta: 2\n'
    )
    proc = cli("run", "--cases", tmp_path)
    assert proc.returncode == 2 and f"{tmp_path / 'g.yaml'}:7:11: error: gemm mma.m16n8k* rejects beta = 2" in proc.stderr


def test_without_ptxas_a_kernel_is_never_called_a_plain_pass(tmp_path, cli, nvptx_tc):
    args = ("--out", tmp_path / "out", "--filter", "gemm_16x8x16_f16_beta0_nn_sm_90", "--no-ptxas")
    proc = cli("gpu", "build", "--kind", "gemm", *args)
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    assert rows[1].split()[-8:] == ["skipped", "pass", "(PTX", "not", "assembled:", "mma", "counts", "only)"]
    assert rows[2] == "1 kernels (0 PTX only): 1 pass, 0 fail; 1 not assembled (--no-ptxas)"
    alias = cli("gemm-ptx", *args[:1], tmp_path / "alias", *args[2:])  # the old name, for one release
    assert alias.returncode == 0 and alias.stdout.splitlines()[1:3] == rows[1:3], alias.stderr


def test_the_gpu_check_table_lines_its_columns_up_and_sums_up():
    """`check.table` on a report of the shape `check_all` returns (no GPU needed to print one)."""
    report = {
        "gpu": {"name": "NVIDIA H200", "cc": [9, 0], "cupy": "13.6.0", "driver": "13000", "runtime": "13000"},
        "kind": "gemm",
        "bounds": {"gemm": "K * 2^-10"},
        "kernels": [
            {"variant": "gemm_16x8x16_f16", "plant": None, "bound": "b", "max_abs": 0.001, "worst": 0.5, "outside": 0}
            | {"ok": True, "verdict": "pass"},
            {
                "variant": "gemm_a_much_longer_kernel_name",
                "plant": None,
                "bound": "b",
                "verdict": "not-run",
                "why": "needs sm_90a",
            },
            {"variant": "gemm_16x8x16_f16", "plant": "a-rows-swapped", "bound": "b", "max_abs": 3.0, "worst": 900.0}
            | {"outside": 96, "ok": False, "verdict": "fail"},
        ],
        "summary": {"pass": 1, "fail": 1, "ptx-only": 0, "not-run": 1, "planted": {"run": 1, "caught": 1}}
        | {"worst": {"variant": "gemm_16x8x16_f16", "plant": "a-rows-swapped", "worst": 900.0}},
    }
    lines = check.table(report).splitlines()
    assert lines[0].startswith("GPU: NVIDIA H200 (compute capability 9.0, CuPy 13.6.0") and lines[1] == "bound gemm: K * 2^-10"
    head, passed, not_run, failed = lines[2:6]
    assert len({head.index("within bound"), passed.index("yes"), not_run.index("-  "), failed.index("no ")}) == 1
    assert len({head.index("note"), not_run.index("needs sm_90a"), failed.index("96 outside")}) == 1
    assert passed.split() == ["gemm_16x8x16_f16", "b", "yes", "0.5"]
    assert failed.split()[:2] == ["gemm_16x8x16_f16", "[a-rows-swapped]"]
    assert lines[6:] == [
        "3 kernels: 1 within bound, 1 not, 0 PTX only, 1 not run; planted faults caught: 1 of 1; "
        "worst gemm_16x8x16_f16 [a-rows-swapped] at 900 of its bound"
    ]


# ---- a ptxas that crashes or hangs; a kernel never assembled ---------------------------------


@pytest.mark.parametrize("kind, words", [("segv", "ptxas crashed: killed by signal 11"), ("hang", "ptxas timed out")])
def test_a_ptxas_crash_or_timeout_is_named_and_not_judged(cli, nvptx_tc, bad_ptxas, tmp_path, kind, words):
    """ptxas dying says nothing of llc's PTX: the kernel is not judged, never a failure (as gpu
    compare counts nvcc dying), and with no kernel judged the build cannot judge (125)."""
    proc = cli(
        "gpu", "build", "--kind", "gemm", "--out", tmp_path / "out", "--filter", "gemm_16x8x16_f16_beta0_nn_sm_90",
        "--ptxas", bad_ptxas[kind], "--timeout", "8",
    )  # fmt: skip
    assert proc.returncode == 125, proc.stdout + proc.stderr
    assert f"not judged: {words}" in proc.stdout and "rejects" not in proc.stdout, proc.stdout
    assert proc.stdout.splitlines()[-2].endswith("0 pass, 0 fail; 1 not judged (ptxas timed out or crashed)")
    assert "ptxas timed out or crashed on every kernel" in proc.stderr


def test_the_build_table_says_not_assembled_only_of_a_kernel_llc_compiled():
    kernel = GemmKernel(gemm_spec.load_cases_dir(REPO / "cases")[0])
    what = build.Build("gemm", [kernel], {}, [], gemm.MEMORY_TEXT, "")
    timed_out = build.Built(kernel, "", {}, ToolRun(("llc",), None, "", "", 2.0), None)
    text = build.table([timed_out], what)
    assert "llc timed out" in text and "not assembled" not in text and "0 pass, 1 fail" in text
    compiled = build.Built(kernel, "k.ptx", kernel.expected_mma(), ToolRun(("llc",), 0, "", "", 0.1), None)
    assert "1 pass, 0 fail; 1 not assembled (--no-ptxas)" in build.table([compiled], what)
    assert build.exit_status([timed_out]) == 1 and build.exit_status([compiled]) == 0
