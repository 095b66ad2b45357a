"""llc's assembly cut into functions and normalised the way update_llc_test_checks.py
normalises it, for the targets it knows here: AMDGPU (amdgcn, r600) and NVPTX.

Each target is one `AsmSyntax` entry: how its functions are found in llc's text and what follows
the function's name in its CHECK-LABEL line. The rest is one pipeline for every target.

AMDGPU: a function is what sits between its label and the end-of-function label llc prints after it:

        .type	foo,@function
    foo:                                    ; @foo
    ; %bb.0:                                  <- the body starts here
        s_endpgm                              <- and ends here
    .Lfunc_end0:

(or a `.section` directive, whichever comes first); its label line is `; CHECK-LABEL: foo:`.

NVPTX: a function is a `.func` or `.entry` header, its parameter list, then everything up to the
`// -- End function` comment llc prints before the closing brace:

    .visible .func  (.param .b32 func_retval0) foo(    <- directives, return value, name, '('
            .param .b32 foo_param_0
    )                                       // @foo
    {                                                  <- the body starts here
            .reg .b32   %r<3>;
    // %bb.0:
            ret;                                       <- and ends here
                                            // -- End function
    }

its label line is `; CHECK-LABEL: foo(`, the '(' keeping `foo` from matching `foo_bar`.

The body's whitespace is then normalised (for every target alike): runs of blanks inside a line
become one space, tabs expand to two columns and trailing blanks go, so that the CHECK lines do
not depend on llc's column alignment.
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
_AMDGPU_FUNCTION = re.compile(
    r"\.type\s+_?(?P<name>[^,\n]+),@function\n"
    r"^_?(?P=name):(?:[ \t]*;[^\n]*)?\n"
    r"(?P<body>.*?)\n"
    r"^\s*(?:\.Lfunc_end[0-9]+:\n|\.section)",
    re.M | re.S,
)

# At a line start, one or more of the directives a PTX function header may carry (each followed
# by whitespace, a newline included), an optional return-value list `(...)`, the name (anything up
# to a '(' on that line), the parameter list up to its ')' (with an optional `// @name` comment
# after it), the body, and then the `// -- End function` comment on a line of its own.
_NVPTX_FUNCTION = re.compile(
    r"^(?:\.(?:func|visible|weak|entry|noreturn|extern)\s+)+(?:\([^\)]*\)\s*)?"
    r"(?P<name>[^\(\n]+)\("
    r"[^\)]*\)(?:\s*//[^\n]*)?\n"
    r"(?P<body>.*?)\n"
    r"\s*// -- End function",
    re.M | re.S,
)


@dataclass(frozen=True)
class AsmSyntax:
    """How one target's llc output is read: `function` finds each function (groups `name` and
    `body`); `label_end` follows the name in its CHECK-LABEL line."""

    target: str  # as refusals name it
    function: re.Pattern
    label_end: str


AMDGPU = AsmSyntax("AMDGPU", _AMDGPU_FUNCTION, ":")
NVPTX = AsmSyntax("NVPTX", _NVPTX_FUNCTION, "(")

# Triple prefix -> syntax; the longest prefix a triple starts with decides.
SYNTAXES: dict[str, AsmSyntax] = {"amdgcn": AMDGPU, "r600": AMDGPU, "nvptx": NVPTX}


def syntax_for(triple: str) -> AsmSyntax | None:
    """The syntax of `triple`'s llc output, or None for a target not supported here."""
    known = [prefix for prefix in SYNTAXES if triple.startswith(prefix)]
    return SYNTAXES[max(known, key=len)] if known else None


def supported() -> str:
    """The supported targets in words, for a refusal: `AMDGPU (amdgcn, r600) or NVPTX (nvptx)`."""
    groups: dict[str, list[str]] = {}
    for prefix, syntax in SYNTAXES.items():
        groups.setdefault(syntax.target, []).append(prefix)
    return " or ".join(f"{target} ({', '.join(prefixes)})" for target, prefixes in groups.items())


_BLANKS = re.compile(r"[ \t]+")

# A machine-instruction or register number in an assembly comment (`# <MCInst #123`), which
# upstream replaces by a FileCheck numeric variable (llc prints them only when asked to); a body
# that has one is refused rather than checked with the raw numbers.
MC_NUMBER = re.compile(r"(?:#|//)\s*(?:<MCInst #\d+|<MCOperand Reg:\d+)(?:[>\s]|\Z)")


@dataclass(frozen=True)
class AsmFunction:
    """One function of llc's output: its name, its normalised body (lines joined by "\\n") and
    the text after the name in its CHECK-LABEL line."""

    name: str
    body: str
    label_end: str = ":"


def functions(asm: str, filters: tuple[Filter, ...] = (), syntax: AsmSyntax = AMDGPU) -> list[AsmFunction]:
    """Every function of `asm` (as `syntax` finds them) in output order, filtered by `filters`
    and then normalised. The filters (regexes a test file chose) run under guard's time limit:
    RegexTimeout."""
    found = [(m.group("name"), m.group("body")) for m in syntax.function.finditer(asm)]
    hit = _matcher(filters, [line for _, body in found for line in body.splitlines()])
    out = []
    for name, raw in found:
        body = normalise(select_lines(raw, filters, hit))
        if name.startswith("stress"):
            # Upstream's convention for stress tests: only the last line is checked.
            body = "\n".join(body.splitlines()[-1:])
        out.append(AsmFunction(name, body, syntax.label_end))
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
