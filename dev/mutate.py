#!/usr/bin/env python3
"""Mutation run: does the test suite catch deliberately planted bugs? (Dev-only; not run by CI.)

Two kinds of mutant. The hand-written ones (MUTATIONS) are exact text edits of bugs that once got
through. The generated ones come from an operator over the AST of every module of harness/ (a
flipped comparison, and/or swapped, a negated condition, an int +-1, True/False swapped, a
returned value replaced, a statement deleted; never in docstrings, comments, annotations,
`__all__`, help/description strings or logging-only lines): N per package, picked by a hash of
--seed and each site, so the same code gives the same mutants on every run.

For each mutant, the repository (the working tree's tracked and untracked-but-not-ignored files,
as `git ls-files` lists them) is copied to a temporary directory, the one edit is applied there,
and the mutant's tests run there with -x and the copy first on PYTHONPATH. Which tests: with
--map, those that ran the mutant's line when the map was built (`--build-map`, one run of the
whole suite under coverage); else the test files that import its module or that TESTS_FOR names
(--full: the whole suite). A failing or timed-out run kills the mutant; a passing run means it
survived, i.e. a test is missing, unless EQUIVALENT says why no test can tell. An unmutated
baseline run of the same tests comes first: a suite that is already red measures nothing.

    .venv/bin/python dev/mutate.py --list                 # the mutants and the tests of each
    .venv/bin/python dev/mutate.py --build-map build/mutate-map.json --coverage-lib DIR
    .venv/bin/python dev/mutate.py --generated --map build/mutate-map.json --json build/mutate.json
    .venv/bin/python dev/mutate.py --hand --only mc-owner-next-line --only known-bugs-prefix

The report: per package, mutants / killed / equivalent / survived / kill rate, then the
equivalent mutants and the survivors with file:line and the edit.

Exit status: 0 every package >= 95 % and every hand-written mutation killed (documented
equivalent ones aside), 1 otherwise, 2 bad usage or a mutation whose text is not found (one line
says which).
"""

from __future__ import annotations

import argparse
import ast
import bisect
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, NoReturn
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent

VERDICT_TESTS = (
    "tests/test_verdicts.py",
    "tests/test_parsers_real_output.py",
    "tests/test_function_split.py",
    "tests/test_try_facts.py",
    "tests/test_audit.py",
)
RUNNER_TESTS = (
    "tests/test_function_split.py",
    "tests/test_fake_tools.py",
    "tests/test_cli_try_run.py",
    "tests/test_run_modes.py",
    "tests/test_try_facts.py",
    "tests/test_bisect_run.py",
)
LIT_TESTS = ("tests/test_lit.py", "tests/test_bisect_step.py", "tests/test_lit_tools.py")
SPEC_TESTS = (
    "tests/test_expansion.py",
    "tests/test_spec_errors.py",
    "tests/test_spec_hostile.py",
    "tests/test_case_classes.py",
)
GENERATED_TESTS = ("tests/test_generated_checks.py", "tests/test_expansion.py", "tests/test_commands.py", "tests/test_lit.py")


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str
    old: str
    new: str
    description: str
    tests: tuple[str, ...]
    equivalent: str = ""  # why no test can tell (on real tool output), when that is the case


MUTATIONS = (
    # ---- the seven that once got through ---------------------------------------------------
    Mutation(
        "mc-owner-next-line",
        "harness/core/verdicts.py",
        "        fn = owners.get(line)\n",
        "        fn = owners.get(line + 1)\n",
        "1: an llvm-mc error at line N is blamed on the owner of line N+1",
        VERDICT_TESTS,
    ),
    Mutation(
        "mc-owner-map-shifted",
        "harness/core/verdicts.py",
        '    current, opened, number, pos = "", 0, 1, 0\n',
        '    current, opened, number, pos = "", 0, 2, 0\n',
        "1: asm_owners numbers lines from 2, so line N gets the owner of line N-1",
        VERDICT_TESTS,
    ),
    Mutation(
        "mc-owner-prev-line",
        "harness/core/verdicts.py",
        "        fn = owners.get(line)\n",
        "        fn = owners.get(line - 1)\n",
        "1: an llvm-mc error at line N is blamed on the owner of line N-1",
        VERDICT_TESTS,
        equivalent="N and N-1 have different owners only when N is a function's label line or its "
        ".Lfunc_endN line, and llvm-mc never rejects either in llc's output",
    ),
    Mutation(
        "func-end-not-a-boundary",
        "harness/core/verdicts.py",
        '        elif line.startswith((".Lfunc_end", "}")):\n',
        '        elif line.startswith("}"):\n',
        "2: lines after .Lfunc_endN (trailing sections) are blamed on the function before them",
        VERDICT_TESTS,
    ),
    Mutation(
        "opt-timeout-pass",
        "harness/tools/runner.py",
        '                    V.TIMEOUT, f"{tool} ran past {self.tc.timeout:g} s on the module of {len(cases)} case(s)", [gen]',
        '                    V.TIMEOUT if tool == "llc" else V.PASS, f"{tool} ran past {self.tc.timeout:g} s on the module of {len(cases)} case(s)", [gen]',
        "3: an opt pipeline that times out gives `pass`",
        RUNNER_TESTS,
    ),
    Mutation(
        "mc-timeout-pass",
        "harness/tools/runner.py",
        '                    V.TIMEOUT, f"{tool} ran past {self.tc.timeout:g} s on the module of {len(cases)} case(s)", before',
        '                    V.PASS, f"{tool} ran past {self.tc.timeout:g} s on the module of {len(cases)} case(s)", before',
        "3: an llvm-mc that times out gives `pass`",
        RUNNER_TESTS,
    ),
    Mutation(
        "known-bugs-prefix",
        "harness/specs/known_bugs.py",
        "    for pattern, reason in known.get(version, []):\n",
        "    for pattern, reason in [e for v, es in known.items() if version.startswith(v) for e in es]:\n",
        "4: a known-bugs entry covers every version it is a prefix of (22.1.8 -> 22.1.8git, 22.1.80)",
        LIT_TESTS,
    ),
    Mutation(
        "lit-known-bugs-prefix",
        "lit.cfg.py",
        "config.test_format = KnownBugShTest(version, KNOWN, CASES)",
        "config.test_format = KnownBugShTest(next((v for v in KNOWN if version.startswith(v)), version), KNOWN, CASES)",
        "4: lit.cfg.py takes the known bugs of a listed version the build's version starts with",
        LIT_TESTS,
    ),
    Mutation(
        "lit-drops-filecheck-feature",
        "lit.cfg.py",
        '    config.available_features.add("llvm-filecheck")',
        '    config.available_features.discard("llvm-filecheck")',
        "5: the llvm-filecheck feature is never set (5 object files silently UNSUPPORTED)",
        LIT_TESTS,
    ),
    Mutation(
        "lit-inverts-ir-feature",
        "lit.cfg.py",
        "    if target.ir_feature and target.reads_ir(tc):",
        "    if target.ir_feature and not target.reads_ir(tc):",
        "5: nvptx-ptx-kernel is set on builds that cannot read the kernels, not on those that can",
        LIT_TESTS,
    ),
    Mutation(
        "batch-ignores-selectors",
        "harness/tools/runner.py",
        "    return (intr.target.name, c.cpu, intr.features, c.opt, c.pipeline, c.check, g.selectors, c.cpu in intr.cpus, _rejected(g))\n",
        "    return (intr.target.name, c.cpu, intr.features, c.opt, c.pipeline, c.check, c.cpu in intr.cpus, _rejected(g))\n",
        "6: cases of files with other selectors share a module, and run under the first file's selectors",
        RUNNER_TESTS,
    ),
    Mutation(
        "ir-line-owner-shifted",
        "harness/specs/emit.py",
        "            owner[len(lines) + offset + 1] = case.function\n",
        "            owner[len(lines) + offset + 2] = case.function\n",
        "7: IR line N is owned by the function of line N-1 (a parse error blamed on the line before)",
        ("tests/test_emit_ir.py", "tests/test_function_split.py", "tests/test_cli_try_run.py"),
    ),
    Mutation(
        "ir-parse-error-prev-line",
        "harness/tools/runner.py",
        "                fn = module.line_owner.get(line)\n",
        "                fn = module.line_owner.get(line - 1)\n",
        "7: an IR parse error at line N is attributed to the function of line N-1",
        RUNNER_TESTS,
    ),
    # ---- more realistic slips -----------------------------------------------------------------
    Mutation(
        "first-error-ignores-fatal",
        "harness/core/verdicts.py",
        '_ERROR_WORD = re.compile(r"\\b(?:error|fatal)\\s*:", re.I)\n',
        '_ERROR_WORD = re.compile(r"\\berror\\s*:", re.I)\n',
        "first_error skips ptxas's `fatal` lines and quotes the first line instead",
        ("tests/test_nvptx_mma.py", "tests/test_verdicts.py", "tests/test_parsers_real_output.py"),
    ),
    Mutation(
        "legalize-failure-is-crash",
        "harness/core/verdicts.py",
        '    gave_up = re.compile(r"[Cc]annot select|unable to legalize")\n',
        '    gave_up = re.compile(r"[Cc]annot select")\n',
        "GlobalISel's `unable to legalize` becomes `crash` instead of `cannot-select`",
        VERDICT_TESTS + ("tests/test_cli_try_run.py", "tests/test_run_modes.py"),
    ),
    Mutation(
        "verifier-message-dropped",
        "harness/core/verdicts.py",
        "        if start > 0 and not _CALL_RESULT.match(lines[start - 1]):\n            start -= 1  # the message\n",
        "",
        "a verifier diagnostic loses its message line",
        VERDICT_TESTS,
    ),
    Mutation(
        "mc-last-error-wins",
        "harness/core/verdicts.py",
        "            found.setdefault(fn, detail)\n",
        "            found[fn] = detail\n",
        "a function's mc-reject detail quotes its last llvm-mc error, not its first",
        VERDICT_TESTS,
    ),
    Mutation(
        "b-tuple-is-the-accumulator",
        "harness/core/verdicts.py",
        '    return {"a": found[1][1], "b": found[1][2]}\n',
        '    return {"a": found[1][1], "b": found[1][3]}\n',
        "the B source tuple is read from the accumulator operand (one operand too far)",
        VERDICT_TESTS,
    ),
    Mutation(
        "unsupported-is-pass",
        "harness/tools/runner.py",
        "Verdict(V.UNSUPPORTED, why) for c in g.cases for sel in g.selectors",
        "Verdict(V.PASS, why) for c in g.cases for sel in g.selectors",
        "a build that lacks the target, CPU or intrinsic passes every case",
        RUNNER_TESTS + ("tests/test_matrix.py",),
    ),
    Mutation(
        "exclude-fmt-b-reads-a",
        "harness/specs/matrix.py",
        '        return (case.fmt(Side(key[-1])), "all")\n',
        '        return (case.fmt(Side.A), "all")\n',
        "an exclude rule on fmt_b compares the A format",
        SPEC_TESTS,
    ),
    Mutation(
        "width-zero-accepted",
        "harness/specs/matrix.py",
        "    if isinstance(v.value, int) and v.value <= 0:\n",
        "    if isinstance(v.value, int) and v.value < 0:\n",
        "a width of 0 is accepted",
        SPEC_TESTS,
    ),
    Mutation(
        "split-selectors-ignored",
        "harness/specs/matrix.py",
        '                key = (case, selector if split else "")\n',
        '                key = (case, "")\n',
        "split_selectors: true no longer gives each selector its own files",
        SPEC_TESTS + ("tests/test_generated_checks.py",),
    ),
    Mutation(
        "max-cases-off-by-one",
        "harness/specs/matrix.py",
        "                    if earlier + len(out) >= limit:",
        "                    if earlier + len(out) > limit:",
        "--max-cases N lets N+1 case-selector pairs through",
        SPEC_TESTS,
    ),
    Mutation(
        "known-bugs-glob-crosses-slash",
        "harness/specs/known_bugs.py",
        "    return len(parts) == len(globs) and all(fnmatch.fnmatchcase(p, g) for p, g in zip(parts, globs))\n",
        "    return fnmatch.fnmatchcase(relpath, pattern)\n",
        "a known-bugs glob's `*` crosses `/` (generated/*.ll reaches generated/snapshots/)",
        LIT_TESTS,
    ),
    Mutation(
        "known-bugs-reason-keeps-newlines",
        "harness/specs/known_bugs.py",
        'out.setdefault(version, []).extend((g, " ".join(reason.split())) for g in globs)',
        "out.setdefault(version, []).extend((g, reason) for g in globs)",
        "a folded multi-line reason keeps its line breaks",
        LIT_TESTS,
    ),
    Mutation(
        "no-llvm-mc-run-line",
        "harness/checks/litgen.py",
        '        runs.append(f"; RUN: %if {target.assembler_tool} %{{ {closing} %}}" if target.assembler_optional else f"; RUN: {closing}")\n',
        "",
        "generated codegen files no longer close llc's text through llvm-mc",
        GENERATED_TESTS,
    ),
    Mutation(
        "verifier-operand-not-next",
        "harness/checks/litgen.py",
        '    lines = [f"; CHECK: {message}", call, f"; CHECK-NEXT: {{{{^}}}}{source_operand}{{{{$}}}}"]\n',
        '    lines = [f"; CHECK: {message}", call, f"; CHECK: {{{{^}}}}{source_operand}{{{{$}}}}"]\n',
        "the rejected source operand is checked anywhere later, not on the line after the call",
        GENERATED_TESTS,
    ),
    Mutation(
        "gisel-may-fall-back",
        "harness/core/commands.py",
        'Selector.GISEL: ("-global-isel=1", "-global-isel-abort=1")}',
        'Selector.GISEL: ("-global-isel=1", "-global-isel-abort=2")}',
        "GlobalISel silently falls back to SelectionDAG instead of aborting",
        GENERATED_TESTS + ("tests/test_run_modes.py",),
    ),
    Mutation(
        "run-line-keeps-backslash",
        "harness/core/commands.py",
        '        joined = body[:-1].strip() if body.endswith("\\\\") else body.strip()\n',
        "        joined = body.strip()\n",
        "a RUN line continued with `\\` keeps the backslash in the joined command",
        ("tests/test_commands.py", "tests/test_update_checks.py", "tests/test_audit.py"),
    ),
    Mutation(
        "quote-no-backslash-escape",
        "harness/core/commands.py",
        """    return '"' + word.replace("\\\\", "\\\\\\\\").replace('"', '\\\\"') + '"'\n""",
        """    return '"' + word.replace('"', '\\\\"') + '"'\n""",
        "quoting a word with both quote kinds does not escape its backslashes",
        ("tests/test_commands.py",),
    ),
    Mutation(
        "spec-duplicate-key-allowed",
        "harness/specs/spec.py",
        "        if key in out:\n",
        "        if False:\n",
        "a spec block naming the same key twice silently keeps the last",
        SPEC_TESTS,
    ),
)


# ------------------------------------------------------------------------------ generated mutants
# An operator-based generator over the AST of every module of harness/: each site is one small
# edit at a byte range of one file. Sites are ranked by a hash of the seed and the site's key (its
# file, enclosing function, operator and text), and the first N of each package that still parse
# are taken, so the same code gives the same mutants on every run and an edit elsewhere changes few.

PACKAGES = (
    "harness",
    "harness/checks",
    "harness/checks/autogen",
    "harness/core",
    "harness/gpu",
    "harness/kernels",
    "harness/reports",
    "harness/specs",
    "harness/targets",
    "harness/tools",
)
HELP_KEYWORDS = frozenset({"help", "description", "epilog", "usage", "metavar"})
SKIPPED_FIELDS = frozenset({"annotation", "returns", "type_comment", "type_params"})
NO_DELETE = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass, ast.Global)
NO_DELETE += (ast.Nonlocal, ast.Assert)
LOGGERS = frozenset({"logging", "logger", "log", "warnings"})
_COMPARE: dict[type, tuple[str, str]] = {
    ast.Lt: (r"<(?!=)", "<="),
    ast.LtE: (r"<=", "<"),
    ast.Gt: (r">(?!=)", ">="),
    ast.GtE: (r">=", ">"),
    ast.Eq: (r"==", "!="),
    ast.NotEq: (r"!=", "=="),
    ast.In: (r"\bin\b", "not in"),
    ast.NotIn: (r"\bnot\s+in\b", "in"),
    ast.Is: (r"\bis\b(?!\s+not\b)", "is not"),
    ast.IsNot: (r"\bis\s+not\b", "is"),
}


def package_of(rel: str) -> str:
    return str(PurePosixPath(rel).parent)


def _short(text: str, width: int = 70) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


@dataclass(frozen=True)
class Generated:
    """One generated mutant: bytes start..end of `file` (text `old`) become `new`."""

    file: str
    line: int
    col: int
    start: int
    end: int
    old: str
    new: str
    operator: str
    scope: str
    key: str = ""
    tests: tuple[str, ...] = ()
    equivalent: str = ""
    at_import: bool = False  # outside every function: the line runs when the module is imported

    @property
    def name(self) -> str:
        return f"{self.file}:{self.line}:{self.col}:{self.operator}"

    @property
    def package(self) -> str:
        return package_of(self.file)

    @property
    def description(self) -> str:
        return f"{self.operator} in {self.scope}: `{_short(self.old)}` -> `{_short(self.new)}`"

    def mutated(self, data: bytes) -> bytes:
        return data[: self.start] + self.new.encode() + data[self.end :]

    def check(self, root: Path) -> str:
        path = root / self.file
        if not path.is_file() or path.read_bytes()[self.start : self.end] != self.old.encode():
            return f"{self.name}: the text at the site is no longer {_short(self.old)!r}"
        return ""

    def apply(self, tree: Path) -> str:
        problem = self.check(tree)
        if not problem:
            path = tree / self.file
            path.write_bytes(self.mutated(path.read_bytes()))
        return problem


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_logging(stmt: ast.stmt) -> bool:
    """A statement that only logs: a logging/warnings call, or a `# ...` progress line on stderr."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call, func = stmt.value, stmt.value.func
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and root.id in LOGGERS and root is not func:
        return True
    to_stderr = any(k.arg == "file" and "stderr" in ast.unparse(k.value) for k in call.keywords)
    first = call.args[0] if call.args else None
    text = first.values[0] if isinstance(first, ast.JoinedStr) and first.values else first
    starts_hash = isinstance(text, ast.Constant) and isinstance(text.value, str) and text.value.startswith("#")
    return isinstance(func, ast.Name) and func.id == "print" and to_stderr and starts_hash


def _is_quiet(stmt: ast.stmt) -> bool:
    """Statements no mutant is planted in: docstrings, `__all__`, logging, `if __name__ ==
    "__main__":` and `if TYPE_CHECKING:` blocks."""
    if _is_docstring(stmt) or _is_logging(stmt):
        return True
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
    if isinstance(stmt, ast.If):
        test = ast.unparse(stmt.test)
        return test in ("TYPE_CHECKING", "typing.TYPE_CHECKING") or test.startswith("__name__ ==")
    return False


class _Sites(ast.NodeVisitor):
    """Every mutation site of one module (annotations, help strings and f-strings are skipped)."""

    def __init__(self, rel: str, data: bytes) -> None:
        self.rel, self.data = rel, data
        self.starts = [0]
        for line in data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.scope: list[str] = []
        self.classes: list[int] = []  # the scope depth of each enclosing class body
        self.functions = 0  # how many function bodies enclose the node
        self.found: list[Generated] = []

    def _span(self, node: ast.AST) -> tuple[int, int]:
        n: Any = node
        return self.starts[n.lineno - 1] + n.col_offset, self.starts[n.end_lineno - 1] + n.end_col_offset

    def _add(self, start: int, end: int, new: str, operator: str) -> None:
        old = self.data[start:end].decode()
        if old != new:
            line = bisect.bisect_right(self.starts, start)
            col = len(self.data[self.starts[line - 1] : start].decode()) + 1
            scope = ".".join(self.scope) or "<module>"
            site = Generated(self.rel, line, col, start, end, old, new, operator, scope, at_import=not self.functions)
            self.found.append(site)

    def generic_visit(self, node: ast.AST) -> None:
        self._fields(node)

    def _fields(self, node: ast.AST, body_runs_later: bool = False) -> None:
        """Visit the node's fields; with `body_runs_later` (a function or a lambda), its body is
        code that runs when called, the rest (decorators, defaults) where the node is."""
        for field, value in ast.iter_fields(node):
            if field in SKIPPED_FIELDS:
                continue
            later = body_runs_later and field == "body"
            self.functions += later
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self._block(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)
            self.functions -= later

    def _block(self, stmts: list[ast.stmt]) -> None:
        live = [s for s in stmts if not _is_quiet(s)]
        for stmt in live:
            field = isinstance(stmt, ast.AnnAssign) and self.classes and self.classes[-1] == len(self.scope)
            if len(live) > 1 and not isinstance(stmt, NO_DELETE) and not field:  # a class's fields are its type
                self._add(*self._span(stmt), "pass", "delete-statement")
            self.visit(stmt)

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        is_class = isinstance(node, ast.ClassDef)
        if is_class:
            self.classes.append(len(self.scope))
        self._fields(node, body_runs_later=not is_class)
        if is_class:
            self.classes.pop()
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._fields(node, body_runs_later=True)

    def _negate(self, test: ast.expr) -> None:
        start, end = self._span(test)
        self._add(start, end, f"not ({self.data[start:end].decode()})", "negate-condition")

    def _test_holder(self, node: ast.If | ast.While | ast.IfExp) -> None:
        self._negate(node.test)
        self.generic_visit(node)

    visit_If = visit_While = visit_IfExp = _test_holder

    def visit_comprehension(self, node: ast.comprehension) -> None:
        for test in node.ifs:
            self._negate(test)
        self.generic_visit(node)

    def _gap_op(self, left: ast.AST, right: ast.AST, pattern: str, new: str, operator: str) -> None:
        lo, hi = self._span(left)[1], self._span(right)[0]
        found = re.search(pattern, self.data[lo:hi].decode())
        if found:
            start = lo + len(self.data[lo:hi].decode()[: found.start()].encode())
            self._add(start, start + len(found.group().encode()), new, operator)

    def visit_Compare(self, node: ast.Compare) -> None:
        left: ast.AST = node.left
        for op, right in zip(node.ops, node.comparators):
            self._gap_op(left, right, *_COMPARE[type(op)], "flip-compare")
            left = right
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        word, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        self._gap_op(node.values[0], node.values[1], rf"\b{word}\b", other, "swap-and-or")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, bool):
            self._add(*self._span(node), str(not node.value), "flip-bool")
        elif isinstance(node.value, int):
            self._add(*self._span(node), str(node.value + 1 if node.value % 2 == 0 else node.value - 1), "int-plus-minus-1")

    def visit_Return(self, node: ast.Return) -> None:
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            self._add(*self._span(value), '"mutant"' if value.value else '""', "return-value")
        elif value is not None and not (
            isinstance(value, ast.Constant) and (value.value is None or isinstance(value.value, int))
        ):
            self._add(*self._span(value), "None", "return-value")
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg not in HELP_KEYWORDS:
            self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return  # positions inside f-strings are unreliable before Python 3.12; their text is output


def module_sites(root: Path, rel: str) -> list[Generated]:
    """Every site of one module, each with a key unique in the module."""
    data = (root / rel).read_bytes()
    visitor = _Sites(rel, data)
    visitor.visit(ast.parse(data, filename=rel))
    seen: dict[str, int] = {}
    out = []
    for site in visitor.found:
        base = f"{site.file}::{site.scope}::{site.operator}::{_short(site.old, 200)}=>{_short(site.new, 200)}"
        seen[base] = seen.get(base, 0) + 1
        out.append(replace(site, key=f"{base}#{seen[base]}"))
    return out


def _rank(seed: str, site: Generated) -> str:
    return hashlib.sha256(f"{seed}\0{site.key}".encode()).hexdigest()


def _parses(root: Path, site: Generated) -> bool:
    try:
        ast.parse(site.mutated((root / site.file).read_bytes()))
    except SyntaxError:
        return False
    return True


def generate(root: Path, per_package: int, seed: str, packages: tuple[str, ...] = PACKAGES) -> list[Generated]:
    """`per_package` mutants of each package, the same ones on every run of the same code."""
    modules = sorted(p.relative_to(root).as_posix() for p in (root / "harness").rglob("*.py"))
    importers = test_importers(root)
    chosen: list[Generated] = []
    for package in packages:
        sites = [s for rel in modules if package_of(rel) == package for s in module_sites(root, rel)]
        picked: list[Generated] = []
        for site in sorted(sites, key=lambda s: _rank(seed, s)):
            if len(picked) == per_package:
                break
            if _parses(root, site):
                picked.append(site)
        picked.sort(key=lambda s: (s.file, s.start))
        chosen.extend(replace(s, tests=tests_for(s.file, importers), equivalent=EQUIVALENT.get(s.key, "")) for s in picked)
    return chosen


# ------------------------------------------------------------------------------ which tests run
# A mutant runs the test files that import its module (tests/test_layers.py, which only reads
# imports, aside) and the files this table names: those that drive the module through the CLI,
# lit or another module. A module with neither runs CLI_TESTS.

_T = "tests/test_"
CLI_TESTS = tuple(f"{_T}{n}.py" for n in ("cli_surface", "cli_try_run", "run_modes", "spec_errors"))
_RUNS = tuple(f"{_T}{n}.py" for n in ("cli_try_run", "run_modes", "fake_tools", "verifier_runs", "try_facts"))
_AUTOGEN = tuple(f"{_T}{n}.py" for n in ("update_checks", "update_checks_hostile", "run_line_guard", "snapshots"))
_NVPTX_GEMM = tuple(f"{_T}{n}.py" for n in ("nvptx_gemm", "gpu_manifest", "gpu_hostile", "gpu_bounds"))
_NVPTX_TILES = tuple(f"{_T}{n}.py" for n in ("nvptx_tiles", "nvptx_second_opinion", "gpu_hostile", "gpu_bounds", "fragments_isa"))
_ROWS = tuple(f"{_T}{n}.py" for n in ("amdgpu_rows", "formats_catalog", "amdgpu_row_cases", "emit_ir"))
_SPECS = tuple(f"{_T}{n}.py" for n in ("expansion", "spec_errors", "spec_hostile", "spec_limits", "case_classes"))
TESTS_FOR: dict[str, tuple[str, ...]] = {
    "harness/__main__.py": CLI_TESTS,
    "harness/cli.py": CLI_TESTS + tuple(f"{_T}{n}.py" for n in ("snapshots", "expand_files", "audit", "coverage", "matrix")),
    "harness/parser.py": CLI_TESTS + tuple(f"{_T}{n}.py" for n in ("matrix", "snapshots", "bisect_run", "audit")),
    "harness/core/errors.py": CLI_TESTS + (f"{_T}spec_hostile.py",),
    "harness/core/files.py": tuple(f"{_T}{n}.py" for n in ("file_writes", "expand_files", "spec_hostile", "snapshots")),
    "harness/checks/litgen.py": tuple(f"{_T}{n}.py" for n in ("generated_checks", "emit_ir", "lit", "snapshots")),
    "harness/checks/litformat.py": (f"{_T}lit.py", f"{_T}generated_checks.py", f"{_T}lit_tools.py"),
    "harness/checks/expand.py": tuple(f"{_T}{n}.py" for n in ("expand_files", "spec_errors", "generated_checks", "snapshots")),
    "harness/checks/snapshots.py": (f"{_T}snapshots.py",),
    "harness/checks/audit.py": (f"{_T}audit.py", f"{_T}audit_hostile.py"),
    "harness/checks/check_lines.py": (f"{_T}audit.py", f"{_T}audit_hostile.py", f"{_T}snapshots.py", f"{_T}update_checks.py"),
    "harness/checks/autogen/__init__.py": _AUTOGEN,
    "harness/checks/autogen/guard.py": _AUTOGEN + (f"{_T}audit.py", f"{_T}audit_hostile.py"),
    "harness/checks/autogen/layout.py": _AUTOGEN,
    "harness/checks/autogen/options.py": _AUTOGEN,
    "harness/checks/autogen/runs.py": _AUTOGEN + (f"{_T}tool_lookup.py",),
    "harness/checks/autogen/scrub.py": _AUTOGEN,
    "harness/checks/autogen/update.py": _AUTOGEN,
    "harness/gpu_cli.py": _NVPTX_GEMM + _NVPTX_TILES,
    "harness/checks/gemm_lit.py": _NVPTX_GEMM,
    "harness/kernels/kernel.py": _NVPTX_GEMM + _NVPTX_TILES,
    "harness/kernels/gemm.py": _NVPTX_GEMM,
    "harness/kernels/gemm_spec.py": _NVPTX_GEMM,
    "harness/kernels/fragments.py": _NVPTX_TILES,
    "harness/kernels/tiles.py": _NVPTX_TILES,
    "harness/kernels/cuda.py": _NVPTX_TILES,
    "harness/gpu/build.py": _NVPTX_GEMM + _NVPTX_TILES,
    "harness/gpu/manifest.py": _NVPTX_GEMM + _NVPTX_TILES,
    "harness/gpu/kinds.py": _NVPTX_GEMM + _NVPTX_TILES,
    "harness/gpu/check.py": _NVPTX_GEMM + _NVPTX_TILES,
    "harness/gpu/second.py": _NVPTX_TILES,
    "harness/reports/report.py": tuple(f"{_T}{n}.py" for n in ("matrix", "report_inputs", "run_modes")),
    "harness/reports/merge.py": (f"{_T}matrix.py", f"{_T}report_inputs.py"),
    "harness/reports/html_report.py": (f"{_T}html_report.py", f"{_T}matrix.py", f"{_T}report_inputs.py"),
    "harness/reports/compare.py": (f"{_T}matrix.py",),
    "harness/reports/bisect.py": (f"{_T}bisect_run.py", f"{_T}bisect_children.py", f"{_T}bisect_step.py"),
    "harness/reports/coverage.py": (f"{_T}coverage.py",),
    "harness/specs/spec.py": _SPECS + (f"{_T}fuzz_specs.py",),
    "harness/specs/matrix.py": _SPECS,
    "harness/specs/cases.py": _SPECS + (f"{_T}emit_ir.py",),
    "harness/specs/emit.py": (f"{_T}emit_ir.py", f"{_T}parsers_real_output.py", f"{_T}try_facts.py"),
    "harness/specs/selection.py": CLI_TESTS + (f"{_T}try_facts.py", f"{_T}amdgpu_row_cases.py", f"{_T}expansion.py"),
    "harness/specs/known_bugs.py": (f"{_T}lit.py", f"{_T}generated_checks.py", f"{_T}spec_errors.py"),
    "harness/targets/__init__.py": _ROWS + (f"{_T}nvptx_mma.py", f"{_T}lit_tools.py", f"{_T}tool_lookup.py"),
    "harness/targets/amdgpu_rows.py": _ROWS,
    "harness/targets/families.py": _ROWS,
    "harness/targets/catalog.py": _ROWS,
    "harness/targets/formats.py": _ROWS,
    "harness/targets/nvptx_rows.py": (f"{_T}nvptx_mma.py", f"{_T}nvptx_sparse_rows.py", f"{_T}nvptx_tiles.py"),
    "harness/tools/toolchain.py": tuple(
        f"{_T}{n}.py" for n in ("tool_lookup", "fake_tools", "lit_tools", "nvptx_mma", "nvptx_gemm")
    ),
    "harness/tools/declared.py": tuple(f"{_T}{n}.py" for n in ("coverage", "nvptx_mma", "amdgpu_row_cases", "matrix", "lit")),
    "harness/core/commands.py": (f"{_T}commands.py", f"{_T}run_line_guard.py", f"{_T}generated_checks.py"),
    "harness/tools/runner.py": _RUNS
    + tuple(f"{_T}{n}.py" for n in ("function_split", "processors", "verdict_precedence", "nvptx_mma")),
    "harness/tools/cache.py": (f"{_T}cache_entries.py", f"{_T}matrix.py"),
    "harness/core/verdicts.py": tuple(
        f"{_T}{n}.py"
        for n in (
            "verdicts",
            "parsers_real_output",
            "function_split",
            "run_modes",
            "amdgpu_rows",
            "nvptx_mma",
            "bracketed_operands",
        )
    ),
}
IMPORTS_ONLY = frozenset({"tests/test_layers.py"})
_HARNESS_NAME = re.compile(r"\bharness(?:\.\w+)+|\bfrom (harness(?:\.\w+)*) import \(?([\w, \n]+)")


def test_importers(root: Path) -> dict[str, set[str]]:
    """Module path -> the test files that name it (`harness.a.b`, `from harness.a import b`)."""
    out: dict[str, set[str]] = {}
    for test in sorted((root / "tests").glob("test_*.py")):
        rel = test.relative_to(root).as_posix()
        if rel in IMPORTS_ONLY:
            continue
        for found in _HARNESS_NAME.finditer(test.read_text(encoding="utf-8")):
            names = (
                [found.group(0)]
                if not found.group(1)
                else [f"{found.group(1)}.{n.split()[0]}" for n in found.group(2).split(",") if n.split()]
            )
            for name in names:
                parts = name.split(".")
                for cut in range(len(parts), 0, -1):  # harness.a.b.attr -> the longest prefix that is a module
                    path = "/".join(parts[:cut])
                    hit = next((p for p in (f"{path}.py", f"{path}/__init__.py") if (root / p).is_file()), None)
                    if hit:
                        out.setdefault(hit, set()).add(rel)
                        break
    return out


def tests_for(module: str, importers: dict[str, set[str]]) -> tuple[str, ...]:
    found = set(TESTS_FOR.get(module, ())) | importers.get(module, set())
    return tuple(sorted(found)) if found else CLI_TESTS


# ------------------------------------------------------------------------------ running
EQUIVALENT: dict[str, str] = {  # Generated.key -> why no test can tell
    "harness/kernels/fragments.py::<module>::delete-statement::Formula = Callable[[int, int], tuple[int, int]]=>pass#1": "a "
    "type alias read only in annotations, which `from __future__ import annotations` never evaluates",
    "harness/gpu/kinds.py::operand::int-plus-minus-1::1=>0#1": "C of an s32 tile drawn from [-2^20, 2^20] or "
    "[-2^20, 2^20): the reference is exact integer arithmetic either way, and which of two million values C takes "
    "decides nothing (a draw shows the end 2^20 about once in two million)",
    "harness/gpu/second.py::units::int-plus-minus-1::0=>1#1": "a unit's table bytes counted from 1 rather than 0: "
    "CONSTANT_BYTES (60,000) stays 5,536 bytes under the 64 KiB a module has either way, so no unit nvcc gets changes "
    "whether it fits",
    "harness/reports/report.py::records_table::int-plus-minus-1::0=>1#2": "every row starts as dict.fromkeys(ALL, 0) "
    "and `used` holds only its keys, so the default of r.get(v, 0) is never read",
    "harness/gpu/kinds.py::tile_inputs::int-plus-minus-1::0=>1#2": "which column of B a .satfinite tile sets to "
    "B's maximum: any one drives D's first row past INT32_MAX and its last past INT32_MIN (the test counts the "
    "saturated elements), and the checker reads the same inputs as the kernel",
    "harness/core/verdicts.py::split_functions::int-plus-minus-1::0=>1#1": "`pos` is read only once a body is "
    "open, which the boundary that opened it set `pos` for: its first value is never read",
    "harness/checks/autogen/update.py::_changes::delete-statement::if old == new: return []=>pass#1": "a shortcut: "
    "equal texts split into equal blocks and equal rests, so the loop that follows finds no change either",
}


def tracked_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root, capture_output=True, check=True
    ).stdout
    return sorted({p for p in out.decode().split("\0") if p})


def copy_tree(root: Path, dest: Path) -> None:
    """The working tree's files as `git ls-files` lists them now (links stay links; a file removed
    since the listing is skipped), plus a link to the ignored .venv (scripts such as
    ci/bisect-step.sh run `.venv/bin/lit`; its lit reads the copy's lit.cfg.py, which imports the
    copy's harness)."""
    for rel in tracked_files(root):
        source, target = root / rel, dest / rel
        if rel == ".venv" or not os.path.lexists(source) or source.is_dir() and not source.is_symlink():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copy2(source, target, follow_symlinks=False)
        except FileNotFoundError:  # removed while we copied: someone else's edit in progress
            continue
    if (root / ".venv").is_dir():
        (dest / ".venv").symlink_to((root / ".venv").resolve())


def check_text(m: Mutation, root: Path) -> str:
    """ "" when the mutation's old text occurs exactly once in its file, else why not."""
    path = root / m.file
    if not path.is_file():
        return f"{m.name}: {m.file} does not exist"
    count = path.read_text(encoding="utf-8").count(m.old)
    if count != 1:
        return f"{m.name}: old text found {count} times in {m.file} (expected exactly once): {m.old.strip()[:80]!r}"
    return ""


def apply(m: Mutation, tree: Path) -> str:
    """Plant `m` in the copy; "" when done, else why not (the file changed since the check)."""
    problem = check_text(m, tree)
    if not problem:
        path = tree / m.file
        path.write_text(path.read_text(encoding="utf-8").replace(m.old, m.new), encoding="utf-8")
    return problem


Mutant = Mutation | Generated


def _check(m: Mutant, root: Path) -> str:
    return check_text(m, root) if isinstance(m, Mutation) else m.check(root)


def _apply(m: Mutant, tree: Path) -> str:
    return apply(m, tree) if isinstance(m, Mutation) else m.apply(tree)


def _package(m: Mutant) -> str:
    return "(hand-written)" if isinstance(m, Mutation) else m.package


_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


def run_tests(tree: Path, tests: list[str], python: str, jobs: str, timeout: float) -> tuple[str, str, float]:
    """(result, first failing test or '', seconds) for pytest over `tests` in `tree`; the copy's
    harness is first on PYTHONPATH, so subprocesses started elsewhere import it too."""
    argv = [python, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", "-n", jobs, *tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(tree)}
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _end(proc)
        proc.communicate()
        return "timeout", f"(no result within {timeout:g} s)", time.monotonic() - start
    except BaseException:  # Ctrl-C or SIGTERM: the tests (their own session) go with us
        _end(proc)
        raise
    seconds = time.monotonic() - start
    if proc.returncode == 0:
        return "survived", "", seconds
    if proc.returncode in (1, 2):  # tests failed / collection or run interrupted by an error
        m = _FAILED.search(out)
        return "killed", m.group(1) if m else f"(pytest exit {proc.returncode}) {out.strip().splitlines()[-1:]}", seconds
    return "error", f"pytest exit {proc.returncode}: {out.strip()[-300:]}", seconds


def _end(proc: subprocess.Popen) -> None:
    """End a pytest run and what it started: SIGINT first, so the harness processes under test end
    the tools they run in sessions of their own, then SIGKILL for whatever is left of its group."""
    for sig, grace in ((signal.SIGINT, 5.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(grace or None)
        except subprocess.TimeoutExpired:
            continue


def imports_from(tree: Path, python: str) -> str:
    """Where `import harness` resolves from a directory outside the copy (must be the copy)."""
    return subprocess.run(
        [python, "-c", "import harness, os; print(os.path.dirname(harness.__file__))"],
        cwd=tempfile.gettempdir(),
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


Row = tuple[Mutant, str, str, float]


def baseline(work: Path, chosen: list[Mutant], args: argparse.Namespace) -> str:
    """ "" when the unmutated copy imports itself and its tests are green, else why not."""
    base = work / "baseline"
    copy_tree(ROOT, base)
    where = imports_from(base, args.python)
    if Path(where) != base / "harness":
        return f"the copy imports harness from {where}, not from the copy"
    tests = ["tests/"] if args.full else sorted({t for m in chosen for t in m.tests})
    result, failed, seconds = run_tests(base, tests, args.python, args.jobs, args.timeout)
    print(f"baseline (unmutated, {len(tests)} test path(s)): {'green' if result == 'survived' else result} in {seconds:.0f} s")
    shutil.rmtree(base)
    return "" if result == "survived" else f"the unmutated tests are not green ({failed}); fix that first"


def plan(m: Mutant, args: argparse.Namespace) -> tuple[list[str], float, str]:
    """The tests a mutant runs, their time limit and the pytest-xdist workers: the whole suite
    (--full), the tests the coverage map says ran its line (3x their measured time, plus a minute;
    one process when they take under SMALL seconds, where starting workers costs more), or its
    table subset."""
    if args.full:
        return ["tests/"], args.timeout, args.jobs
    found = args.coverage_map.tests(m) if args.coverage_map else None
    if found:
        return list(found[0]), min(args.timeout, 60 + 3 * found[1]), "0" if found[1] < SMALL else args.jobs
    red = args.coverage_map.failed if args.coverage_map else ()
    return [*m.tests, *(f"--deselect={t}" for t in red)], args.timeout, args.jobs


def _resumed(path: Path | None, chosen: list[Mutant]) -> dict[str, tuple[str, str, float]]:
    """name -> (result, killer, seconds) of the chosen mutants an earlier --json run killed (a
    generated one only while its key, i.e. its site and edit, is unchanged); survivors run again."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8")) if path else {}
    except (OSError, ValueError):
        return {}
    keys = {m.name: getattr(m, "key", "") for m in chosen}
    return {
        r["name"]: (r["result"], r["by"], r["seconds"])
        for r in doc.get("mutants", [])
        if r.get("name") in keys and r.get("key", "") == keys[r["name"]] and r.get("result") in ("killed", "timeout")
    }


def run_all(chosen: list[Mutant], args: argparse.Namespace) -> list[Row]:
    """Each mutant planted alone in a fresh copy, its tests run with -x; one progress line each."""
    rows: list[Row] = []
    work = Path(tempfile.mkdtemp(prefix="mutate-"))
    try:
        problem = "" if args.no_baseline else baseline(work, chosen, args)
        if problem:
            raise SystemExit(f"mutate: {problem}")
        done = _resumed(args.json, chosen) if args.resume else {}
        rows += [(m, *done[m.name]) for m in chosen if m.name in done]  # in every write: an interrupt loses none
        for number, m in enumerate(chosen, 1):
            if m.name in done:
                continue
            tree = work / f"m{number}"
            copy_tree(ROOT, tree)
            problem = _apply(m, tree)
            if problem:
                raise SystemExit(f"mutate: {problem}")
            tests, limit, jobs = plan(m, args)
            result, killer, seconds = run_tests(tree, tests, args.python, jobs, limit)
            if result in ("survived", "error") and tests[: len(m.tests)] != list(m.tests):
                # The map misses what runs in processes the tests start with a bare environment
                # (`env={"PYTHONPATH": ...}`), and a mutant that renames the map's tests (their
                # parametrize ids) runs none of them: a survivor of its tests meets the table's too.
                result, killer, more = run_tests(tree, list(m.tests), args.python, args.jobs, args.timeout)
                seconds += more
            rows.append((m, result, killer, seconds))
            print(f"  [{number}/{len(chosen)}] {m.name}: {result} {killer} ({seconds:.0f} s)", file=sys.stderr, flush=True)
            shutil.rmtree(tree)
            if args.json:  # after each mutant: a run stopped part-way keeps what it found (--resume)
                write_json(args.json, rows, sum(r[3] for r in rows))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


# ------------------------------------------------------------------------------ coverage map
# `--build-map FILE` runs the whole suite once, unmutated, under coverage (the `coverage` package
# must be importable, e.g. from --coverage-lib DIR): every Python process the tests start
# (the CLI, lit, the xdist workers) records the lines of harness/ it runs, under the test that was
# running. `--map FILE` then gives each mutant the tests that ran its line, fastest first, and a
# time limit from their measured durations; a line no test ran keeps the table's subset.

_SITECUSTOMIZE = """\
import atexit, os
if os.environ.get("MUTATE_COV_RC"):
    import coverage
    _context = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0] or None
    _cov = coverage.Coverage(config_file=os.environ["MUTATE_COV_RC"], context=_context)
    _cov.start()
    _pid, _os_exit = os.getpid(), os._exit

    def _save():
        if os.getpid() == _pid:  # (a forked child is measured by coverage's multiprocessing support)
            _cov.stop()
            _cov.save()

    def _exit(status):  # `python -m harness` leaves through os._exit, past atexit
        _save()
        _os_exit(status)

    atexit.register(_save)
    os._exit = _exit
"""
_COVERAGERC = """\
[run]
data_file = {data}
parallel = True
source = {source}
concurrency = thread, multiprocessing
disable_warnings = no-data-collected, module-not-measured, couldnt-parse, already-imported
"""
_PLUGIN = """\
import coverage
def pytest_runtest_setup(item):
    cov = coverage.Coverage.current()
    if cov is not None:
        cov.switch_context(item.nodeid)
"""


def _junit_durations(path: Path, root: Path) -> tuple[dict[str, float], list[str]]:
    """(node id -> seconds, the node ids that failed or errored) from pytest's JUnit XML."""
    out: dict[str, float] = {}
    failed: set[str] = set()
    for case in ElementTree.parse(path).iter("testcase"):
        parts = case.get("classname", "").split(".")
        cut = next((i for i in range(len(parts), 0, -1) if (root / ("/".join(parts[:i]) + ".py")).is_file()), 0)
        if cut:
            node = "::".join(["/".join(parts[:cut]) + ".py", *parts[cut:], case.get("name", "")])
            out[node] = out.get(node, 0.0) + float(case.get("time") or 0)
            if case.find("failure") is not None or case.find("error") is not None:
                failed.add(node)
    return out, sorted(failed)


def build_map(path: Path, args: argparse.Namespace) -> int:
    """Run the suite once under coverage in a copy and write {file: {line: [node ids]}, durations}."""
    work = Path(tempfile.mkdtemp(prefix="mutate-map-"))
    try:
        tree, hook = work / "tree", work / "hook"
        copy_tree(ROOT, tree)
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
        (hook / "mutate_cov_plugin.py").write_text(_PLUGIN, encoding="utf-8")
        rc = _COVERAGERC.format(data=work / "cov" / ".coverage", source=tree / "harness")
        (hook / "coveragerc").write_text(rc, encoding="utf-8")
        paths = [str(tree), str(hook), *([str(args.coverage_lib)] if args.coverage_lib else [])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONDONTWRITEBYTECODE": "1"}
        env["MUTATE_COV_RC"] = str(hook / "coveragerc")
        (work / "cov").mkdir()
        argv = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mutate_cov_plugin", "-n", args.jobs]
        started = time.monotonic()
        proc = subprocess.run([*argv, f"--junitxml={work / 'junit.xml'}", "tests/"], cwd=tree, env=env, check=False)
        print(f"suite under coverage: exit {proc.returncode} in {time.monotonic() - started:.0f} s", file=sys.stderr)
        combined = subprocess.run(
            [args.python, "-c", _COMBINE, str(work / "cov"), str(tree)],
            env={k: v for k, v in env.items() if k != "MUTATE_COV_RC"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        durations, failed = _junit_durations(work / "junit.xml", tree)
        doc = {"lines": json.loads(combined), "durations": durations, "failed": failed}
        path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
        print(f"map: {len(doc['lines'])} files, {len(durations)} tests -> {path}", file=sys.stderr)
        for node in failed:  # (a test red under coverage would kill every mutant: the map leaves it out)
            print(f"mutate: failed under coverage, left out of the map: {node}", file=sys.stderr)
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


_COMBINE = """\
import json, os, sys, coverage
cov = coverage.Coverage(data_file=os.path.join(sys.argv[1], ".coverage"), config_file=False)  # no MUTATE_COV_RC here
cov.combine([sys.argv[1]])
data, root, out = cov.get_data(), sys.argv[2], {}
for name in data.measured_files():
    rel = os.path.relpath(name, root)
    lines = data.contexts_by_lineno(name)
    out[rel] = {str(n): sorted({c for c in found if c}) for n, found in lines.items()}
print(json.dumps(out))
"""


SMALL = 20.0  # seconds of measured tests under which a mutant's run starts no pytest-xdist workers
BUDGET = 300.0  # seconds of a line's measured tests past which they are cut to its table's files


@dataclass(frozen=True)
class CoverageMap:
    lines: dict[str, dict[str, list[str]]]
    durations: dict[str, float]
    failed: tuple[str, ...] = ()  # red under coverage: deselected from every run

    @staticmethod
    def load(path: Path) -> CoverageMap:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            failed = set(doc.get("failed", []))
            lines = {f: {n: [t for t in found if t not in failed] for n, found in by.items()} for f, by in doc["lines"].items()}
            return CoverageMap(lines, doc["durations"], tuple(sorted(failed)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"mutate: {path}: not a map written by --build-map ({exc})") from None

    def duration(self, test: str) -> float:
        return self.durations.get(test, 60.0)  # (a test the map did not time: a minute)

    def seconds(self, tests: list[str]) -> float:
        return sum(map(self.duration, tests))

    def tests(self, m: Mutant, budget: float = BUDGET) -> tuple[tuple[str, ...], float] | None:
        """The tests that ran the mutant's first line, fastest first, and their measured seconds;
        None when no test ran it. A line that runs at import is recorded under every test that
        imported its module, and a helper's line under every test that reached it (through the
        CLI: hundreds of tests, > 20 min), so such a mutant (at import, or its tests over `budget`
        seconds) keeps only the map's tests in its table's files: a lower bound on what the suite kills."""
        if not isinstance(m, Generated):
            return None
        found = self.lines.get(m.file, {}).get(str(m.line))
        if found and (m.at_import or self.seconds(found) > budget):
            found = [t for t in found if t.split("::", 1)[0] in m.tests]
        if not found:
            return None
        ordered = sorted(found, key=lambda t: (self.duration(t), t))
        return tuple(ordered), self.seconds(ordered)


# ------------------------------------------------------------------------------ report


def _killed(result: str) -> bool:
    return result in ("killed", "timeout")


def package_table(rows: list[Row]) -> list[tuple[str, int, int, int, int, float]]:
    """Per package: (package, mutants, killed, equivalent, survived, kill rate in % of the
    mutants that are not documented equivalents); a documented equivalent that a test kills
    counts as killed."""
    out = []
    order = [p for p in (*PACKAGES, "(hand-written)") if any(_package(m) == p for m, *_ in rows)]
    for package in [*order, "all"]:
        mine = [(m, r) for m, r, *_ in rows if package in ("all", _package(m))]
        killed = sum(1 for _, r in mine if _killed(r))
        equivalent = sum(1 for m, r in mine if m.equivalent and not _killed(r))
        survived = len(mine) - killed - equivalent
        rate = 100.0 * killed / max(1, killed + survived)
        out.append((package, len(mine), killed, equivalent, survived, rate))
    return out


def report(rows: list[Row], seconds: float) -> bool:
    """Print the per-package table, the equivalents and the survivors; True when every package
    reaches 95 % and nothing survived among the hand-written ones."""
    table = package_table(rows)
    print(f"\n{'package':24} {'mutants':>7} {'killed':>6} {'equivalent':>10} {'survived':>8} {'kill rate':>9}")
    for package, total, killed, equivalent, survived, rate in table:
        print(f"{package:24} {total:7} {killed:6} {equivalent:10} {survived:8} {rate:8.1f}%")
    for title, keep in (("equivalent", lambda m, r: m.equivalent and not _killed(r)), ("survivors", None)):
        picked = [(m, r, k) for m, r, k, _ in rows if (keep(m, r) if keep else not _killed(r) and not m.equivalent)]
        if picked:
            print(f"\n{title}:")
        for m, result, _ in picked:
            where = f"{m.file}:{m.line}" if isinstance(m, Generated) else f"{m.file} ({m.name})"
            note = f"  [{m.equivalent}]" if title == "equivalent" else f"  ({result})" if result != "survived" else ""
            print(f"  {where}  {m.description}{note}")
    print(f"\n{len(rows)} mutants in {seconds:.0f} s")
    hand = [r for m, r, *_ in rows if isinstance(m, Mutation) and not m.equivalent]
    return all(rate >= 95.0 for p, *_, rate in table if p != "(hand-written)") and all(map(_killed, hand))


def write_json(path: Path, rows: list[Row], seconds: float) -> None:
    doc = {
        "seconds": round(seconds, 1),
        "packages": [
            dict(zip(("package", "mutants", "killed", "equivalent", "survived", "rate"), t)) for t in package_table(rows)
        ],
        "mutants": [
            {"name": m.name, "package": _package(m), "description": m.description, "result": r, "by": k, "seconds": round(s, 1)}
            | ({"key": m.key} if isinstance(m, Generated) else {})
            for m, r, k, s in rows
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)  # an interrupted write leaves the last whole file for --resume


# ------------------------------------------------------------------------------ command line


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(2, f"mutate: {message} (see --help)\n")


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = _Parser(
        prog="dev/mutate.py",
        description="Plant bugs in copies of the repository, one at a time, and report which the tests kill, per "
        "package of harness/: the hand-written mutations (MUTATIONS) and N generated ones per package (an operator "
        "over the AST: flipped comparisons, and/or, negated conditions, ints +-1, True/False, returned values, "
        "deleted statements), the same ones on every run of the same code.",
        epilog="exit status: 0 every package >= 95%% and every hand-written mutation killed, 1 otherwise, 2 bad usage",
    )
    p.add_argument("--list", action="store_true", help="list the chosen mutants (and their tests) and run nothing")
    p.add_argument("--only", action="append", metavar="NAME", help="run only this mutant, a name from --list (repeatable)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--hand", action="store_true", help="only the hand-written mutations")
    which.add_argument("--generated", action="store_true", help="only the generated mutants")
    p.add_argument("--package", action="append", choices=PACKAGES, help="generated mutants of this package only (repeatable)")
    p.add_argument("--per-package", type=int, default=25, metavar="N", help="generated mutants per package (default 25)")
    p.add_argument("--seed", default="15", help="the seed that picks the generated mutants (default 15)")
    p.add_argument("--full", action="store_true", help="run the whole suite per mutant, not its test subset")
    p.add_argument("--jobs", "-n", default="2", help="pytest-xdist workers per run (default 2)")
    p.add_argument(
        "--timeout", type=float, default=600, help="seconds per pytest run; past it the mutant is killed (default 600)"
    )
    p.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of the chosen mutants' tests")
    p.add_argument("--python", default=sys.executable, help="the interpreter with pytest (default: this one)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the results to FILE")
    p.add_argument("--resume", action="store_true", help="keep the results --json FILE already holds; run the rest")
    p.add_argument("--map", type=Path, metavar="FILE", help="run each mutant's tests as this coverage map names them")
    p.add_argument("--build-map", type=Path, metavar="FILE", help="run the suite once under coverage, write FILE, stop")
    p.add_argument("--coverage-lib", type=Path, metavar="DIR", help="where `coverage` is installed, for --build-map")
    args = p.parse_args(argv)
    if args.per_package < 1:
        p.error("--per-package must be at least 1")
    if args.map and args.build_map:
        p.error("--map and --build-map exclude each other")
    if args.resume and not args.json:
        p.error("--resume needs --json FILE")
    args.coverage_map = None
    return args


def choose(args: argparse.Namespace) -> list[Mutant]:
    """The mutants this run plants, each checked against the current text (exit 2 if one is stale)."""
    names = [m.name for m in MUTATIONS]
    if len(set(names)) != len(names):
        raise SystemExit("mutate: duplicate mutation names")
    chosen: list[Mutant] = [] if args.generated else list(MUTATIONS)
    if not args.hand:
        chosen += generate(ROOT, args.per_package, args.seed, tuple(args.package or PACKAGES))
    if args.only:
        unknown = sorted(set(args.only) - {m.name for m in chosen})
        if unknown:
            raise SystemExit(f"mutate: no mutant named {unknown[0]!r} (see --list)")
        chosen = [m for m in chosen if m.name in args.only]
    for m in chosen:
        problem = _check(m, ROOT)
        if problem:
            raise SystemExit(f"mutate: {problem}")
    return chosen


def interleaved(chosen: list[Mutant]) -> list[Mutant]:
    """The first mutant of each package, then the second of each, ...: a run stopped part-way
    has measured every package."""
    seen: dict[str, int] = {}
    index = []
    for m in chosen:
        seen[_package(m)] = seen.get(_package(m), -1) + 1
        index.append(seen[_package(m)])
    return [m for _, m in sorted(zip(index, chosen), key=lambda pair: pair[0])]


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.build_map:
        return build_map(args.build_map, args)
    try:
        args.coverage_map = CoverageMap.load(args.map) if args.map else None
        chosen = choose(args)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.list:
        for m in chosen:
            note = f" [equivalent: {m.equivalent}]" if m.equivalent else ""
            print(f"{m.name:44} {_package(m):24} {m.description}{note}\n{'':44} tests: {' '.join(m.tests)}")
        return 0
    started = time.monotonic()
    chosen = interleaved(chosen)
    try:
        rows = run_all(chosen, args)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2 if "text" in str(exc) or "no longer" in str(exc) else 1
    seconds = time.monotonic() - started
    if args.json:
        write_json(args.json, rows, seconds)
    return 0 if report(rows, seconds) else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM as Ctrl-C: the running tests are ended too
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("mutate: interrupted", file=sys.stderr)
        sys.exit(130)
