"""The `harness gpu` family against a hostile user: tools that lie (an llc or nvcc that prints an
error yet exits 0, a file named as ptxas or nvcc that is not one), builds that lack a row's
intrinsic, manifests a GPU machine must not trust (a shape no mma has, an integer past Python's
digit limit, a kernel llc failed on), output directories that hold someone's files, and the
flags of one kind given to the other. Each was a finding of a hostile review; each test fails on
the code before its fix. No GPU is needed: `python -m harness.gpu.check` validates a manifest
before it asks for CuPy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PTXAS_VERSION, REPO, fake_build, one_line_exit_2

from harness.gpu import check, kinds, manifest
from harness.kernels import gemm, tiles
from harness.kernels.gemm import GemmCase, GemmKernel

BF16 = "mma.m16n8k16.row.col.bf16"
TILE = ("gpu", "build", "--kind", "tile", "--filter", BF16, "-j", "1")


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def _tile_entry(**changes) -> dict:
    return {**tiles.Tile(next(r for r in tiles.dense_rows() if r.name == BF16)).entry(7), "ptx": "k.ptx", **changes}


def _manifest_dir(tmp_path: Path, entries: list, kind: str = "tile") -> Path:
    d = tmp_path / "m"
    d.mkdir(exist_ok=True)
    (d / "k.ptx").write_text("// not run\n")
    (d / manifest.MANIFEST).write_text(json.dumps({"format": manifest.FORMAT, "kind": kind, "kernels": entries}))
    return d


def _check(directory: Path, tmp_path: Path, *flags: str) -> subprocess.CompletedProcess:
    """python -m harness.gpu.check DIR, with CuPy hidden (this machine has no GPU anyway)."""
    (tmp_path / "nocupy").mkdir(exist_ok=True)
    (tmp_path / "nocupy" / "cupy.py").write_text("raise ImportError('hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "nocupy"), str(REPO)])}
    cmd = [sys.executable, "-m", "harness.gpu.check", str(directory), *flags]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


# ---- tools that lie -----------------------------------------------------------------------------


def test_an_llc_that_prints_an_error_and_exits_0_gives_no_verdict(cli, nvptx_tc, ptxas_path, tmp_path):
    real = nvptx_tc.tool("llc")
    fake = fake_build(tmp_path, Path(real).parent, "llc", f'"{real}" "$@"\necho "LLVM ERROR: out of registers" >&2\nexit 0\n')
    proc = cli(*TILE, "--out", tmp_path / "o", "--llvm-bin", fake, env={"PTXAS": ptxas_path})
    one_line_exit_2(proc, f"{fake}/llc exited 0 but printed an error", "LLVM ERROR: out of registers")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "body", ["[ \"$1\" = --version ] && { echo 'error: no license' >&2; exit 1; }\nexit 0\n", "exit 0\n", "kill -SEGV $$\n"]
)
def test_a_ptxas_that_does_not_say_it_is_ptxas_is_refused(cli, nvptx_tc, tmp_path, body):
    """A file that exits 0 on every PTX would pass every kernel: it must show ptxas's banner."""
    ptxas = _script(tmp_path / "ptxas", body)
    proc = cli(*TILE, "--out", tmp_path / "o", "--ptxas", ptxas)
    one_line_exit_2(proc, f"'{ptxas}' is not ptxas: `--version`", "without ptxas's banner")


def test_a_file_named_as_nvcc_that_is_not_nvcc_is_refused(cli, nvptx_tc, ptxas_path, tmp_path):
    out = tmp_path / "t"
    assert cli(*TILE, "--out", out, env={"PTXAS": ptxas_path}).returncode == 0
    proc = cli("gpu", "compare", out, "--nvcc", "/bin/true", env={"PTXAS": ptxas_path})
    one_line_exit_2(proc, "'/bin/true' is not nvcc: `--version` exited 0", "without nvcc's banner")
    proc = cli("gpu", "compare", out, "--nvcc", ptxas_path, env={"PTXAS": ptxas_path})  # (its release line is nvcc's)
    one_line_exit_2(proc, f"'{ptxas_path}' is not nvcc: `--version` exited 0", "without nvcc's banner")
    assert not (out / manifest.NVIDIA).exists()


# ---- a build that lacks an intrinsic --------------------------------------------------------------


def test_rows_a_build_does_not_declare_are_unsupported_not_failures(cli, ptxas_path, tmp_path):
    """LLVM 19 has neither the f64 nor the FP8 m16n8k16 mma: those rows are listed as unsupported
    (its IntrinsicsNVPTX.h lacks them), the rest built and judged."""
    bin19 = Path("/usr/lib/llvm-19/bin")
    if not (bin19 / "llc").exists():
        pytest.skip("no Debian llvm-19 (ci/setup.sh --test installs it)")
    out = tmp_path / "o"
    proc = cli("gpu", "build", "--kind", "tile", "--filter", "mma.m16n8k16*", "--out", out, "--llvm-bin", bin19, "-j", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "unsupported: mma.m16n8k16.row.col.f64: llvm.nvvm.mma.m16n8k16.row.col.f64: intrinsic unknown" in proc.stdout
    assert proc.stdout.splitlines()[-2] == "11 kernels (0 PTX only): 11 pass, 0 fail; 9 unsupported by this LLVM build"
    doc = json.loads((out / manifest.MANIFEST).read_text())
    assert len(doc["kernels"]) == 11 and len(doc["unsupported"]) == 9


# ---- manifests the GPU machine must not trust ------------------------------------------------------


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"m": 1024, "n": 1024, "k": 1024, "products": 1024}, "shape m1024n1024k1024 is not a dense mma.sync shape"),
        ({"products": 4}, "products = 4: one product per warp, or four for m8n8k4"),
    ],
)
def test_a_tile_no_mma_has_is_bad_input_before_any_array_is_made(tmp_path, changes, message):
    proc = _check(_manifest_dir(tmp_path, [_tile_entry(**changes)]), tmp_path)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


def test_an_integer_past_pythons_digit_limit_is_one_line_and_exit_2(tmp_path):
    d = _manifest_dir(tmp_path, [_tile_entry()])
    text = (d / manifest.MANIFEST).read_text().replace('"seed": ', '"seed": ' + "9" * 5000 + ', "x": ', 1)
    (d / manifest.MANIFEST).write_text(text)
    proc = _check(d, tmp_path)
    assert proc.returncode == 2 and "an integer of more digits" in proc.stderr and "Traceback" not in proc.stderr
    proc = _check(d, tmp_path, "--json")  # a --json reader gets a document on bad input too
    assert proc.returncode == 2 and json.loads(proc.stdout)["kernels"] == []


def test_a_kernel_llc_failed_on_is_listed_and_the_manifest_still_read(tmp_path):
    d = _manifest_dir(tmp_path, [_tile_entry(), _tile_entry(kernel="tile_other", ptx="")])
    doc, kind = manifest.load(d)
    assert [e["ptx"] for e in doc["kernels"]] == ["k.ptx", ""] and kind.name == "tile"
    assert check.attempt({"cc": [9, 0]}, doc["kernels"][1], lambda: pytest.fail("launched"))["verdict"] == "not-run"
    assert _check(d, tmp_path).returncode == 125  # (valid: only the GPU is missing)


def test_an_earlier_releases_output_is_named_so_and_replaced_by_a_build(cli, nvptx_tc, ptxas_path, tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"format": "nvptx-tiles/1", "tiles": [{"ptx": "tile_a.ptx"}]}))
    (out / "tile_a.ptx").write_text("//\n")
    proc = _check(out, tmp_path)
    assert proc.returncode == 2 and "made by an earlier release (tile-ptx, format 'nvptx-tiles/1')" in proc.stderr
    assert cli(*TILE, "--out", out, env={"PTXAS": ptxas_path}).returncode == 0
    assert manifest.format_of(out) == manifest.FORMAT and not (out / "tile_a.ptx").exists()


def test_compare_on_a_gemm_build_says_so_on_either_side(cli, tmp_path):
    entry = GemmKernel(GemmCase(16, 8, 16, "f16")).entry(1) | {"ptx": "k.ptx"}
    d = _manifest_dir(tmp_path, [entry], kind="gemm")
    proc = _check(d, tmp_path, "--compare")
    assert proc.returncode == 2 and "holds gemm kernels; NVIDIA's side is written for tile kernels only" in proc.stderr
    one_line_exit_2(cli("gpu", "compare", d), "holds gemm kernels; NVIDIA's side is written for tile kernels only")


# ---- output directories --------------------------------------------------------------------------


def test_a_foreign_file_in_nvidia_is_never_deleted(cli, nvptx_tc, ptxas_path, tmp_path):
    out = tmp_path / "t"
    assert cli(*TILE, "--out", out, env={"PTXAS": ptxas_path}).returncode == 0
    (out / manifest.NVIDIA).mkdir()
    (out / manifest.NVIDIA / manifest.MANIFEST).write_text(json.dumps({"format": manifest.NVIDIA_FORMAT, "kernels": []}))
    (out / manifest.NVIDIA / "notes.txt").write_text("mine")
    for words in (TILE, ("gpu", "compare")):
        target = ("--out", out) if words is TILE else (out,)
        proc = cli(*words, *target, env={"PTXAS": ptxas_path})
        one_line_exit_2(proc, "holds 'notes.txt', which a gpu compare output did not write there")
    assert (out / manifest.NVIDIA / "notes.txt").read_text() == "mine"


def test_output_paths_that_cannot_be_replaced_are_refused_up_front(cli, tmp_path):
    (tmp_path / "file").write_text("x")
    proc = cli(*TILE, "--out", tmp_path / "file" / "sub")
    one_line_exit_2(proc, f"{tmp_path / 'file'} is not a directory")
    here = tmp_path / "here"
    here.mkdir()
    proc = subprocess.run([sys.executable, "-m", "harness", *TILE, "--out", "."], cwd=here, capture_output=True, text=True)
    one_line_exit_2(proc, "is the working directory or holds it")


def test_a_long_output_name_is_built(cli, nvptx_tc, ptxas_path, tmp_path):
    out = tmp_path / ("o" * 240)
    proc = cli(*TILE, "--out", out, env={"PTXAS": ptxas_path})
    assert proc.returncode == 0, proc.stderr
    assert manifest.format_of(out) == manifest.FORMAT


# ---- flags of one kind or mode given to another -------------------------------------------------------


def test_a_planted_fault_of_the_other_kind_is_named_as_such(cli, tmp_path):
    proc = cli("gpu", "build", "--kind", "gemm", "--out", tmp_path / "o", "--plant", "a-lanes-reversed")
    one_line_exit_2(proc, "gemm kernels' planted faults are a-rows-swapped, b-khi-swapped, d-rows-swapped", "is a tile fault")


def test_compare_on_the_gpu_refuses_filter(cli, tmp_path):
    proc = cli("gpu", "compare", tmp_path, "--gpu", "--filter", "mma.*")
    one_line_exit_2(proc, "--filter chooses kernels to compile; with --gpu every kernel of DIR/nvidia runs")


def test_long_values_in_argparse_errors_are_cut(cli, tmp_path):
    line = one_line_exit_2(cli(*TILE, "--out", tmp_path / "o", "--seed", "9" * 5000), "(5,000 characters)")
    assert len(line) < 300


def test_the_fault_injection_ptxas_answers_version_as_ptxas_does(ptxas_path, tmp_path):
    """PTXAS_VERSION, the first line of the tests' fake ptxas scripts, prints what the real one
    prints first: the banner the harness asks for."""
    real = subprocess.run([ptxas_path, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    fake = _script(tmp_path / "ptxas", PTXAS_VERSION + "exit 3\n")
    assert subprocess.run([fake, "--version"], capture_output=True, text=True).stdout.splitlines()[0] == real


def test_a_ptxas_rejection_names_the_published_file_not_the_staging_one(cli, nvptx_tc, tmp_path):
    """The kernels are made in a directory beside --out and renamed into place: ptxas's message,
    in the table and the manifest, names the file where it now is."""
    ptxas = _script(tmp_path / "ptxas", PTXAS_VERSION + 'for f; do :; done\necho "ptxas $f, line 1; error   : bad" >&2\nexit 1\n')
    out = tmp_path / "o"
    proc = cli(*TILE, "--out", out, "--ptxas", ptxas)
    assert proc.returncode == 1, proc.stderr
    where = f"ptxas rejects it: ptxas {out}/tile_mma_m16n8k16_row_col_bf16.ptx, line 1"
    assert where in proc.stdout and "/." not in proc.stdout.split("ptxas rejects it:")[1]
    assert json.loads((out / manifest.MANIFEST).read_text())["kernels"][0]["problems"] == [
        where[: where.index(", line")] + ", line 1; error   : bad"
    ]


def test_gemm_plants_skip_the_layouts_a_case_has_no_term_for(cli, nvptx_tc, tmp_path):
    cases = [GemmCase(16, 8, 8, "f16"), GemmCase(16, 8, 24, "bf16")]
    kernels, skipped = gemm.planted(cases, [gemm.PLANTS["b-khi-swapped"], gemm.PLANTS["a-rows-swapped"]])
    assert [k.label for k in kernels] == [
        "gemm_16x8x8_f16_beta0_nn_sm_90 [a-rows-swapped]",
        "gemm_16x8x24_bf16_beta0_nn_sm_90 [b-khi-swapped]",
        "gemm_16x8x24_bf16_beta0_nn_sm_90 [a-rows-swapped]",
    ]
    assert [(s.variant, s.plant) for s in skipped] == [("gemm_16x8x8_f16_beta0_nn_sm_90", "b-khi-swapped")]
    assert "one m16n8k8 step" in skipped[0].why
    words = ("gpu", "build", "--kind", "gemm", "--out", tmp_path / "o", "--no-ptxas", "--plant", "b-khi-swapped")
    one_line_exit_2(cli(*words, "--filter", "gemm_16x8x8_*"), "no chosen gemm kernel can express the planted fault(s)")


@pytest.mark.parametrize(
    "shape, ok",
    [((128, 128, 128), True), ((128, 128, 120), True), ((144, 128, 128), False), ((128, 136, 128), False)]
    + [((128, 128, 136), False), ((128, 128, 144), False)],
)
def test_a_gemm_entry_is_refused_exactly_past_1024_mma(tmp_path, shape, ok):
    """(M/16)·(N/8)·(K/16 + K%16/8) mma: 8·16·8 = 1024 is the most a build makes, 1088 is past it."""
    m, n, k = shape
    entry = GemmKernel(GemmCase(16, 8, 16, "f16")).entry(1) | {"ptx": "k.ptx", "m": m, "n": n, "k": k}
    why = kinds.GEMM.problem(entry)
    assert (why == "") == ok, why
    assert ok or why.startswith(f"shape {m}x{n}x{k} unrolls to more than 1024 mma.sync")


@pytest.mark.parametrize("ptx, lo, hi", [("s8", -128, 127), ("u8", 0, 255), ("s4", -8, 7), ("u4", 0, 15), ("b1", 0, 1)])
def test_integer_inputs_cover_their_whole_type(ptx, lo, hi):
    """Uniform over the whole type, ends included (a missing end would leave the saturating and
    sign-extending paths of an mma untested)."""
    np = pytest.importorskip("numpy")
    values, _ = kinds.operand(np.random.default_rng(5), ptx, (20_000,))
    assert (int(values.min()), int(values.max())) == (lo, hi)


def test_a_beta_1_gemm_entry_is_one_the_check_takes():
    entry = GemmKernel(GemmCase(16, 8, 16, "f16", beta=1)).entry(1) | {"ptx": "k.ptx"}
    assert kinds.GEMM.problem(entry) == "" and kinds.GEMM.problem({**entry, "beta": 2}) == "beta 2 is not 0 or 1"


# Elements per 32-bit register by type, from the ISA's fragment tables ("two .f16 elements", "four
# .s8", "eight .s4", "thirty two .b1"), written here apart from the code's tables.
PER_WORD = {"f16": 2, "bf16": 2, "s8": 4, "u8": 4, "e4m3": 4, "e5m2": 4, "s4": 8, "u4": 8, "b1": 32}


@pytest.mark.parametrize(
    "name",
    ["mma.m16n8k16.row.col.f16.f16", "mma.m16n8k32.row.col.s8", "mma.m16n8k64.row.col.u4", "mma.xor.popc.m8n8k128.row.col.b1"],
)
def test_a_tile_packs_each_register_from_all_its_elements(name):
    """One `shl` and one `or` per element after a register's first: a kernel that dropped them
    would hand the mma registers holding one element each."""
    from harness.targets.nvptx_rows import FRAGMENT_REGS

    tile = tiles.Tile(next(r for r in tiles.dense_rows() if r.name == name))
    ir = tile.ir()
    loaded = {op: tile.entry(0)[op] for op in "abc"}
    per = lambda op: PER_WORD.get(loaded[op], 1)
    regs = lambda op: FRAGMENT_REGS[(tile.row.shape, "cd" if op == "c" else op, loaded[op])]
    want = sum(regs(op) * (per(op) - 1) for op in "abc")
    assert ir.count(" = shl i32 ") == want and ir.count(" = or i32 ") == want, (want, ir.count(" = shl i32 "))
