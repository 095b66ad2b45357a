#!/usr/bin/env python3
"""Run the space of a build (`harness run --space full`, or representative) and count the tool
processes it started against the fewest that decide it.

The fewest: a cell expected to be rejected (a processor without the instruction) needs an llc of
its own, since llc stops at the first call it cannot select; the cells expected to compile share
one llc and one assembler per module (target, processor, -mattr, -O level, selector). Prints the
cells, the processes by tool, the bound, their ratio, and the wall and CPU seconds of the run
(children included).

  python ci/space_count.py [--space full|representative] [--llvm-bin DIR] [-j N] [--timeout S]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.checks import expand  # noqa: E402
from harness.reports import expectations  # noqa: E402
from harness.specs import selection  # noqa: E402
from harness.tools import toolchain  # noqa: E402
from harness.tools.runner import Runner  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--space", choices=("full", "representative"), default="full")
    p.add_argument("--llvm-bin")
    p.add_argument("-j", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=10.0)
    args = p.parse_args()
    start = time.monotonic()
    tc = toolchain.discover(args.llvm_bin, args.timeout)
    flags = selection.space_args(args.space)
    planned = selection.space(flags, lambda t: tc.cpus(t.registered) if t.registered in tc.targets else None)
    groups = expand.lit_groups(planned, Path(__file__).resolve().parent.parent / "cases")
    started: Counter = Counter()
    lock = threading.Lock()
    real_run = tc.run

    def counted(name, argv, stdin="", binary=False):
        with lock:
            started[name] += 1
        return real_run(name, argv, stdin, binary)

    tc.run = counted  # type: ignore[method-assign]
    outcomes = Runner(tc, args.j, facts=False).run(groups)
    wall = time.monotonic() - start
    judged = expectations.Judge(Path(__file__).resolve().parent.parent / "cases", tc.version, groups).all(outcomes)
    cells = Counter()
    modules = set()
    for o in outcomes:
        c = o.case
        runs = c.intrinsic.runs_on(c.cpu)
        cells[(c.intrinsic.target.name, str(o.selector), "compile" if runs else "absent")] += 1
        if runs:
            modules.add((c.intrinsic.target.name, c.cpu, c.intrinsic.features_on(c.cpu), c.opt, str(o.selector)))
    absent = sum(n for k, n in cells.items() if k[2] == "absent")
    fewest = absent + 2 * len(modules)
    usage = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(u.ru_utime + u.ru_stime for u in usage)
    print(f"{tc.describe()}: the {args.space} space, {sum(cells.values())} cells")
    for key, n in sorted(cells.items()):
        print(f"  {' '.join(key)}: {n}")
    print(expectations.summary(expectations.counts(judged)))
    tools = sum(started.values())
    print(f"tool processes: {tools} ({', '.join(f'{k} {v}' for k, v in started.most_common())})")
    print(f"fewest that decide it: {fewest} ({absent} absent cells, {len(modules)} modules x 2)")
    print(f"ratio: {tools / fewest:.3f}")
    print(f"wall {wall:.0f} s, CPU {cpu:.0f} s (children included), -j {args.j}, --timeout {args.timeout:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
