"""Turn what the tools printed into per-function verdicts.

Pure functions over tool output: no processes here, so every rule is testable on real output
captured from the tools.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # catalog imports (through the targets) what imports this module
    from harness.targets.catalog import Side


class VerdictCode(StrEnum):
    """The one set of verdicts, in table order; each member is its JSON and text spelling.

    How llc ends decides between four of them: `cannot-select`, the selector gave up with a fatal
    error that names the selection (SelectionDAG's "Cannot select", GlobalISel's "cannot
    select", "unable to legalize", "unable to translate"; whatever the exit status); `llc-reject`,
    a clean diagnostic (an `error:` line, a non-zero exit, no signal, no `LLVM ERROR`); `no-code`,
    llc exited 0 and printed its text but no code for the function; `crash`, anything else (a
    signal, an assertion, a register-allocation failure, another fatal error). Of code llc
    printed: `miscompile`, the instruction is the row's but a constant operand's value is not
    what the IR gave, in llc's text, llc's object or the assembler's object of the text (worse
    than `mc-reject`: nothing rejects it); `mc-reject`, the assembler refused the text;
    `wrong-shape`, another instruction or other register widths."""

    PASS = "pass"
    MISCOMPILE = "miscompile"
    MC_REJECT = "mc-reject"
    WRONG_SHAPE = "wrong-shape"
    NO_CODE = "no-code"
    CANNOT_SELECT = "cannot-select"
    LLC_REJECT = "llc-reject"
    VERIFIER_REJECT = "verifier-reject"
    CRASH = "crash"
    TIMEOUT = "timeout"
    UNSUPPORTED = "unsupported"


# The members under their module-level names (`verdicts.PASS`), as the harness spells them.
PASS = VerdictCode.PASS
MISCOMPILE = VerdictCode.MISCOMPILE
MC_REJECT = VerdictCode.MC_REJECT
WRONG_SHAPE = VerdictCode.WRONG_SHAPE
NO_CODE = VerdictCode.NO_CODE
CANNOT_SELECT = VerdictCode.CANNOT_SELECT
LLC_REJECT = VerdictCode.LLC_REJECT
VERIFIER_REJECT = VerdictCode.VERIFIER_REJECT
CRASH = VerdictCode.CRASH
TIMEOUT = VerdictCode.TIMEOUT
UNSUPPORTED = VerdictCode.UNSUPPORTED
ALL: tuple[VerdictCode, ...] = tuple(VerdictCode)


@dataclass
class Verdict:
    """What the tools said about one case under one selector: the code (`VerdictCode`), the one
    line that justifies it (`detail`, the tool's own message), the tool runs it came from, and
    structured facts (`details`: metrics, tuples, what the opt pipeline made of the sources,
    verifier facts). Made only from tool output that was checked to make sense."""

    verdict: VerdictCode
    detail: str = ""
    tools: list = field(default_factory=list)  # ToolRun records that justify it
    details: dict = field(default_factory=dict)  # structured facts: metrics, tuples, ir, ...


_CALL_RESULT = re.compile(r"^\s+%r\.([-\w.$]+) = call ")  # (IR names may hold -)
# A value the verifier prints after its message: "i32 0", "<4 x i32> %b", "i32 %fa".
_VALUE = re.compile(r"^(i\d+|<\d+ x [\w ]+>|half|bfloat|float|double|ptr)( |$)")
# `<stdin>:L:C: error: ...` as llvm-mc prints it; llc, opt and llvm-as put their own path (and
# `error:`) in front: `/bin/llc: error: /bin/llc: <stdin>:2:7: error: ...`.
_LOCATED_ERROR = re.compile(r"(?:^|:\s)(?:<stdin>|[^:\s]+):(\d+):(\d+): error: (.*)$")
# A line that says error or fatal as a word (ptxas: `ptxas fatal   :`), not inside a path.
_ERROR_WORD = re.compile(r"\b(?:error|fatal)\s*:", re.I)
# ptxas: `ptxas /tmp/x.ptx, line 37; error   : Feature '.bf16' requires .target sm_80 or higher`.
_PTXAS_ERROR = re.compile(r"^ptxas .*, line (\d+); (?:error|fatal)\s*: (.*)$")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")
# Where a function starts: an llc label, an llvm-objdump header, an IR definition, or a PTX
# function (`.visible .func (.param ...) name(`, `.visible .entry name(`).
_FUNCTION_START = re.compile(
    r"^(?:([A-Za-z_$][\w.$]*):|[0-9a-f]+ <([\w.$]+)>:|define [^@]*@([\w.$]+)\("
    r"|(?:\.(?:visible|weak)\s+)?\.(?:func|entry)\s+(?:\([^)]*\)\s*)?([\w.$]+)\()"
)
_PTX_FUNCTION = (".visible", ".weak", ".func", ".entry")


def first_error(text: str) -> str:
    """The first line of a tool's output that says error (or fatal, as ptxas does), else its
    first line: the one line a verdict's detail or a refusal quotes."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if _ERROR_WORD.search(line)]
    return (errors or lines or [""])[0]


def fatal(text: str) -> bool:
    """Whether a tool's output says `fatal` as a word (ptxas: `ptxas fatal   : ...`)."""
    return any(re.search(r"\bfatal\s*:", line, re.I) for line in text.splitlines())


_SAYS_ERROR = re.compile(r"(?:^|[:;]\s*)(?:error|LLVM ERROR)\b", re.M)


def says_error(text: str) -> bool:
    """Whether a tool's output reports an error: `LLVM ERROR: ...`, `<stdin>:3:1: error: ...`,
    ptxas's `...line 20; error   : ...` or `fatal   : ...` (a tool that exits 0 having said so
    gives no verdict)."""
    return bool(_SAYS_ERROR.search(text)) or fatal(text)


def verifier_diagnostics(stderr: str) -> dict[str, str]:
    """Function -> verifier diagnostic, for each call the verifier printed.

    A diagnostic is a message line, then the offending instruction and the values it names
    (some checks print a value before the instruction); the instruction's result name
    `%r.<function>` says which case it is.
    """
    lines = stderr.splitlines()
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        m = _CALL_RESULT.match(line)
        if not m:
            continue
        start = i
        while start > 0 and _VALUE.match(lines[start - 1]):
            start -= 1
        if start > 0 and not _CALL_RESULT.match(lines[start - 1]):
            start -= 1  # the message
        stop = i + 1
        while stop < len(lines) and _VALUE.match(lines[stop]):
            stop += 1
        found.setdefault(m.group(1), "\n".join(lines[start:stop]))
    return found


# A declaration the verifier names after its message: `ptr @llvm.nvvm...` (typed pointers
# before LLVM 15: `{ float, ... } (i32, ...)* @llvm.nvvm...`).
_DECLARATION = re.compile(r"^(?:ptr|.*\)\*) @([-\w.$]+)$")


def declaration_diagnostics(stderr: str) -> dict[str, str]:
    """Intrinsic -> the verifier's diagnostic, for each declaration the verifier rejected (a
    signature the intrinsic does not have: every call of it is rejected with it)."""
    lines = stderr.splitlines()
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        m = _DECLARATION.match(line)
        if m and i > 0 and not _DECLARATION.match(lines[i - 1]):
            found.setdefault(m.group(1), f"{lines[i - 1]}\n{line}")
    return found


def diagnostic_parts(diagnostic: str) -> dict:
    """Split a verifier diagnostic into its message, the call, and the values printed with it."""
    lines = diagnostic.splitlines()
    call = next((l.strip() for l in lines if _CALL_RESULT.match(l)), "")
    values = [l for l in lines if _VALUE.match(l)]
    message = next((l for l in lines if not _VALUE.match(l) and not _CALL_RESULT.match(l)), "")
    return {"message": message, "call": call, "values": values}


def located_errors(stderr: str) -> list[tuple[int, int, str]]:
    """(line, column, message) for each `file:line:col: error:` a tool printed."""
    out = []
    for line in stderr.splitlines():
        m = _LOCATED_ERROR.search(line.strip())
        if m:
            out.append((int(m.group(1)), int(m.group(2)), m.group(3)))
        elif m := _PTXAS_ERROR.match(line.strip()):
            out.append((int(m.group(1)), 0, m.group(2).strip()))
    return out


# Lines that can open or close a function in llc's text: labels, PTX function headers, ends.
# Every other line only continues what it is in, so a pass visits these alone.
# (Matched with the newline before them, over the text behind a newline: a literal first
# character lets the regex engine skip ahead, where `^` would try every position.)
_OWNER_BOUNDARY = re.compile(r"\n((?:[A-Za-z_.$][\w.$]*:|\.Lfunc_end|\}|\.(?:visible|weak|func|entry))[^\n]*)")


class LineOwners:
    """1-based line of llc's text -> the function whose body holds it (`get`, None outside)."""

    def __init__(self, spans: list[tuple[int, int, str]], marks: list[tuple[int, int]] | None = None):
        self._spans = spans  # (first line, last line, function), in order
        self._starts = [first for first, _, _ in spans]
        self._marks = marks or [(1, 0)]  # (line, offset where it starts in the text), in order
        self._mark_lines = [line for line, _ in self._marks]

    def get(self, line: int) -> str | None:
        i = bisect.bisect_right(self._starts, line) - 1
        return self._spans[i][2] if i >= 0 and line <= self._spans[i][1] else None

    def __getitem__(self, line: int) -> str:
        found = self.get(line)
        if found is None:
            raise KeyError(line)
        return found

    def __contains__(self, line: object) -> bool:
        return isinstance(line, int) and self.get(line) is not None

    def as_dict(self) -> dict[int, str]:
        return {n: fn for first, last, fn in self._spans for n in range(first, last + 1)}

    def line(self, text: str, number: int) -> str:
        """Line `number` of `text` (the text the owners were read from), "" past its end: found
        from the nearest function boundary before it, not by splitting the whole text."""
        if number < 1:
            return ""
        at, pos = self._marks[bisect.bisect_right(self._mark_lines, number) - 1]
        for _ in range(number - at):
            pos = text.find("\n", pos) + 1
            if pos == 0:
                return ""
        end = text.find("\n", pos)
        return text[pos : end if end >= 0 else len(text)]


def asm_owners(asm: str, functions: set[str]) -> LineOwners:
    """Which function of `functions` owns each line of llc's text: from its label to its
    `.Lfunc_end` (or through a PTX function's closing `}`); what follows belongs to none."""
    spans: list[tuple[int, int, str]] = []
    marks = [(1, 0)]
    current, opened, number, pos = "", 0, 1, 0
    for b in _OWNER_BOUNDARY.finditer("\n" + asm):  # (b.start() is where its line starts in asm)
        number += asm.count("\n", pos, b.start())
        pos, line = b.start(), b.group(1)
        marks.append((number, pos))
        m = _LABEL.match(line) or (_FUNCTION_START.match(line) if line.startswith(_PTX_FUNCTION) else None)
        name = next((g for g in m.groups() if g), None) if m else None
        if name in functions:
            if current:
                spans.append((opened, number - 1, current))
            current, opened = name or "", number
        elif line.startswith((".Lfunc_end", "}")):
            if current:
                spans.append((opened, number if line.startswith("}") else number - 1, current))
            current = ""  # what follows (config sections, metadata) belongs to no function
    if current:
        spans.append((opened, asm.count("\n") + (not asm.endswith("\n")), current))
    return LineOwners(spans, marks)


def mc_rejections(stderr: str, asm: str, functions: set[str]) -> tuple[dict[str, str], list[str]]:
    """Function -> first llvm-mc error in its body; plus errors no function owns."""
    errors = located_errors(stderr)
    if not errors:  # (most modules: the text needs no map of its lines)
        return {}, []
    owners = asm_owners(asm, functions)
    found: dict[str, str] = {}
    stray: list[str] = []
    for line, _col, message in errors:
        fn = owners.get(line)
        text = owners.line(asm, line).strip()
        detail = f"{message}: {text}" if text else message
        if fn:
            found.setdefault(fn, detail)
        else:
            stray.append(detail)
    return found, stray


_SELECT_FUNCTION = (
    re.compile(r"\(in function: ([\w.$]+)\)"),
    re.compile(r"on function '@([\w.$]+)'"),
)


# The selector gave up on the IR: SelectionDAG's "Cannot select", GlobalISel's "cannot select",
# its legalizer's "unable to legalize" and its IRTranslator's "unable to translate".
GAVE_UP = re.compile(r"[Cc]annot select|unable to legalize|unable to translate")
# The register allocator's failures ("ran out of registers during register allocation", "no
# registers from class available to allocate", "register allocation failed: ..."): a crash.
REGISTER_ALLOCATION_FAILED = r"ran out of registers|no registers from class|register allocation failed"
# A diagnostic that is no clean rejection although it may say `error:`.
_NOT_CLEAN = re.compile(r"LLVM ERROR|" + REGISTER_ALLOCATION_FAILED + r"|Assertion .* failed|Stack dump")


def llc_failure(stderr: str, returncode: int | None = 1) -> tuple[VerdictCode, str | None, str]:
    """(verdict, failing function or None, one-line reason) for an llc run that failed with
    `returncode` (negative: killed by that signal)."""
    fn = None
    for pattern in _SELECT_FUNCTION:
        m = pattern.search(stderr)
        if m:
            fn = m.group(1)
            break
    reason = next((l.strip() for l in stderr.splitlines() if "LLVM ERROR" in l or "error:" in l), "")
    if GAVE_UP.search(stderr):
        lines = [l.strip() for l in stderr.splitlines() if GAVE_UP.search(l)]
        return CANNOT_SELECT, fn, lines[-1] if lines else reason
    if clean_rejection(stderr, returncode):
        return LLC_REJECT, fn or _diagnosed_function(stderr), reason
    return CRASH, fn, reason or (stderr.strip().splitlines() or ["llc failed with no message"])[0]


def clean_rejection(stderr: str, returncode: int | None) -> bool:
    """Whether a failed tool rejected its input cleanly: it exited (no signal) non-zero, said
    `error:`, and nothing fatal, no assertion and no register-allocation failure."""
    return (
        returncode is not None
        and returncode > 0
        and bool(re.search(r"\berror:", stderr))
        and not _NOT_CLEAN.search(stderr)
        and not GAVE_UP.search(stderr)
    )


# A diagnostic's function: `error: <unknown>:0:0: in function f void (...): message`.
_DIAGNOSED = re.compile(r"in function ([\w.$]+)[ :]")


def _diagnosed_function(stderr: str) -> str | None:
    m = _DIAGNOSED.search(stderr)
    return m.group(1) if m else None


# ---- what llc's text and the disassembled object say about one function -------------------


# First characters of lines that never start a function (instructions, directives, comments):
# most lines, skipped without the pattern.
# (`$L__BB0_1:` is a block label in PTX.)
_NO_START = frozenset(("", " ", "\t", ".", ";", "#", "/", "$"))


# Lines that can open or close a function in split_functions' inputs: anything that does not
# start like an instruction, directive or comment (_NO_START), a PTX function header, an end.
# (Matched behind a newline, as _OWNER_BOUNDARY.)
_SPLIT_BOUNDARY = re.compile(r"\n((?:[^\s.;#/$]|\.(?:visible|weak|func|entry|Lfunc_end))[^\n]*)")


def split_functions(text: str, names: set[str]) -> dict[str, list[str]]:
    """Body lines of each function in `names`, in one pass over llc's text output, llvm-objdump
    -d output (`<fn>:` headers) or IR (`define ... @fn(`)."""
    bodies: dict[str, list[str]] = {}
    current: list[str] | None = None
    pos = 0
    for b in _SPLIT_BOUNDARY.finditer("\n" + text):  # (b.start() is where its line starts in text)
        if current is not None:  # the lines between boundaries continue the body they are in
            current.extend(text[pos : b.start()].splitlines())
        pos, line = b.end(), b.group(1)
        m = _FUNCTION_START.match(line) if line[:1] not in _NO_START or line.startswith(_PTX_FUNCTION) else None
        name = next((g for g in m.groups() if g), None) if m else None
        if name in names:
            current = bodies.setdefault(name, [])
            if line.startswith("define "):
                current.append(line)
        elif current is not None and (line.startswith((".Lfunc_end", "}")) or (m and name)):
            if line.startswith("}"):
                current.append(line)
            current = None
        elif current is not None:
            current.append(line)
    if current is not None:
        current.extend(text[pos:].splitlines())
    return bodies


@functools.lru_cache(maxsize=1 << 12)
def _any_of(words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern that finds any of `words` inside a line."""
    return re.compile("|".join(map(re.escape, words)))


# Operand separators: commas outside braces (PTX's register groups) and outside brackets
# (AMDGPU modifiers such as neg_lo:[0,0,1]).
_BRACED_COMMA = re.compile(r",(?![^{]*})")
_BRACKETED_COMMA = re.compile(r",(?![^\[]*\])")
# A register tuple (v[10:17]), a PTX brace group ({%r1, %r2}), one register (v4).
_REGISTER_RANGE = re.compile(r"[avs]\[(\d+):(\d+)\]")
_BRACE_GROUP = re.compile(r"\{\s*(%\w+(?:\s*,\s*%\w+)*)\s*\}")
_ONE_REGISTER = re.compile(r"[avs]\d+")


def instruction(body: list[str], mnemonics: tuple[str, ...]) -> tuple[str, list[str]] | None:
    """(mnemonic, operands) of the first instruction in `body` whose mnemonic is one of these.
    An instruction whose operands start on the next line (PTX's mma: one brace group per line)
    runs on to its `;`."""
    joined = "\n".join(body)  # (one search over the body, not one per line)
    below, pos = 0, 0  # body[below] starts at joined[pos]
    for m in _any_of(mnemonics).finditer(joined):
        if m.start() < pos:  # (on a line already looked at)
            continue
        i = below + joined.count("\n", pos, m.start())
        below, pos = i + 1, joined.find("\n", m.start()) + 1 or len(joined) + 1
        line = body[i]
        text = line.split("//")[0].split(";")[0].strip()
        head, _, rest = text.replace("\t", " ").partition(" ")
        if head not in mnemonics:
            continue
        if not rest.strip() and ";" not in line:
            following = []
            for more in body[i + 1 :]:
                following.append(more.split("//")[0])
                if ";" in more:
                    break
            rest = " ".join(following).split(";")[0]
            # Commas inside braces separate the registers of one group.
            return head, [o.strip() for o in _BRACED_COMMA.split(rest) if o.strip()]
        if rest.lstrip().startswith("{"):  # PTX brace groups on one line
            return head, [o.strip() for o in _BRACED_COMMA.split(rest) if o.strip()]
        # Commas inside brackets belong to a modifier (neg_lo:[0,0,1]); the last operand
        # carries the modifiers after a space: "v[10:17] matrix_a_fmt:..."
        operands = [o.strip() for o in _BRACKETED_COMMA.split(rest)]
        operands[-1] = operands[-1].split(" ")[0]
        return head, operands
    return None


def instruction_line(body: list[str], mnemonics: tuple[str, ...]) -> tuple[str, str] | None:
    """(mnemonic, the whole line) of the first one-line instruction in `body` whose mnemonic is one
    of these: an AMDGPU instruction with its modifiers, in llc's text or llvm-objdump's."""
    for line in body:
        head = line.split("//")[0].split(";")[0].strip().replace("\t", " ").partition(" ")[0]
        if head in mnemonics:
            return head, line
    return None


def matrix_instruction(body: list[str], prefixes: tuple[str, ...]) -> tuple[str, list[str]] | None:
    """The first instruction in `body` whose mnemonic starts with one of `prefixes` (any
    matrix instruction of the target, whatever the case asked for)."""
    for line in body:
        head = line.split(";")[0].strip().partition(" ")[0]
        if head.startswith(prefixes):
            return instruction([line], (head,))
    return None


def tuple_width(operand: str) -> int | None:
    """32-bit registers an operand names: v[8:15] -> 8, a3 -> 1, a PTX group {%r1, %r2} -> 2;
    None for anything else."""
    m = _REGISTER_RANGE.fullmatch(operand)
    if m:
        return int(m.group(2)) - int(m.group(1)) + 1
    m = _BRACE_GROUP.fullmatch(operand)
    if m:
        return len(m.group(1).split(","))
    return 1 if _ONE_REGISTER.fullmatch(operand) else None


def shape_mismatch(operands: list[str], expected: dict[str, tuple[int, int]]) -> str:
    """Where the operands' register widths differ from `expected` (role -> (position, registers)),
    in words; "" when every one has its width."""
    wrong = []
    for role, (position, registers) in expected.items():
        operand = operands[position] if position < len(operands) else ""
        width = tuple_width(operand)
        if width != registers:
            wrong.append(f"{role} {operand or 'missing'} is {width or 'not'} register(s), the row's {registers}")
    return "; ".join(wrong)


def source_tuples(body: list[str], mnemonics: tuple[str, ...]) -> dict[str, str]:
    """The A and B register tuples of the matrix instruction (its second and third operands)."""
    return tuples_of(instruction(body, mnemonics))


def tuples_of(found: tuple[str, list[str]] | None) -> dict[str, str]:
    """The A and B register tuples of an instruction `instruction` found."""
    if not found or len(found[1]) < 3:
        return {}
    return {"a": found[1][1], "b": found[1][2]}


def symbols(asm: str) -> dict[tuple[str, str], int]:
    """`.set <fn>.<name>, N` resource symbols llc emits per function: (fn, name) -> N."""
    return {(m.group(1), m.group(2)): int(m.group(3)) for m in re.finditer(r"^\s*\.set ([\w$]+)\.(\w+), (\d+)$", asm, re.M)}


_INSTRUCTION_LINE = re.compile(r"^\s+[a-z_][a-z0-9_]*\b")


def metrics(body: list[str], fn: str, syms: dict[tuple[str, str], int]) -> dict[str, int | None]:
    """Register and instruction cost of `fn` from its body in llc's text and the module symbols."""
    instrs = [l.strip() for l in body if _INSTRUCTION_LINE.match(l)]

    def scratch(kind: str, spill_word: str) -> int:
        # Flat-scratch ops, plus buffer ops that the spiller marks as spills/reloads.
        return sum(1 for i in instrs if i.startswith("scratch_" + kind) or (i.startswith("buffer_" + kind) and spill_word in i))

    # Register counts where the target reports them (AMDGPU's `.set <fn>.num_vgpr`, ...).
    registers = (
        {"vgpr": syms.get((fn, "num_vgpr")), "agpr": syms.get((fn, "num_agpr")), "sgpr": syms.get((fn, "numbered_sgpr"))}
        if any(f == fn for f, _ in syms)
        else {}
    )
    return {
        **registers,
        "scratch_loads": scratch("load", "Reload"),
        "scratch_stores": scratch("store", "Spill"),
        "instructions": len(instrs),
    }


def ir_sources(body: list[str], fn: str, src_indices: Mapping[Side, int]) -> dict[Side, dict]:
    """What the call in `fn` (its IR body lines) receives for each source after a pipeline.

    side -> {"width": N, "narrowed_by": "shufflevector"|"vector.extract"|"", "mask": [...]}.
    """
    call = next((m for l in body if (m := re.search(rf"%r\.{re.escape(fn)} = call [^@]+@[\w.]+\((.*)\)", l))), None)
    if not call:
        return {}
    args = [a.strip() for a in call.group(1).split(", ")]
    defs = {m.group(1): l for l in body if (m := re.match(r"^\s*(%[\w.]+) = ", l))}
    out = {}
    for side, index in src_indices.items():
        ty_m = re.match(r"<(\d+) x \w+> (%[\w.]+)", args[index]) if index < len(args) else None
        if not ty_m:
            continue
        info = {"width": int(ty_m.group(1)), "narrowed_by": "", "mask": []}
        definition = defs.get(ty_m.group(2), "")
        if " = shufflevector " in definition:
            info["narrowed_by"] = "shufflevector"
            mask = re.search(r"<(i32 [^>]*)>\s*$", definition)
            info["mask"] = [int(x.split()[-1]) for x in mask.group(1).split(", ")] if mask else []
        elif "@llvm.vector.extract" in definition:
            info["narrowed_by"] = "vector.extract"
        out[side] = info
    return out
