"""Turn what the tools printed into per-function verdicts.

Pure functions over tool output: no processes here, so every rule is testable on real output
captured from the tools.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PASS = "pass"
MC_REJECT = "mc-reject"
CANNOT_SELECT = "cannot-select"
VERIFIER_REJECT = "verifier-reject"
CRASH = "crash"
TIMEOUT = "timeout"
UNSUPPORTED = "unsupported"
ALL = (PASS, MC_REJECT, CANNOT_SELECT, VERIFIER_REJECT, CRASH, TIMEOUT, UNSUPPORTED)


@dataclass
class Verdict:
    verdict: str
    detail: str = ""
    tools: list = field(default_factory=list)  # ToolRun records that justify it


_CALL_RESULT = re.compile(r"^\s+%r\.([\w.$]+) = call ")
_LOCATED_ERROR = re.compile(r"^(?:<stdin>|[^:\s]+):(\d+):(\d+): error: (.*)$")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")


def verifier_diagnostics(stderr: str) -> dict[str, str]:
    """Function -> verifier diagnostic, for each call the verifier printed.

    A diagnostic is a message line followed by the offending instruction and its operands;
    the instruction's result name `%r.<function>` says which case it is.
    """
    lines = stderr.splitlines()
    calls = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _CALL_RESULT.match(line)) and i > 0]
    found: dict[str, str] = {}
    for n, (i, fn) in enumerate(calls):
        stop = calls[n + 1][0] - 1 if n + 1 < len(calls) else len(lines)
        found.setdefault(fn, "\n".join(lines[i - 1 : stop]).rstrip())
    return found


def located_errors(stderr: str) -> list[tuple[int, int, str]]:
    """(line, column, message) for each `file:line:col: error:` a tool printed."""
    out = []
    for line in stderr.splitlines():
        m = _LOCATED_ERROR.match(line.strip())
        if m:
            out.append((int(m.group(1)), int(m.group(2)), m.group(3)))
    return out


def asm_owners(asm: str, functions: set[str]) -> dict[int, str]:
    """1-based assembly line -> the function whose body it is in (labels of `functions`)."""
    owner: dict[int, str] = {}
    current = ""
    for number, line in enumerate(asm.splitlines(), 1):
        m = _LABEL.match(line)
        if m and m.group(1) in functions:
            current = m.group(1)
        if current:
            owner[number] = current
    return owner


def mc_rejections(stderr: str, asm: str, functions: set[str]) -> tuple[dict[str, str], list[str]]:
    """Function -> first llvm-mc error in its body; plus errors no function owns."""
    owners = asm_owners(asm, functions)
    asm_lines = asm.splitlines()
    found: dict[str, str] = {}
    stray: list[str] = []
    for line, col, message in located_errors(stderr):
        fn = owners.get(line)
        text = asm_lines[line - 1].strip() if 0 < line <= len(asm_lines) else ""
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


def llc_failure(stderr: str) -> tuple[str, str | None, str]:
    """(verdict, failing function or None, one-line reason) for an llc run that failed."""
    fn = None
    for pattern in _SELECT_FUNCTION:
        m = pattern.search(stderr)
        if m:
            fn = m.group(1)
            break
    reason = next((l.strip() for l in stderr.splitlines() if "LLVM ERROR" in l or "error:" in l), "")
    if re.search(r"[Cc]annot select", stderr):
        cannot = [l.strip() for l in stderr.splitlines() if re.search(r"[Cc]annot select", l)]
        return CANNOT_SELECT, fn, cannot[-1] if cannot else reason
    return CRASH, fn, reason or (stderr.strip().splitlines() or ["llc failed with no message"])[0]


def unsupported_reason(stderr: str) -> str:
    """Non-empty when a parse error means the build does not have the intrinsic as described."""
    m = re.search(r"error: (invalid intrinsic signature.*)", stderr)
    return m.group(1) if m else ""
