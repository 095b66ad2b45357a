"""Which RUN lines feed CHECK lines, and running them without a shell.

update_llc_test_checks.py decides from a RUN line's raw text: the line must contain '|'; the
text between the last two '|' is the llc command, whose first space-separated word must be
exactly `llc` (or the --tool name); the text after the last '|' must start with "FileCheck ";
the prefixes are read from that text with `--?check-prefix(?:es)?[= ]VALUE`. We take the same
decisions on the same text (RUN lines joined as upstream joins continuations: the space before
a trailing backslash stays), so the same lines count and the same prefixes come out, and only
then tokenise the line with lit's own shell parser (`harness.core.commands`) to run it: preprocessing
commands chained by pipes, then llc reading the test file (upstream drops `< %s` and `%s` from
llc's arguments and feeds the file on stdin).

Where we differ from upstream, it is to keep what the test's author wrote: lit's substitutions
are made as lit makes them (from the file's absolute directory); a command that would write,
edit or run anything (`guard`) is not run, nor is a RUN line whose llc writes elsewhere than the
pipe or whose preprocessing fails — the CHECK lines of a RUN line that was not run stay as they
are (upstream would run llc on nothing and erase them).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from harness.checks.autogen import guard
from harness.core import commands, files
from harness.core.errors import PATH_LIMIT, InputError, shortened
from harness.core.verdicts import says_error
from harness.tools import toolchain
from harness.tools.toolchain import run_tool

_PREFIXES = re.compile(r"--?check-prefix(?:es)?[= ](\S+)")
_VALID_PREFIX = re.compile(r"^[a-zA-Z0-9_-]+$")
_TRIPLE = re.compile(r"-m?triple[= ]([^ ]+)")
_MARCH = re.compile(r"-march[= ]([^ ]+)")
_DEBUG_ONLY = re.compile(r"-debug-only[= ]([^ ]+)")
_IR_TRIPLE = re.compile(r'^\s*target\s+triple\s*=\s*"([^"]+)"$')
# Upstream's fallback from -march to a triple (anything else is taken for x86).
_MARCH_TRIPLES = ("amdgcn", "r600", "mips", "nvptx64", "sparc", "hexagon", "ve")


@dataclass(frozen=True)
class LlcRun:
    """A RUN line that feeds CHECK lines."""

    line: int
    text: str
    prefixes: tuple[str, ...]
    triple: str  # "" when neither the RUN line, the IR nor -march names one
    isel_dump: bool  # -debug-only=isel: upstream checks the selection DAG dump, not assembly


def ir_triple(lines: list[str]) -> str:
    for line in lines:
        m = _IR_TRIPLE.match(line)
        if m:
            return m.group(1)
    return ""


def select(runs: list[commands.RunLine], ir_target: str, tool: str | None, march: str | None, warn) -> list[LlcRun]:
    """The RUN lines that feed CHECK lines; `warn(line, message)` hears about the others,
    in upstream's words."""
    out = []
    for run in runs:
        if "|" not in run.text:
            warn(run.line, "Skipping unparsable RUN line: " + shortened(run.text, PATH_LIMIT))
            continue
        parts = [p.strip() for p in run.text.split("|")]
        llc_text, filecheck_text = parts[-2], parts[-1]
        name = llc_text.split(" ")[0]
        _check_prefix_spelling(filecheck_text, lambda message, line=run.line: warn(line, message))
        if name != "llc" and name != tool:
            warn(run.line, "Skipping non-llc RUN line: " + shortened(run.text, PATH_LIMIT))
            continue
        if not filecheck_text.startswith("FileCheck "):
            warn(run.line, "Skipping non-FileChecked RUN line: " + shortened(run.text, PATH_LIMIT))
            continue
        prefixes = [p for m in _PREFIXES.finditer(filecheck_text) for p in m.group(1).split(",")] or ["CHECK"]
        m = _TRIPLE.search(llc_text)
        triple = m.group(1) if m else ir_target
        if not triple:
            m = _MARCH.search(llc_text)
            arch = m.group(1) if m else march
            if arch is not None:
                triple = next((t for t in _MARCH_TRIPLES if arch.startswith(t)), "x86")
        m = _DEBUG_ONLY.search(llc_text)
        out.append(LlcRun(run.line, run.text, tuple(prefixes), triple, bool(m and m.group(1) == "isel")))
    return out


def _check_prefix_spelling(filecheck_text: str, warn) -> None:
    for word in filecheck_text.split():
        if "check-prefix=" in word:
            _valid_prefix(word.split("=", 1)[1], warn)
        elif "check-prefixes=" in word:
            names = word.split("=", 1)[1].split(",")
            for name in names:
                _valid_prefix(name, warn)
                if names.count(name) > 1:
                    warn(f"Supplied prefix '{name}' is not unique in the prefix list.")


def _valid_prefix(name: str, warn) -> None:
    if not _VALID_PREFIX.match(name):
        hint = f" Did you mean '--check-prefixes={name}'?" if "," in name else ""
        warn(
            f"Supplied prefix '{name}' is invalid. Prefix must contain only alphanumeric characters, "
            f"hyphens and underscores.{hint}"
        )


# ---- running a RUN line ------------------------------------------------------------------------


class Skip(Exception):
    """A RUN line we will not run; str() says why (one line)."""


@dataclass(frozen=True)
class Output:
    text: str  # llc's assembly ("" when the RUN line sends it elsewhere than the pipe)
    notes: tuple[str, ...]  # things worth a warning that did not stop the run


def plan(run: LlcRun, path: Path, llc: str) -> commands.Pipeline:
    """The RUN line's commands, tokenised by lit's shell and substituted as lit would (from
    `path`'s directory); Skip when we cannot run them as upstream would without a shell, or when
    one of them would write, edit or run anything (see `guard`)."""
    try:
        pipeline = commands.parse(run.text)
    except commands.CommandSyntaxError as exc:
        raise Skip(f"cannot split this RUN line: {exc.message}") from None
    except Exception as exc:  # lit's lexer can fail in other ways on malformed text (unbalanced quotes)
        raise Skip(f"cannot split this RUN line ({type(exc).__name__}: {exc})") from None
    if len(pipeline.commands) != len(run.text.split("|")):
        raise Skip("a '|' inside quotes: upstream splits this RUN line differently from lit's shell")
    for cmd in pipeline.commands[:-2]:
        if cmd.stdout is not None:
            raise Skip(f"{cmd.tool} writes to a file inside the pipe")
    llc_cmd = pipeline.commands[-2]
    elsewhere = llc_cmd.stdout or _output_file(list(llc_cmd.argv[1:]))
    if elsewhere:
        raise Skip(f"llc writes its output to {elsewhere}, not to the pipe: nothing to check (not run)")
    is_llvm_tool = lambda name: bool(toolchain.tool_path(name, Path(llc).parent))
    try:
        subst = guard.substitutions(path)
        for cmd in pipeline.commands[:-2]:
            why = guard.problem(guard.substituted(cmd, subst), is_llvm_tool)
            if why:
                raise Skip(why)
        # (llc is this build's whatever the RUN line names it: only its arguments matter)
        why = guard.writes(guard.substituted(llc_cmd, subst).argv[1:], allow_output=True)
    except guard.Refused as exc:
        raise Skip(str(exc)) from None
    if why:
        raise Skip(why)
    return pipeline


def llc_output(run: LlcRun, pipeline: commands.Pipeline, path: Path, data: bytes, llc: str, timeout: float) -> Output:
    """Run the pipeline's commands up to llc (FileCheck is not run) and return llc's stdout.

    Raises Skip when a command before llc fails (its CHECK lines stay as they are), InputError
    when a tool times out, llc fails or an input cannot be read."""
    *before, llc_cmd, _ = pipeline.commands
    where = (str(path), run.line)
    subst = guard.substitutions(path)
    notes: list[str] = []

    stdin = data
    if before:
        stdin = b""  # upstream gives the preprocessing pipe no stdin (commands read %s themselves)
        for cmd in before:
            stdin = _preprocess(guard.substituted(cmd, subst), stdin, llc, timeout, where)

    args = [guard.substitute(w.replace("%s", ""), subst) for w in llc_cmd.argv[1:]]
    args = [w for w in args if w]
    if llc_cmd.stdin is not None and llc_cmd.stdin != "%s":
        stdin = _read(guard.substitute(llc_cmd.stdin.replace("%s", ""), subst), where)
    result = run_tool([llc, *args], stdin, timeout, binary=True)
    code = result.returncode
    if code is None:  # timed out
        raise InputError(f"llc ran past {timeout:g} s", str(path), run.line)
    if code != 0:
        message = _first_error(result.stderr, llc)
        if not before and llc_cmd.stdin in (None, "%s"):
            message = message.replace("<stdin>", str(path))  # llc read the test file itself
        status = f"signal {-code}" if code < 0 else f"exit status {code}"
        raise InputError(f"llc failed ({status}): {message}", str(path), run.line)
    if says_error(result.stderr) and not llc_cmd.stderr_to_stdout:  # an error with success: nothing to write from
        raise InputError(f"llc exited 0 but printed errors: {_first_error(result.stderr, llc)}", str(path), run.line)
    text = result.data.decode(errors="replace")
    if llc_cmd.stderr_to_stdout:
        text += result.stderr
    elif llc_cmd.stderr is None:
        # Upstream lets llc's stderr through to the terminal: a warning such as "'gfx950' is not
        # a recognized processor for this target" must not vanish.
        said = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        notes.extend(f"{path}:{run.line}: llc: {line}" for line in said[:5])
    return Output(text.replace("\r\n", "\n"), tuple(notes))


def _preprocess(cmd: commands.Command, stdin: bytes, llc: str, timeout: float, where) -> bytes:
    """One command before llc in the pipe (substituted, and allowed by `plan`). A failure skips
    the RUN line: what llc would compile is not what the test means (upstream runs on)."""
    tool = _find_tool(cmd.argv[0], llc)
    argv = guard.sed_argv(tool, cmd.argv[1:]) if cmd.tool == "sed" else [tool, *cmd.argv[1:]]
    if cmd.stdin is not None:
        stdin = _read(cmd.stdin, where)
    result = run_tool(argv, stdin, timeout, binary=True)
    if result.timed_out:
        raise InputError(f"{cmd.tool} ran past {timeout:g} s", *where)
    if not result.ok:
        raise Skip(f"{cmd.tool} exited with status {result.returncode}: {_first_error(result.stderr, argv[0])}")
    return result.data + (result.stderr.encode() if cmd.stderr_to_stdout else b"")


def _find_tool(name: str, llc: str) -> str:
    """A preprocessing tool: the one lookup (`toolchain.tool_path`), in llc's own build."""
    if "/" in name:
        return name
    return toolchain.tool_path(name, Path(llc).parent) or name


def _output_file(args: list[str]) -> str:
    for i, arg in enumerate(args):
        if arg in ("-o", "--o") and i + 1 < len(args):
            return "" if args[i + 1] == "-" else args[i + 1]
        if arg.startswith(("-o=", "--o=")):
            value = arg.split("=", 1)[1]
            return "" if value == "-" else value
    return ""


MAX_INPUT_BYTES = 256 << 20  # what a RUN line may feed a tool (`< FILE`): a test file's limit


def _read(path: str, where) -> bytes:
    """A file a RUN line redirects into a tool: a regular file of bounded size (a FIFO or a
    device such as /dev/zero is refused, never read), else one located error."""
    try:
        return files.read_input(Path(path), MAX_INPUT_BYTES, "file a RUN line reads")
    except InputError as exc:
        raise InputError(f"{path}: {exc.message}", *where) from None


def _first_error(stderr: str, program: str) -> str:
    """The first line of `stderr` that says "error", without the leading `PROGRAM: error:` parts."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    line = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "no message")
    heads = (f"{program}: ", f"{os.path.basename(program)}: ", "error: ")
    while line.startswith(heads):
        line = line[len(next(h for h in heads if line.startswith(h))) :]
    return line
