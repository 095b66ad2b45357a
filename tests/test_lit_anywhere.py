"""`harness lit FILE...`: lit on test files outside cases/, with this project's configuration."""

from __future__ import annotations

import shutil
from pathlib import Path

GENERATED = "cases/generated/mfma.f32.32x32x8f16.gfx908.O0.exact.ll"


def test_a_test_anywhere_runs_with_the_project_s_configuration(cli, llvm_22_1_8, repo_root, tmp_path):
    mine = tmp_path / "elsewhere" / "mine.ll"
    mine.parent.mkdir()
    shutil.copy(repo_root / GENERATED, mine)
    proc = cli("lit", mine)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"PASS: {mine} (1 of 1)" in proc.stdout and "testing LLVM 22.1.8" in proc.stderr
    # Nothing left behind: a suite is named by its harness process, and this one has ended
    # (a parallel test's own may still be there).
    left = [p.name for p in (repo_root / "build" / "lit-anywhere").glob("suite.*")]
    assert [n for n in left if not Path(f"/proc/{n.split('.')[1]}").exists()] == []


def test_a_failing_test_anywhere_fails_and_names_the_file_as_given(cli, llvm_22_1_8, repo_root, tmp_path):
    broken = tmp_path / "broken.ll"
    broken.write_text((repo_root / GENERATED).read_text().replace("v_mfma", "v_nomfma"))
    same_name = tmp_path / "other" / "broken.ll"
    same_name.parent.mkdir()
    shutil.copy(repo_root / GENERATED, same_name)
    proc = cli("lit", "-v", broken, same_name)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"FAIL: {broken} (" in proc.stdout and f"PASS: {same_name} (" in proc.stdout
    assert "v_nomfma" in proc.stdout  # -v: the failing test's output


def test_lit_on_no_file_is_one_line_and_exit_2(cli, tmp_path):
    from conftest import one_line_exit_2

    one_line_exit_2(cli("lit", tmp_path / "missing.ll"), "missing.ll", "no such test file")


def test_a_file_name_lit_s_shell_would_split_still_runs(cli, llvm_22_1_8, repo_root, tmp_path):
    odd = tmp_path / "with space;and$dollar.ll"
    shutil.copy(repo_root / GENERATED, odd)
    proc = cli("lit", "-a", odd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"PASS: {odd} (1 of 1)" in proc.stdout and f"< {odd}" in proc.stdout  # RUN lines name it too


def test_a_directory_or_another_kind_of_file_is_refused_in_one_line(cli, tmp_path):
    from conftest import one_line_exit_2

    one_line_exit_2(cli("lit", tmp_path), "a directory, not a test file")
    (tmp_path / "notes.txt").write_text("; RUN: true\n")
    one_line_exit_2(cli("lit", tmp_path / "notes.txt"), "not a lit test file of this suite (a .ll file)")


def test_an_nvptx_test_s_ptxas_lines_run_as_llvm_s_own_tests_write_them(cli, llvm_22_1_8, ptxas_path, tmp_path):
    # LLVM's NVPTX tests close llc's PTX with `%if ptxas-sm_XX && ptxas-isa-X.Y %{ ... |
    # %ptxas-verify -arch=sm_XX %}`: the features come from the ptxas found, the line runs it.
    body = "define void @f() {\n  ret void\n}\n; CHECK-LABEL: f(\n"
    run = "; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_80 | FileCheck %s\n"
    ok, wrong, absent = (tmp_path / f"{n}.ll" for n in ("ok", "wrong", "absent"))
    ok.write_text(
        run
        + "; RUN: %if ptxas-sm_80 && ptxas-isa-7.0 %{ llc < %s -mtriple=nvptx64 -mcpu=sm_80 | %ptxas-verify -arch=sm_80 %}\n"
        + body
    )
    wrong.write_text(
        run + "; RUN: %if ptxas-sm_80 %{ llc < %s -mtriple=nvptx64 -mcpu=sm_80 | %ptxas-verify -arch=sm_75 %}\n" + body
    )
    absent.write_text(
        run + "; RUN: %if ptxas-isa-99.0 %{ llc < %s -mtriple=nvptx64 -mcpu=sm_80 | %ptxas-verify -arch=sm_75 %}\n" + body
    )
    proc = cli("lit", "-v", ok, wrong, absent, env={"PTXAS": ptxas_path})
    assert f"PASS: {ok} (" in proc.stdout and f"PASS: {absent} (" in proc.stdout, proc.stdout + proc.stderr
    assert f"FAIL: {wrong} (" in proc.stdout and "SM version specified by .target is higher" in proc.stdout, proc.stdout
