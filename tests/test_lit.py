"""lit over the generated files, known-bug XFAILs by exact LLVM version, and lit.cfg.py errors."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from harness import known_bugs
from harness.errors import InputError

RUNTIME = {
    "wmma.f32.16x16x128.f8f6f4": "gfx1250",
    "wmma.scale.f32.16x16x128.f8f6f4": "gfx1250",
    "wmma.scale16.f32.16x16x128.f8f6f4": "gfx1250",
    "mfma.scale.f32.16x16x128.f8f6f4": "gfx950",
    "mfma.scale.f32.32x32x64.f8f6f4": "gfx950",
}
F4S = ("wmma.f32.32x16x128.f4", "wmma.scale.f32.32x16x128.f4", "wmma.scale16.f32.32x16x128.f4")


def _lit(lit_exe, *args, cwd):
    return subprocess.run([lit_exe, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=590)


def _listed(output: str, heading: str) -> set[str]:
    """Test names lit lists under a heading such as 'Expectedly Failed Tests'."""
    names, inside = set(), False
    for line in output.splitlines():
        if line.startswith(heading):
            inside = True
        elif inside and line.startswith("  ") and " :: " in line:
            names.add(line.split(" :: ", 1)[1].strip())
        elif inside and line.strip():
            inside = False
    return names


# ---- the checked-in files under the real lit --------------------------------------------


def test_lit_passes_on_the_shipped_cases_and_xfails_exactly_the_known_overwide_files(llvm_22_1_8, lit_exe, repo_root):
    proc = _lit(lit_exe, "-q", "--show-xfail", "cases/", cwd=repo_root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    xfail = _listed(proc.stdout, "Expectedly Failed Tests")
    known_overwide = {f"cases/generated/{n}.{cpu}.O0.overwide.ll" for n, cpu in RUNTIME.items()}
    known_overwide |= {f"cases/generated/{n}.gfx1250.O0.overwide.ll" for n in F4S}
    assert known_overwide <= xfail
    # XFAIL is per file, not blanket: files that work on 22.1.8 must really pass.
    working = {f"cases/generated/{n}.{cpu}.O0.{cls}.ll" for n, cpu in RUNTIME.items() for cls in ("exact", "underwide")}
    working |= {f"cases/generated/{n}.gfx1250.O0.exact.ll" for n in F4S}
    assert not working & xfail


def test_xfail_output_says_which_known_bug_and_why(llvm_22_1_8, lit_exe, repo_root):
    proc = _lit(lit_exe, "-a", "cases/generated/wmma.f32.32x16x128.f4.gfx1250.O0.overwide.ll", cwd=repo_root)
    assert proc.returncode == 0
    assert "XFAIL: matrix-lowering :: cases/generated/wmma.f32.32x16x128.f4.gfx1250.O0.overwide.ll" in proc.stdout
    assert "known bug in LLVM 22.1.8: " in proc.stdout
    assert "Cannot select" in proc.stdout  # both the reason and llc's own message


def test_nonexistent_llvm_bin_param_is_one_clear_fatal_error(lit_exe, repo_root):
    proc = _lit(lit_exe, "-q", "--param", "llvm_bin=/nonexistent", "cases/", cwd=repo_root)
    assert proc.returncode != 0
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "/nonexistent" in lines[0] and "does not exist" in lines[0] and "error" in lines[0]


# ---- a private lit tree: the same lit.cfg.py over specs written by the test ----------------


@pytest.fixture
def lit_tree(tmp_path, repo_root, cli):
    """tmp/lit.cfg.py + tmp/cases/<specs>; returns a function that expands and runs lit there.

    The harness package is copied beside lit.cfg.py (which puts its own directory first on
    sys.path), so lit uses the code under test rather than whatever `harness` is installed.
    """
    shutil.copy(repo_root / "lit.cfg.py", tmp_path / "lit.cfg.py")
    shutil.copytree(repo_root / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "cases").mkdir()

    def run(specs: dict[str, str], known: str | None = None):
        for name, text in specs.items():
            (tmp_path / "cases" / name).write_text(text)
        if known is not None:
            (tmp_path / "cases" / "known-bugs.yaml").write_text(known)
        assert cli("expand", "--cases", tmp_path / "cases").returncode == 0
        return tmp_path

    return run


WIDE_MFMA = (
    "matrix:\n  - intrinsic: mfma.scale.f32.16x16x128.f8f6f4\n    fmt_a: fp4\n    fmt_b: [fp4, fp8]\n"
    "    width_a: [exact, overwide]\n    selector: sdag\n"
)


def test_unlisted_llvm_version_gets_no_xfail_so_the_overwide_bug_fails(llvm_22_1_8, lit_exe, lit_tree):
    root = lit_tree({"wide.yaml": WIDE_MFMA}, known='"23.0.0":\n  - files: generated/*.overwide*.ll\n    reason: fixed later\n')
    proc = _lit(lit_exe, "-q", "--show-pass", "cases/", cwd=root)
    assert proc.returncode != 0
    assert "mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.overwide.sdag.ll" in proc.stdout + proc.stderr
    assert "cases/generated/mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.exact.sdag.ll" in _listed(proc.stdout, "Passed Tests")


def test_listed_version_turns_the_same_failure_into_xfail(llvm_22_1_8, lit_exe, lit_tree):
    root = lit_tree(
        {"wide.yaml": WIDE_MFMA}, known='"22.1.8":\n  - files: generated/*.overwide*.ll\n    reason: over-wide tuples\n'
    )
    proc = _lit(lit_exe, "-q", "--show-xfail", "cases/", cwd=root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert _listed(proc.stdout, "Expectedly Failed Tests") == {
        "cases/generated/mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.overwide.sdag.ll"
    }


def test_verifier_only_file_for_an_illegal_width_passes_under_lit(llvm, lit_exe, lit_tree):
    root = lit_tree(
        {
            "odd.yaml": "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    fmt_a: fp4\n"
            "    fmt_b: [fp8, fp6]\n    width_a: [7, 10]\n"
        }
    )
    proc = _lit(lit_exe, "-q", "--show-pass", "cases/", cwd=root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert len(_listed(proc.stdout, "Passed Tests")) >= 1


# ---- known_bugs, in process ---------------------------------------------------------------


def test_known_bug_reason_applies_to_the_exact_version_only(repo_root):
    known = known_bugs.load(repo_root / "cases")
    wide = "generated/wmma.f32.16x16x128.f8f6f4.gfx1250.O0.overwide.ll"
    reason = known_bugs.reason_for(known, "22.1.8", wide)
    assert "wrong register tuple size" in reason and "\n" not in reason
    assert known_bugs.reason_for(known, "22.1.8", "generated/mfma.scale.f32.32x32x64.f8f6f4.gfx950.O0.overwide.ll")
    assert "Cannot select" in known_bugs.reason_for(known, "22.1.8", "generated/wmma.f32.32x16x128.f4.gfx1250.O0.overwide.ll")
    for other in ("23.0.0", "22.1.7", "22.1", "22"):
        assert known_bugs.reason_for(known, other, wide) == ""
    for fine in (
        "generated/wmma.f32.16x16x128.f8f6f4.gfx1250.O0.exact.ll",
        "generated/mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.underwide.ll",
    ):
        assert known_bugs.reason_for(known, "22.1.8", fine) == ""


def test_missing_known_bugs_file_means_no_xfails(tmp_path):
    assert known_bugs.load(tmp_path) == {}


@pytest.mark.parametrize(
    "text,located",
    [
        ('"22.1.8":\n  - files: generated/*.ll\n    reason: [unclosed\n', True),
        ('"22.1.8":\n  - files: generated/*.ll\n', False),
        ('"22.1.8": generated/*.ll\n', False),
        ("- just a list\n", True),
    ],
)
def test_malformed_known_bugs_file_is_an_input_error_naming_the_file(tmp_path, text, located):
    (tmp_path / "known-bugs.yaml").write_text(text)
    with pytest.raises(InputError) as err:
        known_bugs.load(tmp_path)
    message = str(err.value)
    assert str(tmp_path / "known-bugs.yaml") in message and "\n" not in message
    if located:
        assert err.value.line is not None
