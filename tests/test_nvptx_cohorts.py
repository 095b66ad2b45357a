"""Lit files that hold many NVPTX rows: a cohort (rows LLVM declares together) shares one file
per SM, -O level and class. What must hold: the rows of one file are declared by exactly the same
builds (so its REQUIRES holds for all or none); every case lands in exactly one file, which defines
exactly its cases; a known bug that names one row keeps that row in a file of its own; a build
that lacks one intrinsic leaves the other rows' files runnable (lit) and judges every other case
of that very file (the runner).

Real tools: Debian's llvm-14, -15, -16, -19 and -22 headers, llc, ptxas and lit; missing ones skip
(fail under CI).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import unavailable

from harness.checks import expand, litgen
from harness.core import verdicts as V
from harness.specs import cases, matrix
from harness.specs.cases import FileClass, Planned
from harness.targets import NVPTX, catalog, nvptx_rows
from harness.tools import declared, runner

SP_BF16_K16 = "mma.sp.m16n8k16.row.col.bf16"
SP_BF16_K32 = "mma.sp.m16n8k32.row.col.bf16"
DENSE_BF16 = "mma.m16n8k16.row.col.bf16"


def _header(version: int) -> frozenset[str]:
    """The llvm.nvvm.mma.* names Debian's llvm-<version> declares (its IntrinsicsNVPTX.h)."""
    path = Path(f"/usr/lib/llvm-{version}/include/llvm/IR/IntrinsicsNVPTX.h")
    if not path.is_file():
        unavailable(f"no {path} (ci/setup.sh --test installs llvm-{version})")
    return frozenset(declared.names_in_header(path.read_text(), NVPTX))


@pytest.fixture(scope="module")
def headers() -> dict[int, frozenset[str]]:
    return {v: _header(v) for v in nvptx_rows.LLVM_RELEASES}


def _declared_by(headers: dict[int, frozenset[str]], symbol: str) -> tuple[int, ...]:
    return tuple(v for v, names in headers.items() if symbol in names)


def test_each_rows_llvm_range_is_the_releases_that_declare_it(headers):
    for row in nvptx_rows.ROWS:
        first, last = row.llvm
        want = tuple(v for v in nvptx_rows.LLVM_RELEASES if first <= v and (not last or v <= last))
        assert _declared_by(headers, NVPTX.intrinsic_prefix + row.name) == want, row.name
    # The cohorts are not one big bag: the shipped rows fall into 19 of them.
    assert len({r.cohort for r in nvptx_rows.ROWS}) == 19


@pytest.fixture(scope="module")
def shipped(repo_root) -> tuple[list[Planned], list[cases.Group]]:
    planned = matrix.plan(matrix.spec_files(repo_root / "cases"))
    return planned, cases.group(planned, expand.known_fate(repo_root / "cases"))


def test_rows_that_builds_declare_differently_never_share_a_file(shipped, headers, repo_root):
    _, groups = shipped
    shared = [g for g in groups if g.cohort]
    assert len(shared) > 100 and max(len(g.intrinsics) for g in shared) == 50
    for g in shared:
        releases = {_declared_by(headers, i.symbol) for i in g.intrinsics}
        assert len(releases) == 1, (g.filename, releases)
        # ... and the file requires each of them (lit: every REQUIRES line must hold).
        text = (repo_root / "cases" / "generated" / g.filename).read_text()
        required = {f.strip() for l in text.splitlines() if l.startswith("; REQUIRES:") for f in l[11:].split(",")}
        assert {f for f in required if f.startswith("llvm.nvvm.")} == {i.symbol for i in g.intrinsics}, g.filename
        assert {i.features for i in g.intrinsics} == {g.intrinsic.features}, g.filename  # one llc command line
    # A case the rule keeps apart has a file of its own: the absent SM, another signature.
    alone = {g.file_class for g in groups if g.intrinsic.target is NVPTX and not g.cohort}
    assert alone == {FileClass.ABSENT, FileClass.ILLEGAL}
    assert all(len(g.intrinsics) == 1 for g in groups if not g.cohort)


def test_every_case_lands_in_exactly_one_file_that_defines_exactly_its_cases(shipped, repo_root):
    planned, groups = shipped
    key = lambda c, sel: (c.function, c.cpu, c.opt, c.pipeline, c.file_class, c.check, sel)  # noqa: E731
    placed = Counter(key(c, p.selectors) for g in groups for p in g.members for c in [p.case])
    assert placed == Counter(key(p.case, p.selectors) for p in planned)
    assert max(placed.values()) == 1
    generated = repo_root / "cases" / "generated"
    for g in groups:
        if g.intrinsic.target is not NVPTX:
            continue
        defined = re.findall(r"^define [^@]*@(\w+)\(", (generated / g.filename).read_text(), re.M)
        assert defined == [c.function for c in g.cases], g.filename
    names = [g.filename for g in groups]
    assert len(names) == len(set(names))


def _spec(spec_dir, bugs: str = "") -> Path:
    files = {
        "rows.yaml": f'matrix:\n  - intrinsic: ["{SP_BF16_K16}", "{SP_BF16_K32}", "{DENSE_BF16}"]\n    cpu: [sm_80, sm_90]\n'
    }
    return spec_dir({**files, **({"known-bugs.yaml": bugs} if bugs else {})})


def _files(where: Path) -> dict[str, list[str]]:
    """File name -> the rows of its cases, as `harness expand` would write them."""
    groups = cases.group(matrix.plan(matrix.spec_files(where)), expand.known_fate(where))
    return {g.filename: sorted({c.intrinsic.base or c.intrinsic.name for c in g.cases}) for g in groups}


def test_a_known_bug_of_one_row_keeps_that_row_in_a_file_of_its_own(spec_dir):
    sp80, sp90 = "mma.sp.ptx71.llvm22.sm_80.O0.exact.ll", "mma.sp.ptx71.llvm22.sm_90.O0.exact.ll"
    plain = _files(_spec(spec_dir))
    assert plain[sp80] == plain[sp90] == [SP_BF16_K16, SP_BF16_K32]
    # One row's own file on sm_80 is listed: that row's case leaves the shared file there, and
    # the listed name is the one it gets; on sm_90, and for the other row, nothing changes.
    own = f"{SP_BF16_K16}.sm_80.sm_80.O0.exact.ll"
    bugs = f'"22.1.8":\n  - files: generated/{own}\n    reason: a planted bug of one row\n'
    where = _spec(spec_dir, bugs)
    split = _files(where)
    assert split[own] == [SP_BF16_K16] and split[sp80] == [SP_BF16_K32]
    assert split[sp90] == plain[sp90]
    fate = expand.known_fate(where)
    assert fate(own) == ("a planted bug of one row",) and fate(sp80) == fate(sp90) == ("",)
    # A glob that names every row's file on sm_80 names the shared one too: it stays shared, XFAIL.
    bugs = '"22.1.8":\n  - files: generated/mma.*.sm_80.O0.exact.ll\n    reason: every row on sm_80\n'
    assert _files(_spec(spec_dir, bugs)) == plain
    # A glob that names the shared file alone (not the rows' own) splits every row out of it.
    bugs = '"22.1.8":\n  - files: generated/mma.sp.ptx71.llvm22.sm_80.*.ll\n    reason: the shared file\n'
    assert set(_files(_spec(spec_dir, bugs))) - set(plain) == {
        f"{SP_BF16_K16}.sm_80.sm_80.O0.exact.ll",
        f"{SP_BF16_K32}.sm_80.sm_80.O0.exact.ll",
    }


def _build_without(tmp_path: Path, llvm_bin: Path, symbol: str) -> Path:
    """A build of llvm-22's own tools whose intrinsic header lacks `symbol` (a build between two
    releases that has one row of a cohort but not another)."""
    fake = tmp_path / "llvm"
    (fake / "bin").mkdir(parents=True)
    for tool in ("llc", "opt", "llvm-mc", "llvm-as", "llvm-objdump", "FileCheck"):
        if (llvm_bin / tool).exists():
            (fake / "bin" / tool).symlink_to(llvm_bin / tool)
    include = fake / "include" / "llvm" / "IR"
    include.mkdir(parents=True)
    shutil.copy(llvm_bin.parent / "include" / "llvm" / "IR" / "IntrinsicsAMDGPU.h", include)
    text = (llvm_bin.parent / "include" / "llvm" / "IR" / "IntrinsicsNVPTX.h").read_text()
    kept = [l for l in text.splitlines(keepends=True) if not re.search(rf"//\s*{re.escape(symbol)}\s", l)]
    assert len(kept) == len(text.splitlines()) - 1
    (include / "IntrinsicsNVPTX.h").write_text("".join(kept))
    return fake / "bin"


def test_a_build_lacking_one_intrinsic_leaves_the_other_rows_runnable(
    llvm_22_1_8, nvptx_tc, ptxas_path, lit_exe, spec_dir, tmp_path, repo_root, cli
):
    where = _spec(spec_dir)
    fake = _build_without(tmp_path, llvm_22_1_8.bin_dir, "llvm.nvvm." + SP_BF16_K32)
    # lit: the file that holds the missing row is UNSUPPORTED; every other file still runs.
    suite = tmp_path / "suite"
    (suite / "cases" / "generated").mkdir(parents=True)
    shutil.copy(repo_root / "lit.cfg.py", suite / "lit.cfg.py")
    shutil.copytree(repo_root / "harness", suite / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    groups = cases.group(matrix.plan(matrix.spec_files(where)))
    for g in groups:
        (suite / "cases" / "generated" / g.filename).write_text(litgen.lit_file(g))
    proc = subprocess.run(
        [lit_exe, "-v", "--param", f"llvm_bin={fake}", "--param", f"ptxas={ptxas_path}", str(suite / "cases" / "generated")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    got = dict(
        (m.group(2), m.group(1)) for m in re.finditer(r"^(\w+): matrix-lowering :: cases/generated/(\S+\.ll) ", proc.stdout, re.M)
    )
    assert got == {
        "mma.sp.ptx71.llvm22.sm_80.O0.exact.ll": "UNSUPPORTED",
        "mma.sp.ptx71.llvm22.sm_90.O0.exact.ll": "UNSUPPORTED",
        "mma.ptx70.llvm14.sm_80.O0.exact.ll": "PASS",
        "mma.ptx70.llvm14.sm_90.O0.exact.ll": "PASS",
    }
    # The same files on the real build: every one runs and passes.
    real = subprocess.run(
        [lit_exe, "-v", "--param", f"ptxas={ptxas_path}", str(suite / "cases" / "generated")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert real.returncode == 0 and real.stdout.count("PASS: matrix-lowering") == 4, real.stdout[-3000:]
    # The runner judges each case of the shared file on its own: the missing row is unsupported,
    # its neighbour in the same file passes.
    run = cli("run", "--cases", where, "--llvm-bin", fake, "--json", env={"PTXAS": ptxas_path})
    assert run.returncode == 0, run.stderr
    verdicts = {
        (catalog.lookup(c["intrinsic"]).base or c["intrinsic"], c["cpu"], c["selector"]): (c["verdict"], c["detail"])
        for c in json.loads(run.stdout)["cases"]
    }
    unknown = (V.UNSUPPORTED, "intrinsic unknown to this build (not in its IntrinsicsNVPTX.h)")
    for cpu in ("sm_80", "sm_90"):
        assert verdicts[(SP_BF16_K32, cpu, "sdag")] == unknown
        assert verdicts[(SP_BF16_K16, cpu, "sdag")] == verdicts[(DENSE_BF16, cpu, "sdag")] == (V.PASS, "")


def test_a_shared_file_with_one_row_planted_wrong_fails_under_lit(nvptx_tc, ptxas_path, lit_exe, spec_dir, tmp_path, repo_root):
    """The shared file checks each row: one row's B group expected one register wider fails the
    whole file (a shared file hides no row's failure)."""
    where = _spec(spec_dir)
    (g,) = [g for g in cases.group(matrix.plan(matrix.spec_files(where))) if g.filename.startswith("mma.sp.ptx71.llvm22.sm_80")]
    text = litgen.lit_file(g)
    label = f"; CHECK-LABEL: {{{{[ )]}}}}{SP_BF16_K32.replace('.', '_')}_sm_80__"
    head, tail = text.split(label)
    lines = tail.split("\n")
    b = next(i for i, l in enumerate(lines) if l.startswith("; CHECK-NEXT: {") and i > 2)  # D, A, then B
    lines[b] = lines[b].replace("{%", "{%{{[a-z]+[0-9]+}}, %", 1)
    planted = head + label + "\n".join(lines)
    assert planted != text
    suite = tmp_path / "suite"
    (suite / "cases" / "generated").mkdir(parents=True)
    shutil.copy(repo_root / "lit.cfg.py", suite / "lit.cfg.py")
    shutil.copytree(repo_root / "harness", suite / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    (suite / "cases" / "generated" / "good.ll").write_text(text)
    (suite / "cases" / "generated" / "planted.ll").write_text(planted)
    proc = subprocess.run(
        [lit_exe, "-v", "--param", f"ptxas={ptxas_path}", str(suite / "cases" / "generated")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "PASS: matrix-lowering :: cases/generated/good.ll" in proc.stdout, proc.stdout[-3000:]
    assert "FAIL: matrix-lowering :: cases/generated/planted.ll" in proc.stdout, proc.stdout[-3000:]


def test_try_and_run_keep_their_verdicts_in_shared_files(nvptx_tc, ptxas_path, monkeypatch):
    """One row alone, or with its cohort in one file: the runner gives the same verdicts."""
    monkeypatch.setenv("PTXAS", ptxas_path)
    names = [SP_BF16_K16, SP_BF16_K32]
    planned = [Planned(cases.Case(catalog.lookup(n, "sm_80"), "sm_80", 0, 0, *_widths(n), 0), ("sdag",), ()) for n in names]
    together = cases.group(planned)
    assert len(together) == 1 and together[0].cohort == "mma.sp.ptx71.llvm22"
    alone = [g for p in planned for g in cases.group([p])]
    assert all(g.filename == together[0].filename for g in alone)  # a case's file is the case's own business
    first = {o.case.function: o.verdict.verdict for o in runner.Runner(nvptx_tc, 1).run(together)}
    second = {o.case.function: o.verdict.verdict for g in alone for o in runner.Runner(nvptx_tc, 1).run([g])}
    assert first == second == dict.fromkeys(first, V.PASS) and len(first) == 2


def _widths(name: str) -> tuple[int, int]:
    intr = catalog.lookup(name, "sm_80")
    return intr.a.regs[0], intr.b.regs[0]
