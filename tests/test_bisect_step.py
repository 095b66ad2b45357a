"""ci/bisect-step.sh: git bisect must read "cannot test this build" as skip (125), never bad."""

from __future__ import annotations

import os
import subprocess


def _step(repo_root, llvm_dir, env_path=None):
    env = dict(os.environ)
    if env_path:
        env["PATH"] = env_path
    return subprocess.run(
        ["bash", str(repo_root / "ci" / "bisect-step.sh"), str(llvm_dir), "--filter", "32x16x128"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_a_tested_build_whose_files_pass_or_xfail_is_good(llvm_22_1_8, lit_exe, repo_root):
    proc = _step(repo_root, llvm_22_1_8.bin_dir, os.path.dirname(lit_exe) + os.pathsep + os.environ["PATH"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_directory_without_llc_is_skipped(repo_root, tmp_path):
    proc = _step(repo_root, tmp_path)
    assert proc.returncode == 125
    assert "skip" in proc.stderr


def test_a_build_lit_cannot_configure_is_skipped_not_bad(lit_exe, repo_root, tmp_path):
    # An llc that runs but says nothing: lit's configuration fails (its exit 2), which a plain
    # `git bisect run lit ...` would have counted as a bad commit.
    (tmp_path / "llc").symlink_to("/bin/true")
    proc = _step(repo_root, tmp_path, os.path.dirname(lit_exe) + os.pathsep + os.environ["PATH"])
    assert proc.returncode == 125, proc.stdout + proc.stderr
    assert "cannot read the LLVM version" in proc.stdout + proc.stderr
