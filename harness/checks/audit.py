"""`harness audit`: close any test file's llc output through the assembler, per function.

Each `llc` RUN line runs as written (triple, CPU, -O level, selector, other flags; opt or other
build tools before it too), except that llc writes text to stdout, with lit's substitutions made
from the file's own directory; a RUN line with a command that would write, edit or run anything
is not run (`autogen.guard`). Its text goes through the target's assembler — llvm-mc with the
RUN line's triple, CPU and features for AMDGPU, ptxas for the RUN line's SM (or the `.target`
llc wrote) for NVPTX — and every assembler error is mapped back to the function whose body holds the line
(quoted names included). A verdict is given only for a function llc printed code for: one the
text lacks is "not judged", an error no function holds is kept on the RUN line, and both keep
the file from passing; llc printing none of them, or an assembler that prints errors and exits
0, is no verdict at all (exit 2). A function whose existing CHECK lines (of that RUN line's
FileCheck prefixes) contain an instruction the assembler rejects *enshrines* the bug: a
CHECK-line regeneration would keep pinning it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.checks import check_lines
from harness.checks.autogen import guard
from harness.core import commands, files
from harness.core import verdicts as V
from harness.core.errors import InputError
from harness.targets import AMDGPU, NVPTX
from harness.tools import toolchain
from harness.tools.toolchain import Toolchain, ToolRun

# A definition: what precedes the name (linkage, calling convention...) and the name.
_DEFINE = re.compile(r'^define\b([^@\n]*)@("[^"\n]+"|[\w.$-]+)\(', re.M)
# A label of llc's text, plain or quoted (`"my-func":` for `@"my-func"`).
_ASM_LABEL = re.compile(r'^("(?:[^"\\\n]|\\.)+"|[A-Za-z_.$][\w.$]*):', re.M)
# A definition line: its name, and what follows the parameter list (attribute groups, inline attributes).
_DEFINE_LINE = re.compile(r'^define\b[^@]*@("[^"]+"|[\w.$-]+)\(.*\)([^()]*)\{\s*$', re.M)
_TRIPLE_IR = re.compile(r'^target\s+triple\s*=\s*"([^"]+)"', re.M)
_OUTPUT_FLAGS = re.compile(r"-{1,2}filetype=.*")
# The architectures of a triple whose text audit closes, and the target each one's text is for.
AUDITED = {"amdgcn": AMDGPU, "nvptx64": NVPTX, "nvptx": NVPTX}
# llc flags that make it write (or read) MIR instead of assembly: llvm-mc cannot judge that.
_MIR_FLAGS = re.compile(r"--?(stop-after|stop-before|run-pass|start-after|start-before)(=.*)?")


@dataclass
class FunctionAudit:
    """One function's verdict under one RUN line."""

    name: str
    verdict: V.VerdictCode
    message: str = ""
    checks_enshrine_reject: bool = False
    rejected_lines: list[str] = field(default_factory=list)

    def record(self) -> dict:
        return {
            "name": self.name,
            "verdict": self.verdict,
            "message": self.message,
            "checks_enshrine_reject": self.checks_enshrine_reject,
        }


@dataclass
class RunAudit:
    """One llc RUN line: its verdict per function, or why it was not run (`skipped`)."""

    line: int
    run_line: str
    functions: list[FunctionAudit] = field(default_factory=list)
    skipped: str = ""
    note: str = ""  # a problem outside any function (e.g. assembler errors in a section)
    unattributed: list[str] = field(default_factory=list)  # assembler errors no function owns
    unjudged: list[str] = field(default_factory=list)  # functions llc's text holds no code for

    @property
    def clean(self) -> bool:
        """Every function judged and passing, and no error left outside them."""
        return not self.unattributed and not self.unjudged and all(f.verdict == V.PASS for f in self.functions)

    def record(self) -> dict:
        out = {"line": self.line, "run_line": self.run_line, "functions": [f.record() for f in self.functions]}
        if self.skipped:
            out["skipped"] = self.skipped
        if self.note:
            out["note"] = self.note
        if self.unjudged:
            out["unjudged"] = self.unjudged
        return out


@dataclass
class FileAudit:
    path: str
    runs: list[RunAudit] = field(default_factory=list)
    error: str = ""  # the file cannot be compiled at all on this build: the tool's first lines

    @property
    def clean(self) -> bool:
        return not self.error and all(r.clean for r in self.runs)

    def record(self) -> dict:
        out: dict = {"path": self.path, "runs": [r.record() for r in self.runs]}
        if self.error:
            out["error"] = self.error
        return out


class NothingAudited(InputError):
    """A file none of whose RUN lines could be audited: skipped among others, bad input alone."""

    reason = ""  # why its first RUN line was not audited


MAX_TEST_BYTES = 256 << 20  # the largest LLVM test files are a few MB


def read_test(path: Path) -> str:
    """A test file's text: UTF-8, every RUN line short enough to split and all of them together
    too (commands.MAX_RUN_LINE, MAX_RUN_TEXT); exit 2 otherwise, at the RUN line past the limit."""
    data = files.read_input(path, MAX_TEST_BYTES, "test file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not UTF-8 text") from None
    runs = commands.run_lines(text)
    for run in runs:
        too_long = commands.run_line_too_long(run.text)
        if too_long:
            raise InputError(too_long, str(path), run.line, run.col)
    past = commands.run_text_too_long(runs)
    if past:
        raise InputError(past[1], str(path), past[0].line, past[0].col)
    return text


def audit_file(path: Path, tc: Toolchain) -> FileAudit:
    text = read_test(path)
    result = FileAudit(str(path))
    parsed = [(run, _split(run.text)) for run in commands.run_lines(text)]  # (each line split once)
    runs = [p for _, p in parsed if isinstance(p, commands.Pipeline)]
    subst = guard.substitutions(path)
    seen: dict[tuple, int] = {}  # an llc text already audited -> its RUN line
    for run, pipeline in parsed:
        audit = RunAudit(run.line, run.text)
        result.runs.append(audit)
        if isinstance(pipeline, commands.CommandSyntaxError):
            audit.skipped = f"{path}:{run.line}: {_split_error(run.text, str(pipeline))}"
            continue
        llc_at = next((i for i, c in enumerate(pipeline.commands) if c.tool == "llc"), None)
        if llc_at is None:
            if re.search(r"\bllc\b", run.text):
                audit.skipped = "llc inside %if ... %{ %} or another wrapper: not audited"
            else:
                result.runs.pop()  # not an llc RUN line: nothing to audit, nothing to say
            continue
        audit.skipped = _not_run(pipeline, llc_at)
        if audit.skipped:
            continue
        same = _text_key(pipeline, llc_at)
        if same in seen and _writes_object(pipeline.commands[llc_at]):  # (the text RUN line's code, once)
            audit.skipped = f"llc's object of the same run as line {seen[same]}: audited there"
            continue
        seen.setdefault(same, run.line)
        prefixes = _prefixes(pipeline.commands[llc_at + 1 :]) + _prefixes_of_output(pipeline.commands[llc_at], runs)
        try:
            pipeline = _substituted(pipeline, subst)
        except guard.Refused as exc:
            audit.skipped = str(exc)
            continue
        error = _audit_run(path, text, pipeline, llc_at, audit, tc, prefixes)
        if error and not result.error:
            result.error = error
    if not result.error and not any(r.functions or r.unjudged for r in result.runs):
        # A gate that checked nothing must not pass: bad input, like update-checks' refusals.
        reasons = [r.skipped for r in result.runs if r.skipped] or ["no llc RUN line"]
        why = "; ".join(f"line {r.line}: {r.skipped}" for r in result.runs if r.skipped) or reasons[0]
        nothing = NothingAudited(f"nothing audited ({_cut(why)})", str(path))
        nothing.reason = reasons[0]
        raise nothing
    return result


def _writes_object(llc: commands.Command) -> bool:
    return any(a in ("-filetype=obj", "--filetype=obj") for a in llc.args) or "obj" in llc.args


def _text_key(pipeline: commands.Pipeline, llc_at: int) -> tuple:
    """What decides the text an llc RUN line's audit reads: the commands before llc, llc's
    arguments but for its output, and its input."""
    llc = pipeline.commands[llc_at]
    return (tuple(c.text() for c in pipeline.commands[:llc_at]), tuple(_text_output(llc.args)), llc.stdin)


def _split(text: str) -> commands.Pipeline | commands.CommandSyntaxError:
    """A RUN line's commands, or why they cannot be split."""
    try:
        return commands.parse(text)
    except commands.CommandSyntaxError as exc:
        return exc


def _not_run(pipeline: commands.Pipeline, llc_at: int) -> str:
    """Why the llc of this RUN line is not audited ("" when it is)."""
    llc = pipeline.commands[llc_at]
    if llc.negated:
        return "llc is expected to fail here (not)"
    mir = next((a for a in llc.args if _MIR_FLAGS.fullmatch(a)), None)
    if mir:
        return f"llc writes MIR here ({mir}), not assembly: llvm-mc cannot judge it; not audited"
    return guard.writes(_text_output(llc.args))


def _substituted(pipeline: commands.Pipeline, subst: dict[str, str]) -> commands.Pipeline:
    """The RUN line with lit's substitutions made (guard.Refused for a test suite's own)."""
    return commands.Pipeline(tuple(guard.substituted(c, subst) for c in pipeline.commands))


def _cut(text: str, limit: int = 300) -> str:
    return " ".join(text.split()) if len(text) <= limit else " ".join(text.split())[:limit] + "..."


def _split_error(text: str, message: str) -> str:
    """Why lit's shell parser cannot split a RUN line, without the parser's internal errors
    (lit's lexer calls a `lit.util.warning` that the installed lit may not have)."""
    state, i = "", 0
    while i < len(text):
        c = text[i]
        if c == "\\" and state != "'":
            i += 1
            if i == len(text):
                return "the RUN line cannot be split (lit's shell parser): it ends in an escape (\\)"
        elif c in "\"'" and state in ("", c):
            state = "" if state == c else c
        i += 1
    if state:
        return f"the RUN line cannot be split (lit's shell parser): missing closing {state} quote"
    if "lit" in message and "attribute" in message:
        return "the RUN line cannot be split (lit's shell parser)"
    return message


def _prefixes_of_output(llc: commands.Command, runs: list[commands.Pipeline]) -> list[str]:
    """Prefixes of FileCheck commands on other RUN lines that read the file this llc writes
    (`llc ... -o %t.s` then `FileCheck --input-file=%t.s %s`, or `FileCheck %s < %t.s`)."""
    output = llc.stdout or _flag(llc.args, "o")
    if not output or output == "-":
        return []
    out = []
    for pipeline in runs:
        for cmd in pipeline.commands:
            if cmd.tool == "FileCheck" and output in (cmd.stdin, _flag(cmd.args, "input-file")):
                out.extend(commands.check_prefixes(cmd))
    return out


def _flags(args: tuple[str, ...], name: str) -> list[str]:
    """Every value of option `name` (`-name=V`, `--name=V`, `-name V`), in order."""
    out = []
    for i, arg in enumerate(args):
        if arg.startswith(f"-{name}=") or arg.startswith(f"--{name}="):
            out.append(arg.split("=", 1)[1])
        elif arg in (f"-{name}", f"--{name}") and i + 1 < len(args):
            out.append(args[i + 1])
    return out


def _flag(args: tuple[str, ...], name: str) -> str | None:
    """The last value of option `name` (the one llc keeps), or None."""
    values = _flags(args, name)
    return values[-1] if values else None


def _triple(args: tuple[str, ...], ir_triple: str | None) -> str:
    """The triple llc compiles for: -mtriple, else the IR's (with -march's architecture), else -march."""
    march = _flag(args, "march")
    explicit = _flag(args, "mtriple")
    if explicit:
        return explicit
    if ir_triple:
        return march + "-" + ir_triple.split("-", 1)[1] if march and "-" in ir_triple else march or ir_triple
    return march or ""


def _target_features(text: str, names: list[str]) -> dict[str, tuple[str, ...]]:
    """Function -> the "target-features" of its attributes (its own, or of an attribute group):
    llvm-mc has no per-function features, so each set is assembled with its own -mattr."""
    groups = {m.group(1): m.group(2) for m in re.finditer(r"^attributes #(\d+) = \{(.*)\}", text, re.M)}
    out = {}
    for m in _DEFINE_LINE.finditer(text):
        name = m.group(1).strip('"')
        if name not in names:
            continue
        attrs = m.group(2) + "".join(groups.get(g, "") for g in re.findall(r"#(\d+)", m.group(2)))
        found = re.findall(r'"target-features"="([^"]*)"', attrs)
        out[name] = tuple(sorted({f for value in found for f in value.split(",") if f}))
    return {n: out.get(n, ()) for n in names}


def defined(module: str) -> list[str]:
    """The functions a module defines that llc prints code for (quotes dropped from quoted
    names; `available_externally` bodies are not emitted)."""
    return [m.group(2).strip('"') for m in _DEFINE.finditer(module) if "available_externally" not in m.group(1)]


def _audit_run(
    path: Path,
    text: str,
    pipeline: commands.Pipeline,
    llc_at: int,
    audit: RunAudit,
    tc: Toolchain,
    prefixes: list[str],
) -> str:
    """Fill `audit` from a substituted RUN line; return a file-level error ("" when the file compiled)."""
    llc = pipeline.commands[llc_at]
    triple = _triple(llc.args, _first(_TRIPLE_IR.findall(text)))
    arch = triple.split("-")[0]
    cpu, mattr = _flag(llc.args, "mcpu"), [a for a in _flags(llc.args, "mattr") if a]
    audit.skipped = _cannot_audit(arch, triple)
    if audit.skipped:
        return ""
    target = AUDITED[arch]
    missing = _missing_target(arch, cpu, tc)
    if missing:
        audit.functions = [FunctionAudit(n, V.UNSUPPORTED, missing) for n in defined(text)]
        return ""
    source_path = os.path.abspath(path)
    source, audit.skipped = _llc_input(pipeline.commands[:llc_at], llc, source_path, tc)
    if audit.skipped:
        return ""
    names = defined(source)
    # llc reads the module on stdin (so a failing function can be cut out and the rest rerun).
    args = [a for a in _text_output(llc.args) if a != source_path]
    gen, decided, remaining, error = _compile(path, args, source, names, tc)
    if error or not names:
        audit.skipped = "" if error else "what llc reads here defines no function: nothing to audit"
        return error
    if remaining:
        remaining = _printed(path, target, gen, remaining, decided, audit)
    if remaining and target is NVPTX:
        # Without -mcpu, llc chose an SM; ptxas must assemble the text for the one it wrote.
        cpu = cpu or _first(re.findall(r"^\.target (sm_\w+)", gen.stdout, re.M))
        decided.update(_assemble_ptx(gen, remaining, cpu, audit, tc))
    elif remaining:
        # Without -mcpu, llc chose a CPU; the assembler must parse the text for that one.
        cpu = cpu or _first(re.findall(r'^\s*\.amdgcn_target "[^"]*--(gfx\w+)', gen.stdout, re.M))
        features = _target_features(source, remaining)
        for feature_set in sorted(set(features.values())):
            group = [n for n in remaining if features[n] == feature_set]
            decided.update(_assemble(gen, group, remaining, triple, cpu, ",".join([*mattr, *feature_set]), audit, tc))
    audit.functions = [decided[n] for n in names if n in decided]
    checks = check_lines.by_function(text, prefixes, names)
    for fa in audit.functions:
        fa.checks_enshrine_reject = check_lines.pinned(checks.get(fa.name, []), fa.rejected_lines)
    return ""


def _printed(path: Path, target, gen: ToolRun, remaining: list[str], decided: dict, audit: RunAudit) -> list[str]:
    """Of `remaining`, the functions llc printed code for; the others `no-code` (in llc's own
    text for the target) or not judged. Code for none of them, in other text, is no verdict."""
    printed = _labels(gen.stdout, remaining) if target is AMDGPU else set(V.split_functions(gen.stdout, set(remaining)))
    if target.text_marker.search(gen.stdout):  # llc's own text: what it left out is `no-code`
        why = "llc exited 0 and printed its text, but no code for this function"
        decided.update({n: FunctionAudit(n, V.NO_CODE, why) for n in remaining if n not in printed})
    if not printed and not decided:
        raise InputError(
            f"llc printed code for none of the {len(remaining)} function(s) it was given "
            f"({_describe(gen.stdout)}): no verdict comes from that",
            str(path),
            audit.line,
        )
    audit.unjudged = [n for n in remaining if n not in printed and n not in decided]
    return [n for n in remaining if n in printed]


def _cannot_audit(arch: str, triple: str) -> str:
    if arch == "r600":
        return "R600 text: llvm-mc cannot assemble it"
    if arch not in AUDITED:
        return f"not an AMDGPU or NVPTX RUN line (triple {triple or 'unknown'}): no assembler to close its text"
    return ""


def _missing_target(arch: str, cpu: str | None, tc: Toolchain) -> str:
    if arch not in tc.targets:
        return f"this LLVM build has no {arch} target"
    if cpu and cpu not in tc.cpus(arch):
        return f"this LLVM build does not know CPU {cpu}"
    return ""


def _compile(path: Path, args: list[str], source: str, names: list[str], tc: Toolchain):
    """llc over the module, a function it fails on cut out and the rest compiled again:
    (last run, verdicts decided so far, functions still to judge, file-level error)."""
    remaining = list(names)
    decided: dict[str, FunctionAudit] = {}
    while True:
        gen = tc.run("llc", args, source)
        if gen.ok:
            return gen, decided, remaining, ""
        if gen.timed_out:
            decided.update({n: FunctionAudit(n, V.TIMEOUT, "llc timed out") for n in remaining})
            return gen, decided, [], ""
        kind, fn, reason = V.llc_failure(gen.stderr, gen.returncode)
        failed: dict = {fn: (kind, reason)} if fn in remaining else {}
        if not failed:
            source, failed = _refused_by_verifier(gen.stderr, source, remaining, tc)
        if not failed:
            return gen, decided, [], f"llc cannot compile {path}: {_head(gen.stderr)}"
        for name, (kind, reason) in failed.items():
            decided[name] = FunctionAudit(name, kind, reason)
            remaining.remove(name)
        if not remaining:
            return gen, decided, [], ""
        source, problem = _without(source, list(failed), tc)
        if problem:
            decided.update({n: FunctionAudit(n, V.UNSUPPORTED, problem) for n in remaining})
            return gen, decided, [], ""


def _labels(asm: str, names: list[str]) -> set[str]:
    """The functions of `names` (IR spelling, quotes dropped) that llc's text has a label for."""
    found = {check_lines.asm_name_bytes(m.group(1)) for m in _ASM_LABEL.finditer(asm)}
    return {n for n in names if check_lines.ir_name_bytes(n) in found}


def _owners(asm: str, names: set[str]) -> dict[int, str]:
    """1-based line of llc's text -> the function of `names` whose body holds it: from its label
    (plain or quoted, in llc's spelling of the name) to the `.Lfunc_end` label after it."""
    by_label = {check_lines.ir_name_bytes(n): n for n in names}
    out: dict[int, str] = {}
    current = ""
    for number, line in enumerate(asm.splitlines(), 1):
        m = _ASM_LABEL.match(line)
        if m:
            label = check_lines.asm_name_bytes(m.group(1))
            if label in by_label:
                current = by_label[label]
            elif label.startswith(b".Lfunc_end"):
                current = ""
        if current:
            out[number] = current
    return out


def _describe(text: str) -> str:
    said = [line.strip() for line in text.splitlines() if line.strip()]
    return f"its output starts {said[0][:60]!r}" if said else "its output is empty"


def _llc_input(before: tuple[commands.Command, ...], llc: commands.Command, source_path: str, tc: Toolchain) -> tuple[str, str]:
    """(text llc reads, why not run): the test file, or what the commands before llc make of it
    (only what `guard` lets run: the build's tools, cat, read-only sed)."""
    if not before:
        return read_test(Path(llc.stdin if llc.stdin is not None else source_path)), ""
    is_llvm_tool = lambda name: name not in toolchain.EXTERNAL and bool(tc.tool(name))
    data = ""
    for cmd in before:
        why = guard.problem(cmd, is_llvm_tool)
        if why:
            return "", why
        stdin = read_test(Path(cmd.stdin)) if cmd.stdin is not None else data
        if cmd.tool == "sed":
            run = tc.run("sed", guard.sed_argv("", cmd.args)[1:], stdin)
        else:
            run = tc.run(cmd.tool, [*_text_output(cmd.args), "-S"] if cmd.tool == "opt" else list(cmd.args), stdin)
        if not run.ok:
            return "", f"{cmd.tool} failed before llc: {_head(run.stderr)}"
        data = run.stdout
    return data, ""


def _text_output(args: tuple[str, ...]) -> list[str]:
    """llc/opt arguments writing text to stdout: no -filetype, no -o FILE (either spelling)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-o", "--o", "-filetype", "--filetype"):
            skip = True
        elif not (arg.startswith(("-o=", "--o=")) or _OUTPUT_FLAGS.fullmatch(arg)):
            out.append(arg)
    return out


def _without(source: str, names: list[str], tc: Toolchain) -> tuple[str, str]:
    """The module without the functions `names` (llvm-extract --delete), to compile the others."""
    fns = ", ".join(names)
    if not tc.tool("llvm-extract"):
        return "", f"llc failed on {fns}; this build has no llvm-extract to compile the rest without it"
    run = tc.run("llvm-extract", ["--delete", *(f"--func={n}" for n in names), "-S", "-o", "-"], source)
    return (run.stdout, "") if run.ok else ("", f"llvm-extract cannot remove {fns}: {_head(run.stderr)}")


def _refused_by_verifier(stderr: str, source: str, names: list[str], tc: Toolchain) -> tuple[str, dict]:
    """(the module as the build prints it, function -> (verifier-reject, its message)) for each
    instruction the IR verifier printed that one of `names` holds, found by its text in the
    printed module (the verifier names no function; the test may spread a call over lines)."""
    if "cannot be verified" not in stderr and "is broken" not in stderr:
        return source, {}
    printed = tc.run("opt", ["-S", "-disable-verify"], source)
    if not printed.ok:
        return source, {}
    source = printed.stdout
    holders: dict[str, set[str]] = {}  # an instruction's text -> the functions that hold it
    current = ""
    for line in source.splitlines():
        m = _DEFINE.match(line)
        current = m.group(2).strip('"') if m else ("" if line.startswith("}") else current)
        if current in names and line.strip():
            holders.setdefault(line.strip(), set()).add(current)
    # Only a text one function alone holds names it: the same text in two is no attribution.
    where = {text: next(iter(fns)) for text, fns in holders.items() if len(fns) == 1}
    out: dict[str, tuple[V.VerdictCode, str]] = {}
    message = ""
    for line in stderr.splitlines():
        fn = where.get(line.strip())
        if fn and fn not in out:
            out[fn] = (V.VERIFIER_REJECT, message or "the IR verifier refused it")
        elif not line.startswith((" ", "\t")) and line.strip():
            message = line.strip()
    return source, out


def _assemble(
    gen: ToolRun, names: list[str], everyone: list[str], triple: str, cpu: str | None, mattr: str, audit: RunAudit, tc: Toolchain
) -> dict[str, FunctionAudit]:
    """Verdicts of `names` (the functions sharing one feature set) from llvm-mc over all of llc's
    text; errors in `everyone` else's functions are their own feature set's business."""
    mc_args = [
        f"-triple={triple}",
        *([f"-mcpu={cpu}"] if cpu else []),
        *([f"-mattr={mattr}"] if mattr else []),
        "-filetype=obj",
        "-o",
        "/dev/null",
    ]
    mc = tc.run("llvm-mc", mc_args, gen.stdout)
    if mc.timed_out:
        return {n: FunctionAudit(n, V.TIMEOUT, "llvm-mc timed out") for n in names}
    if mc.returncode is not None and mc.returncode < 0:
        return {n: FunctionAudit(n, V.CRASH, f"llvm-mc killed by signal {-mc.returncode}") for n in names}
    errors = V.located_errors(mc.stderr)
    if mc.ok and (errors or V.says_error(mc.stderr)):  # errors with success: no verdict
        raise InputError(f"{mc.argv[0]} exited 0 but printed errors: {_cut(V.first_error(mc.stderr), 200)}")
    if not mc.ok and not errors:
        if not mc.stderr.strip():
            raise InputError(f"{mc.argv[0]} exited {mc.returncode} and printed nothing: no verdict comes from it")
        why = f"llvm-mc failed without naming a line: {_head(mc.stderr)}"
        return {n: FunctionAudit(n, V.CRASH, why) for n in names}
    return _attribute(gen.stdout, errors, names, _owners(gen.stdout, set(everyone)), audit, "llvm-mc")


def _assemble_ptx(gen: ToolRun, names: list[str], cpu: str | None, audit: RunAudit, tc: Toolchain) -> dict[str, FunctionAudit]:
    """Verdicts of `names` from ptxas over llc's PTX, for the SM of the RUN line (or of the text)."""
    if not tc.tool("ptxas"):
        why = "no ptxas to close llc's text (set $PTXAS or put it on PATH)"
        return {n: FunctionAudit(n, V.UNSUPPORTED, why) for n in names}
    if not cpu:
        return {n: FunctionAudit(n, V.UNSUPPORTED, "llc's text names no .target SM for ptxas") for n in names}
    closing = NVPTX.closing(cpu, NVPTX.stdin_name)
    run = tc.run(closing.tool, list(closing.args), gen.stdout)
    if run.timed_out:
        return {n: FunctionAudit(n, V.TIMEOUT, "ptxas timed out") for n in names}
    if run.returncode is not None and run.returncode < 0:
        return {n: FunctionAudit(n, V.CRASH, f"ptxas killed by signal {-run.returncode}") for n in names}
    said = f"{run.stderr}\n{run.stdout}"  # (ptxas may print its errors on stdout)
    errors = V.located_errors(said)
    if run.ok and (errors or V.says_error(said)):  # errors with success: no verdict
        raise InputError(f"{run.argv[0]} exited 0 but printed errors: {_cut(V.first_error(said), 200)}")
    if not run.ok and not errors:
        # ptxas stopped before any line (an SM or PTX version it does not know): it cannot judge.
        why = f"ptxas cannot judge this text: {_cut(V.first_error(said) or _head(said), 200)}"
        return {n: FunctionAudit(n, V.UNSUPPORTED, why) for n in names}
    found = _attribute(gen.stdout, errors, names, V.asm_owners(gen.stdout, set(names)), audit, "ptxas")
    for fa in found.values():
        fa.message = f"ptxas: {fa.message}" if fa.message else ""
    return found


def _attribute(asm: str, errors, names: list[str], owners, audit: RunAudit, tool: str) -> dict[str, FunctionAudit]:
    """Each located assembler error charged to the function whose body holds its line (`owners`:
    line -> function); one that no function holds is kept on the RUN line (it keeps the audit
    from passing)."""
    asm_lines = asm.splitlines()
    out = {n: FunctionAudit(n, V.PASS) for n in names}
    for line, _, message in errors:
        fn = owners.get(line)
        instr = asm_lines[line - 1].strip() if 0 < line <= len(asm_lines) else ""
        if fn is None:
            if f"line {line}: {message}" not in audit.unattributed:
                audit.unattributed.append(f"line {line}: {message}")
            continue
        if fn not in out:
            continue
        fa = out[fn]
        if fa.verdict == V.PASS:
            fa.verdict, fa.message = V.MC_REJECT, f"{message}: {instr}" if instr else message
        fa.rejected_lines.append(instr)
    if audit.unattributed:
        audit.note = f"{tool} errors outside any function: " + "; ".join(audit.unattributed[:3])
    return out


def _prefixes(after: tuple[commands.Command, ...]) -> list[str]:
    return [p for c in after if c.tool == "FileCheck" for p in commands.check_prefixes(c)]


def _first(items: list[str]) -> str | None:
    return items[0] if items else None


def _head(stderr: str, lines: int = 3) -> str:
    kept = [l.strip() for l in stderr.splitlines() if l.strip()][:lines]
    return " | ".join(kept) or "no message"


def table(audits: list[FileAudit], skipped: list[NothingAudited] = ()) -> str:  # type: ignore[assignment]
    """One line per skipped file, RUN line and function that is not `pass`, then the counts."""
    out: list[str] = [f"{exc.path}: skipped: {exc.message}" for exc in skipped]
    counts: dict[V.VerdictCode, int] = {}
    for fa in audits:
        if fa.error:
            out.append(f"{fa.path}: ERROR {fa.error}")
        for run in fa.runs:
            where = f"{fa.path}:{run.line}"
            if run.skipped:
                out.append(f"{where}: skipped: {run.skipped}")
            if run.note:
                out.append(f"{where}: {run.note}")
            for f in run.functions:
                counts[f.verdict] = counts.get(f.verdict, 0) + 1
                if f.verdict != V.PASS:
                    tail = " [CHECK lines enshrine the rejected text]" if f.checks_enshrine_reject else ""
                    out.append(f"{where}: {f.name}: {f.verdict}: {f.message}{tail}")
            out.extend(f"{where}: {name}: not judged: llc's text holds no code for it" for name in run.unjudged)
    unjudged = sum(len(r.unjudged) for fa in audits for r in fa.runs)
    parts = [f"{counts[v]} {v}" for v in V.ALL if v in counts] + ([f"{unjudged} not judged"] if unjudged else [])
    summary = ", ".join(parts) or "no llc RUN line audited"
    return "\n".join(out + [f"{len(audits)} file(s): {summary}" + _skipped_summary(skipped)])


def _skipped_summary(skipped) -> str:
    """`; N file(s) skipped (why: n, ...)`: each file's first reason, counted."""
    if not skipped:
        return ""
    reasons: dict[str, int] = {}
    for exc in skipped:
        reasons[exc.reason] = reasons.get(exc.reason, 0) + 1
    return f"; {len(skipped)} file(s) skipped (" + ", ".join(f"{why}: {n}" for why, n in reasons.items()) + ")"
