"""Tool command lines, both ways: argument lists <-> lit RUN-line text.

This module is the only place that turns a RUN line into argument lists or an argument list into
RUN-line text. Reading uses lit's own parser for its internal shell, so a RUN line means here
exactly what it means when lit runs it; writing quotes every argument that lit's shell would
otherwise read as syntax (`>`, `;`, `|`, `&`, spaces, quotes), and `parse(text(p)) == p` holds.

It also builds the commands the harness itself runs (llc, llvm-mc, opt for a case): the runner
runs their `args`, litgen writes their `text()`, and both therefore say the same thing.
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass, replace
from enum import StrEnum

from harness.core.errors import InputError, quoted

DEFAULT_TIMEOUT = 120.0  # seconds a tool may run, unless --timeout says otherwise


class Selector(StrEnum):
    """llc's instruction selectors: SelectionDAG and GlobalISel."""

    SDAG = "sdag"
    GISEL = "gisel"


SELECTOR_FLAGS = {Selector.SDAG: ("-global-isel=0",), Selector.GISEL: ("-global-isel=1", "-global-isel-abort=1")}

# Words lit's internal shell reads as plain text; anything else is quoted.
_PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./\-]+")
# A RUN line as LLVM's own tools find it: a comment leader, `RUN:`, the command.
_RUN_LINE = re.compile(r"^\s*(?://|[;#])\s*RUN:\s*(.*)$")
# Prefix commands that run the tool named after them.
_WRAPPERS = {"not": ("--crash",), "env": ()}


class CommandSyntaxError(InputError):
    """A RUN line that lit's shell cannot split, or that uses shell syntax we do not run."""


@dataclass(frozen=True)
class Command:
    """One command of a pipeline: its arguments and its redirections."""

    argv: tuple[str, ...]
    stdin: str | None = None  # `< FILE`
    stdout: str | None = None  # `> FILE`
    stderr_to_stdout: bool = False  # `2>&1`
    stderr: str | None = None  # `2> FILE`

    @property
    def tool_index(self) -> int:
        """Index in argv of the tool that does the work (past `not`, `not --crash`, `env A=B`)."""
        i = 0
        while i < len(self.argv) and self.argv[i] in _WRAPPERS:
            wrapper = self.argv[i]
            i += 1
            while i < len(self.argv) and (self.argv[i] in _WRAPPERS[wrapper] or (wrapper == "env" and "=" in self.argv[i])):
                i += 1
        return i

    @property
    def tool(self) -> str:
        """The tool's name as written (`llc`, `FileCheck`, `%llc_dwarf`), without wrappers."""
        i = self.tool_index
        return self.argv[i].rsplit("/", 1)[-1] if i < len(self.argv) else ""

    @property
    def args(self) -> tuple[str, ...]:
        """The tool's own arguments."""
        return self.argv[self.tool_index + 1 :]

    @property
    def negated(self) -> bool:
        """`not` (or `not --crash`) wraps the tool, directly or inside `env`."""
        return "not" in self.argv[: self.tool_index]

    def text(self) -> str:
        words = [quote(a) for a in self.argv]
        if self.stdin is not None:
            words += ["<", quote(self.stdin)]
        if self.stdout is not None:
            words += [">", quote(self.stdout)]
        if self.stderr_to_stdout:
            words.append("2>&1")
        if self.stderr is not None:
            words += ["2>", quote(self.stderr)]
        return " ".join(words)

    def substitute(self, mapping: dict[str, str]) -> Command:
        """Replace lit substitutions (`%s`, `%t`, ...) inside every word."""
        sub = lambda w: _substitute(w, mapping) if w is not None else None
        return replace(
            self,
            argv=tuple(_substitute(a, mapping) for a in self.argv),
            stdin=sub(self.stdin),
            stdout=sub(self.stdout),
            stderr=sub(self.stderr),
        )


@dataclass(frozen=True)
class Pipeline:
    """Commands joined by `|`, as one RUN line."""

    commands: tuple[Command, ...]

    def text(self) -> str:
        return " | ".join(c.text() for c in self.commands)

    def substitute(self, mapping: dict[str, str]) -> Pipeline:
        return Pipeline(tuple(c.substitute(mapping) for c in self.commands))


@dataclass(frozen=True)
class RunLine:
    """A RUN line of a test file: where it starts (1-based line, and the column of its command's
    first character) and its text, continuations joined."""

    line: int
    text: str
    col: int = 1


def _substitute(word: str, mapping: dict[str, str]) -> str:
    # Longest names first, so %t does not eat the start of %tmp-like names we were also given.
    for key in sorted(mapping, key=len, reverse=True):
        word = word.replace(key, mapping[key])
    return word


def quote(word: str) -> str:
    """`word` as lit's internal shell reads it back unchanged."""
    if word and _PLAIN.fullmatch(word):
        return word
    if "'" not in word:
        return f"'{word}'"
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def shell_text(argv: tuple[str, ...] | list[str], stdin: str, stdout: str, stderr: str) -> str:
    """One line of a POSIX shell script that runs argv with the three streams on files (a
    replay script: `$`, backquotes and the rest quoted as sh, not lit, reads them)."""
    return " ".join([shlex.join(argv), "<", shlex.quote(stdin), ">", shlex.quote(stdout), "2>", shlex.quote(stderr)])


# opt's -passes= text: `element(,element)*`, an element `name[<params>][(pipeline)]`. Names and
# parameters keep to the characters LLVM's pass names and options use, so no pipeline a spec
# names can carry shell or lit syntax, whatever quoting later does with it.
_PASS_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
_PASS_PARAMS = re.compile(r"<[A-Za-z0-9_.\-=;:+]*>")
# Levels of `(...)` a pipeline may nest. The deepest pipelines LLVM's own tests and default
# pipelines write nest about six: module(cgscc(devirt<4>(function(loop-mssa(licm))))) with a
# repeat<N>(...) or two; 32 is far past any real one and far below Python's recursion limit.
MAX_PIPELINE_NESTING = 32


class _TooDeep(ValueError):
    """A pipeline nested past MAX_PIPELINE_NESTING (its message is the whole reason)."""


def pass_pipeline_error(text: str) -> str:
    """Why `text` is not an opt -passes= pipeline ("" when it is one): the grammar only; opt
    itself says later whether each pass exists.

    The parser recurses once per level of `(...)`, and refuses a level past
    MAX_PIPELINE_NESTING by name instead of overflowing Python's stack: the limit is the clearer
    message for a pipeline no one writes by hand, and keeps the grammar readable as it is."""

    def elements(i: int, depth: int) -> int:
        while True:
            name = _PASS_NAME.match(text, i)
            if not name:
                raise ValueError(f"a pass name at character {i + 1}, got {repr(text[i]) if i < len(text) else 'the end'}")
            i = name.end()
            params = _PASS_PARAMS.match(text, i) if text.startswith("<", i) else None
            if text.startswith("<", i) and not params:
                raise ValueError(f"pass parameters `<...>` at character {i + 1} made of letters, digits and _.-=;:+")
            i = params.end() if params else i
            if text.startswith("(", i):
                if depth == MAX_PIPELINE_NESTING:
                    raise _TooDeep(
                        f"a pipeline nested more than {MAX_PIPELINE_NESTING} levels deep "
                        f"(the `(` at character {i + 1}); real pipelines nest at most about six"
                    )
                i = elements(i + 1, depth + 1)
                if not text.startswith(")", i):
                    raise ValueError(f"`)` at character {i + 1} to close the nested pipeline")
                i += 1
            if not text.startswith(",", i):
                return i
            i += 1

    try:
        end = elements(0, 0)
        if end != len(text):
            raise ValueError(f"`,` or the end at character {end + 1}, got {text[end]!r}")
    except _TooDeep as exc:
        return str(exc)
    except ValueError as exc:
        return f"not an opt -passes= pipeline: expected {exc}"
    graph = _GRAPH_PASS.search(text)
    if graph:
        return f"a pipeline with {graph.group(2)!r}, which writes graph files or opens a viewer: not run"
    return ""


_GRAPH_PASS = re.compile(r"(^|[,(])((?:dot|view)-[A-Za-z0-9_.\-]*)")  # dot-cfg, view-dom-only, ...


def run_lines(text: str) -> list[RunLine]:
    """Every RUN line of a test file, a trailing backslash joining the next RUN line to it."""
    found: list[tuple[int, int, list[str]]] = []  # (line, column, parts): joined once, at the end
    continued = False
    # Lines end at "\n" only, as lit reads them (a form feed inside a RUN line is text).
    for number, line in enumerate(text.split("\n"), 1):
        m = _RUN_LINE.match(line.rstrip("\r"))
        if not m:
            continue
        body = m.group(1).rstrip()
        joined = body[:-1].strip() if body.endswith("\\") else body.strip()
        if continued:
            found[-1][2].append(joined)
        else:
            found.append((number, m.start(1) + 1, [joined]))
        continued = body.endswith("\\")
    return [RunLine(number, " ".join(parts), col) for number, col, parts in found]


def updater_run_lines(lines: list[str]) -> list[RunLine]:
    """RUN lines as LLVM's update_*_test_checks.py scripts join them, which differs from lit in
    two details that decide which text they read: the whitespace before a trailing backslash is
    kept, and every trailing backslash goes. CHECK-line updates must read what those scripts read.
    """
    found: list[tuple[int, int, list[str]]] = []  # (line, column, parts): joined once, at the end
    for number, line in enumerate(lines, 1):
        m = _RUN_LINE.match(line)
        if not m:
            continue
        if found and found[-1][2][-1].endswith("\\"):
            parts = found[-1][2]
            parts[-1] = parts[-1].rstrip("\\")
            parts.append(m.group(1))
        else:
            found.append((number, m.start(1) + 1, [m.group(1)]))
    return [RunLine(number, " ".join(parts), col) for number, col, parts in found]


# Characters of a RUN line (continuations joined) that are split. lit's shell parser, which
# splits the line when lit runs the test, takes time quadratic in a line's tokens (800 KB: many
# minutes; the harness's, `_parser`, is linear). llc and opt RUN lines of LLVM's own tests run to
# a few hundred characters, the longest, continuations joined, to one or two KB; 8 KB leaves room
# for those, and lit splits it in under a second even at its worst (4,000 commands of `|`).
MAX_RUN_LINE = 8192
# Characters of all the RUN lines of one file together (continuations joined). The test of LLVM
# with the most llc RUN lines we know, CodeGen/RISCV/attributes.ll, has about 370 of them in
# 35 KB; 128 KB is more than three times that. It bounds what one file makes the harness split
# (and run): 16 lines of 8 KB at their worst (`a|a|...`, ~0.05 s each) split in under a second,
# where a file of 8 KB lines could otherwise take minutes.
MAX_RUN_TEXT = 128 << 10


def run_line_too_long(text: str) -> str:
    """Why a RUN line is not split ("" when it may be): longer than MAX_RUN_LINE."""
    if len(text) <= MAX_RUN_LINE:
        return ""
    return (
        f"a RUN line of {len(text):,} characters (continuations joined), longer than the {MAX_RUN_LINE:,} characters "
        "the harness splits (lit's shell parser takes time quadratic in a line's length)"
    )


def run_text_too_long(runs: list[RunLine]) -> tuple[RunLine, str] | None:
    """The RUN line that takes a file's RUN lines past MAX_RUN_TEXT characters together, and why;
    None when they stay within it."""
    total = 0
    for run in runs:
        total += len(run.text)
        if total > MAX_RUN_TEXT:
            return run, (
                f"RUN lines of {total:,} characters up to this one (continuations joined), more than the {MAX_RUN_TEXT:,} "
                "the harness splits in one file (the llc test of LLVM with the most RUN lines has about 35,000)"
            )
    return None


def parse(text: str) -> Pipeline:
    """A RUN line's commands, split as lit's internal shell splits them.

    Sequences (`;`, `&&`, `||`) and redirections other than `<`, `>` and `2>&1` are refused:
    nothing the harness reads or writes needs them, and guessing would run something else; so is
    a line longer than MAX_RUN_LINE, which lit's lexer would take minutes to split.
    """
    import lit.ShUtil  # lit is a dependency; imported here so `harness --help` stays fast

    too_long = run_line_too_long(text)
    if too_long:
        raise CommandSyntaxError(too_long)
    try:
        tree = _parser()(text, False, True).parse()
    except Exception as exc:  # lit's lexer raises whatever it hits (ValueError, AttributeError, ...)
        raise CommandSyntaxError(f"cannot split {quoted(text)}: {exc or type(exc).__name__}") from None
    if not isinstance(tree, lit.ShUtil.Pipeline):
        raise CommandSyntaxError(f"{quoted(text)} is a command sequence (;, &&, ||); expected one pipeline")
    if tree.negate or (tree.commands and tree.commands[0].args[:1] == ["!"]):
        raise CommandSyntaxError(f"{quoted(text)} starts with '!'; use `not`")
    return Pipeline(tuple(_command(c, text) for c in tree.commands))


@functools.cache
def _parser():
    """lit's parser for its internal shell (`lit.ShUtil.ShParser`, as lit runs a RUN line), its
    grammar untouched, with the one token it looks ahead at kept aside. lit puts that token back
    by wrapping its token stream in one more `itertools.chain` per look, so every later token
    passes through every chain before it: time quadratic in a line's tokens (an 8 KB line of
    `a|a|...`: about half a second). Kept aside, each token is read once."""
    import lit.ShUtil

    class Parser(lit.ShUtil.ShParser):
        def __init__(self, data: str, win32Escapes: bool = False, pipefail: bool = False):
            super().__init__(data, win32Escapes, pipefail)
            self.ahead: list = []  # the token looked at and not yet taken (at most one)

        def lex(self):
            return self.ahead.pop() if self.ahead else next(self.tokens, None)

        def look(self):
            token = self.lex()
            if token is not None:
                self.ahead.append(token)
            return token

    return Parser


def _command(cmd, text: str) -> Command:
    stdin = stdout = stderr = None
    merged = False
    for (op, *fd), target in cmd.redirects:
        if op == "<" and not fd:
            stdin = target
        elif op == ">" and fd in ([], [1]):
            stdout = target
        elif op == ">" and fd == [2]:
            stderr = target
        elif op == ">&" and fd == [2] and target == "1":
            merged = True
        else:
            raise CommandSyntaxError(f"{quoted(text)}: unsupported redirection {''.join(map(str, fd))}{op}{target}")
    if not cmd.args:
        raise CommandSyntaxError(f"{quoted(text)}: empty command")
    globbed = [a for a in cmd.args if not isinstance(a, str)] + [
        t for t in (stdin, stdout) if t is not None and not isinstance(t, str)
    ]
    if globbed:
        raise CommandSyntaxError(
            f"{quoted(text)}: a file glob ({getattr(globbed[0], 'pattern', globbed[0])}) is not supported here"
        )
    return Command(tuple(cmd.args), stdin, stdout, merged, stderr)


# ---- the commands the harness runs --------------------------------------------------------------


def _mattr(features: str) -> tuple[str, ...]:
    return (f"-mattr={features}",) if features else ()


def llc(triple: str, cpu: str, opt: int, selector: Selector, obj: bool = False, features: str = "") -> Command:
    """llc for one selector (`-global-isel-abort=1` on GlobalISel: no silent fallback)."""
    filetype = ("-filetype=obj",) if obj else ()
    return Command(
        ("llc", f"-O{opt}", f"-mtriple={triple}", f"-mcpu={cpu}", *_mattr(features), *SELECTOR_FLAGS[selector], *filetype)
    )


def llvm_mc(triple: str, cpu: str, features: str = "") -> Command:
    """llvm-mc assembling llc's text (under the same -mattr); only its diagnostics matter."""
    return Command(("llvm-mc", f"-triple={triple}", f"-mcpu={cpu}", *_mattr(features), "-filetype=obj", "-o", "/dev/null"))


def object_on_stdout(command: Command) -> Command:
    """An assembler command (`llvm_mc`) that writes its object to stdout rather than /dev/null."""
    argv = list(command.argv)
    at = argv.index("-o")
    return replace(command, argv=(*argv[: at + 1], "-", *argv[at + 2 :]))


def opt(triple: str, cpu: str, pipeline: str, disable_verify: bool = False, features: str = "") -> Command:
    flag = ("-disable-verify",) if disable_verify else ()
    return Command(("opt", f"-mtriple={triple}", f"-mcpu={cpu}", *_mattr(features), *flag, f"-passes={pipeline}"))


def ptxas(cpu: str, ptx_file: str, features: str = "") -> Command:
    """ptxas assembling one PTX file for `cpu` (PTX has no -mattr to pass on); only its
    verdict and diagnostics matter."""
    return Command(("ptxas", f"-arch={cpu}", "-o", "/dev/null", ptx_file))


def with_args(command: Command, *extra: str, stdin: str | None = None, stdout: str | None = None) -> Command:
    """`command` with more arguments and, optionally, redirections."""
    return replace(
        command,
        argv=command.argv + extra,
        stdin=stdin if stdin is not None else command.stdin,
        stdout=stdout if stdout is not None else command.stdout,
    )


def check_prefixes(filecheck: Command) -> list[str]:
    """The prefixes a FileCheck command checks (`CHECK` when it names none)."""
    out: list[str] = []
    args = list(filecheck.args)
    for i, arg in enumerate(args):
        m = re.fullmatch(r"--?check-prefix(?:es)?(?:=(.*))?", arg)
        if not m:
            continue
        value = m.group(1) if m.group(1) is not None else (args[i + 1] if i + 1 < len(args) else "")
        out.extend(p for p in value.split(",") if p)
    return out or ["CHECK"]
