"""llc's AMDGPU assembly, cut into functions and normalised the way update_llc_test_checks.py
normalises it for amdgcn and r600 triples.

A function is what sits between its label and the end-of-function label llc prints after it:

        .type	foo,@function
    foo:                                    ; @foo
    ; %bb.0:                                  <- the body starts here
        s_endpgm                              <- and ends here
    .Lfunc_end0:

(or a `.section` directive, whichever comes first). The body's whitespace is then normalised:
runs of blanks inside a line become one space, tabs expand to two columns and trailing blanks
go, so that the CHECK lines do not depend on llc's column alignment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.checks.autogen import guard
from harness.checks.autogen.options import Filter

# The `.type NAME,@function` directive, the label `NAME:` right after it (llc adds a comment
# `; @NAME` in the IR's spelling: `"fé":` is `; @"f\C3\A9"`), the body, then the first line that
# (after any blank lines) is a `.Lfunc_endN:` label or a section.
_FUNCTION = re.compile(
    r"\.type\s+_?(?P<name>[^,\n]+),@function\n"
    r"^_?(?P=name):(?:[ \t]*;[^\n]*)?\n"
    r"(?P<body>.*?)\n"
    r"^\s*(?:\.Lfunc_end[0-9]+:\n|\.section)",
    re.M | re.S,
)
_BLANKS = re.compile(r"[ \t]+")

# A machine-instruction or register number in an assembly comment (`# <MCInst #123`), which
# upstream replaces by a FileCheck numeric variable. AMDGPU comments start with ';', so llc does
# not print these; we refuse a body that has one rather than check the raw numbers.
MC_NUMBER = re.compile(r"(?:#|//)\s*(?:<MCInst #\d+|<MCOperand Reg:\d+)(?:[>\s]|\Z)")


@dataclass(frozen=True)
class AsmFunction:
    """One function of llc's output: its name and its normalised body (lines joined by "\\n")."""

    name: str
    body: str


def functions(asm: str, filters: tuple[Filter, ...] = ()) -> list[AsmFunction]:
    """Every function of `asm` in output order, filtered by `filters` and then normalised.
    The filters (regexes a test file chose) run under guard's time limit: RegexTimeout."""
    found = [(m.group("name"), m.group("body")) for m in _FUNCTION.finditer(asm)]
    hit = _matcher(filters, [line for _, body in found for line in body.splitlines()])
    out = []
    for name, raw in found:
        body = normalise(select_lines(raw, filters, hit))
        if name.startswith("stress"):
            # Upstream's convention for stress tests: only the last line is checked.
            body = "\n".join(body.splitlines()[-1:])
        out.append(AsmFunction(name, body))
    return out


Matcher = Callable[[int, str], bool]  # (index of a filter, line) -> whether the filter's regex is found


def _matcher(filters: tuple[Filter, ...], lines: list[str]) -> Matcher:
    """Every filter tried on every line at once (guard.search_all: bounded time)."""
    if not filters:
        return lambda i, line: False
    texts = sorted(set(lines))
    table = guard.search_all([f.regex.pattern for f in filters], texts)
    where = {t: j for j, t in enumerate(texts)}
    return lambda i, line: table[i][where[line]]


def normalise(body: str) -> str:
    """Collapse blank runs (a line's first character stays as it is), expand tabs, drop trailing blanks."""
    lines = []
    for line in body.split("\n"):
        lead = line[:1] if line[:1] in (" ", "\t") else ""
        lines.append(lead + _BLANKS.sub(" ", line[len(lead) :]))
    expanded = "\n".join(lines).expandtabs(2)
    return "\n".join(line.rstrip(" \t") for line in expanded.split("\n"))


def select_lines(body: str, filters: tuple[Filter, ...], hit: Matcher | None = None) -> str:
    """The lines of `body` that the --filter options keep (all of it when there are none);
    `hit` answers whether filter i's regex is found in a line (default: searched here)."""
    if not filters:
        return body
    found = hit or (lambda i, line: filters[i].regex.search(line) is not None)
    lines = body.splitlines()
    if any(f.stops for f in filters):
        kept = []
        for line in lines:
            kept.append(line)
            if any(f.stops and found(i, line) for i, f in enumerate(filters)):
                break
        lines = kept
    return "\n".join(line for line in lines if _keeps(line, filters, found))


def _keeps(line: str, filters: tuple[Filter, ...], found: Matcher) -> bool:
    # The first selecting filter that matches decides; with none matching, a line survives only
    # when every selecting filter was a --filter-out.
    selective = False
    for i, f in enumerate(filters):
        if f.stops:
            continue
        selective = selective or not f.drops
        if found(i, line):
            return not f.drops
    return not selective
