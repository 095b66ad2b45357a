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
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from harness import commands, verdicts as V
from harness.errors import InputError
from harness.toolchain import Toolchain, ToolRun, run_tool

_DEFINE = re.compile(r'^define\b[^@]*@("[^"]+"|[\w.$-]+)\(', re.M)
_TRIPLE_IR = re.compile(r'^target\s+triple\s*=\s*"([^"]+)"', re.M)
_CHECK_LINE = re.compile(r"^\s*;\s*([\w-]+?)(-NEXT|-SAME|-DAG|-LABEL|-NOT|-EMPTY)?:(.*)$")
_OUTPUT_FLAGS = re.compile(r"-{1,2}filetype=.*")
AMDGPU_ARCHES = ("amdgcn", "r600")
# Text tools LLVM's tests put before llc (`sed 's/ADDR/1/' %s | llc ...`), taken from PATH.
TEXT_TOOLS = ("sed", "cat")


@dataclass
class FunctionAudit:
    """One function's verdict under one RUN line."""

    name: str
    verdict: str
    message: str = ""
    checks_enshrine_reject: bool = False
    rejected_lines: list[str] = field(default_factory=list)

    def record(self) -> dict:
        return {"name": self.name, "verdict": self.verdict, "message": self.message,
                "checks_enshrine_reject": self.checks_enshrine_reject}


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


def read_test(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
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
            audit.skipped = f"{path}:{run.line}: {exc}"
            continue
        llc_at = next((i for i, c in enumerate(pipeline.commands) if c.tool == "llc"), None)
        if llc_at is None:
            result.runs.pop()  # not an llc RUN line: nothing to audit, nothing to say
            continue
        if pipeline.commands[llc_at].negated:
            audit.skipped = "llc is expected to fail here (not)"
            continue
        prefixes = _prefixes(pipeline.commands[llc_at + 1:]) + _prefixes_of_output(pipeline.commands[llc_at], runs)
        error = _audit_run(path, text, names, pipeline, llc_at, audit, tc, prefixes)
        if error and not result.error:
            result.error = error
    return result


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


def _flag(args: tuple[str, ...], name: str) -> str | None:
    for i, arg in enumerate(args):
        if arg.startswith(f"-{name}=") or arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
        if arg in (f"-{name}", f"--{name}") and i + 1 < len(args):
            return args[i + 1]
    return None


def _audit_run(path: Path, text: str, names: list[str], pipeline: commands.Pipeline, llc_at: int,
               audit: RunAudit, tc: Toolchain, prefixes: list[str]) -> str:
    """Fill `audit`; return a file-level error ("" when the file compiled)."""
    subst = {"%s": str(path)}
    llc = pipeline.commands[llc_at].substitute(subst)
    triple = _flag(llc.args, "mtriple") or _flag(llc.args, "march") or _first(_TRIPLE_IR.findall(text)) or ""
    arch = triple.split("-")[0]
    if arch not in AMDGPU_ARCHES:
        audit.skipped = f"not an AMDGPU RUN line (triple {triple or 'unknown'}); audit closes AMDGPU output only"
        return ""
    cpu, mattr = _flag(llc.args, "mcpu"), _flag(llc.args, "mattr")
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
        decided.update(_assemble(gen, remaining, triple, cpu, mattr, audit, tc))
    audit.functions = [decided[n] for n in names if n in decided]
    checks = _checks_by_function(text, prefixes, names)
    for fa in audit.functions:
        fa.checks_enshrine_reject = any(_enshrines(c, line) for c in checks.get(fa.name, []) for line in fa.rejected_lines)
    return ""


def _llc_input(before: tuple[commands.Command, ...], llc: commands.Command, subst: dict, tc: Toolchain) -> tuple[str, str]:
    """(text llc reads, problem): the test file, or what the commands before llc make of it."""
    if not before:
        return read_test(Path(llc.stdin if llc.stdin is not None else subst["%s"])), ""
    data = ""
    for cmd in before:
        cmd = cmd.substitute(subst)
        stdin = read_test(Path(cmd.stdin)) if cmd.stdin is not None else data
        if tc.tool(cmd.tool):
            run = tc.run(cmd.tool, [*_text_output(cmd.args), "-S"] if cmd.tool == "opt" else list(cmd.args), stdin)
        elif cmd.tool in TEXT_TOOLS and shutil.which(cmd.tool):
            run = run_tool([shutil.which(cmd.tool) or cmd.tool, *cmd.args], stdin, tc.timeout)
        else:
            return "", f"the RUN line runs {cmd.tool!r} before llc, which is neither in the LLVM build nor one of {', '.join(TEXT_TOOLS)}"
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


def _assemble(gen: ToolRun, names: list[str], triple: str, cpu: str | None, mattr: str | None,
              audit: RunAudit, tc: Toolchain) -> dict[str, FunctionAudit]:
    mc_args = [f"-triple={triple}", *([f"-mcpu={cpu}"] if cpu else []), *([f"-mattr={mattr}"] if mattr else []),
               "-filetype=obj", "-o", "/dev/null"]
    mc = tc.run("llvm-mc", mc_args, gen.stdout)
    if mc.timed_out:
        return {n: FunctionAudit(n, V.TIMEOUT, "llvm-mc timed out") for n in names}
    if mc.returncode is not None and mc.returncode < 0:
        return {n: FunctionAudit(n, V.CRASH, f"llvm-mc killed by signal {-mc.returncode}") for n in names}
    asm_lines = gen.stdout.splitlines()
    owners = V.asm_owners(gen.stdout, set(names))
    out = {n: FunctionAudit(n, V.PASS) for n in names}
    stray = []
    for line, _, message in V.located_errors(mc.stderr):
        fn = owners.get(line)
        instr = asm_lines[line - 1].strip() if 0 < line <= len(asm_lines) else ""
        if fn is None:
            stray.append(f"line {line}: {message}")
            continue
        fa = out[fn]
        if fa.verdict == V.PASS:
            fa.verdict, fa.message = V.MC_REJECT, f"{message}: {instr}" if instr else message
        fa.rejected_lines.append(instr)
    if not mc.ok and not stray and all(f.verdict == V.PASS for f in out.values()):
        stray.append(_head(mc.stderr) or f"llvm-mc exited {mc.returncode} without a located error")
    if stray:
        audit.note = "llvm-mc errors outside any function: " + "; ".join(stray[:3])
    return out


def _prefixes(after: tuple[commands.Command, ...]) -> list[str]:
    return [p for c in after if c.tool == "FileCheck" for p in commands.check_prefixes(c)]


def _checks_by_function(text: str, prefixes: list[str], names: list[str]) -> dict[str, list[str]]:
    """Function -> the bodies of its CHECK lines of `prefixes`: a block starts at a -LABEL line
    naming the function (update_llc_test_checks puts it after `define`; hand-written tests often
    before) and runs to the next -LABEL of the same prefixes."""
    wanted, known = set(prefixes), set(names)
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = _CHECK_LINE.match(line)
        if not m or m.group(1) not in wanted or m.group(2) == "-NOT":
            continue  # a -NOT line forbids the text; it does not pin it
        body = m.group(3).strip()
        if m.group(2) == "-LABEL":
            label = re.sub(r"\{\{[^}]*\}\}", "", body).strip().rstrip(":").lstrip("@")
            current = label if label in known else None
            continue
        if current:
            out.setdefault(current, []).append(body)
    return out


def _enshrines(check: str, instruction: str) -> bool:
    """Does a CHECK line pin this rejected instruction? It must match it, name its mnemonic and
    spell out at least one of its register ranges (`[2:9]`): a pattern that admits any tuple
    width — like the semantic checks of generated files — pins nothing the assembler rejects."""
    mnemonic = instruction.split(" ", 1)[0]
    if not mnemonic or mnemonic not in check:
        return False
    if not any(r in check for r in re.findall(r"\[\d+:\d+\]", instruction)):
        return False
    try:
        return re.search(_pattern(check), " ".join(instruction.split())) is not None
    except re.error:  # a FileCheck regex Python cannot read: compare the literal text instead
        return " ".join(check.split()) in " ".join(instruction.split())


def _pattern(check: str) -> str:
    """A FileCheck pattern as a Python regex: {{re}} kept, [[VAR:re]] as (re), [[VAR]] loosened;
    runs of whitespace match one space (instructions are compared with single spaces)."""
    out, literal, i = [], [], 0
    while i < len(check):
        if check.startswith("{{", i):
            end = check.find("}}", i + 2)
            if end >= 0:
                out.append(_literal("".join(literal)) + f"(?:{check[i + 2:end]})")
                literal, i = [], end + 2
                continue
        if check.startswith("[[", i):
            end = _variable_end(check, i + 2)
            if end >= 0:
                inner = check[i + 2:end]
                regex = inner.split(":", 1)[1] if ":" in inner and not inner.startswith("#") else ""
                out.append(_literal("".join(literal)) + (f"(?:{regex})" if regex else ".*?"))
                literal, i = [], end + 2
                continue
        literal.append(check[i])
        i += 1
    out.append(_literal("".join(literal)))
    return "".join(out)


def _literal(text: str) -> str:
    return re.escape(re.sub(r"\s+", " ", text))


def _variable_end(check: str, start: int) -> int:
    """Index of the `]]` closing a `[[` variable, skipping `]` of bracket expressions in its regex."""
    depth, i = 0, start
    while i < len(check):
        c = check[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            if depth == 0 and check.startswith("]]", i):
                return i
            depth = max(depth - 1, 0)
        i += 1
    return -1


def _first(items: list[str]) -> str | None:
    return items[0] if items else None


def _head(stderr: str, lines: int = 3) -> str:
    kept = [l.strip() for l in stderr.splitlines() if l.strip()][:lines]
    return " | ".join(kept) or "no message"


def table(audits: list[FileAudit]) -> str:
    """One line per RUN line and function that is not `pass`, then the counts."""
    out, counts = [], {}
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
