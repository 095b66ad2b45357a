"""`harness bisect-run` and `ci/bisect-step.sh` vote good (0), bad (1), skip (125) or abort (>= 128)
on real builds, and `git bisect run` with them finds a planted first bad / first fixed commit.

Real builds: LLVM 22.1.8 (has gfx950/gfx1250) and Debian's llvm-14 (has neither: cannot judge).
A pipeline stands in for a code change: the over-wide FP4 WMMA case is mc-reject straight
through llc and pass after instcombine on 22.1.8.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OVERWIDE = ["--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp4", "--fmt-b", "fp4", "--width-a", "16"]
EXACT = ["--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp4", "--fmt-b", "fp4"]


def bisect_run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", "bisect-run", *map(str, args)],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def step(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(REPO / "ci" / "bisect-step.sh"), *map(str, args)], capture_output=True, text=True, timeout=600
    )


def test_votes_on_22_1_8(llvm_22_1_8):
    bin_dir = llvm_22_1_8.bin_dir
    bad = bisect_run("--llvm-bin", bin_dir, *OVERWIDE)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "bisect-run: bad (exit 1): LLVM 22.1.8 (llc sha256 " in bad.stdout and "2 mc-reject" in bad.stdout
    assert bisect_run("--llvm-bin", bin_dir, *EXACT).returncode == 0
    assert bisect_run("--llvm-bin", bin_dir, *OVERWIDE, "--invert").returncode == 0
    assert bisect_run("--llvm-bin", bin_dir, *EXACT, "--invert").returncode == 1
    assert bisect_run("--llvm-bin", bin_dir, *OVERWIDE, "--want", "mc-reject").returncode == 0
    assert bisect_run("--llvm-bin", bin_dir, *OVERWIDE, "--pipeline", "instcombine").returncode == 0
    # One line per step: the build, the counts, the decision.
    assert len(bad.stdout.strip().splitlines()) == 1


def test_a_build_that_cannot_judge_is_skipped(llvm_22_1_8, llvm14, tmp_path):
    no_mc = tmp_path / "bin"
    no_mc.mkdir()
    for tool in ("llc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        (no_mc / tool).symlink_to(llvm_22_1_8.bin_dir / tool)
    for args in (
        ["--llvm-bin", llvm14, *OVERWIDE],
        ["--llvm-bin", no_mc, *OVERWIDE],
        ["--llvm-bin", llvm_22_1_8.bin_dir, "--build", "exit 3", *OVERWIDE],
        ["--llvm-bin-cmd", "exit 1", *OVERWIDE],
    ):
        proc = bisect_run(*args)
        assert proc.returncode == 125 and "skip (exit 125)" in proc.stdout, (args, proc.stdout, proc.stderr)
    assert "lacks llvm-mc" in bisect_run("--llvm-bin", no_mc, *OVERWIDE).stdout
    # A directory that is not there, or holds no llc, is the same at every commit: a typo that
    # would skip every step aborts the bisect instead (129), with or without a build step.
    # So is an llc that is empty or not executable (a build step that succeeds writes neither).
    (tmp_path / "empty").mkdir()
    for name, text, mode in (("zero", "", 0o755), ("plain", "#!/bin/sh\n", 0o644)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "llc").write_text(text)
        (tmp_path / name / "llc").chmod(mode)
    for args, why in (
        (["--llvm-bin", tmp_path / "nowhere"], "is not a directory: no commit can be judged"),
        (["--llvm-bin", tmp_path / "empty"], "holds no llc: no commit"),
        (["--llvm-bin", tmp_path / "empty", "--build", "true"], "holds no llc after the build step succeeded"),
        (["--llvm-bin", tmp_path / "zero"], "holds an empty llc: no commit"),
        (["--llvm-bin", tmp_path / "plain", "--build", "true"], "holds an llc that is not executable after the build"),
    ):
        proc = bisect_run(*args, *OVERWIDE)
        assert proc.returncode == 129 and proc.stdout == "" and why in proc.stderr, (args, proc.stdout, proc.stderr)
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
    # The shell script agrees on the same builds: llvm-14 judges none of the seed's files (it
    # judges the gfx908/gfx90a MFMA rows, which pass or fail as known-bugs.yaml says).
    assert step(llvm14, "--filter", "f8f6f4").returncode == 125
    assert step(llvm14, "--filter", "mfma.f32.32x32x8f16").returncode == 0
    assert step(no_mc).returncode == 125
    assert step(llvm_22_1_8.bin_dir, "--filter", "32x16x128").returncode == 0
    assert step(llvm_22_1_8.bin_dir, "--filter", "32x16x128", "--param", "known_bugs=off").returncode == 1


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--llvm-bin"],
        ["--llvm-bin", "/x", "--llvm-bin-cmd", "y"],
        ["--llvm-bin", "/x", "--want", "great"],
        ["--llvm-bin", "/x", "--intrinsic", "nope", "--fmt-a", "fp4", "--fmt-b", "fp4"],
        ["--llvm-bin", "/x", "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp5", "--fmt-b", "fp4"],
        ["--llvm-bin", "/x", "--spec", "f8f6f4-runtime-formats.yaml", "--filter", "no-such-case"],
    ],
)
def test_usage_errors_abort_the_bisect(args):
    proc = bisect_run(*args)
    assert proc.returncode >= 128, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_bisect_step_usage_error_aborts():
    assert step().returncode >= 128


def _repo(tmp_path: Path, commits: list[tuple[str, str]]) -> tuple[Path, list[str]]:
    """A git repository whose commit i names a build (bin dir) and a pipeline: a stand-in for
    per-commit LLVM builds. Returns the repository and the commit hashes, oldest first."""
    repo = tmp_path / "llvm"
    repo.mkdir()
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()
    git("init", "-q")
    git("config", "user.email", "t@example.invalid")
    git("config", "user.name", "t")
    hashes = []
    for i, (bin_dir, pipeline) in enumerate(commits):
        (repo / "bin").write_text(bin_dir + "\n")
        (repo / "pipeline").write_text(pipeline + "\n")
        (repo / "n").write_text(f"{i}\n")
        git("add", "-A")
        git("commit", "-q", "-m", f"commit {i}")
        hashes.append(git("rev-parse", "HEAD"))
    return repo, hashes


def _bisect(repo: Path, good: str, bad: str, terms: list[str], invert: bool) -> str:
    harness = f"{sys.executable} -m harness"
    step_cmd = (
        f'PYTHONPATH={REPO} {harness} bisect-run --llvm-bin-cmd "cat bin" --pipeline "$(cat pipeline)" '
        + " ".join(OVERWIDE)
        + (" --invert" if invert else "")
    )
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, capture_output=True, text=True, timeout=900)
    assert run("bisect", "start", *terms, bad, good).returncode == 0
    out = run("bisect", "run", "sh", "-c", step_cmd)
    run("bisect", "reset")
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_git_bisect_run_finds_the_first_bad_commit(llvm_22_1_8, llvm14, tmp_path):
    b22 = str(llvm_22_1_8.bin_dir)
    # Good while instcombine narrows the over-wide case; commit 5 drops it. Commit 2 names a
    # build that cannot judge (skipped), commit 6 one that does not exist (skipped).
    plan = [
        (b22, "instcombine"),
        (b22, "instcombine"),
        (str(llvm14), "instcombine"),
        (b22, "instcombine"),
        (b22, "instcombine"),
        (b22, "none"),
        (str(tmp_path / "gone"), "none"),
        (b22, "none"),
        (b22, "none"),
    ]
    repo, hashes = _repo(tmp_path, plan)
    out = _bisect(repo, hashes[0], hashes[-1], [], invert=False)
    assert f"{hashes[5]} is the first bad commit" in out, out


def test_git_bisect_run_with_invert_finds_the_first_fixed_commit(llvm_22_1_8, llvm14, tmp_path):
    b22 = str(llvm_22_1_8.bin_dir)
    plan = [
        (b22, "none"),
        (b22, "none"),
        (str(llvm14), "none"),
        (b22, "none"),
        (b22, "instcombine"),
        (b22, "instcombine"),
        (b22, "instcombine"),
    ]
    repo, hashes = _repo(tmp_path, plan)
    out = _bisect(repo, hashes[0], hashes[-1], ["--term-old=broken", "--term-new=fixed"], invert=True)
    assert f"{hashes[4]} is the first fixed commit" in out, out


@pytest.mark.parametrize(
    "args",
    [
        ["--llvm-bin", "/x", *EXACT, "--invrt"],  # a typo the top-level parser sees
        ["--bogus", "--llvm-bin", "/x", *EXACT],
        ["--llvm-bin", "", *EXACT],  # an unset variable: same build every commit
        ["--llvm-bin", "/x", *EXACT, "--shard", "3/3"],  # a selection with no case
    ],
)
def test_more_usage_errors_abort_rather_than_vote(args):
    proc = bisect_run(*args)
    assert proc.returncode == 129, proc.stdout + proc.stderr


def _fake_build(tmp_path: Path, real: Path, name: str, script: str) -> Path:
    """Fault injection: the real build with one tool replaced by a script."""
    out = tmp_path / "fake-bin"
    out.mkdir()
    for tool in ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        (out / tool).symlink_to(real / tool)
    (out / name).unlink()
    (out / name).write_text("#!/bin/sh\n" + script)
    (out / name).chmod(0o755)
    return out


def test_an_assembler_that_crashes_is_a_crash_not_a_rejection(llvm_22_1_8, tmp_path):
    fake = _fake_build(tmp_path, llvm_22_1_8.bin_dir, "llvm-mc", "cat >/dev/null; kill -SEGV $$\n")
    proc = bisect_run("--llvm-bin", fake, *OVERWIDE, "--want", "mc-reject")
    assert proc.returncode == 1 and "2 crash" in proc.stdout, proc.stdout + proc.stderr


def test_an_llc_that_prints_no_code_cannot_judge(llvm_22_1_8, tmp_path):
    real = llvm_22_1_8.bin_dir / "llc"
    script = f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\ncat >/dev/null\nexit 0\n'
    fake = _fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", script)
    proc = bisect_run("--llvm-bin", fake, *EXACT)
    assert proc.returncode == 125 and "printed no code" in proc.stdout, proc.stdout + proc.stderr


def test_a_tool_that_cannot_be_run_is_missing(llvm_22_1_8, tmp_path):
    fake = _fake_build(tmp_path, llvm_22_1_8.bin_dir, "llvm-mc", "exit 0\n")
    (fake / "llvm-mc").chmod(0o644)
    proc = bisect_run("--llvm-bin", fake, *EXACT)
    assert proc.returncode == 125 and "lacks llvm-mc" in proc.stdout, proc.stdout + proc.stderr


def test_bisect_step_tells_usage_errors_from_builds_it_cannot_configure(llvm_22_1_8):
    assert step(llvm_22_1_8.bin_dir, "--bogus-flag").returncode == 129
    assert step(llvm_22_1_8.bin_dir, "--filter", "no-such-test-anywhere").returncode == 129


def test_cpu_picks_where_the_one_case_runs_and_narrows_the_specs(llvm_22_1_8, ptxas_path):
    """FP8 mma arrived with sm_89: on sm_80 llc cannot select it, on its own CPU it passes."""
    fp8 = ["--llvm-bin", llvm_22_1_8.bin_dir, "--intrinsic", "mma.m16n8k32.row.col.f32.e4m3.e4m3.f32", "--want", "cannot-select"]
    assert bisect_run(*fp8, "--cpu", "sm_80").returncode == 0
    assert bisect_run(*fp8).returncode == 1  # (sm_89, the row's first CPU)
    spec = ["--spec", "nvptx-mma.yaml", "--intrinsic", "mma.m16n8k32.row.col.f32.e4m3.*"]
    assert bisect_run(*fp8[:2], *spec, "--cpu", "sm_80", "--want", "cannot-select").returncode == 0
    assert bisect_run(*fp8[:2], *spec, "--cpu", "sm_89").returncode == 0
    nothing = bisect_run(*fp8[:2], *spec, "--cpu", "gfx950")
    assert nothing.returncode == 129 and "--cpu" in nothing.stderr, nothing.stderr


@pytest.mark.parametrize("bad", ["invalid YAML", "a FIFO"])
def test_a_known_bugs_file_that_cannot_be_read_aborts_the_bisect(llvm_22_1_8, tmp_path, bad):
    # The known-bugs file is the same at every commit: bad there, every step would skip.
    import shutil

    for spec in (REPO / "cases").glob("*.yaml"):
        shutil.copy(spec, tmp_path)
    known = tmp_path / "known-bugs.yaml"
    known.unlink()
    if bad == "a FIFO":
        os.mkfifo(known)
    else:
        known.write_text('"22.1.8": [\n')
    proc = bisect_run(
        "--cases", tmp_path, "--llvm-bin", llvm_22_1_8.bin_dir, "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx942", "-O", "0"
    )
    assert proc.returncode == 129 and proc.stdout == "", (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith(f"harness bisect-run: {known}") and len(proc.stderr.splitlines()) == 1, proc.stderr
