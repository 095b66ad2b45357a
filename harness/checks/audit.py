"""`harness audit`: close any test file's llc output through the assembler, per function.

Each `llc` RUN line runs as written (triple, CPU, -O level, selector, other flags; opt or other
build tools before it too), except that llc writes text to stdout. Its text goes through
llvm-mc with the RUN line's triple, CPU and features, and every assembler error is mapped back
to the function whose body holds the line. A function whose existing CHECK lines (of that RUN
line's FileCheck prefixes) contain an instruction the assembler rejects *enshrines* the bug: a
CHECK-line regeneration would keep pinning it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness import files
from harness.checks import check_lines
from harness.errors import InputError
from harness.tools import commands, toolchain
from harness.tools import verdicts as V
from harness.tools.toolchain import Toolchain, ToolRun

_DEFINE = re.compile(r'^define\b[^@]*@("[^"]+"|[\w.$-]+)\(', re.M)
# A definition line: its name, and what follows the parameter list (attribute groups, inline attributes).
_DEFINE_LINE = re.compile(r'^define\b[^@]*@("[^"]+"|[\w.$-]+)\(.*\)([^()]*)\{\s*$', re.M)
_TRIPLE_IR = re.compile(r'^target\s+triple\s*=\s*"([^"]+)"', re.M)
_OUTPUT_FLAGS = re.compile(r"-{1,2}filetype=.*")
AMDGPU_ARCHES = ("amdgcn", "r600")
# llc flags that make it write (or read) MIR instead of assembly: llvm-mc cannot judge that.
_MIR_FLAGS = re.compile(r"--?(stop-after|stop-before|run-pass|start-after|start-before)(=.*)?")
# Text tools LLVM's tests put before llc (`sed 's/ADDR/1/' %s | llc ...`), taken from PATH.
TEXT_TOOLS = ("sed", "cat")


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

    def record(self) -> dict:
        out = {"line": self.line, "run_line": self.run_line, "functions": [f.record() for f in self.functions]}
        if self.skipped:
            out["skipped"] = self.skipped
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class FileAudit:
    path: str
    runs: list[RunAudit] = field(default_factory=list)
    error: str = ""  # the file cannot be compiled at all on this build: the tool's first lines

    @property
    def clean(self) -> bool:
        return not self.error and all(f.verdict == V.PASS for r in self.runs for f in r.functions)

    def record(self) -> dict:
        out: dict = {"path": self.path, "runs": [r.record() for r in self.runs]}
        if self.error:
            out["error"] = self.error
        return out


MAX_TEST_BYTES = 256 << 20  # the largest LLVM test files are a few MB


def read_test(path: Path) -> str:
    data = files.read_input(path, MAX_TEST_BYTES, "test file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{line}: not UTF-8 text") from None


def audit_file(path: Path, tc: Toolchain) -> FileAudit:
    text = read_test(path)
    result = FileAudit(str(path))
    names = [n.strip('"') for n in _DEFINE.findall(text)]
    runs = []
    for run in commands.run_lines(text):
        try:
            runs.append(commands.parse(run.text))
        except commands.CommandSyntaxError:
            pass
    for run in commands.run_lines(text):
        audit = RunAudit(run.line, run.text)
        result.runs.append(audit)
        try:
            pipeline = commands.parse(run.text)
        except commands.CommandSyntaxError as exc:
            audit.skipped = f"{path}:{run.line}: {_split_error(run.text, str(exc))}"
            continue
        llc_at = next((i for i, c in enumerate(pipeline.commands) if c.tool == "llc"), None)
        if llc_at is None:
            if re.search(r"\bllc\b", run.text):
                audit.skipped = "llc inside %if ... %{ %} or another wrapper: not audited"
            else:
                result.runs.pop()  # not an llc RUN line: nothing to audit, nothing to say
            continue
        if pipeline.commands[llc_at].negated:
            audit.skipped = "llc is expected to fail here (not)"
            continue
        mir = next((a for a in pipeline.commands[llc_at].args if _MIR_FLAGS.fullmatch(a)), None)
        if mir:
            audit.skipped = f"llc writes MIR here ({mir}), not assembly: llvm-mc cannot judge it; not audited"
            continue
        prefixes = _prefixes(pipeline.commands[llc_at + 1 :]) + _prefixes_of_output(pipeline.commands[llc_at], runs)
        error = _audit_run(path, text, names, pipeline, llc_at, audit, tc, prefixes)
        if error and not result.error:
            result.error = error
    if not result.error and not any(r.functions for r in result.runs):
        # A gate that checked nothing must not pass: bad input, like update-checks' refusals.
        why = "; ".join(f"line {r.line}: {r.skipped}" for r in result.runs if r.skipped) or "no llc RUN line"
        raise InputError(f"nothing audited ({_cut(why)})", str(path))
    return result


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


def _audit_run(
    path: Path,
    text: str,
    names: list[str],
    pipeline: commands.Pipeline,
    llc_at: int,
    audit: RunAudit,
    tc: Toolchain,
    prefixes: list[str],
) -> str:
    """Fill `audit`; return a file-level error ("" when the file compiled)."""
    subst = {"%s": str(path)}
    llc = pipeline.commands[llc_at].substitute(subst)
    triple = _triple(llc.args, _first(_TRIPLE_IR.findall(text)))
    arch = triple.split("-")[0]
    if arch == "r600":
        audit.skipped = "R600 text: llvm-mc cannot assemble it"
        return ""
    if arch not in AMDGPU_ARCHES:
        audit.skipped = f"not an AMDGPU RUN line (triple {triple or 'unknown'}); audit closes AMDGPU output only"
        return ""
    cpu, mattr = _flag(llc.args, "mcpu"), [a for a in _flags(llc.args, "mattr") if a]
    if arch not in tc.targets:
        audit.functions = [FunctionAudit(n, V.UNSUPPORTED, f"this LLVM build has no {arch} target") for n in names]
        return ""
    if cpu and cpu not in tc.cpus(arch):
        audit.functions = [FunctionAudit(n, V.UNSUPPORTED, f"this LLVM build does not know CPU {cpu}") for n in names]
        return ""
    source, problem = _llc_input(pipeline.commands[:llc_at], llc, subst, tc)
    if problem:
        audit.skipped = problem
        return ""
    # llc reads the module on stdin (so a failing function can be cut out and the rest rerun).
    args = [a for a in _text_output(llc.args) if a != subst["%s"]]
    remaining, decided = list(names), {}
    while True:
        gen = tc.run("llc", args, source)
        if gen.ok:
            break
        if gen.timed_out:
            decided.update({n: FunctionAudit(n, V.TIMEOUT, "llc timed out") for n in remaining})
            remaining = []
            break
        kind, fn, reason = V.llc_failure(gen.stderr)
        if fn not in remaining:
            return f"llc cannot compile {path}: {_head(gen.stderr)}"
        decided[fn] = FunctionAudit(fn, kind, reason)
        remaining.remove(fn)
        if not remaining:
            break
        source, problem = _without(source, fn, tc)
        if problem:
            decided.update({n: FunctionAudit(n, V.UNSUPPORTED, problem) for n in remaining})
            remaining = []
            break
    if remaining:
        # Without -mcpu, llc chose a CPU; the assembler must parse the text for that one.
        cpu = cpu or _first(re.findall(r'^\s*\.amdgcn_target "[^"]*--(gfx\w+)', gen.stdout, re.M))
        features = _target_features(text, remaining)
        for feature_set in sorted(set(features.values())):
            group = [n for n in remaining if features[n] == feature_set]
            decided.update(_assemble(gen, group, remaining, triple, cpu, ",".join([*mattr, *feature_set]), audit, tc))
    audit.functions = [decided[n] for n in names if n in decided]
    checks = check_lines.by_function(text, prefixes, names)
    for fa in audit.functions:
        fa.checks_enshrine_reject = any(check_lines.pins(c, line) for c in checks.get(fa.name, []) for line in fa.rejected_lines)
    return ""


def _llc_input(before: tuple[commands.Command, ...], llc: commands.Command, subst: dict, tc: Toolchain) -> tuple[str, str]:
    """(text llc reads, problem): the test file, or what the commands before llc make of it."""
    if not before:
        return read_test(Path(llc.stdin if llc.stdin is not None else subst["%s"])), ""
    data = ""
    for cmd in before:
        cmd = cmd.substitute(subst)
        stdin = read_test(Path(cmd.stdin)) if cmd.stdin is not None else data
        if tc.tool(cmd.tool) and (cmd.tool in TEXT_TOOLS or cmd.tool not in toolchain.EXTERNAL):
            run = tc.run(cmd.tool, [*_text_output(cmd.args), "-S"] if cmd.tool == "opt" else list(cmd.args), stdin)
        else:
            return (
                "",
                f"the RUN line runs {cmd.tool!r} before llc, which is neither in the LLVM build nor one of {', '.join(TEXT_TOOLS)}",
            )
        if not run.ok:
            return "", f"{cmd.tool} failed before llc: {_head(run.stderr)}"
        data = run.stdout
    return data, ""


def _text_output(args: tuple[str, ...]) -> list[str]:
    """llc/opt arguments writing text to stdout: no -filetype, no -o FILE."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-o":
            skip = True
        elif not (arg.startswith("-o=") or _OUTPUT_FLAGS.fullmatch(arg)):
            out.append(arg)
    return out


def _without(source: str, fn: str, tc: Toolchain) -> tuple[str, str]:
    """The module without `fn` (llvm-extract --delete), to compile the other functions."""
    if not tc.tool("llvm-extract"):
        return "", f"llc failed on {fn}; this build has no llvm-extract to compile the rest without it"
    run = tc.run("llvm-extract", ["--delete", f"--func={fn}", "-S", "-o", "-"], source)
    return (run.stdout, "") if run.ok else ("", f"llvm-extract cannot remove {fn}: {_head(run.stderr)}")


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
    asm_lines = gen.stdout.splitlines()
    owners = V.asm_owners(gen.stdout, set(everyone))
    out = {n: FunctionAudit(n, V.PASS) for n in names}
    stray = []
    for line, _, message in V.located_errors(mc.stderr):
        fn = owners.get(line)
        instr = asm_lines[line - 1].strip() if 0 < line <= len(asm_lines) else ""
        if fn is None:
            stray.append(f"line {line}: {message}")
            continue
        if fn not in out:
            continue
        fa = out[fn]
        if fa.verdict == V.PASS:
            fa.verdict, fa.message = V.MC_REJECT, f"{message}: {instr}" if instr else message
        fa.rejected_lines.append(instr)
    if not mc.ok and not V.located_errors(mc.stderr):
        stray.append(_head(mc.stderr) or f"llvm-mc exited {mc.returncode} without a located error")
    if stray and not audit.note:
        audit.note = "llvm-mc errors outside any function: " + "; ".join(stray[:3])
    return out


def _prefixes(after: tuple[commands.Command, ...]) -> list[str]:
    return [p for c in after if c.tool == "FileCheck" for p in commands.check_prefixes(c)]


def _first(items: list[str]) -> str | None:
    return items[0] if items else None


def _head(stderr: str, lines: int = 3) -> str:
    kept = [l.strip() for l in stderr.splitlines() if l.strip()][:lines]
    return " | ".join(kept) or "no message"


def table(audits: list[FileAudit]) -> str:
    """One line per RUN line and function that is not `pass`, then the counts."""
    out: list[str] = []
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
    summary = ", ".join(f"{counts[v]} {v}" for v in V.ALL if v in counts) or "no llc RUN line audited"
    return "\n".join(out + [f"{len(audits)} file(s): {summary}"])
