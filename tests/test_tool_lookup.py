"""One tool lookup (`harness.tools.toolchain.tool_path`): a build's own tools come from its
directory only, never from PATH or another build; the tools from outside LLVM (ptxas, and the
text tools RUN lines may put before llc) by their own rule. The runner, audit, update-checks and
lit.cfg all go through it."""

from __future__ import annotations

import os
from pathlib import Path

from harness.checks.autogen import runs
from harness.tools import toolchain


def _exe(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_a_builds_tool_comes_from_its_directory_only(tmp_path, monkeypatch):
    build, elsewhere = tmp_path / "build", tmp_path / "path"
    build.mkdir()
    elsewhere.mkdir()
    _exe(build / "llc")
    _exe(elsewhere / "opt")
    monkeypatch.setenv("PATH", f"{elsewhere}{os.pathsep}{os.environ['PATH']}")
    assert toolchain.tool_path("llc", build) == str(build / "llc")
    assert toolchain.tool_path("opt", build) == ""  # not the opt on PATH: builds never mix
    assert toolchain.tool_path("opt", None) == str(elsewhere / "opt")
    # update-checks' preprocessing tools: the same rule, beside its llc
    assert runs._find_tool("opt", str(build / "llc")) == "opt"
    assert runs._find_tool("llc", str(build / "llc")) == str(build / "llc")


def test_tools_from_outside_llvm_have_their_own_rule(tmp_path, monkeypatch):
    build = tmp_path / "build"
    build.mkdir()
    _exe(build / "sed")  # a build's directory does not decide where sed or ptxas come from
    ptxas = _exe(tmp_path / "my-ptxas")
    ptxas.write_text("#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n")  # (what ptxas --version says)
    monkeypatch.setenv("PTXAS", str(ptxas))
    tc = toolchain.Toolchain(build, "test")
    assert tc.tool("ptxas") == str(ptxas)
    assert tc.tool("sed") != str(build / "sed") and Path(tc.tool("sed")).name == "sed"
    assert runs._find_tool("sed", str(build / "llc")) == tc.tool("sed")
