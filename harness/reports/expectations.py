"""Every verdict held against its cell's expectation and the known bugs of its build.

A cell's expected verdict follows from its file class alone, which follows from the ISA's rows
and processor table, never from llc: a processor without the instruction must reject it cleanly
(`llc-reject`), a call the IR verifier must refuse is `verifier-reject` (also after a pipeline
that must leave a malformed call alone), everything else must `pass`; `meets` adds what the
class's lit file checks beside the verdict (an object's tuples, a diagnostic's operands).

`known-bugs.yaml` marks lit files XFAIL for one exact LLVM version, and the judgments follow lit
file by file (`Judge.all`, the one rule of `run`, `try`, `matrix`, `bisect-run` and lit's space
tests), each cell held against the file lit has for it (`lit_index`): in a listed file that shows
the bug (a cell of it does not meet its expectation), such a cell is a known bug and the others
are expected (lit: XFAIL); a listed file none of whose cells shows it is an unexpected pass, every
cell of it unexpected (lit: XPASS, a failure) — decided only where every cell of that file was
judged (`unexpected_pass`, which `report` applies again to the merged records of shards), for a
run narrowed to part of it (one selector, one case, a shard) cannot tell: its cells stay
expected; a name lit has no file for (a `space/` glob's) is never one. An unlisted cell that does
not meet its expectation is unexpected. `unsupported` (the build cannot judge the cell) and
`timeout` are neither: not judged.
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
    if case.file_class in (FileClass.ABSENT, FileClass.ISA_INVALID):
        return V.LLC_REJECT
    if case.file_class in VERIFIER_CLASSES or case.file_class == FileClass.IR_MALFORMED:
        return V.VERIFIER_REJECT
    return V.PASS


def meets(case: Case, verdict: V.Verdict) -> bool:
    """Whether a verdict is what a correct build gives, as the cell's lit file checks it: an
    `object` case's object holds the ISA's tuples (the text it was assembled from may be the
    over-wide one, which `overwide` files hold); a diagnostic names the operands it is about."""
    code = verdict.verdict
    if case.file_class == FileClass.ISA_INVALID:  # rejected by the verifier or by llc: either will do
        return code in (V.LLC_REJECT, V.VERIFIER_REJECT)
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
    reason: str = ""  # why known-bugs.yaml lists the file ("": it does not)
    unexpected_pass: bool = False  # unexpected because its listed file shows the bug nowhere (XPASS)
    file_cells: int = 0  # of a cell of a listed file lit has: the cells of that file (`Place.cells`)


Cell = tuple[Case, Selector]


@dataclass(frozen=True)
class Place:
    """Where a cell stands: its file, why known-bugs.yaml lists that file ("": it does not) and,
    where the file is one lit has that holds this cell and is listed, how many cells the file has
    (0 otherwise: a name lit has no file for, or a cell lit's file does not hold, is never judged
    whole)."""

    file: str
    reason: str = ""
    cells: int = 0


def shows(case: Case, fine: bool) -> bool:
    """Whether a judged cell of a listed file shows the bug (lit's XFAIL holds): its verdict does
    not meet its expectation, or its class checks more than any verdict says."""
    return not fine or case.file_class in BEYOND_THE_VERDICT


def unexpected_pass(cells: int, judged: int, shown: bool) -> bool:
    """lit's XPASS of a listed file, from what one run (or the merged shards of one) judged of it:
    `judged` of the file's `cells` (as the specs make it), whether one of them shows the bug. Only
    a run that judged every cell of the file can tell; of part of it (one selector, one case, a
    shard) it is never said, nor of a file lit lacks (`cells` 0). Judge and `report` alike."""
    return 0 < cells == judged and not shown


class Judge:
    """Judges outcomes of one build: its version's known bugs, each cell's file from its group.

    A cell's file is the one lit has for it (`lit_index`: the files `harness expand` writes, by
    what the specs make, never what happens to be on disk), so a cell is judged the same before
    and after `expand` writes its file and whatever selectors or cases a run narrows to; a cell
    of no such file has the name its group gives it, which a glob under `space/` (first) or
    `generated/` may list. The specs are planned only when a glob can name the cell's file."""

    def __init__(self, cases_dir: Path, version: str, groups: list[Group], narrowed: bool = False):
        """`narrowed`: the run kept one selector of the specs' cells (--selector), so a group's
        file name is not lit's: each cell's file is then looked up in lit's files."""
        self.known = known_bugs.load(cases_dir)
        self.narrowed = narrowed
        self.cases_dir = Path(cases_dir)
        self.version = version
        self.groups: dict[Cell, Group] = {(p.case, s): g for g in groups for p in g.members for s in g.selectors}
        self._reasons: dict[str, tuple[str, str]] = {}  # name -> (reason under generated/, under space/)
        self._lit: tuple[dict[str, frozenset[Cell]], dict[Cell, tuple[str, int]]] | None = None  # (lit_files, lit_index)

    def __call__(self, outcome: Outcome) -> Judged:
        """One outcome judged alone: what `all` says of it when it is all that was run."""
        return self.all([outcome])[0]

    def all(self, outcomes: list[Outcome]) -> list[Judged]:
        """Each outcome judged, the other cells of its listed file among `outcomes` in view."""
        if self._lit is None and (self.narrowed or any(self._may_be_listed(o.case) for o in outcomes)):
            self._lit = _lit(self.cases_dir)
        places = [self.place((o.case, o.selector)) for o in outcomes]
        fine = [meets(o.case, o.verdict) for o in outcomes]
        judged: dict[str, set[Cell]] = {}  # a listed lit file -> its cells judged here
        shown: set[str] = set()
        for o, ok, at in zip(outcomes, fine, places):
            if at.cells and o.verdict.verdict not in NOT_JUDGED_VERDICTS:
                judged.setdefault(at.file, set()).add((o.case, o.selector))
                if shows(o.case, ok):
                    shown.add(at.file)
        size = {at.file: at.cells for at in places if at.cells}
        gone = {name for name, cells in judged.items() if unexpected_pass(size[name], len(cells), name in shown)}
        return [_judged(o, ok, at, bool(at.cells) and at.file in gone) for o, ok, at in zip(outcomes, fine, places)]

    def place(self, cell: Cell) -> Place:
        """The cell's file and its listing: the file lit has for it, else the name its group
        gives it, under both selectors too (a run narrowed to one names a file of its own).
        Where no glob can name a file of the cells judged (`all`), the specs are not planned
        and the file is the name its group gives it."""
        g = self.groups.get(cell)
        if g is None:
            return Place("")
        names = _names(g)
        if self._lit is None:
            return Place(names[0])
        lit = self._lit[1].get(cell)
        if lit is not None:  # (a file lit has is listed by lit's globs alone: the XFAIL lit applies)
            reason = self._reason(lit[0])[0]
            return Place(lit[0], reason, lit[1] if reason else 0)
        for name in names:  # (lit has no file of these cells: the space's globs first, the more specific)
            generated, space = self._reason(name)
            if space and name not in self._lit[0]:
                return Place(name, space)
            if generated:
                return Place(name, generated)
        # (no file: the name the cell's group has unnarrowed, where --selector narrowed it)
        return Place(names[-1] if self.narrowed and len(g.intrinsic.target.selectors) > 1 else names[0])

    def _may_be_listed(self, case: Case) -> bool:
        """Whether a glob names a file the case can be in (whatever file lit has for it)."""
        return any(any(self._reason(n)) for n in cases.file_names(case))

    def _reason(self, name: str) -> tuple[str, str]:
        """(why a glob under generated/ lists the name, why one under space/ does; "": none)."""
        if name not in self._reasons:
            generated = known_bugs.reason_for(self.known, self.version, f"generated/{name}")
            self._reasons[name] = (generated, known_bugs.reason_for(self.known, self.version, f"space/{name}"))
        return self._reasons[name]


def _judged(o: Outcome, fine: bool, at: Place, gone: bool) -> Judged:
    expected = expected_verdict(o.case)
    if o.verdict.verdict in NOT_JUDGED_VERDICTS:
        judgment = Judgment.NOT_JUDGED
    elif at.reason and shows(o.case, fine):
        judgment = Judgment.KNOWN_BUG
    else:
        judgment = Judgment.EXPECTED if fine and not gone else Judgment.UNEXPECTED
    passed = gone and judgment == Judgment.UNEXPECTED
    return Judged(o, judgment, expected, at.file, at.reason, passed, at.cells)


def _cells(members, selectors) -> set[Cell]:
    """A file's cells: each member case under each of its selectors that the case's target has
    (an NVPTX case's GlobalISel cell is never compiled: lit runs no such cell)."""
    return {(p.case, s) for p in members for s in selectors if s in p.case.intrinsic.target.selectors}


# (cases dir, its files' stat) -> (lit_files, lit_index)
_LIT: dict[tuple, tuple[dict[str, frozenset[Cell]], dict[Cell, tuple[str, int]]]] = {}


def lit_files(cases_dir: Path) -> dict[str, frozenset[Cell]]:
    """Name under generated/ -> its cells, for every case file the specs in `cases_dir` make: the
    files `harness expand` writes there (`expand.lit_groups`); none without specs. Planned once
    per process and state of the files."""
    return _lit(cases_dir)[0]


def lit_index(cases_dir: Path) -> dict[Cell, tuple[str, int]]:
    """Cell -> (the file lit has for it, how many cells that file has), for every cell of `lit_files`."""
    return _lit(cases_dir)[1]


def _lit(cases_dir: Path) -> tuple[dict[str, frozenset[Cell]], dict[Cell, tuple[str, int]]]:
    try:
        paths = matrix.spec_files(cases_dir)
    except InputError:  # (no directory, no spec in it: lit has no file there)
        return {}, {}
    bugs = cases_dir / known_bugs.FILENAME
    state = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths if p.exists())
    key = (str(cases_dir.resolve()), state, bugs.exists() and (bugs.stat().st_mtime_ns, bugs.stat().st_size))
    if key not in _LIT:
        if len(_LIT) >= 4:  # (a process that rewrites its specs keeps only the newest few)
            _LIT.clear()
        groups = expand.lit_groups(matrix.plan(paths), cases_dir)
        files = {g.filename: frozenset(_cells(g.members, g.selectors)) for g in groups}
        _LIT[key] = files, {cell: (name, len(cells)) for name, cells in files.items() for cell in cells}
    return _LIT[key]


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


NOTHING_JUDGED = 2  # the exit status of a run of this build that could judge none of its cells


def nothing_judged(judged: list[Judged]) -> str:
    """Why a run judged none of its cells (every one unsupported or timed out, one cell's detail
    for an example), or "" when it judged any: a run that tested nothing must not pass."""
    if not judged or any(j.judgment != Judgment.NOT_JUDGED for j in judged):
        return ""
    first = judged[0].outcome
    return (
        f"nothing judged: this build cannot judge any of the {len(judged)} cell(s) (unsupported or timeout), "
        f"e.g. {first.case.function} [{first.selector}]: {_first_line(first.verdict.detail, 300)}"
    )


def in_words(j: Judged) -> str:
    """One cell's judgment as `try` prints it."""
    if j.judgment == Judgment.KNOWN_BUG:
        return f"known bug of LLVM {_first_line(j.reason, 400)} (expected {j.expected}; known-bugs.yaml lists {j.file})"
    if j.judgment == Judgment.NOT_JUDGED:
        return "not judged: this build cannot judge the cell"
    if j.unexpected_pass:
        return f"unexpected pass: {GONE}; known-bugs.yaml lists {j.file}: {_first_line(j.reason, 300)}"
    why = j.outcome.case.isa_invalid if j.expected != V.PASS else ""
    return f"{j.judgment} (a correct build gives {j.expected}{': ' + why if why else ''})"


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
    """The JSON fields a cell's judgment adds to its record: the listing's reason as `known_bug`
    (a known bug), `unexpected_pass` (lit's XPASS) or, of another cell of a listed file lit has,
    `listed`; such a cell also carries `file_cells`, so `report` can judge the file whole from
    the records of its shards."""
    out: dict = {"expected": str(j.expected), "judgment": str(j.judgment), "file": j.file}
    reason = " ".join(j.reason.split())
    if j.judgment == Judgment.KNOWN_BUG:
        out["known_bug"] = reason
    elif j.unexpected_pass:
        out["unexpected_pass"] = reason
    elif j.file_cells:
        out["listed"] = reason
    if j.file_cells:
        out["file_cells"] = j.file_cells
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
