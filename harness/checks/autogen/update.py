"""Regenerate the CHECK lines of an AMDGPU or NVPTX `llc | FileCheck` test, as update_llc_test_checks.py
would, without running a shell.

`update()` reads the file, decides which RUN lines feed checks (see `runs`), runs llc for each,
merges the bodies per FileCheck prefix (see `layout`) and rebuilds the file: a NOTE header first
(with the file's UTC_ARGS), then every line of the test with the old generated checks dropped and
fresh ones written right after each `define` line (or, with --include-generated-funcs, all at the
end), and the unused-prefix trailer last. It never writes the file; `harness.core.files.write_atomically` does.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from harness.checks import check_lines
from harness.checks.autogen import guard, layout, runs, scrub
from harness.checks.autogen.options import (
    ADVERT,
    DO_NOT_GENERATE,
    SCRIPT_NAME,
    UNUSED_NOTE,
    FileOptions,
    UtcArgsError,
    read_options,
)
from harness.core import commands, files
from harness.core.errors import InputError

# A `define` line and the function it defines (quotes around the name dropped).
_DEFINE = re.compile(r'^\s*define\s+(?:internal\s+)?[^@]*@(?:"([^"]*)"|([\w.$-]+))\s*\(')


def _defined(line: str) -> str | None:
    """The name of the function a `define` line defines (without quotes), or None."""
    m = _DEFINE.match(line)
    return None if m is None else m.group(1) if m.group(1) is not None else m.group(2)


def _labels(bodies: layout.Bodies) -> dict[bytes, str]:
    """What each function llc printed stands for (`check_lines.asm_name_bytes`) -> its label."""
    out: dict[bytes, str] = {}
    for label in sorted({fn for known in bodies.table.values() for fn in known}):
        out.setdefault(check_lines.asm_name_bytes(label), label)
    return out


def _label(labels: dict[bytes, str], name: str) -> str | None:
    """The name llc's text gives function `name` (IR spelling, quotes dropped): `"my-func"` for
    `@"my-func"`, `"q\\"uote"` for `@"q\\22uote"`, `f` for `@"\\01f"`; None when no RUN line
    printed code for it. `labels`: `_labels` of the RUN lines' bodies."""
    return labels.get(check_lines.ir_name_bytes(name))


@dataclass(frozen=True)
class FunctionChange:
    """One function's CHECK block under one prefix, before and after (`diff`: unified diff).

    `function` is the name in the LABEL line; "" stands for the rest of the file (the NOTE
    header, the unused-prefix trailer, check lines dropped outside any block)."""

    function: str
    prefix: str
    diff: str


@dataclass(frozen=True)
class Update:
    """What regenerating one test file gives; nothing is written.

    `new_text == old_text` when nothing changes or the file is refused; `refused` says why a file
    was left alone ("" otherwise); `warnings` are one line each, those about a RUN line starting
    with `FILE:LINE:`."""

    path: Path
    old_text: str
    new_text: str
    warnings: list[str] = field(default_factory=list)
    refused: str = ""
    changes: list[FunctionChange] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.new_text != self.old_text


class _Refused(Exception):
    pass


class NoCode(InputError):
    """llc's output holds none of the functions the test defines (it is not assembly, or llc was
    given no module): no CHECK line may come from it. `function`: the first the test defines."""

    def __init__(self, path: Path, line: int, function: str, count: int, output: str):
        others = f" nor for the {count - 1} other function(s) the file defines" if count > 1 else ""
        super().__init__(f"llc printed no code for {function}{others} ({output}): no CHECK lines come from that", str(path), line)
        self.function = function


def update(path: Path, llc: str, *, force: bool = False, timeout: float = 120.0) -> Update:
    """Regenerate `path`'s checks with `llc` (each tool call limited to `timeout` seconds).

    `force` regenerates a file whose NOTE header names another generator. Raises InputError for
    unreadable or non-UTF-8 files, files without RUN lines, and tools that fail or time out."""
    path = Path(path)
    data = _read(path)
    text = _decode(data, path)
    newline = _newline(text, path)
    past = commands.run_text_too_long(commands.run_lines(text))
    if past:
        raise InputError(past[1], str(path), past[0].line, past[0].col)
    warnings: list[str] = []
    try:
        new_text, prefixes = _generate(path, text, data, llc, force, timeout, warnings)
    except _Refused as exc:
        return Update(path, text, text, _one_line(warnings), _one_line([str(exc)])[0])
    # The lines are read as upstream reads them (universal newlines), and written back with the
    # file's own ending (`_newline`), where upstream writes LF.
    new_text = new_text.replace("\n", newline)
    return Update(path, text, new_text, _one_line(warnings), "", _changes(path, text, new_text, prefixes))


def _one_line(messages: list[str]) -> list[str]:
    return [" ".join(m.split("\n")) for m in messages]


def _generate(
    path: Path, text: str, data: bytes, llc: str, force: bool, timeout: float, warnings: list[str]
) -> tuple[str, set[str]]:
    """The regenerated text and the prefixes of the RUN lines used; raises _Refused."""

    def warn(line, message):
        warnings.append(f"{path}:{line}: {message}")

    if path.suffix == ".mir":
        raise _Refused("MIR tests are not supported (only LLVM IR tests)")
    comment = "#" if path.suffix == ".txt" else "//" if path.suffix == ".s" else ";"
    lines = _lines(text)
    first = lines[0] if lines else ""
    if DO_NOT_GENERATE in first and not force:
        raise _Refused(f"its first line says '{DO_NOT_GENERATE}' (--force overrides)")
    regenerate = ADVERT in first
    if regenerate and SCRIPT_NAME not in first and not force:
        raise _Refused(f"it was not autogenerated by {SCRIPT_NAME} (--force overrides)")
    lines = lines[: _trailer_start(lines, comment)]
    found = commands.updater_run_lines(lines)
    if not found:
        raise InputError("no RUN lines", str(path))
    note_prefix = f"{comment} {ADVERT}"
    try:
        opts = read_options(lines, regenerate, note_prefix)
    except UtcArgsError as exc:
        raise _Refused(f"{exc} (update_llc_test_checks.py would stop here)") from None
    if opts.first.llc_binary:
        warnings.append(f"{path}:1: UTC_ARGS --llc-binary {opts.first.llc_binary} ignored; using {llc}")
    planned, skipped = _plan(path, lines, found, opts, llc, warn)
    ran = _run(path, lines, planned, skipped, data, llc, timeout, opts, warnings, warn)
    run_list = [layout.Run(run.line, run.prefixes) for run, _ in ran]
    bodies = layout.Bodies(run_list)
    for (_, functions), entry in zip(ran, run_list):
        bodies.add(entry, functions)
    for name, stuck in bodies.conflicts():
        warnings.append(f"{path}:{run_list[stuck[0]].line}: {bodies.conflict_message(name, stuck)}")

    prefixes = {p for run in run_list for p in run.prefixes}
    labels = _labels(bodies)
    _warn_unprinted(lines, labels, warn)
    note = note_prefix + SCRIPT_NAME + opts.first.note_suffix()
    used: Collection[str]  # the prefixes the checks use
    if opts.first.include_generated_funcs:
        out, used = _rewrite_checks_at_end(lines, opts, note, prefixes, run_list, bodies)
    else:
        out, used = _rewrite(lines, opts, note, prefixes, run_list, bodies, labels)
    if opts.last.unused_prefix_trailer:
        out.extend(layout.unused_trailer(run_list, used, comment))
    return "\n".join(out) + "\n", prefixes


def _warn_unprinted(lines: list[str], labels: dict[bytes, str], warn) -> None:
    """A warning for each function no RUN line printed code for that can be told apart (its
    check lines are kept; see `_rewrite`)."""
    for number, line in enumerate(lines, 1):
        defined = _defined(line)
        if defined is not None and _label(labels, defined) is None and "available_externally" not in line:
            warn(number, f"llc printed no code for {defined} that can be told apart; its CHECK lines are kept as they are")


# The unused-prefix trailer's catch-all lines: `; PREFIX: {{.*}}`.
_TRAILER_LINE = re.compile(r"^\s*(?://|[;#])\s*[\w-]+:\s*\{\{\.\*\}\}\s*$")


def _trailer_start(lines: list[str], comment: str) -> int:
    """Where the unused-prefix trailer starts (len(lines) when there is none): its NOTE line as
    the generator writes it, followed by nothing but catch-all lines. A comment that only quotes
    the NOTE is text like any other (upstream would drop everything after it)."""
    note = f"{comment}{comment} {UNUSED_NOTE}"
    for i, line in enumerate(lines):
        if line.strip() == note and all(not rest.strip() or _TRAILER_LINE.match(rest) for rest in lines[i + 1 :]):
            return i
    return len(lines)


def _plan(path: Path, lines, found, opts: FileOptions, llc: str, warn) -> tuple[list, list[runs.LlcRun]]:
    """The RUN lines that feed checks, as (run, pipeline, its target's assembly syntax) to run and
    runs that will not run."""
    selected = runs.select(found, runs.ir_triple(lines), opts.first.tool, opts.first.march, warn)
    syntaxes = []
    for run in selected:
        if run.isel_dump:
            raise _Refused(f"line {run.line}: -debug-only=isel (selection DAG) checks are not supported")
        if not run.triple:
            raise _Refused(f"line {run.line}: no target triple (-mtriple, `target triple` or -march)")
        syntax = scrub.syntax_for(run.triple)
        if syntax is None:
            raise _Refused(f"line {run.line}: target '{run.triple}' is not {scrub.supported()}")
        syntaxes.append(syntax)
    planned, skipped = [], []
    for run, syntax in zip(selected, syntaxes):
        try:
            planned.append((run, runs.plan(run, path, llc), syntax))
        except runs.Skip as exc:
            warn(run.line, f"{exc}; skipped")
            skipped.append(run)
    return planned, skipped


def _run(path: Path, lines, planned, skipped, data, llc, timeout, opts: FileOptions, warnings, warn) -> list:
    """(run, its functions) for each planned RUN line that ran. A RUN line that was not run
    keeps its CHECK lines: refused when it shares a prefix with one that ran (that one's output
    would take the prefix over), or when none ran."""
    ran = []
    defined = [name for line in lines if (name := _defined(line)) is not None and "available_externally" not in line]
    for run, pipeline, syntax in planned:
        try:
            output = runs.llc_output(run, pipeline, path, data, llc, timeout)
        except runs.Skip as exc:
            warn(run.line, f"{exc}; skipped")
            skipped.append(run)
            continue
        warnings.extend(output.notes)
        try:
            functions = scrub.functions(output.text, opts.first.filter_list, syntax)
        except guard.RegexTimeout as exc:
            raise _Refused(f"UTC_ARGS --filter: {exc}") from None
        if defined and not set(defined) & {fn.name.strip('"') for fn in functions}:
            raise NoCode(path, run.line, defined[0], len(defined), _describe(output.text))
        for fn in functions:
            if any(scrub.MC_NUMBER.search(line) for line in fn.body.splitlines()):
                raise _Refused(
                    f"line {run.line}: {fn.name} has MCInst/MCOperand numbers in assembly "
                    "comments, which upstream turns into FileCheck variables (not supported)"
                )
        ran.append((run, functions))
    taken = {p for run, _ in ran for p in run.prefixes}
    for run in skipped:
        shared = sorted(taken & set(run.prefixes))
        if shared:
            raise _Refused(
                f"line {run.line} cannot be run without a shell and shares prefixes {', '.join(shared)} "
                "with other RUN lines; the file is left as it is"
            )
    if not ran:
        raise _Refused("no RUN line that pipes llc into FileCheck could be run: nothing to generate checks from")
    return ran


def _describe(text: str) -> str:
    """llc's output in a few words, for a refusal."""
    said = [line.strip() for line in text.splitlines() if line.strip()]
    return f"its output starts {said[0][:60]!r}" if said else "its output is empty"


def _is_own_check(line: str, prefixes: set[str]) -> bool:
    return check_lines.directive(line, prefixes) is not None


def _rewrite(lines, opts: FileOptions, note, prefixes, run_list, bodies, labels) -> tuple[list[str], list[str]]:
    """The file with each function's checks regenerated right after its `define` line (after
    any comment lines there that are not our checks; blank lines there go). A function whose
    `define` line also closes it (`define void @f() { ret void }`) owns only the check lines
    right after it: the next function's lines stay the next function's. A function no RUN line
    printed code for (as llc's text names it) keeps the check lines it has: nothing replaces them."""
    out = [note]
    used: list[str] = []
    in_function = starting = one_line = kept = False
    label: str | None = None
    filtered = opts.first.filtered

    def checks() -> None:
        if label is not None:
            block, printed = layout.function_checks(run_list, bodies, label, filtered)
            out.extend(block)
            used.extend(printed)

    for line, line_opts in zip(lines, opts.lines):
        if line_opts is None:  # an old NOTE header
            continue
        if not line_opts.enabled:
            out.append(line)
            continue
        if starting:
            if line == "" and not one_line:
                continue
            if line.lstrip().startswith(";") and (kept or not _is_own_check(line, prefixes)):
                out.append(line)
                continue
            checks()
            starting = False
        if in_function:
            if not kept and (line.strip() in (";", ";.") or _is_own_check(line, prefixes)):
                continue
            if not one_line:
                out.append(line)
                in_function = line.strip() != "}"
                continue
            in_function = False  # (past a one-line function: this line is read afresh)
        out.append(line)
        name = _defined(line)
        if name is not None and (line_opts.function is None or name == line_opts.function):
            label = _label(labels, name)
            in_function = starting = True
            kept = label is None
            one_line = "{" in line and line.rstrip().endswith("}")
    if starting:  # (the file ends right after a function's define line)
        checks()
    return out, used


def _rewrite_checks_at_end(lines, opts: FileOptions, note, prefixes, run_list, bodies) -> tuple[list[str], set[str]]:
    """--include-generated-funcs: the test without old checks, then every function's checks."""
    out = [note]
    for line, line_opts in zip(lines, opts.lines):
        if line_opts is None:
            continue
        if line_opts.enabled and (
            line.strip() in (";", ";.") or (line.lstrip().startswith(";") and _is_own_check(line, prefixes))
        ):
            continue
        out.append(line)
    block, used = layout.checks_at_end(run_list, bodies, opts.first.filtered)
    return out + block, used


# ---- reading and writing -----------------------------------------------------------------------


MAX_TEST_BYTES = 256 << 20  # the largest LLVM test files are a few MB


def _read(path: Path) -> bytes:
    return files.read_input(path, MAX_TEST_BYTES, "test file")


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = len(_lines(data[: exc.start].decode("utf-8") + "x"))  # the line the bad byte is on
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", str(path), line) from None


def _newline(text: str, path: Path) -> str:
    r"""The line ending the regenerated file is written with. The update scripts (and so this
    regeneration) end a line at "\r\n", "\r" and "\n" alike; lit only at "\n". The file written
    must give lit the lines it read before, so:

    - LF and CRLF, in any mix: lit splits both at their "\n", so either ending keeps its lines;
      the one most lines end with is written (a tie: LF, as upstream writes), changing the
      fewest lines (a CRLF file stays CRLF, an LF file with a few CRLF lines becomes LF);
    - no "\n" at all (CR endings, or one line): the file's own ending; lit reads one line,
      before and after;
    - a lone CR where other lines end in "\n" is a line end to the update scripts and none to lit:
      written as "\n" it would split lit's line in two, written as "\r" every line would join
      into one for lit. No ending keeps both, so the file is refused (InputError at the CR)."""
    if "\n" not in text:
        return "\r" if "\r" in text else "\n"
    lone = re.search("\r(?!\n)", text)
    if lone:
        at = lone.start()
        line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        raise InputError(
            "a lone CR (\\r) among lines that end in LF: lit reads it inside this line, the update scripts as a "
            "line end, and no rewrite keeps both; give the file one kind of line ending first",
            str(path),
            line,
            col,
        )
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def _lines(text: str) -> list[str]:
    """The lines as upstream reads them: universal newlines, trailing whitespace stripped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


# ---- what changed ------------------------------------------------------------------------------


def _blocks(text: str, prefixes: set[str]) -> tuple[dict[tuple[str, str], list[str]], list[str]]:
    """Check blocks by (function, prefix): a LABEL line and the same prefix's lines after it;
    and the lines outside every block. The function is the label without what ends it (`name:`,
    NVPTX's `name(`)."""
    blocks: dict[tuple[str, str], list[str]] = {}
    rest: list[str] = []
    current: list[str] | None = None
    current_prefix = ""
    for line in text.splitlines():
        found = check_lines.directive(line, prefixes)
        if found:
            prefix, suffix, body = found
            if suffix == "-LABEL":
                label = body.strip()
                current = blocks.setdefault((label[:-1] if label.endswith((":", "(")) else label, prefix), [])
                current_prefix = prefix
                current.append(line)
                continue
            if current is not None and prefix == current_prefix:
                current.append(line)
                continue
        current = None
        rest.append(line)
    return blocks, rest


def _diff(before: list[str], after: list[str], label: str) -> str:
    return "\n".join(difflib.unified_diff(before, after, f"{label} (before)", f"{label} (after)", n=1, lineterm=""))


def _changes(path: Path, old: str, new: str, prefixes: set[str]) -> list[FunctionChange]:
    if old == new:
        return []
    old_blocks, old_rest = _blocks(old, prefixes)
    new_blocks, new_rest = _blocks(new, prefixes)
    out = []
    for key in [*new_blocks, *(k for k in old_blocks if k not in new_blocks)]:
        before, after = old_blocks.get(key, []), new_blocks.get(key, [])
        if before != after:
            out.append(FunctionChange(key[0], key[1], _diff(before, after, f"{path}: {key[0]} ({key[1]})")))
    if old_rest != new_rest:
        out.append(FunctionChange("", "", _diff(old_rest, new_rest, str(path))))
    return out
