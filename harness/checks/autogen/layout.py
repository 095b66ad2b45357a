"""From per-prefix function bodies to CHECK lines, laid out as update_llc_test_checks.py lays them.

Each RUN line gives its output to all of its FileCheck prefixes. A prefix shared by several RUN
lines keeps a function's body only while they all print the same body; when they disagree the
prefix cannot check that function (`Bodies` records None) and the RUN lines' own prefixes must.
For a function, each RUN line is checked under the first of its prefixes that has a body, unless
a prefix of that RUN line was already used for the function by an earlier RUN line:

    ; CHECK-LABEL: name:                    (`name(` for NVPTX: see scrub.AsmSyntax)
    ; CHECK:       first line of the body
    ; CHECK-NEXT:    next line
    ; CHECK-EMPTY:
    ;
    ; OTHER-LABEL: name:                    (';' separates the blocks of one function)

The text of every body line starts in the same column whatever the directive. Assembly checks
look the same under every --version (the version only shows in the NOTE header); with --filter
the directives lose -NEXT and the first line gets no special alignment.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from harness.checks.autogen.options import UNUSED_NOTE
from harness.checks.autogen.scrub import AsmFunction

MARK = ";"  # the comment that starts every CHECK line of an IR test


@dataclass(frozen=True)
class Run:
    """A RUN line whose llc output feeds CHECK lines: where it is and the prefixes it checks."""

    line: int
    prefixes: tuple[str, ...]


@dataclass
class Bodies:
    """Per prefix, each function's body as the RUN lines using that prefix printed it.

    `table[prefix][function]` is the body, or None when two of those RUN lines disagree on it,
    or when a RUN line with that prefix did not print the function at all. `order[prefix]` lists
    functions as they first came out of llc under that prefix; `label_end[prefix][function]` is
    what follows the name in its CHECK-LABEL line, as the first RUN line that printed it has it."""

    runs: list[Run]
    table: dict[str, dict[str, str | None]] = field(default_factory=dict)
    order: dict[str, list[str]] = field(default_factory=dict)
    label_end: dict[str, dict[str, str]] = field(default_factory=dict)
    _done: set[str] = field(default_factory=set)

    def __post_init__(self):
        for run in self.runs:
            for prefix in run.prefixes:
                self.table[prefix] = {}
                self.order[prefix] = []
                self.label_end[prefix] = {}

    def add(self, run: Run, functions: list[AsmFunction]) -> None:
        """Record one RUN line's functions (call once per RUN line, in file order)."""
        for fn in functions:
            for prefix in run.prefixes:
                known = self.table[prefix]
                if fn.name in known:
                    if known[fn.name] is not None and known[fn.name] != fn.body:
                        known[fn.name] = None
                elif prefix in self._done:
                    known[fn.name] = None  # an earlier RUN line with this prefix lacked it
                else:
                    known[fn.name] = fn.body
                    self.order[prefix].append(fn.name)
                    self.label_end[prefix][fn.name] = fn.label_end
        self._done.update(run.prefixes)

    def conflicts(self) -> list[tuple[str, list[int]]]:
        """Functions some RUN line cannot check because all its prefixes disagree elsewhere:
        (function, indexes into `runs`), functions sorted by name."""
        names = sorted({name for known in self.table.values() for name in known})
        out = []
        for name in names:
            stuck = [
                i
                for i, run in enumerate(self.runs)
                if run.prefixes
                and all(name in self.table[p] for p in run.prefixes)
                and all(self.table[p][name] is None for p in run.prefixes)
            ]
            if stuck:
                out.append((name, stuck))
        return out

    def conflict_message(self, name: str, stuck: list[int]) -> str:
        runs = ", ".join(f"RUN #{i + 1} (prefixes: {', '.join(self.runs[i].prefixes)})" for i in stuck)
        return f"For function '{name}', the following RUN lines will not generate checks due to conflicting output: {runs}"


def function_checks(runs: list[Run], bodies: Bodies, name: str, filtered: bool) -> tuple[list[str], list[str]]:
    """The CHECK lines for function `name` under `runs`, and the prefixes they use."""
    # A RUN line that did not print the function under every one of its prefixes rules all of
    # them out (the function may exist only because another RUN line printed it).
    excluded = {p for run in runs if any(name not in bodies.table[q] for q in run.prefixes) for p in run.prefixes}
    lines: list[str] = []
    used: list[str] = []
    for run in runs:
        for prefix in run.prefixes:
            if prefix in used:
                break
            text = None if prefix in excluded else bodies.table[prefix][name]
            if text is None:
                continue
            if used:
                lines.append(MARK)
            used.append(prefix)
            lines.append(f"{MARK} {prefix}-LABEL: {name}{bodies.label_end[prefix].get(name, ':')}")
            body = text.splitlines()
            if not body:
                continue
            lines.extend(check_block(prefix, body, filtered))
            break
    return lines, used


def check_block(prefix: str, body: list[str], filtered: bool) -> list[str]:
    """The directives for one body under one prefix (the LABEL line excluded)."""
    out = []
    if not filtered:
        out.append(f"{MARK} {prefix}:       {body[0]}")
        body = body[1:]
    directive = prefix if filtered else f"{prefix}-NEXT"
    for line in body:
        out.append(f"{MARK} {prefix}-EMPTY:" if not line.strip() else f"{MARK} {directive}:  {line}")
    return out


def checks_at_end(runs: list[Run], bodies: Bodies, filtered: bool) -> tuple[list[str], set[str]]:
    """--include-generated-funcs: every function's checks after the test, prefix by prefix in
    llc's output order (functions the IR does not define included), ';' between blocks."""
    lines: list[str] = []
    done: set[tuple[str, str]] = set()
    used: set[str] = set()
    for run in runs:
        for prefix in run.prefixes:
            for name in bodies.order[prefix]:
                if (name, prefix) in done:
                    continue
                if done:
                    lines.append(MARK)
                block, printed = function_checks([Run(run.line, (prefix,))], bodies, name, filtered)
                lines.extend(block)
                done.update((name, p) for p in printed)
                used.update(printed)
    return lines, used


def unused_trailer(runs: list[Run], used: Collection[str], comment: str = MARK) -> list[str]:
    """The note and catch-all lines for prefixes no check used (FileCheck rejects unused prefixes)."""
    unused = sorted({p for run in runs for p in run.prefixes} - set(used))
    if not unused:
        return []
    return [f"{comment}{comment} {UNUSED_NOTE}", *(f"{comment} {p}: {{{{.*}}}}" for p in unused)]
