"""Every verdict held against its cell's expectation and the known bugs of its build.

A cell's expected verdict follows from its file class alone, which follows from the ISA's rows
and processor table, never from llc: a processor without the instruction must reject it cleanly
(`llc-reject`), a call the IR verifier must refuse is `verifier-reject` (also after a pipeline
that must leave a malformed call alone), everything else must `pass`; `meets` adds what the
class's lit file checks beside the verdict (an object's tuples, a diagnostic's operands).

`known-bugs.yaml` marks lit files XFAIL for one exact LLVM version, and the judgments follow lit
file by file (`Judge.all`, the one rule of `run`, `try`, `matrix`, `bisect-run` and lit's space
tests): in a listed file that shows the bug (a cell of it does not meet its expectation), such a
cell is a known bug and the others are expected (lit: XFAIL); a listed file none of whose cells
shows it is an unexpected pass, every cell of it unexpected (lit: XPASS, a failure) — decided only
where the cells judged are the whole file, for a run narrowed to part of it (one selector, one
case, a shard) cannot tell: its cells stay expected. An unlisted cell that does not meet its
expectation is unexpected. `unsupported` (the build cannot judge the cell) and `timeout` are
neither: not judged.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from harness.checks import expand
from harness.core import verdicts as V
from harness.core.commands import Selector
from harness.core.errors import InputError
from harness.specs import cases, known_bugs, matrix
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
    file: str  # the cell's lit file under generated/ (the one known-bugs.yaml lists, where one does)
    reason: str = ""  # the known bug's reason (of a known bug, or of one that no longer reproduces)
    unexpected_pass: bool = False  # unexpected because its listed file shows the bug nowhere (XPASS)


Cell = tuple[Case, Selector]


class Judge:
    """Judges outcomes of one build: its version's known bugs, each cell's file from its group.

    Whether lit has a file of a name is what the specs say (`lit_files`: the files `harness
    expand` writes), never what happens to be on disk: a glob under `space/` names cells of a name
    the specs give no file, a glob under `generated/` the files lit runs, so a cell is judged the
    same before and after `expand` writes its file (and on a checkout whose generated/ is stale),
    and as lit judges the file once it is written."""

    def __init__(self, cases_dir: Path, version: str, groups: list[Group]):
        self.known = known_bugs.load(cases_dir)
        self.cases_dir = Path(cases_dir)
        self.version = version
        self._seen: dict[tuple[str, ...], tuple[str, str] | None] = {}  # names -> what _listed found
        # Each cell's lit file, and the file the specs give it under both selectors (a run or a
        # try narrowed to one selector names a file of its own, which no entry may list).
        self.files: dict[Cell, tuple[str, ...]] = {(p.case, s): _names(g) for g in groups for p in g.members for s in g.selectors}
        # The cells each of those names holds, for a name the specs give no file (a space cell's).
        self._cells: dict[str, set[Cell]] = {}
        for g in groups:
            for name, selectors in zip(_names(g), (g.selectors, SELECTORS)):
                self._cells.setdefault(name, set()).update(_cells(g.members, selectors))

    def __call__(self, outcome: Outcome) -> Judged:
        """One outcome judged alone: what `all` says of it when it is all that was run."""
        return self.all([outcome])[0]

    def all(self, outcomes: list[Outcome]) -> list[Judged]:
        """Each outcome judged, its listed file's other cells among `outcomes` in view."""
        looks = [(meets(o.case, o.verdict), self._listed(self.files.get((o.case, o.selector), ()))) for o in outcomes]
        judged = {(o.case, o.selector) for o in outcomes if o.verdict.verdict not in NOT_JUDGED_VERDICTS}
        shown = {
            listed[0]
            for o, (fine, listed) in zip(outcomes, looks)
            if listed and (o.case, o.selector) in judged and (not fine or o.case.file_class in BEYOND_THE_VERDICT)
        }
        unshown = {listed[0] for _, listed in looks if listed and listed[0] not in shown}
        gone = {name for name in unshown if self._whole(name, judged)}
        return [self._judged(o, fine, listed, shown, gone) for o, (fine, listed) in zip(outcomes, looks)]

    def _judged(self, o: Outcome, fine: bool, listed: tuple[str, str] | None, shown: set[str], gone: set[str]) -> Judged:
        expected = expected_verdict(o.case)
        names = self.files.get((o.case, o.selector), ())
        name = listed[0] if listed else (names[0] if names else "")
        if o.verdict.verdict in NOT_JUDGED_VERDICTS:
            return Judged(o, Judgment.NOT_JUDGED, expected, name)
        if listed and name in shown and (not fine or o.case.file_class in BEYOND_THE_VERDICT):
            return Judged(o, Judgment.KNOWN_BUG, expected, *listed)
        if listed and name in gone:
            return Judged(o, Judgment.UNEXPECTED, expected, *listed, unexpected_pass=True)
        return Judged(o, Judgment.EXPECTED if fine else Judgment.UNEXPECTED, expected, name)

    def _whole(self, name: str, judged: set[Cell]) -> bool:
        """Whether `judged` holds every cell of the file `name` (as lit runs it: the specs' file,
        or for a name they give none, the cells the run's groups give it)."""
        cells = self._lit().get(name) or self._cells.get(name, set())
        return bool(cells) and cells <= judged

    def _lit(self) -> dict[str, frozenset[Cell]]:
        return lit_files(self.cases_dir)

    def _listed(self, names: tuple[str, ...]) -> tuple[str, str] | None:
        """(file, reason) of the first known-bugs.yaml entry that lists a cell's file, else None.
        A file lit has is listed by lit's globs alone (the XFAIL lit applies); one it lacks by
        the space's globs first (the more specific), then lit's."""
        if names not in self._seen:
            self._seen[names] = self._find(names)
        return self._seen[names]

    def _find(self, names: tuple[str, ...]) -> tuple[str, str] | None:
        for name in names:
            space = known_bugs.reason_for(self.known, self.version, f"space/{name}")
            if space and name not in self._lit():
                return name, space
            reason = known_bugs.reason_for(self.known, self.version, f"generated/{name}")
            if reason:
                return name, reason
        return None


def _cells(members, selectors) -> set[Cell]:
    """A file's cells: each member case under each of its selectors that the case's target has
    (an NVPTX case's GlobalISel cell is never compiled: lit runs no such cell)."""
    return {(p.case, s) for p in members for s in selectors if s in p.case.intrinsic.target.selectors}


_LIT_FILES: dict[tuple, dict[str, frozenset[Cell]]] = {}  # (cases dir, its files' stat) -> lit_files


def lit_files(cases_dir: Path) -> dict[str, frozenset[Cell]]:
    """Name under generated/ -> its cells, for every case file the specs in `cases_dir` make: the
    files `harness expand` writes there (grouped as `expand.render` groups them, by the known bugs
    of the same directory); none without specs. Planned once per process and state of the files."""
    try:
        paths = matrix.spec_files(cases_dir)
    except InputError:  # (no directory, no spec in it: lit has no file there)
        return {}
    bugs = cases_dir / known_bugs.FILENAME
    state = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths if p.exists())
    key = (str(cases_dir.resolve()), state, bugs.exists() and (bugs.stat().st_mtime_ns, bugs.stat().st_size))
    if key not in _LIT_FILES:
        if len(_LIT_FILES) >= 4:  # (a process that rewrites its specs keeps only the newest few)
            _LIT_FILES.clear()
        groups = cases.group(matrix.plan(paths), expand.known_fate(cases_dir))
        _LIT_FILES[key] = {g.filename: frozenset(_cells(g.members, g.selectors)) for g in groups}
    return _LIT_FILES[key]


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
    lines = [f"UNEXPECTED: {r['function']} [{r['selector']}, {r['cpu']}, -O{r['opt']}]: {_what_came(r)}" for r in bad[:limit]]
    if len(bad) > limit:
        lines.append(f"... and {len(bad) - limit} more unexpected (--json lists every one)")
    return lines


def _what_came(r: dict) -> str:
    if "unexpected_pass" in r:
        return f"{r['verdict']}, as a correct build gives, but known-bugs.yaml lists {r.get('file')}: {GONE}"
    return f"{r['verdict']}, expected {r['expected']}: {_first_line(r.get('detail') or '')}"


# What an unexpected pass says: lit's XPASS, the entry to remove (or narrow) for this version.
GONE = "the known bug no longer reproduces (no cell of the file shows it; lit: XPASS)"


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
    if j.unexpected_pass:
        return f"unexpected pass: {GONE}; known-bugs.yaml lists {j.file}: {_first_line(j.reason, 300)}"
    return f"{j.judgment} (a correct build gives {j.expected})"


def in_brief(j: Judged) -> str:
    """One cell's judgment in a few words, for a line of its own."""
    if j.judgment == Judgment.NOT_JUDGED:
        return "not judged"
    if j.judgment == Judgment.EXPECTED:
        return "expected"
    if j.unexpected_pass:
        return "UNEXPECTED pass (the known bug no longer reproduces)"
    return f"{'known bug' if j.judgment == Judgment.KNOWN_BUG else 'UNEXPECTED'} (expected {j.expected})"


def record(j: Judged) -> dict:
    """The JSON fields a cell's judgment adds to its record."""
    out = {"expected": str(j.expected), "judgment": str(j.judgment), "file": j.file}
    if j.reason:
        out["unexpected_pass" if j.unexpected_pass else "known_bug"] = " ".join(j.reason.split())
    return out


def count_record(judged: list[Judged] | Counter) -> dict:
    c = judged if isinstance(judged, Counter) else counts(judged)
    return {str(k): c[k] for k in JUDGMENTS}


def file_results(judged: list[Judged], known: dict, version: str) -> dict[str, str]:
    """What lit reports for each lit file, from its cells' judgments: UNSUPPORTED when no cell
    could be judged; for a file known-bugs.yaml lists for this version, XFAIL when a cell shows
    the bug, else XPASS (its cells unexpected passes); else FAIL when one is unexpected, else PASS."""
    by_file: dict[str, list[Judgment]] = {}
    for j in judged:
        by_file.setdefault(j.file, []).append(j.judgment)
    out = {}
    for name, js in by_file.items():
        judged_here = [x for x in js if x != Judgment.NOT_JUDGED]
        if not judged_here:
            out[name] = "UNSUPPORTED"
        elif known_bugs.reason_for(known, version, f"generated/{name}"):
            out[name] = "XFAIL" if Judgment.KNOWN_BUG in judged_here else "XPASS"
        elif Judgment.UNEXPECTED in judged_here:
            out[name] = "FAIL"
        else:
            out[name] = "PASS"
    return out
