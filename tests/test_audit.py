"""`harness audit` on the real tools: verdicts per RUN line and function, attribution of llvm-mc's
errors, the CHECK-line enshrine flag (checked against the real FileCheck), and bad input.

Expected verdicts were measured on LLVM 22.1.8 (`llvm_22_1_8`); the whole module skips without it.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from conftest import one_line_exit_2, unavailable

GEN = Path(__file__).resolve().parent.parent / "cases" / "generated"
FMT = ("fp8", "bf8", "fp6", "bf6", "fp4")  # cbsz/blgp and matrix_*_fmt codes
EXACT = {"mfma": dict(zip(FMT, (8, 8, 6, 6, 4))), "wmma": dict(zip(FMT, (16, 16, 12, 12, 8)))}
FUNCTION = {"name", "verdict", "message", "checks_enshrine_reject"}

MFMA_DECL = (
    "declare <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v{w}i32.v{w}i32"
    "(<{w} x i32>, <{w} x i32>, <4 x float>, i32, i32, i32, i32, i32, i32)\n"
)
# One FP4 x FP4 MFMA over `width` i32 per source (FP4 reads 4): 8 is over-wide, 4 exact.
MFMA_FN = """define amdgpu_ps void @{name}(<{w} x i32> %a, <{w} x i32> %b, <4 x float> %c, ptr addrspace(1) %out) {{
{checks}  %r = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v{w}i32.v{w}i32(<{w} x i32> %a, <{w} x i32> %b, <4 x float> %c, i32 4, i32 4, i32 0, i32 0, i32 0, i32 0)
  store <4 x float> %r, ptr addrspace(1) %out
  ret void
}}

"""
REJECTED = "v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[2:9], v[10:17], a[0:3] cbsz:4 blgp:4"  # llc 22.1.8's text


@pytest.fixture(scope="module")
def audit(llvm_22_1_8, cli):
    """audit(*paths, json=True) -> (CompletedProcess, parsed JSON or None), on the fixture's build."""
    flag = ["--llvm-bin", str(llvm_22_1_8.bin_dir)] if llvm_22_1_8.bin_dir else []

    def run(*paths, as_json: bool = True):
        proc = cli("audit", *(["--json"] if as_json else []), *flag, *map(str, paths))
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        return proc, (json.loads(proc.stdout) if as_json and proc.stdout.strip() else None)

    return run


def defines(path: Path) -> list[str]:
    return re.findall(r"^define\b[^@]*@([\w.$]+)\(", path.read_text(), re.M)


def llc_run_lines(path: Path) -> list[int]:
    return [i for i, l in enumerate(path.read_text().splitlines(), 1) if re.match(r"\s*;\s*RUN:.*\bllc\b", l)]


def text_runs(record: dict) -> list[dict]:
    """The audited runs of a file: an llc RUN line that writes the object of the same run as a
    text RUN line before it is skipped, naming that line."""
    out = []
    for run in record["runs"]:
        if "-filetype=obj" in run["run_line"]:
            assert run["skipped"].startswith("llc's object of the same run as line ") and not run["functions"], run
        else:
            out.append(run)
    return out


def verdicts(run: dict) -> dict[str, tuple[str, bool]]:
    assert all(set(f) == FUNCTION for f in run["functions"]), run
    return {f["name"]: (f["verdict"], f["checks_enshrine_reject"]) for f in run["functions"]}


def error_lines(stderr: str) -> list[str]:
    return [l for l in stderr.splitlines() if l.strip() and not l.startswith("# ")]  # "# LLVM ..." header aside


# ---- the project's generated files ---------------------------------------------------------------


def test_overwide_generated_files_reject_every_function_in_every_llc_run(audit):
    files = sorted(GEN.glob("*.f8f6f4.gfx*.O0.overwide.ll"))
    assert len(files) >= 5
    proc, out = audit(*files)
    assert proc.returncode == 1 and out["llvm"] == "22.1.8" and set(out) == {"llvm", "files"}
    assert [f["path"] for f in out["files"]] == [str(p) for p in files]
    for path, record in zip(files, out["files"]):
        assert "error" not in record and [r["line"] for r in record["runs"]] == llc_run_lines(path)
        family = "mfma" if path.name.startswith("mfma") else "wmma"
        for run in text_runs(record):
            assert [f["name"] for f in run["functions"]] == defines(path) and "skipped" not in run
            for f in run["functions"]:
                assert f["verdict"] == "mc-reject" and "wrong register tuple size" in f["message"], f
                check_attribution(family, f["name"], f["message"])


def check_attribution(family: str, name: str, message: str) -> None:
    """The rejected instruction in `message` is this function's: its A/B tuples have the widths the
    function's name gives, and the operand llvm-mc blames has a format the function uses over-wide."""
    fa, wa, fb, wb = re.search(r"__a_(\w+?)_v(\d+)__b_(\w+?)_v(\d+)$", name).groups()
    instr = message.split(": ", 1)[1]
    sizes = [int(hi) - int(lo) + 1 for lo, hi in re.findall(r"\b[av]\[(\d+):(\d+)\]", instr)]
    assert sizes[1:3] == [int(wa), int(wb)], (name, message)
    if m := re.search(r"for (cbsz|blgp) value (\d)", message):
        fmt, width = (fa, wa) if m.group(1) == "cbsz" else (fb, wb)
        assert FMT[int(m.group(2))] == fmt and int(width) > EXACT[family][fmt], (name, message)
    else:
        fmt = re.search(r"for MATRIX_FMT_(\w+):", message).group(1).lower()
        assert any(f == fmt and int(w) > EXACT[family][f] for f, w in ((fa, wa), (fb, wb))), (name, message)


def test_exact_generated_files_pass(audit):
    # The F8F6F4 seed's exact files (the rows' exact files include GlobalISel's known crashes).
    files = sorted(
        p for p in GEN.glob("*.O0.exact.ll") if (".f8f6f4." in p.name or ".f4." in p.name) and not p.name.startswith("mma.")
    )
    assert len(files) == 8
    proc, out = audit(*files)
    assert proc.returncode == 0, proc.stdout[-3000:]
    for path, record in zip(files, out["files"]):
        assert [r["line"] for r in record["runs"]] == llc_run_lines(path)
        for run in text_runs(record):
            assert verdicts(run) == {n: ("pass", False) for n in defines(path)}
    text = audit(*files, as_json=False)[0]
    assert text.returncode == 0 and re.search(r"\b\d+ pass$", text.stdout.strip())


def test_fixed_fp4_overwide_file_cannot_select_each_function(audit):
    path = GEN / "wmma.f32.32x16x128.f4.gfx1250.O0.overwide.ll"
    proc, out = audit(path)
    [record] = out["files"]
    assert proc.returncode == 1 and "error" not in record and len(text_runs(record)) == 2
    for run in text_runs(record):
        assert [f["name"] for f in run["functions"]] == defines(path)
        for f in run["functions"]:
            assert f["verdict"] == "cannot-select" and "annot select" in f["message"], f
            if "in function:" in f["message"]:
                assert f"in function: {f['name']})" in f["message"]


# ---- hand-written tests --------------------------------------------------------------------------


def test_mixed_file_cuts_out_the_function_llc_cannot_select_and_attributes_the_rest(audit, tmp_path):
    f4 = "llvm.amdgcn.wmma.f32.32x16x128.f4.v16f32.v16i32.v{0}i32(<16 x i32> %a, <{0} x i32> %b, i16 0, <16 x float> %c)"
    f8 = "llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v16i32.v16i32(i32 {0}, <16 x i32> %a, i32 {1}, <16 x i32> %b, i16 0, <8 x float> %c)"
    body = lambda name, ret, call, b: (
        f"define amdgpu_ps void @{name}(<16 x i32> %a, <{b} x i32> %b, <{ret}> %c, ptr addrspace(1) %out) {{\n"
        f"  %r = call <{ret}> @{call}\n  store <{ret}> %r, ptr addrspace(1) %out\n  ret void\n}}\n\n"
    )
    text = (
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx1250 < %s | FileCheck %s\n"
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx1250 -global-isel=1 -global-isel-abort=1 < %s | FileCheck %s\n"
        "declare <16 x float> @llvm.amdgcn.wmma.f32.32x16x128.f4.v16f32.v16i32.v8i32(<16 x i32>, <8 x i32>, i16, <16 x float>)\n"
        "declare <16 x float> @llvm.amdgcn.wmma.f32.32x16x128.f4.v16f32.v16i32.v16i32(<16 x i32>, <16 x i32>, i16, <16 x float>)\n"
        "declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v16i32.v16i32(i32, <16 x i32>, i32, <16 x i32>, i16, <8 x float>)\n\n"
        + body("wide_b", "8 x float", f8.format(0, 4), 16)
        + body("fixed_f4_wide", "16 x float", f4.format(16), 16)
        + body("fixed_f4_exact", "16 x float", f4.format(8), 8)
        + body("wide_a", "8 x float", f8.format(4, 0), 16)
    )
    path = tmp_path / "mixed.ll"
    path.write_text(text)
    proc, out = audit(path)
    assert proc.returncode == 1
    for run in out["files"][0]["runs"]:
        got = {f["name"]: f for f in run["functions"]}
        assert list(got) == ["wide_b", "fixed_f4_wide", "fixed_f4_exact", "wide_a"]
        assert [got[n]["verdict"] for n in got] == ["mc-reject", "cannot-select", "pass", "mc-reject"]
        assert "matrix_b_fmt:MATRIX_FMT_FP4" in got["wide_b"]["message"] and "matrix_a_fmt" not in got["wide_b"]["message"]
        assert "matrix_a_fmt:MATRIX_FMT_FP4" in got["wide_a"]["message"] and "matrix_b_fmt" not in got["wide_a"]["message"]


PINNED = f"""; GFX950-LABEL: {{{{^}}}}pinned:
; GFX950: {REJECTED}
; OTHER-LABEL: pinned:
; OTHER: {{{{.*}}}}
"""
LOOSE = "; GFX950-LABEL: loose:\n; GFX950: {{.*}}\n; GFX950-NEXT: {{.*}}\n; OTHER-LABEL: loose:\n; OTHER: v_mfma_f32_16x16x128_f8f6f4 {{.*}}v[2:9]\n"
EXACT_CHECKS = "; GFX950-LABEL: exact:\n; GFX950: v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[2:5], v[6:9], a[0:3] cbsz:4 blgp:4\n"


def test_enshrine_flag_per_function_and_per_run_lines_prefixes(audit, tmp_path):
    # pinned: hand-written style (CHECK-LABEL before define); loose and exact: update_llc_test_checks style.
    text = (
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck --check-prefix=GFX950 %s\n"
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck --check-prefixes=OTHER %s\n"
        "; RUN: opt -S -passes=verify < %s | llc -O0 -mtriple=amdgcn -mcpu=gfx950 -filetype=obj -o %t.o\n"
        + MFMA_DECL.format(w=8)
        + MFMA_DECL.format(w=4)
        + "\n"
        + PINNED
        + MFMA_FN.format(name="pinned", w=8, checks="")
        + MFMA_FN.format(name="loose", w=8, checks=LOOSE)
        + MFMA_FN.format(name="exact", w=4, checks=EXACT_CHECKS)
    )
    path = tmp_path / "pins.ll"
    path.write_text(text)
    proc, out = audit(path)
    runs = out["files"][0]["runs"]
    assert proc.returncode == 1 and [r["line"] for r in runs] == [1, 2, 3]
    assert verdicts(runs[0]) == {"pinned": ("mc-reject", True), "loose": ("mc-reject", False), "exact": ("pass", False)}
    assert verdicts(runs[1]) == {"pinned": ("mc-reject", False), "loose": ("mc-reject", True), "exact": ("pass", False)}
    # opt before llc, and an object RUN line (which hides the bug from lit): the audit still closes llc's
    # text. No FileCheck on that line: nothing is pinned.
    assert verdicts(runs[2]) == {"pinned": ("mc-reject", False), "loose": ("mc-reject", False), "exact": ("pass", False)}
    assert runs[0]["functions"][0]["message"] == f"wrong register tuple size for cbsz value 4: {REJECTED}"
    table = audit(path, as_json=False)[0].stdout.splitlines()
    assert [l for l in table if l.endswith("[CHECK lines enshrine the rejected text]")] == [
        f"{path}:1: pinned: mc-reject: wrong register tuple size for cbsz value 4: {REJECTED} [CHECK lines enshrine the rejected text]",
        f"{path}:2: loose: mc-reject: wrong register tuple size for cbsz value 4: {REJECTED} [CHECK lines enshrine the rejected text]",
    ]
    assert table[-1] == "1 file(s): 3 pass, 6 mc-reject"


# Each CHECK pattern against the rejected line: the flag must say what real FileCheck says (with
# the mnemonic written literally, as audit documents). (pattern, directive suffix, xfail reason)
PATTERNS = [
    (REJECTED, "", None),
    ("v_mfma_f32_16x16x128_f8f6f4 {{.*}} blgp:4{{$}}", "", None),
    ("v_mfma_f32_16x16x128_f8f6f4   a[0:3],  v[2:9]", "", None),
    ("v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[2:5]", "", None),
    ("v_mfma_f32_16x16x128_f8f6f4 {{.*}} blgp:2", "", None),
    ("v_mfma_f32_16x16x128_f8f6f4 a[0:3], [[V:v]][2:9]", "", None),
    ("{{.*}}", "", None),
    # A space before {{...}}, a [[VAR:regex]] whose regex holds ']', and a -NOT line (which
    # forbids the text rather than pinning it): each once misread.
    ("v_mfma_f32_16x16x128_f8f6f4 {{a\\[[0-9]+:[0-9]+\\]}}, v[2:9]", "", None),
    ("v_mfma_f32_16x16x128_f8f6f4 [[ACC:a\\[[0-9]+:[0-9]+\\]]], v[2:9]", "", None),
    ("v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[2:9]", "-NOT", None),
]


@pytest.fixture(scope="module")
def pattern_audit(audit, tmp_path_factory):
    path = tmp_path_factory.mktemp("patterns") / "patterns.ll"
    fns = "".join(
        MFMA_FN.format(name=f"p{i}", w=8, checks=f"; CHECK-LABEL: p{i}:\n; CHECK{suffix}: {pattern}\n")
        for i, (pattern, suffix, _) in enumerate(PATTERNS)
    )
    path.write_text("; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck %s\n" + MFMA_DECL.format(w=8) + "\n" + fns)
    proc, out = audit(path)
    return {f["name"]: f for f in out["files"][0]["runs"][0]["functions"]}


def filecheck_matches(llvm, pattern: str, line: str, tmp: Path) -> bool:
    if not llvm.tool("FileCheck"):
        unavailable(f"LLVM {llvm.version} has no FileCheck to compare with")
    (tmp / "check.txt").write_text(f"CHECK: {pattern}\n")
    run = subprocess.run([llvm.tool("FileCheck"), str(tmp / "check.txt")], input=line + "\n", capture_output=True, text=True)
    assert "error: invalid" not in run.stderr and "undefined variable" not in run.stderr, run.stderr
    return run.returncode == 0


@pytest.mark.parametrize(
    "i",
    [pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=why) if why else ()) for i, (_, _, why) in enumerate(PATTERNS)],
)
def test_enshrine_agrees_with_filecheck(pattern_audit, llvm_22_1_8, tmp_path, i):
    pattern, suffix, _ = PATTERNS[i]
    f = pattern_audit[f"p{i}"]
    assert f["verdict"] == "mc-reject" and f["message"].endswith(REJECTED)
    # Pinning = FileCheck accepts the rejected line, the mnemonic is written out, and so is at
    # least one of its register ranges (a pattern that admits any width pins no tuple).
    ranges = re.findall(r"\[\d+:\d+\]", REJECTED)
    pins = (
        filecheck_matches(llvm_22_1_8, pattern, "\t" + REJECTED, tmp_path)
        and "v_mfma_f32_16x16x128_f8f6f4" in pattern
        and any(r in pattern for r in ranges)
    )
    assert f["checks_enshrine_reject"] is (pins and suffix != "-NOT"), (pattern, suffix)


# ---- input the audit cannot or need not run ------------------------------------------------------


def test_bad_input_is_one_line_and_exit_2(audit, tmp_path):
    bad = tmp_path / "latin1.ll"
    bad.write_bytes(b"; RUN: llc -mtriple=amdgcn < %s\n; caf\xe9\n")
    for path, why in (
        (tmp_path / "missing.ll", "No such file"),
        (bad, ":2: not UTF-8"),
        (tmp_path, "not a regular file (a test file must be one)"),
    ):
        proc, _ = audit(path)
        assert proc.returncode == 2 and proc.stdout == "", proc.stdout
        assert len(error_lines(proc.stderr)) == 1 and str(path) in proc.stderr and why in proc.stderr, proc.stderr


def test_file_that_is_not_ir_is_reported_with_llcs_first_lines(audit, tmp_path):
    path = tmp_path / "broken.ll"
    path.write_text("; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck %s\ndefine void @f() {\n  this is not IR\n}\n")
    proc, out = audit(path)
    assert proc.returncode == 1 and "expected instruction opcode" in out["files"][0]["error"]
    text = audit(path, as_json=False)[0]
    assert text.returncode == 1 and f"{path}: ERROR" in text.stdout and "expected instruction opcode" in text.stdout


def test_file_without_functions_that_llc_rejects_fails(audit, tmp_path):
    path = tmp_path / "garbage.ll"
    path.write_text("; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\nthis is not IR at all\n")
    proc, out = audit(path)
    assert proc.returncode == 1 and "expected top-level entity" in out["files"][0].get("error", "")


def test_runs_that_are_not_audited_say_why(audit, tmp_path):
    path = tmp_path / "skips.ll"
    path.write_text(
        "; RUN: llc -mtriple=x86_64 < %s | FileCheck %s\n"
        "; RUN: not llc -mtriple=amdgcn -mcpu=gfx950 < %s\n"
        "; RUN: llc -mtriple=amdgcn < %s; echo done\n"
        "; RUN: opt -S < %s | FileCheck %s\n"
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\n"  # one audited line: a file with none is bad input
        "define void @f() {\n  ret void\n}\n"
    )
    proc, out = audit(path)
    runs = out["files"][0]["runs"]
    assert proc.returncode == 0 and [r["line"] for r in runs] == [1, 2, 3, 5]  # the opt-only line is not llc's
    assert all(r["functions"] == [] for r in runs[:3])
    assert "not an AMDGPU or NVPTX RUN line" in runs[0]["skipped"] and "x86_64" in runs[0]["skipped"]
    assert "not" in runs[1]["skipped"] and runs[2]["skipped"].startswith(f"{path}:3: ")
    assert f"{path}:3: skipped: {path}:3:" in audit(path, as_json=False)[0].stdout


def test_a_run_line_the_audit_cannot_run_does_not_hide_the_next(audit, tmp_path):
    path = tmp_path / "sed.ll"
    path.write_text(
        "; RUN: sed 's/XX/YY/' %s | llc -O0 -mtriple=amdgcn -mcpu=gfx950 | FileCheck %s\n"
        "; RUN: llc -O0 -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck %s\n"
        + MFMA_DECL.format(w=4)
        + MFMA_FN.format(name="exact", w=4, checks="")
    )
    proc, out = audit(path)
    assert [r["line"] for r in out["files"][0]["runs"]] == [1, 2]
    assert verdicts(out["files"][0]["runs"][1]) == {"exact": ("pass", False)}


def test_run_line_with_an_unterminated_quote_is_named(audit, tmp_path):
    path = tmp_path / "quote.ll"
    path.write_text(
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck '%s\n"
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\ndefine void @f() {\n  ret void\n}\n"
    )
    proc, out = audit(path)
    assert out["files"][0]["runs"][0]["skipped"].startswith(f"{path}:1: ")


def test_llvm_bin_that_does_not_exist_is_bad_input(cli, llvm_22_1_8, tmp_path):
    proc = cli("audit", "--llvm-bin", tmp_path / "nope", GEN / "wmma.f32.32x16x128.f4.gfx1250.O0.exact.ll")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and len(error_lines(proc.stderr)) == 1


# ---- the assembler gets what llc compiled for ----------------------------------------------------

SEL = "define i32 @{name}(i32 %x, i32 %a, i32 %b){attrs} {{\n  %c = icmp eq i32 %x, 0\n  %r = select i1 %c, i32 %a, i32 %b\n  ret i32 %r\n}}\n"


@pytest.mark.parametrize(
    "run_line, body",
    [
        # Every -mattr reaches llvm-mc, not only the first (wave64 code uses vcc, not vcc_lo).
        ("llc -mtriple=amdgcn -mcpu=gfx1100 -mattr=-real-true16 -mattr=+wavefrontsize64 < %s", SEL.format(name="f", attrs="")),
        # A function's own target-features reach llvm-mc too.
        (
            "llc -mtriple=amdgcn -mcpu=gfx1100 < %s",
            SEL.format(name="f", attrs=" #0") + 'attributes #0 = { "target-features"="+wavefrontsize64" }\n',
        ),
        # -march keeps the IR's OS (amdhsa directives), and the CPU llc chose is the one assembled for.
        ("llc -march=amdgcn -mcpu=gfx900 < %s", 'target triple = "amdgcn-amd-amdhsa"\n' + SEL.format(name="f", attrs="")),
        ("llc < %s", 'target triple = "amdgcn-amd-amdhsa"\n' + SEL.format(name="f", attrs="")),
    ],
)
def test_correct_code_reassembles_under_the_options_llc_compiled_it_with(audit, tmp_path, run_line, body):
    path = tmp_path / "t.ll"
    path.write_text(f"; RUN: {run_line} | FileCheck %s\n{body}")
    proc, out = audit(path)
    run = out["files"][0]["runs"][0]
    assert [f["verdict"] for f in run["functions"]] == ["pass"] and "note" not in run, run
    assert proc.returncode == 0


def test_functions_with_different_target_features_are_each_assembled_with_their_own(audit, tmp_path):
    path = tmp_path / "t.ll"
    path.write_text(
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx1100 < %s | FileCheck %s\n"
        + SEL.format(name="wave64", attrs=" #0")
        + SEL.format(name="wave32", attrs="")
        + 'attributes #0 = { "target-features"="+wavefrontsize64" }\n'
    )
    proc, out = audit(path)
    assert {f["name"]: f["verdict"] for f in out["files"][0]["runs"][0]["functions"]} == {"wave64": "pass", "wave32": "pass"}


def test_r600_and_wrapped_llc_lines_are_said_to_be_skipped(audit, tmp_path):
    path = tmp_path / "t.ll"
    path.write_text(
        "; RUN: llc -mtriple=r600 -mcpu=redwood < %s | FileCheck %s\n"
        "; RUN: %if amdgpu-registered-target %{ llc -mtriple=amdgcn < %s | FileCheck %s %}\n"
        "; RUN: env X=1 not llc -mtriple=amdgcn < %s\n"
        "; RUN: llc -mtriple=amdgcn < %s\n"
        "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    )
    proc, out = audit(path)
    skipped = [r.get("skipped", "") for r in out["files"][0]["runs"]]
    assert "R600" in skipped[0] and "%if" in skipped[1] and "expected to fail" in skipped[2], skipped


def test_a_quoted_reason_is_one_line_of_at_most_300_characters():
    from harness.checks import audit

    assert audit._cut("a  b\n" * 60) == " ".join(["a b"] * 60)  # 300 characters: whole, on one line
    assert audit._cut("x" * 301) == "x" * 300 + "..."
    assert audit._cut("w\n" * 200) == " ".join(["w"] * 200)[:300] + "..."


# ---- RUN lines that write MIR or cannot be split; a file with nothing audited ----------------


_FN = "define void @f() {\n  ret void\n}\n"


@pytest.fixture
def audit_cli(llvm_22_1_8, cli):
    """audit_cli(*args) -> the CompletedProcess of `harness audit ARGS...` on the fixture's build."""
    flag = ["--llvm-bin", str(llvm_22_1_8.bin_dir)] if llvm_22_1_8.bin_dir else []
    return lambda *args: cli("audit", *flag, *map(str, args))


def test_audit_skips_run_lines_that_write_mir(audit_cli, tmp_path):
    path = tmp_path / "mir.ll"
    path.write_text(
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 -stop-after=finalize-isel < %s\n"
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 --run-pass=none < %s\n"
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\n" + _FN
    )
    proc = audit_cli("--json", path)
    runs = json.loads(proc.stdout)["files"][0]["runs"]
    assert proc.returncode == 0 and [r["functions"] for r in runs[:2]] == [[], []]
    assert all("MIR" in r["skipped"] for r in runs[:2]) and runs[2]["functions"][0]["verdict"] == "pass"
    only_mir = tmp_path / "only-mir.ll"
    only_mir.write_text("; RUN: llc -mtriple=amdgcn -mcpu=gfx950 -stop-before=machine-scheduler < %s\n" + _FN)
    one_line_exit_2(audit_cli(only_mir), str(only_mir), "nothing audited", "MIR")


def test_audit_unterminated_quote_says_the_run_line_cannot_be_split(audit_cli, tmp_path):
    path = tmp_path / "quote.ll"
    path.write_text('; RUN: llc -mtriple=amdgcn "-mcpu=gfx950 < %s\n; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\n' + _FN)
    proc = audit_cli(path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(l for l in proc.stdout.splitlines() if "skipped" in l)
    assert "cannot be split" in line and "quote" in line and "attribute" not in line and "lit.util" not in line


@pytest.mark.parametrize("quote", ['"', "'"])
def test_audit_names_the_quote_a_run_line_leaves_open(audit_cli, tmp_path, quote):
    """A quote of the other kind inside a closed pair is text; the quote left open is the one
    named (the file's name holds no "quote", so only the reason can say it)."""
    other = "'" if quote == '"' else '"'
    path = tmp_path / "t.ll"
    path.write_text(
        f"; RUN: llc -mtriple=amdgcn {other}-mcpu=gfx950{quote}{other} {quote}-O0 < %s\n"
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\n" + _FN
    )
    proc = audit_cli(path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(l for l in proc.stdout.splitlines() if "skipped" in l)
    assert f"cannot be split (lit's shell parser): missing closing {quote} quote" in line, line


@pytest.mark.parametrize("text", ["; RUN: opt -S < %s | FileCheck %s\n" + _FN, "; RUN: llc -mtriple=x86_64 < %s\n" + _FN, _FN])
def test_audit_of_a_file_where_nothing_was_audited_exits_2(audit_cli, tmp_path, text):
    path = tmp_path / "t.ll"
    path.write_text(text)
    one_line_exit_2(audit_cli(path), str(path), "nothing audited")


# ---- NVPTX: llc's PTX closed through ptxas for the RUN line's SM -----------------------------

PTX_FN = """define ptx_kernel void @{name}(ptr addrspace(1) %p) {{
{body}  ret void
}}

"""


def test_an_nvptx_run_line_closes_through_ptxas_per_function(audit, nvptx_tc, ptxas_path, tmp_path, monkeypatch):
    """A shipped NVPTX file: every function passes. Inline assembly ptxas rejects is charged to
    its own function (ptxas names the line), not to the one beside it."""
    monkeypatch.setenv("PTXAS", ptxas_path)
    shipped = GEN / "mma.block.scale.mxf4.ptx87.llvm22.sm_120a.O0.exact.ll"
    proc, out = audit(shipped)
    runs = out["files"][0]["runs"]
    assert proc.returncode == 0 and [r["line"] for r in runs if not r.get("skipped")] == [9]
    assert sorted(verdicts(runs[0])) == sorted(defines(shipped)) and all(v == ("pass", False) for v in verdicts(runs[0]).values())
    path = tmp_path / "bogus.ll"
    path.write_text(
        "; RUN: llc -mtriple=nvptx64 -mcpu=sm_90 < %s | FileCheck %s\n"
        + PTX_FN.format(name="fine", body="  store i32 1, ptr addrspace(1) %p\n")
        + PTX_FN.format(name="bogus", body='  call void asm sideeffect "not.an.instruction;", ""()\n')
    )
    proc, out = audit(path)
    got = {f["name"]: (f["verdict"], f["message"]) for f in out["files"][0]["runs"][0]["functions"]}
    assert proc.returncode == 1 and got["fine"] == ("pass", "")
    assert got["bogus"][0] == "mc-reject" and got["bogus"][1].startswith("ptxas: ") and "not.an.instruction" in got["bogus"][1]


def test_an_sm_ptxas_does_not_know_is_not_judged(audit, nvptx_tc, ptxas_path, tmp_path, monkeypatch):
    monkeypatch.setenv("PTXAS", ptxas_path)
    path = tmp_path / "old.ll"
    path.write_text("; RUN: llc -mtriple=nvptx64 -mcpu=sm_70 < %s\n" + PTX_FN.format(name="k", body=""))
    proc, out = audit(path)
    (f,) = out["files"][0]["runs"][0]["functions"]
    assert proc.returncode == 1 and f["verdict"] == "unsupported" and "ptxas cannot judge this text" in f["message"]
    assert "sm_70" in f["message"]


def test_a_mixed_tree_audits_what_applies_and_counts_what_it_skipped(audit, nvptx_tc, ptxas_path, tmp_path, monkeypatch):
    monkeypatch.setenv("PTXAS", ptxas_path)
    x86 = tmp_path / "x86.ll"
    x86.write_text("; RUN: llc -mtriple=x86_64 < %s\ndefine void @f() {\n  ret void\n}\n")
    absent = GEN / "mma.m16n8k16.row.col.bf16.sm_75.O0.absent.ll"
    files = [GEN / "mfma.f32.32x32x8f16.gfx908.O0.exact.ll", GEN / "mma.block.scale.mxf4.ptx87.llvm22.sm_120a.O0.exact.ll"]
    proc, _ = audit(*files, x86, absent, as_json=False)
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.splitlines()[-1]
    assert re.fullmatch(r"2 file\(s\): \d+ pass; 2 file\(s\) skipped \(.+: 1, llc is expected to fail here \(not\): 1\)", last), (
        last
    )
    assert "not an AMDGPU or NVPTX RUN line (triple x86_64)" in last
    assert f"{x86}: skipped: nothing audited" in proc.stdout
    proc, _ = audit(x86, absent, as_json=False)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1].startswith("harness: error: nothing audited in 2 files")


def test_calls_the_verifier_refuses_are_charged_to_their_functions_and_the_rest_compiled(
    audit, nvptx_tc, ptxas_path, tmp_path, monkeypatch
):
    """As LLVM's own wmma.py writes them: a call over several lines, a selector out of its range
    ([0, 2) for m16n8k32 f16). The verifier names no function; the call's text finds it."""
    monkeypatch.setenv("PTXAS", ptxas_path)
    name = "llvm.nvvm.mma.sp.m16n8k32.row.col.f16.f16"
    args = ", ".join(f"<2 x half> %{v}{i}" for v, n in (("a", 4), ("b", 4), ("c", 2)) for i in range(n))
    decl = f"declare {{<2 x half>, <2 x half>}} @{name}({args}, i32 %m, i32 %s)\n"
    fn = (
        "define {{<2 x half>, <2 x half>}} @{f}({args}, i32 %m) {{\n"
        "  %r = call {{<2 x half>, <2 x half>}} @{name}(\n        {args},\n        i32 %m, i32 {sel});\n"
        "  ret {{<2 x half>, <2 x half>}} %r\n}}\n"
    )
    path = tmp_path / "sp.ll"
    path.write_text(
        "; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_80 -mattr=+ptx71 | FileCheck %s\n"
        + decl
        + "".join(fn.format(f=f, args=args, name=name, sel=sel) for f, sel in (("ok", 1), ("bad", 2), ("worse", 3)))
    )
    proc, out = audit(path)
    got = {f["name"]: (f["verdict"], f["message"]) for f in out["files"][0]["runs"][0]["functions"]}
    assert proc.returncode == 1 and got["ok"] == ("pass", "")
    assert got["bad"] == ("verifier-reject", "immarg value 2 out of range [0, 2)")
    assert got["worse"] == ("verifier-reject", "immarg value 3 out of range [0, 2)")
