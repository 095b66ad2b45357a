"""Existing CHECK lines of a test, read per function, and whether one pins an instruction.

FileCheck patterns are read the way FileCheck reads them: `{{regex}}`, `[[VAR:regex]]` (a regex
that may hold `]`), `[[VAR]]`, and runs of whitespace matching one space.
"""

from __future__ import annotations

import re
from collections.abc import Collection

# A comment line's first word and what follows its ':' (`; CHECK-NEXT: text`).
_COMMENT_WORD = re.compile(r"^\s*(?://|[;#])\s*([\w-]+):(.*)$")
SUFFIXES = ("-NEXT", "-SAME", "-DAG", "-LABEL", "-NOT", "-EMPTY")


def directive(line: str, prefixes: Collection[str]) -> tuple[str, str, str] | None:
    """(prefix, directive suffix or "", text after the ':') when `line` is a check line of one of
    `prefixes`, else None. The prefix is matched whole first, so a prefix that itself ends like a
    directive (`GFX-NEXT`) is read as FileCheck reads it."""
    m = _COMMENT_WORD.match(line)
    if not m:
        return None
    word = m.group(1)
    if word in prefixes:
        return word, "", m.group(2)
    for suffix in SUFFIXES:
        if word.endswith(suffix) and word[: -len(suffix)] in prefixes:
            return word[: -len(suffix)], suffix, m.group(2)
    return None


def by_function(text: str, prefixes: list[str], names: list[str]) -> dict[str, list[str]]:
    """Function -> the bodies of its CHECK lines of `prefixes`: a block starts at a -LABEL line
    naming the function (update_llc_test_checks puts it after `define`; hand-written tests often
    before) and runs to the next -LABEL of the same prefixes."""
    wanted, known = set(prefixes), set(names)
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        found = directive(line, wanted)
        if not found or found[1] == "-NOT":
            continue  # a -NOT line forbids the text; it does not pin it
        body = found[2].strip()
        if found[1] == "-LABEL":
            label = re.sub(r"\{\{[^}]*\}\}", "", body).strip().rstrip(":").lstrip("@").strip('"')
            current = label if label in known else None
            continue
        if current:
            out.setdefault(current, []).append(body)
    return out


def pinned(checks: list[str], instructions: list[str]) -> bool:
    """Does any of `checks` pin any of these rejected instructions (see `pins`)? The checks'
    regexes run under guard's time limit; one that cannot run is compared as literal text."""
    pairs = [(c, i) for c in checks for i in instructions if _candidate(c, i)]
    if not pairs:
        return False
    patterns: dict[str, str] = {}
    for check, _ in pairs:
        try:
            re.compile(_pattern(check))
            patterns[check] = _pattern(check)
        except re.error:  # a FileCheck regex Python cannot read: compared as literal text
            pass
    texts = sorted({" ".join(i.split()) for _, i in pairs})
    from harness.checks.autogen import guard  # (here: `run` imports this module, and no CHECK-line writer)

    try:
        order = list(patterns.values())
        table = guard.search_all(order, texts)
        found = {(p, t): table[a][b] for a, p in enumerate(order) for b, t in enumerate(texts)}
    except guard.RegexTimeout:  # a pattern that backtracks without bound: its literal text decides
        patterns, found = {}, {}
    return any(
        found[patterns[c], " ".join(i.split())] if c in patterns else " ".join(c.split()) in " ".join(i.split()) for c, i in pairs
    )


def pins(check: str, instruction: str) -> bool:
    """Does a CHECK line pin this rejected instruction? It must match it, name its mnemonic and
    spell out at least one of its register ranges (`[2:9]`): a pattern that admits any tuple
    width — like the semantic checks of generated files — pins nothing the assembler rejects."""
    return pinned([check], [instruction])


def _candidate(check: str, instruction: str) -> bool:
    """The cheap part of `pins`: the check names the mnemonic and one of the register ranges."""
    mnemonic = instruction.split(" ", 1)[0]
    if not mnemonic or mnemonic not in check:
        return False
    return any(r in check for r in re.findall(r"\[\d+:\d+\]", instruction))


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


# ---- function names: the IR's spelling and llc's -----------------------------------------------


def ir_name_bytes(name: str) -> bytes:
    r"""What an IR function name (quotes dropped) stands for, as LLVM's lexer reads it: `\\` and
    the `\XX` escapes decoded, and the leading `\01` that tells LLVM not to mangle the name
    dropped (llc prints the name without it)."""
    out = re.sub(
        rb"\\(\\|[0-9A-Fa-f]{2})", lambda m: b"\\" if m.group(1) == b"\\" else bytes([int(m.group(1), 16)]), name.encode()
    )
    return out[1:] if out.startswith(b"\x01") else out


def asm_name_bytes(label: str) -> bytes:
    r"""What a label of llc's text stands for: a quoted one's `\"`, `\\` and `\n` decoded."""
    if not (len(label) >= 2 and label[0] == label[-1] == '"'):
        return label.encode()
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), label[1:-1]).encode()
