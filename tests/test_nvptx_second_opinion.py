"""NVIDIA's compiler as a second opinion on the tile kernels (harness.kernels.cuda, harness.gpu.second
and check; `harness gpu compare`).

Without a GPU: every sm_90 tile written as CUDA C, compiled by the real nvcc and closed by ptxas,
its mma count and register groups equal to llc 22's; a planted disagreement on either side (a
register dropped from llc's PTX, a CUDA kernel with a register fewer) is exit 1 naming the
variant; no nvcc is "cannot judge" (125), an nvcc that times out or crashes on a kernel leaves it
not judged (never a disagreement; 125 when nothing was judged), a bad manifest or output directory exit 2 in one line;
the GPU side's byte comparison on arrays made here, and its "cannot judge" without CuPy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import gpu_cli
from harness import parser as harness_parser
from harness.gpu import build, check, kinds, manifest, second
from harness.kernels import cuda, fragments, tiles
from harness.kernels.kernel import RUN_SM
from harness.tools import toolchain

np = pytest.importorskip("numpy")

REPO = Path(__file__).resolve().parent.parent
ON_SM90 = [r for r in tiles.dense_rows() if r.runs_on(RUN_SM)]
F32 = "mma.m16n8k16.row.col.f32.f32"  # the variant the planted disagreements use


@pytest.fixture(scope="module")
def nvcc_path() -> str:
    path = toolchain.find_nvcc()
    if not path:
        pytest.skip("no nvcc ($NVCC, PATH, $CUDA_HOME/bin or /usr/local/cuda/bin): NVIDIA's side cannot be compiled")
    return path


@pytest.fixture(scope="module")
def llc_dir(nvptx_tc, ptxas_path, tmp_path_factory) -> Path:
    """`harness gpu build --kind tile`'s output for the sm_90 tiles, through llc 22 and ptxas."""
    if not nvptx_tc.version.startswith("22."):
        pytest.skip(f"the rows are LLVM 22's intrinsics; this build is {nvptx_tc.version}")
    out = tmp_path_factory.mktemp("second") / "tiles"
    chosen = [t for t in tiles.select([], [])[0] if not t.ptx_only]
    built = build.build_all(nvptx_tc, build.Build("tile", chosen, {}, [], tiles.MEMORY_TEXT, ptxas_path), out)
    assert [b.problems for b in built if b.problems] == []
    return out


@pytest.fixture(scope="module")
def compared(llc_dir, nvcc_path, ptxas_path) -> list[second.Second]:
    doc = second.load(llc_dir)
    chosen = second.select(doc, llc_dir / manifest.MANIFEST, [])
    tools = second.Tools(nvcc_path, second.nvcc_version(nvcc_path), ptxas_path, 120)
    return second.build_all(llc_dir, chosen, tools)


def _args(*words) -> object:
    return harness_parser.build().parse_args(["gpu", "compare", *map(str, words)])


def _copy(llc_dir: Path, tmp_path: Path) -> Path:
    """A private copy of llc's side (without NVIDIA's), safe to edit."""
    out = tmp_path / "tiles"
    shutil.copytree(llc_dir, out, ignore=shutil.ignore_patterns(manifest.NVIDIA))
    return out


# ---- every sm_90 variant through nvcc ---------------------------------------------------------------


def test_every_sm90_variant_compiles_with_nvcc_and_agrees_with_llc(compared, llc_dir):
    assert len(compared) == len(ON_SM90) == 94
    assert [(s.tile.label, s.problems) for s in compared if s.problems] == []
    assert not [s.tile.label for s in compared if s.alone]  # each one's PTX is its part of its unit's
    for s in compared:
        assert s.nvcc.ok and s.ptxas is not None and s.ptxas.ok, s.tile.label
        assert s.llc.found == s.nvidia.found == {s.tile.row.mnemonic: 1}
        assert s.llc.groups == s.nvidia.groups == s.tile.row.regs, s.tile.label  # D, A, B, C
    text = second.table(compared)
    assert text.splitlines()[-1] == "94 kernels: 94 compiled by nvcc (94 for sm_90, 0 PTX only), 94 agree with llc, 0 disagree"
    nvidia = llc_dir / manifest.NVIDIA
    assert len(manifest.load_nvidia(llc_dir)[1]) == 94  # what gpu compare writes is what the GPU side reads
    assert sorted(p.name for p in nvidia.iterdir()) == sorted(
        [manifest.MANIFEST, *(f"{s.tile.name}.{x}" for s in compared for x in ("cu", "ptx"))]
    )
    assert not [p for p in llc_dir.iterdir() if p.name.startswith(".")]  # no staging left behind


def _ir_table(ir: str, op: str) -> list[int]:
    m = re.search(rf"^@{op}_idx = internal addrspace\(4\) constant \[\d+ x i32\] \[(.*)\]$", ir, re.M)
    assert m, op
    return [int(x.removeprefix("i32 ")) for x in m.group(1).split(", ")]


@pytest.mark.parametrize("plant", [None, "a-rows-swapped", "d-lanes-reversed"])
def test_the_cuda_kernel_reads_and_writes_the_llc_kernels_slots(plant):
    for row in ON_SM90:
        tile = tiles.Tile(row, fragments.PLANTS[plant] if plant else None)
        if plant and fragments.noop_reason(row, tile.plant):
            continue
        ir, cu = tiles.kernel_ir(tile), cuda.cuda_source(tile)
        for op in "abcd":
            cells = cuda.slots(tile, op)
            assert cells == _ir_table(ir, op), (row.name, op)
            assert f"__constant__ int {tile.name}_{op}_idx[{len(cells)}] = {{{', '.join(map(str, cells))}}};" in cu
        assert f'extern "C" __global__ void {tile.name}(' in cu and f'asm volatile("{row.mnemonic} {{%0' in cu


def test_the_cuda_kernel_packs_registers_as_the_llc_kernel_does():
    rows = {r.name: r for r in ON_SM90}
    cu = cuda.cuda_source(tiles.Tile(rows["mma.m16n8k16.row.col.f16.f16"]))
    assert "unsigned a0 = (unsigned)A[ai[0]] | ((unsigned)A[ai[1]] << 16);" in cu
    assert "D[di[1]] = (unsigned short)(d0 >> 16);" in cu and '"=r"(d0), "=r"(d1)' in cu
    cu = cuda.cuda_source(tiles.Tile(rows["mma.xor.popc.m16n8k128.row.col.b1"]))
    assert "(((unsigned)A[ai[31]] & 1u) << 31);" in cu  # thirty two .b1 a register, element 0 low
    cu = cuda.cuda_source(tiles.Tile(rows["mma.m16n8k16.row.col.f64"]))
    assert "double a7 = A[ai[7]];" in cu and '"=d"(d3)' in cu and '"d"(c3)' in cu


# ---- planted disagreements -------------------------------------------------------------------------


def test_a_register_dropped_from_llcs_ptx_is_caught_with_exit_1(cli, compared, llc_dir, tmp_path):
    out = _copy(llc_dir, tmp_path)
    kernel = out / (tiles.Tile(next(r for r in ON_SM90 if r.name == F32)).name + ".ptx")
    text = kernel.read_text()
    group = re.search(r"mma\.sync\.aligned\.\S+\s+\{[^}]*\},\s+(\{[^}]*\})", text)
    assert group and group.group(1).count(",") == 3  # A: four registers
    kernel.write_text(text.replace(group.group(1), group.group(1).rsplit(",", 1)[0] + "}", 1))
    proc = cli("gpu", "compare", out, "--filter", F32, "--filter", "mma.m16n8k8.row.col.f16.f16")
    assert proc.returncode == 1, proc.stderr
    assert f"{F32}  sm_90  1/1           4/3/2/4      4/4/2/4" in proc.stdout
    assert "registers per group D/A/B/C: llc 4/3/2/4, nvcc 4/4/2/4" in proc.stdout
    assert proc.stdout.splitlines()[-2].endswith(f"1 agree with llc, 1 disagree: {F32}")
    doc = json.loads((out / manifest.NVIDIA / manifest.MANIFEST).read_text())
    assert [t["agree"] for t in doc["kernels"]] == [False, True]


def test_a_cuda_kernel_with_a_register_fewer_is_caught_with_exit_1(compared, llc_dir, tmp_path, monkeypatch, capsys):
    out = _copy(llc_dir, tmp_path)
    real = cuda.registers
    monkeypatch.setattr(cuda, "registers", lambda row, op: real(row, op) - (op == "b" and row.name == F32))
    other = "mma.m16n8k8.row.col.f16.f16"  # in the same translation unit: nvcc rejects the unit
    assert gpu_cli.main_gpu(_args(out, "--filter", F32, "--filter", other)) == 1
    printed = capsys.readouterr().out
    # nvcc -ptx has ptxas look at the inline PTX: B's group of one register is not the ISA's two
    assert "nvcc rejects it:" in printed and "Argument vector size mismatch for instruction 'mma'" in printed
    assert f"{F32}  sm_90  1/0           4/4/2/4      -" in printed
    summary = "2 kernels: 1 compiled by nvcc (1 for sm_90, 0 PTX only), 1 agree with llc, 1 disagree"
    assert printed.splitlines()[-2] == f"{summary}: {F32}"
    doc = json.loads((out / manifest.NVIDIA / manifest.MANIFEST).read_text())
    assert [(t["variant"], t["compiled"], t["agree"]) for t in doc["kernels"]] == [(F32, "alone", False), (other, "alone", True)]


def test_an_mma_missing_from_llcs_ptx_is_caught(compared, llc_dir, tmp_path, capsys):
    out = _copy(llc_dir, tmp_path)
    kernel = out / (tiles.Tile(next(r for r in ON_SM90 if r.name == F32)).name + ".ptx")
    kernel.write_text(kernel.read_text().replace("mma.sync.aligned.", "// mma.sync.aligned.", 1))
    assert gpu_cli.main_gpu(_args(out, "--filter", F32)) == 1
    printed = capsys.readouterr().out
    assert "mma: llc none, nvcc {'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32': 1}" in printed


# ---- cannot judge, bad input -----------------------------------------------------------------------


def test_no_nvcc_is_cannot_judge_never_a_pass(cli, compared, llc_dir, tmp_path):
    out = _copy(llc_dir, tmp_path)
    hidden = {"PATH": os.pathsep.join(["/usr/bin", "/bin"]), "CUDA_HOME": str(tmp_path / "no-cuda"), "NVCC": ""}
    assert not shutil.which("nvcc", path=hidden["PATH"]), "this machine has nvcc in /usr/bin or /bin: cannot hide it"
    proc = cli("gpu", "compare", out, "--filter", F32, env=hidden)
    assert proc.returncode == 125, proc.stderr
    assert "harness gpu compare: cannot judge: no nvcc" in proc.stderr and proc.stdout == ""
    assert not (out / manifest.NVIDIA).exists()
    proc = cli("tile-compare", out, "--nvcc", tmp_path / "nvcc-gone")  # (the old name)
    assert proc.returncode == 2 and "is not an executable file" in proc.stderr


def _fake_nvcc(tmp_path: Path, real: str, kernel: str, how: str) -> Path:
    """nvcc that answers --version, and on a .cu holding `kernel` hangs or kills itself."""
    fake = tmp_path / "nvcc"
    fail = "exec sleep 300" if how == "hang" else "kill -SEGV $$"
    fake.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] && exec {real} --version\n'
        f'for last; do :; done\ngrep -q {kernel} "$last" && {fail}\nexec {real} "$@"\n'
    )
    fake.chmod(0o755)
    return fake


@pytest.mark.parametrize("how", ["hang", "crash"])
def test_an_nvcc_that_times_out_or_crashes_is_not_judged_never_a_disagreement(cli, llc_dir, nvcc_path, tmp_path, how):
    out = _copy(llc_dir, tmp_path)
    kernel = tiles.Tile(next(r for r in ON_SM90 if r.name == F32)).name
    fake = _fake_nvcc(tmp_path, nvcc_path, kernel, how)
    proc = cli("gpu", "compare", out, "--filter", F32, "--nvcc", fake, "--timeout", "3")
    assert proc.returncode == 125, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].endswith(
        f"0 agree with llc, 0 disagree; 1 not judged (nvcc or ptxas timed out or crashed): {F32}"
    )
    assert "harness gpu compare: cannot judge: " in proc.stderr and "DIR/nvidia is as it was" in proc.stderr
    assert not (out / manifest.NVIDIA).exists()  # (nothing judged: nothing published)
    other = "mma.m16n8k8.row.col.f16.f16"  # judged beside it: the one that agrees decides
    proc = cli("gpu", "compare", out, "--filter", F32, "--filter", other, "--nvcc", fake, "--timeout", "3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 agree with llc, 0 disagree; 1 not judged" in proc.stdout.splitlines()[-2]
    doc = json.loads((out / manifest.NVIDIA / manifest.MANIFEST).read_text())
    assert sorted((t["judged"], t["agree"]) for t in doc["kernels"]) == [(False, False), (True, True)]


def _manifest_dir(tmp_path: Path, entries: list) -> Path:
    d = tmp_path / "m"
    d.mkdir(exist_ok=True)
    (d / "k.ptx").write_text("// not compiled\n")
    (d / manifest.MANIFEST).write_text(json.dumps({"format": manifest.FORMAT, "kind": "tile", "kernels": entries}))
    return d


GOOD = {**tiles.Tile(next(r for r in ON_SM90 if r.name == F32)).entry(7), "ptx": "k.ptx"}


@pytest.mark.parametrize(
    "entries, message",
    [
        ([{**GOOD, "variant": "mma.m99n8k16.row.col.f32.f32"}], "is not a dense mma row"),
        ([{**GOOD, "plant": "sideways"}], "'sideways' is not a planted fault"),
        ([{**GOOD, "kernel": "tile_other"}], "make kernel tile_mma_m16n8k16_row_col_f32_f32 for sm_90, not tile_other"),
        ([{**GOOD, "k": "16"}], "k is '16', not an integer"),
        ([{**GOOD, "ptx": "gone.ptx"}], "no PTX file 'gone.ptx'"),
        ([], "lists no kernels"),
    ],
)
def test_a_bad_manifest_is_one_line_and_exit_2(cli, tmp_path, entries, message):
    proc = cli("gpu", "compare", _manifest_dir(tmp_path, entries))
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_missing_or_foreign_manifest_is_exit_2(cli, tmp_path):
    proc = cli("gpu", "compare", tmp_path / "nowhere")
    assert proc.returncode == 2 and "cannot read the manifest" in proc.stderr
    (tmp_path / "gemm").mkdir()
    (tmp_path / "gemm" / manifest.MANIFEST).write_text("{")
    proc = cli("gpu", "compare", tmp_path / "gemm")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith(f"harness: {tmp_path / 'gemm' / manifest.MANIFEST}:1:2: error: not JSON: "), proc.stderr
    proc = cli("gpu", "compare", _manifest_dir(tmp_path, [GOOD]), "--filter", "mma.nothing*")
    assert proc.returncode == 2 and "matches no kernel" in proc.stderr
    gemm_entry = {k: v for k, v in GOOD.items() if k not in kinds.TILE.keys} | {"dtype": "f16", "beta": 0}
    gemm_entry |= {"m": 16, "n": 8, "k": 16, "transpose_a": False, "transpose_b": False}
    d = _manifest_dir(tmp_path, [gemm_entry])
    (d / manifest.MANIFEST).write_text(json.dumps({"format": manifest.FORMAT, "kind": "gemm", "kernels": [gemm_entry]}))
    proc = cli("gpu", "compare", d)
    assert proc.returncode == 2 and "holds gemm kernels; NVIDIA's side is written for tile kernels only" in proc.stderr


def test_nvidia_output_is_never_written_through_a_link_or_over_foreign_files(cli, nvcc_path, tmp_path):
    d = _manifest_dir(tmp_path, [GOOD])
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "keep.txt").write_text("mine")
    (d / manifest.NVIDIA).symlink_to(tmp_path / "real")
    proc = cli("gpu", "compare", d, env={"NVCC": nvcc_path})
    assert proc.returncode == 2 and "symbolic link" in proc.stderr
    (d / manifest.NVIDIA).unlink()
    shutil.move(tmp_path / "real", d / manifest.NVIDIA)
    proc = cli("gpu", "compare", d, env={"NVCC": nvcc_path})
    assert proc.returncode == 2 and "is not a gpu compare output" in proc.stderr
    assert [p.name for p in (d / manifest.NVIDIA).iterdir()] == ["keep.txt"] and len(list(d.iterdir())) == 3


# ---- the GPU side without a GPU --------------------------------------------------------------------


def _gpu_check(directory: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """python -m harness.gpu.check DIR --compare, with CuPy hidden (this machine has no GPU anyway)."""
    (tmp_path / "nocupy").mkdir(exist_ok=True)
    (tmp_path / "nocupy" / "cupy.py").write_text("raise ImportError('hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "nocupy"), str(REPO)])}
    cmd = [sys.executable, "-m", "harness.gpu.check", str(directory), "--compare"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


def test_the_gpu_side_cannot_judge_without_cupy_and_refuses_a_missing_nvidia_side(compared, llc_dir, tmp_path):
    proc = _gpu_check(llc_dir, tmp_path)
    assert proc.returncode == 125 and "CuPy is not installed" in proc.stderr
    proc = _gpu_check(_copy(llc_dir, tmp_path), tmp_path)
    assert (
        proc.returncode == 2
        and "nvidia/manifest.json: cannot read the manifest" in proc.stderr
        and "harness gpu compare" in proc.stderr
    )


def test_the_gpu_side_compares_d_byte_for_byte(compared, llc_dir, monkeypatch):
    kind, pairs = manifest.load_nvidia(llc_dir)
    entry, nvidia = next((e, n) for e, n in pairs if e["variant"] == F32)
    d = np.zeros((1, 16, 8), dtype=np.float32)
    d[0, 0, 0] = np.nan
    same, other = d.copy(), d.copy()
    other[0, 2, 3] = -0.0  # equal as numbers, not as bits
    for theirs, differing in ((same, 0), (other, 1)):
        monkeypatch.setattr(check, "launch", lambda cupy, ptx, kind, e, data, t=theirs: t if "nvidia" in str(ptx) else d)
        result = check.compare_kernel(None, llc_dir, kind, entry, nvidia)
        assert result["differing"] == differing and result["equal"] == (not differing)
    assert result["first"] == "first at [0, 2, 3]: llc 0x00000000, nvcc 0x80000000"
    gpu = {"name": "G", "cc": [9, 0], "cupy": "x", "driver": 1}
    monkeypatch.setattr(check, "device", lambda: (None, gpu))
    report = check.compare_all(llc_dir)
    assert report["summary"] == {"compiled": 94, "equal": 0, "differ": 94, "fail": 0, "ptx-only": 0, "not-run": 0}
    assert check.exit_status(report) == 1
    text = check.table(report)
    assert text.splitlines()[-1] == (
        "94 kernels: 94 compiled by nvcc; 94 run on both sides: 0 bitwise equal, 94 differ; 0 failed to run, 0 PTX only, 0 not run"
    )


@pytest.mark.parametrize(
    "change, message",
    [
        ({"kernel": "tile_nowhere"}, "kernel 'tile_nowhere' is not a kernel of "),
        ({"kernel": 5}, "kernel 5 is not a kernel of "),
        ({"ptx": 5}, "ptx is 5, not a string"),
        ({"ptx": "../manifest.json"}, "no PTX file '../manifest.json' in "),
        ({"ptx": "gone.ptx"}, "no PTX file 'gone.ptx' in "),
    ],
)
def test_the_gpu_side_refuses_a_bad_nvidia_entry_in_one_line(tmp_path, change, message):
    d = _manifest_dir(tmp_path, [GOOD])
    (d / manifest.NVIDIA).mkdir()
    (d / manifest.NVIDIA / "n.ptx").write_text("// not compiled\n")
    path = d / manifest.NVIDIA / manifest.MANIFEST
    good = {"kernel": GOOD["kernel"], "ptx": "n.ptx"}
    write = lambda entries: path.write_text(json.dumps({"format": manifest.NVIDIA_FORMAT, "kernels": entries}))
    write([good, good])
    assert [n for _, n in manifest.load_nvidia(d)[1]] == [good, good]
    write([good, {**good, **change}])
    with pytest.raises(manifest.BadInput) as exc:
        manifest.load_nvidia(d)
    assert str(exc.value).startswith(f"{path}: kernel 1: {message}") and "\n" not in str(exc.value)
