"""Every verdict held against its cell's expectation and the known bugs of its build.

A cell's expected verdict follows from its file class alone, which follows from the ISA's rows
and processor table, never from llc: a processor without the instruction must reject it cleanly
(`llc-reject`), a call the IR verifier must refuse is `verifier-reject` (also after a pipeline
that must leave a malformed call alone), everything else must `pass`; `meets` adds what the
class's lit file checks beside the verdict (an object's tuples, a diagnostic's operands). A
verdict that does not meet it is a known bug when `known-bugs.yaml` lists the cell's lit file for
this exact LLVM version (the same XFAIL lit applies), else unexpected. `unsupported` (the
build cannot judge the cell) and `timeout` are neither: not judged.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from harness.core import verdicts as V
from harness.core.commands import Selector
from harness.specs import known_bugs
from harness.specs.cases import SELECTORS, VERIFIER_CLASSES, Case, FileClass, Group
from harness.tools.runner import Outcome


class Judgment(StrEnum):
    """How a verdict stands against its cell's expectation, in the order a summary lists them."""

    UNEXPECTED = "unexpected"
    KNOWN_BUG = "known-bug"
    EXPECTED = "expected"
    NOT_JUDGED = "not-judged"


JUDGMENTS: tuple[Judgment, ...] = tuple(Judgment)
UNEXPECTED = Judgment.UNEXPECTED
NOT_JUDGED_VERDICTS = (V.UNSUPPORTED, V.TIMEOUT)


# Classes whose lit checks hold more than any verdict says: the IR an opt pipeline leaves of a
# malformed call. A file of theirs that known-bugs.yaml lists is a known bug whatever the verdict.
BEYOND_THE_VERDICT = (FileClass.IR_MALFORMED,)
_DIAGNOSTIC_CLASSES = (FileClass.DIAGNOSTIC_A, FileClass.DIAGNOSTIC_B, FileClass.DIAGNOSTIC_NONE)


def expected_verdict(case: Case) -> V.VerdictCode:
    """The verdict a correct build gives the case."""
    if case.file_class == FileClass.ABSENT:
        return V.LLC_REJECT
    if case.file_class in VERIFIER_CLASSES or case.file_class == FileClass.IR_MALFORMED:
        return V.VERIFIER_REJECT
    return V.PASS


def meets(case: Case, verdict: V.Verdict) -> bool:
    """Whether a verdict is what a correct build gives, as the cell's lit file checks it: an
    `object` case's object holds the ISA's tuples (the text it was assembled from may be the
    over-wide one, which `overwide` files hold); a diagnostic names the operands it is about."""
    code = verdict.verdict
    if case.file_class == FileClass.OBJECT and code == V.MC_REJECT:
        return verdict.detail.startswith("obj-text-mismatch")
    if code != expected_verdict(case):
        return False
    return case.file_class not in _DIAGNOSTIC_CLASSES or "misattributed" not in verdict.details.get("verifier", {})


@dataclass(frozen=True)
class Judged:
    outcome: Outcome
    judgment: Judgment
    expected: V.VerdictCode
    file: str  # the cell's lit file under generated/
    reason: str = ""  # the known bug's reason


class Judge:
    """Judges outcomes of one build: its version's known bugs, each cell's file from its group."""

    def __init__(self, cases_dir: Path, version: str, groups: list[Group]):
        self.known = known_bugs.load(cases_dir)
        self.cases_dir = Path(cases_dir)
        self.version = version
        self._seen: dict[tuple[str, ...], tuple[str, str] | None] = {}  # names -> what _listed found
        # Each cell's lit file, and the file the specs give it under both selectors (a run or a
        # try narrowed to one selector names a file of its own, which no entry may list).
        self.files: dict[tuple[Case, Selector], tuple[str, ...]] = {
            (p.case, s): _names(g) for g in groups for p in g.members for s in g.selectors
        }

    def __call__(self, outcome: Outcome) -> Judged:
        case, verdict = outcome.case, outcome.verdict.verdict
        expected = expected_verdict(case)
        names = self.files.get((case, outcome.selector), ())
        name = names[0] if names else ""
        if verdict in NOT_JUDGED_VERDICTS:
            return Judged(outcome, Judgment.NOT_JUDGED, expected, name)
        fine = meets(case, outcome.verdict)
        listed = self._listed(names) if not fine or case.file_class in BEYOND_THE_VERDICT else None
        if fine and not listed:
            return Judged(outcome, Judgment.EXPECTED, expected, name)
        if listed:
            return Judged(outcome, Judgment.KNOWN_BUG, expected, *listed)
        return Judged(outcome, Judgment.UNEXPECTED, expected, name)

    def _listed(self, names: tuple[str, ...]) -> tuple[str, str] | None:
        """(file, reason) of the first known-bugs.yaml entry that lists a cell's file, else None.
        A file lit has is listed by lit's globs alone (the XFAIL lit applies); one it lacks by
        the space's globs first (the more specific), then lit's."""
        if names not in self._seen:
            self._seen[names] = self._find(names)
        return self._seen[names]

    def _find(self, names: tuple[str, ...]) -> tuple[str, str] | None:
        for name in names:
            lit_has = (self.cases_dir / "generated" / name).exists()
            for where in ("generated",) if lit_has else ("space", "generated"):
                reason = known_bugs.reason_for(self.known, self.version, f"{where}/{name}")
                if reason:
                    return name, reason
        return None

    def all(self, outcomes: list[Outcome]) -> list[Judged]:
        return [self(o) for o in outcomes]


def _names(g: Group) -> tuple[str, ...]:
    """A group's file name, then the name it has under both selectors, as the specs give it."""
    return (g.filename,) if g.selectors == SELECTORS else (g.filename, dataclasses.replace(g, selectors=SELECTORS).filename)


def counts(judged: list[Judged] | list[dict]) -> Counter:
    """Judgment -> cells, from judged outcomes or from case records that carry a judgment."""
    return Counter(Judgment(j["judgment"]) if isinstance(j, dict) else j.judgment for j in judged)


def summary(c: Counter) -> str:
    """`N expected, N known bug, N unexpected, N not judged` (every count, zeros included)."""
    words = {Judgment.EXPECTED: "expected", Judgment.KNOWN_BUG: "known bug", Judgment.UNEXPECTED: "unexpected"}
    parts = [f"{c[j]} {words[j]}" for j in (Judgment.EXPECTED, Judgment.KNOWN_BUG, Judgment.UNEXPECTED)]
    return ", ".join(parts) + f", {c[Judgment.NOT_JUDGED]} not judged (unsupported or timeout)"


def unexpected_lines(records: list[dict], limit: int = 50) -> list[str]:
    """One line per unexpected cell of these case records (the first `limit`): where, what was
    expected, what came."""
    bad = [r for r in records if r.get("judgment") == Judgment.UNEXPECTED]
    lines = [
        f"UNEXPECTED: {r['function']} [{r['selector']}, {r['cpu']}, -O{r['opt']}]: "
        f"{r['verdict']}, expected {r['expected']}: {_first_line(r.get('detail') or '')}"
        for r in bad[:limit]
    ]
    if len(bad) > limit:
        lines.append(f"... and {len(bad) - limit} more unexpected (--json lists every one)")
    return lines


def _first_line(text: str, limit: int = 160) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= limit else line[: limit - 3] + "..."


def exit_status(c: Counter) -> int:
    """1 when anything is unexpected, else 0."""
    return 1 if c[Judgment.UNEXPECTED] else 0


def in_words(j: Judged) -> str:
    """One cell's judgment as `try` prints it."""
    if j.judgment == Judgment.KNOWN_BUG:
        return f"known bug of LLVM {_first_line(j.reason, 400)} (expected {j.expected}; known-bugs.yaml lists {j.file})"
    if j.judgment == Judgment.NOT_JUDGED:
        return "not judged: this build cannot judge the cell"
    return f"{j.judgment} (a correct build gives {j.expected})"


def in_brief(j: Judged) -> str:
    """One cell's judgment in a few words, for a line of its own."""
    if j.judgment == Judgment.NOT_JUDGED:
        return "not judged"
    if j.judgment == Judgment.EXPECTED:
        return "expected"
    return f"{'known bug' if j.judgment == Judgment.KNOWN_BUG else 'UNEXPECTED'} (expected {j.expected})"


def record(j: Judged) -> dict:
    """The JSON fields a cell's judgment adds to its record."""
    out = {"expected": str(j.expected), "judgment": str(j.judgment), "file": j.file}
    if j.reason:
        out["known_bug"] = " ".join(j.reason.split())
    return out


def count_record(judged: list[Judged] | Counter) -> dict:
    c = judged if isinstance(judged, Counter) else counts(judged)
    return {str(k): c[k] for k in JUDGMENTS}


def file_results(judged: list[Judged], known: dict, version: str) -> dict[str, str]:
    """What lit reports for each lit file, from its cells' judgments: UNSUPPORTED when no cell
    could be judged; FAIL when one is unexpected; for a file known-bugs.yaml lists for this
    version, XFAIL when a cell shows the bug, else XPASS; else PASS."""
    by_file: dict[str, list[Judgment]] = {}
    for j in judged:
        by_file.setdefault(j.file, []).append(j.judgment)
    out = {}
    for name, js in by_file.items():
        judged_here = [x for x in js if x != Judgment.NOT_JUDGED]
        if not judged_here:
            out[name] = "UNSUPPORTED"
        elif Judgment.UNEXPECTED in judged_here:
            out[name] = "FAIL"
        elif known_bugs.reason_for(known, version, f"generated/{name}"):
            out[name] = "XFAIL" if Judgment.KNOWN_BUG in judged_here else "XPASS"
        else:
            out[name] = "PASS"
    return out
