"""`harness matrix`: the same cases on several LLVM builds, side by side.

A *build* is an LLVM bin directory and, optionally, an opt pipeline run before llc, written
`DIR::PIPELINE` (`/usr/lib/llvm-22/bin::instcombine`), so one build can be compared with itself
plus a pass. The selected cases run on each build through the Runner; a build that lacks the
target, CPU or intrinsic gives `unsupported` cells. The result is a *matrix document* (what
`--json` prints, what `harness report` merges and what the HTML page embeds):

    {"kind": "harness-matrix", "format": 1,
     "builds": [{"id", "version", "bin", "pipeline"}],          # columns, in --llvm-bin order
     "selection": {...}, "shard": "K/N" | null,
     "counts": [{verdict: n, ...} per build],
     "cells": [{"function", "intrinsic", "cpu", "opt", "pipeline", "class", "fmt_a", "fmt_b",
                "width_a", "width_b", "required_a", "required_b", "selector",
                ["args", "narrowing", "elem_a", "elem_b"],
                "verdicts": [per build], "details": [per build: the tool's first message],
                "metrics": [per build: {vgpr, agpr, sgpr, ...} or null],
                "commands": [per build: the `harness try ...` line that reproduces it, or null],
                "differs": verdicts not all equal,
                "changed": the verdicts of the builds that judge it (not unsupported, not timeout) differ,
                ["grid": NVPTX cells: {"title": family and shape, "row": the variant}]}]}

A cell's `pipeline` is the case's own; the build's pipeline runs after it (`P,Q`).
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.checks import expand
from harness.core import commands, files
from harness.core import verdicts as V
from harness.core.commands import Selector
from harness.core.errors import PATH_LIMIT, InputError, printable, quoted, shortened
from harness.core.verdicts import Verdict
from harness.reports import expectations, report
from harness.specs import cases, selection
from harness.specs.cases import Case, Planned
from harness.targets import NVPTX, catalog
from harness.targets.catalog import Side
from harness.tools import cache, distributed, toolchain
from harness.tools.runner import Runner, StderrProgress

KIND = "harness-matrix"
FORMAT = 1
SEPARATOR = "::"

DESCRIPTION = """\
Run the selected cases on several LLVM builds and show each case's verdict side by side: by
default only the cases whose verdict or register cost differs between builds, then the verdict
counts per build and the differing cells per intrinsic and format pair.

A build is --llvm-bin DIR, or DIR::PIPELINE to run `opt -passes=PIPELINE` before llc on that
build (after any pipeline the case itself names). Repeat --llvm-bin for each column.

examples:
  harness matrix --spec f8f6f4-runtime-formats.yaml --llvm-bin /usr/lib/llvm-22/bin --llvm-bin /usr/lib/llvm-14/bin
  harness matrix --intrinsic wmma.f32.16x16x128.f8f6f4 --llvm-bin /usr/lib/llvm-22/bin \\
                 --llvm-bin /usr/lib/llvm-22/bin::instcombine --html /tmp/matrix.html
  harness matrix --shard 1/4 --json > s1.json ...; harness report s*.json --html all.html
"""

EPILOG = """\
Tool runs are cached on disk (keyed by the tools' and their libraries' content, the command line
and the module text), so asking again costs almost nothing; --no-cache bypasses the cache.
exit status: 0, or 1 when a build gives a cell an unexpected verdict (not its expected one, not a
known bug of that build); a difference between builds is output, not failure; 2 bad input.
"""


@dataclass(frozen=True)
class Build:
    """One column of the comparison: an LLVM build and the opt pipeline it runs before llc."""

    id: str
    toolchain: toolchain.Toolchain
    pipeline: str  # "none": straight to llc
    bin: str

    def record(self) -> dict:
        return {"id": self.id, "version": self.toolchain.version, "bin": self.bin, "pipeline": self.pipeline}


def parse_build(text: str) -> tuple[str, str]:
    """`DIR` or `DIR::PIPELINE` -> (DIR, PIPELINE or "none")."""
    directory, sep, pipeline = text.rpartition(SEPARATOR) if SEPARATOR in text else (text, "", "none")
    if not directory.strip():
        raise InputError(f"--llvm-bin {quoted(text)}: no directory before {SEPARATOR}")
    if sep and commands.pass_pipeline_error(pipeline):
        raise InputError(
            f"--llvm-bin {quoted(text)}: write DIR::PIPELINE, e.g. {shortened(directory, PATH_LIMIT)}::instcombine; the pipeline is "
            + commands.pass_pipeline_error(pipeline)
        )
    return directory, pipeline


def builds(texts: list[str] | None, timeout: float, store: cache.Cache | None) -> list[Build]:
    """The builds named by --llvm-bin (none: the build `harness run` would take)."""
    out: list[Build] = []
    seen: set[tuple[str, str]] = set()
    for text in texts or [""]:
        directory, pipeline = parse_build(text) if text else ("", "none")
        tc = toolchain.discover(directory or None, timeout, store is not None)
        where = str(tc.bin_dir) if tc.bin_dir else "PATH"
        if (where, pipeline) in seen:
            raise InputError(f"--llvm-bin {quoted(text)}: this build and pipeline are already a column")
        seen.add((where, pipeline))
        tc = store.wrap(tc) if store is not None else tc
        label = tc.version + ("" if pipeline == "none" else "+" + pipeline)
        out.append(Build(label, tc, pipeline, where))
    ids = [b.id for b in out]
    return [dataclasses.replace(b, id=f"{b.id} ({b.bin})") if ids.count(b.id) > 1 else b for b in out]


def _moved(case: Case, pipeline: str) -> Case:
    if pipeline == "none":
        return case
    return dataclasses.replace(case, pipeline=pipeline if case.pipeline == "none" else f"{case.pipeline},{pipeline}")


def compare(
    columns: list[Build],
    planned: list[Planned],
    jobs: int | None = None,
    progress=None,
    cases_dir: Path | None = None,
    engine=None,
    narrowed: bool = False,
) -> list[dict]:
    """Every (case, selector) of `planned` on every build: the document's cells, in order; with
    `cases_dir`, each verdict judged against its cell's expectation and that build's known bugs."""
    first: dict[tuple, tuple[Case, Selector]] = {}
    for p in planned:
        for sel in p.selectors:
            first[(p.case.sort_key(), sel)] = (p.case, sel)
    results: list[dict[tuple, Verdict]] = []  # per build: (case key, selector) -> its verdict there
    judged: list[dict[tuple, expectations.Judged]] = []  # per build: (case key, selector) -> its judgment there
    for build in columns:
        found: dict[tuple, Verdict] = {}
        results.append(found)
        judgments: dict[tuple, expectations.Judged] = {}
        judged.append(judgments)
        origin = {}
        plan = []
        for p in planned:
            moved = _moved(p.case, build.pipeline)
            origin[moved.sort_key()] = p.case.sort_key()
            plan.append(Planned(moved, p.selectors, p.origins))
        runner = Runner(build.toolchain, jobs, progress, engine=engine)
        groups = expand.lit_groups(plan, cases_dir)
        blocked = _unknown_pipelines(runner, groups)
        for g in groups:
            for c in g.cases:
                why = blocked.get((g.filename, c.intrinsic.name), "")
                for sel in g.selectors if why else ():
                    found[(origin[c.sort_key()], sel)] = Verdict(V.UNSUPPORTED, why)
        judge = expectations.Judge(cases_dir, build.toolchain.version, groups, narrowed) if cases_dir is not None else None
        outcomes = runner.run([g for g in groups if g.filename not in {f for f, _ in blocked}])
        for o in outcomes:
            found[(origin[o.case.sort_key()], o.selector)] = o.verdict
        for j in judge.all(outcomes) if judge is not None else ():  # (a file's cells together, as lit judges it)
            judgments[(origin[j.outcome.case.sort_key()], j.outcome.selector)] = j
    records = [b.record() for b in columns]
    cells = [cell(case, sel, [column[key] for column in results], records) for key, (case, sel) in first.items()]
    if cases_dir is not None:
        for record, key in zip(cells, first):
            record.update(_judgments([column.get(key) for column in judged]))
    return sorted(cells, key=report.cell_order)


def _judgments(column: list[expectations.Judged | None]) -> dict:
    """A matrix cell's judgment on each build and, where a build lists the lit file it is a cell
    of, that file and how many cells it has per build (0: not listed there), so `report` can
    judge the file whole from the cells of every shard, as `run`'s records let it."""
    out: dict[str, Any] = {"judgments": [str(j.judgment) if j else str(expectations.Judgment.NOT_JUDGED) for j in column]}
    whole = [j.file_cells if j else 0 for j in column]
    if any(whole):
        out["file"] = next(j.file for j in column if j and j.file_cells)
        out["file_cells"] = whole
    return out


def _unknown_pipelines(runner: Runner, groups: list[cases.Group]) -> dict[tuple[str, str], str]:
    """(group file name, intrinsic name) -> why this build cannot run the group's pipeline, for
    each group whose pipeline this build's opt rejects (a pass newer than the build): those cells
    are `unsupported` (with the build's own reason when it lacks the CPU or intrinsic anyway), not
    an error."""
    reasons = runner.unsupported(groups)
    failed: dict[str, str] = {}
    out: dict[tuple[str, str], str] = {}
    for g in groups:
        if g.pipeline == "none":
            continue
        if g.pipeline not in failed:
            run = runner.tc.run("opt", [*cases.opt_command(g.cases[0], g.pipeline).args, "-disable-output"], "")
            lines = [l.strip() for l in run.stderr.splitlines() if l.strip() and "not a recognized processor" not in l]
            failed[g.pipeline] = "" if run.ok else (lines or ["opt failed"])[0]
        for intr in g.intrinsics if failed[g.pipeline] else ():
            why = f"this build's opt cannot run pipeline {g.pipeline!r}: {failed[g.pipeline]}"
            out[(g.filename, intr.name)] = reasons[(g.filename, intr.name)] or why
    return out


def cell(case: Case, selector: Selector, verdicts: list[Verdict], build_records: list[dict]) -> dict:
    c = case
    out: dict[str, Any] = {**report.case_fields(c), "selector": selector}
    for side in Side:
        if c.elem(side) != c.intrinsic.source(side).elem:  # an element type the intrinsic does not take
            out["elem_" + side] = c.elem(side)
    if c.intrinsic.target is NVPTX:
        out["grid"] = nvptx_grid(c.intrinsic.mnemonic)
    out["verdicts"] = [v.verdict for v in verdicts]
    out["details"] = [v.detail for v in verdicts]
    out["metrics"] = [v.details.get("metrics") or None for v in verdicts]
    out["commands"] = [try_command(out, b) for b in build_records]
    out["differs"] = len(set(out["verdicts"])) > 1
    out["changed"] = report.changed(out)
    return out


def nvptx_grid(mnemonic: str) -> dict[str, str]:
    """Where an NVPTX cell goes in the HTML page: the grid of its instruction family and shape
    (`NVPTX mma m16n8k16`), the row of its variant as the ISA spells it (`row.col.f32.f16.f16.f32`)."""
    family, _, rest = mnemonic.partition(".sync.aligned.")
    shape, _, variant = rest.partition(".")
    return {"title": f"NVPTX {family} {shape}", "row": variant}


def try_command(cell: dict, build: dict) -> str | None:
    """The `harness try` line that reproduces one cell on one build (None: try cannot say it,
    e.g. a non-i32 element type)."""
    if "elem_a" in cell or "elem_b" in cell:
        return None
    words = [
        "harness",
        "try",
        "--intrinsic",
        cell["intrinsic"],
        "--fmt-a",
        cell["fmt_a"],
        "--fmt-b",
        cell["fmt_b"],
        "--width-a",
        str(cell["width_a"]),
        "--width-b",
        str(cell["width_b"]),
        "--selector",
        cell["selector"],
    ]
    if cell.get("opt"):
        words += ["-O", str(cell["opt"])]
    try:
        default_cpu = catalog.lookup(cell["intrinsic"]).default_cpu
    except KeyError:
        default_cpu = None
    if cell.get("cpu") and cell["cpu"] != default_cpu:
        words += ["--cpu", cell["cpu"]]
    pipeline = cell.get("pipeline", "none")
    extra = build.get("pipeline", "none")
    if extra != "none":
        pipeline = extra if pipeline == "none" else f"{pipeline},{extra}"
    if pipeline != "none":
        words += ["--pipeline", pipeline]
    for index, value in (cell.get("args") or {}).items():
        words += ["--arg", f"{index}={value}"]
    if cell.get("narrowing"):
        words += ["--narrowing", cell["narrowing"]]
    if build.get("bin") and build["bin"] != "PATH":
        words += ["--llvm-bin", build["bin"]]
    return shlex.join(words)


def document(columns: list[dict], cells: list[dict], selected: dict, shard: str | None) -> dict:
    return {
        "kind": KIND,
        "format": FORMAT,
        "builds": columns,
        "selection": selected,
        "shard": shard,
        "counts": report.matrix_counts(cells, len(columns)),
        "cells": cells,
    }


# ---- command line --------------------------------------------------------------------------------


def add_parser(sub, formatter_class=argparse.RawDescriptionHelpFormatter) -> argparse.ArgumentParser:
    p = selection.command(
        sub, "matrix", "compare LLVM builds side by side on the same cases", DESCRIPTION, EPILOG, formatter_class
    )
    selection.add_spec_flags(p)
    selection.add_space_flag(p)
    selection.add_case_flags(p)
    p.add_argument(
        "--llvm-bin",
        action="append",
        metavar="DIR[::PIPELINE]",
        help="an LLVM bin directory, optionally with an opt pipeline run before llc (repeat: one column each)",
    )
    p.add_argument("-j", "--jobs", type=selection.jobs, default=None, metavar="N", help="parallel tool runs (default: cores)")
    selection.add_timeout(p)
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the matrix document (JSON)")
    fmt.add_argument("--markdown", action="store_true", help="print a markdown summary for a review")
    p.add_argument("--html", type=Path, metavar="FILE", help="also write a self-contained HTML page of the grids")
    p.add_argument("--all", action="store_true", help="text: list every case, not only those that differ")
    p.add_argument("--cost", action="store_true", help="text: also list the cases whose register cost alone differs")
    cache.add_flags(p)
    distributed.add_flags(p)
    return p


def selection_record(args) -> dict:
    """The flags that chose the cases (not the shard), so shards of one selection can be merged."""
    keys = ("spec", "filter", "intrinsic", "fmt_a", "fmt_b", "width_a", "width_b", "selector", "opt", "pipeline", "cpu")
    out = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    if getattr(args, "space", "specs") != "specs":
        out["space"] = args.space
    if "spec" in out:
        out["spec"] = [Path(s).name for s in out["spec"]]
    return {k: sorted(set(v)) if isinstance(v, list) else v for k, v in out.items()}


def check_output_path(path: Path | None) -> None:
    if path is not None and (not path.parent.is_dir() or path.is_dir()):
        raise InputError(f"--html {path}: {'is a directory' if path.is_dir() else 'no such directory'}")


def emit(doc: dict, args) -> None:
    """Write --html (atomically) and print the chosen format; shared with `harness report`."""
    if args.html:
        from harness.reports import html_report

        files.write_output(args.html, html_report.render(doc), "--html")
        print(f"# wrote {args.html}", file=sys.stderr)
    if args.json:
        print(files.json_text(doc))
    elif args.markdown:
        print(report.matrix_markdown(doc), end="")
    else:
        print(report.matrix_text(doc, args.all, args.cost))


def main(args) -> int:
    check_output_path(args.html)
    with distributed.connected(args) as engine:
        return _matrix(args, engine)


def _matrix(args, engine) -> int:
    planned = selection.planned(args, direct_ok=False)
    store = cache.from_args(args)
    columns = builds(args.llvm_bin, args.timeout, store)
    for b in columns:  # a pipeline opt cannot parse is bad input, found before anything runs
        if b.pipeline != "none" and planned:
            Runner(b.toolchain).check_pipeline(planned[0].case, b.pipeline)
    files.not_an_input(args.html, "--html")  # (the specs and builds read so far; again when written)
    for b in columns:
        print(f"# {b.id}: {b.toolchain.describe()}", file=sys.stderr)
    progress = StderrProgress.for_output(args.json)
    cells = compare(columns, planned, args.jobs, progress, args.cases, engine, narrowed=bool(args.selector))
    shard = f"{args.shard[0]}/{args.shard[1]}" if args.shard else None
    if store is not None:
        print(f"# {store.summary()}", file=sys.stderr)
    why = nothing_judged(cells)
    status = expectations.NOTHING_JUDGED if why else 1 if any(expectations.UNEXPECTED in c["judgments"] for c in cells) else 0
    with files.answering(status, why and f"harness matrix: error: {why}"):
        emit(document([b.record() for b in columns], cells, selection_record(args), shard), args)
    return status


def nothing_judged(cells: list[dict]) -> str:
    """Why no build judged any cell (each unsupported or timed out, one cell's detail for an
    example), or "" when some build judged one: a comparison of nothing must not pass."""
    if not cells or any(j != expectations.Judgment.NOT_JUDGED for c in cells for j in c["judgments"]):
        return ""
    first = cells[0]
    detail = next((d for d in first["details"] if d), "")
    return (
        f"nothing judged: no build can judge any of the {len(cells)} cell(s) (unsupported or timeout), "
        f"e.g. {first['function']} [{first['selector']}]: {printable(detail.splitlines()[0] if detail else '')}"
    )


COMMANDS = {"matrix": main}
