"""lit over the generated files, known-bug XFAILs by exact LLVM version (known-bugs.yaml and its
located errors), every feature a file REQUIRES set on 22.1.8, and lit.cfg.py errors."""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import fake_build, unavailable

import harness
from harness.core.errors import InputError
from harness.specs import known_bugs

RUNTIME = {
    "wmma.f32.16x16x128.f8f6f4": "gfx1250",
    "wmma.scale.f32.16x16x128.f8f6f4": "gfx1250",
    "wmma.scale16.f32.16x16x128.f8f6f4": "gfx1250",
    "mfma.scale.f32.16x16x128.f8f6f4": "gfx950",
    "mfma.scale.f32.32x32x64.f8f6f4": "gfx950",
}
F4S = ("wmma.f32.32x16x128.f4", "wmma.scale.f32.32x16x128.f4", "wmma.scale16.f32.32x16x128.f4")


def _lit(lit_exe, *args, cwd):
    # (a hang guard, not a speed check: lit over every shipped file takes minutes on a loaded machine)
    return subprocess.run([lit_exe, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=3000)


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


# lit's summary labels -> the result codes it prints per test.
_SUMMARY = {
    "Passed": "PASS",
    "Expectedly Failed": "XFAIL",
    "Unsupported": "UNSUPPORTED",
    "Failed": "FAIL",
    "Unexpectedly Passed": "XPASS",
    "Unresolved": "UNRESOLVED",
    "Timed Out": "TIMEOUT",
    "Excluded": "EXCLUDED",
    "Skipped": "SKIPPED",
}
_RESULT_LINE = re.compile(r"^([A-Z]+): matrix-lowering :: (\S+) \((\d+) of (\d+)\)$")


def _results(proc: subprocess.CompletedProcess) -> dict[str, str]:
    """Test name -> result code, from lit's default (non-quiet) output: one line per test. The
    summary lit prints at the end must agree with those lines, count for count."""
    out = proc.stdout + proc.stderr
    results, totals = {}, set()
    for line in out.splitlines():
        m = _RESULT_LINE.match(line)
        if m:
            assert m.group(2) not in results, f"{m.group(2)} reported twice"
            results[m.group(2)] = m.group(1)
            totals.add(int(m.group(4)))
    summary = {}
    for line in out.splitlines():
        m = re.match(r"^  (\w[\w ]*?)\s*: +(\d+) \(", line)
        if m and m.group(1) in _SUMMARY:
            summary[_SUMMARY[m.group(1)]] = int(m.group(2))
    m = re.search(r"^Total Discovered Tests: (\d+)$", out, re.M)
    assert m, out[-3000:]
    assert totals <= {int(m.group(1))} and len(results) == int(m.group(1)), out[-3000:]
    assert summary == dict(Counter(results.values())), (summary, out[-3000:])
    return results


# ---- what each generated file should do on a build: derived from the files and the build ------


def _generated(root: Path) -> list[str]:
    """Every lit test under cases/generated (semantic files and snapshots), as lit names them."""
    return sorted(str(p.relative_to(root)) for p in (root / "cases" / "generated").rglob("*.ll"))


def _requires(root: Path, name: str) -> list[str]:
    """Every feature the file's REQUIRES lines name (lit requires each of every line; a file
    that holds many NVPTX rows has one line per intrinsic after the first)."""
    lines = [l for l in (root / name).read_text().splitlines() if l.startswith("; REQUIRES:")]
    assert lines, f"{name}: no REQUIRES line"
    return [f.strip() for line in lines for f in line.split(":", 1)[1].split(",")]


def _tool(bin_dir: Path, name: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / name), *args], input=stdin, capture_output=True, text=True, timeout=120)


def _available(bin_dir: Path, root: Path, files: list[str]) -> dict[str, bool]:
    """Each feature the files REQUIRE -> whether this build has it, asked of the build's own tools
    (not of lit.cfg.py or the harness): targets and CPUs from llc, intrinsics from opt, the
    ptx_kernel IR from llc, FileCheck from the directory."""
    version_text = _tool(bin_dir, "llc", "--version").stdout
    version = re.search(r"LLVM version (\S+)", version_text).group(1)
    targets = set(re.findall(r"^\s+(\S+)\s+- ", version_text.split("Registered Targets:", 1)[1], re.M))
    cpus: set[str] = set()
    for triple in ("amdgcn", "nvptx64"):
        if triple in targets:
            help_text = _tool(bin_dir, "llc", f"-mtriple={triple}", "-mcpu=help")
            text = (help_text.stdout + help_text.stderr).split("Available features", 1)[0]
            cpus |= set(re.findall(r"^\s+(\S+)\s+- Select the", text, re.M))

    def declaration(symbol: str) -> str:
        for name in files:
            if symbol in _requires(root, name):
                text = (root / name).read_text()
                m = re.search(rf"^declare [^@]*@{re.escape(symbol)}[.(].*$", text, re.M)
                if m:
                    return m.group(0)
        raise AssertionError(f"no declaration of {symbol} in the files that require it")

    out: dict[str, bool] = {}
    for feature in sorted({f for name in files for f in _requires(root, name)}):
        if feature.endswith("-registered-target"):
            out[feature] = {"amdgpu": "amdgcn", "nvptx": "nvptx64"}[feature.split("-")[0]] in targets
        elif feature.startswith("cpu-"):
            out[feature] = feature[4:] in cpus
        elif re.fullmatch(r"llvm-\d+(\.\d+\.\d+\S*)?", feature):
            out[feature] = feature[5:] in (version, version.split(".")[0])
        elif feature in ("llvm-filecheck", "llvm-extract"):
            out[feature] = (bin_dir / {"llvm-filecheck": "FileCheck"}.get(feature, feature)).is_file()
        elif feature == "nvptx-ptx-kernel":
            kernel = "define ptx_kernel void @k(ptr %p) {\n  ret void\n}\n"
            out[feature] = (
                "nvptx64" in targets and _tool(bin_dir, "llc", "-mtriple=nvptx64", "-o", "-", stdin=kernel).returncode == 0
            )
        elif feature.startswith(("llvm.amdgcn.", "llvm.nvvm.")):
            # The build's own intrinsic list (before opaque pointers' era, opt takes any llvm.*
            # declaration without a word), then its opt on the declaration the file makes.
            own = "IntrinsicsAMDGPU.h" if feature.startswith("llvm.amdgcn.") else "IntrinsicsNVPTX.h"
            header = bin_dir.parent / "include" / "llvm" / "IR" / own
            listed = not header.is_file() or re.search(rf"// {re.escape(feature)}(\s|$)", header.read_text(), re.M)
            run = _tool(bin_dir, "opt", "-S", "-o", "-", stdin=declaration(feature) + "\n")
            out[feature] = bool(listed) and run.returncode == 0 and "; Unknown intrinsic" not in run.stdout
        else:
            raise AssertionError(f"REQUIRES names {feature!r}, which this test does not know how to ask a build about")
    return out


def _known_bug_files(root: Path, version: str, files: list[str]) -> set[str]:
    """Files cases/known-bugs.yaml lists for exactly `version` (globs relative to cases/, `*`
    within one path segment), read here without the harness."""
    data = yaml.safe_load((root / "cases" / "known-bugs.yaml").read_text()) or {}
    out = set()
    entries = [e["files"] for e in data.get(version, [])]
    for pattern in (g for files_ in entries for g in (files_ if isinstance(files_, list) else [files_])):
        if pattern.startswith("space/"):  # cells of the full space, which lit writes no file for
            continue
        matched = {
            name
            for name in files
            if len(rel := name.split("/")[1:]) == len(globs := pattern.split("/"))
            and all(fnmatch.fnmatchcase(p, g) for p, g in zip(rel, globs))
        }
        assert matched, f"known-bugs.yaml entry {pattern!r} for {version} matches no generated file"
        out |= matched
    return out


def _expected(bin_dir: Path, root: Path) -> dict[str, str]:
    files = _generated(root)
    have = _available(bin_dir, root, files)
    version = re.search(r"LLVM version (\S+)", _tool(bin_dir, "llc", "--version").stdout).group(1)
    xfail = _known_bug_files(root, version, files)
    return {
        name: "UNSUPPORTED" if not all(have[f] for f in _requires(root, name)) else "XFAIL" if name in xfail else "PASS"
        for name in files
    }


# ---- the checked-in files under the real lit --------------------------------------------


def test_lit_gives_every_shipped_file_its_expected_result_on_22_1_8(llvm_22_1_8, lit_exe, repo_root):
    """Every generated file, by name: XFAIL exactly where known-bugs.yaml lists it for 22.1.8,
    PASS everywhere else, nothing UNSUPPORTED (a feature lit.cfg.py forgets to set would turn
    files UNSUPPORTED while lit still exits 0). Today: 223 files, 193 PASS + 30 XFAIL."""
    proc = _lit(lit_exe, "cases/", cwd=repo_root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    results = _results(proc)
    expected = _expected(llvm_22_1_8.bin_dir, repo_root)
    assert set(expected.values()) == {"PASS", "XFAIL"}, "22.1.8 has every feature the files require"
    assert results == expected
    # The derivation agrees with what the harness's own expansion writes: lit ran every file.
    assert set(results) == set(_generated(repo_root)) and len(results) == len(list((repo_root / "cases").rglob("*.ll")))
    # The known over-wide files are among the XFAILs, and the exact/underwide ones really pass.
    xfail = {n for n, c in results.items() if c == "XFAIL"}
    known_overwide = {f"cases/generated/{n}.{cpu}.O0.overwide.ll" for n, cpu in RUNTIME.items()}
    known_overwide |= {f"cases/generated/{n}.gfx1250.O0.overwide.ll" for n in F4S}
    assert known_overwide <= xfail
    working = {f"cases/generated/{n}.{cpu}.O0.{cls}.ll" for n, cpu in RUNTIME.items() for cls in ("exact", "underwide")}
    working |= {f"cases/generated/{n}.gfx1250.O0.exact.ll" for n in F4S}
    assert {results[n] for n in working} == {"PASS"}
    # The files that need LLVM's own FileCheck (numeric expressions) run on this build.
    needs_filecheck = [n for n in results if "llvm-filecheck" in _requires(repo_root, n)]
    assert needs_filecheck and {results[n] for n in needs_filecheck} == {"PASS", "XFAIL"}
    assert {results[n] for n in needs_filecheck if n.endswith(".object.ll")} == {"PASS"}


def _old_build(version: str) -> Path:
    path = Path(f"/usr/lib/llvm-{version}/bin")
    if not (path / "llc").exists():
        unavailable(f"no llvm-{version} build at {path} (ci/setup.sh --test installs it)")
    return path


def test_lit_on_llvm_19_judges_every_file_whose_cpu_and_intrinsic_it_knows(lit_exe, repo_root):
    """Debian's llvm-19 knows gfx908 to gfx942, gfx1100 and gfx1200, but neither gfx950 nor gfx1250
    nor sm_100a: each file is PASS, XFAIL (a known bug of 19.1.7) or UNSUPPORTED exactly as its
    REQUIRES line and the build's own tools say. The AMDGPU rows on the CPUs it knows get real
    verdicts; the F8F6F4 seed's files and every sm_100a or sm_120a kernel are UNSUPPORTED."""
    bin_dir = _old_build("19")
    proc = _lit(lit_exe, "--param", f"llvm_bin={bin_dir}", "cases/", cwd=repo_root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    results = _results(proc)
    assert results == _expected(bin_dir, repo_root)
    nvptx = {n for n in results if "nvptx-registered-target" in _requires(repo_root, n)}
    sm100 = {n for n in nvptx if {"cpu-sm_100a", "cpu-sm_120a"} & set(_requires(repo_root, n))}
    assert nvptx and sm100 and sm100 < nvptx and {results[n] for n in sm100} == {"UNSUPPORTED"}
    # Rows 19 declares, on SMs it knows: llc aborts on an SM without the instruction (a known bug
    # of 19.1.7, XFAIL), the rest pass; rows it does not declare are UNSUPPORTED by REQUIRES.
    judged_nvptx = {n for n in nvptx if results[n] != "UNSUPPORTED"}
    absent = {n for n in judged_nvptx if n.endswith(".absent.ll")}
    assert absent and {results[n] for n in absent} == {"XFAIL"}
    assert {results[n] for n in judged_nvptx - absent} == {"PASS"}
    # The rows' files: the four cohorts LLVM 14 on declares (PTX 6.4, 6.5, 7.0, 7.1) on sm_80,
    # sm_89, sm_90 and sm_90a at -O0 and -O2, one file each, and the 4 files of calls of another
    # signature; besides them, the 44 gemm kernels.
    rows = {n for n in judged_nvptx - absent if not n.startswith("cases/generated/nvptx.gemm_")}
    assert len(rows) == 4 * 4 * 2 + 4 and len(judged_nvptx - absent - rows) == 44
    judged = {n for n in results if n not in nvptx and results[n] != "UNSUPPORTED"}
    assert {n.split("/")[-1].split(".")[0] for n in judged} == {"mfma", "smfmac", "wmma", "swmmac"}
    assert {results[n] for n in judged} == {"PASS", "XFAIL"}
    newer = {n for n in results if {"cpu-gfx950", "cpu-gfx1250"} & set(_requires(repo_root, n))}
    assert newer and {results[n] for n in newer} == {"UNSUPPORTED"}


def test_lit_on_llvm_14_judges_the_mfma_rows_of_gfx908_and_gfx90a(lit_exe, repo_root, llvm14):
    """llvm-14 knows gfx908 and gfx90a and 27 MFMA intrinsics, sm_70 to sm_86, and reads no
    opaque pointers: the MFMA rows it declares get real verdicts on those CPUs, and the NVPTX mma
    rows on sm_80 and the absent SMs (their functions need no pointer); everything else is
    UNSUPPORTED."""
    proc = _lit(lit_exe, "--param", f"llvm_bin={llvm14}", "cases/", cwd=repo_root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    results = _results(proc)
    assert results == _expected(llvm14, repo_root)
    assert set(results) == set(_generated(repo_root))
    judged = {n for n, c in results.items() if c != "UNSUPPORTED"}
    assert judged and {results[n] for n in judged} == {"PASS", "XFAIL"}
    assert all(n.split("/")[-1].startswith(("mfma.", "mma.")) for n in judged)
    assert any(n.split("/")[-1].startswith("mma.") for n in judged)  # the NVPTX rows: plain IR that 14 reads
    assert {c for n in judged for c in _requires(repo_root, n) if c.startswith("cpu-")} == {
        "cpu-gfx908",
        "cpu-gfx90a",
        "cpu-sm_70",
        "cpu-sm_75",
        "cpu-sm_80",
    }


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


WIDE_EXACT = "cases/generated/mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.exact.sdag.ll"
WIDE_OVERWIDE = "cases/generated/mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.overwide.sdag.ll"
KNOWN_22_1_8 = '"22.1.8":\n  - files: generated/*.overwide*.ll\n    reason: over-wide tuples\n'


def test_unlisted_llvm_version_gets_no_xfail_so_the_overwide_bug_fails(llvm_22_1_8, lit_exe, lit_tree):
    root = lit_tree({"wide.yaml": WIDE_MFMA}, known='"23.0.0":\n  - files: generated/*.overwide*.ll\n    reason: fixed later\n')
    proc = _lit(lit_exe, "cases/", cwd=root)
    assert proc.returncode == 1, (proc.stdout + proc.stderr)[-3000:]
    assert _results(proc) == {WIDE_EXACT: "PASS", WIDE_OVERWIDE: "FAIL"}


def test_listed_version_turns_the_same_failure_into_xfail(llvm_22_1_8, lit_exe, lit_tree):
    root = lit_tree({"wide.yaml": WIDE_MFMA}, known=KNOWN_22_1_8)
    proc = _lit(lit_exe, "cases/", cwd=root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert _results(proc) == {WIDE_EXACT: "PASS", WIDE_OVERWIDE: "XFAIL"}


@pytest.mark.parametrize("printed", ["22.1.8git", "22.1.80"])
def test_a_build_whose_version_merely_starts_with_a_listed_one_gets_no_xfail(llvm_22_1_8, lit_exe, lit_tree, tmp_path, printed):
    """known-bugs.yaml is keyed by the exact version: a branch build printing `22.1.8git` (or
    a `22.1.80`) is not 22.1.8, so its over-wide file FAILs. The build is the real 22.1.8 with
    only `llc --version` rewritten (fault injection)."""
    root = lit_tree({"wide.yaml": WIDE_MFMA}, known=KNOWN_22_1_8)
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    real = llvm_22_1_8.bin_dir
    for name in ("llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        (fake / name).symlink_to(real / name)
    (fake / "llc").write_text(
        f'#!/bin/sh\nif [ "$1" = --version ]; then "{real}/llc" --version | sed "s/LLVM version 22\\.1\\.8$/LLVM version {printed}/"; '
        f'exit 0; fi\nexec "{real}/llc" "$@"\n'
    )
    (fake / "llc").chmod(0o755)
    proc = _lit(lit_exe, "--param", f"llvm_bin={fake}", "cases/", cwd=root)
    out = proc.stdout + proc.stderr
    assert f"LLVM {printed} has no entry in cases/known-bugs.yaml: nothing is XFAIL" in out, out[-3000:]
    assert proc.returncode == 1, out[-3000:]
    assert _results(proc) == {WIDE_EXACT: "PASS", WIDE_OVERWIDE: "FAIL"}


def test_verifier_only_file_for_an_illegal_width_passes_under_lit(llvm, lit_exe, lit_tree):
    root = lit_tree(
        {
            "odd.yaml": "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    fmt_a: fp4\n"
            "    fmt_b: [fp8, fp6]\n    width_a: [7, 10]\n"
        }
    )
    # 7 and 10 are no legal width: one file of the `illegal` class, its 4 calls rejected by the verifier.
    assert _generated(root) == ["cases/generated/wmma.f32.16x16x128.f8f6f4.gfx1250.O0.illegal.ll"]
    text = (root / _generated(root)[0]).read_text()
    assert text.count("; CHECK: operand 1 must be 8, 12 or 16 element i32 vector") == 4
    proc = _lit(lit_exe, "cases/", cwd=root)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert _results(proc) == {name: "PASS" for name in _generated(root)}


# ---- known_bugs, in process ---------------------------------------------------------------


def test_known_bug_reason_applies_to_the_exact_version_only(repo_root):
    known = known_bugs.load(repo_root / "cases")
    wide = "generated/wmma.f32.16x16x128.f8f6f4.gfx1250.O0.overwide.ll"
    reason = known_bugs.reason_for(known, "22.1.8", wide)
    assert "wrong register tuple size" in reason and "\n" not in reason
    assert known_bugs.reason_for(known, "22.1.8", "generated/mfma.scale.f32.32x32x64.f8f6f4.gfx950.O0.overwide.ll")
    assert "Cannot select" in known_bugs.reason_for(known, "22.1.8", "generated/wmma.f32.32x16x128.f4.gfx1250.O0.overwide.ll")
    # Exact: neither a prefix of the listed version nor a version it is a prefix of.
    for other in ("23.0.0", "22.1.7", "22.1", "22", "22.1.8git", "22.1.80", "22.1.8.1", "22.1.8-rc1", " 22.1.8"):
        assert known_bugs.reason_for(known, other, wide) == "", other
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


def _known(tmp_path: Path, text: str):
    (tmp_path / known_bugs.FILENAME).write_text(text)
    return known_bugs.load(tmp_path)


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("22.10:\n  - files: a\n    reason: b\n", (":1:1:", "'22.10'", "quote it")),
        ('"22.1.8":\n  - files: a\n    reason:\n', (":3:12:", "reason")),
        ('"22.1.8":\n  - files: a\n    reason: "  "\n', (":3:13:", "reason")),
        ('"22.1.8":\n  - files: [a, 5]\n    reason: r\n', (":2:12:", "files")),
        ('"22.1.8":\n  - files: {a: 1}\n    reason: r\n', (":2:12:", "files")),
    ],
)
def test_known_bugs_refuses_bad_entries_located(tmp_path, text, fragments):
    with pytest.raises(InputError) as err:
        _known(tmp_path, text)
    assert all(f in str(err.value) for f in fragments), str(err.value)


def test_known_bugs_files_may_be_a_list_of_globs_never_stringified(tmp_path):
    known = _known(tmp_path, '"22.1.8":\n  - files: [generated/a.ll, "generated/b*.ll"]\n    reason: r\n')
    assert known == {"22.1.8": [("generated/a.ll", "r"), ("generated/b*.ll", "r")]}
    assert known_bugs.reason_for(known, "22.1.8", "generated/b1.ll") == "r"


def test_shipped_known_bugs_xfail_nothing_on_versions_that_only_share_a_prefix(repo_root):
    known = known_bugs.load(repo_root / "cases")
    rel = sorted(str(p.relative_to(repo_root / "cases")) for p in (repo_root / "cases" / "generated").rglob("*.ll"))
    listed = [r for r in rel if known_bugs.reason_for(known, "22.1.8", r)]
    assert listed, "22.1.8 lists known bugs"
    for version in ("22.1.8git", "22.1.80", "22.1.8.1", "22.1.8-rc1", "22.1", "22"):
        assert [r for r in rel if known_bugs.reason_for(known, version, r)] == [], version


# ---- every lit feature a file REQUIRES is one lit.cfg.py sets on 22.1.8 ----------------------


def test_one_file_per_required_feature_runs_on_22_1_8_none_unsupported(llvm_22_1_8, lit_exe, repo_root):
    files = sorted((repo_root / "cases" / "generated").rglob("*.ll"), key=lambda p: (p.stat().st_size, p.name))
    chosen: dict[str, Path] = {}
    for path in files:
        lines = [l for l in path.read_text().splitlines() if l.startswith("; REQUIRES:")]
        for feature in (f.strip() for line in lines for f in line.split(":", 1)[1].split(",")):
            chosen.setdefault(feature, path)
    assert "llvm-filecheck" in chosen and "llvm-22.1.8" in chosen and "nvptx-ptx-kernel" in chosen
    names = sorted({str(p.relative_to(repo_root)) for p in chosen.values()})
    proc = subprocess.run([lit_exe, *names], cwd=repo_root, capture_output=True, text=True, timeout=590)
    results = {name: code for code, name in re.findall(r"^([A-Z]+): matrix-lowering :: (\S+) \(", proc.stdout, re.M)}
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert set(results) == set(names)
    assert {n: c for n, c in results.items() if c not in ("PASS", "XFAIL")} == {}


# ---- lit.cfg.py: a broken intrinsic header is one fatal line ---------------------------------


ROOT = Path(harness.__file__).resolve().parent.parent  # the checkout under test
F16_MFMA = "mfma.f32.32x32x8f16"


def _broken_header_dir(path: Path) -> None:
    path.mkdir()


def _broken_header_junk(path: Path) -> None:
    path.write_bytes(b"\xff\xfe\x80\x81 not an intrinsic header \xc3\x28\n")


@pytest.mark.parametrize("breaks", [_broken_header_dir, _broken_header_junk], ids=["directory", "junk"])
def test_lit_with_a_broken_intrinsic_header_is_one_fatal_line(llvm_22_1_8, lit_exe, tmp_path, breaks):
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir)
    header = fake.parent / "include" / "llvm" / "IR" / "IntrinsicsAMDGPU.h"
    header.parent.mkdir(parents=True)
    breaks(header)
    proc = subprocess.run(
        [lit_exe, "-q", "--param", f"llvm_bin={fake}", "--filter", F16_MFMA + ".gfx90a", "cases/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    lines = [l for l in out.splitlines() if l.strip()]
    assert len(lines) == 1 and "fatal" in lines[0] and str(header) in lines[0], lines
