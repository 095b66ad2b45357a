"""A pass means the instruction does what the IR asked: every constant operand's value in llc's
text, in llc's object and in llvm-mc's object of the text, as the ISA spells it.

Fault injection: a wrapper `llc` (the real one, with one modifier of its output dropped or
changed) in the text only, the object only, or both. `try`, `run` and lit must each fail it,
with the verdict `miscompile` naming the operand; the real build passes the same cases."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import fake_build, run_json

FAULT_LLC = Path(__file__).parent / "data" / "fault_llc.py"

# kind: (the case as try's flags, what the wrapper changes: pattern -> replacement, the operand named).
# Each kind's case is its own function and its pattern matches no other kind's instruction, so
# one wrapper can make every change at once (`run`, lit) and each case still shows its own.
FAULTS: dict[str, tuple[tuple[str, ...], tuple[str, str], str]] = {
    "cbsz": (("mfma.f32.16x16x1f32", "gfx942", "3=2"), (r" cbsz:2", ""), "cbsz"),
    "abid": (("mfma.f32.16x16x1f32", "gfx942", "3=1", "4=1"), (r"abid:1", "abid:0"), "abid"),
    "blgp": (("mfma.f32.16x16x1f32", "gfx942", "5=5"), (r" blgp:5", ""), "blgp"),
    "f64-neg": (("mfma.f64.16x16x4f64", "gfx942", "5=5"), (r"neg:\[1,0,1\]", "neg:[1,0,0]"), "blgp"),
    "smfmac-index-set": (("smfmac.f32.16x16x32.f16", "gfx942", "5=3"), (r" abid:3", ""), "abid"),
    "gfx11-op_sel": (("wmma.f16.16x16x16.f16.gfx1100", "gfx1100", "3=true"), (r" op_sel:\[0,0,1\]", ""), "op_sel"),
    "iu-sign": (("wmma.i32.16x16x16.iu8.gfx1100", "gfx1100", "2=true"), (r" neg_lo:\[0,1,0\]", ""), "sign_b"),
    "clamp": (("wmma.i32.16x16x16.iu8.gfx1100", "gfx1100", "5=true"), (r" clamp", ""), "clamp"),
    "c_mod-neg": (("wmma.f32.16x16x4.f32", "gfx1250", "4=1"), (r" neg_lo:\[0,0,1\]", ""), "c_mod"),
    "c_mod-abs": (("wmma.f32.16x16x4.f32", "gfx1250", "4=2"), (r" neg_hi:\[0,0,1\]", ""), "c_mod"),
    "neg-16-bit": (("wmma.f16.16x16x32.f16", "gfx1250", "0=true"), (r" neg_hi:\[1,0,0\]", ""), "neg_a"),
    "reuse": (("wmma.f32.16x16x4.f32", "gfx1250", "6=true"), (r" matrix_a_reuse", ""), "reuse_a"),
    "matrix-fmt": (("wmma.f32.16x16x128.f8f6f4", "gfx1250", "fmt:bf8"), (r" matrix_b_fmt:MATRIX_FMT_BF8", ""), "fmt_b"),
    "scale-sel": (
        ("wmma.scale.f32.16x16x128.f8f6f4", "gfx1250", "6=1", "8=%sa"),
        (r" matrix_a_scale:MATRIX_SCALE_ROW1", ""),
        "scale_sel_a",
    ),
    "scale-fmt": (("wmma.scale.f32.16x16x128.f8f6f4", "gfx1250", "7=2", "8=%sa"), (r"_E4M3", "_E5M3"), "scale_fmt_a"),
    "mfma-scale-op_sel": (
        ("mfma.scale.f32.16x16x128.f8f6f4", "gfx950", "5=1", "6=%sa", "8=%sb"),
        (r"op_sel:\[1,0,0\]", "op_sel:[0,1,0]"),
        "op_sel_a",
    ),
    "mfma-scale-dropped": (
        ("mfma.scale.f32.16x16x128.f8f6f4", "gfx950", "7=2", "6=%sa", "8=%sb"),
        (
            r"v_mfma_scale_(f32_16x16x128_f8f6f4 a\[\d+:\d+\], v\[\d+:\d+\], v\[\d+:\d+\], a\[\d+:\d+\]), v\d+, v\d+ op_sel_hi:\[0,1,0\]",
            r"v_mfma_\1",
        ),
        "scale_a",
    ),
    "scale-constant": (
        ("mfma.scale.f32.16x16x128.f8f6f4", "gfx950", "6=1", "8=1"),
        (
            r"v_mfma_scale_(f32_16x16x128_f8f6f4 a\[\d+:\d+\], v\[\d+:\d+\], v\[\d+:\d+\], a\[\d+:\d+\]), (?:v\d+|\d+), (?:v\d+|\d+) op_sel_hi:\[0,0,0\]",
            r"v_mfma_\1",
        ),
        "scale_a",
    ),
    # A modifier no operand of the call sets (the f16 WMMA's A negated): the detail names no operand.
    "spurious": (
        ("wmma.f32.16x16x16.f16.gfx1100", "gfx1100"),
        (r"(v_wmma_f32_16x16x16_f16 [^\n]*\])\n", "\\1 neg_lo:[1,0,0] neg_hi:[1,0,0]\n"),
        "",
    ),
    "mfma-fmt": (("mfma.scale.f32.16x16x128.f8f6f4", "gfx950", "fmt:bf8"), (r" blgp:1", ""), "fmt_b"),
}
MODES = ("text", "object", "both")


def try_flags(case: tuple[str, ...]) -> list[str]:
    """`harness try` flags for a FAULTS case: intrinsic, CPU, then `I=V` operands and `fmt:F` (both formats)."""
    name, cpu, *given = case
    flags = ["--intrinsic", name, "--cpu", cpu]
    fmt = next((g.split(":")[1] for g in given if g.startswith("fmt:")), "fp8" if "f8f6f4" in name else "")
    if fmt:
        flags += ["--fmt-a", fmt, "--fmt-b", fmt]
    for g in given:
        if not g.startswith("fmt:"):
            flags += ["--arg", g]
    return flags


def faulty_build(tmp_path: Path, real: Path, mode: str, changes: list[tuple[str, str]]) -> Path:
    """A build whose llc makes `changes` (pattern -> replacement) to its text, object or both."""
    subs = tmp_path / "changes.json"
    subs.write_text(json.dumps(changes))
    argv = [sys.executable, str(FAULT_LLC), str(real), mode, str(subs)]
    return fake_build(tmp_path, real, "llc", f'exec {" ".join(map(shlex.quote, argv))} "$@"\n')


def reading(mode: str) -> str:
    """Which reading a fault in `mode` shows first: the text is read before the objects."""
    return "llc's object" if mode == "object" else "llc's text"


@pytest.mark.parametrize("kind", FAULTS)
def test_the_real_build_passes_every_fault_case(llvm_22_1_8, cli, kind):
    case, _change, _operand = FAULTS[kind]
    for selector in ("sdag", "gisel"):
        doc = run_json(cli, "try", *try_flags(case), "--selector", selector)
        assert (doc["verdict"], doc["judgment"]) == ("pass", "expected"), (kind, selector, doc["detail"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", FAULTS)
def test_try_gives_miscompile_for_a_changed_modifier(llvm_22_1_8, cli, tmp_path, kind, mode):
    case, change, operand = FAULTS[kind]
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, mode, [change])
    doc = run_json(cli, "try", "--llvm-bin", fake, *try_flags(case))
    assert (doc["verdict"], doc["judgment"]) == ("miscompile", "unexpected"), (kind, mode, doc["detail"])
    assert names_the_fault(doc["detail"], operand, mode), doc["detail"]


def names_the_fault(detail: str, operand: str, mode: str) -> bool:
    """Whether a miscompile's detail names the operand (or, for a modifier no operand sets, that
    none does) and the reading the fault is in."""
    if not operand:
        return detail.startswith(f"{reading(mode)} has ") and detail.endswith(", which no operand of the call spells")
    return detail.startswith(f"{operand} is ") and f", {reading(mode)} has " in detail


def spec_text(kinds) -> str:
    """A spec of the FAULTS cases of `kinds`, one matrix block each."""
    blocks = []
    for kind in kinds:
        (name, cpu, *given), _change, _operand = FAULTS[kind]
        lines = [f"  - intrinsic: {name}", f"    cpu: {cpu}"]
        fmt = next((g.split(":")[1] for g in given if g.startswith("fmt:")), "fp8" if "f8f6f4" in name else "")
        if fmt:
            lines += [f"    fmt_a: {fmt}", f"    fmt_b: {fmt}"]
        args = [g.split("=") for g in given if "=" in g]
        if args:
            lines.append("    args: {" + ", ".join(f'{i}: "{v}"' for i, v in args) + "}")
        blocks.append("\n".join(lines))
    return "matrix:\n" + "\n".join(blocks) + "\n"


def kind_of(record: dict) -> str:
    """The FAULTS kind whose case a `run --json` record is."""
    for kind, ((name, cpu, *given), _change, _operand) in FAULTS.items():
        args = dict(g.split("=") for g in given if "=" in g)
        fmt = next((g.split(":")[1] for g in given if g.startswith("fmt:")), record["fmt_a"])
        if (record["intrinsic"], record["cpu"], record.get("args") or {}, record["fmt_a"]) == (name, cpu, args, fmt):
            return kind
    raise AssertionError(f"no FAULTS kind has the case {record['function']}")


@pytest.fixture(scope="module")
def fault_cases(tmp_path_factory, cli) -> Path:
    """cases/faults.yaml (every FAULTS case) expanded, beside a copy of lit.cfg.py and of the
    harness package (which lit.cfg.py imports from its own directory)."""
    root = tmp_path_factory.mktemp("meaning")
    repo = Path(__file__).resolve().parent.parent
    shutil.copy(repo / "lit.cfg.py", root / "lit.cfg.py")
    shutil.copytree(repo / "harness", root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "cases").mkdir()
    (root / "cases" / "faults.yaml").write_text(spec_text(FAULTS))
    proc = cli("expand", "--cases", root / "cases")
    assert proc.returncode == 0, proc.stderr
    return root


@pytest.mark.parametrize("mode", MODES)
def test_run_gives_miscompile_for_each_changed_modifier(llvm_22_1_8, cli, tmp_path, fault_cases, mode):
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, mode, [change for _case, change, _op in FAULTS.values()])
    proc = cli("run", "--llvm-bin", fake, "--cases", fault_cases / "cases", "--spec", "faults.yaml", "--json")
    assert proc.returncode == 1, proc.stderr[-2000:]  # unexpected cells
    records = json.loads(proc.stdout)["cases"]
    seen = set()
    for r in records:
        kind = kind_of(r)
        seen.add(kind)
        operand = FAULTS[kind][2]
        assert (r["verdict"], r["judgment"]) == ("miscompile", "unexpected"), (kind, mode, r["selector"], r["detail"])
        assert names_the_fault(r["detail"], operand, mode), r["detail"]
    assert seen == set(FAULTS)


def lit_file(root: Path, kind: str) -> Path:
    """The generated lit file that holds the FAULTS case of `kind`."""
    (name, cpu, *_given), _change, _operand = FAULTS[kind]
    [found] = (root / "cases" / "generated").glob(f"{name}.{cpu}.O0.exact.ll")
    return found


def lit_run(lit_exe: str, root: Path, bin_dir: Path, *tests: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [lit_exe, "-v", "--param", f"llvm_bin={bin_dir}", *map(str, tests)], cwd=root, capture_output=True, text=True, timeout=900
    )


def test_lit_passes_every_fault_file_on_the_real_build(llvm_22_1_8, lit_exe, fault_cases):
    files = sorted({lit_file(fault_cases, kind) for kind in FAULTS})
    proc = lit_run(lit_exe, fault_cases, llvm_22_1_8.bin_dir, *files)
    assert proc.returncode == 0 and proc.stdout.count("PASS: ") == len(files), proc.stdout[-3000:]
    # Each file compiles llc's object too and reads its modifiers back.
    assert all("-filetype=obj" in f.read_text() for f in files)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", FAULTS)
def test_lit_fails_the_file_of_a_changed_modifier(llvm_22_1_8, lit_exe, tmp_path, fault_cases, kind, mode):
    _case, change, _operand = FAULTS[kind]
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, mode, [change])
    proc = lit_run(lit_exe, fault_cases, fake, lit_file(fault_cases, kind))
    assert proc.returncode == 1 and "FAIL: " in proc.stdout, (kind, mode, proc.stdout[-3000:], proc.stderr[-2000:])
    # FileCheck names the check that failed: the modifiers of llc's text (CHECK) or its object (OBJ).
    prefix = "OBJ" if mode == "object" else "CHECK"
    assert re.search(rf"error: {prefix}(-SAME)?: expected string not found", proc.stdout), (kind, mode, proc.stdout[-3000:])


# ---- NVPTX: every qualifier the intrinsic implies, and the sparsity selector --------------------

# kind: (intrinsic, SM, operand overrides), the change to llc's PTX, the verdicts that fail it.
# A qualifier changed is another instruction (`wrong-shape`; ptxas may refuse it first); the
# sparsity selector changed is the row's instruction with another value (`miscompile`).
QUALIFIER = ("wrong-shape", "mc-reject")
NVPTX_FAULTS: dict[str, tuple[tuple[str, ...], tuple[str, str], tuple[str, ...]]] = {
    "layout": (("mma.m8n8k4.row.col.f16.f16", "sm_80"), (r"\.row\.col\.", ".col.col."), QUALIFIER),
    "satfinite": (("mma.m8n8k16.row.col.satfinite.s8", "sm_80"), (r"\.satfinite", ""), QUALIFIER),
    "kind": (("mma.m16n8k32.row.col.kind.f8f6f4.f16.e4m3.e4m3.f16", "sm_120a"), (r"kind::f8f6f4", "kind::mxf8f6f4"), QUALIFIER),
    "scale_vec": (
        ("mma.block.scale.m16n8k64.row.col.mxf4.scale.2x.f32.e2m1.e2m1.f32.ue8m0", "sm_120a"),
        (r"scale_vec::2X", "scale_vec::4X"),
        QUALIFIER,
    ),
    "sparse-ordered": (
        ("mma.sp.ordered.metadata.m16n8k16.row.col.bf16.sm_80", "sm_80"),
        (r"mma\.sp::ordered_metadata\.", "mma.sp."),
        QUALIFIER,
    ),
    "b1-op": (("mma.xor.popc.m8n8k128.row.col.b1", "sm_80"), (r"\.xor\.popc", ".and.popc"), QUALIFIER),
    "types": (("mma.m16n8k16.row.col.bf16", "sm_80"), (r"\.bf16\.bf16\.", ".f16.f16."), QUALIFIER),
    "sparsity-selector": (
        ("mma.sp.m16n8k16.row.col.bf16.sm_80", "sm_80", "4=1"),
        (r"(?m)^(\s+)1;$", r"\g<1>0;"),
        ("miscompile",),
    ),
}


def nvptx_flags(case: tuple[str, ...]) -> list[str]:
    name, cpu, *given = case
    return ["--intrinsic", name, "--cpu", cpu, *(f for g in given for f in ("--arg", g))]


@pytest.mark.parametrize("kind", NVPTX_FAULTS)
def test_nvptx_try_fails_a_changed_qualifier_or_selector(llvm_22_1_8, cli, tmp_path, ptxas_path, kind):
    case, change, failing = NVPTX_FAULTS[kind]
    real = run_json(cli, "try", *nvptx_flags(case))
    assert (real["verdict"], real["judgment"]) == ("pass", "expected"), (kind, real["detail"])
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, "text", [change])
    doc = run_json(cli, "try", "--llvm-bin", fake, *nvptx_flags(case))
    assert doc["verdict"] in failing and doc["judgment"] == "unexpected", (kind, doc["verdict"], doc["detail"])
    if kind == "sparsity-selector":
        assert doc["detail"] == "the sparsity selector is 1 in the IR, llc's PTX has 0 there", doc["detail"]


def test_nvptx_run_and_lit_fail_every_changed_qualifier(llvm_22_1_8, cli, lit_exe, tmp_path, ptxas_path):
    root = tmp_path / "tree"
    repo = Path(__file__).resolve().parent.parent
    (root / "cases").mkdir(parents=True)
    shutil.copy(repo / "lit.cfg.py", root / "lit.cfg.py")
    shutil.copytree(repo / "harness", root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    blocks = [f"  - intrinsic: {name}\n    cpu: {cpu}\n" + "".join(f'    args: {{{g.split("=")[0]}: "{g.split("=")[1]}"}}\n' for g in given)
              for (name, cpu, *given), _c, _f in NVPTX_FAULTS.values()]  # fmt: skip
    (root / "cases" / "ptx.yaml").write_text("matrix:\n" + "".join(blocks))
    assert cli("expand", "--cases", root / "cases").returncode == 0
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, "text", [change for _case, change, _f in NVPTX_FAULTS.values()])
    for bin_dir, want in ((llvm_22_1_8.bin_dir, 0), (fake, 1)):
        proc = cli("run", "--llvm-bin", bin_dir, "--cases", root / "cases", "--spec", "ptx.yaml", "--json")
        assert proc.returncode == want, proc.stderr[-2000:]
        records = [r for r in json.loads(proc.stdout)["cases"] if r["selector"] == "sdag"]  # (NVPTX has no GlobalISel)
        assert len(records) == len(NVPTX_FAULTS)
        for r in records:
            assert (r["verdict"] == "pass") == (want == 0), r
        lit = lit_run(lit_exe, root, bin_dir, root / "cases" / "generated")
        assert lit.returncode == want, lit.stdout[-3000:]
        if want:  # every file holds one of the changed instructions, and fails
            files = list((root / "cases" / "generated").glob("*.ll"))
            assert lit.stdout.count("FAIL: ") == len(files) > 0, lit.stdout[-3000:]


def test_bisect_run_votes_bad_on_a_miscompile_and_good_when_asked_for_one(llvm_22_1_8, cli, tmp_path, fault_cases):
    _case, change, _operand = FAULTS["cbsz"]
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, "object", [change])
    cell = ["--cases", fault_cases / "cases", "--spec", "faults.yaml", "--filter", "mfma_f32_16x16x1f32_*__arg3_2"]
    bad = cli("bisect-run", "--llvm-bin", fake, *cell)
    assert bad.returncode == 1 and "2 miscompile" in bad.stdout and "is miscompile, not pass" in bad.stdout, bad.stdout
    good = cli("bisect-run", "--llvm-bin", fake, *cell, "--want", "miscompile")
    assert good.returncode == 0 and good.stdout.startswith("bisect-run: good (exit 0)"), good.stdout
    assert cli("bisect-run", "--llvm-bin", llvm_22_1_8.bin_dir, *cell).returncode == 0


def test_an_object_with_another_instruction_than_the_text_is_a_miscompile(llvm_22_1_8, cli, lit_exe, tmp_path, fault_cases):
    # llc's object (clang's path) holds the bf16 WMMA where its text, right, has the f16 one.
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, "object", [("v_wmma_f32_16x16x16_f16 ", "v_wmma_f32_16x16x16_bf16 ")])
    doc = run_json(cli, "try", "--llvm-bin", fake, *try_flags(FAULTS["spurious"][0]))
    assert (doc["verdict"], doc["judgment"]) == ("miscompile", "unexpected"), doc["detail"]
    assert doc["detail"] == "llc's text has v_wmma_f32_16x16x16_f16, llc's object has v_wmma_f32_16x16x16_bf16"
    proc = lit_run(lit_exe, fault_cases, fake, lit_file(fault_cases, "spurious"))
    assert proc.returncode == 1 and re.search(r"error: OBJ(-SAME)?: expected string not found", proc.stdout), proc.stdout[-3000:]


def test_an_object_path_that_fails_where_the_text_does_not_is_a_crash_of_that_call_alone(llvm_22_1_8, cli, tmp_path, fault_cases):
    # llc -filetype=obj stops with an error on the f16 WMMA (the text of every call is right).
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, "object", [("v_wmma_f32_16x16x16_f16 ", "v_no_such_instruction ")])
    doc = run_json(cli, "try", "--llvm-bin", fake, *try_flags(FAULTS["spurious"][0]))
    assert (doc["verdict"], doc["judgment"]) == ("crash", "unexpected"), doc["detail"]
    assert doc["detail"].startswith("llc -filetype=obj (the object path clang takes) failed where llc's text did not: ")
    assert "invalid instruction" in doc["detail"], doc["detail"]
    # In a module of many calls, only the call whose object llc cannot write is charged.
    proc = cli("run", "--llvm-bin", fake, "--cases", fault_cases / "cases", "--spec", "faults.yaml", "--json")
    records = json.loads(proc.stdout)["cases"]
    crashed = {r["intrinsic"] for r in records if r["verdict"] == "crash"}
    assert crashed == {FAULTS["spurious"][0][0]}, [(r["function"], r["verdict"]) for r in records]
    assert all(r["verdict"] == "pass" for r in records if r["intrinsic"] not in crashed)
    assert proc.returncode == 1


def _rejecting_llc(tmp_path: Path, real: Path, pattern: str) -> Path:
    """A build whose llc rejects, cleanly, every module holding a call whose name matches
    `pattern`, and compiles the rest as the real llc does."""
    script = (
        f'case "$*" in *version*|*help*) exec {real}/llc "$@";; esac\n'
        'f=$(mktemp); cat > "$f"\n'
        f"if grep -Eq '{pattern}' \"$f\"; then rm -f \"$f\"; echo 'error: invalid value' >&2; exit 1; fi\n"
        f'exec {real}/llc "$@" < "$f"\n'
    )
    return fake_build(tmp_path, real, "llc", script)


def test_lit_rejects_each_isa_invalid_value_of_a_file_on_its_own(llvm_22_1_8, lit_exe, tmp_path):
    # One file holds three values the Calculator forbids (cbsz 7, abid 15, blgp 7); llc stops at
    # the first call it rejects, so each call must be rejected in a module of its own.
    root = tmp_path / "root"
    repo = Path(__file__).resolve().parent.parent
    (root / "cases" / "generated").mkdir(parents=True)
    shutil.copy(repo / "lit.cfg.py", root / "lit.cfg.py")
    shutil.copytree(repo / "harness", root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    name = "mfma.f32.16x16x16bf16.1k.gfx942.O0.isa-invalid.ll"
    test = root / "cases" / "generated" / name
    shutil.copy(repo / "cases" / "generated" / name, test)
    assert len(re.findall(r"^define ", test.read_text(), re.M)) == 3
    every = _rejecting_llc(tmp_path / "every", llvm_22_1_8.bin_dir, "__arg[345]_")
    proc = lit_run(lit_exe, root, every, test)
    assert proc.returncode == 0 and "PASS: " in proc.stdout, proc.stdout[-3000:]
    first = _rejecting_llc(tmp_path / "first", llvm_22_1_8.bin_dir, "__arg3_7")
    proc = lit_run(lit_exe, root, first, test)
    assert proc.returncode == 1 and "FAIL: " in proc.stdout, proc.stdout[-3000:]


@pytest.mark.parametrize("mode", MODES)
def test_a_modifier_written_at_its_default_is_no_miscompile(llvm_22_1_8, cli, tmp_path, mode):
    # `abid:0` beside `cbsz:1` encodes what the IR asks (ABID 0); a nonzero abid does not.
    flags = ("--intrinsic", "mfma.f32.32x32x1f32", "--cpu", "gfx942", "--arg", "3=1", "--selector", "sdag")
    (tmp_path / "zero").mkdir(), (tmp_path / "one").mkdir()
    fake = faulty_build(tmp_path / "zero", llvm_22_1_8.bin_dir, mode, [(r"cbsz:1", "cbsz:1 abid:0")])
    doc = run_json(cli, "try", "--llvm-bin", fake, *flags)
    assert (doc["verdict"], doc["judgment"]) == ("pass", "expected"), doc["detail"]
    fake = faulty_build(tmp_path / "one", llvm_22_1_8.bin_dir, mode, [(r"cbsz:1", "cbsz:1 abid:1")])
    doc = run_json(cli, "try", "--llvm-bin", fake, *flags)
    assert (doc["verdict"], doc["judgment"]) == ("miscompile", "unexpected"), doc["detail"]
    assert doc["detail"].startswith("abid is 0 in the IR (abid:0), "), doc["detail"]


def test_an_object_llvm_objdump_cannot_read_is_a_crash(llvm_22_1_8, cli, tmp_path):
    # llc -filetype=obj exits 0 and writes nothing.
    fake = fake_build(
        tmp_path,
        llvm_22_1_8.bin_dir,
        "llc",
        f'case "$*" in *-filetype=obj*) exit 0;; esac\nexec {llvm_22_1_8.bin_dir}/llc "$@"\n',
    )
    flags = ("--intrinsic", "mfma.f32.16x16x1f32", "--cpu", "gfx942", "--arg", "3=2", "--selector", "sdag")
    doc = run_json(cli, "try", "--llvm-bin", fake, *flags)
    assert (doc["verdict"], doc["judgment"]) == ("crash", "unexpected"), doc["detail"]
    assert doc["detail"].startswith("llvm-objdump cannot read llc's object: "), doc["detail"]


def test_bisect_run_names_an_unexpected_cell_before_a_known_bug(llvm_22_1_8, cli, tmp_path):
    # The space of this MFMA on gfx942 holds known bugs (cbsz 8 masked in the object); the one
    # cell made wrong here (cbsz 1 printed as 2) is the one a bisect is about.
    fake = faulty_build(tmp_path, llvm_22_1_8.bin_dir, "text", [(r"cbsz:1\b", "cbsz:2")])
    space = ("--space", "full", "--intrinsic", "mfma.f32.16x16x1f32", "--cpu", "gfx942", "-O", "0", "--selector", "sdag")
    proc = cli("bisect-run", "--llvm-bin", fake, *space)
    assert proc.returncode == 1 and "known bug, 1 unexpected" in proc.stdout, proc.stdout + proc.stderr
    assert "e.g. mfma_f32_16x16x1f32__a_float_v1__b_float_v1__arg3_1 [sdag] is miscompile, not pass" in proc.stdout
