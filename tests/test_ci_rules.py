"""The rule that keeps CI honest: a test that would skip because the build is not the one its
expectations were measured on fails instead when `CI` is set."""

from __future__ import annotations

import os
import subprocess
import sys

# One test that takes the llvm_22_1_8 fixture and runs no tool before it.
TARGET = "tests/test_cli_surface.py::test_try_text_output_names_the_object_build_too"


def _pytest(repo_root, llvm_bin, ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["LLVM_BIN"] = str(llvm_bin)
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-rs", TARGET],
        cwd=repo_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_another_build_skips_locally_and_fails_under_ci(repo_root, llvm14):
    local = _pytest(repo_root, llvm14, ci=False)
    assert local.returncode == 0 and "1 skipped" in local.stdout, local.stdout
    assert "expected verdicts were measured on LLVM 22.1.8; this is 14." in local.stdout
    under_ci = _pytest(repo_root, llvm14, ci=True)
    assert under_ci.returncode == 1 and "1 error" in under_ci.stdout, under_ci.stdout
    assert "CI's set-up installs this, but expected verdicts were measured on LLVM 22.1.8; this is 14." in under_ci.stdout
