"""`harness gpu check` reads a build's manifest as input (issue 15): every field type- and
range-checked with one line and exit 2 before any GPU is asked for; no FIFO or device is read;
and `harness gpu build` never writes through a link nor calls a kernel closed by a ptxas that
printed `fatal` yet exited 0. The manifests are written here; gpu build needs the NVPTX build."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import PTXAS_VERSION, REPO

HANG_GUARD = 120  # seconds: only a blocked read reaches it
CASE = {
    "kernel": "gemm_16x8x16_f16_beta0_nn_sm_90",
    "variant": "gemm_16x8x16_f16_beta0_nn_sm_90",
    "plant": None,
    "ptx_only": False,
    "ptx": "gemm_16x8x16_f16_beta0_nn_sm_90.ptx",
    "m": 16,
    "n": 8,
    "k": 16,
    "dtype": "f16",
    "beta": 0,
    "transpose_a": False,
    "transpose_b": False,
    "sm": "sm_90",
    "seed": 123,
}
FORMAT = "harness-gpu/1"  # (written out: a test that read it from the code could not see it change)


def gpu_check(directory) -> tuple[int, list[str]]:
    return _harness("gpu", "check", directory)


def manifest(tmp_path, **changes) -> None:
    (tmp_path / CASE["ptx"]).write_text("// PTX\n")
    doc = {"format": FORMAT, "kind": "gemm", "kernels": [{**CASE, **changes}]}
    (tmp_path / "manifest.json").write_text(json.dumps(doc))


def test_a_valid_manifest_reaches_the_gpu_question(tmp_path):
    manifest(tmp_path)
    code, lines = gpu_check(tmp_path)
    assert code in (0, 1, 125) and not any("error:" in line for line in lines)


@pytest.mark.parametrize(
    "field, value",
    [
        ("ptx", 5),
        ("ptx", "/etc/passwd"),
        ("ptx", "../../../../../../etc/passwd"),
        ("m", "sixteen"),
        ("m", 10**9),
        ("m", 24),
        ("k", 0),
        ("beta", [1]),
        ("beta", 2),
        ("seed", "x"),
        ("seed", -1),
        ("transpose_a", "yes"),
        ("sm", 90),
        ("sm", "gfx950"),
        ("plant", 3),
        ("ptx_only", "no"),
        ("kernel", {}),
        ("kernel", "a b"),
        ("dtype", ["f16"]),
    ],
)
def test_a_bad_field_is_one_line_and_exit_2(tmp_path, field, value):
    manifest(tmp_path, **{field: value})
    code, lines = gpu_check(tmp_path)
    assert code == 2 and len(lines) == 1 and "manifest.json: kernel 0" in lines[0] and field in lines[0].lower()


@pytest.mark.parametrize("field", ["seed", "m", "beta"])
def test_a_huge_number_is_quoted_short(tmp_path, field):
    manifest(tmp_path, **{field: 10**4000})
    code, lines = gpu_check(tmp_path)
    assert code == 2 and len(lines) == 1 and "(4,001 characters)" in lines[0] and len(lines[0]) < 300, lines[0][:300]


def test_a_ptx_file_that_is_a_link_out_is_refused(tmp_path):
    manifest(tmp_path, ptx="elsewhere.ptx")
    (tmp_path / "elsewhere.ptx").symlink_to("/etc/hostname")
    code, lines = gpu_check(tmp_path)
    assert code == 2 and "no PTX file 'elsewhere.ptx'" in lines[0]


@pytest.mark.parametrize(
    "data",
    [
        b'{"kernels": [\xff]}',
        b"[" * 100_000 + b"]" * 100_000,
        b"[]",
        b'{"format": "harness-gpu/1", "kind": "gemm", "kernels": []}',
        b'{"format": 1, "cases": []}',
    ],
    ids=["0xff", "deep", "list", "empty", "old-format"],
)
def test_a_manifest_that_is_not_one_is_one_line_and_exit_2(tmp_path, data):
    (tmp_path / "manifest.json").write_bytes(data)
    code, lines = gpu_check(tmp_path)
    assert code == 2 and len(lines) == 1 and "manifest.json" in lines[0]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("command", ["gpu check", "gpu compare", "gpu compare --gpu", "tile-check"])
def test_a_manifest_that_is_no_regular_file_is_refused_unread(tmp_path, kind, command):
    path = tmp_path / "manifest.json"
    os.mkfifo(path) if kind == "fifo" else path.symlink_to("/dev/zero")
    words = command.split()
    code, lines = _harness(*words[:2], tmp_path, *words[2:]) if words[0] == "gpu" else _harness(*words, tmp_path)
    assert code == 2 and len(lines) == 1 and "manifest.json" in lines[0] and "not a regular file" in lines[0], lines


def test_an_output_directory_whose_manifest_is_a_fifo_is_not_taken_for_an_earlier_output(tmp_path):
    os.mkfifo(tmp_path / "manifest.json")
    code, lines = _harness("gpu", "build", "--kind", "tile", "--out", tmp_path)
    errors = [line for line in lines if not line.startswith("#")]  # (the build is named first)
    assert code == 2 and len(errors) == 1 and "is not a GPU build" in errors[0], lines


def _harness(*words) -> tuple[int, list[str]]:
    """`harness WORDS` in a child: (exit status, its non-empty stderr lines); never a traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *map(str, words)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=HANG_GUARD,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc.returncode, [line for line in proc.stderr.splitlines() if line.strip()]


# ---- gpu build ---------------------------------------------------------------------------------


def gemm_ptx(cli, nvptx_tc, out, *extra):
    words = ("gpu", "build", "--kind", "gemm", "--out", out, "--filter", "gemm_16x8x16_f16_beta0*")
    return cli(*words, "--llvm-bin", nvptx_tc.bin_dir, *extra)


def test_gpu_build_never_writes_through_a_symlinked_manifest(cli, nvptx_tc, tmp_path):
    out, victim = tmp_path / "o", tmp_path / "victim"
    out.mkdir()
    victim.write_text("precious\n")
    (out / "manifest.json").symlink_to(victim)
    proc = gemm_ptx(cli, nvptx_tc, out, "--no-ptxas")
    assert proc.returncode == 2 and "is not a GPU build" in proc.stderr and victim.read_text() == "precious\n"
    assert (out / "manifest.json").is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["o", "victim"]


def test_a_ptxas_printing_fatal_with_exit_0_gives_no_verdict(cli, nvptx_tc, tmp_path):
    ptxas = tmp_path / "ptxas"
    ptxas.write_text("#!/bin/sh\n" + PTXAS_VERSION + "echo 'ptxas fatal   : Unresolved extern function' >&2\nexit 0\n")
    ptxas.chmod(0o755)
    proc = gemm_ptx(cli, nvptx_tc, tmp_path / "o", "--ptxas", ptxas)
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("#")]
    assert proc.returncode == 2 and len(errors) == 1 and f"{ptxas} exited 0 but printed an error" in errors[0]
    assert not (tmp_path / "o" / "manifest.json").exists()  # nothing calls those kernels closed
