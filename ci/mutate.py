#!/usr/bin/env python3
"""Mutation run: does the test suite catch deliberately planted bugs? (Not run by CI.)

Each mutation is one exact text edit in one file. For each, the repository (the working tree's
tracked and untracked-but-not-ignored files, as `git ls-files` lists them) is copied to a
temporary directory, the one edit is applied there, and the mutation's pytest subset (or, with
--full, the whole suite) runs there with -x. A failing run kills the mutation; a passing run
means it survived, i.e. a test is missing. An unmutated baseline run of the same tests comes
first: a suite that is already red measures nothing.

    .venv/bin/python ci/mutate.py              # every mutation
    .venv/bin/python ci/mutate.py --list       # names and what each plants
    .venv/bin/python ci/mutate.py --only mc-owner-next-line --only known-bugs-prefix

Exit status: 0 every mutation killed (documented equivalent ones aside), 1 a survivor, 2 bad
usage or a mutation whose text is not found exactly once (one line says which).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

VERDICT_TESTS = (
    "tests/test_verdicts.py",
    "tests/test_parsers_real_output.py",
    "tests/test_mutation_kills.py",
    "tests/test_try_facts.py",
    "tests/test_audit.py",
)
RUNNER_TESTS = (
    "tests/test_mutation_kills.py",
    "tests/test_fake_tools.py",
    "tests/test_cli_try_run.py",
    "tests/test_run_modes.py",
    "tests/test_try_facts.py",
    "tests/test_bisect_run.py",
)
LIT_TESTS = ("tests/test_lit.py", "tests/test_mutation_kills.py", "tests/test_bisect_step.py", "tests/test_lit_tools.py")
SPEC_TESTS = (
    "tests/test_expansion.py",
    "tests/test_spec_errors.py",
    "tests/test_spec_hostile.py",
    "tests/test_case_classes.py",
    "tests/test_mutation_kills.py",
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
        "harness/tools/verdicts.py",
        "        fn = owners.get(line)\n",
        "        fn = owners.get(line + 1)\n",
        "1: an llvm-mc error at line N is blamed on the owner of line N+1",
        VERDICT_TESTS,
    ),
    Mutation(
        "mc-owner-map-shifted",
        "harness/tools/verdicts.py",
        '    current, opened, number, pos = "", 0, 1, 0\n',
        '    current, opened, number, pos = "", 0, 2, 0\n',
        "1: asm_owners numbers lines from 2, so line N gets the owner of line N-1",
        VERDICT_TESTS,
    ),
    Mutation(
        "mc-owner-prev-line",
        "harness/tools/verdicts.py",
        "        fn = owners.get(line)\n",
        "        fn = owners.get(line - 1)\n",
        "1: an llvm-mc error at line N is blamed on the owner of line N-1",
        VERDICT_TESTS,
        equivalent="N and N-1 have different owners only when N is a function's label line or its "
        ".Lfunc_endN line, and llvm-mc never rejects either in llc's output",
    ),
    Mutation(
        "func-end-not-a-boundary",
        "harness/tools/verdicts.py",
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
        ("tests/test_emit_ir.py", "tests/test_mutation_kills.py", "tests/test_cli_try_run.py"),
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
        "harness/tools/verdicts.py",
        '_ERROR_WORD = re.compile(r"\\b(?:error|fatal)\\s*:", re.I)\n',
        '_ERROR_WORD = re.compile(r"\\berror\\s*:", re.I)\n',
        "first_error skips ptxas's `fatal` lines and quotes the first line instead",
        (
            "tests/test_mutation_kills.py",
            "tests/test_nvptx_mma.py",
            "tests/test_verdicts.py",
            "tests/test_parsers_real_output.py",
        ),
    ),
    Mutation(
        "legalize-failure-is-crash",
        "harness/tools/verdicts.py",
        '    gave_up = re.compile(r"[Cc]annot select|unable to legalize")\n',
        '    gave_up = re.compile(r"[Cc]annot select")\n',
        "GlobalISel's `unable to legalize` becomes `crash` instead of `cannot-select`",
        VERDICT_TESTS + ("tests/test_cli_try_run.py",),
    ),
    Mutation(
        "verifier-message-dropped",
        "harness/tools/verdicts.py",
        "        if start > 0 and not _CALL_RESULT.match(lines[start - 1]):\n            start -= 1  # the message\n",
        "",
        "a verifier diagnostic loses its message line",
        VERDICT_TESTS,
    ),
    Mutation(
        "mc-last-error-wins",
        "harness/tools/verdicts.py",
        "            found.setdefault(fn, detail)\n",
        "            found[fn] = detail\n",
        "a function's mc-reject detail quotes its last llvm-mc error, not its first",
        VERDICT_TESTS,
    ),
    Mutation(
        "b-tuple-is-the-accumulator",
        "harness/tools/verdicts.py",
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
        "harness/tools/commands.py",
        'Selector.GISEL: ("-global-isel=1", "-global-isel-abort=1")}',
        'Selector.GISEL: ("-global-isel=1", "-global-isel-abort=2")}',
        "GlobalISel silently falls back to SelectionDAG instead of aborting",
        GENERATED_TESTS + ("tests/test_mutation_kills.py",),
    ),
    Mutation(
        "run-line-keeps-backslash",
        "harness/tools/commands.py",
        '        joined = body[:-1].strip() if body.endswith("\\\\") else body.strip()\n',
        "        joined = body.strip()\n",
        "a RUN line continued with `\\` keeps the backslash in the joined command",
        ("tests/test_commands.py", "tests/test_update_checks.py", "tests/test_audit.py"),
    ),
    Mutation(
        "quote-no-backslash-escape",
        "harness/tools/commands.py",
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
        if not os.path.lexists(source) or source.is_dir() and not source.is_symlink():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copy2(source, target, follow_symlinks=False)
        except FileNotFoundError:  # removed while we copied: someone else's edit in progress
            continue
    if (root / ".venv").is_dir():
        (dest / ".venv").symlink_to(root / ".venv")


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


_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


def run_tests(tree: Path, tests: list[str], python: str, jobs: str, timeout: float) -> tuple[str, str, float]:
    """(result, first failing test or '', seconds) for pytest over `tests` in `tree`."""
    argv = [python, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", "-n", jobs, *tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        return "timeout", f"(no result within {timeout:g} s)", time.monotonic() - start
    seconds = time.monotonic() - start
    if proc.returncode == 0:
        return "survived", "", seconds
    if proc.returncode in (1, 2):  # tests failed / collection or run interrupted by an error
        m = _FAILED.search(out)
        return "killed", m.group(1) if m else f"(pytest exit {proc.returncode}) {out.strip().splitlines()[-1:]}", seconds
    return "error", f"pytest exit {proc.returncode}: {out.strip()[-300:]}", seconds


def imports_from(tree: Path, python: str) -> str:
    """Where `import harness` resolves when run from the copy (must be the copy)."""
    return subprocess.run(
        [python, "-c", "import harness, os; print(os.path.dirname(harness.__file__))"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ci/mutate.py",
        description="Plant each listed bug in a copy of the repository and check that the tests catch it.",
    )
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--only", action="append", metavar="NAME", help="run only this mutation (repeatable)")
    parser.add_argument("--full", action="store_true", help="run the whole suite per mutation, not its test subset")
    parser.add_argument("--jobs", "-n", default="2", help="pytest-xdist workers per run (default 2)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per pytest run (default 900)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated baseline run")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with pytest (default: this one)")
    args = parser.parse_args(argv)

    names = [m.name for m in MUTATIONS]
    if len(set(names)) != len(names):
        print("mutate: duplicate mutation names", file=sys.stderr)
        return 2
    if args.list:
        for m in MUTATIONS:
            note = f" [equivalent: {m.equivalent}]" if m.equivalent else ""
            print(f"{m.name:34} {m.file:22} {m.description}{note}")
        return 0
    unknown = [n for n in args.only or [] if n not in names]
    if unknown:
        print(f"mutate: no mutation named {unknown[0]!r} (see --list)", file=sys.stderr)
        return 2
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    for m in chosen:  # every text is checked before anything runs
        problem = check_text(m, ROOT)
        if problem:
            print(f"mutate: {problem}", file=sys.stderr)
            return 2

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="mutate-"))
    try:
        if not args.no_baseline:
            base = work / "baseline"
            copy_tree(ROOT, base)
            where = imports_from(base, args.python)
            if Path(where) != base / "harness":
                print(f"mutate: the copy imports harness from {where}, not from the copy", file=sys.stderr)
                return 2
            tests = ["tests/"] if args.full else sorted({t for m in chosen for t in m.tests})
            result, failed, seconds = run_tests(base, tests, args.python, args.jobs, args.timeout)
            print(
                f"baseline (unmutated, {len(tests)} test path(s)): {'green' if result == 'survived' else result} in {seconds:.0f} s"
            )
            if result != "survived":
                print(f"mutate: the unmutated suite is not green ({failed}); fix that first", file=sys.stderr)
                return 1
            shutil.rmtree(base)
        rows = []
        for m in chosen:
            tree = work / m.name
            copy_tree(ROOT, tree)
            problem = apply(m, tree)
            if problem:
                print(f"mutate: {problem}", file=sys.stderr)
                return 2
            result, killer, seconds = run_tests(
                tree, ["tests/"] if args.full else list(m.tests), args.python, args.jobs, args.timeout
            )
            rows.append((m, result, killer, seconds))
            print(f"  {m.name}: {result} {killer} ({seconds:.0f} s)", file=sys.stderr, flush=True)
            shutil.rmtree(tree)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    width = max(len(m.name) for m, *_ in rows)
    print(f"\n{'mutation':{width}}  {'result':8}  {'seconds':>7}  killed by")
    for m, result, killer, seconds in rows:
        shown = killer or (f"(equivalent: {m.equivalent})" if m.equivalent else "NO TEST FAILED")
        print(f"{m.name:{width}}  {result:8}  {seconds:7.1f}  {shown}")
    killed = sum(1 for _, r, *_ in rows if r in ("killed", "timeout"))
    relevant = [(m, r) for m, r, *_ in rows if not m.equivalent]
    relevant_killed = sum(1 for _, r in relevant if r in ("killed", "timeout"))
    print(f"\nkill rate: {killed}/{len(rows)} ({100 * killed / len(rows):.0f}%)", end="")
    if len(relevant) != len(rows):
        print(
            f"; {relevant_killed}/{len(relevant)} ({100 * relevant_killed / max(1, len(relevant)):.0f}%) "
            f"without the {len(rows) - len(relevant)} documented equivalent mutation(s)",
            end="",
        )
    print(f"; {time.monotonic() - started:.0f} s in all")
    return 0 if relevant_killed == len(relevant) else 1


if __name__ == "__main__":
    sys.exit(main())
