"""Every shell example with output in README.md and docs/*.md runs against the real build, and
what it shows is what it prints.

An example is a fenced ```console block. A line starting with `$ ` is a command (a line ending
in a backslash continues it); the lines after it, up to the next command, are what it shows.
Each shown line must match a line the command printed (stdout and stderr together), line for
line, in the order shown; a shown line matches when it is equal, where `...` in it stands for
any text (so numbers, names and verdicts are compared as written). A line `...` alone stands
for any number of printed lines; any other printed line the block leaves out fails the example
(notes on stderr, lines starting with `# `, excepted). Commands run under `bash -o pipefail` in the repository root, with the harness's
`.venv/bin` first on PATH; their exit status is not compared (`run` exits 1 on an unexpected
cell, and an example may show exactly that). Examples that cannot run here (a GPU) are fenced
as `text`, with where they were measured.

A small collector rather than a maintained tool: cram wants its own file format and exact
output with regex markers, doctest-based tools (Sybil) would need a parser for these blocks
anyway, and mktestdocs and pytest-examples run Python blocks only. The rules above fit in this
file.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLE_TIMEOUT = 600


@dataclass(frozen=True)
class Example:
    path: Path
    line: int  # of the command, 1-based
    command: str
    shown: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def examples(path: Path) -> list[Example]:
    """The console examples of one Markdown file, in order."""
    out: list[Example] = []
    lines = path.read_text().splitlines()
    inside = False
    current: list = []  # [line, command, shown]
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            inside = line.strip() == "```console"
            if current:
                out.append(Example(path, current[0], current[1], tuple(current[2])))
                current = []
            continue
        if not inside:
            continue
        if current and current[1].endswith("\\"):
            current[1] = current[1][:-1] + line.strip()
        elif line.startswith("$ "):
            if current:
                out.append(Example(path, current[0], current[1], tuple(current[2])))
            current = [number, line[2:], []]
        elif current:
            current[2].append(line)
    return out


def mismatch(shown: tuple[str, ...], printed: str) -> str:
    """ "" when the shown lines are what was printed, line for line, in order; else the first
    shown line that matches nothing after it, or `(more printed: LINE)`: the first printed line
    the block leaves out. A `...` line alone stands for any number of printed lines; a note on stderr
    (a line starting with `# `, e.g. which build was chosen) may be left out anywhere."""
    lines = printed.splitlines()
    at, skipping = 0, False
    for want in shown:
        if want.strip() == "...":
            skipping = True
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.rstrip().split("...")))
        while at < len(lines) and not pattern.fullmatch(lines[at].rstrip()):
            if not (skipping or lines[at].startswith("# ")):
                return f"(more printed: {lines[at]})"
            at += 1
        if at == len(lines):
            return want
        at, skipping = at + 1, False
    rest = [line for line in lines[at:] if line.strip() and not line.startswith("# ")]
    return f"(more printed: {rest[0]})" if rest and not skipping else ""


def run(example: Example) -> str:
    env = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1", "COLUMNS": "200"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(
        ["bash", "-o", "pipefail", "-c", example.command],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=EXAMPLE_TIMEOUT,
    )  # fmt: skip
    return proc.stdout + proc.stderr


ALL = [e for path in DOCS for e in examples(path)]


def test_the_docs_have_examples_with_output():
    assert len(ALL) >= 7 and all(e.shown for e in ALL), [str(e) for e in ALL if not e.shown]


@pytest.mark.parametrize("example", ALL, ids=str)
def test_an_example_prints_what_it_shows(example, llvm_22_1_8):
    printed = run(example)
    wrong = mismatch(example.shown, printed)
    assert not wrong, f"{example}: `{example.command}` does not print\n  {wrong}\nit printed:\n{printed[-3000:]}"


def test_a_changed_number_in_a_shown_line_fails(llvm_22_1_8):
    """The check is not blind: one digit changed in a real example's output no longer matches."""
    example = next(e for e in ALL if any(re.search(r"\d", line) for line in e.shown))
    printed = run(example)
    assert mismatch(example.shown, printed) == ""
    i = next(i for i, line in enumerate(example.shown) if re.search(r"\d", line))
    changed = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), example.shown[i], count=1)
    shown = (*example.shown[:i], changed, *example.shown[i + 1 :])
    assert mismatch(shown, printed) != "", changed


def test_the_matcher_reads_its_rules():
    printed = "a 1\nb 22 c\nd\n"
    assert mismatch(("a 1", "...", "d"), printed) == ""
    assert mismatch(("...", "b ... c", "..."), printed) == ""
    assert mismatch(("...", "b 23 c", "..."), printed) == "b 23 c"
    assert mismatch(("d", "a 1"), printed) == "(more printed: a 1)"  # order counts
    assert mismatch(("a 1", "d"), printed) == "(more printed: b 22 c)"  # a line left out fails
    assert mismatch(("a 1",), printed) == "(more printed: b 22 c)"
    assert mismatch(("a 1", "..."), printed) == ""
    assert mismatch(("d",), "# LLVM 22.1.8 from /usr/lib/llvm-22/bin\nd\n") == ""  # a note on stderr
