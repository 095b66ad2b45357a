"""The explicit AMDGPU rows (harness/targets/amdgpu_rows.py) against sources that are not the rows.

Expected values come from the LLVM build's own generated header (IntrinsicsAMDGPU.h, read here
with a regex), from arithmetic on the IR types (bits / 32 = registers), from the ISA's field
widths (CBSZ and BLGP 3 bits, ABID 4 bits), from LLVM's assembler tests (mnemonics per CPU) and
from the real llvm-mc, run here on the very instruction the harness reports. Nothing is pasted
from a run of the harness.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import run_json, unavailable

from harness.targets import amdgpu_rows, catalog

FAMILIES = ("mfma", "smfmac", "wmma", "swmmac")
HEADER_NAME = re.compile(r"//\s*llvm\.amdgcn\.((?:mfma|smfmac|wmma|swmmac)\.[\w.]+)")
AMDGPU_CPUS = {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1200", "gfx1250"}
CDNA = ("gfx908", "gfx90a", "gfx942", "gfx950")
ELEMENT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64}
IMMARG = re.compile(r"immarg i(\d+) (\w+) (\d+)\.\.(\d+)")
SCALAR = re.compile(r"i\d+ \w+")
ROLES = {"D", "A", "B", "C", "index"}
W16 = "wmma.f32.16x16x16.f16"
F16_MFMA = "mfma.f32.32x32x8f16"
# mai.s spells it this way on gfx908/gfx90a; gfx940 renamed it (mai-gfx940.s), gfx950 keeps that.
F16_MFMA_MNEMONIC = {"gfx908": "v_mfma_f32_32x32x8f16", "gfx90a": "v_mfma_f32_32x32x8f16"}
F16_MFMA_MNEMONIC |= {"gfx942": "v_mfma_f32_32x32x8_f16", "gfx950": "v_mfma_f32_32x32x8_f16"}
# AMDGPUMfmaIntrinsic's immargs (operands 3, 4, 5) and their ISA field widths in bits.
MFMA_FIELDS = {3: ("cbsz", 3), 4: ("abid", 4), 5: ("blgp", 3)}


def header_names(bin_dir: Path) -> set[str]:
    """The matrix intrinsics (without llvm.amdgcn.) a build's IntrinsicsAMDGPU.h declares."""
    path = bin_dir.parent / "include" / "llvm" / "IR" / "IntrinsicsAMDGPU.h"
    if not path.is_file():
        unavailable(f"no {path}: the build's intrinsic header is the independent list of names")
    return set(HEADER_NAME.findall(path.read_text(errors="replace")))


def ir_bits(ir_type: str) -> int:
    m = re.fullmatch(r"<(\d+) x (\w+)>", ir_type)
    count, elem = (int(m.group(1)), m.group(2)) if m else (1, ir_type)
    if elem in ELEMENT_BITS:
        return count * ELEMENT_BITS[elem]
    m = re.fullmatch(r"i(\d+)", elem)
    assert m, f"not an IR element type: {ir_type!r}"
    return count * int(m.group(1))


def _mc_error(bin_dir: Path, cpu: str, instruction: str) -> str:
    """What the real llvm-mc says of one instruction on `cpu` ("" when it assembles)."""
    proc = subprocess.run(
        [str(bin_dir / "llvm-mc"), "-triple=amdgcn", f"-mcpu={cpu}", "-filetype=obj", "-o", "/dev/null"],
        input=instruction + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    errors = re.findall(r"error: (.*)", proc.stderr)
    assert (proc.returncode != 0) == bool(errors), proc.stderr
    return errors[0] if errors else ""


# ---- the table against the header, the ISA and arithmetic -------------------------------------


def test_the_rows_name_exactly_the_matrix_intrinsics_of_the_llvm_22_header(llvm_22_1_8):
    declared = header_names(llvm_22_1_8.bin_dir)
    names = [r.name for r in amdgpu_rows.ROWS]
    assert len(declared) == 142
    assert len(names) == len(set(names)) == 142
    assert set(names) == declared
    assert set(amdgpu_rows.BY_NAME) == declared
    for row in amdgpu_rows.ROWS:
        assert row.family == row.name.split(".")[0] and row.family in FAMILIES, row.name


@pytest.mark.parametrize("row", amdgpu_rows.ROWS, ids=lambda r: r.name)
def test_every_shape_s_registers_are_its_ir_types_bits_over_32(row):
    assert row.shapes
    for shape in row.shapes:
        d, a, b, c = shape.regs
        assert (a, b) == (ir_bits(shape.a) // 32, ir_bits(shape.b) // 32), shape
        assert (d, c) == (ir_bits(shape.result) // 32, ir_bits(shape.acc or shape.result) // 32), shape
        assert all(ir_bits(t) % 32 == 0 for t in (shape.a, shape.b, shape.result, shape.acc or shape.result)), shape
        assert set(shape.cpus) <= AMDGPU_CPUS and shape.cpus, shape
        assert not (shape.wave64 and "gfx1250" in shape.cpus), "gfx1250 has no wave64"
        assert shape.mnemonic.startswith("v_" + row.family + "_"), shape.mnemonic


@pytest.mark.parametrize("row", amdgpu_rows.ROWS, ids=lambda r: r.name)
def test_every_row_s_operands_are_well_formed(row):
    ops = row.operands
    assert [ops.count(role) for role in ("A", "B", "C")] == [1, 1, 1], ops
    assert ops.count("index") <= 1
    has_index = "index" in ops
    assert all(bool(s.index) == has_index for s in row.shapes), "an index type exactly where an index operand is"
    immarg_names = []
    for entry in ops:
        if entry in ROLES or entry in ("fmt_a", "fmt_b"):
            continue
        m = IMMARG.fullmatch(entry)
        if m:
            bits, name, low, high = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))
            assert 0 <= low <= high <= 2**bits - 1, entry
            immarg_names.append(name)
        else:
            assert SCALAR.fullmatch(entry), f"neither a role, an immarg nor a scalar: {entry!r}"
    assert len(immarg_names) == len(set(immarg_names)), immarg_names
    assert set(row.overload) <= ROLES and len(row.overload) == len(set(row.overload)), row.overload
    for shape in row.shapes:
        assert set(shape.zero) <= set(immarg_names), shape.zero


# ---- the catalog entries the rows become ----------------------------------------------------


def test_a_wmma_with_gfx11_gfx12_and_wave64_forms_has_four_entries():
    forms = catalog.lookup_all(W16)
    assert catalog.lookup_all("llvm.amdgcn." + W16) == forms
    assert len(forms) == 4
    assert {f.name for f in forms} == {f"{W16}.{t}" for t in ("gfx1100", "gfx1100w64", "gfx1200", "gfx1200w64")}
    assert all(f.symbol == "llvm.amdgcn." + W16 for f in forms)
    by_tag = {f.name.rsplit(".", 1)[1]: f for f in forms}
    # Per lane (wmma_multiple_32/64.ll): gfx11 reads all 16 halves of A and B in both wave
    # sizes; gfx12 8 in wave32, 4 in wave64. D is 16*16 floats over 32 or 64 lanes: 8 or 4.
    expected = {
        "gfx1100": ("", "<8 x float>", "<16 x half>"),
        "gfx1100w64": ("+wavefrontsize64", "<4 x float>", "<16 x half>"),
        "gfx1200": ("", "<8 x float>", "<8 x half>"),
        "gfx1200w64": ("+wavefrontsize64", "<4 x float>", "<4 x half>"),
    }
    for tag, (features, result, a) in expected.items():
        f = by_tag[tag]
        assert (f.features, f.result) == (features, result), tag
        assert f.a.ir_type(f.a.widths[0]) == a and f.b.ir_type(f.b.widths[0]) == a, tag
        assert f.cpus == (tag.removesuffix("w64"),)
    assert len({(f.features, f.result, f.a.ir_type(f.a.widths[0])) for f in forms}) == 4


@pytest.mark.parametrize("cpu", ["gfx1100", "gfx1200"])
def test_lookup_with_a_cpu_picks_the_wave32_form_that_runs_there(cpu):
    entry = catalog.lookup(W16, cpu)
    assert cpu in entry.cpus and entry.features == ""
    assert entry.name == f"{W16}.{cpu}"


@pytest.mark.parametrize("row", amdgpu_rows.ROWS, ids=lambda r: r.name)
def test_every_entry_s_absent_cpu_lacks_every_form_of_its_row(row):
    row_cpus = {cpu for shape in row.shapes for cpu in shape.cpus}
    entries = catalog._row_entries(row)
    assert entries
    for entry in entries:
        assert entry.absent_cpu in AMDGPU_CPUS - row_cpus, (entry.name, entry.absent_cpu)
        if entry.features:  # a wave64 form needs a CPU that has wave64
            assert entry.absent_cpu != "gfx1250", entry.name
    if row.name not in catalog.SEED_NAMES:  # the catalog holds these very entries
        assert [e.name for e in catalog.lookup_all(row.name)] == [e.name for e in entries]


# ---- a synthetic row: a table edit of a few lines goes all the way through --------------------


def _synthetic(a_registers: int):
    """The f16 MFMA's gfx940 form as a new one-CPU row, claiming `a_registers` registers for A."""
    from harness.specs.cases import SELECTORS, Case, Planned, group

    real = amdgpu_rows.BY_NAME[F16_MFMA]
    d, _, b, c = real.shapes[-1].regs
    shape = dataclasses.replace(real.shapes[-1], cpus=("gfx942",), regs=(d, a_registers, b, c))
    [entry] = catalog._row_entries(dataclasses.replace(real, shapes=(shape,)))
    case = Case(entry, "gfx942", 0, 0, entry.a.widths[0], entry.b.widths[0])
    [only] = group([Planned(case, SELECTORS, ("synthetic.yaml",))])
    return only


def _run_lit_lines(lit_text: str, bin_dir: Path, tmp_path: Path) -> list[subprocess.CompletedProcess]:
    """Each RUN line of a generated file, as lit would run it, with the build's own tools."""
    test = tmp_path / "t.ll"
    test.write_text(lit_text)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = []
    for line in re.findall(r"^; RUN: (.*)$", lit_text, re.M):
        command = line.replace("%s", str(test)).replace("%t", str(tmp_path / "t"))
        out.append(subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120, env=env))
    return out


def test_a_synthetic_row_with_wrong_a_registers_is_checked_and_judged_wrong_shape(llvm_22_1_8, tmp_path):
    from harness.checks import litgen
    from harness.tools import toolchain
    from harness.tools.runner import Runner

    # <4 x half> is 64 bits: two registers. The synthetic row claims three.
    wrong, right = _synthetic(3), _synthetic(2)
    text = litgen.lit_file(wrong)
    runs = re.findall(r"^; RUN: (.*)$", text, re.M)
    for sel in ("-global-isel=0", "-global-isel=1"):
        assert any(r.startswith("llc ") and "-mcpu=gfx942" in r and sel in r for r in runs), runs
    assert sum(r.startswith("FileCheck ") for r in runs) == 2
    assert sum(r.startswith("llvm-mc ") and "-mcpu=gfx942" in r for r in runs) == 2
    assert f"; CHECK: {F16_MFMA_MNEMONIC['gfx942']} " in text
    assert "; CHECK-SAME: [[#A+2]]" in text and "[[#A+1]]" not in text
    assert "; CHECK-SAME: [[#A+1]]" in litgen.lit_file(right)

    # The file's own RUN lines: llc and llvm-mc succeed, FileCheck fails on A's width alone.
    wrong_runs = _run_lit_lines(text, llvm_22_1_8.bin_dir, tmp_path)
    failed = [r for r in wrong_runs if r.returncode != 0]
    assert failed and all("FileCheck" in r.args for r in failed), [r.args for r in failed]
    assert len(failed) == 2 and all("[[#A+2]]" in r.stderr for r in failed)
    assert all(r.returncode == 0 for r in _run_lit_lines(litgen.lit_file(right), llvm_22_1_8.bin_dir, tmp_path))

    runner = Runner(toolchain.discover(str(llvm_22_1_8.bin_dir)), jobs=1)
    outcomes = runner.run([wrong])
    assert {o.selector for o in outcomes} == {"sdag", "gisel"}
    for o in outcomes:
        assert o.verdict.verdict == "wrong-shape", o.verdict.detail
        assert o.verdict.detail.startswith("A ") and "3" in o.verdict.detail, o.verdict.detail
        assert not re.search(r"(^|; )[BCD] ", o.verdict.detail), o.verdict.detail
    assert [o.verdict.verdict for o in runner.run([right])] == ["pass", "pass"]


# ---- end to end on LLVM 22.1.8 ----------------------------------------------------------------


# AMD's Matrix Instruction Calculator v1.3.1 (`dict_insts`) on v_mfma_f32_32x32x8f16 (CDNA1/2) and
# v_mfma_f32_32x32x8_f16 (CDNA3): one block, `cbsz_abid` False; `blgp` True on CDNA1/2, False on
# CDNA3. It has no CDNA4 (gfx950): there the fields keep their widths. The fields each CPU lets
# hold a non-zero value:
F16_MFMA_USABLE = {"gfx908": {"blgp"}, "gfx90a": {"blgp"}, "gfx942": set(), "gfx950": {"cbsz", "abid", "blgp"}}


def _f16_mfma_lines(bin_dir: Path, cpu: str, index: int, value: str) -> tuple[str, str]:
    """(llc's text line, llvm-objdump's line of llc's object) of the f16 MFMA with operand
    `index` set to `value`, from the real tools run here."""
    args = ["i32 0"] * 3
    args[index - 3] = f"i32 {value}"
    ir = (
        "define <16 x float> @f(<4 x half> %a, <4 x half> %b, <16 x float> %c) {\n"
        f"  %r = call <16 x float> @llvm.amdgcn.{F16_MFMA}(<4 x half> %a, <4 x half> %b, <16 x float> %c, {', '.join(args)})\n"
        "  ret <16 x float> %r\n}\n"
        f"declare <16 x float> @llvm.amdgcn.{F16_MFMA}(<4 x half>, <4 x half>, <16 x float>, i32, i32, i32)\n"
    )
    llc = [str(bin_dir / "llc"), "-mtriple=amdgcn", f"-mcpu={cpu}", "-O0", "-global-isel=0"]
    text = subprocess.run(llc, input=ir, capture_output=True, text=True, timeout=60, check=True).stdout
    obj = subprocess.run([*llc, "-filetype=obj"], input=ir.encode(), capture_output=True, timeout=60, check=True).stdout
    dis = subprocess.run([str(bin_dir / "llvm-objdump"), "-d", "-"], input=obj, capture_output=True, timeout=60, check=True)
    line = lambda out: next(l.split("//")[0].strip() for l in out.splitlines() if F16_MFMA_MNEMONIC[cpu] + " " in l)
    return line(text), line(dis.stdout.decode())


def test_run_f16_mfma_rows_pass_legal_immargs_and_judge_the_rest_against_the_isa(llvm_22_1_8, cli, shipped_cases):
    doc = run_json(cli, "run", "--cases", shipped_cases, "--spec", "amdgpu-families.yaml", "--intrinsic", F16_MFMA, "-j", "2")
    assert doc["llvm"] == llvm_22_1_8.version
    records = doc["cases"]
    assert records and {r["intrinsic"] for r in records} == {F16_MFMA}
    by_class: dict[str, list] = {}
    for r in records:
        by_class.setdefault(r["class"], []).append(r)
    assert set(by_class) == {"exact", "isa-invalid", "immarg-range", "absent"}

    high = {(i, str(2**bits - 1)) for i, (_, bits) in MFMA_FIELDS.items()}
    outside = {(i, str(2**bits)) for i, (_, bits) in MFMA_FIELDS.items()}
    for cpu in CDNA:
        usable = {(i, v) for i, v in high if MFMA_FIELDS[i][0] in F16_MFMA_USABLE[cpu]}
        for sel in ("sdag", "gisel"):
            exact = [r for r in by_class["exact"] if (r["cpu"], r["selector"]) == (cpu, sel)]
            assert exact and {r["verdict"] for r in exact} == {"pass"}, (cpu, sel)
            assert {tuple(a) for r in exact for a in (r.get("args") or {}).items()} == {(str(i), v) for i, v in usable}
            # A value the field holds but the Calculator forbids on this instruction: LLVM 22
            # compiles it (pass) where a clean rejection is expected, a known bug.
            invalid = [r for r in by_class.get("isa-invalid", []) if (r["cpu"], r["selector"]) == (cpu, sel)]
            assert {tuple(a) for r in invalid for a in r["args"].items()} == {(str(i), v) for i, v in high - usable}
            for r in invalid:
                assert (r["verdict"], r["expected"], r["judgment"]) == ("pass", "llc-reject", "known-bug"), r
            ranged = [r for r in by_class["immarg-range"] if (r["cpu"], r["selector"]) == (cpu, sel)]
            assert {tuple(a) for r in ranged for a in r["args"].items()} == {(str(i), v) for i, v in outside}
            for r in ranged:
                # Past the field: llc's text names the value and llvm-mc refuses it, but llc's
                # own object holds the field's low bits (0): a silent miscompile.
                assert (r["verdict"], r["judgment"]) == ("miscompile", "known-bug"), r
                [(index, value)] = r["args"].items()
                field = MFMA_FIELDS[int(index)][0]
                assert r["detail"].startswith(f"{field} is {value} in the IR") and "llc's object has" in r["detail"], r
                if sel == "sdag":
                    text, obj = _f16_mfma_lines(llvm_22_1_8.bin_dir, cpu, int(index), value)
                    assert f"{field}:{value}" in text and f"{field}:" not in obj, (text, obj)
                    assert _mc_error(llvm_22_1_8.bin_dir, cpu, text), text

    absent = by_class["absent"]
    assert {r["selector"] for r in absent} == {"sdag", "gisel"}
    assert len({r["cpu"] for r in absent}) == 1 and absent[0]["cpu"] in AMDGPU_CPUS - set(CDNA)
    for r in absent:
        assert r["verdict"] == "cannot-select" and "annot select" in r["detail"], r


def test_try_smfmac_on_gfx90a_gisel_prints_code_llvm_mc_rejects_sdag_cannot_select(llvm_22_1_8, cli):
    name = "smfmac.f32.16x16x32.f16"
    gisel = run_json(cli, "try", "--intrinsic", name, "--cpu", "gfx90a", "--selector", "gisel")
    assert (gisel["cpu"], gisel["selector"], gisel["class"]) == ("gfx90a", "gisel", "absent")
    assert gisel["verdict"] == "mc-reject"
    message, instruction = gisel["detail"].split(": ", 1)
    assert message == "instruction not supported on this GPU"
    assert instruction.startswith("v_smfmac_f32_16x16x32_f16 ")
    # The real assembler agrees: gfx90a has no SMFMAC, gfx942 assembles the same line.
    assert _mc_error(llvm_22_1_8.bin_dir, "gfx90a", instruction) == message
    assert _mc_error(llvm_22_1_8.bin_dir, "gfx942", instruction) == ""
    sdag = run_json(cli, "try", "--intrinsic", name, "--cpu", "gfx90a", "--selector", "sdag")
    assert sdag["verdict"] == "cannot-select" and "annot select" in sdag["detail"], sdag["detail"]


# ---- an older build: real verdicts for what it has, `unsupported` for what its header lacks ---


def test_llvm14_judges_an_mfma_it_declares_and_calls_one_it_lacks_unknown(llvm14, cli):
    known = header_names(llvm14)
    lacking = "mfma.f32.16x16x32.bf8.bf8"  # a gfx940 MFMA, newer than LLVM 14
    assert F16_MFMA in known and lacking not in known

    rec = run_json(cli, "try", "--intrinsic", F16_MFMA, "--cpu", "gfx908", "--llvm-bin", llvm14)
    assert rec["verdict"] == "pass", rec["detail"]
    assert rec["llvm"].split(".")[0] == "14"
    ran = {Path(t["argv"][0]).name: t for t in rec["tools"]}
    assert {"llc", "llvm-mc"} <= set(ran)
    assert all(Path(t["argv"][0]).parent == llvm14 for t in rec["tools"])
    assert ran["llc"]["returncode"] == 0 and ran["llvm-mc"]["returncode"] == 0

    rec = run_json(cli, "try", "--intrinsic", lacking, "--cpu", "gfx90a", "--llvm-bin", llvm14)
    assert rec["verdict"] == "unsupported"
    assert "unknown to this build" in rec["detail"] and "IntrinsicsAMDGPU.h" in rec["detail"], rec["detail"]
    assert rec["tools"] == []  # decided from the header: nothing was run


# ---- shapes of one IR signature --------------------------------------------------------------


def test_every_shape_of_a_row_keeps_its_own_registers(monkeypatch):
    """Two shapes of one IR signature with different registers are two entries: the second
    shape's registers are not dropped for the first's."""
    import dataclasses

    from harness.targets import amdgpu_rows, catalog

    row = amdgpu_rows.BY_NAME[F16_MFMA]
    first, second = row.shapes[0], row.shapes[1]
    assert (first.result, first.a, first.b) == (second.result, second.a, second.b)  # one signature
    wider = dataclasses.replace(second, regs=(second.regs[0], second.regs[1] + 1, *second.regs[2:]))
    entries = catalog._row_entries(dataclasses.replace(row, shapes=(first, wider)))
    assert len(entries) == 2
    assert {e.gprs[1] for e in entries} == {first.regs[1], first.regs[1] + 1}
    assert {c for e in entries if e.gprs[1] == first.regs[1] + 1 for c in e.cpus} == set(wider.cpus)
