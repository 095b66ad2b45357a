"""`harness coverage` against the builds' own intrinsic headers, read here with a regex.

The expected names are the `// llvm.<target>.<family>...` comments of each build's generated
Intrinsics<T>.h; counts are set arithmetic on those lists. Fake build directories only inject
faults: symlinks to the real llvm-22 tools beside a doctored, missing or hostile header.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import unavailable

AMDGPU_FAMILIES = ("mfma", "smfmac", "wmma", "swmmac")
AMDGPU_NAME = re.compile(r"//\s*(llvm\.amdgcn\.(?:mfma|smfmac|wmma|swmmac)\.[\w.]+)")
NVPTX_NAME = re.compile(r"//\s*(llvm\.nvvm\.mma\.[\w.]+)")
TOOLS = ("llc", "opt", "llvm-mc", "llvm-as")
MADE_UP = "llvm.amdgcn.mfma.f32.99x99x99.f16"
TABLE_LINE = re.compile(r"^\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$")


def _header(bin_dir: Path, name: str) -> Path:
    path = bin_dir.parent / "include" / "llvm" / "IR" / name
    if not path.is_file():
        unavailable(f"no {path}: the build's own list of intrinsics")
    return path


def amdgpu_names(bin_dir: Path) -> set[str]:
    return set(AMDGPU_NAME.findall(_header(bin_dir, "IntrinsicsAMDGPU.h").read_text(errors="replace")))


def _build(version: str) -> Path:
    path = Path(f"/usr/lib/llvm-{version}/bin")
    if not (path / "llc").exists():
        unavailable(f"no llvm-{version} build at {path} (ci/setup.sh --test installs it)")
    return path


def _coverage(cli, *args) -> tuple[int, dict, str]:
    proc = cli("coverage", "--json", *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def _one_line(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.fixture
def fake_build(llvm_22_1_8, tmp_path):
    """A build directory: tmp/bin with links to the real llvm-22 tools and no include/ (a test
    that wants a header makes tmp/include/llvm/IR with `_ir_dir`)."""
    real = llvm_22_1_8.bin_dir
    (tmp_path / "bin").mkdir()
    for tool in TOOLS:
        (tmp_path / "bin" / tool).symlink_to(real / tool)
    return tmp_path


def _ir_dir(build: Path) -> Path:
    ir = build / "include" / "llvm" / "IR"
    ir.mkdir(parents=True, exist_ok=True)
    return ir


# ---- the real builds --------------------------------------------------------------------------


def test_llvm_22_amdgpu_has_a_row_for_every_declared_matrix_intrinsic(llvm_22_1_8, cli):
    bin_dir = llvm_22_1_8.bin_dir
    declared = amdgpu_names(bin_dir)
    code, doc, _ = _coverage(cli, "--llvm-bin", bin_dir, "--target", "amdgpu")
    assert code == 0
    assert doc["llvm"] == llvm_22_1_8.version == "22.1.8"
    assert list(doc["targets"]) == ["amdgpu"]
    rec = doc["targets"]["amdgpu"]
    assert rec["complete"] is True and rec["source"] == str(_header(bin_dir, "IntrinsicsAMDGPU.h"))
    assert len(declared) == 142
    assert rec["declared"] == rec["rows"] == sorted(declared)
    assert rec["missing"] == rec["extra"] == []
    for family in AMDGPU_FAMILIES:
        n = sum(1 for name in declared if name.startswith(f"llvm.amdgcn.{family}."))
        assert rec["families"][family] == {"declared": n, "rows": n, "missing": 0, "extra": 0}, family


def test_llvm_22_amdgpu_text_table_lists_the_four_families_and_all(llvm_22_1_8, cli):
    declared = amdgpu_names(llvm_22_1_8.bin_dir)
    proc = cli("coverage", "--llvm-bin", llvm_22_1_8.bin_dir, "--target", "amdgpu")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    rows = {m.group(1): tuple(map(int, m.groups()[1:])) for m in map(TABLE_LINE.match, proc.stdout.splitlines()) if m}
    assert set(rows) == {*AMDGPU_FAMILIES, "all"}
    for family in AMDGPU_FAMILIES:
        n = sum(1 for name in declared if name.startswith(f"llvm.amdgcn.{family}."))
        assert rows[family] == (n, n, 0, 0), family
    assert rows["all"] == (142, 142, 0, 0)
    assert "missing (declared, no row)" not in proc.stdout


def test_default_targets_include_nvptx_whose_mma_intrinsics_all_have_a_row(llvm_22_1_8, cli):
    bin_dir = llvm_22_1_8.bin_dir
    nvvm = set(NVPTX_NAME.findall(_header(bin_dir, "IntrinsicsNVPTX.h").read_text(errors="replace")))
    assert len(nvvm) == 390
    code, doc, stderr = _coverage(cli, "--llvm-bin", bin_dir)
    assert code == 0 and stderr == ""
    assert set(doc["targets"]) == {"amdgpu", "nvptx"}
    assert doc["targets"]["amdgpu"]["missing"] == []
    rec = doc["targets"]["nvptx"]
    # Two rows are intrinsics only LLVM 14 to 19 declare (no ISA instruction): extra on 22.
    assert rec["complete"] is True and rec["declared"] == sorted(nvvm)
    assert rec["missing"] == [] and rec["extra"] == sorted(OLD_ONLY) and rec["rows"] == sorted(nvvm | OLD_ONLY)
    families = {"mma": 144, "mma.sp": 192, "mma.block.scale": 54}  # dense, sparse (54 block-scaled), block-scaled
    extra = {"mma": 2}
    assert rec["families"] == {
        f: {"declared": n, "rows": n + extra.get(f, 0), "missing": 0, "extra": extra.get(f, 0)} for f, n in families.items()
    }

    proc = cli("coverage", "--llvm-bin", bin_dir, "--target", "nvptx")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    rows = {m.group(1): tuple(map(int, m.groups()[1:])) for m in map(TABLE_LINE.match, proc.stdout.splitlines()) if m}
    assert rows == {**{f: (n, n + extra.get(f, 0), 0, extra.get(f, 0)) for f, n in families.items()}, "all": (390, 392, 0, 2)}
    assert "missing (declared, no row)" not in proc.stdout


OLD_ONLY = {"llvm.nvvm.mma.m16n8k16.row.col.f16.f32", "llvm.nvvm.mma.m16n8k16.row.col.f32.f16"}


@pytest.mark.parametrize("version", ["19", "14"])
def test_an_older_build_has_a_row_for_each_nvptx_mma_it_declares(llvm_22_1_8, cli, version):
    """llvm-19 and llvm-14 declare 77 dense mma intrinsics, two of which 22 dropped (the ISA has
    no instruction for them): every one has a row."""
    bin_dir = _build(version)
    nvvm = set(NVPTX_NAME.findall(_header(bin_dir, "IntrinsicsNVPTX.h").read_text(errors="replace")))
    assert len(nvvm) == 77 and OLD_ONLY <= nvvm
    code, doc, _ = _coverage(cli, "--llvm-bin", bin_dir, "--target", "nvptx")
    rec = doc["targets"]["nvptx"]
    assert code == 0 and rec["declared"] == sorted(nvvm) and rec["missing"] == []


@pytest.mark.parametrize("version,count", [("19", 77), ("14", 27)])
def test_an_older_build_declares_a_subset_of_the_rows(llvm_22_1_8, cli, version, count):
    bin_dir = _build(version)
    declared, rows = amdgpu_names(bin_dir), amdgpu_names(llvm_22_1_8.bin_dir)
    assert len(declared) == count  # Debian's llvm-19 (19.1.7) and llvm-14 (14.0.6) headers
    code, doc, _ = _coverage(cli, "--llvm-bin", bin_dir, "--target", "amdgpu")
    assert code == 0 and doc["llvm"].split(".")[0] == version
    rec = doc["targets"]["amdgpu"]
    assert rec["complete"] is True and rec["declared"] == sorted(declared)
    assert rec["missing"] == sorted(declared - rows) == []
    assert rec["extra"] == sorted(rows - declared) and len(rec["extra"]) == 142 - count


# ---- fault injection: doctored, missing and hostile headers ------------------------------------


def test_a_header_declaring_an_intrinsic_without_a_row_exits_1_naming_it(llvm_22_1_8, cli, fake_build):
    real = _header(llvm_22_1_8.bin_dir, "IntrinsicsAMDGPU.h").read_text()
    anchor = re.search(r"^.*// llvm\.amdgcn\.mfma\..*$", real, re.M)
    assert anchor
    extra = "    amdgcn_mfma_f32_99x99x99_f16,              // llvm.amdgcn.mfma.f32.99x99x99.f16 (IntrinsicsAMDGPU.td:1)"
    (_ir_dir(fake_build) / "IntrinsicsAMDGPU.h").write_text(real[: anchor.end()] + "\n" + extra + real[anchor.end() :])
    bin_dir = fake_build / "bin"

    code, doc, _ = _coverage(cli, "--llvm-bin", bin_dir, "--target", "amdgpu")
    assert code == 1
    rec = doc["targets"]["amdgpu"]
    assert rec["missing"] == [MADE_UP] and rec["extra"] == []
    assert rec["declared"] == sorted(amdgpu_names(llvm_22_1_8.bin_dir) | {MADE_UP})
    assert rec["families"]["mfma"]["missing"] == 1

    proc = cli("coverage", "--llvm-bin", bin_dir, "--target", "amdgpu")
    assert proc.returncode == 1 and MADE_UP in proc.stdout
    [line] = proc.stderr.strip().splitlines()
    assert re.search(r"\b1\b", line) and "no row" in line, line


def _probed(cli, build: Path, real: set[str]) -> dict:
    code, doc, _ = _coverage(cli, "--llvm-bin", build / "bin", "--target", "amdgpu")
    assert code == 0
    rec = doc["targets"]["amdgpu"]
    assert rec["complete"] is False and "probed" in rec["source"]
    assert rec["declared"] == sorted(real)  # the real llvm-22 knows every row
    assert rec["missing"] == rec["extra"] == []
    return rec


def test_without_a_header_the_rows_are_probed_through_opt(llvm_22_1_8, cli, fake_build):
    real = amdgpu_names(llvm_22_1_8.bin_dir)
    assert not (fake_build / "include").exists()
    rec = _probed(cli, fake_build, real)
    assert str(fake_build / "bin" / "opt") in rec["source"]
    proc = cli("coverage", "--llvm-bin", fake_build / "bin", "--target", "amdgpu")
    assert proc.returncode == 0 and "(our rows only)" in proc.stdout


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_header_path_that_is_no_regular_file_is_bad_input(llvm_22_1_8, cli, fake_build, kind):
    """Something at the header's path that is not a file is a broken build, not one without a
    header: one line naming it and exit 2 (a FIFO is never opened, so never waited on)."""
    path = _ir_dir(fake_build) / "IntrinsicsAMDGPU.h"
    if kind == "directory":
        path.mkdir()
    else:
        os.mkfifo(path)
    line = _one_line(cli("coverage", "--llvm-bin", fake_build / "bin", "--target", "amdgpu"))
    assert str(path) in line and "not a regular file" in line, line


def test_a_header_path_that_is_a_dangling_link_is_bad_input(llvm_22_1_8, cli, fake_build):
    """A link at the header's path that leads nowhere is a broken build too, not one without a
    header: one line naming it and exit 2."""
    path = _ir_dir(fake_build) / "IntrinsicsAMDGPU.h"
    path.symlink_to(fake_build / "nowhere.h")
    line = _one_line(cli("coverage", "--llvm-bin", fake_build / "bin", "--target", "amdgpu"))
    assert str(path) in line and "cannot read" in line, line


def test_a_header_that_names_no_amdgcn_intrinsic_is_bad_input(llvm_22_1_8, cli, fake_build):
    path = _ir_dir(fake_build) / "IntrinsicsAMDGPU.h"
    path.write_text("// not an intrinsic header\n")
    line = _one_line(cli("coverage", "--llvm-bin", fake_build / "bin", "--target", "amdgpu"))
    assert str(path) in line and "llvm.amdgcn." in line, line


def test_an_oversized_header_is_bad_input_not_read(llvm_22_1_8, cli, fake_build):
    path = _ir_dir(fake_build) / "IntrinsicsAMDGPU.h"
    with open(path, "wb") as fh:  # sparse: 65 MiB on paper, nothing on disk
        fh.truncate(65 << 20)
    line = _one_line(cli("coverage", "--llvm-bin", fake_build / "bin", "--target", "amdgpu", "--json"))
    assert str(path) in line and "bytes" in line, line


def test_a_missing_llvm_bin_is_one_line_and_exit_2(cli):
    line = _one_line(cli("coverage", "--llvm-bin", "/nonexistent", "--json"))
    assert "/nonexistent" in line and "error" in line, line
