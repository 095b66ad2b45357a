#!/usr/bin/env python3
"""Benchmark `harness run` on the full shipped matrix against the raw tools, in one run.

(a) raw lower bound: the fewest tool processes that decide the same verdicts, their modules
    written to disk beforehand and piped straight through the tools with no harness (see
    raw_jobs), with the same number of parallel workers.
(b) `harness run` as a user runs it (a fresh process: start-up, expansion, probes, verdicts).
Prints the median of --repeat runs of each and the ratio b/a.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.specs import cases, emit, matrix  # noqa: E402
from harness.tools import runner, toolchain  # noqa: E402


def raw_jobs(groups, tc, workdir: Path) -> list[str]:
    """Shell pipelines over pre-written modules: the least tool work that decides every verdict,
    with the answers known beforehand. Per module the harness would build (runner.batches): the
    calls the verifier rejects in one module through llvm-as; each call on a CPU without its
    instruction alone through llc per selector (llc stops at the first); the rest per selector
    through [opt -S |] llc | llvm-mc, and for object checks llc -filetype=obj | llvm-objdump -d.
    """
    tool = lambda command: shlex.join([tc.require(command.tool), *command.args])
    jobs = []
    for n, batch in enumerate(runner.batches(groups)):
        members = [c for _, c in batch.members]
        rejected = [c for c in members if c.rejection]
        absent = [c for c in members if not c.rejection and c.cpu not in c.intrinsic.cpus]
        rest = [c for c in members if not c.rejection and c.cpu in c.intrinsic.cpus]
        if rejected:
            path = workdir / f"{n}.verifier.ll"
            path.write_text(emit.module(rejected).text)
            jobs.append(f"{tc.require('llvm-as')} -o /dev/null {path}")
        for i, c in enumerate(absent):
            path = workdir / f"{n}.absent.{i}.ll"
            path.write_text(emit.module([c]).text)
            jobs += [f"{tool(cases.llc_command(c, sel))} < {path}" for sel in batch.selectors]
        if not rest:
            continue
        first, path = rest[0], workdir / f"{n}.ll"
        path.write_text(emit.module(rest).text)
        head = f"{tool(cases.opt_command(first, first.pipeline))} -S < {path} | " if first.pipeline != "none" else ""
        source = "" if head else f" < {path}"
        for sel in batch.selectors:
            closing = cases.mc_command(first, first.intrinsic.target.stdin_name)
            jobs.append(f"{head}{tool(cases.llc_command(first, sel))}{source} | {tool(closing)}")
            if first.check == "object":
                obj = tool(cases.llc_command(first, sel, obj=True))
                jobs.append(f"{head}{obj}{source} | {tc.require('llvm-objdump')} -d - > /dev/null")
    return jobs


def time_raw(jobs: list[str], workers: int) -> float:
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:  # same environment as the harness gives its tools
        list(pool.map(lambda cmd: subprocess.run(cmd, shell=True, capture_output=True, env=toolchain.TOOL_ENV), jobs))
    return time.perf_counter() - start


def time_harness(args: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "harness", "run", *args], capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"harness run failed:\n{proc.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--llvm-bin", default=None)
    parser.add_argument(
        "--spec",
        action="append",
        metavar="FILE",
        help="only these spec files of cases/ (default: all), e.g. f8f6f4-runtime-formats.yaml",
    )
    opts = parser.parse_args()
    tc = toolchain.discover(opts.llvm_bin)
    workers = os.cpu_count() or 1
    specs = matrix.spec_files(ROOT / "cases")
    if opts.spec:
        specs = [p for p in specs if p.name in {Path(s).name for s in opts.spec}]
    groups = cases.group(matrix.plan(specs))
    n_cases = sum(len(g.cases) * len(g.selectors) for g in groups)
    harness_args = ["--llvm-bin", str(tc.bin_dir)] if tc.bin_dir else []
    harness_args += [arg for p in specs for arg in ("--spec", p.name)] if opts.spec else []
    with tempfile.TemporaryDirectory() as tmp:
        jobs = raw_jobs(groups, tc, Path(tmp))
        raw, full = [], []
        for _ in range(opts.repeat):  # interleaved, so both see the same machine state
            raw.append(time_raw(jobs, workers))
            full.append(time_harness(harness_args))
    a, b = statistics.median(raw), statistics.median(full)
    print(f"{tc.describe()}; {n_cases} case-selector verdicts in {len(groups)} lit files; {workers} workers")
    print(f"(a) raw tools, {len(jobs)} pipelines:  {a:6.3f} s  (runs: {', '.join(f'{x:.3f}' for x in raw)})")
    print(f"(b) harness run:                 {b:6.3f} s  (runs: {', '.join(f'{x:.3f}' for x in full)})")
    print(f"ratio b/a: {b / a:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
