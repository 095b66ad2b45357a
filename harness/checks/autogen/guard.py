"""What `audit` and `update-checks` may run of a test's RUN lines, lit's substitutions as lit
makes them, and regular expressions from test files under a time limit.

A test file is input, and its RUN lines are text its author wrote: running them as a shell would
let one rewrite the test (`sed -i`), write or run anything (`sed 's/x/y/w FILE'`, `sed 1e CMD`,
`touch`, `llvm-as -o FILE`). Only these run, and nothing that writes:

  - a tool of the LLVM build, without an option that writes a file (`-o FILE`, `-*-file=`,
    `-*-output=`), loads code (`-load`, pass plugins) or draws graphs into files (`dot-*`, `view-*`);
  - `cat`, and `sed` without `-i` / `--in-place`, run with `--sandbox` (GNU sed then refuses the
    e, r, R, w and W commands and flags before it runs anything);
  - `not` only on llc itself (audit skips such a RUN line, update-checks does not treat it as llc).

`Refused` says why a RUN line is not run; the caller skips it (and keeps what it owns).

Substitutions are lit's own defaults (lit.TestRunner's), from the test file's absolute directory
(a file named without a directory still has one): `%s %S %p %t %T %{pathsep} %%` and the rest. A
`%{NAME}` lit would take from a test suite's configuration is not guessed: the RUN line is refused.

User regexes (UTC_ARGS `--filter`, FileCheck `{{...}}` in audited CHECK lines) are matched in this
process when their shape cannot backtrack without bound; any other runs in a child process that
is killed past `REGEX_SECONDS` (`RegexTimeout`).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from harness.core import commands
from harness.tools import toolchain

REGEX_SECONDS = 5.0  # what a batch of user regexes may take, in a child process
LONG_REPEAT = 16  # a repeat of more than this many counts as long, as an unbounded one does


class Refused(Exception):
    """A RUN line (or a command of it) that is not run; str() is the one-line reason."""


# ---- lit's substitutions ------------------------------------------------------------------------


def substitutions(path: Path) -> dict[str, str]:
    """`%x` -> text: lit's own default substitutions (`lit.TestRunner`) for the test file `path`,
    its exec directory taken to be its source directory (`%t` is DIR/Output/NAME.tmp), and lit's
    `%%` escape; `%T` (the directory of `%t`) as older lit versions give it."""
    source = os.path.abspath(path)
    temp_dir = os.path.join(os.path.dirname(source), "Output")
    temp_base = os.path.join(temp_dir, os.path.basename(source))
    try:
        import lit.TestRunner

        test = SimpleNamespace(getSourcePath=lambda: source, config=SimpleNamespace(substitutions=[]))
        pairs = lit.TestRunner.getDefaultSubstitutions(test, temp_dir, temp_base)
    except Exception:  # (a lit whose internals differ: the substitutions every version has)
        pairs = [("%s", source), ("%S", os.path.dirname(source)), ("%p", os.path.dirname(source))]
        pairs += [("%t", temp_base + ".tmp"), ("%{pathsep}", os.pathsep)]
    out = {key: value for key, value in pairs if isinstance(key, str) and isinstance(value, str)}
    out.setdefault("%T", temp_dir)
    out["%%"] = "%"
    return out


def substitute(word: str, mapping: dict[str, str]) -> str:
    """`word` with lit's substitutions made, in one pass (as lit's `%%` escape needs); Refused
    for a `%{NAME}` of a test suite's own configuration, which is not guessed."""
    keys = sorted(mapping, key=len, reverse=True)
    pattern = re.compile("|".join(map(re.escape, keys)) + r"|%\{[^{}]*\}")

    def one(m: re.Match) -> str:
        if m.group(0) not in mapping:
            raise Refused(f"{m.group(0)} is a substitution of the test suite's own lit configuration: not run")
        return mapping[m.group(0)]

    return pattern.sub(one, word)


def substituted(cmd: commands.Command, mapping: dict[str, str]) -> commands.Command:
    """`cmd` with every word and redirection substituted (see `substitute`)."""
    sub = lambda w: substitute(w, mapping) if w is not None else None
    return commands.Command(
        tuple(substitute(w, mapping) for w in cmd.argv), sub(cmd.stdin), sub(cmd.stdout), cmd.stderr_to_stdout, sub(cmd.stderr)
    )


# ---- what may run -------------------------------------------------------------------------------

# Options of LLVM tools that write a file, load code, or (passes) write graphs into files.
_WRITES = re.compile(
    r"-{1,2}(o|[\w-]*(file|output|dir)|load|load-pass-plugin|pass-plugin|[\w-]*plugin[\w-]*"
    r"|save-stats|time-trace[\w-]*|[\w-]*exec[\w-]*|[\w-]*script[\w-]*|[\w-]*-path)$"
)
_GRAPH_OPTION = re.compile(r"-{1,2}(dot|view)-[\w-]*")
_GRAPH_PASS = re.compile(r"(^|[,(])(dot|view)-[\w-]")  # inside -passes=: dot-cfg, view-dom-only, ...
_READS = ("input-file", "disable-output")  # options named like writers that write nothing
_FLAGS_THAT_WRITE = ("save-stats", "time-trace")  # write into the working directory with no value


def problem(cmd: commands.Command, is_llvm_tool: Callable[[str], bool], llc: bool = False) -> str:
    """Why `cmd` (a command of a RUN line, llc's own when `llc`) must not run, or "" when it may.
    `is_llvm_tool(name)`: whether the chosen LLVM build has the tool."""
    i = cmd.tool_index
    if i >= len(cmd.argv):
        return "an empty command"
    wrappers = cmd.argv[:i]
    if wrappers and (not llc or any(w not in ("not", "--crash") for w in wrappers)):
        return f"`{' '.join(wrappers)}` before {cmd.tool}: only llc may be wrapped, by `not`"
    if "/" in cmd.argv[i]:
        return f"{cmd.argv[i]!r} is a path: the tools run are the LLVM build's own, cat and sed"
    if cmd.tool == "sed":
        return sed_problem(cmd.args)
    if cmd.tool == "cat":
        return ""
    if cmd.tool in toolchain.EXTERNAL or not is_llvm_tool(cmd.tool):
        return f"{cmd.tool!r} is neither a tool of the LLVM build nor cat or sed: not run"
    return writes(cmd.args, allow_output=llc)


def writes(args: tuple[str, ...] | list[str], allow_output: bool = False) -> str:
    """Why these LLVM tool arguments would write a file or load code ("" when they do not).
    `allow_output`: `-o` is the caller's business (it takes the output elsewhere itself)."""
    for n, arg in enumerate(args):
        if arg.startswith("@"):
            return f"{arg}: a response file can hold any option: not run"
        name, eq, value = arg.partition("=")
        if not name.startswith("-") or name.lstrip("-") in _READS:
            continue
        value = value if eq else (args[n + 1] if n + 1 < len(args) else "")  # `-name=V` or `-name V`
        if _GRAPH_OPTION.fullmatch(name) or (name in ("-passes", "--passes", "-p") and _GRAPH_PASS.search(value)):
            return f"{arg!r} writes graph files: not run"
        if not _WRITES.fullmatch(name) or (name.lstrip("-") == "o" and allow_output):
            continue
        if value != "-" or name.lstrip("-") in _FLAGS_THAT_WRITE:
            return f"{arg}{'' if eq or name.lstrip('-') in _FLAGS_THAT_WRITE else ' ' + value} writes a file or runs or loads code: not run"
    return ""


def sed_problem(args: tuple[str, ...] | list[str]) -> str:
    """Why this sed must not run ("" when it may, under --sandbox): it edits files in place."""
    n = 0
    while n < len(args):
        arg = args[n]
        n += 1
        if arg == "--":
            break
        if arg.startswith("--"):
            name = arg[2:].split("=", 1)[0]
            if name and "in-place".startswith(name):
                return f"sed {arg} edits a file in place: not run"
            continue
        if not arg.startswith("-") or arg == "-":
            continue
        for j, c in enumerate(arg[1:], 1):
            if c == "i":
                return f"sed {arg} edits a file in place: not run"
            if c in "efl":  # the rest of the word, or the next word, is this option's value
                n += j == len(arg) - 1
                break
    return ""


def sed_argv(path: str, args: tuple[str, ...] | list[str]) -> list[str]:
    """How sed runs: in sandbox mode (no e, r, R, w, W)."""
    return [path, "--sandbox", *args]


# ---- regexes from test files --------------------------------------------------------------------


class RegexTimeout(Exception):
    """User regexes ran past REGEX_SECONDS (a pattern that backtracks without bound)."""


def search_all(patterns: list[str], texts: list[str], seconds: float = REGEX_SECONDS) -> list[list[bool]]:
    """[p][t]: whether patterns[p] is found in texts[t]. Patterns must compile (re.error
    otherwise); those that could backtrack without bound are matched in a child process that is
    killed past `seconds` (RegexTimeout)."""
    compiled = [re.compile(p) for p in patterns]
    out: list[list[bool] | None] = [None] * len(patterns)
    risky = [i for i, p in enumerate(patterns) if not bounded(p)]
    for i, regex in enumerate(compiled):
        if i not in risky:
            out[i] = [regex.search(t) is not None for t in texts]
    if risky:
        found = _in_child([patterns[i] for i in risky], texts, seconds)
        for i, row in zip(risky, found):
            out[i] = row
    return [row or [] for row in out]


_CHILD = """
import json, re, sys
job = json.load(sys.stdin)
json.dump([[re.search(p, t) is not None for t in job["texts"]] for p in job["patterns"]], sys.stdout)
"""


def _in_child(patterns: list[str], texts: list[str], seconds: float) -> list[list[bool]]:
    job = json.dumps({"patterns": patterns, "texts": texts})
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _CHILD], input=job, capture_output=True, text=True, timeout=seconds, check=True
        )
        rows = json.loads(done.stdout)
    except subprocess.TimeoutExpired:
        shown = ", ".join(repr(p[:60]) for p in patterns)
        raise RegexTimeout(f"the regular expression(s) {shown} ran past {seconds:g} s (they backtrack without bound)") from None
    except (subprocess.CalledProcessError, ValueError) as exc:
        raise RegexTimeout(f"the regular expression(s) could not be matched: {exc}") from None
    return [[bool(x) for x in row] for row in rows]


def bounded(pattern: str) -> bool:
    """Whether `pattern`'s shape bounds Python's backtracking: no backreference, no repeat (of
    any count above one: `(.|.){0,60}` is as bad as `(.|.)*`) over a group that itself repeats
    or alternates, at most two long repeats (unbounded, or more than LONG_REPEAT times)."""
    try:
        tree = importlib.import_module("re._parser").parse(pattern)  # (Python 3.11+: re's own parser)
    except Exception:  # (an older Python, or a pattern re rejects: the child decides)
        return False
    counts = [0]
    return _bounded(tree.data if hasattr(tree, "data") else tree, counts) and counts[0] <= 2


def _bounded(items, counts: list[int]) -> bool:
    c = importlib.import_module("re._constants")
    for op, arg in items:
        if op in (c.GROUPREF, c.GROUPREF_EXISTS):
            return False
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, high, body = arg
            if high > 1 and _varies(body):
                return False
            counts[0] += high == c.MAXREPEAT or high > LONG_REPEAT
            if not _bounded(body, counts):
                return False
        elif op == c.SUBPATTERN:
            if not _bounded(arg[-1], counts):
                return False
        elif op == c.BRANCH:
            if not all(_bounded(b, counts) for b in arg[1]):
                return False
        elif op in (c.ASSERT, c.ASSERT_NOT, c.ATOMIC_GROUP):
            if not _bounded(arg[-1] if op != c.ATOMIC_GROUP else arg, counts):
                return False
    return True


def _varies(items) -> bool:
    """Whether a repeated body can match in more than one way by itself (a repeat or a branch)."""
    c = importlib.import_module("re._constants")
    for op, arg in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT, c.BRANCH, c.GROUPREF):
            return True
        if op == c.SUBPATTERN and _varies(arg[-1]):
            return True
        if op in (c.ASSERT, c.ASSERT_NOT) and _varies(arg[-1]):
            return True
        if op == c.ATOMIC_GROUP and _varies(arg):
            return True
    return False
