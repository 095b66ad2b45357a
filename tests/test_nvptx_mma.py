"""NVPTX mma rows (harness.targets.nvptx_rows) through the one pipeline: the rows against the PTX
ISA's fragment arithmetic and the build's own intrinsic list, the IR of fragment operands, PTX
parsing (brace groups, ptxas' located errors, the verifier naming a declaration), module
batching, and the runner's verdicts, `try`, and lit files from real llc and ptxas — plus a
planted wrong register count that lit catches and a planted wrong instruction the runner names.

Real tools only: tests that need llc with NVPTX or ptxas skip without them, unless $CI is set,
where their absence fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.checks import litgen
from harness.specs import cases, emit
from harness.specs.cases import Case, FileClass, Planned
from harness.targets import NVPTX, catalog, nvptx_rows
from harness.tools import declared, runner, toolchain
from harness.tools import verdicts as V

K16_BF16 = "mma.m16n8k16.row.col.bf16"
K8_F16 = "mma.m16n8k8.row.col.f16.f16"
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32}
K = {"m16n8k16": 16, "m16n8k8": 8}


def _case(name: str, cpu: str = "sm_90", width_a: int | None = None, elem_a: str = "", opt: int = 0) -> Case:
    intr = catalog.lookup(name)
    return Case(intr, cpu, 0, 0, width_a or intr.a.regs[0], intr.b.regs[0], opt, elem_a=elem_a)


# ---- the rows -------------------------------------------------------------------------------------


def test_registers_are_the_fragment_arithmetic_of_the_ptx_isa():
    """Per lane: A holds 16·K/32 elements, B K·8/32, C and D 16·8/32, packed into 32-bit
    registers. The rows list the counts; this derives them from the shape and the types."""
    assert len(nvptx_rows.ROWS) == 7
    for row in nvptx_rows.ROWS:
        k = K[row.shape]
        regs = lambda elements, ty: elements * BITS[ty] // 32
        assert row.regs == (regs(4, row.d), regs(16 * k // 32, row.a), regs(k * 8 // 32, row.b), regs(4, row.c)), row


def test_rows_are_declared_by_llvm_22_under_their_names(llvm_22_1_8):
    names = declared.header_names(llvm_22_1_8, NVPTX)
    assert names is not None and {NVPTX.intrinsic_prefix + r.name for r in nvptx_rows.ROWS} <= names


def test_catalog_entries_of_the_rows():
    k16, k8 = catalog.lookup(K16_BF16), catalog.lookup(K8_F16)
    assert (k16.symbol, k16.cpus, k16.absent_cpu, k16.target) == ("llvm.nvvm." + K16_BF16, NVPTX.cpus, "sm_75", NVPTX)
    assert k16.mnemonics("sm_90") == ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",)
    assert k16.tuple_widths == {"D": (0, 4), "A": (1, 4), "B": (2, 2), "C": (3, 4)}
    # f16 at k8 came with sm_75: its absent SM is sm_70; f16 accumulate is two <2 x half> registers.
    assert (k8.absent_cpu, k8.result, k8.acc_type) == ("sm_70", "{<2 x half>, <2 x half>}", "<2 x half>")
    assert catalog.lookup("llvm.nvvm." + K8_F16) is k8


def test_fragment_operands_are_one_per_register():
    text = emit.module([_case(K8_F16)]).text
    fn = "mma_m16n8k8_row_col_f16_f16__a_f16_v2__b_f16_v1"
    assert f"define {{<2 x half>, <2 x half>}} @{fn}(<2 x half> %a0, <2 x half> %a1, <2 x half> %b0, <2 x half> %c0" in text
    assert "@llvm.nvvm.mma.m16n8k8.row.col.f16.f16(<2 x half> %a0, <2 x half> %a1, <2 x half> %b0, " in text
    assert "declare {<2 x half>, <2 x half>} @llvm.nvvm.mma.m16n8k8.row.col.f16.f16(<2 x half>, <2 x half>, " in text
    short, retyped = _case(K16_BF16, width_a=1), _case(K16_BF16, elem_a="float")
    assert (short.file_class, retyped.file_class) == (FileClass.ILLEGAL, FileClass.ILLEGAL)
    assert (short.signature, retyped.signature, _case(K16_BF16).signature) == (".a1xi32", ".a4xfloat", "")
    assert emit.callee(short)[1] == "i32, i32, i32, float, float, float, float"


def test_cases_declaring_an_intrinsic_differently_never_share_a_module():
    planned = [Planned(c, ("sdag",), ()) for c in (_case(K16_BF16), _case(K16_BF16, width_a=1), _case(K16_BF16, elem_a="float"))]
    groups = cases.group(planned)
    assert len({g.filename for g in groups}) == 3
    modules = runner.batches(groups)
    assert sorted(len(m.members) for m in modules) == [1, 1, 1]
    for m in modules:  # each module is valid IR as far as declarations go
        assert len(emit.declarations([c for _, c in m.members])) == 1


# ---- PTX as the runner reads it ----------------------------------------------------------------

PTX = """\
.visible .func  (.param .align 4 .b8 func_retval0[16]) k(
\t.param .b32 k_param_0
)
{
\tmma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32
\t\t{%r8, %r9, %r10, %r11},
\t\t{%r1, %r2},
\t\t{%r3},
\t\t{%r4, %r5, %r6, %r7};
$L__BB0_1:
\tret;
}
"""


def test_brace_groups_functions_and_located_ptxas_errors():
    body = V.split_functions(PTX, {"k"})["k"]
    assert body[-1] == "}" and "\tret;" in body  # a block label does not end the function
    found = V.instruction(body, ("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",))
    assert [V.tuple_width(o) for o in found[1]] == [4, 2, 1, 4]
    assert V.shape_mismatch(found[1], {"A": (1, 4)}) == "A {%r1, %r2} is 2 register(s), the row's 4"
    owners = V.asm_owners(PTX, {"k"})
    assert owners[5] == "k" and owners[12] == "k" and 13 not in owners
    err = "ptxas <text>, line 5; error   : Feature '.bf16' requires .target sm_80 or higher\nptxas fatal   : aborted"
    assert V.located_errors(err) == [(5, 0, "Feature '.bf16' requires .target sm_80 or higher")]
    assert V.mc_rejections(err, PTX, {"k"})[0] == {"k": "Feature '.bf16' requires .target sm_80 or higher: " + found[0]}
    assert V.fatal(err) and not V.fatal("a fatality: none")


def test_the_verifier_naming_a_declaration_on_old_and_new_builds():
    new = "Intrinsic has incorrect argument type!\nptr @llvm.nvvm.mma.m16n8k16.row.col.bf16\nllc: error: x"
    old = "Intrinsic has incorrect argument type!\n{ float } (i32, float)* @llvm.nvvm.mma.m16n8k16.row.col.bf16\n"
    for text in (new, old):
        assert list(V.declaration_diagnostics(text)) == ["llvm.nvvm.mma.m16n8k16.row.col.bf16"]
    assert V.declaration_diagnostics("ptr @x\nptr @y") == {}


# ---- the real tools ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def records(nvptx_tc, ptxas_path):
    proc = subprocess.run(
        [os.sys.executable, "-m", "harness", "run", "--spec", "nvptx-mma.yaml", "--json"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PTXAS": ptxas_path},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["cases"]


def test_every_row_passes_on_every_sm_with_ptxas_closing_it(records):
    exact = [r for r in records if r["class"] == "exact" and r["selector"] == "sdag"]
    assert len(exact) == 7 * 3 * 2
    assert {(r["verdict"], r["detail"]) for r in exact} == {(V.PASS, "")}
    for r in exact:
        row = catalog.lookup(r["intrinsic"])
        assert V.tuple_width(r["tuples"]["text"]["a"]) == row.gprs[1] and V.tuple_width(r["tuples"]["text"]["b"]) == row.gprs[2]


def test_globalisel_is_unsupported_with_llcs_own_message(records):
    gisel = [r for r in records if r["selector"] == "gisel" and r["class"] != "illegal"]
    assert gisel and {(r["verdict"], r["detail"]) for r in gisel} == {
        (V.UNSUPPORTED, "llc: error: target does not support generation of this file type")
    }


def test_an_sm_without_the_instruction_cannot_select_it(records):
    absent = [r for r in records if r["class"] == "absent" and r["selector"] == "sdag"]
    assert {r["cpu"] for r in absent} == {"sm_70", "sm_75"} and len(absent) == 7
    assert {r["verdict"] for r in absent} == {V.CANNOT_SELECT}
    assert all("Cannot select: intrinsic %llvm.nvvm.mma." in r["detail"] for r in absent)


def test_a_wrong_signature_is_a_verifier_reject_naming_the_declaration(records):
    illegal = [r for r in records if r["class"] == "illegal"]
    assert len(illegal) == 2 * 2 * 2  # two rows, one register short and another type, both selectors
    for r in illegal:
        assert r["verdict"] == V.VERIFIER_REJECT
        assert r["detail"].endswith(f"ptr @llvm.nvvm.{r['intrinsic']}")
        assert r["verifier"]["message"] in litgen.FRAGMENT_MESSAGES


def test_try_names_both_tools_and_the_register_groups(nvptx_tc, ptxas_path, cli):
    proc = cli("try", "--intrinsic", "llvm.nvvm." + K16_BF16, "--cpu", "sm_80", "--json", env={"PTXAS": ptxas_path})
    rec = json.loads(proc.stdout)
    assert (rec["verdict"], rec["cpu"], rec["target"] if "target" in rec else "nvptx") == (V.PASS, "sm_80", "nvptx")
    assert [os.path.basename(t["argv"][0]) for t in rec["tools"]] == ["llc", "ptxas"]
    assert rec["tools"][1]["argv"][1:] == ["-arch=sm_80", "-o", "/dev/null", "/dev/stdin"]
    assert rec["tuples"]["text"] == {"a": "{%r1, %r2, %r3, %r4}", "b": "{%r5, %r6}"}


def test_without_ptxas_the_verdict_says_nothing_closed_the_text(nvptx_tc, monkeypatch):
    # Fault injection: the one lookup of ptxas finds none.
    monkeypatch.setitem(toolchain.EXTERNAL, "ptxas", lambda explicit=None: "")
    groups = cases.group([Planned(_case(K16_BF16), ("sdag",), ())])
    [outcome] = runner.Runner(nvptx_tc, 1).run(groups)
    assert outcome.verdict.verdict == V.UNSUPPORTED
    assert outcome.verdict.detail.startswith("no ptxas to close llc's text")
    assert outcome.verdict.details["tuples"]["text"]["a"] == "{%r1, %r2, %r3, %r4}"


def test_ptx_holding_another_instruction_is_wrong_shape(nvptx_tc, ptxas_path, tmp_path, cli):
    # Fault injection: an llc whose PTX carries the f16 instruction where the call is bf16 (the
    # registers are alike, so ptxas takes it: only the shape check can tell).
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("opt", "llvm-mc", "llvm-as", "llvm-objdump", "FileCheck"):
        (fake / tool).symlink_to(nvptx_tc.bin_dir / tool)
    (fake / "llc").write_text(
        f'#!/bin/sh\nout=$({nvptx_tc.bin_dir / "llc"} "$@") || exit $?\n'
        "printf '%s\\n' \"$out\" | sed 's/f32.bf16.bf16.f32/f32.f16.f16.f32/'\n"
    )
    (fake / "llc").chmod(0o755)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", K16_BF16, "--cpu", "sm_90", "--json", env={"PTXAS": ptxas_path})
    rec = json.loads(proc.stdout)
    assert rec["verdict"] == V.WRONG_SHAPE, proc.stdout + proc.stderr
    assert rec["detail"] == (
        "llc selected mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, not mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    )


# ---- lit -----------------------------------------------------------------------------------------


@pytest.fixture
def suite(tmp_path, repo_root) -> Path:
    root = tmp_path / "suite"
    (root / "cases" / "generated").mkdir(parents=True)
    shutil.copy(repo_root / "lit.cfg.py", root / "lit.cfg.py")
    shutil.copytree(repo_root / "harness", root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(repo_root / "cases" / "known-bugs.yaml", root / "cases" / "known-bugs.yaml")
    return root


def _lit(lit_exe, root: Path, ptxas: str) -> dict[str, str]:
    proc = subprocess.run(
        [lit_exe, "-v", "--param", f"ptxas={ptxas}", "--param", "known_bugs=off", str(root / "cases" / "generated")],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return {
        m.group(2): m.group(1)
        for m in re.finditer(r"^(\w+): matrix-lowering :: cases/generated/(\S+\.ll) ", proc.stdout, re.MULTILINE)
    }


def _file(case: Case) -> tuple[str, str]:
    group = cases.group([Planned(case, tuple(cases.SELECTORS), ("nvptx-mma.yaml",))])[0]
    return group.filename, litgen.lit_file(group)


def test_lit_files_pass_through_real_lit_and_a_wrong_count_fails(nvptx_tc, ptxas_path, lit_exe, suite):
    files = dict(map(_file, (_case(K16_BF16, opt=2), _case(K8_F16, "sm_80"), _case(K16_BF16, "sm_80", width_a=1))))
    text = files["mma.m16n8k16.row.col.bf16.sm_90.O2.exact.ll"]
    assert "; RUN: %if ptxas %{ ptxas -arch=sm_90 -o /dev/null %t.sdag.s %}" in text
    assert "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},{{$}}" in text  # B: two registers
    assert "| FileCheck --check-prefix=NOSEL %s" in text
    # Mutation: the same file expecting B with three registers must fail.
    planted = text.replace(
        "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},",
        "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},",
    )
    assert planted != text
    files["planted.ll"] = planted
    for name, body in files.items():
        (suite / "cases" / "generated" / name).write_text(body)
    expected = {**dict.fromkeys(files, "PASS"), "planted.ll": "FAIL"}
    assert _lit(lit_exe, suite, ptxas_path) == expected
