"""The AMDGPU processor table against the builds' own processor lists and AMDGPUUsage's words, and
cells on processors the rows do not list: `try` on any processor, the whole space of a build, and
each verdict held against its cell's expectation (expected, known bug, unexpected)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.targets import catalog, processors

BUILDS = ("14", "15", "16", "19", "22")


def _listed(version: str) -> list[str]:
    llc = Path(f"/usr/lib/llvm-{version}/bin/llc")
    if not llc.exists():
        pytest.skip(f"no llvm-{version} (ci/setup.sh --test installs it)")
    out = subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=help"], capture_output=True, text=True).stderr
    out += subprocess.run([llc, "-mtriple=amdgcn", "-mcpu=help"], capture_output=True, text=True).stdout
    block = out.split("Available CPUs for this target:")[1].split("Available features")[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("version", BUILDS)
def test_every_processor_a_build_lists_is_in_the_table_under_its_canonical_name(version):
    listed = _listed(version)
    assert len(listed) > 40
    missing = [p for p in listed if processors.canonical(p) not in processors.BY_NAME]
    assert missing == [], f"llvm-{version} lists processors the table lacks: {missing}"


def test_wave_sizes_follow_the_generation():
    """Wave64 only before GFX10 (the generation features hold FeatureWavefrontSize64); both from
    GFX10; wave32 only on GFX12.5 (FeatureISAVersion12_50 has FeatureWavefrontSize32 alone)."""
    for p in processors.AMDGPU_PROCESSORS:
        if p.generation in ("GCN", "GFX6", "GFX7", "GFX8", "GFX9", "GFX9.4", "GFX9.5"):
            assert p.waves == (64,), p
        elif p.generation == "GFX12.5":
            assert p.waves == (32,), p
        else:
            assert p.waves == (32, 64), p


# (intrinsic, processor, has it): AMDGPUUsage's generic-processor restrictions and the ISA's
# instruction predicates, written out by hand.
DOCUMENTED = [
    ("mfma.f32.32x32x8f16", "gfx9-4-generic", True),  # isGFX940Plus MAI
    ("mfma.f32.16x16x32.fp8.fp8", "gfx9-4-generic", False),  # "FP8 and BF8 instructions ... are not available"
    ("smfmac.f32.16x16x64.bf8.fp8", "gfx9-4-generic", False),
    ("mfma.f32.16x16x8.xf32", "gfx9-4-generic", False),  # "... instructions with XF32 format support"
    ("mfma.f32.16x16x32.f16", "gfx9-4-generic", False),  # gfx950's own (no FeatureGFX950Insts)
    ("smfmac.f32.16x16x32.f16", "gfx9-4-generic", True),
    ("mfma.f32.16x16x32.fp8.fp8", "gfx942", True),
    ("mfma.f32.16x16x8.xf32", "gfx950", False),  # FeatureISAVersion9_5_Common has no XF32
    ("mfma.i32.16x16x16i8", "gfx942", False),  # isGFX908orGFX90A
    ("mfma.f64.16x16x4f64", "gfx908", False),  # isGFX90APlus
    ("wmma.f32.16x16x16.f16", "gfx1151", True),  # isGFX11Only
    ("wmma.f32.16x16x16.f16", "gfx11-generic", True),
    ("wmma.f32.16x16x16.f16", "gfx12-generic", True),
    ("wmma.f32.16x16x16.f16", "gfx1250", False),  # isGFX12PlusNot12_50
    ("wmma.f32.16x16x128.f8f6f4", "gfx1251", True),  # gfx1251 = gfx1250 + FeatureDPALU_DPP
    ("swmmac.f32.16x16x32.f16", "gfx1201", True),
    ("swmmac.f32.16x16x32.f16", "gfx1103", False),
    ("mfma.f32.32x32x8f16", "gfx1100", False),
    ("mfma.f32.32x32x8f16", "fiji", False),
]


@pytest.mark.parametrize("name, cpu, has", DOCUMENTED)
def test_which_processors_have_an_instruction_follows_the_documents(name, cpu, has):
    forms = catalog.lookup_all(name)
    assert any(f.runs_on(cpu) for f in forms) == has


def test_a_wave64_form_needs_a_processor_with_wave64():
    w64 = catalog.lookup("wmma.f32.16x16x16.f16.gfx1200w64")
    assert w64.runs_on("gfx1201") and not w64.runs_on("gfx1250") and not w64.runs_on("gfx1100")


# ---- cells on any processor, judged (real LLVM 22.1.8) ----------------------------------------


def _try(cli, *args):
    proc = cli("try", *args, "--json", *(() if "--selector" in args else ("--selector", "sdag")))
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc.returncode, json.loads(proc.stdout)


def test_try_takes_a_processor_the_row_does_not_list_and_judges_it(llvm_22_1_8, cli):
    code, rec = _try(cli, "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx1100", "--selector", "sdag")
    assert (rec["verdict"], rec["expected"], rec["judgment"], code) == ("cannot-select", "llc-reject", "known-bug", 0)
    assert "signal 6" in rec["detail"]
    code, rec = _try(cli, "--intrinsic", "smfmac.f32.16x16x32.f16", "--cpu", "gfx908", "--selector", "gisel")
    assert (rec["verdict"], rec["expected"], rec["judgment"], code) == ("mc-reject", "llc-reject", "known-bug", 0)
    assert "instruction not supported on this GPU" in rec["detail"]
    # A processor the table says has it: the row's contract (gfx942's mnemonic on the generic target).
    code, rec = _try(cli, "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx9-4-generic")
    assert (rec["verdict"], rec["expected"], rec["judgment"], code) == ("pass", "pass", "expected", 0)
    # An alias is its processor.
    _, rec = _try(cli, "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "fiji")
    assert rec["cpu"] == "gfx803"


def test_no_code_is_a_verdict_and_wave64_on_gfx1250_is_a_known_bug(llvm_22_1_8, cli):
    code, rec = _try(cli, "--intrinsic", "wmma.f32.16x16x16.f16.gfx1200w64", "--cpu", "gfx1250")
    assert (rec["verdict"], rec["expected"], rec["judgment"], code) == ("no-code", "llc-reject", "known-bug", 0)


def test_an_unknown_processor_is_bad_input_in_one_line(cli):
    from conftest import one_line_exit_2

    one_line_exit_2(cli("try", "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx9-4-gen"), "gfx9-4-generic")
    one_line_exit_2(cli("try", "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "x" * 10000), "...")


def test_the_space_of_one_intrinsic_is_every_processor_the_build_lists(llvm_22_1_8, cli):
    proc = cli("run", "--space", "full", "--intrinsic", "mfma.f32.32x32x8f16", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    listed = {processors.canonical(p) for p in _listed("22")}
    cells = doc["cases"]
    assert {c["cpu"] for c in cells} == listed
    base = [c for c in cells if not c.get("args")]
    assert len(base) == len(listed) * 2 * 2  # both selectors, -O0 and -O2
    has = {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx9-4-generic"}
    # cbsz/abid/blgp values (specs/values.py) only where the instruction is.
    assert {c["cpu"] for c in cells if c.get("args")} == has
    cells = base
    assert {c["cpu"] for c in cells if c["expected"] == "pass"} == has
    assert all(c["verdict"] == "pass" for c in cells if c["cpu"] in has)
    assert doc["judgments"]["unexpected"] == 0 and sum(doc["judgments"].values()) == len(doc["cases"])


def test_an_unexpected_verdict_is_listed_first_and_fails_the_run(llvm_22_1_8, cli, shipped_cases):
    (shipped_cases / "known-bugs.yaml").write_text("{}\n")
    proc = cli("run", "--cases", shipped_cases, "--spec", "amdgpu-families.yaml", "--intrinsic", "mfma.f32.32x32x8f16")
    assert proc.returncode == 1, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("UNEXPECTED: mfma_f32_32x32x8f16") and "expected llc-reject" in lines[0]
    assert lines[-1].endswith("not judged (unsupported or timeout)") and " 0 known bug" in lines[-1]


@pytest.mark.parametrize("version", ["22", "19", "14"])
def test_every_space_entry_of_known_bugs_names_cells_of_the_full_space(repo_root, version):
    """A `space/` glob of known-bugs.yaml names cells lit has no file for: each must match the
    file name of some cell of the whole space of its build (else it is stale and does nothing)."""
    import argparse
    import fnmatch

    import yaml

    from harness.specs import cases, selection
    from harness.tools import toolchain

    if not Path(f"/usr/lib/llvm-{version}/bin/llc").exists():
        pytest.skip(f"no llvm-{version} (ci/setup.sh --test installs it)")
    tc = toolchain.discover(f"/usr/lib/llvm-{version}/bin", 60)
    flags = dict.fromkeys(("intrinsic", "selector", "fmt_a", "fmt_b", "width_a", "width_b", "opt", "cpu", "pipeline"))
    args = argparse.Namespace(**flags, filter=None, shard=None)
    planned = selection.space(args, lambda t: tc.cpus(t.registered) if t.registered in tc.targets else None)
    from harness.reports import expectations

    names = {n for g in cases.group(planned) for n in expectations._names(g)}  # (as the Judge names a cell's file)
    data = yaml.safe_load((repo_root / "cases" / "known-bugs.yaml").read_text())
    globs = [g for e in data[tc.version] for g in ([e["files"]] if isinstance(e["files"], str) else e["files"])]
    space = [g.removeprefix("space/") for g in globs if g.startswith("space/")]
    assert space
    for glob in space:
        assert any(fnmatch.fnmatchcase(n, glob) for n in names), glob


def _judged_cell(cases_dir: Path, cpu: str):
    """The judgment of an mfma.f32.32x32x8f16 cell on `cpu` whose llc gave up (sdag, -O0)."""
    from harness.core import verdicts as V
    from harness.core.commands import Selector
    from harness.reports import expectations
    from harness.specs import cases
    from harness.specs.cases import Case, Planned
    from harness.tools.runner import Outcome

    intr = catalog.lookup("mfma.f32.32x32x8f16")
    case = Case(intr, cpu, 0, 0, 4, 4)
    groups = cases.group([Planned(case, cases.SELECTORS, ())])
    outcome = Outcome(case, Selector.SDAG, V.Verdict(V.CANNOT_SELECT, "LLVM ERROR: Cannot select"))
    return expectations.Judge(cases_dir, "22.1.8", groups)(outcome), groups[0].filename


def test_a_space_glob_never_covers_a_cell_lit_has_a_file_for(tmp_path):
    """Whether lit has the file is what the specs say, never the disk: written or not, a file a
    spec makes is listed by lit's globs alone."""
    judged, name = _judged_cell(tmp_path, "gfx942")
    assert judged.judgment == "unexpected" and name == "mfma.f32.32x32x8f16.gfx942.O0.exact.ll"
    (tmp_path / "known-bugs.yaml").write_text(f'"22.1.8":\n  - files: space/{name}\n    reason: only in the space\n')
    judged = _judged_cell(tmp_path, "gfx942")[0]  # no spec makes the file: the space's glob applies
    assert judged.judgment == "known-bug" and judged.reason == "only in the space"
    (tmp_path / "s.yaml").write_text("matrix:\n  - intrinsic: mfma.f32.32x32x8f16\n    cpu: gfx942\n    opt: 0\n")
    assert _judged_cell(tmp_path, "gfx942")[0].judgment == "unexpected"  # before expand writes it
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / name).write_text("; lit's file\n")
    assert _judged_cell(tmp_path, "gfx942")[0].judgment == "unexpected"  # and after
    (tmp_path / "known-bugs.yaml").write_text(f'"22.1.8":\n  - files: generated/{name}\n    reason: lit XFAILs it\n')
    assert _judged_cell(tmp_path, "gfx942")[0].judgment == "known-bug"


def test_the_space_takes_an_alias_refuses_an_unknown_processor_and_a_spec(llvm_22_1_8, cli):
    from conftest import one_line_exit_2

    base = ("run", "--space", "full", "--intrinsic", "mfma.f32.32x32x8f16", "-O", "0", "--selector", "sdag")
    doc = json.loads(cli(*base, "--cpu", "fiji", "--json").stdout)
    assert [c["cpu"] for c in doc["cases"]] == ["gfx803"] and doc["selection"]["space"] == "full"
    one_line_exit_2(cli(*base, "--cpu", "gfx9-4-gen"), "did you mean gfx9-4-generic")
    one_line_exit_2(cli(*base, "--spec", "nvptx-mma.yaml"), "--space full")


def test_bisect_run_over_the_space_votes_on_the_processors_the_build_lists(llvm_22_1_8, cli):
    args = ("bisect-run", "--llvm-bin", llvm_22_1_8.bin_dir, "--space", "full", "--intrinsic", "mfma.f32.32x32x8f16")
    proc = cli(*args, "-O", "0", "--selector", "sdag")
    # gfx940 and gfx941 are in the table but not in 22.1.8: no skip for them; the known bugs vote bad.
    assert proc.returncode == 1 and "0 unexpected, 0 not judged" in proc.stdout, proc.stdout + proc.stderr
    # A CPU whose cells are all expected votes good (mfma's value cells hold known bugs on gfx942).
    proc = cli(*args[:-1], "wmma.f32.16x16x16.f16", "-O", "0", "--selector", "sdag", "--cpu", "gfx1100")
    assert proc.returncode == 0 and "every case gives the verdict its class expects" in proc.stdout, proc.stdout + proc.stderr


def test_a_generic_processor_compiles_with_its_code_object_version_on_llvm_19(cli):
    """AMDGPUUsage: generic processors require code object version 6; llc 19 writes 5 unless told
    (`LLVM ERROR: gfx11-generic is only available on code object version 6 or better`)."""
    if not Path("/usr/lib/llvm-19/bin/llc").exists():
        pytest.skip("no llvm-19 (ci/setup.sh --test installs it)")
    args = ("--intrinsic", "wmma.f32.16x16x16.f16", "--cpu", "gfx11-generic", "--llvm-bin", "/usr/lib/llvm-19/bin")
    code, rec = _try(cli, *args)
    assert (rec["verdict"], rec["judgment"], code) == ("pass", "expected", 0), rec["detail"]
    assert "--amdhsa-code-object-version=6" in rec["tools"][0]["argv"]


def test_the_representative_space_is_the_row_s_processors_and_one_of_each_generation_without_it():
    """Written out from the tables: the row's own CPUs, then per generation the first processor
    without the instruction that is not a generic target (GCN has only generic ones)."""
    from harness.specs import selection
    from harness.targets import sms

    amdgpu = [p.name for p in processors.AMDGPU_PROCESSORS]
    got = selection.representatives(catalog.lookup_all("mfma.f32.32x32x8f16"), amdgpu)
    assert got == [
        *("gfx600", "gfx700", "gfx801", "gfx900", "gfx908", "gfx90a", "gfx942", "gfx950"),
        *("gfx1010", "gfx1030", "gfx1100", "gfx1150", "gfx1200", "gfx1250"),
    ]
    nvptx = [s.name for s in sms.NVPTX_SMS]
    got = selection.representatives(catalog.lookup_all("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32"), nvptx)
    assert got == [
        *("sm_20", "sm_30", "sm_50", "sm_60", "sm_70", "sm_80", "sm_90"),
        *("sm_100", "sm_110", "sm_120", "sm_120a"),
    ]


def test_a_run_or_try_that_judges_no_cell_exits_2_saying_why(cli):
    # LLVM 19 does not know gfx950: every cell of the scaled MFMA is unsupported there.
    if not Path("/usr/lib/llvm-19/bin/llc").exists():
        pytest.skip("no llvm-19 (ci/setup.sh --test installs it)")
    name = ("--intrinsic", "mfma.scale.f32.16x16x128.f8f6f4", "--llvm-bin", "/usr/lib/llvm-19/bin", "-O", "0")
    for args in (("run", *name), ("try", *name, "--cpu", "gfx950", "--fmt-a", "fp8", "--fmt-b", "fp8")):
        proc = cli(*args)
        last = proc.stderr.strip().splitlines()[-1]
        assert proc.returncode == 2, proc.stdout[-500:] + proc.stderr
        assert last.startswith(f"harness {args[0]}: error: nothing judged: this build cannot judge any of the "), last
        assert last.endswith("this LLVM build does not know CPU gfx950"), last
        assert "Traceback" not in proc.stderr and proc.stdout.strip(), proc.stdout  # (the report is still printed)
    # A matrix of builds none of which can judge a cell says so too.
    proc = cli("matrix", *name[:2], "--cpu", "gfx950", "--fmt-a", "fp8", "--fmt-b", "fp8", *name[2:])
    last = proc.stderr.strip().splitlines()[-1]
    assert proc.returncode == 2 and last.startswith("harness matrix: error: nothing judged: no build can judge any of the "), last
    assert last.endswith("this LLVM build does not know CPU gfx950") and proc.stdout.strip(), proc.stdout
    # A reader that leaves at once gets the same status (decided before the answer is printed),
    # and a stderr that takes nothing (`2>/dev/full`) does not change it.
    import harness

    checkout = Path(harness.__file__).resolve().parent.parent
    argv = [sys.executable, "-m", "harness", "run", *name]
    matrix = [
        sys.executable,
        "-m",
        "harness",
        "matrix",
        *name[:2],
        "--cpu",
        "gfx950",
        "--fmt-a",
        "fp8",
        "--fmt-b",
        "fp8",
        *name[2:],
    ]
    for command in (argv, matrix):
        with subprocess.Popen(command, cwd=checkout, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as left:
            left.stdout.close()
            said = left.stderr.read()
            assert left.wait(timeout=600) == 2 and said.strip().splitlines()[-1].startswith(
                f"harness {command[3]}: error: nothing judged: "
            ), said
    with open("/dev/full", "w") as full:
        assert subprocess.run(argv, cwd=checkout, stdout=subprocess.DEVNULL, stderr=full, timeout=600).returncode == 2
    # One judged cell is enough for the usual status, whatever stderr takes.
    one = ("try", "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx908", "--llvm-bin", "/usr/lib/llvm-19/bin")
    proc = cli(*one)
    assert proc.returncode == 0 and "nothing judged" not in proc.stderr, proc.stdout + proc.stderr
    with open("/dev/full", "w") as full:
        assert (
            subprocess.run(
                [sys.executable, "-m", "harness", *one], cwd=checkout, stdout=subprocess.DEVNULL, stderr=full, timeout=600
            ).returncode
            == 0
        )
