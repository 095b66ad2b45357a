"""The case-class dimensions of a spec (pipeline, check, args, elem_a/elem_b, narrowing,
split_selectors): located validation errors, and which generated file each case lands in.

Expected file names and classes are written out by hand from the documented naming scheme
`<intrinsic>.<cpu>.O<n>[.<pipeline>].<class>[.<selector>].ll`; nothing here asks the harness what
it would name a file.
"""

from __future__ import annotations

import re

import pytest

from harness.checks import expand

W, M = "wmma.f32.16x16x128.f8f6f4", "mfma.scale.f32.16x16x128.f8f6f4"
WF, MF = f"{W}.gfx1250.O0", f"{M}.gfx950.O0"


def _one_located_line(proc, spec, line, col, fragment):
    out = (proc.stdout + proc.stderr).strip().splitlines()
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(out) == 1, out
    assert f"{spec}:{line}:{col}: error: " in out[0], out[0]
    assert fragment in out[0], out[0]


# ---- validation of the new keys: one located line, exit 2, nothing written -------------------

# id -> (block text after "  - intrinsic: X\n", intrinsic, line, col, fragment)
BAD_BLOCKS = {
    "check-ir-without-pipeline": ("    check: ir\n", W, 2, 5, "pipeline"),
    "check-ir-with-none-among-pipelines": (
        "    check: ir\n    pipeline: [instcombine, none]\n",
        W,
        2,
        5,
        "check: ir needs a pipeline",
    ),
    "args-on-an-mfma-source": ("    fmt_a: fp8\n    fmt_b: fp8\n    args: {0: 5}\n", M, 5, 12, "source"),
    "args-boolean-format": ("    fmt_a: fp8\n    fmt_b: fp8\n    args: {fmt_a: true}\n", W, 5, 19, "an integer"),
    "args-word-format": ("    fmt_a: fp8\n    fmt_b: fp8\n    args: {fmt_a: x1}\n", W, 5, 19, "'x1'"),
    "args-unknown-role": ("    args: {fmt_c: 1}\n", W, 3, 12, "fmt_c"),
    "args-index-out-of-range": ("    args: {17: 1}\n", W, 3, 12, "0..5"),
    "args-alternative-not-a-mapping": ("    args: [{fmt_a: 1}, 3]\n", W, 3, 24, "args"),
    "elem-not-an-ir-type": ("    elem_a: int\n", W, 3, 13, "'int'"),
    "narrowing-slice": ("    narrowing: slice\n", W, 3, 16, "'slice'"),
    "check-unknown-in-list": ("    check: [codegen, assembly]\n", W, 3, 22, "'assembly'"),
    "pipeline-with-space": ("    pipeline: 'a b'\n", W, 3, 15, "pipeline"),
    "split-selectors-not-boolean": ("    split_selectors: maybe\n", W, 3, 22, "'maybe'"),
}


@pytest.mark.parametrize("body,intrinsic,line,col,fragment", BAD_BLOCKS.values(), ids=BAD_BLOCKS.keys())
def test_bad_case_class_key_is_one_located_line_and_exit_2(cli, spec_dir, body, intrinsic, line, col, fragment):
    cases_dir = spec_dir({"bad.yaml": f"matrix:\n  - intrinsic: {intrinsic}\n{body}"})
    proc = cli("expand", "--cases", cases_dir)
    _one_located_line(proc, cases_dir / "bad.yaml", line, col, fragment)
    assert not (cases_dir / "generated").exists()


# ---- one spec exercising every dimension: which files come out ------------------------------

CLASSES_SPEC = f"""\
matrix:
  - intrinsic: {W}          # badformat: format operand out of range, two alternatives
    fmt_a: fp8
    fmt_b: fp8
    args: [{{fmt_a: 5}}, {{fmt_b: 9999}}]
  - intrinsic: {W}          # nonconst
    fmt_a: fp8
    fmt_b: fp8
    args: {{fmt_b: "%fmt"}}
  - intrinsic: {W}          # illegal by element type and by width
    fmt_a: fp4
    fmt_b: fp8
    elem_a: i64
  - intrinsic: {W}
    fmt_a: fp4
    fmt_b: fp8
    width_a: 10
  - intrinsic: {M}          # diagnostic, one file per rejected side
    check: diagnostic
    args: {{5: 2}}
    fmt_a: fp8
    fmt_b: bf8
    width_b: underwide
  - intrinsic: {M}
    check: diagnostic
    args: {{5: 2}}
    fmt_a: bf8
    fmt_b: fp8
    width_a: underwide
  - intrinsic: {W}          # ir, and ir-malformed when the call is verifier-invalid
    check: ir
    pipeline: instcombine
    fmt_a: fp4
    fmt_b: fp8
    width_a: [exact, max]
  - intrinsic: {W}
    check: ir
    pipeline: instcombine
    fmt_a: fp4
    fmt_b: fp8
    width_a: [exact, max]
    args: {{fmt_a: 5}}
  - intrinsic: {W}          # narrowing, each selector in its own file
    narrowing: [shufflevector, vector.extract]
    split_selectors: true
    fmt_a: fp4
    fmt_b: fp6
    width_a: max
    width_b: max
  - intrinsic: {W}          # a codegen pipeline shows up in the name
    pipeline: instcombine
    fmt_a: fp4
    fmt_b: fp4
    width_a: 16
    width_b: 16
"""

EXPECTED_FILES = {
    f"{WF}.badformat.ll": 2,
    f"{WF}.nonconst.ll": 1,
    f"{WF}.illegal.ll": 2,
    f"{MF}.diagnostic-a.ll": 2,
    f"{MF}.diagnostic-b.ll": 2,
    f"{WF}.instcombine.ir.ll": 2,
    f"{WF}.instcombine.ir-malformed.ll": 2,
    f"{WF}.narrowed-shufflevector.sdag.ll": 1,
    f"{WF}.narrowed-shufflevector.gisel.ll": 1,
    f"{WF}.narrowed-vector-extract.sdag.ll": 1,
    f"{WF}.narrowed-vector-extract.gisel.ll": 1,
    f"{WF}.instcombine.overwide.ll": 1,
}


@pytest.fixture(scope="module")
def classes_dir(tmp_path_factory):
    """CLASSES_SPEC expanded into a private cases directory; its generated/ folder."""
    out = tmp_path_factory.mktemp("classes") / "cases"
    out.mkdir()
    (out / "classes.yaml").write_text(CLASSES_SPEC)
    expand.write(out, expand.render(out))
    return out / "generated"


def _functions(text: str) -> list[str]:
    return re.findall(r"^define \S+ void @(\w+)\(", text, re.M)


def test_every_dimension_lands_in_its_documented_file(classes_dir):
    found = {p.name: len(_functions(p.read_text())) for p in classes_dir.glob("*.ll")}
    assert found == EXPECTED_FILES


@pytest.mark.parametrize(
    "name,needles",
    [
        (
            f"{WF}.badformat.ll",
            [
                "__arg0_5(",
                "(i32 5, <16 x i32> %a",
                "__arg2_9999(",
                "i32 9999, <16 x i32> %b",
                "; CHECK: invalid value for matrix format",
            ],
        ),
        (
            f"{WF}.nonconst.ll",
            [
                "__arg2_var_fmt(",
                "ptr addrspace(1) %out, i32 %fmt)",
                "i32 %fmt, <16 x i32> %b",
                "; CHECK: immarg operand has non-immediate parameter",
            ],
        ),
        (
            f"{WF}.illegal.ll",
            ["<8 x i64> %a", "a_fp4_v8xi64", "<10 x i32> %a", "; CHECK: operand 1 must be 8, 12 or 16 element i32 vector"],
        ),
        (f"{MF}.diagnostic-b.ll", ["<4 x i32> %b", "i32 0, i32 1, i32 2, i32 0"]),
        (
            f"{WF}.narrowed-vector-extract.gisel.ll",
            [
                "@llvm.vector.extract.v8i32.v16i32(<16 x i32> %a, i64 0)",
                "@llvm.vector.extract.v12i32.v16i32(<16 x i32> %b, i64 0)",
                "-global-isel=1 -global-isel-abort=1",
            ],
        ),
        (
            f"{WF}.narrowed-shufflevector.sdag.ll",
            [
                "shufflevector <16 x i32> %b, <16 x i32> poison, <12 x i32>",
                ".v8f32.v8i32.v12i32(i32 4, <8 x i32> %a.narrow, i32 2, <12 x i32> %b.narrow",
                "-global-isel=0",
            ],
        ),
        (
            f"{WF}.instcombine.overwide.ll",
            ["opt -mtriple=amdgcn -mcpu=gfx1250 -passes=instcombine < %s | llc ", "<16 x i32> %a, i32 4, <16 x i32> %b"],
        ),
    ],
)
def test_generated_file_holds_the_calls_its_dimensions_ask_for(classes_dir, name, needles):
    text = (classes_dir / name).read_text()
    missing = [n for n in needles if n not in text]
    assert missing == [], text


@pytest.mark.parametrize(
    "name,runs_as,not_in",
    [
        (f"{WF}.badformat.ll", "not llvm-as -disable-output %s", "llc"),
        (f"{MF}.diagnostic-a.ll", "not llvm-as -disable-output %s", "llc"),
        (f"{WF}.instcombine.ir.ll", "-passes=instcombine -S -o %t.once.ll < %s", "-disable-verify"),
        (f"{WF}.instcombine.ir-malformed.ll", "-disable-verify -passes=instcombine -S", "llc"),
    ],
)
def test_run_lines_follow_the_file_class(classes_dir, name, runs_as, not_in):
    runs = [line for line in (classes_dir / name).read_text().splitlines() if line.startswith("; RUN:")]
    assert any(runs_as in r for r in runs), runs
    assert not any(not_in in r for r in runs), runs


def test_split_selectors_give_each_selector_its_own_run_lines(classes_dir):
    for sel, flag, other in (("sdag", "-global-isel=0", "-global-isel=1"), ("gisel", "-global-isel=1", "-global-isel=0")):
        text = (classes_dir / f"{WF}.narrowed-shufflevector.{sel}.ll").read_text()
        runs = [line for line in text.splitlines() if line.startswith("; RUN:")]
        # llc's text (FileCheck, llvm-mc), then its object (llvm-objdump, FileCheck).
        assert len(runs) == 5 and all(flag in r for r in runs if "llc" in r) and not any(other in r for r in runs), runs


def test_same_block_without_split_selectors_shares_one_file(cli, spec_dir):
    spec = (
        f"matrix:\n  - intrinsic: {W}\n    narrowing: shufflevector\n    fmt_a: fp4\n    fmt_b: fp6\n"
        "    width_a: max\n    width_b: max\n"
    )
    cases_dir = spec_dir({"n.yaml": spec})
    assert cli("expand", "--cases", cases_dir).returncode == 0
    assert [p.name for p in (cases_dir / "generated").glob("*.ll")] == [f"{WF}.narrowed-shufflevector.ll"]


def test_pipeline_name_is_sanitized_into_the_file_name(cli, spec_dir):
    spec = (
        f"matrix:\n  - intrinsic: {W}\n    pipeline: 'function(instcombine)'\n    fmt_a: fp4\n"
        "    fmt_b: fp4\n    width_a: 16\n    opt: 2\n"
    )
    cases_dir = spec_dir({"p.yaml": spec})
    assert cli("expand", "--cases", cases_dir).returncode == 0
    (only,) = (cases_dir / "generated").glob("*.ll")
    # Punctuation is replaced and a digest of the pipeline text keeps names distinct.
    assert re.fullmatch(rf"{re.escape(W)}\.gfx1250\.O2\.function-instcombine-[0-9a-f]{{6}}\.overwide\.ll", only.name), only.name
    assert "'-passes=function(instcombine)' < %s | llc -O2 " in only.read_text()


# ---- harness bugs -------------------------------------------------------------------------


def test_diagnostic_check_without_a_rejected_case_is_a_located_error(cli, spec_dir):
    cases_dir = spec_dir({"d.yaml": f"matrix:\n  - intrinsic: {W}\n    check: diagnostic\n    fmt_a: fp8\n    fmt_b: fp8\n"})
    proc = cli("expand", "--cases", cases_dir)
    _one_located_line(proc, cases_dir / "d.yaml", 2, 5, "diagnostic")


def test_distinct_pipelines_never_share_a_generated_file(cli, spec_dir):
    spec = (
        f"matrix:\n  - intrinsic: {W}\n    pipeline: ['function(instcombine,dce)', 'function(instcombine),dce']\n"
        "    fmt_a: fp4\n    fmt_b: fp4\n    selector: sdag\n"
    )
    cases_dir = spec_dir({"p.yaml": spec})
    proc = cli("expand", "--cases", cases_dir)
    produced = list((cases_dir / "generated").glob("*.ll")) if proc.returncode == 0 else []
    # Either both groups get a file of their own, or the clash is reported as bad input.
    assert len(produced) == 2 or proc.returncode == 2, [p.name for p in produced]


def test_empty_args_list_is_a_located_error(cli, spec_dir):
    cases_dir = spec_dir({"a.yaml": f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp8\n    fmt_b: fp8\n    args: []\n"})
    proc = cli("expand", "--cases", cases_dir)
    _one_located_line(proc, cases_dir / "a.yaml", 5, 11, "args")
