"""`harness coverage`: which matrix intrinsics a build declares against the rows the harness has.

Per target and family: declared (by the build), rows (ours), missing (declared, no row: LLVM grew
the family and the harness cannot speak about it yet) and extra (rows the build does not
declare: an older build, or a name LLVM dropped). Exit 1 when anything is missing, so CI
notices a new intrinsic the day a build declares it.
"""

from __future__ import annotations

import argparse
import sys

from harness.core import files
from harness.core.errors import InputError
from harness.specs import emit, selection
from harness.targets import TARGETS, Target, catalog
from harness.tools import declared, toolchain

DESCRIPTION = """\
Which matrix intrinsics this LLVM build declares (its include/llvm/IR/Intrinsics<T>.h beside
bin/, else probed through the IR verifier for the names we have rows for), per target and
family, against the rows of the harness's catalog: declared, rows, missing (declared by the
build, no row), extra (a row the build does not declare).

examples:
  harness coverage                                   # the default build, every target
  harness coverage --llvm-bin /usr/lib/llvm-19/bin --target amdgpu
  harness coverage --json | jq '.targets.amdgpu.missing'
"""

EPILOG = """\
exit status: 0 every declared matrix intrinsic has a row, 1 some have none (they are listed),
2 bad input (no build, an unreadable header).
"""

SHOWN = 20  # missing names listed in the text output (--json has them all)


def add_parser(sub, formatter_class) -> argparse.ArgumentParser:
    p = selection.command(
        sub, "coverage", "matrix intrinsics the build declares vs the rows the harness has", DESCRIPTION, EPILOG, formatter_class
    )
    p.add_argument("--llvm-bin", metavar="DIR", help="directory with llc and opt (default: as for every command)")
    p.add_argument(
        "--target", choices=sorted(TARGETS), action="append", help="only this target (repeatable; default: every target)"
    )
    p.add_argument("--json", action="store_true", help="print the coverage document instead of the table")
    selection.add_timeout(p, "each probe of the build")
    return p


def rows(target: Target) -> dict[str, str]:
    """Full name -> a declaration, for every row the harness has for `target`."""
    # One declaration per LLVM name (its first form), as the runner probes them.
    first = [forms[0] for forms in catalog.BY_BASE.values() if forms[0].target is target]
    decls = emit.probe_declarations(first)
    return {i.symbol: decls[i.name] for i in first}


def target_record(tc: toolchain.Toolchain, target: Target) -> dict:
    ours = rows(target)
    found = declared.declared(tc, target, ours)
    names, have = set(found.names), set(ours)
    per_family: dict[str, dict[str, int]] = {}
    for family in target.matrix_families:

        def count(pool: set[str], fam: str = family) -> int:
            return sum(1 for n in pool if target.family(n) == fam)

        per_family[family] = {
            "declared": count(names),
            "rows": count(have),
            "missing": count(names - have),
            "extra": count(have - names),
        }
    return {
        "source": found.source,
        "complete": found.complete,
        "declared": sorted(names),
        "rows": sorted(have),
        "missing": sorted(names - have) if found.complete else [],
        "extra": sorted(have - names),
        "families": per_family,
    }


def table(version: str, where: str, records: dict[str, dict]) -> str:
    lines = [f"LLVM {version} at {where}"]
    for name, rec in records.items():
        lines.append(f"{name}: declared by {rec['source']}" + ("" if rec["complete"] else " (our rows only)"))
        lines.append(f"  {'family':18} {'declared':>8} {'rows':>6} {'missing':>8} {'extra':>6}")
        for family, c in rec["families"].items():
            lines.append(f"  {family:18} {c['declared']:>8} {c['rows']:>6} {c['missing']:>8} {c['extra']:>6}")
        total = {k: len(rec[k]) for k in ("declared", "rows", "missing", "extra")}
        lines.append(f"  {'all':18} {total['declared']:>8} {total['rows']:>6} {total['missing']:>8} {total['extra']:>6}")
        if rec["missing"]:
            shown = rec["missing"][:SHOWN]
            more = len(rec["missing"]) - len(shown)
            lines.append("  missing (declared, no row): " + ", ".join(shown) + (f", and {more} more (--json)" if more else ""))
    return "\n".join(lines)


def main(args) -> int:
    tc = toolchain.discover(args.llvm_bin, args.timeout)
    chosen = [TARGETS[t] for t in dict.fromkeys(args.target or sorted(TARGETS))]
    try:
        records = {t.name: target_record(tc, t) for t in chosen}
    except toolchain.ProbeDied as died:
        raise InputError(f"cannot tell what this build declares: {died.message}") from None
    if args.json:
        doc = {"llvm": tc.version, "llvm_bin": str(tc.bin_dir or "PATH"), "targets": records}
        print(files.json_text(doc))
    else:
        print(table(tc.version, str(tc.bin_dir or "PATH"), records))
    missing = sum(len(r["missing"]) for r in records.values())
    if missing and not args.json:
        print(f"harness: {missing} declared matrix intrinsic(s) have no row", file=sys.stderr)
    return 1 if missing else 0


COMMANDS = {"coverage": main}
