"""Existing CHECK lines of a test, read per function, and whether one pins an instruction.

FileCheck patterns are read the way FileCheck reads them: `{{regex}}`, `[[VAR:regex]]` (a regex
that may hold `]`), `[[VAR]]`, and runs of whitespace matching one space.
"""

from __future__ import annotations

import re

_CHECK_LINE = re.compile(r"^\s*;\s*([\w-]+?)(-NEXT|-SAME|-DAG|-LABEL|-NOT|-EMPTY)?:(.*)$")


def by_function(text: str, prefixes: list[str], names: list[str]) -> dict[str, list[str]]:
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


def pins(check: str, instruction: str) -> bool:
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
    out: list[str] = []
    literal: list[str] = []
    i = 0
    while i < len(check):
        if check.startswith("{{", i):
            end = check.find("}}", i + 2)
            if end >= 0:
                out.append(_literal("".join(literal)) + f"(?:{check[i + 2 : end]})")
                literal, i = [], end + 2
                continue
        if check.startswith("[[", i):
            end = _variable_end(check, i + 2)
            if end >= 0:
                inner = check[i + 2 : end]
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
