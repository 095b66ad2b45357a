"""`harness.checks.autogen.guard`: what audit and update-checks may run of a RUN line, lit's
substitutions, and user regexes under a time limit (issue 15). Unit tests: no LLVM needed."""

from __future__ import annotations

import os

import pytest

from harness.checks.autogen import guard
from harness.core import commands


def test_substitutions_are_lits_from_the_files_absolute_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m = guard.substitutions("t.ll")  # named without a directory: %S is still the directory
    here = str(tmp_path)
    assert (m["%s"], m["%S"], m["%p"]) == (f"{here}/t.ll", here, here)
    assert (m["%t"], m["%T"], m["%{pathsep}"]) == (f"{here}/Output/t.ll.tmp", f"{here}/Output", os.pathsep)
    assert guard.substitute("%S/../x %%s %/s", m) == f"{here}/../x %s {here}/t.ll"


def test_a_test_suites_own_substitution_is_refused():
    with pytest.raises(guard.Refused, match=r"%\{gfx950\} is a substitution"):
        guard.substitute("-mcpu=%{gfx950}", guard.substitutions("t.ll"))


@pytest.mark.parametrize(
    "args, refused",
    [
        (["-i", "s/a/b/", "f"], True),
        (["-ni", "p"], True),
        (["-i.bak", "p"], True),
        (["--in-place=.bak", "p"], True),
        (["--in", "p"], True),
        (["s/a/b/", "-i"], True),  # GNU getopt takes options after operands too
        (["-n", "-e", "1p", "f"], False),
        (["-e", "-i"], False),  # the script `-i`, not the option
        (["-f", "-i"], False),
        (["--", "-i"], False),
        (["-E", "s/i/j/g"], False),
        (["-es/i/j/", "f"], False),  # a script attached to -e: its i is text
        (["-nes/fi/fo/p", "f"], False),
    ],
)
def test_sed_may_not_edit_in_place(args, refused):
    assert bool(guard.sed_problem(args)) is refused


def test_sed_runs_in_sandbox_mode():
    assert guard.sed_argv("/usr/bin/sed", ("-n", "1p")) == ["/usr/bin/sed", "--sandbox", "-n", "1p"]


@pytest.mark.parametrize(
    "args, refused",
    [
        (["-o", "x.bc"], True),
        (["-o=x.bc"], True),
        (["-o", "-"], False),
        (["-split-dwarf-file=x.dwo"], True),
        (["--pass-remarks-output", "r.yaml"], True),
        (["-load", "evil.so"], True),
        (["-load-pass-plugin=evil.so"], True),
        (["-passes=instcombine,dot-cfg"], True),
        (["-dot-cfg-mssa=x"], True),
        (["-mtriple=amdgcn", "-mcpu=gfx950", "-mattr=+dot1-insts", "-O2"], False),
        (["-passes=default<O2>", "-S"], False),
        (["--input-file=x"], False),
        (["-passes=instcombine", "-disable-output"], False),
        (["@rsp"], True),  # a response file can hold -o, -load, anything
        (["-mcpu=gfx950", "@%S/rsp"], True),
        (["-save-stats=cwd"], True),
        (["-save-stats", "-O2"], True),
        (["-time-trace"], True),
        (["-time-trace-file=t.json"], True),
        (["--exec-on-ir-change=sh"], True),
        (["-print-changed-diff-path=/bin/sh"], True),
        (["-stats", "-debug-pass=Structure", "-filetype=obj"], False),
    ],
)
def test_llvm_tool_arguments_that_write_or_load(args, refused):
    assert bool(guard.writes(args)) is refused


def test_only_the_builds_tools_cat_and_sed_run():
    cmd = lambda text: commands.parse(text).commands[0]
    llvm = {"opt", "llvm-as", "not"}.__contains__
    assert guard.problem(cmd("opt -S"), llvm) == ""
    assert guard.problem(cmd("cat x"), llvm) == "" and guard.problem(cmd("sed -n 1p x"), llvm) == ""
    assert "neither a tool of the LLVM build" in guard.problem(cmd("touch x"), llvm)
    assert "is a path" in guard.problem(cmd("/bin/cat x"), llvm)
    assert "only llc may be wrapped" in guard.problem(cmd("not opt -S"), llvm)
    assert "only llc may be wrapped" in guard.problem(cmd("env A=1 opt -S"), llvm)
    assert "neither" in guard.problem(cmd("ptxas x"), lambda name: True)  # a tool from outside LLVM


@pytest.mark.parametrize(
    "pattern, bounded",
    [
        ("v_mfma", True),
        (r"^\s*s_", True),
        ("a.*b.*c", True),
        ("(?:ab)+", True),
        ("(a+)+$", False),
        ("(.+)+Z", False),
        ("(a|aa)+", False),
        (r"(\w+)\1", False),
        ("a.*b.*c.*d", False),
        ("(.|.){0,60}Q", False),  # a bounded count over a varying body backtracks as * does
        ("(?:.{1,30}){1,30}Q", False),
        (r"(\w{0,50}){0,50}Q", False),
        (".{0,1000}.{0,1000}.{0,1000}Q", False),  # three long repeats
        ("(ab){2}", True),
        ("(a|b)?", True),
        (r"v\[\d{1,3}:\d{1,3}\]", True),
        ("a(?=b+)c", True),  # what a lookaround holds is judged like the rest
        ("(?=(a+)+)x", False),
        ("(?<!(a|aa)+)b", False),
        ("(?>a+)b", True),
        ("(?>(a+)+)b", False),
    ],
)
def test_regexes_that_could_backtrack_without_bound_are_told_apart(pattern, bounded):
    assert guard.bounded(pattern) is bounded


def test_a_catastrophic_regex_is_stopped_in_its_child():
    found = guard.search_all(["abc", "(a+)+Z"], ["xabc", "aaaZ"], seconds=30)
    assert found == [[True, False], [False, True]]  # risky patterns still answer when they can
    with pytest.raises(guard.RegexTimeout, match="backtrack without bound"):
        guard.search_all(["(a+)+$"], ["a" * 64 + "!"], seconds=1)
