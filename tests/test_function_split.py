"""The fast splitters of tool output (`split_functions`, `asm_owners`) against a plain reading
of their rules, line by line, on random texts made of the lines that matter: function labels,
objdump headers, IR definitions, PTX headers, block labels, ends, directives, comments."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.tools import verdicts as V

LINES = [
    "f:", "g:", "h:", "g:\t; @g", "f: extra", ".Lfunc_end0:", ".Lfunc_end12:", "}", "}x", "{", "", "  v_mov",
    "\ts_nop", ".LBB0_1:", "$L__BB0_1:", ".visible .func (.param .b32 r) f(", ".entry g(", ".weak .func h(",
    ".func f(", "define void @f(", "define i32 @g(i32 %x) {", "0000 <f>:", "00ab <h>:", "; c", "# c", "// c",
    "entry:", "x y", ".section .text", "\t.amdgcn_target",
]  # fmt: skip
NAMES = st.sampled_from([{"f", "g"}, {"h"}, set(), {"f", "g", "h"}])
TEXTS = st.tuples(st.lists(st.sampled_from(LINES), max_size=16), st.sampled_from(["", "\n"]))


def start_of(line: str) -> str | None:
    """The function a line starts, by the rules: `name:` at column 0 (not `.`, `$`), `<name>:`
    after an address, `define ... @name(`, a PTX `.func`/`.entry` header."""
    for pattern in (
        r"([A-Za-z_][\w.$]*):",
        r"[0-9a-f]+ <([\w.$]+)>:",
        r"define [^@]*@([\w.$]+)\(",
        r".*\.(?:func|entry)\s+(?:\([^)]*\)\s*)?(\w+)\(",
    ):
        m = re.match(pattern, line)
        if m and (not pattern.startswith(".*") or line.startswith((".visible", ".weak", ".func", ".entry"))):
            return m.group(1)
    return None


def reference_split(text: str, names: set[str]) -> dict[str, list[str]]:
    bodies: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        name = start_of(line)
        if name in names:
            current = bodies.setdefault(name, [])
            current += [line] if line.startswith("define ") else []
        elif current is not None and (line.startswith((".Lfunc_end", "}")) or name):
            current += [line] if line.startswith("}") else []
            current = None
        elif current is not None:
            current.append(line)
    return bodies


def reference_owners(text: str, names: set[str]) -> dict[int, str]:
    owners, current = {}, ""
    for number, line in enumerate(text.splitlines(), 1):
        label = re.match(r"([A-Za-z_.$][\w.$]*):", line)
        name = label.group(1) if label else start_of(line) if line.startswith((".visible", ".weak", ".func", ".entry")) else None
        if name in names:
            current = name
        elif line.startswith((".Lfunc_end", "}")):
            owners.update({number: current} if current and line.startswith("}") else {})
            current = ""
        if current:
            owners[number] = current
    return owners


@settings(max_examples=400, deadline=None)
@given(TEXTS, NAMES)
def test_split_functions_follows_the_rules(text, names):
    lines, end = text
    assert V.split_functions("\n".join(lines) + end, names) == reference_split("\n".join(lines) + end, names)


@settings(max_examples=400, deadline=None)
@given(TEXTS, NAMES)
def test_asm_owners_follows_the_rules(text, names):
    lines, end = text
    joined = "\n".join(lines) + end
    owners = V.asm_owners(joined, names)
    assert owners.as_dict() == reference_owners(joined, names)
    assert all(owners.get(n) == reference_owners(joined, names).get(n) for n in range(0, len(lines) + 2))
